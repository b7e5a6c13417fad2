/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * What the files of the damon_sysfs module share, and nothing else includes:
 *   damon_sysfs.c        the retried writes and reads, state commands, and
 *                        the reads of kdamond state and scheme stats;
 *   damon_sysfs_stage.c  the plan as (file, value) pairs: staging, commits,
 *                        the drift check;
 *   damon_sysfs_start.c  starting a kdamond disarmed, arming it.
 */
#include <stdint.h>

#include "damon_sysfs.h"

/* Sleep usec through io->sleep_us, or nanosleep() without one. */
void damon_sleep(struct damon_io *io, uint64_t usec);

/* Write value to path (relative to io->root); EBUSY is retried
 * io->busy_retries times with doubling delays from io->busy_base_us.  A dry
 * run prints "write /PATH VALUE" to io->dry_run instead and returns 0.
 * On failure -errno, with path in io->failed_path. */
int damon_write_retry(struct damon_io *io, const char *path, const char *value);
/* Read path into buf (io_read()), retrying EBUSY like damon_write_retry():
 * memcg_path, a goal's path, state and pid answer EBUSY while anyone holds
 * the kernel's DAMON sysfs lock, the kdamonds' periodic refresh included.
 * On failure -errno, with path in io->failed_path. */
int damon_read_retry(struct damon_io *io, const char *path, char *buf, size_t size);

/* damon_stage() of a kdamond that is off, but with the scheme's age/min
 * DAMON_AGE_NEVER: the first step of damon_start(). */
int damon_stage_disarmed(struct damon_io *io, unsigned idx, const struct plan_kdamond *kd);
/* Write the age/min of kd's armed cgroup schemes (plan.h), which
 * damon_stage_disarmed() left matching nothing; the caller commits. */
int damon_write_cg_arms(struct damon_io *io, unsigned idx, const struct plan_kdamond *kd);

/* Write `value` to one file of kdamond idx's scheme 0 (rel, under the
 * scheme's directory) and commit, keeping the tuned intervals. */
int damon_commit_scheme_file(struct damon_io *io, unsigned idx, const struct plan_kdamond *kd,
			     const char *rel, uint64_t value);
