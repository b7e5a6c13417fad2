/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Every read of a tick.  Each part of the observation carries its own error,
 * so one unreadable file never hides the rest; what an error means is for
 * decide.c to say.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "observe.h"
#include "observe_cgroup.h"
#include "sysfs_io.h"

#define NUMA_BALANCING "proc/sys/kernel/numa_balancing"
#define DEMOTION_ENABLED "sys/kernel/mm/numa/demotion_enabled"

static void note_path(char *dst, const char *path)
{
	snprintf(dst, OBS_PATH_MAX, "%s", path);
}

static void observe_host(struct damon_io *io, const struct observe_request *rq,
			 struct observation *o)
{
	int r;

	o->have_record = rq->state_dir && owner_load(rq->state_dir, &o->record) == 0;
	r = features_read_modules(io->root, &o->mods);
	if (r < 0) {
		o->host_err = r;
		note_path(o->host_err_path, "/sys/module/damon_*/parameters/enabled");
		return;
	}
	o->damon_sysfs = io_exists(io->root, DAMON_KDAMONDS "/nr_kdamonds");
	if (!o->damon_sysfs)
		return;
	r = damon_read_nr_kdamonds(io, &o->nr_kdamonds);
	if (r < 0) {
		o->host_err = r;
		note_path(o->host_err_path, "/" DAMON_KDAMONDS "/nr_kdamonds");
		return;
	}
	for (unsigned i = 0; i < o->nr_kdamonds && i < OBS_MAX_KDAMONDS; i++) {
		struct kdamond_obs k;

		r = damon_read_kdamond(io, i, &k);
		if (r < 0) {
			o->all[i].err = r;
			o->host_err = r;
			note_path(o->host_err_path, io->failed_path);
			return;
		}
		o->all[i].on = k.on;
		o->all[i].pid = k.pid;
	}
}

static void observe_tunables(struct damon_io *io, struct observation *o)
{
	int64_t mode;

	o->numa_balancing = io_read_s64(io->root, NUMA_BALANCING, &mode) == 0 ? (int)mode : -1;
	if (io_read(io->root, DEMOTION_ENABLED, o->demotion_enabled, sizeof(o->demotion_enabled)) < 0)
		snprintf(o->demotion_enabled, sizeof(o->demotion_enabled), "unknown");
}

static void observe_topology(struct damon_io *io, const struct observe_request *rq,
			     struct observation *o)
{
	o->topo_err = topology_read(io->root, rq->topo, o->topo_why, sizeof(o->topo_why));
	if (o->topo_err)
		return;
	o->tiers_err = tiers_build(rq->topo, &o->tiers, o->topo_why, sizeof(o->topo_why));
}

/*
 * Without writing, features can be read from kdamond trees that are staged
 * already (ours, from a run that is still going) or, for a dry run, from the
 * kernel's BTF.  Failing both, a dry run says so and assumes everything.
 */
static void observe_features(struct damon_io *io, const struct observe_request *rq,
			     struct observation *o)
{
	char kd[64], why[128] = "no kernel BTF";
	int r;

	if (rq->probe_writes) {
		snprintf(kd, sizeof(kd), DAMON_KDAMONDS "/%u", rq->first);
		r = features_probe(io->root, kd, &o->feat);
		if (r < 0) {
			o->feat_err = r;
			snprintf(o->feat_err_path, sizeof(o->feat_err_path), "/%s", kd);
		}
		snprintf(o->feat_source, sizeof(o->feat_source), "probed in /%s", kd);
		return;
	}
	if (rq->count > 0) {
		r = features_probe_readonly(io->root, DAMON_KDAMONDS, rq->first + rq->count, &o->feat);
		snprintf(o->feat_source, sizeof(o->feat_source), "read from the staged kdamonds");
		if (r == 0)
			return;
		if (!rq->dry_run) {
			o->feat_err = r;
			note_path(o->feat_err_path, "/" DAMON_KDAMONDS);
			return;
		}
	}
	r = features_probe_btf(io->root, &o->feat, why, sizeof(why));
	if (r == 0) {
		snprintf(o->feat_source, sizeof(o->feat_source), "read from the kernel's BTF, "
			 "/sys/kernel/btf/vmlinux");
		return;
	}
	r = features_probe(io->root, NULL, &o->feat);
	if (r < 0) {
		o->feat_err = r;
		note_path(o->feat_err_path, "/" DAMON_ADMIN);
		return;
	}
	if (!o->feat.sysfs)
		return;
	/* Nothing to read them from: assume what the newest kernels have. */
	o->feat = (struct damon_features){
		.sysfs = true, .paddr = true, .migrate = true, .apply_interval = true,
		.quota_goals = true, .goal_metric = true, .effective_bytes = true,
		.node_metrics = true, .intervals_goal = true, .ops_filters = true,
		.filters = true, .filter_allow = true, .young_filter = true, .refresh_ms = true,
		.addr_unit = true, .goal_tuner = true, .memcg_goals = true, .fail_charge = true,
	};
	o->feat_assumed = true;
	snprintf(o->feat_source, sizeof(o->feat_source),
		 "assumed, as the newest kernels have them: no staged kdamond to read, and %s", why);
}

static void observe_meminfo(struct damon_io *io, const struct observe_request *rq,
			    struct observation *o)
{
	const struct topology *t = rq->topo;

