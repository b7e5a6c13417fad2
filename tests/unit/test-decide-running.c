/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * decide() while our kdamonds run: the period's supervision, the quota
 * controller's tick, memory hotplug.  Tables as in test-decide.c.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <string.h>

#include "decide_fx.h"
#include "exchange.h"
#include "quota_ctl.h"
#include "testutil.h"

#define SEC 1000000ull
#define N(t) (sizeof(t) / sizeof((t)[0]))

/* ---- the period ---- */

static void found_off(struct fx *f) { f->obs.ours[1].st = (struct obs_kdamond){ .on = false, .pid = -1 }; }
static void new_pid(struct fx *f) { f->obs.ours[0].st.pid = 777; }
static void disarmed(struct fx *f) { f->rt.kd[0].disarmed = true; }
static void drifted(struct fx *f)
{
	f->obs.got |= OBS_VERIFY;
	f->obs.ours[0].drift = 1;
	snprintf(f->obs.ours[0].drift_what, sizeof(f->obs.ours[0].drift_what),
		 "/sys/kernel/mm/damon/admin/kdamonds/0/contexts/0/schemes/0/quotas/goals/0/target_value is \"1\", expected \"1043\"");
}
static void drifted_unverified(struct fx *f)
{
	drifted(f);
	f->obs.got &= ~(unsigned)OBS_VERIFY;
}
static void readback_failed(struct fx *f)
{
	f->obs.got |= OBS_VERIFY;
	f->obs.ours[0].drift = -EIO;
	snprintf(f->obs.ours[0].failed_path, sizeof(f->obs.ours[0].failed_path), "/sys/x");
}
static void state_unreadable(struct fx *f)
{
	f->obs.ours[1].st.err = -EIO;
	snprintf(f->obs.ours[1].failed_path, sizeof(f->obs.ours[1].failed_path),
		 "/sys/kernel/mm/damon/admin/kdamonds/1/state");
}
static void stats_unreadable(struct fx *f) { f->obs.ours[0].stats_err = -ENOENT; }
static void hotplug(struct fx *f) { f->obs.mem[1].total += 128 * FX_MiB; }
static void fed_612(struct fx *f)
{
	f->feat = tu_feat_612;
	f->cfg.quota_tuner = QUOTA_TUNER_KERNEL;
	fx_replan(f);
	f->obs.mem[0].free = 100 * FX_MiB;
}
static void repaired_fine(struct fx *f)
{
	f->rt.repaired = true;
	f->rt.attempts = 3;
}
static void repair_failed(struct fx *f)
{
	repaired_fine(f);
	f->rt.repair_failed = true;
}

/* [cgroup] rules: the views the running plan and the next one are made of. */
static struct cgroup_view cg_old, cg_new;
static void cgroup_rules(struct fx *f, const char *text)
{
	struct config_error err;
	struct config c;

	assert_int_equal(config_load_string(text, "t.conf", &c, &err), 0);
	f->cfg.nr_cgroups = c.nr_cgroups;
	memcpy(f->cfg.cgroups, c.cgroups, sizeof(c.cgroups));
	memset(&cg_old, 0, sizeof(cg_old));
	cg_old.n = c.nr_cgroups;
	cg_new = cg_old;
	f->in.cgv = &cg_old;
	f->in.next_cgv = &cg_new;
}
static void cg_present(struct cgroup_state *s, uint64_t id, unsigned share_bp, bool shielded)
{
	s->present = true;
	snprintf(s->path, sizeof(s->path), "/svc");
	s->id = id;
	s->have_share = true;
	s->share_bp = share_bp;
	s->shielded = shielded;
	s->total = s->planned_total = 100 * FX_MiB;
}
static void cgroup_appeared(struct fx *f)
{
	cgroup_rules(f, "[cgroup /svc]\nprotect = yes\n");
	cg_present(&cg_new.cg[0], 7, 9000, false);
	f->in.cgroup_switch = true;
}
static void cgroup_gone(struct fx *f)
{
	cgroup_rules(f, "[cgroup /svc]\nprotect = yes\n");
	cg_present(&cg_old.cg[0], 7, 9000, false);
	f->in.cgroup_switch = true;
}
static void cgroup_created_again(struct fx *f)
{
	cgroup_appeared(f);
	cg_present(&cg_old.cg[0], 6, 9000, false);
}
static void cgroup_below_share(struct fx *f)
{
	cgroup_rules(f, "[cgroup /svc]\nfast_share = 80%\n");
	cg_present(&cg_old.cg[0], 7, 8100, false);
	cg_present(&cg_new.cg[0], 7, 7900, true);
	f->in.cgroup_switch = true;
}
/* 6.12: the fast_share scheme's user_input goal, fed from memory.numa_stat:
 * 100 MiB of the cgroup on node0. */
