/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The fake DAMON sysfs: the tree on disk.  Small helpers, reading and
 * storing values as sysfs shows them, removing numbered children, and the
 * default trees that the kernel creates below a new object.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fake_damon_internal.h"

/* ---- helpers ---- */

void fake_bug(const char *fmt, ...)
{
	va_list ap;

	fputs("fake_damon: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

void *fk_xcalloc(size_t n, size_t sz)
{
	void *p = calloc(n ? n : 1, sz);

	if (!p)
		fake_bug("out of memory");
	return p;
}

char *fk_xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		fake_bug("out of memory");
	return p;
}

bool fk_ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && strcmp(s + a - b, suffix) == 0;
}

bool fk_in_list(const char *const *list, const char *word)
{
	for (; *list; list++)
		if (strcmp(*list, word) == 0)
			return true;
	return false;
}

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

/* ---- disk helpers (all relative to the fake's own root fd) ---- */

/* Creates the missing tail of `path` only (walking up on ENOENT), so deep
 * trees below an existing directory cost one mkdirat per new level. */
int fk_mkdir_p(struct fake_damon *fk, const char *path)
{
	char buf[FAKE_PATH_MAX];
	char *slash;
	size_t len = strlen(path);
	int r;

	if (mkdirat(fk->dirfd, path, 0755) == 0 || errno == EEXIST)
		return 0;
	if (errno != ENOENT)
		return -errno;
	if (len >= sizeof(buf))
		return -ENAMETOOLONG;
	memcpy(buf, path, len + 1);
	slash = strrchr(buf, '/');
	if (!slash)
		return -ENOENT;
	*slash = '\0';
	r = fk_mkdir_p(fk, buf);
	if (r < 0)
		return r;
	return mkdirat(fk->dirfd, path, 0755) == 0 || errno == EEXIST ? 0 : -errno;
}

/* Store a value the way sysfs shows it: one line. */
int fk_put(struct fake_damon *fk, const char *path, const char *value)
{
	char dir[FAKE_PATH_MAX];
	const char *slash = strrchr(path, '/');
	size_t len = strlen(value);
	int fd, r = 0;

	fd = openat(fk->dirfd, path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 && errno == ENOENT && slash) {
		/* Parents only when needed: creating trees is the hot path. */
		if ((size_t)(slash - path) >= sizeof(dir))
			return -ENAMETOOLONG;
		memcpy(dir, path, (size_t)(slash - path));
		dir[slash - path] = '\0';
		r = fk_mkdir_p(fk, dir);
		if (r < 0)
			return r;
		fd = openat(fk->dirfd, path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	}
	if (fd < 0)
		return -errno;
	if (len == 0 || value[len - 1] != '\n') {
		char *line = malloc(len + 2);

		if (!line) {
			close(fd);
			return -ENOMEM;
		}
		memcpy(line, value, len);
		line[len] = '\n';
		line[len + 1] = '\0';
		if (write(fd, line, len + 1) != (ssize_t)(len + 1))
			r = -EIO;
		free(line);
	} else if (write(fd, value, len) != (ssize_t)len)
		r = -EIO;
	close(fd);
	return r;
}

int fk_putf(struct fake_damon *fk, const char *dir, const char *name, const char *value)
{
	char p[FAKE_PATH_MAX];

	if ((size_t)snprintf(p, sizeof(p), "%s/%s", dir, name) >= sizeof(p))
		return -ENAMETOOLONG;
	return fk_put(fk, p, value);
}

int fk_put_u64(struct fake_damon *fk, const char *dir, const char *name, uint64_t v)
{
	char b[32];

	snprintf(b, sizeof(b), "%llu", (unsigned long long)v);
	return fk_putf(fk, dir, name, b);
}

/* Read one stored value; -ENOENT when the profile does not have the file. */
int fk_get(struct fake_damon *fk, const char *path, char *buf, size_t size)
{
	ssize_t n;
	int fd;

	fd = openat(fk->dirfd, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	while (n > 0 && buf[n - 1] == '\n')
		buf[--n] = '\0';
	return 0;
}

int fk_getf(struct fake_damon *fk, char *buf, size_t size, const char *fmt, ...)
{
	char p[FAKE_PATH_MAX];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(p, sizeof(p), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(p))
		return -ENAMETOOLONG;
	return fk_get(fk, p, buf, size);
}

/* Stored values are normalised decimals; a missing file reads as `dflt`. */
uint64_t fk_get_u64(struct fake_damon *fk, uint64_t dflt, const char *fmt, ...)
{
	char p[FAKE_PATH_MAX], b[64];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(p, sizeof(p), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(p) || fk_get(fk, p, b, sizeof(b)) < 0)
		return dflt;
	return strtoull(b, NULL, 10);
}

static int rm_rf_at(int dirfd, const char *name)
{
	struct dirent *de;
	DIR *d;
	int fd, r = 0;

	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOTDIR || errno == ELOOP)
			return unlinkat(dirfd, name, 0) < 0 ? -errno : 0;
		return errno == ENOENT ? 0 : -errno;
	}
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -errno;
	}
	while ((de = readdir(d))) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		r = rm_rf_at(fd, de->d_name);
		if (r < 0)
			break;
	}
	closedir(d);
	if (r < 0)
		return r;
	return unlinkat(dirfd, name, AT_REMOVEDIR) < 0 ? -errno : 0;
}

