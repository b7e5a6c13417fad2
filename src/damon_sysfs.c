/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The DAMON sysfs access the rest of the module goes through (writes and
 * reads retried on EBUSY, state commands, the dry run), and the reads of
 * kdamond state and scheme stats.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "damon_sysfs.h"
#include "damon_sysfs_internal.h"
#include "log.h"
#include "parse.h"
#include "sysfs_io.h"

void damon_io_init(struct damon_io *io, int root)
{
	memset(io, 0, sizeof(*io));
	io->root = root;
	io->busy_retries = 10;
	io->busy_base_us = 1000;
}

int damon_kdamond_dir(unsigned idx, char *buf, size_t size)
{
	return io_path(buf, size, DAMON_KDAMONDS "/%u", idx);
}

void damon_sleep(struct damon_io *io, uint64_t usec)
{
	struct timespec ts = { .tv_sec = (time_t)(usec / 1000000),
			       .tv_nsec = (long)(usec % 1000000) * 1000 };

	if (io->sleep_us) {
		io->sleep_us(usec, io->sleep_userdata);
		return;
	}
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/*
 * DAMON's sysfs lock is taken with trylock: a concurrent writer (another
 * tool, or the kdamond's own refresh) makes lock-taking files fail at once
 * with EBUSY.  That is transient; retry with doubling delays, then give up
 * with one message.
 */
int damon_read_retry(struct damon_io *io, const char *path, char *buf, size_t size)
{
	uint64_t delay = io->busy_base_us;
	int r;

	for (unsigned attempt = 0;; attempt++) {
		r = io_read(io->root, path, buf, size);
		if (r != -EBUSY || attempt >= io->busy_retries)
			break;
		damon_sleep(io, delay);
		delay *= 2;
	}
	if (r < 0)
		snprintf(io->failed_path, sizeof(io->failed_path), "/%s", path);
	return r;
}

/* -ESRCH (failed path: state) if kdamond state file `path` reads "off". */
static int ensure_on(struct damon_io *io, const char *path)
{
	char v[32];

	if (damon_read_retry(io, path, v, sizeof(v)) < 0 || strcmp(v, "off") != 0)
		return 0;
	snprintf(io->failed_path, sizeof(io->failed_path), "/%s", path);
	return -ESRCH;
}

/* Write, retrying EBUSY with backoff; with `guard`, path is a kdamond's
 * state file and every attempt first makes sure it reads "on". */
static int write_retry(struct damon_io *io, const char *path, const char *value, bool guard)
{
	uint64_t delay = io->busy_base_us, waited = 0;
	int r;

	if (io->dry_run) {
		fprintf(io->dry_run, "write /%s %s\n", path, value);
		return 0;
	}
	for (unsigned attempt = 0;; attempt++) {
		if (guard) {
			r = ensure_on(io, path);
			if (r < 0)
				return r;
		}
		r = io_write(io->root, path, value);
		if (r != -EBUSY || attempt >= io->busy_retries)
			break;
		damon_sleep(io, delay);
		waited += delay;
		delay *= 2;
	}
	if (r < 0)
		snprintf(io->failed_path, sizeof(io->failed_path), "/%s", path);
	if (r == -EBUSY && io->busy_retries > 0)
		log_warning("/%s: still busy after %u retries over %" PRIu64 " ms (writing \"%s\"); "
			    "another DAMON sysfs user holds the lock", path, io->busy_retries,
			    waited / 1000, value);
	return r;
}

int damon_write_retry(struct damon_io *io, const char *path, const char *value)
{
	return write_retry(io, path, value, false);
}


int damon_read_nr_kdamonds(struct damon_io *io, unsigned *ret)
{
	char v[32];
	uint64_t n;
	int r;

	r = damon_read_retry(io, DAMON_KDAMONDS "/nr_kdamonds", v, sizeof(v));
	if (r < 0)
		return r;
	if (parse_u64(v, &n) < 0 || n > 1u << 16)
		return -EBADMSG;
	*ret = (unsigned)n;
	return 0;
}

int damon_read_kdamond(struct damon_io *io, unsigned idx, struct kdamond_obs *ret)
{
	char dir[128], path[160], v[32];
	struct kdamond_obs o = {};
	int64_t pid;
	int r;

	r = damon_kdamond_dir(idx, dir, sizeof(dir));
	if (r < 0)
		return r;
	snprintf(path, sizeof(path), "%s/state", dir);
	r = damon_read_retry(io, path, v, sizeof(v));
	if (r < 0)
		return r;
	if (strcmp(v, "on") == 0)
		o.on = true;
	else if (strcmp(v, "off") != 0)
		return -EBADMSG;
	snprintf(path, sizeof(path), "%s/pid", dir);
	r = damon_read_retry(io, path, v, sizeof(v));
	if (r < 0)
		return r;
	if (parse_s64(v, &pid) < 0)
		return -EBADMSG;
	o.pid = pid;
	*ret = o;
	return 0;
}

int damon_set_nr_kdamonds(struct damon_io *io, unsigned n)
{
	unsigned cur;
	char v[16];
	int r;

	snprintf(v, sizeof(v), "%u", n);
	if (io->dry_run)
		return damon_write_retry(io, DAMON_KDAMONDS "/nr_kdamonds", v);
	r = damon_read_nr_kdamonds(io, &cur);
	if (r < 0)
		return r;
	/* Belt and braces: the kernel refuses this while any kdamond runs,
	 * but we check ourselves so a buggy caller can never wipe one. */
	for (unsigned i = 0; i < cur; i++) {
		struct kdamond_obs o;

		r = damon_read_kdamond(io, i, &o);
		if (r < 0)
			return r;
		if (o.on)
			return -EBUSY;
	}
	return damon_write_retry(io, DAMON_KDAMONDS "/nr_kdamonds", v);
}


int damon_state_cmd(struct damon_io *io, unsigned idx, const char *cmd)
{
	char path[160];
	int r;

	r = io_path(path, sizeof(path), DAMON_KDAMONDS "/%u/state", idx);
	if (r < 0)
		return r;
	/* A command to a kdamond that is stopping, or stopped, is what the
	 * kernel's command queue gets wrong from 6.14 until its fix
	 * (damon_sysfs.h): look before every attempt, as the EBUSY being
	 * retried may be somebody else turning the kdamond off. */
	return write_retry(io, path, cmd, strcmp(cmd, "on") != 0 && strcmp(cmd, "off") != 0);
}

int damon_commit_cmd(struct damon_io *io, unsigned idx)
{
	char path[160];
	int r;

	r = damon_state_cmd(io, idx, "commit");
	if (r < 0 || io->dry_run)
		return r;
	r = io_path(path, sizeof(path), DAMON_KDAMONDS "/%u/state", idx);
	return r < 0 ? 0 : ensure_on(io, path);
}

static int read_u64_at(struct damon_io *io, const char *dir, const char *rel, uint64_t *ret)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	return io_read_u64(io->root, path, ret);
}