static void cgroup_fed_612(struct fx *f)
{
	char err[256];

	cgroup_below_share(f);
	f->in.cgroup_switch = false;
	f->feat = tu_feat_612;
	assert_int_equal(plan_build_cg(&f->topo, &f->tiers, &f->feat, &f->cfg, &cg_old, &f->plan, err,
				       sizeof(err)), 0);
	f->next = f->plan;
	f->obs.got |= OBS_CGROUPS;
	f->obs.cg.n = 1;
	snprintf(f->obs.cg.cg[0].name, sizeof(f->obs.cg.cg[0].name), "/svc");
	f->obs.cg.cg[0].present = true;
	f->obs.cg.cg[0].node_bytes[0] = 100 * FX_MiB;
}
static void check_cg_fed(const struct fx *f)
{
	const struct action *a = &f->d.a[0];

	/* The cgroup scheme follows the migration scheme and the exchange's
	 * 8 stat schemes (exchange = yes by default). */
	assert_int_equal(f->plan.kd[1].hist.n, 8);
	assert_int_equal(a->scheme, 1 + 8);
	assert_int_equal(a->cg, 0);
	assert_int_equal(a->value, 100 * FX_MiB * 10000 / f->obs.mem[0].total);
	assert_string_equal(a->what, "feed kdamond 1's fast_share goal for cgroup /svc");
}

static void check_restart(const struct fx *f)
{
	assert_int_equal(f->d.rt.rec.pids[1], -1);
	assert_int_equal(f->d.rt.repairs, 1);
	assert_true(f->d.rt.repaired);
	assert_true(f->d.a[1].restart);
	assert_false(f->d.a[1].abort);
	assert_int_equal(f->d.a[1].quota_bytes, f->plan.kd[1].scheme.quota_cap);
	assert_string_equal(f->d.a[1].what, "restart kdamond 1");
}
static void check_new_pid(const struct fx *f)
{
	assert_int_equal(f->d.rt.rec.pids[0], 777);
	assert_int_equal(f->d.rt.repairs, 0);
}
static void check_commit_keeps_quota(const struct fx *f)
{
	const struct action *a = &f->d.a[f->d.n - 2];

	assert_int_equal(a->kind, ACT_COMMIT);
	assert_int_equal(a->quota_bytes, f->rt.kd[0].quota_bytes);
	assert_false(a->next_plan);
	assert_int_equal(f->d.rt.repairs, 1);
}
static void check_limited(const struct fx *f)
{
	assert_int_equal(f->d.a[0].limit, LIMIT_SUPERVISE);
}
static void check_error_counted(const struct fx *f)
{
	assert_int_equal(f->d.rt.errors, 1);
}
static void check_fed(const struct fx *f)
{
	assert_int_equal(f->d.a[0].value, 100 * 10000 / 476); /* free, for demotion */
	assert_int_equal(f->d.a[1].value, 376 * 10000 / 476); /* used, for promotion */
	assert_int_equal(f->d.a[0].limit, LIMIT_SUPERVISE);
}
static void check_attempts_reset(const struct fx *f)
{
	assert_int_equal(f->d.rt.attempts, 0);
	assert_false(f->d.rt.repaired);
}
static void check_attempts_kept(const struct fx *f)
{
	assert_int_equal(f->d.rt.attempts, 3);
}

