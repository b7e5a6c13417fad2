/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Building a decision: the action list, and what several states decide
 * alike -- give everything back and exit, block with a backoff, the values
 * a kdamond is started or committed with.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>

#include "decide.h"
#include "decide_internal.h"
#include "exit_codes.h"
#include "quota_ctl.h"

void runtime_init(struct runtime *rt)
{
	memset(rt, 0, sizeof(*rt));
	rt->numab_saved = -1;
	rt->numab_mode = -1;
}

struct action *act(struct decision *d, enum action_kind kind)
{
	/* Bounded by DECIDE_MAX_ACTIONS, which no plan reaches; a full list
	 * keeps its last slot for whatever comes, rather than overflow. */
	struct action *a = &d->a[d->n < DECIDE_MAX_ACTIONS ? d->n++ : DECIDE_MAX_ACTIONS - 1];

	memset(a, 0, sizeof(*a));
	a->kind = kind;
	a->prio = LOG_INFO;
	return a;
}

void act_text(struct action *a, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(a->text, sizeof(a->text), fmt, ap);
	va_end(ap);
}

void say(struct decision *d, int prio, const char *fmt, ...)
{
	struct action *a = act(d, ACT_LOG);
	va_list ap;

	a->prio = prio;
	va_start(ap, fmt);
	vsnprintf(a->text, sizeof(a->text), fmt, ap);
	va_end(ap);
}

/* Give back what we changed, in the order that keeps the kernel consistent:
 * our kdamonds off (each only if it still runs with our pid), their
 * directories removed, damon_stat and NUMA balancing as found, the record
 * gone.  A dry run changed nothing. */
void release(const struct decide_input *in, struct decision *d)
{
	const struct runtime *rt = &d->rt;

	if (in->fresh)
		return;
	if (rt->owns)
		stop_ours(d);
	if (rt->owns)
		act(d, ACT_SET_NR_KDAMONDS)->value = 0;
	if (rt->rec.paused_damon_stat)
		act(d, ACT_RESTORE_DAMON_STAT);
	if (rt->numab_saved >= 0)
		act(d, ACT_RESTORE_NUMA_BALANCING)->value = (uint64_t)rt->numab_saved;
	if (rt->owns)
		act(d, ACT_REMOVE_RECORD);
}

void stop_ours(struct decision *d)
{
	const struct owner_record *rec = &d->rt.rec;

	for (unsigned i = 0; i < rec->count && i < PLAN_MAX_KDAMONDS; i++) {
		struct action *a = act(d, ACT_STOP);

		a->kd = rec->first + i;
		a->value = (uint64_t)rec->pids[i];
	}
}

/*
 * Every way out but a successful one undoes what we changed, so that a
 * refusal or a failure -- also in the instance that starts after a crash --
 * leaves nothing paused.  --once's success leaves the kdamonds running on
 * purpose.
 */
void exit_with(const struct decide_input *in, struct decision *d, int code, int prio,
	       const char *fmt, ...)
{
	struct action *a;
	va_list ap;

	if (code != EXIT_OK)
		release(in, d);
	a = act(d, ACT_EXIT);
	a->value = (uint64_t)code;
	a->prio = prio;
	if (fmt) {
		va_start(ap, fmt);
		vsnprintf(a->text, sizeof(a->text), fmt, ap);
		va_end(ap);
	}
	d->next = RC_DONE;
}

void block(const struct decide_input *in, struct decision *d, int code, const char *fmt, ...)
{
	struct runtime *rt = &d->rt;
	struct action *a;
	uint64_t delay;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(rt->blocked_reason, sizeof(rt->blocked_reason), fmt, ap);
	va_end(ap);
	rt->blocked_code = code;
	if (in->once || in->fresh) {
		/* No retry to announce: BLOCKED exits with the code. */
		say(d, LOG_ERR, "%s", rt->blocked_reason);
		rt->blocked_until = in->now;
		d->next = RC_BLOCKED;
		return;
	}
	a = act(d, ACT_BLOCK);
	delay = decide_backoff_usec(++rt->attempts);
	rt->blocked_until = in->now + delay;
	a->value = delay;
	snprintf(a->text, sizeof(a->text), "%s", rt->blocked_reason);
	d->next = RC_BLOCKED;
}

