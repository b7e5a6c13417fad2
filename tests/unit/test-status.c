/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The status formats are pure: a snapshot in, text out. */
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

#include "decide_fx.h"
#include "status.h"
#include "status_sink.h"
#include "testutil.h"

#define MiB (1024ull * 1024)

static void test_rates(void **state)
{
	struct status_sample a = { .sz_applied = 0, .at_usec = 1000000, .valid = true };
	struct status_sample b = { .sz_applied = 10 << 20, .at_usec = 6000000, .valid = true };
	struct status_sample inval = { 0 };

	assert_true(status_rate_mib_s(&a, &b) > 1.99 && status_rate_mib_s(&a, &b) < 2.01);
	assert_true(status_rate_mib_s(&inval, &b) == 0.0);
	/* Counter went backwards: the kdamond restarted, no negative rates. */
	assert_true(status_rate_mib_s(&b, &a) == 0.0);
}

static void fill(struct status_snapshot *s)
{
	memset(s, 0, sizeof(*s));
	s->state = "running";
	s->pid = 42;
	snprintf(s->features, sizeof(s->features), "paddr migrate node_mem_goals");
	s->numa_balancing = 1;
	s->damon_stat_paused = true;
	s->nr_nodes = 2;
	s->nodes[0].nid = 0, s->nodes[0].rank = 0, s->nodes[0].has_cpu = true;
	s->nodes[0].total = 1000 * MiB, s->nodes[0].free = 100 * MiB;
	s->nodes[1].nid = 1, s->nodes[1].rank = 1;
	s->nodes[1].total = 2000 * MiB, s->nodes[1].free = 1500 * MiB;
	s->nr_boundaries = 1;
	struct status_boundary *b = &s->b[0];
	b->fast_nid = 0, b->slow_nid = 1, b->fast_total = 1000 * MiB, b->fast_free = 100 * MiB;
	b->promote = (struct status_direction){ .present = true, .kdamond = 1, .pid = 156,
						.goal_bp = 9014, .stats_valid = true,
						.applied_bytes = 64 * MiB, .tried_bytes = 96 * MiB,
						.quota_exceeds = 7, .mib_s = 1.5,
						.quota_bytes = 3 * MiB, .sample_us = 5000 };
	b->demote = (struct status_direction){ .present = true, .kdamond = 0, .pid = 155,
					       .goal_bp = 1006, .stats_valid = true,
					       .applied_bytes = 100 * MiB, .mib_s = 0.25,
					       .quota_bytes = 4096, .sample_us = 20000 };
	b->why_promote = (struct explain_side){ .reason = EXPLAIN_QUOTA_CAP, .promote = true,
						.fast_nid = 0, .slow_nid = 1, .have_quota = true,
						.quota_bytes = 3 * MiB, .cap_bytes = 3 * MiB };
	b->why_demote = (struct explain_side){ .reason = EXPLAIN_GOAL_MET, .fast_nid = 0,
					       .slow_nid = 1, .have_mem = true, .free_bp = 1000,
					       .used_bp = 9000, .goal_bp = 1006 };
	s->repairs_total = 3;
	s->errors_total = 1;
	s->realtime_usec = 1733227200123456ull;
	s->interval_us = 5000000;
}

static void test_line(void **state)
{
	struct status_snapshot s;
	char buf[512];

	fill(&s);
	assert_int_equal(status_format_line(&s.b[0], buf, sizeof(buf)), 0);
	assert_string_equal(buf, "node0 used 90.0%: promoted 1.50 MiB/s (from node1, used goal 90.14%), "
				 "demoted 0.25 MiB/s (to node1, free goal 10.06%); effective quota promote "
				 "3.0MiB demote 4.0KiB; sampling promote 5.0ms demote 20.0ms; promotion "
				 "limited: quota at its cap (3.0MiB per window); demotion idle: node0 10.0% "
				 "free reaches goal 10.1%");
	assert_int_equal(status_format_line(&s.b[0], buf, 20), -ENOBUFS);
	s.b[0].promote.present = false;
	s.b[0].demote.stats_valid = false;
	assert_int_equal(status_format_line(&s.b[0], buf, sizeof(buf)), 0);
	assert_non_null(strstr(buf, "promote - demote -"));
}

