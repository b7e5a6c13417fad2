/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Where the configuration comes from: the main file's search path, drop-ins
 * (precedence, masking, order), the provenance of every key, and errors. */
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

#include "build-config.h"
#include "config.h"
#include "config_fx.h"
#include "testutil.h"

/* "/etc" of the search path is the build's sysconfdir (/usr/local/etc with
 * meson's default prefix). */
#define ETC_MAIN SYSCONFDIR "/damon-tierd.conf"
#define ETC_D    SYSCONFDIR "/damon-tierd.conf.d/"
#define RUN_D    "run/damon-tierd.conf.d/"
#define LOCAL_D  "usr/local/lib/damon-tierd.conf.d/"
#define USR_D    "usr/lib/damon-tierd.conf.d/"

static int load_root(const char *root, struct config *c, struct config_origins *o, struct config_error *err)
{
	const struct config_sources src = { .root = root };

	memset(err, 0, sizeof(*err));
	return config_load_sources(&src, c, o, err);
}

/* root/rel as a string for comparisons (static: one at a time). */
static const char *at(const char *root, const char *rel)
{
	static char buf[2][512];
	static unsigned i;

	i ^= 1;
	while (*rel == '/')
		rel++;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", root, rel);
	return buf[i];
}

static void make_symlink(const char *target, const char *root, const char *rel)
{
	tu_write(root, rel, "");  /* creates the parent directories */
	assert_int_equal(unlink(at(root, rel)), 0);
	assert_int_equal(symlink(target, at(root, rel)), 0);
}

static void assert_origin(const struct config_origins *o, enum config_key k, const char *file, unsigned line)
{
	if (strcmp(o->key[k].file, file) != 0 || o->key[k].line != line)
		fail_msg("origin of key %d is \"%s\":%u, expected \"%s\":%u", (int)k, o->key[k].file,
			 o->key[k].line, file, line);
}

/* A failed load writes neither *ret nor *ret_origins. */
static int load_root_expect_untouched(const char *root, struct config_error *err)
{
	struct config c, csent;
	static struct config_origins o, osent;
	int r;

	memset(&c, 0xA5, sizeof(c));
	memset(&csent, 0xA5, sizeof(csent));
	memset(&o, 0x5A, sizeof(o));
	memset(&osent, 0x5A, sizeof(osent));
	r = load_root(root, &c, &o, err);
	assert_true(r < 0);
	print_message("  %s\n", err->message);
	assert_memory_equal(&c, &csent, sizeof(c));
	assert_memory_equal(&o, &osent, sizeof(o));
	return r;
}

static void test_sources_nothing_found(void **state)
{
	char *root = tu_mkdtemp();
	struct config c, d;
	struct config_origins o;
	struct config_error err;
	int k;

	(void)state;
	memset(&o, 0x5A, sizeof(o));
	assert_int_equal(load_root(root, &c, &o, &err), 0);
	config_init(&d);
	cfx_assert_equal(&c, &d);
	assert_int_equal(c.set_mask, 0);
	assert_string_equal(o.main_file, "");
	assert_int_equal(o.nr_dropins, 0);
	for (k = 0; k < _CONFIG_KEY_MAX; k++)
		assert_origin(&o, (enum config_key)k, "", 0);

	/* Empty drop-in directories and files that are not drop-ins change
	 * nothing: hidden files, backups, other suffixes. */
	tu_write(root, ETC_D ".hidden.conf", "[quota]\nsize = 1G\n");
	tu_write(root, ETC_D "10-a.conf~", "[quota]\nsize = 1G\n");
	tu_write(root, ETC_D "10-a.conf.dpkg-old", "[quota]\nsize = 1G\n");
	tu_write(root, ETC_D "README", "not ini at all\n");
	tu_write(root, USR_D ".conf", "[quota]\nsize = 1G\n");
	assert_int_equal(mkdir(at(root, "run"), 0755), 0);
	assert_int_equal(mkdir(at(root, RUN_D), 0755), 0);
	assert_int_equal(load_root(root, &c, &o, &err), 0);
	cfx_assert_equal(&c, &d);
	assert_int_equal(c.set_mask, 0);
	assert_int_equal(o.nr_dropins, 0);

	/* NULL origins and NULL err are fine. */
	assert_int_equal(config_load_sources(&(struct config_sources){ .root = root }, &c, NULL, NULL), 0);
	tu_rmtree(root);
	free(root);
}

