/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Why each side of a tier boundary does what it does; see explain.h. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "explain.h"
#include "quota_ctl.h"
#include "textbuf.h"

/* bp of whole, as quota_ctl.c computes its levels (no overflow). */
static uint64_t bp_of(uint64_t whole, unsigned bp)
{
	return whole / 10000 * bp + whole % 10000 * bp / 10000;
}

static unsigned share_bp(uint64_t part, uint64_t whole)
{
	if (!whole)
		return 0;
	if (part >= whole)
		return 10000;
	return (unsigned)((double)part * 10000.0 / (double)whole + 0.5);
}

static enum explain_reason blocked(const struct explain_facts *f)
{
	switch (f->block) {
	case EXPLAIN_BLOCK_DAMON_STAT:
		return EXPLAIN_BLOCKED_DAMON_STAT;
	case EXPLAIN_BLOCK_FOREIGN:
		return EXPLAIN_BLOCKED_FOREIGN;
	default:
		return EXPLAIN_BLOCKED;
	}
}

/* The exchange's reasons where they say more than the controller's
 * numbers; EXPLAIN_UNKNOWN: the controller's explanation holds. */
static enum explain_reason from_exchange(const struct explain_facts *f)
{
	if (f->promote) {
		switch (f->xchg_promote) {
		case XP_WAIT_FLOOR:
			return EXPLAIN_WAIT_FLOOR;
		case XP_NOTHING_HOTTER:
			return EXPLAIN_NOTHING_HOTTER;
		case XP_EXCHANGE:
			return EXPLAIN_EXCHANGE;
		default:
			return EXPLAIN_UNKNOWN;
		}
	}
	switch (f->xchg_demote) {
	case XD_IDLE_OUT:
	case XD_LUKEWARM_OUT:
		return EXPLAIN_MAKING_ROOM;
	default:
		return EXPLAIN_UNKNOWN;
	}
}

/* The side runs and has room to work: what the kernel made of its quota. */
static enum explain_reason moving(const struct explain_facts *f)
{
	/* Below a page the scheme does nothing.  The daemon's controller
	 * stops a side that way (its callers said why); the kernel's goal
	 * tuner starts there and grows the quota by a few percent per window. */
	if (f->have_quota && f->quota_bytes < QCTL_MIN_BYTES)
		return f->daemon_quota ? EXPLAIN_GOAL_MET : EXPLAIN_QUOTA_RAMP;
	if (f->have_span && f->tried_bytes == 0)
		return EXPLAIN_NOTHING_ELIGIBLE;
	if (f->have_span && f->tried_bytes >= EXPLAIN_YIELD_MIN_BYTES &&
	    f->applied_bytes < f->tried_bytes / EXPLAIN_LOW_YIELD_DIV)
		return EXPLAIN_LOW_YIELD;
	if (f->have_quota && f->cap_bytes && f->quota_bytes >= f->cap_bytes)
		return EXPLAIN_QUOTA_CAP;
	return EXPLAIN_ACTIVE;
}

static enum explain_reason promotion(const struct explain_facts *f)
{
	uint64_t used = f->mem_total - (f->mem_free < f->mem_total ? f->mem_free : f->mem_total);

	if (f->daemon_quota) {
		/* quota_ctl.h: below the floor promotion waits for demotion. */
		if (f->mem_free < f->floor_bytes)
			return EXPLAIN_WAIT_FLOOR;
		if (f->have_quota && f->quota_bytes <= QCTL_STOP_BYTES)
			return EXPLAIN_GOAL_MET;
	} else if (used >= bp_of(f->mem_total, f->goal_bp)) {
		return EXPLAIN_GOAL_MET;
	}
	return moving(f);
}

static enum explain_reason demotion(const struct explain_facts *f)
{
	if (f->mem_free >= bp_of(f->mem_total, f->goal_bp))
		return EXPLAIN_GOAL_MET;
	/* Within a few pages of the goal the controller stops demotion. */
	if (f->daemon_quota && f->have_quota && f->quota_bytes <= QCTL_STOP_BYTES)
		return EXPLAIN_GOAL_MET;
	return moving(f);
}

static enum explain_reason reason(const struct explain_facts *f)
{
	enum explain_reason r;

