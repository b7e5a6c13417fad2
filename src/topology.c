/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Acquire the NUMA topology from sysfs/procfs below a root fd.
 *
 * Everything is read into a scratch copy and handed out only when all of it
 * was consistent: a half-read topology would let the planner build kdamonds
 * for the wrong address ranges.  Optional sources (HMAT access0 data,
 * memory_tiering, memory block links, /proc/zoneinfo) simply leave their
 * fields unset when the kernel does not provide them; a node without memory
 * block links (no CONFIG_MEMORY_HOTPLUG) ends up with nr_ranges == 0, and the
 * planner refuses such a node itself, with a message naming it.
 */
#include "topology.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "parse.h"
#include "sysfs_io.h"

#define NODE_DIR "sys/devices/system/node"
#define MEMORY_DIR "sys/devices/system/memory"
#define TIERING_DIR "sys/devices/virtual/memory_tiering"
#define ZONEINFO "proc/zoneinfo"

/* Larger than any real file; it only bounds what a broken root can make us
 * allocate.  zoneinfo grows with nodes × zones × CPUs (per-CPU pagesets). */
#define CPULIST_MAX (1U << 20)
#define ZONEINFO_MAX (64U << 20)

struct reader {
	int root;
	char *err;
	size_t errlen;
};

/* Records "/path: what is wrong" (the first failure wins, since later ones
 * are usually consequences) and returns r. */
static int fail(struct reader *rd, int r, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int fail(struct reader *rd, int r, const char *path, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!rd->err || rd->errlen == 0 || rd->err[0])
		return r;

	n = snprintf(rd->err, rd->errlen, "/%s: ", path);
	if (n < 0 || (size_t)n >= rd->errlen)
		return r;
	va_start(ap, fmt);
	vsnprintf(rd->err + n, rd->errlen - n, fmt, ap);
	va_end(ap);
	return r;
}

static int fail_read(struct reader *rd, int r, const char *path)
{
	if (r == -ENOENT)
		return fail(rd, r, path, "missing (%s)", strerror(-r));
	if (r == -E2BIG)
		return fail(rd, r, path, "unexpectedly large, not a kernel file?");
	return fail(rd, r, path, "cannot read: %s", io_strerror(r));
}

static int read_file(struct reader *rd, const char *path, char *buf, size_t size)
{
	int r = io_read(rd->root, path, buf, size);

	if (r < 0)
		return fail_read(rd, r, path);
	return 0;
}

/* Reads a nodelist file into mask.  With `optional`, a missing file returns
 * -ENOENT without an error message, so that callers can do without it. */
static int read_nodelist(struct reader *rd, const char *path, uint64_t *mask, bool optional)
{
	char buf[IO_VALUE_MAX];
	uint64_t m[(TOPO_MAX_NODES + 63) / 64] = { 0 };
	int r;

	r = io_read(rd->root, path, buf, sizeof(buf));
	if (r == -ENOENT && optional)
		return r;
	if (r < 0)
		return fail_read(rd, r, path);

	r = parse_nodelist_mask(buf, m, TOPO_MAX_NODES);
	if (r == -ERANGE)
		return fail(rd, r, path, "node id >= %d in \"%s\"; at most %d nodes are supported",
			    TOPO_MAX_NODES, buf, TOPO_MAX_NODES);
	if (r < 0)
		return fail(rd, r, path, "not a node list: \"%s\"", buf);

	memcpy(mask, m, sizeof(m));
	return 0;
}

static bool mask_test(const uint64_t *mask, unsigned bit)
{
	return mask[bit / 64] & (UINT64_C(1) << (bit % 64));
}

static void mask_set(uint64_t *mask, unsigned bit)
{
	mask[bit / 64] |= UINT64_C(1) << (bit % 64);
}

struct list_nodes_ctx {
	uint64_t *mask;
	unsigned too_big;
};

