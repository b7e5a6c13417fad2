/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Rank the memory nodes into tiers and pick the migration pairs.
 *
 * The kernel's memory_tiering ids are trusted only when they actually
 * separate the memory nodes: the kernel puts a CPU-less node without
 * HMAT/CDAT data into the DRAM default tier (memory_tier4), so "one tier for
 * everything" usually means "the kernel does not know", not "all nodes are
 * equally fast".  Then CPU-less nodes are taken as slower, the
 * farther from the CPUs the slower (the same notion the kernel's demotion
 * targets use: nearest node of the next lower tier).  Promotion skips the
 * tiers in between and goes to the nearest node of the top tier.
 */
#include "tiers.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define TIERING_DIR "/sys/devices/virtual/memory_tiering"

static int explain(char *why, size_t whylen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int explain(char *why, size_t whylen, const char *fmt, ...)
{
	va_list ap;

	if (why && whylen > 0) {
		va_start(ap, fmt);
		vsnprintf(why, whylen, fmt, ap);
		va_end(ap);
	}
	return -ENODEV;
}

/* "0,1,3" for the nodes whose index has mark set. */
static void format_nids(const struct topology *t, const bool *mark, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < t->nr_nodes && len < size; i++) {
		int n;

		if (!mark[i])
			continue;
		n = snprintf(buf + len, size - len, "%s%d", len ? "," : "", t->nodes[i].nid);
		if (n < 0)
			break;
		len += (size_t)n;
	}
}

/* Distinct values of key[] over the memory nodes, ascending, become ranks
 * 0, 1, 2...  Returns the number of ranks. */
static unsigned rank_by_key(const struct topology *t, const bool *mem, const long *key, int *rank)
{
	unsigned nr = 0;
	long last = 0;
	bool have_last = false;

	for (unsigned i = 0; i < t->nr_nodes; i++)
		rank[i] = -1;

	for (;;) {
		bool found = false;
		long next = 0;

		for (unsigned i = 0; i < t->nr_nodes; i++) {
			if (!mem[i] || (have_last && key[i] <= last))
				continue;
			if (!found || key[i] < next) {
				next = key[i];
				found = true;
			}
		}
		if (!found)
			break;
		for (unsigned i = 0; i < t->nr_nodes; i++)
			if (mem[i] && key[i] == next)
				rank[i] = (int)nr;
		nr++;
		last = next;
		have_last = true;
	}
	return nr;
}

/* The node of rank `want` nearest to node i by i's distance row; ties go to
 * the lowest nid, which is the lowest index as nodes[] is sorted by nid. */
static int nearest(const struct topology *t, const int *rank, unsigned i, int want)
{
	int best = -1;

	for (unsigned j = 0; j < t->nr_nodes; j++) {
		if (rank[j] != want)
			continue;
		if (best < 0 || t->distance[i][j] < t->distance[i][best])
			best = (int)j;
	}
	return best;
}

/* The fastest rank that holds a memory node with CPUs (the top tier, where
 * the tasks that touch memory run), or 0 when no memory node has CPUs. */
static int top_rank(const struct topology *t, const int *rank)
{
	int top = -1;

	for (unsigned i = 0; i < t->nr_nodes; i++)
		if (rank[i] >= 0 && t->nodes[i].has_cpu && (top < 0 || rank[i] < top))
			top = rank[i];
	return top < 0 ? 0 : top;
}

/*
 * Where node i, slower than the top tier, promotes into: the nearest node of the top
 * rank by i's distance row, preferring nodes with CPUs.  A tie goes to the
 * node that stepping up one tier at a time from i reaches (so a CXL node
 * behind another socket's CXL node stays with that socket when the SLIT
 * cannot tell), then to the lowest nid.
 */
static int promote_target(const struct topology *t, const int *rank, unsigned i, int top)
{
	bool cpu = false;
	int best = -1, chain = (int)i;

	for (unsigned j = 0; j < t->nr_nodes; j++)
		cpu |= rank[j] == top && t->nodes[j].has_cpu;
	while (chain >= 0 && rank[chain] > top)
		chain = nearest(t, rank, (unsigned)chain, rank[chain] - 1);
	for (unsigned j = 0; j < t->nr_nodes; j++) {
		if (rank[j] != top || (cpu && !t->nodes[j].has_cpu))
			continue;
		if (best < 0 || t->distance[i][j] < t->distance[i][best] ||
		    (t->distance[i][j] == t->distance[i][best] && (int)j == chain))
			best = (int)j;
	}
	return best;
}

