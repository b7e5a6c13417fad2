/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sysfs_io.h"
#include "testutil.h"
#include "topology.h"

#define MiB (UINT64_C(1) << 20)
#define KiB UINT64_C(1024)
#define BS UINT64_C(0x8000000)

struct ctx {
	char *dir; /* a writable copy, or NULL for read-only fixtures */
	int root;
	struct topology *t;
	char err[512];
};

static struct topology *topo_alloc(void)
{
	struct topology *t = calloc(1, sizeof(*t));

	assert_non_null(t);
	return t;
}

static int read_fixture(const char *name, struct topology *t, char *err, size_t errlen)
{
	char *path = tu_fixture_path(name);
	int root = io_root_open(path), r;

	assert_true(root >= 0);
	r = topology_read(root, t, err, errlen);
	close(root);
	free(path);
	return r;
}

/* A writable copy, so a test can break or remove single files. */
static void copy_open(struct ctx *c, const char *name)
{
	c->dir = tu_fixture_copy(name);
	c->root = io_root_open(c->dir);
	assert_true(c->root >= 0);
	c->t = topo_alloc();
	c->err[0] = '\0';
}

static void copy_close(struct ctx *c)
{
	close(c->root);
	tu_rmtree(c->dir);
	free(c->dir);
	free(c->t);
}

static void rm(struct ctx *c, const char *rel)
{
	char *p;

	assert_true(asprintf(&p, "%s/%s", c->dir, rel) > 0);
	if (unlink(p) < 0)
		tu_rmtree(p);
	assert_false(tu_exists(c->dir, rel));
	free(p);
}

static int reread(struct ctx *c)
{
	return topology_read(c->root, c->t, c->err, sizeof(c->err));
}

static void assert_range(const struct numa_node *n, unsigned i, uint64_t start, uint64_t end)
{
	assert_true(i < n->nr_ranges);
	assert_int_equal(n->ranges[i].start, start);
	assert_int_equal(n->ranges[i].end, end);
}

static void check_vm_2node(const struct topology *t, bool tiers)
{
	uint64_t ps = (uint64_t)sysconf(_SC_PAGESIZE);
	const struct numa_node *n0 = &t->nodes[0], *n1 = &t->nodes[1];

	assert_int_equal(t->nr_nodes, 2);
	assert_int_equal(t->page_size, ps);
	assert_int_equal(t->block_size, BS);

	assert_int_equal(n0->nid, 0);
	assert_true(n0->has_cpu);
	assert_true(n0->has_memory);
	assert_int_equal(n0->mem_total, 476280 * KiB);
	assert_int_equal(n0->mem_free, 402160 * KiB);
	assert_true(n0->has_perf);
	assert_int_equal(n0->read_latency_ns, 80);
	assert_int_equal(n0->nr_ranges, 1);
	assert_range(n0, 0, 0, 0x20000000);

	assert_int_equal(n1->nid, 1);
	assert_false(n1->has_cpu);
	assert_true(n1->has_memory);
	assert_int_equal(n1->mem_total, 515044 * KiB);
	assert_int_equal(n1->mem_free, 498408 * KiB);
	assert_true(n1->has_perf);
	assert_int_equal(n1->read_latency_ns, 250);
	assert_int_equal(n1->nr_ranges, 1);
	assert_range(n1, 0, 0x20000000, 0x40000000);

	assert_int_equal(t->distance[0][0], 10);
	assert_int_equal(t->distance[0][1], 20);
	assert_int_equal(t->distance[1][0], 20);
	assert_int_equal(t->distance[1][1], 10);

	assert_int_equal(t->have_tiers, tiers);
	assert_int_equal(n0->tier, tiers ? 4 : -1);
	assert_int_equal(n1->tier, tiers ? 56 : -1);

	/* DMA + DMA32 of node 0, DMA32 of node 1 (Normal/Movable/Device empty). */
	assert_true(n0->have_wmarks);
	assert_int_equal(n0->wmark_min, (187 + 5614) * ps);
	assert_int_equal(n0->wmark_low, (233 + 7017) * ps);
	assert_int_equal(n0->wmark_high, (279 + 8420) * ps);
	assert_true(n1->have_wmarks);
	assert_int_equal(n1->wmark_min, 6273 * ps);
	assert_int_equal(n1->wmark_low, 7841 * ps);
	assert_int_equal(n1->wmark_high, 9409 * ps);
}

