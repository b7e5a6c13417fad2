/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/* What decide.c, decide_running.c and decide_actions.c share (the latter
 * defines these); not an interface. */
#include <stdint.h>

#include "decide.h"

/* Append an action of `kind` (zeroed, prio LOG_INFO) and return it. */
struct action *act(struct decision *d, enum action_kind kind);
void act_text(struct action *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Append an ACT_LOG. */
void say(struct decision *d, int prio, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* ACT_BLOCK with the next backoff; d->next = RC_BLOCKED.  --once and
 * --dry-run do not wait: they log the reason as an error and exit with
 * `code` (EXIT_CONFLICT: another DAMON user; EXIT_FAILURE_RUNTIME: a read or
 * setup failed). */
void block(const struct decide_input *in, struct decision *d, int code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Warn about what the topology and tier map could do without (topology
 * notes, a memory_tiering fallback), unless the same was said last time. */
void say_topology_notes(const struct decide_input *in, const struct tier_map *m, struct decision *d);
/* Release (unless code is EXIT_OK) and ACT_EXIT; fmt may be NULL; d->next = RC_DONE. */
void exit_with(const struct decide_input *in, struct decision *d, int code, int prio,
	       const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* ACT_STOP for every kdamond of the record, with its recorded pid. */
void stop_ours(struct decision *d);
/* Give back everything we changed (nothing in a dry run). */
void release(const struct decide_input *in, struct decision *d);

uint64_t goal_value(const struct decide_input *in, const struct plan *p, unsigned i);
uint64_t initial_quota(const struct decide_input *in, const struct plan *p, unsigned i);
void reset_controller(struct kd_runtime *k);
/* rt->seen from in->topo_seen. */
void remember_topology(const struct decide_input *in, struct runtime *rt);

/* decide_running.c */
void decide_running(const struct decide_input *in, struct decision *d);
/* decide_cgroup.c: the [cgroup] rules and whether their cgroups were found,
 * for the start; what changed between in->cgv and in->next_cgv; the
 * user_input fast_share goals of kdamond i, fed from the observation. */
void say_cgroup_rules(const struct decide_input *in, struct decision *d);
void say_cgroup_changes(const struct decide_input *in, struct decision *d);
void feed_cgroup_goals(const struct decide_input *in, struct decision *d, unsigned i);
void decide_replan(const struct decide_input *in, struct decision *d);
void decide_switch(const struct decide_input *in, struct decision *d);

/* decide_control.c: the controller's tick (quota_ctl.h, exchange.h); no
 * kdamond with restarting[i] set is touched. */
void decide_control(const struct decide_input *in, struct decision *d, const bool *restarting);
