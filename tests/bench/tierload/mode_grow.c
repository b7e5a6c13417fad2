// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tierload mode grow: old data (C - H/2) on the fast node, then a new chunk
 * of H pages is allocated (first touch, default policy: the kernel puts it
 * where there is room) at t = k * duration / --chunks.  70% of the accesses
 * go to the newest chunk, 20% to the one before, 10% to all older data.
 * Layout: [old data][chunk 0][chunk 1]...
 */
#include "tierload.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void grow_setup(struct bench *b)
{
	b->base_pages = b->cap > b->h / 2 ? b->cap - b->h / 2 : 0;
	b->npages = b->base_pages + b->o.chunks * b->h;
}

static void grow_place(struct bench *b)
{
	touch_range(b, 0, b->base_pages, b->o.fast);
	b->live = b->base_pages;
}

static void grow_schedule(struct bench *b)
{
	for (unsigned k = 1; k < b->o.chunks; k++)
		b->ev[b->nev++] = (struct event){ b->o.duration * k / b->o.chunks, "shift", -1, false };
}

static size_t chunk0(const struct bench *b, unsigned k)
{
	return b->base_pages + (size_t)k * b->h;
}

/* Allocate chunk k: where the kernel puts it (first touch, default policy), or --ideal. */
static void grow_phase(struct bench *b, unsigned k)
{
	size_t c0 = chunk0(b, k);

	if (b->o.ideal) {
		/* Room first: the oldest data on the fast node goes out. */
		size_t need = b->h, room = headroom_pages(b);

		if (need + (size_t)(16 * MIB / PAGE) > room) {
			size_t n = need + (size_t)(16 * MIB / PAGE) - room, m = 0;
			size_t *idx = malloc(c0 * sizeof(*idx) + 1);

			if (!idx)
				die("malloc");
			query(b, 0, b->live);
			for (size_t i = 0; i < b->live && m < n; i++)
				if (b->status[i] == b->o.fast)
					idx[m++] = i;
			size_t moved = move_list(b, idx, m, b->o.slow);

			printf("BENCH IDEAL moved_out=%zu moved_in=0 of 0\n", moved);
			free(idx);
		}
		touch_range(b, c0, b->h, b->o.fast);
	} else {
		touch_range(b, c0, b->h, -1);
	}
	b->live = c0 + b->h;
	b->nchunks_live = k + 1;
	memset(b->hot, 0, b->npages);
	memset(b->weight, 0, b->npages * sizeof(*b->weight));
	memset(b->hot + c0, 1, b->h);
	b->nhot = b->h;
	if (k == 0) {
		set_uniform(b, c0, b->h, 0.9);
		if (b->base_pages)
			set_uniform(b, 0, b->base_pages, 0.1);
		else
			set_uniform(b, c0, b->h, 0.1);
	} else {
		set_uniform(b, c0, b->h, 0.7);
		set_uniform(b, chunk0(b, k - 1), b->h, 0.2);
		set_uniform(b, 0, chunk0(b, k - 1), 0.1);
	}
}

/* Every event, the start included, allocates a chunk. */
static bool grow_event(struct bench *b, unsigned n, size_t *hot_slow, size_t *room)
{
	if (b->o.ideal) {
		/*
		 * What had to move is what the kernel's placement would have
		 * left to fix: the part of the chunk beyond the fast node's
		 * room, twice (it comes in, as much goes out).
		 */
		size_t room0 = headroom_pages(b);

		*hot_slow = b->h > room0 ? b->h - room0 : 0;
		*room = 0;
		grow_phase(b, n);
		return true;
	}
	grow_phase(b, n);
	return false;
}

static void grow_access(struct bench *b, unsigned n)
{
	unsigned k = b->nchunks_live - 1;
	size_t cur = chunk0(b, k), prev = k ? chunk0(b, k - 1) : cur;

	for (unsigned i = 0; i < n; i++) {
		uint64_t r = xorshift64(&b->rng);
		unsigned pick = (unsigned)(r >> 56) % 100; /* 0..99 */
		size_t page;

		if (pick < (k ? 70u : 90u))
			page = cur + (r % b->h);
		else if (pick < 90)
			page = prev + (r % b->h);
		else if (prev > 0)
			page = (size_t)(r % prev);
		else
			page = cur + (r % b->h);
		page_words(b, page)[(r >> 20) & 511] += r >> 40;
	}
}

const struct mode_ops grow_ops = {
	.name = "grow",
	.setup = grow_setup,
	.place = grow_place,
	.schedule = grow_schedule,
	.event = grow_event,
	.access = grow_access,
};
