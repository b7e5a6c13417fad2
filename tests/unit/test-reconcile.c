/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The reconciler end to end against the fake kernel: observe, decide and
 * act wired together, with the kernel's answers.  What each decision is,
 * case by case, is table-tested without any filesystem in test-decide.c.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "exit_codes.h"
#include "fake_damon.h"
#include "quota_ctl.h"
#include "exchange.h"
#include "reconcile.h"
#include "sysfs_io.h"
#include "testutil.h"

#define SEC 1000000ull
#define ADMIN "sys/kernel/mm/damon/admin/kdamonds/"
#define MiB (1024ull * 1024)

struct env {
	char *dir, *state, *conf;
	int root;
	struct fake_damon *fd;
	struct reconciler *rc;
	uint64_t now;
};

static void no_sleep(uint64_t usec, void *ud)
{
}

static void reconciler_open(struct env *e, const struct config *c)
{
	const struct reconcile_options o = { .root = e->root, .config_path = e->conf };

	assert_int_equal(reconcile_new(&o, c, &e->rc), 0);
	reconcile_set_sleep(e->rc, no_sleep, NULL);
}

/* The exchange's histogram schemes make every kdamond nine schemes, which
 * the fake kernel copies file by file on every refresh: the tests of
 * everything else run without them; test_exchange runs with. */
#define NO_EXCHANGE "[quota]\nexchange = no\n"

/* What a test's config text gets appended: NO_EXCHANGE unless it says. */
static const char *exchange_default(const char *conf_text)
{
	return conf_text && strstr(conf_text, "exchange") ? "" : NO_EXCHANGE;
}

static struct env *env_new_fixture(const char *fixture, enum fake_profile prof, const char *conf_text)
{
	struct env *e = calloc(1, sizeof(*e));
	struct config c;
	char text[1024];
	struct config_error err;

	e->dir = tu_fixture_copy(fixture);
	e->state = tu_mkdtemp();
	e->fd = fake_damon_new(e->dir, prof);
	e->root = io_root_open(e->dir);
	assert_true(e->root >= 0);
	snprintf(text, sizeof(text), "[daemon]\nstate_dir = %s\n%s%s", e->state, conf_text ? conf_text : "",
		 exchange_default(conf_text));
	tu_write(e->state, "damon-tierd.conf", text);
	if (asprintf(&e->conf, "%s/damon-tierd.conf", e->state) < 0)
		fail();
	assert_int_equal(config_load(e->conf, &c, &err), 0);
	reconciler_open(e, &c);
	e->now = 1000 * SEC;
	return e;
}

static struct env *env_new(enum fake_profile prof)
{
	return env_new_fixture("vm-2node", prof, NULL);
}

/* Periods far apart, so that a test sees the controller's ticks alone. */
#define QUIET "interval = 10min\nstatus_interval = 10min\nverify_interval = 10min\n"

/* The goal tests: DAMON's own goal tuner. */
#define KERNEL_TUNER "[quota]\ntuner = kernel\n"
static struct env *env_new_kernel(enum fake_profile prof)
{
	return env_new_fixture("vm-2node", prof, KERNEL_TUNER);
}

static void env_free(struct env *e)
{
	reconcile_free(e->rc);
	fake_damon_free(e->fd);
	close(e->root);
	tu_rmtree(e->dir);
	tu_rmtree(e->state);
	free(e->dir);
	free(e->state);
	free(e->conf);
	free(e);
}

/* Run the machine like the event loop does, advancing fake time. */
static void run(struct env *e, unsigned steps)
{
	for (unsigned i = 0; i < steps && reconcile_state(e->rc) != RC_DONE; i++)
		e->now += reconcile_step(e->rc, e->now);
}

/* Run for the time of n periods (daemon.interval), every timer on time. */
static void run_periods(struct env *e, unsigned n)
{
	uint64_t end = e->now + n * reconcile_config(e->rc)->interval_us;

	while (e->now < end && reconcile_state(e->rc) != RC_DONE) {
		uint64_t d = reconcile_step(e->rc, e->now);

		e->now += d < end - e->now || d == 0 ? d : end - e->now;
		if (d == 0)
			break;
	}
	if (reconcile_state(e->rc) != RC_DONE)
		(void)reconcile_step(e->rc, e->now);
}

/* The quota controller's next tick, and only that when the periods are
 * far apart (QUIET). */
static void control_tick(struct env *e)
{
	e->now += QCTL_TICK_US;
	(void)reconcile_step(e->rc, e->now);
}

#define STATE(e) reconcile_state((e)->rc)
#define RT(e) reconcile_runtime((e)->rc)
#define EXIT_CODE(e) reconcile_exit_code((e)->rc)

static void test_start_runs_plan(void **state)
{
	struct env *e = env_new(FAKE_KERNEL_6_17);

	tu_log_capture_start();
	run(e, 1);
	assert_int_equal(STATE(e), RC_RUNNING);
	assert_true(fake_damon_running(e->fd, 0));
	assert_true(fake_damon_running(e->fd, 1));
	assert_true(tu_log_contains("found 2 memory tiers"));
	assert_true(tu_log_contains("started kdamond 0"));
	assert_true(tu_log_contains("demote node0 -> node1"));
	assert_true(tu_log_contains("promote node1 -> node0"));
	assert_true(tu_log_contains("node0 goals: free 10.43% (configured auto, seed 0.50%)"));
	assert_true(tu_log_contains("DAMON features:"));
	/* Started disarmed, armed once the first quota window was set up: no
	 * first apply pass without a quota (damon_sysfs.h, damon_start). */
	for (unsigned k = 0; k < 2; k++) {
		char path[128];
		char *v;

		assert_false(fake_damon_unlimited_first_pass(e->fd, k));
		snprintf(path, sizeof(path), ADMIN "%u/contexts/0/schemes/0/access_pattern/age/min", k);
		v = tu_read(e->dir, path);
		assert_string_equal(v, "0");
		free(v);
	}
	assert_false(tu_log_contains("no effective quota"));
	/* The ownership record names our kdamonds and pids. */
	char *rec = tu_read(e->state, "owner");
	assert_non_null(rec);
	assert_non_null(strstr(rec, "count=2"));
	free(rec);

	/* A quiet period: no commit, no restart. */
	unsigned commits = fake_damon_count(e->fd, "commit");
	unsigned stats0 = fake_damon_count_kdamond(e->fd, 0, "update_schemes_stats");
	unsigned stats1 = fake_damon_count_kdamond(e->fd, 1, "update_schemes_stats");
	run_periods(e, 4);
	assert_int_equal(STATE(e), RC_RUNNING);
	assert_int_equal(fake_damon_count(e->fd, "commit"), commits);
	/* refresh_ms on 6.17 may never reach one of them: each is also
	 * refreshed by command in turn, once every two periods. */
	assert_int_equal(fake_damon_count_kdamond(e->fd, 0, "update_schemes_stats"), stats0 + 2);
	assert_int_equal(fake_damon_count_kdamond(e->fd, 1, "update_schemes_stats"), stats1 + 2);
	assert_int_equal(fake_damon_count(e->fd, "on"), 2);

	reconcile_request_stop(e->rc);
	run(e, 2);
	assert_int_equal(STATE(e), RC_DONE);
	assert_int_equal(EXIT_CODE(e), EXIT_OK);
	assert_false(fake_damon_running(e->fd, 0));
	assert_false(fake_damon_running(e->fd, 1));
	assert_false(tu_exists(e->state, "owner"));
	/* As found: no kdamond directories of ours are left. */
	char *nr = tu_read(e->dir, ADMIN "nr_kdamonds");
	assert_string_equal(nr, "0");
	free(nr);
	tu_log_capture_stop();
	env_free(e);
}