static int list_nodes_cb(const char *name, void *userdata)
{
	struct list_nodes_ctx *c = userdata;
	unsigned nid;

	if (parse_node_name(name, &nid) < 0)
		return 0;
	if (nid >= TOPO_MAX_NODES) {
		c->too_big = nid;
		return -ERANGE;
	}
	mask_set(c->mask, nid);
	return 0;
}

/* "online" exists on every NUMA kernel; the directory listing is only a
 * fallback for roots that lack it (e.g. hand-made test trees). */
static int read_online(struct reader *rd, uint64_t *mask)
{
	struct list_nodes_ctx c = { .mask = mask };
	int r;

	r = read_nodelist(rd, NODE_DIR "/online", mask, true);
	if (r != -ENOENT)
		return r;

	r = io_for_each_entry(rd->root, NODE_DIR, list_nodes_cb, &c);
	if (r == -ERANGE)
		return fail(rd, r, NODE_DIR, "node%u: at most %d nodes are supported",
			    c.too_big, TOPO_MAX_NODES);
	if (r < 0)
		return fail(rd, r, NODE_DIR, "cannot list: %s", strerror(-r));
	return 0;
}

static int read_cpu(struct reader *rd, struct numa_node *n)
{
	char path[128], *text = NULL;
	unsigned cpus;
	int r;

	r = io_path(path, sizeof(path), NODE_DIR "/node%d/cpulist", n->nid);
	if (r < 0)
		return r;
	r = io_read_alloc(rd->root, path, &text, CPULIST_MAX);
	if (r < 0)
		return fail_read(rd, r, path);
	r = parse_cpulist_count(text, &cpus);
	if (r < 0)
		r = fail(rd, r, path, "not a CPU list: \"%.64s\"", text);
	else
		n->has_cpu = cpus > 0;
	free(text);
	return r < 0 ? r : 0;
}

static int read_meminfo(int root, int nid, uint64_t *ret_total, uint64_t *ret_free,
			struct reader *rd)
{
	char path[128], buf[IO_VALUE_MAX];
	int r;

	r = io_path(path, sizeof(path), NODE_DIR "/node%d/meminfo", nid);
	if (r < 0)
		return r;
	r = io_read(root, path, buf, sizeof(buf));
	if (r < 0)
		return rd ? fail_read(rd, r, path) : r;
	r = parse_node_meminfo(buf, ret_total, ret_free);
	if (r < 0)
		return rd ? fail(rd, -EINVAL, path, "no valid \"Node %d MemTotal:\" / \"MemFree:\" lines",
				 nid)
			  : -EINVAL;
	return 0;
}

static int read_distance(struct reader *rd, const struct numa_node *n, unsigned nr_nodes,
			 int *row)
{
	char path[128], buf[IO_VALUE_MAX];
	int tmp[TOPO_MAX_NODES];
	unsigned cnt = 0;
	int r;

	r = io_path(path, sizeof(path), NODE_DIR "/node%d/distance", n->nid);
	if (r < 0)
		return r;
	r = read_file(rd, path, buf, sizeof(buf));
	if (r < 0)
		return r;
	r = parse_distances(buf, tmp, TOPO_MAX_NODES, &cnt);
	if (r == -ERANGE)
		return fail(rd, -EINVAL, path, "more than %u distances, but %u nodes are online",
			    TOPO_MAX_NODES, nr_nodes);
	if (r < 0)
		return fail(rd, r, path, "not a list of distances: \"%.64s\"", buf);
	/* The kernel prints one entry per online node, in nid order: any
	 * other count means the file and the online list disagree. */
	if (cnt != nr_nodes)
		return fail(rd, -EINVAL, path, "%u distances, but %u nodes are online", cnt, nr_nodes);
	for (unsigned i = 0; i < cnt; i++)
		if (tmp[i] <= 0)
			return fail(rd, -EINVAL, path, "invalid distance %d", tmp[i]);

	memcpy(row, tmp, cnt * sizeof(int));
	return 0;
}