static void test_sources_main_search(void **state)
{
	char *root = tu_mkdtemp();
	struct config c;
	struct config_origins o;
	struct config_error err;

	(void)state;
	/* The vendor default alone. */
	tu_write(root, "usr/lib/damon-tierd.conf", "[quota]\nsize = 1G\n[daemon]\ninterval = 5s\n");
	assert_int_equal(load_root(root, &c, &o, &err), 0);
	assert_int_equal(c.quota_bytes, 1ULL << 30);
	assert_int_equal(c.interval_us, 5 * S);
	assert_string_equal(o.main_file, at(root, "usr/lib/damon-tierd.conf"));
	assert_origin(&o, CONFIG_KEY_QUOTA_SIZE, at(root, "usr/lib/damon-tierd.conf"), 2);

	/* The first found is the only main file read: /usr/local/lib hides
	 * the vendor file entirely (interval falls back to its default). */
	tu_write(root, "usr/local/lib/damon-tierd.conf", "[quota]\nsize = 2G\n");
	assert_int_equal(load_root(root, &c, &o, &err), 0);
	assert_int_equal(c.quota_bytes, 2ULL << 30);
	assert_int_equal(c.interval_us, 5 * S);
	assert_false(config_is_set(&c, CONFIG_KEY_DAEMON_INTERVAL));
	assert_string_equal(o.main_file, at(root, "usr/local/lib/damon-tierd.conf"));

	tu_write(root, "run/damon-tierd.conf", "[quota]\nsize = 3G\n");
	assert_int_equal(load_root(root, &c, &o, &err), 0);
	assert_int_equal(c.quota_bytes, 3ULL << 30);

	tu_write(root, ETC_MAIN, "# local\n[quota]\nsize = 4G\n");
	assert_int_equal(load_root(root, &c, &o, &err), 0);
	assert_int_equal(c.quota_bytes, 4ULL << 30);
	assert_string_equal(o.main_file, at(root, ETC_MAIN));
	assert_origin(&o, CONFIG_KEY_QUOTA_SIZE, at(root, ETC_MAIN), 3);
	assert_int_equal(o.nr_dropins, 0);

	/* /etc/damon-tierd.conf -> /dev/null masks every lower main file. */
	make_symlink("/dev/null", root, ETC_MAIN);
	assert_int_equal(load_root(root, &c, &o, &err), 0);
	assert_int_equal(c.set_mask, 0);
	assert_string_equal(o.main_file, "");

	/* A trailing slash on the root is fine. */
	assert_int_equal(unlink(at(root, ETC_MAIN)), 0);
	tu_write(root, ETC_MAIN, "[quota]\nsize = 5G\n");
	{
		char slash[512];

		snprintf(slash, sizeof(slash), "%s/", root);
		assert_int_equal(load_root(slash, &c, &o, &err), 0);
		assert_int_equal(c.quota_bytes, 5ULL << 30);
		assert_string_equal(o.main_file, at(root, ETC_MAIN));
	}
	tu_rmtree(root);
	free(root);
}