/* The arming commit fails: the kdamond runs disarmed (matching nothing), and
 * the next period commits the plan. */
static void test_arm_failure_repaired(void **state)
{
	struct env *e = env_new(FAKE_KERNEL_6_12);

	fake_damon_fail(e->fd, "kdamonds/0/state=commit", false, EINVAL, 1);
	tu_log_capture_start();
	run(e, 3);
	assert_int_equal(STATE(e), RC_RUNNING);
	assert_true(fake_damon_running(e->fd, 0));
	assert_false(fake_damon_unlimited_first_pass(e->fd, 0));
	assert_true(tu_log_contains("cannot arm kdamond 0's scheme"));
	assert_true(tu_log_contains("re-committed the plan to kdamond 0 (armed its scheme)"));
	assert_false(tu_log_contains("re-committed the plan to kdamond 1"));
	assert_false(RT(e)->kd[0].disarmed);
	assert_int_equal(fake_damon_count(e->fd, "on"), 2);
	tu_log_capture_stop();
	env_free(e);
}

static void test_kdamond_found_off_is_restarted(void **state)
{
	struct env *e = env_new(FAKE_KERNEL_6_17);

	run(e, 1);
	int64_t old = fake_damon_pid(e->fd, 1);
	fake_damon_kill(e->fd, 1);
	tu_log_capture_start();
	run_periods(e, 2);
	assert_true(fake_damon_running(e->fd, 1));
	assert_true(fake_damon_pid(e->fd, 1) != old);
	assert_false(fake_damon_unlimited_first_pass(e->fd, 1));
	assert_true(tu_log_contains("kdamond 1 (promote node1 -> node0) was found off"));
	assert_true(tu_log_contains("restarted kdamond 1"));
	tu_log_capture_stop();
	env_free(e);
}

static void test_drift_is_recommitted(void **state)
{
	struct env *e = env_new_kernel(FAKE_KERNEL_6_17);

	run(e, 1);
	unsigned commits = fake_damon_count(e->fd, "commit");
	const struct config *c = reconcile_config(e->rc);
	/* run() stopped one period after the start, where the first
	 * verify_interval began. */
	unsigned before = (unsigned)(c->verify_interval_us / c->interval_us) - 2;

	tu_write(e->dir, ADMIN "0/contexts/0/schemes/0/quotas/goals/0/target_value", "1");
	tu_log_capture_start();
	/* Liveness every period, the full read-back every verify_interval. */
	assert_true(before >= 1);
	run_periods(e, before);
	assert_false(tu_log_contains("parameters drifted"));
	run_periods(e, 2);
	assert_true(tu_log_contains("kdamond 0 parameters drifted"));
	assert_true(tu_log_contains("quotas/goals/0/target_value is \"1\""));
	assert_int_equal(fake_damon_count(e->fd, "commit"), commits + 1);
	char *v = tu_read(e->dir, ADMIN "0/contexts/0/schemes/0/quotas/goals/0/target_value");
	assert_string_equal(v, "1043");
	free(v);
	tu_log_capture_stop();
	env_free(e);
}

static void test_foreign_kdamond_blocks(void **state)
{
	struct env *e = env_new(FAKE_KERNEL_6_17);

	/* Someone else runs kdamond 0 before we start. */
	tu_write(e->dir, ADMIN "nr_kdamonds", "0");
	assert_int_equal(io_write(e->root, ADMIN "nr_kdamonds", "1"), 0);
	fake_damon_start_foreign(e->fd, 0);
	int64_t pid = fake_damon_pid(e->fd, 0);
	unsigned nrw = fake_damon_nr_writes(e->fd, "nr_kdamonds");

	tu_log_capture_start();
	run(e, 1);
	assert_int_equal(STATE(e), RC_BLOCKED);
	char needle[128];
	snprintf(needle, sizeof(needle), "kdamond 0 (pid %lld) is running and was not started by damon-tierd",
		 (long long)pid);
	assert_true(tu_log_contains(needle));
	assert_true(tu_log_contains("retrying in 1 s"));
	/* Still blocked after the backoff, with a longer one; never resized. */
	run(e, 2);
	assert_int_equal(STATE(e), RC_BLOCKED);
	assert_true(tu_log_contains("retrying in 2 s"));
	assert_int_equal(fake_damon_nr_writes(e->fd, "nr_kdamonds"), nrw);
	assert_true(fake_damon_running(e->fd, 0));
	assert_int_equal(fake_damon_pid(e->fd, 0), pid);

	/* Stop must leave the foreign kdamond alone. */
	reconcile_request_stop(e->rc);
	run(e, 2);
	assert_true(fake_damon_running(e->fd, 0));
	tu_log_capture_stop();
	env_free(e);
}

static void test_damon_stat_paused_and_restored(void **state)
{
	struct env *e = env_new(FAKE_KERNEL_6_17);

	fake_damon_set_module(e->fd, "damon_stat", true);
	run(e, 1);
	assert_int_equal(STATE(e), RC_RUNNING);
	char *v = tu_read(e->dir, "sys/module/damon_stat/parameters/enabled");
	assert_string_equal(v, "N");
	free(v);
	char *rec = tu_read(e->state, "owner");
	assert_non_null(strstr(rec, "paused_damon_stat=1"));
	free(rec);
	reconcile_request_stop(e->rc);
	run(e, 2);
	v = tu_read(e->dir, "sys/module/damon_stat/parameters/enabled");
	assert_string_equal(v, "Y");
	free(v);
	env_free(e);
}

static void test_damon_stat_keep_blocks(void **state)
{
	struct env *e = env_new_fixture("vm-2node", FAKE_KERNEL_6_17, "damon_stat = keep\n");

	fake_damon_set_module(e->fd, "damon_stat", true);
	tu_log_capture_start();
	run(e, 1);
	assert_int_equal(STATE(e), RC_BLOCKED);
	assert_true(tu_log_contains("damon_stat = keep"));
	char *v = tu_read(e->dir, "sys/module/damon_stat/parameters/enabled");
	assert_string_equal(v, "Y");
	free(v);
	tu_log_capture_stop();
	env_free(e);
}

static void test_damon_reclaim_refused(void **state)
{
	struct env *e = env_new(FAKE_KERNEL_6_17);

	fake_damon_set_module(e->fd, "damon_reclaim", true);
	tu_log_capture_start();
	run(e, 1);
	assert_int_equal(STATE(e), RC_DONE);
	assert_int_equal(EXIT_CODE(e), EXIT_CONFLICT);
	assert_true(tu_log_contains("/sys/module/damon_reclaim/parameters/enabled"));
	char *v = tu_read(e->dir, "sys/module/damon_reclaim/parameters/enabled");
	assert_string_equal(v, "Y");
	free(v);
	tu_log_capture_stop();
	env_free(e);
}

