/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The planner is pure: these tests build topologies in memory. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <string.h>

#include "plan.h"
#include "testutil.h"

#define MiB (1024ull * 1024)

static struct plan P;

/* The goal tests: DAMON's own goal tuner, as the plan had it before the
 * daemon's controller became the default. */
static void config_init_kernel_tuner(struct config *c)
{
	config_init(c);
	c->quota_tuner = QUOTA_TUNER_KERNEL;
}

static void test_vm_defaults_617(void **state)
{
	struct topology t;
	struct tier_map m;
	struct config c;
	char err[256] = "";

	tu_vm_topology(&t, &m);
	config_init_kernel_tuner(&c);
	assert_int_equal(plan_build(&t, &m, &tu_feat_617, &c, &P, err, sizeof(err)), 0);
	assert_int_equal(P.nr_kdamonds, 2);

	/* Demote first: it makes room. */
	const struct plan_kdamond *d = &P.kd[0], *p = &P.kd[1];
	assert_int_equal(d->role, ROLE_DEMOTE);
	assert_int_equal(d->from_nid, 0);
	assert_int_equal(d->to_nid, 1);
	assert_string_equal(d->scheme.action, "migrate_cold");
	assert_int_equal(d->scheme.target_nid, 1);
	assert_int_equal(d->nr_ranges, 2);
	assert_int_equal(d->ranges[1].start, 0x10000000);
	assert_int_equal(d->scheme.nr_accesses_min, 0);
	assert_int_equal(d->scheme.nr_accesses_max, 0);
	assert_true(d->scheme.young_filter);
	assert_false(d->scheme.young_allow);
	assert_int_equal(d->scheme.filter_dir, FILTER_DIR_OPS);
	assert_int_equal(d->scheme.goal.metric, GOAL_NODE_MEM_FREE_BP);
	assert_int_equal(d->scheme.goal.nid, 0);

	assert_int_equal(p->role, ROLE_PROMOTE);
	assert_string_equal(p->scheme.action, "migrate_hot");
	assert_int_equal(p->scheme.target_nid, 0);
	assert_int_equal(p->nr_ranges, 1);
	assert_int_equal(p->ranges[0].end, 0x40000000);
	assert_int_equal(p->scheme.nr_accesses_min, 1);
	assert_int_equal(p->scheme.nr_accesses_max, 4294967295ull);
	assert_true(p->scheme.young_allow);
	assert_int_equal(p->scheme.goal.metric, GOAL_NODE_MEM_USED_BP);
	assert_int_equal(p->scheme.goal.nid, 0);

	/* sz and age opened to their maxima (a fresh scheme matches nothing). */
	assert_int_equal(p->scheme.sz_max, UINT64_MAX);
	assert_int_equal(p->scheme.age_max, 4294967295ull);
	assert_int_equal(p->scheme.weight_sz, 0);
	assert_int_equal(p->scheme.weight_nr_accesses, 100);
	assert_int_equal(p->scheme.weight_age, 100);

	/* Self-calibration: 100 ms windows, the 200 MiB/s rate scaled, capped to 1/32 of node0. */
	assert_int_equal(p->scheme.quota_reset_ms, 100);
	assert_int_equal(p->scheme.apply_interval_us, 100000);
	assert_int_equal(p->scheme.quota_bytes, 476 * MiB / 32);
	assert_true(p->intervals_goal);
	assert_int_equal(p->ig_access_bp, 400);
	assert_int_equal(p->ig_aggrs, 3);
	assert_int_equal(p->ig_min_sample_us, 5000);
	assert_int_equal(p->ig_max_sample_us, 100000);

	/* free goal = ceil((33 MiB + 14.875 MiB) / 476 MiB) = 1006 bp; used keeps the 20 bp overlap. */
	assert_int_equal(P.nr_calib, 1);
	assert_int_equal(P.calib[0].eff_free_bp, 1006);
	assert_int_equal(P.calib[0].eff_used_bp, 10000 - 1006 + 20);
	assert_int_equal(d->scheme.goal.target_value, 1006);
	assert_int_equal(p->scheme.goal.target_value, 9014);
	assert_int_equal(P.calib[0].cfg_free_bp, 50);
	assert_int_equal(P.calib[0].cfg_used_bp, 9970);
	assert_int_equal(p->refresh_ms, 1000);
}

