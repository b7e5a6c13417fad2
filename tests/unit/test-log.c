/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "testutil.h"

/* Runs fn with stderr redirected to a temp file and returns what it wrote. */
static char *capture_stderr(void (*fn)(void))
{
	char *dir = tu_mkdtemp(), *path, *out;
	FILE *f;
	int saved;

	assert_true(asprintf(&path, "%s/stderr", dir) > 0);
	f = fopen(path, "w+");
	assert_non_null(f);
	saved = dup(STDERR_FILENO);
	assert_true(saved >= 0);
	assert_true(dup2(fileno(f), STDERR_FILENO) >= 0);
	fn();
	assert_true(dup2(saved, STDERR_FILENO) >= 0);
	close(saved);
	fclose(f);
	out = tu_read(dir, "stderr");
	assert_non_null(out);
	tu_rmtree(dir);
	free(dir);
	free(path);
	return out;
}

static void emit_lines(void)
{
	static const char *const fields[] = { "NODE=1", NULL };

	log_info("started %d", 1);
	log_warning("careful");
	log_error_errno(-ENOENT, "reading %s", "sys/x");
	log_full(LOG_NOTICE, EBUSY, fields, "kdamond %u", 0u);
	log_debug("hidden");
}

static void test_stderr_format(void **state)
{
	char *out;

	(void)state;
	log_setup(LOG_TARGET_STDERR);
	log_set_max_level(LOG_INFO);
	assert_false(log_to_journal());
	out = capture_stderr(emit_lines);
	assert_string_equal(out,
		"damon-tierd: started 1\n"
		"damon-tierd: warning: careful\n"
		"damon-tierd: error: reading sys/x: No such file or directory\n"
		"damon-tierd: notice: kdamond 0: Device or resource busy");
	free(out);

	log_set_max_level(LOG_DEBUG);
	assert_int_equal(log_get_max_level(), LOG_DEBUG);
	out = capture_stderr(emit_lines);
	assert_non_null(strstr(out, "damon-tierd: debug: hidden"));
	free(out);
	log_set_max_level(LOG_INFO);
}

static void test_return_value(void **state)
{
	(void)state;
	log_set_max_level(LOG_EMERG - 1); /* silence */
	assert_int_equal(log_error_errno(-EBUSY, "x"), -EBUSY);
	assert_int_equal(log_error_errno(EBUSY, "x"), -EBUSY);
	assert_int_equal(log_warning_errno(-EINVAL, "x"), -EINVAL);
	assert_int_equal(log_error("x"), 0);
	assert_int_equal(log_info("x"), 0);
	assert_true(log_error_errno(INT_MIN, "x") < 0);

	/* errno survives logging. */
	errno = EPERM;
	log_error_errno(-ENOENT, "x");
	assert_int_equal(errno, EPERM);
	log_set_max_level(LOG_INFO);
}

static void test_capture(void **state)
{
	(void)state;
	log_set_max_level(LOG_EMERG - 1);
	tu_log_capture_start();
	log_warning("node %d is %s", 3, "slow");
	log_error_errno(-EBUSY, "writing %s", "state");
	/* Dropped by the level filter, still captured for assertions. */
	log_debug("debug detail");

	assert_true(tu_log_contains("node 3 is slow"));
	assert_true(tu_log_contains("writing state: Device or resource busy"));
	assert_true(tu_log_contains("debug detail"));
	assert_false(tu_log_contains("nothing like this"));
	assert_non_null(strstr(tu_log_text(), "node 3 is slow\n"));
	tu_log_capture_stop();

	log_warning("after stop");
	assert_false(tu_log_contains("after stop"));
	assert_string_equal(tu_log_text(), "");
	log_set_max_level(LOG_INFO);
}

