/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The fake DAMON sysfs must behave like the kernel, or every test built on
 * it proves nothing: these tests pin down the kernel rules it emulates. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fake_damon.h"
#include "sysfs_io.h"
#include "testutil.h"

#define KDS "sys/kernel/mm/damon/admin/kdamonds"
#define KD0 KDS "/0"
#define KD1 KDS "/1"
#define CTX0 KD0 "/contexts/0"
#define CTX1 KD1 "/contexts/0"
#define STAT_ENABLED "sys/module/damon_stat/parameters/enabled"

struct env {
	char *dir;
	int root;
	struct fake_damon *fk;
	enum fake_profile profile;
	bool fixture;
};

static int setup_profile(void **state, enum fake_profile profile)
{
	struct env *e = calloc(1, sizeof(*e));
	const char *fixtures = getenv("FIXTURES_DIR");
	char p[4096];
	struct stat st;

	assert_non_null(e);
	/* The VM fixture gives a realistic tree around the DAMON part. */
	if (fixtures && snprintf(p, sizeof(p), "%s/vm-2node", fixtures) < (int)sizeof(p) &&
	    stat(p, &st) == 0) {
		e->dir = tu_fixture_copy("vm-2node");
		e->fixture = true;
	} else
		e->dir = tu_mkdtemp();
	e->profile = profile;
	e->fk = fake_damon_new(e->dir, profile);
	e->root = io_root_open(e->dir);
	assert_true(e->root >= 0);
	/* The VM fixture may show damon_stat running, which blocks every "on". */
	if (tu_exists(e->dir, STAT_ENABLED))
		fake_damon_set_module(e->fk, "damon_stat", false);
	*state = e;
	return 0;
}

static int setup_612(void **state) { return setup_profile(state, FAKE_KERNEL_6_12); }
static int setup_617(void **state) { return setup_profile(state, FAKE_KERNEL_6_17); }
static int setup_73(void **state) { return setup_profile(state, FAKE_KERNEL_7_3); }

static int teardown(void **state)
{
	struct env *e = *state;

	fake_damon_free(e->fk);
	close(e->root);
	tu_rmtree(e->dir);
	free(e->dir);
	free(e);
	return 0;
}

static int wr(struct env *e, const char *path, const char *value)
{
	return io_write(e->root, path, value);
}

