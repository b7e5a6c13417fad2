/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The state machine: which state observes what and when, the plan it is
 * built from, and the clocks.  Decisions are decide.c's, effects actuate.c's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "actuate.h"
#include "damon_sysfs.h"
#include "log.h"
#include "observe.h"
#include "quota_ctl.h"
#include "reconcile.h"
#include "status_sink.h"

struct reconciler {
	struct reconcile_options opt;
	struct config cfg, next_cfg;   /* next_cfg: a reload being switched to */
	struct damon_io io;
	struct damon_features feat;
	struct topology topo, next_topo; /* next_topo: memory hotplug */
	struct tier_map tiers, next_tiers;
	struct plan plan, next_plan;
	bool have_plan;
	int plan_err;
	char plan_why[512];
	bool switch_reload;            /* SWITCH: for a reload (else memory hotplug) */
	bool switch_cgroup;            /* SWITCH: for a cgroup that came, went or crossed its share */
	/* The [cgroup] rules' cgroups: the last observation, the view the
	 * running plan was made from, and the next plan's (cgroup_rules.h) */
	struct obs_cgroups cg_obs;
	struct cgroup_view cgv, next_cgv;
	struct runtime rt;
	struct observation obs;
	struct decision d;
	struct status_history hist;
	struct tier_map status_tiers;  /* the last tier map observed, for status before PROBE */
	bool have_status_tiers;
	enum rc_state state;
	bool reload_requested, stop_requested;
	int exit_code;
	uint64_t next_period, next_control, next_verify, next_status;
	unsigned stats_turn;           /* kdamond whose stats are refreshed by command */
};

int reconcile_new(const struct reconcile_options *o, const struct config *cfg,
		  struct reconciler **ret)
{
	struct reconciler *r = calloc(1, sizeof(*r));

	if (!r)
		return -ENOMEM;
	r->opt = *o;
	r->cfg = *cfg;
	/* --once leaves no daemon behind to run the quota controller. */
	if (o->once && r->cfg.quota_tuner == QUOTA_TUNER_DAEMON) {
		if (config_is_set(cfg, CONFIG_KEY_QUOTA_TUNER))
			log_warning("--once with [quota] tuner = daemon: the quotas stay as set now; "
				    "using the kernel's goal tuner instead");
		r->cfg.quota_tuner = QUOTA_TUNER_KERNEL;
	}
	damon_io_init(&r->io, o->root);
	r->io.dry_run = o->dry_run;
	runtime_init(&r->rt);
	r->state = RC_DISCOVER;
	*ret = r;
	return 0;
}

void reconcile_free(struct reconciler *r)
{
	free(r);
}

void reconcile_request_reload(struct reconciler *r) { r->reload_requested = true; }
void reconcile_request_stop(struct reconciler *r) { r->stop_requested = true; }
enum rc_state reconcile_state(const struct reconciler *r) { return r->state; }
int reconcile_exit_code(const struct reconciler *r) { return r->exit_code; }
const struct runtime *reconcile_runtime(const struct reconciler *r) { return &r->rt; }
const struct plan *reconcile_plan(const struct reconciler *r) { return r->have_plan ? &r->plan : NULL; }
const struct config *reconcile_config(const struct reconciler *r) { return &r->cfg; }

void reconcile_set_sleep(struct reconciler *r, void (*fn)(uint64_t, void *), void *userdata)
{
	r->io.sleep_us = fn;
	r->io.sleep_userdata = userdata;
}

static bool any_daemon_quota(const struct reconciler *r)
{
	for (unsigned i = 0; r->have_plan && i < r->plan.nr_kdamonds; i++)
		if (r->plan.kd[i].scheme.daemon_quota)
			return true;
	return false;
}

/* Every period writes the status files; the status interval adds the log
 * lines.  A dry run leaves no files. */