/* The kernel removes all numbered children of a directory on any nr_* write. */
int fk_rm_numbered(struct fake_damon *fk, const char *dir)
{
	struct dirent *de;
	DIR *d;
	int fd, r = 0;

	fd = openat(fk->dirfd, dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -errno;
	}
	while ((de = readdir(d))) {
		if (!all_digits(de->d_name))
			continue;
		r = rm_rf_at(dirfd(d), de->d_name);
		if (r < 0)
			break;
		/* Entries were removed under readdir: start over to be safe. */
		rewinddir(d);
	}
	closedir(d);
	return r;
}

/* ---- default trees (sysfs.c / sysfs-schemes.c *_add_dirs) ---- */

/* Writes files below one directory; the first error sticks. */
struct tree_writer {
	struct fake_damon *fk;
	const char *dir;
	int r;
};

static void tw_put(struct tree_writer *t, const char *name, const char *value)
{
	if (t->r == 0)
		t->r = fk_putf(t->fk, t->dir, name, value);
}

int fk_mk_filter(struct fake_damon *fk, const char *dir, bool probe)
{
	struct tree_writer t = { fk, dir, 0 };

	tw_put(&t, "type", "anon");
	tw_put(&t, "matching", "N");
	if (probe) {
		tw_put(&t, "allow", "N");
		tw_put(&t, "path", "");
		return t.r;
	}
	if (fk->f.filter_allow)
		tw_put(&t, "allow", "N");
	tw_put(&t, "memcg_path", "");
	tw_put(&t, "addr_start", "0");
	tw_put(&t, "addr_end", "0");
	if (fk->f.filter_new_types) {
		tw_put(&t, "min", "0");
		tw_put(&t, "max", "0");
	}
	tw_put(&t, "damon_target_idx", "0");
	return t.r;
}

int fk_mk_goal(struct fake_damon *fk, const char *dir)
{
	struct tree_writer t = { fk, dir, 0 };

	tw_put(&t, "target_metric", "user_input");
	tw_put(&t, "target_value", "0");
	tw_put(&t, "current_value", "0");
	if (fk->f.goal_nid)
		tw_put(&t, "nid", "0");
	if (fk->f.goal_path)
		tw_put(&t, "path", "");
	return t.r;
}

int fk_mk_dest(struct fake_damon *fk, const char *dir)
{
	struct tree_writer t = { fk, dir, 0 };

	tw_put(&t, "id", "0");
	tw_put(&t, "weight", "0");
	return t.r;
}

