/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The decisions of every state but RUNNING's tick (decide_running.c).  Each
 * function reads the input and writes actions and the runtime they leave
 * behind into the decision; nothing else.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>

#include "decide.h"
#include "decide_internal.h"
#include "exit_codes.h"
#include "kernel_features.h"
#include "quota_ctl.h"
#include "sysfs_io.h"

#define USEC_PER_SEC UINT64_C(1000000)
#define DAMON_STAT_ENABLED "/sys/module/damon_stat/parameters/enabled"
#define NUMA_BALANCING_MEMORY_TIERING 2

const char *rc_state_name(enum rc_state s)
{
	static const char *const names[] = {
		[RC_DISCOVER] = "discover", [RC_PROBE] = "probe",     [RC_PLAN] = "plan",
		[RC_ADOPT] = "adopt",       [RC_APPLY] = "apply",     [RC_RUNNING] = "running",
		[RC_BLOCKED] = "blocked",   [RC_RELOAD] = "reload",   [RC_REPLAN] = "replan",
		[RC_SWITCH] = "switch",     [RC_TEARDOWN] = "teardown", [RC_DONE] = "done",
	};
	return (unsigned)s < sizeof(names) / sizeof(names[0]) ? names[s] : "?";
}

uint64_t decide_backoff_usec(unsigned attempts)
{
	uint64_t d = USEC_PER_SEC;

	for (unsigned i = 1; i < attempts && d < 300 * USEC_PER_SEC; i++)
		d *= 2;
	return d > 300 * USEC_PER_SEC ? 300 * USEC_PER_SEC : d;
}

static void missing_feature(const struct decide_input *in, struct decision *d,
			    const struct feature_requirement *miss)
{
	exit_with(in, d, EXIT_KERNEL, LOG_ERR, "this kernel lacks %s: build it with %s (Linux %s or later)",
		  miss->what, miss->kconfig, miss->since);
}

/* ---- DISCOVER ---- */

static bool all_ours_running(const struct observation *o, const struct runtime *rt, unsigned want)
{
	if (!rt->owns || rt->rec.first != 0 || rt->rec.count != want || o->nr_kdamonds != want)
		return false;
	for (unsigned i = 0; i < want; i++)
		if (o->all[i].err || !o->all[i].on || o->all[i].pid != rt->rec.pids[i])
			return false;
	return true;
}

static bool is_ours(const struct runtime *rt, unsigned idx, int64_t pid)
{
	const struct owner_record *r = &rt->rec;

	return rt->owns && idx >= r->first && idx - r->first < r->count &&
	       idx - r->first < PLAN_MAX_KDAMONDS && pid == r->pids[idx - r->first];
}

/* The damon_* modules run exclusive DAMON contexts; the two that are memory
 * policies are never ours to turn off.  True if one refused us. */
static bool refuse_policies(const struct decide_input *in, struct decision *d)
{
	const struct damon_modules *m = &in->obs->mods;

	for (int i = DAMON_MOD_RECLAIM; i <= DAMON_MOD_LRU_SORT; i++) {
		if (!m->mod[i].enabled)
			continue;
		exit_with(in, d, EXIT_CONFLICT, LOG_ERR,
			  "%s is enabled: it runs an exclusive DAMON context, so no sysfs kdamond can "
			  "start. It is an active memory policy and damon-tierd will not disable it; to "
			  "use damon-tierd instead, write N to /sys/module/%s/parameters/enabled (or "
			  "boot with %s.enabled=N)", m->mod[i].name, m->mod[i].name, m->mod[i].name);
		return true;
	}
	return false;
}

/* A running kdamond that is not ours blocks us: the kernel lets nr_kdamonds
 * change only while every kdamond is off. */