static void test_nothing_to_tier(void **state)
{
	struct env *e = env_new_fixture("one-node", FAKE_KERNEL_6_17, NULL);

	tu_log_capture_start();
	run(e, 1);
	assert_int_equal(STATE(e), RC_DONE);
	assert_int_equal(EXIT_CODE(e), EXIT_NOTHING_TO_TIER);
	assert_true(tu_log_contains("nothing to tier"));
	assert_int_equal(fake_damon_nr_writes(e->fd, "nr_kdamonds"), 0);
	tu_log_capture_stop();
	env_free(e);
}

static void test_reload(void **state)
{
	struct env *e = env_new_kernel(FAKE_KERNEL_6_17);
	char text[512];

	run(e, 1);
	unsigned commits = fake_damon_count(e->fd, "commit");

	/* Invalid: rejected with file:line, the running plan stays. */
	snprintf(text, sizeof(text), "[daemon]\nstate_dir = %s\n[quota]\nsize = 12 parsecs\ntuner = kernel\n", e->state);
	tu_write(e->state, "damon-tierd.conf", text);
	tu_log_capture_start();
	reconcile_request_reload(e->rc);
	run(e, 1);
	assert_int_equal(STATE(e), RC_RUNNING);
	assert_true(tu_log_contains("reload rejected"));
	assert_true(tu_log_contains("damon-tierd.conf:4"));
	assert_int_equal(fake_damon_count(e->fd, "commit"), commits);

	/* Valid: a pinned used goal is committed online, no restart. */
	snprintf(text, sizeof(text), "[daemon]\nstate_dir = %s\n[promote]\nused_goal = 85%%\n" KERNEL_TUNER, e->state);
	tu_write(e->state, "damon-tierd.conf", text);
	reconcile_request_reload(e->rc);
	run(e, 1);
	assert_int_equal(STATE(e), RC_RUNNING);
	assert_int_equal(fake_damon_count(e->fd, "commit"), commits + 1);
	assert_int_equal(fake_damon_count(e->fd, "on"), 2);
	char *v = tu_read(e->dir, ADMIN "1/contexts/0/schemes/0/quotas/goals/0/target_value");
	assert_string_equal(v, "8500");
	free(v);
	tu_log_capture_stop();
	env_free(e);
}

/* Writes the node_exporter textfile every period, atomically and 0644;
 * a bad directory only warns; a moved file does not linger; the last
 * write at stop says "not running". */
