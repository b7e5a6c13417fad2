/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Starting a kdamond disarmed and arming it once its first quota window is
 * set up (damon_sysfs.h says why).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "damon_sysfs.h"
#include "damon_sysfs_internal.h"
#include "log.h"
#include "sysfs_io.h"

/* How long damon_arm() waits for the first quota window: the window or the
 * apply interval, whichever is longer, many times over (an apply pass also
 * waits for the sampling interval, which may be tuned up to a window), and
 * at least ARM_WAIT_MIN_US. */
#define ARM_WAIT_MIN_US 2000000ull
#define ARM_POLL_US 20000ull

static uint64_t first_window_us(const struct plan_kdamond *kd)
{
	uint64_t w = kd->scheme.quota_reset_ms * 1000, a = kd->scheme.apply_interval_us;

	if (a == 0)
		a = kd->aggr_us;
	return a > w ? a : w;
}

static uint64_t arm_wait_limit_us(const struct plan_kdamond *kd)
{
	uint64_t l = 20 * first_window_us(kd);

	return l < ARM_WAIT_MIN_US ? ARM_WAIT_MIN_US : l;
}

/* Wait until the kernel reports an effective quota for kdamond idx's scheme,
 * i.e. it has set up its first quota window.  -ETIMEDOUT after the limit. */
static int wait_first_window(struct damon_io *io, unsigned idx, const struct plan_kdamond *kd)
{
	uint64_t waited = 0, esz = 0;
	char path[192];
	int r;

	if (!io->feat.effective_bytes) {
		/* Nothing to ask: two windows are enough. */
		damon_sleep(io, 2 * first_window_us(kd));
		return 0;
	}
	r = io_path(path, sizeof(path),
		    DAMON_KDAMONDS "/%u/contexts/0/schemes/0/quotas/effective_bytes", idx);
	if (r < 0)
		return r;
	for (;;) {
		r = damon_state_cmd(io, idx, "update_schemes_effective_quotas");
		if (r < 0)
			return r;
		r = io_read_u64(io->root, path, &esz);
		if (r < 0 || esz > 0 || waited >= arm_wait_limit_us(kd))
			break;
		damon_sleep(io, ARM_POLL_US);
		waited += ARM_POLL_US;
	}
	if (r == 0 && esz == 0)
		r = -ETIMEDOUT;
	if (r < 0)
		snprintf(io->failed_path, sizeof(io->failed_path), "/%s", path);
	return r;
}

int damon_start(struct damon_io *io, unsigned idx, const struct plan_kdamond *kd)
{
	int r = damon_stage_disarmed(io, idx, kd);

	if (r < 0)
		return r;
	return damon_state_cmd(io, idx, "on");
}

int damon_arm(struct damon_io *io, unsigned idx, const struct plan_kdamond *kd)
{
	int r = io->dry_run ? 0 : wait_first_window(io, idx, kd);

	if (r == -ETIMEDOUT)
		log_warning("kdamond %u: the kernel reported no effective quota in %s within %" PRIu64
			    " ms; arming its scheme anyway", idx, io->failed_path,
			    arm_wait_limit_us(kd) / 1000);
	else if (r < 0)
		return r;
	r = damon_write_cg_arms(io, idx, kd);
	if (r < 0)
		return r;
	return damon_commit_scheme_file(io, idx, kd, "access_pattern/age/min", kd->scheme.age_min);
}
