/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The configuration as a file: config_load() of one file, config_format()
 * (what --check-config prints) and its round trip, and the shipped
 * conf/damon-tierd.conf. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "config_fx.h"

static char *tmpdir(void)
{
	char *d = strdup("/tmp/test-config.XXXXXX");

	assert_non_null(d);
	assert_non_null(mkdtemp(d));
	return d;
}

static void write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "we");

	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

static void test_load_file(void **state)
{
	struct config c, sentinel, d;
	struct config_error err;
	char path[512], prefix[600];
	char *dir = tmpdir();

	(void)state;
	memset(&sentinel, 0xA5, sizeof(sentinel));

	/* Missing: -ENOENT, err names the path, *ret untouched. */
	snprintf(path, sizeof(path), "%s/missing.conf", dir);
	memset(&c, 0xA5, sizeof(c));
	assert_int_equal(config_load(path, &c, &err), -ENOENT);
	assert_memory_equal(&c, &sentinel, sizeof(c));
	assert_string_equal(err.file, path);
	assert_int_equal(err.line, 0);
	assert_non_null(strstr(err.message, path));

	/* A directory is not a config file. */
	assert_int_equal(config_load(dir, &c, &err), -EINVAL);
	assert_non_null(strstr(err.message, "not a regular file"));
	assert_memory_equal(&c, &sentinel, sizeof(c));

	/* A FIFO is refused without waiting for a writer (the alarm ends a
	 * run that would block instead of hanging the suite). */
	snprintf(path, sizeof(path), "%s/fifo.conf", dir);
	assert_int_equal(mkfifo(path, 0644), 0);
	alarm(10);
	assert_int_equal(config_load(path, &c, &err), -EINVAL);
	alarm(0);
	snprintf(prefix, sizeof(prefix), "%s: not a regular file but a FIFO", path);
	assert_int_equal(strncmp(err.message, prefix, strlen(prefix)), 0);
	assert_memory_equal(&c, &sentinel, sizeof(c));

	/* Good file. */
	snprintf(path, sizeof(path), "%s/good.conf", dir);
	write_file(path, cfx_every_key, strlen(cfx_every_key));
	assert_int_equal(config_load(path, &c, &err), 0);
	cfx_check_every_key(&c);

	/* Bad file: path:line in the message, *ret untouched. */
	snprintf(path, sizeof(path), "%s/bad.conf", dir);
	write_file(path, "[daemon]\n\ninterval = soon\n", 26);
	memset(&c, 0xA5, sizeof(c));
	assert_int_equal(config_load(path, &c, &err), -EINVAL);
	assert_memory_equal(&c, &sentinel, sizeof(c));
	snprintf(prefix, sizeof(prefix), "%s:3: [daemon] interval: not a duration", path);
	assert_int_equal(strncmp(err.message, prefix, strlen(prefix)), 0);
	assert_string_equal(err.file, path);
	assert_int_equal(err.line, 3);

	/* A cross-key failure from a file also leaves *ret alone. */
	snprintf(path, sizeof(path), "%s/cross.conf", dir);
	write_file(path, "[monitoring]\nsample_interval = 1s\n", 34);
	assert_int_equal(config_load(path, &c, &err), -EINVAL);
	assert_memory_equal(&c, &sentinel, sizeof(c));
	assert_int_equal(err.line, 2);

	/* Binary junk. */
	snprintf(path, sizeof(path), "%s/nul.conf", dir);
	write_file(path, "[daemon]\n\0x\n", 12);
	assert_int_equal(config_load(path, &c, &err), -EINVAL);
	assert_non_null(strstr(err.message, "NUL"));
	assert_memory_equal(&c, &sentinel, sizeof(c));

	/* Unreadable (only meaningful when not root). */
	snprintf(path, sizeof(path), "%s/good.conf", dir);
	if (geteuid() != 0) {
		assert_int_equal(chmod(path, 0), 0);
		assert_int_equal(config_load(path, &c, &err), -EACCES);
		assert_non_null(strstr(err.message, path));
		assert_memory_equal(&c, &sentinel, sizeof(c));
	}
	unlink(path);

	/* A NULL err is allowed. */
	assert_int_equal(config_load_string("[daemon]\ninterval = 3s\n", "x", &d, NULL), 0);
	assert_int_equal(d.interval_us, 3 * S);
	assert_int_equal(config_load_string("[daemon]\ninterval = 3\n", "x", &d, NULL), -EINVAL);

	snprintf(path, sizeof(path), "%s/bad.conf", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/cross.conf", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/nul.conf", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/fifo.conf", dir);
	unlink(path);
	assert_int_equal(rmdir(dir), 0);
	free(dir);
}

/* "section.key = value" lines back into an INI text. */
static void format_to_ini(const char *formatted, char *out, size_t size)
{
	char section[32] = "";
	const char *p = formatted;
	size_t used = 0;

	while (*p) {
		const char *nl = strchr(p, '\n'), *dot = strchr(p, '.');
		int n;

		assert_non_null(nl);
		assert_non_null(dot);
		if (strlen(section) != (size_t)(dot - p) || strncmp(section, p, (size_t)(dot - p)) != 0) {
			snprintf(section, sizeof(section), "%.*s", (int)(dot - p), p);
			n = snprintf(out + used, size - used, "[%s]\n", section);
			assert_true(n > 0 && (size_t)n < size - used);
			used += (size_t)n;
		}
		n = snprintf(out + used, size - used, "%.*s\n", (int)(nl - dot - 1), dot + 1);
		assert_true(n > 0 && (size_t)n < size - used);
		used += (size_t)n;
		p = nl + 1;
	}
}

static void test_format(void **state)
{
	const struct config_key_info *keys;
	struct config c, d;
	struct config_error err;
	char buf[4096], ini[4096], line[128];
	size_t n, i;

	(void)state;
	config_init(&c);
	assert_int_equal(config_format(&c, buf, sizeof(buf)), 0);
	assert_non_null(strstr(buf, "daemon.interval = 5s\n"));
	assert_non_null(strstr(buf, "daemon.state_dir = /run/damon-tierd\n"));
	assert_non_null(strstr(buf, "monitoring.sample_interval = 5ms\n"));
	assert_non_null(strstr(buf, "monitoring.intervals_goal_access_bp = 400\n"));
	assert_non_null(strstr(buf, "quota.size = 200MiB\n"));
	assert_non_null(strstr(buf, "quota.time_limit = 0s\n"));
	assert_non_null(strstr(buf, "promote.used_goal = auto\n"));
	assert_non_null(strstr(buf, "demote.young_filter = yes\n"));
	n = config_keys(&keys);
	for (i = 0; i < n; i++) {
		snprintf(line, sizeof(line), "%s.%s = ", keys[i].section, keys[i].key);
		assert_non_null(strstr(buf, line));
	}

	/* Round trip: what --check-config prints parses back to the same. */
	format_to_ini(buf, ini, sizeof(ini));
	assert_int_equal(cfx_load(ini, &d, &err), 0);
	cfx_assert_equal(&c, &d);

	assert_int_equal(cfx_load(cfx_every_key, &c, &err), 0);
	assert_int_equal(config_format(&c, buf, sizeof(buf)), 0);
	assert_non_null(strstr(buf, "monitoring.aggr_interval = 1500ms\n"));
	assert_non_null(strstr(buf, "monitoring.min_sample_interval = 500us\n"));
	assert_non_null(strstr(buf, "daemon.status_interval = 10min\n"));
	assert_non_null(strstr(buf, "quota.size = 1GiB\n"));
	assert_non_null(strstr(buf, "promote.used_goal = 9950\n"));
	assert_non_null(strstr(buf, "daemon.numa_balancing = disable-tiering\n"));
	format_to_ini(buf, ini, sizeof(ini));
	assert_int_equal(cfx_load(ini, &d, &err), 0);
	cfx_assert_equal(&c, &d);

	c.quota_bytes = 4097;
	c.demote_min_age_us = 2 * 3600 * S;
	assert_int_equal(config_format(&c, buf, sizeof(buf)), 0);
	assert_non_null(strstr(buf, "quota.size = 4097\n"));
	assert_non_null(strstr(buf, "demote.min_age = 2h\n"));

	assert_int_equal(config_format(&c, buf, 40), -ENOBUFS);
	assert_int_equal(config_format(&c, buf, 0), -ENOBUFS);
}

static char *read_conf(void)
{
	const char *fixtures = getenv("FIXTURES_DIR");
	char path[1024];
	struct stat st;
	char *text;
	FILE *f;

	if (!fixtures)
		fail_msg("FIXTURES_DIR is not set");
	snprintf(path, sizeof(path), "%s/../../conf/damon-tierd.conf", fixtures);
	f = fopen(path, "re");
	if (!f)
		fail_msg("cannot open %s", path);
	assert_int_equal(fstat(fileno(f), &st), 0);
	text = calloc(1, (size_t)st.st_size + 1);
	assert_non_null(text);
	assert_int_equal(fread(text, 1, (size_t)st.st_size, f), (size_t)st.st_size);
	fclose(f);
	return text;
}

/* Uncommenting every "#key = value" line of the shipped file gives exactly
 * the defaults, so the documented defaults are the real ones. */
static void test_conf_file_defaults(void **state)
{
	char *text = read_conf(), *p;
	struct config c, d;
	struct config_error err;
	unsigned uncommented = 0;

	(void)state;
	/* As shipped (all commented out) it is valid and all defaults. */
	assert_int_equal(config_load_string(text, "damon-tierd.conf", &c, &err), 0);
	assert_int_equal(c.set_mask, 0);

	for (p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		size_t n;

		if (p[0] != '#')
			continue;
		n = strspn(p + 1, "abcdefghijklmnopqrstuvwxyz_");
		/* "#key =" alone: the default is empty (off). */
		if (n > 0 && (strncmp(p + 1 + n, " = ", 3) == 0 || strncmp(p + 1 + n, " =\n", 3) == 0)) {
			p[0] = ' ';
			uncommented++;
		}
	}
	assert_int_equal(uncommented, _CONFIG_KEY_MAX);
	if (config_load_string(text, "damon-tierd.conf", &c, &err) < 0)
		fail_msg("%s", err.message);
	config_init(&d);
	cfx_assert_equal(&c, &d);
	assert_int_equal(c.set_mask, (UINT64_C(1) << _CONFIG_KEY_MAX) - 1);
	free(text);
}

/* Every key appears in the shipped file, in its section, with its default. */
static void test_conf_file_lists_every_key(void **state)
{
	const struct config_key_info *keys;
	char *text = read_conf();
	size_t n, i;

	(void)state;
	n = config_keys(&keys);
	for (i = 0; i < n; i++) {
		char header[64], line[256];
		const char *sec, *next, *hit;

		snprintf(header, sizeof(header), "\n[%s]\n", keys[i].section);
		sec = strstr(text, header);
		if (!sec)
			fail_msg("section [%s] missing from the conf file", keys[i].section);
		sec += strlen(header);
		next = strstr(sec, "\n[");
		snprintf(line, sizeof(line), "\n#%s =%s%s\n", keys[i].key, keys[i].default_text[0] ? " " : "",
			 keys[i].default_text);
		hit = strstr(sec - 1, line);
		if (!hit || (next && hit > next))
			fail_msg("\"#%s = %s\" missing from [%s] in the conf file",
				 keys[i].key, keys[i].default_text, keys[i].section);
	}
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_load_file),
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_conf_file_defaults),
		cmocka_unit_test(test_conf_file_lists_every_key),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