static void test_prometheus_textfile(void **state)
{
	struct env *e = env_new(FAKE_KERNEL_6_17);
	char text[1024], *prom;
	struct stat st;

	run(e, 1);
	assert_false(tu_exists(e->state, "tierd.prom"));
	snprintf(text, sizeof(text), "[daemon]\nstate_dir = %s\nprometheus_textfile = %s/tierd.prom\n", e->state,
		 e->state);
	tu_write(e->state, "damon-tierd.conf", text);
	reconcile_request_reload(e->rc);
	run(e, 2);
	assert_int_equal(STATE(e), RC_RUNNING);
	prom = tu_read(e->state, "tierd.prom");
	assert_non_null(prom);
	assert_non_null(strstr(prom, "damon_tierd_build_info{version=\""));
	assert_non_null(strstr(prom, "damon_tierd_running 1\n"));
	assert_non_null(strstr(prom, "# TYPE damon_tierd_migrated_bytes_total counter\n"));
	assert_non_null(strstr(prom, "damon_tierd_migrated_bytes_total{direction=\"promote\",node=\"1\"} "));
	assert_non_null(strstr(prom, "damon_tierd_migrated_bytes_total{direction=\"demote\",node=\"0\"} "));
	assert_non_null(strstr(prom, "damon_tierd_node_used_ratio{node=\"0\"} "));
	assert_non_null(strstr(prom, "damon_tierd_goal_ratio{goal=\"free\",node=\"0\"} "));
	assert_non_null(strstr(prom, "damon_tierd_effective_quota_bytes{direction=\"promote\",node=\"1\"} "));
	assert_non_null(strstr(prom, "# TYPE damon_tierd_errors_total counter\n"));
	assert_non_null(strstr(prom, "\ndamon_tierd_last_update_timestamp_seconds "));
	free(prom);

	/* The migration schemes' stats, per direction and source node: what
	 * the alert on a stalled promotion reads (monitoring/). */
	for (unsigned i = 0; i < 2; i++) {
		const struct plan_kdamond *kd = &reconcile_plan(e->rc)->kd[i];
		struct fake_scheme_stats ss = { .sz_tried = (5 + i) << 20, .sz_applied = 1 << 20,
						.qt_exceeds = 2 + i };
		char want[160];

		fake_damon_set_scheme_stats(e->fd, i, 0, &ss);
		run_periods(e, 1);
		prom = tu_read(e->state, "tierd.prom");
		assert_non_null(prom);
		snprintf(want, sizeof(want), "damon_tierd_tried_bytes_total{direction=\"%s\",node=\"%d\"} %u\n",
			 kd->role == ROLE_PROMOTE ? "promote" : "demote", kd->from_nid, (5 + i) << 20);
		if (!strstr(prom, want))
			fail_msg("no \"%s\" in:\n%s", want, prom);
		snprintf(want, sizeof(want), "damon_tierd_quota_exceeded_total{direction=\"%s\",node=\"%d\"} %u\n",
			 kd->role == ROLE_PROMOTE ? "promote" : "demote", kd->from_nid, 2 + i);
		if (!strstr(prom, want))
			fail_msg("no \"%s\" in:\n%s", want, prom);
		free(prom);
	}
	snprintf(text, sizeof(text), "%s/tierd.prom", e->state);
	assert_int_equal(stat(text, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0644);
	assert_false(tu_exists(e->state, "tierd.prom.tmp"));

	/* A directory that does not exist: one warning, tiering goes on, and
	 * the file at the old path goes away. */
	snprintf(text, sizeof(text), "[daemon]\nstate_dir = %s\nprometheus_textfile = %s/nodir/tierd.prom\n",
		 e->state, e->state);
	tu_write(e->state, "damon-tierd.conf", text);
	tu_log_capture_start();
	reconcile_request_reload(e->rc);
	run(e, 3);
	assert_int_equal(STATE(e), RC_RUNNING);
	assert_true(tu_log_contains("cannot write the Prometheus textfile"));
	assert_true(tu_log_contains("nodir/tierd.prom (daemon.prometheus_textfile;"));
	assert_false(tu_exists(e->state, "tierd.prom"));
	assert_true(fake_damon_running(e->fd, 0));
	tu_log_capture_stop();

	/* Back to a good path; at stop the file says the daemon is not running. */
	snprintf(text, sizeof(text), "[daemon]\nstate_dir = %s\nprometheus_textfile = %s/tierd.prom\n", e->state,
		 e->state);
	tu_write(e->state, "damon-tierd.conf", text);
	reconcile_request_reload(e->rc);
	run(e, 1);
	reconcile_request_stop(e->rc);
	run(e, 2);
	assert_int_equal(STATE(e), RC_DONE);
	prom = tu_read(e->state, "tierd.prom");
	assert_non_null(prom);
	assert_non_null(strstr(prom, "damon_tierd_running 0\n"));
	free(prom);
	env_free(e);
}

static void crash_and_restart(struct env *e, const char *conf_extra);

static void set_node_free_kb(struct env *e, int nid, unsigned long kb)
{
	char rel[128], text[256];

	snprintf(rel, sizeof(rel), "sys/devices/system/node/node%d/meminfo", nid);
	snprintf(text, sizeof(text), "Node %d MemTotal:         476280 kB\nNode %d MemFree:          %lu kB\n"
		 "Node %d MemUsed:          %lu kB\n", nid, nid, kb, nid, 476280 - kb);
	tu_write(e->dir, rel, text);
}

/* Kdamond k's histogram schemes (1..8) counted `mib` MiB per bucket since
 * the last reading: base + mib. */
static void hist_counts(struct env *e, unsigned k, uint64_t base, const unsigned mib[8])
{
	for (unsigned b = 0; b < 8; b++) {
		struct fake_scheme_stats st = { .sz_tried = base + (uint64_t)mib[b] * MiB };

		fake_damon_set_scheme_stats(e->fd, k, 1 + b, &st);
	}
}

static char *kd_file(struct env *e, unsigned k, const char *rel)
{
	char path[256];

	snprintf(path, sizeof(path), ADMIN "%u/contexts/0/schemes/0/%s", k, rel);
	return tu_read(e->dir, path);
}

/* Observe, decide and act with the exchange on the fake kernel: node0
 * full of lukewarm data, 60 MiB of saturated data on node1.  The
 * histograms come from the stat schemes' counters, and the bounds land in
 * the migration schemes' files, which the drift check leaves alone. */
static void test_exchange(void **state)
{
	struct env *e = env_new_fixture("vm-2node", FAKE_KERNEL_6_17,
					"interval = 10min\nstatus_interval = 10min\n[quota]\nexchange = yes\n");
	char *v;

	(void)state;
	run(e, 1);
	assert_int_equal(STATE(e), RC_RUNNING);
	set_node_free_kb(e, 0, 37 * 1024);
	hist_counts(e, 0, 0, (unsigned[8]){ 0 });
	hist_counts(e, 1, 0, (unsigned[8]){ 0 });
	control_tick(e);
	assert_true(RT(e)->kd[0].hist_prev_ok);
	hist_counts(e, 0, 0, (unsigned[8]){ 65, 0, 0, 400 });
	hist_counts(e, 1, 0, (unsigned[8]){ 440, 0, 0, 0, 0, 0, 0, 60 });
	tu_log_capture_start();
	control_tick(e);
	if (!tu_log_contains("exchange node0 <-> node1: promotion: waiting for demotion"))
		fail_msg("log: %s", tu_log_text());
	tu_log_capture_stop();
	assert_true(RT(e)->kd[1].hist.valid);
	assert_int_equal(RT(e)->kd[1].hist.bytes[7], 60 * MiB);
	assert_int_equal(RT(e)->kd[0].demote_why, XD_LUKEWARM_OUT);
	v = kd_file(e, 0, "access_pattern/nr_accesses/max");
	assert_string_equal(v, "6");
	free(v);
	v = kd_file(e, 0, "ops_filters/nr_filters");
	assert_string_equal(v, "0");
	free(v);
	v = kd_file(e, 1, "access_pattern/nr_accesses/min");
	assert_string_equal(v, "19");
	free(v);
	/* The full read-back sees no drift in what the exchange set. */
	tu_log_capture_start();
	e->now += 11 * 60 * SEC;
	run(e, 1);
	assert_false(tu_log_contains("drifted"));
	tu_log_capture_stop();
	/* ...but somebody else's write to it is drift, and repaired. */
	assert_int_equal(io_write(e->root, "sys/kernel/mm/damon/admin/kdamonds/1/contexts/0/schemes/0/"
				  "access_pattern/nr_accesses/min", "7"), 0);
	tu_log_capture_start();
	e->now += 11 * 60 * SEC;
	run(e, 1);
	if (!tu_log_contains("kdamond 1 parameters drifted") ||
	    !tu_log_contains("nr_accesses/min is \"7\", expected \"19\""))
		fail_msg("log: %s", tu_log_text());
	tu_log_capture_stop();
	v = kd_file(e, 1, "access_pattern/nr_accesses/min");
	assert_string_not_equal(v, "7");
	free(v);
	env_free(e);
}

static uint64_t quota_of(struct env *e, unsigned k)
{
	char rel[128], *v;
	uint64_t q;

	snprintf(rel, sizeof(rel), ADMIN "%u/contexts/0/schemes/0/quotas/bytes", k);
	v = tu_read(e->dir, rel);
	assert_non_null(v);
	q = strtoull(v, NULL, 10);
	free(v);
	return q;
}

/*
 * [quota] tuner = daemon (the default): no kernel goals, and every tick the
 * quotas follow node0's free memory: demotion only below the free goal,
 * promotion while there is room above the floor; small moves commit
 * nothing; the value survives a reload and is adopted after a crash.
 */
static void test_quota_controller(void **state)
{
	struct env *e = env_new_fixture("vm-2node", FAKE_KERNEL_6_17, QUIET);
	const struct qctl_levels *l;
	unsigned commits;
	char *v;

	run(e, 1);
	assert_int_equal(STATE(e), RC_RUNNING);
	v = tu_read(e->dir, ADMIN "1/contexts/0/schemes/0/quotas/goals/nr_goals");
	assert_string_equal(v, "0");
	free(v);
	l = &reconcile_plan(e->rc)->calib[0].levels;
	/* The fixture's node0 is mostly free: promote at the cap, no demotion. */
	assert_int_equal(quota_of(e, 0), QCTL_STOP_BYTES);
	assert_int_equal(quota_of(e, 1), l->cap);
	commits = fake_damon_count(e->fd, "commit");
	control_tick(e);
	assert_false(RT(e)->ctl_retry);
	assert_int_equal(fake_damon_count(e->fd, "commit"), commits);

	/* Node0 fills to 4 MiB below the free goal: demotion moves the
	 * deficit over one tick's windows, promotion the band. */
	unsigned long free_kb = (unsigned long)((l->target >> 10) - 4096);
	set_node_free_kb(e, 0, free_kb);
	control_tick(e);
	assert_int_equal(quota_of(e, 0), qctl_align((l->target - ((uint64_t)free_kb << 10) + 9) / 10));
	assert_int_equal(quota_of(e, 1), qctl_align((l->target - l->floor + 9) / 10));
	assert_int_equal(fake_damon_count(e->fd, "commit"), commits + 2);
	/* A few pages more: within the hysteresis, nothing committed. */
	set_node_free_kb(e, 0, (unsigned long)((l->target >> 10) - 4096 - 16));
	control_tick(e);
	assert_int_equal(fake_damon_count(e->fd, "commit"), commits + 2);
	/* Below the floor: promotion stops until demotion has made room. */
	set_node_free_kb(e, 0, (unsigned long)((l->floor >> 10) - 1024));
	control_tick(e);
	assert_int_equal(quota_of(e, 1), QCTL_STOP_BYTES);
	/* The controller's writes are not drift. */
	tu_log_capture_start();
	run_periods(e, 2);
	assert_false(tu_log_contains("drifted"));
	tu_log_capture_stop();

	/* A reload keeps the controller's value. */
	uint64_t demote_q = quota_of(e, 0);
	reconcile_request_reload(e->rc);
	run(e, 1);
	assert_int_equal(STATE(e), RC_RUNNING);
	assert_int_equal(quota_of(e, 0), demote_q);
	assert_int_equal(fake_damon_count(e->fd, "on"), 2);

	/* After a crash the next instance adopts, then re-syncs its quotas
	 * on the first tick even if nothing changed. */
	crash_and_restart(e, QUIET);
	run(e, 1);
	assert_int_equal(STATE(e), RC_RUNNING);
	assert_int_equal(fake_damon_count(e->fd, "on"), 2);
	commits = fake_damon_count(e->fd, "commit");
	control_tick(e);
	assert_int_equal(fake_damon_count(e->fd, "commit"), commits + 2);
	assert_int_equal(quota_of(e, 0), demote_q);

	/* A failed commit counts an error, leaves the value as it was and
	 * retries sooner than a tick: the kernel still runs the old quota. */
	set_node_free_kb(e, 0, 400000);
	fake_damon_fail(e->fd, "kdamonds/0/state=commit", false, EINVAL, 1);
	uint64_t errors = RT(e)->errors;
	control_tick(e);
	assert_true(RT(e)->ctl_retry);
	assert_int_equal(RT(e)->errors, errors + 1);
	assert_int_equal(RT(e)->kd[0].quota_bytes, demote_q);
	control_tick(e);
	assert_false(RT(e)->ctl_retry);
	assert_int_equal(quota_of(e, 0), QCTL_STOP_BYTES);
	env_free(e);
}

/*
 * The demotion quota follows the kernel's yield: with refresh_ms keeping the
 * charge counters current, a tick in which the scheme moved 1% of what it was
 * charged scales the next quota up (within the cap), promotion's by at most 4;
 * counters that went back (a restart) only restart the measurement.
 */
static void test_quota_controller_yield(void **state)
{
	struct env *e = env_new_fixture("vm-2node", FAKE_KERNEL_6_17, QUIET);
	struct fake_scheme_stats st = {};
	const struct qctl_levels *l;
	uint64_t want, band;
	unsigned gain;

	(void)state;
	run(e, 1);
	assert_int_equal(STATE(e), RC_RUNNING);
	l = &reconcile_plan(e->rc)->calib[0].levels;
	unsigned long free_kb = (unsigned long)((l->target >> 10) - 4096);
	set_node_free_kb(e, 0, free_kb);
	want = qctl_align((l->target - ((uint64_t)free_kb << 10) + 9) / 10);
	band = qctl_align((l->target - l->floor + 9) / 10);
	/* First tick: nothing measured yet, the quota is the deficit. */
	control_tick(e);
	assert_int_equal(quota_of(e, 0), want);

	/* 100 MiB tried, 1 MiB demoted in the last tick. */
	st.sz_tried = 100ull << 20;
	st.sz_applied = 1ull << 20;
	fake_damon_set_scheme_stats(e->fd, 0, 0, &st);
	fake_damon_set_scheme_stats(e->fd, 1, 0, &st);
	control_tick(e);
	gain = qctl_gain_update(QCTL_GAIN_ONE, 100ull << 20, 1ull << 20, QCTL_DEMOTE_GAIN_MAX);
	assert_true(gain > QCTL_GAIN_ONE);
	assert_int_equal(quota_of(e, 0), qctl_gain_apply(want, gain, l->cap));
	assert_true(quota_of(e, 0) > want);
	/* Promotion too, but only up to QCTL_PROMOTE_GAIN_MAX. */
	assert_int_equal(quota_of(e, 1),
			 qctl_gain_apply(band, qctl_gain_update(QCTL_GAIN_ONE, 100ull << 20, 1ull << 20,
								QCTL_PROMOTE_GAIN_MAX), l->cap));

	/* Everything tried is moved now: the gain comes back down. */
	for (int i = 0; i < 12; i++) {
		st.sz_tried += 10ull << 20;
		st.sz_applied += 10ull << 20;
		fake_damon_set_scheme_stats(e->fd, 0, 0, &st);
		control_tick(e);
	}
	assert_int_equal(RT(e)->kd[0].gain, QCTL_GAIN_ONE);
	/* (within the commit hysteresis of the unscaled quota) */
	assert_false(qctl_should_commit(quota_of(e, 0), want, QCTL_SETTLE_TICKS));

	/* Counters back at zero (a restarted kdamond): no measurement, no jump. */
	st = (struct fake_scheme_stats){};
	fake_damon_set_scheme_stats(e->fd, 0, 0, &st);
	control_tick(e);
	assert_int_equal(RT(e)->kd[0].gain, QCTL_GAIN_ONE);
	assert_false(qctl_should_commit(quota_of(e, 0), want, QCTL_SETTLE_TICKS));

	/* A stats file that cannot be read (gone: ENOENT): an error counted,
	 * one warning naming the file, the gain kept, the tick goes on. */
	uint64_t errors = RT(e)->errors;
	tu_log_capture_start();
	fake_damon_fail(e->fd, "kdamonds/0/contexts/0/schemes/0/stats/sz_applied", true, ENOENT, 1);
	control_tick(e);
	assert_false(RT(e)->ctl_retry);
	if (!tu_log_contains("quota controller: cannot read /sys/kernel/mm/damon/admin/kdamonds/0/"
			     "contexts/0/schemes/0/stats/sz_applied"))
		fail_msg("log: %s", tu_log_text());
	tu_log_capture_stop();
	assert_int_equal(RT(e)->errors, errors + 1);
	assert_int_equal(RT(e)->kd[0].gain, QCTL_GAIN_ONE);
	assert_false(qctl_should_commit(quota_of(e, 0), want, QCTL_SETTLE_TICKS));
	env_free(e);
}

static void test_reload_rejected_by_kernel(void **state)
{
	struct env *e = env_new_kernel(FAKE_KERNEL_6_17);
	char text[512];

	/* A goal change for both kdamonds; the kernel refuses the second commit. */
	snprintf(text, sizeof(text), "[daemon]\nstate_dir = %s\n[promote]\nused_goal = 85%%\n"
		 "[demote]\nfree_goal = 12%%\n" KERNEL_TUNER, e->state);
	run(e, 1);
	unsigned commits = fake_damon_count(e->fd, "commit");
	tu_write(e->state, "damon-tierd.conf", text);
	tu_log_capture_start();
	/* kdamond 0 commits fine, kdamond 1 is rejected: all or nothing. */
	fake_damon_fail(e->fd, "kdamonds/1/state=commit", false, EINVAL, 1);
	reconcile_request_reload(e->rc);
	run(e, 1);
	if (!tu_log_contains("reload: the kernel rejected the new parameters of kdamond 1"))
		fail_msg("log: %s", tu_log_text());
	assert_true(tu_log_contains("keeping the previous configuration"));
	assert_false(tu_log_contains("configuration reloaded"));
	/* kdamond 0 switched, kdamond 1 refused, kdamond 0 switched back. */
	assert_int_equal(fake_damon_count(e->fd, "commit"), commits + 3);
	char *v = tu_read(e->dir, ADMIN "0/contexts/0/schemes/0/quotas/goals/0/target_value");
	assert_string_equal(v, "1043");
	free(v);
	v = tu_read(e->dir, ADMIN "1/contexts/0/schemes/0/quotas/goals/0/target_value");
	assert_string_equal(v, "8977");
	free(v);
	assert_true(reconcile_config(e->rc)->promote_used.automatic);
	/* The next periods find nothing drifted. */
	run(e, 2);
	assert_false(tu_log_contains("drifted"));
	tu_log_capture_stop();
	env_free(e);
}

static void test_user_input_goals_fed_on_612(void **state)
{
	struct env *e = env_new_kernel(FAKE_KERNEL_6_12);

	run(e, 2);
	assert_int_equal(STATE(e), RC_RUNNING);
	assert_true(fake_damon_count(e->fd, "commit_schemes_quota_goals") >= 2);
	/* node0 of the fixture: the value is the free ratio the daemon computed. */
	char *v = tu_read(e->dir, ADMIN "0/contexts/0/schemes/0/quotas/goals/0/current_value");
	assert_non_null(v);
	assert_true(strtoul(v, NULL, 10) > 0);
	free(v);
	env_free(e);
}

static void test_no_damon_sysfs(void **state)
{
	struct env *e = env_new(FAKE_KERNEL_6_17);

	tu_rmtree(e->dir);
	tu_write(e->dir, "sys/devices/system/node/online", "0");
	tu_log_capture_start();
	run(e, 1);
	assert_int_equal(EXIT_CODE(e), EXIT_KERNEL);
	assert_true(tu_log_contains("CONFIG_DAMON_SYSFS"));
	tu_log_capture_stop();
	env_free(e);
}

static void test_numa_balancing_tiering(void **state)
{
	struct env *e = env_new(FAKE_KERNEL_6_17);
	char *v;

	/* Default policy: warn, leave it. */
	tu_write(e->dir, "proc/sys/kernel/numa_balancing", "3");
	tu_log_capture_start();
	run(e, 1);
	assert_true(tu_log_contains("NUMA balancing runs in tiering mode"));
	v = tu_read(e->dir, "proc/sys/kernel/numa_balancing");
	assert_string_equal(v, "3");
	free(v);
	tu_log_capture_stop();
	env_free(e);

	/* disable-tiering: mode 2 bit off while running, restored on exit. */
	e = env_new_fixture("vm-2node", FAKE_KERNEL_6_17, "numa_balancing = disable-tiering\n");
	tu_write(e->dir, "proc/sys/kernel/numa_balancing", "3");
	run(e, 1);
	v = tu_read(e->dir, "proc/sys/kernel/numa_balancing");
	assert_string_equal(v, "1");
	free(v);
	reconcile_request_stop(e->rc);
	run(e, 2);
	v = tu_read(e->dir, "proc/sys/kernel/numa_balancing");
	assert_string_equal(v, "3");
	free(v);
	env_free(e);
}

/* SIGKILL: the next instance finds our kdamonds running, with the record. */
static void crash_and_restart(struct env *e, const char *conf_extra)
{
	struct config c;
	struct config_error err;
	char text[512];

	/* No teardown: the process just vanished. */
	reconcile_free(e->rc);
	snprintf(text, sizeof(text), "[daemon]\nstate_dir = %s\n%s%s", e->state, conf_extra,
		 exchange_default(conf_extra));
	tu_write(e->state, "damon-tierd.conf", text);
	assert_int_equal(config_load(e->conf, &c, &err), 0);
	reconciler_open(e, &c);
}

/* With the exchange each kdamond has nine schemes; the read-only feature
 * probe of the adoption looks at scheme 0 of them. */
static void test_restart_adopts_with_exchange(void **state)
{
	static const char xchg[] = "[quota]\nexchange = yes\n";
	struct env *e = env_new_fixture("vm-2node", FAKE_KERNEL_6_17, xchg);

	run(e, 1);
	int64_t p0 = fake_damon_pid(e->fd, 0), p1 = fake_damon_pid(e->fd, 1);
	char *n = tu_read(e->dir, "sys/kernel/mm/damon/admin/kdamonds/0/contexts/0/schemes/nr_schemes");
	assert_string_equal(n, "9");
	free(n);
	crash_and_restart(e, xchg);
	tu_log_capture_start();
	run(e, 1);
	assert_int_equal(STATE(e), RC_RUNNING);
	assert_true(tu_log_contains("adopted 2 running kdamonds from a previous run"));
	assert_int_equal(fake_damon_count(e->fd, "on"), 2);
	assert_int_equal(fake_damon_pid(e->fd, 0), p0);
	assert_int_equal(fake_damon_pid(e->fd, 1), p1);
	tu_log_capture_stop();
	env_free(e);
}

static void test_restart_adopts_unchanged_plan(void **state)
{
	struct env *e = env_new(FAKE_KERNEL_6_17);

	fake_damon_set_module(e->fd, "damon_stat", true);
	run(e, 1);
	int64_t p0 = fake_damon_pid(e->fd, 0), p1 = fake_damon_pid(e->fd, 1);
	crash_and_restart(e, "");
	tu_log_capture_start();
	run(e, 1);
	assert_int_equal(STATE(e), RC_RUNNING);
	assert_true(tu_log_contains("adopted 2 running kdamonds from a previous run"));
	/* No gap, no duplicates: same kdamonds, never restarted, never resized. */
	assert_int_equal(fake_damon_count(e->fd, "on"), 2);
	assert_int_equal(fake_damon_count(e->fd, "off"), 0);
	assert_int_equal(fake_damon_pid(e->fd, 0), p0);
	assert_int_equal(fake_damon_pid(e->fd, 1), p1);
	assert_int_equal(fake_damon_nr_writes(e->fd, "nr_kdamonds"), 1);
	/* damon_stat, paused by the crashed instance, is restored by this one. */
	reconcile_request_stop(e->rc);
	run(e, 2);
	char *v = tu_read(e->dir, "sys/module/damon_stat/parameters/enabled");
	assert_string_equal(v, "Y");
	free(v);
	assert_false(fake_damon_running(e->fd, 0));
	tu_log_capture_stop();
	env_free(e);
}

static void test_restart_replaces_changed_plan(void **state)
{
	struct env *e = env_new_kernel(FAKE_KERNEL_6_17);

	run(e, 1);
	int64_t p0 = fake_damon_pid(e->fd, 0);
	crash_and_restart(e, "[promote]\nused_goal = 80%\n" KERNEL_TUNER);
	tu_log_capture_start();
	run(e, 1);
	assert_int_equal(STATE(e), RC_RUNNING);
	assert_true(tu_log_contains("do not match the current plan (plan changed); replacing them"));
	assert_int_equal(fake_damon_count(e->fd, "on"), 4);
	assert_true(fake_damon_pid(e->fd, 0) != p0);
	assert_true(fake_damon_running(e->fd, 0) && fake_damon_running(e->fd, 1));
	char *v = tu_read(e->dir, ADMIN "1/contexts/0/schemes/0/quotas/goals/0/target_value");
	assert_string_equal(v, "8000");
	free(v);
	tu_log_capture_stop();
	env_free(e);
}

static void test_refusal_after_crash_restores_damon_stat(void **state)
{
	struct env *e = env_new(FAKE_KERNEL_6_17);

	fake_damon_set_module(e->fd, "damon_stat", true);
	run(e, 1);
	/* Crash; our kdamonds are stopped by hand and damon_reclaim enabled. */
	crash_and_restart(e, "");
	assert_int_equal(io_write(e->root, ADMIN "0/state", "off"), 0);
	assert_int_equal(io_write(e->root, ADMIN "1/state", "off"), 0);
	fake_damon_set_module(e->fd, "damon_reclaim", true);
	run(e, 1);
	assert_int_equal(EXIT_CODE(e), EXIT_CONFLICT);
	char *v = tu_read(e->dir, "sys/module/damon_stat/parameters/enabled");
	assert_string_equal(v, "Y");
	free(v);
	assert_false(tu_exists(e->state, "owner"));
	env_free(e);
}

static void test_memory_hotplug(void **state)
{
	struct env *e = env_new(FAKE_KERNEL_6_17);
	char *v, path[512];

	run(e, 1);
	unsigned commits = fake_damon_count(e->fd, "commit");
	/* A 128 MiB block is added to node1 and onlined. */
	tu_write(e->dir, "sys/devices/system/memory/memory8/state", "online");
	tu_write(e->dir, "sys/devices/system/memory/memory8/phys_index", "00000008");
	snprintf(path, sizeof(path), "%s/sys/devices/system/node/node1/memory8", e->dir);
	assert_int_equal(symlink("../../memory/memory8", path), 0);
	v = tu_read(e->dir, "sys/devices/system/node/node1/meminfo");
	char *p = strstr(v, "MemTotal:");
	assert_non_null(p);
	unsigned long long kb = strtoull(p + 9, NULL, 10);
	char *mi;
	assert_true(asprintf(&mi, "Node 1 MemTotal:       %llu kB\nNode 1 MemFree:        %llu kB\n"
			     "Node 1 MemUsed:         0 kB\n", kb + 131072, kb + 131072) > 0);
	tu_write(e->dir, "sys/devices/system/node/node1/meminfo", mi);
	free(mi);
	free(v);

	tu_log_capture_start();
	run_periods(e, 1);
	assert_true(tu_log_contains("node memory changed (memory hotplug); re-planning"));
	assert_true(tu_log_contains("memory hotplug: committed new parameters to kdamond 1"));
	assert_int_equal(fake_damon_count(e->fd, "commit"), commits + 1);
	assert_int_equal(fake_damon_count(e->fd, "on"), 2);
	v = tu_read(e->dir, ADMIN "1/contexts/0/targets/0/regions/0/end");
	assert_string_equal(v, "1207959552"); /* 0x48000000 */
	free(v);
	/* The demote kdamond (node0) is unchanged. */
	v = tu_read(e->dir, ADMIN "0/contexts/0/targets/0/regions/0/end");
	assert_string_equal(v, "536870912");
	free(v);
	tu_log_capture_stop();
	env_free(e);
}

/* [cgroup] rules against the fake kernel, which resolves memcg paths at
 * every commit like the real one (a missing cgroup fails the commit). */
#define CG_RULES "[cgroup /svc]\nprotect = yes\nfast_share = 80%\n[cgroup /batch]\npromote = no\n"
#define CG_STAT "anon N0=104857600 N1=0\nfile N0=0 N1=10485760\n"

static void cgroup_make(struct env *e, const char *name)
{
	char rel[256];

	snprintf(rel, sizeof(rel), "sys/fs/cgroup/%s/memory.numa_stat", name);
	tu_write(e->dir, rel, CG_STAT);
}

static void cgroup_remove(struct env *e, const char *name)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/sys/fs/cgroup/%s", e->dir, name);
	tu_rmtree(path);
}