static void test_big_node_keeps_seed_goals(void **state)
{
	struct topology t;
	struct tier_map m;
	struct config c;
	char err[256];

	tu_vm_topology(&t, &m);
	/* 256 GiB DRAM node with 0.8% high watermarks (e.g. a raised watermark_scale_factor). */
	t.nodes[0].mem_total = 256 * 1024 * MiB;
	t.nodes[0].wmark_high = 2048 * MiB;
	config_init_kernel_tuner(&c);
	assert_int_equal(plan_build(&t, &m, &tu_feat_617, &c, &P, err, sizeof(err)), 0);
	/* 20 MiB per 100 ms window: the rate of the seed's 200 MiB per second. */
	assert_int_equal(P.kd[1].scheme.quota_bytes, 20 * MiB);
	/* (2048 + 20) MiB of 256 GiB = 79 bp > 50: the watermarks still win. */
	assert_int_equal(P.calib[0].eff_free_bp, 79);
	assert_int_equal(P.calib[0].eff_used_bp, 9941);
	/* 0.1% watermarks: the seed's 50/9970 stand. */
	t.nodes[0].wmark_high = 256 * MiB;
	assert_int_equal(plan_build(&t, &m, &tu_feat_617, &c, &P, err, sizeof(err)), 0);
	assert_int_equal(P.calib[0].eff_free_bp, 50);
	assert_int_equal(P.calib[0].eff_used_bp, 9970);
}

static void test_pinned_values_are_kept(void **state)
{
	struct topology t;
	struct tier_map m;
	struct config c;
	char err[256];

	tu_vm_topology(&t, &m);
	config_init_kernel_tuner(&c);
	c.promote_used.automatic = false;
	c.demote_free.automatic = false;
	c.set_mask |= 1ull << CONFIG_KEY_QUOTA_RESET_INTERVAL | 1ull << CONFIG_KEY_QUOTA_SIZE |
		      1ull << CONFIG_KEY_QUOTA_APPLY_INTERVAL |
		      1ull << CONFIG_KEY_MONITORING_MAX_SAMPLE_INTERVAL;
	assert_int_equal(plan_build(&t, &m, &tu_feat_617, &c, &P, err, sizeof(err)), 0);
	assert_int_equal(P.kd[0].scheme.goal.target_value, 50);
	assert_int_equal(P.kd[1].scheme.goal.target_value, 9970);
	assert_int_equal(P.kd[1].scheme.quota_reset_ms, 1000);
	assert_int_equal(P.kd[1].scheme.quota_bytes, 200 * MiB);
	assert_int_equal(P.kd[1].scheme.apply_interval_us, 1000000);
	assert_int_equal(P.kd[1].ig_max_sample_us, 10000000);
}

static void test_612_fallbacks(void **state)
{
	struct topology t;
	struct tier_map m;
	struct config c;
	char err[256];

	tu_vm_topology(&t, &m);
	config_init_kernel_tuner(&c);
	assert_int_equal(plan_build(&t, &m, &tu_feat_612, &c, &P, err, sizeof(err)), 0);
	/* No node metrics: the daemon feeds user_input goals. */
	assert_int_equal(P.kd[0].scheme.goal.metric, GOAL_USER_INPUT);
	assert_int_equal(P.kd[0].scheme.goal.user_metric, GOAL_NODE_MEM_FREE_BP);
	assert_int_equal(P.kd[1].scheme.goal.user_metric, GOAL_NODE_MEM_USED_BP);
	/* No ops_filters: the young filter goes into filters/. */
	assert_int_equal(P.kd[0].scheme.filter_dir, FILTER_DIR_LEGACY);
	/* No intervals_goal, no refresh_ms. */
	assert_false(P.kd[0].intervals_goal);
	assert_int_equal(P.kd[0].refresh_ms, 0);
}

