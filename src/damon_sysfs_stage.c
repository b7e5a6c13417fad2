/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A plan_kdamond on disk: staging, commits and the drift check.  The plan is
 * first turned into an ordered list of (file, value) pairs; staging writes
 * the list, drift detection reads it back, so the two can never disagree on
 * what "the plan" means on disk.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cgroup_rules.h"
#include "damon_sysfs.h"
#include "damon_sysfs_internal.h"
#include "sysfs_io.h"

#define KD_FILES_MAX (96 + 2 * PLAN_MAX_RANGES + 16 * HOT_MAX_BUCKETS + 4 * PLAN_MAX_MEMCG + \
		      40 * CONFIG_MAX_CGROUPS)

enum {
	F_NR = 1 << 0,       /* nr_* file: write only when it differs */
	F_TUNED = 1 << 1,    /* auto-tuned by the kernel: not rewritten while running, not drift */
	F_FED = 1 << 2,      /* fed by the daemon every period: not drift */
	F_REFRESH = 1 << 3,  /* refresh_ms: written last, after a commit if intervals change */
	F_CTL = 1 << 4,      /* set at run time by the exchange: not drift; damon_set_control() */
};

struct kd_file {
	char path[192];   /* relative to the root, e.g. sys/kernel/mm/damon/admin/kdamonds/0/... */
	char value[CGROUP_NAME_MAX];   /* a memcg path at most */
	unsigned flags;
};

struct kd_files {
	char dir[64];     /* the kdamond directory every path starts with */
	unsigned n;
	struct kd_file f[KD_FILES_MAX];
};