static bool block_foreign(const struct decide_input *in, struct decision *d)
{
	const struct observation *o = in->obs;

	if (o->nr_kdamonds > OBS_MAX_KDAMONDS) {
		block(in, d, EXIT_CONFLICT, "%u kdamonds exist; damon-tierd checks at most %d before it takes over "
		      "nr_kdamonds", o->nr_kdamonds, OBS_MAX_KDAMONDS);
		return true;
	}
	for (unsigned i = 0; i < o->nr_kdamonds; i++) {
		if (!o->all[i].on || is_ours(&d->rt, i, o->all[i].pid))
			continue;
		block(in, d, EXIT_CONFLICT, "kdamond %u (pid %" PRId64 ") is running and was not started by damon-tierd; "
		      "the kernel lets nr_kdamonds change only while every kdamond is off, and "
		      "damon-tierd never stops a kdamond it does not own. Stop it with the tool that "
		      "started it (e.g. 'damo stop') or 'echo off > /sys/kernel/mm/damon/admin/"
		      "kdamonds/%u/state'", i, o->all[i].pid, i);
		return true;
	}
	return false;
}

static void decide_discover(const struct decide_input *in, struct decision *d)
{
	const struct observation *o = in->obs;
	struct runtime *rt = &d->rt;
	const struct failure *f = &in->rt->failure;
	struct action *a;
	char line[1024];
	unsigned want;

	if (f->set) {
		rt->failure.set = false;
		if (f->kind == ACT_SET_NR_KDAMONDS && f->err == -EBUSY)
			block(in, d, EXIT_CONFLICT, "cannot set /sys/kernel/mm/damon/admin/kdamonds/nr_kdamonds: a "
			      "kdamond is running");
		else
			block(in, d, EXIT_FAILURE_RUNTIME, "setup failed: %s: %s", f->path, io_strerror(f->err));
		return;
	}
	/* A record from an earlier run (crash, --once) makes those kdamonds
	 * ours, and what it changed ours to restore. */
	if (!rt->owns && o->have_record) {
		rt->owns = true;
		rt->rec = o->record;
	}
	if (!o->damon_sysfs) {
		missing_feature(in, d, features_missing(&(struct damon_features){ .sysfs = false }));
		return;
	}
	if (o->topo_err) {
		exit_with(in, d, EXIT_FAILURE_RUNTIME, LOG_ERR, "cannot read the NUMA topology: %s (%s)",
			  o->topo_why, io_strerror(o->topo_err));
		return;
	}
	if (o->tiers_err == -ENODEV) {
		act_text(act(d, ACT_READY), "nothing to tier: %s", o->topo_why);
		exit_with(in, d, EXIT_NOTHING_TO_TIER, LOG_NOTICE, "%s; exiting", o->topo_why);
		d->a[d->n - 1].event = "nothing-to-tier";
		return;
	}
	if (o->tiers_err) {
		exit_with(in, d, EXIT_FAILURE_RUNTIME, LOG_ERR, "cannot build the tier map: %s (%s)",
			  o->topo_why, strerror(-o->tiers_err));
		return;
	}
	if (in->topo_seen && in->topo_seen->no_memory_blocks) {
		exit_with(in, d, EXIT_KERNEL, LOG_ERR, "this kernel has no memory block devices "
			  "(/sys/devices/system/memory), which give each node's physical address ranges: "
			  "build it with CONFIG_MEMORY_HOTPLUG");
		return;
	}
	say_topology_notes(in, &o->tiers, d);
	tiers_describe(in->topo_seen, &o->tiers, line, sizeof(line));
	say(d, LOG_INFO, "found %u memory tiers (%s%s%s): %s", o->tiers.nr_tiers,
	    o->tiers.from_kernel ? "from memory_tiering" : "from CPU-less nodes and distances",
	    o->tiers.from_kernel || o->tiers.fallback_warn ? "" : ": ",
	    o->tiers.from_kernel || o->tiers.fallback_warn ? "" : o->tiers.fallback, line);
	d->a[d->n - 1].event = "discovery";
	want = o->tiers.nr_promote + o->tiers.nr_demote;
	if (want > PLAN_MAX_KDAMONDS) {
		exit_with(in, d, EXIT_FAILURE_RUNTIME, LOG_ERR,
			  "this machine needs %u kdamonds; at most %d are supported", want, PLAN_MAX_KDAMONDS);
		return;
	}
	if (o->host_err) {
		block(in, d, EXIT_FAILURE_RUNTIME, "cannot read %s: %s", o->host_err_path, io_strerror(o->host_err));
		return;
	}
	if (refuse_policies(in, d) || block_foreign(in, d))
		return;

	if (!in->fresh && !rt->no_adopt && all_ours_running(o, rt, want)) {
		/* A previous run (crash, --once) left our kdamonds running:
		 * keep them if the plan is still the same (ADOPT), so tiering
		 * has no gap. */
		rt->adopting = true;
		d->next = RC_PROBE;
		return;
	}
	/* A dry run plans as on a machine where nothing of ours runs. */
	if (!in->fresh && rt->owns)
		stop_ours(d);
	if (o->mods.mod[DAMON_MOD_STAT].enabled) {
		if (in->cfg->damon_stat == DAMON_STAT_KEEP) {
			block(in, d, EXIT_CONFLICT, "damon_stat is enabled and runs an exclusive DAMON context that makes "
			      "every sysfs kdamond fail with EBUSY; the config says damon_stat = keep. Set "
			      "damon_stat = pause, or write N to " DAMON_STAT_ENABLED);
			return;
		}
		a = act(d, ACT_PAUSE_DAMON_STAT);
		a->abort = true;
		a->prio = LOG_NOTICE;
		act_text(a, "paused damon_stat (its exclusive DAMON context blocks sysfs kdamonds); it "
			 "will be re-enabled when damon-tierd stops (config: damon_stat = keep to forbid "
			 "this)");
	}
	a = act(d, ACT_SET_NR_KDAMONDS);
	a->value = want;
	a->abort = true;
	d->next = RC_PROBE;
}