int fk_mk_scheme(struct fake_damon *fk, const char *dir)
{
	static const char *const zero[] = {
		"apply_interval_us",
		"access_pattern/sz/min", "access_pattern/sz/max",
		"access_pattern/nr_accesses/min", "access_pattern/nr_accesses/max",
		"access_pattern/age/min", "access_pattern/age/max",
		"quotas/ms", "quotas/bytes", "quotas/reset_interval_ms", "quotas/effective_bytes",
		"quotas/weights/sz_permil", "quotas/weights/nr_accesses_permil",
		"quotas/weights/age_permil", "quotas/goals/nr_goals",
		"watermarks/interval_us", "watermarks/high", "watermarks/mid", "watermarks/low",
		"filters/nr_filters",
		"stats/nr_tried", "stats/sz_tried", "stats/nr_applied", "stats/sz_applied",
		"stats/qt_exceeds", "tried_regions/total_bytes", NULL,
	};
	struct tree_writer t = { fk, dir, 0 };

	tw_put(&t, "action", "stat");
	tw_put(&t, "target_nid", "-1");
	tw_put(&t, "watermarks/metric", "none");
	for (const char *const *z = zero; *z; z++)
		tw_put(&t, *z, "0");
	if (fk->f.goal_tuner)
		tw_put(&t, "quotas/goal_tuner", "consist");
	if (fk->f.fail_charge) {
		tw_put(&t, "quotas/fail_charge_num", "0");
		tw_put(&t, "quotas/fail_charge_denom", "0");
	}
	if (fk->f.split_filters) {
		tw_put(&t, "core_filters/nr_filters", "0");
		tw_put(&t, "ops_filters/nr_filters", "0");
	}
	if (fk->f.dests)
		tw_put(&t, "dests/nr_dests", "0");
	if (fk->f.sz_ops_filter_passed)
		tw_put(&t, "stats/sz_ops_filter_passed", "0");
	if (fk->f.snapshots) {
		tw_put(&t, "stats/nr_snapshots", "0");
		tw_put(&t, "stats/max_nr_snapshots", "0");
	}
	return t.r;
}

int fk_mk_region(struct fake_damon *fk, const char *dir)
{
	struct tree_writer t = { fk, dir, 0 };

	tw_put(&t, "start", "0");
	tw_put(&t, "end", "0");
	return t.r;
}

int fk_mk_target(struct fake_damon *fk, const char *dir)
{
	struct tree_writer t = { fk, dir, 0 };

	tw_put(&t, "pid_target", "0");
	if (fk->f.obsolete_target)
		tw_put(&t, "obsolete_target", "N");
	tw_put(&t, "regions/nr_regions", "0");
	return t.r;
}

int fk_mk_probe(struct fake_damon *fk, const char *dir)
{
	struct tree_writer t = { fk, dir, 0 };

	tw_put(&t, "weight", "0");
	tw_put(&t, "filters/nr_filters", "0");
	return t.r;
}

int fk_mk_context(struct fake_damon *fk, const char *dir)
{
	struct tree_writer t = { fk, dir, 0 };

	tw_put(&t, "avail_operations", "vaddr\nfvaddr\npaddr");
	tw_put(&t, "operations", "vaddr");
	if (fk->f.addr_unit)
		tw_put(&t, "addr_unit", "1");
	if (fk->f.pause)
		tw_put(&t, "pause", "N");
	tw_put(&t, "monitoring_attrs/intervals/sample_us", "5000");
	tw_put(&t, "monitoring_attrs/intervals/aggr_us", "100000");
	tw_put(&t, "monitoring_attrs/intervals/update_us", "60000000");
	if (fk->f.intervals_goal) {
		tw_put(&t, "monitoring_attrs/intervals/intervals_goal/access_bp", "0");
		tw_put(&t, "monitoring_attrs/intervals/intervals_goal/aggrs", "0");
		tw_put(&t, "monitoring_attrs/intervals/intervals_goal/min_sample_us", "0");
		tw_put(&t, "monitoring_attrs/intervals/intervals_goal/max_sample_us", "0");
	}
	tw_put(&t, "monitoring_attrs/nr_regions/min", "10");
	tw_put(&t, "monitoring_attrs/nr_regions/max", "1000");
	if (fk->f.probes)
		tw_put(&t, "monitoring_attrs/probes/nr_probes", "0");
	tw_put(&t, "targets/nr_targets", "0");
	tw_put(&t, "schemes/nr_schemes", "0");
	return t.r;
}

int fk_mk_kdamond(struct fake_damon *fk, const char *dir)
{
	struct tree_writer t = { fk, dir, 0 };

	tw_put(&t, "state", "off");
	tw_put(&t, "pid", "-1");
	if (fk->f.refresh_ms)
		tw_put(&t, "refresh_ms", "0");
	tw_put(&t, "contexts/nr_contexts", "0");
	return t.r;
}
