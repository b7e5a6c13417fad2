/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * Decide (pure): topology + tier map + kernel features + config -> the full
 * desired DAMON state, one kdamond per migration pair.  Nothing here does I/O;
 * everything is unit tested against golden plans.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "hotness.h"
#include "kernel_features.h"
#include "quota_ctl.h"
#include "tiers.h"
#include "topology.h"

#define PLAN_MAX_KDAMONDS 32
#define PLAN_MAX_RANGES 64

enum plan_role { ROLE_PROMOTE, ROLE_DEMOTE };
enum goal_metric { GOAL_NODE_MEM_USED_BP, GOAL_NODE_MEM_FREE_BP, GOAL_USER_INPUT,
		   GOAL_NODE_MEMCG_USED_BP };
enum filter_dir { FILTER_DIR_NONE, FILTER_DIR_OPS, FILTER_DIR_LEGACY };

struct plan_goal {
	bool enabled;
	enum goal_metric metric;       /* USER_INPUT: the daemon feeds current_value */
	enum goal_metric user_metric;  /* with USER_INPUT: what the daemon computes */
	char path[CGROUP_NAME_MAX];    /* NODE_MEMCG_USED_BP: the cgroup's path */
	uint64_t target_value;         /* bp */
	int nid;
	/* USER_INPUT only: the value staged with the plan, which the daemon
	 * feeds at run time (decide.h); 0 in a built plan */
	uint64_t current_value;
};

/* A memcg filter (cgroup_rules.h), staged ahead of the young filter. */
struct plan_memcg_filter {
	char path[CGROUP_NAME_MAX];    /* memcg_path: below the cgroup2 mount */
	bool matching;                 /* Y: the cgroup's pages; N: everyone else's */
	/* Always "reject" (allow N): before 6.14 every filter rejects what
	 * it matches, so the same filter means the same everywhere. */
};

#define PLAN_MAX_MEMCG CONFIG_MAX_CGROUPS

struct plan_scheme {
	const char *action;            /* "migrate_hot" / "migrate_cold" */
	int target_nid;
	uint64_t sz_min, sz_max;
	uint64_t nr_accesses_min, nr_accesses_max;
	uint64_t age_min, age_max;
	uint64_t apply_interval_us;    /* 0 when the kernel lacks it */
	/* With daemon_quota the controller sets the quota at run time
	 * (decide.h, struct kd_runtime): quota_bytes is QCTL_STOP_BYTES here
	 * and quota_cap its upper bound; plan_hash() and plan_kdamond_equal()
	 * look at the cap only.  What is staged is the runtime's value. */
	bool daemon_quota;
	uint64_t quota_bytes, quota_cap, quota_ms, quota_reset_ms;
	unsigned weight_sz, weight_nr_accesses, weight_age;
	struct plan_goal goal;
	bool goal_temporal;            /* quotas/goal_tuner = temporal (7.1) */
	enum filter_dir filter_dir;
	bool young_filter;
	bool young_allow;              /* promote: allow young; demote: reject young */
	/* memcg reject filters ahead of the young filter (filter_dir is then
	 * set even without the young filter) */
	unsigned nr_memcg;
	struct plan_memcg_filter memcg[PLAN_MAX_MEMCG];
	/* quotas/fail_charge_{num,denom} (7.2): bytes a scheme tried and did
	 * not apply are charged num/denom of their size; 0/0 charges them in
	 * full (cgroup_rules.h says when it is set) */
	unsigned fail_charge_num, fail_charge_denom;
};

/* A fast_share rule's own promotion scheme (cgroup_rules.h): scheme
 * 1 + hist.n + i of a promotion kdamond, with the migration scheme's
 * access pattern, weights and window, a memcg filter that rejects every
 * other cgroup's pages (then the young filter), and a goal.  Not armed:
 * its cgroup does not exist, and it matches no region (age/min never). */
struct plan_cg_scheme {
	bool armed;
	unsigned rule;                 /* index in config.cgroups */
	char path[CGROUP_NAME_MAX];
	uint64_t quota_bytes;
	struct plan_goal goal;         /* NODE_MEMCG_USED_BP or USER_INPUT, on to_nid */
	/* The migration scheme's access bounds and young filter as planned.
	 * The exchange moves the migration scheme's, not these: a fast_share
	 * is the operator's guarantee, rationed by its own goal. */
	uint32_t nr_accesses_min, nr_accesses_max;
	bool young_filter;
};