static void test_text_and_json(void **state)
{
	struct status_snapshot s;
	char buf[8192];

	fill(&s);
	assert_int_equal(status_format_text(&s, buf, sizeof(buf)), 0);
	assert_non_null(strstr(buf, "damon-tierd (pid 42): running\n"));
	assert_non_null(strstr(buf, "node1  tier 1 (CPU-less)  2000 MiB, 25.0% used"));
	assert_non_null(strstr(buf, "promote kdamond 1 (pid 156): goal used 90.14%, moved 64.0MiB"));
	assert_non_null(strstr(buf, "damon_stat paused by damon-tierd"));
	assert_non_null(strstr(buf, "\n  why: promotion limited: quota at its cap (3.0MiB per window)\n"
				    "  why: demotion idle: node0 10.0% free reaches goal 10.1%\n"));

	snprintf(s.detail, sizeof(s.detail), "kdamond 0 (pid 7) is \"foreign\"");
	assert_int_equal(status_format_json(&s, buf, sizeof(buf)), 0);
	assert_non_null(strstr(buf, "\"detail\":\"kdamond 0 (pid 7) is \\\"foreign\\\"\""));
	assert_non_null(strstr(buf, "\"promote\":{\"kdamond\":1,\"pid\":156,\"goal_bp\":9014"));
	assert_non_null(strstr(buf, "\"boundaries\":[{\"fast_node\":0,\"slow_node\":1"));
	assert_true(strncmp(buf, "{\"schema\":1,\"pid\":42,\"interval_us\":5000000,", 43) == 0);
	assert_non_null(strstr(buf, ",\"explain\":{\"promote\":{\"activity\":\"limited\",\"reason\":"
				    "\"quota_cap\",\"text\":\"promotion limited: quota at its cap (3.0MiB per "
				    "window)\",\"free_bp\":null,\"used_bp\":null,\"goal_bp\":null,"
				    "\"floor_bp\":null,\"quota_bytes\":3145728,\"cap_bytes\":3145728,"
				    "\"tried_bytes\":null,\"applied_bytes\":null},\"demote\":{\"activity\":"
				    "\"idle\",\"reason\":\"goal_met\""));
	assert_non_null(strstr(buf, "\"free_bp\":1000,\"used_bp\":9000,\"goal_bp\":1006,"));
	/* One line: --watch --json prints one object per line. */
	assert_ptr_equal(strchr(buf, '\n'), buf + strlen(buf) - 1);
	assert_int_equal(status_format_json(&s, buf, 100), -ENOBUFS);
}