static int wrf(struct env *e, const char *value, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int wrf(struct env *e, const char *value, const char *fmt, ...)
{
	char p[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p, sizeof(p), fmt, ap);
	va_end(ap);
	return io_write(e->root, p, value);
}

/* Through io_read, i.e. through the fake's read hook. */
static const char *rd(struct env *e, const char *path)
{
	static char buf[IO_VALUE_MAX];
	int r = io_read(e->root, path, buf, sizeof(buf));

	if (r < 0) {
		print_error("reading %s: %s\n", path, strerror(-r));
		fail();
	}
	return buf;
}

static bool has(struct env *e, const char *path)
{
	return io_exists(e->root, path);
}

#define assert_rd(e, path, want) assert_string_equal(rd(e, path), want)
#define assert_ok(x) assert_int_equal((x), 0)

/* A valid paddr kdamond, as the daemon would stage it. */
static void stage_paddr(struct env *e, unsigned kd)
{
	char ctx[256];

	snprintf(ctx, sizeof(ctx), KDS "/%u/contexts", kd);
	assert_ok(wrf(e, "1", "%s/nr_contexts", ctx));
	assert_ok(wrf(e, "paddr", "%s/0/operations", ctx));
	assert_ok(wrf(e, "1", "%s/0/targets/nr_targets", ctx));
	assert_ok(wrf(e, "1", "%s/0/targets/0/regions/nr_regions", ctx));
	assert_ok(wrf(e, "0x20000000", "%s/0/targets/0/regions/0/start", ctx));
	assert_ok(wrf(e, "0x40000000", "%s/0/targets/0/regions/0/end", ctx));
	assert_ok(wrf(e, "1", "%s/0/schemes/nr_schemes", ctx));
	assert_ok(wrf(e, "migrate_hot", "%s/0/schemes/0/action", ctx));
	assert_ok(wrf(e, "0", "%s/0/schemes/0/target_nid", ctx));
}

static void two_kdamonds(struct env *e)
{
	assert_ok(wr(e, KDS "/nr_kdamonds", "2"));
	stage_paddr(e, 0);
	stage_paddr(e, 1);
}

/* ---- tree creation ---- */

static void test_defaults(void **state)
{
	struct env *e = *state;
	bool v617 = e->profile >= FAKE_KERNEL_6_17, v73 = e->profile >= FAKE_KERNEL_7_3;

	assert_rd(e, KDS "/nr_kdamonds", "0");
	assert_false(has(e, KD0));
	assert_ok(wr(e, KDS "/nr_kdamonds", "1"));
	assert_rd(e, KD0 "/state", "off");
	assert_rd(e, KD0 "/pid", "-1");
	assert_rd(e, KD0 "/contexts/nr_contexts", "0");
	assert_int_equal(has(e, KD0 "/refresh_ms"), v617);
	assert_false(has(e, CTX0));

	assert_ok(wr(e, KD0 "/contexts/nr_contexts", "1"));
	assert_rd(e, CTX0 "/operations", "vaddr");
	assert_rd(e, CTX0 "/avail_operations", "vaddr\nfvaddr\npaddr");
	assert_rd(e, CTX0 "/monitoring_attrs/intervals/sample_us", "5000");
	assert_rd(e, CTX0 "/monitoring_attrs/intervals/aggr_us", "100000");
	assert_rd(e, CTX0 "/monitoring_attrs/intervals/update_us", "60000000");
	assert_rd(e, CTX0 "/monitoring_attrs/nr_regions/min", "10");
	assert_rd(e, CTX0 "/monitoring_attrs/nr_regions/max", "1000");
	assert_rd(e, CTX0 "/targets/nr_targets", "0");
	assert_rd(e, CTX0 "/schemes/nr_schemes", "0");
	assert_int_equal(has(e, CTX0 "/monitoring_attrs/intervals/intervals_goal/max_sample_us"), v617);
	assert_int_equal(has(e, CTX0 "/addr_unit"), v73);
	assert_int_equal(has(e, CTX0 "/pause"), v73);
	assert_int_equal(has(e, CTX0 "/monitoring_attrs/probes/nr_probes"), v73);
	if (v73)
		assert_rd(e, CTX0 "/addr_unit", "1");

	assert_ok(wr(e, CTX0 "/targets/nr_targets", "1"));
	assert_rd(e, CTX0 "/targets/0/pid_target", "0");
	assert_rd(e, CTX0 "/targets/0/regions/nr_regions", "0");
	assert_int_equal(has(e, CTX0 "/targets/0/obsolete_target"), v73);
	assert_ok(wr(e, CTX0 "/targets/0/regions/nr_regions", "2"));
	assert_rd(e, CTX0 "/targets/0/regions/1/start", "0");
	assert_rd(e, CTX0 "/targets/0/regions/1/end", "0");

	assert_ok(wr(e, CTX0 "/schemes/nr_schemes", "1"));
	assert_rd(e, CTX0 "/schemes/0/action", "stat");
	assert_rd(e, CTX0 "/schemes/0/target_nid", "-1");
	assert_rd(e, CTX0 "/schemes/0/apply_interval_us", "0");
	assert_rd(e, CTX0 "/schemes/0/access_pattern/sz/max", "0");
	assert_rd(e, CTX0 "/schemes/0/access_pattern/age/max", "0");
	assert_rd(e, CTX0 "/schemes/0/quotas/bytes", "0");
	assert_rd(e, CTX0 "/schemes/0/quotas/effective_bytes", "0");
	assert_rd(e, CTX0 "/schemes/0/quotas/weights/age_permil", "0");
	assert_rd(e, CTX0 "/schemes/0/watermarks/metric", "none");
	assert_rd(e, CTX0 "/schemes/0/stats/sz_applied", "0");
	assert_rd(e, CTX0 "/schemes/0/tried_regions/total_bytes", "0");
	assert_rd(e, CTX0 "/schemes/0/filters/nr_filters", "0");
	assert_int_equal(has(e, CTX0 "/schemes/0/core_filters/nr_filters"), v617);
	assert_int_equal(has(e, CTX0 "/schemes/0/ops_filters/nr_filters"), v617);
	assert_int_equal(has(e, CTX0 "/schemes/0/dests/nr_dests"), v617);
	assert_int_equal(has(e, CTX0 "/schemes/0/stats/sz_ops_filter_passed"), v617);
	assert_int_equal(has(e, CTX0 "/schemes/0/stats/max_nr_snapshots"), v73);
	assert_int_equal(has(e, CTX0 "/schemes/0/quotas/goal_tuner"), v73);
	assert_int_equal(has(e, CTX0 "/schemes/0/quotas/fail_charge_denom"), v73);

	assert_ok(wr(e, CTX0 "/schemes/0/quotas/goals/nr_goals", "1"));
	assert_rd(e, CTX0 "/schemes/0/quotas/goals/0/target_metric", "user_input");
	assert_rd(e, CTX0 "/schemes/0/quotas/goals/0/target_value", "0");
	assert_rd(e, CTX0 "/schemes/0/quotas/goals/0/current_value", "0");
	assert_int_equal(has(e, CTX0 "/schemes/0/quotas/goals/0/nid"), v617);
	assert_int_equal(has(e, CTX0 "/schemes/0/quotas/goals/0/path"), v73);

	assert_ok(wr(e, CTX0 "/schemes/0/filters/nr_filters", "1"));
	assert_rd(e, CTX0 "/schemes/0/filters/0/type", "anon");
	assert_rd(e, CTX0 "/schemes/0/filters/0/matching", "N");
	assert_rd(e, CTX0 "/schemes/0/filters/0/memcg_path", "");
	assert_rd(e, CTX0 "/schemes/0/filters/0/addr_end", "0");
	assert_rd(e, CTX0 "/schemes/0/filters/0/damon_target_idx", "0");
	assert_int_equal(has(e, CTX0 "/schemes/0/filters/0/allow"), v617);
	assert_int_equal(has(e, CTX0 "/schemes/0/filters/0/min"), v617);

	if (v617) {
		assert_ok(wr(e, CTX0 "/schemes/0/ops_filters/nr_filters", "1"));
		assert_rd(e, CTX0 "/schemes/0/ops_filters/0/allow", "N");
		assert_ok(wr(e, CTX0 "/schemes/0/dests/nr_dests", "1"));
		assert_rd(e, CTX0 "/schemes/0/dests/0/id", "0");
		assert_rd(e, CTX0 "/schemes/0/dests/0/weight", "0");
		assert_rd(e, STAT_ENABLED, "N");
	} else {
		assert_int_equal(wr(e, CTX0 "/schemes/0/ops_filters/nr_filters", "1"), -ENOENT);
		if (!e->fixture)
			assert_false(has(e, STAT_ENABLED));
	}
	if (v73) {
		assert_int_equal(wr(e, CTX0 "/monitoring_attrs/probes/nr_probes", "5"), -EINVAL);
		assert_ok(wr(e, CTX0 "/monitoring_attrs/probes/nr_probes", "1"));
		assert_rd(e, CTX0 "/monitoring_attrs/probes/0/weight", "0");
		assert_ok(wr(e, CTX0 "/monitoring_attrs/probes/0/filters/nr_filters", "1"));
		assert_rd(e, CTX0 "/monitoring_attrs/probes/0/filters/0/path", "");
		assert_int_equal(wr(e, CTX0 "/monitoring_attrs/probes/0/filters/0/type", "addr"), -EINVAL);
		assert_ok(wr(e, CTX0 "/monitoring_attrs/probes/0/filters/0/type", "memcg"));
	}
}

static void test_nr_rewrite_wipes(void **state)
{
	struct env *e = *state;

	assert_ok(wr(e, KDS "/nr_kdamonds", "1"));
	stage_paddr(e, 0);
	assert_ok(wr(e, CTX0 "/schemes/0/quotas/goals/nr_goals", "2"));
	assert_ok(wr(e, CTX0 "/schemes/0/quotas/goals/1/target_value", "9970"));

	/* Same value again: all children come back with defaults. */
	assert_ok(wr(e, CTX0 "/schemes/0/quotas/goals/nr_goals", "2"));
	assert_rd(e, CTX0 "/schemes/0/quotas/goals/1/target_value", "0");
	assert_ok(wr(e, CTX0 "/schemes/nr_schemes", "1"));
	assert_rd(e, CTX0 "/schemes/0/action", "stat");
	assert_rd(e, CTX0 "/schemes/0/quotas/goals/nr_goals", "0");
	assert_false(has(e, CTX0 "/schemes/0/quotas/goals/0"));

	/* Shrinking removes the extra ones. */
	assert_ok(wr(e, CTX0 "/targets/0/regions/nr_regions", "3"));
	assert_true(has(e, CTX0 "/targets/0/regions/2/end"));
	assert_ok(wr(e, CTX0 "/targets/0/regions/nr_regions", "1"));
	assert_false(has(e, CTX0 "/targets/0/regions/1"));
	assert_rd(e, CTX0 "/targets/0/regions/0/start", "0");

	assert_ok(wr(e, KD0 "/contexts/nr_contexts", "1"));
	assert_rd(e, CTX0 "/operations", "vaddr");
	assert_ok(wr(e, KD0 "/contexts/nr_contexts", "0"));
	assert_false(has(e, CTX0));

	stage_paddr(e, 0);
	assert_ok(wr(e, KDS "/nr_kdamonds", "1"));
	assert_rd(e, KD0 "/contexts/nr_contexts", "0");
	assert_ok(wr(e, KDS "/nr_kdamonds", "0"));
	assert_false(has(e, KD0));
	assert_rd(e, KDS "/nr_kdamonds", "0");
}

static void test_parsing(void **state)
{
	struct env *e = *state;

	/* kstrtoint base 0 */
	assert_ok(wr(e, KDS "/nr_kdamonds", "0x2"));
	assert_rd(e, KDS "/nr_kdamonds", "2");
	assert_true(has(e, KD1 "/state"));
	assert_ok(wr(e, KDS "/nr_kdamonds", "03\n"));
	assert_rd(e, KDS "/nr_kdamonds", "3");
	assert_int_equal(wr(e, KDS "/nr_kdamonds", "-1"), -EINVAL);
	assert_int_equal(wr(e, KDS "/nr_kdamonds", "two"), -EINVAL);
	assert_int_equal(wr(e, KDS "/nr_kdamonds", ""), -EINVAL);
	assert_int_equal(wr(e, KDS "/nr_kdamonds", "08"), -EINVAL);
	assert_int_equal(wr(e, KDS "/nr_kdamonds", "99999999999"), -ERANGE);
	assert_rd(e, KDS "/nr_kdamonds", "3");
	assert_int_equal(wr(e, KD0 "/contexts/nr_contexts", "2"), -EINVAL);
	assert_ok(wr(e, KD0 "/contexts/nr_contexts", "1"));

	/* Value files: any number, read back normalised. */
	assert_ok(wr(e, CTX0 "/monitoring_attrs/intervals/sample_us", "010"));
	assert_rd(e, CTX0 "/monitoring_attrs/intervals/sample_us", "8");
	assert_ok(wr(e, CTX0 "/monitoring_attrs/intervals/sample_us", "0x1000"));
	assert_rd(e, CTX0 "/monitoring_attrs/intervals/sample_us", "4096");
	assert_int_equal(wr(e, CTX0 "/monitoring_attrs/intervals/sample_us", "-5"), -EINVAL);
	assert_int_equal(wr(e, CTX0 "/monitoring_attrs/intervals/sample_us", "5 ms"), -EINVAL);
	assert_ok(wr(e, CTX0 "/schemes/nr_schemes", "1"));
	assert_ok(wr(e, CTX0 "/schemes/0/access_pattern/sz/max", "18446744073709551615"));
	assert_rd(e, CTX0 "/schemes/0/access_pattern/sz/max", "18446744073709551615");
	assert_int_equal(wr(e, CTX0 "/schemes/0/access_pattern/sz/max", "18446744073709551616"),
			 -ERANGE);
	assert_ok(wr(e, CTX0 "/schemes/0/target_nid", "-1"));
	assert_rd(e, CTX0 "/schemes/0/target_nid", "-1");
	assert_ok(wr(e, CTX0 "/schemes/0/target_nid", "1"));
	assert_rd(e, CTX0 "/schemes/0/target_nid", "1");
	assert_int_equal(wr(e, CTX0 "/schemes/0/quotas/weights/age_permil", "4294967296"), -ERANGE);

	/* Booleans (kstrtobool). */
	assert_ok(wr(e, CTX0 "/schemes/0/filters/nr_filters", "1"));
	assert_ok(wr(e, CTX0 "/schemes/0/filters/0/matching", "1"));
	assert_rd(e, CTX0 "/schemes/0/filters/0/matching", "Y");
	assert_ok(wr(e, CTX0 "/schemes/0/filters/0/matching", "off"));
	assert_rd(e, CTX0 "/schemes/0/filters/0/matching", "N");
	assert_int_equal(wr(e, CTX0 "/schemes/0/filters/0/matching", "maybe"), -EINVAL);

	/* Permissions and existence, like sysfs. */
	assert_int_equal(wr(e, KD0 "/pid", "5"), -EACCES);
	assert_int_equal(wr(e, CTX0 "/avail_operations", "paddr"), -EACCES);
	assert_int_equal(wr(e, CTX0 "/schemes/0/stats/nr_tried", "1"), -EACCES);
	assert_int_equal(wr(e, CTX0 "/schemes/0/quotas/effective_bytes", "1"), -EACCES);
	assert_int_equal(wr(e, CTX0 "/schemes/0/tried_regions/total_bytes", "1"), -EACCES);
	assert_int_equal(wr(e, CTX0 "/no_such_file", "1"), -ENOENT);
	assert_int_equal(wr(e, CTX0 "/monitoring_attrs/nr_regions", "1"), -EISDIR);
	if (e->profile >= FAKE_KERNEL_7_3) {
		assert_int_equal(wr(e, CTX0 "/addr_unit", "0"), -EINVAL);
		assert_ok(wr(e, CTX0 "/schemes/0/stats/max_nr_snapshots", "3"));
	} else {
		assert_int_equal(wr(e, CTX0 "/addr_unit", "1"), -ENOENT);
	}
}

/* ---- keywords ---- */

static void test_keywords(void **state)
{
	struct env *e = *state;
	bool v617 = e->profile >= FAKE_KERNEL_6_17, v73 = e->profile >= FAKE_KERNEL_7_3;
	static const char *const actions[] = {
		"willneed", "cold", "pageout", "hugepage", "nohugepage", "lru_prio",
		"lru_deprio", "migrate_hot", "migrate_cold", "stat", NULL,
	};

	assert_ok(wr(e, KDS "/nr_kdamonds", "1"));
	stage_paddr(e, 0);
	assert_int_equal(wr(e, CTX0 "/operations", "padd"), -EINVAL);
	assert_int_equal(wr(e, CTX0 "/operations", "PADDR"), -EINVAL);
	assert_rd(e, CTX0 "/operations", "paddr");
	assert_ok(wr(e, CTX0 "/operations", "fvaddr\n"));
	assert_rd(e, CTX0 "/operations", "fvaddr");

	for (const char *const *a = actions; *a; a++)
		assert_ok(wr(e, CTX0 "/schemes/0/action", *a));
	assert_int_equal(wr(e, CTX0 "/schemes/0/action", "migrate"), -EINVAL);
	assert_int_equal(wr(e, CTX0 "/schemes/0/action", "collapse"), v73 ? 0 : -EINVAL);

	assert_ok(wr(e, CTX0 "/schemes/0/watermarks/metric", "free_mem_rate"));
	assert_int_equal(wr(e, CTX0 "/schemes/0/watermarks/metric", "free"), -EINVAL);
	assert_rd(e, CTX0 "/schemes/0/watermarks/metric", "free_mem_rate");

	assert_ok(wr(e, CTX0 "/schemes/0/quotas/goals/nr_goals", "1"));
	assert_ok(wr(e, CTX0 "/schemes/0/quotas/goals/0/target_metric", "some_mem_psi_us"));
	assert_int_equal(wr(e, CTX0 "/schemes/0/quotas/goals/0/target_metric", "node_mem_used_bp"),
			 v617 ? 0 : -EINVAL);
	assert_int_equal(wr(e, CTX0 "/schemes/0/quotas/goals/0/target_metric", "node_mem_free_bp"),
			 v617 ? 0 : -EINVAL);
	assert_int_equal(wr(e, CTX0 "/schemes/0/quotas/goals/0/target_metric", "active_mem_bp"),
			 v73 ? 0 : -EINVAL);
	assert_int_equal(wr(e, CTX0 "/schemes/0/quotas/goals/0/target_metric", "bogus"), -EINVAL);
	if (v73) {
		assert_ok(wr(e, CTX0 "/schemes/0/quotas/goal_tuner", "temporal"));
		assert_int_equal(wr(e, CTX0 "/schemes/0/quotas/goal_tuner", "pid"), -EINVAL);
	}

	/* Filter types depend on the directory. */
	assert_ok(wr(e, CTX0 "/schemes/0/filters/nr_filters", "1"));
	assert_ok(wr(e, CTX0 "/schemes/0/filters/0/type", "young"));
	assert_ok(wr(e, CTX0 "/schemes/0/filters/0/type", "addr"));
	assert_ok(wr(e, CTX0 "/schemes/0/filters/0/type", "memcg"));
	assert_int_equal(wr(e, CTX0 "/schemes/0/filters/0/type", "hugepage_size"), v617 ? 0 : -EINVAL);
	assert_int_equal(wr(e, CTX0 "/schemes/0/filters/0/type", "young2"), -EINVAL);
	if (v617) {
		assert_ok(wr(e, CTX0 "/schemes/0/core_filters/nr_filters", "1"));
		assert_ok(wr(e, CTX0 "/schemes/0/ops_filters/nr_filters", "1"));
		assert_ok(wr(e, CTX0 "/schemes/0/core_filters/0/type", "addr"));
		assert_ok(wr(e, CTX0 "/schemes/0/core_filters/0/type", "target"));
		assert_int_equal(wr(e, CTX0 "/schemes/0/core_filters/0/type", "young"), -EINVAL);
		assert_int_equal(wr(e, CTX0 "/schemes/0/core_filters/0/type", "anon"), -EINVAL);
		assert_ok(wr(e, CTX0 "/schemes/0/ops_filters/0/type", "young"));
		assert_ok(wr(e, CTX0 "/schemes/0/ops_filters/0/type", "active"));
		assert_int_equal(wr(e, CTX0 "/schemes/0/ops_filters/0/type", "addr"), -EINVAL);
		assert_rd(e, CTX0 "/schemes/0/ops_filters/0/type", "active");
	}

	/* A kernel without the young filter. */
	fake_damon_set_keyword_supported(e->fk, "type", "young", false);
	assert_int_equal(wr(e, CTX0 "/schemes/0/filters/0/type", "young"), -EINVAL);
	if (v617)
		assert_int_equal(wr(e, CTX0 "/schemes/0/ops_filters/0/type", "young"), -EINVAL);
	fake_damon_set_keyword_supported(e->fk, "type", "young", true);
	assert_ok(wr(e, CTX0 "/schemes/0/filters/0/type", "young"));
	/* And a kernel without migrate actions. */
	fake_damon_set_keyword_supported(e->fk, "action", "migrate_cold", false);
	assert_int_equal(wr(e, CTX0 "/schemes/0/action", "migrate_cold"), -EINVAL);
	fake_damon_set_keyword_supported(e->fk, "action", "frobnicate", true);
	assert_ok(wr(e, CTX0 "/schemes/0/action", "frobnicate"));
}

/* ---- state commands ---- */

static void test_on_off_commit(void **state)
{
	struct env *e = *state;
	int64_t pid;

	two_kdamonds(e);
	/* Never started. */
	assert_int_equal(wr(e, KD0 "/state", "off"), -EINVAL);
	assert_int_equal(wr(e, KD0 "/state", "commit"), -EINVAL);
	assert_int_equal(wr(e, KD0 "/state", "update_schemes_stats"), -EINVAL);
	assert_int_equal(wr(e, KD0 "/state", "commit_schemes_quota_goals"), -EINVAL);
	assert_int_equal(wr(e, KD0 "/state", "update_schemes_effective_quotas"), -EINVAL);
	assert_int_equal(wr(e, KD0 "/state", "update_tuned_intervals"), -EINVAL);
	assert_int_equal(wr(e, KD0 "/state", "update_schemes_tried_bytes"), -EINVAL);
	assert_int_equal(wr(e, KD0 "/state", "update_schemes_tried_regions"), -EINVAL);
	assert_ok(wr(e, KD0 "/state", "clear_schemes_tried_regions"));
	assert_int_equal(wr(e, KD0 "/state", "start"), -EINVAL);
	assert_int_equal(fake_damon_last_result(e->fk, 0), -EINVAL);

	assert_ok(wr(e, KD0 "/state", "on"));
	assert_true(fake_damon_running(e->fk, 0));
	assert_false(fake_damon_running(e->fk, 1));
	assert_rd(e, KD0 "/state", "on");
	pid = fake_damon_pid(e->fk, 0);
	assert_true(pid > 0);
	{
		char want[32];

		snprintf(want, sizeof(want), "%lld", (long long)pid);
		assert_rd(e, KD0 "/pid", want);
	}
	assert_int_equal(wr(e, KD0 "/state", "on"), -EBUSY);
	assert_int_equal(wr(e, KDS "/nr_kdamonds", "2"), -EBUSY);
	assert_true(has(e, CTX0 "/schemes/0/action"));

	/* Every online command works while running. */
	assert_ok(wr(e, KD0 "/state", "commit"));
	assert_ok(wr(e, KD0 "/state", "commit_schemes_quota_goals"));
	assert_ok(wr(e, KD0 "/state", "update_schemes_stats"));
	assert_ok(wr(e, KD0 "/state", "update_schemes_effective_quotas"));
	assert_ok(wr(e, KD0 "/state", "update_tuned_intervals"));
	assert_ok(wr(e, KD0 "/state", "update_schemes_tried_bytes"));
	assert_ok(wr(e, KD0 "/state", "update_schemes_tried_regions"));
	assert_ok(wr(e, KD0 "/state", "clear_schemes_tried_regions"));
	assert_int_equal(wr(e, KD0 "/state", "bogus"), -EINVAL);

	/* An invalid commit keeps the running config (6.12: stops the
	 * kdamond, and the write succeeds). */
	assert_ok(wr(e, CTX0 "/monitoring_attrs/intervals/sample_us", "200000"));
	if (e->profile == FAKE_KERNEL_6_12) {
		assert_ok(wr(e, KD0 "/state", "commit"));
		assert_false(fake_damon_running(e->fk, 0));
		assert_rd(e, KD0 "/state", "off");
		assert_ok(wr(e, CTX0 "/monitoring_attrs/intervals/sample_us", "5000"));
		assert_ok(wr(e, KD0 "/state", "on"));
		pid = fake_damon_pid(e->fk, 0);
	} else {
		assert_int_equal(wr(e, KD0 "/state", "commit"), -EINVAL);
	}
	assert_true(fake_damon_running(e->fk, 0));
	assert_ok(wr(e, KD0 "/state", "update_tuned_intervals"));
	assert_rd(e, CTX0 "/monitoring_attrs/intervals/sample_us", "5000");
	assert_int_equal(fake_damon_pid(e->fk, 0), pid);

	/* Rewriting nr_contexts while running is allowed; commands then fail. */
	assert_ok(wr(e, KD0 "/contexts/nr_contexts", "0"));
	assert_int_equal(wr(e, KD0 "/state", "commit"), -EINVAL);
	assert_int_equal(wr(e, KD0 "/state", "update_schemes_stats"), -EINVAL);
	assert_true(fake_damon_running(e->fk, 0));

	assert_ok(wr(e, KD0 "/state", "off"));
	assert_false(fake_damon_running(e->fk, 0));
	assert_rd(e, KD0 "/state", "off");
	assert_rd(e, KD0 "/pid", "-1");
	assert_int_equal(fake_damon_pid(e->fk, 0), -1);
	assert_ok(wr(e, KD0 "/state", "off"));
	/* Stopped: ECANCELED, not EINVAL. */
	stage_paddr(e, 0);
	assert_int_equal(wr(e, KD0 "/state", "commit"), -ECANCELED);
	assert_int_equal(wr(e, KD0 "/state", "update_schemes_stats"), -ECANCELED);
	assert_int_equal(wr(e, KD0 "/state", "update_tuned_intervals"), -ECANCELED);
	assert_int_equal(wr(e, KD0 "/state", "commit_schemes_quota_goals"), -ECANCELED);

	/* A new start gets a new pid; both kdamonds run side by side. */
	assert_ok(wr(e, KD0 "/state", "on"));
	assert_ok(wr(e, KD1 "/state", "on"));
	assert_true(fake_damon_pid(e->fk, 0) != pid);
	assert_true(fake_damon_pid(e->fk, 1) != pid);
	assert_true(fake_damon_pid(e->fk, 0) != fake_damon_pid(e->fk, 1));
	/* 6.12 started kdamond 0 once more after the refused commit. */
	assert_int_equal(fake_damon_count(e->fk, "on"), e->profile == FAKE_KERNEL_6_12 ? 5 : 4);
	assert_int_equal(fake_damon_count_kdamond(e->fk, 1, "on"), 1);
	assert_int_equal(fake_damon_count(e->fk, "commit"), 5);
	assert_ok(wr(e, KD0 "/state", "off"));
	assert_ok(wr(e, KD1 "/state", "off"));
	assert_ok(wr(e, KDS "/nr_kdamonds", "2"));
	assert_int_equal(wr(e, KD0 "/state", "off"), -EINVAL);
}

/* Each config error at "on"; and the same at "commit". */
static void test_on_invalid(void **state)
{
	struct env *e = *state;
	struct { const char *path, *value; int err; } cases[] = {
		{ CTX0 "/monitoring_attrs/nr_regions/min", "2", -EINVAL },
		{ CTX0 "/monitoring_attrs/nr_regions/max", "9", -EINVAL },
		{ CTX0 "/monitoring_attrs/intervals/sample_us", "100001", -EINVAL },
		{ CTX0 "/targets/nr_targets", "2", -EINVAL },
		{ CTX0 "/targets/0/regions/0/end", "0x1000", -EINVAL },
		{ CTX0 "/operations", "fvaddr", 0 /* vaddr pids are not checked */ },
		{ NULL, NULL, 0 },
	};
	bool v617 = e->profile >= FAKE_KERNEL_6_17, v612 = e->profile == FAKE_KERNEL_6_12;

	assert_ok(wr(e, KDS "/nr_kdamonds", "1"));
	for (size_t i = 0; cases[i].path; i++) {
		stage_paddr(e, 0);
		assert_ok(wr(e, cases[i].path, cases[i].value));
		assert_int_equal(wr(e, KD0 "/state", "on"), cases[i].err);
		assert_int_equal(fake_damon_running(e->fk, 0), cases[i].err == 0);
		if (cases[i].err == 0)
			assert_ok(wr(e, KD0 "/state", "off"));
	}

	/* No context, no start. */
	assert_ok(wr(e, KD0 "/contexts/nr_contexts", "0"));
	assert_int_equal(wr(e, KD0 "/state", "on"), -EINVAL);

	/* Overlapping / unsorted regions. */
	stage_paddr(e, 0);
	assert_ok(wr(e, CTX0 "/targets/0/regions/nr_regions", "2"));
	assert_ok(wr(e, CTX0 "/targets/0/regions/0/start", "0x1000"));
	assert_ok(wr(e, CTX0 "/targets/0/regions/0/end", "0x3000"));
	assert_ok(wr(e, CTX0 "/targets/0/regions/1/start", "0x2000"));
	assert_ok(wr(e, CTX0 "/targets/0/regions/1/end", "0x4000"));
	assert_int_equal(wr(e, KD0 "/state", "on"), -EINVAL);
	assert_ok(wr(e, CTX0 "/targets/0/regions/1/start", "0x3000"));
	assert_ok(wr(e, KD0 "/state", "on"));

	/* The same rules at commit, which leaves the kdamond running (6.12:
	 * stops it, and the write succeeds). */
	assert_ok(wr(e, CTX0 "/monitoring_attrs/nr_regions/min", "2"));
	if (e->profile == FAKE_KERNEL_6_12) {
		assert_ok(wr(e, KD0 "/state", "commit"));
		assert_false(fake_damon_running(e->fk, 0));
		assert_ok(wr(e, CTX0 "/monitoring_attrs/nr_regions/min", "3"));
		assert_ok(wr(e, KD0 "/state", "on"));
	} else {
		assert_int_equal(wr(e, KD0 "/state", "commit"), -EINVAL);
		assert_ok(wr(e, CTX0 "/monitoring_attrs/nr_regions/min", "3"));
	}
	assert_ok(wr(e, KD0 "/state", "commit"));
	assert_ok(wr(e, CTX0 "/targets/nr_targets", "2"));
	assert_int_equal(wr(e, KD0 "/state", "commit"), v612 ? 0 : -EINVAL);
	assert_int_equal(fake_damon_running(e->fk, 0), !v612);
	if (!v612)
		assert_ok(wr(e, KD0 "/state", "off"));

	/* An ops set the kernel was built without. */
	stage_paddr(e, 0);
	tu_write(e->dir, CTX0 "/avail_operations", "vaddr\nfvaddr\n");
	assert_int_equal(wr(e, KD0 "/state", "on"), -EINVAL);

	/* Filter build failures come back as ENOMEM, like the kernel's. */
	stage_paddr(e, 0);
	assert_ok(wr(e, CTX0 "/schemes/0/filters/nr_filters", "1"));
	assert_ok(wr(e, CTX0 "/schemes/0/filters/0/type", "addr"));
	assert_ok(wr(e, CTX0 "/schemes/0/filters/0/addr_start", "0x2000"));
	assert_ok(wr(e, CTX0 "/schemes/0/filters/0/addr_end", "0x1000"));
	assert_int_equal(wr(e, KD0 "/state", "on"), -ENOMEM);

	if (v617) {
		/* intervals_goal: aggrs != 0 needs min <= sample <= max. */
		stage_paddr(e, 0);
		assert_ok(wr(e, CTX0 "/monitoring_attrs/intervals/intervals_goal/aggrs", "3"));
		assert_int_equal(wr(e, KD0 "/state", "on"), -EINVAL);
		assert_ok(wr(e, CTX0 "/monitoring_attrs/intervals/intervals_goal/min_sample_us", "6000"));
		assert_ok(wr(e, CTX0 "/monitoring_attrs/intervals/intervals_goal/max_sample_us", "10000000"));
		assert_int_equal(wr(e, KD0 "/state", "on"), -EINVAL);
		assert_ok(wr(e, CTX0 "/monitoring_attrs/intervals/intervals_goal/min_sample_us", "5000"));
		assert_ok(wr(e, KD0 "/state", "on"));
		assert_ok(wr(e, KD0 "/state", "off"));
		/* access_bp is not checked; aggrs 0 turns the goal off. */
		assert_ok(wr(e, CTX0 "/monitoring_attrs/intervals/intervals_goal/aggrs", "0"));
		assert_ok(wr(e, CTX0 "/monitoring_attrs/intervals/intervals_goal/max_sample_us", "0"));
		assert_ok(wr(e, KD0 "/state", "on"));
		assert_ok(wr(e, KD0 "/state", "off"));
	}
}

/* A failed "on" destroys the previous context: it is "never started" again. */
static void test_failed_on_destroys_ctx(void **state)
{
	struct env *e = *state;

	assert_ok(wr(e, KDS "/nr_kdamonds", "1"));
	stage_paddr(e, 0);
	assert_ok(wr(e, KD0 "/state", "on"));
	assert_ok(wr(e, KD0 "/state", "off"));
	assert_int_equal(wr(e, KD0 "/state", "update_schemes_stats"), -ECANCELED);
	assert_ok(wr(e, CTX0 "/monitoring_attrs/nr_regions/min", "1"));
	assert_int_equal(wr(e, KD0 "/state", "on"), -EINVAL);
	assert_int_equal(wr(e, KD0 "/state", "update_schemes_stats"), -EINVAL);
	assert_int_equal(wr(e, KD0 "/state", "off"), -EINVAL);
}

/* ---- stats and tuned values ---- */

/* Before 7.3 the first apply pass after "on" has no quota: the fake records
 * whether scheme 0 could match a new region then; once the first window is
 * set up, effective_bytes is the scheme's quotas/bytes unless a test set it. */
static void test_first_window(void **state)
{
	struct env *e = *state;

	two_kdamonds(e);
	assert_ok(wr(e, CTX0 "/schemes/nr_schemes", "1"));
	assert_ok(wr(e, CTX0 "/schemes/0/quotas/bytes", "65536"));
	assert_ok(wr(e, CTX1 "/schemes/nr_schemes", "1"));
	assert_ok(wr(e, CTX1 "/schemes/0/access_pattern/age/min", "4294967295"));
	assert_ok(wr(e, KD0 "/state", "on"));
	assert_ok(wr(e, KD1 "/state", "on"));
	assert_int_equal(fake_damon_unlimited_first_pass(e->fk, 0), e->profile < FAKE_KERNEL_7_3);
	assert_false(fake_damon_unlimited_first_pass(e->fk, 1));
	assert_ok(wr(e, KD0 "/state", "update_schemes_effective_quotas"));
	assert_rd(e, CTX0 "/schemes/0/quotas/effective_bytes", "0");
	assert_ok(wr(e, KD0 "/state", "update_schemes_effective_quotas"));
	assert_rd(e, CTX0 "/schemes/0/quotas/effective_bytes", "65536");
	/* A restart sets up a new first window. */
	assert_ok(wr(e, KD0 "/state", "off"));
	assert_ok(wr(e, KD0 "/state", "on"));
	assert_ok(wr(e, KD0 "/state", "update_schemes_effective_quotas"));
	assert_rd(e, CTX0 "/schemes/0/quotas/effective_bytes", "0");
}

static void test_stats_copy(void **state)
{
	struct env *e = *state;
	struct fake_scheme_stats st = {
		.nr_tried = 7, .sz_tried = 8192, .nr_applied = 3, .sz_applied = 4096,
		.sz_ops_filter_passed = 12288, .qt_exceeds = 2, .nr_snapshots = 5,
		.effective_bytes = 65536, .tried_bytes = 1 << 20,
	};

	two_kdamonds(e);
	assert_ok(wr(e, CTX0 "/schemes/nr_schemes", "2"));
	assert_ok(wr(e, KD0 "/state", "on"));
	assert_ok(wr(e, KD1 "/state", "on"));
	fake_damon_set_stats(e->fk, 0, 1000, 2000);
	fake_damon_set_scheme_stats(e->fk, 1, 0, &st);

	/* Nothing changes until asked. */
	assert_rd(e, CTX0 "/schemes/0/stats/sz_applied", "0");
	assert_ok(wr(e, KD0 "/state", "update_schemes_stats"));
	assert_rd(e, CTX0 "/schemes/0/stats/sz_applied", "1000");
	assert_rd(e, CTX0 "/schemes/1/stats/sz_applied", "1000");
	assert_rd(e, CTX0 "/schemes/0/quotas/effective_bytes", "0");
	/* The first window is not set up at the first request after "on". */
	assert_ok(wr(e, KD0 "/state", "update_schemes_effective_quotas"));
	assert_rd(e, CTX0 "/schemes/1/quotas/effective_bytes", "0");
	assert_ok(wr(e, KD0 "/state", "update_schemes_effective_quotas"));
	assert_rd(e, CTX0 "/schemes/1/quotas/effective_bytes", "2000");
	assert_rd(e, CTX1 "/schemes/0/stats/sz_applied", "0");

	assert_ok(wr(e, KD1 "/state", "update_schemes_stats"));
	assert_rd(e, CTX1 "/schemes/0/stats/nr_tried", "7");
	assert_rd(e, CTX1 "/schemes/0/stats/sz_tried", "8192");
	assert_rd(e, CTX1 "/schemes/0/stats/nr_applied", "3");
	assert_rd(e, CTX1 "/schemes/0/stats/sz_applied", "4096");
	assert_rd(e, CTX1 "/schemes/0/stats/qt_exceeds", "2");
	if (e->profile >= FAKE_KERNEL_6_17)
		assert_rd(e, CTX1 "/schemes/0/stats/sz_ops_filter_passed", "12288");
	else
		assert_false(has(e, CTX1 "/schemes/0/stats/sz_ops_filter_passed"));
	if (e->profile >= FAKE_KERNEL_7_3)
		assert_rd(e, CTX1 "/schemes/0/stats/nr_snapshots", "5");
	assert_ok(wr(e, KD1 "/state", "update_schemes_tried_bytes"));
	assert_rd(e, CTX1 "/schemes/0/tried_regions/total_bytes", "1048576");
	assert_ok(wr(e, KD1 "/state", "clear_schemes_tried_regions"));
	assert_rd(e, CTX1 "/schemes/0/tried_regions/total_bytes", "0");

	/* A commit that drops scheme 1 and re-adds it: scheme 0 keeps its
	 * stats, the new scheme 1 starts from zero. */
	assert_ok(wr(e, CTX0 "/schemes/nr_schemes", "1"));
	stage_paddr(e, 0);
	assert_ok(wr(e, KD0 "/state", "commit"));
	assert_ok(wr(e, CTX0 "/schemes/nr_schemes", "2"));
	assert_ok(wr(e, KD0 "/state", "commit"));
	assert_ok(wr(e, KD0 "/state", "update_schemes_stats"));
	assert_rd(e, CTX0 "/schemes/0/stats/sz_applied", "1000");
	assert_rd(e, CTX0 "/schemes/1/stats/sz_applied", "0");

	/* After the kdamond died the last copies stay; a new "on" resets. */
	fake_damon_kill(e->fk, 0);
	assert_int_equal(wr(e, KD0 "/state", "update_schemes_stats"), -ECANCELED);
	assert_rd(e, CTX0 "/schemes/0/stats/sz_applied", "1000");
	assert_ok(wr(e, KD0 "/state", "on"));
	assert_ok(wr(e, KD0 "/state", "update_schemes_stats"));
	assert_rd(e, CTX0 "/schemes/0/stats/sz_applied", "0");

	/* The user removed the scheme dirs: nothing to copy into, no error. */
	assert_ok(wr(e, CTX0 "/schemes/nr_schemes", "0"));
	assert_ok(wr(e, KD0 "/state", "update_schemes_stats"));
	assert_ok(wr(e, KD0 "/state", "update_schemes_tried_bytes"));
	/* Once committed, the kernel ctx has no schemes: walks are cancelled. */
	assert_ok(wr(e, KD0 "/state", "commit"));
	assert_int_equal(wr(e, KD0 "/state", "update_schemes_tried_bytes"), -ECANCELED);
}

static void test_tuned_intervals(void **state)
{
	struct env *e = *state;

	assert_ok(wr(e, KDS "/nr_kdamonds", "1"));
	stage_paddr(e, 0);
	assert_ok(wr(e, KD0 "/state", "on"));
	/* Default: what was committed. */
	assert_ok(wr(e, CTX0 "/monitoring_attrs/intervals/sample_us", "1"));
	assert_ok(wr(e, KD0 "/state", "update_tuned_intervals"));
	assert_rd(e, CTX0 "/monitoring_attrs/intervals/sample_us", "5000");
	assert_rd(e, CTX0 "/monitoring_attrs/intervals/aggr_us", "100000");

	fake_damon_set_tuned_intervals(e->fk, 0, 20000, 400000);
	assert_ok(wr(e, KD0 "/state", "update_tuned_intervals"));
	assert_rd(e, CTX0 "/monitoring_attrs/intervals/sample_us", "20000");
	assert_rd(e, CTX0 "/monitoring_attrs/intervals/aggr_us", "400000");

	/* A commit with other values resets the tuning to them. */
	assert_ok(wr(e, CTX0 "/monitoring_attrs/intervals/sample_us", "5000"));
	assert_ok(wr(e, CTX0 "/monitoring_attrs/intervals/aggr_us", "100000"));
	assert_ok(wr(e, KD0 "/state", "commit"));
	assert_ok(wr(e, KD0 "/state", "update_tuned_intervals"));
	assert_rd(e, CTX0 "/monitoring_attrs/intervals/sample_us", "5000");
}

static void test_refresh_ms(void **state)
{
	struct env *e = *state;

	assert_ok(wr(e, KDS "/nr_kdamonds", "1"));
	stage_paddr(e, 0);
	assert_ok(wr(e, KD0 "/state", "on"));
	fake_damon_set_stats(e->fk, 0, 4096, 8192);
	fake_damon_set_tuned_intervals(e->fk, 0, 10000, 200000);
	assert_rd(e, CTX0 "/schemes/0/stats/sz_applied", "0");
	assert_ok(wr(e, KD0 "/refresh_ms", "1000"));
	/* The periodic refresh has happened by the time anything is read. */
	assert_rd(e, CTX0 "/schemes/0/stats/sz_applied", "4096");
	assert_rd(e, CTX0 "/schemes/0/quotas/effective_bytes", "8192");
	assert_rd(e, CTX0 "/monitoring_attrs/intervals/sample_us", "10000");
	/* ...and stops with the kdamond. */
	fake_damon_kill(e->fk, 0);
	fake_damon_set_stats(e->fk, 0, 1, 1);
	assert_rd(e, CTX0 "/schemes/0/stats/sz_applied", "4096");
}

/* ---- faults and counters ---- */

static void test_faults(void **state)
{
	struct env *e = *state;
	char buf[64];

	assert_ok(wr(e, KDS "/nr_kdamonds", "1"));
	stage_paddr(e, 0);
	fake_damon_reset_counts(e->fk);

	fake_damon_fail(e->fk, "/state", false, EBUSY, 2);
	assert_int_equal(wr(e, KD0 "/state", "on"), -EBUSY);
	assert_int_equal(wr(e, KD0 "/state", "on"), -EBUSY);
	assert_false(fake_damon_running(e->fk, 0));
	assert_ok(wr(e, KD0 "/state", "on"));
	assert_int_equal(fake_damon_count(e->fk, "on"), 3);
	assert_int_equal(fake_damon_nr_writes(e->fk, "/state"), 3);
	assert_int_equal(fake_damon_last_result(e->fk, 0), 0);

	/* Read faults; a negative count never runs out. */
	fake_damon_fail(e->fk, "/schemes/0/stats/sz_applied", true, EIO, -1);
	for (int i = 0; i < 3; i++)
		assert_int_equal(io_read(e->root, CTX0 "/schemes/0/stats/sz_applied", buf, sizeof(buf)),
				 -EIO);
	/* Only reads were faulted, and only that file. */
	assert_rd(e, CTX0 "/schemes/0/stats/sz_tried", "0");
	assert_int_equal(wr(e, CTX0 "/schemes/0/stats/sz_applied", "1"), -EACCES);
	fake_damon_clear_faults(e->fk);
	assert_rd(e, CTX0 "/schemes/0/stats/sz_applied", "0");

	/* A faulted nr write leaves the tree alone; counters see it. */
	fake_damon_fail(e->fk, "nr_schemes", false, ENOMEM, 1);
	assert_int_equal(wr(e, CTX0 "/schemes/nr_schemes", "1"), -ENOMEM);
	assert_rd(e, CTX0 "/schemes/0/action", "migrate_hot");
	assert_int_equal(fake_damon_nr_writes(e->fk, "nr_schemes"), 1);
	assert_string_equal(fake_damon_last_write(e->fk, "nr_schemes"), "1");
	assert_null(fake_damon_last_write(e->fk, "nr_goals"));
	assert_int_equal(fake_damon_nr_writes(e->fk, "nr_goals"), 0);

	fake_damon_reset_counts(e->fk);
	assert_int_equal(fake_damon_count(e->fk, "on"), 0);
	assert_int_equal(fake_damon_nr_writes(e->fk, ""), 0);
}

/* ---- outside world ---- */

static void test_modules(void **state)
{
	struct env *e = *state;

	assert_ok(wr(e, KDS "/nr_kdamonds", "2"));
	stage_paddr(e, 0);
	fake_damon_set_module(e->fk, "damon_reclaim", true);
	assert_int_equal(wr(e, KD0 "/state", "on"), -EBUSY);
	/* Validation runs before the exclusivity check. */
	assert_ok(wr(e, CTX0 "/monitoring_attrs/nr_regions/min", "1"));
	assert_int_equal(wr(e, KD0 "/state", "on"), -EINVAL);
	assert_ok(wr(e, CTX0 "/monitoring_attrs/nr_regions/min", "10"));
	fake_damon_set_module(e->fk, "damon_reclaim", false);
	assert_rd(e, "sys/module/damon_reclaim/parameters/enabled", "N");

	if (e->profile >= FAKE_KERNEL_6_17) {
		/* As on the Debian cloud kernel: damon_stat runs from boot. */
		fake_damon_set_module(e->fk, "damon_stat", true);
		assert_rd(e, STAT_ENABLED, "Y");
		assert_int_equal(wr(e, KD0 "/state", "on"), -EBUSY);
		assert_int_equal(wr(e, STAT_ENABLED, "maybe"), -EINVAL);
		assert_ok(wr(e, STAT_ENABLED, "N"));
		assert_rd(e, STAT_ENABLED, "N");
		assert_ok(wr(e, KD0 "/state", "on"));
		/* And the other way round. */
		assert_int_equal(wr(e, STAT_ENABLED, "Y"), -EBUSY);
		assert_rd(e, STAT_ENABLED, "N");
		assert_ok(wr(e, KD0 "/state", "off"));
		assert_ok(wr(e, STAT_ENABLED, "1"));
		assert_rd(e, STAT_ENABLED, "Y");
		assert_int_equal(wr(e, KD0 "/state", "on"), -EBUSY);
	} else {
		/* 6.12 has no damon_stat (unless the tree brings one). */
		bool in_tree = tu_exists(e->dir, STAT_ENABLED);

		assert_int_equal(wr(e, STAT_ENABLED, "N"), in_tree ? 0 : -ENOENT);
		assert_ok(wr(e, KD0 "/state", "on"));
	}
}

static void test_kill_and_foreign(void **state)
{
	struct env *e = *state;

	two_kdamonds(e);
	assert_ok(wr(e, KD0 "/state", "on"));
	fake_damon_kill(e->fk, 0);
	assert_false(fake_damon_running(e->fk, 0));
	assert_rd(e, KD0 "/state", "off");
	assert_rd(e, KD0 "/pid", "-1");
	assert_int_equal(wr(e, KD0 "/state", "commit"), -ECANCELED);
	assert_ok(wr(e, KD0 "/state", "off"));
	assert_ok(wr(e, KDS "/nr_kdamonds", "2"));

	/* Someone else runs kdamond 1. */
	stage_paddr(e, 1);
	fake_damon_start_foreign(e->fk, 1);
	assert_true(fake_damon_running(e->fk, 1));
	assert_rd(e, KD1 "/state", "on");
	assert_true(fake_damon_pid(e->fk, 1) > 0);
	assert_int_equal(wr(e, KDS "/nr_kdamonds", "3"), -EBUSY);
	assert_int_equal(wr(e, KD1 "/state", "on"), -EBUSY);
	assert_ok(wr(e, KD1 "/state", "update_schemes_stats"));
	assert_ok(wr(e, KD1 "/state", "off"));
	assert_ok(wr(e, KDS "/nr_kdamonds", "3"));
}

/* A tree that already has a running kdamond (e.g. left by another tool). */
static void test_existing_tree(void **state)
{
	struct env *e = *state;

	assert_ok(wr(e, KDS "/nr_kdamonds", "1"));
	stage_paddr(e, 0);
	assert_ok(wr(e, KD0 "/state", "on"));
	fake_damon_free(e->fk);
	e->fk = fake_damon_new(e->dir, e->profile);
	assert_true(fake_damon_running(e->fk, 0));
	assert_int_equal(wr(e, KDS "/nr_kdamonds", "1"), -EBUSY);
	assert_ok(wr(e, KD0 "/state", "off"));
}

static void test_passthrough(void **state)
{
	struct env *e = *state;
	char *other = tu_mkdtemp();
	int oroot;

	/* Outside DAMON: plain writes into existing files. */
	tu_write(e->dir, "proc/sys/kernel/numa_balancing", "1\n");
	assert_ok(wr(e, "proc/sys/kernel/numa_balancing", "0"));
	assert_rd(e, "proc/sys/kernel/numa_balancing", "0");
	assert_int_equal(fake_damon_nr_writes(e->fk, "numa_balancing"), 1);

	/* Another root is none of the fake's business. */
	tu_write(other, KDS "/nr_kdamonds", "0\n");
	oroot = io_root_open(other);
	assert_true(oroot >= 0);
	assert_ok(io_write(oroot, KDS "/nr_kdamonds", "5"));
	{
		char *v = tu_read(other, KDS "/nr_kdamonds");

		assert_string_equal(v, "5");
		free(v);
	}
	assert_false(tu_exists(other, KD0));
	close(oroot);
	tu_rmtree(other);
	free(other);
}

#define PROFILE_TESTS(fn)                                             \
	cmocka_unit_test_setup_teardown(fn, setup_612, teardown),     \
	cmocka_unit_test_setup_teardown(fn, setup_617, teardown),     \
	cmocka_unit_test_setup_teardown(fn, setup_73, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		PROFILE_TESTS(test_defaults),
		PROFILE_TESTS(test_nr_rewrite_wipes),
		PROFILE_TESTS(test_parsing),
		PROFILE_TESTS(test_keywords),
		PROFILE_TESTS(test_on_off_commit),
		PROFILE_TESTS(test_on_invalid),
		PROFILE_TESTS(test_failed_on_destroys_ctx),
		PROFILE_TESTS(test_stats_copy),
		PROFILE_TESTS(test_first_window),
		cmocka_unit_test_setup_teardown(test_tuned_intervals, setup_617, teardown),
		cmocka_unit_test_setup_teardown(test_refresh_ms, setup_617, teardown),
		cmocka_unit_test_setup_teardown(test_refresh_ms, setup_73, teardown),
		cmocka_unit_test_setup_teardown(test_faults, setup_617, teardown),
		PROFILE_TESTS(test_modules),
		cmocka_unit_test_setup_teardown(test_kill_and_foreign, setup_617, teardown),
		cmocka_unit_test_setup_teardown(test_existing_tree, setup_73, teardown),
		cmocka_unit_test_setup_teardown(test_passthrough, setup_612, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
