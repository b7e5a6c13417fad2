/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * Acquire: read the NUMA topology, memory tiers, node address ranges and zone
 * watermarks from sysfs/procfs (relative to a root fd) into plain structs.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TOPO_MAX_NODES 64
#define TOPO_MAX_RANGES 128

struct addr_range {
	uint64_t start, end; /* physical, [start, end) */
};

struct numa_node {
	int nid;
	bool has_cpu;
	bool has_memory;              /* in has_memory (N_MEMORY) */
	uint64_t mem_total, mem_free; /* bytes, nodeN/meminfo */
	int tier;                     /* memory_tierN id, -1 when unknown */
	bool has_perf;                /* access0 read_latency present */
	uint64_t read_latency_ns;
	unsigned nr_ranges;
	struct addr_range ranges[TOPO_MAX_RANGES];
	unsigned nr_blocks;           /* memory block links (nodeN/memoryM) */
	unsigned nr_offline;          /* ...of blocks not online: not in ranges */
	unsigned nr_dangling;         /* ...whose block is gone: not in ranges */
	uint64_t wmark_min, wmark_low, wmark_high; /* bytes, summed over zones */
	bool have_wmarks;
	int wmark_err;                /* without them: -ENOENT no proc/zoneinfo,
	                               * -ENODATA no zone of this node in it */
};

#define TOPO_MAX_NOTES 8
#define TOPO_NOTE_MAX 320

struct topology {
	unsigned nr_nodes;
	struct numa_node nodes[TOPO_MAX_NODES];       /* online nodes, by nid */
	int distance[TOPO_MAX_NODES][TOPO_MAX_NODES]; /* by index into nodes[] */
	bool have_tiers;                              /* memory_tiering has a memory_tierN */
	bool no_tiering_dir;                          /* memory_tiering is missing */
	bool no_memory_blocks;                        /* sys/devices/system/memory is missing
	                                               * (no CONFIG_MEMORY_HOTPLUG) */
	uint64_t block_size;                          /* 0: unknown (no memory blocks) */
	uint64_t page_size;
	/* What was read but is odd, and what follows from it ("/path: ..."),
	 * for the caller to warn about: dangling block links, ranges two nodes
	 * share. */
	unsigned nr_notes, nr_notes_dropped;
	char notes[TOPO_MAX_NOTES][TOPO_NOTE_MAX];
};

/* Read everything.  -ENOENT when sys/devices/system/node is missing; other
 * -errno for unreadable or malformed files (err names the path).  What is
 * missing or odd but can be done without is in the result (no_tiering_dir,
 * no_memory_blocks, a node's wmark_err, notes) for the caller to warn
 * about.  *ret is only written on success; err may be NULL. */
int topology_read(int root, struct topology *ret, char *err, size_t errlen);

/* Refresh only mem_total/mem_free of every node (cheap, every period).  0, or
 * -errno with *t untouched. */
int topology_refresh_meminfo(int root, struct topology *t);

/* Index of nid in t->nodes, or -1. */
int topology_index(const struct topology *t, int nid);
/* The node of nid, or NULL. */
const struct numa_node *topology_node(const struct topology *t, int nid);
