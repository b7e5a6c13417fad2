// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tierload mode scan: a hot set and a periodic sequential pass over all the
 * cold data, as a backup or a garbage collector's walk does it.  Layout:
 * [C0: cold, C pages][H: hot][C1: cold, C/2 pages].  C0 fills the fast node;
 * the hot set and C1 start on the slow node (--ideal: the hot set on the
 * fast node and the last H pages of C0 on the slow one).
 *
 * The hot set receives random 8-byte updates, as in gups, and does not
 * shift.  Every --scan-period seconds (the first pass at t = period) a pass
 * reads one word of every cold page (C0, then C1) in address order, spread
 * evenly over --scan-pass seconds.  A page read once per period is cold by
 * any measure of frequency, but it was accessed a moment ago: a policy that
 * promotes "recently accessed" pages drags the scanned data into the fast
 * tier after every pass, and must then demote it again.
 *
 * fast_ratio counts the hot set's updates only: the passes' reads (one per
 * cold page per period) are far below 1% of the accesses (FINAL prints both
 * counts).  The sample line adds scan_fast (the share of the scanned data on
 * the fast node), scan_slow0_fast (of the scanned data that was on the slow
 * node at t = 0, the share on the fast node now) and scan_promoted_bytes
 * (scanned data seen moving from the slow to the fast node between two
 * samples, summed over the run: a page that moves and comes back between two
 * samples is not seen).
 */
#include "tierload.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t ncold(const struct bench *b)
{
	return b->cap + b->ncold1;
}

/* The page of the i-th cold page, in the order a pass reads them. */
static size_t cold_page(const struct bench *b, size_t i)
{
	return i < b->cap ? b->cold0 + i : b->cold1 + (i - b->cap);
}

static bool is_cold(const struct bench *b, size_t page)
{
	return page < b->cold0 + b->cap || page >= b->cold1;
}

static void scan_setup(struct bench *b)
{
	b->cold0 = 0;
	b->a0 = b->cap;
	b->cold1 = b->cap + b->h;
	b->ncold1 = b->cap / 2;
	b->npages = b->cold1 + b->ncold1;
	b->scan_start = -1;
	b->slow0 = calloc(b->npages, 1);
	if (!b->slow0)
		die("malloc");
}

static void scan_place(struct bench *b)
{
	gups_place_cold_a(b);
	touch_range(b, b->cold1, b->ncold1, b->o.slow);
	b->live = b->npages;
	memset(b->hot + b->a0, 1, b->h);
	b->nhot = b->h;
	set_uniform(b, b->a0, b->h, 1.0);
}

/* Starts a pass when one is due, and reads the cold pages due by t. */
static void scan_tick(struct bench *b, double t)
{
	size_t due, n = ncold(b);
	double f;

	if (b->scan_start < 0) {
		if (t < (b->scan_passes + 1) * b->o.scan_period)
			return;
		b->scan_start = t;
		b->scan_next = 0;
		b->scan_passes++;
		printf("BENCH SCAN pass=%u kind=start t=%.2f pages=%zu\n", b->scan_passes, t, n);
	}
	f = (t - b->scan_start) / b->o.scan_pass;
	due = f >= 1 ? n : (size_t)(f * (double)n);
	for (; b->scan_next < due; b->scan_next++, b->scan_reads++)
		b->scan_sum += *(volatile uint64_t *)page_words(b, cold_page(b, b->scan_next));
	if (b->scan_next == n) {
		printf("BENCH SCAN pass=%u kind=end t=%.2f pages=%zu\n", b->scan_passes, t, n);
		b->scan_start = -1;
	}
}

static void scan_fields(struct bench *b, enum line which)
{
	size_t on = 0, n = 0, slow0 = 0, slow0_on = 0;

	switch (which) {
	case LINE_CONFIG:
		printf(" scan_period=%g scan_pass=%g cold_pages=%zu cold_slow_pages=%zu", b->o.scan_period,
		       b->o.scan_pass, ncold(b), b->ncold1);
		break;
	case LINE_SAMPLE:
		for (size_t i = 0; i < b->live; i++) {
			bool fast = b->status[i] == b->o.fast;

			if (!is_cold(b, i))
				continue;
			if (!b->have_last)
				b->slow0[i] = b->status[i] == b->o.slow;
			n++;
			on += fast;
			slow0 += b->slow0[i];
			slow0_on += b->slow0[i] && fast;
			b->scan_promoted_pages += b->have_last && b->last_node[i] == b->o.slow && fast;
		}
		printf(" scan_fast=%.4f scan_slow0_fast=%.4f scan_promoted_bytes=%llu scan_passes=%u",
		       n ? (double)on / (double)n : 0.0, slow0 ? (double)slow0_on / (double)slow0 : 0.0,
		       (unsigned long long)(b->scan_promoted_pages * PAGE), b->scan_passes);
		break;
	case LINE_FINAL:
		printf(" scan_passes=%u scan_reads=%llu", b->scan_passes,
		       (unsigned long long)b->scan_reads);
		break;
	}
}

const struct mode_ops scan_ops = {
	.name = "scan",
	.setup = scan_setup,
	.place = scan_place,
	/* phase stays 0: the updates go to the hot set at a0, as gups's phase 0. */
	.access = gups_access,
	.tick = scan_tick,
	.fields = scan_fields,
};
