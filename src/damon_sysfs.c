/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The DAMON sysfs writer/reader.  A plan_kdamond is first turned into an
 * ordered list of (file, value) pairs; staging writes the list, drift
 * detection reads it back, so the two can never disagree on what "the plan"
 * means on disk.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "damon_sysfs.h"
#include "log.h"
#include "sysfs_io.h"

#define KD_FILES_MAX (96 + 2 * PLAN_MAX_RANGES)

enum {
	F_NR = 1 << 0,       /* nr_* file: write only when it differs */
	F_TUNED = 1 << 1,    /* auto-tuned by the kernel: not rewritten while running, not drift */
	F_FED = 1 << 2,      /* fed by the daemon every period: not drift */
	F_REFRESH = 1 << 3,  /* refresh_ms: written last, after a commit if intervals change */
};

struct kd_file {
	char path[192];   /* relative to the root, e.g. sys/kernel/mm/damon/admin/kdamonds/0/... */
	char value[32];
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

/* The kernel's order: every nr_* before its children (writing an nr_* file
 * replaces all of its children with fresh defaults). */
static void kd_files_build(unsigned idx, const struct plan_kdamond *kd,
			   const struct damon_features *f, bool disarm, struct kd_files *l)
{
	const struct plan_scheme *s = &kd->scheme;
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

	add(l, F_NR, "1", C "schemes/nr_schemes");
	add(l, 0, s->action, S "action");
	add(l, 0, s64s(b, s->target_nid), S "target_nid");
	add(l, 0, u64s(b, s->sz_min), S "access_pattern/sz/min");
	add(l, 0, u64s(b, s->sz_max), S "access_pattern/sz/max");
	add(l, 0, u64s(b, s->nr_accesses_min), S "access_pattern/nr_accesses/min");
	add(l, 0, u64s(b, s->nr_accesses_max), S "access_pattern/nr_accesses/max");
	/* Disarmed: no region is ever this old, so the scheme matches none
	 * (see damon_start). */
	add(l, 0, u64s(b, disarm ? DAMON_AGE_NEVER : s->age_min), S "access_pattern/age/min");
	add(l, 0, u64s(b, s->age_max), S "access_pattern/age/max");
	if (f->apply_interval)
		add(l, 0, u64s(b, s->apply_interval_us), S "apply_interval_us");
	add(l, 0, u64s(b, s->quota_ms), S "quotas/ms");
	/* The daemon's controller rewrites it as the fast node fills. */
	add(l, s->daemon_quota ? F_FED : 0, u64s(b, s->quota_bytes), S "quotas/bytes");
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
			add(l, 0, u64s(b, s->goal.target_value), S "quotas/goals/0/target_value");
			add(l, F_FED, u64s(b, s->goal.current_value), S "quotas/goals/0/current_value");
		}
	}
	add(l, 0, "none", S "watermarks/metric");

	/* Only one filter directory carries our filter; the others are emptied
	 * so a filter left behind by someone else cannot change our scheme. */
	if (f->ops_filters)
		add(l, F_NR, s->filter_dir == FILTER_DIR_OPS ? "1" : "0", S "ops_filters/nr_filters");
	if (f->ops_filters)
		add(l, F_NR, "0", S "core_filters/nr_filters");
	if (f->filters)
		add(l, F_NR, s->filter_dir == FILTER_DIR_LEGACY ? "1" : "0", S "filters/nr_filters");
	if (s->filter_dir != FILTER_DIR_NONE) {
		const char *d = s->filter_dir == FILTER_DIR_OPS ? "ops_filters" : "filters";

		add(l, 0, "young", S "%s/0/type", d);
		if (f->filter_allow) {
			add(l, 0, "Y", S "%s/0/matching", d);
			add(l, 0, s->young_allow ? "Y" : "N", S "%s/0/allow", d);
		} else {
			/* Before 6.14 every filter rejects what it matches:
			 * "allow only young" is "reject the not-young". */
			add(l, 0, s->young_allow ? "N" : "Y", S "%s/0/matching", d);
		}
	}
	if (f->refresh_ms)
		add(l, F_REFRESH, u64s(b, kd->refresh_ms), "refresh_ms");
}

