/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The fake DAMON sysfs: the kernel-side objects.  Whether a kdamond's
 * context is built and its kthread runs, its pid, stats and tuned intervals
 * live here in memory, because in the kernel they are not files either; the
 * state commands validate the sysfs tree as damon_sysfs_build_ctx() and
 * damon_commit_ctx() do and copy the kernel's values back into it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fake_damon_internal.h"

static const char *const exclusive_modules[] = {
	"damon_stat", "damon_reclaim", "damon_lru_sort",
	"damon_sample_mtier", "damon_sample_wsse", "damon_sample_prcl", NULL,
};

static const char *const state_cmds[] = {
	"on", "off", "commit", "commit_schemes_quota_goals", "update_schemes_stats",
	"update_schemes_tried_bytes", "update_schemes_tried_regions",
	"clear_schemes_tried_regions", "update_schemes_effective_quotas",
	"update_tuned_intervals", NULL,
};

/* ---- model ---- */

struct fake_kd *fk_kd_get(struct fake_damon *fk, unsigned idx)
{
	return idx < fk->nr_kds ? &fk->kds[idx] : NULL;
}

bool fk_any_running(struct fake_damon *fk)
{
	for (unsigned i = 0; i < fk->nr_kds; i++)
		if (fk->kds[i].running)
			return true;
	return false;
}

static bool exclusive_module_enabled(struct fake_damon *fk)
{
	char p[FAKE_PATH_MAX], b[16];

	for (const char *const *m = exclusive_modules; *m; m++) {
		tu_pathf(p, sizeof(p), "sys/module/%s/parameters/enabled", *m);
		if (fk_get(fk, p, b, sizeof(b)) == 0 && (b[0] == 'Y' || b[0] == 'y' || b[0] == '1'))
			return true;
	}
	return false;
}

void fk_kd_files(struct fake_damon *fk, unsigned idx)
{
	struct fake_kd *kd = &fk->kds[idx];
	char dir[FAKE_PATH_MAX], pid[32];
	int r;

	tu_pathf(dir, sizeof(dir), KDAMONDS "/%u", idx);
	snprintf(pid, sizeof(pid), "%lld", (long long)kd->pid);
	r = fk_putf(fk, dir, "state", kd->running ? "on" : "off");
	if (r == 0)
		r = fk_putf(fk, dir, "pid", pid);
	if (r < 0)
		fake_bug("cannot write %s/state,pid: %s", dir, strerror(-r));
}

void fk_kd_start(struct fake_damon *fk, unsigned idx)
{
	struct fake_kd *kd = &fk->kds[idx];

	kd->started = kd->running = true;
	kd->pid = fk->next_pid++;
	memset(kd->stats, 0, sizeof(kd->stats));
	kd->first_window = false;
	kd->unlimited_first_pass =
		fk->profile < FAKE_KERNEL_7_3 && kd->nr_schemes > 0 &&
		fk_get_u64(fk, 0, KDAMONDS "/%u/contexts/0/schemes/0/access_pattern/age/min", idx) == 0;
	fk_kd_files(fk, idx);
}

int fk_set_nr_kds(struct fake_damon *fk, unsigned n)
{
	struct fake_kd *kds = fk_xcalloc(n, sizeof(*kds));

	for (unsigned i = 0; i < n; i++) {
		kds[i].pid = -1;
		kds[i].last_result = 1;
	}
	free(fk->kds);
	fk->kds = kds;
	fk->nr_kds = n;
	return 0;
}

/* ---- validation at on/commit (damon_sysfs_build_ctx, damon_commit_ctx) ---- */

static bool is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

/* The kernel resolves a memcg path at every commit, to a cgroup with a
 * memory controller (sysfs-common.c:damon_sysfs_memcg_path_to_id); here a
 * directory with memory.numa_stat under the root's sys/fs/cgroup. */
