/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Feature probing against the fake kernel's profiles. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fake_damon.h"
#include "kernel_features.h"
#include "sysfs_io.h"
#include "testutil.h"

#define KD0 "sys/kernel/mm/damon/admin/kdamonds/0"

static void probe(enum fake_profile prof, struct damon_features *f)
{
	char *dir = tu_mkdtemp();
	struct fake_damon *fd = fake_damon_new(dir, prof);
	int root = io_root_open(dir);

	assert_int_equal(io_write(root, "sys/kernel/mm/damon/admin/kdamonds/nr_kdamonds", "1"), 0);
	assert_int_equal(features_probe(root, KD0, f), 0);
	/* The read-only probe (--dry-run) sees the same in a staged tree, and
	 * refuses a tree that is not staged. */
	struct damon_features ro;
	unsigned writes = fake_damon_nr_writes(fd, "");
	assert_int_equal(features_probe_readonly(root, "sys/kernel/mm/damon/admin/kdamonds", 1, &ro), 0);
	assert_memory_equal(&ro, f, sizeof(ro));
	assert_int_equal(fake_damon_nr_writes(fd, ""), writes);
	/* More than one scheme (the exchange's stat schemes) is a staged tree
	 * too; a count that is not a number is not. */
	char *n = tu_read(dir, KD0 "/contexts/0/schemes/nr_schemes");
	tu_write(dir, KD0 "/contexts/0/schemes/nr_schemes", "9\n");
	assert_int_equal(features_probe_readonly(root, "sys/kernel/mm/damon/admin/kdamonds", 1, &ro), 0);
	tu_write(dir, KD0 "/contexts/0/schemes/nr_schemes", "nine\n");
	assert_int_equal(features_probe_readonly(root, "sys/kernel/mm/damon/admin/kdamonds", 1, &ro), -ENODATA);
	tu_write(dir, KD0 "/contexts/0/schemes/nr_schemes", n);
	free(n);
	assert_int_equal(io_write(root, KD0 "/contexts/nr_contexts", "0"), 0);
	assert_int_equal(features_probe_readonly(root, "sys/kernel/mm/damon/admin/kdamonds", 1, &ro), -ENODATA);
	close(root);
	fake_damon_free(fd);
	tu_rmtree(dir);
	free(dir);
}

static void test_617(void **state)
{
	struct damon_features f;
	char buf[512];

	probe(FAKE_KERNEL_6_17, &f);
	assert_true(f.sysfs && f.paddr && f.migrate && f.quota_goals && f.node_metrics);
	assert_true(f.intervals_goal && f.ops_filters && f.filter_allow && f.young_filter);
	assert_true(f.refresh_ms);
	assert_false(f.addr_unit);
	assert_false(f.goal_tuner);
	assert_null(features_missing(&f));
	assert_int_equal(features_format(&f, buf, sizeof(buf)), 0);
	assert_non_null(strstr(buf, "node_mem_goals"));
	assert_non_null(strstr(buf, "intervals_goal"));
}

static void test_612(void **state)
{
	struct damon_features f;

	probe(FAKE_KERNEL_6_12, &f);
	assert_true(f.migrate && f.quota_goals && f.goal_metric && f.young_filter && f.filters);
	assert_false(f.node_metrics);
	assert_false(f.intervals_goal);
	assert_false(f.ops_filters);
	assert_false(f.filter_allow);
	assert_false(f.refresh_ms);
	assert_null(features_missing(&f));
}

static void test_73(void **state)
{
	struct damon_features f;

	probe(FAKE_KERNEL_7_3, &f);
	assert_true(f.addr_unit && f.goal_tuner && f.node_metrics && f.ops_filters);
}

static void test_missing(void **state)
{
	struct damon_features f = { 0 };
	const struct feature_requirement *m;

	m = features_missing(&f);
	assert_non_null(m);
	assert_non_null(strstr(m->kconfig, "CONFIG_DAMON_SYSFS"));
	f.sysfs = f.paddr = true;
	m = features_missing(&f);
	assert_string_equal(m->since, "6.11");
	assert_non_null(strstr(m->what, "migrate_hot"));
}

static void test_modules(void **state)
{
	char *dir = tu_mkdtemp();
	struct damon_modules m;
	int root;

	tu_write(dir, "sys/module/damon_stat/parameters/enabled", "Y");
	tu_write(dir, "sys/module/damon_reclaim/parameters/enabled", "N");
	root = io_root_open(dir);
	assert_int_equal(features_read_modules(root, &m), 0);
	assert_true(m.mod[DAMON_MOD_STAT].present && m.mod[DAMON_MOD_STAT].enabled);
	assert_true(m.mod[DAMON_MOD_RECLAIM].present && !m.mod[DAMON_MOD_RECLAIM].enabled);
	assert_false(m.mod[DAMON_MOD_LRU_SORT].present);
	close(root);
	tu_rmtree(dir);
	free(dir);
}

static void test_no_sysfs(void **state)
{
	char *dir = tu_mkdtemp();
	struct damon_features f;
	int root = io_root_open(dir);

	assert_int_equal(features_probe(root, NULL, &f), 0);
	assert_false(f.sysfs);
	close(root);
	tu_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_617),
		cmocka_unit_test(test_612),
		cmocka_unit_test(test_73),
		cmocka_unit_test(test_missing),
		cmocka_unit_test(test_modules),
		cmocka_unit_test(test_no_sysfs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
