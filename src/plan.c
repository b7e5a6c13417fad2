/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The planner: pure functions from (topology, tiers, features, config) to the
 * desired DAMON state.  This is where the self-calibration lives, because it
 * depends only on node sizes and watermarks, never on I/O.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cgroup_rules.h"
#include "plan.h"

#define BP_MAX 10000u
#define U32_MAX_VAL 4294967295ull

const char *plan_role_name(enum plan_role r)
{
	return r == ROLE_PROMOTE ? "promote" : "demote";
}

const char *goal_metric_name(enum goal_metric m)
{
	switch (m) {
	case GOAL_NODE_MEM_USED_BP:
		return "node_mem_used_bp";
	case GOAL_NODE_MEM_FREE_BP:
		return "node_mem_free_bp";
	case GOAL_NODE_MEMCG_USED_BP:
		return "node_memcg_used_bp";
	case GOAL_USER_INPUT:
	default:
		return "user_input";
	}
}

static unsigned bp_of(uint64_t part, uint64_t whole)
{
	uint64_t bp;

	if (whole == 0)
		return BP_MAX;
	/* Round up: a goal must never end below what the watermarks need. */
	bp = (part * BP_MAX + whole - 1) / whole;
	return bp > BP_MAX ? BP_MAX : (unsigned)bp;
}

/*
 * Why the seed's 9970/50 do not work everywhere: promotion allocates on the
 * fast node with __GFP_THISNODE and no direct reclaim, so it only succeeds
 * while the node's free memory is above the zone watermarks.  On a 512 MiB
 * node the high watermarks are ~7% of the node, far above the seed's 0.5%
 * free goal: the demotion goal is then met only when promotion has already
 * failed.  So the free goal must cover the high watermarks (so kswapd stays
 * asleep and promotion finds pages) plus one promotion quota window (what
 * promotion may allocate before demotion reacts).  The used goal keeps the
 * seed's small overlap with the free goal (9970 + 50 = 100.2%): promotion
 * always pushes slightly past the point where demotion starts, which is what
 * makes hot/cold exchange continue on a full fast node.
 */
void plan_calibrate(const struct numa_node *fast, uint64_t quota_bytes, uint64_t window_us,
		    const struct config *c, struct plan_calibration *ret)
{
	struct plan_calibration k = {
		.nid = fast->nid,
		.cfg_used_bp = c->promote_used.bp,
		.cfg_free_bp = c->demote_free.bp,
		.used_auto = c->promote_used.automatic,
		.free_auto = c->demote_free.automatic,
		.wmark_high = fast->have_wmarks ? fast->wmark_high : 0,
		.wmark_err = fast->have_wmarks ? 0 : fast->wmark_err ? fast->wmark_err : -ENODATA,
		.quota_bytes = quota_bytes,
		.mem_total = fast->mem_total,
	};
	unsigned overlap = 0, need;

	if (c->promote_used.bp + c->demote_free.bp > BP_MAX)
		overlap = c->promote_used.bp + c->demote_free.bp - BP_MAX;

	k.eff_free_bp = k.cfg_free_bp;
	if (k.free_auto) {
		need = bp_of(k.wmark_high + quota_bytes, fast->mem_total);
		/* Never ask for more than half the node free: beyond that the
		 * fast tier is wasted, whatever the watermarks say. */
		if (need > BP_MAX / 2)
			need = BP_MAX / 2;
		if (need > k.eff_free_bp)
			k.eff_free_bp = need;
	}

	k.eff_used_bp = k.cfg_used_bp;
	if (k.used_auto) {
		unsigned cap = BP_MAX - k.eff_free_bp + overlap;

		/*
		 * The daemon's controller exchanges (free goal - (100% - used
		 * goal)) bytes per tick on a full node: with the seed's 0.2%
		 * overlap that is 1 MiB per second on a 512 MiB node.  Let
		 * promotion use the headroom down to the watermarks plus a
		 * quarter window instead: 3/4 of a window per tick.
		 */
		if (c->quota_tuner == QUOTA_TUNER_DAEMON) {
			unsigned fill = BP_MAX - bp_of(k.wmark_high + quota_bytes / 4, fast->mem_total);

			if (fill > cap)
				cap = fill;
		}
		if (cap < k.eff_used_bp)
			k.eff_used_bp = cap;
	}
	qctl_levels(fast->mem_total, k.eff_used_bp, k.eff_free_bp, quota_bytes, window_us, &k.levels);
	*ret = k;
}

