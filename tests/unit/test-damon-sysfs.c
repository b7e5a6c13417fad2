/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The DAMON sysfs writer/reader against the fake kernel. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "damon_sysfs.h"
#include "fake_damon.h"
#include "kernel_features.h"
#include "plan.h"
#include "sysfs_io.h"
#include "testutil.h"
#include "tiers.h"

#define KD0 "sys/kernel/mm/damon/admin/kdamonds/0/"
#define S0 KD0 "contexts/0/schemes/0/"

struct env {
	char *dir;
	int root;
	struct fake_damon *fd;
	struct damon_io io;
	struct topology topo;
	struct tier_map tiers;
	struct plan plan;
	uint64_t slept[32];
	unsigned nslept;
	bool stop_on_sleep; /* somebody turns kdamond 0 off while we wait */
};

static void rec_sleep(uint64_t usec, void *ud)
{
	struct env *e = ud;

	if (e->nslept < 32)
		e->slept[e->nslept++] = usec;
	if (e->stop_on_sleep)
		assert_int_equal(io_write(e->root, "sys/kernel/mm/damon/admin/kdamonds/0/state", "off"), 0);
	e->stop_on_sleep = false;
}

static struct env *env_new_tuner(enum fake_profile prof, enum quota_tuner tuner)
{
	struct env *e = calloc(1, sizeof(*e));
	struct config c;
	char err[256];

	e->dir = tu_fixture_copy("vm-2node");
	e->fd = fake_damon_new(e->dir, prof);
	assert_non_null(e->fd);
	e->root = io_root_open(e->dir);
	assert_true(e->root >= 0);
	damon_io_init(&e->io, e->root);
	e->io.sleep_us = rec_sleep;
	e->io.sleep_userdata = e;
	assert_int_equal(topology_read(e->root, &e->topo, err, sizeof(err)), 0);
	assert_int_equal(tiers_build(&e->topo, &e->tiers, err, sizeof(err)), 0);
	assert_int_equal(damon_set_nr_kdamonds(&e->io, 2), 0);
	assert_int_equal(features_probe(e->root, "sys/kernel/mm/damon/admin/kdamonds/0", &e->io.feat), 0);
	config_init(&c);
	c.quota_tuner = tuner;
	assert_int_equal(plan_build(&e->topo, &e->tiers, &e->io.feat, &c, &e->plan, err, sizeof(err)), 0);
	return e;
}

/* Most tests stage the kernel goal tuner's plan: it has the most files. */
static struct env *env_new(enum fake_profile prof)
{
	return env_new_tuner(prof, QUOTA_TUNER_KERNEL);
}

static void env_free(struct env *e)
{
	fake_damon_free(e->fd);
	close(e->root);
	tu_rmtree(e->dir);
	free(e->dir);
	free(e);
}

static void assert_file(struct env *e, const char *rel, const char *want)
{
	char *v = tu_read(e->dir, rel);

	if (!v)
		fail_msg("%s is missing", rel);
	if (strcmp(v, want) != 0)
		fail_msg("%s is \"%s\", expected \"%s\"", rel, v, want);
	free(v);
}