static const struct dcase period_cases[] = {
	{ "a quiet period", RC_RUNNING, NULL, RC_RUNNING, "", NULL, NULL },
	{ "found off", RC_RUNNING, found_off, RC_RUNNING, "LOG START:1 SAVE_RECORD",
	  "kdamond 1 (promote node1 -> node0) was found off (pid 10001 gone); restarting it", check_restart },
	{ "restarted behind our back", RC_RUNNING, new_pid, RC_RUNNING, "LOG SAVE_RECORD",
	  "kdamond 0 was restarted behind our back (pid 10000 -> 777); adopting it", check_new_pid },
	{ "never armed", RC_RUNNING, disarmed, RC_RUNNING, "COMMIT:0 SAVE_RECORD",
	  "re-committed the plan to kdamond 0 (armed its scheme)", check_commit_keeps_quota },
	{ "drifted", RC_RUNNING, drifted, RC_RUNNING, "LOG COMMIT:0 SAVE_RECORD",
	  "kdamond 0 parameters drifted: /sys/kernel/mm/damon/admin/kdamonds/0/contexts/0/schemes/0/quotas/goals/0/target_value is \"1\"",
	  check_commit_keeps_quota },
	{ "drift waits for the read-back", RC_RUNNING, drifted_unverified, RC_RUNNING, "", NULL, NULL },
	{ "read-back failed", RC_RUNNING, readback_failed, RC_RUNNING, "LOG",
	  "cannot read back /sys/x: Input/output error", check_limited },
	{ "state unreadable", RC_RUNNING, state_unreadable, RC_RUNNING, "LOG",
	  "cannot read /sys/kernel/mm/damon/admin/kdamonds/1/state", check_error_counted },
	{ "stats unreadable", RC_RUNNING, stats_unreadable, RC_RUNNING, "", NULL, check_error_counted },
	{ "memory hotplug", RC_RUNNING, hotplug, RC_REPLAN, "", NULL, NULL },
	{ "6.12: goals fed as user_input", RC_RUNNING, fed_612, RC_RUNNING, "FEED_GOAL:0 FEED_GOAL:1", NULL,
	  check_fed },
	{ "a cgroup appeared", RC_RUNNING, cgroup_appeared, RC_SWITCH, "LOG",
	  "cgroup /svc appeared at /svc: committing its rules", NULL },
	{ "a cgroup is gone", RC_RUNNING, cgroup_gone, RC_SWITCH, "LOG",
	  "cgroup /svc is gone: its filters are removed and its rules wait for it", NULL },
	{ "a cgroup created again", RC_RUNNING, cgroup_created_again, RC_SWITCH, "LOG",
	  "cgroup /svc was created again (id 6 -> 7): committing its rules for the new one", NULL },
	{ "a cgroup below its fast_share", RC_RUNNING, cgroup_below_share, RC_SWITCH, "LOG",
	  "cgroup /svc: 79.00% of its memory on the fast tier, below its fast_share 80.00%: demotion skips it",
	  NULL },
	{ "6.12: a fast_share goal fed", RC_RUNNING, cgroup_fed_612, RC_RUNNING, "FEED_GOAL:1", NULL,
	  check_cg_fed },
	{ "the backoff starts over after good repairs", RC_RUNNING, repaired_fine, RC_RUNNING, "", NULL,
	  check_attempts_reset },
	{ "the backoff stays after a failed repair", RC_RUNNING, repair_failed, RC_RUNNING, "", NULL,
	  check_attempts_kept },
};

static void test_period(void **state)
{
	fx_run(period_cases, N(period_cases));
}

