/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * Status: sd_notify messages and the periodic per-boundary status line.
 * The rate computations are pure.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "damon_sysfs.h"
#include "plan.h"
#include "topology.h"

/* sd_notify wrappers; silently no-ops outside systemd. */
void status_ready(const char *status);
void status_set(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void status_reloading(void);
void status_stopping(void);
void status_errno(int err);

/* Per kdamond counters remembered between two status lines. */
struct status_sample {
	uint64_t sz_applied;
	uint64_t at_usec;
	bool valid;
};

/* Pure: MiB/s between two samples (0 when either is invalid or the counter
 * went backwards, i.e. the kdamond was restarted). */
double status_rate_mib_s(const struct status_sample *prev, const struct status_sample *cur);

/*
 * Pure: one status line for the boundary whose demote kdamond is `demote`
 * and promote kdamond `promote` (either may be NULL).
 */
int status_format_boundary(char *buf, size_t size, const struct numa_node *fast,
			   const struct plan_kdamond *promote, const struct scheme_stats *pst,
			   double promote_mib_s,
			   const struct plan_kdamond *demote, const struct scheme_stats *dst,
			   double demote_mib_s);
