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
	s->repairs_total = 3;
	s->errors_total = 1;
	s->realtime_usec = 1733227200123456ull;
}

static void test_line(void **state)
{
	struct status_snapshot s;
	char buf[512];

	fill(&s);
	assert_int_equal(status_format_line(&s.b[0], buf, sizeof(buf)), 0);
	assert_string_equal(buf, "node0 used 90.0%: promoted 1.50 MiB/s (from node1, used goal 90.14%), "
				 "demoted 0.25 MiB/s (to node1, free goal 10.06%); effective quota promote "
				 "3.0MiB demote 4.0KiB; sampling promote 5.0ms demote 20.0ms");
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

	snprintf(s.detail, sizeof(s.detail), "kdamond 0 (pid 7) is \"foreign\"");
	assert_int_equal(status_format_json(&s, buf, sizeof(buf)), 0);
	assert_non_null(strstr(buf, "\"detail\":\"kdamond 0 (pid 7) is \\\"foreign\\\"\""));
	assert_non_null(strstr(buf, "\"promote\":{\"kdamond\":1,\"pid\":156,\"goal_bp\":9014"));
	assert_non_null(strstr(buf, "\"boundaries\":[{\"fast_node\":0,\"slow_node\":1"));
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rates),
		cmocka_unit_test(test_line),
		cmocka_unit_test(test_text_and_json),
		cmocka_unit_test(test_prometheus),
		cmocka_unit_test(test_largest_fits),
		cmocka_unit_test(test_atomic_write),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
