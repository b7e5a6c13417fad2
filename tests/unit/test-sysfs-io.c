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
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fake_damon.h"
#include "sysfs_io.h"
#include "testutil.h"

struct env {
	char *dir;
	int root;
};

static int setup(void **state)
{
	struct env *e = calloc(1, sizeof(*e));

	assert_non_null(e);
	e->dir = tu_mkdtemp();
	e->root = io_root_open(e->dir);
	assert_true(e->root >= 0);
	*state = e;
	return 0;
}

static int teardown(void **state)
{
	struct env *e = *state;

	close(e->root);
	tu_rmtree(e->dir);
	assert_int_equal(access(e->dir, F_OK), -1);
	free(e->dir);
	free(e);
	return 0;
}

static void test_root_open(void **state)
{
	struct env *e = *state;

	assert_int_equal(io_root_open("/nonexistent/damon-tierd-test"), -ENOENT);
	tu_write(e->dir, "file", "x");
	char *p = NULL;
	assert_true(asprintf(&p, "%s/file", e->dir) > 0);
	assert_int_equal(io_root_open(p), -ENOTDIR);
	free(p);
}

static void test_read(void **state)
{
	struct env *e = *state;
	char buf[16];

	tu_write(e->dir, "a/b/value", "on\n");
	assert_int_equal(io_read(e->root, "a/b/value", buf, sizeof(buf)), 2);
	assert_string_equal(buf, "on");
	/* A leading '/' is relative to the root, not the real '/'. */
	assert_int_equal(io_read(e->root, "/a/b/value", buf, sizeof(buf)), 2);
	assert_string_equal(buf, "on");

	tu_write(e->dir, "multi", "x\n\n\n");
	assert_int_equal(io_read(e->root, "multi", buf, sizeof(buf)), 1);
	assert_string_equal(buf, "x");

	tu_write(e->dir, "empty", "");
	assert_int_equal(io_read(e->root, "empty", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");

	/* Exactly fits (15 chars + NUL), then one byte too many. */
	tu_write(e->dir, "fits", "123456789012345");
	assert_int_equal(io_read(e->root, "fits", buf, sizeof(buf)), 15);
	assert_string_equal(buf, "123456789012345");
	tu_write(e->dir, "big", "1234567890123456");
	assert_int_equal(io_read(e->root, "big", buf, sizeof(buf)), -E2BIG);

	assert_int_equal(io_read(e->root, "missing", buf, sizeof(buf)), -ENOENT);
	assert_int_equal(io_read(e->root, "a", buf, sizeof(buf)), -EISDIR);
}

static void test_read_numbers(void **state)
{
	struct env *e = *state;
	uint64_t u = 1;
	int64_t s = 1;

	tu_write(e->dir, "u", "18446744073709551615\n");
	assert_int_equal(io_read_u64(e->root, "u", &u), 0);
	assert_true(u == UINT64_MAX);
	tu_write(e->dir, "s", "-1\n");
	assert_int_equal(io_read_s64(e->root, "s", &s), 0);
	assert_true(s == -1);

	tu_write(e->dir, "bad", "12abc\n");
	u = 7;
	assert_int_equal(io_read_u64(e->root, "bad", &u), -EINVAL);
	assert_true(u == 7);
	assert_int_equal(io_read_u64(e->root, "missing", &u), -ENOENT);
	assert_int_equal(io_read_s64(e->root, "u", &s), -ERANGE);
}

static void test_read_alloc(void **state)
{
	struct env *e = *state;
	size_t n = 100000;
	char *big = malloc(n + 1), *got = NULL;

	assert_non_null(big);
	for (size_t i = 0; i < n; i++)
		big[i] = (char)('a' + i % 26);
	big[n] = '\0';
	tu_write(e->dir, "proc/zoneinfo", big);

	assert_int_equal(io_read_alloc(e->root, "/proc/zoneinfo", &got, n), (int)n);
	assert_non_null(got);
	assert_memory_equal(got, big, n);
	assert_int_equal(got[n], '\0');
	free(got);

	got = NULL;
	assert_int_equal(io_read_alloc(e->root, "proc/zoneinfo", &got, n - 1), -E2BIG);
	assert_null(got);
	assert_int_equal(io_read_alloc(e->root, "proc/missing", &got, n), -ENOENT);
	assert_null(got);

	tu_write(e->dir, "small", "hi\n");
	assert_int_equal(io_read_alloc(e->root, "small", &got, 3), 3);
	assert_string_equal(got, "hi\n");
	free(got);
	free(big);
}

static void test_write(void **state)
{
	struct env *e = *state;
	char *v;

	tu_write(e->dir, "kdamonds/0/state", "off\n");
	assert_int_equal(io_write(e->root, "/kdamonds/0/state", "on"), 0);
	v = tu_read(e->dir, "kdamonds/0/state");
	assert_string_equal(v, "on");
	free(v);

	/* A shorter value replaces a longer one completely. */
	tu_write(e->dir, "ops", "paddr-long-value");
	assert_int_equal(io_write(e->root, "ops", "vaddr"), 0);
	v = tu_read(e->dir, "ops");
	assert_string_equal(v, "vaddr");
	free(v);

	assert_int_equal(io_writef(e->root, "ops", "%u-%s", 42u, "x"), 0);
	v = tu_read(e->dir, "ops");
	assert_string_equal(v, "42-x");
	free(v);

	/* Missing attribute: never created. */
	assert_int_equal(io_write(e->root, "kdamonds/0/nope", "1"), -ENOENT);
	assert_false(tu_exists(e->dir, "kdamonds/0/nope"));

	/* Permission errors come back as -errno. */
	if (geteuid() != 0) {
		tu_write(e->dir, "ro", "0");
		char *p = NULL;
		assert_true(asprintf(&p, "%s/ro", e->dir) > 0);
		assert_int_equal(chmod(p, 0444), 0);
		assert_int_equal(io_write(e->root, "ro", "1"), -EACCES);
		free(p);
	}

	/* Too long for IO_VALUE_MAX. */
	char *huge = malloc(IO_VALUE_MAX + 10);
	assert_non_null(huge);
	memset(huge, 'x', IO_VALUE_MAX + 9);
	huge[IO_VALUE_MAX + 9] = '\0';
	assert_int_equal(io_writef(e->root, "ops", "%s", huge), -E2BIG);
	free(huge);
}

static void test_write_errno_passthrough(void **state)
{
	struct env *e = *state;
	struct rlimit saved, none = { 0, 0 };

	/* With a file size limit of 0, write(2) to a regular file fails with
	 * EFBIG: the value of write's errno, not open's, must reach the
	 * caller, as with sysfs' EBUSY. */
	tu_write(e->dir, "state", "");
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &saved), 0);
	none.rlim_max = saved.rlim_max;
	signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &none), 0);
	assert_int_equal(io_file_write(e->root, "state", "on"), -EFBIG);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &saved), 0);
	signal(SIGXFSZ, SIG_DFL);
}