static void test_sources_dropin_precedence(void **state)
{
	char *root = tu_mkdtemp();
	struct config c;
	struct config_origins o;
	struct config_error err;

	(void)state;
	tu_write(root, ETC_MAIN, "[quota]\nsize = 1G\nweight_age = 7\n");
	tu_write(root, USR_D "50-vendor.conf", "[quota]\nsize = 2G\n[daemon]\ninterval = 5s\n");
	assert_int_equal(load_root(root, &c, &o, &err), 0);
	/* A drop-in overrides the main file, even from /usr/lib. */
	assert_int_equal(c.quota_bytes, 2ULL << 30);
	assert_int_equal(c.weight_age, 7);
	assert_int_equal(c.interval_us, 5 * S);
	assert_int_equal(o.nr_dropins, 1);
	assert_origin(&o, CONFIG_KEY_QUOTA_SIZE, at(root, USR_D "50-vendor.conf"), 2);
	assert_origin(&o, CONFIG_KEY_QUOTA_WEIGHT_AGE, at(root, ETC_MAIN), 3);

	/* The same name in /etc replaces the /usr/lib file as a whole: its
	 * interval is gone, not merged. */
	tu_write(root, ETC_D "50-vendor.conf", "[quota]\nsize = 3G\n");
	assert_int_equal(load_root(root, &c, &o, &err), 0);
	assert_int_equal(c.quota_bytes, 3ULL << 30);
	assert_int_equal(c.interval_us, 5 * S);
	assert_false(config_is_set(&c, CONFIG_KEY_DAEMON_INTERVAL));
	assert_int_equal(o.nr_dropins, 1);
	assert_origin(&o, CONFIG_KEY_QUOTA_SIZE, at(root, ETC_D "50-vendor.conf"), 2);

	/* /run sits between /etc and /usr/local/lib. */
	tu_write(root, RUN_D "60-x.conf", "[quota]\nweight_age = 8\n");
	tu_write(root, LOCAL_D "60-x.conf", "[quota]\nweight_age = 9\n");
	assert_int_equal(load_root(root, &c, &o, &err), 0);
	assert_int_equal(c.weight_age, 8);
	assert_origin(&o, CONFIG_KEY_QUOTA_WEIGHT_AGE, at(root, RUN_D "60-x.conf"), 2);
	tu_write(root, LOCAL_D "61-x.conf", "[quota]\nweight_age = 9\n");
	assert_int_equal(load_root(root, &c, &o, &err), 0);
	assert_int_equal(c.weight_age, 9);
	assert_int_equal(o.nr_dropins, 3);
	tu_rmtree(root);
	free(root);
}

static void test_sources_dev_null_masks(void **state)
{
	char *root = tu_mkdtemp();
	struct config c;
	struct config_origins o;
	struct config_error err;

	(void)state;
	tu_write(root, USR_D "20-quota.conf", "[quota]\nsize = 2G\n");
	tu_write(root, USR_D "30-other.conf", "[daemon]\ninterval = 5s\n");
	make_symlink("/dev/null", root, ETC_D "20-quota.conf");
	assert_int_equal(load_root(root, &c, &o, &err), 0);
	assert_int_equal(c.quota_bytes, 200ULL << 20);
	assert_false(config_is_set(&c, CONFIG_KEY_QUOTA_SIZE));
	assert_origin(&o, CONFIG_KEY_QUOTA_SIZE, "", 0);
	assert_int_equal(c.interval_us, 5 * S);
	assert_int_equal(o.nr_dropins, 1);  /* the masked one is not counted */

	/* An empty file masks too (it sets nothing). */
	assert_int_equal(unlink(at(root, ETC_D "20-quota.conf")), 0);
	tu_write(root, RUN_D "20-quota.conf", "");
	assert_int_equal(load_root(root, &c, &o, &err), 0);
	assert_false(config_is_set(&c, CONFIG_KEY_QUOTA_SIZE));
	tu_rmtree(root);
	free(root);
}

