/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The reconciler compares and schedules: it calls the acquire modules
 * (topology, features), the pure planner, and the apply module (damon_sysfs),
 * and decides what to do next.  Every transition is logged once.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "build-config.h"
#include "log.h"
#include "reconcile.h"
#include "sysfs_io.h"

#define USEC_PER_SEC UINT64_C(1000000)
#define DAMON_STAT_ENABLED "sys/module/damon_stat/parameters/enabled"

static struct ratelimit drift_rl = RATELIMIT_INIT(60 * USEC_PER_SEC, 5);
static struct ratelimit textfile_rl = RATELIMIT_INIT(60 * USEC_PER_SEC, 1);
static struct ratelimit control_rl = RATELIMIT_INIT(60 * USEC_PER_SEC, 1);

const char *rc_state_name(enum rc_state s)
{
	static const char *const names[] = {
		[RC_DISCOVER] = "discover", [RC_PLAN] = "plan",     [RC_APPLY] = "apply",
		[RC_RUNNING] = "running",   [RC_REPAIR] = "repair", [RC_BLOCKED] = "blocked",
		[RC_RELOAD] = "reload",     [RC_TEARDOWN] = "teardown", [RC_DONE] = "done",
	};
	return s < sizeof(names) / sizeof(names[0]) ? names[s] : "?";
}

uint64_t reconcile_backoff_usec(unsigned attempts)
{
	uint64_t d = USEC_PER_SEC;

	for (unsigned i = 1; i < attempts && d < 300 * USEC_PER_SEC; i++)
		d *= 2;
	return d > 300 * USEC_PER_SEC ? 300 * USEC_PER_SEC : d;
}

int reconcile_init(struct reconciler *r, int root, const char *config_path,
		   const struct config *cfg)
{
	memset(r, 0, sizeof(*r));
	r->topo = calloc(1, sizeof(*r->topo));
	r->plan = calloc(1, sizeof(*r->plan));
	if (!r->topo || !r->plan) {
		free(r->topo);
		free(r->plan);
		return -ENOMEM;
	}
	r->root = root;
	r->config_path = config_path;
	r->cfg = *cfg;
	damon_io_init(&r->io, root);
	r->state = RC_DISCOVER;
	r->numa_balancing_saved = -1;
	r->numa_balancing_mode = -1;
	return 0;
}

void reconcile_free(struct reconciler *r)
{
	free(r->topo);
	free(r->plan);
	r->topo = NULL;
	r->plan = NULL;
}

void reconcile_request_reload(struct reconciler *r)
{
	r->reload_requested = true;
}

void reconcile_request_stop(struct reconciler *r)
{
	r->stop_requested = true;
}

static void release(struct reconciler *r);
static void check_topology(struct reconciler *r);
static void publish(struct reconciler *r, uint64_t now, bool running);

/*
 * Every way out but a successful --once (which leaves our kdamonds running
 * on purpose) undoes what we changed, so that a refusal or a failure, also
 * in the instance that restarts after a crash, leaves nothing paused.
 */
static void finish(struct reconciler *r, int exit_code)
{
	if (exit_code != EXIT_OK)
		release(r);
	r->exit_code = exit_code;
	r->state = RC_DONE;
}

static void block(struct reconciler *r, uint64_t now)
{
	uint64_t d = reconcile_backoff_usec(++r->attempts);

	r->blocked_until_usec = now + d;
	log_warning("%s; retrying in %" PRIu64 " s", r->blocked_reason, d / USEC_PER_SEC);
	status_set("blocked: %s", r->blocked_reason);
	r->state = RC_BLOCKED;
	publish(r, now, false);
}

static unsigned nr_wanted(const struct reconciler *r)
{
	return r->tiers.nr_promote + r->tiers.nr_demote;
}

static void log_topology(const struct reconciler *r)
{
	char line[1024];
	size_t off = 0;

	for (unsigned i = 0; i < r->topo->nr_nodes && off < sizeof(line); i++) {
		const struct numa_node *n = &r->topo->nodes[i];
		int k;

		if (r->tiers.rank[i] < 0)
			continue;
		k = snprintf(line + off, sizeof(line) - off, "%snode%d: tier %d%s, %" PRIu64 " MiB%s",
			     off ? "; " : "", n->nid, r->tiers.rank[i],
			     n->has_cpu ? "" : " (CPU-less)", n->mem_total >> 20,
			     n->tier >= 0 ? "" : "");
		if (k < 0)
			break;
		off += (size_t)k;
	}
	log_full(LOG_INFO, 0, (const char *const[]){ "DAMON_TIERD_EVENT=discovery", NULL },
		 "found %u memory tiers (%s): %s", r->tiers.nr_tiers,
		 r->tiers.from_kernel ? "from memory_tiering" : "from CPU-less nodes and distances",
		 line);
}

/* The record's kdamonds are exactly the ones wanted, all on with their pids. */
static bool all_ours_running(struct reconciler *r, unsigned want)
{
	unsigned cur;

	if (!r->owns || r->rec.first != 0 || r->rec.count != want ||
	    damon_read_nr_kdamonds(&r->io, &cur) < 0 || cur != want)
		return false;
	for (unsigned i = 0; i < want; i++) {
		struct kdamond_obs o;

		if (damon_read_kdamond(&r->io, i, &o) < 0 || !o.on || o.pid != r->rec.pids[i])
			return false;
	}
	return true;
}

/* Everything we must check before touching nr_kdamonds. */
static int check_conflicts(struct reconciler *r, uint64_t now)
{
	struct damon_modules *m = &r->mods;
	unsigned cur = 0;
	int ret;

	ret = features_read_modules(r->root, m);
	if (ret < 0)
		return log_error_errno(ret, "cannot read /sys/module/damon_*/parameters/enabled");

	for (int i = DAMON_MOD_RECLAIM; i <= DAMON_MOD_LRU_SORT; i++)
		if (m->mod[i].enabled) {
			log_error("%s is enabled: it runs an exclusive DAMON context, so no sysfs kdamond "
				  "can start. It is an active memory policy and damon-tierd will not "
				  "disable it; to use damon-tierd instead, write N to "
				  "/sys/module/%s/parameters/enabled (or boot with %s.enabled=N)",
				  m->mod[i].name, m->mod[i].name, m->mod[i].name);
			finish(r, EXIT_CONFLICT);
			return -EBUSY;
		}

	ret = damon_read_nr_kdamonds(&r->io, &cur);
	if (ret < 0)
		return log_error_errno(ret, "cannot read /" DAMON_KDAMONDS "/nr_kdamonds");

	for (unsigned i = 0; i < cur; i++) {
		struct kdamond_obs o;
		bool ours = false;

		ret = damon_read_kdamond(&r->io, i, &o);
		if (ret < 0)
			return log_error_errno(ret, "cannot read the state of %s", r->io.failed_path);
		if (!o.on)
			continue;
		if (r->owns && i >= r->rec.first && i - r->rec.first < r->rec.count)
			ours = o.pid == r->rec.pids[i - r->rec.first];
		if (ours)
			continue;
		snprintf(r->blocked_reason, sizeof(r->blocked_reason),
			 "kdamond %u (pid %" PRId64 ") is running and was not started by damon-tierd; "
			 "the kernel lets nr_kdamonds change only while every kdamond is off, and "
			 "damon-tierd never stops a kdamond it does not own. Stop it with the tool "
			 "that started it (e.g. 'damo stop') or 'echo off > /sys/kernel/mm/damon/admin/"
			 "kdamonds/%u/state'", i, o.pid, i);
		block(r, now);
		return -EBUSY;
	}
	return 0;
}

