/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The hotness histograms (include/hotness.h) and the ranked exchange
 * (include/exchange.h): histograms and free memory in, thresholds, quotas
 * and reasons out.  No files.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <math.h>
#include <string.h>

#include "exchange.h"
#include "hotness.h"

#define MiB (1024ull * 1024)
#define N(t) (sizeof(t) / sizeof((t)[0]))

/* ---- hotness ---- */

static void test_edges(void **state)
{
	static const struct {
		uint32_t max;
		unsigned n;
		uint32_t lo[HOT_MAX_BUCKETS];
	} t[] = {
		{ 20, 8, { 0, 1, 2, 4, 7, 11, 16, 19 } },
		{ 10, 8, { 0, 1, 2, 3, 4, 6, 8, 10 } },
		{ 40, 8, { 0, 1, 4, 8, 14, 22, 32, 38 } },
		{ 3, 4, { 0, 1, 2, 3 } },
		{ 1, 2, { 0, 1 } },
		{ 0, 2, { 0, 1 } },
	};

	(void)state;
	for (unsigned i = 0; i < N(t); i++) {
		struct hot_edges e;

		hot_edges_for(t[i].max, &e);
		assert_int_equal(e.n, t[i].n);
		for (unsigned b = 0; b < e.n; b++)
			assert_int_equal(e.lo[b], t[i].lo[b]);
	}
}

static void test_rate(void **state)
{
	(void)state;
	assert_true(hot_rate(0, 20, 100000) == 0.0);
	/* Half the samples of 100 ms: ln 2 / 0.1 s. */
	assert_true(fabs(hot_rate(10, 20, 100000) - 6.931) < 0.01);
	assert_true(isinf(hot_rate(20, 20, 100000)));
	assert_true(isinf(hot_rate(3, 0, 100000)));
	/* The same count means five times the rate at a fifth of the interval. */
	assert_true(fabs(hot_rate(4, 20, 20000) - 5 * hot_rate(4, 20, 100000)) < 1e-9);
	for (uint32_t c = 0; c <= 20; c++)
		assert_int_equal(hot_count_for(hot_rate(c, 20, 50000), 20, 50000), c);
	assert_int_equal(hot_count_for(INFINITY, 20, 50000), 20);
	assert_int_equal(hot_count_for(1e9, 20, 50000), 20);
}

static void test_hist_from(void **state)
{
	struct hot_edges e;
	struct hot_hist h = { .valid = false }, keep;
	uint64_t prev[HOT_MAX_BUCKETS] = { 0 }, cur[HOT_MAX_BUCKETS] = { 0 };

	(void)state;
	hot_edges_for(20, &e);
	/* Three passes over 512 MiB: 400 idle, 100 lukewarm, 12 hot. */
	memcpy(prev, (uint64_t[]){ 10, 20, 30, 40, 50, 60, 70, 80 }, sizeof(prev));
	memcpy(cur, prev, sizeof(cur));
	cur[0] += 3 * 400 * MiB;
	cur[3] += 3 * 100 * MiB;
	cur[7] += 3 * 12 * MiB;
	assert_int_equal(hot_hist_from(&e, prev, cur, 512 * MiB, 20, 100000, &h), 0);
	assert_true(h.valid);
	assert_int_equal(h.passes, 3);
	assert_int_equal(h.bytes[0], 400 * MiB);
	assert_int_equal(h.bytes[3], 100 * MiB);
	assert_int_equal(h.bytes[7], 12 * MiB);
	assert_int_equal(h.bytes[1], 0);
	assert_int_equal(h.sample_us, 100000);

	/* No complete pass, a restart, nothing monitored: untouched. */
	keep = h;
	assert_int_equal(hot_hist_from(&e, prev, prev, 512 * MiB, 20, 100000, &h), -EAGAIN);
	assert_int_equal(hot_hist_from(&e, cur, prev, 512 * MiB, 20, 100000, &h), -ERANGE);
	assert_int_equal(hot_hist_from(&e, prev, cur, 0, 20, 100000, &h), -EINVAL);
	assert_memory_equal(&h, &keep, sizeof(h));
}

/* ---- the exchange ---- */