/*
 * The quota goal tuner starts every scheme at a one-byte quota and can at
 * most double it per quota window (by 2 - score, i.e. x1.36 at 64% of the
 * used goal): ~28 windows to reach one page, ~63 to reach 200 MiB.  With the
 * seed's 1 s window that is a minute before the first hot page moves, and
 * longer when the sampling interval is tuned up (a window ends only at an
 * apply pass, at most once per sampling interval).  So unless the operator
 * pinned them, the window and the apply interval are shortened to
 * AUTO_WINDOW_US and the configured size is scaled down with them: the same
 * MiB/s, reached ten times sooner.
 */
#define AUTO_WINDOW_US 100000ull

struct window {
	uint64_t reset_ms, apply_us, bytes;
};

static struct window calibrate_window(const struct numa_node *fast, const struct config *c)
{
	struct window w = {
		.reset_ms = c->quota_reset_interval_ms,
		.apply_us = c->apply_interval_us,
		.bytes = c->quota_bytes,
	};

	if (!config_is_set(c, CONFIG_KEY_QUOTA_RESET_INTERVAL) &&
	    w.reset_ms * 1000 > AUTO_WINDOW_US) {
		w.bytes = (uint64_t)((double)c->quota_bytes * (double)AUTO_WINDOW_US /
				     ((double)w.reset_ms * 1000.0));
		w.reset_ms = AUTO_WINDOW_US / 1000;
	}
	if (!config_is_set(c, CONFIG_KEY_QUOTA_APPLY_INTERVAL) && w.apply_us > w.reset_ms * 1000)
		w.apply_us = w.reset_ms * 1000;
	/* One window may move at most 1/32 of a small fast node: the headroom
	 * reserved for it (plan_calibrate) then stays small too. */
	if (!config_is_set(c, CONFIG_KEY_QUOTA_SIZE) && fast->mem_total / 32 < w.bytes)
		w.bytes = fast->mem_total / 32;
	/* A page multiple, or DAMON forgets where each window stopped
	 * (quota_ctl.h, QCTL_ALIGN_BYTES). */
	w.bytes = qctl_align(w.bytes);
	return w;
}

static int fill_ranges(const struct numa_node *n, struct plan_kdamond *kd, char *err, size_t errlen)
{
	if (n->nr_ranges == 0 && n->nr_blocks == 0) {
		snprintf(err, errlen,
			 "node%d has memory but no memory block links (memoryN) under "
			 "/sys/devices/system/node/node%d: its physical address ranges are unknown",
			 n->nid, n->nid);
		return -ENODATA;
	}
	if (n->nr_ranges == 0) {
		snprintf(err, errlen,
			 "node%d: none of its %u memory blocks (/sys/devices/system/node/node%d/memoryN) "
			 "is online (%u offline, %u dangling links): no physical address range to "
			 "monitor; online its memory (/sys/devices/system/memory/memoryN/state)",
			 n->nid, n->nr_blocks, n->nid, n->nr_offline, n->nr_dangling);
		return -ENODATA;
	}
	if (n->nr_ranges > PLAN_MAX_RANGES) {
		snprintf(err, errlen, "node%d has %u separate address ranges; at most %d are supported",
			 n->nid, n->nr_ranges, PLAN_MAX_RANGES);
		return -E2BIG;
	}
	kd->nr_ranges = n->nr_ranges;
	memcpy(kd->ranges, n->ranges, n->nr_ranges * sizeof(n->ranges[0]));
	return 0;
}

