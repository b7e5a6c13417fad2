/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sysfs_io.h"
#include "testutil.h"
#include "tiers.h"

struct fx {
	struct topology *t;
	struct tier_map *m;
	char why[512];
};

static void fx_alloc(struct fx *f)
{
	f->t = calloc(1, sizeof(*f->t));
	f->m = calloc(1, sizeof(*f->m));
	assert_non_null(f->t);
	assert_non_null(f->m);
	f->why[0] = '\0';
}

static void fx_free(struct fx *f)
{
	free(f->t);
	free(f->m);
}

static void fx_read(struct fx *f, const char *name)
{
	char *path = tu_fixture_path(name), err[512];
	int root = io_root_open(path);

	assert_true(root >= 0);
	fx_alloc(f);
	if (topology_read(root, f->t, err, sizeof(err)) < 0)
		fail_msg("%s: %s", name, err);
	close(root);
	free(path);
}

/* n nodes, all with CPUs and memory, no kernel tiers, distance 10/20. */
static void synth(struct fx *f, unsigned n)
{
	fx_alloc(f);
	f->t->nr_nodes = n;
	f->t->page_size = 4096;
	for (unsigned i = 0; i < n; i++) {
		f->t->nodes[i].nid = (int)i;
		f->t->nodes[i].has_cpu = true;
		f->t->nodes[i].has_memory = true;
		f->t->nodes[i].mem_total = UINT64_C(1) << 30;
		f->t->nodes[i].tier = -1;
		for (unsigned j = 0; j < n; j++)
			f->t->distance[i][j] = i == j ? 10 : 20;
	}
}

static void set_dist(struct topology *t, unsigned a, unsigned b, int d)
{
	t->distance[a][b] = d;
	t->distance[b][a] = d;
}

static int build(struct fx *f)
{
	return tiers_build(f->t, f->m, f->why, sizeof(f->why));
}

static void assert_ranks(const struct tier_map *m, unsigned n, const int *want)
{
	for (unsigned i = 0; i < n; i++)
		if (m->rank[i] != want[i])
			fail_msg("rank[%u] = %d, want %d", i, m->rank[i], want[i]);
}

/* want: from,to pairs. */
static void assert_pairs(const struct migration_pair *p, unsigned nr, unsigned want_nr,
			 const int *want)
{
	assert_int_equal(nr, want_nr);
	for (unsigned i = 0; i < nr; i++)
		if (p[i].from_nid != want[2 * i] || p[i].to_nid != want[2 * i + 1])
			fail_msg("pair %u = %d->%d, want %d->%d", i, p[i].from_nid, p[i].to_nid,
				 want[2 * i], want[2 * i + 1]);
}

static void expect_nodev(struct fx *f, const char *needle)
{
	struct tier_map *orig = malloc(sizeof(*orig));

	assert_non_null(orig);
	memset(f->m, 0x5a, sizeof(*f->m));
	memcpy(orig, f->m, sizeof(*orig));
	assert_int_equal(build(f), -ENODEV);
	if (!strstr(f->why, needle))
		fail_msg("why \"%s\" does not contain \"%s\"", f->why, needle);
	assert_memory_equal(f->m, orig, sizeof(*orig));
	free(orig);
}

static void test_vm_2node(void **state)
{
	struct fx f;

	fx_read(&f, "vm-2node");
	assert_int_equal(build(&f), 0);
	assert_string_equal(f.why, "");
	assert_true(f.m->from_kernel);
	assert_string_equal(f.m->fallback, "");
	assert_false(f.m->fallback_warn);
	assert_int_equal(f.m->nr_tiers, 2);
	assert_ranks(f.m, 2, (const int[]) { 0, 1 });
	assert_pairs(f.m->promote, f.m->nr_promote, 1, (const int[]) { 1, 0 });
	assert_pairs(f.m->demote, f.m->nr_demote, 1, (const int[]) { 0, 1 });
	fx_free(&f);
}

static void test_two_node_no_tiers(void **state)
{
	struct fx f;

	fx_read(&f, "two-node-no-tiers");
	assert_int_equal(build(&f), 0);
	assert_false(f.m->from_kernel);
	/* No kernel of ours lacks memory_tiering: a fallback to warn about. */
	assert_string_equal(f.m->fallback, "/sys/devices/virtual/memory_tiering is missing");
	assert_true(f.m->fallback_warn);
	assert_int_equal(f.m->nr_tiers, 2);
	assert_ranks(f.m, 2, (const int[]) { 0, 1 });
	assert_pairs(f.m->promote, f.m->nr_promote, 1, (const int[]) { 1, 0 });
	assert_pairs(f.m->demote, f.m->nr_demote, 1, (const int[]) { 0, 1 });
	fx_free(&f);
}