/* ---- the quota controller's tick ---- */

static const struct qctl_levels *levels(const struct fx *f)
{
	return &f->plan.calib[0].levels;
}

static void tick(struct fx *f)
{
	f->in.period_due = false;
	f->in.control_due = true;
}
/* The controller alone ([quota] exchange = no; the exchange, the default,
 * has its own cases below): no histogram schemes. */
static void plain(struct fx *f)
{
	f->cfg.exchange = false;
	fx_replan(f);
}
static void plain_tick(struct fx *f)
{
	plain(f);
	tick(f);
}
static void unsynced(struct fx *f)
{
	plain_tick(f);
	f->rt.kd[0].quota_synced = f->rt.kd[1].quota_synced = false;
}
/* node0 fills to 4 MiB below the free goal. */
static void deficit(struct fx *f)
{
	plain_tick(f);
	f->obs.mem[0].free = levels(f)->target - 4 * FX_MiB;
}
static uint64_t want_demote(const struct fx *f)
{
	return qctl_align((4 * FX_MiB + 9) / 10);
}
static uint64_t band(const struct fx *f)
{
	return qctl_align((levels(f)->target - levels(f)->floor + 9) / 10);
}
/* The controller already runs the quotas of a 4 MiB deficit; a few pages
 * more are within its hysteresis. */
static void deficit_settled(struct fx *f)
{
	deficit(f);
	f->rt.kd[0].quota_bytes = want_demote(f);
	f->rt.kd[1].quota_bytes = band(f);
	f->obs.mem[0].free -= 64 * 1024;
}
static void below_floor(struct fx *f)
{
	deficit_settled(f);
	f->obs.mem[0].free = levels(f)->floor - FX_MiB;
}
/* 100 MiB tried, 1 MiB demoted since the last tick. */
static void poor_yield(struct fx *f)
{
	deficit(f);
	f->rt.kd[0].tried = f->rt.kd[0].applied = 0;
	f->obs.ours[0].have_charge = true;
	f->obs.ours[0].tried = 100 * FX_MiB;
	f->obs.ours[0].applied = FX_MiB;
}
/* Before 6.17 (no refresh_ms) the counters come by command: same gain. */
static void poor_yield_no_refresh(struct fx *f)
{
	poor_yield(f);
	f->plan.kd[0].refresh_ms = 0;
	f->plan.kd[1].refresh_ms = 0;
}
/* 7.2+: a memcg-filtered scheme charges 1/32 of what failed; the gain is
 * measured against that charge, not against all it tried. */
static void poor_yield_fail_charge(struct fx *f)
{
	poor_yield(f);
	f->plan.kd[0].scheme.nr_memcg = 1;
	f->plan.kd[0].scheme.fail_charge_num = 1;
	f->plan.kd[0].scheme.fail_charge_denom = 32;
}
/* Before 7.2, a promote = no filter's rejected pages charge in full:
 * promotion's gain may go past its usual 4x. */
static void filtered_promotion(struct fx *f)
{
	deficit(f);
	f->plan.kd[1].scheme.nr_memcg = 1;
	f->rt.kd[1].tried = f->rt.kd[1].applied = 0;
	f->obs.ours[1].have_charge = true;
	f->obs.ours[1].tried = 100 * FX_MiB;
	f->obs.ours[1].applied = FX_MiB;
}
static void counters_back(struct fx *f)
{
	poor_yield(f);
	f->rt.kd[0].tried = 200 * FX_MiB;
}
static void charge_unreadable(struct fx *f)
{
	deficit(f);
	f->rt.kd[0].gain = 3 * QCTL_GAIN_ONE;
	f->rt.kd[0].tried = 5;
	f->obs.ours[0].charge_err = -ENOENT;
	snprintf(f->obs.ours[0].failed_path, sizeof(f->obs.ours[0].failed_path),
		 "/sys/kernel/mm/damon/admin/kdamonds/0/contexts/0/schemes/0/stats/sz_applied");
}
static void meminfo_unreadable(struct fx *f)
{
	plain_tick(f);
	f->obs.meminfo_err = -EINVAL;
}
static void off_and_tick(struct fx *f)
{
	plain(f);
	found_off(f);
	f->in.control_due = true;
	f->rt.kd[1].quota_synced = false;
}

