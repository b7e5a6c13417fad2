/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * Apply: the only module that writes DAMON sysfs.  It stages a plan in the
 * order the kernel needs (every nr_* before its children, an unchanged nr_*
 * never rewritten), sends state commands, and reads state, stats, effective
 * quotas and tuned intervals back.  Lock-taking files that answer EBUSY are
 * retried with bounded exponential backoff.
 *
 * Kdamonds are addressed by absolute index under admin/kdamonds; callers
 * (observe.c, actuate.c) are told which indices are ours.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "plan.h"

struct damon_io {
	int root;
	FILE *dry_run;      /* non-NULL: print "write PATH VALUE" lines, touch nothing */
	unsigned busy_retries;   /* EBUSY retries per write (default 10) */
	uint64_t busy_base_us;   /* first backoff, doubled each retry (default 1000) */
	/* Sleep function, replaceable in tests; NULL = nanosleep. */
	void (*sleep_us)(uint64_t usec, void *userdata);
	void *sleep_userdata;
	/* What the kernel offers (set after features_probe); decides which
	 * optional files are written. */
	struct damon_features feat;
	/* Last failing path, for the caller's log line. */
	char failed_path[512];
};

void damon_io_init(struct damon_io *io, int root);

/* Observation of one kdamond directory. */
struct kdamond_obs {
	bool on;
	int64_t pid;
};

/* 0, the read's -errno, or -EBADMSG when a file holds something the kernel
 * never writes there (not a number, a state other than on/off). */
int damon_read_nr_kdamonds(struct damon_io *io, unsigned *ret);
int damon_read_kdamond(struct damon_io *io, unsigned idx, struct kdamond_obs *ret);

/* Write nr_kdamonds (refuses with -EBUSY itself if any kdamond reads "on",
 * so it never destroys a running kdamond; a dry run only prints). */
int damon_set_nr_kdamonds(struct damon_io *io, unsigned n);

/* Stage every file of kdamond `idx` from kd.  With `running`, the kdamond is
 * on and a commit follows: auto-tuned sample_us/aggr_us are then left as the
 * kernel reported them, because committing the configured values would reset
 * the tuning. */
int damon_stage(struct damon_io *io, unsigned idx, const struct plan_kdamond *kd, bool running);

/*
 * Starting a kdamond takes two steps, damon_start() then damon_arm().
 *
 * Why: up to 6.17 (6.12 and 6.17 shown in QEMU; 7.3 sets the first window
 * up before it applies anything) a new scheme's first apply pass runs before
 * its first quota window has an effective size, and an effective size of 0
 * means no limit.  That pass applies the scheme to the whole initial region,
 * i.e. the whole node, in one go: with a 1-byte quota the demotion kdamond
 * moved 350 MiB of node 0 at its start in the benchmark guest (every page the
 * young filter lets through, or all of them without it).
 *
 * damon_start(): stage every file of kdamond `idx` from kd, except that the
 * scheme's age/min is DAMON_AGE_NEVER (it matches no region), and turn it on.
 * The caller reads the pid and then calls damon_arm().
 */
#define DAMON_AGE_NEVER 4294967295ull
int damon_start(struct damon_io *io, unsigned idx, const struct plan_kdamond *kd);

/* Wait until the kernel reports an effective quota for the scheme (its first
 * window is set up; polled every 20 ms, up to 20 windows and at least 2 s; on
 * kernels without effective quotas, two windows), then write kd's age/min and
 * commit, keeping the tuned intervals (as damon_set_quota()).
 * A kernel that never reports one is logged and the scheme armed anyway.  On
 * failure the kdamond keeps running disarmed, which is harmless, and the
 * caller must commit kd again later: the files may already hold kd, so
 * damon_check_drift() need not see a difference. */
int damon_arm(struct damon_io *io, unsigned idx, const struct plan_kdamond *kd);

/* Stage (running) and commit: the way to change a running kdamond.  On
 * failure the running kernel context is unchanged (the kernel tests a commit
 * on a scratch context first); the staged files are then the caller's to
 * restore.  Before 6.14 the kernel has no scratch context: a refused commit
 * stops the kdamond and the write still succeeds, so this returns -ESRCH
 * (failed path: the kdamond's state) when state reads "off" afterwards. */
int damon_commit(struct damon_io *io, unsigned idx, const struct plan_kdamond *kd);