static int read_perf(struct reader *rd, struct numa_node *n)
{
	char path[128], buf[IO_VALUE_MAX];
	uint64_t lat;
	int r;

	r = io_path(path, sizeof(path), NODE_DIR "/node%d/access0/initiators/read_latency", n->nid);
	if (r < 0)
		return r;
	/* Present only with CONFIG_HMEM_REPORTING and firmware HMAT data. */
	r = io_read(rd->root, path, buf, sizeof(buf));
	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return fail_read(rd, r, path);
	if (parse_u64(buf, &lat) < 0)
		return fail(rd, -EINVAL, path, "not a latency in ns: \"%.64s\"", buf);

	n->has_perf = true;
	n->read_latency_ns = lat;
	return 0;
}

struct blocks {
	uint64_t *ids;
	size_t n, cap;
};

static int blocks_cb(const char *name, void *userdata)
{
	struct blocks *b = userdata;
	uint64_t id;

	/* Only memory<digits>: nodeN/memory_failure lives in the same dir. */
	if (parse_memory_block_name(name, &id) < 0)
		return 0;
	if (b->n == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 64;
		uint64_t *ids = realloc(b->ids, cap * sizeof(*ids));

		if (!ids)
			return -ENOMEM;
		b->ids = ids;
		b->cap = cap;
	}
	b->ids[b->n++] = id;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Offline blocks have no pages to migrate, and an offline block between two
 * online ones must split the range, so the state is checked per block.  A
 * missing state file (not a kernel layout) counts as online. */
static int block_online(struct reader *rd, uint64_t id, bool *ret)
{
	char path[128], buf[64];
	int r;

	r = io_path(path, sizeof(path), MEMORY_DIR "/memory%" PRIu64 "/state", id);
	if (r < 0)
		return r;
	r = io_read(rd->root, path, buf, sizeof(buf));
	if (r == -ENOENT) {
		*ret = true;
		return 0;
	}
	if (r < 0)
		return fail_read(rd, r, path);
	*ret = strcmp(buf, "online") == 0;
	return 0;
}

static int read_ranges(struct reader *rd, struct numa_node *n, uint64_t block_size,
		       bool have_block_size)
{
	struct blocks b = { 0 };
	char dir[128];
	unsigned nr = 0;
	int r;

	r = io_path(dir, sizeof(dir), NODE_DIR "/node%d", n->nid);
	if (r < 0)
		return r;
	r = io_for_each_entry(rd->root, dir, blocks_cb, &b);
	if (r < 0) {
		r = fail(rd, r, dir, "cannot list memory blocks: %s", strerror(-r));
		goto out;
	}
	if (b.n == 0)
		goto out; /* no CONFIG_MEMORY_HOTPLUG, or a memoryless node */
	if (!have_block_size) {
		r = fail(rd, -ENOENT, MEMORY_DIR "/block_size_bytes",
			 "missing, but %s has memory block links", dir);
		goto out;
	}

	qsort(b.ids, b.n, sizeof(*b.ids), cmp_u64);

	for (size_t i = 0; i < b.n; i++) {
		uint64_t id = b.ids[i], start;
		bool online = false;

		if (i > 0 && id == b.ids[i - 1])
			continue;
		r = block_online(rd, id, &online);
		if (r < 0)
			goto out;
		if (!online)
			continue;
		if (id >= UINT64_MAX / block_size) {
			r = fail(rd, -ERANGE, dir, "memory%" PRIu64 " lies beyond the physical address space",
				 id);
			goto out;
		}
		start = id * block_size;
		if (nr > 0 && n->ranges[nr - 1].end == start) {
			n->ranges[nr - 1].end = start + block_size;
			continue;
		}
		if (nr == TOPO_MAX_RANGES) {
			r = fail(rd, -E2BIG, dir,
				 "memory blocks form more than %d separate address ranges; not supported",
				 TOPO_MAX_RANGES);
			goto out;
		}
		n->ranges[nr].start = start;
		n->ranges[nr].end = start + block_size;
		nr++;
	}
	n->nr_ranges = nr;
	r = 0;
out:
	free(b.ids);
	return r;
}

static int read_block_size(struct reader *rd, uint64_t *ret, bool *ret_have)
{
	const char *path = MEMORY_DIR "/block_size_bytes";
	char buf[IO_VALUE_MAX];
	uint64_t bs;
	int r;

	r = io_read(rd->root, path, buf, sizeof(buf));
	if (r == -ENOENT) {
		/* Without MEMORY_HOTPLUG there are no blocks at all. */
		*ret = 0;
		*ret_have = false;
		return 0;
	}
	if (r < 0)
		return fail_read(rd, r, path);
	if (parse_hex_u64(buf, &bs) < 0)
		return fail(rd, -EINVAL, path, "not a hex number (without 0x): \"%.64s\"", buf);
	if (bs == 0 || (bs & (bs - 1)))
		return fail(rd, -EINVAL, path, "block size 0x%" PRIx64 " is not a power of two", bs);

	*ret = bs;
	*ret_have = true;
	return 0;
}

struct tiers_ctx {
	struct reader *rd;
	struct topology *t;
	unsigned nr_tiers;
};

static int tier_cb(const char *name, void *userdata)
{
	struct tiers_ctx *c = userdata;
	uint64_t mask[(TOPO_MAX_NODES + 63) / 64] = { 0 };
	char path[128];
	unsigned id;
	int r;

	/* The directory also holds "power" and "uevent". */
	if (parse_memory_tier_name(name, &id) < 0)
		return 0;
	r = io_path(path, sizeof(path), TIERING_DIR "/%s/nodelist", name);
	if (r < 0)
		return r;
	r = read_nodelist(c->rd, path, mask, false);
	if (r < 0)
		return r;

	c->nr_tiers++;
	for (unsigned i = 0; i < c->t->nr_nodes; i++) {
		struct numa_node *n = &c->t->nodes[i];

		if (!mask_test(mask, n->nid))
			continue;
		if (n->tier >= 0 && n->tier != (int)id)
			return fail(c->rd, -EINVAL, path, "node%d is also in memory_tier%d", n->nid,
				    n->tier);
		n->tier = (int)id;
	}
	return 0;
}

static int read_tiers(struct reader *rd, struct topology *t)
{
	struct tiers_ctx c = { .rd = rd, .t = t };
	int r;

	if (!io_exists(rd->root, TIERING_DIR))
		return 0; /* kernel without CONFIG_NUMA memory tiers (< 6.1) */

	r = io_for_each_entry(rd->root, TIERING_DIR, tier_cb, &c);
	if (r < 0)
		return fail(rd, r, TIERING_DIR, "cannot read memory tiers: %s", strerror(-r));
	t->have_tiers = c.nr_tiers > 0;
	return 0;
}

static int read_wmarks(struct reader *rd, struct topology *t)
{
	char *text = NULL;
	int r;

	r = io_read_alloc(rd->root, ZONEINFO, &text, ZONEINFO_MAX);
	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return fail_read(rd, r, ZONEINFO);

	for (unsigned i = 0; i < t->nr_nodes; i++) {
		struct numa_node *n = &t->nodes[i];
		struct zone_wmarks w = { 0 };

		r = parse_zoneinfo(text, n->nid, &w);
		if (r == -ENOENT || r == -ENODATA || (r == 0 && w.nr_zones == 0))
			continue; /* node not listed: no watermarks known */
		if (r < 0) {
			r = fail(rd, r, ZONEINFO, "cannot parse the zones of node %d", n->nid);
			goto out;
		}
		if (w.high > UINT64_MAX / t->page_size) {
			r = fail(rd, -ERANGE, ZONEINFO, "watermarks of node %d out of range", n->nid);
			goto out;
		}
		n->wmark_min = w.min * t->page_size;
		n->wmark_low = w.low * t->page_size;
		n->wmark_high = w.high * t->page_size;
		n->have_wmarks = true;
	}
	r = 0;
out:
	free(text);
	return r;
}

int topology_read(int root, struct topology *ret, char *err, size_t errlen)
{
	struct reader rd = { .root = root, .err = err, .errlen = errlen };
	uint64_t online[(TOPO_MAX_NODES + 63) / 64] = { 0 };
	uint64_t has_memory[(TOPO_MAX_NODES + 63) / 64] = { 0 };
	bool have_has_memory, have_block_size = false;
	struct topology *t;
	long pagesize;
	int r;

	if (err && errlen > 0)
		err[0] = '\0';

	if (!io_exists(root, NODE_DIR))
		return fail(&rd, -ENOENT, NODE_DIR, "missing; kernel without CONFIG_NUMA?");

	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;

	pagesize = sysconf(_SC_PAGESIZE);
	t->page_size = pagesize > 0 ? (uint64_t)pagesize : 4096;

	r = read_online(&rd, online);
	if (r < 0)
		goto out;
	for (unsigned nid = 0; nid < TOPO_MAX_NODES; nid++) {
		if (!mask_test(online, nid))
			continue;
		t->nodes[t->nr_nodes].nid = (int)nid;
		t->nodes[t->nr_nodes].tier = -1;
		t->nr_nodes++;
	}
	if (t->nr_nodes == 0) {
		r = fail(&rd, -EINVAL, NODE_DIR "/online", "no online node");
		goto out;
	}

	r = read_nodelist(&rd, NODE_DIR "/has_memory", has_memory, true);
	if (r < 0 && r != -ENOENT)
		goto out;
	have_has_memory = r == 0;

	r = read_block_size(&rd, &t->block_size, &have_block_size);
	if (r < 0)
		goto out;

	for (unsigned i = 0; i < t->nr_nodes; i++) {
		struct numa_node *n = &t->nodes[i];

		r = read_cpu(&rd, n);
		if (r < 0)
			goto out;
		r = read_meminfo(root, n->nid, &n->mem_total, &n->mem_free, &rd);
		if (r < 0)
			goto out;
		n->has_memory = have_has_memory ? mask_test(has_memory, n->nid) : n->mem_total > 0;
	}
	/* Only now the cross-node files: a missing node directory is reported
	 * as such above, not as a distance row that is one entry short. */
	for (unsigned i = 0; i < t->nr_nodes; i++) {
		struct numa_node *n = &t->nodes[i];

		r = read_distance(&rd, n, t->nr_nodes, t->distance[i]);
		if (r < 0)
			goto out;
		r = read_perf(&rd, n);
		if (r < 0)
			goto out;
		r = read_ranges(&rd, n, t->block_size, have_block_size);
		if (r < 0)
			goto out;
	}

	r = read_tiers(&rd, t);
	if (r < 0)
		goto out;
	r = read_wmarks(&rd, t);
	if (r < 0)
		goto out;

	*ret = *t;
	r = 0;
out:
	free(t);
	return r;
}

int topology_refresh_meminfo(int root, struct topology *t)
{
	uint64_t total[TOPO_MAX_NODES], freeb[TOPO_MAX_NODES];
	int r;

	/* All or nothing, so the numbers of one period belong together. */
	for (unsigned i = 0; i < t->nr_nodes; i++) {
		r = read_meminfo(root, t->nodes[i].nid, &total[i], &freeb[i], NULL);
		if (r < 0)
			return r;
	}
	for (unsigned i = 0; i < t->nr_nodes; i++) {
		t->nodes[i].mem_total = total[i];
		t->nodes[i].mem_free = freeb[i];
	}
	return 0;
}

int topology_index(const struct topology *t, int nid)
{
	for (unsigned i = 0; i < t->nr_nodes; i++)
		if (t->nodes[i].nid == nid)
			return (int)i;
	return -1;
}

const struct numa_node *topology_node(const struct topology *t, int nid)
{
	int i = topology_index(t, nid);

	return i < 0 ? NULL : &t->nodes[i];
}
