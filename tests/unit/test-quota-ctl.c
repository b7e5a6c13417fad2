/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The quota controller's pure decisions (include/quota_ctl.h), no files. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "quota_ctl.h"

#define MiB (1024ull * 1024)

static void test_levels(void **state)
{
	struct qctl_levels l;

	(void)state;
	/* 100 MiB node, used goal 90%, free goal 15%: floor 10 MiB, target 15 MiB. */
	qctl_levels(100 * MiB, 9000, 1500, 4 * MiB, 100000, &l);
	assert_int_equal(l.floor, 10 * MiB);
	assert_int_equal(l.target, 15 * MiB);
	/* Goals that do not overlap: no band, floor = target. */
	qctl_levels(100 * MiB, 8000, 1500, 4 * MiB, 100000, &l);
	assert_int_equal(l.floor, l.target);
}

static void test_compute(void **state)
{
	struct qctl_levels l;
	struct qctl_quota q;

	(void)state;
	qctl_levels(100 * MiB, 9000, 1500, 4 * MiB, 100000, &l);
	/* Plenty free: no demotion, promotion at the cap. */
	qctl_compute(&l, 60 * MiB, 1000000, &q);
	assert_int_equal(q.demote, QCTL_STOP_BYTES);
	assert_int_equal(q.promote, 4 * MiB);
	/* 2 MiB below the target: demote the deficit over the tick's 10
	 * windows, promote the band plus the deficit, each rounded down to
	 * QCTL_ALIGN_BYTES. */
	qctl_compute(&l, 13 * MiB, 1000000, &q);
	assert_int_equal(q.demote, 192 * 1024);
	assert_int_equal(q.promote, 512 * 1024);
	/* Below the floor: promotion waits. */
	qctl_compute(&l, 9 * MiB, 1000000, &q);
	assert_int_equal(q.promote, QCTL_STOP_BYTES);
	assert_int_equal(q.demote, 576 * 1024);
	/* A deficit under one alignment unit per window still moves one. */
	qctl_compute(&l, 15 * MiB - 100 * 1024, 1000000, &q);
	assert_int_equal(q.demote, QCTL_ALIGN_BYTES);
}

/* Every quota but a stop is a multiple of QCTL_ALIGN_BYTES: up to 6.17 a
 * window with less than a page left never records where it stopped. */
static void test_align(void **state)
{
	(void)state;
	assert_int_equal(qctl_align(15233408), 15204352);
	assert_int_equal(qctl_align(15204352), 15204352);
	assert_int_equal(qctl_align(4096), QCTL_ALIGN_BYTES);
	assert_int_equal(qctl_gain_apply(15233408 / 3, 3 * QCTL_GAIN_ONE, 15233408) % QCTL_ALIGN_BYTES, 0);
	assert_int_equal(qctl_gain_apply(MiB + 1, QCTL_GAIN_ONE, 100 * MiB), MiB);
}

static void test_should_commit(void **state)
{
	(void)state;
	const unsigned settled = QCTL_SETTLE_TICKS;

	assert_false(qctl_should_commit(1000, 1000, settled));
	assert_false(qctl_should_commit(1000, 1200, settled));
	assert_true(qctl_should_commit(1000, 1300, settled));
	assert_true(qctl_should_commit(1000, 700, settled));
	/* Right after a commit only a factor of two, a start or a stop. */
	assert_false(qctl_should_commit(1000, 1300, 1));
	assert_false(qctl_should_commit(1000, 700, 1));
	assert_true(qctl_should_commit(1000, 2000, 1));
	assert_true(qctl_should_commit(1000, 500, 1));
	assert_true(qctl_should_commit(QCTL_STOP_BYTES, 5000, 0));
	assert_true(qctl_should_commit(5000, QCTL_STOP_BYTES, 0));
}

static void test_gain(void **state)
{
	const unsigned one = QCTL_GAIN_ONE, max = QCTL_DEMOTE_GAIN_MAX;
	unsigned g;

	(void)state;
	/* 1% yield: halfway to the maximum at once, then on to it. */
	g = qctl_gain_update(one, 100 * MiB, 1 * MiB, max);
	assert_int_equal(g, (one + max * one + 1) / 2);
	for (int i = 0; i < 10; i++)
		g = qctl_gain_update(g, 100 * MiB, 1 * MiB, max);
	assert_int_equal(g, max * one);
	/* Nothing applied at all counts as the maximum. */
	assert_int_equal(qctl_gain_update(max * one, 10 * MiB, 0, max), max * one);
	/* A full yield brings it back down, never below one. */
	for (int i = 0; i < 12; i++)
		g = qctl_gain_update(g, 10 * MiB, 10 * MiB, max);
	assert_int_equal(g, one);
	/* Too little tried to measure: unchanged. */
	assert_int_equal(qctl_gain_update(5 * one, 100, 0, max), 5 * one);
	/* A scheme limited to a gain of 1 stays at 1. */
	assert_int_equal(qctl_gain_update(one, 100 * MiB, 1 * MiB, 1), one);

	/* The charge: in full without fail_charge, else applied plus
	 * num/denom of the rest. */
	assert_int_equal(qctl_charged(100 * MiB, MiB, 0, 0), 100 * MiB);
	assert_int_equal(qctl_charged(100 * MiB, MiB, 1, 32), MiB + 99 * MiB / 32);
	assert_int_equal(qctl_charged(100 * MiB, 0, 0, 32), 0);
	assert_int_equal(qctl_charged(MiB, 2 * MiB, 1, 32), MiB);
	assert_int_equal(qctl_charged(100 * MiB, MiB, 32, 32), 100 * MiB);

	/* Applying: the quota scaled within the cap; a stop stays a stop. */
	assert_int_equal(qctl_gain_apply(MiB, 4 * one, 100 * MiB), 4 * MiB);
	assert_int_equal(qctl_gain_apply(MiB, 4 * one, 2 * MiB), 2 * MiB);
	assert_int_equal(qctl_gain_apply(MiB, one, 100 * MiB), MiB);
	assert_int_equal(qctl_gain_apply(QCTL_STOP_BYTES, max * one, 100 * MiB), QCTL_STOP_BYTES);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_levels),
		cmocka_unit_test(test_compute),
		cmocka_unit_test(test_should_commit),
		cmocka_unit_test(test_align),
		cmocka_unit_test(test_gain),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