static void test_prometheus(void **state)
{
	struct status_snapshot s;
	char buf[8192];

	fill(&s);
	assert_int_equal(status_format_prometheus(&s, "1.2.3", buf, sizeof(buf)), 0);
	assert_non_null(strstr(buf, "damon_tierd_build_info{version=\"1.2.3\"} 1\n"));
	assert_non_null(strstr(buf, "# TYPE damon_tierd_migrated_bytes_total counter\n"));
	assert_non_null(strstr(buf, "damon_tierd_migrated_bytes_total{direction=\"promote\",node=\"1\"} 67108864\n"));
	assert_non_null(strstr(buf, "damon_tierd_migrated_bytes_total{direction=\"demote\",node=\"0\"} 104857600\n"));
	assert_non_null(strstr(buf, "damon_tierd_node_used_ratio{node=\"0\"} 0.9000\n"));
	assert_non_null(strstr(buf, "damon_tierd_goal_ratio{goal=\"free\",node=\"0\"} 0.1006\n"));
	assert_non_null(strstr(buf, "damon_tierd_effective_quota_bytes{direction=\"promote\",node=\"1\"} 3145728\n"));
	assert_non_null(strstr(buf, "damon_tierd_errors_total 1\n"));
	assert_non_null(strstr(buf, "damon_tierd_running 1\n"));
	assert_non_null(strstr(buf, "# TYPE damon_tierd_tried_bytes_total counter\n"));
	assert_non_null(strstr(buf, "damon_tierd_tried_bytes_total{direction=\"promote\",node=\"1\"} 100663296\n"));
	assert_non_null(strstr(buf, "damon_tierd_tried_bytes_total{direction=\"demote\",node=\"0\"} 0\n"));
	assert_non_null(strstr(buf, "# TYPE damon_tierd_quota_exceeded_total counter\n"));
	assert_non_null(strstr(buf, "damon_tierd_quota_exceeded_total{direction=\"promote\",node=\"1\"} 7\n"));
	assert_non_null(strstr(buf, "# TYPE damon_tierd_last_update_timestamp_seconds gauge\n"
				    "damon_tierd_last_update_timestamp_seconds 1733227200.123\n"));
	/* A direction without stats has no samples (the HELP and TYPE stay). */
	s.b[0].promote.stats_valid = false;
	assert_int_equal(status_format_prometheus(&s, "1.2.3", buf, sizeof(buf)), 0);
	assert_null(strstr(buf, "damon_tierd_tried_bytes_total{direction=\"promote\""));
	assert_non_null(strstr(buf, "damon_tierd_tried_bytes_total{direction=\"demote\",node=\"0\"} 0\n"));
	assert_int_equal(status_format_prometheus(&s, "1.2.3", buf, 64), -ENOBUFS);
}

/* The [cgroup] rules: where each cgroup is, its share, what the rule does. */
static void test_cgroups(void **state)
{
	static struct status_snapshot s;
	static char buf[STATUS_TEXT_MAX];
	struct status_cgroup *c = &s.cg[0];

	(void)state;
	fill(&s);
	s.nr_cgroups = 2;
	snprintf(c->name, sizeof(c->name), "mysql.service");
	snprintf(c->path, sizeof(c->path), "/system.slice/mysql.service");
	c->present = c->have_share = c->protect = c->promote = c->demotion_skipped = true;
	c->fast_share_goal_bp = 8000;
	c->goal = "kernel";
	c->total = 160 << 20;
	c->fast = 120 << 20;
	c->share_bp = 7500;
	snprintf(s.cg[1].name, sizeof(s.cg[1].name), "/batch");
	assert_int_equal(status_format_text(&s, buf, sizeof(buf)), 0);
	assert_non_null(strstr(buf, "cgroups:\n  mysql.service (at /system.slice/mysql.service): 75.00% of "
				    "160.0MiB on the fast tier, fast_share 80.00% (goal measured by the kernel); "
				    "not demoted\n  /batch: not found; its rules wait for it\n"));
	assert_int_equal(status_format_json(&s, buf, sizeof(buf)), 0);
	assert_non_null(strstr(buf, ",\"cgroups\":[{\"cgroup\":\"mysql.service\",\"present\":true,"
				    "\"path\":\"/system.slice/mysql.service\",\"protect\":true,\"promote\":true,"
				    "\"fast_share_goal\":0.8000,\"goal\":\"kernel\",\"fast_share\":0.7500,"
				    "\"fast_bytes\":125829120,\"total_bytes\":167772160,\"demotion_skipped\":true},"
				    "{\"cgroup\":\"/batch\",\"present\":false,\"path\":null,"));
	assert_int_equal(status_format_prometheus(&s, "1", buf, sizeof(buf)), 0);
	assert_non_null(strstr(buf, "damon_tierd_cgroup_present{cgroup=\"/batch\"} 0\n"));
	assert_non_null(strstr(buf, "damon_tierd_cgroup_fast_share_ratio{cgroup=\"mysql.service\"} 0.7500\n"));
	assert_null(strstr(buf, "damon_tierd_cgroup_fast_share_ratio{cgroup=\"/batch\"}"));
	assert_non_null(strstr(buf, "damon_tierd_cgroup_memory_bytes{cgroup=\"mysql.service\",tier=\"fast\"} 125829120\n"));
}