static void fill_monitoring(const struct damon_features *f, const struct config *c,
			    const struct window *w, struct plan_kdamond *kd)
{
	kd->sample_us = c->sample_us;
	kd->aggr_us = c->aggr_us;
	kd->update_us = 60000000; /* the kernel default; paddr ignores it */
	kd->min_nr_regions = c->min_nr_regions;
	kd->max_nr_regions = c->max_nr_regions;
	kd->refresh_ms = f->refresh_ms ? c->refresh_ms : 0;

	if (f->intervals_goal && c->intervals_goal_aggrs > 0) {
		kd->intervals_goal = true;
		kd->ig_access_bp = c->intervals_goal_access_bp;
		kd->ig_aggrs = c->intervals_goal_aggrs;
		kd->ig_min_sample_us = c->min_sample_us;
		kd->ig_max_sample_us = c->max_sample_us;
		/*
		 * The quota goal tuner takes one step per quota window, and a
		 * window can end only at an apply pass, which runs at most once
		 * per sampling interval.  Left at 10 s, an idle node's tuned
		 * sampling interval stretches every window to 10 s and the
		 * quota, which starts at one byte and at most doubles per
		 * window, needs many minutes to reach one page.  Keep the
		 * sampling interval within one quota window.
		 */
		if (!config_is_set(c, CONFIG_KEY_MONITORING_MAX_SAMPLE_INTERVAL)) {
			uint64_t win = w->reset_ms * 1000;

			if (w->apply_us > win)
				win = w->apply_us;
			if (kd->ig_max_sample_us > win)
				kd->ig_max_sample_us = win;
			/* ...but never below the configured start value: the
			 * kernel rejects a sample_us outside [min, max]. */
			if (kd->ig_max_sample_us < kd->sample_us)
				kd->ig_max_sample_us = kd->sample_us;
			if (kd->ig_max_sample_us < kd->ig_min_sample_us)
				kd->ig_max_sample_us = kd->ig_min_sample_us;
		}
	}
}

static void fill_scheme(const struct damon_features *f, const struct config *c,
			const struct plan_calibration *cal, const struct window *w,
			struct plan_kdamond *kd)
{
	struct plan_scheme *s = &kd->scheme;
	bool promote = kd->role == ROLE_PROMOTE;

	s->target_nid = kd->to_nid;
	s->action = promote ? "migrate_hot" : "migrate_cold";
	s->sz_min = 0;
	s->sz_max = UINT64_MAX;
	s->age_max = U32_MAX_VAL;
	if (promote) {
		s->nr_accesses_min = c->promote_min_accesses;
		s->nr_accesses_max = U32_MAX_VAL;
		s->age_min = 0;
	} else {
		s->nr_accesses_min = 0;
		s->nr_accesses_max = c->demote_max_accesses;
		/*
		 * With the daemon's controller the demotion quota is what the
		 * fast node lacks below its free goal, and under a quota DAMON
		 * applies a scheme to the coldest regions first (by access
		 * frequency and age), skipping young pages.  Limiting demotion
		 * to regions with no access at all then only hurts: on a node
		 * full of lukewarm data (every region sampled accessed once in
		 * a while) nothing qualifies, the node stays full and promotion
		 * stops (the benchmark's grow workload).  Unless pinned, every
		 * region qualifies and the quota picks the coldest.
		 */
		if (c->quota_tuner == QUOTA_TUNER_DAEMON && !config_is_set(c, CONFIG_KEY_DEMOTE_MAX_ACCESSES))
			s->nr_accesses_max = U32_MAX_VAL;
		/* age counts aggregation intervals */
		s->age_min = c->aggr_us ? c->demote_min_age_us / c->aggr_us : 0;
	}
	s->apply_interval_us = f->apply_interval ? w->apply_us : 0;
	s->quota_bytes = w->bytes;
	s->quota_cap = w->bytes;
	s->quota_ms = c->quota_ms;
	s->quota_reset_ms = w->reset_ms;
	s->weight_sz = c->weight_sz;
	s->weight_nr_accesses = c->weight_nr_accesses;
	s->weight_age = c->weight_age;

	if (c->quota_tuner == QUOTA_TUNER_DAEMON) {
		/* No kernel goal: the controller sets the quota at run time
		 * (decide.h); until it does, the scheme does nothing. */
		s->daemon_quota = true;
		s->quota_bytes = QCTL_STOP_BYTES;
	} else if (f->quota_goals) {
		s->goal.enabled = true;
		s->goal_temporal = c->quota_tuner == QUOTA_TUNER_TEMPORAL;
		s->goal.nid = promote ? kd->to_nid : kd->from_nid;
		s->goal.target_value = promote ? cal->eff_used_bp : cal->eff_free_bp;
		s->goal.user_metric = promote ? GOAL_NODE_MEM_USED_BP : GOAL_NODE_MEM_FREE_BP;
		/* Before 6.16 the kernel cannot measure a node itself: the
		 * daemon computes the same ratio and feeds it as user_input. */
		s->goal.metric = f->node_metrics ? s->goal.user_metric : GOAL_USER_INPUT;
	}

	if (f->young_filter && (promote ? c->promote_young_filter : c->demote_young_filter)) {
		s->young_filter = true;
		s->young_allow = promote;
		s->filter_dir = f->ops_filters ? FILTER_DIR_OPS : FILTER_DIR_LEGACY;
	}
}