static bool memcg_exists(struct fake_damon *fk, const char *base, const char *file)
{
	char path[FAKE_PATH_MAX * 2], v[FAKE_PATH_MAX];
	struct stat st;

	if (fk_getf(fk, v, sizeof(v), "%s/%s", base, file) < 0 || v[0] != '/')
		return false;
	snprintf(path, sizeof(path), "%s/sys/fs/cgroup%s/memory.numa_stat", fk->root, v);
	return stat(path, &st) == 0;
}

static int validate_ctx(struct fake_damon *fk, unsigned idx)
{
	char ctx[FAKE_PATH_MAX], ops[32], avail[256], b[64];
	uint64_t sample, aggr, min_nr, max_nr, nr_targets, nr_schemes;
	bool paddr;

	tu_pathf(ctx, sizeof(ctx), KDAMONDS "/%u/contexts/0", idx);

	/* damon_select_ops: only registered ops sets. */
	if (fk_getf(fk, ops, sizeof(ops), "%s/operations", ctx) < 0 ||
	    fk_getf(fk, avail, sizeof(avail), "%s/avail_operations", ctx) < 0)
		return -EINVAL;
	{
		bool found = false;

		for (char *save = NULL, *w = strtok_r(avail, "\n", &save); w;
		     w = strtok_r(NULL, "\n", &save))
			if (strcmp(w, ops) == 0)
				found = true;
		if (!found)
			return -EINVAL;
	}
	paddr = strcmp(ops, "paddr") == 0;

	if (paddr && fk->f.addr_unit) {
		uint64_t unit = fk_get_u64(fk, 1, "%s/addr_unit", ctx);

		if (unit < 4096 && !is_pow2(4096 / unit))
			return -EINVAL;
	}

	/* damon_set_attrs */
	sample = fk_get_u64(fk, 0, "%s/monitoring_attrs/intervals/sample_us", ctx);
	aggr = fk_get_u64(fk, 0, "%s/monitoring_attrs/intervals/aggr_us", ctx);
	min_nr = fk_get_u64(fk, 0, "%s/monitoring_attrs/nr_regions/min", ctx);
	max_nr = fk_get_u64(fk, 0, "%s/monitoring_attrs/nr_regions/max", ctx);
	if (min_nr < 3 || min_nr > max_nr || sample > aggr)
		return -EINVAL;
	if (fk->f.intervals_goal &&
	    fk_get_u64(fk, 0, "%s/monitoring_attrs/intervals/intervals_goal/aggrs", ctx) != 0) {
		uint64_t lo = fk_get_u64(fk, 0, "%s/monitoring_attrs/intervals/intervals_goal/min_sample_us", ctx);
		uint64_t hi = fk_get_u64(fk, 0, "%s/monitoring_attrs/intervals/intervals_goal/max_sample_us", ctx);

		if (lo > hi || sample < lo || sample > hi)
			return -EINVAL;
	}

	/* damon_sysfs_add_targets / damon_sysfs_set_regions.  The fake does not
	 * check that a vaddr pid_target exists. */
	nr_targets = fk_get_u64(fk, 0, "%s/targets/nr_targets", ctx);
	if (paddr && nr_targets > 1)
		return -EINVAL;
	for (uint64_t t = 0; t < nr_targets; t++) {
		uint64_t nr = fk_get_u64(fk, 0, "%s/targets/%llu/regions/nr_regions", ctx,
					 (unsigned long long)t);
		uint64_t prev_end = 0;

		for (uint64_t i = 0; i < nr; i++) {
			uint64_t s = fk_get_u64(fk, 0, "%s/targets/%llu/regions/%llu/start", ctx,
						(unsigned long long)t, (unsigned long long)i);
			uint64_t e = fk_get_u64(fk, 0, "%s/targets/%llu/regions/%llu/end", ctx,
						(unsigned long long)t, (unsigned long long)i);

			if (s > e || (i > 0 && prev_end > s))
				return -EINVAL;
			prev_end = e;
		}
	}

	/* damon_sysfs_add_schemes reports every build failure as ENOMEM. */
	nr_schemes = fk_get_u64(fk, 0, "%s/schemes/nr_schemes", ctx);
	for (uint64_t s = 0; s < nr_schemes; s++) {
		static const char *const dirs[] = { "core_filters", "ops_filters", "filters", NULL };
		uint64_t nr_goals;

		for (const char *const *d = dirs; *d; d++) {
			uint64_t nr = fk_get_u64(fk, 0, "%s/schemes/%llu/%s/nr_filters", ctx,
						 (unsigned long long)s, *d);

			for (uint64_t i = 0; i < nr; i++) {
				char base[FAKE_PATH_MAX];

				tu_pathf(base, sizeof(base), "%s/schemes/%llu/%s/%llu", ctx,
					 (unsigned long long)s, *d, (unsigned long long)i);
				if (fk_getf(fk, b, sizeof(b), "%s/type", base) < 0)
					continue;
				if (strcmp(b, "addr") == 0 &&
				    fk_get_u64(fk, 0, "%s/addr_end", base) < fk_get_u64(fk, 0, "%s/addr_start", base))
					return -ENOMEM;
				if (strcmp(b, "hugepage_size") == 0 &&
				    fk_get_u64(fk, 0, "%s/max", base) < fk_get_u64(fk, 0, "%s/min", base))
					return -ENOMEM;
				if (strcmp(b, "memcg") == 0 && !memcg_exists(fk, base, "memcg_path"))
					return -ENOMEM;
			}
		}
		/* __damon_commit_ctx: node_eligible_mem_bp needs paddr. */
		nr_goals = fk_get_u64(fk, 0, "%s/schemes/%llu/quotas/goals/nr_goals", ctx,
				      (unsigned long long)s);
		for (uint64_t g = 0; g < nr_goals; g++) {
			char base[FAKE_PATH_MAX];

			tu_pathf(base, sizeof(base), "%s/schemes/%llu/quotas/goals/%llu", ctx,
				 (unsigned long long)s, (unsigned long long)g);
			if (fk_getf(fk, b, sizeof(b), "%s/target_metric", base) < 0)
				continue;
			if (strcmp(b, "node_eligible_mem_bp") == 0 && !paddr)
				return -EINVAL;
			if (strncmp(b, "node_memcg_", 11) == 0 && !memcg_exists(fk, base, "path"))
				return -ENOMEM;
		}
	}
	return 0;
}

