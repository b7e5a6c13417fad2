/* SPDX-License-Identifier: GPL-2.0-or-later */
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

#include "owner.h"
#include "testutil.h"

static void test_roundtrip(void **state)
{
	char *dir = tu_mkdtemp();
	struct owner_record r = { .first = 0, .count = 2, .pids = { 123, 456 },
				  .plan_hash = 0xdeadbeefcafef00dull, .paused_damon_stat = true };
	struct owner_record back;

	assert_int_equal(owner_load(dir, &back), -ENOENT);
	assert_int_equal(owner_save(dir, &r), 0);
	memset(&back, 0, sizeof(back));
	assert_int_equal(owner_load(dir, &back), 0);
	assert_int_equal(back.count, 2);
	assert_int_equal(back.pids[1], 456);
	assert_true(back.plan_hash == r.plan_hash);
	assert_true(back.paused_damon_stat);
	assert_int_equal(owner_remove(dir), 0);
	assert_int_equal(owner_load(dir, &back), -ENOENT);
	assert_int_equal(owner_remove(dir), 0);
	tu_rmtree(dir);
	free(dir);
}

static void test_garbage_record_is_rejected(void **state)
{
	char *dir = tu_mkdtemp();
	struct owner_record back = { .count = 99 };

	tu_write(dir, "owner", "first=0\ncount=2\nplan_hash=12\npid=1\n"); /* one pid missing */
	assert_int_equal(owner_load(dir, &back), -EINVAL);
	assert_int_equal(back.count, 99);
	tu_write(dir, "owner", "hello\n");
	assert_int_equal(owner_load(dir, &back), -EINVAL);
	tu_write(dir, "owner", "");
	assert_int_equal(owner_load(dir, &back), -EINVAL);
	tu_rmtree(dir);
	free(dir);
}

/* A FIFO as the record or the lock blocks neither the start nor "status"
 * (the alarm ends a run that would, instead of hanging the suite). */
static void test_fifo_does_not_block(void **state)
{
	char *dir = tu_mkdtemp();
	struct owner_record back = { .count = 99 };
	char path[512];

	tu_pathf(path, sizeof(path), "%s/owner", dir);
	assert_int_equal(mkfifo(path, 0644), 0);
	tu_pathf(path, sizeof(path), "%s/lock", dir);
	assert_int_equal(mkfifo(path, 0644), 0);
	alarm(10);
	assert_int_equal(owner_load(dir, &back), -EINVAL);
	assert_int_equal(back.count, 99);
	assert_false(owner_lock_held(dir));
	alarm(0);
	tu_rmtree(dir);
	free(dir);
}

static void test_lock_is_exclusive(void **state)
{
	char *dir = tu_mkdtemp();
	char sub[512];
	int a, b;

	snprintf(sub, sizeof(sub), "%s/run/damon-tierd", dir);
	a = owner_lock(sub);
	assert_true(a >= 0);
	b = owner_lock(sub);
	assert_int_equal(b, -EWOULDBLOCK);
	close(a);
	b = owner_lock(sub);
	assert_true(b >= 0);
	close(b);
	tu_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_garbage_record_is_rejected),
		cmocka_unit_test(test_fifo_does_not_block),
		cmocka_unit_test(test_lock_is_exclusive),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