/* ---- PROBE ---- */

/* NUMA balancing's tiering mode (2) promotes pages from the faulting task
 * and fights DAMON's promotion; the kernel turns mode 1 on by itself on
 * multi-node machines.  Say what we found; change it only when asked. */
static void decide_numa_balancing(const struct decide_input *in, struct decision *d)
{
	const struct observation *o = in->obs;
	int mode = o->numa_balancing;
	struct action *a;

	d->rt.numab_checked = true;
	d->rt.numab_mode = mode;
	if (mode < 0)
		return;
	if (!(mode & NUMA_BALANCING_MEMORY_TIERING)) {
		say(d, LOG_INFO, "NUMA balancing mode %d (no tiering mode); reclaim-based demotion "
		    "(/sys/kernel/mm/numa/demotion_enabled): %s", mode, o->demotion_enabled);
		return;
	}
	if (in->cfg->numa_balancing != NUMAB_DISABLE_TIERING) {
		say(d, LOG_WARNING, "NUMA balancing runs in tiering mode (/proc/sys/kernel/numa_balancing "
		    "= %d): it promotes pages on its own and competes with DAMON's promotion; set "
		    "numa_balancing = disable-tiering to let damon-tierd turn that mode off while it "
		    "runs; reclaim-based demotion (/sys/kernel/mm/numa/demotion_enabled): %s", mode,
		    o->demotion_enabled);
		return;
	}
	a = act(d, ACT_SET_NUMA_BALANCING);
	a->value = (uint64_t)(mode & ~NUMA_BALANCING_MEMORY_TIERING);
	a->from = (uint64_t)mode;
	act_text(a, "NUMA balancing tiering mode turned off (/proc/sys/kernel/numa_balancing %d -> "
		 "%d); restored on exit; reclaim-based demotion (/sys/kernel/mm/numa/demotion_enabled): %s",
		 mode, mode & ~NUMA_BALANCING_MEMORY_TIERING, o->demotion_enabled);
}

static void decide_probe(const struct decide_input *in, struct decision *d)
{
	const struct observation *o = in->obs;
	const struct feature_requirement *miss;
	char feats[512];

	if (o->feat_err && d->rt.adopting) {
		/* Kdamonds whose trees cannot be read cannot be checked
		 * against the plan either. */
		say(d, LOG_NOTICE, "cannot read the DAMON features from the kdamonds of a previous run "
		    "(%s: %s); replacing them", o->feat_err_path, io_strerror(o->feat_err));
		d->rt.adopting = false;
		d->rt.no_adopt = true;
		d->next = RC_DISCOVER;
		return;
	}
	if (o->feat_err) {
		block(in, d, EXIT_FAILURE_RUNTIME, "cannot probe the DAMON features (%s): %s", o->feat_err_path,
		      io_strerror(o->feat_err));
		return;
	}
	miss = features_missing(&o->feat);
	if (miss) {
		missing_feature(in, d, miss);
		return;
	}
	if (!d->rt.numab_checked)
		decide_numa_balancing(in, d);
	features_format(&o->feat, feats, sizeof(feats));
	if (in->fresh)
		say(d, o->feat_assumed ? LOG_WARNING : LOG_INFO, "DAMON features (%s): %s",
		    o->feat_source, feats);
	else
		say(d, LOG_INFO, "DAMON features: %s", feats);
	d->rt.attempts = 0;
	d->next = RC_PLAN;
}