static void test_journal_detection(void **state)
{
	char *dir = tu_mkdtemp(), *path, val[64];
	struct stat st;
	FILE *f;
	int saved;

	(void)state;
	assert_true(asprintf(&path, "%s/stream", dir) > 0);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fstat(fileno(f), &st), 0);
	saved = dup(STDERR_FILENO);
	assert_true(dup2(fileno(f), STDERR_FILENO) >= 0);

	snprintf(val, sizeof(val), "%llu:%llu",
		 (unsigned long long)st.st_dev, (unsigned long long)st.st_ino);
	assert_int_equal(setenv("JOURNAL_STREAM", val, 1), 0);
	log_setup(LOG_TARGET_AUTO);
	assert_true(log_to_journal());

	/* Inherited variable, but stderr is something else. */
	snprintf(val, sizeof(val), "%llu:%llu",
		 (unsigned long long)st.st_dev, (unsigned long long)st.st_ino + 1);
	setenv("JOURNAL_STREAM", val, 1);
	log_setup(LOG_TARGET_AUTO);
	assert_false(log_to_journal());

	setenv("JOURNAL_STREAM", "garbage", 1);
	log_setup(LOG_TARGET_AUTO);
	assert_false(log_to_journal());
	unsetenv("JOURNAL_STREAM");
	log_setup(LOG_TARGET_AUTO);
	assert_false(log_to_journal());

	log_setup(LOG_TARGET_JOURNAL);
	assert_true(log_to_journal());
	log_setup(LOG_TARGET_STDERR);
	assert_false(log_to_journal());

	assert_true(dup2(saved, STDERR_FILENO) >= 0);
	close(saved);
	fclose(f);
	tu_rmtree(dir);
	free(dir);
	free(path);
}

static void test_ratelimit(void **state)
{
	struct ratelimit rl = RATELIMIT_INIT(1000000, 3);
	const uint64_t t0 = 5000000;

	(void)state;
	log_set_max_level(LOG_EMERG - 1);
	tu_log_capture_start();

	assert_true(ratelimit_below(&rl, t0));
	assert_true(ratelimit_below(&rl, t0 + 1));
	assert_true(ratelimit_below(&rl, t0 + 2));
	assert_false(ratelimit_below(&rl, t0 + 3));
	assert_false(ratelimit_below(&rl, t0 + 999999));
	assert_int_equal(rl.suppressed, 2);
	assert_false(tu_log_contains("Suppressed"));

	/* New interval: allowed again, with one note about the suppressed two. */
	assert_true(ratelimit_below(&rl, t0 + 1000000));
	assert_true(tu_log_contains("Suppressed 2 similar messages"));
	assert_int_equal(rl.suppressed, 0);
	assert_true(ratelimit_below(&rl, t0 + 1000001));
	assert_true(ratelimit_below(&rl, t0 + 1000002));
	assert_false(ratelimit_below(&rl, t0 + 1000003));

	/* Nothing was suppressed in a quiet interval: no note. */
	tu_log_capture_start();
	assert_true(ratelimit_below(&rl, t0 + 2000003));
	assert_true(tu_log_contains("Suppressed 1 similar message"));
	tu_log_capture_start();
	assert_true(ratelimit_below(&rl, t0 + 4000000));
	assert_false(tu_log_contains("Suppressed"));

	/* Works from a zero timestamp too. */
	struct ratelimit z = RATELIMIT_INIT(10, 1);
	assert_true(ratelimit_below(&z, 0));
	assert_false(ratelimit_below(&z, 9));
	assert_true(ratelimit_below(&z, 10));

	/* burst or interval 0 disables the limit. */
	struct ratelimit off = RATELIMIT_INIT(0, 0);
	for (int i = 0; i < 100; i++)
		assert_true(ratelimit_below(&off, t0));

	tu_log_capture_stop();
	log_set_max_level(LOG_INFO);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stderr_format),
		cmocka_unit_test(test_return_value),
		cmocka_unit_test(test_capture),
		cmocka_unit_test(test_journal_detection),
		cmocka_unit_test(test_ratelimit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
