/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * Internals of the fake DAMON sysfs (contract: fake_damon.h), shared by its
 * files and by nothing else:
 *
 *  fake_damon.c         lifecycle, the I/O seams and their hooks (faults,
 *                       the write log), the public fake_damon_* API;
 *  fake_damon_tree.c    the tree on disk: small helpers, put/get, mkdir_p,
 *                       removal, the default trees the nr_* files create;
 *  fake_damon_files.c   what each file accepts: kernel-like value parsing
 *                       (kstrto*), keywords per profile, path classification,
 *                       nr_* and value writes;
 *  fake_damon_kernel.c  the kernel-side objects: kdamonds (started, running,
 *                       pid, stats), validation at on/commit, the state
 *                       commands, the exclusive modules.
 *
 * All paths are relative to the fake's root (fk->dirfd), without a leading
 * '/'.  Functions returning int give 0 or -errno unless said otherwise.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "fake_damon.h"
#include "testutil.h"

#define ADMIN "sys/kernel/mm/damon/admin"
#define KDAMONDS ADMIN "/kdamonds"
#define FAKE_PATH_MAX 1024
/* Nobody needs more; it keeps a runaway loop from filling the disk. */
#define FAKE_MAX_NR 4096

/* What the profile's kernel has (set once by fake_damon_new()). */
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

/* ---- fake_damon_tree.c: helpers ---- */

/* A bug in the fake or its test (not a kernel answer): print and abort. */
void fake_bug(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
/* calloc/strdup that abort on out-of-memory; calloc never returns NULL for n = 0. */
void *fk_xcalloc(size_t n, size_t sz);
char *fk_xstrdup(const char *s);
bool fk_ends_with(const char *s, const char *suffix);
/* word is one of the NULL-terminated list. */
bool fk_in_list(const char *const *list, const char *word);

/* ---- fake_damon_tree.c: the tree on disk ---- */

/* mkdir -p of path (0755); existing directories are fine. */
int fk_mkdir_p(struct fake_damon *fk, const char *path);
/* Store value as one line (a '\n' is added if missing), creating parents. */
int fk_put(struct fake_damon *fk, const char *path, const char *value);
/* fk_put() of dir/name. */
int fk_putf(struct fake_damon *fk, const char *dir, const char *name, const char *value);
/* fk_put() of dir/name as a decimal. */
int fk_put_u64(struct fake_damon *fk, const char *dir, const char *name, uint64_t v);
/* Read a stored value into buf without its trailing newlines; -ENOENT when
 * the file is missing (the profile does not have it). */
int fk_get(struct fake_damon *fk, const char *path, char *buf, size_t size);
/* fk_get() of a printf-built path (-ENAMETOOLONG if it does not fit). */
int fk_getf(struct fake_damon *fk, char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* The stored decimal at a printf-built path; dflt if it cannot be read. */
uint64_t fk_get_u64(struct fake_damon *fk, uint64_t dflt, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Remove every all-digits child (recursively) of dir; other entries stay. */
int fk_rm_numbered(struct fake_damon *fk, const char *dir);

/* Fill the (existing) directory dir with the kernel's default files of one
 * object of that kind, per profile; the first error is returned.  probe: a
 * filter below monitoring_attrs/probes (7.3), which has other files. */
int fk_mk_filter(struct fake_damon *fk, const char *dir, bool probe);
int fk_mk_goal(struct fake_damon *fk, const char *dir);
int fk_mk_dest(struct fake_damon *fk, const char *dir);
int fk_mk_scheme(struct fake_damon *fk, const char *dir);
int fk_mk_region(struct fake_damon *fk, const char *dir);
int fk_mk_target(struct fake_damon *fk, const char *dir);
int fk_mk_probe(struct fake_damon *fk, const char *dir);
int fk_mk_context(struct fake_damon *fk, const char *dir);
int fk_mk_kdamond(struct fake_damon *fk, const char *dir);

/* ---- fake_damon_files.c: what the files accept ---- */

/* The kernel's kstrtobool: y/Y/1/on true, n/N/0/off false, else -EINVAL. */
int fk_kstrtobool(const char *s, bool *ret);
/* "sys/kernel/mm/damon/admin/kdamonds/3/..." -> 3, with *rest (if rest is
 * not NULL) the part after "3/" ("" for the directory itself); -1 if the
 * path is not below a kdamond. */
int fk_kdamond_of(const char *path, const char **rest);
/* path is sys/module/damon_<x>/parameters/enabled: true with the module's
 * name in name; else false. */
bool fk_module_enabled_path(const char *path, char *name, size_t size);
/* A write of value (trailing newline already stripped) to an existing file
 * below sys/kernel/mm/damon/, answered as the kernel would. */
int fk_damon_write(struct fake_damon *fk, const char *path, const char *value);

/* ---- fake_damon_kernel.c: the kernel-side objects ---- */

/* kdamond idx, or NULL if it does not exist. */
struct fake_kd *fk_kd_get(struct fake_damon *fk, unsigned idx);
/* Any kdamond's kthread runs. */
bool fk_any_running(struct fake_damon *fk);
/* Write kdamond idx's state and pid files from the model; aborts on error. */
void fk_kd_files(struct fake_damon *fk, unsigned idx);
/* Start kdamond idx on its current ctx: new pid, stats zeroed. */
void fk_kd_start(struct fake_damon *fk, unsigned idx);
/* Replace all kdamonds by n fresh ones (not started, pid -1). */
int fk_set_nr_kds(struct fake_damon *fk, unsigned n);
/* Copy kdamond idx's sysfs ctx into the kernel ctx (intervals, number of
 * schemes); fresh: all stats restart at 0, else schemes kept by index keep them. */
void fk_take_ctx(struct fake_damon *fk, unsigned idx, bool fresh);
/* What refresh_ms does periodically: the tuned intervals, the stats and
 * the effective quotas of kdamond idx into its sysfs files. */
void fk_refresh(struct fake_damon *fk, unsigned idx);
/* A write of cmd to kdamond idx's state file. */
int fk_state_write(struct fake_damon *fk, unsigned idx, const char *cmd);
/* A write of value to module name's parameters/enabled (stored as Y/N). */
int fk_module_write(struct fake_damon *fk, const char *path, const char *name, const char *value);