static void publish(struct reconciler *r, uint64_t now, bool running, bool line)
{
	static struct status_snapshot s;
	struct timespec ts;
	struct status_input in = {
		.state = rc_state_name(r->state),
		.rc_state = r->state,
		.interval_us = r->cfg.interval_us,
		.damon_stat_keep = r->cfg.damon_stat == DAMON_STAT_KEEP,
		.rt = &r->rt,
		.detail = r->state == RC_BLOCKED ? r->rt.blocked_reason : "",
		.now_usec = now,
		.pid = getpid(),
		.feat = &r->feat,
		.numa_balancing = r->rt.numab_mode,
		.repairs = r->rt.repairs,
		.errors = r->rt.errors,
		.rec = &r->rt.rec,
		.topo = &r->topo,
		.plan = running && r->have_plan ? &r->plan : NULL,
		.obs = &r->obs,
		.line = line,
		.cfg = &r->cfg,
		.cgv = &r->cgv,
	};

	if (r->opt.dry_run)
		return;
	/* Blocked before the first plan, the tiers are only in the
	 * observations: the boundaries still say why nothing moves. */
	if ((r->obs.got & OBS_TOPOLOGY) && !r->obs.topo_err && !r->obs.tiers_err) {
		r->status_tiers = r->obs.tiers;
		r->have_status_tiers = true;
	}
	in.tiers = r->tiers.nr_tiers ? &r->tiers : r->have_status_tiers ? &r->status_tiers : NULL;
	clock_gettime(CLOCK_REALTIME, &ts);
	in.realtime_usec = (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
	status_build(&in, &r->hist, &s);
	if (line)
		status_log_lines(&s);
	status_publish(&s, r->cfg.state_dir, r->cfg.prometheus_textfile, now);
}

/* The plan of config c with its cgroup rules for the cgroups last observed;
 * the view it is made from goes to *view.  prev_cfg/prev: the view so far
 * (NULL at the first plan), whose hysteresis carries over. */
static int build_plan(struct reconciler *r, const struct topology *t, const struct tier_map *m,
		      const struct config *c, const struct config *prev_cfg,
		      const struct cgroup_view *prev, struct plan *out, struct cgroup_view *view)
{
	struct cgroup_view v;

	r->plan_why[0] = '\0';
	r->plan_err = plan_build(t, m, &r->feat, c, out, r->plan_why, sizeof(r->plan_why));
	if (r->plan_err < 0 || !c->nr_cgroups) {
		memset(view, 0, sizeof(*view));
		return r->plan_err;
	}
	/* Which nodes are fast comes from the plan without the rules. */
	cgroup_view_next(c, &r->cg_obs, cgroup_fast_mask(out), prev_cfg, prev, &v);
	r->plan_err = plan_build_cg(t, m, &r->feat, c, &v, out, r->plan_why, sizeof(r->plan_why));
	if (r->plan_err == 0)
		*view = v;
	return r->plan_err;
}

/* RUNNING: the rules' cgroups as just observed.  A change the plan depends
 * on builds the next plan for a SWITCH; the rest (the shares) is kept. */
static bool cgroups_changed(struct reconciler *r)
{
	struct cgroup_view v;

	if (!r->cfg.nr_cgroups || !(r->obs.got & OBS_CGROUPS))
		return false;
	cgroup_view_next(&r->cfg, &r->obs.cg, cgroup_fast_mask(&r->plan), &r->cfg, &r->cgv, &v);
	if (!cgroup_view_differs(&v, &r->cgv)) {
		r->cgv = v;
		return false;
	}
	r->plan_why[0] = '\0';
	r->plan_err = plan_build_cg(&r->topo, &r->tiers, &r->feat, &r->cfg, &v, &r->next_plan,
				    r->plan_why, sizeof(r->plan_why));
	if (r->plan_err < 0)
		return false;
	r->next_cgv = v;
	return true;
}

/* Between observing and deciding: the plans PLAN and REPLAN decide about. */
static void prepare(struct reconciler *r)
{
	const struct observation *o = &r->obs;

	if (o->got & OBS_CGROUPS)
		r->cg_obs = o->cg;
	if (r->state == RC_PLAN)
		r->have_plan = build_plan(r, &r->topo, &r->tiers, &r->cfg, NULL, NULL, &r->plan,
					  &r->cgv) == 0;
	if (r->state == RC_REPLAN && !o->topo_err && !o->tiers_err) {
		r->next_tiers = o->tiers;
		(void)build_plan(r, &r->next_topo, &r->next_tiers, &r->cfg, &r->cfg, &r->cgv,
				 &r->next_plan, &r->next_cgv);
	}
}

/* What follows from a state reached: what it keeps of the observation, the
 * plan it takes, the clocks it starts, the status it publishes. */
static void entered(struct reconciler *r, enum rc_state before, uint64_t now)
{
	bool hotplug = before == RC_SWITCH && !r->switch_reload && !r->switch_cgroup;

	if (before == RC_DISCOVER && r->state == RC_PROBE)
		r->tiers = r->obs.tiers;
	if (before == RC_PROBE && r->state == RC_PLAN) {
		r->feat = r->obs.feat;
		r->io.feat = r->feat;
	}
	if (before == RC_SWITCH && r->d.take_next_plan) {
		if (hotplug) {
			memcpy(&r->topo, &r->next_topo, sizeof(r->topo));
			r->tiers = r->next_tiers;
		}
		memcpy(&r->plan, &r->next_plan, sizeof(r->plan));
		r->cgv = r->next_cgv;
	}
	if ((before == RC_APPLY || before == RC_ADOPT) && r->state == RC_RUNNING) {
		r->next_period = now;
		r->next_verify = now + config_verify_interval_us(&r->cfg);
		r->next_status = now + r->cfg.status_interval_us;
		r->next_control = now + QCTL_TICK_US;
	}
	if (r->state == RC_BLOCKED || r->state == RC_DONE)
		publish(r, now, false, false);
	if (r->state != before)
		log_debug("state %s -> %s", rc_state_name(before), rc_state_name(r->state));
}

/* Observe what the state needs, decide, act.  The state advances when every
 * action went through; an aborted decision leaves its failure in the
 * runtime for the next decision of the same state. */
static void tick(struct reconciler *r, uint64_t now, bool period, bool control, bool verify,
		 bool line)
{
	bool hotplug = r->state == RC_REPLAN ||
		       (r->state == RC_SWITCH && !r->switch_reload && !r->switch_cgroup);
	struct observe_request rq = {
		.need = decide_needs(r->state, &r->rt, period, control, verify),
		.first = r->rt.rec.first,
		.count = r->rt.owns ? r->rt.rec.count : 0,
		.plan = r->have_plan ? &r->plan : NULL,
		.refresh = line ? UINT32_MAX : 1u << r->stats_turn,
		.probe_writes = r->state == RC_PROBE && !r->opt.dry_run && !r->rt.adopting,
		.dry_run = r->opt.dry_run != NULL,
		.state_dir = r->cfg.state_dir,
		.topo = r->state == RC_REPLAN ? &r->next_topo : &r->topo,
		.cfg = &r->cfg,
		.cg_hint = &r->cg_obs,
	};
	enum rc_state before = r->state;
	bool cg_switch;

	if (r->cfg.nr_cgroups &&
	    (r->state == RC_PLAN || r->state == RC_RUNNING || r->state == RC_REPLAN))
		rq.need |= OBS_CGROUPS;
	for (unsigned i = 0; r->have_plan && i < r->plan.nr_kdamonds; i++) {
		const struct kd_runtime *k = &r->rt.kd[i];
		const struct plan_scheme *ps = &r->plan.kd[i].scheme;

		/* A start or commit stages the plan's bounds; a control write
		 * that went through, its own; one that failed, unknown. */
		rq.ctl[i] = (struct obs_ctl){ .check = k->quota_synced,
					      .nr_min = k->ctl_known ? k->nr_min : ps->nr_accesses_min,
					      .nr_max = k->ctl_known ? k->nr_max : ps->nr_accesses_max,
					      .young = k->ctl_known ? k->young : true };
	}
	r->obs.now_usec = now;
	observe(&r->io, &rq, &r->obs);
	prepare(r);
	cg_switch = r->state == RC_RUNNING && cgroups_changed(r);

	struct decide_input in = {
		.state = r->state,
		.now = now,
		.cfg = &r->cfg,
		.plan = r->have_plan ? &r->plan : NULL,
		.topo_seen = hotplug ? &r->next_topo : &r->topo,
		.next_plan = &r->next_plan,
		.switch_why = r->switch_reload ? "reload" : r->switch_cgroup ? "cgroup change" : "memory hotplug",
		.switch_reload = r->switch_reload,
		.state_dir_changed = r->switch_reload && strcmp(r->cfg.state_dir, r->next_cfg.state_dir) != 0,
		.obs = &r->obs,
		.rt = &r->rt,
		.fresh = r->opt.dry_run != NULL,
		.once = r->opt.once,
		.period_due = period,
		.control_due = control,
		.verify_due = verify,
		.plan_err = r->plan_err,
		.plan_why = r->plan_why,
		.feat = &r->feat,
		.cgv = &r->cgv,
		.next_cgv = &r->next_cgv,
		.cgroup_switch = cg_switch,
	};
	struct actuator x = { .io = &r->io, .state_dir = r->cfg.state_dir, .plan = in.plan,
			      .next_plan = &r->next_plan, .rt = &r->rt, .now = now };

	decide(&in, &r->d);
	if (cg_switch && r->d.next == RC_SWITCH) {
		r->switch_reload = false;
		r->switch_cgroup = true;
	}
	r->rt = r->d.rt;
	for (unsigned i = 0; i < r->d.n; i++) {
		const struct action *a = &r->d.a[i];
		struct act_result res;

		actuate(&x, a, &res);
		if (a->kind == ACT_EXIT)
			r->exit_code = (int)a->value;
		if (decide_settle(&r->rt, a, &res, before, now))
			return;
	}
	r->state = r->d.next;
	entered(r, before, now);
}

/* Parse into a new struct and validate; the running one is never touched.
 * As at start-up, nothing found on the search path means all defaults, and
 * a missing --config FILE is an error. */
static int load_config(struct reconciler *r, struct config *next)
{
	const struct config_sources src = { .main_file = r->opt.config_path };
	struct config_error err = {};
	int ret;

	ret = config_load_sources(&src, next, NULL, &err);
	if (ret < 0)
		log_error("reload rejected, the running configuration is kept: %s",
			  err.message[0] ? err.message : strerror(-ret));
	return ret;
}

static const char *config_name(const struct reconciler *r)
{
	return r->opt.config_path ? r->opt.config_path : "the configuration files and drop-ins";
}

/* SIGHUP: a valid config and a plan made from it go to SWITCH. */
static void reload(struct reconciler *r)
{
	notify_reloading();
	r->state = RC_RUNNING;
	if (load_config(r, &r->next_cfg) < 0) {
		notify_ready("running (last reload rejected)");
		return;
	}
	if (build_plan(r, &r->topo, &r->tiers, &r->next_cfg, &r->cfg, &r->cgv, &r->next_plan,
		       &r->next_cgv) < 0) {
		log_error_errno(r->plan_err, "reload rejected: cannot plan DAMON tiering: %s", r->plan_why);
		notify_ready("running (last reload rejected)");
		return;
	}
	r->switch_reload = true;
	r->switch_cgroup = false;
	r->state = RC_SWITCH;
}

static void reloaded(struct reconciler *r, uint64_t now)
{
	if (!r->d.take_next_plan) {
		notify_ready("running (last reload rejected by the kernel)");
		return;
	}
	/* A moved or disabled textfile would otherwise go on exporting the
	 * last values forever. */
	if (r->cfg.prometheus_textfile[0] &&
	    strcmp(r->cfg.prometheus_textfile, r->next_cfg.prometheus_textfile) != 0)
		(void)unlink(r->cfg.prometheus_textfile);
	r->cfg = r->next_cfg;
	char status[64];

	log_info("configuration reloaded from %s", config_name(r));
	snprintf(status, sizeof(status), "running %u kdamonds", r->plan.nr_kdamonds);
	notify_ready(status);
	r->next_period = r->next_status = now;
}

/* Requests are taken between ticks: a stop from any state, a reload while
 * running (or, while blocked, just the new config for the next try). */
static void take_requests(struct reconciler *r)
{
	if (r->stop_requested && r->state != RC_DONE && r->state != RC_TEARDOWN) {
		r->stop_requested = false;
		notify_stopping();
		r->state = RC_TEARDOWN;
	}
	if (!r->reload_requested || (r->state != RC_RUNNING && r->state != RC_BLOCKED))
		return;
	r->reload_requested = false;
	if (r->state == RC_RUNNING) {
		r->state = RC_RELOAD;
		return;
	}
	if (load_config(r, &r->next_cfg) == 0) {
		r->cfg = r->next_cfg;
		log_info("configuration reloaded from %s", config_name(r));
	}
	notify_ready("blocked");
}

/* RUNNING: the period (supervision, status), the controller's tick, both
 * or neither.  Returns the delay to the next, 0 if one ran. */
static uint64_t running(struct reconciler *r, uint64_t now)
{
	uint64_t period_at = r->next_period > r->rt.blocked_until ? r->next_period : r->rt.blocked_until;
	bool quota = any_daemon_quota(r);
	bool period = now >= period_at, control = quota && now >= r->next_control;
	bool verify = period && now >= r->next_verify, line = period && now >= r->next_status;
	uint64_t next = period_at;

	if (!period && !control) {
		if (quota && r->next_control < next)
			next = r->next_control;
		return next - now;
	}
	/* The clocks move first: a period that switches to another plan is
	 * done, not due again. */
	if (period) {
		r->next_period = now + r->cfg.interval_us;
		if (r->plan.nr_kdamonds)
			r->stats_turn = (r->stats_turn + 1) % r->plan.nr_kdamonds;
	}
	if (verify)
		r->next_verify = now + config_verify_interval_us(&r->cfg);
	if (line)
		r->next_status = now + r->cfg.status_interval_us;
	tick(r, now, period, control, verify, line);
	if (control)
		r->next_control = now + (r->rt.ctl_retry ? QCTL_RETRY_US : QCTL_TICK_US);
	if (period && r->state == RC_RUNNING)
		publish(r, now, true, line);
	return 0;
}

uint64_t reconcile_step(struct reconciler *r, uint64_t now)
{
	for (;;) {
		enum rc_state before = r->state;
		uint64_t delay;

		take_requests(r);
		switch (r->state) {
		case RC_DONE:
			return 0;
		case RC_RELOAD:
			reload(r);
			continue;
		case RC_RUNNING:
			delay = running(r, now);
			if (delay)
				return delay;
			break;
		case RC_BLOCKED:
			if (!r->opt.once && !r->opt.dry_run && now < r->rt.blocked_until)
				return r->rt.blocked_until - now;
			tick(r, now, false, false, false, false);
			break;
		case RC_REPLAN:
			r->switch_reload = false;
			r->switch_cgroup = false;
			tick(r, now, false, false, false, false);
			break;
		case RC_SWITCH:
			tick(r, now, false, false, false, false);
			if (r->switch_reload && r->state != RC_SWITCH)
				reloaded(r, now);
			break;
		default:
			tick(r, now, false, false, false, false);
			break;
		}
		/* An aborted decision is decided again after its failure, at
		 * once; a state that did not move and is not waiting would spin. */
		if (r->state == before && !r->rt.failure.set && r->state != RC_RUNNING &&
		    r->state != RC_BLOCKED)
			return 1000000;
	}
}