/* A CPU-less node without HMAT data sits in memory_tier4 with
 * DRAM; the kernel's single tier must not hide it. */
static void test_same_tier_cpuless(void **state)
{
	struct fx f;

	fx_read(&f, "same-tier-cpuless");
	assert_int_equal(f.t->nodes[1].tier, 4);
	assert_int_equal(build(&f), 0);
	assert_false(f.m->from_kernel);
	/* The kernel's usual view of a node it knows nothing about: said, not
	 * warned about. */
	assert_string_equal(f.m->fallback, "the kernel puts every memory node into one memory tier");
	assert_false(f.m->fallback_warn);
	assert_ranks(f.m, 2, (const int[]) { 0, 1 });
	assert_pairs(f.m->promote, f.m->nr_promote, 1, (const int[]) { 1, 0 });
	assert_pairs(f.m->demote, f.m->nr_demote, 1, (const int[]) { 0, 1 });
	fx_free(&f);
}

static void test_one_node(void **state)
{
	struct fx f;

	fx_read(&f, "one-node");
	expect_nodev(&f, "only one NUMA node with memory (node0): nothing to tier");
	fx_free(&f);
}

static void test_three_tiers(void **state)
{
	struct fx f;

	fx_read(&f, "three-tiers");
	assert_int_equal(build(&f), 0);
	assert_true(f.m->from_kernel);
	assert_int_equal(f.m->nr_tiers, 3);
	assert_ranks(f.m, 3, (const int[]) { 0, 1, 2 });
	assert_pairs(f.m->promote, f.m->nr_promote, 2, (const int[]) { 1, 0, 2, 0 });
	assert_pairs(f.m->demote, f.m->nr_demote, 2, (const int[]) { 0, 1, 1, 2 });

	/* Same machine without memory_tiering: distances 20 and 30 give the
	 * same three ranks. */
	f.t->have_tiers = false;
	assert_int_equal(build(&f), 0);
	assert_false(f.m->from_kernel);
	assert_ranks(f.m, 3, (const int[]) { 0, 1, 2 });
	assert_pairs(f.m->promote, f.m->nr_promote, 2, (const int[]) { 1, 0, 2, 0 });
	assert_pairs(f.m->demote, f.m->nr_demote, 2, (const int[]) { 0, 1, 1, 2 });
	fx_free(&f);
}

static void test_two_sockets_cxl(void **state)
{
	struct fx f;

	fx_read(&f, "two-sockets-cxl");
	assert_int_equal(build(&f), 0);
	assert_true(f.m->from_kernel);
	assert_int_equal(f.m->nr_tiers, 2);
	assert_ranks(f.m, 4, (const int[]) { 0, 0, 1, 1 });
	assert_pairs(f.m->promote, f.m->nr_promote, 2, (const int[]) { 2, 0, 3, 1 });
	assert_pairs(f.m->demote, f.m->nr_demote, 2, (const int[]) { 0, 2, 1, 3 });
	fx_free(&f);
}

static void test_holes(void **state)
{
	struct fx f;

	fx_read(&f, "holes");
	assert_int_equal(build(&f), 0);
	assert_pairs(f.m->promote, f.m->nr_promote, 1, (const int[]) { 1, 0 });
	assert_pairs(f.m->demote, f.m->nr_demote, 1, (const int[]) { 0, 1 });
	fx_free(&f);
}

static void test_all_cpu_nodes_one_tier(void **state)
{
	struct fx f;

	synth(&f, 2);
	f.t->have_tiers = true;
	f.t->nodes[0].tier = 4;
	f.t->nodes[1].tier = 4;
	expect_nodev(&f, "all memory nodes (0,1) are in one memory tier and have CPUs: nothing to "
			 "tier; a slow memory node is CPU-less or in a lower memory_tier");

	/* Without memory_tiering the message must not claim a tier. */
	f.t->have_tiers = false;
	f.t->nodes[0].tier = f.t->nodes[1].tier = -1;
	expect_nodev(&f, "all memory nodes (0,1) have CPUs");
	assert_null(strstr(f.why, "are in one memory tier"));
	/* why may be NULL. */
	assert_int_equal(tiers_build(f.t, f.m, NULL, 0), -ENODEV);
	fx_free(&f);
}