static void check_resync(const struct fx *f)
{
	assert_int_equal(f->d.a[0].value, QCTL_STOP_BYTES);
	assert_int_equal(f->d.a[1].value, levels(f)->cap);
	assert_int_equal(f->d.a[0].limit, LIMIT_CONTROL);
	assert_false(f->d.a[0].abort);
	assert_false(f->d.a[0].control);
}
static void check_deficit(const struct fx *f)
{
	assert_int_equal(f->d.a[0].value, want_demote(f));
	assert_int_equal(f->d.a[1].value, band(f));
	assert_int_equal(f->d.rt.kd[0].ticks, 1);
}
/* Promotion stops until demotion has made room. */
static void check_floor(const struct fx *f)
{
	assert_true(f->d.a[0].value > want_demote(f));
	assert_int_equal(f->d.a[1].value, QCTL_STOP_BYTES);
}
static void check_gain(const struct fx *f)
{
	unsigned gain = qctl_gain_update(QCTL_GAIN_ONE, 100 * FX_MiB, FX_MiB, QCTL_DEMOTE_GAIN_MAX);

	assert_true(gain > QCTL_GAIN_ONE);
	assert_int_equal(f->d.rt.kd[0].gain, gain);
	assert_int_equal(f->d.a[0].value, qctl_gain_apply(want_demote(f), gain, levels(f)->cap));
	assert_int_equal(f->d.rt.kd[0].tried, 100 * FX_MiB);
}
static void check_gain_charged(const struct fx *f)
{
	uint64_t charged = qctl_charged(100 * FX_MiB, FX_MiB, 1, 32);

	assert_int_equal(charged, FX_MiB + 99 * FX_MiB / 32);
	assert_int_equal(f->d.rt.kd[0].gain,
			 qctl_gain_update(QCTL_GAIN_ONE, charged, FX_MiB, QCTL_DEMOTE_GAIN_MAX));
	assert_true(f->d.rt.kd[0].gain < qctl_gain_update(QCTL_GAIN_ONE, 100 * FX_MiB, FX_MiB,
							   QCTL_DEMOTE_GAIN_MAX));
}
static void check_filtered_gain(const struct fx *f)
{
	assert_int_equal(f->d.rt.kd[1].gain,
			 qctl_gain_update(QCTL_GAIN_ONE, 100 * FX_MiB, FX_MiB, QCTL_FILTERED_GAIN_MAX));
	assert_true(f->d.rt.kd[1].gain > QCTL_PROMOTE_GAIN_MAX * QCTL_GAIN_ONE);
}
static void check_no_gain(const struct fx *f)
{
	assert_int_equal(f->d.rt.kd[0].gain, QCTL_GAIN_ONE);
	assert_int_equal(f->d.a[0].value, want_demote(f));
	assert_int_equal(f->d.rt.kd[0].tried, 100 * FX_MiB);
}
static void check_gain_kept(const struct fx *f)
{
	assert_int_equal(f->d.rt.kd[0].gain, 3 * QCTL_GAIN_ONE);
	assert_int_equal(f->d.rt.kd[0].tried, UINT64_MAX);
	assert_int_equal(f->d.rt.errors, 1);
	assert_int_equal(f->d.a[0].limit, LIMIT_CONTROL);
}