static void test_stage_617(void **state)
{
	struct env *e = env_new(FAKE_KERNEL_6_17);

	assert_int_equal(damon_stage(&e->io, 0, &e->plan.kd[0], false), 0);
	assert_file(e, KD0 "contexts/0/operations", "paddr");
	assert_file(e, KD0 "contexts/0/targets/0/regions/nr_regions", "1");
	assert_file(e, KD0 "contexts/0/targets/0/regions/0/start", "0");
	assert_file(e, KD0 "contexts/0/targets/0/regions/0/end", "536870912");
	assert_file(e, S0 "action", "migrate_cold");
	assert_file(e, S0 "target_nid", "1");
	assert_file(e, S0 "access_pattern/sz/max", "18446744073709551615");
	assert_file(e, S0 "access_pattern/age/max", "4294967295");
	assert_file(e, S0 "quotas/goals/0/target_metric", "node_mem_free_bp");
	assert_file(e, S0 "quotas/goals/0/nid", "0");
	assert_file(e, S0 "ops_filters/0/type", "young");
	assert_file(e, S0 "ops_filters/0/matching", "Y");
	assert_file(e, S0 "ops_filters/0/allow", "N");
	assert_file(e, KD0 "contexts/0/monitoring_attrs/intervals/intervals_goal/access_bp", "400");
	assert_file(e, KD0 "refresh_ms", "1000");

	/* Staging again must not rewrite any nr_* (that would wipe children). */
	unsigned before = fake_damon_nr_writes(e->fd, "nr_schemes");
	assert_int_equal(damon_stage(&e->io, 0, &e->plan.kd[0], false), 0);
	assert_int_equal(fake_damon_nr_writes(e->fd, "nr_schemes"), before);
	assert_int_equal(fake_damon_nr_writes(e->fd, "nr_goals"), 1);

	char what[512] = "";
	assert_int_equal(damon_check_drift(&e->io, 0, &e->plan.kd[0], NULL, what, sizeof(what)), 0);
	env_free(e);
}

static void test_stage_612_legacy_filter(void **state)
{
	struct env *e = env_new(FAKE_KERNEL_6_12);

	assert_false(e->io.feat.ops_filters);
	assert_false(e->io.feat.node_metrics);
	assert_int_equal(damon_stage(&e->io, 1, &e->plan.kd[1], false), 0);
	/* "allow only young" without the allow file: reject the not-young. */
	assert_file(e, "sys/kernel/mm/damon/admin/kdamonds/1/contexts/0/schemes/0/filters/0/type", "young");
	assert_file(e, "sys/kernel/mm/damon/admin/kdamonds/1/contexts/0/schemes/0/filters/0/matching", "N");
	assert_file(e, "sys/kernel/mm/damon/admin/kdamonds/1/contexts/0/schemes/0/quotas/goals/0/target_metric",
		    "user_input");
	assert_false(tu_exists(e->dir, "sys/kernel/mm/damon/admin/kdamonds/1/contexts/0/schemes/0/quotas/goals/0/nid"));
	assert_int_equal(damon_state_cmd(&e->io, 1, "on"), 0);
	assert_int_equal(damon_feed_goal(&e->io, 1, 0, 6400), 0);
	assert_file(e, "sys/kernel/mm/damon/admin/kdamonds/1/contexts/0/schemes/0/quotas/goals/0/current_value", "6400");
	assert_int_equal(fake_damon_count(e->fd, "commit_schemes_quota_goals"), 1);
	env_free(e);
}

static void test_on_off_and_read(void **state)
{
	struct env *e = env_new(FAKE_KERNEL_6_17);
	struct kdamond_obs o;

	assert_int_equal(damon_stage(&e->io, 0, &e->plan.kd[0], false), 0);
	assert_int_equal(damon_state_cmd(&e->io, 0, "on"), 0);
	assert_int_equal(damon_read_kdamond(&e->io, 0, &o), 0);
	assert_true(o.on);
	assert_true(o.pid > 0);
	/* Never resize while a kdamond runs. */
	assert_int_equal(damon_set_nr_kdamonds(&e->io, 3), -EBUSY);
	assert_int_equal(fake_damon_nr_writes(e->fd, "nr_kdamonds"), 1);

	fake_damon_set_stats(e->fd, 0, 5 << 20, 12345);
	struct scheme_stats st;
	assert_int_equal(damon_read_stats(&e->io, 0, true, true, &st), 0);
	assert_int_equal(st.sz_applied, 5 << 20);
	assert_int_equal(st.effective_bytes, 12345);

	assert_int_equal(damon_state_cmd(&e->io, 0, "off"), 0);
	assert_int_equal(damon_read_kdamond(&e->io, 0, &o), 0);
	assert_false(o.on);
	assert_int_equal(o.pid, -1);
	env_free(e);
}

