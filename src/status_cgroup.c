/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The [cgroup] rules in the status (pure): each rule's cgroup, where it was
 * found, its share of the fast tier, and what the rule does to it now, for
 * the text, the JSON and the Prometheus textfile.  Cgroup names are
 * validated to hold no quote, backslash or blank (config_cgroup_name_check),
 * so they go into JSON strings and label values as they are.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cgroup_rules.h"
#include "status.h"
#include "textbuf.h"

void status_build_cgroups(const struct status_input *in, struct status_snapshot *s)
{
	const struct config *c = in->cfg;

	s->nr_cgroups = 0;
	for (unsigned i = 0; c && i < c->nr_cgroups && i < CONFIG_MAX_CGROUPS; i++) {
		const struct cgroup_rule *r = &c->cgroups[i];
		const struct cgroup_state *v = in->cgv && i < in->cgv->n ? &in->cgv->cg[i] : NULL;
		struct status_cgroup *o = &s->cg[s->nr_cgroups++];

		memset(o, 0, sizeof(*o));
		memcpy(o->name, r->name, sizeof(o->name));
		o->protect = r->protect;
		o->promote = r->promote;
		o->fast_share_goal_bp = r->fast_share_bp;
		o->goal = !r->fast_share_bp ? NULL : in->feat && in->feat->memcg_goals ? "kernel" : "daemon";
		if (!v || !v->present)
			continue;
		o->present = true;
		memcpy(o->path, v->path, sizeof(o->path));
		o->have_share = v->have_share;
		o->total = v->total;
		o->fast = v->fast;
		o->share_bp = v->share_bp;
		o->demotion_skipped = r->protect || (r->fast_share_bp && v->shielded);
	}
}

void status_text_cgroups(struct textbuf *t, const struct status_snapshot *s)
{
	if (s->nr_cgroups)
		tb_put(t, "cgroups:\n");
	for (unsigned i = 0; i < s->nr_cgroups; i++) {
		const struct status_cgroup *c = &s->cg[i];

		tb_put(t, "  %s", c->name);
		if (!c->present) {
			tb_put(t, ": not found; its rules wait for it\n");
			continue;
		}
		if (strcmp(c->path, c->name) != 0)
			tb_put(t, " (at %s)", c->path);
		if (c->have_share) {
			tb_put(t, ": %u.%02u%% of ", c->share_bp / 100, c->share_bp % 100);
			tb_bytes(t, c->total);
			tb_put(t, " on the fast tier");
		} else {
			tb_put(t, ": share of the fast tier unknown");
		}
		if (c->fast_share_goal_bp)
			tb_put(t, ", fast_share %u.%02u%% (goal %s)", c->fast_share_goal_bp / 100,
			       c->fast_share_goal_bp % 100,
			       strcmp(c->goal, "kernel") == 0 ? "measured by the kernel" : "fed by the daemon");
		if (c->demotion_skipped)
			tb_put(t, "; not demoted");
		if (!c->promote)
			tb_put(t, "; not promoted");
		tb_put(t, "\n");
	}
}

void status_json_cgroups(struct textbuf *t, const struct status_snapshot *s)
{
	tb_put(t, ",\"cgroups\":[");
	for (unsigned i = 0; i < s->nr_cgroups; i++) {
		const struct status_cgroup *c = &s->cg[i];

		tb_put(t, "%s{\"cgroup\":\"%s\",\"present\":%s,\"path\":", i ? "," : "", c->name,
		       c->present ? "true" : "false");
		if (c->present)
			tb_put(t, "\"%s\"", c->path);
		else
			tb_put(t, "null");
		tb_put(t, ",\"protect\":%s,\"promote\":%s,\"fast_share_goal\":", c->protect ? "true" : "false",
		       c->promote ? "true" : "false");
		if (c->fast_share_goal_bp)
			tb_put(t, "%.4f,\"goal\":\"%s\"", c->fast_share_goal_bp / 10000.0, c->goal);
		else
			tb_put(t, "null,\"goal\":null");
		tb_put(t, ",\"fast_share\":");
		if (c->present && c->have_share)
			tb_put(t, "%.4f,\"fast_bytes\":%" PRIu64 ",\"total_bytes\":%" PRIu64, c->share_bp / 10000.0,
			       c->fast, c->total);
		else
			tb_put(t, "null,\"fast_bytes\":null,\"total_bytes\":null");
		tb_put(t, ",\"demotion_skipped\":%s}", c->demotion_skipped ? "true" : "false");
	}
	tb_put(t, "]");
}

void status_prometheus_cgroups(struct textbuf *t, const struct status_snapshot *s)
{
	if (!s->nr_cgroups)
		return;
	tb_put(t, "# HELP damon_tierd_cgroup_present 1 if the cgroup of a [cgroup] rule exists with a memory "
		  "controller.\n# TYPE damon_tierd_cgroup_present gauge\n");
	for (unsigned i = 0; i < s->nr_cgroups; i++)
		tb_put(t, "damon_tierd_cgroup_present{cgroup=\"%s\"} %d\n", s->cg[i].name, s->cg[i].present);
	tb_put(t, "# HELP damon_tierd_cgroup_fast_share_ratio Share of the cgroup's memory on the fast tier.\n"
		  "# TYPE damon_tierd_cgroup_fast_share_ratio gauge\n");
	for (unsigned i = 0; i < s->nr_cgroups; i++)
		if (s->cg[i].present && s->cg[i].have_share)
			tb_put(t, "damon_tierd_cgroup_fast_share_ratio{cgroup=\"%s\"} %.4f\n", s->cg[i].name,
			       s->cg[i].share_bp / 10000.0);
	tb_put(t, "# HELP damon_tierd_cgroup_fast_share_goal_ratio The rule's fast_share.\n"
		  "# TYPE damon_tierd_cgroup_fast_share_goal_ratio gauge\n");
	for (unsigned i = 0; i < s->nr_cgroups; i++)
		if (s->cg[i].fast_share_goal_bp)
			tb_put(t, "damon_tierd_cgroup_fast_share_goal_ratio{cgroup=\"%s\"} %.4f\n", s->cg[i].name,
			       s->cg[i].fast_share_goal_bp / 10000.0);
	tb_put(t, "# HELP damon_tierd_cgroup_memory_bytes The cgroup's memory (anon and file), in all and "
		  "on the fast tier.\n# TYPE damon_tierd_cgroup_memory_bytes gauge\n");
	for (unsigned i = 0; i < s->nr_cgroups; i++)
		if (s->cg[i].present && s->cg[i].have_share)
			tb_put(t, "damon_tierd_cgroup_memory_bytes{cgroup=\"%s\",tier=\"all\"} %" PRIu64 "\n"
				  "damon_tierd_cgroup_memory_bytes{cgroup=\"%s\",tier=\"fast\"} %" PRIu64 "\n",
			       s->cg[i].name, s->cg[i].total, s->cg[i].name, s->cg[i].fast);
	tb_put(t, "# HELP damon_tierd_cgroup_demotion_skipped 1 while demotion skips the cgroup's pages "
		  "(protect, or below its fast_share).\n# TYPE damon_tierd_cgroup_demotion_skipped gauge\n");
	for (unsigned i = 0; i < s->nr_cgroups; i++)
		if (s->cg[i].present)
			tb_put(t, "damon_tierd_cgroup_demotion_skipped{cgroup=\"%s\"} %d\n", s->cg[i].name,
			       s->cg[i].demotion_skipped);
}