static const struct dcase control_cases[] = {
	{ "quotas in step", RC_RUNNING, plain_tick, RC_RUNNING, "", NULL, NULL },
	{ "adopted: quotas unknown", RC_RUNNING, unsynced, RC_RUNNING, "SET_QUOTA:0 SET_QUOTA:1",
	  "quota controller: kdamond 0 (demote)", check_resync },
	{ "4 MiB below the free goal", RC_RUNNING, deficit, RC_RUNNING, "SET_QUOTA:0 SET_QUOTA:1", NULL,
	  check_deficit },
	{ "within the hysteresis", RC_RUNNING, deficit_settled, RC_RUNNING, "", NULL, NULL },
	{ "below the floor", RC_RUNNING, below_floor, RC_RUNNING, "SET_QUOTA:0 SET_QUOTA:1", NULL, check_floor },
	{ "1% yield", RC_RUNNING, poor_yield, RC_RUNNING, "SET_QUOTA:0 SET_QUOTA:1", NULL, check_gain },
	{ "1% yield, no refresh_ms", RC_RUNNING, poor_yield_no_refresh, RC_RUNNING,
	  "SET_QUOTA:0 SET_QUOTA:1", NULL, check_gain },
	{ "1% yield, fail_charge 1/32", RC_RUNNING, poor_yield_fail_charge, RC_RUNNING,
	  "SET_QUOTA:0 SET_QUOTA:1", NULL, check_gain_charged },
	{ "1% promotion yield, a memcg filter before 7.2", RC_RUNNING, filtered_promotion, RC_RUNNING,
	  "SET_QUOTA:0", NULL, check_filtered_gain },
	{ "counters went back", RC_RUNNING, counters_back, RC_RUNNING, "SET_QUOTA:0 SET_QUOTA:1", NULL,
	  check_no_gain },
	{ "charge unreadable", RC_RUNNING, charge_unreadable, RC_RUNNING, "LOG SET_QUOTA:0 SET_QUOTA:1",
	  "quota controller: cannot read /sys/kernel/mm/damon/admin/kdamonds/0/contexts/0/schemes/0/stats/sz_applied",
	  check_gain_kept },
	{ "meminfo unreadable", RC_RUNNING, meminfo_unreadable, RC_RUNNING, "LOG",
	  "quota controller: cannot read the nodes' meminfo", check_error_counted },
	{ "a kdamond being restarted", RC_RUNNING, off_and_tick, RC_RUNNING, "LOG START:1 SAVE_RECORD", NULL,
	  NULL },
};

static void test_control(void **state)
{
	fx_run(control_cases, N(control_cases));
}

/* ---- the exchange (exchange.h) on top of the controller ---- */

/* Counters of kdamond kd's histogram schemes one apply pass apart, with
 * mib[b] MiB at bucket b >= 1 and the rest of its node at bucket 0, counted
 * at 100 ms over 2 s windows. */
static void hist_pass(struct fx *f, unsigned kd, const unsigned mib[HOT_MAX_BUCKETS])
{
	const struct plan_kdamond *p = &f->plan.kd[kd];
	struct obs_ours *k = &f->obs.ours[kd];
	uint64_t rest = 0;

	for (unsigned i = 0; i < p->nr_ranges; i++)
		rest += p->ranges[i].end - p->ranges[i].start;
	k->have_hist = true;
	k->sample_us = 100000;
	k->aggr_us = 2000000;
	f->rt.kd[kd].hist_prev_ok = true;
	for (unsigned b = 0; b < HOT_MAX_BUCKETS; b++) {
		f->rt.kd[kd].hist_prev[b] = 1000 * FX_MiB;
		k->hist_tried[b] = 1000 * FX_MiB + (b ? mib[b] * FX_MiB : 0);
		rest -= b ? mib[b] * FX_MiB : 0;
	}
	k->hist_tried[0] += rest;
}
/* node0 at its floor, full of data touched a few times a second (counts
 * 4-6 of 20); 60 MiB on node1 saturated. */
/* The exchange is the default ([quota] exchange = yes); set here so that
 * these cases do not depend on it. */