static void test_vm_2node(void **state)
{
	struct topology *t = topo_alloc();
	char err[256] = "stale";

	assert_int_equal(read_fixture("vm-2node", t, err, sizeof(err)), 0);
	assert_string_equal(err, "");
	check_vm_2node(t, true);
	free(t);
}

static void test_two_node_no_tiers(void **state)
{
	struct topology *t = topo_alloc();
	char err[256];

	assert_int_equal(read_fixture("two-node-no-tiers", t, err, sizeof(err)), 0);
	check_vm_2node(t, false);
	free(t);
}

static void test_one_node(void **state)
{
	struct topology *t = topo_alloc();
	char err[256];

	assert_int_equal(read_fixture("one-node", t, err, sizeof(err)), 0);
	assert_int_equal(t->nr_nodes, 1);
	assert_true(t->nodes[0].has_cpu);
	assert_true(t->nodes[0].has_memory);
	assert_false(t->nodes[0].has_perf);
	assert_int_equal(t->nodes[0].mem_total, 991324 * KiB);
	assert_int_equal(t->nodes[0].tier, 4);
	assert_true(t->have_tiers);
	assert_int_equal(t->distance[0][0], 10);
	assert_int_equal(t->nodes[0].nr_ranges, 1);
	assert_range(&t->nodes[0], 0, 0, 8 * BS);
	free(t);
}

static void test_three_tiers(void **state)
{
	struct topology *t = topo_alloc();
	char err[256];

	assert_int_equal(read_fixture("three-tiers", t, err, sizeof(err)), 0);
	assert_int_equal(t->nr_nodes, 3);
	assert_int_equal(t->nodes[0].tier, 4);
	assert_int_equal(t->nodes[1].tier, 56);
	assert_int_equal(t->nodes[2].tier, 281);
	assert_true(t->nodes[0].has_cpu);
	assert_false(t->nodes[1].has_cpu);
	assert_false(t->nodes[2].has_cpu);
	assert_int_equal(t->nodes[2].read_latency_ns, 500);
	assert_int_equal(t->distance[0][2], 30);
	assert_int_equal(t->distance[2][0], 30);
	assert_int_equal(t->distance[1][2], 30);
	assert_range(&t->nodes[2], 0, 8 * BS, 12 * BS);
	free(t);
}

static void test_two_sockets_cxl(void **state)
{
	struct topology *t = topo_alloc();
	char err[256];

	assert_int_equal(read_fixture("two-sockets-cxl", t, err, sizeof(err)), 0);
	assert_int_equal(t->nr_nodes, 4);
	for (unsigned i = 0; i < 4; i++) {
		assert_int_equal(t->nodes[i].nid, (int)i);
		assert_int_equal(t->nodes[i].has_cpu, i < 2);
		assert_int_equal(t->nodes[i].tier, i < 2 ? 4 : 56);
		assert_int_equal(t->nodes[i].nr_ranges, 1);
		assert_range(&t->nodes[i], 0, 2 * i * BS, 2 * (i + 1) * BS);
	}
	assert_int_equal(t->distance[0][2], 20);
	assert_int_equal(t->distance[0][3], 30);
	assert_int_equal(t->distance[1][3], 20);
	assert_int_equal(t->distance[1][2], 30);
	free(t);
}

static void test_holes(void **state)
{
	struct topology *t = topo_alloc();
	char err[256];

	assert_int_equal(read_fixture("holes", t, err, sizeof(err)), 0);
	/* node0: blocks 0,1,3,4 */
	assert_int_equal(t->nodes[0].nr_ranges, 2);
	assert_range(&t->nodes[0], 0, 0, 2 * BS);
	assert_range(&t->nodes[0], 1, 3 * BS, 5 * BS);
	/* node1: blocks 6, 7 (offline), 8: the offline block splits the range */
	assert_int_equal(t->nodes[1].nr_ranges, 2);
	assert_range(&t->nodes[1], 0, 6 * BS, 7 * BS);
	assert_range(&t->nodes[1], 1, 8 * BS, 9 * BS);
	free(t);
}