static int pause_damon_stat(struct reconciler *r, uint64_t now)
{
	const struct damon_module *st = &r->mods.mod[DAMON_MOD_STAT];
	int ret;

	if (!st->enabled)
		return 0;
	if (r->cfg.damon_stat == DAMON_STAT_KEEP) {
		snprintf(r->blocked_reason, sizeof(r->blocked_reason),
			 "damon_stat is enabled and runs an exclusive DAMON context that makes every "
			 "sysfs kdamond fail with EBUSY; the config says damon_stat = keep. Set "
			 "damon_stat = pause, or write N to /" DAMON_STAT_ENABLED);
		block(r, now);
		return -EBUSY;
	}
	/* Record first: if we crash after the write, the next start knows it
	 * has to restore damon_stat on exit. */
	r->rec.paused_damon_stat = true;
	r->paused_damon_stat = true;
	if (!r->dry_run) {
		ret = owner_save(r->cfg.state_dir, &r->rec);
		if (ret < 0)
			return log_error_errno(ret, "cannot write the ownership record in %s",
					       r->cfg.state_dir);
	}
	ret = r->dry_run ? 0 : io_write(r->root, DAMON_STAT_ENABLED, "N");
	if (r->dry_run)
		fprintf(r->io.dry_run, "write /%s N\n", DAMON_STAT_ENABLED);
	if (ret < 0)
		return log_error_errno(ret, "cannot pause damon_stat (/%s)", DAMON_STAT_ENABLED);
	log_notice("paused damon_stat (its exclusive DAMON context blocks sysfs kdamonds); it will be "
		   "re-enabled when damon-tierd stops (config: damon_stat = keep to forbid this)");
	return 0;
}

#define NUMA_BALANCING "proc/sys/kernel/numa_balancing"
#define NUMA_BALANCING_MEMORY_TIERING 2

/*
 * NUMA balancing's tiering mode (2) promotes pages from the faulting task
 * and fights DAMON's promotion; the kernel turns mode 1 on by itself on
 * multi-node machines.  Say what we found, and change it only when asked.
 */
static void check_numa_balancing(struct reconciler *r)
{
	char v[32], dem[32] = "unknown";
	int64_t mode;
	int ret;

	if (io_read_s64(r->root, NUMA_BALANCING, &mode) < 0)
		return;
	(void)io_read(r->root, "sys/kernel/mm/numa/demotion_enabled", dem, sizeof(dem));
	r->numa_balancing_mode = (int)mode;
	if (!(mode & NUMA_BALANCING_MEMORY_TIERING)) {
		log_info("NUMA balancing mode %" PRId64 " (no tiering mode); reclaim-based demotion "
			 "(/sys/kernel/mm/numa/demotion_enabled): %s", mode, dem);
		return;
	}
	if (r->cfg.numa_balancing != NUMAB_DISABLE_TIERING || r->dry_run) {
		log_warning("NUMA balancing runs in tiering mode (/%s = %" PRId64 "): it promotes pages "
			    "on its own and competes with DAMON's promotion; set numa_balancing = "
			    "disable-tiering to let damon-tierd turn that mode off while it runs; "
			    "reclaim-based demotion (/sys/kernel/mm/numa/demotion_enabled): %s",
			    NUMA_BALANCING, mode, dem);
		return;
	}
	snprintf(v, sizeof(v), "%" PRId64, mode & ~(int64_t)NUMA_BALANCING_MEMORY_TIERING);
	ret = io_write(r->root, NUMA_BALANCING, v);
	if (ret < 0) {
		log_warning_errno(ret, "cannot write /%s", NUMA_BALANCING);
		return;
	}
	r->numa_balancing_saved = (int)mode;
	log_notice("NUMA balancing tiering mode turned off (/%s %" PRId64 " -> %s); restored on exit; "
		   "reclaim-based demotion (/sys/kernel/mm/numa/demotion_enabled): %s",
		   NUMA_BALANCING, mode, v, dem);
}

static void restore_numa_balancing(struct reconciler *r)
{
	char v[16];
	int ret;

	if (r->numa_balancing_saved < 0)
		return;
	snprintf(v, sizeof(v), "%d", r->numa_balancing_saved);
	ret = io_write(r->root, NUMA_BALANCING, v);
	if (ret < 0)
		log_warning_errno(ret, "cannot restore /%s to %s", NUMA_BALANCING, v);
	r->numa_balancing_saved = -1;
}

static void restore_damon_stat(struct reconciler *r)
{
	int ret;

	if (!r->paused_damon_stat || r->dry_run)
		return;
	ret = io_write(r->root, DAMON_STAT_ENABLED, "Y");
	if (ret < 0)
		log_warning_errno(ret, "cannot re-enable damon_stat (/%s); write Y there by hand",
				  DAMON_STAT_ENABLED);
	else
		log_info("re-enabled damon_stat");
	r->paused_damon_stat = false;
	r->rec.paused_damon_stat = false;
}

/* Turn off the kdamonds we own (and only those). */
static void stop_ours(struct reconciler *r)
{
	if (!r->owns)
		return;
	for (unsigned i = 0; i < r->rec.count; i++) {
		unsigned idx = r->rec.first + i;
		struct kdamond_obs o;
		int ret;

		if (damon_read_kdamond(&r->io, idx, &o) < 0 || !o.on)
			continue;
		/* A pid that changed means someone restarted it: not ours any more. */
		if (o.pid != r->rec.pids[i]) {
			log_warning("kdamond %u runs with pid %" PRId64 ", not our %" PRId64
				    "; leaving it alone", idx, o.pid, r->rec.pids[i]);
			continue;
		}
		ret = damon_state_cmd(&r->io, idx, "off");
		if (ret < 0)
			log_warning_errno(ret, "cannot turn off our kdamond %u (%s)", idx,
					  r->io.failed_path);
		else
			log_info("turned off kdamond %u (pid %" PRId64 ")", idx, o.pid);
	}
}

