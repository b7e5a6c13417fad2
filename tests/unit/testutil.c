/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Shared unit test helpers; every failure ends the current test. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernel_features.h"
#include "log.h"
#include "testutil.h"
#include "tiers.h"
#include "topology.h"

static char *xstrdup(const char *s)
{
	char *d = strdup(s);

	if (!d)
		fail_msg("out of memory");
	return d;
}

static char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		fail_msg("out of memory");
	return s;
}

char *tu_mkdtemp(void)
{
	const char *tmp = getenv("TMPDIR");
	char *t;

	if (!tmp || !*tmp)
		tmp = "/tmp";
	t = xasprintf("%s/damon-tierd-test.XXXXXX", tmp);
	if (!mkdtemp(t))
		fail_msg("mkdtemp(%s): %s", t, strerror(errno));
	return t;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if ((flag == FTW_DP ? rmdir(path) : unlink(path)) < 0 && errno != ENOENT)
		fail_msg("removing %s: %s", path, strerror(errno));
	return 0;
}

void tu_pathf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= size) {
		fprintf(stderr, "test bug: path too long: %s...\n", buf);
		abort();
	}
}

void tu_rmtree(const char *path)
{
	if (!path)
		return;
	/* FTW_PHYS: never follow the fixture's symlinks out of the tree. */
	if (nftw(path, rm_one, 32, FTW_DEPTH | FTW_PHYS) < 0 && errno != ENOENT)
		fail_msg("removing %s: %s", path, strerror(errno));
}

char *tu_fixture_path(const char *name)
{
	const char *dir = getenv("FIXTURES_DIR");

	if (!dir || !*dir)
		fail_msg("FIXTURES_DIR is not set; run the test via meson test or set it to tests/fixtures");
	return xasprintf("%s/%s", dir, name);
}

static void copy_file(const char *src, const char *dst, mode_t mode)
{
	char buf[65536];
	int in, out;
	ssize_t n;

	in = open(src, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		fail_msg("open %s: %s", src, strerror(errno));
	out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode & 07777);
	if (out < 0)
		fail_msg("create %s: %s", dst, strerror(errno));
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			fail_msg("write %s: %s", dst, strerror(errno));
	if (n < 0)
		fail_msg("read %s: %s", src, strerror(errno));
	close(in);
	close(out);
}

static void copy_tree(const char *src, const char *dst)
{
	struct dirent *de;
	DIR *d;

	d = opendir(src);
	if (!d)
		fail_msg("opendir %s: %s", src, strerror(errno));
	while ((de = readdir(d))) {
		char *s, *t;
		struct stat st;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		s = xasprintf("%s/%s", src, de->d_name);
		t = xasprintf("%s/%s", dst, de->d_name);
		if (lstat(s, &st) < 0)
			fail_msg("lstat %s: %s", s, strerror(errno));
		if (S_ISLNK(st.st_mode)) {
			/* Fixture links are relative (node0/memory0 ->
			 * ../../memory/memory0) and must stay so. */
			char target[PATH_MAX];
			ssize_t n = readlink(s, target, sizeof(target) - 1);

			if (n < 0)
				fail_msg("readlink %s: %s", s, strerror(errno));
			target[n] = '\0';
			if (symlink(target, t) < 0)
				fail_msg("symlink %s: %s", t, strerror(errno));
		} else if (S_ISDIR(st.st_mode)) {
			if (mkdir(t, 0755) < 0)
				fail_msg("mkdir %s: %s", t, strerror(errno));
			copy_tree(s, t);
		} else if (S_ISREG(st.st_mode)) {
			/* Writable copies, even if the fixture is read-only:
			 * tests and the fake DAMON write into them. */
			copy_file(s, t, st.st_mode | 0600);
		}
		free(s);
		free(t);
	}
	closedir(d);
}

char *tu_fixture_copy(const char *name)
{
	char *src = tu_fixture_path(name), *dst;
	struct stat st;

	if (stat(src, &st) < 0 || !S_ISDIR(st.st_mode))
		fail_msg("fixture %s is not a directory", src);
	dst = tu_mkdtemp();
	copy_tree(src, dst);
	free(src);
	return dst;
}

static void mkdir_parents(const char *path)
{
	char *p = xstrdup(path), *s;

	for (s = p + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		if (mkdir(p, 0755) < 0 && errno != EEXIST)
			fail_msg("mkdir %s: %s", p, strerror(errno));
		*s = '/';
	}
	free(p);
}

void tu_write(const char *dir, const char *rel, const char *content)
{
	char *path;
	size_t len;
	int fd;

	while (*rel == '/')
		rel++;
	path = xasprintf("%s/%s", dir, rel);
	mkdir_parents(path);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		fail_msg("create %s: %s", path, strerror(errno));
	len = strlen(content);
	if (write(fd, content, len) != (ssize_t)len)
		fail_msg("write %s: %s", path, strerror(errno));
	close(fd);
	free(path);
}