	o->meminfo_err = topology_refresh_meminfo(io->root, rq->topo);
	if (o->meminfo_err)
		return;
	for (unsigned i = 0; i < t->nr_nodes && i < TOPO_MAX_NODES; i++) {
		o->mem[i].nid = t->nodes[i].nid;
		o->mem[i].total = t->nodes[i].mem_total;
		o->mem[i].free = t->nodes[i].mem_free;
	}
	o->nr_nodes = t->nr_nodes;
}

static void observe_ours(struct damon_io *io, const struct observe_request *rq,
			 struct observation *o)
{
	const struct plan *p = rq->plan;

	o->nr_ours = rq->count < PLAN_MAX_KDAMONDS ? rq->count : PLAN_MAX_KDAMONDS;
	for (unsigned i = 0; i < o->nr_ours; i++) {
		struct obs_ours *k = &o->ours[i];
		const struct plan_kdamond *kd = p && i < p->nr_kdamonds ? &p->kd[i] : NULL;
		unsigned idx = rq->first + i;
		struct kdamond_obs st;
		int r;

		if (rq->need & OBS_KDAMONDS) {
			r = damon_read_kdamond(io, idx, &st);
			k->st = (struct obs_kdamond){ .err = r, .on = r == 0 && st.on,
						      .pid = r == 0 ? st.pid : -1 };
			if (r < 0)
				note_path(k->failed_path, io->failed_path);
		}
		if (!kd)
			continue;
		/* An off kdamond has no stats to refresh: the repair comes first. */
		if ((rq->need & OBS_STATS) && !((rq->need & OBS_KDAMONDS) && (k->st.err || !k->st.on))) {
			k->stats_refreshed = kd->refresh_ms == 0 || (rq->refresh & (1u << i));
			k->stats_err = damon_read_stats(io, idx, kd->intervals_goal, k->stats_refreshed,
							&k->stats);
			if (k->stats_err && !k->failed_path[0])
				note_path(k->failed_path, io->failed_path);
		}
		/* Up to 6.17 refresh_ms copies one kdamond's counters per
		 * period (damon_set_quota): without a command the other's
		 * histogram would stay tens of seconds old.  Where each
		 * kdamond refreshes its own, the command would only cost a
		 * wait for the kdamond every tick. */
		if ((rq->need & OBS_CHARGE) && kd->hist.n) {
			bool cmd = !rq->dry_run && !(io->feat.refresh_each && kd->refresh_ms > 0);

			k->hist_err = damon_read_hist(io, idx, kd->hist.n, cmd, k->hist_tried,
						      &k->sample_us, &k->aggr_us);
			k->have_hist = k->hist_err == 0;
			if (k->hist_err && !k->failed_path[0])
				note_path(k->failed_path, io->failed_path);
		}
		/* refresh_ms keeps the charge counters current enough, and
		 * the histogram's command just refreshed them; without either
		 * (before 6.17) a command per tick does.  A dry run sends no
		 * command: what the files say is enough to show a plan. */
		if ((rq->need & OBS_CHARGE) && kd->scheme.daemon_quota &&
		    (kd->refresh_ms > 0 || k->have_hist || !rq->dry_run)) {
			bool cmd = kd->refresh_ms == 0 && !k->have_hist;

			k->charge_err = damon_read_charge(io, idx, cmd, &k->tried, &k->applied,
							  io->feat.filter_allow ? &k->passed : NULL);
			k->have_charge = k->charge_err == 0;
			k->have_passed = k->have_charge && io->feat.filter_allow;
			if (k->charge_err && !k->failed_path[0])
				note_path(k->failed_path, io->failed_path);
		}
		if (rq->need & OBS_VERIFY) {
			const struct obs_ctl *c = &rq->ctl[i];
			const bool own = kd->hist.n && c->check;
			static struct plan_kdamond ctl;

			/* The exchange's files hold what it last committed. */
			if (own)
				plan_kdamond_with_control(kd, c->nr_min, c->nr_max, c->young, &ctl);
			k->drift = damon_check_drift(io, idx, kd, own ? &ctl : NULL, k->drift_what,
						     sizeof(k->drift_what));
			if (k->drift < 0 && !k->failed_path[0])
				note_path(k->failed_path, io->failed_path);
		}
	}
}

void observe(struct damon_io *io, const struct observe_request *rq, struct observation *ret)
{
	uint64_t now = ret->now_usec;

	memset(ret, 0, sizeof(*ret));
	ret->now_usec = now;
	ret->got = rq->need;
	ret->numa_balancing = -1;
	if (rq->need & OBS_HOST)
		observe_host(io, rq, ret);
	if (rq->need & OBS_TUNABLES)
		observe_tunables(io, ret);
	if (rq->need & OBS_TOPOLOGY)
		observe_topology(io, rq, ret);
	if (rq->need & OBS_FEATURES)
		observe_features(io, rq, ret);
	if (rq->need & OBS_MEMINFO)
		observe_meminfo(io, rq, ret);
	if (rq->need & (OBS_KDAMONDS | OBS_STATS | OBS_CHARGE | OBS_VERIFY))
		observe_ours(io, rq, ret);
	if ((rq->need & OBS_CGROUPS) && rq->cfg)
		observe_cgroups(io->root, rq->cfg, rq->cg_hint, &ret->cg);
}