	switch (f->state) {
	case RC_RUNNING:
		break;
	case RC_BLOCKED:
		return blocked(f);
	case RC_RELOAD:
	case RC_REPLAN:
	case RC_SWITCH:
		return EXPLAIN_SWITCHING;
	case RC_TEARDOWN:
	case RC_DONE:
		return EXPLAIN_STOPPED;
	default:
		return EXPLAIN_STARTING;
	}
	if (!f->present)
		return EXPLAIN_NO_KDAMOND;
	if (!f->observed)
		return EXPLAIN_UNKNOWN;
	if (f->kd_err)
		return EXPLAIN_KDAMOND_UNREADABLE;
	if (!f->on)
		return EXPLAIN_KDAMOND_OFF;
	if (f->disarmed)
		return EXPLAIN_NOT_ARMED;
	if (!f->have_mem || !f->mem_total)
		return EXPLAIN_NO_MEMINFO;
	if (f->have_xchg) {
		r = from_exchange(f);
		if (r != EXPLAIN_UNKNOWN)
			return r;
	}
	return f->promote ? promotion(f) : demotion(f);
}

void explain_decide(const struct explain_facts *f, struct explain_side *ret)
{
	struct explain_side e = {
		.promote = f->promote,
		.state = rc_state_name(f->state),
		.fast_nid = f->fast_nid,
		.slow_nid = f->slow_nid,
		.kdamond = f->kdamond,
		.pid = f->foreign_pid,
		.goal_bp = f->goal_bp,
	};

	e.reason = reason(f);
	if (e.reason == EXPLAIN_BLOCKED_FOREIGN)
		e.kdamond = f->foreign_kdamond;
	if (f->have_mem && f->mem_total) {
		e.have_mem = true;
		e.free_bp = share_bp(f->mem_free, f->mem_total);
		e.used_bp = 10000 - e.free_bp;
		if (f->promote && f->daemon_quota) {
			e.have_floor = true;
			e.floor_bp = share_bp(f->floor_bytes, f->mem_total);
		}
	}
	if (f->present && f->have_quota) {
		e.have_quota = true;
		e.quota_bytes = f->quota_bytes;
		e.cap_bytes = f->cap_bytes;
	}
	if (f->present && f->have_span) {
		e.have_span = true;
		e.tried_bytes = f->tried_bytes;
		e.applied_bytes = f->applied_bytes;
	}
	*ret = e;
}

/* ---- gather ---- */

/* Ours: in the record, with the recorded pid (as decide.c judges it). */
static bool ours(const struct runtime *rt, unsigned idx, int64_t pid)
{
	return rt && rt->owns && idx >= rt->rec.first && idx - rt->rec.first < rt->rec.count &&
	       idx - rt->rec.first < PLAN_MAX_KDAMONDS && pid == rt->rec.pids[idx - rt->rec.first];
}

/* What blocks, in the order decide.c checks it: a foreign kdamond, then
 * damon_stat with damon_stat = keep.  Anything else is in the detail. */
static void what_blocks(const struct explain_input *in, struct explain_facts *f)
{
	const struct observation *o = in->obs;

	if (!o || !(o->got & OBS_HOST) || o->host_err)
		return;
	for (unsigned i = 0; i < o->nr_kdamonds && i < OBS_MAX_KDAMONDS; i++)
		if (o->all[i].on && !o->all[i].err && !ours(in->rt, i, o->all[i].pid)) {
			f->block = EXPLAIN_BLOCK_FOREIGN;
			f->foreign_kdamond = i;
			f->foreign_pid = o->all[i].pid;
			return;
		}
	if (o->mods.mod[DAMON_MOD_STAT].enabled && in->damon_stat_keep)
		f->block = EXPLAIN_BLOCK_DAMON_STAT;
}