static int discover(struct reconciler *r, uint64_t now)
{
	char err[512] = "";
	struct owner_record rec;
	const struct feature_requirement *miss;
	char feats[512];
	unsigned want;
	int ret;

	/* A record from an earlier run (crash, --once) makes those kdamonds
	 * ours, and what it changed ours to restore. */
	if (!r->owns && owner_load(r->cfg.state_dir, &rec) == 0) {
		r->rec = rec;
		r->owns = true;
		r->paused_damon_stat = rec.paused_damon_stat;
	}

	ret = features_probe(r->root, NULL, &r->feat);
	if (ret < 0)
		return log_error_errno(ret, "cannot probe /" DAMON_ADMIN);
	if (!r->feat.sysfs) {
		miss = features_missing(&r->feat);
		log_error("this kernel lacks %s: build it with %s (Linux %s or later)", miss->what,
			  miss->kconfig, miss->since);
		finish(r, EXIT_KERNEL);
		return 0;
	}

	ret = topology_read(r->root, r->topo, err, sizeof(err));
	if (ret < 0) {
		log_error_errno(ret, "cannot read the NUMA topology: %s", err);
		finish(r, EXIT_FAILURE_RUNTIME);
		return 0;
	}
	ret = tiers_build(r->topo, &r->tiers, err, sizeof(err));
	if (ret == -ENODEV) {
		log_full(LOG_NOTICE, 0, (const char *const[]){ "DAMON_TIERD_EVENT=nothing-to-tier", NULL },
			 "%s; exiting", err);
		/* READY first: to systemd this is a clean, successful exit
		 * (SuccessExitStatus=77), not a start-up failure. */
		status_ready("nothing to tier");
		status_set("nothing to tier: %s", err);
		finish(r, EXIT_NOTHING_TO_TIER);
		return 0;
	}
	if (ret < 0) {
		log_error_errno(ret, "cannot build the tier map: %s", err);
		finish(r, EXIT_FAILURE_RUNTIME);
		return 0;
	}
	log_topology(r);
	want = nr_wanted(r);
	if (want > PLAN_MAX_KDAMONDS) {
		log_error("this machine needs %u kdamonds; at most %d are supported", want,
			  PLAN_MAX_KDAMONDS);
		finish(r, EXIT_FAILURE_RUNTIME);
		return 0;
	}


	ret = check_conflicts(r, now);
	if (ret < 0 || r->state != RC_DISCOVER)
		return ret == -EBUSY ? 0 : ret;

	if (!r->dry_run && !r->no_adopt && all_ours_running(r, want) &&
	    features_probe_readonly(r->root, DAMON_KDAMONDS, want, &r->feat) == 0) {
		/* A previous run (crash, --once) left our kdamonds running: keep
		 * them if the plan is still the same (checked in PLAN), so
		 * tiering has no gap. */
		r->adopting = true;
	} else if (r->dry_run && r->owns &&
	    features_probe_readonly(r->root, DAMON_KDAMONDS, want, &r->feat) == 0) {
		/* Our kdamonds are staged: their files tell the features. */
		fprintf(r->io.dry_run, "# dry run: kernel features read from our kdamond 0\n");
		fprintf(r->io.dry_run, "write /" DAMON_KDAMONDS "/nr_kdamonds %u\n", want);
	} else if (r->dry_run) {
		/* Probing writes to DAMON sysfs; a dry run must not. */
		struct damon_features all = {
			.sysfs = true, .paddr = true, .migrate = true, .apply_interval = true,
			.quota_goals = true, .goal_metric = true, .effective_bytes = true,
			.node_metrics = true, .intervals_goal = true, .ops_filters = true,
			.filters = true, .filter_allow = true, .young_filter = true,
			.refresh_ms = true,
		};
		fprintf(r->io.dry_run, "# dry run: kernel features are not probed (that needs writes); "
				       "assuming a 6.17 kernel\n");
		r->feat = all;
		ret = pause_damon_stat(r, now);
		if (ret < 0)
			return ret;
		fprintf(r->io.dry_run, "write /" DAMON_KDAMONDS "/nr_kdamonds %u\n", want);
	} else {
		stop_ours(r);
		ret = pause_damon_stat(r, now);
		if (ret < 0 || r->state != RC_DISCOVER)
			return ret;
		ret = damon_set_nr_kdamonds(&r->io, want);
		if (ret == -EBUSY) {
			snprintf(r->blocked_reason, sizeof(r->blocked_reason),
				 "cannot set /%s/nr_kdamonds: a kdamond is running", DAMON_KDAMONDS);
			block(r, now);
			return 0;
		}
		if (ret < 0)
			return log_error_errno(ret, "cannot write /" DAMON_KDAMONDS "/nr_kdamonds");
		r->owns = true;
		r->rec.first = 0;
		r->rec.count = want;
		memset(r->rec.pids, 0, sizeof(r->rec.pids));

		ret = features_probe(r->root, DAMON_KDAMONDS "/0", &r->feat);
		if (ret < 0)
			return log_error_errno(ret, "cannot probe DAMON features in our kdamond "
					       "/" DAMON_KDAMONDS "/0");
	}
	miss = features_missing(&r->feat);
	if (miss) {
		log_error("this kernel lacks %s: build it with %s (Linux %s or later)", miss->what,
			  miss->kconfig, miss->since);
		finish(r, EXIT_KERNEL);
		return 0;
	}
	r->io.feat = r->feat;
	if (r->numa_balancing_mode < 0)
		check_numa_balancing(r);
	features_format(&r->feat, feats, sizeof(feats));
	log_info("DAMON features: %s", feats);
	r->attempts = 0;
	r->state = RC_PLAN;
	return 0;
}

static void log_plan(const struct reconciler *r, const struct plan *p)
{
	for (unsigned i = 0; i < p->nr_calib; i++) {
		const struct plan_calibration *c = &p->calib[i];

		log_info("node%d goals: free %.2f%% (configured %s%.2f%%), used %.2f%% (configured "
			 "%s%.2f%%); zone high watermarks %" PRIu64 " MiB, promotion quota %" PRIu64
			 " MiB per window, node %" PRIu64 " MiB",
			 c->nid, c->eff_free_bp / 100.0, c->free_auto ? "auto, seed " : "",
			 c->cfg_free_bp / 100.0, c->eff_used_bp / 100.0,
			 c->used_auto ? "auto, seed " : "", c->cfg_used_bp / 100.0,
			 c->wmark_high >> 20, c->quota_bytes >> 20, c->mem_total >> 20);
		if (p->kd[0].scheme.daemon_quota)
			log_info("node%d quota controller: demotion keeps %" PRIu64 " MiB free, promotion may "
				 "fill down to %" PRIu64 " MiB free", c->nid, c->levels.target >> 20,
				 c->levels.floor >> 20);
	}
}

static int build_plan(struct reconciler *r, const struct config *cfg, struct plan *out)
{
	char err[512] = "";
	int ret = plan_build(r->topo, &r->tiers, &r->feat, cfg, out, err, sizeof(err));

	if (ret < 0)
		log_error_errno(ret, "cannot plan DAMON tiering: %s", err);
	return ret;
}

