/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Test double of the kernel's DAMON sysfs interface (mm/damon/sysfs*.c).
 *
 * The files live on disk, because that is what the code under test reads
 * back; the kernel-side objects (is a context built, does its kthread run,
 * its pid, its stats and tuned intervals) live in memory, because in the
 * kernel they are not files either.  Every rule here mirrors a rule described
 * in the project's kernel reference (damon-sysfs-facts.md); where the fake is simpler
 * than the kernel, a comment says so.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fake_damon.h"
#include "sysfs_io.h"

#define ADMIN "sys/kernel/mm/damon/admin"
#define KDAMONDS ADMIN "/kdamonds"
#define FAKE_PATH_MAX 1024
/* Nobody needs more; it keeps a runaway loop from filling the disk. */
#define FAKE_MAX_NR 4096
#define FAKE_FIRST_PID 10000

struct feat {
	bool refresh_ms, addr_unit, pause, probes, intervals_goal, obsolete_target;
	bool split_filters, filter_allow, filter_new_types, goal_nid, goal_path;
	bool goal_tuner, fail_charge, dests, sz_ops_filter_passed, snapshots;
	bool damon_stat, collapse, metrics_7;
};

struct fake_kd {
	bool started;  /* a kernel ctx exists (built by a successful "on") */
	bool running;  /* its kthread is alive */
	int64_t pid;
	unsigned nr_schemes;          /* schemes of the kernel ctx */
	uint64_t sample_us, aggr_us;  /* intervals of the kernel ctx (tuned) */
	struct fake_scheme_stats stats[FAKE_MAX_SCHEMES];
	int last_result;
	bool refresh_missed; /* refresh_ms never reaches it (fake_damon_miss_refresh) */
	/* Up to 6.17 a new scheme's first apply pass runs before its first quota
	 * window is set up (effective size 0: no limit).  Set at "on" when
	 * scheme 0 could match a new region (age 0) there. */
	bool unlimited_first_pass;
	bool first_window;   /* the first window is set up (effective quota reported) */
};

struct fake_write {
	char *path;
	char *value;
};

struct fake_fault {
	char *suffix;
	bool read;
	int err;
	int count;
};

struct kw_override {
	char *kind;
	char *word;
	bool supported;
};

struct fake_damon {
	char *root;
	int dirfd;
	dev_t dev;
	ino_t ino;
	enum fake_profile profile;
	struct feat f;
	struct fake_kd *kds;
	unsigned nr_kds;
	int64_t next_pid;
	struct fake_write *writes;
	size_t nr_writes_log;
	struct fake_fault *faults;
	size_t nr_faults;
	struct kw_override *kw;
	size_t nr_kw;
};

static const char *const exclusive_modules[] = {
	"damon_stat", "damon_reclaim", "damon_lru_sort",
	"damon_sample_mtier", "damon_sample_wsse", "damon_sample_prcl", NULL,
};

/* What the kernels of tests/golden/damon-sysfs have built in. */
static const char *const builtin_modules[] = {
	"damon_stat", "damon_reclaim", "damon_lru_sort", NULL,
};

static const char *const state_cmds[] = {
	"on", "off", "commit", "commit_schemes_quota_goals", "update_schemes_stats",
	"update_schemes_tried_bytes", "update_schemes_tried_regions",
	"clear_schemes_tried_regions", "update_schemes_effective_quotas",
	"update_tuned_intervals", NULL,
};

static void __attribute__((noreturn, format(printf, 1, 2))) fake_bug(const char *fmt, ...)
{
	va_list ap;

	fputs("fake_damon: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

static void *xcalloc(size_t n, size_t sz)
{
	void *p = calloc(n ? n : 1, sz);

	if (!p)
		fake_bug("out of memory");
	return p;
}

static char *xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		fake_bug("out of memory");
	return p;
}

/* Paths are short and built from our own numbers: overflowing is a bug. */
static void pathf(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void pathf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= size)
		fake_bug("path too long: %s...", buf);
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && strcmp(s + a - b, suffix) == 0;
}

static bool in_list(const char *const *list, const char *word)
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

static void set_features(struct fake_damon *fk)
{
	struct feat *f = &fk->f;
	bool v617 = fk->profile >= FAKE_KERNEL_6_17, v73 = fk->profile >= FAKE_KERNEL_7_3;

	*f = (struct feat) {
		.refresh_ms = v617, .intervals_goal = v617, .split_filters = v617,
		.filter_allow = v617, .filter_new_types = v617, .goal_nid = v617,
		.dests = v617, .sz_ops_filter_passed = v617, .damon_stat = v617,
		.addr_unit = v73, .pause = v73, .probes = v73, .obsolete_target = v73,
		.goal_path = v73, .goal_tuner = v73, .fail_charge = v73,
		.snapshots = v73, .collapse = v73, .metrics_7 = v73,
	};
}

/* ---- disk helpers (all relative to the fake's own root fd) ---- */

/* Creates the missing tail of `path` only (walking up on ENOENT), so deep
 * trees below an existing directory cost one mkdirat per new level. */
static int mkdir_p(struct fake_damon *fk, const char *path)
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
	r = mkdir_p(fk, buf);
	if (r < 0)
		return r;
	return mkdirat(fk->dirfd, path, 0755) == 0 || errno == EEXIST ? 0 : -errno;
}

/* Store a value the way sysfs shows it: one line. */
static int put(struct fake_damon *fk, const char *path, const char *value)
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
		r = mkdir_p(fk, dir);
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

static int putf(struct fake_damon *fk, const char *dir, const char *name, const char *value)
{
	char p[FAKE_PATH_MAX];

	if ((size_t)snprintf(p, sizeof(p), "%s/%s", dir, name) >= sizeof(p))
		return -ENAMETOOLONG;
	return put(fk, p, value);
}

static int put_u64(struct fake_damon *fk, const char *dir, const char *name, uint64_t v)
{
	char b[32];

	snprintf(b, sizeof(b), "%llu", (unsigned long long)v);
	return putf(fk, dir, name, b);
}

/* Read one stored value; -ENOENT when the profile does not have the file. */
static int get(struct fake_damon *fk, const char *path, char *buf, size_t size)
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

