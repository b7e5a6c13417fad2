/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * Decide (pure): [cgroup NAME] rules -> DAMON memcg filters and goals.
 *
 * What a rule becomes (filters go ahead of the young filter, so the first
 * match decides on kernels with allow/reject filters, 6.14 and later; before
 * 6.14 every filter rejects what it matches, and the order does not matter):
 *   protect = yes    a memcg filter rejecting the cgroup's pages on every
 *                    demotion (migrate_cold) scheme;
 *   promote = no     the same on every promotion (migrate_hot) scheme;
 *   fast_share = S   on every promotion kdamond, a scheme of its own that
 *                    promotes only the cgroup's pages (a memcg filter
 *                    rejecting all others), sized by DAMON's goal tuner
 *                    toward the cgroup holding S of its memory on the fast
 *                    node: a node_memcg_used_bp goal where the kernel has it
 *                    (6.19), else a user_input goal the daemon feeds from
 *                    the cgroup's memory.numa_stat; and, while the daemon
 *                    measures the cgroup below S, the demotion schemes'
 *                    memcg reject filter as with protect.
 * A rule whose cgroup does not exist (or has no memory controller) adds no
 * filter and leaves its scheme matching nothing: DAMON resolves memcg paths
 * at every commit, and refuses a commit that names a missing cgroup.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "kernel_features.h"
#include "topology.h"

struct plan;

/* The cgroup of one rule as observed (observe_cgroup.c). */
struct obs_cgroup {
	char name[CGROUP_NAME_MAX];   /* the rule's name, as configured */
	bool present;                 /* a cgroup with a memory controller */
	bool no_memcg;                /* it exists, but without the memory controller */
	char path[CGROUP_NAME_MAX];   /* below the cgroup2 mount, e.g. "/system.slice/x.service" */
	uint64_t id;                  /* its directory's inode: the cgroup id */
	int stat_err;                 /* memory.numa_stat: 0 or -errno */
	uint64_t node_bytes[TOPO_MAX_NODES]; /* anon + file per node id, from memory.numa_stat */
};

struct obs_cgroups {
	int err;                      /* 0, or -ENOENT: no cgroup2 mount at sys/fs/cgroup */
	unsigned n;
	struct obs_cgroup cg[CONFIG_MAX_CGROUPS];
};

/* A rule's cgroup as the plan uses it (index = rule index in the config). */
struct cgroup_state {
	bool present;
	char path[CGROUP_NAME_MAX];
	uint64_t id;
	bool have_share;              /* the share below is measured */
	uint64_t total, fast;         /* bytes: all of it, on the fast nodes */
	unsigned share_bp;            /* fast / total */
	bool shielded;                /* fast_share: below it, demotion skips the cgroup */
	uint64_t planned_total;       /* the total the goal's target is made from */
};

struct cgroup_view {
	int err;                      /* the observation's: -ENOENT without a cgroup2 mount */
	unsigned n;
	struct cgroup_state cg[CONFIG_MAX_CGROUPS];
};

/* The shield goes up below fast_share and down this far above it. */
#define CGROUP_SHIELD_BAND_BP 200u

/*
 * Pure: the view for c's rules from observation o (may be NULL: every
 * cgroup absent) and the previous view prev (may be NULL; matched by rule
 * name, so a reload keeps what it knew).  fast_mask has bit nid set for every
 * fast node.  A goal's planned_total follows the cgroup's size once it moved
 * by more than an eighth, so a growing service does not re-commit every
 * period.
 */
void cgroup_view_next(const struct config *c, const struct obs_cgroups *o, uint64_t fast_mask,
		      const struct config *prev_cfg, const struct cgroup_view *prev,
		      struct cgroup_view *ret);

/* Pure: a and b make different plans (presence, path, id, shield, planned
 * total). */
bool cgroup_view_differs(const struct cgroup_view *a, const struct cgroup_view *b);

/* Pure: bit nid set for every node that p's kdamonds treat as fast. */
uint64_t cgroup_fast_mask(const struct plan *p);

/*
 * Pure: add c's rules to the built plan p (plan.h) for view v (NULL: every
 * cgroup absent): memcg filters on the migration schemes and one cgroup
 * scheme per fast_share rule on every promotion kdamond.  Node sizes come
 * from t.  Where the kernel has fail_charge (7.2), a scheme with a memcg
 * filter charges its quota CGROUP_FAIL_CHARGE_NUM/DENOM for the bytes it
 * tried and did not move: DAMOS tries the regions with the highest
 * priority first, and a filtered cgroup's data, rejected in every pass,
 * would otherwise use up the quota before anyone else's (a protected
 * service's idle data on demotion, a promote = no batch job's hot data on
 * promotion).  The fraction bounds what one pass may try at DENOM/NUM
 * times the quota.
 */
#define CGROUP_FAIL_CHARGE_NUM 1
#define CGROUP_FAIL_CHARGE_DENOM 32
void cgroup_rules_apply(struct plan *p, const struct config *c, const struct damon_features *f,
			const struct topology *t, const struct cgroup_view *v);

/* Pure: the goal's target for a cgroup of `total` bytes that must keep
 * share_bp of it on fast nodes of fast_total bytes, in bp of a node
 * (1..10000); 0 when total is 0. */
uint64_t cgroup_goal_target_bp(unsigned share_bp, uint64_t total, uint64_t fast_total);

/* Pure: the value the daemon feeds a user_input fast_share goal: the
 * cgroup's bytes on nid over the node's MemTotal, in bp. */
uint64_t cgroup_goal_current_bp(const struct obs_cgroup *o, int nid, uint64_t node_total);

/* Pure: what rule r becomes on a kernel with features f (NULL: not known,
 * as for --check-config), one sentence for the log.  0 or -ENOBUFS. */
int cgroup_rule_describe(const struct cgroup_rule *r, const struct damon_features *f, char *buf,
			 size_t size);

/* The observed entry of rule name in o, or NULL. */
const struct obs_cgroup *cgroup_obs_of(const struct obs_cgroups *o, const char *name);