static int feed_goals(struct reconciler *r, bool commit)
{
	int ret;

	for (unsigned i = 0; i < r->plan->nr_kdamonds; i++) {
		struct plan_goal *g = &r->plan->kd[i].scheme.goal;
		const struct numa_node *n;

		if (!g->enabled || g->metric != GOAL_USER_INPUT)
			continue;
		n = topology_node(r->topo, g->nid);
		if (!n || n->mem_total == 0)
			continue;
		g->current_value = g->user_metric == GOAL_NODE_MEM_FREE_BP
					   ? n->mem_free * 10000 / n->mem_total
					   : (n->mem_total - n->mem_free) * 10000 / n->mem_total;
		if (!commit)
			continue;
		ret = damon_feed_goal(&r->io, r->rec.first + i, g->current_value);
		if (ret < 0)
			return ret;
	}
	return 0;
}

static void describe(const struct plan_kdamond *kd, char *buf, size_t size)
{
	const struct plan_scheme *s = &kd->scheme;

	if (s->daemon_quota) {
		snprintf(buf, size, "%s node%d -> node%d (%s, %u regions, quota set by damon-tierd "
				    "every %llu s, up to %" PRIu64 " MiB per %" PRIu64 " ms)",
			 plan_role_name(kd->role), kd->from_nid, kd->to_nid, s->action, kd->nr_ranges,
			 QCTL_TICK_US / USEC_PER_SEC, s->quota_cap >> 20, s->quota_reset_ms);
		return;
	}

	snprintf(buf, size, "%s node%d -> node%d (%s, %u regions, goal %s%s %.2f%% on node%d, "
			    "quota %" PRIu64 " MiB per %" PRIu64 " ms)",
		 plan_role_name(kd->role), kd->from_nid, kd->to_nid, s->action, kd->nr_ranges,
		 s->goal.enabled ? goal_metric_name(s->goal.user_metric) : "none",
		 s->goal.metric == GOAL_USER_INPUT ? " (fed as user_input)" : "",
		 s->goal.target_value / 100.0, s->goal.nid, s->quota_bytes >> 20, s->quota_reset_ms);
}

static void ctl_reset_gain(struct reconciler *r, unsigned i)
{
	r->ctl_gain[i] = QCTL_GAIN_ONE;
	r->ctl_tried[i] = UINT64_MAX;
}

static int start_one(struct reconciler *r, unsigned i, bool log_start)
{
	unsigned idx = r->rec.first + i;
	const struct plan_kdamond *kd = &r->plan->kd[i];
	struct kdamond_obs o = { .pid = -1 };
	char desc[256], f1[32], f2[48], f3[48];
	int ret;

	ret = damon_start(&r->io, idx, kd);
	if (ret < 0)
		return ret;
	if (!r->dry_run) {
		ret = damon_read_kdamond(&r->io, idx, &o);
		if (ret < 0)
			return log_error_errno(ret, "cannot read back %s", r->io.failed_path);
	}
	r->rec.pids[i] = o.pid;
	/* It runs: a failure from here on leaves it disarmed (doing nothing),
	 * and the next period commits the plan again. */
	ret = damon_arm(&r->io, idx, kd);
	r->disarmed[i] = ret < 0;
	if (ret < 0)
		log_warning_errno(ret, "cannot arm kdamond %u's scheme (%s); it stays disarmed "
				  "(matching no region) until the next try", idx, r->io.failed_path);
	r->samples[i].valid = false;
	r->line_samples[i].valid = false;
	r->ctl_synced[i] = true;
	ctl_reset_gain(r, i);
	describe(kd, desc, sizeof(desc));
	snprintf(f1, sizeof(f1), "DAMON_TIERD_KDAMOND=%u", idx);
	snprintf(f2, sizeof(f2), "DAMON_TIERD_ROLE=%s", plan_role_name(kd->role));
	snprintf(f3, sizeof(f3), "DAMON_TIERD_PID=%" PRId64, o.pid);
	if (log_start && r->dry_run)
		log_info("would start kdamond %u: %s", idx, desc);
	else if (log_start)
		log_full(LOG_INFO, 0, (const char *const[]){ f1, f2, f3, NULL },
			 "started kdamond %u (pid %" PRId64 "): %s", idx, o.pid, desc);
	return 0;
}

static int save_record(struct reconciler *r)
{
	int ret;

	if (r->dry_run)
		return 0;
	r->rec.plan_hash = plan_hash(r->plan);
	ret = owner_save(r->cfg.state_dir, &r->rec);
	if (ret < 0)
		log_warning_errno(ret, "cannot write the ownership record in %s", r->cfg.state_dir);
	return ret;
}

/* A freshly applied or adopted plan: the next status line and the next full
 * read-back are one interval away. */
static void arm_clocks(struct reconciler *r, uint64_t now)
{
	r->next_status_usec = now + r->cfg.status_interval_us;
	r->next_verify_usec = now + config_verify_interval_us(&r->cfg);
}

static void apply(struct reconciler *r, uint64_t now)
{
	int ret;

	(void)feed_goals(r, false);
	for (unsigned i = 0; i < r->plan->nr_kdamonds; i++) {
		ret = start_one(r, i, true);
		if (ret == -EBUSY) {
			(void)features_read_modules(r->root, &r->mods);
			snprintf(r->blocked_reason, sizeof(r->blocked_reason),
				 "kdamond %u: 'on' failed with EBUSY: %s", r->rec.first + i,
				 r->mods.mod[DAMON_MOD_STAT].enabled
					 ? "damon_stat was re-enabled"
					 : "another exclusive DAMON user (an in-kernel module or "
					   "sample) is running");
			stop_ours(r);
			r->state = RC_DISCOVER;
			block(r, now);
			return;
		}
		if (ret < 0) {
			log_error_errno(ret, "the kernel rejected kdamond %u (%s)", r->rec.first + i,
					r->io.failed_path);
			finish(r, EXIT_FAILURE_RUNTIME);
			return;
		}
	}
	save_record(r);
	r->attempts = 0;
	arm_clocks(r, now);
	if (r->dry_run || r->once) {
		finish(r, EXIT_OK);
		return;
	}
	status_ready("running");
	status_set("running %u kdamonds", r->plan->nr_kdamonds);
	r->state = RC_RUNNING;
}

/*
 * Keep the kdamonds of a previous run if they run the plan we would write
 * now (same hash, no drift); otherwise replace them from scratch.
 */