/* Failures leave *ret untouched and name the file. */
static void expect_error(const char *fixture, int err_code, const char *const *needles)
{
	struct topology *t = topo_alloc(), *orig = topo_alloc();
	char err[512];

	memset(t, 0x5a, sizeof(*t));
	memcpy(orig, t, sizeof(*t));
	assert_int_equal(read_fixture(fixture, t, err, sizeof(err)), err_code);
	for (; *needles; needles++)
		if (!strstr(err, *needles))
			fail_msg("error \"%s\" does not contain \"%s\"", err, *needles);
	assert_memory_equal(t, orig, sizeof(*t));
	free(t);
	free(orig);
}

static void test_broken_meminfo(void **state)
{
	expect_error("broken-meminfo", -EINVAL, (const char *const[]) {
		"/sys/devices/system/node/node1/meminfo: ", "MemTotal", NULL });
}

static void test_broken_blocksize(void **state)
{
	expect_error("broken-blocksize", -EINVAL, (const char *const[]) {
		"/sys/devices/system/memory/block_size_bytes: ", "hex", "\"zz\"", NULL });
}

static void test_truncated_distance(void **state)
{
	expect_error("truncated-distance", -EINVAL, (const char *const[]) {
		"/sys/devices/system/node/node1/distance: ", "1 distances, but 2 nodes", NULL });
}

static void test_no_numa(void **state)
{
	char *dir = tu_mkdtemp();
	int root = io_root_open(dir);
	struct topology *t = topo_alloc();
	char err[256];

	assert_int_equal(topology_read(root, t, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "/sys/devices/system/node: missing"));
	/* No error buffer at all must be fine too. */
	assert_int_equal(topology_read(root, t, NULL, 0), -ENOENT);
	close(root);
	tu_rmtree(dir);
	free(dir);
	free(t);
}

/* online and has_memory are taken from the node dirs / MemTotal when the
 * list files are missing; access0, tiers, zoneinfo and the state files are
 * optional. */
static void test_fallbacks(void **state)
{
	struct ctx c;

	copy_open(&c, "vm-2node");
	rm(&c, "sys/devices/system/node/online");
	rm(&c, "sys/devices/system/node/has_memory");
	assert_int_equal(reread(&c), 0);
	check_vm_2node(c.t, true);

	for (int b = 0; b < 8; b++) {
		char rel[64];

		snprintf(rel, sizeof(rel), "sys/devices/system/memory/memory%d/state", b);
		rm(&c, rel);
	}
	assert_int_equal(reread(&c), 0);
	check_vm_2node(c.t, true);

	rm(&c, "sys/devices/system/node/node1/access0");
	rm(&c, "sys/devices/virtual/memory_tiering");
	rm(&c, "proc/zoneinfo");
	assert_int_equal(reread(&c), 0);
	assert_string_equal(c.err, "");
	assert_false(c.t->have_tiers);
	/* What was missing is said, for the caller's warnings. */
	assert_true(c.t->no_tiering_dir);
	assert_int_equal(c.t->nodes[1].tier, -1);
	assert_true(c.t->nodes[0].has_perf);
	assert_false(c.t->nodes[1].has_perf);
	assert_false(c.t->nodes[0].have_wmarks);
	assert_false(c.t->nodes[1].have_wmarks);
	assert_int_equal(c.t->nodes[0].wmark_err, -ENOENT);
	assert_int_equal(c.t->nodes[1].wmark_err, -ENOENT);
	assert_int_equal(c.t->nr_notes, 0);
	copy_close(&c);
}

/* A zoneinfo without the node (garbage, or a node it does not list): no
 * watermarks, and why. */
static void test_zoneinfo_without_node(void **state)
{
	struct ctx c;

	copy_open(&c, "vm-2node");
	tu_write(c.dir, "proc/zoneinfo", "hello, world\n");
	assert_int_equal(reread(&c), 0);
	assert_false(c.t->nodes[0].have_wmarks);
	assert_int_equal(c.t->nodes[0].wmark_err, -ENODATA);
	assert_int_equal(c.t->nodes[1].wmark_err, -ENODATA);
	copy_close(&c);
}