void explain_gather(const struct explain_input *in, int fast_nid, int slow_nid, bool promote,
		    int kd, const struct explain_span *span, struct explain_facts *ret)
{
	const struct observation *o = in->obs;
	struct explain_facts f = {
		.promote = promote,
		.state = in->state,
		.fast_nid = fast_nid,
		.slow_nid = slow_nid,
	};
	const struct plan_kdamond *pk;
	const struct plan_calibration *cal;
	const struct obs_ours *k = NULL;

	if (in->state == RC_BLOCKED)
		what_blocks(in, &f);
	if (o)
		f.have_mem = observe_node_mem(o, fast_nid, &f.mem_total, &f.mem_free);
	if (kd < 0 || !in->plan || (unsigned)kd >= in->plan->nr_kdamonds) {
		*ret = f;
		return;
	}
	pk = &in->plan->kd[kd];
	cal = plan_calibration_of(in->plan, fast_nid);
	f.present = true;
	f.kdamond = (in->rt ? in->rt->rec.first : 0) + (unsigned)kd;
	if (o && (o->got & OBS_KDAMONDS) && (unsigned)kd < o->nr_ours) {
		k = &o->ours[kd];
		f.observed = true;
		f.kd_err = k->st.err;
		f.on = k->st.on;
	}
	f.disarmed = in->rt && in->rt->kd[kd].disarmed;
	f.daemon_quota = pk->scheme.daemon_quota;
	f.goal_bp = cal ? (promote ? cal->eff_used_bp : cal->eff_free_bp)
			: (unsigned)pk->scheme.goal.target_value;
	f.floor_bytes = cal ? cal->levels.floor : 0;
	if (f.daemon_quota) {
		f.have_quota = in->rt && in->rt->kd[kd].quota_synced;
		f.quota_bytes = f.have_quota ? in->rt->kd[kd].quota_bytes : 0;
		f.cap_bytes = pk->scheme.quota_cap;
	} else if (k && (o->got & OBS_STATS) && !k->st.err && k->st.on && !k->stats_err &&
		   k->stats.effective_bytes) {
		/* The kernel's goal tuner: its effective quota (0: not reported). */
		f.have_quota = true;
		f.quota_bytes = k->stats.effective_bytes;
		f.cap_bytes = pk->scheme.quota_bytes;
	}
	if (span && span->valid) {
		f.have_span = true;
		f.tried_bytes = span->tried;
		f.applied_bytes = span->applied;
	}
	*ret = f;
}

/* ---- names and text ---- */

enum explain_activity explain_activity_of(enum explain_reason r)
{
	switch (r) {
	case EXPLAIN_NO_KDAMOND:
		return EXPLAIN_ACT_NONE;
	case EXPLAIN_STARTING:
	case EXPLAIN_SWITCHING:
	case EXPLAIN_NOT_ARMED:
	case EXPLAIN_WAIT_FLOOR:
		return EXPLAIN_ACT_WAITING;
	case EXPLAIN_STOPPED:
	case EXPLAIN_KDAMOND_OFF:
		return EXPLAIN_ACT_STOPPED;
	case EXPLAIN_BLOCKED:
	case EXPLAIN_BLOCKED_DAMON_STAT:
	case EXPLAIN_BLOCKED_FOREIGN:
		return EXPLAIN_ACT_BLOCKED;
	case EXPLAIN_GOAL_MET:
	case EXPLAIN_NOTHING_ELIGIBLE:
	case EXPLAIN_NOTHING_HOTTER:
		return EXPLAIN_ACT_IDLE;
	case EXPLAIN_LOW_YIELD:
	case EXPLAIN_QUOTA_CAP:
	case EXPLAIN_QUOTA_RAMP:
		return EXPLAIN_ACT_LIMITED;
	case EXPLAIN_ACTIVE:
	case EXPLAIN_EXCHANGE:
	case EXPLAIN_MAKING_ROOM:
		return EXPLAIN_ACT_ACTIVE;
	default:
		return EXPLAIN_ACT_UNKNOWN;
	}
}