static void test_no_memory(void **state)
{
	struct fx f;

	synth(&f, 2);
	f.t->nodes[0].has_memory = f.t->nodes[1].has_memory = false;
	expect_nodev(&f, "no NUMA node has memory");

	/* A memoryless CPU node next to one memory node: still one. */
	f.t->nodes[1].has_memory = true;
	expect_nodev(&f, "only one NUMA node with memory (node1)");
	fx_free(&f);
}

static void test_no_cpu_nodes(void **state)
{
	struct fx f;

	synth(&f, 2);
	f.t->nodes[0].has_cpu = f.t->nodes[1].has_cpu = false;
	expect_nodev(&f, "no NUMA node has CPUs");

	/* Kernel tiers that separate them are still used. */
	f.t->have_tiers = true;
	f.t->nodes[0].tier = 4;
	f.t->nodes[1].tier = 22;
	assert_int_equal(build(&f), 0);
	assert_true(f.m->from_kernel);
	assert_pairs(f.m->promote, f.m->nr_promote, 1, (const int[]) { 1, 0 });
	fx_free(&f);
}

/* Kernel ids are ordered numerically, not by nid. */
static void test_kernel_tier_order(void **state)
{
	struct fx f;

	synth(&f, 3);
	f.t->have_tiers = true;
	f.t->nodes[0].tier = 281;
	f.t->nodes[1].tier = 4;
	f.t->nodes[2].tier = 22;
	assert_int_equal(build(&f), 0);
	assert_true(f.m->from_kernel);
	assert_int_equal(f.m->nr_tiers, 3);
	assert_ranks(f.m, 3, (const int[]) { 2, 0, 1 });
	/* Node 0 (slowest) goes straight to the top tier (node 1). */
	assert_pairs(f.m->promote, f.m->nr_promote, 2, (const int[]) { 0, 1, 2, 1 });
	assert_pairs(f.m->demote, f.m->nr_demote, 2, (const int[]) { 1, 2, 2, 0 });
	fx_free(&f);
}

/* A memory node the kernel put in no tier makes the kernel's view unusable. */
static void test_kernel_tier_missing_node(void **state)
{
	struct fx f;

	synth(&f, 3);
	f.t->have_tiers = true;
	f.t->nodes[0].tier = 4;
	f.t->nodes[1].tier = 56;
	f.t->nodes[2].has_cpu = false;
	f.t->nodes[1].has_cpu = false;
	set_dist(f.t, 0, 2, 30);
	assert_int_equal(build(&f), 0);
	assert_false(f.m->from_kernel);
	assert_ranks(f.m, 3, (const int[]) { 0, 1, 2 });
	assert_string_equal(f.m->fallback, "node2 is in no /sys/devices/virtual/memory_tiering/memory_tierN/nodelist");
	assert_true(f.m->fallback_warn);

	/* memory_tiering without any memory_tierN. */
	f.t->have_tiers = false;
	f.t->nodes[0].tier = f.t->nodes[1].tier = -1;
	assert_int_equal(build(&f), 0);
	assert_string_equal(f.m->fallback, "/sys/devices/virtual/memory_tiering has no memory_tierN");
	assert_true(f.m->fallback_warn);
	fx_free(&f);
}

static void test_memoryless_node_ignored(void **state)
{
	struct fx f;

	synth(&f, 3);
	f.t->nodes[1].has_memory = false; /* CPUs only */
	f.t->nodes[2].has_cpu = false;
	set_dist(f.t, 1, 2, 15);
	set_dist(f.t, 0, 2, 25);
	assert_int_equal(build(&f), 0);
	/* Node 2's distance to the nearest CPU node (node1, 15) ranks it, but
	 * node 1 has no memory to promote into: node 0 is the target. */
	assert_ranks(f.m, 3, (const int[]) { 0, -1, 1 });
	assert_int_equal(f.m->nr_tiers, 2);
	assert_pairs(f.m->promote, f.m->nr_promote, 1, (const int[]) { 2, 0 });
	assert_pairs(f.m->demote, f.m->nr_demote, 1, (const int[]) { 0, 2 });
	fx_free(&f);
}

/* CPU node 0; CPU-less 1 (20), 2 (30), 3 (20): equal distances share a rank,
 * ties go to the lowest nid. */
static void test_distance_ranks_and_ties(void **state)
{
	struct fx f;

	synth(&f, 4);
	for (unsigned i = 1; i < 4; i++)
		f.t->nodes[i].has_cpu = false;
	set_dist(f.t, 0, 1, 20);
	set_dist(f.t, 0, 2, 30);
	set_dist(f.t, 0, 3, 20);
	set_dist(f.t, 1, 2, 25);
	set_dist(f.t, 3, 2, 15);
	set_dist(f.t, 1, 3, 20);
	assert_int_equal(build(&f), 0);
	assert_ranks(f.m, 4, (const int[]) { 0, 1, 2, 1 });
	assert_int_equal(f.m->nr_tiers, 3);
	assert_pairs(f.m->promote, f.m->nr_promote, 3, (const int[]) { 1, 0, 2, 0, 3, 0 });
	assert_pairs(f.m->demote, f.m->nr_demote, 3, (const int[]) { 0, 1, 1, 2, 3, 2 });
	fx_free(&f);
}