/* CG_RULES after conf (the [daemon] keys and other sections), /svc present. */
static struct env *env_cgroups_conf(enum fake_profile prof, const char *conf)
{
	char text[512];
	struct env *e;

	snprintf(text, sizeof(text), "%s%s", conf, CG_RULES);
	e = env_new_fixture("vm-2node", prof, text);

	tu_write(e->dir, "sys/fs/cgroup/cgroup.controllers", "cpu memory");
	cgroup_make(e, "svc");
	return e;
}

static struct env *env_cgroups(enum fake_profile prof)
{
	return env_cgroups_conf(prof, "");
}

static char *cg_file(struct env *e, unsigned kd, const char *rel)
{
	char path[256];

	snprintf(path, sizeof(path), ADMIN "%u/contexts/0/schemes/%s", kd, rel);
	return tu_read(e->dir, path);
}

static void expect_file(struct env *e, unsigned kd, const char *rel, const char *want)
{
	char *v = cg_file(e, kd, rel);

	if (!v || strcmp(v, want) != 0)
		fail_msg("kdamond %u %s: \"%s\", expected \"%s\"", kd, rel, v ? v : "(missing)", want);
	free(v);
}

static void test_cgroup_lifecycle(void **state)
{
	struct env *e = env_cgroups(FAKE_KERNEL_6_17);
	unsigned commits;

	tu_log_capture_start();
	run(e, 2);
	assert_int_equal(STATE(e), RC_RUNNING);
	assert_true(tu_log_contains("cgroup /svc: found at /svc"));
	assert_true(tu_log_contains("cgroup /batch: not found"));
	/* Demotion (kdamond 0): /svc's reject filter ahead of the young one. */
	expect_file(e, 0, "0/ops_filters/nr_filters", "2");
	expect_file(e, 0, "0/ops_filters/0/type", "memcg");
	expect_file(e, 0, "0/ops_filters/0/memcg_path", "/svc");
	expect_file(e, 0, "0/ops_filters/0/matching", "Y");
	expect_file(e, 0, "0/ops_filters/0/allow", "N");
	expect_file(e, 0, "0/ops_filters/1/type", "young");
	/* Promotion (kdamond 1): /batch waits; /svc's fast_share scheme is
	 * armed, takes only /svc's pages, with a goal fed by the daemon (6.17
	 * has no node_memcg_used_bp). */
	expect_file(e, 1, "0/ops_filters/nr_filters", "1");
	expect_file(e, 1, "nr_schemes", "2");
	expect_file(e, 1, "1/access_pattern/age/min", "0");
	expect_file(e, 1, "1/ops_filters/0/memcg_path", "/svc");
	expect_file(e, 1, "1/ops_filters/0/matching", "N");
	expect_file(e, 1, "1/ops_filters/1/type", "young");
	expect_file(e, 1, "1/quotas/goals/0/target_metric", "user_input");
	/* 0.8 * 110 MiB over node0's MemTotal; fed: node0's 100 MiB of it. */
	char *t = cg_file(e, 1, "1/quotas/goals/0/target_value"), *c = cg_file(e, 1, "1/quotas/goals/0/current_value");
	assert_true(strtoul(t, NULL, 10) > 1000 && strtoul(t, NULL, 10) < 2500);
	assert_true(strtoul(c, NULL, 10) > 1000);
	free(t);
	free(c);

	/* /batch appears: committed online, no restart. */
	commits = fake_damon_count(e->fd, "commit");
	cgroup_make(e, "batch");
	run_periods(e, 1);
	assert_true(tu_log_contains("cgroup /batch appeared at /batch: committing its rules"));
	expect_file(e, 1, "0/ops_filters/0/memcg_path", "/batch");
	expect_file(e, 1, "0/ops_filters/1/type", "young");
	assert_true(fake_damon_count(e->fd, "commit") > commits);
	assert_int_equal(fake_damon_count(e->fd, "on"), 2);

	/* ... and goes: its filter goes before any commit could name it. */
	cgroup_remove(e, "batch");
	run_periods(e, 2);
	assert_true(tu_log_contains("cgroup /batch is gone"));
	expect_file(e, 1, "0/ops_filters/nr_filters", "1");
	expect_file(e, 1, "0/ops_filters/0/type", "young");
	assert_int_equal(fake_damon_last_result(e->fd, 1), 0);

	/* /svc is created again (a restarted service): a new id, re-committed. */
	char from[512], to[512];

	tu_write(e->dir, "sys/fs/cgroup/svc.new/memory.numa_stat", CG_STAT);
	cgroup_remove(e, "svc");
	snprintf(from, sizeof(from), "%s/sys/fs/cgroup/svc.new", e->dir);
	snprintf(to, sizeof(to), "%s/sys/fs/cgroup/svc", e->dir);
	assert_int_equal(rename(from, to), 0);
	run_periods(e, 1);
	assert_true(tu_log_contains("cgroup /svc was created again"));
	assert_int_equal(fake_damon_count(e->fd, "on"), 2);
	assert_int_equal(RT(e)->errors, 0);
	assert_false(tu_log_contains("cannot"));
	tu_log_capture_stop();
	env_free(e);
}

