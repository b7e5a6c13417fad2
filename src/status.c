/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "kernel_features.h"
#include "observe.h"
#include "owner.h"
#include "status.h"
#include "textbuf.h"
#include "tiers.h"

double status_rate_mib_s(const struct status_sample *prev, const struct status_sample *cur)
{
	if (!prev->valid || !cur->valid || cur->at_usec <= prev->at_usec ||
	    cur->sz_applied < prev->sz_applied)
		return 0.0;
	return (double)(cur->sz_applied - prev->sz_applied) / (1024.0 * 1024.0) /
	       ((double)(cur->at_usec - prev->at_usec) / 1e6);
}

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

/* Every format function below is a list of emit()s into a bounded buffer
 * (textbuf.h), under the names this file has always used. */
#define out textbuf
#define emit tb_put
#define out_done tb_done

static void fmt_bytes(char *buf, size_t size, uint64_t v)
{
	struct out o = { buf, size, 0, size == 0 };

	tb_bytes(&o, v);
}

static void dir_quota(const struct status_direction *d, char *q, size_t qs, char *s, size_t ss)
{
	snprintf(q, qs, "-");
	snprintf(s, ss, "-");
	if (d->present && d->stats_valid) {
		fmt_bytes(q, qs, d->quota_bytes);
		snprintf(s, ss, "%.1fms", (double)d->sample_us / 1000.0);
	}
}

/* An explanation's text between pre and post. */
static void emit_why(struct out *o, const char *pre, const struct explain_side *e,
		     const char *post)
{
	char text[256];

	(void)explain_format(e, text, sizeof(text));
	emit(o, "%s%s%s", pre, text, post);
}

int status_format_line(const struct status_boundary *b, char *buf, size_t size)
{
	struct out o = { buf, size, 0, size == 0 };
	char pq[32], dq[32], ps[32], ds[32];

	dir_quota(&b->promote, pq, sizeof(pq), ps, sizeof(ps));
	dir_quota(&b->demote, dq, sizeof(dq), ds, sizeof(ds));
	emit(&o, "node%d used %.1f%%: promoted %.2f MiB/s", b->fast_nid,
	     pct(b->fast_total - b->fast_free, b->fast_total), b->promote.mib_s);
	if (b->promote.present)
		emit(&o, " (from node%d, used goal %.2f%%)", b->slow_nid, b->promote.goal_bp / 100.0);
	emit(&o, ", demoted %.2f MiB/s", b->demote.mib_s);
	if (b->demote.present)
		emit(&o, " (to node%d, free goal %.2f%%)", b->slow_nid, b->demote.goal_bp / 100.0);
	emit(&o, "; effective quota promote %s demote %s; sampling promote %s demote %s", pq, dq,
	     ps, ds);
	emit_why(&o, "; ", &b->why_promote, "");
	emit_why(&o, "; ", &b->why_demote, "");
	return out_done(&o);
}

int status_format_text(const struct status_snapshot *s, char *buf, size_t size)
{
	struct out o = { buf, size, 0, size == 0 };

	emit(&o, "damon-tierd (pid %d): %s%s%s\n", (int)s->pid, s->state, s->detail[0] ? ": " : "",
	     s->detail);
	emit(&o, "kernel DAMON features: %s\n", s->features[0] ? s->features : "(not probed)");
	if (s->numa_balancing >= 0)
		emit(&o, "NUMA balancing mode %d%s\n", s->numa_balancing,
		     s->numa_balancing & 2 ? " (tiering mode: competes with DAMON promotion)" : "");
	if (s->damon_stat_paused)
		emit(&o, "damon_stat paused by damon-tierd (restored when it stops)\n");
	emit(&o, "nodes:\n");
	for (unsigned i = 0; i < s->nr_nodes; i++)
		emit(&o, "  node%d  tier %d%s  %" PRIu64 " MiB, %.1f%% used\n", s->nodes[i].nid,
		     s->nodes[i].rank, s->nodes[i].has_cpu ? "          " : " (CPU-less)",
		     s->nodes[i].total >> 20, pct(s->nodes[i].total - s->nodes[i].free, s->nodes[i].total));
	for (unsigned i = 0; i < s->nr_boundaries; i++) {
		const struct status_boundary *b = &s->b[i];
		const struct status_direction *d[2] = { &b->promote, &b->demote };
		const char *name[2] = { "promote", "demote " };

		emit(&o, "boundary node%d (fast) <-> node%d (slow): node%d %.1f%% used, %.1f%% free\n",
		     b->fast_nid, b->slow_nid, b->fast_nid, pct(b->fast_total - b->fast_free, b->fast_total),
		     pct(b->fast_free, b->fast_total));
		for (int k = 0; k < 2; k++) {
			char q[32], sm[32], ap[32];

			if (!d[k]->present)
				continue;
			dir_quota(d[k], q, sizeof(q), sm, sizeof(sm));
			fmt_bytes(ap, sizeof(ap), d[k]->applied_bytes);
			emit(&o, "  %s kdamond %u (pid %" PRId64 "): goal %s %.2f%%, moved %s, %.2f MiB/s, "
				 "quota %s, sampling %s\n",
			     name[k], d[k]->kdamond, d[k]->pid, k == 0 ? "used" : "free",
			     d[k]->goal_bp / 100.0, ap, d[k]->mib_s, q, sm);
		}
		emit_why(&o, "  why: ", &b->why_promote, "\n");
		emit_why(&o, "  why: ", &b->why_demote, "\n");
	}
	status_text_cgroups(&o, s);
	emit(&o, "repairs %" PRIu64 ", errors %" PRIu64 "\n", s->repairs_total, s->errors_total);
	return out_done(&o);
}

