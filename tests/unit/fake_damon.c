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
 *
 * This file: its lifecycle, the I/O seams that route the code under test's
 * reads and writes here (with injected faults and the log of writes), and
 * the public fake_damon_* API.  The rest is split by concern (see
 * fake_damon_internal.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fake_damon.h"
#include "fake_damon_internal.h"
#include "sysfs_io.h"

#define FAKE_FIRST_PID 10000

/* What the kernels of tests/golden/damon-sysfs have built in. */
static const char *const builtin_modules[] = {
	"damon_stat", "damon_reclaim", "damon_lru_sort", NULL,
};

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
	w[fk->nr_writes_log].path = fk_xstrdup(path);
	w[fk->nr_writes_log].value = fk_xstrdup(value);
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
		r = fk_damon_write(fk, path, v);
	else if (fk_module_enabled_path(path, name, sizeof(name)))
		r = fk_module_write(fk, path, name, v);
	else
		r = io_file_write(root, path, value);
out:
	/* Kept for fake_damon_last_result(). */
	idx = fk_kdamond_of(path, &rest);
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
	idx = fk_kdamond_of(path, NULL);
	if (idx >= 0 && fk->f.refresh_ms && (unsigned)idx < fk->nr_kds && fk->kds[idx].running &&
	    !fk->kds[idx].refresh_missed &&
	    fk_get_u64(fk, 0, KDAMONDS "/%d/refresh_ms", idx) != 0 &&
	    fk_get_u64(fk, 0, KDAMONDS "/%d/contexts/nr_contexts", idx) == 1)
		fk_refresh(fk, (unsigned)idx);
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
	struct fake_damon *fk = fk_xcalloc(1, sizeof(*fk));
	struct stat st;
	uint64_t n;
	int r;

	fk->root = fk_xstrdup(root_dir);
	fk->profile = profile;
	fk->next_pid = FAKE_FIRST_PID;
	set_features(fk);
	fk->dirfd = open(root_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fk->dirfd < 0 || fstat(fk->dirfd, &st) < 0)
		fake_bug("cannot open root %s: %s", root_dir, strerror(errno));
	fk->dev = st.st_dev;
	fk->ino = st.st_ino;

	if (faccessat(fk->dirfd, KDAMONDS "/nr_kdamonds", F_OK, 0) < 0) {
		r = fk_put(fk, KDAMONDS "/nr_kdamonds", "0");
		if (r < 0)
			fake_bug("cannot create %s/" KDAMONDS ": %s", root_dir, strerror(-r));
	}
	/* The built-in DAMON modules of the Debian kernels (damon_stat from
	 * 6.17), all off; only parameters/enabled, which is what the daemon reads. */
	for (const char *const *m = builtin_modules; *m; m++) {
		char p[FAKE_PATH_MAX];

		if (strcmp(*m, "damon_stat") == 0 && !fk->f.damon_stat)
			continue;
		tu_pathf(p, sizeof(p), "sys/module/%s/parameters/enabled", *m);
		if (faccessat(fk->dirfd, p, F_OK, 0) == 0)
			continue;
		r = fk_put(fk, p, "N");
		if (r < 0)
			fake_bug("cannot create %s in %s: %s", p, root_dir, strerror(-r));
	}

	/* A tree that already has kdamonds: those reading "on" are someone else's. */
	n = fk_get_u64(fk, 0, KDAMONDS "/nr_kdamonds");
	fk_set_nr_kds(fk, n > FAKE_MAX_NR ? FAKE_MAX_NR : (unsigned)n);
	for (unsigned i = 0; i < fk->nr_kds; i++) {
		char b[16];

		if (fk_getf(fk, b, sizeof(b), KDAMONDS "/%u/state", i) == 0 && strcmp(b, "on") == 0) {
			fk->kds[i].started = fk->kds[i].running = true;
			fk->kds[i].pid = (int64_t)fk_get_u64(fk, (uint64_t)fk->next_pid,
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
		.suffix = fk_xstrdup(suffix), .read = read, .err = err, .count = count,
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

	tu_pathf(p, sizeof(p), "sys/module/%s/parameters/enabled", name);
	r = fk_put(fd, p, enabled ? "Y" : "N");
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
		.kind = fk_xstrdup(kind), .word = fk_xstrdup(word), .supported = supported,
	};
	fd->nr_kw++;
}

static struct fake_kd *kd_must(struct fake_damon *fd, unsigned kdamond, const char *what)
{
	struct fake_kd *kd = fk_kd_get(fd, kdamond);

	if (!kd)
		fake_bug("%s: kdamond %u does not exist (nr_kdamonds %u)", what, kdamond, fd->nr_kds);
	return kd;
}

void fake_damon_kill(struct fake_damon *fd, unsigned kdamond)
{
	struct fake_kd *kd = kd_must(fd, kdamond, "fake_damon_kill");

	kd->running = false;
	kd->pid = -1;
	fk_kd_files(fd, kdamond);
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
	tu_pathf(ctx, sizeof(ctx), KDAMONDS "/%u/contexts/0", kdamond);
	if (faccessat(fd->dirfd, ctx, F_OK, 0) == 0)
		fk_take_ctx(fd, kdamond, true);
	fk_kd_start(fd, kdamond);
}

bool fake_damon_unlimited_first_pass(struct fake_damon *fd, unsigned kdamond)
{
	return kd_must(fd, kdamond, "fake_damon_unlimited_first_pass")->unlimited_first_pass;
}

bool fake_damon_running(struct fake_damon *fd, unsigned kdamond)
{
	struct fake_kd *kd = fk_kd_get(fd, kdamond);

	return kd && kd->running;
}

int64_t fake_damon_pid(struct fake_damon *fd, unsigned kdamond)
{
	struct fake_kd *kd = fk_kd_get(fd, kdamond);

	return kd ? kd->pid : -1;
}

/* State commands cmd received by kdamond (any kdamond if any_kdamond). */
static unsigned count_cmd(struct fake_damon *fd, bool any_kdamond, unsigned kdamond, const char *cmd)
{
	unsigned n = 0;

	for (size_t i = 0; i < fd->nr_writes_log; i++) {
		const char *rest, *v = fd->writes[i].value;
		size_t len = strlen(v);
		int idx = fk_kdamond_of(fd->writes[i].path, &rest);

		if (idx < 0 || (!any_kdamond && (unsigned)idx != kdamond) || strcmp(rest, "state") != 0)
			continue;
		if (len > 0 && v[len - 1] == '\n')
			len--;
		if (strlen(cmd) == len && strncmp(v, cmd, len) == 0)
			n++;
	}
	return n;
}

unsigned fake_damon_count(struct fake_damon *fd, const char *cmd)
{
	return count_cmd(fd, true, 0, cmd);
}

unsigned fake_damon_count_kdamond(struct fake_damon *fd, unsigned kdamond, const char *cmd)
{
	return count_cmd(fd, false, kdamond, cmd);
}

unsigned fake_damon_nr_writes(struct fake_damon *fd, const char *suffix)
{
	unsigned n = 0;

	for (size_t i = 0; i < fd->nr_writes_log; i++)
		if (fk_ends_with(fd->writes[i].path, suffix))
			n++;
	return n;
}

const char *fake_damon_last_write(struct fake_damon *fd, const char *suffix)
{
	for (size_t i = fd->nr_writes_log; i > 0; i--)
		if (fk_ends_with(fd->writes[i - 1].path, suffix))
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
	struct fake_kd *kd = fk_kd_get(fd, kdamond);

	return kd ? kd->last_result : 1;
}

const char *fake_damon_root(struct fake_damon *fd)
{
	return fd->root;
}