/* 8 nodes, 4 sockets with one CXL node each, all distances equal: every
 * choice is a tie and goes to the lowest nid. */
static void test_8_nodes_equal_distances(void **state)
{
	struct fx f;

	synth(&f, 8);
	for (unsigned i = 4; i < 8; i++)
		f.t->nodes[i].has_cpu = false;
	assert_int_equal(build(&f), 0);
	assert_false(f.m->from_kernel);
	assert_ranks(f.m, 8, (const int[]) { 0, 0, 0, 0, 1, 1, 1, 1 });
	assert_pairs(f.m->promote, f.m->nr_promote, 4, (const int[]) { 4, 0, 5, 0, 6, 0, 7, 0 });
	assert_pairs(f.m->demote, f.m->nr_demote, 4, (const int[]) { 0, 4, 1, 4, 2, 4, 3, 4 });
	fx_free(&f);
}

/* 8 nodes with kernel tiers and per-socket distances. */
static void test_8_nodes_kernel_tiers(void **state)
{
	struct fx f;

	synth(&f, 8);
	f.t->have_tiers = true;
	for (unsigned i = 0; i < 8; i++) {
		f.t->nodes[i].has_cpu = i < 2;
		f.t->nodes[i].tier = i < 2 ? 4 : i < 6 ? 56 : 281;
		for (unsigned j = 0; j < 8; j++)
			if (i != j)
				f.t->distance[i][j] = 40;
	}
	/* socket A: 0, 2, 3, 6; socket B: 1, 4, 5, 7 */
	set_dist(f.t, 0, 2, 20);
	set_dist(f.t, 0, 3, 25);
	set_dist(f.t, 1, 4, 20);
	set_dist(f.t, 1, 5, 25);
	set_dist(f.t, 2, 6, 20);
	set_dist(f.t, 3, 6, 20);
	set_dist(f.t, 4, 7, 20);
	set_dist(f.t, 5, 7, 20);
	assert_int_equal(build(&f), 0);
	assert_true(f.m->from_kernel);
	assert_int_equal(f.m->nr_tiers, 3);
	assert_ranks(f.m, 8, (const int[]) { 0, 0, 1, 1, 1, 1, 2, 2 });
	/* Nodes 6 and 7 are 40 from both sockets: the tie goes to the socket
	 * that stepping up a tier at a time reaches (6 -> 2 -> 0, 7 -> 4 -> 1). */
	assert_pairs(f.m->promote, f.m->nr_promote, 6,
		     (const int[]) { 2, 0, 3, 0, 4, 1, 5, 1, 6, 0, 7, 1 });
	assert_pairs(f.m->demote, f.m->nr_demote, 6,
		     (const int[]) { 0, 2, 1, 4, 2, 6, 3, 6, 4, 7, 5, 7 });
	fx_free(&f);
}

/* Asymmetric SLIT: the pair is chosen by the row of the node that migrates. */
static void test_asymmetric_distance(void **state)
{
	struct fx f;

	synth(&f, 3);
	f.t->nodes[2].has_cpu = false;
	f.t->distance[2][0] = 30;
	f.t->distance[2][1] = 20;
	f.t->distance[0][2] = 20;
	f.t->distance[1][2] = 30;
	assert_int_equal(build(&f), 0);
	/* rank of 2: min over CPU nodes of its own row = 20 */
	assert_ranks(f.m, 3, (const int[]) { 0, 0, 1 });
	assert_pairs(f.m->promote, f.m->nr_promote, 1, (const int[]) { 2, 1 });
	assert_pairs(f.m->demote, f.m->nr_demote, 2, (const int[]) { 0, 2, 1, 2 });
	fx_free(&f);
}

/* A CPU-less node in the top tier (no HMAT data: the kernel's DRAM tier)
 * nearer the CXL node than the CPU node: promotion still goes to the node
 * with the CPUs. */