/* The largest machine the daemon supports, every number at its widest:
 * every format fits the buffer status_publish() writes from. */
static void test_largest_fits(void **state)
{
	static struct status_snapshot s;
	static char buf[STATUS_TEXT_MAX];
	const struct status_direction wide = { .present = true, .kdamond = 31, .pid = INT64_MIN,
					       .goal_bp = 10000, .stats_valid = true,
					       .applied_bytes = UINT64_MAX, .tried_bytes = UINT64_MAX,
					       .quota_exceeds = UINT64_MAX, .mib_s = 1e15,
					       .quota_bytes = UINT64_MAX, .sample_us = UINT64_MAX };

	fill(&s);
	memset(s.detail, 'x', sizeof(s.detail) - 1);
	memset(s.features, 'f', sizeof(s.features) - 1);
	s.repairs_total = s.errors_total = UINT64_MAX;
	s.realtime_usec = UINT64_MAX;
	s.nr_nodes = TOPO_MAX_NODES;
	for (int i = 0; i < TOPO_MAX_NODES; i++)
		s.nodes[i] = s.nodes[1], s.nodes[i].nid = 10 + i, s.nodes[i].total = UINT64_MAX;
	/* A boundary per two kdamonds, both directions. */
	s.nr_boundaries = PLAN_MAX_KDAMONDS / 2;
	for (unsigned i = 0; i < s.nr_boundaries; i++) {
		s.b[i] = s.b[0];
		s.b[i].fast_nid = 10 + (int)i, s.b[i].slow_nid = 73 - (int)i;
		s.b[i].fast_total = s.b[i].fast_free = UINT64_MAX;
		s.b[i].promote = s.b[i].demote = wide;
	}
	/* Every [cgroup] rule, with the longest names. */
	s.nr_cgroups = CONFIG_MAX_CGROUPS;
	for (unsigned i = 0; i < CONFIG_MAX_CGROUPS; i++) {
		struct status_cgroup *c = &s.cg[i];

		memset(c->name, 'n', sizeof(c->name) - 1);
		memset(c->path, 'p', sizeof(c->path) - 1);
		c->present = c->have_share = c->protect = c->demotion_skipped = true;
		c->fast_share_goal_bp = 10000;
		c->goal = "daemon";
		c->total = c->fast = UINT64_MAX;
		c->share_bp = 10000;
	}
	assert_int_equal(status_format_prometheus(&s, "100.100.100-rc100", buf, sizeof(buf)), 0);
	assert_int_equal(status_format_json(&s, buf, sizeof(buf)), 0);
	assert_int_equal(status_format_text(&s, buf, sizeof(buf)), 0);
}

static void test_atomic_write(void **state)
{
	char *dir = tu_mkdtemp(), path[512];
	struct stat st;

	snprintf(path, sizeof(path), "%s/x.prom", dir);
	assert_int_equal(status_write_file(path, "a 1\n", 0644), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0644);
	char *v = tu_read(dir, "x.prom");
	assert_string_equal(v, "a 1");
	free(v);
	assert_false(tu_exists(dir, "x.prom.tmp"));
	snprintf(path, sizeof(path), "%s/missing-dir/x.prom", dir);
	assert_int_equal(status_write_file(path, "a 1\n", 0644), -ENOENT);
	tu_rmtree(dir);
	free(dir);
}