const char *explain_reason_name(enum explain_reason r)
{
	static const char *const names[_EXPLAIN_REASON_MAX] = {
		[EXPLAIN_UNKNOWN] = "unknown",
		[EXPLAIN_NO_KDAMOND] = "no_kdamond",
		[EXPLAIN_STARTING] = "starting",
		[EXPLAIN_SWITCHING] = "switching",
		[EXPLAIN_STOPPED] = "stopped",
		[EXPLAIN_BLOCKED] = "blocked",
		[EXPLAIN_BLOCKED_DAMON_STAT] = "blocked_damon_stat",
		[EXPLAIN_BLOCKED_FOREIGN] = "blocked_foreign_kdamond",
		[EXPLAIN_KDAMOND_UNREADABLE] = "kdamond_unreadable",
		[EXPLAIN_KDAMOND_OFF] = "kdamond_off",
		[EXPLAIN_NOT_ARMED] = "not_armed",
		[EXPLAIN_NO_MEMINFO] = "no_meminfo",
		[EXPLAIN_GOAL_MET] = "goal_met",
		[EXPLAIN_WAIT_FLOOR] = "wait_floor",
		[EXPLAIN_NOTHING_ELIGIBLE] = "nothing_eligible",
		[EXPLAIN_LOW_YIELD] = "low_yield",
		[EXPLAIN_QUOTA_CAP] = "quota_cap",
		[EXPLAIN_QUOTA_RAMP] = "quota_ramp",
		[EXPLAIN_ACTIVE] = "active",
		[EXPLAIN_NOTHING_HOTTER] = "nothing_hotter",
		[EXPLAIN_EXCHANGE] = "exchange",
		[EXPLAIN_MAKING_ROOM] = "making_room",
	};
	return (unsigned)r < _EXPLAIN_REASON_MAX && names[r] ? names[r] : "unknown";
}

const char *explain_activity_name(enum explain_activity a)
{
	static const char *const names[] = {
		[EXPLAIN_ACT_UNKNOWN] = "unknown", [EXPLAIN_ACT_NONE] = "none",
		[EXPLAIN_ACT_IDLE] = "idle",       [EXPLAIN_ACT_ACTIVE] = "active",
		[EXPLAIN_ACT_LIMITED] = "limited", [EXPLAIN_ACT_WAITING] = "waiting",
		[EXPLAIN_ACT_BLOCKED] = "blocked", [EXPLAIN_ACT_STOPPED] = "stopped",
	};
	return (unsigned)a < sizeof(names) / sizeof(names[0]) ? names[a] : "unknown";
}

/* MiB for the yield: "3.2" below 10, "145" above. */
static void put_mib(struct textbuf *o, uint64_t bytes)
{
	double mib = (double)bytes / (1024.0 * 1024.0);

	if (mib < 10.0)
		tb_put(o, "%.1f", mib);
	else
		tb_put(o, "%.0f", mib);
}

/* "node0 12.0% free >= goal 10.5%" and the like; met: the side stopped
 * there, which in rounded numbers may read as equal. */
static void put_goal(struct textbuf *o, const struct explain_side *e, bool met)
{
	if (!e->have_mem)
		return;
	if (e->promote && met && e->have_floor)
		tb_put(o, "node%d %.1f%% free reaches floor %.1f%%", e->fast_nid, e->free_bp / 100.0,
		    e->floor_bp / 100.0);
	else if (e->promote)
		tb_put(o, "node%d %.1f%% used %s goal %.1f%%", e->fast_nid, e->used_bp / 100.0,
		    !met ? "<" : e->used_bp >= e->goal_bp ? ">=" : "reaches", e->goal_bp / 100.0);
	else
		tb_put(o, "node%d %.1f%% free %s goal %.1f%%", e->fast_nid, e->free_bp / 100.0,
		    !met ? "<" : e->free_bp >= e->goal_bp ? ">=" : "reaches", e->goal_bp / 100.0);
}

static void put_moved(struct textbuf *o, const struct explain_side *e)
{
	tb_put(o, "kernel moved ");
	put_mib(o, e->applied_bytes);
	tb_put(o, " of ");
	put_mib(o, e->tried_bytes);
	tb_put(o, " MiB tried");
}