/* ---- PLAN ---- */

static void decide_plan(const struct decide_input *in, struct decision *d)
{
	char text[512];

	if (in->plan_err) {
		exit_with(in, d, in->plan_err == -EOPNOTSUPP ? EXIT_KERNEL : EXIT_FAILURE_RUNTIME, LOG_ERR,
			  "cannot plan DAMON tiering: %s (%s)",
			  in->plan_why ? in->plan_why : "", strerror(-in->plan_err));
		return;
	}
	for (unsigned i = 0; i < in->plan->nr_calib; i++) {
		for (unsigned line = 0; plan_describe_calibration(in->plan, i, line, text, sizeof(text)) == 0;
		     line++)
			say(d, LOG_INFO, "%s", text);
		if (plan_calibration_warning(in->plan, i, text, sizeof(text)) == 0)
			say(d, LOG_WARNING, "%s", text);
	}
	d->next = d->rt.adopting ? RC_ADOPT : RC_APPLY;
}

/* ---- ADOPT and APPLY ---- */

/* The plan runs: --once and --dry-run are done, the daemon supervises. */
static void running(const struct decide_input *in, struct decision *d, const char *adopted)
{
	remember_topology(in, &d->rt);
	d->rt.attempts = 0;
	if (in->once || in->fresh) {
		exit_with(in, d, EXIT_OK, LOG_INFO, NULL);
		return;
	}
	act_text(act(d, ACT_READY), "running %u kdamonds%s", in->plan->nr_kdamonds, adopted);
	d->next = RC_RUNNING;
}

/* Keep the kdamonds of a previous run if they run the plan we would write
 * now (same hash, no drift); otherwise replace them from scratch. */
static void decide_adopt(const struct decide_input *in, struct decision *d)
{
	const struct observation *o = in->obs;
	const struct plan *p = in->plan;
	struct runtime *rt = &d->rt;
	char what[sizeof(o->ours[0].drift_what) + 64] = "plan changed";
	bool match = plan_hash(p) == rt->rec.plan_hash;

	rt->adopting = false;
	for (unsigned i = 0; match && i < p->nr_kdamonds; i++) {
		const struct obs_ours *k = &o->ours[i];

		if (k->drift == 1)
			snprintf(what, sizeof(what), "%s", k->drift_what);
		else if (k->drift < 0)
			snprintf(what, sizeof(what), "cannot read %s: %s", k->failed_path, strerror(-k->drift));
		match = k->drift == 0;
	}
	if (!match) {
		say(d, LOG_NOTICE, "kdamonds from a previous run do not match the current plan (%s); "
		    "replacing them", what);
		rt->no_adopt = true;
		d->next = RC_DISCOVER;
		return;
	}
	for (unsigned i = 0; i < p->nr_kdamonds; i++) {
		struct kd_runtime *k = &rt->kd[i];

		/* The last run's quota is in the kernel, not known here: the
		 * first tick commits one. */
		k->quota_bytes = initial_quota(in, p, i);
		k->quota_synced = false;
		k->goal_current = goal_value(in, p, i);
		k->disarmed = false;
		reset_controller(k);
	}
	say(d, LOG_INFO, "adopted %u running kdamonds from a previous run (pids %" PRId64 "%s); "
	    "plan unchanged", rt->rec.count, rt->rec.pids[0], rt->rec.count > 1 ? ", ..." : "");
	running(in, d, " (adopted)");
}