/* What a successful build copies into the kernel ctx. */
void fk_take_ctx(struct fake_damon *fk, unsigned idx, bool fresh)
{
	struct fake_kd *kd = &fk->kds[idx];
	char ctx[FAKE_PATH_MAX];
	unsigned nr, keep;

	tu_pathf(ctx, sizeof(ctx), KDAMONDS "/%u/contexts/0", idx);
	/* Intervals are re-applied (resetting the tuning) whenever the sysfs
	 * values differ from the running ones, so afterwards they always
	 * equal the sysfs values. */
	kd->sample_us = fk_get_u64(fk, 0, "%s/monitoring_attrs/intervals/sample_us", ctx);
	kd->aggr_us = fk_get_u64(fk, 0, "%s/monitoring_attrs/intervals/aggr_us", ctx);
	nr = (unsigned)fk_get_u64(fk, 0, "%s/schemes/nr_schemes", ctx);
	/* Schemes matched by index keep their stats; new ones start at 0. */
	keep = fresh ? 0 : (nr < kd->nr_schemes ? nr : kd->nr_schemes);
	for (unsigned i = keep; i < FAKE_MAX_SCHEMES; i++)
		memset(&kd->stats[i], 0, sizeof(kd->stats[i]));
	kd->nr_schemes = nr;
}

/* ---- copies back into sysfs ---- */

static unsigned sysfs_nr_schemes(struct fake_damon *fk, unsigned idx, char *ctx, size_t size)
{
	uint64_t nr;

	tu_pathf(ctx, size, KDAMONDS "/%u/contexts/0", idx);
	nr = fk_get_u64(fk, 0, "%s/schemes/nr_schemes", ctx);
	/* The user may have shrunk the sysfs schemes; the kernel stops there. */
	if (nr > fk->kds[idx].nr_schemes)
		nr = fk->kds[idx].nr_schemes;
	return (unsigned)nr;
}