struct u64_file {
	const char *rel; /* under the kdamond's directory */
	uint64_t *v;
	bool need;
};

/* Read every needed file of t[] under kdamond idx; on failure name the file
 * in io->failed_path.  The values are written as they are read. */
static int read_u64_files(struct damon_io *io, unsigned idx, const struct u64_file *t, size_t n)
{
	char dir[128];
	int r;

	r = damon_kdamond_dir(idx, dir, sizeof(dir));
	if (r < 0)
		return r;
	for (size_t i = 0; i < n; i++) {
		if (!t[i].need)
			continue;
		r = read_u64_at(io, dir, t[i].rel, t[i].v);
		if (r < 0) {
			snprintf(io->failed_path, sizeof(io->failed_path), "/%s/%s", dir, t[i].rel);
			return r;
		}
	}
	return 0;
}

int damon_read_charge(struct damon_io *io, unsigned idx, bool refresh, uint64_t *ret_tried,
		      uint64_t *ret_applied, uint64_t *ret_passed)
{
	uint64_t tried, applied, passed = 0;
	const struct u64_file t[] = {
		{ "contexts/0/schemes/0/stats/sz_tried", &tried, true },
		{ "contexts/0/schemes/0/stats/sz_applied", &applied, true },
		{ "contexts/0/schemes/0/stats/sz_ops_filter_passed", &passed, ret_passed != NULL },
	};
	int r = refresh ? damon_state_cmd(io, idx, "update_schemes_stats") : 0;

	if (r < 0)
		return r;
	r = read_u64_files(io, idx, t, sizeof(t) / sizeof(t[0]));
	if (r < 0)
		return r;
	*ret_tried = tried;
	*ret_applied = applied;
	if (ret_passed)
		*ret_passed = passed;
	return 0;
}