static void test_sources_lexical_order(void **state)
{
	char *root = tu_mkdtemp();
	struct config c;
	struct config_origins o;
	struct config_error err;

	(void)state;
	/* Order is by name across all directories, not by directory: the
	 * /usr/lib 90- file comes after the /etc 10- file and wins. */
	tu_write(root, ETC_MAIN, "[quota]\nsize = 1G\n");
	tu_write(root, ETC_D "10-early.conf", "[quota]\nsize = 2G\nweight_age = 5\n");
	tu_write(root, USR_D "90-late.conf", "[quota]\n\nsize = 3G\n");
	tu_write(root, LOCAL_D "50-mid.conf", "[quota]\nweight_age = 6\nsize = 4G\n");
	assert_int_equal(load_root(root, &c, &o, &err), 0);
	assert_int_equal(c.quota_bytes, 3ULL << 30);
	assert_int_equal(c.weight_age, 6);
	assert_origin(&o, CONFIG_KEY_QUOTA_SIZE, at(root, USR_D "90-late.conf"), 3);
	assert_origin(&o, CONFIG_KEY_QUOTA_WEIGHT_AGE, at(root, LOCAL_D "50-mid.conf"), 2);
	assert_int_equal(o.nr_dropins, 3);

	/* Byte order, not number order: "9-" sorts after "10-". */
	tu_write(root, RUN_D "9-x.conf", "[quota]\nweight_age = 1\n");
	tu_write(root, RUN_D "A-x.conf", "[quota]\nweight_age = 2\n");
	tu_write(root, RUN_D "a-x.conf", "[quota]\nweight_age = 3\n");
	assert_int_equal(load_root(root, &c, &o, &err), 0);
	assert_int_equal(c.weight_age, 3);
	assert_int_equal(unlink(at(root, RUN_D "a-x.conf")), 0);
	assert_int_equal(load_root(root, &c, &o, &err), 0);
	assert_int_equal(c.weight_age, 2);
	assert_int_equal(unlink(at(root, RUN_D "A-x.conf")), 0);
	assert_int_equal(load_root(root, &c, &o, &err), 0);
	assert_int_equal(c.weight_age, 1);
	tu_rmtree(root);
	free(root);
}

static void test_sources_explicit_file(void **state)
{
	char *root = tu_mkdtemp();
	char main_path[512], dir[512];
	struct config c, sentinel;
	struct config_origins o;
	struct config_error err;
	struct config_sources src = { .root = root, .main_file = main_path };

	(void)state;
	snprintf(main_path, sizeof(main_path), "%s/my.conf", root);
	snprintf(dir, sizeof(dir), "%s/my.conf.d/10-q.conf", root);

	/* Missing FILE: -ENOENT naming it, even with FILE.d/ present. */
	tu_write(root, "my.conf.d/10-q.conf", "[quota]\nsize = 2G\n");
	memset(&c, 0xA5, sizeof(c));
	memset(&sentinel, 0xA5, sizeof(sentinel));
	assert_int_equal(config_load_sources(&src, &c, &o, &err), -ENOENT);
	assert_memory_equal(&c, &sentinel, sizeof(c));
	assert_string_equal(err.file, main_path);
	assert_non_null(strstr(err.message, "my.conf: no such file"));

	/* FILE, then FILE.d/; the search path (under root or not) is not read. */
	tu_write(root, "my.conf", "[quota]\nsize = 1G\nweight_age = 3\n");
	tu_write(root, ETC_MAIN, "[daemon]\ninterval = 5s\n");
	tu_write(root, ETC_D "20-x.conf", "[daemon]\nstatus_interval = 5min\n");
	assert_int_equal(config_load_sources(&src, &c, &o, &err), 0);
	assert_int_equal(c.quota_bytes, 2ULL << 30);
	assert_int_equal(c.weight_age, 3);
	assert_false(config_is_set(&c, CONFIG_KEY_DAEMON_INTERVAL));
	assert_false(config_is_set(&c, CONFIG_KEY_DAEMON_STATUS_INTERVAL));
	assert_string_equal(o.main_file, main_path);
	assert_int_equal(o.nr_dropins, 1);
	assert_origin(&o, CONFIG_KEY_QUOTA_SIZE, dir, 2);
	assert_origin(&o, CONFIG_KEY_QUOTA_WEIGHT_AGE, main_path, 3);

	/* A relative FILE works relative to the working directory. */
	{
		char cwd[512];

		assert_non_null(getcwd(cwd, sizeof(cwd)));
		assert_int_equal(chdir(root), 0);
		src.main_file = "my.conf";
		assert_int_equal(config_load_sources(&src, &c, &o, &err), 0);
		assert_int_equal(c.quota_bytes, 2ULL << 30);
		assert_string_equal(o.key[CONFIG_KEY_QUOTA_SIZE].file, "my.conf.d/10-q.conf");
		assert_int_equal(chdir(cwd), 0);
	}

	/* config_load() is the one file, without its drop-ins. */
	assert_int_equal(config_load(main_path, &c, &err), 0);
	assert_int_equal(c.quota_bytes, 1ULL << 30);
	tu_rmtree(root);
	free(root);
}