/* An empty memory_tiering is not a missing one. */
static void test_empty_memory_tiering(void **state)
{
	struct ctx c;

	copy_open(&c, "vm-2node");
	rm(&c, "sys/devices/virtual/memory_tiering/memory_tier4");
	rm(&c, "sys/devices/virtual/memory_tiering/memory_tier56");
	assert_int_equal(reread(&c), 0);
	assert_false(c.t->have_tiers);
	assert_false(c.t->no_tiering_dir);
	copy_close(&c);
}

static void link_block(struct ctx *c, int nid, int block)
{
	char path[512], target[64];

	tu_pathf(path, sizeof(path), "%s/sys/devices/system/node/node%d/memory%d", c->dir, nid, block);
	tu_pathf(target, sizeof(target), "../../memory/memory%d", block);
	assert_int_equal(symlink(target, path), 0);
}

/* A link whose block is gone is left out and said, not taken as online. */
static void test_dangling_block_link(void **state)
{
	struct ctx c;

	copy_open(&c, "vm-2node");
	link_block(&c, 1, 9);
	link_block(&c, 1, 12);
	assert_int_equal(reread(&c), 0);
	assert_int_equal(c.t->nodes[1].nr_blocks, 6);
	assert_int_equal(c.t->nodes[1].nr_dangling, 2);
	assert_int_equal(c.t->nodes[1].nr_ranges, 1);
	assert_range(&c.t->nodes[1], 0, 0x20000000, 0x40000000);
	assert_int_equal(c.t->nr_notes, 1);
	assert_string_equal(c.t->notes[0], "/sys/devices/system/node/node1/memory9 and more: dangling link (the "
			    "memory block is gone): left out of node1's address ranges");
	copy_close(&c);
}

/* A block linked from two nodes: both keep its range, and it is said. */
static void test_overlapping_ranges(void **state)
{
	struct ctx c;

	copy_open(&c, "vm-2node");
	link_block(&c, 0, 4);
	assert_int_equal(reread(&c), 0);
	assert_range(&c.t->nodes[0], 0, 0, 0x28000000);
	assert_range(&c.t->nodes[1], 0, 0x20000000, 0x40000000);
	assert_int_equal(c.t->nr_notes, 1);
	assert_non_null(strstr(c.t->notes[0], "/sys/devices/system/node/node0 and node1: both link the memory "
				"at [0x20000000, 0x28000000)"));
	copy_close(&c);
}

/* Offline blocks are counted, so that a node without an online one can be
 * told from a node without links. */
static void test_offline_blocks_counted(void **state)
{
	struct ctx c;

	copy_open(&c, "vm-2node");
	for (int b = 4; b < 8; b++) {
		char rel[64];

		tu_pathf(rel, sizeof(rel), "sys/devices/system/memory/memory%d/state", b);
		tu_write(c.dir, rel, "offline\n");
	}
	assert_int_equal(reread(&c), 0);
	assert_int_equal(c.t->nodes[1].nr_ranges, 0);
	assert_int_equal(c.t->nodes[1].nr_blocks, 4);
	assert_int_equal(c.t->nodes[1].nr_offline, 4);
	assert_int_equal(c.t->nodes[0].nr_offline, 0);
	copy_close(&c);
}

static void test_has_memory_fallback_memoryless(void **state)
{
	struct ctx c;

	copy_open(&c, "vm-2node");
	rm(&c, "sys/devices/system/node/has_memory");
	tu_write(c.dir, "sys/devices/system/node/node1/meminfo",
		 "Node 1 MemTotal:       0 kB\nNode 1 MemFree:        0 kB\n");
	assert_int_equal(reread(&c), 0);
	assert_true(c.t->nodes[0].has_memory);
	assert_false(c.t->nodes[1].has_memory);

	/* has_memory, when present, is the authority (N_MEMORY). */
	tu_write(c.dir, "sys/devices/system/node/has_memory", "0\n");
	tu_write(c.dir, "sys/devices/system/node/node1/meminfo",
		 "Node 1 MemTotal:       4 kB\nNode 1 MemFree:        0 kB\n");
	assert_int_equal(reread(&c), 0);
	assert_false(c.t->nodes[1].has_memory);
	copy_close(&c);
}

