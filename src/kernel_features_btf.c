/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * DAMON features from the kernel's BTF, without writing anything: the write
 * probe (kernel_features.c) learns them from the files a kdamond directory
 * shows once nr_contexts, nr_schemes, nr_goals and nr_filters are written,
 * but each of those files is created from a member of a struct of DAMON's
 * sysfs code, and keywords are taken from the kernel's enums, so the type
 * information of the running kernel tells the same.
 *
 * Every fact below was read from the BTF of the Debian kernels 6.1, 6.12,
 * 6.17 and 7.3 and holds on each of those that has the feature, and on
 * 6.12, 6.17 and 7.3 the result equals what the write probe finds there
 * (tests/fixtures/btf/ keeps the DAMON part of each).  The names are those
 * of private kernel structs: a kernel that renames one makes its feature
 * read as absent, so the probe first checks that the BTF knows DAMON's
 * sysfs structs at all.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel_btf.h"
#include "kernel_features.h"
#include "sysfs_io.h"

#define BTF_PATH "sys/kernel/btf/vmlinux"
/* The kernel's own is about 5 MiB; the limit only bounds what a broken
 * --sysfs-root can make us allocate. */
#define BTF_MAX (64U << 20)

enum fact_kind {
	FACT_NONE,	 /* ends a row's facts */
	FACT_MEMBER,	 /* struct `type` has member `name` */
	FACT_ENUMERATOR, /* enum `type` has enumerator `name` */
	FACT_FUNC,	 /* function `name` was compiled */
};

struct fact {
	enum fact_kind kind;
	const char *type;
	const char *name;
};

/* A feature is there when all of its facts hold. */
struct feature_row {
	size_t field; /* offsetof(struct damon_features, the bool) */
	struct fact facts[3];
};

#define FIELD(f) offsetof(struct damon_features, f)
#define MEMBER(s, m) { FACT_MEMBER, s, m }
#define ENUMERATOR(e, x) { FACT_ENUMERATOR, e, x }
#define FUNC(f) { FACT_FUNC, NULL, f }

/* `sysfs` is not here: it is whether the interface is there now (mounted,
 * visible below the root), which types cannot tell. */
static const struct feature_row rows[] = {
	/* "paddr" is in avail_operations once the paddr operations are
	 * registered.  Their callbacks are only called through the
	 * operations struct, so they are always compiled out of line, and
	 * only with CONFIG_DAMON_PADDR. */
	{ FIELD(paddr), { FUNC("damon_pa_apply_scheme") } },
	/* The migrate_hot/cold actions came with target_nid.  Without
	 * CONFIG_MIGRATION they exist too, but migrate_pages() is an inline
	 * stub failing every migration; with it, it is a function. */
	{ FIELD(migrate), { MEMBER("damon_sysfs_scheme", "target_nid"), FUNC("migrate_pages") } },
	{ FIELD(apply_interval), { MEMBER("damon_sysfs_scheme", "apply_interval_us") } },
	{ FIELD(quota_goals), { MEMBER("damon_sysfs_quotas", "goals") } },
	{ FIELD(goal_metric), { MEMBER("damos_sysfs_quota_goal", "metric") } },
	{ FIELD(effective_bytes), { MEMBER("damon_sysfs_quotas", "effective_sz") } },
	/* The nid file and the two node metrics the daemon uses came
	 * together; the metric names are parsed into this enum. */
	{ FIELD(node_metrics),
	  { MEMBER("damos_sysfs_quota_goal", "nid"),
	    ENUMERATOR("damos_quota_goal_metric", "DAMOS_QUOTA_NODE_MEM_USED_BP"),
	    ENUMERATOR("damos_quota_goal_metric", "DAMOS_QUOTA_NODE_MEM_FREE_BP") } },
	/* The path file came with the two memcg metrics. */
	{ FIELD(memcg_goals),
	  { ENUMERATOR("damos_quota_goal_metric", "DAMOS_QUOTA_NODE_MEMCG_USED_BP") } },
	{ FIELD(intervals_goal), { MEMBER("damon_sysfs_intervals", "intervals_goal") } },
	{ FIELD(ops_filters), { MEMBER("damon_sysfs_scheme", "ops_filters") } },
	{ FIELD(filters), { MEMBER("damon_sysfs_scheme", "filters") } },
	/* Not damon_sysfs_filter: on 7.x that is the access probes' filter,
	 * which has an allow file too. */
	{ FIELD(filter_allow), { MEMBER("damon_sysfs_scheme_filter", "allow") } },
	/* A filter type file takes the names of this enum's types. */
	{ FIELD(young_filter), { ENUMERATOR("damos_filter_type", "DAMOS_FILTER_TYPE_YOUNG") } },
	{ FIELD(refresh_ms), { MEMBER("damon_sysfs_kdamond", "refresh_ms") } },
	/* The per-kdamond deadline replaced a static one shared by all. */
	{ FIELD(refresh_each), { MEMBER("damon_sysfs_kdamond", "next_refresh_jiffies") } },
	{ FIELD(addr_unit), { MEMBER("damon_sysfs_context", "addr_unit") } },
	{ FIELD(goal_tuner), { MEMBER("damon_sysfs_quotas", "goal_tuner") } },
	{ FIELD(fail_charge), { MEMBER("damon_sysfs_quotas", "fail_charge_denom") } },
};