static void test_sources_format(void **state)
{
	char *root = tu_mkdtemp();
	struct config c;
	struct config_origins o;
	struct config_error err;
	char buf[8192], plain[8192], want[600];
	const char *line, *p;
	size_t hash_col = 0;

	(void)state;
	tu_write(root, ETC_MAIN, "[daemon]\ninterval = 5s\n");
	tu_write(root, ETC_D "10-quota.conf", "# more migration\n[quota]\nsize = 1G\n");
	assert_int_equal(load_root(root, &c, &o, &err), 0);
	assert_int_equal(config_format_sources(&c, &o, buf, sizeof(buf)), 0);
	print_message("%s", buf);

	snprintf(want, sizeof(want), "  # %s:3\n", at(root, ETC_D "10-quota.conf"));
	line = strstr(buf, "quota.size = 1GiB ");
	assert_non_null(line);
	assert_non_null(strstr(line, want));
	assert_true(strstr(line, want) < strchr(line, '\n'));
	snprintf(want, sizeof(want), "  # %s:2\n", at(root, ETC_MAIN));
	line = strstr(buf, "daemon.interval = 5s ");
	assert_non_null(line);
	assert_true(strstr(line, want) < strchr(line, '\n'));
	line = strstr(buf, "promote.used_goal = auto ");
	assert_non_null(line);
	assert_true(strstr(line, "  # default\n") < strchr(line, '\n'));

	/* One line per key, the comments aligned in one column. */
	for (p = buf; *p; p = strchr(p, '\n') + 1) {
		size_t col = (size_t)(strstr(p, "  # ") - p);

		if (hash_col == 0)
			hash_col = col;
		assert_int_equal(col, hash_col);
	}

	/* Without origins, and with the comments cut, it is config_format(). */
	assert_int_equal(config_format(&c, plain, sizeof(plain)), 0);
	assert_int_equal(config_format_sources(&c, NULL, buf, sizeof(buf)), 0);
	assert_string_equal(buf, plain);
	assert_int_equal(config_format_sources(&c, &o, buf, 100), -ENOBUFS);
	assert_int_equal(config_format_sources(&c, &o, buf, 0), -ENOBUFS);
	tu_rmtree(root);
	free(root);
}