/* Without CONFIG_MEMORY_HOTPLUG there are no blocks: nr_ranges 0, no error. */
static void test_no_memory_hotplug(void **state)
{
	struct ctx c;

	copy_open(&c, "vm-2node");
	for (int b = 0; b < 8; b++) {
		char rel[64];

		snprintf(rel, sizeof(rel), "sys/devices/system/node/node%d/memory%d", b / 4, b);
		rm(&c, rel);
	}
	assert_int_equal(reread(&c), 0);
	assert_false(c.t->no_memory_blocks);
	rm(&c, "sys/devices/system/memory");
	assert_int_equal(reread(&c), 0);
	assert_true(c.t->no_memory_blocks);
	assert_int_equal(c.t->block_size, 0);
	assert_int_equal(c.t->nodes[0].nr_ranges, 0);
	assert_int_equal(c.t->nodes[1].nr_ranges, 0);
	assert_true(c.t->nodes[1].has_memory);
	copy_close(&c);
}

static void test_links_without_block_size(void **state)
{
	struct ctx c;

	copy_open(&c, "vm-2node");
	rm(&c, "sys/devices/system/memory/block_size_bytes");
	assert_int_equal(reread(&c), -ENOENT);
	assert_non_null(strstr(c.err, "/sys/devices/system/memory/block_size_bytes: missing"));
	assert_non_null(strstr(c.err, "node0"));
	copy_close(&c);
}

static void test_block_size_not_pow2(void **state)
{
	struct ctx c;

	copy_open(&c, "vm-2node");
	tu_write(c.dir, "sys/devices/system/memory/block_size_bytes", "0\n");
	assert_int_equal(reread(&c), -EINVAL);
	assert_non_null(strstr(c.err, "block_size_bytes: "));
	c.err[0] = '\0';
	tu_write(c.dir, "sys/devices/system/memory/block_size_bytes", "0x8000000\n");
	assert_int_equal(reread(&c), -EINVAL);
	tu_write(c.dir, "sys/devices/system/memory/block_size_bytes", "7000000\n");
	assert_int_equal(reread(&c), -EINVAL);
	assert_non_null(strstr(c.err, "power of two"));
	copy_close(&c);
}

static void test_too_many_ranges(void **state)
{
	struct ctx c;

	copy_open(&c, "vm-2node");
	/* Every other block on node 0, plus memory0-3: TOPO_MAX_RANGES + 1 ranges. */
	for (unsigned i = 0; i < TOPO_MAX_RANGES; i++) {
		char rel[96], *link;
		unsigned b = 100 + 2 * i;

		snprintf(rel, sizeof(rel), "sys/devices/system/memory/memory%u/state", b);
		tu_write(c.dir, rel, "online\n");
		assert_true(asprintf(&link, "%s/sys/devices/system/node/node0/memory%u", c.dir, b) > 0);
		snprintf(rel, sizeof(rel), "../../memory/memory%u", b);
		assert_int_equal(symlink(rel, link), 0);
		free(link);
	}
	assert_int_equal(reread(&c), -E2BIG);
	assert_non_null(strstr(c.err, "/sys/devices/system/node/node0: "));
	assert_non_null(strstr(c.err, "128"));

	/* Exactly TOPO_MAX_RANGES fits: drop the last one. */
	rm(&c, "sys/devices/system/node/node0/memory354");
	assert_int_equal(reread(&c), 0);
	assert_int_equal(c.t->nodes[0].nr_ranges, TOPO_MAX_RANGES);
	assert_range(&c.t->nodes[0], 0, 0, 4 * BS);
	assert_range(&c.t->nodes[0], 1, 100 * BS, 101 * BS);
	assert_range(&c.t->nodes[0], TOPO_MAX_RANGES - 1, 352 * BS, 353 * BS);
	copy_close(&c);
}