static int copy_stats(struct fake_damon *fk, unsigned idx)
{
	char ctx[FAKE_PATH_MAX], dir[FAKE_PATH_MAX], p[FAKE_PATH_MAX];
	unsigned nr = sysfs_nr_schemes(fk, idx, ctx, sizeof(ctx));
	int r = 0;

	for (unsigned i = 0; i < nr && !r; i++) {
		static const struct fake_scheme_stats none;
		const struct fake_scheme_stats *st = i < FAKE_MAX_SCHEMES ? &fk->kds[idx].stats[i] : &none;
		struct { const char *name; uint64_t v; bool always; } f[] = {
			{ "nr_tried", st->nr_tried, true }, { "sz_tried", st->sz_tried, true },
			{ "nr_applied", st->nr_applied, true }, { "sz_applied", st->sz_applied, true },
			{ "qt_exceeds", st->qt_exceeds, true },
			{ "sz_ops_filter_passed", st->sz_ops_filter_passed, false },
			{ "nr_snapshots", st->nr_snapshots, false },
		};

		tu_pathf(dir, sizeof(dir), "%s/schemes/%u/stats", ctx, i);
		for (size_t k = 0; k < sizeof(f) / sizeof(f[0]) && !r; k++) {
			tu_pathf(p, sizeof(p), "%s/%s", dir, f[k].name);
			if (!f[k].always && faccessat(fk->dirfd, p, F_OK, 0) < 0)
				continue;
			r = fk_put_u64(fk, dir, f[k].name, f[k].v);
		}
	}
	return r;
}

/* The first copy after "on" finds no window yet (0); later ones the value a
 * test set, or else the scheme's quotas/bytes. */
static int copy_effective(struct fake_damon *fk, unsigned idx)
{
	char ctx[FAKE_PATH_MAX], dir[FAKE_PATH_MAX];
	unsigned nr = sysfs_nr_schemes(fk, idx, ctx, sizeof(ctx));
	struct fake_kd *kd = &fk->kds[idx];
	int r = 0;

	for (unsigned i = 0; i < nr && !r; i++) {
		uint64_t v = i < FAKE_MAX_SCHEMES ? kd->stats[i].effective_bytes : 0;

		tu_pathf(dir, sizeof(dir), "%s/schemes/%u/quotas", ctx, i);
		if (!kd->first_window)
			v = 0;
		else if (v == 0)
			v = fk_get_u64(fk, 0, "%s/bytes", dir);
		r = fk_put_u64(fk, dir, "effective_bytes", v);
	}
	kd->first_window = true;
	return r;
}

static int copy_intervals(struct fake_damon *fk, unsigned idx)
{
	char dir[FAKE_PATH_MAX];
	int r;

	tu_pathf(dir, sizeof(dir), KDAMONDS "/%u/contexts/0/monitoring_attrs/intervals", idx);
	r = fk_put_u64(fk, dir, "sample_us", fk->kds[idx].sample_us);
	if (r == 0)
		r = fk_put_u64(fk, dir, "aggr_us", fk->kds[idx].aggr_us);
	return r;
}

static int tried_regions(struct fake_damon *fk, unsigned idx, bool clear)
{
	char ctx[FAKE_PATH_MAX], dir[FAKE_PATH_MAX];
	uint64_t nr;
	int r = 0;

	tu_pathf(ctx, sizeof(ctx), KDAMONDS "/%u/contexts/0", idx);
	nr = fk_get_u64(fk, 0, "%s/schemes/nr_schemes", ctx);
	for (uint64_t i = 0; i < nr && !r; i++) {
		tu_pathf(dir, sizeof(dir), "%s/schemes/%llu/tried_regions", ctx, (unsigned long long)i);
		/* The fake never creates per-region directories, but a test tree may have some. */
		r = fk_rm_numbered(fk, dir);
		if (r == -ENOENT)
			r = 0;
		if (r == 0)
			r = fk_put_u64(fk, dir, "total_bytes",
				       clear || i >= FAKE_MAX_SCHEMES || i >= fk->kds[idx].nr_schemes ? 0 :
				       fk->kds[idx].stats[i].tried_bytes);
	}
	return r;
}