/* 7.3: the kernel measures the cgroup (node_memcg_used_bp and its path). */
static void test_cgroup_kernel_goal(void **state)
{
	struct env *e = env_cgroups(FAKE_KERNEL_7_3);

	tu_log_capture_start();
	run(e, 2);
	assert_int_equal(STATE(e), RC_RUNNING);
	assert_true(tu_log_contains("node_memcg_used_bp goal on the fast node (the kernel measures the cgroup)"));
	expect_file(e, 1, "1/quotas/goals/0/target_metric", "node_memcg_used_bp");
	expect_file(e, 1, "1/quotas/goals/0/path", "/svc");
	expect_file(e, 1, "1/quotas/goals/0/nid", "0");
	/* 7.2+: a scheme with a memcg filter charges what it did not move
	 * 1/32 (cgroup_rules.h), one without charges it in full. */
	assert_true(tu_log_contains("charges its quota 1/32 for bytes it does not move"));
	expect_file(e, 0, "0/quotas/fail_charge_num", "1");
	expect_file(e, 0, "0/quotas/fail_charge_denom", "32");
	expect_file(e, 1, "1/quotas/fail_charge_num", "1");
	expect_file(e, 1, "1/quotas/fail_charge_denom", "32");
	expect_file(e, 1, "0/quotas/fail_charge_num", "0");
	expect_file(e, 1, "0/quotas/fail_charge_denom", "0");
	tu_log_capture_stop();
	env_free(e);
}

