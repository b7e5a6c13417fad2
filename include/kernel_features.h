/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * Acquire: what the running kernel's DAMON offers, probed from the files it
 * exposes (never from the version string), and which in-kernel DAMON users
 * are active.
 */
#include <stdbool.h>
#include <stddef.h>

#define DAMON_ADMIN "sys/kernel/mm/damon/admin"
#define DAMON_KDAMONDS DAMON_ADMIN "/kdamonds"

struct damon_features {
	bool sysfs;           /* admin/kdamonds (5.18) */
	bool paddr;           /* "paddr" in avail_operations */
	bool migrate;         /* schemes/<S>/target_nid, migrate_hot/cold (6.11) */
	bool apply_interval;  /* schemes/<S>/apply_interval_us (6.7) */
	bool quota_goals;     /* quotas/goals + commit_schemes_quota_goals (6.8) */
	bool goal_metric;     /* goals/<G>/target_metric (6.9) */
	bool effective_bytes; /* quotas/effective_bytes (6.9) */
	bool node_metrics;    /* goals/<G>/nid, node_mem_{used,free}_bp (6.16) */
	bool memcg_goals;     /* goals/<G>/path, node_memcg_{used,free}_bp (6.19) */
	bool intervals_goal;  /* intervals/intervals_goal (6.15) */
	bool ops_filters;     /* schemes/<S>/ops_filters (6.15) */
	bool filters;         /* schemes/<S>/filters (6.3) */
	bool filter_allow;    /* <F>/allow (6.14) */
	bool young_filter;    /* "young" accepted as a filter type (6.10) */
	bool refresh_ms;      /* kdamonds/<K>/refresh_ms (6.17) */
	/* refresh_ms refreshes every kdamond each period (after 6.17; 7.3
	 * does): 6.17's one deadline shared by all kdamonds lets one of them
	 * copy its counters per period.  Only the kernel's BTF tells (no
	 * file shows it); false without BTF. */
	bool refresh_each;
	bool addr_unit;       /* contexts/<C>/addr_unit (6.18) */
	bool goal_tuner;      /* quotas/goal_tuner (7.1) */
	bool fail_charge;     /* quotas/fail_charge_{num,denom} (7.2) */
};

struct damon_module {
	const char *name;     /* "damon_stat", ... */
	bool present;         /* sys/module/<name>/parameters/enabled exists */
	bool enabled;         /* it reads Y */
};

enum { DAMON_MOD_STAT, DAMON_MOD_RECLAIM, DAMON_MOD_LRU_SORT, _DAMON_MOD_MAX };
struct damon_modules {
	struct damon_module mod[_DAMON_MOD_MAX];
};

/*
 * Probe the features.  `kdamond_dir` is a kdamond directory the caller owns
 * and has turned off (e.g. "sys/kernel/mm/damon/admin/kdamonds/0"): the probe
 * writes nr_contexts/nr_schemes/nr_goals/nr_filters and a filter type there
 * (keyword probing is only possible by writing).  Pass NULL when there is no
 * such directory yet: only the file-free checks are done.  Returns 0 or
 * -errno of an unexpected I/O failure.
 */
int features_probe(int root, const char *kdamond_dir, struct damon_features *ret);

/*
 * The same without writing anything, for --dry-run and adoption: reads
 * kdamonds `kdamonds_dir`/0 .. nr-1 (e.g. "sys/kernel/mm/damon/admin/kdamonds"),
 * which must hold staged trees (a context and a scheme each, e.g. ours), else
 * -ENODATA.  Goal and filter features come from whichever of them has a goal
 * or a filter; the young filter is known only if a staged filter reads
 * "young".
 */
int features_probe_readonly(int root, const char *kdamonds_dir, unsigned nr,
			    struct damon_features *ret);

/*
 * Read-only and without a kdamond, for --dry-run: the features from the
 * kernel's BTF (sys/kernel/btf/vmlinux below root, CONFIG_DEBUG_INFO_BTF),
 * which names the structs behind DAMON's sysfs files, its keyword enums and
 * its compiled functions; `sysfs` is whether admin/kdamonds/nr_kdamonds
 * exists.  Every field is filled.  Returns 0, or -ENOENT when there is no
 * BTF, -EINVAL when it is malformed, -ENODATA when DAMON's sysfs exists but
 * the BTF does not describe it (so it cannot tell), -E2BIG or another -errno
 * of reading it; then *ret is untouched and `why` (if whylen > 0) says what
 * was wrong, for the caller's "features unknown" message.  `why` is not
 * written on success.
 */
int features_probe_btf(int root, struct damon_features *ret, char *why, size_t whylen);

/* The BTF facts of features_probe_btf() on a parsed blob: every field but
 * `sysfs`, which is left false. */
struct kernel_btf;
void features_from_btf(const struct kernel_btf *btf, struct damon_features *ret);

/* Read-only: sys/module/damon_{stat,reclaim,lru_sort}/parameters/enabled. */
int features_read_modules(int root, struct damon_modules *ret);

/* "goals+node_metrics+intervals_goal+ops_filters+..." for the start-up log. */
int features_format(const struct damon_features *f, char *buf, size_t size);

/* For refusals: what is missing, the Kconfig option, the first kernel.
 * Returns NULL if `f` has everything the daemon requires. */
struct feature_requirement {
	const char *what;
	const char *kconfig;
	const char *since;
};
const struct feature_requirement *features_missing(const struct damon_features *f);