static void add(struct kd_files *l, unsigned flags, const char *value, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void add(struct kd_files *l, unsigned flags, const char *value, const char *fmt, ...)
{
	struct kd_file *e;
	va_list ap;

	if (l->n >= KD_FILES_MAX)
		return; /* bounded by PLAN_MAX_RANGES; cannot happen */
	e = &l->f[l->n++];
	size_t off = strlen(l->dir);

	memcpy(e->path, l->dir, off);
	e->path[off++] = '/';
	va_start(ap, fmt);
	vsnprintf(e->path + off, sizeof(e->path) - off, fmt, ap);
	va_end(ap);
	snprintf(e->value, sizeof(e->value), "%s", value);
	e->flags = flags;
}

static const char *u64s(char *buf, uint64_t v)
{
	sprintf(buf, "%" PRIu64, v);
	return buf;
}

static const char *s64s(char *buf, int64_t v)
{
	sprintf(buf, "%" PRId64, v);
	return buf;
}

#define C "contexts/0/"
#define S C "schemes/0/"

/* Histogram scheme i (scheme 1 + i): `stat` on the regions whose count is
 * in bucket i, for every region (no quota, no filter, no goal), applied as
 * often as the migration scheme (hotness.h). */
static void add_hist_scheme(struct kd_files *l, const struct damon_features *f,
			    const struct plan_kdamond *kd, unsigned i)
{
	const unsigned n = 1 + i;
	char b[32];

	add(l, 0, "stat", C "schemes/%u/action", n);
	add(l, 0, "0", C "schemes/%u/access_pattern/sz/min", n);
	add(l, 0, u64s(b, UINT64_MAX), C "schemes/%u/access_pattern/sz/max", n);
	add(l, 0, u64s(b, kd->hist.lo[i]), C "schemes/%u/access_pattern/nr_accesses/min", n);
	add(l, 0, u64s(b, i + 1 < kd->hist.n ? kd->hist.lo[i + 1] - 1 : 4294967295u),
	    C "schemes/%u/access_pattern/nr_accesses/max", n);
	add(l, 0, "0", C "schemes/%u/access_pattern/age/min", n);
	add(l, 0, "4294967295", C "schemes/%u/access_pattern/age/max", n);
	if (f->apply_interval)
		add(l, 0, u64s(b, kd->scheme.apply_interval_us), C "schemes/%u/apply_interval_us", n);
	add(l, 0, "0", C "schemes/%u/quotas/ms", n);
	add(l, 0, "0", C "schemes/%u/quotas/bytes", n);
	if (f->quota_goals)
		add(l, F_NR, "0", C "schemes/%u/quotas/goals/nr_goals", n);
	add(l, 0, "none", C "schemes/%u/watermarks/metric", n);
	if (f->ops_filters) {
		add(l, F_NR, "0", C "schemes/%u/ops_filters/nr_filters", n);
		add(l, F_NR, "0", C "schemes/%u/core_filters/nr_filters", n);
	}
	if (f->filters)
		add(l, F_NR, "0", C "schemes/%u/filters/nr_filters", n);
}

/*
 * The filters of the scheme whose directory is sd ("contexts/0/schemes/N/"):
 * the memcg filters first, then the young filter, in one directory; the
 * others are emptied so a filter left behind by someone else cannot change
 * our scheme.  A memcg filter always rejects what it matches (allow N; before
 * 6.14 every filter does), so its meaning is the same on every kernel; what
 * the young filter lets through depends on the kernel (see below).
 */
static void add_filters(struct kd_files *l, const struct damon_features *f,
			const struct plan_scheme *s, const char *sd, unsigned ctl)
{
	const bool young = s->young_filter && s->filter_dir != FILTER_DIR_NONE;
	const unsigned nr = s->filter_dir == FILTER_DIR_NONE ? 0 : s->nr_memcg + young;
	const char *d = s->filter_dir == FILTER_DIR_OPS ? "ops_filters" : "filters";
	char b[32];

	if (f->ops_filters)
		add(l, F_NR | ctl, s->filter_dir == FILTER_DIR_OPS ? u64s(b, nr) : "0", "%sops_filters/nr_filters", sd);
	if (f->ops_filters)
		add(l, F_NR, "0", "%score_filters/nr_filters", sd);
	if (f->filters)
		add(l, F_NR | ctl, s->filter_dir == FILTER_DIR_LEGACY ? u64s(b, nr) : "0", "%sfilters/nr_filters", sd);
	if (nr == 0)
		return;
	for (unsigned i = 0; i < s->nr_memcg; i++) {
		add(l, ctl, "memcg", "%s%s/%u/type", sd, d, i);
		add(l, ctl, s->memcg[i].path, "%s%s/%u/memcg_path", sd, d, i);
		add(l, ctl, s->memcg[i].matching ? "Y" : "N", "%s%s/%u/matching", sd, d, i);
		if (f->filter_allow)
			add(l, ctl, "N", "%s%s/%u/allow", sd, d, i);
	}
	if (!young)
		return;
	add(l, ctl, "young", "%s%s/%u/type", sd, d, s->nr_memcg);
	if (f->filter_allow) {
		add(l, ctl, "Y", "%s%s/%u/matching", sd, d, s->nr_memcg);
		add(l, ctl, s->young_allow ? "Y" : "N", "%s%s/%u/allow", sd, d, s->nr_memcg);
	} else {
		/* Before 6.14 every filter rejects what it matches:
		 * "allow only young" is "reject the not-young". */
		add(l, ctl, s->young_allow ? "N" : "Y", "%s%s/%u/matching", sd, d, s->nr_memcg);
	}
}

/* quotas/fail_charge_{num,denom} where the kernel has them, 0/0 included,
 * so that a commit also turns a charge off. */
static void add_fail_charge(struct kd_files *l, const struct damon_features *f, unsigned num,
			    unsigned denom, const char *sd)
{
	char b[32];

	if (!f->fail_charge)
		return;
	add(l, 0, u64s(b, num), "%squotas/fail_charge_num", sd);
	add(l, 0, u64s(b, denom), "%squotas/fail_charge_denom", sd);
}

/* Cgroup scheme i (scheme 1 + hist.n + i, cgroup_rules.h): the migration
 * scheme's action, pattern (its access bounds as planned, which the
 * exchange leaves alone) and window, only the cgroup's pages (a memcg
 * filter rejecting every other page, then the young filter), and its goal.
 * Unarmed or disarmed it matches no region. */
static void add_cg_scheme(struct kd_files *l, const struct damon_features *f,
			  const struct plan_kdamond *kd, unsigned i, bool disarm)
{
	const struct plan_cg_scheme *g = &kd->cg[i];
	const struct plan_scheme *m = &kd->scheme;
	struct plan_scheme s;
	char sd[48], b[32];

	snprintf(sd, sizeof(sd), "contexts/0/schemes/%u/", 1 + kd->hist.n + i);
	add(l, 0, m->action, "%saction", sd);
	add(l, 0, s64s(b, m->target_nid), "%starget_nid", sd);
	add(l, 0, u64s(b, m->sz_min), "%saccess_pattern/sz/min", sd);
	add(l, 0, u64s(b, m->sz_max), "%saccess_pattern/sz/max", sd);
	add(l, 0, u64s(b, g->nr_accesses_min), "%saccess_pattern/nr_accesses/min", sd);
	add(l, 0, u64s(b, g->nr_accesses_max), "%saccess_pattern/nr_accesses/max", sd);
	add(l, 0, u64s(b, disarm || !g->armed ? DAMON_AGE_NEVER : m->age_min), "%saccess_pattern/age/min", sd);
	add(l, 0, u64s(b, m->age_max), "%saccess_pattern/age/max", sd);
	if (f->apply_interval)
		add(l, 0, u64s(b, m->apply_interval_us), "%sapply_interval_us", sd);
	add(l, 0, u64s(b, m->quota_ms), "%squotas/ms", sd);
	add(l, 0, u64s(b, g->armed ? g->quota_bytes : 1), "%squotas/bytes", sd);
	add(l, 0, u64s(b, m->quota_reset_ms), "%squotas/reset_interval_ms", sd);
	add(l, 0, u64s(b, m->weight_sz), "%squotas/weights/sz_permil", sd);
	add(l, 0, u64s(b, m->weight_nr_accesses), "%squotas/weights/nr_accesses_permil", sd);
	add(l, 0, u64s(b, m->weight_age), "%squotas/weights/age_permil", sd);
	if (f->quota_goals) {
		add(l, F_NR, g->goal.enabled ? "1" : "0", "%squotas/goals/nr_goals", sd);
		if (g->goal.enabled) {
			if (f->goal_metric)
				add(l, 0, goal_metric_name(g->goal.metric), "%squotas/goals/0/target_metric", sd);
			if (f->node_metrics)
				add(l, 0, s64s(b, g->goal.nid), "%squotas/goals/0/nid", sd);
			if (g->goal.metric == GOAL_NODE_MEMCG_USED_BP)
				add(l, 0, g->goal.path, "%squotas/goals/0/path", sd);
			add(l, 0, u64s(b, g->goal.target_value), "%squotas/goals/0/target_value", sd);
			add(l, F_FED, u64s(b, g->goal.current_value), "%squotas/goals/0/current_value", sd);
		}
		if (f->goal_tuner && g->goal.enabled)
			add(l, 0, "consist", "%squotas/goal_tuner", sd);
	}
	/* Its memcg filter rejects every other cgroup's pages. */
	add_fail_charge(l, f, g->armed ? CGROUP_FAIL_CHARGE_NUM : 0,
			g->armed ? CGROUP_FAIL_CHARGE_DENOM : 0, sd);
	add(l, 0, "none", "%swatermarks/metric", sd);
	/* The filters of a scheme like the migration scheme, but for one
	 * memcg filter that matches everyone else's pages. */
	memset(&s, 0, sizeof(s));
	s.young_filter = g->young_filter;
	s.young_allow = true;
	s.filter_dir = g->armed ? (f->ops_filters ? FILTER_DIR_OPS : FILTER_DIR_LEGACY) : FILTER_DIR_NONE;
	if (g->armed) {
		s.nr_memcg = 1;
		memcpy(s.memcg[0].path, g->path, sizeof(s.memcg[0].path));
		s.memcg[0].matching = false;
	}
	add_filters(l, f, &s, sd, 0);
}

/* The kernel's order: every nr_* before its children (writing an nr_* file
 * replaces all of its children with fresh defaults). */
static void kd_files_build(unsigned idx, const struct plan_kdamond *kd,
			   const struct damon_features *f, bool disarm, struct kd_files *l)
{
	const struct plan_scheme *s = &kd->scheme;
	/* The exchange sets the thresholds and the young filter at run time. */
	const unsigned ctl = kd->hist.n ? F_CTL : 0;
	char b[32];

	l->n = 0;
	snprintf(l->dir, sizeof(l->dir), DAMON_KDAMONDS "/%u", idx);
	add(l, F_NR, "1", "contexts/nr_contexts");
	add(l, 0, "paddr", C "operations");
	add(l, F_TUNED * kd->intervals_goal, u64s(b, kd->sample_us), C "monitoring_attrs/intervals/sample_us");
	add(l, F_TUNED * kd->intervals_goal, u64s(b, kd->aggr_us), C "monitoring_attrs/intervals/aggr_us");
	add(l, 0, u64s(b, kd->update_us), C "monitoring_attrs/intervals/update_us");
	if (f->intervals_goal) {
		const char *g = C "monitoring_attrs/intervals/intervals_goal/";

		add(l, 0, u64s(b, kd->intervals_goal ? kd->ig_access_bp : 0), "%saccess_bp", g);
		add(l, 0, u64s(b, kd->intervals_goal ? kd->ig_aggrs : 0), "%saggrs", g);
		add(l, 0, u64s(b, kd->intervals_goal ? kd->ig_min_sample_us : 0), "%smin_sample_us", g);
		add(l, 0, u64s(b, kd->intervals_goal ? kd->ig_max_sample_us : 0), "%smax_sample_us", g);
	}
	add(l, 0, u64s(b, kd->min_nr_regions), C "monitoring_attrs/nr_regions/min");
	add(l, 0, u64s(b, kd->max_nr_regions), C "monitoring_attrs/nr_regions/max");

	add(l, F_NR, "1", C "targets/nr_targets");
	add(l, F_NR, u64s(b, kd->nr_ranges), C "targets/0/regions/nr_regions");
	for (unsigned i = 0; i < kd->nr_ranges; i++) {
		add(l, 0, u64s(b, kd->ranges[i].start), C "targets/0/regions/%u/start", i);
		add(l, 0, u64s(b, kd->ranges[i].end), C "targets/0/regions/%u/end", i);
	}

	add(l, F_NR, u64s(b, 1 + kd->hist.n + kd->nr_cg), C "schemes/nr_schemes");
	add(l, 0, s->action, S "action");
	add(l, 0, s64s(b, s->target_nid), S "target_nid");
	add(l, 0, u64s(b, s->sz_min), S "access_pattern/sz/min");
	add(l, 0, u64s(b, s->sz_max), S "access_pattern/sz/max");
	add(l, ctl, u64s(b, s->nr_accesses_min), S "access_pattern/nr_accesses/min");
	add(l, ctl, u64s(b, s->nr_accesses_max), S "access_pattern/nr_accesses/max");
	/* Disarmed: no region is ever this old, so the scheme matches none
	 * (see damon_start). */
	add(l, 0, u64s(b, disarm ? DAMON_AGE_NEVER : s->age_min), S "access_pattern/age/min");
	add(l, 0, u64s(b, s->age_max), S "access_pattern/age/max");
	if (f->apply_interval)
		add(l, 0, u64s(b, s->apply_interval_us), S "apply_interval_us");
	add(l, 0, u64s(b, s->quota_ms), S "quotas/ms");
	/* The daemon's controller rewrites it as the fast node fills. */
	add(l, s->daemon_quota ? F_FED | ctl : 0, u64s(b, s->quota_bytes), S "quotas/bytes");
	add(l, 0, u64s(b, s->quota_reset_ms), S "quotas/reset_interval_ms");
	add(l, 0, u64s(b, s->weight_sz), S "quotas/weights/sz_permil");
	add(l, 0, u64s(b, s->weight_nr_accesses), S "quotas/weights/nr_accesses_permil");
	add(l, 0, u64s(b, s->weight_age), S "quotas/weights/age_permil");
	if (f->quota_goals) {
		add(l, F_NR, s->goal.enabled ? "1" : "0", S "quotas/goals/nr_goals");
		if (s->goal.enabled) {
			if (f->goal_metric)
				add(l, 0, goal_metric_name(s->goal.metric), S "quotas/goals/0/target_metric");
			if (f->node_metrics)
				add(l, 0, s64s(b, s->goal.nid), S "quotas/goals/0/nid");
			if (s->goal.metric == GOAL_NODE_MEMCG_USED_BP)
				add(l, 0, s->goal.path, S "quotas/goals/0/path");
			add(l, 0, u64s(b, s->goal.target_value), S "quotas/goals/0/target_value");
			add(l, F_FED, u64s(b, s->goal.current_value), S "quotas/goals/0/current_value");
		}
		if (f->goal_tuner && s->goal.enabled)
			add(l, 0, s->goal_temporal ? "temporal" : "consist", S "quotas/goal_tuner");
	}
	add_fail_charge(l, f, s->fail_charge_num, s->fail_charge_denom, S);
	add(l, 0, "none", S "watermarks/metric");

	add_filters(l, f, s, S, ctl);
	for (unsigned i = 0; i < kd->hist.n; i++)
		add_hist_scheme(l, f, kd, i);
	for (unsigned i = 0; i < kd->nr_cg; i++)
		add_cg_scheme(l, f, kd, i, disarm);
	if (f->refresh_ms)
		add(l, F_REFRESH, u64s(b, kd->refresh_ms), "refresh_ms");
}

#undef S
#undef C

/* Write one entry; an unchanged nr_* is left alone, since rewriting it
 * would wipe its children. */
static int write_entry(struct damon_io *io, const struct kd_file *e)
{
	char cur[64];

	if ((e->flags & F_NR) && !io->dry_run &&
	    io_read(io->root, e->path, cur, sizeof(cur)) >= 0 && strcmp(cur, e->value) == 0)
		return 0;
	return damon_write_retry(io, e->path, e->value);
}

/* A commit that keeps the tuned intervals (see damon_commit_scheme_file). */
static int commit_keeping_tuning(struct damon_io *io, unsigned idx, const struct plan_kdamond *kd)
{
	int r;

	if (kd->intervals_goal) {
		r = damon_state_cmd(io, idx, "update_tuned_intervals");
		if (r < 0)
			return r;
	}
	return damon_commit_cmd(io, idx);
}

/* With hold (damon_commit only), refresh_ms is left at 0 when intervals are
 * written, for the caller to turn back on after the commit. */
static int stage(struct damon_io *io, unsigned idx, const struct plan_kdamond *kd, bool running,
		 bool hold, bool disarm)
{
	static struct kd_files l;
	bool keep_tuned = false, hold_refresh = false;
	int r;

	kd_files_build(idx, kd, &io->feat, disarm, &l);
	if (running && kd->intervals_goal && !io->dry_run) {
		char path[192];
		uint64_t sample;

		/* Fetch the tuned values first, or the commit resets them
		 * (see damon_set_quota: refresh_ms alone is not enough). */
		r = damon_state_cmd(io, idx, "update_tuned_intervals");
		if (r < 0)
			return r;
		snprintf(path, sizeof(path), "%s/contexts/0/monitoring_attrs/intervals/sample_us", l.dir);
		/* Keep the tuning unless the new bounds exclude it (the kernel
		 * would reject sample_us outside [min, max]). */
		keep_tuned = io_read_u64(io->root, path, &sample) == 0 &&
			     sample >= kd->ig_min_sample_us && sample <= kd->ig_max_sample_us;
		/* The kernel's periodic refresh would overwrite the intervals
		 * we stage before the commit reads them: pause it until
		 * damon_commit() has committed. */
		if (!keep_tuned && io->feat.refresh_ms && hold) {
			snprintf(path, sizeof(path), "%s/refresh_ms", l.dir);
			r = damon_write_retry(io, path, "0");
			if (r < 0)
				return r;
			hold_refresh = true;
		}
	}
	for (unsigned i = 0; i < l.n; i++) {
		const struct kd_file *e = &l.f[i];

		if (keep_tuned && (e->flags & F_TUNED))
			continue;
		if (hold_refresh && (e->flags & F_REFRESH))
			continue;
		r = write_entry(io, e);
		if (r < 0)
			return r;
	}
	return 0;
}

int damon_stage(struct damon_io *io, unsigned idx, const struct plan_kdamond *kd, bool running)
{
	return stage(io, idx, kd, running, false, false);
}

int damon_stage_disarmed(struct damon_io *io, unsigned idx, const struct plan_kdamond *kd)
{
	return stage(io, idx, kd, false, false, true);
}

int damon_write_cg_arms(struct damon_io *io, unsigned idx, const struct plan_kdamond *kd)
{
	for (unsigned i = 0; i < kd->nr_cg; i++) {
		char path[192], v[32];
		int r;

		if (!kd->cg[i].armed)
			continue;
		r = io_path(path, sizeof(path), DAMON_KDAMONDS "/%u/contexts/0/schemes/%u/access_pattern/age/min",
			    idx, 1 + kd->hist.n + i);
		if (r < 0)
			return r;
		snprintf(v, sizeof(v), "%" PRIu64, kd->scheme.age_min);
		r = damon_write_retry(io, path, v);
		if (r < 0)
			return r;
	}
	return 0;
}

int damon_commit(struct damon_io *io, unsigned idx, const struct plan_kdamond *kd)
{
	char path[160], v[32];
	int r;

	r = stage(io, idx, kd, true, true, false);
	if (r == 0)
		r = damon_commit_cmd(io, idx);
	if (io->feat.refresh_ms) {
		/* Whatever happened, refresh goes back on (it is read live). */
		int q;

		snprintf(path, sizeof(path), DAMON_KDAMONDS "/%u/refresh_ms", idx);
		snprintf(v, sizeof(v), "%" PRIu64, kd->refresh_ms);
		q = damon_write_retry(io, path, v);
		if (r == 0)
			r = q;
	}
	return r;
}

/* Write value to the file rel of kdamond idx's scheme, retrying EBUSY. */
static int write_scheme_u64(struct damon_io *io, unsigned idx, const char *rel, uint64_t value)
{
	char path[192], v[32];
	int r;

	r = io_path(path, sizeof(path), DAMON_KDAMONDS "/%u/contexts/0/schemes/0/%s", idx, rel);
	if (r < 0)
		return r;
	snprintf(v, sizeof(v), "%" PRIu64, value);
	return damon_write_retry(io, path, v);
}

int damon_commit_scheme_file(struct damon_io *io, unsigned idx, const struct plan_kdamond *kd,
			     const char *rel, uint64_t value)
{
	int r;

	r = write_scheme_u64(io, idx, rel, value);
	if (r < 0)
		return r;
	/* A commit re-applies the interval files when they differ from the
	 * running ones, which resets the tuning, so fetch the tuned ones first.
	 * refresh_ms does not keep them current: up to 6.17 its deadline is
	 * one for all kdamonds, so each period refreshes only the kdamond that
	 * polls first, the one sampling fastest, and in the VM the promotion
	 * kdamond's files were 20 s old (7.3 keeps a deadline per kdamond). */
	return commit_keeping_tuning(io, idx, kd);
}

int damon_set_control(struct damon_io *io, unsigned idx, const struct plan_kdamond *kd)
{
	static struct kd_files l;
	int r;

	kd_files_build(idx, kd, &io->feat, false, &l);
	for (unsigned i = 0; i < l.n; i++) {
		if (!(l.f[i].flags & F_CTL))
			continue;
		r = write_entry(io, &l.f[i]);
		if (r < 0)
			return r;
	}
	return commit_keeping_tuning(io, idx, kd);
}

int damon_set_quota(struct damon_io *io, unsigned idx, const struct plan_kdamond *kd)
{
	return damon_commit_scheme_file(io, idx, kd, "quotas/bytes", kd->scheme.quota_bytes);
}

int damon_feed_goal(struct damon_io *io, unsigned idx, unsigned scheme, uint64_t current_value)
{
	char path[192], v[32];
	int r;

	r = io_path(path, sizeof(path), DAMON_KDAMONDS "/%u/contexts/0/schemes/%u/quotas/goals/0/current_value",
		    idx, scheme);
	if (r < 0)
		return r;
	snprintf(v, sizeof(v), "%" PRIu64, current_value);
	r = damon_write_retry(io, path, v);
	if (r < 0)
		return r;
	return damon_state_cmd(io, idx, "commit_schemes_quota_goals");
}

int damon_check_drift(struct damon_io *io, unsigned idx, const struct plan_kdamond *kd,
		      const struct plan_kdamond *ctl, char *what, size_t whatlen)
{
	static struct kd_files l;
	char cur[64];
	int r;

	kd_files_build(idx, ctl ? ctl : kd, &io->feat, false, &l);
	for (unsigned i = 0; i < l.n; i++) {
		const struct kd_file *e = &l.f[i];

		if ((e->flags & (F_TUNED | F_FED)) || ((e->flags & F_CTL) && !ctl))
			continue;
		r = damon_read_retry(io, e->path, cur, sizeof(cur));
		if (r == -ENOENT) {
			/* A parent nr_* was rewritten: the whole subtree is gone. */
			snprintf(what, whatlen, "/%s is missing (expected \"%s\")", e->path, e->value);
			return 1;
		}
		if (r < 0)
			return r;
		if (strcmp(cur, e->value) != 0) {
			snprintf(what, whatlen, "/%s is \"%s\", expected \"%s\"", e->path, cur, e->value);
			return 1;
		}
	}
	return 0;
}