/* The exchange moves the migration scheme's access bounds, not those of a
 * fast_share scheme (the operator's guarantee), and the drift check knows
 * it: it once expected the exchange's bounds in the fast_share scheme too,
 * and re-committed the plan. */
static void test_cgroup_exchange(void **state)
{
	struct env *e = env_cgroups_conf(FAKE_KERNEL_7_3,
					 "interval = 10min\nstatus_interval = 10min\n[quota]\nexchange = yes\n");

	(void)state;
	run(e, 1);
	assert_int_equal(STATE(e), RC_RUNNING);
	expect_file(e, 1, "nr_schemes", "10");
	set_node_free_kb(e, 0, 37 * 1024);
	hist_counts(e, 0, 0, (unsigned[8]){ 0 });
	hist_counts(e, 1, 0, (unsigned[8]){ 0 });
	control_tick(e);
	hist_counts(e, 0, 0, (unsigned[8]){ 65, 0, 0, 400 });
	hist_counts(e, 1, 0, (unsigned[8]){ 440, 0, 0, 0, 0, 0, 0, 60 });
	control_tick(e);
	expect_file(e, 1, "0/access_pattern/nr_accesses/min", "19");
	expect_file(e, 1, "9/access_pattern/nr_accesses/min", "1");
	expect_file(e, 1, "9/ops_filters/0/memcg_path", "/svc");
	expect_file(e, 1, "9/quotas/goals/0/path", "/svc");
	tu_log_capture_start();
	e->now += 11 * 60 * SEC;
	run(e, 1);
	if (tu_log_contains("drifted"))
		fail_msg("log: %s", tu_log_text());
	tu_log_capture_stop();
	assert_int_equal(RT(e)->repairs, 0);
	env_free(e);
}

