/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "actuate.h"
#include "host_tunables.h"
#include "log.h"
#include "owner.h"
#include "status_sink.h"

#define USEC_PER_SEC UINT64_C(1000000)

/* Warnings that may come every period: a few a minute are enough. */
static struct ratelimit supervise_rl = RATELIMIT_INIT(60 * USEC_PER_SEC, 5);
static struct ratelimit control_rl = RATELIMIT_INIT(60 * USEC_PER_SEC, 1);

static bool may_log(const struct actuator *x, enum act_limit l)
{
	if (l == LIMIT_SUPERVISE)
		return ratelimit_below(&supervise_rl, x->now);
	if (l == LIMIT_CONTROL)
		return ratelimit_below(&control_rl, x->now);
	return true;
}

/* The text of a LOG (ratelimited when it says so) or of a success. */
static void log_text(const struct actuator *x, const struct action *a)
{
	char ev[64];

	if (!a->text[0] || (a->kind == ACT_LOG && !may_log(x, a->limit)))
		return;
	if (!a->event) {
		log_full(a->prio, 0, NULL, "%s", a->text);
		return;
	}
	snprintf(ev, sizeof(ev), "DAMON_TIERD_EVENT=%s", a->event);
	log_full(a->prio, 0, (const char *const[]){ ev, NULL }, "%s", a->text);
}

static void set_path(struct act_result *res, const char *path)
{
	snprintf(res->path, sizeof(res->path), "%s%s", path[0] == '/' ? "" : "/", path);
}

/* The kdamond as it is staged: the plan's, with the values fed at run time. */
static const struct plan_kdamond *staged(const struct actuator *x, const struct action *a,
					 struct plan_kdamond *buf)
{
	const struct plan *p = a->next_plan ? x->next_plan : x->plan;

	*buf = p->kd[a->kd];
	if (buf->scheme.daemon_quota)
		buf->scheme.quota_bytes = a->quota_bytes;
	buf->scheme.goal.current_value = a->goal_current;
	/* The cgroup schemes' fed goals, as last fed (decide.h). */
	for (unsigned j = 0; j < buf->nr_cg && a->kd < PLAN_MAX_KDAMONDS; j++)
		buf->cg[j].goal.current_value = x->rt->kd[a->kd].cg_goal_current[j];
	return buf;
}

static void start(struct actuator *x, const struct action *a, struct act_result *res)
{
	static struct plan_kdamond kd;
	unsigned idx = x->rt->rec.first + a->kd;
	struct kdamond_obs o = { .pid = -1 };
	char f1[32], f2[48], f3[48];

	staged(x, a, &kd);
	res->err = damon_start(x->io, idx, &kd);
	if (res->err == 0 && !x->io->dry_run)
		res->err = damon_read_kdamond(x->io, idx, &o);
	if (res->err < 0) {
		set_path(res, x->io->failed_path);
		return;
	}
	res->pid = o.pid;
	/* It runs: a failure from here on leaves it disarmed (doing nothing),
	 * and the next period commits the plan again. */
	res->arm_err = damon_arm(x->io, idx, &kd);
	if (res->arm_err < 0)
		log_warning_errno(res->arm_err, "cannot arm kdamond %u's scheme (%s); it stays disarmed "
				  "(matching no region) until the next try", idx, x->io->failed_path);
	if (a->restart) {
		log_info("%s (pid %" PRId64 ")", a->text, o.pid);
		return;
	}
	if (x->io->dry_run) {
		log_info("would start kdamond %u: %s", idx, a->text);
		return;
	}
	snprintf(f1, sizeof(f1), "DAMON_TIERD_KDAMOND=%u", idx);
	snprintf(f2, sizeof(f2), "DAMON_TIERD_ROLE=%s", plan_role_name(kd.role));
	snprintf(f3, sizeof(f3), "DAMON_TIERD_PID=%" PRId64, o.pid);
	log_full(LOG_INFO, 0, (const char *const[]){ f1, f2, f3, NULL },
		 "started kdamond %u (pid %" PRId64 "): %s", idx, o.pid, a->text);
}

/* Turn our kdamond off, but only if it still runs with our pid: a pid that
 * changed means someone restarted it, and it is not ours any more. */
static void stop(struct actuator *x, const struct action *a, struct act_result *res)
{
	int64_t pid = (int64_t)a->value;
	struct kdamond_obs o;

	if (damon_read_kdamond(x->io, a->kd, &o) < 0 || !o.on)
		return;
	if (o.pid != pid) {
		log_warning("kdamond %u runs with pid %" PRId64 ", not our %" PRId64 "; leaving it alone",
			    a->kd, o.pid, pid);
		return;
	}
	res->err = damon_state_cmd(x->io, a->kd, "off");
	if (res->err < 0) {
		set_path(res, x->io->failed_path);
		log_warning_errno(res->err, "cannot turn off our kdamond %u (%s)", a->kd, res->path);
	} else {
		log_info("turned off kdamond %u (pid %" PRId64 ")", a->kd, o.pid);
	}
}

