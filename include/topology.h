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
	uint64_t wmark_min, wmark_low, wmark_high; /* bytes, summed over zones */
	bool have_wmarks;
};

struct topology {
	unsigned nr_nodes;
	struct numa_node nodes[TOPO_MAX_NODES];       /* online nodes, by nid */
	int distance[TOPO_MAX_NODES][TOPO_MAX_NODES]; /* by index into nodes[] */
	bool have_tiers;                              /* memory_tiering exists */
	uint64_t block_size;
	uint64_t page_size;
};

/* Read everything.  -ENOENT when sys/devices/system/node is missing; other
 * -errno for unreadable or malformed files (err names the path).  *ret is
 * only written on success; err may be NULL. */
int topology_read(int root, struct topology *ret, char *err, size_t errlen);

/* Refresh only mem_total/mem_free of every node (cheap, every period).  0, or
 * -errno with *t untouched. */
int topology_refresh_meminfo(int root, struct topology *t);

/* Index of nid in t->nodes, or -1. */
int topology_index(const struct topology *t, int nid);
/* The node of nid, or NULL. */
const struct numa_node *topology_node(const struct topology *t, int nid);