void fk_refresh(struct fake_damon *fk, unsigned idx)
{
	copy_intervals(fk, idx);
	copy_stats(fk, idx);
	copy_effective(fk, idx);
}

/* ---- state commands ---- */

int fk_state_write(struct fake_damon *fk, unsigned idx, const char *cmd)
{
	struct fake_kd *kd = fk_kd_get(fk, idx);
	bool one_ctx;
	int r;

	if (!kd)
		return -ENOENT;
	one_ctx = fk_get_u64(fk, 0, KDAMONDS "/%u/contexts/nr_contexts", idx) == 1;

	if (strcmp(cmd, "on") == 0) {
		if (kd->running)
			return -EBUSY;
		if (!one_ctx)
			return -EINVAL;
		/* The previous ctx (and its stats) is destroyed before the build. */
		kd->started = false;
		r = validate_ctx(fk, idx);
		if (r < 0)
			return r;
		/* damon_start checks exclusivity after all validation. */
		if (exclusive_module_enabled(fk))
			return -EBUSY;
		fk_take_ctx(fk, idx, true);
		fk_kd_start(fk, idx);
		return 0;
	}
	if (strcmp(cmd, "off") == 0) {
		if (!kd->started)
			return -EINVAL;
		kd->running = false;
		kd->pid = -1;
		fk_kd_files(fk, idx);
		return 0;
	}
	if (!fk_in_list(state_cmds, cmd))
		return -EINVAL;
	if (strcmp(cmd, "clear_schemes_tried_regions") == 0)
		return one_ctx ? tried_regions(fk, idx, true) : -EINVAL;
	if (!kd->started)
		return -EINVAL;
	if (!kd->running)
		return -ECANCELED;
	if (!one_ctx)
		return -EINVAL;

	if (strcmp(cmd, "commit") == 0) {
		r = validate_ctx(fk, idx);
		if (r < 0 && fk->profile == FAKE_KERNEL_6_12) {
			/* Before 6.14 the kdamond applies a commit itself and
			 * stops on an error; the write has already returned 0. */
			kd->running = false;
			kd->pid = -1;
			fk_kd_files(fk, idx);
			return 0;
		}
		if (r < 0)
			return r;
		fk_take_ctx(fk, idx, false);
		return 0;
	}
	if (strcmp(cmd, "commit_schemes_quota_goals") == 0)
		return 0;
	if (strcmp(cmd, "update_schemes_stats") == 0)
		return copy_stats(fk, idx);
	if (strcmp(cmd, "update_schemes_effective_quotas") == 0)
		return copy_effective(fk, idx);
	if (strcmp(cmd, "update_tuned_intervals") == 0)
		return copy_intervals(fk, idx);
	/* update_schemes_tried_{bytes,regions}: the walk is cancelled without schemes. */
	if (kd->nr_schemes == 0)
		return -ECANCELED;
	return tried_regions(fk, idx, false);
}

/* ---- exclusive modules ---- */

int fk_module_write(struct fake_damon *fk, const char *path, const char *name, const char *value)
{
	bool v;
	int r;

	if (faccessat(fk->dirfd, path, F_OK, 0) < 0)
		return -errno;
	r = fk_kstrtobool(value, &v);
	if (r < 0)
		return r;
	/* The module's damon_start(exclusive) fails while sysfs kdamonds run. */
	if (v && fk_in_list(exclusive_modules, name) && fk_any_running(fk))
		return -EBUSY;
	return fk_put(fk, path, v ? "Y" : "N");
}
