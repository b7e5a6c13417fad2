/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The [cgroup] rules while deciding (pure): what each rule becomes on this
 * kernel and whether its cgroup was found, said at start; what changed when
 * a cgroup comes, goes, is re-created or crosses its fast_share; and the
 * fast_share goals the daemon feeds on kernels without node_memcg_used_bp.
 */
#include <inttypes.h>
#include <stdio.h>
#include <syslog.h>

#include "decide.h"
#include "decide_internal.h"

static const char *share_text(unsigned bp, char *buf, size_t n)
{
	snprintf(buf, n, "%u.%02u%%", bp / 100, bp % 100);
	return buf;
}

void say_cgroup_rules(const struct decide_input *in, struct decision *d)
{
	const struct config *c = in->cfg;
	char text[1024];

	if (c && c->nr_cgroups && in->cgv && in->cgv->err)
		say(d, LOG_WARNING, "no cgroup v2 hierarchy at /sys/fs/cgroup (no cgroup.controllers): "
		    "every [cgroup] rule waits for its cgroup");
	for (unsigned i = 0; c && i < c->nr_cgroups; i++) {
		const struct cgroup_state *s = in->cgv && i < in->cgv->n ? &in->cgv->cg[i] : NULL;

		if (cgroup_rule_describe(&c->cgroups[i], in->feat, text, sizeof(text)) == 0)
			say(d, LOG_INFO, "%s", text);
		if (s && s->present)
			say(d, LOG_INFO, "cgroup %s: found at %s (id %" PRIu64 ")", c->cgroups[i].name, s->path,
			    s->id);
		else
			say(d, LOG_WARNING, "cgroup %s: not found (no cgroup of that name with a memory "
			    "controller below /sys/fs/cgroup); its rules wait for it", c->cgroups[i].name);
	}
}

void say_cgroup_changes(const struct decide_input *in, struct decision *d)
{
	const struct config *c = in->cfg;
	char a[16], b[16];

	for (unsigned i = 0; i < c->nr_cgroups && i < in->cgv->n && i < in->next_cgv->n; i++) {
		const struct cgroup_state *o = &in->cgv->cg[i], *n = &in->next_cgv->cg[i];
		const struct cgroup_rule *r = &c->cgroups[i];

		if (!o->present && n->present)
			say(d, LOG_NOTICE, "cgroup %s appeared at %s: committing its rules", r->name, n->path);
		else if (o->present && !n->present)
			say(d, LOG_NOTICE, "cgroup %s is gone: its filters are removed and its rules wait "
			    "for it", r->name);
		else if (o->present && o->id != n->id)
			say(d, LOG_NOTICE, "cgroup %s was created again (id %" PRIu64 " -> %" PRIu64 "): "
			    "committing its rules for the new one", r->name, o->id, n->id);
		if (!n->present)
			continue;
		if (!o->shielded && n->shielded)
			say(d, LOG_INFO, "cgroup %s: %s of its memory on the fast tier, below its fast_share "
			    "%s: demotion skips it", r->name, share_text(n->share_bp, a, sizeof(a)),
			    share_text(r->fast_share_bp, b, sizeof(b)));
		else if (o->shielded && !n->shielded)
			say(d, LOG_INFO, "cgroup %s: %s of its memory on the fast tier, its fast_share %s "
			    "reached: demotion may take its cold pages again", r->name,
			    share_text(n->share_bp, a, sizeof(a)), share_text(r->fast_share_bp, b, sizeof(b)));
		if (o->present && o->id == n->id && o->planned_total != n->planned_total && r->fast_share_bp)
			say(d, LOG_INFO, "cgroup %s: now %" PRIu64 " MiB; its fast_share goal follows", r->name,
			    n->planned_total >> 20);
	}
}

void feed_cgroup_goals(const struct decide_input *in, struct decision *d, unsigned i)
{
	const struct plan_kdamond *kd = &in->plan->kd[i];
	uint64_t total, free;

	if (!(in->obs->got & OBS_CGROUPS) || !observe_node_mem(in->obs, kd->to_nid, &total, &free))
		return;
	for (unsigned j = 0; j < kd->nr_cg; j++) {
		const struct plan_cg_scheme *g = &kd->cg[j];
		const struct obs_cgroup *o;
		struct action *a;

		if (!g->armed || g->goal.metric != GOAL_USER_INPUT || g->rule >= in->cfg->nr_cgroups)
			continue;
		o = cgroup_obs_of(&in->obs->cg, in->cfg->cgroups[g->rule].name);
		if (!o || !o->present || o->stat_err)
			continue;
		a = act(d, ACT_FEED_GOAL);
		a->kd = i;
		a->scheme = 1 + kd->hist.n + j;
		a->cg = j;
		a->value = cgroup_goal_current_bp(o, g->goal.nid, total);
		a->limit = LIMIT_SUPERVISE;
		snprintf(a->what, sizeof(a->what), "feed kdamond %u's fast_share goal for cgroup %s",
			 d->rt.rec.first + i, in->cfg->cgroups[g->rule].name);
	}
}
