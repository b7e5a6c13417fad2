/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * Act: carry out one action of a decision (decide.h) through damon_sysfs.h,
 * host_tunables.h and owner.h, and report what happened.  This is where
 * outcomes are logged, once, with the errno and the path: a success's text,
 * or "cannot <what>" for a failure that does not abort the decision (an
 * aborting failure is for the next decision to explain).
 *
 * --dry-run is this same actuator with io->dry_run set: the DAMON and host
 * writes are printed as "write PATH VALUE", nothing is written, no pid is
 * read back and no record is kept.
 */
#include <stdint.h>

#include "damon_sysfs.h"
#include "decide.h"
#include "plan.h"

struct actuator {
	struct damon_io *io;
	const char *state_dir;         /* the ownership record's directory */
	const struct plan *plan;       /* the running plan */
	const struct plan *next_plan;  /* SWITCH: the plan being switched to */
	const struct runtime *rt;      /* as settled so far (SAVE_RECORD writes its record) */
	uint64_t now;                  /* for the ratelimits */
};

/* Carry out a and fill *res (zeroed first). */
void actuate(struct actuator *x, const struct action *a, struct act_result *res);