static void adopt(struct reconciler *r, uint64_t now)
{
	char what[512] = "";
	int drift = 0;

	r->adopting = false;
	if (plan_hash(r->plan) == r->rec.plan_hash)
		for (unsigned i = 0; i < r->plan->nr_kdamonds && drift == 0; i++)
			drift = damon_check_drift(&r->io, r->rec.first + i, &r->plan->kd[i], what,
						  sizeof(what));
	if (plan_hash(r->plan) != r->rec.plan_hash || drift != 0) {
		log_notice("kdamonds from a previous run do not match the current plan (%s); "
			   "replacing them", drift ? what : "plan changed");
		r->no_adopt = true;
		r->state = RC_DISCOVER;
		return;
	}
	for (unsigned i = 0; i < r->plan->nr_kdamonds; i++) {
		r->samples[i].valid = r->line_samples[i].valid = false;
		r->ctl_synced[i] = false;
		ctl_reset_gain(r, i);
		}
	log_info("adopted %u running kdamonds from a previous run (pids %" PRId64 "%s); plan unchanged",
		 r->rec.count, r->rec.pids[0], r->rec.count > 1 ? ", ..." : "");
	r->attempts = 0;
	arm_clocks(r, now);
	if (r->once) {
		finish(r, EXIT_OK);
		return;
	}
	status_ready("running");
	status_set("running %u kdamonds (adopted)", r->plan->nr_kdamonds);
	r->state = RC_RUNNING;
}

/* Pair each demote kdamond with the promote kdamond of the same two nodes. */
static void snapshot_boundaries(struct reconciler *r, struct status_snapshot *s, const double *rate,
				const bool *have)
{
	const struct plan *p = r->plan;
	bool done[PLAN_MAX_KDAMONDS] = {};

	for (unsigned i = 0; i < p->nr_kdamonds; i++) {
		struct status_boundary *b = &s->b[s->nr_boundaries];
		int pair[2] = { -1, -1 }; /* promote, demote */
		const struct numa_node *n;

		if (done[i])
			continue;
		done[i] = true;
		pair[p->kd[i].role == ROLE_PROMOTE ? 0 : 1] = (int)i;
		for (unsigned j = 0; j < p->nr_kdamonds; j++)
			if (!done[j] && p->kd[j].role != p->kd[i].role &&
			    p->kd[j].from_nid == p->kd[i].to_nid && p->kd[j].to_nid == p->kd[i].from_nid) {
				pair[p->kd[j].role == ROLE_PROMOTE ? 0 : 1] = (int)j;
				done[j] = true;
				break;
			}
		memset(b, 0, sizeof(*b));
		b->fast_nid = pair[0] >= 0 ? p->kd[pair[0]].to_nid : p->kd[pair[1]].from_nid;
		b->slow_nid = pair[0] >= 0 ? p->kd[pair[0]].from_nid : p->kd[pair[1]].to_nid;
		n = topology_node(r->topo, b->fast_nid);
		if (n) {
			b->fast_total = n->mem_total;
			b->fast_free = n->mem_free;
		}
		for (int k = 0; k < 2; k++) {
			struct status_direction *d = k == 0 ? &b->promote : &b->demote;
			int j = pair[k];

			if (j < 0)
				continue;
			d->present = true;
			d->kdamond = r->rec.first + (unsigned)j;
			d->pid = r->rec.pids[j];
			/* The effective goals, also when the daemon's controller
			 * uses them instead of kernel goals. */
			const struct plan_calibration *cal = plan_calibration_of(p, b->fast_nid);

			d->goal_bp = cal ? (k == 0 ? cal->eff_used_bp : cal->eff_free_bp)
					 : (unsigned)p->kd[j].scheme.goal.target_value;
			d->stats_valid = have[j];
			d->applied_bytes = r->stats[j].sz_applied;
			d->mib_s = rate[j];
			d->quota_bytes = r->stats[j].effective_bytes;
			d->sample_us = r->stats[j].sample_us;
		}
		s->nr_boundaries++;
	}
}

/*
 * Every period: refresh the stats, publish the status files, and at the
 * status interval log one line per boundary (rates since the last line).
 */
static void publish(struct reconciler *r, uint64_t now, bool running)
{
	static struct status_snapshot s;
	static char buf[16384];
	double rate[PLAN_MAX_KDAMONDS] = {0}, line_rate[PLAN_MAX_KDAMONDS] = {0};
	bool have[PLAN_MAX_KDAMONDS] = {0};
	bool line = running && now >= r->next_status_usec;
	struct timespec ts;
	char path[300];

	memset(&s, 0, sizeof(s));
	s.state = rc_state_name(r->state);
	if (r->state == RC_BLOCKED)
		snprintf(s.detail, sizeof(s.detail), "%s", r->blocked_reason);
	clock_gettime(CLOCK_REALTIME, &ts);
	s.realtime_usec = (uint64_t)ts.tv_sec * USEC_PER_SEC + (uint64_t)ts.tv_nsec / 1000;
	s.pid = getpid();
	features_format(&r->feat, s.features, sizeof(s.features));
	s.numa_balancing = r->numa_balancing_mode;
	s.damon_stat_paused = r->paused_damon_stat;
	s.repairs_total = r->repairs;
	s.errors_total = r->errors;
	for (unsigned i = 0; i < r->topo->nr_nodes && i < TOPO_MAX_NODES; i++) {
		if (r->tiers.rank[i] < 0)
			continue;
		s.nodes[s.nr_nodes].nid = r->topo->nodes[i].nid;
		s.nodes[s.nr_nodes].rank = r->tiers.rank[i];
		s.nodes[s.nr_nodes].has_cpu = r->topo->nodes[i].has_cpu;
		s.nodes[s.nr_nodes].total = r->topo->nodes[i].mem_total;
		s.nodes[s.nr_nodes].free = r->topo->nodes[i].mem_free;
		s.nr_nodes++;
	}
	/* refresh_ms alone leaves one kdamond's files stale for tens of
	 * seconds up to 6.17 (damon_set_quota): the status line, and in turn
	 * one kdamond per period, ask the kernel for fresh numbers. */
	if (running && r->plan->nr_kdamonds)
		r->publish_turn = (r->publish_turn + 1) % r->plan->nr_kdamonds;
	for (unsigned i = 0; running && i < r->plan->nr_kdamonds; i++) {
		bool refresh = !(r->feat.refresh_ms && r->plan->kd[i].refresh_ms > 0) || line ||
			       i == r->publish_turn;
		struct status_sample cur;

		if (damon_read_stats(&r->io, r->rec.first + i, r->plan->kd[i].intervals_goal, refresh,
				     &r->stats[i]) < 0) {
			r->errors++;
			continue;
		}
		have[i] = true;
		cur = (struct status_sample){ .sz_applied = r->stats[i].sz_applied, .at_usec = now,
					      .valid = true };
		rate[i] = status_rate_mib_s(&r->samples[i], &cur);
		r->samples[i] = cur;
		if (line) {
			line_rate[i] = status_rate_mib_s(&r->line_samples[i], &cur);
			r->line_samples[i] = cur;
		}
	}
	if (running)
		snapshot_boundaries(r, &s, rate, have);

	if (line) {
		for (unsigned i = 0; i < s.nr_boundaries; i++) {
			struct status_boundary lb = s.b[i];
			char text[512], f1[48];

			/* The log line reports the rates since the previous line. */
			lb.promote.mib_s = lb.promote.present ? line_rate[lb.promote.kdamond - r->rec.first] : 0;
			lb.demote.mib_s = lb.demote.present ? line_rate[lb.demote.kdamond - r->rec.first] : 0;
			if (status_format_line(&lb, text, sizeof(text)) < 0)
				continue;
			snprintf(f1, sizeof(f1), "DAMON_TIERD_FAST_NODE=%d", lb.fast_nid);
			log_full(LOG_INFO, 0, (const char *const[]){ "DAMON_TIERD_EVENT=status", f1, NULL },
				 "%s", text);
		}
		r->next_status_usec = now + r->cfg.status_interval_us;
	}

	if (r->dry_run)
		return;
	snprintf(path, sizeof(path), "%s/status.json", r->cfg.state_dir);
	if (status_format_json(&s, buf, sizeof(buf)) == 0)
		(void)status_write_file(path, buf, 0644);
	snprintf(path, sizeof(path), "%s/status.txt", r->cfg.state_dir);
	if (status_format_text(&s, buf, sizeof(buf)) == 0)
		(void)status_write_file(path, buf, 0644);
	if (r->cfg.prometheus_textfile[0]) {
		int ret = status_format_prometheus(&s, PACKAGE_VERSION, buf, sizeof(buf));

		if (ret == 0)
			ret = status_write_file(r->cfg.prometheus_textfile, buf, 0644);
		/* Metrics are a side channel: tiering goes on without them. */
		if (ret < 0 && ratelimit_below(&textfile_rl, now))
			log_warning_errno(ret, "cannot write the Prometheus textfile %s (daemon.prometheus_textfile; "
					  "its directory must exist and be writable, the unit needs ReadWritePaths= for it)",
					  r->cfg.prometheus_textfile);
	}
}