/* A histogram at max_count 20, sample_us, from MiB per bucket. */
static struct hot_hist hist(uint64_t sample_us, const unsigned mib[HOT_MAX_BUCKETS])
{
	struct hot_edges e;
	struct hot_hist h = { .valid = true, .max_count = 20, .sample_us = sample_us, .passes = 1 };

	hot_edges_for(20, &e);
	h.n = e.n;
	for (unsigned b = 0; b < e.n; b++) {
		h.lo[b] = e.lo[b];
		h.bytes[b] = mib[b] * MiB;
	}
	return h;
}

/* A 512 MiB fast node: promotion fills down to 30 MiB free, demotion keeps
 * 40 MiB free, at most 16 MiB per one-second window. */
static const struct qctl_levels levels = {
	.floor = 30 * MiB, .target = 40 * MiB, .cap = 16 * MiB, .window_us = 1000000,
};

struct xcase {
	const char *name;
	uint64_t fast_us, slow_us;          /* sampling intervals */
	unsigned fast[HOT_MAX_BUCKETS];     /* MiB per bucket, free memory included */
	unsigned slow[HOT_MAX_BUCKETS];
	unsigned free_mib;
	uint32_t plan_promote_min;
	/* expected */
	enum xchg_promote_why pwhy;
	enum xchg_demote_why dwhy;
	uint32_t promote_min, demote_max;
	bool young;
	uint64_t promote, demote;           /* quota bytes per window */
	unsigned into_free, idle_out, warm_out; /* MiB */
};

#define PLAN_MAX 4294967295u
#define STOP QCTL_STOP_BYTES