static void test_sources_errors(void **state)
{
	char *root = tu_mkdtemp();
	struct config_error err;
	char prefix[600];

	(void)state;
	tu_write(root, ETC_MAIN, "[promote]\nmin_accesses = 2\n");
	tu_write(root, USR_D "10-good.conf", "[quota]\nsize = 1G\n");

	/* A bad value in a drop-in names the drop-in and its line. */
	tu_write(root, RUN_D "20-bad.conf", "[quota]\n\nsize = 200 parsecs\n");
	assert_int_equal(load_root_expect_untouched(root, &err), -EINVAL);
	assert_string_equal(err.file, at(root, RUN_D "20-bad.conf"));
	assert_int_equal(err.line, 3);
	snprintf(prefix, sizeof(prefix), "%s:3: [quota] size: not a size", at(root, RUN_D "20-bad.conf"));
	assert_int_equal(strncmp(err.message, prefix, strlen(prefix)), 0);

	/* Twice in one drop-in is still an error... */
	tu_write(root, RUN_D "20-bad.conf", "[quota]\nsize = 2G\nsize = 3G\n");
	assert_int_equal(load_root_expect_untouched(root, &err), -EINVAL);
	assert_string_equal(err.file, at(root, RUN_D "20-bad.conf"));
	assert_int_equal(err.line, 3);
	assert_non_null(strstr(err.message, "duplicate key (first set on line 2"));
	/* ... once in each of two files is the point of drop-ins. */
	tu_write(root, RUN_D "20-bad.conf", "[quota]\nsize = 2G\n");
	{
		struct config c;

		assert_int_equal(load_root(root, &c, NULL, &err), 0);
		assert_int_equal(c.quota_bytes, 2ULL << 30);
	}

	/* A cross-key failure is reported where the last of the two keys was
	 * set, naming where the other one came from. */
	tu_write(root, RUN_D "20-bad.conf", "[demote]\nmax_accesses = 2\n");
	assert_int_equal(load_root_expect_untouched(root, &err), -EINVAL);
	assert_string_equal(err.file, at(root, RUN_D "20-bad.conf"));
	assert_int_equal(err.line, 2);
	snprintf(prefix, sizeof(prefix), "[demote] max_accesses = 2 (line 2) must be below "
		 "[promote] min_accesses = 2 (%s:2)", at(root, ETC_MAIN));
	assert_non_null(strstr(err.message, prefix));

	/* Unknown section, line syntax, NUL bytes: all named in the drop-in. */
	tu_write(root, RUN_D "20-bad.conf", "[qouta]\n");
	assert_int_equal(load_root_expect_untouched(root, &err), -EINVAL);
	assert_string_equal(err.file, at(root, RUN_D "20-bad.conf"));
	assert_int_equal(err.line, 1);
	assert_non_null(strstr(err.message, "did you mean [quota]?"));
	tu_write(root, RUN_D "20-bad.conf", "[quota]\nnonsense\n");
	assert_int_equal(load_root_expect_untouched(root, &err), -EINVAL);
	assert_int_equal(err.line, 2);
	assert_non_null(strstr(err.message, "cannot parse line"));
	assert_int_equal(unlink(at(root, RUN_D "20-bad.conf")), 0);

	/* Bad sources: a directory named *.conf, a dangling symlink, a drop-in
	 * directory that is a file, an unreadable drop-in. */
	assert_int_equal(mkdir(at(root, ETC_D), 0755), 0);
	assert_int_equal(mkdir(at(root, ETC_D "30-dir.conf"), 0755), 0);
	assert_int_equal(load_root_expect_untouched(root, &err), -EINVAL);
	assert_string_equal(err.file, at(root, ETC_D "30-dir.conf"));
	assert_non_null(strstr(err.message, "not a regular file but a directory"));
	assert_int_equal(rmdir(at(root, ETC_D "30-dir.conf")), 0);

	assert_int_equal(mkfifo(at(root, ETC_D "30-fifo.conf"), 0644), 0);
	alarm(10);  /* ends a run that blocks in open() instead of hanging */
	assert_int_equal(load_root_expect_untouched(root, &err), -EINVAL);
	alarm(0);
	assert_string_equal(err.file, at(root, ETC_D "30-fifo.conf"));
	assert_non_null(strstr(err.message, "not a regular file but a FIFO"));
	assert_int_equal(unlink(at(root, ETC_D "30-fifo.conf")), 0);

	make_symlink("/nonexistent/damon-tierd-test", root, ETC_D "30-gone.conf");
	assert_int_equal(load_root_expect_untouched(root, &err), -ENOENT);
	assert_string_equal(err.file, at(root, ETC_D "30-gone.conf"));
	assert_non_null(strstr(err.message, "dangling symlink"));
	assert_int_equal(unlink(at(root, ETC_D "30-gone.conf")), 0);

	tu_write(root, "usr/local/lib/damon-tierd.conf.d", "[quota]\nsize = 1G\n");
	assert_int_equal(load_root_expect_untouched(root, &err), -ENOTDIR);
	assert_string_equal(err.file, at(root, "usr/local/lib/damon-tierd.conf.d"));
	assert_non_null(strstr(err.message, "not a directory"));
	assert_int_equal(unlink(at(root, "usr/local/lib/damon-tierd.conf.d")), 0);

	if (geteuid() != 0) {
		tu_write(root, ETC_D "40-secret.conf", "[quota]\nsize = 1G\n");
		assert_int_equal(chmod(at(root, ETC_D "40-secret.conf"), 0), 0);
		assert_int_equal(load_root_expect_untouched(root, &err), -EACCES);
		assert_string_equal(err.file, at(root, ETC_D "40-secret.conf"));
		assert_int_equal(unlink(at(root, ETC_D "40-secret.conf")), 0);
	}

	/* A root so long that the paths would not fit. */
	{
		char longroot[400];

		memset(longroot, 'x', sizeof(longroot) - 1);
		longroot[0] = '/';
		longroot[sizeof(longroot) - 1] = '\0';
		assert_int_equal(load_root_expect_untouched(longroot, &err), -ENAMETOOLONG);
		assert_non_null(strstr(err.message, "longer than 255 bytes"));
	}
	tu_rmtree(root);
	free(root);
}