/* The user_input goal value of kdamond i from the observed meminfo, or the
 * last one when the node was not observed. */
uint64_t goal_value(const struct decide_input *in, const struct plan *p, unsigned i)
{
	const struct plan_goal *g = &p->kd[i].scheme.goal;
	uint64_t total, free;

	if (!g->enabled || g->metric != GOAL_USER_INPUT ||
	    !observe_node_mem(in->obs, g->nid, &total, &free) || total == 0)
		return in->rt->kd[i].goal_current;
	return g->user_metric == GOAL_NODE_MEM_FREE_BP ? free * 10000 / total
						       : (total - free) * 10000 / total;
}

/* The daemon controller's quota for kdamond i from the free memory observed
 * now; the plan's quota for the kernel tuner.  Unobserved: stopped. */
uint64_t initial_quota(const struct decide_input *in, const struct plan *p, unsigned i)
{
	const struct plan_kdamond *kd = &p->kd[i];
	bool promote = kd->role == ROLE_PROMOTE;
	int fast = promote ? kd->to_nid : kd->from_nid;
	const struct plan_calibration *cal = plan_calibration_of(p, fast);
	uint64_t total, free;
	struct qctl_quota q;

	if (!kd->scheme.daemon_quota)
		return kd->scheme.quota_bytes;
	if (!cal || !observe_node_mem(in->obs, fast, &total, &free))
		return QCTL_STOP_BYTES;
	qctl_compute(&cal->levels, free, QCTL_TICK_US, &q);
	return promote ? q.promote : q.demote;
}

/* The controller starts over: its gain and charge counters are unknown. */
void reset_controller(struct kd_runtime *k)
{
	k->gain = QCTL_GAIN_ONE;
	k->tried = UINT64_MAX;
	k->applied = 0;
	k->ticks = 0;
	k->hist_prev_ok = false;
	k->hist.valid = false;
}

void remember_topology(const struct decide_input *in, struct runtime *rt)
{
	const struct topology *t = in->topo_seen;

	rt->nr_seen = 0;
	for (unsigned i = 0; t && i < t->nr_nodes && i < TOPO_MAX_NODES; i++) {
		rt->seen[rt->nr_seen].nid = t->nodes[i].nid;
		rt->seen[rt->nr_seen++].total = t->nodes[i].mem_total;
	}
}

static uint64_t fnv1a(uint64_t h, const char *s)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * UINT64_C(0x100000001b3);
	return (h ^ 0xff) * UINT64_C(0x100000001b3);  /* the end of each string counts */
}

void say_topology_notes(const struct decide_input *in, const struct tier_map *m, struct decision *d)
{
	const struct topology *t = in->topo_seen;
	uint64_t h = UINT64_C(0xcbf29ce484222325);
	char tiers[sizeof(m->fallback) + 128] = "";

	if (!t)
		return;
	if (m && m->fallback_warn)
		snprintf(tiers, sizeof(tiers), "%s: the tiers are taken from CPU-less nodes and their "
			 "distances instead of the kernel's memory tiers", m->fallback);
	h = fnv1a(h, tiers);
	for (unsigned i = 0; i < t->nr_notes && i < TOPO_MAX_NOTES; i++)
		h = fnv1a(h, t->notes[i]);
	/* Discovery repeats with every retry while blocked: say it once. */
	if (h == d->rt.notes_said)
		return;
	d->rt.notes_said = h;
	if (tiers[0])
		say(d, LOG_WARNING, "%s", tiers);
	for (unsigned i = 0; i < t->nr_notes && i < TOPO_MAX_NOTES; i++)
		say(d, LOG_WARNING, "%s", t->notes[i]);
	if (t->nr_notes_dropped)
		say(d, LOG_WARNING, "%u more warnings like these about the memory blocks are left out",
		    t->nr_notes_dropped);
}