int tiers_build(const struct topology *t, struct tier_map *ret, char *why, size_t whylen)
{
	struct tier_map m = { 0 };
	bool mem[TOPO_MAX_NODES] = { false }, cpu_mem[TOPO_MAX_NODES] = { false };
	long key[TOPO_MAX_NODES] = { 0 };
	unsigned nr_mem = 0, nr_cpu = 0;
	bool kernel_usable;
	int top;
	char list[TOPO_MAX_NODES * 4];

	if (why && whylen > 0)
		why[0] = '\0';

	for (unsigned i = 0; i < t->nr_nodes; i++) {
		mem[i] = t->nodes[i].has_memory;
		nr_mem += mem[i];
		nr_cpu += t->nodes[i].has_cpu;
		cpu_mem[i] = mem[i] && t->nodes[i].has_cpu;
	}

	if (nr_mem == 0)
		return explain(why, whylen, "no NUMA node has memory: nothing to tier");
	format_nids(t, mem, list, sizeof(list));
	if (nr_mem == 1)
		return explain(why, whylen,
			       "only one NUMA node with memory (node%s): nothing to tier", list);

	/* Kernel tiers: every memory node must have one, and they must differ. */
	kernel_usable = t->have_tiers;
	m.fallback_warn = true;
	if (t->no_tiering_dir)
		snprintf(m.fallback, sizeof(m.fallback), TIERING_DIR " is missing");
	else if (!t->have_tiers)
		snprintf(m.fallback, sizeof(m.fallback), TIERING_DIR " has no memory_tierN");
	for (unsigned i = 0; i < t->nr_nodes && kernel_usable; i++) {
		if (!mem[i])
			continue;
		if (t->nodes[i].tier < 0) {
			kernel_usable = false;
			snprintf(m.fallback, sizeof(m.fallback), "node%d is in no " TIERING_DIR
				 "/memory_tierN/nodelist", t->nodes[i].nid);
		}
		key[i] = t->nodes[i].tier;
	}
	if (kernel_usable) {
		m.nr_tiers = rank_by_key(t, mem, key, m.rank);
		kernel_usable = m.nr_tiers >= 2;
		if (!kernel_usable) {
			m.fallback_warn = false;
			snprintf(m.fallback, sizeof(m.fallback),
				 "the kernel puts every memory node into one memory tier");
		}
	}

	if (!kernel_usable) {
		if (nr_cpu == 0)
			return explain(why, whylen,
				       "no NUMA node has CPUs, so there is no fast tier to promote into "
				       "and memory_tiering does not separate the nodes (%s)", list);

		/* CPU nodes with memory are key 0; a CPU-less memory node's key is
		 * its distance to the nearest CPU node (always > 0 for real SLIT
		 * values, and equal distances give equal ranks). */
		for (unsigned i = 0; i < t->nr_nodes; i++) {
			long d = -1;

			if (!mem[i] || cpu_mem[i]) {
				key[i] = 0;
				continue;
			}
			for (unsigned j = 0; j < t->nr_nodes; j++)
				if (t->nodes[j].has_cpu && (d < 0 || t->distance[i][j] < d))
					d = t->distance[i][j];
			key[i] = d > 0 ? d : 1;
		}
		m.nr_tiers = rank_by_key(t, mem, key, m.rank);
	}

	if (m.nr_tiers < 2) {
		if (t->have_tiers)
			return explain(why, whylen,
				       "all memory nodes (%s) are in one memory tier and have CPUs: "
				       "nothing to tier; a slow memory node is CPU-less or in a lower "
				       "memory_tier", list);
		return explain(why, whylen,
			       "all memory nodes (%s) have CPUs and the kernel reports no memory "
			       "tiers (no %s): nothing to tier; a slow memory node is CPU-less or in "
			       "a lower memory_tier", list, TIERING_DIR);
	}
	m.from_kernel = kernel_usable;
	if (kernel_usable) {
		m.fallback[0] = '\0';
		m.fallback_warn = false;
	}

	top = top_rank(t, m.rank);
	for (unsigned i = 0; i < t->nr_nodes; i++) {
		int r = m.rank[i], to;

		if (r < 0)
			continue;
		/* Hot pages go straight to the top tier, as NUMA balancing's
		 * tiering promotes them to the faulting CPU's node: a hop per
		 * tier would make them wait a whole promotion per tier, and
		 * the middle tier is no place for them.  Cold pages step down
		 * one tier at a time, so the coldest end up lowest. */
		if (r > 0) {
			to = r > top ? promote_target(t, m.rank, i, top) : nearest(t, m.rank, i, r - 1);
			if (to >= 0)
				m.promote[m.nr_promote++] = (struct migration_pair) {
					.from_nid = t->nodes[i].nid, .to_nid = t->nodes[to].nid };
		}
		to = nearest(t, m.rank, i, r + 1);
		if (to >= 0)
			m.demote[m.nr_demote++] = (struct migration_pair) {
				.from_nid = t->nodes[i].nid, .to_nid = t->nodes[to].nid };
	}

	*ret = m;
	return 0;
}

int tiers_describe(const struct topology *t, const struct tier_map *m, char *buf, size_t size)
{
	size_t off = 0;

	if (size == 0)
		return -ENOBUFS;
	buf[0] = '\0';
	for (unsigned i = 0; t && i < t->nr_nodes; i++) {
		const struct numa_node *n = &t->nodes[i];
		int k;

		if (m->rank[i] < 0)
			continue;
		k = snprintf(buf + off, size - off, "%snode%d: tier %d%s, %" PRIu64 " MiB",
			     off ? "; " : "", n->nid, m->rank[i], n->has_cpu ? "" : " (CPU-less)",
			     n->mem_total >> 20);
		if (k < 0 || (size_t)k >= size - off)
			return -ENOBUFS;
		off += (size_t)k;
	}
	return 0;
}
