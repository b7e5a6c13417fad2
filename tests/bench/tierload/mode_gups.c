// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tierload modes gups and lukewarm: cold data C fills the fast node, the hot
 * sets A and B (H each) lie on the slow node; phase 0 accesses A, phase 1
 * (from half the run) B.  Layout: [C cold][A][B].
 *
 * gups: every access is a random 8-byte update of the hot set.
 * lukewarm: the data outside the current hot set (C and the other of A and
 * B: "the cold data") receives --cold-share of the accesses, spread evenly
 * over its pages (a random word of a random page), the rest go to the hot
 * set as in gups.  So one lukewarm page is touched share/(1-share) * H/(C+H)
 * times as often as one hot page: about 1/60 at 10% on the 512 MiB guest.
 * scan (mode_scan.c) shares the placement of C and A and the updates.
 */
#include "tierload.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The lukewarm share is drawn from the top 16 bits of the random number. */
#define SHARE_ONE 65536.0

static double cold_share(const struct bench *b)
{
	return (double)b->cold_thresh / SHARE_ONE;
}

static void gups_setup(struct bench *b)
{
	b->cold0 = 0;
	b->a0 = b->cap;
	b->b0 = b->cap + b->h;
	b->npages = b->cap + 2 * b->h;
}

static void lukewarm_setup(struct bench *b)
{
	gups_setup(b);
	b->cold_thresh = (uint64_t)(b->o.cold_share * SHARE_ONE + 0.5);
}

/*
 * Phase 0: hot set A; phase 1: B (A is now cold).  The weights: the hot set
 * 1 - share, every other page share / (npages - H).
 */
static void gups_phase(struct bench *b, int phase)
{
	size_t hot0 = phase ? b->b0 : b->a0;
	double share = cold_share(b);

	b->phase = phase;
	memset(b->hot, 0, b->npages);
	memset(b->weight, 0, b->npages * sizeof(*b->weight));
	memset(b->hot + hot0, 1, b->h);
	b->nhot = b->h;
	set_uniform(b, hot0, b->h, 1.0 - share);
	if (share > 0) {
		double per_page = share / (double)(b->npages - b->h);

		for (size_t i = 0; i < b->npages; i++)
			if (!b->hot[i])
				b->weight[i] = per_page;
	}
}

void gups_place_cold_a(struct bench *b)
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
}

static void gups_place(struct bench *b)
{
	gups_place_cold_a(b);
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

void gups_access(struct bench *b, unsigned n)
{
	uint64_t *base = page_words(b, b->phase ? b->b0 : b->a0);
	size_t words = b->h * PAGE / sizeof(uint64_t);

	for (unsigned i = 0; i < n; i++) {
		uint64_t r = xorshift64(&b->rng);

		base[r % words] += r >> 40;
	}
}

static void lukewarm_access(struct bench *b, unsigned n)
{
	size_t hot0 = b->phase ? b->b0 : b->a0;
	uint64_t *base = page_words(b, hot0);
	size_t words = b->h * PAGE / sizeof(uint64_t);
	size_t ncold = b->npages - b->h;

	for (unsigned i = 0; i < n; i++) {
		uint64_t r = xorshift64(&b->rng);

		if ((r >> 48) < b->cold_thresh) {
			/* The i-th page outside the hot set. */
			size_t page = (size_t)(r % ncold);

			if (page >= hot0)
				page += b->h;
			page_words(b, page)[(r >> 20) & 511] += r >> 40;
		} else {
			base[r % words] += r >> 40;
		}
	}
}

/*
 * cold_fast: the share of the data outside the hot set on the fast node;
 * cold_demoted_bytes: that data seen moving from the fast to the slow node
 * between two samples, summed over the run (a page that moves and comes back
 * between two samples is not seen).
 */
static void lukewarm_fields(struct bench *b, enum line which)
{
	size_t on = 0, n = 0;

	switch (which) {
	case LINE_CONFIG:
		printf(" cold_share=%.4f", cold_share(b));
		break;
	case LINE_SAMPLE:
		for (size_t i = 0; i < b->live; i++) {
			if (b->hot[i])
				continue;
			n++;
			on += b->status[i] == b->o.fast;
			b->cold_demoted_pages += b->have_last && b->last_node[i] == b->o.fast &&
						 b->status[i] == b->o.slow;
		}
		printf(" cold_fast=%.4f cold_demoted_bytes=%llu", n ? (double)on / (double)n : 0.0,
		       (unsigned long long)(b->cold_demoted_pages * PAGE));
		break;
	case LINE_FINAL:
		break;
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

const struct mode_ops lukewarm_ops = {
	.name = "lukewarm",
	.setup = lukewarm_setup,
	.place = gups_place,
	.schedule = gups_schedule,
	.event = gups_event,
	.access = lukewarm_access,
	.fields = lukewarm_fields,
};
