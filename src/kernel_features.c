/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Feature probing by file existence (and, for keywords, by acceptance) in a
 * kdamond directory the caller owns.  The kernel version string is never
 * consulted: distributions backport DAMON patches.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "kernel_features.h"
#include "parse.h"
#include "sysfs_io.h"

/* Make sure child 0 of the nr_* file `rel` exists: the probes look only at
 * it.  With readonly, a missing child tree is -ENODATA instead of a write. */
static int ensure_first(int root, const char *dir, const char *rel, bool readonly)
{
	char path[512], cur[32];
	uint64_t n;
	int r;

	r = io_path(path, sizeof(path), "%s/%s", dir, rel);
	if (r < 0)
		return r;
	/* Never rewrite an nr_* that has children already: that wipes them
	 * (a staged plan may have more than one: the exchange's stat schemes). */
	if (io_read(root, path, cur, sizeof(cur)) >= 0 && parse_u64(cur, &n) == 0 && n >= 1)
		return 0;
	if (readonly)
		return -ENODATA;
	return io_write(root, path, "1");
}

static bool exists_in(int root, const char *dir, const char *rel)
{
	char path[512];

	if (io_path(path, sizeof(path), "%s/%s", dir, rel) < 0)
		return false;
	return io_exists(root, path);
}

static bool contains_word(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = list; (p = strstr(p, word)); p += n) {
		bool start = p == list || p[-1] == '\n' || p[-1] == ' ';
		bool end = p[n] == '\0' || p[n] == '\n' || p[n] == ' ';
		if (start && end)
			return true;
	}
	return false;
}

static int probe(int root, const char *kd, bool ro, struct damon_features *ret)
{
	struct damon_features f = {};
	char ctx[512], scheme[512], ops[IO_VALUE_MAX], path[512];
	int r;

	f.sysfs = io_exists(root, DAMON_KDAMONDS "/nr_kdamonds");
	if (!f.sysfs || !kd) {
		*ret = f;
		return 0;
	}

	r = ensure_first(root, kd, "contexts/nr_contexts", ro);
	if (r < 0)
		return r;
	r = io_path(ctx, sizeof(ctx), "%s/contexts/0", kd);
	if (r < 0)
		return r;
	r = io_path(path, sizeof(path), "%s/avail_operations", ctx);
	if (r < 0)
		return r;
	/* Before 5.19 there is no avail_operations; paddr existed but we need
	 * far newer features anyway, so treat it as absent. */
	if (io_read(root, path, ops, sizeof(ops)) >= 0)
		f.paddr = contains_word(ops, "paddr");

	f.intervals_goal = exists_in(root, ctx, "monitoring_attrs/intervals/intervals_goal");
	f.addr_unit = exists_in(root, ctx, "addr_unit");
	f.refresh_ms = exists_in(root, kd, "refresh_ms");

	r = ensure_first(root, ctx, "schemes/nr_schemes", ro);
	if (r < 0)
		return r;
	r = io_path(scheme, sizeof(scheme), "%s/schemes/0", ctx);
	if (r < 0)
		return r;
	f.migrate = exists_in(root, scheme, "target_nid");
	f.apply_interval = exists_in(root, scheme, "apply_interval_us");
	f.quota_goals = exists_in(root, scheme, "quotas/goals/nr_goals");
	f.effective_bytes = exists_in(root, scheme, "quotas/effective_bytes");
	f.goal_tuner = exists_in(root, scheme, "quotas/goal_tuner");
	f.fail_charge = exists_in(root, scheme, "quotas/fail_charge_denom");
	f.ops_filters = exists_in(root, scheme, "ops_filters/nr_filters");
	f.filters = exists_in(root, scheme, "filters/nr_filters");

	if (f.quota_goals) {
		r = ensure_first(root, scheme, "quotas/goals/nr_goals", ro);
		/* A staged tree of the daemon's quota controller has no goal to
		 * look at: adopt it without the goal metrics (a later switch to
		 * the kernel tuner then feeds user_input, which works
		 * everywhere; a fresh start probes again). */
		if (r == -ENODATA)
			goto goals_done;
		if (r < 0)
			return r;
		f.goal_metric = exists_in(root, scheme, "quotas/goals/0/target_metric");
		f.node_metrics = exists_in(root, scheme, "quotas/goals/0/nid");
		f.memcg_goals = exists_in(root, scheme, "quotas/goals/0/path");
	}
goals_done:

	if (f.ops_filters || f.filters) {
		const char *fdir = f.ops_filters ? "ops_filters" : "filters";

		r = ensure_first(root, scheme,
				 f.ops_filters ? "ops_filters/nr_filters" : "filters/nr_filters", ro);
		/* A staged scheme without a filter (the daemon's demotion):
		 * another kdamond of ours may show them. */
		if (r == -ENODATA)
			goto filters_done;
		if (r < 0)
			return r;
		r = io_path(path, sizeof(path), "%s/%s/0/allow", scheme, fdir);
		if (r < 0)
			return r;
		f.filter_allow = io_exists(root, path);
		r = io_path(path, sizeof(path), "%s/%s/0/type", scheme, fdir);
		if (r < 0)
			return r;
		if (ro) {
			/* A staged tree of ours shows what the kernel took. */
			char v[32];

			f.young_filter = io_read(root, path, v, sizeof(v)) >= 0 && strcmp(v, "young") == 0;
		} else {
			/* Keyword probe: the only signal for filter types. */
			r = io_write(root, path, "young");
			if (r == 0)
				f.young_filter = true;
			else if (r != -EINVAL)
				return r;
		}
	}

filters_done:
	*ret = f;
	return 0;
}