static void test_three_tiers_and_sockets(void **state)
{
	struct topology t;
	struct tier_map m;
	struct config c;
	char err[256];

	tu_vm_topology(&t, &m);
	t.nr_nodes = 3;
	t.nodes[2] = t.nodes[1];
	t.nodes[2].nid = 2;
	t.nodes[2].ranges[0] = (struct addr_range){ 0x40000000, 0x60000000 };
	m.nr_promote = 2;
	m.promote[1] = (struct migration_pair){ 2, 0 };
	m.nr_demote = 2;
	m.demote[1] = (struct migration_pair){ 1, 2 };
	config_init_kernel_tuner(&c);
	assert_int_equal(plan_build(&t, &m, &tu_feat_617, &c, &P, err, sizeof(err)), 0);
	assert_int_equal(P.nr_kdamonds, 4);
	/* Two fast nodes with goals: node0 and node1 (the middle tier). */
	assert_int_equal(P.nr_calib, 2);
	assert_int_equal(P.kd[1].role, ROLE_DEMOTE);
	assert_int_equal(P.kd[1].from_nid, 1);
	assert_int_equal(P.kd[1].scheme.goal.nid, 1);
	assert_int_equal(P.kd[3].role, ROLE_PROMOTE);
	assert_int_equal(P.kd[3].from_nid, 2);
	/* Straight to the top tier: node0's goal and target_nid. */
	assert_int_equal(P.kd[3].scheme.target_nid, 0);
	assert_int_equal(P.kd[3].scheme.goal.nid, 0);
}

static void test_errors(void **state)
{
	struct topology t;
	struct tier_map m;
	struct config c;
	char err[256] = "";
	struct plan sentinel;

	tu_vm_topology(&t, &m);
	config_init(&c);
	t.nodes[1].nr_ranges = 0;
	memset(&P, 0x5a, sizeof(P));
	memcpy(&sentinel, &P, sizeof(P));
	assert_int_equal(plan_build(&t, &m, &tu_feat_617, &c, &P, err, sizeof(err)), -ENODATA);
	assert_non_null(strstr(err, "node1 has memory but no memory block links (memoryN) under "
				   "/sys/devices/system/node/node1"));
	assert_memory_equal(&P, &sentinel, sizeof(P));
	/* Links, but no block online: say so, not that the links are missing. */
	t.nodes[1].nr_blocks = 4;
	t.nodes[1].nr_offline = 3;
	t.nodes[1].nr_dangling = 1;
	assert_int_equal(plan_build(&t, &m, &tu_feat_617, &c, &P, err, sizeof(err)), -ENODATA);
	assert_non_null(strstr(err, "node1: none of its 4 memory blocks"));
	assert_non_null(strstr(err, "is online (3 offline, 1 dangling links)"));
	assert_null(strstr(err, "no memory block links"));
	assert_memory_equal(&P, &sentinel, sizeof(P));

	tu_vm_topology(&t, &m);
	m.nr_promote = m.nr_demote = 0;
	assert_int_equal(plan_build(&t, &m, &tu_feat_617, &c, &P, err, sizeof(err)), -ENODEV);

	tu_vm_topology(&t, &m);
	t.nodes[1].nr_ranges = PLAN_MAX_RANGES + 1;
	assert_int_equal(plan_build(&t, &m, &tu_feat_617, &c, &P, err, sizeof(err)), -E2BIG);
	assert_non_null(strstr(err, "address ranges"));
}

/* The temporal goal tuner: the kernel's goals with quotas/goal_tuner
 * (7.1), refused where the kernel has no such file; and the histogram
 * schemes come with the exchange only. */