const struct plan_calibration *plan_calibration_of(const struct plan *p, int nid)
{
	for (unsigned i = 0; i < p->nr_calib; i++)
		if (p->calib[i].nid == nid)
			return &p->calib[i];
	return NULL;
}

static struct plan_calibration *calib_for(struct plan *p, const struct numa_node *fast,
					  const struct window *w, const struct config *c)
{
	const struct plan_calibration *have = plan_calibration_of(p, fast->nid);

	if (have)
		return &p->calib[have - p->calib];
	plan_calibrate(fast, w->bytes, w->reset_ms * 1000, c, &p->calib[p->nr_calib]);
	return &p->calib[p->nr_calib++];
}

static int add_pair(struct plan *p, const struct topology *t, const struct damon_features *f,
		    const struct config *c, enum plan_role role, const struct migration_pair *mp,
		    char *err, size_t errlen)
{
	const struct numa_node *from = topology_node(t, mp->from_nid);
	const struct numa_node *to = topology_node(t, mp->to_nid);
	const struct numa_node *fast;
	struct plan_kdamond *kd;
	struct plan_calibration *cal;
	struct window w;
	int r;

	if (!from || !to) {
		snprintf(err, errlen, "tier map names node%d->node%d, which is not in the topology",
			 mp->from_nid, mp->to_nid);
		return -EINVAL;
	}
	if (p->nr_kdamonds >= PLAN_MAX_KDAMONDS) {
		snprintf(err, errlen, "this machine needs more than %d kdamonds", PLAN_MAX_KDAMONDS);
		return -E2BIG;
	}
	fast = role == ROLE_PROMOTE ? to : from;
	w = calibrate_window(fast, c);
	cal = calib_for(p, fast, &w, c);

	kd = &p->kd[p->nr_kdamonds];
	memset(kd, 0, sizeof(*kd));
	kd->role = role;
	kd->from_nid = mp->from_nid;
	kd->to_nid = mp->to_nid;
	r = fill_ranges(from, kd, err, errlen);
	if (r < 0)
		return r;
	fill_monitoring(f, c, &w, kd);
	fill_scheme(f, c, cal, &w, kd);
	if (kd->scheme.daemon_quota && c->exchange)
		hot_edges_for((uint32_t)(kd->sample_us ? kd->aggr_us / kd->sample_us : 1), &kd->hist);
	p->nr_kdamonds++;
	return 0;
}

int plan_build(const struct topology *t, const struct tier_map *m,
	       const struct damon_features *f, const struct config *c,
	       struct plan *ret, char *err, size_t errlen)
{
	return plan_build_cg(t, m, f, c, NULL, ret, err, errlen);
}

int plan_build_cg(const struct topology *t, const struct tier_map *m,
		  const struct damon_features *f, const struct config *c,
		  const struct cgroup_view *cg, struct plan *ret, char *err, size_t errlen)
{
	/* Built on the side: *ret is untouched on failure. */
	static struct plan p;
	int r;

	memset(&p, 0, sizeof(p));
	if (c->quota_tuner == QUOTA_TUNER_TEMPORAL && !f->goal_tuner) {
		snprintf(err, errlen, "[quota] tuner = temporal needs DAMON's quotas/goal_tuner "
			 "(Linux 7.1 or later); use daemon or kernel");
		return -EOPNOTSUPP;
	}
	if (m->nr_promote == 0 && m->nr_demote == 0) {
		snprintf(err, errlen, "no tier boundary: nothing to migrate");
		return -ENODEV;
	}
	/* Demote kdamonds first: they make the room that promotion needs,
	 * and their order is the order in which we start them. */
	for (unsigned i = 0; i < m->nr_demote; i++) {
		r = add_pair(&p, t, f, c, ROLE_DEMOTE, &m->demote[i], err, errlen);
		if (r < 0)
			return r;
	}
	for (unsigned i = 0; i < m->nr_promote; i++) {
		r = add_pair(&p, t, f, c, ROLE_PROMOTE, &m->promote[i], err, errlen);
		if (r < 0)
			return r;
	}
	cgroup_rules_apply(&p, c, f, t, cg);
	memcpy(ret, &p, sizeof(p));
	return 0;
}

