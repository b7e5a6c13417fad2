/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * The reconciler: the state machine of decide.h (enum rc_state), driven by
 * one timer.  Each step observes (observe.h), decides (decide.h) and acts
 * (actuate.h) as often as the states it passes through allow, then says
 * when it wants to run again: at the next period, controller tick, status
 * line or the end of a backoff, whichever comes first.  It owns what lives
 * between ticks -- the config, topology, features, the running plan, the
 * runtime, the status history -- and hands it to the others read-only.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "config.h"
#include "decide.h"
#include "plan.h"

struct reconcile_options {
	int root;                  /* --sysfs-root, opened (sysfs_io.h) */
	const char *config_path;   /* --config FILE, or NULL: the search path and drop-ins */
	bool once;                 /* apply, leave the kdamonds running, exit */
	FILE *dry_run;             /* non-NULL: --dry-run, the writes are printed there */
};

struct reconciler;

/*
 * A reconciler in RC_DISCOVER with a copy of cfg.  With --once, a daemon
 * quota controller is replaced by the kernel's goal tuner (nothing stays
 * behind to run it), with a warning when the config asked for it.
 * Returns 0 or -ENOMEM; *ret untouched on failure.
 */
int reconcile_new(const struct reconcile_options *o, const struct config *cfg,
		  struct reconciler **ret);
void reconcile_free(struct reconciler *r);

/*
 * Advance the machine by as many transitions as can be taken now.  Returns
 * the microseconds until it wants to run again, 0 once it is done (see
 * reconcile_exit_code()).  now_usec is CLOCK_MONOTONIC.
 */
uint64_t reconcile_step(struct reconciler *r, uint64_t now_usec);

/* Asked for by SIGHUP and SIGTERM; taken at the next step. */
void reconcile_request_reload(struct reconciler *r);
void reconcile_request_stop(struct reconciler *r);

enum rc_state reconcile_state(const struct reconciler *r);
/* The exit status once the state is RC_DONE (exit_codes.h). */
int reconcile_exit_code(const struct reconciler *r);

/* Read-only views, for tests and inspection. */
const struct runtime *reconcile_runtime(const struct reconciler *r);
const struct plan *reconcile_plan(const struct reconciler *r); /* NULL before PLAN */
const struct config *reconcile_config(const struct reconciler *r);

/* Tests: the sleep of the DAMON sysfs I/O (EBUSY retries, the arming wait). */
void reconcile_set_sleep(struct reconciler *r, void (*fn)(uint64_t usec, void *userdata),
			 void *userdata);