static void test_tuners_and_histograms(void **state)
{
	struct topology t;
	struct tier_map m;
	struct config c;
	struct damon_features f = tu_feat_617;
	char err[256] = "";

	(void)state;
	tu_vm_topology(&t, &m);
	config_init(&c);
	c.quota_tuner = QUOTA_TUNER_TEMPORAL;
	assert_int_equal(plan_build(&t, &m, &f, &c, &P, err, sizeof(err)), -EOPNOTSUPP);
	assert_non_null(strstr(err, "tuner = temporal needs DAMON's quotas/goal_tuner (Linux 7.1"));
	f.goal_tuner = true;
	assert_int_equal(plan_build(&t, &m, &f, &c, &P, err, sizeof(err)), 0);
	assert_true(P.kd[0].scheme.goal.enabled);
	assert_true(P.kd[0].scheme.goal_temporal);
	assert_false(P.kd[0].scheme.daemon_quota);
	/* The exchange (on by default) needs the daemon's controller. */
	assert_true(c.exchange);
	assert_int_equal(P.kd[0].hist.n, 0);

	/* The daemon's controller with the exchange (the default): 8 buckets
	 * over the 20 samples of a window; without the exchange none. */
	config_init(&c);
	assert_true(c.exchange);
	assert_int_equal(plan_build(&t, &m, &f, &c, &P, err, sizeof(err)), 0);
	assert_int_equal(P.kd[0].hist.n, 8);
	assert_int_equal(P.kd[1].hist.lo[7], 19);
	c.exchange = false;
	assert_int_equal(plan_build(&t, &m, &f, &c, &P, err, sizeof(err)), 0);
	assert_int_equal(P.kd[0].hist.n, 0);
}

static void test_hash_and_equal(void **state)
{
	struct topology t;
	struct tier_map m;
	struct config c;
	char err[256];
	static struct plan a, b;

	tu_vm_topology(&t, &m);
	config_init_kernel_tuner(&c);
	assert_int_equal(plan_build(&t, &m, &tu_feat_617, &c, &a, err, sizeof(err)), 0);
	assert_int_equal(plan_build(&t, &m, &tu_feat_617, &c, &b, err, sizeof(err)), 0);
	assert_true(plan_hash(&a) == plan_hash(&b));
	assert_true(plan_kdamond_equal(&a.kd[0], &b.kd[0]));
	/* current_value is fed at runtime and is not part of the plan's identity. */
	b.kd[0].scheme.goal.current_value = 1234;
	assert_true(plan_kdamond_equal(&a.kd[0], &b.kd[0]));
	assert_true(plan_hash(&a) == plan_hash(&b));
	b.kd[0].scheme.quota_bytes++;
	assert_false(plan_kdamond_equal(&a.kd[0], &b.kd[0]));
	assert_false(plan_hash(&a) == plan_hash(&b));
	assert_true(plan_same_shape(&a, &b));
	b.nr_kdamonds = 1;
	assert_false(plan_same_shape(&a, &b));
}