static int getf(struct fake_damon *fk, char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int getf(struct fake_damon *fk, char *buf, size_t size, const char *fmt, ...)
{
	char p[FAKE_PATH_MAX];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(p, sizeof(p), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(p))
		return -ENAMETOOLONG;
	return get(fk, p, buf, size);
}

/* Stored values are normalised decimals; a missing file reads as `dflt`. */
static uint64_t get_u64(struct fake_damon *fk, uint64_t dflt, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static uint64_t get_u64(struct fake_damon *fk, uint64_t dflt, const char *fmt, ...)
{
	char p[FAKE_PATH_MAX], b[64];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(p, sizeof(p), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(p) || get(fk, p, b, sizeof(b)) < 0)
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
static int rm_numbered(struct fake_damon *fk, const char *dir)
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
		t->r = putf(t->fk, t->dir, name, value);
}

static int mk_filter(struct fake_damon *fk, const char *dir, bool probe)
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

static int mk_goal(struct fake_damon *fk, const char *dir)
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

static int mk_dest(struct fake_damon *fk, const char *dir)
{
	struct tree_writer t = { fk, dir, 0 };

	tw_put(&t, "id", "0");
	tw_put(&t, "weight", "0");
	return t.r;
}

static int mk_scheme(struct fake_damon *fk, const char *dir)
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

static int mk_region(struct fake_damon *fk, const char *dir)
{
	struct tree_writer t = { fk, dir, 0 };

	tw_put(&t, "start", "0");
	tw_put(&t, "end", "0");
	return t.r;
}

static int mk_target(struct fake_damon *fk, const char *dir)
{
	struct tree_writer t = { fk, dir, 0 };

	tw_put(&t, "pid_target", "0");
	if (fk->f.obsolete_target)
		tw_put(&t, "obsolete_target", "N");
	tw_put(&t, "regions/nr_regions", "0");
	return t.r;
}

static int mk_probe(struct fake_damon *fk, const char *dir)
{
	struct tree_writer t = { fk, dir, 0 };

	tw_put(&t, "weight", "0");
	tw_put(&t, "filters/nr_filters", "0");
	return t.r;
}

static int mk_context(struct fake_damon *fk, const char *dir)
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

static int mk_kdamond(struct fake_damon *fk, const char *dir)
{
	struct tree_writer t = { fk, dir, 0 };

	tw_put(&t, "state", "off");
	tw_put(&t, "pid", "-1");
	if (fk->f.refresh_ms)
		tw_put(&t, "refresh_ms", "0");
	tw_put(&t, "contexts/nr_contexts", "0");
	return t.r;
}

/* ---- kernel-like parsing (lib/kstrtox.c) ---- */

static int kstrtoull(const char *s, uint64_t *ret)
{
	unsigned base = 10;
	uint64_t v = 0;

	if (*s == '+')
		s++;
	if (s[0] == '0') {
		if (tolower((unsigned char)s[1]) == 'x' && isxdigit((unsigned char)s[2])) {
			base = 16;
			s += 2;
		} else
			base = 8;
	}
	if (!*s)
		return -EINVAL;
	for (; *s; s++) {
		unsigned d;

		if (isdigit((unsigned char)*s))
			d = (unsigned)(*s - '0');
		else if (isxdigit((unsigned char)*s))
			d = (unsigned)(tolower((unsigned char)*s) - 'a' + 10);
		else
			return -EINVAL;
		if (d >= base)
			return -EINVAL;
		if (v > (UINT64_MAX - d) / base)
			return -ERANGE;
		v = v * base + d;
	}
	*ret = v;
	return 0;
}

static int kstrtoll(const char *s, int64_t *ret)
{
	uint64_t v;
	int r;

	if (*s == '-') {
		r = kstrtoull(s + 1, &v);
		if (r < 0)
			return r;
		if (v > (uint64_t)INT64_MAX + 1)
			return -ERANGE;
		*ret = v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v;
		return 0;
	}
	r = kstrtoull(s, &v);
	if (r < 0)
		return r;
	if (v > INT64_MAX)
		return -ERANGE;
	*ret = (int64_t)v;
	return 0;
}

static int kstrtoint(const char *s, int64_t *ret)
{
	int64_t v;
	int r = kstrtoll(s, &v);

	if (r < 0)
		return r;
	if (v < INT_MIN || v > INT_MAX)
		return -ERANGE;
	*ret = v;
	return 0;
}

static int kstrtobool(const char *s, bool *ret)
{
	switch (s[0]) {
	case 'y': case 'Y': case '1':
		*ret = true;
		return 0;
	case 'n': case 'N': case '0':
		*ret = false;
		return 0;
	case 'o': case 'O':
		if (tolower((unsigned char)s[1]) == 'n') {
			*ret = true;
			return 0;
		}
		if (tolower((unsigned char)s[1]) == 'f') {
			*ret = false;
			return 0;
		}
		break;
	default:
		break;
	}
	return -EINVAL;
}

/* ---- keywords ---- */

static const char *const kw_operations[] = { "vaddr", "fvaddr", "paddr", NULL };
static const char *const kw_actions[] = {
	"willneed", "cold", "pageout", "hugepage", "nohugepage", "lru_prio",
	"lru_deprio", "migrate_hot", "migrate_cold", "stat", NULL,
};
static const char *const kw_core_types[] = { "addr", "target", NULL };
static const char *const kw_ops_types_old[] = { "anon", "memcg", "young", NULL };
static const char *const kw_ops_types_new[] = { "hugepage_size", "unmapped", "active", NULL };
static const char *const kw_probe_types[] = { "anon", "memcg", NULL };
static const char *const kw_metrics[] = { "user_input", "some_mem_psi_us", NULL };
static const char *const kw_metrics_nid[] = { "node_mem_used_bp", "node_mem_free_bp", NULL };
static const char *const kw_metrics_7[] = {
	"node_memcg_used_bp", "node_memcg_free_bp", "active_mem_bp",
	"inactive_mem_bp", "node_eligible_mem_bp", NULL,
};
static const char *const kw_wmark[] = { "none", "free_mem_rate", NULL };
static const char *const kw_tuner[] = { "consist", "temporal", NULL };

enum filter_dir { FILTERS_LEGACY, FILTERS_CORE, FILTERS_OPS, FILTERS_PROBE };

/* The newest override for (kind, word): 1 supported, 0 not, -1 none. */
static int kw_override(struct fake_damon *fk, const char *kind, const char *word)
{
	for (size_t i = fk->nr_kw; i > 0; i--) {
		const struct kw_override *o = &fk->kw[i - 1];

		if (strcmp(o->kind, kind) == 0 && strcmp(o->word, word) == 0)
			return o->supported;
	}
	return -1;
}

/* kind: the file's name; fdir only matters for "type". */
static bool kw_supported(struct fake_damon *fk, const char *kind, enum filter_dir fdir,
			 const char *word)
{
	const struct feat *f = &fk->f;
	int ov = kw_override(fk, kind, word);
	bool core, ops;

	if (ov == 0)
		return false;
	if (strcmp(kind, "type") != 0 && ov == 1)
		return true;
	if (strcmp(kind, "operations") == 0)
		return in_list(kw_operations, word);
	if (strcmp(kind, "action") == 0)
		return in_list(kw_actions, word) || (f->collapse && strcmp(word, "collapse") == 0);
	if (strcmp(kind, "metric") == 0)
		return in_list(kw_wmark, word);
	if (strcmp(kind, "goal_tuner") == 0)
		return in_list(kw_tuner, word);
	if (strcmp(kind, "target_metric") == 0)
		return in_list(kw_metrics, word) ||
		       (f->goal_nid && in_list(kw_metrics_nid, word)) ||
		       (f->metrics_7 && in_list(kw_metrics_7, word));
	if (strcmp(kind, "type") != 0)
		return false;
	if (fdir == FILTERS_PROBE)
		return in_list(kw_probe_types, word);
	core = in_list(kw_core_types, word);
	/* A forced extra type is an ops-layer one (all new types so far are). */
	ops = !core && (ov == 1 || in_list(kw_ops_types_old, word) ||
			(f->filter_new_types && in_list(kw_ops_types_new, word)));
	switch (fdir) {
	case FILTERS_CORE:
		return core;
	case FILTERS_OPS:
		return ops;
	default:
		return core || ops;
	}
}

/* ---- path classification ---- */

/* "sys/kernel/mm/damon/admin/kdamonds/3/..." -> 3 and the rest after "3/"
 * (or "" for the directory itself).  -1 if the path is not below a kdamond. */
static int kdamond_of(const char *path, const char **rest)
{
	const char *p;
	char *end;
	unsigned long v;

	if (strncmp(path, KDAMONDS "/", strlen(KDAMONDS "/")) != 0)
		return -1;
	p = path + strlen(KDAMONDS "/");
	if (!isdigit((unsigned char)*p))
		return -1;
	v = strtoul(p, &end, 10);
	if (*end != '/' && *end != '\0')
		return -1;
	if (v > INT_MAX)
		return -1;
	if (rest)
		*rest = *end ? end + 1 : end;
	return (int)v;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* Name of the directory `up` levels above the file (1 = parent). */
static void dir_name(const char *path, int up, char *buf, size_t size)
{
	const char *end = path + strlen(path), *s;

	for (int i = 0; i < up; i++) {
		while (end > path && end[-1] != '/')
			end--;
		if (end > path)
			end--;
	}
	s = end;
	while (s > path && s[-1] != '/')
		s--;
	snprintf(buf, size, "%.*s", (int)(end - s), s);
}

static bool is_read_only(const char *path)
{
	const char *b = base_name(path);

	if (strcmp(b, "avail_operations") == 0 || strcmp(b, "pid") == 0 ||
	    strcmp(b, "effective_bytes") == 0)
		return true;
	if (strstr(path, "/tried_regions/"))
		return true;
	if (strstr(path, "/stats/") && strcmp(b, "max_nr_snapshots") != 0)
		return true;
	return false;
}

static enum filter_dir filter_dir_of(const char *path)
{
	char d[64];

	/* .../<dir>/<F>/type */
	dir_name(path, 2, d, sizeof(d));
	if (strstr(path, "/probes/"))
		return FILTERS_PROBE;
	if (strcmp(d, "core_filters") == 0)
		return FILTERS_CORE;
	if (strcmp(d, "ops_filters") == 0)
		return FILTERS_OPS;
	return FILTERS_LEGACY;
}

/* ---- model ---- */

static struct fake_kd *kd_get(struct fake_damon *fk, unsigned idx)
{
	return idx < fk->nr_kds ? &fk->kds[idx] : NULL;
}

static bool any_running(struct fake_damon *fk)
{
	for (unsigned i = 0; i < fk->nr_kds; i++)
		if (fk->kds[i].running)
			return true;
	return false;
}

static bool exclusive_module_enabled(struct fake_damon *fk)
{
	char p[FAKE_PATH_MAX], b[16];

	for (const char *const *m = exclusive_modules; *m; m++) {
		pathf(p, sizeof(p), "sys/module/%s/parameters/enabled", *m);
		if (get(fk, p, b, sizeof(b)) == 0 && (b[0] == 'Y' || b[0] == 'y' || b[0] == '1'))
			return true;
	}
	return false;
}

static void kd_files(struct fake_damon *fk, unsigned idx)
{
	struct fake_kd *kd = &fk->kds[idx];
	char dir[FAKE_PATH_MAX], pid[32];
	int r;

	pathf(dir, sizeof(dir), KDAMONDS "/%u", idx);
	snprintf(pid, sizeof(pid), "%lld", (long long)kd->pid);
	r = putf(fk, dir, "state", kd->running ? "on" : "off");
	if (r == 0)
		r = putf(fk, dir, "pid", pid);
	if (r < 0)
		fake_bug("cannot write %s/state,pid: %s", dir, strerror(-r));
}

static void kd_start(struct fake_damon *fk, unsigned idx)
{
	struct fake_kd *kd = &fk->kds[idx];

	kd->started = kd->running = true;
	kd->pid = fk->next_pid++;
	memset(kd->stats, 0, sizeof(kd->stats));
	kd->first_window = false;
	kd->unlimited_first_pass =
		fk->profile < FAKE_KERNEL_7_3 && kd->nr_schemes > 0 &&
		get_u64(fk, 0, KDAMONDS "/%u/contexts/0/schemes/0/access_pattern/age/min", idx) == 0;
	kd_files(fk, idx);
}

static int set_nr_kds(struct fake_damon *fk, unsigned n)
{
	struct fake_kd *kds = xcalloc(n, sizeof(*kds));

	for (unsigned i = 0; i < n; i++) {
		kds[i].pid = -1;
		kds[i].last_result = 1;
	}
	free(fk->kds);
	fk->kds = kds;
	fk->nr_kds = n;
	return 0;
}

/* ---- validation at on/commit (damon_sysfs_build_ctx, damon_commit_ctx) ---- */

static bool is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

static int validate_ctx(struct fake_damon *fk, unsigned idx)
{
	char ctx[FAKE_PATH_MAX], ops[32], avail[256], b[64];
	uint64_t sample, aggr, min_nr, max_nr, nr_targets, nr_schemes;
	bool paddr;

	pathf(ctx, sizeof(ctx), KDAMONDS "/%u/contexts/0", idx);

	/* damon_select_ops: only registered ops sets. */
	if (getf(fk, ops, sizeof(ops), "%s/operations", ctx) < 0 ||
	    getf(fk, avail, sizeof(avail), "%s/avail_operations", ctx) < 0)
		return -EINVAL;
	{
		bool found = false;

		for (char *save = NULL, *w = strtok_r(avail, "\n", &save); w;
		     w = strtok_r(NULL, "\n", &save))
			if (strcmp(w, ops) == 0)
				found = true;
		if (!found)
			return -EINVAL;
	}
	paddr = strcmp(ops, "paddr") == 0;

	if (paddr && fk->f.addr_unit) {
		uint64_t unit = get_u64(fk, 1, "%s/addr_unit", ctx);

		if (unit < 4096 && !is_pow2(4096 / unit))
			return -EINVAL;
	}

	/* damon_set_attrs */
	sample = get_u64(fk, 0, "%s/monitoring_attrs/intervals/sample_us", ctx);
	aggr = get_u64(fk, 0, "%s/monitoring_attrs/intervals/aggr_us", ctx);
	min_nr = get_u64(fk, 0, "%s/monitoring_attrs/nr_regions/min", ctx);
	max_nr = get_u64(fk, 0, "%s/monitoring_attrs/nr_regions/max", ctx);
	if (min_nr < 3 || min_nr > max_nr || sample > aggr)
		return -EINVAL;
	if (fk->f.intervals_goal &&
	    get_u64(fk, 0, "%s/monitoring_attrs/intervals/intervals_goal/aggrs", ctx) != 0) {
		uint64_t lo = get_u64(fk, 0, "%s/monitoring_attrs/intervals/intervals_goal/min_sample_us", ctx);
		uint64_t hi = get_u64(fk, 0, "%s/monitoring_attrs/intervals/intervals_goal/max_sample_us", ctx);

		if (lo > hi || sample < lo || sample > hi)
			return -EINVAL;
	}

	/* damon_sysfs_add_targets / damon_sysfs_set_regions.  The fake does not
	 * check that a vaddr pid_target exists. */
	nr_targets = get_u64(fk, 0, "%s/targets/nr_targets", ctx);
	if (paddr && nr_targets > 1)
		return -EINVAL;
	for (uint64_t t = 0; t < nr_targets; t++) {
		uint64_t nr = get_u64(fk, 0, "%s/targets/%llu/regions/nr_regions", ctx,
				      (unsigned long long)t);
		uint64_t prev_end = 0;

		for (uint64_t i = 0; i < nr; i++) {
			uint64_t s = get_u64(fk, 0, "%s/targets/%llu/regions/%llu/start", ctx,
					     (unsigned long long)t, (unsigned long long)i);
			uint64_t e = get_u64(fk, 0, "%s/targets/%llu/regions/%llu/end", ctx,
					     (unsigned long long)t, (unsigned long long)i);

			if (s > e || (i > 0 && prev_end > s))
				return -EINVAL;
			prev_end = e;
		}
	}

	/* damon_sysfs_add_schemes reports every build failure as ENOMEM. */
	nr_schemes = get_u64(fk, 0, "%s/schemes/nr_schemes", ctx);
	for (uint64_t s = 0; s < nr_schemes; s++) {
		static const char *const dirs[] = { "core_filters", "ops_filters", "filters", NULL };
		uint64_t nr_goals;

		for (const char *const *d = dirs; *d; d++) {
			uint64_t nr = get_u64(fk, 0, "%s/schemes/%llu/%s/nr_filters", ctx,
					      (unsigned long long)s, *d);

			for (uint64_t i = 0; i < nr; i++) {
				char base[FAKE_PATH_MAX];

				pathf(base, sizeof(base), "%s/schemes/%llu/%s/%llu", ctx,
					 (unsigned long long)s, *d, (unsigned long long)i);
				if (getf(fk, b, sizeof(b), "%s/type", base) < 0)
					continue;
				if (strcmp(b, "addr") == 0 &&
				    get_u64(fk, 0, "%s/addr_end", base) < get_u64(fk, 0, "%s/addr_start", base))
					return -ENOMEM;
				if (strcmp(b, "hugepage_size") == 0 &&
				    get_u64(fk, 0, "%s/max", base) < get_u64(fk, 0, "%s/min", base))
					return -ENOMEM;
			}
		}
		/* __damon_commit_ctx: node_eligible_mem_bp needs paddr. */
		nr_goals = get_u64(fk, 0, "%s/schemes/%llu/quotas/goals/nr_goals", ctx,
				   (unsigned long long)s);
		for (uint64_t g = 0; g < nr_goals; g++)
			if (getf(fk, b, sizeof(b), "%s/schemes/%llu/quotas/goals/%llu/target_metric", ctx,
				 (unsigned long long)s, (unsigned long long)g) == 0 &&
			    strcmp(b, "node_eligible_mem_bp") == 0 && !paddr)
				return -EINVAL;
	}
	return 0;
}

/* What a successful build copies into the kernel ctx. */
static void take_ctx(struct fake_damon *fk, unsigned idx, bool fresh)
{
	struct fake_kd *kd = &fk->kds[idx];
	char ctx[FAKE_PATH_MAX];
	unsigned nr, keep;

	pathf(ctx, sizeof(ctx), KDAMONDS "/%u/contexts/0", idx);
	/* Intervals are re-applied (resetting the tuning) whenever the sysfs
	 * values differ from the running ones, so afterwards they always
	 * equal the sysfs values. */
	kd->sample_us = get_u64(fk, 0, "%s/monitoring_attrs/intervals/sample_us", ctx);
	kd->aggr_us = get_u64(fk, 0, "%s/monitoring_attrs/intervals/aggr_us", ctx);
	nr = (unsigned)get_u64(fk, 0, "%s/schemes/nr_schemes", ctx);
	/* Schemes matched by index keep their stats; new ones start at 0. */
	keep = fresh ? 0 : (nr < kd->nr_schemes ? nr : kd->nr_schemes);
	for (unsigned i = keep; i < FAKE_MAX_SCHEMES; i++)
		memset(&kd->stats[i], 0, sizeof(kd->stats[i]));
	kd->nr_schemes = nr;
}

/* ---- copies back into sysfs ---- */

static unsigned sysfs_nr_schemes(struct fake_damon *fk, unsigned idx, char *ctx, size_t size)
{
	uint64_t nr;

	pathf(ctx, size, KDAMONDS "/%u/contexts/0", idx);
	nr = get_u64(fk, 0, "%s/schemes/nr_schemes", ctx);
	/* The user may have shrunk the sysfs schemes; the kernel stops there. */
	if (nr > fk->kds[idx].nr_schemes)
		nr = fk->kds[idx].nr_schemes;
	return (unsigned)nr;
}

static int copy_stats(struct fake_damon *fk, unsigned idx)
{
	char ctx[FAKE_PATH_MAX], dir[FAKE_PATH_MAX], p[FAKE_PATH_MAX];
	unsigned nr = sysfs_nr_schemes(fk, idx, ctx, sizeof(ctx));
	int r = 0;

	for (unsigned i = 0; i < nr && !r; i++) {
		static const struct fake_scheme_stats none;
		const struct fake_scheme_stats *st = i < FAKE_MAX_SCHEMES ? &fk->kds[idx].stats[i] : &none;
		struct { const char *name; uint64_t v; bool always; } f[] = {
			{ "nr_tried", st->nr_tried, true }, { "sz_tried", st->sz_tried, true },
			{ "nr_applied", st->nr_applied, true }, { "sz_applied", st->sz_applied, true },
			{ "qt_exceeds", st->qt_exceeds, true },
			{ "sz_ops_filter_passed", st->sz_ops_filter_passed, false },
			{ "nr_snapshots", st->nr_snapshots, false },
		};

		pathf(dir, sizeof(dir), "%s/schemes/%u/stats", ctx, i);
		for (size_t k = 0; k < sizeof(f) / sizeof(f[0]) && !r; k++) {
			pathf(p, sizeof(p), "%s/%s", dir, f[k].name);
			if (!f[k].always && faccessat(fk->dirfd, p, F_OK, 0) < 0)
				continue;
			r = put_u64(fk, dir, f[k].name, f[k].v);
		}
	}
	return r;
}

/* The first copy after "on" finds no window yet (0); later ones the value a
 * test set, or else the scheme's quotas/bytes. */
static int copy_effective(struct fake_damon *fk, unsigned idx)
{
	char ctx[FAKE_PATH_MAX], dir[FAKE_PATH_MAX];
	unsigned nr = sysfs_nr_schemes(fk, idx, ctx, sizeof(ctx));
	struct fake_kd *kd = &fk->kds[idx];
	int r = 0;

	for (unsigned i = 0; i < nr && !r; i++) {
		uint64_t v = i < FAKE_MAX_SCHEMES ? kd->stats[i].effective_bytes : 0;

		pathf(dir, sizeof(dir), "%s/schemes/%u/quotas", ctx, i);
		if (!kd->first_window)
			v = 0;
		else if (v == 0)
			v = get_u64(fk, 0, "%s/bytes", dir);
		r = put_u64(fk, dir, "effective_bytes", v);
	}
	kd->first_window = true;
	return r;
}

static int copy_intervals(struct fake_damon *fk, unsigned idx)
{
	char dir[FAKE_PATH_MAX];
	int r;

	pathf(dir, sizeof(dir), KDAMONDS "/%u/contexts/0/monitoring_attrs/intervals", idx);
	r = put_u64(fk, dir, "sample_us", fk->kds[idx].sample_us);
	if (r == 0)
		r = put_u64(fk, dir, "aggr_us", fk->kds[idx].aggr_us);
	return r;
}

static int tried_regions(struct fake_damon *fk, unsigned idx, bool clear)
{
	char ctx[FAKE_PATH_MAX], dir[FAKE_PATH_MAX];
	uint64_t nr;
	int r = 0;

	pathf(ctx, sizeof(ctx), KDAMONDS "/%u/contexts/0", idx);
	nr = get_u64(fk, 0, "%s/schemes/nr_schemes", ctx);
	for (uint64_t i = 0; i < nr && !r; i++) {
		pathf(dir, sizeof(dir), "%s/schemes/%llu/tried_regions", ctx, (unsigned long long)i);
		/* The fake never creates per-region directories, but a test tree may have some. */
		r = rm_numbered(fk, dir);
		if (r == -ENOENT)
			r = 0;
		if (r == 0)
			r = put_u64(fk, dir, "total_bytes",
				    clear || i >= FAKE_MAX_SCHEMES || i >= fk->kds[idx].nr_schemes ? 0 :
				    fk->kds[idx].stats[i].tried_bytes);
	}
	return r;
}

/* ---- write handlers ---- */

static int state_write(struct fake_damon *fk, unsigned idx, const char *cmd)
{
	struct fake_kd *kd = kd_get(fk, idx);
	bool one_ctx;
	int r;

	if (!kd)
		return -ENOENT;
	one_ctx = get_u64(fk, 0, KDAMONDS "/%u/contexts/nr_contexts", idx) == 1;

	if (strcmp(cmd, "on") == 0) {
		if (kd->running)
			return -EBUSY;
		if (!one_ctx)
			return -EINVAL;
		/* The previous ctx (and its stats) is destroyed before the build. */
		kd->started = false;
		r = validate_ctx(fk, idx);
		if (r < 0)
			return r;
		/* damon_start checks exclusivity after all validation. */
		if (exclusive_module_enabled(fk))
			return -EBUSY;
		take_ctx(fk, idx, true);
		kd_start(fk, idx);
		return 0;
	}
	if (strcmp(cmd, "off") == 0) {
		if (!kd->started)
			return -EINVAL;
		kd->running = false;
		kd->pid = -1;
		kd_files(fk, idx);
		return 0;
	}
	if (!in_list(state_cmds, cmd))
		return -EINVAL;
	if (strcmp(cmd, "clear_schemes_tried_regions") == 0)
		return one_ctx ? tried_regions(fk, idx, true) : -EINVAL;
	if (!kd->started)
		return -EINVAL;
	if (!kd->running)
		return -ECANCELED;
	if (!one_ctx)
		return -EINVAL;

	if (strcmp(cmd, "commit") == 0) {
		r = validate_ctx(fk, idx);
		if (r < 0)
			return r;
		take_ctx(fk, idx, false);
		return 0;
	}
	if (strcmp(cmd, "commit_schemes_quota_goals") == 0)
		return 0;
	if (strcmp(cmd, "update_schemes_stats") == 0)
		return copy_stats(fk, idx);
	if (strcmp(cmd, "update_schemes_effective_quotas") == 0)
		return copy_effective(fk, idx);
	if (strcmp(cmd, "update_tuned_intervals") == 0)
		return copy_intervals(fk, idx);
	/* update_schemes_tried_{bytes,regions}: the walk is cancelled without schemes. */
	if (kd->nr_schemes == 0)
		return -ECANCELED;
	return tried_regions(fk, idx, false);
}

static int nr_write(struct fake_damon *fk, const char *path, const char *value)
{
	const char *b = base_name(path);
	char dir[FAKE_PATH_MAX], child[FAKE_PATH_MAX], parent[64], num[32];
	int (*mk)(struct fake_damon *, const char *) = NULL;
	bool filter = false, probe_filter = false;
	int64_t n;
	int r;

	r = kstrtoint(value, &n);
	if (r < 0)
		return r;
	if (n < 0)
		return -EINVAL;
	dir_name(path, 1, parent, sizeof(parent));

	if (strcmp(b, "nr_kdamonds") == 0) {
		if (any_running(fk))
			return -EBUSY;
		mk = mk_kdamond;
	} else if (strcmp(b, "nr_contexts") == 0) {
		if (n > 1)
			return -EINVAL;
		mk = mk_context;
	} else if (strcmp(b, "nr_targets") == 0)
		mk = mk_target;
	else if (strcmp(b, "nr_regions") == 0)
		mk = mk_region;
	else if (strcmp(b, "nr_schemes") == 0)
		mk = mk_scheme;
	else if (strcmp(b, "nr_goals") == 0)
		mk = mk_goal;
	else if (strcmp(b, "nr_dests") == 0)
		mk = mk_dest;
	else if (strcmp(b, "nr_probes") == 0) {
		if (n > 4)
			return -EINVAL;
		mk = mk_probe;
	} else if (strcmp(b, "nr_filters") == 0) {
		filter = true;
		probe_filter = strstr(path, "/probes/") != NULL;
	} else
		return -EACCES; /* not an nr file the kernel has */
	if (n > FAKE_MAX_NR)
		return -ENOMEM;

	snprintf(dir, sizeof(dir), "%.*s", (int)(b - path - 1), path);
	r = rm_numbered(fk, dir);
	if (r < 0)
		return r;
	snprintf(num, sizeof(num), "%lld", (long long)n);
	r = putf(fk, dir, b, num);
	if (r < 0)
		return r;
	if (strcmp(b, "nr_kdamonds") == 0)
		set_nr_kds(fk, (unsigned)n);
	for (int64_t i = 0; i < n; i++) {
		pathf(child, sizeof(child), "%s/%lld", dir, (long long)i);
		r = mkdir_p(fk, child);
		if (r < 0)
			return r;
		r = filter ? mk_filter(fk, child, probe_filter) : mk(fk, child);
		if (r < 0)
			return r;
	}
	return 0;
}

static int value_write(struct fake_damon *fk, const char *path, const char *value)
{
	const char *b = base_name(path);
	char out[IO_VALUE_MAX + 2];
	int r;

	if (strcmp(b, "operations") == 0 || strcmp(b, "action") == 0 || strcmp(b, "type") == 0 ||
	    strcmp(b, "target_metric") == 0 || strcmp(b, "metric") == 0 ||
	    strcmp(b, "goal_tuner") == 0) {
		if (!kw_supported(fk, b, filter_dir_of(path), value))
			return -EINVAL;
		return put(fk, path, value);
	}
	if (strcmp(b, "matching") == 0 || strcmp(b, "allow") == 0 || strcmp(b, "pause") == 0 ||
	    strcmp(b, "obsolete_target") == 0) {
		bool v;

		r = kstrtobool(value, &v);
		if (r < 0)
			return r;
		return put(fk, path, v ? "Y" : "N");
	}
	if (strcmp(b, "memcg_path") == 0 || strcmp(b, "path") == 0)
		return put(fk, path, value);
	if (strcmp(b, "target_nid") == 0 || strcmp(b, "pid_target") == 0 ||
	    strcmp(b, "nid") == 0 || strcmp(b, "damon_target_idx") == 0) {
		int64_t v;

		r = kstrtoint(value, &v);
		if (r < 0)
			return r;
		snprintf(out, sizeof(out), "%lld", (long long)v);
		return put(fk, path, out);
	}
	{
		uint64_t v;

		r = kstrtoull(value, &v);
		if (r < 0)
			return r;
		/* kstrtouint files */
		if ((strcmp(b, "refresh_ms") == 0 || ends_with(b, "_permil") ||
		     strcmp(b, "weight") == 0 || strcmp(b, "id") == 0) && v > UINT_MAX)
			return -ERANGE;
		if (strcmp(b, "addr_unit") == 0 && v == 0)
			return -EINVAL;
		snprintf(out, sizeof(out), "%llu", (unsigned long long)v);
		return put(fk, path, out);
	}
}

static int damon_write(struct fake_damon *fk, const char *path, const char *value)
{
	const char *b = base_name(path), *rest = NULL;
	struct stat st;
	int idx;

	/* sysfs cannot create files: a missing one is a missing feature. */
	if (fstatat(fk->dirfd, path, &st, 0) < 0)
		return -errno;
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	idx = kdamond_of(path, &rest);
	if (idx >= 0 && strcmp(rest, "state") == 0)
		return state_write(fk, (unsigned)idx, value);
	if (strncmp(b, "nr_", 3) == 0 && !ends_with(b, "_permil"))
		return nr_write(fk, path, value);
	if (is_read_only(path))
		return -EACCES;
	return value_write(fk, path, value);
}

/* sys/module/<name>/parameters/enabled -> name, else NULL. */
static bool module_enabled_path(const char *path, char *name, size_t size)
{
	const char *p, *e;

	if (strncmp(path, "sys/module/damon_", strlen("sys/module/damon_")) != 0)
		return false;
	p = path + strlen("sys/module/");
	e = strchr(p, '/');
	if (!e || strcmp(e, "/parameters/enabled") != 0 || (size_t)(e - p) >= size)
		return false;
	snprintf(name, size, "%.*s", (int)(e - p), p);
	return true;
}

static int module_write(struct fake_damon *fk, const char *path, const char *name, const char *value)
{
	bool v;
	int r;

	if (faccessat(fk->dirfd, path, F_OK, 0) < 0)
		return -errno;
	r = kstrtobool(value, &v);
	if (r < 0)
		return r;
	/* The module's damon_start(exclusive) fails while sysfs kdamonds run. */
	if (v && in_list(exclusive_modules, name) && any_running(fk))
		return -EBUSY;
	return put(fk, path, v ? "Y" : "N");
}

/* ---- hooks ---- */

/* value: what a write writes (NULL for a read), matched by "suffix=value". */
static struct fake_fault *fault_for(struct fake_damon *fk, const char *path, bool read,
				    const char *value)
{
	size_t plen = strlen(path);

	for (size_t i = 0; i < fk->nr_faults; i++) {
		struct fake_fault *f = &fk->faults[i];
		const char *eq = strchr(f->suffix, '=');
		size_t n = eq ? (size_t)(eq - f->suffix) : strlen(f->suffix);

		if (f->read != read || f->count == 0 || plen < n ||
		    memcmp(path + plen - n, f->suffix, n) != 0)
			continue;
		if (!eq)
			return f;
		/* sysfs tolerates one trailing newline in what is written */
		if (value && strlen(eq + 1) == strcspn(value, "\n") &&
		    strncmp(value, eq + 1, strlen(eq + 1)) == 0)
			return f;
	}
	return NULL;
}

static bool is_our_root(struct fake_damon *fk, int root)
{
	struct stat st;

	if (root == fk->dirfd)
		return true;
	return fstat(root, &st) == 0 && st.st_dev == fk->dev && st.st_ino == fk->ino;
}

static void log_write(struct fake_damon *fk, const char *path, const char *value)
{
	struct fake_write *w = realloc(fk->writes, (fk->nr_writes_log + 1) * sizeof(*w));

	if (!w)
		fake_bug("out of memory");
	fk->writes = w;
	w[fk->nr_writes_log].path = xstrdup(path);
	w[fk->nr_writes_log].value = xstrdup(value);
	fk->nr_writes_log++;
}

static int hook_write(int root, const char *path, const char *value, void *userdata)
{
	struct fake_damon *fk = userdata;
	char v[IO_VALUE_MAX + 1], name[64];
	const char *rest;
	struct fake_fault *f;
	size_t len;
	int idx, r;

	while (*path == '/')
		path++;
	log_write(fk, path, value);
	f = fault_for(fk, path, false, value);
	if (f) {
		if (f->count > 0)
			f->count--;
		r = -f->err;
		goto out;
	}
	if (!is_our_root(fk, root))
		return io_file_write(root, path, value);

	/* sysfs_streq and kstrto* both tolerate one trailing newline. */
	len = strlen(value);
	if (len > IO_VALUE_MAX)
		return -EINVAL;
	memcpy(v, value, len + 1);
	if (len > 0 && v[len - 1] == '\n')
		v[len - 1] = '\0';

	if (strncmp(path, "sys/kernel/mm/damon/", strlen("sys/kernel/mm/damon/")) == 0)
		r = damon_write(fk, path, v);
	else if (module_enabled_path(path, name, sizeof(name)))
		r = module_write(fk, path, name, v);
	else
		r = io_file_write(root, path, value);
out:
	/* Kept for fake_damon_last_result(). */
	idx = kdamond_of(path, &rest);
	if (idx >= 0 && (unsigned)idx < fk->nr_kds && strcmp(rest, "state") == 0)
		fk->kds[idx].last_result = r;
	return r;
}

static int hook_read(int root, const char *path, char *buf, size_t size, void *userdata)
{
	struct fake_damon *fk = userdata;
	struct fake_fault *f;
	int idx;

	(void)buf;
	(void)size;
	while (*path == '/')
		path++;
	f = fault_for(fk, path, true, NULL);
	if (f) {
		if (f->count > 0)
			f->count--;
		return -f->err;
	}
	if (!is_our_root(fk, root))
		return 1;
	/* The kernel's periodic refresh (refresh_ms) would have run by now. */
	idx = kdamond_of(path, NULL);
	if (idx >= 0 && fk->f.refresh_ms && (unsigned)idx < fk->nr_kds && fk->kds[idx].running &&
	    !fk->kds[idx].refresh_missed &&
	    get_u64(fk, 0, KDAMONDS "/%d/refresh_ms", idx) != 0 &&
	    get_u64(fk, 0, KDAMONDS "/%d/contexts/nr_contexts", idx) == 1) {
		copy_intervals(fk, (unsigned)idx);
		copy_stats(fk, (unsigned)idx);
		copy_effective(fk, (unsigned)idx);
	}
	return 1;
}

/* ---- the I/O seams (sysfs_io.h): the unit tests' binding ---- */

/* The fake installed by fake_damon_new(); none: plain files. */
static struct fake_damon *active;

int io_write(int root, const char *path, const char *value)
{
	if (!path || !value)
		return -EINVAL;
	if (!active)
		return io_file_write(root, path, value);
	return hook_write(root, path, value, active);
}

int io_read(int root, const char *path, char *buf, size_t size)
{
	if (active && path && buf && size > 0) {
		int r = hook_read(root, path, buf, size, active);

		if (r != 1)
			return r;
	}
	return io_file_read(root, path, buf, size);
}

/* ---- public API ---- */

struct fake_damon *fake_damon_new(const char *root_dir, enum fake_profile profile)
{
	struct fake_damon *fk = xcalloc(1, sizeof(*fk));
	struct stat st;
	uint64_t n;
	int r;

	fk->root = xstrdup(root_dir);
	fk->profile = profile;
	fk->next_pid = FAKE_FIRST_PID;
	set_features(fk);
	fk->dirfd = open(root_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fk->dirfd < 0 || fstat(fk->dirfd, &st) < 0)
		fake_bug("cannot open root %s: %s", root_dir, strerror(errno));
	fk->dev = st.st_dev;
	fk->ino = st.st_ino;

	if (faccessat(fk->dirfd, KDAMONDS "/nr_kdamonds", F_OK, 0) < 0) {
		r = put(fk, KDAMONDS "/nr_kdamonds", "0");
		if (r < 0)
			fake_bug("cannot create %s/" KDAMONDS ": %s", root_dir, strerror(-r));
	}
	/* The built-in DAMON modules of the Debian kernels (damon_stat from
	 * 6.17), all off; only parameters/enabled, which is what the daemon reads. */
	for (const char *const *m = builtin_modules; *m; m++) {
		char p[FAKE_PATH_MAX];

		if (strcmp(*m, "damon_stat") == 0 && !fk->f.damon_stat)
			continue;
		pathf(p, sizeof(p), "sys/module/%s/parameters/enabled", *m);
		if (faccessat(fk->dirfd, p, F_OK, 0) == 0)
			continue;
		r = put(fk, p, "N");
		if (r < 0)
			fake_bug("cannot create %s in %s: %s", p, root_dir, strerror(-r));
	}

	/* A tree that already has kdamonds: those reading "on" are someone else's. */
	n = get_u64(fk, 0, KDAMONDS "/nr_kdamonds");
	set_nr_kds(fk, n > FAKE_MAX_NR ? FAKE_MAX_NR : (unsigned)n);
	for (unsigned i = 0; i < fk->nr_kds; i++) {
		char b[16];

		if (getf(fk, b, sizeof(b), KDAMONDS "/%u/state", i) == 0 && strcmp(b, "on") == 0) {
			fk->kds[i].started = fk->kds[i].running = true;
			fk->kds[i].pid = (int64_t)get_u64(fk, (uint64_t)fk->next_pid,
							  KDAMONDS "/%u/pid", i);
		}
	}

	active = fk;
	return fk;
}

void fake_damon_free(struct fake_damon *fd)
{
	if (!fd)
		return;
	if (active == fd)
		active = NULL;
	fake_damon_reset_counts(fd);
	fake_damon_clear_faults(fd);
	for (size_t i = 0; i < fd->nr_kw; i++) {
		free(fd->kw[i].kind);
		free(fd->kw[i].word);
	}
	free(fd->kw);
	free(fd->kds);
	if (fd->dirfd >= 0)
		close(fd->dirfd);
	free(fd->root);
	free(fd);
}

void fake_damon_fail(struct fake_damon *fd, const char *suffix, bool read, int err, int count)
{
	struct fake_fault *f = realloc(fd->faults, (fd->nr_faults + 1) * sizeof(*f));

	if (!f)
		fake_bug("out of memory");
	if (err < 0)
		err = -err;
	fd->faults = f;
	f[fd->nr_faults] = (struct fake_fault) {
		.suffix = xstrdup(suffix), .read = read, .err = err, .count = count,
	};
	fd->nr_faults++;
}

void fake_damon_clear_faults(struct fake_damon *fd)
{
	for (size_t i = 0; i < fd->nr_faults; i++)
		free(fd->faults[i].suffix);
	free(fd->faults);
	fd->faults = NULL;
	fd->nr_faults = 0;
}

void fake_damon_set_module(struct fake_damon *fd, const char *name, bool enabled)
{
	char p[FAKE_PATH_MAX];
	int r;

	pathf(p, sizeof(p), "sys/module/%s/parameters/enabled", name);
	r = put(fd, p, enabled ? "Y" : "N");
	if (r < 0)
		fake_bug("cannot write %s: %s", p, strerror(-r));
}

void fake_damon_set_keyword_supported(struct fake_damon *fd, const char *kind,
				      const char *word, bool supported)
{
	struct kw_override *k = realloc(fd->kw, (fd->nr_kw + 1) * sizeof(*k));

	if (!k)
		fake_bug("out of memory");
	fd->kw = k;
	k[fd->nr_kw] = (struct kw_override) {
		.kind = xstrdup(kind), .word = xstrdup(word), .supported = supported,
	};
	fd->nr_kw++;
}

static struct fake_kd *kd_must(struct fake_damon *fd, unsigned kdamond, const char *what)
{
	struct fake_kd *kd = kd_get(fd, kdamond);

	if (!kd)
		fake_bug("%s: kdamond %u does not exist (nr_kdamonds %u)", what, kdamond, fd->nr_kds);
	return kd;
}

void fake_damon_kill(struct fake_damon *fd, unsigned kdamond)
{
	struct fake_kd *kd = kd_must(fd, kdamond, "fake_damon_kill");

	kd->running = false;
	kd->pid = -1;
	kd_files(fd, kdamond);
}

void fake_damon_set_stats(struct fake_damon *fd, unsigned kdamond, uint64_t sz_applied,
			  uint64_t effective_bytes)
{
	struct fake_kd *kd = kd_must(fd, kdamond, "fake_damon_set_stats");

	for (unsigned i = 0; i < FAKE_MAX_SCHEMES; i++) {
		kd->stats[i].sz_applied = sz_applied;
		kd->stats[i].effective_bytes = effective_bytes;
	}
}

void fake_damon_set_scheme_stats(struct fake_damon *fd, unsigned kdamond, unsigned scheme,
				 const struct fake_scheme_stats *stats)
{
	struct fake_kd *kd = kd_must(fd, kdamond, "fake_damon_set_scheme_stats");

	if (scheme >= FAKE_MAX_SCHEMES)
		fake_bug("scheme %u >= FAKE_MAX_SCHEMES", scheme);
	kd->stats[scheme] = *stats;
}

void fake_damon_set_tuned_intervals(struct fake_damon *fd, unsigned kdamond,
				    uint64_t sample_us, uint64_t aggr_us)
{
	struct fake_kd *kd = kd_must(fd, kdamond, "fake_damon_set_tuned_intervals");

	kd->sample_us = sample_us;
	kd->aggr_us = aggr_us;
}

void fake_damon_miss_refresh(struct fake_damon *fd, unsigned kdamond, bool missed)
{
	kd_must(fd, kdamond, "fake_damon_miss_refresh")->refresh_missed = missed;
}

void fake_damon_start_foreign(struct fake_damon *fd, unsigned kdamond)
{
	struct fake_kd *kd = kd_must(fd, kdamond, "fake_damon_start_foreign");
	char ctx[FAKE_PATH_MAX];

	if (kd->running)
		fake_bug("fake_damon_start_foreign: kdamond %u already runs", kdamond);
	pathf(ctx, sizeof(ctx), KDAMONDS "/%u/contexts/0", kdamond);
	if (faccessat(fd->dirfd, ctx, F_OK, 0) == 0)
		take_ctx(fd, kdamond, true);
	kd_start(fd, kdamond);
}

bool fake_damon_unlimited_first_pass(struct fake_damon *fd, unsigned kdamond)
{
	return kd_must(fd, kdamond, "fake_damon_unlimited_first_pass")->unlimited_first_pass;
}

bool fake_damon_running(struct fake_damon *fd, unsigned kdamond)
{
	struct fake_kd *kd = kd_get(fd, kdamond);

	return kd && kd->running;
}

int64_t fake_damon_pid(struct fake_damon *fd, unsigned kdamond)
{
	struct fake_kd *kd = kd_get(fd, kdamond);

	return kd ? kd->pid : -1;
}

unsigned fake_damon_count(struct fake_damon *fd, const char *cmd)
{
	unsigned n = 0;

	for (size_t i = 0; i < fd->nr_writes_log; i++) {
		const char *rest, *v = fd->writes[i].value;
		size_t len = strlen(v);

		if (kdamond_of(fd->writes[i].path, &rest) < 0 || strcmp(rest, "state") != 0)
			continue;
		if (len > 0 && v[len - 1] == '\n')
			len--;
		if (strlen(cmd) == len && strncmp(v, cmd, len) == 0)
			n++;
	}
	return n;
}

unsigned fake_damon_count_kdamond(struct fake_damon *fd, unsigned kdamond, const char *cmd)
{
	unsigned n = 0;

	for (size_t i = 0; i < fd->nr_writes_log; i++) {
		const char *rest, *v = fd->writes[i].value;
		size_t len = strlen(v);
		int idx = kdamond_of(fd->writes[i].path, &rest);

		if (idx < 0 || (unsigned)idx != kdamond || strcmp(rest, "state") != 0)
			continue;
		if (len > 0 && v[len - 1] == '\n')
			len--;
		if (strlen(cmd) == len && strncmp(v, cmd, len) == 0)
			n++;
	}
	return n;
}

unsigned fake_damon_nr_writes(struct fake_damon *fd, const char *suffix)
{
	unsigned n = 0;

	for (size_t i = 0; i < fd->nr_writes_log; i++)
		if (ends_with(fd->writes[i].path, suffix))
			n++;
	return n;
}

const char *fake_damon_last_write(struct fake_damon *fd, const char *suffix)
{
	for (size_t i = fd->nr_writes_log; i > 0; i--)
		if (ends_with(fd->writes[i - 1].path, suffix))
			return fd->writes[i - 1].value;
	return NULL;
}

void fake_damon_reset_counts(struct fake_damon *fd)
{
	for (size_t i = 0; i < fd->nr_writes_log; i++) {
		free(fd->writes[i].path);
		free(fd->writes[i].value);
	}
	free(fd->writes);
	fd->writes = NULL;
	fd->nr_writes_log = 0;
}

int fake_damon_last_result(struct fake_damon *fd, unsigned kdamond)
{
	struct fake_kd *kd = kd_get(fd, kdamond);

	return kd ? kd->last_result : 1;
}

const char *fake_damon_root(struct fake_damon *fd)
{
	return fd->root;
}