static void decide_apply(const struct decide_input *in, struct decision *d)
{
	const struct plan *p = in->plan;
	const struct failure *f = &in->rt->failure;
	struct runtime *rt = &d->rt;

	if (f->set) {
		rt->failure.set = false;
		if (f->kind == ACT_START && f->err == -EBUSY) {
			stop_ours(d);
			block(in, d, EXIT_CONFLICT, "kdamond %u: 'on' failed with EBUSY: %s", rt->rec.first + f->kd,
			      in->obs->mods.mod[DAMON_MOD_STAT].enabled
				      ? "damon_stat was re-enabled"
				      : "another exclusive DAMON user (an in-kernel module or sample) is "
					"running");
			return;
		}
		exit_with(in, d, EXIT_FAILURE_RUNTIME, LOG_ERR, "the kernel rejected kdamond %u (%s): %s",
			  rt->rec.first + f->kd, f->path, strerror(-f->err));
		return;
	}
	say_cgroup_rules(in, d);
	for (unsigned i = 0; i < p->nr_kdamonds; i++) {
		struct action *a = act(d, ACT_START);

		a->kd = i;
		a->quota_bytes = initial_quota(in, p, i);
		a->goal_current = goal_value(in, p, i);
		a->abort = true;
		plan_describe_kdamond(&p->kd[i], a->text, sizeof(a->text));
	}
	act(d, ACT_SAVE_RECORD);
	running(in, d, "");
}

/* ---- BLOCKED and TEARDOWN ---- */

static void decide_blocked(const struct decide_input *in, struct decision *d)
{
	/* --once and --dry-run stop (block() said why); the daemon waits. */
	if (in->once || in->fresh) {
		exit_with(in, d, in->rt->blocked_code ? in->rt->blocked_code : EXIT_CONFLICT, LOG_INFO,
			  NULL);
		return;
	}
	d->next = in->now >= in->rt->blocked_until ? RC_DISCOVER : RC_BLOCKED;
}

static void decide_teardown(const struct decide_input *in, struct decision *d)
{
	release(in, d);
	if (d->rt.ctl_commits)
		say(d, LOG_INFO, "quota controller: %" PRIu64 " quota commits in this run",
		    d->rt.ctl_commits);
	say(d, LOG_INFO, "stopped; no kdamond of ours is running");
	d->next = RC_DONE;
}

unsigned decide_needs(enum rc_state state, const struct runtime *rt, bool period_due,
		      bool control_due, bool verify_due)
{
	switch (state) {
	case RC_DISCOVER:
		return OBS_HOST | OBS_TOPOLOGY;
	case RC_PROBE:
		return OBS_FEATURES | OBS_TUNABLES;
	case RC_ADOPT:
		return OBS_VERIFY | OBS_MEMINFO;
	case RC_APPLY:
		return rt->failure.set ? OBS_HOST : OBS_MEMINFO;
	case RC_RUNNING:
		return (period_due ? OBS_MEMINFO | OBS_KDAMONDS | OBS_STATS : 0) |
		       (verify_due ? OBS_VERIFY : 0) | (control_due ? OBS_MEMINFO | OBS_CHARGE : 0);
	case RC_REPLAN:
		return OBS_TOPOLOGY;
	case RC_SWITCH:
		/* A kdamond found off is started, not committed (decide_switch). */
		return rt->owns ? OBS_KDAMONDS : 0;
	default:
		return 0;
	}
}

void decide(const struct decide_input *in, struct decision *out)
{
	static void (*const by_state[])(const struct decide_input *, struct decision *) = {
		[RC_DISCOVER] = decide_discover, [RC_PROBE] = decide_probe,
		[RC_PLAN] = decide_plan,         [RC_ADOPT] = decide_adopt,
		[RC_APPLY] = decide_apply,       [RC_RUNNING] = decide_running,
		[RC_BLOCKED] = decide_blocked,   [RC_REPLAN] = decide_replan,
		[RC_SWITCH] = decide_switch,     [RC_TEARDOWN] = decide_teardown,
	};

	out->n = 0;
	out->next = in->state;
	out->take_next_plan = false;
	out->rt = *in->rt;
	/* RELOAD (config files) and DONE decide nothing. */
	if ((unsigned)in->state < sizeof(by_state) / sizeof(by_state[0]) && by_state[in->state])
		by_state[in->state](in, out);
}
