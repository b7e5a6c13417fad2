/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Acquire the NUMA topology from sysfs/procfs below a root fd.
 *
 * Everything is read into a scratch copy and handed out only when all of it
 * was consistent: a half-read topology would let the planner build kdamonds
 * for the wrong address ranges.  Optional sources (HMAT access0 data,
 * memory_tiering, memory block links, /proc/zoneinfo) leave their fields
 * unset when the kernel does not provide them, and say so (no_tiering_dir,
 * no_memory_blocks, wmark_err), so that the caller can tell the operator what
 * the daemon does without them.  A node without memory block links ends up
 * with nr_ranges == 0, and the planner refuses such a node itself, with a
 * message naming it.  The memory blocks are topology_blocks.c's.
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
#include "topology_internal.h"

#define TIERING_DIR "sys/devices/virtual/memory_tiering"
#define ZONEINFO "proc/zoneinfo"

/* Larger than any real file; it only bounds what a broken root can make us
 * allocate.  zoneinfo grows with nodes × zones × CPUs (per-CPU pagesets). */
#define CPULIST_MAX (1U << 20)
#define ZONEINFO_MAX (64U << 20)

/* Records "/path: what is wrong" (the first failure wins, since later ones
 * are usually consequences) and returns r. */
int topo_fail(struct topo_reader *rd, int r, const char *path, const char *fmt, ...)
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

int topo_fail_read(struct topo_reader *rd, int r, const char *path)
{
	if (r == -ENOENT)
		return topo_fail(rd, r, path, "missing (%s)", strerror(-r));
	if (r == -E2BIG)
		return topo_fail(rd, r, path, "unexpectedly large, not a kernel file?");
	return topo_fail(rd, r, path, "cannot read: %s", io_strerror(r));
}

void topo_note(struct topology *t, const char *fmt, ...)
{
	va_list ap;

	if (t->nr_notes == TOPO_MAX_NOTES) {
		t->nr_notes_dropped++;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(t->notes[t->nr_notes++], TOPO_NOTE_MAX, fmt, ap);
	va_end(ap);
}

static int read_file(struct topo_reader *rd, const char *path, char *buf, size_t size)
{
	int r = io_read(rd->root, path, buf, size);

	if (r < 0)
		return topo_fail_read(rd, r, path);
	return 0;
}

/* Reads a nodelist file into mask.  With `optional`, a missing file returns
 * -ENOENT without an error message, so that callers can do without it. */
static int read_nodelist(struct topo_reader *rd, const char *path, uint64_t *mask, bool optional)
{
	char buf[IO_VALUE_MAX];
	uint64_t m[(TOPO_MAX_NODES + 63) / 64] = { 0 };
	int r;

	r = io_read(rd->root, path, buf, sizeof(buf));
	if (r == -ENOENT && optional)
		return r;
	if (r < 0)
		return topo_fail_read(rd, r, path);

	r = parse_nodelist_mask(buf, m, TOPO_MAX_NODES);
	if (r == -ERANGE)
		return topo_fail(rd, r, path, "node id >= %d in \"%s\"; at most %d nodes are supported",
			    TOPO_MAX_NODES, buf, TOPO_MAX_NODES);
	if (r < 0)
		return topo_fail(rd, r, path, "not a node list: \"%s\"", buf);

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
static int read_online(struct topo_reader *rd, uint64_t *mask)
{
	struct list_nodes_ctx c = { .mask = mask };
	int r;

	r = read_nodelist(rd, NODE_DIR "/online", mask, true);
	if (r != -ENOENT)
		return r;

	r = io_for_each_entry(rd->root, NODE_DIR, list_nodes_cb, &c);
	if (r == -ERANGE)
		return topo_fail(rd, r, NODE_DIR, "node%u: at most %d nodes are supported",
			    c.too_big, TOPO_MAX_NODES);
	if (r < 0)
		return topo_fail(rd, r, NODE_DIR, "cannot list: %s", strerror(-r));
	return 0;
}

static int read_cpu(struct topo_reader *rd, struct numa_node *n)
{
	char path[128], *text = NULL;
	unsigned cpus;
	int r;

	r = io_path(path, sizeof(path), NODE_DIR "/node%d/cpulist", n->nid);
	if (r < 0)
		return r;
	r = io_read_alloc(rd->root, path, &text, CPULIST_MAX);
	if (r < 0)
		return topo_fail_read(rd, r, path);
	r = parse_cpulist_count(text, &cpus);
	if (r < 0)
		r = topo_fail(rd, r, path, "not a CPU list: \"%.64s\"", text);
	else
		n->has_cpu = cpus > 0;
	free(text);
	return r < 0 ? r : 0;
}

static int read_meminfo(int root, int nid, uint64_t *ret_total, uint64_t *ret_free,
			struct topo_reader *rd)
{
	char path[128], buf[IO_VALUE_MAX];
	int r;

	r = io_path(path, sizeof(path), NODE_DIR "/node%d/meminfo", nid);
	if (r < 0)
		return r;
	r = io_read(root, path, buf, sizeof(buf));
	if (r < 0)
		return rd ? topo_fail_read(rd, r, path) : r;
	r = parse_node_meminfo(buf, ret_total, ret_free);
	if (r < 0)
		return rd ? topo_fail(rd, -EINVAL, path, "no valid \"Node %d MemTotal:\" / \"MemFree:\" lines",
				 nid)
			  : -EINVAL;
	return 0;
}

static int read_distance(struct topo_reader *rd, const struct numa_node *n, unsigned nr_nodes,
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
		return topo_fail(rd, -EINVAL, path, "more than %u distances, but %u nodes are online",
			    TOPO_MAX_NODES, nr_nodes);
	if (r < 0)
		return topo_fail(rd, r, path, "not a list of distances: \"%.64s\"", buf);
	/* The kernel prints one entry per online node, in nid order: any
	 * other count means the file and the online list disagree. */
	if (cnt != nr_nodes)
		return topo_fail(rd, -EINVAL, path, "%u distances, but %u nodes are online", cnt, nr_nodes);
	for (unsigned i = 0; i < cnt; i++)
		if (tmp[i] <= 0)
			return topo_fail(rd, -EINVAL, path, "invalid distance %d", tmp[i]);

	memcpy(row, tmp, cnt * sizeof(int));
	return 0;
}

static int read_perf(struct topo_reader *rd, struct numa_node *n)
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
		return topo_fail_read(rd, r, path);
	if (parse_u64(buf, &lat) < 0)
		return topo_fail(rd, -EINVAL, path, "not a latency in ns: \"%.64s\"", buf);

	n->has_perf = true;
	n->read_latency_ns = lat;
	return 0;
}

struct tiers_ctx {
	struct topo_reader *rd;
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
			return topo_fail(c->rd, -EINVAL, path, "node%d is also in memory_tier%d", n->nid,
				    n->tier);
		n->tier = (int)id;
	}
	return 0;
}