/*
 * A FIFO (or a device) where a sysfs or procfs file belongs is refused
 * without blocking.  Without that, opening the FIFO waits for a writer for
 * ever: the alarm ends such a run instead of hanging the suite.
 */
static void test_not_regular(void **state)
{
	struct env *e = *state;
	char path[512], buf[16], *got = NULL;

	tu_pathf(path, sizeof(path), "%s/node0", e->dir);
	assert_int_equal(mkdir(path, 0755), 0);
	tu_pathf(path, sizeof(path), "%s/node0/meminfo", e->dir);
	assert_int_equal(mkfifo(path, 0644), 0);
	tu_pathf(path, sizeof(path), "%s/null", e->dir);
	assert_int_equal(symlink("/dev/null", path), 0);

	alarm(10);
	assert_int_equal(io_read(e->root, "node0/meminfo", buf, sizeof(buf)), -IO_ENOTREG);
	assert_int_equal(io_read_alloc(e->root, "node0/meminfo", &got, 4096), -IO_ENOTREG);
	assert_null(got);
	/* No reader: the non-blocking open fails at once (ENXIO). */
	assert_true(io_file_write(e->root, "node0/meminfo", "1") < 0);
	assert_int_equal(io_read(e->root, "null", buf, sizeof(buf)), -IO_ENOTREG);
	assert_int_equal(io_file_write(e->root, "null", "1"), -IO_ENOTREG);
	assert_int_equal(io_read_alloc(e->root, "node0", &got, 4096), -EISDIR);
	alarm(0);
	assert_non_null(strstr(io_strerror(-IO_ENOTREG), "not a regular file"));
	assert_string_equal(io_strerror(-ENOENT), strerror(ENOENT));
}

