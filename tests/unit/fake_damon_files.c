/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The fake DAMON sysfs: what each file accepts.  Values are parsed as the
 * kernel's kstrto* do, keyword files accept the words of the profile's
 * kernel, nr_* writes rebuild the numbered children, read-only files refuse.
 * Writes to kdamonds/<N>/state go on to the kernel model
 * (fake_damon_kernel.c).
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fake_damon_internal.h"
#include "sysfs_io.h"

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

int fk_kstrtobool(const char *s, bool *ret)
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
		return fk_in_list(kw_operations, word);
	if (strcmp(kind, "action") == 0)
		return fk_in_list(kw_actions, word) || (f->collapse && strcmp(word, "collapse") == 0);
	if (strcmp(kind, "metric") == 0)
		return fk_in_list(kw_wmark, word);
	if (strcmp(kind, "goal_tuner") == 0)
		return fk_in_list(kw_tuner, word);
	if (strcmp(kind, "target_metric") == 0)
		return fk_in_list(kw_metrics, word) ||
		       (f->goal_nid && fk_in_list(kw_metrics_nid, word)) ||
		       (f->metrics_7 && fk_in_list(kw_metrics_7, word));
	if (strcmp(kind, "type") != 0)
		return false;
	if (fdir == FILTERS_PROBE)
		return fk_in_list(kw_probe_types, word);
	core = fk_in_list(kw_core_types, word);
	/* A forced extra type is an ops-layer one (all new types so far are). */
	ops = !core && (ov == 1 || fk_in_list(kw_ops_types_old, word) ||
			(f->filter_new_types && fk_in_list(kw_ops_types_new, word)));
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
int fk_kdamond_of(const char *path, const char **rest)
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

/* sys/module/<name>/parameters/enabled -> name, else NULL. */
bool fk_module_enabled_path(const char *path, char *name, size_t size)
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

/* ---- write handlers ---- */

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
		if (fk_any_running(fk))
			return -EBUSY;
		mk = fk_mk_kdamond;
	} else if (strcmp(b, "nr_contexts") == 0) {
		if (n > 1)
			return -EINVAL;
		mk = fk_mk_context;
	} else if (strcmp(b, "nr_targets") == 0)
		mk = fk_mk_target;
	else if (strcmp(b, "nr_regions") == 0)
		mk = fk_mk_region;
	else if (strcmp(b, "nr_schemes") == 0)
		mk = fk_mk_scheme;
	else if (strcmp(b, "nr_goals") == 0)
		mk = fk_mk_goal;
	else if (strcmp(b, "nr_dests") == 0)
		mk = fk_mk_dest;
	else if (strcmp(b, "nr_probes") == 0) {
		if (n > 4)
			return -EINVAL;
		mk = fk_mk_probe;
	} else if (strcmp(b, "nr_filters") == 0) {
		filter = true;
		probe_filter = strstr(path, "/probes/") != NULL;
	} else
		return -EACCES; /* not an nr file the kernel has */
	if (n > FAKE_MAX_NR)
		return -ENOMEM;

	snprintf(dir, sizeof(dir), "%.*s", (int)(b - path - 1), path);
	r = fk_rm_numbered(fk, dir);
	if (r < 0)
		return r;
	snprintf(num, sizeof(num), "%lld", (long long)n);
	r = fk_putf(fk, dir, b, num);
	if (r < 0)
		return r;
	if (strcmp(b, "nr_kdamonds") == 0)
		fk_set_nr_kds(fk, (unsigned)n);
	for (int64_t i = 0; i < n; i++) {
		tu_pathf(child, sizeof(child), "%s/%lld", dir, (long long)i);
		r = fk_mkdir_p(fk, child);
		if (r < 0)
			return r;
		r = filter ? fk_mk_filter(fk, child, probe_filter) : mk(fk, child);
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
		return fk_put(fk, path, value);
	}
	if (strcmp(b, "matching") == 0 || strcmp(b, "allow") == 0 || strcmp(b, "pause") == 0 ||
	    strcmp(b, "obsolete_target") == 0) {
		bool v;

		r = fk_kstrtobool(value, &v);
		if (r < 0)
			return r;
		return fk_put(fk, path, v ? "Y" : "N");
	}
	if (strcmp(b, "memcg_path") == 0 || strcmp(b, "path") == 0)
		return fk_put(fk, path, value);
	if (strcmp(b, "target_nid") == 0 || strcmp(b, "pid_target") == 0 ||
	    strcmp(b, "nid") == 0 || strcmp(b, "damon_target_idx") == 0) {
		int64_t v;

		r = kstrtoint(value, &v);
		if (r < 0)
			return r;
		snprintf(out, sizeof(out), "%lld", (long long)v);
		return fk_put(fk, path, out);
	}
	{
		uint64_t v;

		r = kstrtoull(value, &v);
		if (r < 0)
			return r;
		/* kstrtouint files */
		if ((strcmp(b, "refresh_ms") == 0 || fk_ends_with(b, "_permil") ||
		     strcmp(b, "weight") == 0 || strcmp(b, "id") == 0) && v > UINT_MAX)
			return -ERANGE;
		if (strcmp(b, "addr_unit") == 0 && v == 0)
			return -EINVAL;
		snprintf(out, sizeof(out), "%llu", (unsigned long long)v);
		return fk_put(fk, path, out);
	}
}

int fk_damon_write(struct fake_damon *fk, const char *path, const char *value)
{
	const char *b = base_name(path), *rest = NULL;
	struct stat st;
	int idx;

	/* sysfs cannot create files: a missing one is a missing feature. */
	if (fstatat(fk->dirfd, path, &st, 0) < 0)
		return -errno;
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	idx = fk_kdamond_of(path, &rest);
	if (idx >= 0 && strcmp(rest, "state") == 0)
		return fk_state_write(fk, (unsigned)idx, value);
	if (strncmp(b, "nr_", 3) == 0 && !fk_ends_with(b, "_permil"))
		return nr_write(fk, path, value);
	if (is_read_only(path))
		return -EACCES;
	return value_write(fk, path, value);
}