/* Before 6.17 (no refresh_ms) the controller's charge counters come from
 * an update_schemes_stats command; with refresh the files are read as
 * they are. */
static void test_read_charge(void **state)
{
	struct env *e = env_new(FAKE_KERNEL_6_12);
	const struct fake_scheme_stats st = { .sz_tried = 96 << 20, .sz_applied = 3 << 20 };
	uint64_t tried = 7, applied = 7;

	assert_int_equal(damon_stage(&e->io, 0, &e->plan.kd[0], false), 0);
	assert_int_equal(damon_state_cmd(&e->io, 0, "on"), 0);
	fake_damon_set_scheme_stats(e->fd, 0, 0, &st);
	unsigned cmds = fake_damon_count(e->fd, "update_schemes_stats");

	assert_int_equal(damon_read_charge(&e->io, 0, false, &tried, &applied, NULL), 0);
	assert_int_equal(tried, 0);
	assert_int_equal(fake_damon_count(e->fd, "update_schemes_stats"), cmds);
	assert_int_equal(damon_read_charge(&e->io, 0, true, &tried, &applied, NULL), 0);
	assert_int_equal(tried, 96 << 20);
	assert_int_equal(applied, 3 << 20);
	assert_int_equal(fake_damon_count(e->fd, "update_schemes_stats"), cmds + 1);

	/* A command the kernel refuses (the kdamond stopped) leaves the
	 * outputs as they were. */
	assert_int_equal(damon_state_cmd(&e->io, 0, "off"), 0);
	assert_true(damon_read_charge(&e->io, 0, true, &tried, &applied, NULL) < 0);
	assert_int_equal(tried, 96 << 20);
	env_free(e);
}

/* damon_start() turns the kdamond on with its scheme matching nothing;
 * damon_arm() waits for the first quota window, then commits the plan. */
static void start_and_arm(enum fake_profile prof)
{
	struct env *e = env_new_tuner(prof, QUOTA_TUNER_DAEMON);
	unsigned commits;

	assert_int_equal(damon_start(&e->io, 0, &e->plan.kd[0]), 0);
	assert_true(fake_damon_running(e->fd, 0));
	assert_false(fake_damon_unlimited_first_pass(e->fd, 0));
	assert_file(e, S0 "access_pattern/age/min", "4294967295");
	commits = fake_damon_count(e->fd, "commit");
	e->nslept = 0;
	assert_int_equal(damon_arm(&e->io, 0, &e->plan.kd[0]), 0);
	assert_file(e, S0 "access_pattern/age/min", "0");
	assert_int_equal(fake_damon_count(e->fd, "commit"), commits + 1);
	/* Without refresh_ms nothing asked before: the first answer is "no
	 * window yet", and the second, 20 ms later, has one. */
	if (prof == FAKE_KERNEL_6_12) {
		assert_int_equal(e->nslept, 1);
		assert_int_equal(e->slept[0], 20000);
	}
	env_free(e);
}

static void test_start_and_arm(void **state)
{
	start_and_arm(FAKE_KERNEL_6_12);
	start_and_arm(FAKE_KERNEL_6_17);
	start_and_arm(FAKE_KERNEL_7_3);
}

/* A kernel that never reports an effective quota: armed anyway after the
 * wait (2 s here: 20 windows of 100 ms), with a warning. */