static int read_tiers(struct topo_reader *rd, struct topology *t)
{
	struct tiers_ctx c = { .rd = rd, .t = t };
	int r;

	if (!io_exists(rd->root, TIERING_DIR)) {
		t->no_tiering_dir = true;  /* a kernel without memory tiers (< 6.1) */
		return 0;
	}

	r = io_for_each_entry(rd->root, TIERING_DIR, tier_cb, &c);
	if (r < 0)
		return topo_fail(rd, r, TIERING_DIR, "cannot read memory tiers: %s", strerror(-r));
	t->have_tiers = c.nr_tiers > 0;
	return 0;
}

static int read_wmarks(struct topo_reader *rd, struct topology *t)
{
	char *text = NULL;
	int r;

	r = io_read_alloc(rd->root, ZONEINFO, &text, ZONEINFO_MAX);
	if (r == -ENOENT) {
		for (unsigned i = 0; i < t->nr_nodes; i++)
			t->nodes[i].wmark_err = -ENOENT;
		return 0;
	}
	if (r < 0)
		return topo_fail_read(rd, r, ZONEINFO);

	for (unsigned i = 0; i < t->nr_nodes; i++) {
		struct numa_node *n = &t->nodes[i];
		struct zone_wmarks w = { 0 };

		r = parse_zoneinfo(text, n->nid, &w);
		if (r == -ENOENT || r == -ENODATA || (r == 0 && w.nr_zones == 0)) {
			n->wmark_err = -ENODATA;  /* node not listed: no watermarks known */
			continue;
		}
		if (r < 0) {
			r = topo_fail(rd, r, ZONEINFO, "cannot parse the zones of node %d", n->nid);
			goto out;
		}
		if (w.high > UINT64_MAX / t->page_size) {
			r = topo_fail(rd, -ERANGE, ZONEINFO, "watermarks of node %d out of range", n->nid);
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
	struct topo_reader rd = { .root = root, .err = err, .errlen = errlen };
	uint64_t online[(TOPO_MAX_NODES + 63) / 64] = { 0 };
	uint64_t has_memory[(TOPO_MAX_NODES + 63) / 64] = { 0 };
	bool have_has_memory, have_block_size = false;
	struct topology *t;
	long pagesize;
	int r;

	if (err && errlen > 0)
		err[0] = '\0';

	if (!io_exists(root, NODE_DIR))
		return topo_fail(&rd, -ENOENT, NODE_DIR, "missing; kernel without CONFIG_NUMA?");

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
		r = topo_fail(&rd, -EINVAL, NODE_DIR "/online", "no online node");
		goto out;
	}

	r = read_nodelist(&rd, NODE_DIR "/has_memory", has_memory, true);
	if (r < 0 && r != -ENOENT)
		goto out;
	have_has_memory = r == 0;

	r = topo_read_block_size(&rd, &t->block_size, &have_block_size);
	if (r < 0)
		goto out;
	t->no_memory_blocks = !io_exists(root, MEMORY_DIR);

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
		r = topo_read_ranges(&rd, t, n);
		if (r < 0)
			goto out;
	}
	topo_check_overlaps(t);

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