static void test_garbage_files(void **state)
{
	static const struct {
		const char *rel, *content, *needle;
		int ret;
	} cases[] = {
		{ "sys/devices/system/node/online", "0-x\n", "/sys/devices/system/node/online: not a node list", -EINVAL },
		{ "sys/devices/system/node/online", "0-64\n", "at most 64 nodes", -ERANGE },
		{ "sys/devices/system/node/online", "\n", "/sys/devices/system/node/online: no online node", -EINVAL },
		{ "sys/devices/system/node/online", "0-2\n", "/sys/devices/system/node/node2/cpulist: missing", -ENOENT },
		{ "sys/devices/system/node/has_memory", "zz\n", "/sys/devices/system/node/has_memory: ", -EINVAL },
		{ "sys/devices/system/node/node0/cpulist", "0-\n", "/sys/devices/system/node/node0/cpulist: not a CPU list", -EINVAL },
		{ "sys/devices/system/node/node0/distance", "10 x\n", "/sys/devices/system/node/node0/distance: not a list", -EINVAL },
		{ "sys/devices/system/node/node0/distance", "10 20 30\n", "3 distances, but 2 nodes", -EINVAL },
		{ "sys/devices/system/node/node0/distance", "\n", "/sys/devices/system/node/node0/distance: ", -EINVAL },
		{ "sys/devices/system/node/node0/distance", "0 20\n", "invalid distance 0", -EINVAL },
		{ "sys/devices/system/node/node1/access0/initiators/read_latency", "fast\n",
		  "/sys/devices/system/node/node1/access0/initiators/read_latency: not a latency", -EINVAL },
		{ "sys/devices/virtual/memory_tiering/memory_tier56/nodelist", "one\n",
		  "/sys/devices/virtual/memory_tiering/memory_tier56/nodelist: not a node list", -EINVAL },
		{ "sys/devices/virtual/memory_tiering/memory_tier56/nodelist", "0-1\n",
		  "is also in memory_tier", -EINVAL },
		{ "proc/zoneinfo", "Node 0, zone DMA\n  pages free 1\n        min 1\n",
		  "/proc/zoneinfo: cannot parse the zones of node 0", -EINVAL },
		{ "sys/devices/system/node/node0/meminfo", "", "/sys/devices/system/node/node0/meminfo: ", -EINVAL },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ctx c;
		int r;

		copy_open(&c, "vm-2node");
		tu_write(c.dir, cases[i].rel, cases[i].content);
		r = reread(&c);
		if (r != cases[i].ret || !strstr(c.err, cases[i].needle))
			fail_msg("%s = \"%s\": got %d \"%s\", want %d \"%s\"", cases[i].rel,
				 cases[i].content, r, c.err, cases[i].ret, cases[i].needle);
		copy_close(&c);
	}
}

static void test_missing_required(void **state)
{
	static const char *const files[] = {
		"sys/devices/system/node/node1/meminfo",
		"sys/devices/system/node/node1/distance",
		"sys/devices/system/node/node0/cpulist",
	};

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		struct ctx c;
		char want[256];

		copy_open(&c, "vm-2node");
		rm(&c, files[i]);
		assert_int_equal(reread(&c), -ENOENT);
		snprintf(want, sizeof(want), "/%s: missing", files[i]);
		if (!strstr(c.err, want))
			fail_msg("\"%s\" does not contain \"%s\"", c.err, want);
		copy_close(&c);
	}
}

static void test_short_err_buffer(void **state)
{
	struct topology *t = topo_alloc();
	char err[8];

	assert_int_equal(read_fixture("broken-meminfo", t, err, sizeof(err)), -EINVAL);
	assert_int_equal(strlen(err), sizeof(err) - 1);
	free(t);
}

static void test_refresh_meminfo(void **state)
{
	struct ctx c;
	struct topology *saved = topo_alloc();

	copy_open(&c, "vm-2node");
	assert_int_equal(reread(&c), 0);
	tu_write(c.dir, "sys/devices/system/node/node1/meminfo",
		 "Node 1 MemTotal:       515044 kB\nNode 1 MemFree:        1000 kB\n"
		 "Node 1 MemUsed:        514044 kB\n");
	assert_int_equal(topology_refresh_meminfo(c.root, c.t), 0);
	assert_int_equal(c.t->nodes[1].mem_free, 1000 * KiB);
	assert_int_equal(c.t->nodes[1].mem_total, 515044 * KiB);
	assert_int_equal(c.t->nodes[0].mem_free, 402160 * KiB);

	/* A broken node 1 leaves every node's numbers as they were. */
	tu_write(c.dir, "sys/devices/system/node/node0/meminfo",
		 "Node 0 MemTotal:       476280 kB\nNode 0 MemFree:        7 kB\n");
	tu_write(c.dir, "sys/devices/system/node/node1/meminfo", "garbage\n");
	memcpy(saved, c.t, sizeof(*saved));
	assert_int_equal(topology_refresh_meminfo(c.root, c.t), -EINVAL);
	assert_memory_equal(saved, c.t, sizeof(*saved));
	rm(&c, "sys/devices/system/node/node1/meminfo");
	assert_int_equal(topology_refresh_meminfo(c.root, c.t), -ENOENT);
	assert_memory_equal(saved, c.t, sizeof(*saved));
	copy_close(&c);
	free(saved);
}