/* 6.12: the legacy filter list, where every filter rejects its matches. */
static void test_cgroup_legacy_filters(void **state)
{
	struct env *e = env_cgroups(FAKE_KERNEL_6_12);

	cgroup_make(e, "batch");
	run(e, 2);
	assert_int_equal(STATE(e), RC_RUNNING);
	expect_file(e, 0, "0/filters/0/memcg_path", "/svc");
	expect_file(e, 0, "0/filters/0/matching", "Y");
	expect_file(e, 0, "0/filters/1/type", "young");
	expect_file(e, 1, "0/filters/0/memcg_path", "/batch");
	expect_file(e, 1, "0/filters/0/matching", "Y");
	/* The fast_share scheme: reject everyone else's, reject the not-young. */
	expect_file(e, 1, "1/filters/0/memcg_path", "/svc");
	expect_file(e, 1, "1/filters/0/matching", "N");
	expect_file(e, 1, "1/filters/1/matching", "N");
	expect_file(e, 1, "1/quotas/goals/0/target_metric", "user_input");
	env_free(e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_start_runs_plan),
		cmocka_unit_test(test_cgroup_lifecycle),
		cmocka_unit_test(test_cgroup_kernel_goal),
		cmocka_unit_test(test_cgroup_exchange),
		cmocka_unit_test(test_cgroup_legacy_filters),
		cmocka_unit_test(test_kdamond_found_off_is_restarted),
		cmocka_unit_test(test_arm_failure_repaired),
		cmocka_unit_test(test_drift_is_recommitted),
		cmocka_unit_test(test_foreign_kdamond_blocks),
		cmocka_unit_test(test_damon_stat_paused_and_restored),
		cmocka_unit_test(test_damon_stat_keep_blocks),
		cmocka_unit_test(test_damon_reclaim_refused),
		cmocka_unit_test(test_nothing_to_tier),
		cmocka_unit_test(test_reload),
		cmocka_unit_test(test_prometheus_textfile),
		cmocka_unit_test(test_reload_rejected_by_kernel),
		cmocka_unit_test(test_quota_controller),
		cmocka_unit_test(test_quota_controller_yield),
		cmocka_unit_test(test_exchange),
		cmocka_unit_test(test_user_input_goals_fed_on_612),
		cmocka_unit_test(test_no_damon_sysfs),
		cmocka_unit_test(test_numa_balancing_tiering),
		cmocka_unit_test(test_restart_adopts_unchanged_plan),
		cmocka_unit_test(test_restart_adopts_with_exchange),
		cmocka_unit_test(test_restart_replaces_changed_plan),
		cmocka_unit_test(test_refusal_after_crash_restores_damon_stat),
		cmocka_unit_test(test_memory_hotplug),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