int features_probe(int root, const char *kd, struct damon_features *ret)
{
	return probe(root, kd, false, ret);
}

int features_probe_readonly(int root, const char *kdamonds_dir, unsigned nr,
			    struct damon_features *ret)
{
	struct damon_features acc = { 0 };
	char kd[256];
	int r;

	if (nr == 0)
		return -ENODATA;
	for (unsigned i = 0; i < nr; i++) {
		struct damon_features f;

		r = io_path(kd, sizeof(kd), "%s/%u", kdamonds_dir, i);
		if (r < 0)
			return r;
		r = probe(root, kd, true, &f);
		if (r < 0)
			return r;
		if (i == 0) {
			acc = f;
			continue;
		}
		/* Goals and filters are what a staged scheme may lack. */
		acc.goal_metric |= f.goal_metric;
		acc.node_metrics |= f.node_metrics;
		acc.memcg_goals |= f.memcg_goals;
		acc.filter_allow |= f.filter_allow;
		acc.young_filter |= f.young_filter;
	}
	*ret = acc;
	return 0;
}

int features_read_modules(int root, struct damon_modules *ret)
{
	static const char *const names[_DAMON_MOD_MAX] = {
		[DAMON_MOD_STAT] = "damon_stat",
		[DAMON_MOD_RECLAIM] = "damon_reclaim",
		[DAMON_MOD_LRU_SORT] = "damon_lru_sort",
	};
	struct damon_modules m = {};

	for (int i = 0; i < _DAMON_MOD_MAX; i++) {
		char path[128], v[16];
		int r;

		m.mod[i].name = names[i];
		r = io_path(path, sizeof(path), "sys/module/%s/parameters/enabled", names[i]);
		if (r < 0)
			return r;
		r = io_read(root, path, v, sizeof(v));
		if (r == -ENOENT)
			continue;
		if (r < 0)
			return r;
		m.mod[i].present = true;
		m.mod[i].enabled = v[0] == 'Y' || v[0] == 'y' || v[0] == '1';
	}
	*ret = m;
	return 0;
}

int features_format(const struct damon_features *f, char *buf, size_t size)
{
	const struct { bool on; const char *name; } t[] = {
		{ f->paddr, "paddr" },
		{ f->migrate, "migrate" },
		{ f->apply_interval, "apply_interval" },
		{ f->quota_goals, "quota_goals" },
		{ f->node_metrics, "node_mem_goals" },
		{ f->memcg_goals, "memcg_goals" },
		{ f->effective_bytes, "effective_bytes" },
		{ f->intervals_goal, "intervals_goal" },
		{ f->ops_filters, "ops_filters" },
		{ f->filters && !f->ops_filters, "filters" },
		{ f->young_filter, "young_filter" },
		{ f->filter_allow, "filter_allow" },
		/* refresh_each is not listed: only BTF shows it, and the
		 * list is compared with the file probe's (vm-e2e). */
		{ f->refresh_ms, "refresh_ms" },
		{ f->addr_unit, "addr_unit" },
		{ f->goal_tuner, "goal_tuner" },
		{ f->fail_charge, "fail_charge" },
	};
	size_t off = 0;

	if (size == 0)
		return -ENOBUFS;
	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		int n;

		if (!t[i].on)
			continue;
		n = snprintf(buf + off, size - off, "%s%s", off ? " " : "", t[i].name);
		if (n < 0 || (size_t)n >= size - off)
			return -ENOBUFS;
		off += (size_t)n;
	}
	return 0;
}

const struct feature_requirement *features_missing(const struct damon_features *f)
{
	static const struct feature_requirement sysfs = {
		"the DAMON sysfs interface (/sys/kernel/mm/damon/admin)",
		"CONFIG_DAMON_SYSFS=y", "5.18" };
	static const struct feature_requirement paddr = {
		"physical address space monitoring (\"paddr\" in avail_operations)",
		"CONFIG_DAMON_PADDR=y", "5.19" };
	static const struct feature_requirement migrate = {
		"the migrate_hot/migrate_cold DAMOS actions (schemes/<S>/target_nid)",
		"CONFIG_DAMON_PADDR=y with CONFIG_MIGRATION=y", "6.11" };

	if (!f->sysfs)
		return &sysfs;
	if (!f->paddr)
		return &paddr;
	if (!f->migrate)
		return &migrate;
	return NULL;
}
