/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * Decide (pure): the ranked exchange across one tier boundary.
 *
 * The free-memory controller (quota_ctl.h) alone moves pages by a binary
 * test: promotion takes what was touched lately, demotion what was not.
 * When the fast node's cold data is lukewarm -- touched a few times a
 * second, like a cache or an old heap -- every page of it looks touched,
 * demotion finds nothing, the node stays full and the hot data waits on
 * the slow node.  The exchange ranks instead: from both nodes' hotness
 * histograms (hotness.h) it pairs the slow node's hottest bytes with the
 * fast node's coldest, hottest against coldest, for as long as the slow
 * side is clearly hotter.  Room comes first from free memory above the
 * floor, then from data no window saw accessed (demoted with the young
 * filter, which keeps the scattered hot pages of an idle-looking region
 * where they are), then from lukewarm data, which is demoted by its
 * region's count with the young filter off -- and only for as many bytes
 * as the hotter data needs.
 *
 * "Clearly": a lukewarm bucket gives way only to data whose rate is at
 * least XCHG_MARGIN times the bucket's top rate.  Rates are estimated from
 * some twenty samples per window, so an estimate jitters by about a bucket;
 * data that moved up cannot qualify to move back down without its rate
 * falling by that margin, so the same pages do not ping-pong.
 *
 * Demotion keeps its young filter for the data no window saw accessed: the
 * filter cannot tell a lukewarm page from a scattered hot one (both are
 * young now and then), and dropping it where it let almost nothing through
 * cost zipf more than it gained grow (docs/benchmarks.md).
 *
 * The outputs are the two schemes' thresholds (promotion's lowest count,
 * demotion's highest count and young filter) and quotas.  Where nothing on
 * the slow node is clearly hotter than anything on the fast node, the
 * decision is the free-memory controller's, with the plan's thresholds:
 * that keeps its page-level exchange (young pages in, unyoung out) for
 * workloads whose regions all look alike.
 */
#include <stdbool.h>
#include <stdint.h>

#include "hotness.h"
#include "quota_ctl.h"

#define XCHG_MARGIN 2.0

enum xchg_promote_why {
	XP_NO_HISTOGRAM,     /* no histogram yet: the free-memory controller */
	XP_WAIT_FLOOR,       /* the fast node is below its floor: demotion first */
	XP_NOTHING_HOTTER,   /* nothing on the slow node clearly hotter than the fast node's coldest */
	XP_INTO_FREE,        /* hot data fills free memory */
	XP_EXCHANGE,         /* hot data takes the place of colder data */
};

enum xchg_demote_why {
	XD_NO_HISTOGRAM,
	XD_IDLE,             /* free memory at or above the goal, nothing hotter waiting */
	XD_FREE_GOAL,        /* below the free goal */
	XD_IDLE_OUT,         /* data no window saw accessed makes room for hotter data */
	XD_LUKEWARM_OUT,     /* lukewarm data makes room for clearly hotter data */
};

struct xchg_input {
	const struct hot_hist *fast, *slow; /* either may be NULL or not valid */
	uint64_t fast_free;
	const struct qctl_levels *levels;
	uint64_t tick_us;
	/* The plan's thresholds: the exchange never promotes below
	 * promote_min, and keeps demote_max and demote_young when it demotes
	 * no lukewarm data. */
	uint32_t promote_min;
	uint32_t demote_max;
	bool demote_young;
};

struct xchg_decision {
	struct qctl_quota q;          /* bytes per window, before the yield gain */
	uint32_t promote_min;         /* nr_accesses min of promotion, slow kdamond's counts */
	uint32_t demote_max;          /* nr_accesses max of demotion, fast kdamond's counts */
	bool demote_young;            /* demotion keeps its young filter */
	enum xchg_promote_why promote_why;
	enum xchg_demote_why demote_why;
	uint64_t hot_in;              /* slow-node bytes that earned a place this tick */
	uint64_t into_free, idle_out, warm_out; /* where their room comes from */
	double warm_rate;             /* the top rate (per s) of what is demoted lukewarm */
};

/* The decision for one tick of in->tick_us.  Always succeeds. */
void xchg_decide(const struct xchg_input *in, struct xchg_decision *ret);

const char *xchg_promote_why_name(enum xchg_promote_why w);
const char *xchg_demote_why_name(enum xchg_demote_why w);