static void test_arm_without_effective_quota(void **state)
{
	struct env *e = env_new_tuner(FAKE_KERNEL_6_12, QUOTA_TUNER_DAEMON);
	assert_int_equal(damon_start(&e->io, 0, &e->plan.kd[0]), 0);
	/* The fake reports quotas/bytes; 0 (no quota) reads as no window. */
	assert_int_equal(io_write(e->root, S0 "quotas/bytes", "0"), 0);
	e->nslept = 0;
	tu_log_capture_start();
	assert_int_equal(damon_arm(&e->io, 0, &e->plan.kd[0]), 0);
	assert_true(tu_log_contains("kdamond 0: the kernel reported no effective quota in "
				    "/" S0 "quotas/effective_bytes within 2000 ms; arming"));
	tu_log_capture_stop();
	assert_file(e, S0 "access_pattern/age/min", "0");
	/* Polled every 20 ms (the record keeps the first 32 sleeps). */
	assert_int_equal(e->nslept, 32);
	assert_int_equal(e->slept[31], 20000);
	env_free(e);
}

/* The effective quota cannot be read (missing, or an I/O error): damon_arm
 * fails naming the file and commits nothing, so the kdamond stays disarmed. */
static void test_arm_unreadable_effective_quota(void **state)
{
	int errs[] = { ENOENT, EIO };

	for (unsigned i = 0; i < 2; i++) {
		struct env *e = env_new_tuner(FAKE_KERNEL_6_17, QUOTA_TUNER_DAEMON);
		unsigned commits;

		assert_int_equal(damon_start(&e->io, 0, &e->plan.kd[0]), 0);
		commits = fake_damon_count(e->fd, "commit");
		fake_damon_fail(e->fd, "quotas/effective_bytes", true, errs[i], -1);
		assert_int_equal(damon_arm(&e->io, 0, &e->plan.kd[0]), -errs[i]);
		assert_string_equal(e->io.failed_path, "/" S0 "quotas/effective_bytes");
		assert_int_equal(fake_damon_count(e->fd, "commit"), commits);
		assert_file(e, S0 "access_pattern/age/min", "4294967295");
		env_free(e);
	}
}

static void test_drift_detected(void **state)
{
	struct env *e = env_new(FAKE_KERNEL_6_17);
	char what[512] = "";

	assert_int_equal(damon_stage(&e->io, 0, &e->plan.kd[0], false), 0);
	tu_write(e->dir, S0 "quotas/bytes", "4096");
	assert_int_equal(damon_check_drift(&e->io, 0, &e->plan.kd[0], NULL, what, sizeof(what)), 1);
	assert_non_null(strstr(what, "quotas/bytes is \"4096\""));

	/* Someone rewrote nr_schemes: the whole scheme is gone. */
	assert_int_equal(damon_stage(&e->io, 0, &e->plan.kd[0], false), 0);
	assert_int_equal(io_write(e->root, KD0 "contexts/0/schemes/nr_schemes", "1"), 0);
	assert_int_equal(damon_check_drift(&e->io, 0, &e->plan.kd[0], NULL, what, sizeof(what)), 1);
	assert_non_null(strstr(what, "action is \"stat\""));

	/* Some files (memcg_path, a goal's path, state, pid) answer EBUSY
	 * while anyone holds the kernel's DAMON sysfs lock, the kdamond's own
	 * periodic refresh included: a busy read is retried, not drift and
	 * not an error. */
	assert_int_equal(damon_stage(&e->io, 0, &e->plan.kd[0], false), 0);
	fake_damon_fail(e->fd, "schemes/0/action", true, EBUSY, 2);
	assert_int_equal(damon_check_drift(&e->io, 0, &e->plan.kd[0], NULL, what, sizeof(what)), 0);
	fake_damon_fail(e->fd, "schemes/0/action", true, EBUSY, -1);
	assert_int_equal(damon_check_drift(&e->io, 0, &e->plan.kd[0], NULL, what, sizeof(what)), -EBUSY);
	assert_non_null(strstr(e->io.failed_path, "schemes/0/action"));
	fake_damon_clear_faults(e->fd);
	env_free(e);
}

