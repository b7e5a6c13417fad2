/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * Decide (pure): how hot each node's memory is, from DAMON's own counts.
 *
 * Every kdamond carries, after its migration scheme, one `stat` scheme per
 * access-count bucket (plan.h).  A stat scheme changes nothing; the kernel
 * adds the bytes of every region whose count falls in the scheme's range to
 * the scheme's sz_tried at each apply pass.  The buckets partition all
 * counts, so between two reads the buckets' sz_tried grow by the monitored
 * bytes times the passes in between, and each bucket's share of that growth
 * is the share of the node at that count: a histogram for the price of a
 * few file reads, on every kernel with DAMOS (the alternative, a
 * tried_regions walk, holds the DAMON sysfs lock for an apply interval and
 * builds a directory per region).
 *
 * A count is the number of samples of an aggregation window (max_count of
 * them, aggr/sample) in which the region's sampled page was found accessed,
 * so for a page accessed at a steady rate r per second, sampled every s
 * seconds, count/max_count = 1 - e^(-r*s).  hot_rate() inverts it, which
 * makes counts taken with different sampling intervals comparable.
 */
#include <stdbool.h>
#include <stdint.h>

#define HOT_MAX_BUCKETS 8

/* Bucket b holds the counts [lo[b], lo[b + 1] - 1]; the last is open. */
struct hot_edges {
	unsigned n;
	uint32_t lo[HOT_MAX_BUCKETS];
};

/*
 * The buckets for windows of max_count samples: count 0 (nothing seen),
 * then ranges about twice as wide in rate each, up to the saturated top.
 * lo[0] is 0 and lo[1] is 1.  max_count 0 is taken as 1.
 */
void hot_edges_for(uint32_t max_count, struct hot_edges *ret);

struct hot_hist {
	bool valid;
	unsigned n;
	uint32_t lo[HOT_MAX_BUCKETS];
	uint64_t bytes[HOT_MAX_BUCKETS];
	uint32_t max_count;        /* samples per aggregation window */
	uint64_t sample_us;        /* the sampling interval the counts were taken at */
	uint64_t passes;           /* apply passes the histogram was measured over */
};

/*
 * The histogram from the buckets' sz_tried at the last read (prev) and now
 * (cur), for a kdamond that monitors `monitored` bytes.  Returns -EAGAIN
 * when no complete apply pass lies in between (keep the last histogram),
 * -ERANGE when a counter went back (the kdamond restarted: take cur as the
 * next prev), -EINVAL for an empty input; *ret untouched then.
 */
int hot_hist_from(const struct hot_edges *e, const uint64_t *prev, const uint64_t *cur,
		  uint64_t monitored, uint32_t max_count, uint64_t sample_us, struct hot_hist *ret);

/* Accesses per second of a page whose region counts `count` of max_count
 * samples taken every sample_us; INFINITY at max_count and above. */
double hot_rate(uint32_t count, uint32_t max_count, uint64_t sample_us);

/* The lowest count, in windows of max_count samples every sample_us, whose
 * rate is at least `rate`; max_count + 1 when none is (rate INFINITY). */
uint32_t hot_count_for(double rate, uint32_t max_count, uint64_t sample_us);

/* Bucket b's rates: [lo, hi), hi INFINITY for the last. */
double hot_bucket_lo(const struct hot_hist *h, unsigned b);
double hot_bucket_hi(const struct hot_hist *h, unsigned b);
