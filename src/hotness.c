/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Access-count histograms and rates; the reasoning is in hotness.h. */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "hotness.h"

/* Bucket edges as parts of 20 samples: each step roughly doubles the rate
 * (1 - c/20 halves from 16 on), so the buckets are even on a log scale of
 * the rate, and the top one holds the saturated counts. */
static const uint32_t edge_of_20[HOT_MAX_BUCKETS] = { 0, 1, 2, 4, 7, 11, 16, 19 };

void hot_edges_for(uint32_t max_count, struct hot_edges *ret)
{
	struct hot_edges e = { .n = 0 };

	if (max_count == 0)
		max_count = 1;
	for (unsigned i = 0; i < HOT_MAX_BUCKETS; i++) {
		uint32_t lo = (uint32_t)(((uint64_t)edge_of_20[i] * max_count + 10) / 20);

		if (i == 1 || (e.n && lo <= e.lo[e.n - 1]))
			lo = e.lo[e.n - 1] + 1;
		if (lo > max_count)
			break;
		e.lo[e.n++] = lo;
	}
	*ret = e;
}

int hot_hist_from(const struct hot_edges *e, const uint64_t *prev, const uint64_t *cur,
		  uint64_t monitored, uint32_t max_count, uint64_t sample_us, struct hot_hist *ret)
{
	struct hot_hist h = { .n = e->n, .max_count = max_count, .sample_us = sample_us };
	uint64_t sum = 0;

	if (e->n == 0 || monitored == 0)
		return -EINVAL;
	for (unsigned b = 0; b < e->n; b++) {
		if (cur[b] < prev[b])
			return -ERANGE;
		sum += cur[b] - prev[b];
	}
	/* Passes are whole: the kernel copies the counters between them. */
	h.passes = (sum + monitored / 2) / monitored;
	if (h.passes == 0)
		return -EAGAIN;
	for (unsigned b = 0; b < e->n; b++) {
		h.lo[b] = e->lo[b];
		h.bytes[b] = (cur[b] - prev[b]) / h.passes;
	}
	h.valid = true;
	*ret = h;
	return 0;
}

double hot_rate(uint32_t count, uint32_t max_count, uint64_t sample_us)
{
	if (max_count == 0 || sample_us == 0 || count >= max_count)
		return INFINITY;
	return -log1p(-(double)count / max_count) / ((double)sample_us / 1e6);
}

uint32_t hot_count_for(double rate, uint32_t max_count, uint64_t sample_us)
{
	for (uint32_t c = 0; c <= max_count; c++)
		if (hot_rate(c, max_count, sample_us) >= rate)
			return c;
	return max_count + 1;
}

double hot_bucket_lo(const struct hot_hist *h, unsigned b)
{
	return hot_rate(h->lo[b], h->max_count, h->sample_us);
}

double hot_bucket_hi(const struct hot_hist *h, unsigned b)
{
	return b + 1 < h->n ? hot_rate(h->lo[b + 1], h->max_count, h->sample_us) : INFINITY;
}