static void test_ebusy_backoff(void **state)
{
	struct env *e = env_new(FAKE_KERNEL_6_17);

	assert_int_equal(damon_stage(&e->io, 0, &e->plan.kd[0], false), 0);
	fake_damon_fail(e->fd, "/state", false, EBUSY, 3);
	assert_int_equal(damon_state_cmd(&e->io, 0, "on"), 0);
	assert_int_equal(e->nslept, 3);
	assert_int_equal(e->slept[0], 1000);
	assert_int_equal(e->slept[1], 2000);
	assert_int_equal(e->slept[2], 4000);
	assert_true(fake_damon_running(e->fd, 0));

	/* Persistent EBUSY: give up after the bounded retries, with one message. */
	e->nslept = 0;
	tu_log_capture_start();
	fake_damon_fail(e->fd, "/state", false, EBUSY, -1);
	assert_int_equal(damon_state_cmd(&e->io, 0, "commit"), -EBUSY);
	assert_int_equal(e->nslept, 10);
	assert_int_equal(e->slept[9], 512000);
	assert_true(tu_log_contains("still busy after 10 retries over 1023 ms"));
	assert_true(tu_log_contains("kdamonds/0/state"));
	assert_non_null(strstr(e->io.failed_path, "kdamonds/0/state"));
	tu_log_capture_stop();
	fake_damon_clear_faults(e->fd);
	env_free(e);
}

/* Commands go only to a kdamond that reads "on", looked at before every
 * attempt: from 6.14 until the kernel's fix a command meeting a stopping
 * kdamond may hang the DAMON sysfs or corrupt its command list. */
static void test_no_command_to_stopped(void **state)
{
	struct env *e = env_new(FAKE_KERNEL_6_17);

	assert_int_equal(damon_stage(&e->io, 0, &e->plan.kd[0], false), 0);
	assert_int_equal(damon_state_cmd(&e->io, 0, "on"), 0);
	assert_int_equal(damon_state_cmd(&e->io, 0, "update_schemes_stats"), 0);
	assert_int_equal(fake_damon_count(e->fd, "update_schemes_stats"), 1);

	/* Turned off while our command waited out an EBUSY: not sent. */
	fake_damon_fail(e->fd, "kdamonds/0/state=update_schemes_stats", false, EBUSY, 1);
	e->stop_on_sleep = true;
	assert_int_equal(damon_state_cmd(&e->io, 0, "update_schemes_stats"), -ESRCH);
	assert_non_null(strstr(e->io.failed_path, "kdamonds/0/state"));
	assert_false(fake_damon_running(e->fd, 0));
	/* Off: nothing but on/off is written any more. */
	unsigned writes = fake_damon_nr_writes(e->fd, "/state");
	assert_int_equal(damon_state_cmd(&e->io, 0, "commit"), -ESRCH);
	assert_int_equal(damon_state_cmd(&e->io, 0, "update_tuned_intervals"), -ESRCH);
	assert_int_equal(fake_damon_nr_writes(e->fd, "/state"), writes);
	assert_int_equal(damon_state_cmd(&e->io, 0, "on"), 0);
	assert_int_equal(damon_state_cmd(&e->io, 0, "update_schemes_stats"), 0);
	/* A state that cannot be read does not stop the command: the write
	 * itself says what is wrong, and supervision reads state again. */
	fake_damon_fail(e->fd, "kdamonds/0/state", true, EIO, 1);
	assert_int_equal(damon_state_cmd(&e->io, 0, "update_schemes_stats"), 0);
	fake_damon_clear_faults(e->fd);
	env_free(e);
}

static void test_dry_run_touches_nothing(void **state)
{
	struct env *e = env_new(FAKE_KERNEL_6_17);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	unsigned writes = fake_damon_nr_writes(e->fd, "");

	e->io.dry_run = f;
	assert_int_equal(damon_stage(&e->io, 1, &e->plan.kd[1], false), 0);
	assert_int_equal(damon_state_cmd(&e->io, 1, "on"), 0);
	fclose(f);
	assert_int_equal(fake_damon_nr_writes(e->fd, ""), writes);
	assert_non_null(strstr(buf, "write /sys/kernel/mm/damon/admin/kdamonds/1/contexts/0/schemes/0/action migrate_hot\n"));
	assert_non_null(strstr(buf, "write /sys/kernel/mm/damon/admin/kdamonds/1/state on\n"));
	assert_false(fake_damon_running(e->fd, 1));
	free(buf);
	env_free(e);
}