static void test_promote_prefers_cpu_node(void **state)
{
	struct fx f;

	synth(&f, 3);
	f.t->have_tiers = true;
	f.t->nodes[1].has_cpu = f.t->nodes[2].has_cpu = false;
	f.t->nodes[0].tier = f.t->nodes[1].tier = 4;
	f.t->nodes[2].tier = 56;
	set_dist(f.t, 0, 2, 20);
	set_dist(f.t, 1, 2, 15);
	assert_int_equal(build(&f), 0);
	assert_ranks(f.m, 3, (const int[]) { 0, 0, 1 });
	assert_pairs(f.m->promote, f.m->nr_promote, 1, (const int[]) { 2, 0 });
	assert_pairs(f.m->demote, f.m->nr_demote, 2, (const int[]) { 0, 2, 1, 2 });
	fx_free(&f);
}

/* A CPU-less tier faster than the CPUs' (HBM): the CPU tier is the top one.
 * CXL promotes into DRAM; DRAM still promotes one tier up into HBM. */
static void test_faster_cpuless_tier(void **state)
{
	struct fx f;

	synth(&f, 3);
	f.t->have_tiers = true;
	f.t->nodes[1].has_cpu = f.t->nodes[2].has_cpu = false;
	f.t->nodes[0].tier = 4;
	f.t->nodes[1].tier = 1;
	f.t->nodes[2].tier = 56;
	assert_int_equal(build(&f), 0);
	assert_ranks(f.m, 3, (const int[]) { 1, 0, 2 });
	assert_pairs(f.m->promote, f.m->nr_promote, 2, (const int[]) { 0, 1, 2, 0 });
	assert_pairs(f.m->demote, f.m->nr_demote, 2, (const int[]) { 0, 2, 1, 0 });
	fx_free(&f);
}

/* The largest topology: a chain of 64 ranks. */
static void test_64_node_chain(void **state)
{
	struct fx f;

	synth(&f, TOPO_MAX_NODES);
	for (unsigned i = 1; i < TOPO_MAX_NODES; i++) {
		f.t->nodes[i].has_cpu = false;
		set_dist(f.t, 0, i, 10 + (int)i);
	}
	assert_int_equal(build(&f), 0);
	assert_int_equal(f.m->nr_tiers, TOPO_MAX_NODES);
	assert_int_equal(f.m->nr_promote, TOPO_MAX_NODES - 1);
	assert_int_equal(f.m->nr_demote, TOPO_MAX_NODES - 1);
	for (unsigned i = 0; i < TOPO_MAX_NODES; i++)
		assert_int_equal(f.m->rank[i], (int)i);
	for (unsigned i = 0; i + 1 < TOPO_MAX_NODES; i++) {
		assert_int_equal(f.m->promote[i].from_nid, (int)i + 1);
		assert_int_equal(f.m->promote[i].to_nid, 0);
		assert_int_equal(f.m->demote[i].from_nid, (int)i);
		assert_int_equal(f.m->demote[i].to_nid, (int)i + 1);
	}
	fx_free(&f);
}

static void test_sparse_nids(void **state)
{
	struct fx f;

	synth(&f, 2);
	f.t->nodes[1].nid = 5;
	f.t->nodes[1].has_cpu = false;
	assert_int_equal(build(&f), 0);
	assert_pairs(f.m->promote, f.m->nr_promote, 1, (const int[]) { 5, 0 });
	assert_pairs(f.m->demote, f.m->nr_demote, 1, (const int[]) { 0, 5 });

	f.t->nodes[1].has_cpu = true;
	expect_nodev(&f, "all memory nodes (0,5)");
	fx_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vm_2node),
		cmocka_unit_test(test_two_node_no_tiers),
		cmocka_unit_test(test_same_tier_cpuless),
		cmocka_unit_test(test_one_node),
		cmocka_unit_test(test_three_tiers),
		cmocka_unit_test(test_two_sockets_cxl),
		cmocka_unit_test(test_promote_prefers_cpu_node),
		cmocka_unit_test(test_faster_cpuless_tier),
		cmocka_unit_test(test_holes),
		cmocka_unit_test(test_all_cpu_nodes_one_tier),
		cmocka_unit_test(test_no_memory),
		cmocka_unit_test(test_no_cpu_nodes),
		cmocka_unit_test(test_kernel_tier_order),
		cmocka_unit_test(test_kernel_tier_missing_node),
		cmocka_unit_test(test_memoryless_node_ignored),
		cmocka_unit_test(test_distance_ranks_and_ties),
		cmocka_unit_test(test_8_nodes_equal_distances),
		cmocka_unit_test(test_8_nodes_kernel_tiers),
		cmocka_unit_test(test_asymmetric_distance),
		cmocka_unit_test(test_64_node_chain),
		cmocka_unit_test(test_sparse_nids),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
