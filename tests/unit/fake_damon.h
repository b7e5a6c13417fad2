/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * A fake DAMON sysfs that behaves like the kernel's, on a real directory tree
 * (e.g. a copy of tests/fixtures/vm-2node).  It is the unit tests' binding of
 * the I/O seams io_write()/io_read() (sysfs_io.h), so the code under test
 * runs unchanged:
 *
 *  - writing kdamonds/nr_kdamonds, contexts/nr_contexts, targets/nr_targets,
 *    regions/nr_regions, schemes/nr_schemes, goals/nr_goals, * /nr_filters,
 *    dests/nr_dests (7.3: probes/nr_probes) removes all children and creates
 *    N fresh ones with the kernel's default values (per kernel profile), even
 *    for an unchanged value; nr_kdamonds answers -EBUSY while any kdamond is
 *    on; nr_contexts accepts 0/1; nr_probes 0..4; negative -> -EINVAL;
 *  - values are parsed like the kernel (kstrtoul base 0: "0x10", "010" = 8;
 *    garbage -> -EINVAL, overflow -> -ERANGE; booleans via kstrtobool) and
 *    read back normalised ("010" reads "8", "1" reads "Y");
 *  - keyword files (operations, action, type, target_metric, metric,
 *    goal_tuner) reject unknown words with -EINVAL; filter types depend on
 *    the directory (core_filters: addr/target, ops_filters: ops types,
 *    filters: all) and on the profile;
 *  - read-only files (pid, avail_operations, effective_bytes, stats/ except
 *    max_nr_snapshots, tried_regions/) give -EACCES, missing files -ENOENT,
 *    directories -EISDIR;
 *  - state: "on" (-EBUSY if on; -EINVAL if nr_contexts != 1 or the config is
 *    invalid: ops not in avail_operations, paddr with > 1 target, regions with
 *    start > end or overlapping/unsorted, min_nr_regions < 3 or > max,
 *    sample > aggr, bad intervals_goal; -ENOMEM for an addr filter with
 *    end < start or a hugepage_size filter with min > max, as the kernel;
 *    then -EBUSY if an exclusive module is enabled).  A failed "on" destroys
 *    the previous context, so later commands get -EINVAL as if never started.
 *    "off" (-EINVAL if never started, else 0).  "commit" and the update
 *    commands: never started -> -EINVAL, stopped -> -ECANCELED; an invalid
 *    commit leaves the running config (6.12: stops the kdamond and the
 *    write returns 0, as before 6.14).  "update_schemes_stats" copies the
 *    fake's stats into stats/ *, "update_schemes_effective_quotas" into
 *    quotas/effective_bytes, "update_tuned_intervals" the running (tuned)
 *    sample/aggr into intervals/; "clear_schemes_tried_regions" works without
 *    a running kdamond (kernel behaviour).  Reading state gives on/off;
 *  - "on" resets the fake's stats to 0 (a fresh kernel context), so call
 *    fake_damon_set_stats() after the code under test started the kdamond;
 *    commit keeps the stats of schemes that survive by index;
 *  - refresh_ms != 0 on a running kdamond (6.17+): every read below that
 *    kdamond first performs the three refreshes, as the kernel's periodic
 *    refresh would have done by then (it overwrites staged sample_us/aggr_us);
 *  - pid reads the fake kdamond pid (distinct per start, from 10000), -1 when off;
 *  - writes to sys/module/damon_* /parameters/enabled are stored as Y/N
 *    (Y while a sysfs kdamond runs -> -EBUSY, like the exclusive start);
 *  - faults can be injected per path suffix.  Every write the code under test
 *    issues is counted, including ones answered with an injected fault.
 * Paths outside these are written with io_file_write().  Calls on another
 * root than the one given to fake_damon_new() are passed through untouched.
 */
#include <stdbool.h>
#include <stdint.h>

enum fake_profile {
	FAKE_KERNEL_6_12, /* goals+target_metric, filters (no ops_filters, no allow), no nid, no intervals_goal, no refresh_ms */
	FAKE_KERNEL_6_17, /* everything up to refresh_ms/dests; no addr_unit */
	FAKE_KERNEL_7_3,  /* addr_unit, goal_tuner, pause, probes, collapse, ... */
};

struct fake_damon;

/* Install on `root_dir` (a writable tree).  Creates sys/kernel/mm/damon/admin
 * with nr_kdamonds 0 if it does not exist, and sys/module/<m>/parameters/enabled = N
 * unless set, for damon_reclaim, damon_lru_sort and (6.17/7.3) damon_stat.  Kdamonds
 * already in the tree whose state reads "on" count as running (foreign).
 * Takes over the seams until fake_damon_free().  Aborts on a tree it cannot
 * set up. */
