/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <string.h>

#include "status.h"

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

static void test_line(void **state)
{
	struct numa_node n = { .nid = 0, .mem_total = 1000 << 20, .mem_free = 100 << 20 };
	struct plan_kdamond p = { .role = ROLE_PROMOTE, .from_nid = 1, .to_nid = 0 };
	struct plan_kdamond d = { .role = ROLE_DEMOTE, .from_nid = 0, .to_nid = 1 };
	struct scheme_stats ps = { .effective_bytes = 3 << 20, .sample_us = 5000 };
	struct scheme_stats ds = { .effective_bytes = 4096, .sample_us = 20000 };
	char buf[512];

	p.scheme.goal.target_value = 9014;
	d.scheme.goal.target_value = 1006;
	assert_int_equal(status_format_boundary(buf, sizeof(buf), &n, &p, &ps, 1.5, &d, &ds, 0.25), 0);
	assert_string_equal(buf, "node0 used 90.0%: promoted 1.50 MiB/s (from node1, used goal 90.14%), "
				 "demoted 0.25 MiB/s (to node1, free goal 10.06%); effective quota promote "
				 "3.0MiB demote 4.0KiB; sampling promote 5.0ms demote 20.0ms");
	assert_int_equal(status_format_boundary(buf, 20, &n, &p, &ps, 1.5, &d, &ds, 0.25), -ENOBUFS);
	assert_int_equal(status_format_boundary(buf, sizeof(buf), &n, NULL, NULL, 0, &d, NULL, 0), 0);
	assert_non_null(strstr(buf, "promote - demote -"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rates),
		cmocka_unit_test(test_line),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