static bool fact_holds(const struct kernel_btf *btf, const struct fact *f)
{
	switch (f->kind) {
	case FACT_MEMBER:
		return kernel_btf_has_member(btf, f->type, f->name);
	case FACT_ENUMERATOR:
		return kernel_btf_has_enumerator(btf, f->type, f->name);
	case FACT_FUNC:
		return kernel_btf_has_func(btf, f->name);
	case FACT_NONE:
		break;
	}
	return false;
}

void features_from_btf(const struct kernel_btf *btf, struct damon_features *ret)
{
	struct damon_features f = { 0 };

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		bool on = true;

		for (size_t j = 0; j < sizeof(rows[i].facts) / sizeof(rows[i].facts[0]); j++) {
			if (rows[i].facts[j].kind == FACT_NONE)
				break;
			on = on && fact_holds(btf, &rows[i].facts[j]);
		}
		*(bool *)((char *)&f + rows[i].field) = on;
	}
	*ret = f;
}

static int whyf(char *why, size_t whylen, int r, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int whyf(char *why, size_t whylen, int r, const char *fmt, ...)
{
	va_list ap;

	if (why && whylen) {
		va_start(ap, fmt);
		vsnprintf(why, whylen, fmt, ap);
		va_end(ap);
	}
	return r;
}

int features_probe_btf(int root, struct damon_features *ret, char *why, size_t whylen)
{
	struct kernel_btf *btf = NULL;
	struct damon_features f;
	char err[256] = "";
	char *blob = NULL;
	int len, r;

	len = io_read_alloc(root, BTF_PATH, &blob, BTF_MAX);
	if (len == -ENOENT)
		return whyf(why, whylen, len, "no /" BTF_PATH " (a kernel without CONFIG_DEBUG_INFO_BTF)");
	if (len == -E2BIG)
		return whyf(why, whylen, len, "/" BTF_PATH " is larger than %u MiB", BTF_MAX >> 20);
	if (len < 0)
		return whyf(why, whylen, len, "cannot read /" BTF_PATH ": %s", strerror(-len));

	r = kernel_btf_new(blob, (size_t)len, &btf, err, sizeof(err));
	if (r < 0) {
		free(blob);
		return whyf(why, whylen, r, "/" BTF_PATH ": %s", r == -EINVAL ? err : strerror(-r));
	}
	features_from_btf(btf, &f);
	f.sysfs = io_exists(root, DAMON_KDAMONDS "/nr_kdamonds");
	/* Absent names only mean absent features if the BTF knows DAMON's
	 * sysfs code at all: else its structs were renamed (or the BTF is not
	 * this kernel's), and every feature would read as missing. */
	r = 0;
	if (f.sysfs && !kernel_btf_has_member(btf, "damon_sysfs_kdamond", "contexts"))
		r = whyf(why, whylen, -ENODATA, "/" BTF_PATH " has no struct damon_sysfs_kdamond with "
			 "contexts, though /" DAMON_KDAMONDS " exists: it cannot tell the DAMON features");
	kernel_btf_free(btf);
	free(blob);
	if (r < 0)
		return r;
	*ret = f;
	return 0;
}