static void test_sources_pinning(void **state)
{
	char *root = tu_mkdtemp();
	struct config c;
	struct config_origins o;
	struct config_error err;

	(void)state;
	/* set_mask is the union over the files: a key pinned anywhere stays
	 * pinned, a key written nowhere stays calibrated. */
	tu_write(root, ETC_MAIN, "[quota]\nsize = 200MiB\n[promote]\nused_goal = 90%\n");
	tu_write(root, USR_D "10-mon.conf", "[monitoring]\nmax_sample_interval = 10s\n");
	tu_write(root, ETC_D "20-goal.conf", "[promote]\nused_goal = auto\n");
	assert_int_equal(load_root(root, &c, &o, &err), 0);
	assert_true(config_is_set(&c, CONFIG_KEY_QUOTA_SIZE));
	assert_true(config_is_set(&c, CONFIG_KEY_MONITORING_MAX_SAMPLE_INTERVAL));
	assert_false(config_is_set(&c, CONFIG_KEY_QUOTA_RESET_INTERVAL));
	assert_false(config_is_set(&c, CONFIG_KEY_QUOTA_APPLY_INTERVAL));
	assert_int_equal(c.set_mask, (UINT64_C(1) << CONFIG_KEY_QUOTA_SIZE) |
			 (UINT64_C(1) << CONFIG_KEY_MONITORING_MAX_SAMPLE_INTERVAL) |
			 (UINT64_C(1) << CONFIG_KEY_PROMOTE_USED_GOAL));
	/* The drop-in's "auto" replaces the main file's pinned 90%. */
	assert_true(c.promote_used.automatic);
	assert_int_equal(c.promote_used.bp, 9970);
	assert_origin(&o, CONFIG_KEY_PROMOTE_USED_GOAL, at(root, ETC_D "20-goal.conf"), 2);

	/* Masking the drop-in un-pins what only it set. */
	make_symlink("/dev/null", root, ETC_D "10-mon.conf");
	assert_int_equal(load_root(root, &c, &o, &err), 0);
	assert_false(config_is_set(&c, CONFIG_KEY_MONITORING_MAX_SAMPLE_INTERVAL));
	tu_rmtree(root);
	free(root);
}

static void test_sources_main_is_dropin(void **state)
{
	char *root = tu_mkdtemp();
	struct config c;
	struct config_origins o;
	struct config_error err;

	(void)state;
	/* As in systemd: a main file that is (a symlink to) one of the
	 * drop-ins is read once, as that drop-in, in its place in the order. */
	tu_write(root, ETC_D "50-all.conf", "[quota]\nsize = 1G\n");
	tu_write(root, ETC_D "60-more.conf", "[quota]\nweight_age = 5\n");
	assert_int_equal(symlink(at(root, ETC_D "50-all.conf"), at(root, ETC_MAIN)), 0);
	assert_int_equal(load_root(root, &c, &o, &err), 0);
	assert_int_equal(c.quota_bytes, 1ULL << 30);
	assert_string_equal(o.main_file, "");
	assert_int_equal(o.nr_dropins, 2);
	assert_origin(&o, CONFIG_KEY_QUOTA_SIZE, at(root, ETC_D "50-all.conf"), 2);
	tu_rmtree(root);
	free(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sources_nothing_found),
		cmocka_unit_test(test_sources_main_search),
		cmocka_unit_test(test_sources_dropin_precedence),
		cmocka_unit_test(test_sources_dev_null_masks),
		cmocka_unit_test(test_sources_lexical_order),
		cmocka_unit_test(test_sources_explicit_file),
		cmocka_unit_test(test_sources_format),
		cmocka_unit_test(test_sources_errors),
		cmocka_unit_test(test_sources_pinning),
		cmocka_unit_test(test_sources_main_is_dropin),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