/* Update kdamond i's yield gain from its charge counters (copied by
 * refresh_ms, late on 6.17: counters that did not move keep the gain, and the
 * next move is measured over the whole span) and return it.  A read error or
 * counters that went back (a restart) only restart the measurement. */
static unsigned ctl_measure_gain(struct reconciler *r, unsigned i, uint64_t now)
{
	unsigned max = r->plan->kd[i].role == ROLE_PROMOTE ? QCTL_PROMOTE_GAIN_MAX : QCTL_DEMOTE_GAIN_MAX;
	uint64_t tried, applied;

	int ret = damon_read_charge(&r->io, r->rec.first + i, &tried, &applied);

	if (ret < 0) {
		r->ctl_tried[i] = UINT64_MAX;
		r->errors++;
		if (ratelimit_below(&control_rl, now))
			log_warning_errno(ret, "quota controller: cannot read %s; kdamond %u's quota keeps "
					  "its last yield gain", r->io.failed_path, r->rec.first + i);
		return r->ctl_gain[i];
	}
	if (r->ctl_tried[i] != UINT64_MAX && tried >= r->ctl_tried[i] && applied >= r->ctl_applied[i])
		r->ctl_gain[i] = qctl_gain_update(r->ctl_gain[i], tried - r->ctl_tried[i],
						  applied - r->ctl_applied[i], max);
	r->ctl_tried[i] = tried;
	r->ctl_applied[i] = applied;
	return r->ctl_gain[i];
}

uint64_t reconcile_control(struct reconciler *r, uint64_t now)
{
	bool any = false, retry = false;
	int ret;

	if (r->state != RC_RUNNING || r->dry_run)
		return QCTL_TICK_US;
	for (unsigned i = 0; i < r->plan->nr_kdamonds; i++)
		any |= r->plan->kd[i].scheme.daemon_quota;
	if (!any)
		return QCTL_TICK_US;
	ret = topology_refresh_meminfo(r->root, r->topo);
	if (ret < 0) {
		r->errors++;
		if (ratelimit_below(&control_rl, now))
			log_warning_errno(ret, "quota controller: cannot read the nodes' meminfo");
		return QCTL_TICK_US;
	}
	for (unsigned i = 0; i < r->plan->nr_kdamonds; i++) {
		struct plan_kdamond *kd = &r->plan->kd[i];
		bool promote = kd->role == ROLE_PROMOTE;
		int fast_nid = promote ? kd->to_nid : kd->from_nid;
		const struct plan_calibration *cal = plan_calibration_of(r->plan, fast_nid);
		const struct numa_node *n = topology_node(r->topo, fast_nid);
		uint64_t old = kd->scheme.quota_bytes, next;
		struct qctl_quota q;

		if (!kd->scheme.daemon_quota || !cal || !n)
			continue;
		qctl_compute(&cal->levels, n->mem_free, QCTL_TICK_US, &q);
		next = promote ? q.promote : q.demote;
		if (r->feat.refresh_ms && kd->refresh_ms > 0)
			next = qctl_gain_apply(next, ctl_measure_gain(r, i, now), cal->levels.cap);
		if (r->ctl_ticks[i] < UINT32_MAX)
			r->ctl_ticks[i]++;
		if (r->ctl_synced[i] && !qctl_should_commit(old, next, r->ctl_ticks[i]))
			continue;
		kd->scheme.quota_bytes = next;
		ret = damon_set_quota(&r->io, r->rec.first + i, kd);
		if (ret < 0) {
			/* The kernel keeps applying the old quota: retry soon
			 * (the next observe() repairs anything worse). */
			kd->scheme.quota_bytes = old;
			r->ctl_synced[i] = false;
			retry = true;
			r->errors++;
			if (ratelimit_below(&control_rl, now))
				log_warning_errno(ret, "quota controller: cannot commit kdamond %u's quota (%s)",
						  r->rec.first + i, r->io.failed_path);
			continue;
		}
		r->ctl_synced[i] = true;
		r->ctl_ticks[i] = 0;
		r->ctl_commits++;
		log_debug("quota controller: kdamond %u (%s) %" PRIu64 " -> %" PRIu64 " bytes per window "
			  "(node%d free %" PRIu64 " MiB)", r->rec.first + i, plan_role_name(kd->role), old, next,
			  fast_nid, n->mem_free >> 20);
	}
	return retry ? QCTL_RETRY_US : QCTL_TICK_US;
}