/* The default: no kernel goal, quotas from the controller's levels. */
static void test_vm_defaults_daemon_tuner(void **state)
{
	struct topology t;
	struct tier_map m;
	struct config c;
	char err[256] = "";
	static struct plan b;

	tu_vm_topology(&t, &m);
	config_init(&c);
	assert_int_equal(c.quota_tuner, QUOTA_TUNER_DAEMON);
	assert_int_equal(plan_build(&t, &m, &tu_feat_617, &c, &P, err, sizeof(err)), 0);
	const struct plan_kdamond *d = &P.kd[0], *p = &P.kd[1];
	const struct plan_calibration *cal = &P.calib[0];

	assert_false(d->scheme.goal.enabled);
	assert_false(p->scheme.goal.enabled);
	assert_true(d->scheme.daemon_quota && p->scheme.daemon_quota);
	assert_int_equal(p->scheme.quota_cap, 476 * MiB / 32);
	/* Demotion may pick any region: the quota takes the coldest first. */
	assert_int_equal(d->scheme.nr_accesses_max, 4294967295ull);
	/* free goal as with the kernel tuner; the used goal lets promotion
	 * fill node0 down to its watermarks plus a quarter window:
	 * 10000 - ceil((33 + 14.875 / 4) MiB / 476 MiB) = 9228. */
	assert_int_equal(cal->eff_free_bp, 1006);
	assert_int_equal(cal->eff_used_bp, 9228);
	assert_true(cal->levels.floor < cal->levels.target);
	assert_int_equal(cal->levels.target, 476 * MiB / 10000 * 1006 + 476 * MiB % 10000 * 1006 / 10000);
	/* The quota itself is the controller's, set at run time from the free
	 * memory it observes (test-decide.c: test_apply_daemon_quotas): the
	 * plan holds a stopped scheme until then. */
	assert_int_equal(d->scheme.quota_bytes, QCTL_STOP_BYTES);
	assert_int_equal(p->scheme.quota_bytes, QCTL_STOP_BYTES);

	/* The controller's value is not the plan's identity; the cap is. */
	assert_int_equal(plan_build(&t, &m, &tu_feat_617, &c, &b, err, sizeof(err)), 0);
	b.kd[1].scheme.quota_bytes = 12345;
	assert_true(plan_kdamond_equal(&P.kd[1], &b.kd[1]));
	assert_true(plan_hash(&P) == plan_hash(&b));
	b.kd[1].scheme.quota_cap++;
	assert_false(plan_kdamond_equal(&P.kd[1], &b.kd[1]));

	/* ...unless pinned. */
	c.demote_max_accesses = 0;
	c.set_mask |= UINT64_C(1) << CONFIG_KEY_DEMOTE_MAX_ACCESSES;
	assert_int_equal(plan_build(&t, &m, &tu_feat_617, &c, &b, err, sizeof(err)), 0);
	assert_int_equal(b.kd[0].scheme.nr_accesses_max, 0);

	/* A pinned low free goal keeps the seed's overlap: 9970 + 50. */
	c.demote_free = (struct goal_setting){ .automatic = false, .bp = 50 };
	assert_int_equal(plan_build(&t, &m, &tu_feat_617, &c, &P, err, sizeof(err)), 0);
	assert_int_equal(P.calib[0].eff_used_bp, 9970);
	/* On 6.12 too: no goals, the same controller. */
	config_init(&c);
	assert_int_equal(plan_build(&t, &m, &tu_feat_612, &c, &P, err, sizeof(err)), 0);
	assert_false(P.kd[0].scheme.goal.enabled);
	assert_true(P.kd[0].scheme.daemon_quota);
}

static void test_sample_interval_stays_in_tuning_bounds(void **state)
{
	struct topology t;
	struct tier_map m;
	struct config c;
	char err[256];

	/* A 200 ms start with the auto 100 ms window: the kernel would reject
	 * sample_us > max_sample_us, so the cap yields to the start value. */
	tu_vm_topology(&t, &m);
	config_init(&c);
	c.sample_us = 200000;
	c.aggr_us = 2000000;
	c.min_sample_us = 150000;
	assert_int_equal(plan_build(&t, &m, &tu_feat_617, &c, &P, err, sizeof(err)), 0);
	assert_int_equal(P.kd[0].sample_us, 200000);
	assert_true(P.kd[0].ig_min_sample_us <= P.kd[0].sample_us);
	assert_true(P.kd[0].sample_us <= P.kd[0].ig_max_sample_us);
}

static void test_demote_min_age(void **state)
{
	struct topology t;
	struct tier_map m;
	struct config c;
	char err[256];

	tu_vm_topology(&t, &m);
	config_init(&c);
	c.demote_min_age_us = 3000000; /* 3 s at 100 ms aggregation = 30 aggregations */
	assert_int_equal(plan_build(&t, &m, &tu_feat_617, &c, &P, err, sizeof(err)), 0);
	assert_int_equal(P.kd[0].scheme.age_min, 30);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vm_defaults_617),
		cmocka_unit_test(test_vm_defaults_daemon_tuner),
		cmocka_unit_test(test_big_node_keeps_seed_goals),
		cmocka_unit_test(test_pinned_values_are_kept),
		cmocka_unit_test(test_612_fallbacks),
		cmocka_unit_test(test_three_tiers_and_sockets),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_tuners_and_histograms),
		cmocka_unit_test(test_hash_and_equal),
		cmocka_unit_test(test_sample_interval_stays_in_tuning_bounds),
		cmocka_unit_test(test_demote_min_age),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
