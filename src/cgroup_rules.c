/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * [cgroup NAME] rules into memcg filters, cgroup schemes and goals (pure;
 * what each rule means is in cgroup_rules.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cgroup_rules.h"
#include "plan.h"

const struct obs_cgroup *cgroup_obs_of(const struct obs_cgroups *o, const char *name)
{
	for (unsigned i = 0; o && !o->err && i < o->n; i++)
		if (strcmp(o->cg[i].name, name) == 0)
			return &o->cg[i];
	return NULL;
}

static const struct cgroup_state *prev_of(const struct config *prev_cfg,
					  const struct cgroup_view *prev, const char *name)
{
	for (unsigned i = 0; prev_cfg && prev && i < prev->n && i < prev_cfg->nr_cgroups; i++)
		if (strcmp(prev_cfg->cgroups[i].name, name) == 0)
			return &prev->cg[i];
	return NULL;
}

void cgroup_view_next(const struct config *c, const struct obs_cgroups *o, uint64_t fast_mask,
		      const struct config *prev_cfg, const struct cgroup_view *prev,
		      struct cgroup_view *ret)
{
	struct cgroup_view v;

	memset(&v, 0, sizeof(v));
	v.n = c->nr_cgroups;
	v.err = o ? o->err : prev ? prev->err : 0;
	for (unsigned i = 0; i < c->nr_cgroups; i++) {
		const struct cgroup_rule *r = &c->cgroups[i];
		const struct cgroup_state *was = prev_of(prev_cfg, prev, r->name);
		const struct obs_cgroup *oc = cgroup_obs_of(o, r->name);
		struct cgroup_state *s = &v.cg[i];

		if (!oc) {
			/* Not observed (yet): what was known stays. */
			if (was)
				*s = *was;
			continue;
		}
		if (!oc->present)
			continue;
		s->present = true;
		memcpy(s->path, oc->path, sizeof(s->path));
		s->id = oc->id;
		if (oc->stat_err == 0) {
			for (unsigned nid = 0; nid < TOPO_MAX_NODES; nid++) {
				s->total += oc->node_bytes[nid];
				if (nid < 64 && (fast_mask >> nid & 1))
					s->fast += oc->node_bytes[nid];
			}
			s->have_share = s->total > 0;
			s->share_bp = s->total ? (unsigned)(s->fast * 10000 / s->total) : 0;
		}
		/* A new cgroup (same name, new id) starts over. */
		bool same = was && was->present && was->id == s->id;

		s->planned_total = same ? was->planned_total : 0;
		if (s->have_share && (s->planned_total == 0 || s->total > s->planned_total + s->planned_total / 8 ||
				      s->total < s->planned_total - s->planned_total / 8))
			s->planned_total = s->total;
		s->shielded = same && was->shielded;
		if (r->fast_share_bp && s->have_share) {
			if (s->share_bp < r->fast_share_bp)
				s->shielded = true;
			else if (s->share_bp >= r->fast_share_bp + CGROUP_SHIELD_BAND_BP ||
				 s->share_bp >= 10000)
				s->shielded = false;
		}
		if (!r->fast_share_bp) {
			/* Only a fast_share goal depends on them. */
			s->shielded = false;
			s->planned_total = 0;
		}
	}
	*ret = v;
}

bool cgroup_view_differs(const struct cgroup_view *a, const struct cgroup_view *b)
{
	if (a->n != b->n)
		return true;
	for (unsigned i = 0; i < a->n; i++) {
		const struct cgroup_state *x = &a->cg[i], *y = &b->cg[i];

		if (x->present != y->present || (x->present && (strcmp(x->path, y->path) != 0 ||
								x->id != y->id || x->shielded != y->shielded ||
								x->planned_total != y->planned_total)))
			return true;
	}
	return false;
}

uint64_t cgroup_fast_mask(const struct plan *p)
{
	uint64_t m = 0;

	for (unsigned i = 0; i < p->nr_kdamonds; i++) {
		int nid = p->kd[i].role == ROLE_DEMOTE ? p->kd[i].from_nid : p->kd[i].to_nid;

		if (nid >= 0 && nid < 64)
			m |= UINT64_C(1) << nid;
	}
	return m;
}

uint64_t cgroup_goal_target_bp(unsigned share_bp, uint64_t total, uint64_t fast_total)
{
	uint64_t t;

	if (total == 0 || fast_total == 0)
		return 0;
	/* total * share_bp fits: both are far below 2^50 and 2^14. */
	t = (total / 10000 * share_bp + total % 10000 * share_bp / 10000) * 10000 / fast_total;
	if (t == 0)
		t = 1;
	return t > 10000 ? 10000 : t;
}

uint64_t cgroup_goal_current_bp(const struct obs_cgroup *o, int nid, uint64_t node_total)
{
	uint64_t b;

	if (!o || o->stat_err || nid < 0 || nid >= TOPO_MAX_NODES || node_total == 0)
		return 0;
	b = o->node_bytes[nid];
	return b >= node_total ? 10000 : b * 10000 / node_total;
}

static void add_memcg(struct plan_scheme *s, const struct damon_features *f, const char *path,
		      bool matching)
{
	struct plan_memcg_filter *m;

	if (s->nr_memcg >= PLAN_MAX_MEMCG || !(f->ops_filters || f->filters))
		return;
	m = &s->memcg[s->nr_memcg++];
	memcpy(m->path, path, sizeof(m->path));
	m->matching = matching;
	if (s->filter_dir == FILTER_DIR_NONE)
		s->filter_dir = f->ops_filters ? FILTER_DIR_OPS : FILTER_DIR_LEGACY;
	if (f->fail_charge) {
		s->fail_charge_num = CGROUP_FAIL_CHARGE_NUM;
		s->fail_charge_denom = CGROUP_FAIL_CHARGE_DENOM;
	}
}

void cgroup_rules_apply(struct plan *p, const struct config *c, const struct damon_features *f,
			const struct topology *t, const struct cgroup_view *v)
{
	uint64_t fast_mask = cgroup_fast_mask(p), fast_total = 0;

	for (unsigned i = 0; i < t->nr_nodes; i++)
		if (t->nodes[i].nid >= 0 && t->nodes[i].nid < 64 && (fast_mask >> t->nodes[i].nid & 1))
			fast_total += t->nodes[i].mem_total;

	for (unsigned k = 0; k < p->nr_kdamonds; k++) {
		struct plan_kdamond *kd = &p->kd[k];
		bool promote = kd->role == ROLE_PROMOTE;

		for (unsigned i = 0; i < c->nr_cgroups; i++) {
			const struct cgroup_rule *r = &c->cgroups[i];
			const struct cgroup_state *s = v && i < v->n ? &v->cg[i] : NULL;
			bool present = s && s->present;

			if (promote && r->fast_share_bp && kd->nr_cg < CONFIG_MAX_CGROUPS) {
				struct plan_cg_scheme *g = &kd->cg[kd->nr_cg++];
				uint64_t target = present ? cgroup_goal_target_bp(r->fast_share_bp,
										   s->planned_total, fast_total)
							  : 0;

				memset(g, 0, sizeof(*g));
				g->rule = i;
				g->quota_bytes = kd->scheme.quota_cap;
				g->nr_accesses_min = kd->scheme.nr_accesses_min;
				g->nr_accesses_max = kd->scheme.nr_accesses_max;
				g->young_filter = kd->scheme.young_filter;
				/* Without a target (size unknown) or goals the
				 * scheme would promote unbounded: not armed. */
				g->armed = present && target > 0 && f->quota_goals;
				if (!g->armed)
					continue;
				memcpy(g->path, s->path, sizeof(g->path));
				g->goal.enabled = true;
				g->goal.nid = kd->to_nid;
				g->goal.target_value = target;
				g->goal.user_metric = GOAL_NODE_MEMCG_USED_BP;
				g->goal.metric = f->memcg_goals ? GOAL_NODE_MEMCG_USED_BP : GOAL_USER_INPUT;
				if (f->memcg_goals)
					memcpy(g->goal.path, s->path, sizeof(g->goal.path));
			}
			if (!present)
				continue;
			if (promote ? !r->promote : r->protect || (r->fast_share_bp && s->shielded))
				add_memcg(&kd->scheme, f, s->path, true);
		}
	}
}

int cgroup_rule_describe(const struct cgroup_rule *r, const struct damon_features *f, char *buf,
			 size_t size)
{
	const char *order = !f ? "ahead of the young filter"
			    : f->filter_allow ? "ahead of the young filter (first match decides)"
					      : "beside the young filter (before 6.14 every filter rejects its matches)";
	size_t off = 0;
	int n;

	n = snprintf(buf, size, "cgroup %s:", r->name);
	if (n < 0 || (size_t)n >= size)
		return -ENOBUFS;
	off = (size_t)n;
#define PUT(...)                                                        \
	do {                                                            \
		n = snprintf(buf + off, size - off, __VA_ARGS__);       \
		if (n < 0 || (size_t)n >= size - off)                   \
			return -ENOBUFS;                                \
		off += (size_t)n;                                       \
	} while (0)
	if (r->protect)
		PUT(" protect: a memcg filter rejecting its pages on every demotion scheme, %s;", order);
	if (!r->promote)
		PUT(" promote = no: a memcg filter rejecting its pages on every promotion scheme, %s;", order);
	if (r->fast_share_bp) {
		PUT(" fast_share %u.%02u%%: a promotion scheme of its own per slow node (a memcg filter "
		    "rejecting other cgroups' pages, then the young filter) with ",
		    r->fast_share_bp / 100, r->fast_share_bp % 100);
		if (!f)
			PUT("a node_memcg_used_bp goal (6.19 and later) or a user_input goal the daemon "
			    "feeds from memory.numa_stat");
		else if (f->memcg_goals)
			PUT("a node_memcg_used_bp goal on the fast node (the kernel measures the cgroup)");
		else
			PUT("a user_input goal the daemon feeds from memory.numa_stat (this kernel has no "
			    "node_memcg_used_bp, 6.19)");
		PUT(", target = share x its memory / the fast nodes' memory");
		if (!r->protect)
			PUT("; below the share demotion rejects its pages too");
		PUT(";");
	}
	if (!f)
		PUT(" on 7.2 and later a filtered scheme charges its quota 1/%u for bytes it does not move "
		    "(fail_charge), elsewhere in full;", CGROUP_FAIL_CHARGE_DENOM / CGROUP_FAIL_CHARGE_NUM);
	else if (f->fail_charge)
		PUT(" a filtered scheme charges its quota 1/%u for bytes it does not move (fail_charge), so "
		    "rejected pages do not use it up;", CGROUP_FAIL_CHARGE_DENOM / CGROUP_FAIL_CHARGE_NUM);
	else
		PUT(" the pages its filters reject count against the scheme's quota in full (this kernel has "
		    "no fail_charge, 7.2);");
#undef PUT
	if (off > 0 && buf[off - 1] == ';')
		buf[off - 1] = '\0';
	return 0;
}