static void exchange_on(struct fx *f)
{
	f->cfg.exchange = true;
	fx_replan(f);
}
static void lukewarm(struct fx *f)
{
	exchange_on(f);
	tick(f);
	f->obs.mem[0].free = levels(f)->floor;
	hist_pass(f, 0, (unsigned[HOT_MAX_BUCKETS]){ 0, 0, 0, 300 });
	hist_pass(f, 1, (unsigned[HOT_MAX_BUCKETS]){ 0, 0, 0, 0, 0, 0, 0, 60 });
}
static void first_reading(struct fx *f)
{
	exchange_on(f);
	tick(f);
	hist_pass(f, 0, (unsigned[HOT_MAX_BUCKETS]){ 0, 0, 0, 300 });
	hist_pass(f, 1, (unsigned[HOT_MAX_BUCKETS]){ 0, 0, 0, 0, 0, 0, 0, 60 });
	f->rt.kd[0].hist_prev_ok = f->rt.kd[1].hist_prev_ok = false;
}
static void hist_unreadable(struct fx *f)
{
	lukewarm(f);
	f->obs.ours[1].have_hist = false;
	f->obs.ours[1].hist_err = -EIO;
	snprintf(f->obs.ours[1].failed_path, sizeof(f->obs.ours[1].failed_path),
		 "/sys/kernel/mm/damon/admin/kdamonds/1/contexts/0/schemes/3/stats/sz_tried");
}
/* The exchange had turned demotion's young filter off; no histogram now. */
static void bounds_left(struct fx *f)
{
	exchange_on(f);
	tick(f);
	f->rt.kd[0].ctl_known = true;
	f->rt.kd[0].nr_min = 0;
	f->rt.kd[0].nr_max = 6;
	f->rt.kd[0].young = false;
}
/* A second tick of the same exchange: nothing moved enough to commit. */
static void lukewarm_again(struct fx *f)
{
	lukewarm(f);
	fx_decide(f);
	f->rt = f->d.rt;
	for (unsigned i = 0; i < f->d.n; i++)
		decide_settle(&f->rt, &f->d.a[i], &(struct act_result){ .err = 0 }, RC_RUNNING, FX_NOW);
	hist_pass(f, 0, (unsigned[HOT_MAX_BUCKETS]){ 0, 0, 0, 300 });
	hist_pass(f, 1, (unsigned[HOT_MAX_BUCKETS]){ 0, 0, 0, 0, 0, 0, 0, 60 });
}

static void check_exchange(const struct fx *f)
{
	const struct action *dem = &f->d.a[0], *pro = &f->d.a[2];

	assert_true(dem->control);
	assert_int_equal(dem->nr_min, 0);
	assert_int_equal(dem->nr_max, 6);   /* counts up to bucket 3's top */
	assert_false(dem->young);
	assert_true(pro->control);
	assert_int_equal(pro->nr_min, 19);  /* only the saturated bucket */
	assert_true(pro->young);
	assert_true(dem->value > QCTL_STOP_BYTES);
	assert_true(pro->value > QCTL_STOP_BYTES);
	assert_true(f->d.rt.kd[1].hist.valid);
	assert_int_equal(f->d.rt.kd[1].hist.bytes[7], 60 * FX_MiB);
	assert_int_equal(f->d.rt.kd[1].promote_why, XP_EXCHANGE);
	assert_int_equal(f->d.rt.kd[0].demote_why, XD_LUKEWARM_OUT);
}
static void check_first_reading(const struct fx *f)
{
	assert_true(f->d.rt.kd[0].hist_prev_ok);
	assert_false(f->d.rt.kd[0].hist.valid);
	assert_int_equal(f->d.rt.kd[0].hist_prev[3], f->obs.ours[0].hist_tried[3]);
}
static void check_hist_unreadable(const struct fx *f)
{
	assert_false(f->d.rt.kd[1].hist_prev_ok);
	assert_int_equal(f->d.rt.errors, 1);
	/* The controller alone, with the plan's bounds. */
	assert_false(f->d.a[1].control);
	assert_false(f->d.a[2].control);
}
static void check_bounds_back(const struct fx *f)
{
	assert_true(f->d.a[0].control);
	assert_int_equal(f->d.a[0].nr_max, 4294967295u);
	assert_true(f->d.a[0].young);
}

