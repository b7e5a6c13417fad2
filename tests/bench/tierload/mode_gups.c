// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tierload mode gups: cold data C fills the fast node, the hot sets A and B
 * (H each) lie on the slow node; phase 0 accesses A, phase 1 (from half the
 * run) B.  Every access is a random 8-byte update of the hot set.  Layout:
 * [C cold][A][B].
 */
#include "tierload.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void gups_setup(struct bench *b)
{
	b->cold0 = 0;
	b->a0 = b->cap;
	b->b0 = b->cap + b->h;
	b->npages = b->cap + 2 * b->h;
}

/* Phase 0: hot set A; phase 1: B (A is now cold). */
static void gups_phase(struct bench *b, int phase)
{
	size_t hot0 = phase ? b->b0 : b->a0;

	b->phase = phase;
	memset(b->hot, 0, b->npages);
	memset(b->weight, 0, b->npages * sizeof(*b->weight));
	memset(b->hot + hot0, 1, b->h);
	b->nhot = b->h;
	set_uniform(b, hot0, b->h, 1.0);
}

static void gups_place(struct bench *b)
{
	if (b->o.ideal) {
		/* A on the fast node; cold data fills the rest of it, then the slow node. */
		touch_range(b, b->a0, b->h, b->o.fast);
		touch_range(b, b->cold0, b->cap - b->h, b->o.fast);
		touch_range(b, b->cold0 + b->cap - b->h, b->h, b->o.slow);
	} else {
		touch_range(b, b->cold0, b->cap, b->o.fast);
		touch_range(b, b->a0, b->h, b->o.slow);
	}
	touch_range(b, b->b0, b->h, b->o.slow);
	b->live = b->npages;
	gups_phase(b, 0);
}

static void gups_schedule(struct bench *b)
{
	b->ev[b->nev++] = (struct event){ b->o.duration / 2, "shift", -1, false };
}

/* The shift: B becomes the hot set; --ideal moves A out and B in. */
static bool gups_event(struct bench *b, unsigned n, size_t *hot_slow, size_t *room)
{
	size_t *out;

	if (n == 0)
		return false;
	gups_phase(b, 1);
	if (!b->o.ideal)
		return false;
	out = malloc(b->h * sizeof(*out));
	if (!out)
		die("malloc");
	for (size_t i = 0; i < b->h; i++)
		out[i] = b->a0 + i;
	/* What had to move is measured before the workload moves it itself. */
	query(b, 0, b->live);
	for (size_t i = 0; i < b->live; i++)
		*hot_slow += b->hot[i] && b->status[i] != b->o.fast;
	*room = headroom_pages(b);
	ideal_place(b, out, b->h);
	free(out);
	return true;
}

static void gups_access(struct bench *b, unsigned n)
{
	uint64_t *base = page_words(b, b->phase ? b->b0 : b->a0);
	size_t words = b->h * PAGE / sizeof(uint64_t);

	for (unsigned i = 0; i < n; i++) {
		uint64_t r = xorshift64(&b->rng);

		base[r % words] += r >> 40;
	}
}

const struct mode_ops gups_ops = {
	.name = "gups",
	.setup = gups_setup,
	.place = gups_place,
	.schedule = gups_schedule,
	.event = gups_event,
	.access = gups_access,
};