struct plan_kdamond {
	enum plan_role role;
	int from_nid, to_nid;
	uint64_t sample_us, aggr_us, update_us;
	bool intervals_goal;
	unsigned ig_access_bp, ig_aggrs;
	uint64_t ig_min_sample_us, ig_max_sample_us;
	unsigned min_nr_regions, max_nr_regions;
	unsigned nr_ranges;
	struct addr_range ranges[PLAN_MAX_RANGES];
	struct plan_scheme scheme;
	uint64_t refresh_ms;           /* 0 when the kernel lacks it */
	/* With the ranked exchange (exchange.h): schemes 1..hist.n are `stat`
	 * schemes, one per access-count bucket, whose sz_tried make the node's
	 * hotness histogram (hotness.h); the migration scheme's nr_accesses
	 * bounds and young filter are then set at run time (decide.h).
	 * hist.n = 0: no exchange. */
	struct hot_edges hist;
	/* After the histogram schemes: one per fast_share rule (promotion
	 * kdamonds only), in rule order. */
	unsigned nr_cg;
	struct plan_cg_scheme cg[CONFIG_MAX_CGROUPS];
};

/* Configured versus effective goals of one fast node, for the log. */
struct plan_calibration {
	int nid;
	unsigned cfg_used_bp, cfg_free_bp;
	unsigned eff_used_bp, eff_free_bp;
	bool used_auto, free_auto;
	uint64_t wmark_high, quota_bytes, mem_total;
	int wmark_err;       /* 0, or why wmark_high is unknown (numa_node) */
	/* The daemon controller's levels of this node (quota_ctl.h). */
	struct qctl_levels levels;
};

struct plan {
	unsigned nr_kdamonds;
	struct plan_kdamond kd[PLAN_MAX_KDAMONDS];
	unsigned nr_calib;
	struct plan_calibration calib[TOPO_MAX_NODES];
};

/*
 * Pure: the effective goals for fast node `fast`.  With auto goals the free
 * goal is raised to the zone high watermarks plus one promotion quota, and the
 * used goal lowered to keep the seed's overlap with it (kernel tuner) or to
 * let promotion fill the node down to the watermarks plus a quarter quota
 * (daemon tuner); pinned values are kept.
 */
void plan_calibrate(const struct numa_node *fast, uint64_t quota_bytes, uint64_t window_us,
		    const struct config *c, struct plan_calibration *ret);

/* Build the plan.  -ENODEV when the tier map has no pairs, -E2BIG when the
 * machine needs more kdamonds or ranges than supported, -EOPNOTSUPP when
 * the configuration needs a DAMON feature the kernel lacks (err says which). */
int plan_build(const struct topology *t, const struct tier_map *m,
	       const struct damon_features *f, const struct config *c,
	       struct plan *ret, char *err, size_t errlen);
/* The same with the [cgroup] rules of c applied for the cgroups of view cg
 * (cgroup_rules.h; NULL: none exists). */
struct cgroup_view;
int plan_build_cg(const struct topology *t, const struct tier_map *m,
		  const struct damon_features *f, const struct config *c,
		  const struct cgroup_view *cg, struct plan *ret, char *err, size_t errlen);

/* The calibration of fast node nid in p, or NULL if p has none. */
const struct plan_calibration *plan_calibration_of(const struct plan *p, int nid);

/* FNV-1a over the parameters that the kernel sees (not current_value, not
 * a daemon quota's value). */
uint64_t plan_hash(const struct plan *p);

/* Pure: kd as the exchange runs it (damon_set_control): its migration
 * scheme's nr_accesses bounds nr_min..nr_max, and its young filter only
 * where kd has one and `young` keeps it. */
void plan_kdamond_with_control(const struct plan_kdamond *kd, uint32_t nr_min, uint32_t nr_max,
			       bool young, struct plan_kdamond *ret);

/* True if a and b differ in anything a commit would change. */
bool plan_kdamond_equal(const struct plan_kdamond *a, const struct plan_kdamond *b);
bool plan_same_shape(const struct plan *a, const struct plan *b);

const char *plan_role_name(enum plan_role r);

/* Pure: "demote node0 -> node1 (migrate_cold, 1 regions, ...)" for the log.
 * 0 or -ENOBUFS. */
int plan_describe_kdamond(const struct plan_kdamond *kd, char *buf, size_t size);
/* Pure: line `line` (0, 1, ...) of what calibration i of p means, for the
 * log; -ENOENT past the last line or calibration, -ENOBUFS. */
/* Pure: the warning of calibration i of p (auto goals made without the
 * node's zone watermarks, and what that means), or -ENOENT if it needs none;
 * -ENOBUFS. */
int plan_calibration_warning(const struct plan *p, unsigned i, char *buf, size_t size);
int plan_describe_calibration(const struct plan *p, unsigned i, unsigned line, char *buf,
			      size_t size);
const char *goal_metric_name(enum goal_metric m);