static void test_index(void **state)
{
	struct topology *t = topo_alloc();
	char err[256];

	assert_int_equal(read_fixture("two-sockets-cxl", t, err, sizeof(err)), 0);
	assert_int_equal(topology_index(t, 3), 3);
	assert_int_equal(topology_index(t, 4), -1);
	assert_int_equal(topology_index(t, -1), -1);
	assert_ptr_equal(topology_node(t, 2), &t->nodes[2]);
	assert_null(topology_node(t, 63));

	/* Sparse nids: index != nid. */
	memset(t, 0, sizeof(*t));
	t->nr_nodes = 2;
	t->nodes[0].nid = 0;
	t->nodes[1].nid = 5;
	assert_int_equal(topology_index(t, 5), 1);
	assert_int_equal(topology_node(t, 5)->nid, 5);
	free(t);
}

static void test_sparse_nids(void **state)
{
	struct ctx c;
	char *from, *to;

	copy_open(&c, "vm-2node");
	assert_true(asprintf(&from, "%s/sys/devices/system/node/node1", c.dir) > 0);
	assert_true(asprintf(&to, "%s/sys/devices/system/node/node3", c.dir) > 0);
	assert_int_equal(rename(from, to), 0);
	tu_write(c.dir, "sys/devices/system/node/online", "0,3\n");
	tu_write(c.dir, "sys/devices/system/node/has_memory", "0,3\n");
	tu_write(c.dir, "sys/devices/virtual/memory_tiering/memory_tier56/nodelist", "3\n");
	rm(&c, "proc/zoneinfo");
	assert_int_equal(reread(&c), 0);
	assert_int_equal(c.t->nr_nodes, 2);
	assert_int_equal(c.t->nodes[1].nid, 3);
	assert_int_equal(c.t->nodes[1].tier, 56);
	assert_int_equal(c.t->distance[1][0], 20);
	assert_range(&c.t->nodes[1], 0, 0x20000000, 0x40000000);
	free(from);
	free(to);
	copy_close(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vm_2node),
		cmocka_unit_test(test_two_node_no_tiers),
		cmocka_unit_test(test_one_node),
		cmocka_unit_test(test_three_tiers),
		cmocka_unit_test(test_two_sockets_cxl),
		cmocka_unit_test(test_holes),
		cmocka_unit_test(test_broken_meminfo),
		cmocka_unit_test(test_broken_blocksize),
		cmocka_unit_test(test_truncated_distance),
		cmocka_unit_test(test_no_numa),
		cmocka_unit_test(test_fallbacks),
		cmocka_unit_test(test_zoneinfo_without_node),
		cmocka_unit_test(test_empty_memory_tiering),
		cmocka_unit_test(test_dangling_block_link),
		cmocka_unit_test(test_overlapping_ranges),
		cmocka_unit_test(test_offline_blocks_counted),
		cmocka_unit_test(test_has_memory_fallback_memoryless),
		cmocka_unit_test(test_no_memory_hotplug),
		cmocka_unit_test(test_links_without_block_size),
		cmocka_unit_test(test_block_size_not_pow2),
		cmocka_unit_test(test_too_many_ranges),
		cmocka_unit_test(test_garbage_files),
		cmocka_unit_test(test_missing_required),
		cmocka_unit_test(test_short_err_buffer),
		cmocka_unit_test(test_refresh_meminfo),
		cmocka_unit_test(test_index),
		cmocka_unit_test(test_sparse_nids),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
