/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * decide() is pure: observation in, actions out, one table per state (the
 * running tick's are in test-decide-running.c).  Every state and fault the
 * fake kernel covers in test-reconcile.c is here as a row, and more.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <string.h>
#include <syslog.h>

#include "decide_fx.h"
#include "exit_codes.h"
#include "quota_ctl.h"
#include "testutil.h"

#define SEC 1000000ull
#define N(t) (sizeof(t) / sizeof((t)[0]))

/* ---- DISCOVER ---- */

static void no_sysfs(struct fx *f) { f->obs.damon_sysfs = false; }
static void topo_broken(struct fx *f)
{
	f->obs.topo_err = -EINVAL;
	snprintf(f->obs.topo_why, sizeof(f->obs.topo_why), "/sys/devices/system/node/node1/meminfo: no MemTotal");
}
static void one_tier(struct fx *f)
{
	f->obs.tiers_err = -ENODEV;
	snprintf(f->obs.topo_why, sizeof(f->obs.topo_why), "every memory node is in one tier");
}
static void tiers_broken(struct fx *f) { f->obs.tiers_err = -EINVAL; }
static void too_many_pairs(struct fx *f) { f->obs.tiers.nr_promote = 40; }
static void host_unreadable(struct fx *f)
{
	f->obs.host_err = -EACCES;
	snprintf(f->obs.host_err_path, sizeof(f->obs.host_err_path), "/sys/kernel/mm/damon/admin/kdamonds/0/state");
}
static void reclaim_on(struct fx *f) { f->obs.mods.mod[DAMON_MOD_RECLAIM].enabled = true; }
static void lru_sort_on(struct fx *f) { f->obs.mods.mod[DAMON_MOD_LRU_SORT].enabled = true; }
static void foreign(struct fx *f)
{
	f->obs.nr_kdamonds = 1;
	f->obs.all[0] = (struct obs_kdamond){ .on = true, .pid = 4242 };
}
static void foreign_again(struct fx *f)
{
	foreign(f);
	f->rt.attempts = 1;
}
static void foreign_off(struct fx *f)
{
	f->obs.nr_kdamonds = 1;
	f->obs.all[0] = (struct obs_kdamond){ .on = false, .pid = -1 };
}
static void too_many_kdamonds(struct fx *f) { f->obs.nr_kdamonds = OBS_MAX_KDAMONDS + 1; }
static void stat_on(struct fx *f) { f->obs.mods.mod[DAMON_MOD_STAT].enabled = true; }
static void stat_keep(struct fx *f)
{
	stat_on(f);
	f->cfg.damon_stat = DAMON_STAT_KEEP;
}

/* A record of an earlier run: ours run with its pids. */
static void crashed(struct fx *f)
{
	f->obs.have_record = true;
	f->obs.record = (struct owner_record){ .first = 0, .count = 2, .pids = { FX_PID, FX_PID + 1 },
					      .plan_hash = plan_hash(&f->plan) };
	f->obs.nr_kdamonds = 2;
	f->obs.all[0] = (struct obs_kdamond){ .on = true, .pid = FX_PID };
	f->obs.all[1] = (struct obs_kdamond){ .on = true, .pid = FX_PID + 1 };
}
static void crashed_no_adopt(struct fx *f)
{
	crashed(f);
	f->rt.no_adopt = true;
}
static void crashed_dry_run(struct fx *f)
{
	crashed(f);
	f->in.fresh = true;
}
static void crashed_stopped(struct fx *f)
{
	crashed(f);
	f->obs.all[0].on = f->obs.all[1].on = false;
}
/* Crashed with damon_stat paused, ours stopped by hand, damon_reclaim on. */
static void crashed_then_reclaim(struct fx *f)
{
	crashed_stopped(f);
	f->obs.record.paused_damon_stat = true;
	reclaim_on(f);
}
static void failed_set_nr_busy(struct fx *f)
{
	f->rt.failure = (struct failure){ .set = true, .kind = ACT_SET_NR_KDAMONDS, .err = -EBUSY,
					  .path = "/sys/kernel/mm/damon/admin/kdamonds/nr_kdamonds" };
}
static void failed_pause(struct fx *f)
{
	f->rt.failure = (struct failure){ .set = true, .kind = ACT_PAUSE_DAMON_STAT, .err = -EACCES,
					  .path = "/sys/module/damon_stat/parameters/enabled" };
}

/* Garbage where the kernel writes a number (observe reads it as -EBADMSG). */
static void nr_kdamonds_garbage(struct fx *f)
{
	f->obs.host_err = -EBADMSG;
	snprintf(f->obs.host_err_path, sizeof(f->obs.host_err_path), "/sys/kernel/mm/damon/admin/kdamonds/nr_kdamonds");
}
static void nr_kdamonds_garbage_once(struct fx *f)
{
	nr_kdamonds_garbage(f);
	f->in.once = true;
}
static void foreign_dry_run(struct fx *f)
{
	foreign(f);
	f->in.fresh = true;
}
static void no_memory_blocks(struct fx *f) { f->topo.no_memory_blocks = true; }
static void tiering_missing(struct fx *f)
{
	f->obs.tiers.from_kernel = false;
	f->obs.tiers.fallback_warn = true;
	snprintf(f->obs.tiers.fallback, sizeof(f->obs.tiers.fallback),
		 "/sys/devices/virtual/memory_tiering is missing");
}
static void one_kernel_tier(struct fx *f)
{
	f->obs.tiers.from_kernel = false;
	snprintf(f->obs.tiers.fallback, sizeof(f->obs.tiers.fallback),
		 "the kernel puts every memory node into one memory tier");
}
static void dangling_link(struct fx *f)
{
	f->topo.nr_notes = 1;
	snprintf(f->topo.notes[0], sizeof(f->topo.notes[0]),
		 "/sys/devices/system/node/node1/memory9: dangling link (the memory block is gone)");
}

/* One-shot modes do not wait: the reason as an error, no backoff, and the
 * exit code of what blocked. */
static void check_oneshot_read_error(const struct fx *f)
{
	assert_int_equal(f->d.a[f->d.n - 1].prio, LOG_ERR);
	assert_int_equal(f->d.rt.blocked_code, EXIT_FAILURE_RUNTIME);
	assert_int_equal(f->d.rt.attempts, 0);
}
static void check_oneshot_conflict(const struct fx *f)
{
	assert_int_equal(f->d.a[f->d.n - 1].prio, LOG_ERR);
	assert_int_equal(f->d.rt.blocked_code, EXIT_CONFLICT);
}
static void check_tiers_warned(const struct fx *f)
{
	assert_int_equal(f->d.a[0].prio, LOG_WARNING);
	assert_string_equal(f->d.a[0].text, "/sys/devices/virtual/memory_tiering is missing: the tiers are "
			    "taken from CPU-less nodes and their distances instead of the kernel's memory tiers");
}
static void check_note_warned(const struct fx *f)
{
	assert_int_equal(f->d.a[0].prio, LOG_WARNING);
	assert_non_null(strstr(f->d.a[0].text, "node1/memory9: dangling link"));
}

static void check_blocked_1s(const struct fx *f)
{
	assert_int_equal(f->d.rt.attempts, 1);
	assert_int_equal(f->d.rt.blocked_until, FX_NOW + SEC);
	assert_int_equal(f->d.a[f->d.n - 1].value, SEC);
	assert_non_null(strstr(f->d.rt.blocked_reason, "kdamond 0 (pid 4242)"));
}
static void check_blocked_2s(const struct fx *f)
{
	assert_int_equal(f->d.rt.attempts, 2);
	assert_int_equal(f->d.a[f->d.n - 1].value, 2 * SEC);
}
static void check_adopting(const struct fx *f)
{
	assert_true(f->d.rt.adopting);
	assert_true(f->d.rt.owns);
	assert_int_equal(f->d.rt.rec.pids[1], FX_PID + 1);
}
static void check_stops_with_pids(const struct fx *f)
{
	assert_int_equal(f->d.a[1].value, FX_PID);
	assert_int_equal(f->d.a[2].value, FX_PID + 1);
	assert_true(f->d.a[f->d.n - 1].abort);
}
static void check_failure_consumed(const struct fx *f)
{
	assert_false(f->d.rt.failure.set);
}
static void check_exit77_ready_first(const struct fx *f)
{
	assert_string_equal(f->d.a[0].text, "nothing to tier: every memory node is in one tier");
	assert_string_equal(f->d.a[1].event, "nothing-to-tier");
}

static const struct dcase discover_cases[] = {
	{ "a fresh machine", RC_DISCOVER, NULL, RC_PROBE, "LOG SET_NR_KDAMONDS=2",
	  "found 2 memory tiers (from memory_tiering): node0: tier 0, 476 MiB; node1: tier 1 (CPU-less), 515 MiB", NULL },
	{ "no DAMON sysfs", RC_DISCOVER, no_sysfs, RC_DONE, "EXIT=3", "CONFIG_DAMON_SYSFS", NULL },
	{ "unreadable topology", RC_DISCOVER, topo_broken, RC_DONE, "EXIT=1",
	  "cannot read the NUMA topology: /sys/devices/system/node/node1/meminfo", NULL },
	{ "nothing to tier", RC_DISCOVER, one_tier, RC_DONE, "READY EXIT=77", "every memory node is in one tier",
	  check_exit77_ready_first },
	{ "tier map error", RC_DISCOVER, tiers_broken, RC_DONE, "EXIT=1", "cannot build the tier map", NULL },
	{ "more kdamonds than supported", RC_DISCOVER, too_many_pairs, RC_DONE, "LOG EXIT=1", "needs 41 kdamonds", NULL },
	{ "unreadable DAMON state", RC_DISCOVER, host_unreadable, RC_BLOCKED, "LOG BLOCK",
	  "cannot read /sys/kernel/mm/damon/admin/kdamonds/0/state: Permission denied", NULL },
	{ "damon_reclaim", RC_DISCOVER, reclaim_on, RC_DONE, "LOG EXIT=4",
	  "write N to /sys/module/damon_reclaim/parameters/enabled", NULL },
	{ "damon_lru_sort", RC_DISCOVER, lru_sort_on, RC_DONE, "LOG EXIT=4", "damon_lru_sort is enabled", NULL },
	{ "a foreign kdamond", RC_DISCOVER, foreign, RC_BLOCKED, "LOG BLOCK",
	  "kdamond 0 (pid 4242) is running and was not started by damon-tierd", check_blocked_1s },
	{ "a foreign kdamond, second try", RC_DISCOVER, foreign_again, RC_BLOCKED, "LOG BLOCK", NULL,
	  check_blocked_2s },
	{ "a foreign kdamond that is off", RC_DISCOVER, foreign_off, RC_PROBE, "LOG SET_NR_KDAMONDS=2", NULL, NULL },
	{ "too many kdamonds to check", RC_DISCOVER, too_many_kdamonds, RC_BLOCKED, "LOG BLOCK",
	  "65 kdamonds exist", NULL },
	{ "damon_stat paused", RC_DISCOVER, stat_on, RC_PROBE, "LOG PAUSE_DAMON_STAT SET_NR_KDAMONDS=2",
	  "paused damon_stat", NULL },
	{ "damon_stat = keep", RC_DISCOVER, stat_keep, RC_BLOCKED, "LOG BLOCK", "the config says damon_stat = keep",
	  NULL },
	{ "ours run after a crash: adopt", RC_DISCOVER, crashed, RC_PROBE, "LOG", NULL, check_adopting },
	{ "ours run but do not match", RC_DISCOVER, crashed_no_adopt, RC_PROBE,
	  "LOG STOP:0 STOP:1 SET_NR_KDAMONDS=2", NULL, check_stops_with_pids },
	{ "a dry run ignores ours", RC_DISCOVER, crashed_dry_run, RC_PROBE, "LOG SET_NR_KDAMONDS=2", NULL, NULL },
	{ "ours stopped by hand after a crash", RC_DISCOVER, crashed_stopped, RC_PROBE,
	  "LOG STOP:0 STOP:1 SET_NR_KDAMONDS=2", NULL, NULL },
	{ "a refusal after a crash gives back damon_stat", RC_DISCOVER, crashed_then_reclaim, RC_DONE,
	  "LOG STOP:0 STOP:1 SET_NR_KDAMONDS=0 RESTORE_DAMON_STAT REMOVE_RECORD EXIT=4", NULL, NULL },
	{ "nr_kdamonds busy", RC_DISCOVER, failed_set_nr_busy, RC_BLOCKED, "BLOCK",
	  "nr_kdamonds: a kdamond is running", check_failure_consumed },
	{ "damon_stat cannot be paused", RC_DISCOVER, failed_pause, RC_BLOCKED, "BLOCK",
	  "setup failed: /sys/module/damon_stat/parameters/enabled: Permission denied", NULL },
	{ "garbage in nr_kdamonds", RC_DISCOVER, nr_kdamonds_garbage, RC_BLOCKED, "LOG BLOCK",
	  "cannot read /sys/kernel/mm/damon/admin/kdamonds/nr_kdamonds: unexpected content, not what the "
	  "kernel writes there", NULL },
	{ "garbage in nr_kdamonds, --once", RC_DISCOVER, nr_kdamonds_garbage_once, RC_BLOCKED, "LOG LOG",
	  "kdamonds/nr_kdamonds: unexpected content", check_oneshot_read_error },
	{ "a foreign kdamond, --dry-run", RC_DISCOVER, foreign_dry_run, RC_BLOCKED, "LOG LOG",
	  "kdamond 0 (pid 4242) is running", check_oneshot_conflict },
	{ "no memory block devices", RC_DISCOVER, no_memory_blocks, RC_DONE, "EXIT=3",
	  "build it with CONFIG_MEMORY_HOTPLUG", NULL },
	{ "memory_tiering missing", RC_DISCOVER, tiering_missing, RC_PROBE, "LOG LOG SET_NR_KDAMONDS=2",
	  "found 2 memory tiers (from CPU-less nodes and distances): ", check_tiers_warned },
	{ "one kernel tier", RC_DISCOVER, one_kernel_tier, RC_PROBE, "LOG SET_NR_KDAMONDS=2",
	  "(from CPU-less nodes and distances: the kernel puts every memory node into one memory tier)", NULL },
	{ "a dangling memory block link", RC_DISCOVER, dangling_link, RC_PROBE, "LOG LOG SET_NR_KDAMONDS=2",
	  NULL, check_note_warned },
};

/* Discovery repeats with every retry while blocked: a warning is said once,
 * and again only when it changes. */
static void test_notes_said_once(void **state)
{
	struct fx *f = test_calloc(1, sizeof(*f));

	fx_init(f, RC_DISCOVER);
	dangling_link(f);
	fx_decide(f);
	assert_true(fx_says(&f->d, "dangling link"));
	f->rt = f->d.rt;
	fx_decide(f);
	assert_false(fx_says(&f->d, "dangling link"));
	assert_true(fx_says(&f->d, "found 2 memory tiers"));
	f->topo.notes[0][strlen(f->topo.notes[0]) - 1] = '!';
	f->rt = f->d.rt;
	fx_decide(f);
	assert_true(fx_says(&f->d, "dangling link (the memory block is gone!"));
	test_free(f);
}

static void test_discover(void **state)
{
	fx_run(discover_cases, N(discover_cases));
}

/* ---- PROBE ---- */

static void probe_failed(struct fx *f)
{
	f->obs.feat_err = -EIO;
	snprintf(f->obs.feat_err_path, sizeof(f->obs.feat_err_path), "/sys/kernel/mm/damon/admin/kdamonds/0");
}
static void probe_failed_adopting(struct fx *f)
{
	probe_failed(f);
	f->rt.adopting = true;
}
static void check_not_adopting(const struct fx *f)
{
	assert_false(f->d.rt.adopting);
	assert_true(f->d.rt.no_adopt);
}
static void kernel_61(struct fx *f) { f->obs.feat.migrate = false; }
static void numab_tiering(struct fx *f) { f->obs.numa_balancing = 3; }
static void numab_disable(struct fx *f)
{
	numab_tiering(f);
	f->cfg.numa_balancing = NUMAB_DISABLE_TIERING;
}
static void numab_checked(struct fx *f) { f->rt.numab_checked = true; }
static void dry_assumed(struct fx *f)
{
	f->in.fresh = true;
	f->obs.feat_assumed = true;
	snprintf(f->obs.feat_source, sizeof(f->obs.feat_source), "assumed: no staged kdamond");
}
static void check_warned(const struct fx *f)
{
	assert_int_equal(f->d.a[1].prio, LOG_WARNING);
}
static void check_numab(const struct fx *f)
{
	assert_int_equal(f->d.a[0].from, 3);
	assert_true(f->d.rt.numab_checked);
	assert_int_equal(f->d.rt.numab_mode, 3);
	/* Restored only once the write went through (decide_settle). */
	assert_int_equal(f->d.rt.numab_saved, -1);
}

static const struct dcase probe_cases[] = {
	{ "6.17", RC_PROBE, NULL, RC_PLAN, "LOG LOG", "DAMON features: paddr migrate", NULL },
	{ "probe failed", RC_PROBE, probe_failed, RC_BLOCKED, "BLOCK",
	  "cannot probe the DAMON features (/sys/kernel/mm/damon/admin/kdamonds/0)", NULL },
	{ "adopted trees unreadable", RC_PROBE, probe_failed_adopting, RC_DISCOVER, "LOG",
	  "cannot read the DAMON features from the kdamonds of a previous run", check_not_adopting },
	{ "6.1: no migration", RC_PROBE, kernel_61, RC_DONE, "STOP:0 STOP:1 SET_NR_KDAMONDS=0 REMOVE_RECORD EXIT=3",
	  "CONFIG_DAMON_PADDR=y with CONFIG_MIGRATION=y (Linux 6.11 or later)", NULL },
	{ "NUMA balancing tiering, left", RC_PROBE, numab_tiering, RC_PLAN, "LOG LOG",
	  "set numa_balancing = disable-tiering", NULL },
	{ "NUMA balancing tiering, disabled", RC_PROBE, numab_disable, RC_PLAN,
	  "SET_NUMA_BALANCING=1 LOG", "tiering mode turned off (/proc/sys/kernel/numa_balancing 3 -> 1)",
	  check_numab },
	{ "NUMA balancing looked at once", RC_PROBE, numab_checked, RC_PLAN, "LOG", NULL, NULL },
	{ "a dry run says where features come from", RC_PROBE, dry_assumed, RC_PLAN, "LOG LOG",
	  "DAMON features (assumed: no staged kdamond)", check_warned },
};

static void test_probe(void **state)
{
	fx_run(probe_cases, N(probe_cases));
}

/* ---- PLAN, ADOPT, APPLY ---- */

static void plan_failed(struct fx *f)
{
	f->in.plan_err = -ENODATA;
	f->in.plan_why = "node1 has no memory block links";
	f->rt.owns = true;
	f->rt.rec.count = 2;
}
static void adopting(struct fx *f) { f->rt.adopting = true; }
static void no_zoneinfo(struct fx *f)
{
	f->topo.nodes[0].have_wmarks = false;
	f->topo.nodes[0].wmark_err = -ENOENT;
	fx_replan(f);
}
static void no_zoneinfo_pinned(struct fx *f)
{
	f->cfg.demote_free.automatic = false;
	no_zoneinfo(f);
}
static void check_zoneinfo_warned(const struct fx *f)
{
	char pct[64];

	assert_int_equal(f->d.a[2].prio, LOG_WARNING);
	assert_non_null(strstr(f->d.a[0].text, "zone high watermarks unknown"));
	/* The goal without the watermarks: the promotion window alone. */
	assert_int_equal(f->plan.calib[0].eff_free_bp, (476 * 10000 / 32 + 475) / 476);
	snprintf(pct, sizeof(pct), "the free goal is %.2f%% instead", f->plan.calib[0].eff_free_bp / 100.0);
	assert_non_null(strstr(f->d.a[2].text, pct));
}
static void check_plan_logs(const struct fx *f)
{
	assert_true(fx_says(&f->d, "node0 goals: free "));
	assert_true(fx_says(&f->d, "node0 quota controller: demotion keeps"));
}

static void adopt_changed(struct fx *f) { f->rt.rec.plan_hash ^= 1; }
static void adopt_drifted(struct fx *f)
{
	f->obs.ours[1].drift = 1;
	snprintf(f->obs.ours[1].drift_what, sizeof(f->obs.ours[1].drift_what), "/x is \"1\", expected \"2\"");
}
static void adopt_unreadable(struct fx *f)
{
	f->obs.ours[0].drift = -EIO;
	snprintf(f->obs.ours[0].failed_path, sizeof(f->obs.ours[0].failed_path), "/sys/x");
}
static void adopt_once(struct fx *f) { f->in.once = true; }
static void check_adopted(const struct fx *f)
{
	/* The last run's quotas are in the kernel, unknown here: the first
	 * tick commits them. */
	assert_false(f->d.rt.kd[0].quota_synced);
	assert_false(f->d.rt.kd[1].quota_synced);
	assert_false(f->d.rt.adopting);
	assert_string_equal(f->d.a[1].text, "running 2 kdamonds (adopted)");
}
static void check_replacing(const struct fx *f)
{
	assert_true(f->d.rt.no_adopt);
	assert_false(f->d.rt.adopting);
}

static void apply_kernel_tuner(struct fx *f)
{
	f->cfg.quota_tuner = QUOTA_TUNER_KERNEL;
	fx_replan(f);
}
static void apply_612(struct fx *f)
{
	f->feat = tu_feat_612;
	apply_kernel_tuner(f);
}
static void apply_once(struct fx *f) { f->in.once = true; }
static void apply_dry(struct fx *f) { f->in.fresh = true; }
static void apply_busy(struct fx *f)
{
	f->rt.failure = (struct failure){ .set = true, .kind = ACT_START, .kd = 1, .err = -EBUSY };
	f->rt.rec.pids[1] = 0;
}
static void apply_busy_stat(struct fx *f)
{
	apply_busy(f);
	f->obs.mods.mod[DAMON_MOD_STAT].enabled = true;
}
static void apply_rejected(struct fx *f)
{
	f->rt.failure = (struct failure){ .set = true, .kind = ACT_START, .kd = 1, .err = -EINVAL,
					  .path = "/sys/kernel/mm/damon/admin/kdamonds/1/state" };
}
/* node0 has 200 MiB free, far above the free goal: no demotion; promotion
 * may use what is above the floor, capped per window. */
static void check_daemon_quotas(const struct fx *f)
{
	assert_int_equal(f->d.a[0].quota_bytes, QCTL_STOP_BYTES);
	assert_int_equal(f->d.a[1].quota_bytes, 476 * FX_MiB / 32);
	assert_int_equal(f->d.a[1].quota_bytes, f->plan.kd[1].scheme.quota_cap);
	assert_true(f->d.a[0].abort && f->d.a[1].abort);
	assert_non_null(strstr(f->d.a[0].text, "demote node0 -> node1 (migrate_cold, 2 regions, quota set by damon-tierd"));
	assert_string_equal(f->d.a[3].text, "running 2 kdamonds");
}
static void check_kernel_quotas(const struct fx *f)
{
	assert_int_equal(f->d.a[0].quota_bytes, f->plan.kd[0].scheme.quota_bytes);
	assert_int_equal(f->d.a[0].goal_current, 0);
}
/* 6.12: the free goal's value is fed as user_input, computed from meminfo. */
static void check_user_input(const struct fx *f)
{
	assert_int_equal(f->d.a[0].goal_current, 200 * 10000 / 476);
	assert_int_equal(f->d.a[1].goal_current, 276 * 10000 / 476);
}

static const struct dcase apply_cases[] = {
	{ "plan", RC_PLAN, NULL, RC_APPLY, "LOG LOG", NULL, check_plan_logs },
	{ "plan, adopting", RC_PLAN, adopting, RC_ADOPT, "LOG LOG", NULL, NULL },
	{ "no zone watermarks", RC_PLAN, no_zoneinfo, RC_APPLY, "LOG LOG LOG",
	  "node0: /proc/zoneinfo is missing: its auto goals leave out the zone high watermarks, so the "
	  "free goal is ", check_zoneinfo_warned },
	{ "no zone watermarks, free goal pinned", RC_PLAN, no_zoneinfo_pinned, RC_APPLY, "LOG LOG", NULL, NULL },
	{ "plan failed", RC_PLAN, plan_failed, RC_DONE, "STOP:0 STOP:1 SET_NR_KDAMONDS=0 REMOVE_RECORD EXIT=1",
	  "cannot plan DAMON tiering: node1 has no memory block links", NULL },
	{ "adopt", RC_ADOPT, NULL, RC_RUNNING, "LOG READY",
	  "adopted 2 running kdamonds from a previous run (pids 10000, ...); plan unchanged", check_adopted },
	{ "adopt: plan changed", RC_ADOPT, adopt_changed, RC_DISCOVER, "LOG",
	  "do not match the current plan (plan changed); replacing them", check_replacing },
	{ "adopt: drifted", RC_ADOPT, adopt_drifted, RC_DISCOVER, "LOG", "(/x is \"1\", expected \"2\")", NULL },
	{ "adopt: unreadable", RC_ADOPT, adopt_unreadable, RC_DISCOVER, "LOG", "(cannot read /sys/x", NULL },
	{ "adopt, --once", RC_ADOPT, adopt_once, RC_DONE, "LOG EXIT=0", NULL, NULL },
	{ "apply", RC_APPLY, NULL, RC_RUNNING, "START:0 START:1 SAVE_RECORD READY", NULL, check_daemon_quotas },
	{ "apply, kernel tuner", RC_APPLY, apply_kernel_tuner, RC_RUNNING, "START:0 START:1 SAVE_RECORD READY",
	  "goal node_mem_free_bp 10.06% on node0", check_kernel_quotas },
	{ "apply on 6.12", RC_APPLY, apply_612, RC_RUNNING, "START:0 START:1 SAVE_RECORD READY",
	  "(fed as user_input)", check_user_input },
	{ "apply, --once", RC_APPLY, apply_once, RC_DONE, "START:0 START:1 SAVE_RECORD EXIT=0", NULL, NULL },
	{ "apply, --dry-run", RC_APPLY, apply_dry, RC_DONE, "START:0 START:1 SAVE_RECORD EXIT=0", NULL, NULL },
	{ "'on' busy: damon_stat back", RC_APPLY, apply_busy_stat, RC_BLOCKED, "STOP:0 STOP:1 BLOCK",
	  "kdamond 1: 'on' failed with EBUSY: damon_stat was re-enabled", NULL },
	{ "'on' busy: another exclusive user", RC_APPLY, apply_busy, RC_BLOCKED, "STOP:0 STOP:1 BLOCK",
	  "another exclusive DAMON user", NULL },
	{ "'on' rejected", RC_APPLY, apply_rejected, RC_DONE, "STOP:0 STOP:1 SET_NR_KDAMONDS=0 REMOVE_RECORD EXIT=1",
	  "the kernel rejected kdamond 1 (/sys/kernel/mm/damon/admin/kdamonds/1/state): Invalid argument", NULL },
};

static void test_plan_adopt_apply(void **state)
{
	fx_run(apply_cases, N(apply_cases));
}

/* ---- SWITCH ---- */

static void reload_goal(struct fx *f)
{
	f->next.kd[1].scheme.quota_cap = 4 * FX_MiB;
	f->rt.kd[1].quota_bytes = 6 * FX_MiB;
}
static void reload_shape(struct fx *f) { f->next.nr_kdamonds = 1; }
static void reload_state_dir(struct fx *f) { f->in.state_dir_changed = true; }
static void reload_rejected(struct fx *f)
{
	f->next.kd[0].scheme.weight_age = 7;
	f->next.kd[1].scheme.weight_age = 7;
	f->rt.failure = (struct failure){ .set = true, .kind = ACT_COMMIT, .kd = 1, .err = -EINVAL,
					  .path = "/sys/kernel/mm/damon/admin/kdamonds/1/state" };
}
static void hotplug_switch(struct fx *f)
{
	f->in.switch_why = "memory hotplug";
	f->in.switch_reload = false;
	f->next.kd[1].ranges[0].end += 128 * FX_MiB;
	f->topo.nodes[1].mem_total += 128 * FX_MiB;
}
/* A cgroup change meets a kdamond that is off (before 6.14 a refused
 * commit stops it): started with the new plan, not committed. */
static void switch_found_off(struct fx *f)
{
	f->in.switch_why = "cgroup change";
	f->in.switch_reload = false;
	f->next.kd[1].scheme.weight_age = 7;
	f->next.kd[0].scheme.weight_age = 7;
	f->obs.ours[1].st = (struct obs_kdamond){ .on = false, .pid = -1 };
}
static void check_started_new(const struct fx *f)
{
	assert_true(f->d.take_next_plan);
	assert_int_equal(f->d.a[0].kind, ACT_COMMIT);
	assert_int_equal(f->d.a[2].kind, ACT_START);
	assert_true(f->d.a[2].next_plan);
	assert_true(f->d.a[2].restart);
	assert_true(f->d.a[2].abort);
	assert_int_equal(f->d.rt.rec.pids[1], -1);
}
/* The controller's quota carries over, within the new cap. */
static void check_carry(const struct fx *f)
{
	assert_true(f->d.take_next_plan);
	assert_true(f->d.a[0].next_plan);
	assert_int_equal(f->d.a[0].quota_bytes, 4 * FX_MiB);
	assert_true(f->d.a[0].abort);
	assert_true(f->d.a[1].next_plan);
}
/* The same for a cgroup change, which comes back every tick: its error
 * is rate-limited (a reload's is not). */
static void cgroup_rejected(struct fx *f)
{
	reload_rejected(f);
	f->in.switch_why = "cgroup change";
	f->in.switch_reload = false;
}
/* Before 6.14: the commit write succeeded and state read "off" after it. */
static void cgroup_rejected_stopped(struct fx *f)
{
	cgroup_rejected(f);
	f->rt.failure.err = -ESRCH;
}
static void check_rollback_limited(const struct fx *f)
{
	assert_int_equal(f->d.a[0].limit, LIMIT_SUPERVISE);
}
static void check_rollback(const struct fx *f)
{
	assert_int_equal(f->d.a[0].limit, LIMIT_NONE);
	assert_false(f->d.take_next_plan);
	assert_false(f->d.rt.failure.set);
	assert_false(f->d.a[2].next_plan);
	assert_false(f->d.a[2].abort);
}
static void check_hotplug_seen(const struct fx *f)
{
	assert_int_equal(f->d.rt.seen[1].total, 643 * FX_MiB);
}

static const struct dcase switch_cases[] = {
	{ "nothing changed", RC_SWITCH, NULL, RC_RUNNING, "SAVE_RECORD LOG LOG", NULL, NULL },
	{ "a new cap", RC_SWITCH, reload_goal, RC_RUNNING, "COMMIT:1 SAVE_RECORD LOG LOG",
	  "reload: committed new parameters to kdamond 1", check_carry },
	{ "other kdamonds", RC_SWITCH, reload_shape, RC_DISCOVER, "LOG STOP:0 STOP:1",
	  "reload changes the set of kdamonds; restarting ours", NULL },
	{ "the state directory moves", RC_SWITCH, reload_state_dir, RC_DISCOVER, "STOP:0 STOP:1 REMOVE_RECORD",
	  NULL, NULL },
	{ "the kernel refuses kdamond 1", RC_SWITCH, reload_rejected, RC_RUNNING, "LOG RESTAGE:1 COMMIT:0",
	  "reload: the kernel rejected the new parameters of kdamond 1", check_rollback },
	{ "the kernel refuses a cgroup change", RC_SWITCH, cgroup_rejected, RC_RUNNING, "LOG RESTAGE:1 COMMIT:0",
	  "cgroup change: the kernel rejected the new parameters of kdamond 1", check_rollback_limited },
	{ "the kernel refuses a cgroup change and stops the kdamond", RC_SWITCH, cgroup_rejected_stopped,
	  RC_RUNNING, "LOG RESTAGE:1 COMMIT:0",
	  "the kernel stopped the kdamond, as before 6.14 a refused commit does: the next period "
	  "starts it again", check_rollback_limited },
	{ "memory hotplug", RC_SWITCH, hotplug_switch, RC_RUNNING, "COMMIT:1 SAVE_RECORD",
	  "memory hotplug: committed new parameters to kdamond 1", check_hotplug_seen },
	{ "a kdamond found off", RC_SWITCH, switch_found_off, RC_RUNNING, "COMMIT:0 LOG START:1 SAVE_RECORD",
	  "kdamond 1 was found off; cgroup change starts it with the new parameters", check_started_new },
};

static void test_switch(void **state)
{
	fx_run(switch_cases, N(switch_cases));
}

/* ---- BLOCKED, TEARDOWN ---- */

static void waiting(struct fx *f) { f->rt.blocked_until = FX_NOW + 1; }
static void once(struct fx *f) { f->in.once = true; }
static void dry(struct fx *f) { f->in.fresh = true; }
static void once_read_failed(struct fx *f)
{
	once(f);
	f->rt.blocked_code = EXIT_FAILURE_RUNTIME;
}
static void everything_changed(struct fx *f)
{
	f->rt.rec.paused_damon_stat = true;
	f->rt.numab_saved = 3;
	f->rt.ctl_commits = 12;
}
static void owns_nothing(struct fx *f) { f->rt.owns = false; }

static const struct dcase end_cases[] = {
	{ "blocked, waiting", RC_BLOCKED, waiting, RC_BLOCKED, "", NULL, NULL },
	{ "blocked, time to try again", RC_BLOCKED, NULL, RC_DISCOVER, "", NULL, NULL },
	{ "blocked with --once", RC_BLOCKED, once, RC_DONE, "EXIT=4", NULL, NULL },
	{ "blocked with --dry-run", RC_BLOCKED, dry, RC_DONE, "EXIT=4", NULL, NULL },
	{ "blocked with --once by a failed read", RC_BLOCKED, once_read_failed, RC_DONE, "EXIT=1", NULL, NULL },
	{ "teardown", RC_TEARDOWN, everything_changed, RC_DONE,
	  "STOP:0 STOP:1 SET_NR_KDAMONDS=0 RESTORE_DAMON_STAT RESTORE_NUMA_BALANCING=3 REMOVE_RECORD LOG LOG",
	  "quota controller: 12 quota commits in this run", NULL },
	{ "teardown, nothing ours", RC_TEARDOWN, owns_nothing, RC_DONE, "LOG",
	  "stopped; no kdamond of ours is running", NULL },
	{ "teardown of a dry run", RC_TEARDOWN, dry, RC_DONE, "LOG", NULL, NULL },
};

static void test_blocked_and_teardown(void **state)
{
	fx_run(end_cases, N(end_cases));
}

/* ---- decide_settle, decide_needs, the backoff ---- */

static void test_settle(void **state)
{
	struct runtime rt;
	struct action a = { .kind = ACT_START, .kd = 1, .quota_bytes = 4096, .goal_current = 77, .abort = true };
	struct act_result ok = { .pid = 321 }, bad = { .err = -EBUSY, .path = "/x" };

	runtime_init(&rt);
	/* A start: its pid, armed or not, the controller from scratch. */
	ok.arm_err = -EINVAL;
	assert_false(decide_settle(&rt, &a, &ok, RC_APPLY, FX_NOW));
	assert_int_equal(rt.rec.pids[1], 321);
	assert_true(rt.kd[1].disarmed);
	assert_true(rt.kd[1].quota_synced);
	assert_int_equal(rt.kd[1].quota_bytes, 4096);
	assert_int_equal(rt.kd[1].goal_current, 77);
	assert_int_equal(rt.kd[1].gain, QCTL_GAIN_ONE);
	/* An aborting failure: the next decision sees it. */
	assert_true(decide_settle(&rt, &a, &bad, RC_APPLY, FX_NOW));
	assert_true(rt.failure.set);
	assert_int_equal(rt.failure.kind, ACT_START);
	assert_int_equal(rt.failure.err, -EBUSY);
	assert_string_equal(rt.failure.path, "/x");
	assert_int_equal(rt.errors, 1);

	/* A failed quota commit: not synced, tick again soon, go on. */
	a = (struct action){ .kind = ACT_SET_QUOTA, .kd = 0, .value = 8192 };
	rt.kd[0].quota_synced = true;
	rt.kd[0].quota_bytes = 4096;
	assert_false(decide_settle(&rt, &a, &bad, RC_RUNNING, FX_NOW));
	assert_false(rt.kd[0].quota_synced);
	assert_int_equal(rt.kd[0].quota_bytes, 4096);
	assert_true(rt.ctl_retry);
	ok.arm_err = 0;
	assert_false(decide_settle(&rt, &a, &ok, RC_RUNNING, FX_NOW));
	assert_int_equal(rt.kd[0].quota_bytes, 8192);
	assert_int_equal(rt.ctl_commits, 1);

	/* Failed repairs back off once per tick. */
	a = (struct action){ .kind = ACT_COMMIT, .kd = 0 };
	decide_settle(&rt, &a, &bad, RC_RUNNING, FX_NOW);
	decide_settle(&rt, &a, &bad, RC_RUNNING, FX_NOW);
	assert_true(rt.repair_failed);
	assert_int_equal(rt.attempts, 1);
	assert_int_equal(rt.blocked_until, FX_NOW + SEC);

	/* The kdamond slots, the host settings, the record. */
	a = (struct action){ .kind = ACT_SET_NR_KDAMONDS, .value = 2 };
	decide_settle(&rt, &a, &ok, RC_DISCOVER, FX_NOW);
	assert_true(rt.owns);
	assert_int_equal(rt.rec.count, 2);
	a = (struct action){ .kind = ACT_PAUSE_DAMON_STAT };
	decide_settle(&rt, &a, &bad, RC_DISCOVER, FX_NOW);
	assert_true(rt.rec.paused_damon_stat);
	a = (struct action){ .kind = ACT_RESTORE_DAMON_STAT };
	decide_settle(&rt, &a, &bad, RC_TEARDOWN, FX_NOW);
	assert_false(rt.rec.paused_damon_stat);
	a = (struct action){ .kind = ACT_SET_NUMA_BALANCING, .value = 1, .from = 3 };
	decide_settle(&rt, &a, &ok, RC_PROBE, FX_NOW);
	assert_int_equal(rt.numab_saved, 3);
	a = (struct action){ .kind = ACT_REMOVE_RECORD };
	decide_settle(&rt, &a, &ok, RC_TEARDOWN, FX_NOW);
	assert_false(rt.owns);
}

static void test_needs(void **state)
{
	struct runtime rt;

	runtime_init(&rt);
	assert_int_equal(decide_needs(RC_DISCOVER, &rt, false, false, false), OBS_HOST | OBS_TOPOLOGY);
	assert_int_equal(decide_needs(RC_PROBE, &rt, false, false, false), OBS_FEATURES | OBS_TUNABLES);
	assert_int_equal(decide_needs(RC_APPLY, &rt, false, false, false), OBS_MEMINFO);
	rt.failure.set = true;
	assert_int_equal(decide_needs(RC_APPLY, &rt, false, false, false), OBS_HOST);
	rt.failure.set = false;
	assert_int_equal(decide_needs(RC_RUNNING, &rt, true, false, false),
			 OBS_MEMINFO | OBS_KDAMONDS | OBS_STATS);
	assert_int_equal(decide_needs(RC_RUNNING, &rt, true, false, true),
			 OBS_MEMINFO | OBS_KDAMONDS | OBS_STATS | OBS_VERIFY);
	assert_int_equal(decide_needs(RC_RUNNING, &rt, false, true, false), OBS_MEMINFO | OBS_CHARGE);
	assert_int_equal(decide_needs(RC_TEARDOWN, &rt, false, false, false), 0);
}

static void test_backoff(void **state)
{
	assert_int_equal(decide_backoff_usec(1), 1 * SEC);
	assert_int_equal(decide_backoff_usec(2), 2 * SEC);
	assert_int_equal(decide_backoff_usec(5), 16 * SEC);
	assert_int_equal(decide_backoff_usec(30), 300 * SEC);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_discover),
		cmocka_unit_test(test_notes_said_once),
		cmocka_unit_test(test_probe),
		cmocka_unit_test(test_plan_adopt_apply),
		cmocka_unit_test(test_switch),
		cmocka_unit_test(test_blocked_and_teardown),
		cmocka_unit_test(test_settle),
		cmocka_unit_test(test_needs),
		cmocka_unit_test(test_backoff),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