/* Our strings are plain, but a detail may quote a path or a value. */
static void emit_json_str(struct out *o, const char *str)
{
	emit(o, "\"");
	for (const char *p = str; *p; p++) {
		if (*p == '"' || *p == '\\')
			emit(o, "\\%c", *p);
		else if ((unsigned char)*p < 0x20)
			emit(o, "\\u%04x", (unsigned char)*p);
		else
			emit(o, "%c", *p);
	}
	emit(o, "\"");
}

static void emit_json_dir(struct out *o, const char *name, const struct status_direction *d)
{
	if (!d->present) {
		emit(o, "\"%s\":null", name);
		return;
	}
	emit(o, "\"%s\":{\"kdamond\":%u,\"pid\":%" PRId64 ",\"goal_bp\":%u,\"applied_bytes\":%" PRIu64
		",\"mib_per_s\":%.3f,\"effective_quota_bytes\":%" PRIu64 ",\"sample_us\":%" PRIu64
		",\"stats_valid\":%s}",
	     name, d->kdamond, d->pid, d->goal_bp, d->applied_bytes, d->mib_s, d->quota_bytes,
	     d->sample_us, d->stats_valid ? "true" : "false");
}

/* A number, or null when unknown. */
static void emit_json_u64(struct out *o, const char *name, bool known, uint64_t v)
{
	if (known)
		emit(o, ",\"%s\":%" PRIu64, name, v);
	else
		emit(o, ",\"%s\":null", name);
}

static void emit_json_why(struct out *o, const char *name, const struct explain_side *e)
{
	char text[256];

	(void)explain_format(e, text, sizeof(text));
	emit(o, "\"%s\":{\"activity\":\"%s\",\"reason\":\"%s\",\"text\":", name,
	     explain_activity_name(explain_activity_of(e->reason)), explain_reason_name(e->reason));
	emit_json_str(o, text);
	emit_json_u64(o, "free_bp", e->have_mem, e->free_bp);
	emit_json_u64(o, "used_bp", e->have_mem, e->used_bp);
	emit_json_u64(o, "goal_bp", e->goal_bp != 0, e->goal_bp);
	emit_json_u64(o, "floor_bp", e->have_floor, e->floor_bp);
	emit_json_u64(o, "quota_bytes", e->have_quota, e->quota_bytes);
	emit_json_u64(o, "cap_bytes", e->have_quota && e->cap_bytes, e->cap_bytes);
	emit_json_u64(o, "tried_bytes", e->have_span, e->tried_bytes);
	emit_json_u64(o, "applied_bytes", e->have_span, e->applied_bytes);
	emit(o, "}");
}