static void test_kernel_rejects(void **state)
{
	struct env *e = env_new(FAKE_KERNEL_6_17);
	struct plan_kdamond bad = e->plan.kd[0];

	/* min_nr_regions < 3 is rejected at "on", like the kernel does. */
	bad.min_nr_regions = 2;
	assert_int_equal(damon_stage(&e->io, 0, &bad, false), 0);
	assert_int_equal(damon_state_cmd(&e->io, 0, "on"), -EINVAL);
	assert_non_null(strstr(e->io.failed_path, "kdamonds/0/state"));
	env_free(e);
}

/* A refused commit: from 6.14 the write fails and the kdamond runs on; before,
 * the write succeeds and the kdamond stops, which only state tells. */
static void test_commit_refused(void **state)
{
	static const enum fake_profile profiles[] = { FAKE_KERNEL_6_17, FAKE_KERNEL_6_12 };

	for (unsigned i = 0; i < 2; i++) {
		struct env *e = env_new(profiles[i]);
		struct plan_kdamond bad = e->plan.kd[0];
		bool old = profiles[i] == FAKE_KERNEL_6_12;

		assert_int_equal(damon_stage(&e->io, 0, &e->plan.kd[0], false), 0);
		assert_int_equal(damon_state_cmd(&e->io, 0, "on"), 0);
		assert_int_equal(damon_commit(&e->io, 0, &e->plan.kd[0]), 0);
		assert_true(fake_damon_running(e->fd, 0));
		bad.min_nr_regions = 2;
		e->io.failed_path[0] = 0;
		assert_int_equal(damon_commit(&e->io, 0, &bad), old ? -ESRCH : -EINVAL);
		assert_non_null(strstr(e->io.failed_path, "kdamonds/0/state"));
		assert_int_equal(fake_damon_running(e->fd, 0), !old);
		env_free(e);
	}
}

static void test_commit_keeps_tuned_intervals(void **state)
{
	struct env *e = env_new(FAKE_KERNEL_6_17);
	struct plan_kdamond kd = e->plan.kd[0];

	assert_int_equal(damon_stage(&e->io, 0, &kd, false), 0);
	assert_int_equal(damon_state_cmd(&e->io, 0, "on"), 0);
	fake_damon_set_tuned_intervals(e->fd, 0, 80000, 1600000);
	assert_int_equal(damon_state_cmd(&e->io, 0, "update_tuned_intervals"), 0);
	/* Within the bounds: the tuned values stay for the commit. */
	assert_int_equal(damon_commit(&e->io, 0, &kd), 0);
	assert_file(e, KD0 "contexts/0/monitoring_attrs/intervals/sample_us", "80000");
	/* New bounds exclude it: the configured values are committed, with the
	 * kernel's refresh held off meanwhile (it would overwrite them)... */
	kd.ig_max_sample_us = 50000;
	unsigned refresh_writes = fake_damon_nr_writes(e->fd, "/refresh_ms");
	assert_int_equal(damon_commit(&e->io, 0, &kd), 0);
	assert_int_equal(fake_damon_nr_writes(e->fd, "/refresh_ms"), refresh_writes + 2);
	assert_file(e, KD0 "contexts/0/monitoring_attrs/intervals/intervals_goal/max_sample_us", "50000");
	/* ...and back on after it. */
	assert_file(e, KD0 "refresh_ms", "1000");
	/* A plain stage never leaves the refresh off. */
	kd.ig_max_sample_us = 40000;
	assert_int_equal(damon_stage(&e->io, 0, &kd, true), 0);
	assert_file(e, KD0 "refresh_ms", "1000");
	env_free(e);
}

