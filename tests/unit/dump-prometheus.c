/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Prints the Prometheus textfile of a status in which every metric the
 * daemon can write has samples with every label and label value: two
 * boundaries (three nodes), both directions present with their stats read.
 * tests/cli/check-metrics.py holds docs/metrics.md and monitoring/ against
 * it, and test-promtool lints it with "promtool check metrics".
 */
#include <stdio.h>
#include <string.h>

#include "status.h"
#include "status_sink.h"

int main(void)
{
	static struct status_snapshot s;
	static char buf[STATUS_TEXT_MAX];

	s.state = "running";
	s.realtime_usec = 1733227200000000ull;
	s.repairs_total = 1;
	s.errors_total = 2;
	s.nr_nodes = 3;
	for (int i = 0; i < 3; i++) {
		s.nodes[i].nid = i;
		s.nodes[i].rank = i;
		s.nodes[i].has_cpu = i == 0;
		s.nodes[i].total = 4ull << 30;
		s.nodes[i].free = 1ull << 30;
	}
	s.nr_boundaries = 2;
	for (unsigned i = 0; i < 2; i++) {
		struct status_boundary *b = &s.b[i];
		const struct status_direction d = { .present = true, .kdamond = 2 * i, .pid = 100,
						    .goal_bp = 1000, .stats_valid = true,
						    .applied_bytes = 1 << 20, .tried_bytes = 2 << 20,
						    .quota_exceeds = 3, .quota_bytes = 4 << 20,
						    .sample_us = 5000 };

		b->fast_nid = (int)i;
		b->slow_nid = (int)i + 1;
		b->fast_total = 4ull << 30;
		b->fast_free = 1ull << 30;
		b->promote = d;
		b->demote = d;
		b->demote.kdamond++;
	}
	/* A protected cgroup below its fast_share, and a rule waiting for its
	 * cgroup. */
	s.nr_cgroups = 2;
	snprintf(s.cg[0].name, sizeof(s.cg[0].name), "/system.slice/mysql.service");
	snprintf(s.cg[0].path, sizeof(s.cg[0].path), "/system.slice/mysql.service");
	s.cg[0].present = s.cg[0].protect = s.cg[0].promote = s.cg[0].have_share = true;
	s.cg[0].fast_share_goal_bp = 8000;
	s.cg[0].goal = "kernel";
	s.cg[0].total = 1ull << 30;
	s.cg[0].fast = 3ull << 28;
	s.cg[0].share_bp = 7500;
	s.cg[0].demotion_skipped = true;
	snprintf(s.cg[1].name, sizeof(s.cg[1].name), "batch.slice");
	if (status_format_prometheus(&s, "0.0.0", buf, sizeof(buf)) < 0) {
		fprintf(stderr, "dump-prometheus: the textfile does not fit %zu bytes\n", sizeof(buf));
		return 1;
	}
	fputs(buf, stdout);
	return 0;
}
