/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The physical address ranges of each node, from its memory block links
 * (sys/devices/system/node/nodeN/memoryM -> ../../memory/memoryM): the
 * online blocks, sorted and merged, holes and offline blocks left out.
 *
 * What the kernel can show and a careless reading would misread: a link
 * whose block is gone (a race with hot-remove, or a broken capture) is left
 * out, not taken as online memory; a block linked from two nodes (boot
 * memory whose block spans a node boundary) puts its range into both, so
 * both nodes' kdamonds monitor it.  Both are said as notes.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"
#include "sysfs_io.h"
#include "topology_internal.h"

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
static int block_online(struct topo_reader *rd, uint64_t id, bool *ret)
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
		return topo_fail_read(rd, r, path);
	*ret = strcmp(buf, "online") == 0;
	return 0;
}

/* The link nodeN/memoryM resolves (io_exists follows it). */
static int block_present(int nid, uint64_t id, int root, bool *ret)
{
	char path[128];
	int r;

	r = io_path(path, sizeof(path), NODE_DIR "/node%d/memory%" PRIu64, nid, id);
	if (r < 0)
		return r;
	*ret = io_exists(root, path);
	return 0;
}

int topo_read_ranges(struct topo_reader *rd, struct topology *t, struct numa_node *n)
{
	struct blocks b = { 0 };
	uint64_t block_size = t->block_size, first_dangling = 0;
	char dir[128];
	unsigned nr = 0;
	int r;

	r = io_path(dir, sizeof(dir), NODE_DIR "/node%d", n->nid);
	if (r < 0)
		return r;
	r = io_for_each_entry(rd->root, dir, blocks_cb, &b);
	if (r < 0) {
		r = topo_fail(rd, r, dir, "cannot list memory blocks: %s", strerror(-r));
		goto out;
	}
	if (b.n == 0)
		goto out; /* no CONFIG_MEMORY_HOTPLUG, or a memoryless node */
	if (block_size == 0) {
		r = topo_fail(rd, -ENOENT, MEMORY_DIR "/block_size_bytes",
			      "missing, but %s has memory block links", dir);
		goto out;
	}

	qsort(b.ids, b.n, sizeof(*b.ids), cmp_u64);

	for (size_t i = 0; i < b.n; i++) {
		uint64_t id = b.ids[i], start;
		bool online = false, present = false;

		if (i > 0 && id == b.ids[i - 1])
			continue;
		n->nr_blocks++;
		r = block_present(n->nid, id, rd->root, &present);
		if (r < 0)
			goto out;
		if (!present) {
			if (n->nr_dangling++ == 0)
				first_dangling = id;
			continue;
		}
		r = block_online(rd, id, &online);
		if (r < 0)
			goto out;
		if (!online) {
			n->nr_offline++;
			continue;
		}
		if (id >= UINT64_MAX / block_size) {
			r = topo_fail(rd, -ERANGE, dir, "memory%" PRIu64 " lies beyond the physical address space",
				      id);
			goto out;
		}
		start = id * block_size;
		if (nr > 0 && n->ranges[nr - 1].end == start) {
			n->ranges[nr - 1].end = start + block_size;
			continue;
		}
		if (nr == TOPO_MAX_RANGES) {
			r = topo_fail(rd, -E2BIG, dir,
				      "memory blocks form more than %d separate address ranges; not supported",
				      TOPO_MAX_RANGES);
			goto out;
		}
		n->ranges[nr].start = start;
		n->ranges[nr].end = start + block_size;
		nr++;
	}
	n->nr_ranges = nr;
	if (n->nr_dangling)
		topo_note(t, "/%s/memory%" PRIu64 "%s: dangling link (the memory block is gone): left out of "
			  "node%d's address ranges", dir, first_dangling,
			  n->nr_dangling > 1 ? " and more" : "", n->nid);
	r = 0;
out:
	free(b.ids);
	return r;
}

int topo_read_block_size(struct topo_reader *rd, uint64_t *ret, bool *ret_have)
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
		return topo_fail_read(rd, r, path);
	if (parse_hex_u64(buf, &bs) < 0)
		return topo_fail(rd, -EINVAL, path, "not a hex number (without 0x): \"%.64s\"", buf);
	if (bs == 0 || (bs & (bs - 1)))
		return topo_fail(rd, -EINVAL, path, "block size 0x%" PRIx64 " is not a power of two", bs);

	*ret = bs;
	*ret_have = true;
	return 0;
}

/* The first overlap of two sorted, disjoint range lists, or false. */
static bool first_overlap(const struct numa_node *a, const struct numa_node *b, struct addr_range *ret)
{
	unsigned i = 0, j = 0;

	while (i < a->nr_ranges && j < b->nr_ranges) {
		const struct addr_range *x = &a->ranges[i], *y = &b->ranges[j];

		if (x->end <= y->start) {
			i++;
		} else if (y->end <= x->start) {
			j++;
		} else {
			ret->start = x->start > y->start ? x->start : y->start;
			ret->end = x->end < y->end ? x->end : y->end;
			return true;
		}
	}
	return false;
}

void topo_check_overlaps(struct topology *t)
{
	for (unsigned i = 0; i < t->nr_nodes; i++)
		for (unsigned j = i + 1; j < t->nr_nodes; j++) {
			struct addr_range o;

			if (!first_overlap(&t->nodes[i], &t->nodes[j], &o))
				continue;
			topo_note(t, "/" NODE_DIR "/node%d and node%d: both link the memory at [0x%" PRIx64
				  ", 0x%" PRIx64 ") (a memory block that spans both nodes): the kdamonds of "
				  "both nodes monitor it, and each sees fewer accesses there", t->nodes[i].nid,
				  t->nodes[j].nid, o.start, o.end);
		}
}
