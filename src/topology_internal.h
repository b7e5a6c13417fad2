/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * What topology.c and topology_blocks.c (the memory block links that give
 * each node's physical address ranges) share; nothing else includes it.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "topology.h"

#define NODE_DIR "sys/devices/system/node"
#define MEMORY_DIR "sys/devices/system/memory"

struct topo_reader {
	int root;
	char *err;
	size_t errlen;
};

/* Records "/path: what is wrong" in rd->err (the first failure wins, since
 * later ones are usually consequences) and returns r. */
int topo_fail(struct topo_reader *rd, int r, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* topo_fail() for a failed read of path (r: its -errno). */
int topo_fail_read(struct topo_reader *rd, int r, const char *path);
/* Append a warning to t->notes ("/path: what, and what follows from it");
 * past TOPO_MAX_NOTES only t->nr_notes_dropped counts it. */
void topo_note(struct topology *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* sys/devices/system/memory/block_size_bytes into *ret; a missing file (no
 * memory block devices) is *ret_have = false, not an error. */
int topo_read_block_size(struct topo_reader *rd, uint64_t *ret, bool *ret_have);
/* Node n's address ranges from its memoryN links (online blocks, merged),
 * and its nr_blocks / nr_offline / nr_dangling; a dangling link is left
 * out with a note in t. */
int topo_read_ranges(struct topo_reader *rd, struct topology *t, struct numa_node *n);
/* A note for every pair of nodes whose ranges overlap (a memory block
 * linked from both). */
void topo_check_overlaps(struct topology *t);