char *tu_read(const char *dir, const char *rel)
{
	char *path, *buf = NULL;
	size_t len = 0;
	FILE *f;

	while (*rel == '/')
		rel++;
	path = xasprintf("%s/%s", dir, rel);
	f = fopen(path, "re");
	if (!f) {
		if (errno != ENOENT)
			fail_msg("open %s: %s", path, strerror(errno));
		free(path);
		return NULL;
	}
	if (getdelim(&buf, &len, '\0', f) < 0) {
		/* Empty file. */
		free(buf);
		buf = xstrdup("");
	}
	fclose(f);
	free(path);
	len = strlen(buf);
	if (len > 0 && buf[len - 1] == '\n')
		buf[len - 1] = '\0';
	return buf;
}

int tu_exists(const char *dir, const char *rel)
{
	struct stat st;
	char *path;
	int r;

	while (*rel == '/')
		rel++;
	path = xasprintf("%s/%s", dir, rel);
	r = lstat(path, &st) == 0;
	free(path);
	return r;
}

static char *cap_buf;
static size_t cap_len, cap_size;

static void capture(int prio, const char *msg, void *userdata)
{
	size_t n = strlen(msg);

	(void)prio;
	(void)userdata;
	if (cap_len + n + 2 > cap_size) {
		size_t ns = (cap_len + n + 2) * 2;
		char *nb = realloc(cap_buf, ns);

		if (!nb)
			fail_msg("out of memory");
		cap_buf = nb;
		cap_size = ns;
	}
	memcpy(cap_buf + cap_len, msg, n);
	cap_len += n;
	cap_buf[cap_len++] = '\n';
	cap_buf[cap_len] = '\0';
}

void tu_log_capture_start(void)
{
	free(cap_buf);
	cap_buf = NULL;
	cap_len = cap_size = 0;
	log_set_capture(capture, NULL);
}

int tu_log_contains(const char *needle)
{
	return cap_buf && strstr(cap_buf, needle) != NULL;
}

const char *tu_log_text(void)
{
	return cap_buf ? cap_buf : "";
}

void tu_log_capture_stop(void)
{
	log_set_capture(NULL, NULL);
	free(cap_buf);
	cap_buf = NULL;
	cap_len = cap_size = 0;
}

#define TU_MiB (1024ull * 1024)

const struct damon_features tu_feat_617 = {
	.sysfs = true, .paddr = true, .migrate = true, .apply_interval = true,
	.quota_goals = true, .goal_metric = true, .effective_bytes = true, .node_metrics = true,
	.intervals_goal = true, .ops_filters = true, .filters = true, .filter_allow = true,
	.young_filter = true, .refresh_ms = true,
};

const struct damon_features tu_feat_612 = {
	.sysfs = true, .paddr = true, .migrate = true, .apply_interval = true,
	.quota_goals = true, .goal_metric = true, .effective_bytes = true,
	.filters = true, .young_filter = true,
};

void tu_vm_topology(struct topology *t, struct tier_map *m)
{
	memset(t, 0, sizeof(*t));
	t->nr_nodes = 2;
	t->nodes[0] = (struct numa_node){ .nid = 0, .has_cpu = true, .has_memory = true,
					  .mem_total = 476 * TU_MiB, .mem_free = 200 * TU_MiB, .tier = 4,
					  .nr_ranges = 2, .have_wmarks = true,
					  .wmark_min = 22 * TU_MiB, .wmark_low = 27 * TU_MiB,
					  .wmark_high = 33 * TU_MiB };
	t->nodes[0].ranges[0] = (struct addr_range){ 0x0, 0x8000000 };
	t->nodes[0].ranges[1] = (struct addr_range){ 0x10000000, 0x20000000 };
	t->nodes[1] = (struct numa_node){ .nid = 1, .has_memory = true, .mem_total = 515 * TU_MiB,
					  .mem_free = 500 * TU_MiB, .tier = 56, .nr_ranges = 1 };
	t->nodes[1].ranges[0] = (struct addr_range){ 0x20000000, 0x40000000 };
	t->distance[0][0] = t->distance[1][1] = 10;
	t->distance[0][1] = t->distance[1][0] = 20;
	memset(m, 0, sizeof(*m));
	m->nr_tiers = 2;
	m->rank[0] = 0;
	m->rank[1] = 1;
	m->from_kernel = true;
	m->nr_promote = 1;
	m->promote[0] = (struct migration_pair){ 1, 0 };
	m->nr_demote = 1;
	m->demote[0] = (struct migration_pair){ 0, 1 };
}
