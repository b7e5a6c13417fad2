/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * The reconciler: an explicit state machine driven by a timer.
 *
 *   DISCOVER -> PLAN -> APPLY -> RUNNING <-> REPAIR
 *        ^                          |
 *        +---- BLOCKED (backoff) <--+        RELOAD (SIGHUP) -> PLAN
 *   any -> TEARDOWN (SIGTERM) -> DONE
 *
 * DISCOVER acquires topology, features and conflicts; PLAN computes the
 * desired state; APPLY stages and starts our kdamonds; RUNNING compares
 * observation with the plan every period; REPAIR commits or restarts what
 * drifted; BLOCKED waits with exponential backoff while something outside
 * our control (a foreign kdamond, an exclusive in-kernel DAMON user) stops us.
 */
#include <stdbool.h>
#include <stdint.h>

#include "config.h"
#include "damon_sysfs.h"
#include "kernel_features.h"
#include "owner.h"
#include "plan.h"
#include "status.h"
#include "tiers.h"
#include "topology.h"

enum rc_state {
	RC_DISCOVER,
	RC_PLAN,
	RC_APPLY,
	RC_RUNNING,
	RC_REPAIR,
	RC_BLOCKED,
	RC_RELOAD,
	RC_TEARDOWN,
	RC_DONE,
};

/* Documented exit codes (README, damon-tierd(8)). */
enum {
	EXIT_OK = 0,
	EXIT_FAILURE_RUNTIME = 1,
	EXIT_USAGE = 2,           /* bad command line or config */
	EXIT_KERNEL = 3,          /* the kernel lacks a required DAMON feature */
	EXIT_CONFLICT = 4,        /* an active in-kernel DAMON policy blocks us */
	EXIT_INSTANCE = 5,        /* another damon-tierd holds the lock */
	EXIT_NOTHING_TO_TIER = 77 /* one node or one tier: nothing to do */
};

struct reconciler {
	/* inputs */
	int root;
	const char *config_path;   /* --config FILE, or NULL: the search path and drop-ins */
	struct config cfg;
	bool once;          /* apply, verify, leave running, exit */
	bool dry_run;       /* print writes, exit */
	struct damon_io io;

	/* acquired / decided */
	struct topology *topo;
	struct tier_map tiers;
	struct damon_features feat;
	struct damon_modules mods;
	struct plan *plan;
	uint64_t plan_mem_total[TOPO_MAX_NODES]; /* MemTotal per node when planned */

	/* ownership */
	bool owns;                 /* kdamonds [first, first+count) are ours */
	struct owner_record rec;
	bool paused_damon_stat;
	bool adopting;             /* kdamonds of a previous run found running */
	bool no_adopt;             /* they did not match: replace them */
	int numa_balancing_saved;  /* mode we changed, to restore; -1 = untouched */
	int numa_balancing_mode;   /* as found; -1 = unknown */

	/* machine */
	enum rc_state state;
	bool reload_requested, stop_requested;
	unsigned attempts;         /* consecutive failures, for backoff */
	uint64_t blocked_until_usec;
	char blocked_reason[512];
	int exit_code;
	uint64_t next_status_usec;
	uint64_t next_verify_usec;  /* next full read-back (daemon.verify_interval) */
	struct status_sample samples[PLAN_MAX_KDAMONDS];      /* previous period */
	struct status_sample line_samples[PLAN_MAX_KDAMONDS]; /* previous status line */
	struct scheme_stats stats[PLAN_MAX_KDAMONDS];
	unsigned publish_turn;     /* kdamond refreshed by command this period */
	uint64_t repairs, errors;
	/* daemon quota controller: false until its value is known to be in
	 * the kdamond's quotas/bytes (adopted kdamonds carry the last run's) */
	bool ctl_synced[PLAN_MAX_KDAMONDS];
	/* started but not armed yet (damon_arm failed): committed again at
	 * the next period */
	bool disarmed[PLAN_MAX_KDAMONDS];
	uint64_t ctl_commits;
	/* its yield gain (quota_ctl.h) and the charge counters it was
	 * measured from; tried = UINT64_MAX: not read yet */
	unsigned ctl_gain[PLAN_MAX_KDAMONDS];
	unsigned ctl_ticks[PLAN_MAX_KDAMONDS]; /* since its last commit */
	uint64_t ctl_tried[PLAN_MAX_KDAMONDS], ctl_applied[PLAN_MAX_KDAMONDS];
};

/* Set up with defaults; cfg is copied.  Returns 0 or -ENOMEM. */
int reconcile_init(struct reconciler *r, int root, const char *config_path,
		   const struct config *cfg);
void reconcile_free(struct reconciler *r);

/*
 * Advance the machine by as many transitions as can be taken now.  Returns
 * the number of microseconds until it wants to run again.  When r->state is
 * RC_DONE the caller exits with r->exit_code.
 */
uint64_t reconcile_step(struct reconciler *r, uint64_t now_usec);

/*
 * The daemon quota controller's tick (quota_ctl.h): while running with
 * [quota] tuner = daemon, re-read the fast nodes' free memory and commit the
 * quotas that changed enough.  Does nothing in other states.  Returns the
 * microseconds until the next tick.
 */
uint64_t reconcile_control(struct reconciler *r, uint64_t now_usec);

void reconcile_request_reload(struct reconciler *r);
void reconcile_request_stop(struct reconciler *r);

const char *rc_state_name(enum rc_state s);

/* Pure: backoff delay for the n-th consecutive failure (1 s doubling to 5 min). */
uint64_t reconcile_backoff_usec(unsigned attempts);