int status_format_json(const struct status_snapshot *s, char *buf, size_t size)
{
	struct out o = { buf, size, 0, size == 0 };

	emit(&o, "{\"schema\":%d,\"pid\":%d,\"interval_us\":%" PRIu64 ",\"state\":",
	     STATUS_JSON_SCHEMA, (int)s->pid, s->interval_us);
	emit_json_str(&o, s->state);
	emit(&o, ",\"detail\":");
	emit_json_str(&o, s->detail);
	emit(&o, ",\"updated_usec\":%" PRIu64 ",\"features\":", s->realtime_usec);
	emit_json_str(&o, s->features);
	emit(&o, ",\"numa_balancing\":%d,\"damon_stat_paused\":%s,\"nodes\":[", s->numa_balancing,
	     s->damon_stat_paused ? "true" : "false");
	for (unsigned i = 0; i < s->nr_nodes; i++)
		emit(&o, "%s{\"nid\":%d,\"tier\":%d,\"has_cpu\":%s,\"total_bytes\":%" PRIu64
			 ",\"free_bytes\":%" PRIu64 "}",
		     i ? "," : "", s->nodes[i].nid, s->nodes[i].rank, s->nodes[i].has_cpu ? "true" : "false",
		     s->nodes[i].total, s->nodes[i].free);
	emit(&o, "],\"boundaries\":[");
	for (unsigned i = 0; i < s->nr_boundaries; i++) {
		const struct status_boundary *b = &s->b[i];

		emit(&o, "%s{\"fast_node\":%d,\"slow_node\":%d,\"fast_total_bytes\":%" PRIu64
			 ",\"fast_free_bytes\":%" PRIu64 ",",
		     i ? "," : "", b->fast_nid, b->slow_nid, b->fast_total, b->fast_free);
		emit_json_dir(&o, "promote", &b->promote);
		emit(&o, ",");
		emit_json_dir(&o, "demote", &b->demote);
		emit(&o, ",\"explain\":{");
		emit_json_why(&o, "promote", &b->why_promote);
		emit(&o, ",");
		emit_json_why(&o, "demote", &b->why_demote);
		emit(&o, "}}");
	}
	emit(&o, "]");
	status_json_cgroups(&o, s);
	emit(&o, ",\"repairs_total\":%" PRIu64 ",\"errors_total\":%" PRIu64 "}\n", s->repairs_total,
	     s->errors_total);
	return out_done(&o);
}

enum dir_value { DIR_APPLIED, DIR_TRIED, DIR_QUOTA_EXCEEDS, DIR_QUOTA };

static uint64_t dir_value(const struct status_direction *d, enum dir_value v)
{
	switch (v) {
	case DIR_APPLIED:
		return d->applied_bytes;
	case DIR_TRIED:
		return d->tried_bytes;
	case DIR_QUOTA_EXCEEDS:
		return d->quota_exceeds;
	case DIR_QUOTA:
		return d->quota_bytes;
	}
	return 0;
}

/* A metric of every direction whose stats were read, labelled with the
 * direction and its source node (the slow node for promotion). */
static void emit_dir_metric(struct out *o, const struct status_snapshot *s, const char *name,
			    const char *type, const char *help, enum dir_value v)
{
	emit(o, "# HELP damon_tierd_%s %s\n# TYPE damon_tierd_%s %s\n", name, help, name, type);
	for (unsigned i = 0; i < s->nr_boundaries; i++) {
		const struct status_boundary *b = &s->b[i];

		if (b->promote.present && b->promote.stats_valid)
			emit(o, "damon_tierd_%s{direction=\"promote\",node=\"%d\"} %" PRIu64 "\n", name,
			     b->slow_nid, dir_value(&b->promote, v));
		if (b->demote.present && b->demote.stats_valid)
			emit(o, "damon_tierd_%s{direction=\"demote\",node=\"%d\"} %" PRIu64 "\n", name,
			     b->fast_nid, dir_value(&b->demote, v));
	}
}