static const struct xcase cases[] = {
	/* The benchmark's gups: node 0 full of data nothing touches, the hot
	 * set saturated on node 1.  Free memory above the floor first, then
	 * idle data makes room, young filter on. */
	{ "gups", 100000, 100000, { 440, 0, 0, 0, 0, 0, 0, 0 }, { 300, 0, 0, 0, 0, 0, 0, 69 }, 40, 1,
	  XP_EXCHANGE, XD_IDLE_OUT, 19, PLAN_MAX, true, 16 * MiB, 16 * MiB, 10, 59, 0 },
	/* Lukewarm cold data (counts 4-6 of 20 at 100 ms: 2-4 touches a
	 * second) and nothing idle: lukewarm goes, young filter off, and no
	 * more than the hot data needs beyond the free goal's deficit. */
	{ "lukewarm", 100000, 100000, { 30, 0, 0, 420, 0, 0, 0, 0 }, { 300, 0, 0, 30, 0, 0, 0, 6 }, 30, 1,
	  XP_EXCHANGE, XD_LUKEWARM_OUT, 19, 6, false, 6 * MiB, 16 * MiB, 0, 0, 6 },
	/* Hot data fits in free memory above the floor: nothing demoted. */
	{ "into-free", 100000, 100000, { 300, 0, 0, 100, 0, 0, 0, 0 }, { 300, 0, 0, 0, 0, 0, 0, 8 }, 60, 1,
	  XP_INTO_FREE, XD_IDLE, 19, PLAN_MAX, true, 8 * MiB, STOP, 8, 0, 0 },
	/* Lukewarm on both nodes at about the same rate: nothing clearly
	 * hotter, the controller decides with the plan's thresholds. */
	{ "alike", 100000, 100000, { 30, 0, 0, 420, 0, 0, 0, 0 }, { 300, 0, 0, 0, 200, 0, 0, 0 }, 30, 1,
	  XP_NOTHING_HOTTER, XD_FREE_GOAL, 1, PLAN_MAX, true, 10 * MiB, 10 * MiB, 0, 0, 0 },
	/* Ping-pong guard: slow bucket 6 starts where fast bucket 5 ends, so
	 * it is hotter but not twice as hot. */
	{ "margin", 100000, 100000, { 30, 0, 0, 0, 0, 420, 0, 0 }, { 300, 0, 0, 0, 0, 0, 50, 0 }, 30, 1,
	  XP_NOTHING_HOTTER, XD_FREE_GOAL, 1, PLAN_MAX, true, 10 * MiB, 10 * MiB, 0, 0, 0 },
	/* After an exchange the hot data sits on the fast node: the slow
	 * node's lukewarm data cannot take its place. */
	{ "settled", 100000, 100000, { 30, 0, 0, 350, 0, 0, 0, 70 }, { 300, 0, 0, 100, 0, 0, 0, 0 }, 30, 1,
	  XP_NOTHING_HOTTER, XD_FREE_GOAL, 1, PLAN_MAX, true, 10 * MiB, 10 * MiB, 0, 0, 0 },
	/* Saturated slow data (at least 30 touches a second at 100 ms)
	 * against data one bucket below the top: not clearly hotter. */
	{ "coldest-first", 100000, 100000, { 30, 0, 0, 0, 0, 10, 0, 0 }, { 300, 0, 0, 0, 0, 0, 0, 20 }, 30, 1,
	  XP_NOTHING_HOTTER, XD_FREE_GOAL, 1, PLAN_MAX, true, 10 * MiB, 10 * MiB, 0, 0, 0 },
	/* ...but two buckets below it goes, and only that. */
	{ "two-buckets", 100000, 100000, { 30, 0, 0, 0, 3, 10, 0, 0 }, { 300, 0, 0, 0, 0, 0, 0, 20 }, 30, 1,
	  XP_EXCHANGE, XD_LUKEWARM_OUT, 19, 10, false, 3 * MiB, 13 * MiB, 0, 0, 3 },
	/* Counts taken at other intervals: the fast node samples every 20 ms,
	 * so a count of 0 there may hide 2.5 touches a second, more than
	 * count 1 at 100 ms shows: the slow node's bucket 1 is not hotter. */
	{ "intervals", 20000, 100000, { 440, 0, 0, 0, 0, 0, 0, 0 }, { 300, 40, 0, 0, 0, 0, 0, 0 }, 30, 1,
	  XP_NOTHING_HOTTER, XD_FREE_GOAL, 1, PLAN_MAX, true, 10 * MiB, 10 * MiB, 0, 0, 0 },
	{ "intervals-hot", 20000, 100000, { 440, 0, 0, 0, 0, 0, 0, 0 }, { 300, 40, 0, 0, 0, 0, 5, 0 }, 30, 1,
	  XP_EXCHANGE, XD_IDLE_OUT, 16, PLAN_MAX, true, 5 * MiB, 15 * MiB, 0, 5, 0 },
	/* Below the floor: promotion waits, demotion makes room. */
	{ "below-floor", 100000, 100000, { 20, 0, 0, 460, 0, 0, 0, 0 }, { 300, 0, 0, 0, 0, 0, 0, 8 }, 20, 1,
	  XP_WAIT_FLOOR, XD_LUKEWARM_OUT, 19, 6, false, STOP, 16 * MiB, 0, 0, 8 },
	/* The plan's promotion minimum holds: bucket 3 (counts 4-6) is below 7. */
	{ "plan-min", 100000, 100000, { 440, 0, 0, 0, 0, 0, 0, 0 }, { 300, 0, 0, 30, 0, 0, 0, 0 }, 40, 7,
	  XP_NOTHING_HOTTER, XD_IDLE, 7, PLAN_MAX, true, 10 * MiB, STOP, 0, 0, 0 },
	/* More hot data than the cap: per window at most the cap. */
	{ "capped", 100000, 100000, { 30, 0, 0, 420, 0, 0, 0, 0 }, { 300, 0, 0, 0, 0, 0, 0, 69 }, 30, 1,
	  XP_EXCHANGE, XD_LUKEWARM_OUT, 19, 6, false, 16 * MiB, 16 * MiB, 0, 0, 69 },
};

static void test_cases(void **state)
{
	(void)state;
	for (unsigned i = 0; i < N(cases); i++) {
		const struct xcase *c = &cases[i];
		struct hot_hist f = hist(c->fast_us, c->fast), s = hist(c->slow_us, c->slow);
		struct xchg_input in = {
			.fast = &f, .slow = &s, .fast_free = c->free_mib * MiB, .levels = &levels,
			.tick_us = 1000000, .promote_min = c->plan_promote_min,
			.demote_max = PLAN_MAX, .demote_young = true,
		};
		struct xchg_decision d;

		print_message("case %s\n", c->name);
		xchg_decide(&in, &d);
		assert_int_equal(d.promote_why, c->pwhy);
		assert_int_equal(d.demote_why, c->dwhy);
		assert_int_equal(d.promote_min, c->promote_min);
		assert_int_equal(d.demote_max, c->demote_max);
		assert_int_equal(d.demote_young, c->young);
		assert_int_equal(d.q.promote, c->promote);
		assert_int_equal(d.q.demote, c->demote);
		assert_int_equal(d.into_free, c->into_free * MiB);
		assert_int_equal(d.idle_out, c->idle_out * MiB);
		assert_int_equal(d.warm_out, c->warm_out * MiB);
	}
}