/* Canonical text of everything a commit would change (not current_value). */
static int kd_canon(const struct plan_kdamond *k, char *buf, size_t size)
{
	const struct plan_scheme *s = &k->scheme;
	size_t off;
	int n;

	n = snprintf(buf, size,
		     "%d %d %d|%" PRIu64 " %" PRIu64 " %" PRIu64 "|%d %u %u %" PRIu64 " %" PRIu64
		     "|%u %u|%s %d %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
		     "|%" PRIu64 "|%" PRIu64 " %" PRIu64 " %" PRIu64 " %u %u %u|%d %d %" PRIu64 " %d"
		     "|%d %d %d|%" PRIu64 "|%d|",
		     k->role, k->from_nid, k->to_nid, k->sample_us, k->aggr_us, k->update_us,
		     k->intervals_goal, k->ig_access_bp, k->ig_aggrs, k->ig_min_sample_us,
		     k->ig_max_sample_us, k->min_nr_regions, k->max_nr_regions, s->action,
		     s->target_nid, s->sz_min, s->sz_max, s->nr_accesses_min, s->nr_accesses_max,
		     s->age_min, s->age_max, s->apply_interval_us,
		     s->daemon_quota ? s->quota_cap | (UINT64_C(1) << 63) : s->quota_bytes, s->quota_ms,
		     s->quota_reset_ms, s->weight_sz, s->weight_nr_accesses, s->weight_age,
		     s->goal.enabled, s->goal.metric, s->goal.target_value, s->goal.nid,
		     s->filter_dir, s->young_filter, s->young_allow, k->refresh_ms, s->goal_temporal);
	if (n < 0 || (size_t)n >= size)
		return -ENOBUFS;
	off = (size_t)n;
	for (unsigned i = 0; i < k->hist.n; i++) {
		n = snprintf(buf + off, size - off, "h%u,", k->hist.lo[i]);
		if (n < 0 || (size_t)n >= size - off)
			return -ENOBUFS;
		off += (size_t)n;
	}
	n = snprintf(buf + off, size - off, "f%u/%u,", s->fail_charge_num, s->fail_charge_denom);
	if (n < 0 || (size_t)n >= size - off)
		return -ENOBUFS;
	off += (size_t)n;
	for (unsigned i = 0; i < s->nr_memcg; i++) {
		n = snprintf(buf + off, size - off, "m%d%s,", s->memcg[i].matching, s->memcg[i].path);
		if (n < 0 || (size_t)n >= size - off)
			return -ENOBUFS;
		off += (size_t)n;
	}
	for (unsigned i = 0; i < k->nr_cg; i++) {
		const struct plan_cg_scheme *g = &k->cg[i];

		n = snprintf(buf + off, size - off, "c%d %u %s %" PRIu64 " %d %d %" PRIu64 " %s,", g->armed,
			     g->rule, g->path, g->quota_bytes, g->goal.enabled, g->goal.metric,
			     g->goal.target_value, g->goal.path);
		if (n < 0 || (size_t)n >= size - off)
			return -ENOBUFS;
		off += (size_t)n;
	}
	for (unsigned i = 0; i < k->nr_ranges; i++) {
		n = snprintf(buf + off, size - off, "%" PRIx64 "-%" PRIx64 ",",
			     k->ranges[i].start, k->ranges[i].end);
		if (n < 0 || (size_t)n >= size - off)
			return -ENOBUFS;
		off += (size_t)n;
	}
	return (int)off;
}

#define CANON_MAX (1024 + PLAN_MAX_RANGES * 40 + CONFIG_MAX_CGROUPS * 2 * (CGROUP_NAME_MAX + 80))

uint64_t plan_hash(const struct plan *p)
{
	uint64_t h = 1469598103934665603ull;
	char buf[CANON_MAX];

	for (unsigned i = 0; i < p->nr_kdamonds; i++) {
		int n = kd_canon(&p->kd[i], buf, sizeof(buf));

		for (int j = 0; j < n; j++) {
			h ^= (unsigned char)buf[j];
			h *= 1099511628211ull;
		}
		h ^= '#';
		h *= 1099511628211ull;
	}
	return h;
}

void plan_kdamond_with_control(const struct plan_kdamond *kd, uint32_t nr_min, uint32_t nr_max,
			       bool young, struct plan_kdamond *ret)
{
	*ret = *kd;
	ret->scheme.nr_accesses_min = nr_min;
	ret->scheme.nr_accesses_max = nr_max;
	ret->scheme.young_filter = kd->scheme.young_filter && young;
}

