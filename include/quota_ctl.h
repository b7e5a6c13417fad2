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

/* The quotas for the next tick of tick_us, given the fast node's free bytes. */
void qctl_compute(const struct qctl_levels *l, uint64_t mem_free, uint64_t tick_us,
		  struct qctl_quota *ret);

/* True if a running quota `cur` should be replaced by `next`: a start or a
 * stop, or a change of more than a quarter (commits are not free, and the
 * free memory moves by a few pages all the time). */
bool qctl_should_commit(uint64_t cur, uint64_t next);