/* status_build from the decisions' fixture (decide_fx.h). */
static void build(struct fx *f, const struct plan *plan, enum rc_state st, uint64_t now,
		  struct status_history *h, struct status_snapshot *s)
{
	const struct status_input in = {
		.state = rc_state_name(st),
		.rc_state = st,
		.interval_us = 5000000,
		.damon_stat_keep = f->cfg.damon_stat == DAMON_STAT_KEEP,
		.rt = &f->rt,
		.now_usec = now,
		.rec = &f->rt.rec,
		.topo = &f->topo,
		.tiers = &f->tiers,
		.plan = plan,
		.obs = &f->obs,
	};

	status_build(&in, h, s);
}

/* Blocked before any plan: the tier map's boundary, and why nothing moves. */
static void test_build_blocked(void **state)
{
	static struct fx f;
	static struct status_history h;
	static struct status_snapshot s;

	fx_init(&f, RC_BLOCKED);
	f.cfg.damon_stat = DAMON_STAT_KEEP;
	f.obs.mods.mod[DAMON_MOD_STAT].enabled = true;
	build(&f, NULL, RC_BLOCKED, FX_NOW, &h, &s);
	assert_int_equal(s.nr_boundaries, 1);
	assert_int_equal(s.b[0].fast_nid, 0);
	assert_int_equal(s.b[0].slow_nid, 1);
	assert_false(s.b[0].promote.present || s.b[0].demote.present);
	assert_int_equal(s.b[0].why_promote.reason, EXPLAIN_BLOCKED_DAMON_STAT);
	assert_int_equal(s.b[0].why_demote.reason, EXPLAIN_BLOCKED_DAMON_STAT);
	assert_int_equal(s.interval_us, 5000000);
	/* No tier map yet: no boundary to explain. */
	const struct status_input none = { .state = "discover", .rc_state = RC_DISCOVER };
	status_build(&none, &h, &s);
	assert_int_equal(s.nr_boundaries, 0);
}

/* Running: the yield is measured over at least STATUS_SPAN_US, and starts
 * over when the counters go back (the kdamond restarted). */
static void test_build_span(void **state)
{
	static struct fx f;
	static struct status_history h;
	static struct status_snapshot s;
	uint64_t now = FX_NOW;

	fx_init(&f, RC_RUNNING);
	/* node0 short of its free goal: demotion works. */
	f.obs.mem[0].free = 4 * MiB;
	f.rt.kd[0].quota_bytes = 8 * MiB;
	for (int i = 0; i <= 6; i++, now += 5000000) {
		f.obs.ours[0].stats.sz_tried = (uint64_t)i * 20 * MiB;
		f.obs.ours[0].stats.sz_applied = (uint64_t)i * MiB / 2;
		build(&f, &f.plan, RC_RUNNING, now, &h, &s);
		assert_int_equal(s.nr_boundaries, 1);
		/* Until a span has passed, the yield is unknown. */
		if (i < 6)
			assert_false(s.b[0].why_demote.have_span);
	}
	assert_true(s.b[0].why_demote.have_span);
	assert_int_equal(s.b[0].why_demote.tried_bytes, 120 * MiB);
	assert_int_equal(s.b[0].why_demote.applied_bytes, 3 * MiB);
	assert_int_equal(s.b[0].why_demote.reason, EXPLAIN_LOW_YIELD);
	/* The kdamond restarted: its counters start from zero. */
	f.obs.ours[0].stats.sz_tried = MiB;
	f.obs.ours[0].stats.sz_applied = 0;
	build(&f, &f.plan, RC_RUNNING, now, &h, &s);
	assert_false(s.b[0].why_demote.have_span);
	assert_int_equal(s.b[0].why_demote.reason, EXPLAIN_ACTIVE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rates),
		cmocka_unit_test(test_line),
		cmocka_unit_test(test_text_and_json),
		cmocka_unit_test(test_prometheus),
		cmocka_unit_test(test_largest_fits),
		cmocka_unit_test(test_cgroups),
		cmocka_unit_test(test_atomic_write),
		cmocka_unit_test(test_build_blocked),
		cmocka_unit_test(test_build_span),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