bool plan_kdamond_equal(const struct plan_kdamond *a, const struct plan_kdamond *b)
{
	char ba[CANON_MAX], bb[CANON_MAX];
	int na = kd_canon(a, ba, sizeof(ba)), nb = kd_canon(b, bb, sizeof(bb));

	return na >= 0 && na == nb && memcmp(ba, bb, (size_t)na) == 0;
}

bool plan_same_shape(const struct plan *a, const struct plan *b)
{
	if (a->nr_kdamonds != b->nr_kdamonds)
		return false;
	for (unsigned i = 0; i < a->nr_kdamonds; i++)
		if (a->kd[i].role != b->kd[i].role || a->kd[i].from_nid != b->kd[i].from_nid ||
		    a->kd[i].to_nid != b->kd[i].to_nid)
			return false;
	return true;
}

int plan_describe_kdamond(const struct plan_kdamond *kd, char *buf, size_t size)
{
	const struct plan_scheme *s = &kd->scheme;
	int n;

	if (s->daemon_quota)
		n = snprintf(buf, size, "%s node%d -> node%d (%s, %u regions, quota set by damon-tierd "
				       "every %llu s, up to %" PRIu64 " MiB per %" PRIu64 " ms)",
			     plan_role_name(kd->role), kd->from_nid, kd->to_nid, s->action, kd->nr_ranges,
			     QCTL_TICK_US / 1000000, s->quota_cap >> 20, s->quota_reset_ms);
	else
		n = snprintf(buf, size, "%s node%d -> node%d (%s, %u regions, goal %s%s %.2f%% on node%d, "
				       "quota %" PRIu64 " MiB per %" PRIu64 " ms)",
			     plan_role_name(kd->role), kd->from_nid, kd->to_nid, s->action, kd->nr_ranges,
			     s->goal.enabled ? goal_metric_name(s->goal.user_metric) : "none",
			     s->goal.metric == GOAL_USER_INPUT ? " (fed as user_input)" : "",
			     (double)s->goal.target_value / 100.0, s->goal.nid, s->quota_bytes >> 20,
			     s->quota_reset_ms);
	return n < 0 || (size_t)n >= size ? -ENOBUFS : 0;
}

int plan_calibration_warning(const struct plan *p, unsigned i, char *buf, size_t size)
{
	const struct plan_calibration *c = &p->calib[i];
	int n;

	if (i >= p->nr_calib || !c->wmark_err || !c->free_auto)
		return -ENOENT;
	n = snprintf(buf, size, "node%d: %s: its auto goals leave out the zone high watermarks, so the "
			       "free goal is %.2f%% instead of also covering them, and promotion into node%d "
			       "can fail while its free memory is below them; pin [demote] free_goal to set "
			       "it yourself",
		     c->nid, c->wmark_err == -ENOENT ? "/proc/zoneinfo is missing"
		     : "/proc/zoneinfo lists no zone of this node", c->eff_free_bp / 100.0, c->nid);
	return n < 0 || (size_t)n >= size ? -ENOBUFS : 0;
}

int plan_describe_calibration(const struct plan *p, unsigned i, unsigned line, char *buf,
			      size_t size)
{
	const struct plan_calibration *c = &p->calib[i];
	char wmarks[32] = "unknown";
	int n;

	if (i >= p->nr_calib)
		return -ENOENT;
	if (!c->wmark_err)
		snprintf(wmarks, sizeof(wmarks), "%" PRIu64 " MiB", c->wmark_high >> 20);
	if (line == 0)
		n = snprintf(buf, size, "node%d goals: free %.2f%% (configured %s%.2f%%), used %.2f%% "
				       "(configured %s%.2f%%); zone high watermarks %s, "
				       "promotion quota %" PRIu64 " MiB per window, node %" PRIu64 " MiB",
			     c->nid, c->eff_free_bp / 100.0, c->free_auto ? "auto, seed " : "",
			     c->cfg_free_bp / 100.0, c->eff_used_bp / 100.0,
			     c->used_auto ? "auto, seed " : "", c->cfg_used_bp / 100.0, wmarks,
			     c->quota_bytes >> 20, c->mem_total >> 20);
	else if (line == 1 && p->nr_kdamonds > 0 && p->kd[0].scheme.daemon_quota)
		n = snprintf(buf, size, "node%d quota controller: demotion keeps %" PRIu64 " MiB free, "
				       "promotion may fill down to %" PRIu64 " MiB free",
			     c->nid, c->levels.target >> 20, c->levels.floor >> 20);
	else
		return -ENOENT;
	return n < 0 || (size_t)n >= size ? -ENOBUFS : 0;
}