static void put_detail(struct textbuf *o, const struct explain_side *e)
{
	int near = e->promote ? e->slow_nid : e->fast_nid;

	switch (e->reason) {
	case EXPLAIN_UNKNOWN:
		tb_put(o, "not observed yet");
		break;
	case EXPLAIN_NO_KDAMOND:
		tb_put(o, "the plan has no kdamond for this direction");
		break;
	case EXPLAIN_STARTING:
		tb_put(o, "damon-tierd is setting up (state %s)", e->state);
		break;
	case EXPLAIN_SWITCHING:
		tb_put(o, "damon-tierd is applying a new plan (state %s)", e->state);
		break;
	case EXPLAIN_STOPPED:
		tb_put(o, "damon-tierd %s", strcmp(e->state, "teardown") == 0 ? "is stopping" : "has stopped");
		break;
	case EXPLAIN_BLOCKED:
		tb_put(o, "damon-tierd waits (the state's detail says why)");
		break;
	case EXPLAIN_BLOCKED_DAMON_STAT:
		tb_put(o, "damon_stat is on (damon_stat = keep)");
		break;
	case EXPLAIN_BLOCKED_FOREIGN:
		tb_put(o, "kdamond %u (pid %" PRId64 ") is not damon-tierd's", e->kdamond, e->pid);
		break;
	case EXPLAIN_KDAMOND_UNREADABLE:
		tb_put(o, "cannot read kdamond %u's state", e->kdamond);
		break;
	case EXPLAIN_KDAMOND_OFF:
		tb_put(o, "kdamond %u was found off; damon-tierd restarts it", e->kdamond);
		break;
	case EXPLAIN_NOT_ARMED:
		tb_put(o, "kdamond %u runs, but its scheme is not armed yet (retried every period)",
		    e->kdamond);
		break;
	case EXPLAIN_NO_MEMINFO:
		tb_put(o, "node%d's free memory cannot be read", e->fast_nid);
		break;
	case EXPLAIN_GOAL_MET:
		put_goal(o, e, true);
		break;
	case EXPLAIN_WAIT_FLOOR:
		tb_put(o, "node%d %.1f%% free < floor %.1f%%: demotion makes room first", e->fast_nid,
		    e->free_bp / 100.0, e->floor_bp / 100.0);
		break;
	case EXPLAIN_NOTHING_ELIGIBLE:
		if (e->promote)
			tb_put(o, "nothing on node%d is accessed often enough to promote", near);
		else
			tb_put(o, "nothing on node%d is cold enough to demote", near);
		if (!e->promote && e->have_mem) {
			tb_put(o, " (");
			put_goal(o, e, false);
			tb_put(o, ")");
		}
		break;
	case EXPLAIN_LOW_YIELD:
		put_moved(o, e);
		tb_put(o, " (the rest was unmovable or young)");
		break;
	case EXPLAIN_QUOTA_CAP:
		tb_put(o, "quota at its cap (");
		tb_bytes(o, e->cap_bytes);
		tb_put(o, " per window)");
		break;
	case EXPLAIN_QUOTA_RAMP:
		tb_put(o, "the kernel's goal tuner has the quota at ");
		tb_bytes(o, e->quota_bytes);
		tb_put(o, " per window and grows it slowly");
		break;
	case EXPLAIN_ACTIVE:
		put_goal(o, e, false);
		if (e->have_quota) {
			tb_put(o, "%squota ", e->have_mem ? ", " : "");
			tb_bytes(o, e->quota_bytes);
			tb_put(o, " per window");
		}
		if (e->have_span) {
			tb_put(o, "%s", e->have_mem || e->have_quota ? ", " : "");
			put_moved(o, e);
		}
		break;
	case EXPLAIN_NOTHING_HOTTER:
		tb_put(o, "nothing on node%d hotter than node%d's coldest", e->slow_nid, e->fast_nid);
		break;
	case EXPLAIN_EXCHANGE:
		tb_put(o, "node%d's hotter data takes the place of node%d's colder data", e->slow_nid,
		    e->fast_nid);
		break;
	case EXPLAIN_MAKING_ROOM:
		tb_put(o, "node%d's colder data makes room for hotter data from node%d", e->fast_nid,
		    e->slow_nid);
		break;
	default:
		tb_put(o, "?");
		break;
	}
}

int explain_format(const struct explain_side *e, char *buf, size_t size)
{
	struct textbuf o = TEXTBUF_INIT(buf, size);

	tb_put(&o, "%s %s: ", e->promote ? "promotion" : "demotion",
	    explain_activity_name(explain_activity_of(e->reason)));
	put_detail(&o, e);
	return tb_done(&o);
}