#undef S
#undef C

void damon_io_init(struct damon_io *io, int root)
{
	memset(io, 0, sizeof(*io));
	io->root = root;
	io->busy_retries = 10;
	io->busy_base_us = 1000;
}

int damon_kdamond_dir(unsigned idx, char *buf, size_t size)
{
	return io_path(buf, size, DAMON_KDAMONDS "/%u", idx);
}

static void do_sleep(struct damon_io *io, uint64_t usec)
{
	struct timespec ts = { .tv_sec = (time_t)(usec / 1000000),
			       .tv_nsec = (long)(usec % 1000000) * 1000 };

	if (io->sleep_us) {
		io->sleep_us(usec, io->sleep_userdata);
		return;
	}
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/*
 * DAMON's sysfs lock is taken with trylock: a concurrent writer (another
 * tool, or the kdamond's own refresh) makes lock-taking files fail at once
 * with EBUSY.  That is transient; retry with doubling delays, then give up
 * with one message.
 */
static int write_retry(struct damon_io *io, const char *path, const char *value)
{
	uint64_t delay = io->busy_base_us, waited = 0;
	int r;

	if (io->dry_run) {
		fprintf(io->dry_run, "write /%s %s\n", path, value);
		return 0;
	}
	for (unsigned attempt = 0;; attempt++) {
		r = io_write(io->root, path, value);
		if (r != -EBUSY || attempt >= io->busy_retries)
			break;
		do_sleep(io, delay);
		waited += delay;
		delay *= 2;
	}
	if (r < 0)
		snprintf(io->failed_path, sizeof(io->failed_path), "/%s", path);
	if (r == -EBUSY && io->busy_retries > 0)
		log_warning("/%s: still busy after %u retries over %" PRIu64 " ms (writing \"%s\"); "
			    "another DAMON sysfs user holds the lock", path, io->busy_retries,
			    waited / 1000, value);
	return r;
}

static int read_retry(struct damon_io *io, const char *path, char *buf, size_t size)
{
	uint64_t delay = io->busy_base_us;
	int r;

	for (unsigned attempt = 0;; attempt++) {
		r = io_read(io->root, path, buf, size);
		if (r != -EBUSY || attempt >= io->busy_retries)
			break;
		do_sleep(io, delay);
		delay *= 2;
	}
	if (r < 0)
		snprintf(io->failed_path, sizeof(io->failed_path), "/%s", path);
	return r;
}

int damon_read_nr_kdamonds(struct damon_io *io, unsigned *ret)
{
	char v[32];
	uint64_t n;
	int r;

	r = read_retry(io, DAMON_KDAMONDS "/nr_kdamonds", v, sizeof(v));
	if (r < 0)
		return r;
	if (sscanf(v, "%" SCNu64, &n) != 1 || n > 1u << 16)
		return -EINVAL;
	*ret = (unsigned)n;
	return 0;
}

int damon_read_kdamond(struct damon_io *io, unsigned idx, struct kdamond_obs *ret)
{
	char dir[128], path[160], v[32];
	struct kdamond_obs o = {};
	int64_t pid;
	int r;

	r = damon_kdamond_dir(idx, dir, sizeof(dir));
	if (r < 0)
		return r;
	snprintf(path, sizeof(path), "%s/state", dir);
	r = read_retry(io, path, v, sizeof(v));
	if (r < 0)
		return r;
	if (strcmp(v, "on") == 0)
		o.on = true;
	else if (strcmp(v, "off") != 0)
		return -EINVAL;
	snprintf(path, sizeof(path), "%s/pid", dir);
	r = read_retry(io, path, v, sizeof(v));
	if (r < 0)
		return r;
	if (sscanf(v, "%" SCNd64, &pid) != 1)
		return -EINVAL;
	o.pid = pid;
	*ret = o;
	return 0;
}

int damon_set_nr_kdamonds(struct damon_io *io, unsigned n)
{
	unsigned cur;
	char v[16];
	int r;

	snprintf(v, sizeof(v), "%u", n);
	if (io->dry_run)
		return write_retry(io, DAMON_KDAMONDS "/nr_kdamonds", v);
	r = damon_read_nr_kdamonds(io, &cur);
	if (r < 0)
		return r;
	/* Belt and braces: the kernel refuses this while any kdamond runs,
	 * but we check ourselves so a buggy caller can never wipe one. */
	for (unsigned i = 0; i < cur; i++) {
		struct kdamond_obs o;

		r = damon_read_kdamond(io, i, &o);
		if (r < 0)
			return r;
		if (o.on)
			return -EBUSY;
	}
	return write_retry(io, DAMON_KDAMONDS "/nr_kdamonds", v);
}

/* With hold (damon_commit only), refresh_ms is left at 0 when intervals are
 * written, for the caller to turn back on after the commit. */
static int stage(struct damon_io *io, unsigned idx, const struct plan_kdamond *kd, bool running,
		 bool hold, bool disarm)
{
	static struct kd_files l;
	bool keep_tuned = false, hold_refresh = false;
	char cur[64];
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
			r = write_retry(io, path, "0");
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
		/* Rewriting an unchanged nr_* would wipe its children. */
		if ((e->flags & F_NR) && !io->dry_run &&
		    io_read(io->root, e->path, cur, sizeof(cur)) >= 0 && strcmp(cur, e->value) == 0)
			continue;
		r = write_retry(io, e->path, e->value);
		if (r < 0)
			return r;
	}
	return 0;
}

