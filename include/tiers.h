/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * Decide (pure): which nodes are faster than which, and the migration pairs.
 * Tiers come from memory_tiering (lower id = faster) unless that is missing
 * or puts every memory node into one tier; then CPU-less nodes are slower,
 * ranked by their distance from the CPU nodes.
 *
 * Pairs: every node demotes into its nearest node one tier down (cold pages
 * step down a tier at a time).  Every node slower than the top tier (the
 * fastest tier holding a memory node with CPUs) promotes straight into its
 * nearest top-tier node with CPUs, as NUMA balancing's tiering does; a tie
 * goes to the node that stepping up one tier at a time reaches, then to the
 * lowest nid.  A CPU-less node faster than the top tier promotes one tier up.
 */
#include "topology.h"

#define TIERS_MAX_PAIRS (2 * TOPO_MAX_NODES)

struct migration_pair {
	int from_nid; /* the node whose memory the kdamond monitors */
	int to_nid;   /* target_nid */
};

struct tier_map {
	unsigned nr_tiers;
	int rank[TOPO_MAX_NODES];      /* by index into topology.nodes; 0 = fastest; -1 = no memory */
	bool from_kernel;              /* memory_tiering was usable */
	/* Otherwise why not, e.g. "the kernel puts every memory node into
	 * memory_tier4"; fallback_warn: memory_tiering is missing or leaves a
	 * node out, which no kernel of ours does (6.1+), rather than the
	 * kernel's usual one tier for nodes it knows nothing about. */
	char fallback[160];
	bool fallback_warn;
	unsigned nr_promote;
	struct migration_pair promote[TIERS_MAX_PAIRS]; /* lower-tier node -> nearest top-tier node */
	unsigned nr_demote;
	struct migration_pair demote[TIERS_MAX_PAIRS];  /* upper-tier node -> nearest node one tier down */
};

/* Fill *ret.  Returns 0, or -ENODEV with *ret untouched when there is nothing
 * to tier (fewer than two memory nodes, a single tier, or no usable kernel
 * tiers and no CPU node), with why[] (may be NULL) explaining it. */
int tiers_build(const struct topology *t, struct tier_map *ret, char *why, size_t whylen);

/* Pure: "node0: tier 0, 464 MiB; node1: tier 1 (CPU-less), 502 MiB" for the
 * log.  0 or -ENOBUFS (buf then holds what fitted). */
int tiers_describe(const struct topology *t, const struct tier_map *m, char *buf, size_t size);