int damon_read_hist(struct damon_io *io, unsigned idx, unsigned n, bool refresh, uint64_t *ret_tried,
		    uint64_t *ret_sample_us, uint64_t *ret_aggr_us)
{
	uint64_t tried[HOT_MAX_BUCKETS], sample, aggr;
	char rel[HOT_MAX_BUCKETS][48];
	struct u64_file t[HOT_MAX_BUCKETS + 2] = {
		{ "contexts/0/monitoring_attrs/intervals/sample_us", &sample, true },
		{ "contexts/0/monitoring_attrs/intervals/aggr_us", &aggr, true },
	};
	int r;

	if (n > HOT_MAX_BUCKETS)
		return -EINVAL;
	for (unsigned i = 0; i < n; i++) {
		snprintf(rel[i], sizeof(rel[i]), "contexts/0/schemes/%u/stats/sz_tried", 1 + i);
		t[2 + i] = (struct u64_file){ rel[i], &tried[i], true };
	}
	if (refresh) {
		r = damon_state_cmd(io, idx, "update_schemes_stats");
		if (r < 0)
			return r;
	}
	r = read_u64_files(io, idx, t, 2 + n);
	if (r < 0)
		return r;
	memcpy(ret_tried, tried, n * sizeof(tried[0]));
	*ret_sample_us = sample;
	*ret_aggr_us = aggr;
	return 0;
}

int damon_read_stats(struct damon_io *io, unsigned idx, bool intervals_goal, bool refresh,
		     struct scheme_stats *ret)
{
	struct scheme_stats st = {};
	int r;

	if (refresh) {
		r = damon_state_cmd(io, idx, "update_schemes_stats");
		if (r < 0)
			return r;
		if (io->feat.effective_bytes) {
			r = damon_state_cmd(io, idx, "update_schemes_effective_quotas");
			if (r < 0)
				return r;
		}
		if (intervals_goal) {
			r = damon_state_cmd(io, idx, "update_tuned_intervals");
			if (r < 0)
				return r;
		}
	}
	const struct u64_file t[] = {
		{ "contexts/0/schemes/0/stats/nr_tried", &st.nr_tried, true },
		{ "contexts/0/schemes/0/stats/sz_tried", &st.sz_tried, true },
		{ "contexts/0/schemes/0/stats/nr_applied", &st.nr_applied, true },
		{ "contexts/0/schemes/0/stats/sz_applied", &st.sz_applied, true },
		{ "contexts/0/schemes/0/stats/qt_exceeds", &st.qt_exceeds, true },
		{ "contexts/0/schemes/0/quotas/effective_bytes", &st.effective_bytes,
		  io->feat.effective_bytes },
		{ "contexts/0/monitoring_attrs/intervals/sample_us", &st.sample_us, true },
		{ "contexts/0/monitoring_attrs/intervals/aggr_us", &st.aggr_us, true },
	};
	r = read_u64_files(io, idx, t, sizeof(t) / sizeof(t[0]));
	if (r < 0)
		return r;
	*ret = st;
	return 0;
}
