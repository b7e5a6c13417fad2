/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * A fake DAMON sysfs that behaves like the kernel's, on a real directory tree
 * (e.g. a copy of tests/fixtures/vm-2node).  It hooks sysfs_io (io_set_hooks)
 * so the code under test does plain io_write()/io_read() calls:
 *
 *  - writing kdamonds/nr_kdamonds, contexts/nr_contexts, targets/nr_targets,
 *    regions/nr_regions, schemes/nr_schemes, goals/nr_goals, */nr_filters,
 *    dests/nr_dests removes all children and creates N fresh ones with the
 *    kernel's default values (per kernel profile), even for an unchanged value;
 *    nr_kdamonds answers -EBUSY while any kdamond is on; nr_contexts accepts 0/1;
 *  - keyword files (operations, action, type, target_metric, metric) reject
 *    unknown words with -EINVAL; filter type "young" only where the profile has it;
 *  - state: "on" (-EBUSY if on or if an exclusive module is enabled, -EINVAL
 *    if nr_contexts != 1 or the config is invalid: paddr with !=1 target,
 *    min_nr_regions < 3, sample > aggr, bad intervals_goal), "off", "commit"
 *    (-EINVAL when not running... as the kernel: never-started -> EINVAL,
 *    stopped -> ECANCELED), "update_schemes_stats" (copies the fake's stats
 *    into stats/*), "update_schemes_effective_quotas", "update_tuned_intervals",
 *    "commit_schemes_quota_goals"; reading state gives on/off;
 *  - pid reads the fake kdamond pid, -1 when off;
 *  - faults can be injected per path suffix.
 */
#include <stdbool.h>
#include <stdint.h>

enum fake_profile {
	FAKE_KERNEL_6_12, /* goals+target_metric, filters (no ops_filters, no allow), no nid, no intervals_goal, no refresh_ms */
	FAKE_KERNEL_6_17, /* everything up to refresh_ms/dests; no addr_unit */
	FAKE_KERNEL_7_3,  /* addr_unit, goal_tuner, pause, ... */
};

struct fake_damon;

/* Install on `root_dir` (a writable tree).  Creates sys/kernel/mm/damon/admin
 * with nr_kdamonds 0 if it does not exist, and sys/module/damon_stat/parameters/enabled
 * per profile (6.17/7.3 have damon_stat, enabled=N unless set).  Hooks io. */
struct fake_damon *fake_damon_new(const char *root_dir, enum fake_profile profile);
/* Unhook and free (does not remove the tree). */
void fake_damon_free(struct fake_damon *fd);

/* Inject: the next `count` writes (or reads, if read=true) of a path ending
 * in `suffix` fail with -err.  count < 0: forever.  Multiple faults may be set. */
void fake_damon_fail(struct fake_damon *fd, const char *suffix, bool read, int err, int count);
void fake_damon_clear_faults(struct fake_damon *fd);

/* Exclusive in-kernel users: while enabled, "on" fails with -EBUSY. Sets the
 * module's parameters/enabled file too. name: "damon_stat", "damon_reclaim", "damon_lru_sort". */
void fake_damon_set_module(struct fake_damon *fd, const char *name, bool enabled);

/* Simulate the outside world. */
void fake_damon_kill(struct fake_damon *fd, unsigned kdamond);          /* kdamond exits by itself */
void fake_damon_set_stats(struct fake_damon *fd, unsigned kdamond, uint64_t sz_applied,
			  uint64_t effective_bytes);
/* A foreign tool started kdamond idx (running, with pid). */
void fake_damon_start_foreign(struct fake_damon *fd, unsigned kdamond);

/* Introspection for assertions. */
bool fake_damon_running(struct fake_damon *fd, unsigned kdamond);
int64_t fake_damon_pid(struct fake_damon *fd, unsigned kdamond);
unsigned fake_damon_count(struct fake_damon *fd, const char *cmd); /* state commands received */
unsigned fake_damon_nr_writes(struct fake_damon *fd, const char *suffix); /* writes to paths ending in suffix */
/* The last "commit"/"on" snapshot of kdamond idx's tree was valid. */
const char *fake_damon_root(struct fake_damon *fd);