/* The daemon tuner's plan: no goals; damon_set_quota() writes only the
 * bytes and commits, keeping tuned intervals; the bytes are not drift. */
static void test_daemon_quota(void **state)
{
	struct env *e = env_new_tuner(FAKE_KERNEL_6_17, QUOTA_TUNER_DAEMON);
	struct plan_kdamond kd = e->plan.kd[1];
	char what[512] = "";

	assert_true(kd.scheme.daemon_quota);
	assert_int_equal(damon_stage(&e->io, 0, &kd, false), 0);
	assert_file(e, S0 "quotas/goals/nr_goals", "0");
	assert_int_equal(damon_state_cmd(&e->io, 0, "on"), 0);
	unsigned commits = fake_damon_count(e->fd, "commit");
	unsigned writes = fake_damon_nr_writes(e->fd, "");

	kd.scheme.quota_bytes = 123 * 4096;
	assert_int_equal(damon_set_quota(&e->io, 0, &kd), 0);
	assert_file(e, S0 "quotas/bytes", "503808");
	assert_int_equal(fake_damon_count(e->fd, "commit"), commits + 1);
	/* bytes, update_tuned_intervals and commit, nothing else. */
	assert_int_equal(fake_damon_nr_writes(e->fd, ""), writes + 3);
	/* What the controller wrote is not drift, whatever the plan says. */
	assert_int_equal(damon_check_drift(&e->io, 0, &e->plan.kd[1], NULL, what, sizeof(what)), 0);

	/* refresh_ms on, but this kdamond loses 6.17's shared refresh
	 * deadline: its interval files still hold the start values, and a
	 * commit of those would reset the tuning. */
	fake_damon_miss_refresh(e->fd, 0, true);
	fake_damon_set_tuned_intervals(e->fd, 0, 40000, 800000);
	kd.scheme.quota_bytes = 200 * 4096;
	assert_int_equal(damon_set_quota(&e->io, 0, &kd), 0);
	assert_int_equal(damon_state_cmd(&e->io, 0, "update_tuned_intervals"), 0);
	assert_file(e, KD0 "contexts/0/monitoring_attrs/intervals/sample_us", "40000");
	assert_file(e, KD0 "contexts/0/monitoring_attrs/intervals/aggr_us", "800000");
	fake_damon_miss_refresh(e->fd, 0, false);

	/* Without refresh_ms the tuned intervals are fetched first, or the
	 * commit would reset them. */
	fake_damon_set_tuned_intervals(e->fd, 0, 80000, 1600000);
	kd.refresh_ms = 0;
	assert_int_equal(damon_set_quota(&e->io, 0, &kd), 0);
	assert_file(e, KD0 "contexts/0/monitoring_attrs/intervals/sample_us", "80000");
	assert_int_equal(fake_damon_count(e->fd, "update_tuned_intervals"), 4);
	env_free(e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stage_617),
		cmocka_unit_test(test_stage_612_legacy_filter),
		cmocka_unit_test(test_on_off_and_read),
		cmocka_unit_test(test_read_charge),
		cmocka_unit_test(test_start_and_arm),
		cmocka_unit_test(test_arm_without_effective_quota),
		cmocka_unit_test(test_arm_unreadable_effective_quota),
		cmocka_unit_test(test_drift_detected),
		cmocka_unit_test(test_ebusy_backoff),
		cmocka_unit_test(test_no_command_to_stopped),
		cmocka_unit_test(test_dry_run_touches_nothing),
		cmocka_unit_test(test_kernel_rejects),
		cmocka_unit_test(test_commit_refused),
		cmocka_unit_test(test_commit_keeps_tuned_intervals),
		cmocka_unit_test(test_daemon_quota),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