/* io_read()/io_write() are seams (sysfs_io.h): what io_writef() and
 * io_read_u64() do goes through whatever binds them -- here the fake
 * kernel, which turns a write of nr_kdamonds into kdamond directories --
 * while io_file_write() always writes the file. */
static void test_seams(void **state)
{
	struct env *e = *state;
	struct fake_damon *fk;
	uint64_t v;
	char *s;

	tu_write(e->dir, "real", "old");
	fk = fake_damon_new(e->dir, FAKE_KERNEL_6_17);
	assert_int_equal(io_writef(e->root, "sys/kernel/mm/damon/admin/kdamonds/nr_kdamonds", "%d", 2), 0);
	assert_true(io_exists(e->root, "sys/kernel/mm/damon/admin/kdamonds/1/state"));
	assert_int_equal(fake_damon_nr_writes(fk, "nr_kdamonds"), 1);
	/* The fake parses like the kernel: garbage is refused. */
	assert_int_equal(io_write(e->root, "/sys/kernel/mm/damon/admin/kdamonds/nr_kdamonds", "x"), -EINVAL);
	assert_int_equal(io_read_u64(e->root, "sys/kernel/mm/damon/admin/kdamonds/nr_kdamonds", &v), 0);
	assert_int_equal(v, 2);
	/* Other files pass through the fake to the tree. */
	assert_int_equal(io_writef(e->root, "real", "%d", 5), 0);
	s = tu_read(e->dir, "real");
	assert_string_equal(s, "5");
	free(s);
	assert_int_equal(io_file_write(e->root, "sys/kernel/mm/damon/admin/kdamonds/nr_kdamonds", "x"), 0);
	assert_int_equal(fake_damon_nr_writes(fk, "nr_kdamonds"), 2);
	fake_damon_free(fk);
	/* Without a fake, the seams are the files. */
	assert_int_equal(io_write(e->root, "real", "x"), 0);
	s = tu_read(e->dir, "real");
	assert_string_equal(s, "x");
	free(s);
}

static void test_exists(void **state)
{
	struct env *e = *state;

	tu_write(e->dir, "memory/memory0/online", "1");
	tu_write(e->dir, "node/node0/cpulist", "");
	assert_true(io_exists(e->root, "memory/memory0/online"));
	assert_true(io_exists(e->root, "/memory"));
	assert_true(io_exists(e->root, ""));
	assert_false(io_exists(e->root, "memory/memory1"));
	assert_true(io_exists(e->root, "node/node0"));
}

/* testutil's fixture copy keeps relative symlinks, which the topology code
 * depends on (nodeN/memoryM -> ../../memory/memoryM). */
static void test_fixture_copy(void **state)
{
	struct env *e = *state;
	char *old = getenv("FIXTURES_DIR") ? strdup(getenv("FIXTURES_DIR")) : NULL;
	char *p, *copy, *v, target[64];
	ssize_t n;

	tu_write(e->dir, "fx/sys/devices/system/memory/memory0/online", "1\n");
	tu_write(e->dir, "fx/sys/devices/system/node/node0/cpulist", "0-1\n");
	assert_true(asprintf(&p, "%s/fx/sys/devices/system/node/node0/memory0", e->dir) > 0);
	assert_int_equal(symlink("../../memory/memory0", p), 0);
	free(p);

	assert_int_equal(setenv("FIXTURES_DIR", e->dir, 1), 0);
	copy = tu_fixture_copy("fx");
	assert_non_null(copy);
	assert_true(strncmp(copy, e->dir, strlen(e->dir)) != 0); /* a fresh dir */

	v = tu_read(copy, "sys/devices/system/node/node0/memory0/online");
	assert_string_equal(v, "1");
	free(v);
	assert_true(asprintf(&p, "%s/sys/devices/system/node/node0/memory0", copy) > 0);
	n = readlink(p, target, sizeof(target) - 1);
	assert_true(n > 0);
	target[n] = '\0';
	assert_string_equal(target, "../../memory/memory0");
	free(p);
	assert_true(tu_exists(copy, "sys/devices/system/node/node0/cpulist"));
	assert_null(tu_read(copy, "sys/nothing"));

	tu_rmtree(copy);
	assert_false(tu_exists(copy, ""));
	/* rmtree did not follow the link into the fixture. */
	assert_true(tu_exists(e->dir, "fx/sys/devices/system/memory/memory0/online"));
	free(copy);

	if (old) {
		setenv("FIXTURES_DIR", old, 1);
		free(old);
	} else {
		unsetenv("FIXTURES_DIR");
	}
}

