/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The ranked exchange; the reasoning is in exchange.h. */
#include <string.h>

#include "exchange.h"

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* May slow bucket i take the place of fast bucket j's data?  Data no window
 * saw accessed gives way to anything seen accessed at a higher rate than it
 * could have had; lukewarm data only to data XCHG_MARGIN times hotter. */
static bool clearly_hotter(const struct hot_hist *slow, unsigned i, const struct hot_hist *fast,
			   unsigned j)
{
	double in = hot_bucket_lo(slow, i), top = hot_bucket_hi(fast, j);

	return j == 0 ? in >= top : in >= XCHG_MARGIN * top;
}

/* The free-memory controller's decision, with the plan's thresholds. */
static void controller_only(const struct xchg_input *in, struct xchg_decision *d)
{
	qctl_compute(in->levels, in->fast_free, in->tick_us, &d->q);
	d->promote_min = in->promote_min;
	d->demote_max = in->demote_max;
	d->demote_young = in->demote_young;
}

void xchg_decide(const struct xchg_input *in, struct xchg_decision *ret)
{
	const struct hot_hist *f = in->fast, *s = in->slow;
	const struct qctl_levels *l = in->levels;
	struct xchg_decision d;
	uint64_t free = in->fast_free, supply[HOT_MAX_BUCKETS], room, windows;
	uint64_t deficit = free < l->target ? l->target - free : 0;
	int coldest_in = -1, hottest_out = -1;
	unsigned j = 0;

	memset(&d, 0, sizeof(d));
	controller_only(in, &d);
	if (!f || !s || !f->valid || !s->valid || f->n == 0 || s->n == 0) {
		d.promote_why = XP_NO_HISTOGRAM;
		d.demote_why = XD_NO_HISTOGRAM;
		*ret = d;
		return;
	}
	room = free > l->floor ? free - l->floor : 0;
	/* Free pages are never accessed: they are in the fast node's count-0
	 * bucket, and are not data to demote. */
	memcpy(supply, f->bytes, sizeof(supply));
	supply[0] = supply[0] > free ? supply[0] - free : 0;

	for (int i = (int)s->n - 1; i >= 0 && s->lo[i] >= in->promote_min; i--) {
		uint64_t want = s->bytes[i], take = min_u64(want, room);

		if (want == 0)
			continue;
		room -= take;
		d.into_free += take;
		want -= take;
		while (want && j < f->n && clearly_hotter(s, (unsigned)i, f, j)) {
			take = min_u64(want, supply[j]);
			supply[j] -= take;
			want -= take;
			if (take && j == 0)
				d.idle_out += take;
			else if (take)
				d.warm_out += take;
			if (take && (int)j > hottest_out)
				hottest_out = (int)j;
			if (supply[j] == 0)
				j++;
		}
		if (want < s->bytes[i])
			coldest_in = i;
	}
	d.hot_in = d.into_free + d.idle_out + d.warm_out;

	if (d.hot_in == 0) {
		/* Nothing earns a place: the controller's page-level
		 * exchange goes on by itself. */
		d.promote_why = free < l->floor ? XP_WAIT_FLOOR : XP_NOTHING_HOTTER;
		d.demote_why = deficit ? XD_FREE_GOAL : XD_IDLE;
		*ret = d;
		return;
	}
	windows = l->window_us ? in->tick_us / l->window_us : 1;
	if (windows == 0)
		windows = 1;
	if (s->lo[coldest_in] > d.promote_min)
		d.promote_min = s->lo[coldest_in];
	if (hottest_out >= 1) {
		d.demote_max = (unsigned)hottest_out + 1 < f->n ? f->lo[hottest_out + 1] - 1
								 : in->demote_max;
		d.demote_young = false;
		d.warm_rate = hot_bucket_hi(f, (unsigned)hottest_out);
		d.demote_why = XD_LUKEWARM_OUT;
	} else {
		d.demote_why = d.idle_out ? XD_IDLE_OUT : deficit ? XD_FREE_GOAL : XD_IDLE;
	}
	d.q.demote = qctl_per_window(deficit + d.idle_out + d.warm_out, windows, l->cap);
	/* Below the floor promotion waits for demotion to make room, as in
	 * the controller: what lands first would push the node into its
	 * watermarks. */
	if (free < l->floor) {
		d.q.promote = QCTL_STOP_BYTES;
		d.promote_why = XP_WAIT_FLOOR;
	} else {
		d.q.promote = qctl_per_window(d.hot_in, windows, l->cap);
		d.promote_why = d.idle_out + d.warm_out ? XP_EXCHANGE : XP_INTO_FREE;
	}
	*ret = d;
}

const char *xchg_promote_why_name(enum xchg_promote_why w)
{
	switch (w) {
	case XP_NO_HISTOGRAM: return "no histogram yet";
	case XP_WAIT_FLOOR: return "waiting for demotion (fast node below its floor)";
	case XP_NOTHING_HOTTER: return "nothing on the slow node clearly hotter than the fast node's coldest";
	case XP_INTO_FREE: return "hot data into free memory";
	case XP_EXCHANGE: return "hot data in for colder data";
	}
	return "?";
}

const char *xchg_demote_why_name(enum xchg_demote_why w)
{
	switch (w) {
	case XD_NO_HISTOGRAM: return "no histogram yet";
	case XD_IDLE: return "free memory at its goal, nothing hotter waiting";
	case XD_FREE_GOAL: return "below the free goal";
	case XD_IDLE_OUT: return "unaccessed data out for hotter data";
	case XD_LUKEWARM_OUT: return "lukewarm data out for clearly hotter data (young filter off)";
	}
	return "?";
}