/* Without both histograms it is the controller, reason and all. */
static void test_no_histogram(void **state)
{
	struct hot_hist f = hist(100000, (unsigned[HOT_MAX_BUCKETS]){ 440 }), s = f;
	struct xchg_input in = { .fast = &f, .slow = &s, .fast_free = 35 * MiB, .levels = &levels,
				 .tick_us = 1000000, .promote_min = 1, .demote_max = 9, .demote_young = true };
	struct xchg_decision d;
	struct qctl_quota q;

	(void)state;
	qctl_compute(&levels, 35 * MiB, 1000000, &q);
	s.valid = false;
	xchg_decide(&in, &d);
	assert_int_equal(d.promote_why, XP_NO_HISTOGRAM);
	assert_int_equal(d.demote_why, XD_NO_HISTOGRAM);
	assert_int_equal(d.q.promote, q.promote);
	assert_int_equal(d.q.demote, q.demote);
	assert_int_equal(d.promote_min, 1);
	assert_int_equal(d.demote_max, 9);
	assert_true(d.demote_young);
	in.slow = NULL;
	xchg_decide(&in, &d);
	assert_int_equal(d.promote_why, XP_NO_HISTOGRAM);
	assert_string_equal(xchg_promote_why_name(XP_NOTHING_HOTTER),
			    "nothing on the slow node clearly hotter than the fast node's coldest");
	assert_string_equal(xchg_demote_why_name(XD_LUKEWARM_OUT),
			    "lukewarm data out for clearly hotter data (young filter off)");
}

/* A round trip: what one tick promotes is not demoted by the next, once it
 * shows up on the fast node at the rate it had. */
static void test_no_ping_pong(void **state)
{
	/* Tick 1: 20 MiB at bucket 6 on the slow node, lukewarm at bucket 3. */
	struct hot_hist f = hist(100000, (unsigned[HOT_MAX_BUCKETS]){ 30, 0, 0, 420 });
	struct hot_hist s = hist(100000, (unsigned[HOT_MAX_BUCKETS]){ 300, 0, 0, 0, 0, 0, 20, 0 });
	struct xchg_input in = { .fast = &f, .slow = &s, .fast_free = 30 * MiB, .levels = &levels,
				 .tick_us = 1000000, .promote_min = 1, .demote_max = PLAN_MAX,
				 .demote_young = true };
	struct xchg_decision d;

	(void)state;
	xchg_decide(&in, &d);
	assert_int_equal(d.promote_why, XP_EXCHANGE);
	assert_int_equal(d.warm_out, 20 * MiB);
	/* Tick 2: it moved; the demoted lukewarm data sits on the slow node
	 * at its rate, the promoted data on the fast node at its rate. */
	f = hist(100000, (unsigned[HOT_MAX_BUCKETS]){ 30, 0, 0, 400, 0, 0, 20, 0 });
	s = hist(100000, (unsigned[HOT_MAX_BUCKETS]){ 300, 0, 0, 20, 0, 0, 0, 0 });
	xchg_decide(&in, &d);
	assert_int_equal(d.promote_why, XP_NOTHING_HOTTER);
	assert_int_equal(d.hot_in, 0);
	assert_true(d.demote_young);
	/* Even when its estimate drops a bucket on the fast node, the
	 * lukewarm data on the slow node is not clearly hotter. */
	f = hist(100000, (unsigned[HOT_MAX_BUCKETS]){ 30, 0, 0, 400, 0, 20, 0, 0 });
	s = hist(100000, (unsigned[HOT_MAX_BUCKETS]){ 300, 0, 0, 0, 20, 0, 0, 0 });
	xchg_decide(&in, &d);
	assert_int_equal(d.hot_in, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_edges),
		cmocka_unit_test(test_rate),
		cmocka_unit_test(test_hist_from),
		cmocka_unit_test(test_cases),
		cmocka_unit_test(test_no_histogram),
		cmocka_unit_test(test_no_ping_pong),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