int damon_stage(struct damon_io *io, unsigned idx, const struct plan_kdamond *kd, bool running)
{
	return stage(io, idx, kd, running, false, false);
}

int damon_commit(struct damon_io *io, unsigned idx, const struct plan_kdamond *kd)
{
	char path[160], v[32];
	int r;

	r = stage(io, idx, kd, true, true, false);
	if (r == 0)
		r = damon_state_cmd(io, idx, "commit");
	if (io->feat.refresh_ms) {
		/* Whatever happened, refresh goes back on (it is read live). */
		int q;

		snprintf(path, sizeof(path), DAMON_KDAMONDS "/%u/refresh_ms", idx);
		snprintf(v, sizeof(v), "%" PRIu64, kd->refresh_ms);
		q = write_retry(io, path, v);
		if (r == 0)
			r = q;
	}
	return r;
}

int damon_state_cmd(struct damon_io *io, unsigned idx, const char *cmd)
{
	char path[160];
	int r;

	r = io_path(path, sizeof(path), DAMON_KDAMONDS "/%u/state", idx);
	if (r < 0)
		return r;
	return write_retry(io, path, cmd);
}

/* Write one file of scheme 0 (rel, under its directory) and commit, keeping
 * the tuned intervals. */
static int commit_scheme_file(struct damon_io *io, unsigned idx, const struct plan_kdamond *kd,
			      const char *rel, uint64_t value)
{
	char path[192], v[32];
	int r;

	r = io_path(path, sizeof(path), DAMON_KDAMONDS "/%u/contexts/0/schemes/0/%s", idx, rel);
	if (r < 0)
		return r;
	snprintf(v, sizeof(v), "%" PRIu64, value);
	r = write_retry(io, path, v);
	if (r < 0)
		return r;
	/* A commit re-applies the interval files when they differ from the
	 * running ones, which resets the tuning, so fetch the tuned ones first.
	 * refresh_ms does not keep them current: up to 6.17 its deadline is
	 * one for all kdamonds, so each period refreshes only the kdamond that
	 * polls first, the one sampling fastest, and in the VM the promotion
	 * kdamond's files were 20 s old (7.3 keeps a deadline per kdamond). */
	if (kd->intervals_goal) {
		r = damon_state_cmd(io, idx, "update_tuned_intervals");
		if (r < 0)
			return r;
	}
	return damon_state_cmd(io, idx, "commit");
}