struct fake_damon *fake_damon_new(const char *root_dir, enum fake_profile profile);
/* Give the seams back to the files and free (does not remove the tree).
 * NULL is fine. */
void fake_damon_free(struct fake_damon *fd);

/* Inject: the next `count` writes (or reads, if read=true) of a path ending
 * in `suffix` fail with -err.  count < 0: forever.  "suffix=value" matches only
 * writes of value (e.g. "kdamonds/1/state=commit").  Multiple faults may be set;
 * the oldest matching one fires first. */
void fake_damon_fail(struct fake_damon *fd, const char *suffix, bool read, int err, int count);
void fake_damon_clear_faults(struct fake_damon *fd);

/* Exclusive in-kernel users: while enabled, "on" fails with -EBUSY. Sets the
 * module's parameters/enabled file too (creating it). name: "damon_stat",
 * "damon_reclaim", "damon_lru_sort", "damon_sample_mtier", ... */
void fake_damon_set_module(struct fake_damon *fd, const char *name, bool enabled);

/* Keyword support override, e.g. ("type", "young", false) for a kernel
 * without the young filter, or ("action", "collapse", true).  kind is the
 * file name: operations, action, type, target_metric, metric, goal_tuner.
 * For "type" the override applies to every filter directory. */
void fake_damon_set_keyword_supported(struct fake_damon *fd, const char *kind,
				      const char *word, bool supported);

/* Simulate the outside world. */
void fake_damon_kill(struct fake_damon *fd, unsigned kdamond);          /* kdamond exits by itself */
/* Set sz_applied and effective_bytes of every scheme of the kdamond. */
void fake_damon_set_stats(struct fake_damon *fd, unsigned kdamond, uint64_t sz_applied,
			  uint64_t effective_bytes);
/* A foreign tool started kdamond idx (running, with pid). */
void fake_damon_start_foreign(struct fake_damon *fd, unsigned kdamond);

/* What the kernel context holds for one scheme (copied to sysfs on request). */
struct fake_scheme_stats {
	uint64_t nr_tried, sz_tried, nr_applied, sz_applied;
	uint64_t sz_ops_filter_passed, qt_exceeds, nr_snapshots;
	uint64_t effective_bytes; /* quotas/effective_bytes */
	uint64_t tried_bytes;     /* tried_regions/total_bytes */
};
#define FAKE_MAX_SCHEMES 32
void fake_damon_set_scheme_stats(struct fake_damon *fd, unsigned kdamond, unsigned scheme,
				 const struct fake_scheme_stats *stats);
/* The intervals auto-tuning arrived at these (read back by update_tuned_intervals). */
void fake_damon_set_tuned_intervals(struct fake_damon *fd, unsigned kdamond,
				    uint64_t sample_us, uint64_t aggr_us);

/* 6.17's refresh_ms has one deadline for all kdamonds: the one that polls
 * first (samples fastest) takes every period and the others' files stay as
 * they were.  missed = true: kdamond's files are refreshed only by the
 * update_* state commands. */
void fake_damon_miss_refresh(struct fake_damon *fd, unsigned kdamond, bool missed);

/* Introspection for assertions. */
bool fake_damon_running(struct fake_damon *fd, unsigned kdamond);
/* Whether kdamond's last "on" (before 7.3) let scheme 0's first apply pass run
 * without a quota: its access pattern could match a new region (age/min 0). */
bool fake_damon_unlimited_first_pass(struct fake_damon *fd, unsigned kdamond);
int64_t fake_damon_pid(struct fake_damon *fd, unsigned kdamond);
unsigned fake_damon_count(struct fake_damon *fd, const char *cmd); /* state commands received */
unsigned fake_damon_count_kdamond(struct fake_damon *fd, unsigned kdamond, const char *cmd);
unsigned fake_damon_nr_writes(struct fake_damon *fd, const char *suffix); /* writes to paths ending in suffix */
/* The value of the last write to a path ending in suffix (as written), or NULL. */
const char *fake_damon_last_write(struct fake_damon *fd, const char *suffix);
/* Forget all counted writes/commands (e.g. after the set-up phase of a test). */
void fake_damon_reset_counts(struct fake_damon *fd);
/* The result (0 or -errno) of the last state write of kdamond idx; 1 if none. */
int fake_damon_last_result(struct fake_damon *fd, unsigned kdamond);
const char *fake_damon_root(struct fake_damon *fd);
