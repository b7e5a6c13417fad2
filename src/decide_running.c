/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The decisions while our kdamonds run: every period, restart what was found
 * off, re-commit what drifted or was never armed, feed user_input goals
 * (the controller's tick is in decide_control.c); on memory hotplug or reload, switch
 * to a new plan online.  And decide_settle(), which folds action results
 * back into the runtime.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>

#include "decide.h"
#include "decide_internal.h"
#include "exit_codes.h"
#include "quota_ctl.h"
#include "sysfs_io.h"

/* Node memory differs from what the plan was made from: memory hotplug. */
static bool hotplugged(const struct observation *o, const struct runtime *rt)
{
	for (unsigned i = 0; i < rt->nr_seen; i++) {
		uint64_t total, free;

		if (observe_node_mem(o, rt->seen[i].nid, &total, &free) && total != rt->seen[i].total)
			return true;
	}
	return false;
}

static void commit(struct decision *d, unsigned i, bool next_plan, uint64_t quota, uint64_t goal)
{
	struct action *a = act(d, ACT_COMMIT);

	a->kd = i;
	a->next_plan = next_plan;
	a->quota_bytes = quota;
	a->goal_current = goal;
}

/* Start kdamond i again (it was found off): its pid is gone. */
static struct action *restart(struct decision *d, unsigned i, uint64_t quota, uint64_t goal)
{
	struct action *a = act(d, ACT_START);

	d->rt.rec.pids[i] = -1;
	a->kd = i;
	a->restart = true;
	a->quota_bytes = quota;
	a->goal_current = goal;
	snprintf(a->what, sizeof(a->what), "restart kdamond %u", d->rt.rec.first + i);
	return a;
}

static void feed_goal(const struct decide_input *in, struct decision *d, unsigned i)
{
	const struct plan_goal *g = &in->plan->kd[i].scheme.goal;
	uint64_t total, free;
	struct action *a;

	if (!g->enabled || g->metric != GOAL_USER_INPUT ||
	    !observe_node_mem(in->obs, g->nid, &total, &free))
		return;
	a = act(d, ACT_FEED_GOAL);
	a->kd = i;
	a->value = goal_value(in, in->plan, i);
	a->limit = LIMIT_SUPERVISE;
	snprintf(a->what, sizeof(a->what), "feed kdamond %u's goal current value",
		 d->rt.rec.first + i);
}

/* One period: is every kdamond on, with our pid, armed, as planned? */
static void supervise(const struct decide_input *in, struct decision *d, bool *restarting)
{
	const struct observation *o = in->obs;
	const struct plan *p = in->plan;
	struct runtime *rt = &d->rt;
	bool save = false;

	for (unsigned i = 0; i < p->nr_kdamonds && i < o->nr_ours; i++) {
		const struct obs_ours *k = &o->ours[i];
		const struct plan_kdamond *kd = &p->kd[i];
		unsigned idx = rt->rec.first + i;
		struct action *a;

		if (k->st.err) {
			rt->errors++;
			say(d, LOG_WARNING, "cannot read %s: %s", k->failed_path, io_strerror(k->st.err));
			d->a[d->n - 1].limit = LIMIT_SUPERVISE;
			continue;
		}
		if (!k->st.on) {
			say(d, LOG_WARNING, "kdamond %u (%s node%d -> node%d) was found off (pid %" PRId64
			    " gone); restarting it", idx, plan_role_name(kd->role), kd->from_nid,
			    kd->to_nid, rt->rec.pids[i]);
			a = restart(d, i, initial_quota(in, p, i), goal_value(in, p, i));
			act_text(a, "restarted kdamond %u", idx);
			restarting[i] = true;
			rt->repaired = true;
			continue;
		}
		if (k->st.pid != rt->rec.pids[i]) {
			/* Someone else restarted it: it still runs our staged
			 * plan; adopt the new pid rather than fight. */
			say(d, LOG_WARNING, "kdamond %u was restarted behind our back (pid %" PRId64
			    " -> %" PRId64 "); adopting it", idx, rt->rec.pids[i], k->st.pid);
			rt->rec.pids[i] = k->st.pid;
			save = true;
		}
		if ((o->got & OBS_STATS) && k->stats_err)
			rt->errors++;
		feed_goal(in, d, i);
		feed_cgroup_goals(in, d, i);
		/* A disarmed kdamond's files already hold the plan (the
		 * arming wrote them before its commit failed): no drift to see. */
		if (rt->kd[i].disarmed) {
			commit(d, i, false, rt->kd[i].quota_bytes, rt->kd[i].goal_current);
			a = &d->a[d->n - 1];
			snprintf(a->what, sizeof(a->what), "re-commit kdamond %u", idx);
			act_text(a, "re-committed the plan to kdamond %u (armed its scheme)", idx);
			rt->repaired = true;
			continue;
		}
		if (!(o->got & OBS_VERIFY))
			continue;
		if (k->drift == 1) {
			say(d, LOG_WARNING, "kdamond %u parameters drifted: %s; re-committing the plan", idx,
			    k->drift_what);
			commit(d, i, false, rt->kd[i].quota_bytes, rt->kd[i].goal_current);
			a = &d->a[d->n - 1];
			snprintf(a->what, sizeof(a->what), "re-commit kdamond %u", idx);
			act_text(a, "re-committed the plan to kdamond %u", idx);
			rt->repaired = true;
		} else if (k->drift < 0) {
			say(d, LOG_WARNING, "cannot read back %s: %s", k->failed_path, strerror(-k->drift));
			d->a[d->n - 1].limit = LIMIT_SUPERVISE;
		}
	}
	if (rt->repaired)
		rt->repairs++;
	if (rt->repaired || save)
		act(d, ACT_SAVE_RECORD);
}

void decide_running(const struct decide_input *in, struct decision *d)
{
	const struct runtime *prev = in->rt;
	bool restarting[PLAN_MAX_KDAMONDS] = { false };

	/* The last tick's repairs all went through: the backoff starts over. */
	if (prev->repaired && !prev->repair_failed)
		d->rt.attempts = 0;
	d->rt.repaired = d->rt.repair_failed = false;
	d->rt.ctl_retry = false;
	d->next = RC_RUNNING;
	if (in->cgroup_switch && in->cgv && in->next_cgv) {
		say_cgroup_changes(in, d);
		d->next = RC_SWITCH;
		return;
	}
	if (in->period_due) {
		if (hotplugged(in->obs, prev)) {
			d->next = RC_REPLAN;
			return;
		}
		supervise(in, d, restarting);
	}
	if (in->control_due)
		decide_control(in, d, restarting);
}

void decide_replan(const struct decide_input *in, struct decision *d)
{
	const struct observation *o = in->obs;

	d->next = RC_RUNNING;
	if (o->topo_err) {
		say(d, LOG_WARNING, "memory changed, but the topology cannot be read: %s (%s)", o->topo_why,
		    io_strerror(o->topo_err));
		return;
	}
	/* Whatever comes of it, this memory layout has been dealt with. */
	remember_topology(in, &d->rt);
	if (o->tiers_err == -ENODEV) {
		/* Our kdamonds would watch memory that is gone. */
		exit_with(in, d, EXIT_NOTHING_TO_TIER, LOG_NOTICE, "memory hotplug left nothing to tier "
			  "(%s); stopping our kdamonds and exiting", o->topo_why);
		return;
	}
	if (o->tiers_err) {
		say(d, LOG_WARNING, "memory changed, but the tiers cannot be rebuilt: %s (%s)", o->topo_why,
		    strerror(-o->tiers_err));
		return;
	}
	if (in->plan_err) {
		say(d, LOG_ERR, "memory changed, but it cannot be planned: %s (%s)",
		    in->plan_why ? in->plan_why : "", strerror(-in->plan_err));
		return;
	}
	say_topology_notes(in, &o->tiers, d);
	say(d, LOG_NOTICE, "node memory changed (memory hotplug); re-planning");
	d->next = RC_SWITCH;
}

/* The kernel refused a commit of the new plan: all or nothing, the
 * kdamonds already switched go back, the refused one's staged files too.
 * From 6.14 the kernel tests a commit on a scratch context first, so the
 * refused kdamond still runs the old parameters; before, it stops
 * (damon_commit_cmd: -ESRCH) and supervision starts it again. */
static void rollback(const struct decide_input *in, struct decision *d)
{
	const struct failure *f = &in->rt->failure;
	struct action *a;

	d->rt.failure.set = false;
	say(d, LOG_ERR, "%s: the kernel rejected the new parameters of kdamond %u (%s): %s; keeping "
	    "the previous configuration%s", in->switch_why, d->rt.rec.first + f->kd, f->path,
	    strerror(-f->err),
	    f->err == -ESRCH ? " (the kernel stopped the kdamond, as before 6.14 a refused commit "
			       "does: the next period starts it again; the kernel log says why)" : "");
	/* A reload is tried once; a cgroup change comes back every tick
	 * until the kernel takes it. */
	if (!in->switch_reload)
		d->a[d->n - 1].limit = LIMIT_SUPERVISE;
	a = act(d, ACT_RESTAGE);
	a->kd = f->kd;
	a->quota_bytes = d->rt.kd[f->kd].quota_bytes;
	a->goal_current = d->rt.kd[f->kd].goal_current;
	snprintf(a->what, sizeof(a->what), "restore kdamond %u's files", d->rt.rec.first + f->kd);
	for (unsigned j = 0; j < f->kd; j++) {
		if (plan_kdamond_equal(&in->next_plan->kd[j], &in->plan->kd[j]))
			continue;
		commit(d, j, false, d->rt.kd[j].quota_bytes, d->rt.kd[j].goal_current);
		snprintf(d->a[d->n - 1].what, sizeof(d->a[0].what),
			 "restore kdamond %u; the next period repairs it", d->rt.rec.first + j);
	}
	d->next = RC_RUNNING;
}

/* Kdamond i was read this tick and is off. */
static bool found_off(const struct observation *o, unsigned i)
{
	return o && (o->got & OBS_KDAMONDS) && i < o->nr_ours && !o->ours[i].st.err &&
	       !o->ours[i].st.on;
}

/* Make in->next_plan the running plan: commit online what changed when the
 * set of kdamonds is the same, otherwise stop ours and set up again. */
void decide_switch(const struct decide_input *in, struct decision *d)
{
	const struct plan *np = in->next_plan, *op = in->plan;
	char text[512];

	if (in->rt->failure.set) {
		rollback(in, d);
		return;
	}
	d->take_next_plan = true;
	if (in->state_dir_changed) {
		/* The record moves: set up from scratch. */
		stop_ours(d);
		act(d, ACT_REMOVE_RECORD);
		d->next = RC_DISCOVER;
		return;
	}
	if (!plan_same_shape(np, op)) {
		say(d, LOG_NOTICE, "%s changes the set of kdamonds; restarting ours", in->switch_why);
		stop_ours(d);
		d->next = RC_DISCOVER;
		return;
	}
	for (unsigned i = 0; i < np->nr_kdamonds; i++) {
		const struct plan_scheme *ns = &np->kd[i].scheme, *os = &op->kd[i].scheme;
		const struct kd_runtime *r = &d->rt.kd[i];
		uint64_t quota = ns->quota_bytes;
		struct action *a;

		if (plan_kdamond_equal(&np->kd[i], &op->kd[i]))
			continue;
		if (found_off(in->obs, i)) {
			/* A commit would fail on a kdamond that is off (before
			 * 6.14 a failed commit also stops it), and the switch
			 * would come back every tick with supervision waiting
			 * behind it: start it with the new plan instead. */
			say(d, LOG_WARNING, "kdamond %u was found off; %s starts it with the new "
			    "parameters", d->rt.rec.first + i, in->switch_why);
			a = restart(d, i, initial_quota(in, np, i), r->goal_current);
			a->next_plan = true;
			a->abort = true;
			act_text(a, "%s: restarted kdamond %u with new parameters", in->switch_why,
				 d->rt.rec.first + i);
			continue;
		}
		/* The controller's quota carries over, within the new cap; its
		 * next tick adjusts it to the new goals. */
		if (ns->daemon_quota)
			quota = !os->daemon_quota ? QCTL_STOP_BYTES
				: r->quota_bytes < ns->quota_cap ? r->quota_bytes : ns->quota_cap;
		commit(d, i, true, quota, r->goal_current);
		a = &d->a[d->n - 1];
		a->abort = true;
		act_text(a, "%s: committed new parameters to kdamond %u", in->switch_why,
			 d->rt.rec.first + i);
	}
	act(d, ACT_SAVE_RECORD)->next_plan = true;
	if (in->topo_seen)
		remember_topology(in, &d->rt);
	for (unsigned i = 0; in->switch_reload && i < np->nr_calib; i++)
		for (unsigned line = 0; plan_describe_calibration(np, i, line, text, sizeof(text)) == 0;
		     line++)
			say(d, LOG_INFO, "%s", text);
	d->next = RC_RUNNING;
}

bool decide_settle(struct runtime *rt, const struct action *a, const struct act_result *res,
		   enum rc_state state, uint64_t now)
{
	struct kd_runtime *k = a->kd < PLAN_MAX_KDAMONDS ? &rt->kd[a->kd] : &rt->kd[0];

	/* Done with, whether or not the write went through: a pause is in the
	 * record before it is tried (the exit writes Y back, harmless if it
	 * never changed), and a restore is not tried twice. */
	if (a->kind == ACT_PAUSE_DAMON_STAT || a->kind == ACT_RESTORE_DAMON_STAT)
		rt->rec.paused_damon_stat = a->kind == ACT_PAUSE_DAMON_STAT;
	if (a->kind == ACT_RESTORE_NUMA_BALANCING)
		rt->numab_saved = -1;
	if (res->err == 0) {
		switch (a->kind) {
		case ACT_START:
			if (a->kd < PLAN_MAX_KDAMONDS)
				rt->rec.pids[a->kd] = res->pid;
			k->disarmed = res->arm_err < 0;
			k->ctl_known = false;
			k->quota_bytes = a->quota_bytes;
			k->quota_synced = true;
			k->goal_current = a->goal_current;
			reset_controller(k);
			break;
		case ACT_COMMIT:
			/* Both stage the plan's bounds. */
			k->ctl_known = false;
			k->disarmed = false;
			k->quota_bytes = a->quota_bytes;
			k->quota_synced = true;
			k->goal_current = a->goal_current;
			break;
		case ACT_SET_QUOTA:
			k->quota_bytes = a->value;
			k->quota_synced = true;
			k->ticks = 0;
			rt->ctl_commits++;
			if (a->control) {
				k->ctl_known = true;
				k->nr_min = a->nr_min;
				k->nr_max = a->nr_max;
				k->young = a->young;
			}
			break;
		case ACT_FEED_GOAL:
			if (a->scheme == 0)
				k->goal_current = a->value;
			else if (a->cg < CONFIG_MAX_CGROUPS)
				k->cg_goal_current[a->cg] = a->value;
			break;
		case ACT_SET_NR_KDAMONDS:
			if (a->value == 0)
				break;
			rt->owns = true;
			rt->rec.first = 0;
			rt->rec.count = (unsigned)a->value;
			memset(rt->rec.pids, 0, sizeof(rt->rec.pids));
			break;
		case ACT_SET_NUMA_BALANCING:
			rt->numab_saved = (int)a->from;
			break;
		case ACT_REMOVE_RECORD:
			rt->owns = false;
			break;
		default:
			break;
		}
		return false;
	}

	rt->errors++;
	switch (a->kind) {
	case ACT_SET_QUOTA:
		/* The kernel keeps the old quota, which may be far too big by
		 * now: tick again soon (with the bounds too: part of them
		 * may be staged). */
		k->quota_synced = false;
		rt->ctl_retry = true;
		break;
	case ACT_START:
	case ACT_COMMIT:
		if (state == RC_RUNNING && !rt->repair_failed) {
			rt->repair_failed = true;
			rt->attempts++;
			rt->blocked_until = now + decide_backoff_usec(rt->attempts);
		}
		break;
	default:
		break;
	}
	if (!a->abort)
		return false;
	rt->failure.set = true;
	rt->failure.kind = (int)a->kind;
	rt->failure.kd = a->kd;
	rt->failure.err = res->err;
	snprintf(rt->failure.path, sizeof(rt->failure.path), "%s", res->path);
	return true;
}