int status_format_prometheus(const struct status_snapshot *s, const char *version, char *buf,
			     size_t size)
{
	struct out o = { buf, size, 0, size == 0 };

	emit(&o, "# HELP damon_tierd_build_info damon-tierd version.\n"
		 "# TYPE damon_tierd_build_info gauge\n"
		 "damon_tierd_build_info{version=\"%s\"} 1\n", version);
	emit(&o, "# HELP damon_tierd_running 1 while damon-tierd runs its plan.\n"
		 "# TYPE damon_tierd_running gauge\n"
		 "damon_tierd_running %d\n", strcmp(s->state, "running") == 0);
	emit(&o, "# HELP damon_tierd_node_used_ratio Used share of the node's memory.\n"
		 "# TYPE damon_tierd_node_used_ratio gauge\n");
	for (unsigned i = 0; i < s->nr_nodes; i++)
		emit(&o, "damon_tierd_node_used_ratio{node=\"%d\"} %.4f\n", s->nodes[i].nid,
		     pct(s->nodes[i].total - s->nodes[i].free, s->nodes[i].total) / 100.0);
	emit(&o, "# HELP damon_tierd_goal_ratio Effective goal of the fast node (used for promotion, "
		 "free for demotion).\n# TYPE damon_tierd_goal_ratio gauge\n");
	for (unsigned i = 0; i < s->nr_boundaries; i++) {
		const struct status_boundary *b = &s->b[i];

		if (b->promote.present)
			emit(&o, "damon_tierd_goal_ratio{goal=\"used\",node=\"%d\"} %.4f\n", b->fast_nid,
			     b->promote.goal_bp / 10000.0);
		if (b->demote.present)
			emit(&o, "damon_tierd_goal_ratio{goal=\"free\",node=\"%d\"} %.4f\n", b->fast_nid,
			     b->demote.goal_bp / 10000.0);
	}
	emit_dir_metric(&o, s, "migrated_bytes_total", "counter",
			"Bytes migrated by our kdamonds, by direction and source node (resets when a "
			"kdamond restarts).", DIR_APPLIED);
	emit_dir_metric(&o, s, "tried_bytes_total", "counter",
			"Bytes the migration scheme tried to migrate (its regions within the quota), by "
			"direction and source node (resets when a kdamond restarts).",
			DIR_TRIED);
	emit_dir_metric(&o, s, "quota_exceeded_total", "counter",
			"Quota windows that used up the whole quota, by direction and source node "
			"(resets when a kdamond restarts).", DIR_QUOTA_EXCEEDS);
	emit_dir_metric(&o, s, "effective_quota_bytes", "gauge",
			"The migration scheme's effective quota per quota window, as its goal tuner set "
			"it, by direction and source node.", DIR_QUOTA);
	emit(&o, "# HELP damon_tierd_repairs_total Kdamonds restarted or re-committed.\n"
		 "# TYPE damon_tierd_repairs_total counter\n"
		 "damon_tierd_repairs_total %" PRIu64 "\n", s->repairs_total);
	emit(&o, "# HELP damon_tierd_errors_total Errors while supervising.\n"
		 "# TYPE damon_tierd_errors_total counter\n"
		 "damon_tierd_errors_total %" PRIu64 "\n", s->errors_total);
	status_prometheus_cgroups(&o, s);
	emit(&o, "# HELP damon_tierd_last_update_timestamp_seconds When damon-tierd wrote this file.\n"
		 "# TYPE damon_tierd_last_update_timestamp_seconds gauge\n"
		 "damon_tierd_last_update_timestamp_seconds %" PRIu64 ".%03u\n",
	     s->realtime_usec / 1000000, (unsigned)(s->realtime_usec % 1000000 / 1000));
	return out_done(&o);
}


/* The span of kdamond i's counters up to cur (STATUS_SPAN_US to twice
 * that): span_at moves to span_mid once span_mid is a span old, and both
 * start over when the counters went back (a restart). */
static void span(struct status_history *h, unsigned i, const struct status_sample *cur,
		 struct explain_span *ret)
{
	struct status_sample *at = &h->span_at[i], *mid = &h->span_mid[i];

	if (!mid->valid || cur->sz_tried < mid->sz_tried || cur->sz_applied < mid->sz_applied) {
		*mid = *cur;
		at->valid = false;
	} else if (cur->at_usec - mid->at_usec >= STATUS_SPAN_US) {
		*at = *mid;
		*mid = *cur;
	}
	if (at->valid && cur->sz_tried >= at->sz_tried && cur->sz_applied >= at->sz_applied)
		*ret = (struct explain_span){ .valid = true, .tried = cur->sz_tried - at->sz_tried,
					      .applied = cur->sz_applied - at->sz_applied };
}