/* One period of RUNNING: observe, compare, and decide whether to repair. */
static void observe(struct reconciler *r, uint64_t now)
{
	/* Whether a kdamond runs costs two reads; reading back every planned
	 * file (~50 per kdamond) is the daemon's largest steady cost, and a
	 * foreign writer is rare: that waits for daemon.verify_interval. */
	bool need_repair = false, verify = now >= r->next_verify_usec;
	int ret;

	if (topology_refresh_meminfo(r->root, r->topo) == 0) {
		check_topology(r);
		if (r->state != RC_RUNNING)
			return;
	}
	ret = feed_goals(r, true);
	if (ret < 0 && ratelimit_below(&drift_rl, now))
		log_warning_errno(ret, "cannot feed the goal current values (%s)", r->io.failed_path);

	for (unsigned i = 0; i < r->plan->nr_kdamonds; i++) {
		unsigned idx = r->rec.first + i;
		struct kdamond_obs o;
		char what[512];

		ret = damon_read_kdamond(&r->io, idx, &o);
		if (ret < 0) {
			r->errors++;
			if (ratelimit_below(&drift_rl, now))
				log_warning_errno(ret, "cannot read %s", r->io.failed_path);
			continue;
		}
		if (!o.on) {
			log_warning("kdamond %u (%s node%d -> node%d) was found off (pid %" PRId64
				    " gone); restarting it", idx, plan_role_name(r->plan->kd[i].role),
				    r->plan->kd[i].from_nid, r->plan->kd[i].to_nid, r->rec.pids[i]);
			r->rec.pids[i] = -1;
			need_repair = true;
			continue;
		}
		if (o.pid != r->rec.pids[i]) {
			/* Someone else restarted it: it still runs our staged plan,
			 * adopt the new pid rather than fight. */
			log_warning("kdamond %u was restarted behind our back (pid %" PRId64
				    " -> %" PRId64 "); adopting it", idx, r->rec.pids[i], o.pid);
			r->rec.pids[i] = o.pid;
			save_record(r);
		}
		if (r->disarmed[i]) {
			need_repair = true;
			continue;
		}
		if (!verify)
			continue;
		ret = damon_check_drift(&r->io, idx, &r->plan->kd[i], what, sizeof(what));
		if (ret == 1) {
			log_warning("kdamond %u parameters drifted: %s; re-committing the plan", idx, what);
			need_repair = true;
		} else if (ret < 0 && ratelimit_below(&drift_rl, now)) {
			log_warning_errno(ret, "cannot read back %s", r->io.failed_path);
		}
	}
	if (verify)
		r->next_verify_usec = now + config_verify_interval_us(&r->cfg);
	if (need_repair)
		r->state = RC_REPAIR;
	publish(r, now, true);
}

static void repair(struct reconciler *r, uint64_t now)
{
	bool failed = false;
	int ret;

	for (unsigned i = 0; i < r->plan->nr_kdamonds; i++) {
		unsigned idx = r->rec.first + i;
		struct kdamond_obs o;
		char what[512];

		if (damon_read_kdamond(&r->io, idx, &o) < 0) {
			failed = true;
			continue;
		}
		if (!o.on) {
			ret = start_one(r, i, false);
			if (ret < 0) {
				log_warning_errno(ret, "cannot restart kdamond %u (%s)", idx,
						  r->io.failed_path);
				failed = true;
			} else {
				log_info("restarted kdamond %u (pid %" PRId64 ")", idx, r->rec.pids[i]);
			}
			continue;
		}
		/* A disarmed kdamond's files already hold the plan (damon_arm
		 * wrote them before its commit failed): no drift to see. */
		if (!r->disarmed[i] &&
		    damon_check_drift(&r->io, idx, &r->plan->kd[i], what, sizeof(what)) != 1)
			continue;
		ret = damon_commit(&r->io, idx, &r->plan->kd[i]);
		if (ret < 0) {
			log_warning_errno(ret, "cannot re-commit kdamond %u (%s)", idx, r->io.failed_path);
			failed = true;
		} else {
			log_info("re-committed the plan to kdamond %u%s", idx,
				 r->disarmed[i] ? " (armed its scheme)" : "");
			r->disarmed[i] = false;
		}
	}
	r->repairs++;
	save_record(r);
	if (failed) {
		r->errors++;
		r->attempts++;
		r->blocked_until_usec = now + reconcile_backoff_usec(r->attempts);
	} else {
		r->attempts = 0;
	}
	r->state = RC_RUNNING;
}

/* Parse into a new struct and validate; the running one is never touched.
 * As at start-up, nothing found on the search path means all defaults, and
 * a missing --config FILE is an error.  r->config_path NULL: the search path. */
static int load_new_config(struct reconciler *r, struct config *next)
{
	const struct config_sources src = { .main_file = r->config_path };
	struct config_error err = {};
	int ret;

	ret = config_load_sources(&src, next, NULL, &err);
	if (ret == 0)
		ret = config_validate(next, &err);
	if (ret < 0)
		log_error("reload rejected, the running configuration is kept: %s",
			  err.message[0] ? err.message : strerror(-ret));
	return ret;
}

/*
 * Make np the running plan: commit online what changed when the set of
 * kdamonds is the same, otherwise tear ours down and set up again.  A
 * commit the kernel rejects keeps that kdamond's previous parameters (the
 * kernel tests a commit on a scratch context first, so the running one is
 * unchanged).  `why` prefixes the log lines ("reload", "memory hotplug").
 * Takes ownership of np.
 */
static int switch_plan(struct reconciler *r, struct plan *np, const char *why)
{
	bool committed[PLAN_MAX_KDAMONDS] = { false };
	int ret = 0;

	if (!plan_same_shape(np, r->plan)) {
		log_notice("%s changes the set of kdamonds; restarting ours", why);
		stop_ours(r);
		free(np);
		r->state = RC_DISCOVER;
		return 0;
	}
	for (unsigned i = 0; i < np->nr_kdamonds; i++) {
		unsigned idx = r->rec.first + i;

		struct plan_scheme *ns = &np->kd[i].scheme;
		const struct plan_scheme *os = &r->plan->kd[i].scheme;

		/* The controller's state carries over; its next tick adjusts
		 * it to the new goals. */
		if (ns->daemon_quota && os->daemon_quota)
			ns->quota_bytes = os->quota_bytes < ns->quota_cap ? os->quota_bytes : ns->quota_cap;
		if (plan_kdamond_equal(&np->kd[i], &r->plan->kd[i]))
			continue;
		ns->goal.current_value = os->goal.current_value;
		ret = damon_commit(&r->io, idx, &np->kd[i]);
		if (ret < 0) {
			log_error_errno(ret, "%s: the kernel rejected the new parameters of kdamond %u "
					"(%s); keeping the previous configuration", why, idx,
					r->io.failed_path);
			/* All or nothing: the kdamonds already switched go back,
			 * the rejected one's staged files too. */
			(void)damon_stage(&r->io, idx, &r->plan->kd[i], true);
			for (unsigned j = 0; j < i; j++)
				if (committed[j] &&
				    damon_commit(&r->io, r->rec.first + j, &r->plan->kd[j]) < 0)
					log_warning("%s: cannot restore kdamond %u; the next period "
						    "repairs it", why, r->rec.first + j);
			free(np);
			r->errors++;
			r->state = RC_RUNNING;
			return ret;
		}
		committed[i] = true;
		log_info("%s: committed new parameters to kdamond %u", why, idx);
	}
	memcpy(r->plan, np, sizeof(*np));
	free(np);
	save_record(r);
	r->state = RC_RUNNING;
	return 0;
}