/*
 * state commands: "on", "off", "commit", "commit_schemes_quota_goals", ...
 * Every command other than on/off is sent only to a kdamond whose state
 * reads "on", looked at before each attempt (EBUSY is retried): -ESRCH,
 * nothing written, when it reads "off".  From 6.14 (the kernel's damon_call)
 * until its fix (call_controls_obsolete, 2026) a command that meets a kdamond
 * on its way out can wait for ever holding the DAMON sysfs lock, or corrupt
 * the command list: 6.17.13 hit "list_add corruption" in damon_call() in
 * vm-faults-6.17 when the daemon sent update_schemes_stats to a kdamond the
 * test had just turned off, and every DAMON sysfs file answered EBUSY from
 * then on.  Looking first leaves only a stop that lands between the look
 * and the write.
 */
int damon_state_cmd(struct damon_io *io, unsigned idx, const char *cmd);

/* Write "commit" to kdamond idx's state, then read state back: "off" means
 * the kernel refused the commit and stopped the kdamond (before 6.14 the
 * write does not say so): -ESRCH, io->failed_path names the state file.
 * Best effort: the kdamond may still be stopping when state is read, and a
 * read that fails is not an error; the next supervision pass sees it off. */
int damon_commit_cmd(struct damon_io *io, unsigned idx);

/* Write only quotas/bytes (kd->scheme.quota_bytes, the daemon controller's
 * value) and commit it; the tuned intervals survive. */
int damon_set_quota(struct damon_io *io, unsigned idx, const struct plan_kdamond *kd);

/* Write the files of kd's migration scheme that the exchange sets at run
 * time (nr_accesses bounds, young filter, quotas/bytes; kd->hist.n > 0)
 * and commit, keeping the tuned intervals. */
int damon_set_control(struct damon_io *io, unsigned idx, const struct plan_kdamond *kd);

/* Write only the goal current_value (USER_INPUT goals) of scheme `scheme`,
 * then commit_schemes_quota_goals. */
int damon_feed_goal(struct damon_io *io, unsigned idx, unsigned scheme, uint64_t current_value);

/* Read back what damon_stage() wrote and compare with kd.  Returns 0 when
 * equal, 1 on drift (what[] names the first file that differs, with the
 * found and expected values), or -errno.  Tuned sample_us/aggr_us are not
 * compared when intervals_goal is on.  The files the exchange sets at run
 * time (damon_set_control: the migration scheme's nr_accesses bounds and its
 * filters) are compared only with `ctl`, which holds what is in the kernel:
 * kd's scheme with the bounds and young filter last committed. */
int damon_check_drift(struct damon_io *io, unsigned idx, const struct plan_kdamond *kd,
		      const struct plan_kdamond *ctl,
		      char *what, size_t whatlen);

struct scheme_stats {
	uint64_t nr_tried, sz_tried, nr_applied, sz_applied, qt_exceeds;
	uint64_t effective_bytes;
	uint64_t sample_us, aggr_us; /* tuned intervals */
};
/* Ask the kernel to refresh (update_schemes_stats, update_schemes_effective_quotas,
 * update_tuned_intervals, each if available) and read scheme 0. With
 * refresh_ms on, pass refresh=false to only read the files. */
int damon_read_stats(struct damon_io *io, unsigned idx, bool intervals_goal, bool refresh,
		     struct scheme_stats *ret);

/* Read scheme 0's sz_tried and sz_applied, and with ret_passed its
 * sz_ops_filter_passed (6.14 and later).  With `refresh`, after an
 * update_schemes_stats command (kernels without refresh_ms, or a kdamond
 * whose refresh_ms is off); without, as the files are (refresh_ms keeps
 * them current, on 6.17 up to tens of seconds late: see damon_set_quota).
 * All or nothing. */
int damon_read_charge(struct damon_io *io, unsigned idx, bool refresh, uint64_t *ret_tried,
		      uint64_t *ret_applied, uint64_t *ret_passed);

/* Read the sz_tried of the n histogram schemes (1..n, plan.h) into
 * ret_tried[0..n-1] and the intervals as the files are, after an
 * update_schemes_stats with `refresh`.  All or nothing. */
int damon_read_hist(struct damon_io *io, unsigned idx, unsigned n, bool refresh, uint64_t *ret_tried,
		    uint64_t *ret_sample_us, uint64_t *ret_aggr_us);

/* Kdamond directory path "sys/kernel/mm/damon/admin/kdamonds/<idx>". */
int damon_kdamond_dir(unsigned idx, char *buf, size_t size);
