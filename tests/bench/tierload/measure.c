// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tierload: the events (hot-set changes), the samples of where the pages
 * are, and the time until 90% of a new hot set is on the fast node.
 */
#include "tierload.h"

#include <stdio.h>
#include <string.h>

void schedule(struct bench *b)
{
	b->nev = 0;
	b->ev[b->nev++] = (struct event){ 0, "start", -1, false };
	if (b->ops->schedule)
		b->ops->schedule(b);
}

double hot_fast_frac(struct bench *b)
{
	size_t on = 0;

	/* Only the hot pages' runs: cheap enough to check often. */
	for (size_t i = 0; i < b->live;) {
		size_t j;

		while (i < b->live && !b->hot[i])
			i++;
		j = i;
		while (j < b->live && b->hot[j] && j - i < QUERY_BATCH)
			j++;
		if (j > i) {
			query(b, i, j - i);
			for (size_t k = i; k < j; k++)
				on += b->status[k] == b->o.fast;
		}
		i = j;
	}
	return b->nhot ? (double)on / (double)b->nhot : 0;
}

void fire(struct bench *b, unsigned n, double t)
{
	struct event *e = &b->ev[n];
	size_t hot_slow = 0, room = 0;
	uint64_t need;

	if (n > 0 && !b->ev[n - 1].reached)
		printf("BENCH T90 n=%u kind=%s t90=NA window=%.1f\n", n - 1, b->ev[n - 1].kind,
		       t - b->ev[n - 1].fired);
	if (!b->ops->event || !b->ops->event(b, n, &hot_slow, &room)) {
		query(b, 0, b->live);
		for (size_t i = 0; i < b->live; i++)
			hot_slow += b->hot[i] && b->status[i] != b->o.fast;
		room = headroom_pages(b);
	}
	need = (uint64_t)(hot_slow + (hot_slow > room ? hot_slow - room : 0)) * PAGE;
	b->need_bytes += need;
	e->fired = t;
	b->cur_ev = n;
	printf("BENCH EVENT n=%u kind=%s t=%.2f hot_pages=%zu hot_slow_pages=%zu headroom_kb=%zu "
	       "need_bytes=%llu live_pages=%zu\n",
	       n, e->kind, t, b->nhot, hot_slow, room * (PAGE / 1024), (unsigned long long)need,
	       b->live);
}

struct sample {
	double fast_ratio, hot_fast;
	size_t on_fast, on_slow, other;
};

/* Every live page's node (into b->status) and the sample's sums. */
static void measure(struct bench *b, struct sample *s)
{
	size_t hot_on = 0;
	double r = 0;

	query(b, 0, b->live);
	*s = (struct sample){ 0 };
	for (size_t i = 0; i < b->live; i++) {
		int st = b->status[i];

		if (st == b->o.fast) {
			s->on_fast++;
			r += b->weight[i];
			hot_on += b->hot[i];
		} else if (st == b->o.slow) {
			s->on_slow++;
		} else {
			s->other++;
		}
	}
	s->fast_ratio = r;
	s->hot_fast = b->nhot ? (double)hot_on / (double)b->nhot : 0;
}

void sample(struct bench *b, struct series *sr, double t)
{
	struct sample s;
	double dt = t - sr->last_t;

	measure(b, &s);
	check_t90(b, t, s.hot_fast);
	/* Time-weighted mean: each sample holds until the next one. */
	if (sr->n)
		sr->area += sr->last_r * dt;
	printf("BENCH SAMPLE t=%.2f fast_ratio=%.4f hot_fast=%.4f on_fast=%zu on_slow=%zu "
	       "other=%zu fast_free_kb=%ld slow_free_kb=%ld access_rate=%.0f",
	       t, s.fast_ratio, s.hot_fast, s.on_fast, s.on_slow, s.other, fast_free_kb(b),
	       node_meminfo_kb(b->o.slow, "MemFree"),
	       sr->n && dt > 0 ? (double)(b->accesses - sr->last_acc) / dt : 0.0);
	if (b->ops->fields)
		b->ops->fields(b, LINE_SAMPLE);
	printf("\n");
	/* Read by the modes' fields; only modes whose pages are all live from the start use it. */
	memcpy(b->last_node, b->status, b->live * sizeof(*b->last_node));
	b->have_last = true;
	sr->last_t = t;
	sr->last_r = s.fast_ratio;
	sr->last_acc = b->accesses;
	sr->n++;
}

void check_t90(struct bench *b, double t, double frac)
{
	struct event *e = &b->ev[b->cur_ev];

	if (e->reached || e->fired < 0 || frac < 0.9)
		return;
	e->reached = true;
	printf("BENCH T90 n=%u kind=%s t90=%.2f\n", b->cur_ev, e->kind, t - e->fired);
}