static const struct dcase exchange_cases[] = {
	{ "lukewarm out for hot", RC_RUNNING, lukewarm, RC_RUNNING, "SET_QUOTA:0 LOG SET_QUOTA:1",
	  "exchange node0 <-> node1: promotion: hot data in for colder data; demotion: lukewarm data "
	  "out for clearly hotter data (young filter off)", check_exchange },
	{ "the same again", RC_RUNNING, lukewarm_again, RC_RUNNING, "", NULL, NULL },
	{ "first reading", RC_RUNNING, first_reading, RC_RUNNING, "", NULL, check_first_reading },
	{ "histogram unreadable", RC_RUNNING, hist_unreadable, RC_RUNNING, "LOG SET_QUOTA:0 SET_QUOTA:1",
	  "exchange: cannot read /sys/kernel/mm/damon/admin/kdamonds/1/contexts/0/schemes/3/stats/sz_tried",
	  check_hist_unreadable },
	{ "bounds back to the plan", RC_RUNNING, bounds_left, RC_RUNNING, "SET_QUOTA:0", NULL,
	  check_bounds_back },
};

static void test_exchange(void **state)
{
	fx_run(exchange_cases, N(exchange_cases));
}

/* ---- REPLAN ---- */

static void grown(struct fx *f) { f->topo.nodes[1].mem_total += 128 * FX_MiB; }
static void unreadable(struct fx *f)
{
	grown(f);
	f->obs.topo_err = -ENOENT;
}
static void gone(struct fx *f)
{
	f->obs.tiers_err = -ENODEV;
	snprintf(f->obs.topo_why, sizeof(f->obs.topo_why), "one memory node");
}
static void tiers_failed(struct fx *f) { f->obs.tiers_err = -EINVAL; }
static void plan_failed(struct fx *f)
{
	f->in.plan_err = -E2BIG;
	f->in.plan_why = "node1 has 70 separate address ranges";
}
static void check_seen(const struct fx *f)
{
	assert_int_equal(f->d.rt.seen[1].total, 643 * FX_MiB);
}
static void check_not_seen(const struct fx *f)
{
	assert_int_equal(f->d.rt.seen[1].total, 515 * FX_MiB);
}

static const struct dcase replan_cases[] = {
	{ "memory grew", RC_REPLAN, grown, RC_SWITCH, "LOG", "node memory changed (memory hotplug); re-planning",
	  check_seen },
	{ "topology unreadable", RC_REPLAN, unreadable, RC_RUNNING, "LOG",
	  "memory changed, but the topology cannot be read", check_not_seen },
	{ "nothing left to tier", RC_REPLAN, gone, RC_DONE, "STOP:0 STOP:1 SET_NR_KDAMONDS=0 REMOVE_RECORD EXIT=77",
	  "memory hotplug left nothing to tier (one memory node); stopping our kdamonds and exiting", NULL },
	{ "tiers unclear", RC_REPLAN, tiers_failed, RC_RUNNING, "LOG", "the tiers cannot be rebuilt", NULL },
	{ "cannot be planned", RC_REPLAN, plan_failed, RC_RUNNING, "LOG",
	  "cannot be planned: node1 has 70 separate address ranges", NULL },
};

static void test_replan(void **state)
{
	fx_run(replan_cases, N(replan_cases));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_period),
		cmocka_unit_test(test_control),
		cmocka_unit_test(test_exchange),
		cmocka_unit_test(test_replan),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