static void reload(struct reconciler *r, uint64_t now)
{
	struct config next;
	struct plan *np;

	status_reloading();
	np = malloc(sizeof(*np));
	if (!np || load_new_config(r, &next) < 0 || build_plan(r, &next, np) < 0) {
		if (!np)
			log_error("reload: out of memory; the running configuration is kept");
		free(np);
		status_ready("running (last reload rejected)");
		r->state = RC_RUNNING;
		return;
	}
	if (strcmp(next.state_dir, r->cfg.state_dir) != 0) {
		/* The record moves: set up from scratch. */
		stop_ours(r);
		(void)owner_remove(r->cfg.state_dir);
		r->owns = false;
		np->nr_kdamonds = 0; /* forces the restart below */
	}
	struct config prev = r->cfg;

	r->cfg = next;
	if (switch_plan(r, np, "reload") < 0) {
		r->cfg = prev;
		status_ready("running (last reload rejected by the kernel)");
		return;
	}
	/* A moved or disabled textfile would otherwise go on exporting the
	 * last values forever. */
	if (prev.prometheus_textfile[0] && strcmp(prev.prometheus_textfile, r->cfg.prometheus_textfile) != 0)
		(void)unlink(prev.prometheus_textfile);
	if (r->state == RC_RUNNING)
		log_plan(r, r->plan);
	log_info("configuration reloaded from %s",
		 r->config_path ? r->config_path : "the configuration files and drop-ins");
	status_ready("running");
	status_set("running %u kdamonds", r->plan->nr_kdamonds);
	r->next_status_usec = now;
}

/*
 * Memory hotplug changes a node's MemTotal (and block links): re-read the
 * topology and switch to the new plan, regions committed online.
 */
static void check_topology(struct reconciler *r)
{
	struct topology *nt;
	struct tier_map nm;
	struct plan *np;
	char err[512] = "";
	bool changed = false;
	int ret;

	for (unsigned i = 0; i < r->topo->nr_nodes; i++)
		if (r->topo->nodes[i].mem_total != r->plan_mem_total[i])
			changed = true;
	if (!changed)
		return;
	nt = malloc(sizeof(*nt));
	np = malloc(sizeof(*np));
	if (!nt || !np)
		goto out;
	ret = topology_read(r->root, nt, err, sizeof(err));
	if (ret < 0) {
		log_warning_errno(ret, "memory changed, but the topology cannot be read: %s", err);
		goto out;
	}
	ret = tiers_build(nt, &nm, err, sizeof(err));
	if (ret == -ENODEV) {
		/* Our kdamonds would watch memory that is gone. */
		log_notice("memory hotplug left nothing to tier (%s); stopping our kdamonds and exiting",
			   err);
		finish(r, EXIT_NOTHING_TO_TIER);
		goto out;
	}
	if (ret < 0) {
		log_warning_errno(ret, "memory changed, but the tiers cannot be rebuilt: %s", err);
		goto remember;
	}
	memcpy(r->topo, nt, sizeof(*nt));
	r->tiers = nm;
	if (build_plan(r, &r->cfg, np) < 0)
		goto remember;
	log_notice("node memory changed (memory hotplug); re-planning");
	(void)switch_plan(r, np, "memory hotplug");
	np = NULL;
remember:
	for (unsigned i = 0; i < r->topo->nr_nodes; i++)
		r->plan_mem_total[i] = r->topo->nodes[i].mem_total;
out:
	free(nt);
	free(np);
}

/*
 * Give back everything: our kdamonds off and their directories removed (the
 * kernel had none before us; nr_kdamonds is left alone if any kdamond still
 * runs), damon_stat and NUMA balancing as found, the record gone.
 */
static void release(struct reconciler *r)
{
	bool ours = r->owns && !r->dry_run;

	stop_ours(r);
	if (ours && damon_set_nr_kdamonds(&r->io, 0) < 0)
		log_debug("leaving nr_kdamonds as it is: a kdamond still runs");
	restore_damon_stat(r);
	restore_numa_balancing(r);
	if (ours)
		(void)owner_remove(r->cfg.state_dir);
	r->owns = false;
}

static void teardown(struct reconciler *r, uint64_t now)
{
	status_stopping();
	release(r);
	if (r->ctl_commits)
		log_info("quota controller: %" PRIu64 " quota commits in this run", r->ctl_commits);
	log_info("stopped; no kdamond of ours is running");
	r->state = RC_DONE;
	/* The last status says so, also to Prometheus (damon_tierd_running 0). */
	publish(r, now, false);
}

uint64_t reconcile_step(struct reconciler *r, uint64_t now)
{
	for (;;) {
		enum rc_state before = r->state;
		int ret;

		if (r->stop_requested && r->state != RC_DONE && r->state != RC_TEARDOWN) {
			r->stop_requested = false;
			r->state = RC_TEARDOWN;
		}
		if (r->reload_requested && (r->state == RC_RUNNING || r->state == RC_BLOCKED)) {
			r->reload_requested = false;
			r->state = r->state == RC_RUNNING ? RC_RELOAD : RC_BLOCKED;
			if (r->state == RC_BLOCKED) {
				/* Not running yet: just take the new config. */
				struct config next;

				if (load_new_config(r, &next) == 0) {
					r->cfg = next;
					log_info("configuration reloaded from %s", r->config_path ? r->config_path : "the search path");
				}
				status_ready("blocked");
			}
		}

		switch (r->state) {
		case RC_DISCOVER:
			ret = discover(r, now);
			if (ret < 0 && r->state == RC_DISCOVER) {
				snprintf(r->blocked_reason, sizeof(r->blocked_reason),
					 "setup failed (%s)", strerror(-ret));
				block(r, now);
			}
			break;
		case RC_PLAN:
			if (build_plan(r, &r->cfg, r->plan) < 0) {
				finish(r, EXIT_FAILURE_RUNTIME);
				break;
			}
			log_plan(r, r->plan);
			for (unsigned i = 0; i < r->topo->nr_nodes; i++)
				r->plan_mem_total[i] = r->topo->nodes[i].mem_total;
			r->state = RC_APPLY;
			if (r->adopting)
				adopt(r, now);
			break;
		case RC_APPLY:
			apply(r, now);
			break;
		case RC_RUNNING:
			if (now < r->blocked_until_usec)
				return r->blocked_until_usec - now;
			observe(r, now);
			if (r->state == RC_RUNNING)
				return r->cfg.interval_us;
			break;
		case RC_REPAIR:
			repair(r, now);
			return r->attempts ? r->blocked_until_usec - now : r->cfg.interval_us;
		case RC_BLOCKED:
			/* --once and --dry-run report and stop; the daemon waits. */
			if (r->once || r->dry_run) {
				finish(r, EXIT_CONFLICT);
				break;
			}
			if (now < r->blocked_until_usec)
				return r->blocked_until_usec - now;
			r->state = RC_DISCOVER;
			break;
		case RC_RELOAD:
			reload(r, now);
			break;
		case RC_TEARDOWN:
			teardown(r, now);
			break;
		case RC_DONE:
			return 0;
		}
		if (r->state != before)
			log_debug("state %s -> %s", rc_state_name(before), rc_state_name(r->state));
	}
}