int damon_set_quota(struct damon_io *io, unsigned idx, const struct plan_kdamond *kd)
{
	return commit_scheme_file(io, idx, kd, "quotas/bytes", kd->scheme.quota_bytes);
}

int damon_feed_goal(struct damon_io *io, unsigned idx, uint64_t current_value)
{
	char path[192], v[32];
	int r;

	r = io_path(path, sizeof(path),
		    DAMON_KDAMONDS "/%u/contexts/0/schemes/0/quotas/goals/0/current_value", idx);
	if (r < 0)
		return r;
	snprintf(v, sizeof(v), "%" PRIu64, current_value);
	r = write_retry(io, path, v);
	if (r < 0)
		return r;
	return damon_state_cmd(io, idx, "commit_schemes_quota_goals");
}

int damon_check_drift(struct damon_io *io, unsigned idx, const struct plan_kdamond *kd,
		      char *what, size_t whatlen)
{
	static struct kd_files l;
	char cur[64];
	int r;

	kd_files_build(idx, kd, &io->feat, false, &l);
	for (unsigned i = 0; i < l.n; i++) {
		const struct kd_file *e = &l.f[i];

		if (e->flags & (F_TUNED | F_FED))
			continue;
		r = io_read(io->root, e->path, cur, sizeof(cur));
		if (r == -ENOENT) {
			/* A parent nr_* was rewritten: the whole subtree is gone. */
			snprintf(what, whatlen, "/%s is missing (expected \"%s\")", e->path, e->value);
			return 1;
		}
		if (r < 0) {
			snprintf(io->failed_path, sizeof(io->failed_path), "/%s", e->path);
			return r;
		}
		if (strcmp(cur, e->value) != 0) {
			snprintf(what, whatlen, "/%s is \"%s\", expected \"%s\"", e->path, cur, e->value);
			return 1;
		}
	}
	return 0;
}

static int read_u64_at(struct damon_io *io, const char *dir, const char *rel, uint64_t *ret)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	return io_read_u64(io->root, path, ret);
}

struct u64_file {
	const char *rel; /* under the kdamond's directory */
	uint64_t *v;
	bool need;
};

/* Read every needed file of t[] under kdamond idx; on failure name the file
 * in io->failed_path.  The values are written as they are read. */
static int read_u64_files(struct damon_io *io, unsigned idx, const struct u64_file *t, size_t n)
{
	char dir[128];
	int r;

	r = damon_kdamond_dir(idx, dir, sizeof(dir));
	if (r < 0)
		return r;
	for (size_t i = 0; i < n; i++) {
		if (!t[i].need)
			continue;
		r = read_u64_at(io, dir, t[i].rel, t[i].v);
		if (r < 0) {
			snprintf(io->failed_path, sizeof(io->failed_path), "/%s/%s", dir, t[i].rel);
			return r;
		}
	}
	return 0;
}

int damon_read_charge(struct damon_io *io, unsigned idx, uint64_t *ret_tried,
		      uint64_t *ret_applied)
{
	uint64_t tried, applied;
	const struct u64_file t[] = {
		{ "contexts/0/schemes/0/stats/sz_tried", &tried, true },
		{ "contexts/0/schemes/0/stats/sz_applied", &applied, true },
	};
	int r = read_u64_files(io, idx, t, sizeof(t) / sizeof(t[0]));

	if (r < 0)
		return r;
	*ret_tried = tried;
	*ret_applied = applied;
	return 0;
}

int damon_read_stats(struct damon_io *io, unsigned idx, bool intervals_goal, bool refresh,
		     struct scheme_stats *ret)
{
	struct scheme_stats st = {};
	int r;