/* The plan's kdamond i, this period: stats read now, or the last ones. */
static bool sample(const struct status_input *in, struct status_history *h, unsigned i,
		   double *rate, double *line_rate, struct explain_span *sp)
{
	const struct obs_ours *k = in->obs && i < in->obs->nr_ours ? &in->obs->ours[i] : NULL;
	struct status_sample cur;

	*rate = *line_rate = 0;
	if (!k || !(in->obs->got & OBS_STATS) || k->st.err || !k->st.on || k->stats_err)
		return false;
	h->last[i].valid = true;
	h->last[i].applied = k->stats.sz_applied;
	h->last[i].tried = k->stats.sz_tried;
	h->last[i].qt_exceeds = k->stats.qt_exceeds;
	h->last[i].effective_bytes = k->stats.effective_bytes;
	h->last[i].sample_us = k->stats.sample_us;
	cur = (struct status_sample){ .sz_applied = k->stats.sz_applied,
				      .sz_tried = k->stats.sz_tried, .at_usec = in->now_usec,
				      .valid = true };
	*rate = status_rate_mib_s(&h->sample[i], &cur);
	h->sample[i] = cur;
	if (in->line) {
		*line_rate = status_rate_mib_s(&h->line[i], &cur);
		h->line[i] = cur;
	}
	span(h, i, &cur, sp);
	return true;
}

/* Why each side of b does what it does; kd: the plan indices of its
 * promote and demote kdamonds (-1: none). */
static void explain_boundary(const struct status_input *in, const int *kd,
			     const struct explain_span *sp, struct status_boundary *b)
{
	const struct explain_input ein = {
		.state = in->rc_state,
		.damon_stat_keep = in->damon_stat_keep,
		.plan = in->plan,
		.obs = in->obs,
		.rt = in->rt,
	};
	struct explain_facts f;

	for (int k = 0; k < 2; k++) {
		explain_gather(&ein, b->fast_nid, b->slow_nid, k == 0, kd[k],
			       kd[k] >= 0 ? &sp[kd[k]] : NULL, &f);
		/* The exchange's last reasons, kept with the promote kdamond. */
		if (in->rt && kd[0] >= 0 && in->rt->kd[kd[0]].promote_why != XP_NO_HISTOGRAM) {
			f.have_xchg = true;
			f.xchg_promote = (enum xchg_promote_why)in->rt->kd[kd[0]].promote_why;
			f.xchg_demote = (enum xchg_demote_why)in->rt->kd[kd[0]].demote_why;
		}
		explain_decide(&f, k == 0 ? &b->why_promote : &b->why_demote);
	}
}

static void direction(const struct status_input *in, const struct status_history *h, int j,
		      bool promote, const bool *have, const double *rate, const double *line_rate,
		      const struct plan_calibration *cal, struct status_direction *d)
{
	const struct plan *p = in->plan;

	d->present = true;
	d->kdamond = in->rec->first + (unsigned)j;
	d->pid = in->rec->pids[j];
	/* The effective goals, also when the daemon's controller uses them
	 * instead of kernel goals. */
	d->goal_bp = cal ? (promote ? cal->eff_used_bp : cal->eff_free_bp)
			 : (unsigned)p->kd[j].scheme.goal.target_value;
	d->stats_valid = have[j];
	d->applied_bytes = h->last[j].applied;
	d->tried_bytes = h->last[j].tried;
	d->quota_exceeds = h->last[j].qt_exceeds;
	d->quota_bytes = h->last[j].effective_bytes;
	d->sample_us = h->last[j].sample_us;
	d->mib_s = rate[j];
	d->line_mib_s = line_rate[j];
}

/* Pair each demote kdamond with the promote kdamond of the same two nodes. */
static void boundaries(const struct status_input *in, const struct status_history *h,
		       const bool *have, const double *rate, const double *line_rate,
		       const struct explain_span *sp, struct status_snapshot *s)
{
	const struct plan *p = in->plan;
	bool done[PLAN_MAX_KDAMONDS] = { false };

	for (unsigned i = 0; i < p->nr_kdamonds; i++) {
		struct status_boundary *b = &s->b[s->nr_boundaries];
		int pair[2] = { -1, -1 }; /* promote, demote */
		const struct numa_node *n;

		if (done[i])
			continue;
		done[i] = true;
		pair[p->kd[i].role == ROLE_PROMOTE ? 0 : 1] = (int)i;
		for (unsigned j = 0; j < p->nr_kdamonds; j++)
			if (!done[j] && p->kd[j].role != p->kd[i].role &&
			    p->kd[j].from_nid == p->kd[i].to_nid && p->kd[j].to_nid == p->kd[i].from_nid) {
				pair[p->kd[j].role == ROLE_PROMOTE ? 0 : 1] = (int)j;
				done[j] = true;
				break;
			}
		memset(b, 0, sizeof(*b));
		b->fast_nid = pair[0] >= 0 ? p->kd[pair[0]].to_nid : p->kd[pair[1]].from_nid;
		b->slow_nid = pair[0] >= 0 ? p->kd[pair[0]].from_nid : p->kd[pair[1]].to_nid;
		n = topology_node(in->topo, b->fast_nid);
		if (n) {
			b->fast_total = n->mem_total;
			b->fast_free = n->mem_free;
		}
		for (int k = 0; k < 2; k++)
			if (pair[k] >= 0)
				direction(in, h, pair[k], k == 0, have, rate, line_rate,
					  plan_calibration_of(p, b->fast_nid), k == 0 ? &b->promote : &b->demote);
		explain_boundary(in, pair, sp, b);
		s->nr_boundaries++;
	}
}

