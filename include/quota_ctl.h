/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * Decide (pure): the daemon's quota controller, used instead of DAMON's goal
 * tuner with [quota] tuner = daemon.
 *
 * Why not the kernel's tuner: it multiplies the quota by (2 - score) once
 * per window, starting from one byte, and the score of a node_mem goal is
 * current/target, which stays close to 1 on a fast node that is nearly at
 * its goal.  On the benchmark's gups workload (node 0 at 87.6% used against
 * an 89.7% goal) the promotion quota grew by 2.4% per window and needed
 * 110 s to reach one megabyte per window; after a goal is met it shrinks
 * just as slowly, so promotion overshoots into the watermarks.
 *
 * The controller instead sizes both quotas from the fast node's free memory
 * once per tick, between two levels derived from the goals:
 *   floor  = MemTotal - used goal: promotion may fill the node down to it;
 *   target = free goal: demotion keeps at least this much free.
 * Per tick, demotion moves the deficit below the target, and promotion may
 * use what is free above the floor plus what demotion frees in the same
 * tick.  On a full fast node with hot pages waiting on the slow node this
 * exchanges (target - floor) bytes per tick, cold out and hot in; with
 * nothing hot waiting promotion finds nothing and the node stays at the
 * target; the overshoot is bounded by one tick's allowance.
 */
#include <stdbool.h>
#include <stdint.h>

/* A quota of one byte is below DAMON's smallest region: the scheme does
 * nothing (bytes = 0 would mean "no limit"). */
#define QCTL_STOP_BYTES 1ull
#define QCTL_MIN_BYTES 4096ull
/*
 * Every other quota is a multiple of this.  Up to 6.17 (7.3 has it fixed)
 * a window whose quota has less than one page (DAMON's smallest region)
 * left is never "full" (the kernel splits the next region to zero bytes and
 * moves on), so the window never records where it stopped and the next one
 * starts again at the node's first region.  With the controller's quotas
 * (14.5 MiB = 15233408 bytes, not a page multiple) the demotion kdamond
 * tried [0, 14.5 MiB) of node 0 -- the DMA zone and the kernel image --
 * every window, for ever, and counted ~9000 tried regions a second
 * (tried_regions and stats on 6.17; the same scheme with a page-multiple
 * quota walks the whole node).  64 KiB is a multiple of the 4 KiB and
 * 64 KiB base pages.
 */
#define QCTL_ALIGN_BYTES 65536ull

/* bytes rounded down to QCTL_ALIGN_BYTES, at least one QCTL_ALIGN_BYTES. */
uint64_t qctl_align(uint64_t bytes);
/* The controller's period: short against how fast a hot set must move (the
 * target is 90% within a minute), long against a commit's cost. */
#define QCTL_TICK_US 1000000ull
/* After a failed commit (EBUSY: another DAMON sysfs user) the kernel keeps
 * the old quota, which may be far too big by now: try again sooner. */
#define QCTL_RETRY_US 100000ull

struct qctl_levels {
	uint64_t floor, target;  /* fast node free bytes, floor <= target */
	uint64_t cap;            /* most bytes per window */
	uint64_t window_us;      /* quota reset interval */
};

struct qctl_quota {
	uint64_t promote, demote; /* bytes per window; QCTL_STOP_BYTES = stopped */
};

/* The levels of a fast node of mem_total bytes with goals used_bp/free_bp. */
void qctl_levels(uint64_t mem_total, unsigned used_bp, unsigned free_bp, uint64_t cap,
		 uint64_t window_us, struct qctl_levels *ret);

/* `total` bytes spread over `windows` windows: per window, within cap and
 * aligned, or QCTL_STOP_BYTES when less than QCTL_MIN_BYTES. */
uint64_t qctl_per_window(uint64_t total, uint64_t windows, uint64_t cap);

/* The quotas for the next tick of tick_us, given the fast node's free bytes. */
void qctl_compute(const struct qctl_levels *l, uint64_t mem_free, uint64_t tick_us,
		  struct qctl_quota *ret);

/* True if a running quota `cur`, committed `ticks` ticks ago, should be
 * replaced by `next`: a start or a stop, or a change of more than a quarter
 * (the free memory moves by a few pages all the time) that is either at
 * least a factor of two or QCTL_SETTLE_TICKS after the last commit.  A commit
 * is the daemon's largest cost: the kernel rebuilds the whole context from
 * sysfs (about 10 ms of system time under TCG). */
#define QCTL_SETTLE_TICKS 3u
bool qctl_should_commit(uint64_t cur, uint64_t next, unsigned ticks);

/*
 * The kernel charges a scheme's quota for every byte it tries, migrated or
 * not, and picks the coldest regions first.  On a full fast node those are
 * free pages and kernel memory (not on the LRU, so never migrated), and the
 * young filter rejects pages used since the last check: a demotion quota of exactly the deficit moved 1.4% of what it was
 * charged on the benchmark's grow workload (3.7 GiB tried, 53 MiB demoted),
 * so the node never got below its floor and promotion never ran.
 *
 * The gain is what the kernel tries per byte it moves, measured over the
 * last tick, in 1/QCTL_GAIN_ONE units, halfway smoothed, between 1 and max:
 * the quota asks for gain times the bytes wanted.
 */
#define QCTL_GAIN_ONE 16u
#define QCTL_DEMOTE_GAIN_MAX 32u
/* Promotion wastes less (its coldest-first problem does not exist; the young
 * filter and pages already moved are its losses), and a promotion quota
 * that overshoots pushes the fast node into its watermarks: at most 4x. */
#define QCTL_PROMOTE_GAIN_MAX 4u
/* A promotion scheme whose memcg filter rejects a cgroup's pages (a
 * promote = no rule) on a kernel that charges them in full (before 7.2, no
 * fail_charge): those pages are the hottest regions and take every pass's
 * quota first, so the gain may go as high as the kernel's own remedy lets a
 * pass try (cgroup_rules.h: 1/32). */
#define QCTL_FILTERED_GAIN_MAX 32u

/*
 * Pure: what a pass that tried `tried` bytes and applied `applied` charged
 * its quota: all of it, or with fail_charge num/denom (denom > 0, 7.2)
 * the applied bytes plus num/denom of the rest.  The gain is measured
 * against this, so that a reduced charge is not made up for twice.
 */
uint64_t qctl_charged(uint64_t tried, uint64_t applied, unsigned num, unsigned denom);

/* The next gain after a tick in which the scheme tried `tried` and applied
 * `applied` bytes.  Too little tried to tell (less than a page) keeps it. */
unsigned qctl_gain_update(unsigned gain, uint64_t tried, uint64_t applied, unsigned max);

/* bytes (per window) times gain, within the cap; a stop stays a stop. */
uint64_t qctl_gain_apply(uint64_t bytes, unsigned gain, uint64_t cap);