	if (refresh) {
		r = damon_state_cmd(io, idx, "update_schemes_stats");
		if (r < 0)
			return r;
		if (io->feat.effective_bytes) {
			r = damon_state_cmd(io, idx, "update_schemes_effective_quotas");
			if (r < 0)
				return r;
		}
		if (intervals_goal) {
			r = damon_state_cmd(io, idx, "update_tuned_intervals");
			if (r < 0)
				return r;
		}
	}
	const struct u64_file t[] = {
		{ "contexts/0/schemes/0/stats/nr_tried", &st.nr_tried, true },
		{ "contexts/0/schemes/0/stats/sz_tried", &st.sz_tried, true },
		{ "contexts/0/schemes/0/stats/nr_applied", &st.nr_applied, true },
		{ "contexts/0/schemes/0/stats/sz_applied", &st.sz_applied, true },
		{ "contexts/0/schemes/0/stats/qt_exceeds", &st.qt_exceeds, true },
		{ "contexts/0/schemes/0/quotas/effective_bytes", &st.effective_bytes,
		  io->feat.effective_bytes },
		{ "contexts/0/monitoring_attrs/intervals/sample_us", &st.sample_us, true },
		{ "contexts/0/monitoring_attrs/intervals/aggr_us", &st.aggr_us, true },
	};
	r = read_u64_files(io, idx, t, sizeof(t) / sizeof(t[0]));
	if (r < 0)
		return r;
	*ret = st;
	return 0;
}

/* How long damon_arm() waits for the first quota window: the window or the
 * apply interval, whichever is longer, many times over (an apply pass also
 * waits for the sampling interval, which may be tuned up to a window), and
 * at least ARM_WAIT_MIN_US. */
#define ARM_WAIT_MIN_US 2000000ull
#define ARM_POLL_US 20000ull

static uint64_t first_window_us(const struct plan_kdamond *kd)
{
	uint64_t w = kd->scheme.quota_reset_ms * 1000, a = kd->scheme.apply_interval_us;

	if (a == 0)
		a = kd->aggr_us;
	return a > w ? a : w;
}

static uint64_t arm_wait_limit_us(const struct plan_kdamond *kd)
{
	uint64_t l = 20 * first_window_us(kd);

	return l < ARM_WAIT_MIN_US ? ARM_WAIT_MIN_US : l;
}

/* Wait until the kernel reports an effective quota for kdamond idx's scheme,
 * i.e. it has set up its first quota window.  -ETIMEDOUT after the limit. */
static int wait_first_window(struct damon_io *io, unsigned idx, const struct plan_kdamond *kd)
{
	uint64_t waited = 0, esz = 0;
	char path[192];
	int r;

	if (!io->feat.effective_bytes) {
		/* Nothing to ask: two windows are enough. */
		do_sleep(io, 2 * first_window_us(kd));
		return 0;
	}
	r = io_path(path, sizeof(path),
		    DAMON_KDAMONDS "/%u/contexts/0/schemes/0/quotas/effective_bytes", idx);
	if (r < 0)
		return r;
	for (;;) {
		r = damon_state_cmd(io, idx, "update_schemes_effective_quotas");
		if (r < 0)
			return r;
		r = io_read_u64(io->root, path, &esz);
		if (r < 0 || esz > 0 || waited >= arm_wait_limit_us(kd))
			break;
		do_sleep(io, ARM_POLL_US);
		waited += ARM_POLL_US;
	}
	if (r == 0 && esz == 0)
		r = -ETIMEDOUT;
	if (r < 0)
		snprintf(io->failed_path, sizeof(io->failed_path), "/%s", path);
	return r;
}

int damon_start(struct damon_io *io, unsigned idx, const struct plan_kdamond *kd)
{
	int r = stage(io, idx, kd, false, false, true);

	if (r < 0)
		return r;
	return damon_state_cmd(io, idx, "on");
}

int damon_arm(struct damon_io *io, unsigned idx, const struct plan_kdamond *kd)
{
	int r = io->dry_run ? 0 : wait_first_window(io, idx, kd);

	if (r == -ETIMEDOUT)
		log_warning("kdamond %u: the kernel reported no effective quota in %s within %" PRIu64
			    " ms; arming its scheme anyway", idx, io->failed_path,
			    arm_wait_limit_us(kd) / 1000);
	else if (r < 0)
		return r;
	return commit_scheme_file(io, idx, kd, "access_pattern/age/min", kd->scheme.age_min);
}