/* Without a plan (starting, blocked, stopped): the boundaries the tier map
 * pairs, without kdamonds, so that each says why nothing moves. */
static void boundaries_of_tiers(const struct status_input *in, struct status_snapshot *s)
{
	const struct tier_map *m = in->tiers;
	const int none[2] = { -1, -1 };

	for (unsigned i = 0; i < m->nr_demote + m->nr_promote; i++) {
		bool demote = i < m->nr_demote;
		const struct migration_pair *mp = demote ? &m->demote[i] : &m->promote[i - m->nr_demote];
		int fast = demote ? mp->from_nid : mp->to_nid, slow = demote ? mp->to_nid : mp->from_nid;
		struct status_boundary *b = &s->b[s->nr_boundaries];
		const struct numa_node *n;
		bool seen = false;

		for (unsigned j = 0; j < s->nr_boundaries; j++)
			seen |= s->b[j].fast_nid == fast && s->b[j].slow_nid == slow;
		if (seen || s->nr_boundaries >= PLAN_MAX_KDAMONDS)
			continue;
		memset(b, 0, sizeof(*b));
		b->fast_nid = fast;
		b->slow_nid = slow;
		n = in->topo ? topology_node(in->topo, fast) : NULL;
		if (n) {
			b->fast_total = n->mem_total;
			b->fast_free = n->mem_free;
		}
		explain_boundary(in, none, NULL, b);
		s->nr_boundaries++;
	}
}

void status_build(const struct status_input *in, struct status_history *h,
		  struct status_snapshot *s)
{
	double rate[PLAN_MAX_KDAMONDS] = { 0 }, line_rate[PLAN_MAX_KDAMONDS] = { 0 };
	bool have[PLAN_MAX_KDAMONDS] = { false };
	struct explain_span sp[PLAN_MAX_KDAMONDS] = { { 0 } };
	const struct topology *t = in->topo;

	memset(s, 0, sizeof(*s));
	s->state = in->state;
	s->interval_us = in->interval_us;
	snprintf(s->detail, sizeof(s->detail), "%s", in->detail ? in->detail : "");
	s->realtime_usec = in->realtime_usec;
	s->pid = in->pid;
	if (in->feat)
		features_format(in->feat, s->features, sizeof(s->features));
	s->numa_balancing = in->numa_balancing;
	s->damon_stat_paused = in->rec && in->rec->paused_damon_stat;
	s->repairs_total = in->repairs;
	s->errors_total = in->errors;
	status_build_cgroups(in, s);
	for (unsigned i = 0; t && in->tiers && i < t->nr_nodes && i < TOPO_MAX_NODES; i++) {
		if (in->tiers->rank[i] < 0)
			continue;
		s->nodes[s->nr_nodes].nid = t->nodes[i].nid;
		s->nodes[s->nr_nodes].rank = in->tiers->rank[i];
		s->nodes[s->nr_nodes].has_cpu = t->nodes[i].has_cpu;
		s->nodes[s->nr_nodes].total = t->nodes[i].mem_total;
		s->nodes[s->nr_nodes].free = t->nodes[i].mem_free;
		s->nr_nodes++;
	}
	if (!in->plan || !in->rec) {
		if (in->tiers)
			boundaries_of_tiers(in, s);
		return;
	}
	for (unsigned i = 0; i < in->plan->nr_kdamonds; i++)
		have[i] = sample(in, h, i, &rate[i], &line_rate[i], &sp[i]);
	boundaries(in, h, have, rate, line_rate, sp, s);
}