static void save_record(struct actuator *x, const struct action *a, struct act_result *res)
{
	struct owner_record rec = x->rt->rec;

	if (x->io->dry_run)
		return;
	rec.plan_hash = plan_hash(a->next_plan ? x->next_plan : x->plan);
	res->err = owner_save(x->state_dir, &rec);
	if (res->err < 0) {
		set_path(res, x->state_dir);
		log_warning_errno(res->err, "cannot write the ownership record in %s", x->state_dir);
	}
}

static void host(struct actuator *x, const struct action *a, struct act_result *res)
{
	FILE *dry = x->io->dry_run;
	const char *failed = "";
	struct owner_record rec;

	switch (a->kind) {
	case ACT_PAUSE_DAMON_STAT:
		rec = x->rt->rec;
		rec.paused_damon_stat = true;
		res->err = host_pause_damon_stat(x->io->root, dry, x->state_dir, &rec, &failed);
		break;
	case ACT_RESTORE_DAMON_STAT:
		res->err = host_restore_damon_stat(x->io->root, dry, &failed);
		if (res->err < 0)
			log_warning_errno(res->err, "cannot re-enable damon_stat (/%s); write Y there by hand",
					  failed);
		else
			log_info("re-enabled damon_stat");
		break;
	case ACT_SET_NUMA_BALANCING:
	case ACT_RESTORE_NUMA_BALANCING:
		res->err = host_set_numa_balancing(x->io->root, dry, (int)a->value, &failed);
		if (res->err < 0)
			log_warning_errno(res->err, "cannot write %" PRIu64 " to /%s", a->value, failed);
		break;
	default:
		break;
	}
	if (res->err < 0)
		set_path(res, failed);
}

static void damon(struct actuator *x, const struct action *a, struct act_result *res)
{
	static struct plan_kdamond kd;
	unsigned idx = x->rt->rec.first + a->kd;

	switch (a->kind) {
	case ACT_SET_NR_KDAMONDS:
		res->err = damon_set_nr_kdamonds(x->io, (unsigned)a->value);
		if (res->err < 0 && a->value == 0)
			log_debug("leaving nr_kdamonds as it is: a kdamond still runs");
		break;
	case ACT_COMMIT:
		res->err = damon_commit(x->io, idx, staged(x, a, &kd));
		break;
	case ACT_RESTAGE:
		res->err = damon_stage(x->io, idx, staged(x, a, &kd), true);
		break;
	case ACT_SET_QUOTA:
		kd = x->plan->kd[a->kd];
		kd.scheme.quota_bytes = a->value;
		if (!a->control) {
			res->err = damon_set_quota(x->io, idx, &kd);
			break;
		}
		plan_kdamond_with_control(&kd, a->nr_min, a->nr_max, a->young, &kd);
		res->err = damon_set_control(x->io, idx, &kd);
		break;
	case ACT_FEED_GOAL:
		res->err = damon_feed_goal(x->io, idx, a->scheme, a->value);
		break;
	default:
		break;
	}
	if (res->err < 0)
		set_path(res, x->io->failed_path);
}

void actuate(struct actuator *x, const struct action *a, struct act_result *res)
{
	memset(res, 0, sizeof(*res));
	switch (a->kind) {
	case ACT_LOG:
	case ACT_EXIT:
		log_text(x, a);
		return;
	case ACT_BLOCK:
		log_warning("%s; retrying in %" PRIu64 " s", a->text, a->value / USEC_PER_SEC);
		/* Up, and waiting for something outside our control: a start
		 * that stayed "activating" would time out and be restarted
		 * for ever, hiding the reason. */
		notify_blocked(a->text);
		return;
	case ACT_READY:
		notify_ready(a->text);
		return;
	case ACT_START:
		start(x, a, res);
		break;
	case ACT_STOP:
		stop(x, a, res);
		return;
	case ACT_PAUSE_DAMON_STAT:
	case ACT_RESTORE_DAMON_STAT:
	case ACT_SET_NUMA_BALANCING:
	case ACT_RESTORE_NUMA_BALANCING:
		host(x, a, res);
		break;
	case ACT_SAVE_RECORD:
		save_record(x, a, res);
		return;
	case ACT_REMOVE_RECORD:
		if (!x->io->dry_run)
			res->err = owner_remove(x->state_dir);
		return;
	case ACT_SET_NR_KDAMONDS:
	case ACT_COMMIT:
	case ACT_RESTAGE:
	case ACT_SET_QUOTA:
	case ACT_FEED_GOAL:
		damon(x, a, res);
		break;
	}
	if (res->err == 0) {
		if (a->kind != ACT_START)
			log_text(x, a);
		return;
	}
	if (a->abort || !a->what[0] || !may_log(x, a->limit))
		return;
	log_warning_errno(res->err, "cannot %s (%s)", a->what, res->path);
}