static int count_entry(const char *name, void *ud)
{
	unsigned *mask = ud;

	if (strcmp(name, "memory0") == 0)
		*mask |= 1;
	else if (strcmp(name, "memory1") == 0)
		*mask |= 2;
	else if (strcmp(name, "dangling") == 0)
		*mask |= 4;
	else if (strcmp(name, "cpulist") == 0)
		*mask |= 8;
	else
		*mask |= 0x100;
	return 0;
}

static int stop_entry(const char *name, void *ud)
{
	unsigned *n = ud;

	(void)name;
	return ++*n == 2 ? 42 : 0;
}

static void test_symlinks_and_entries(void **state)
{
	struct env *e = *state;
	unsigned mask = 0, n = 0;
	char *p;

	tu_write(e->dir, "sys/devices/system/memory/memory0/online", "1");
	tu_write(e->dir, "sys/devices/system/node/node0/cpulist", "0-3");
	assert_true(asprintf(&p, "%s/sys/devices/system/node/node0/memory0", e->dir) > 0);
	assert_int_equal(symlink("../../memory/memory0", p), 0);
	free(p);
	assert_true(asprintf(&p, "%s/sys/devices/system/node/node0/dangling", e->dir) > 0);
	assert_int_equal(symlink("../../memory/memory9", p), 0);
	free(p);

	/* Symlinks are followed... */
	assert_true(io_exists(e->root, "sys/devices/system/node/node0/memory0/online"));
	assert_false(io_exists(e->root, "sys/devices/system/node/node0/dangling"));
	/* ...and listed, even dangling ones. */
	assert_int_equal(io_for_each_entry(e->root, "/sys/devices/system/node/node0", count_entry, &mask), 0);
	assert_int_equal(mask, 1 | 4 | 8);

	assert_int_equal(io_for_each_entry(e->root, "sys/devices/system/node/node0", stop_entry, &n), 42);
	assert_int_equal(n, 2);

	assert_int_equal(io_for_each_entry(e->root, "sys/nope", count_entry, &mask), -ENOENT);
	assert_int_equal(io_for_each_entry(e->root, "sys/devices/system/node/node0/cpulist",
					   count_entry, &mask), -ENOTDIR);
}

static void test_path(void **state)
{
	char buf[16];

	(void)state;
	assert_int_equal(io_path(buf, sizeof(buf), "kdamonds/%u", 3u), 0);
	assert_string_equal(buf, "kdamonds/3");
	assert_int_equal(io_path(buf, sizeof(buf), "%s", "123456789012345"), 0);
	assert_int_equal(io_path(buf, sizeof(buf), "%s", "1234567890123456"), -ENAMETOOLONG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_root_open, setup, teardown),
		cmocka_unit_test_setup_teardown(test_read, setup, teardown),
		cmocka_unit_test_setup_teardown(test_read_numbers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_read_alloc, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_errno_passthrough, setup, teardown),
		cmocka_unit_test_setup_teardown(test_not_regular, setup, teardown),
		cmocka_unit_test_setup_teardown(test_seams, setup, teardown),
		cmocka_unit_test_setup_teardown(test_exists, setup, teardown),
		cmocka_unit_test_setup_teardown(test_symlinks_and_entries, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fixture_copy, setup, teardown),
		cmocka_unit_test(test_path),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
