/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The controller's tick while our kdamonds run: each node's hotness
 * histogram from its kdamond's histogram schemes (hotness.h), then per
 * kdamond the quota -- and, where both kdamonds of a tier boundary carry
 * histograms, the exchange's thresholds (exchange.h) -- scaled by the
 * kernel's yield (quota_ctl.h) and committed when they changed enough.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>

#include "decide.h"
#include "decide_internal.h"
#include "exchange.h"
#include "quota_ctl.h"
#include "sysfs_io.h"

/* The yield gain of kdamond i after this tick's charge counters (copied by
 * refresh_ms, late on 6.17: counters that did not move keep the gain, and
 * the next move is measured over the whole span; refreshed by command
 * before 6.17).  A read error or counters
 * that went back (a restart) only restart the measurement. */
static unsigned measure_gain(const struct decide_input *in, struct decision *d, unsigned i)
{
	const struct obs_ours *k = &in->obs->ours[i];
	struct kd_runtime *r = &d->rt.kd[i];
	const struct plan_scheme *s = &in->plan->kd[i].scheme;
	unsigned max = in->plan->kd[i].role != ROLE_PROMOTE ? QCTL_DEMOTE_GAIN_MAX
		       : s->nr_memcg && !s->fail_charge_denom ? QCTL_FILTERED_GAIN_MAX
							      : QCTL_PROMOTE_GAIN_MAX;

	if (k->charge_err) {
		r->tried = UINT64_MAX;
		d->rt.errors++;
		say(d, LOG_WARNING, "quota controller: cannot read %s (%s); kdamond %u's quota keeps its "
		    "last yield gain", k->failed_path, io_strerror(k->charge_err), d->rt.rec.first + i);
		d->a[d->n - 1].limit = LIMIT_CONTROL;
		return r->gain;
	}
	if (!k->have_charge)
		return r->gain;
	if (r->tried != UINT64_MAX && k->tried >= r->tried && k->applied >= r->applied)
		r->gain = qctl_gain_update(r->gain,
					   qctl_charged(k->tried - r->tried, k->applied - r->applied,
							s->fail_charge_num, s->fail_charge_denom),
					   k->applied - r->applied, max);
	r->tried = k->tried;
	r->applied = k->applied;
	return r->gain;
}

static uint64_t monitored_bytes(const struct plan_kdamond *kd)
{
	uint64_t sum = 0;

	for (unsigned i = 0; i < kd->nr_ranges; i++)
		sum += kd->ranges[i].end - kd->ranges[i].start;
	return sum;
}

/* Kdamond i's histogram from this tick's counters.  Until a whole apply
 * pass lies between two readings the last histogram stands, and the next
 * reading is measured from the same start; a read error or a restart
 * (counters that went back) starts the measurement over. */
static void measure_hist(const struct decide_input *in, struct decision *d, unsigned i)
{
	const struct obs_ours *k = &in->obs->ours[i];
	const struct plan_kdamond *kd = &in->plan->kd[i];
	struct kd_runtime *r = &d->rt.kd[i];
	struct hot_hist h;
	int err;

	if (k->hist_err) {
		r->hist_prev_ok = false;
		d->rt.errors++;
		say(d, LOG_WARNING, "exchange: cannot read %s (%s); kdamond %u keeps its last histogram",
		    k->failed_path, io_strerror(k->hist_err), d->rt.rec.first + i);
		d->a[d->n - 1].limit = LIMIT_CONTROL;
		return;
	}
	if (!k->have_hist)
		return;
	if (r->hist_prev_ok) {
		err = hot_hist_from(&kd->hist, r->hist_prev, k->hist_tried, monitored_bytes(kd),
				    (uint32_t)(k->sample_us ? k->aggr_us / k->sample_us : 0),
				    k->sample_us, &h);
		if (err == -EAGAIN)
			return;
		if (err == 0)
			r->hist = h;
	}
	memcpy(r->hist_prev, k->hist_tried, sizeof(r->hist_prev));
	r->hist_prev_ok = true;
}

/* "0:400 1:12 ... @100ms" (MiB per bucket's lowest count, sampling), for the log. */
static void hist_text(const struct hot_hist *h, char *buf, size_t size)
{
	size_t off = 0;

	buf[0] = 0;
	for (unsigned b = 0; b < h->n && off < size; b++)
		off += (size_t)snprintf(buf + off, size - off, "%s%" PRIu32 ":%" PRIu64, b ? " " : "",
					h->lo[b], h->bytes[b] >> 20);
	if (off < size)
		snprintf(buf + off, size - off, " @%" PRIu64 "ms", h->sample_us / 1000);
}

/* The kdamond across the same boundary the other way, if it has a
 * histogram too. */
static int partner_of(const struct plan *p, unsigned i)
{
	const struct plan_kdamond *kd = &p->kd[i];

	for (unsigned j = 0; j < p->nr_kdamonds; j++)
		if (j != i && p->kd[j].role != kd->role && p->kd[j].from_nid == kd->to_nid &&
		    p->kd[j].to_nid == kd->from_nid && p->kd[j].hist.n)
			return (int)j;
	return -1;
}

/* Kdamond i's migration scheme as the exchange wants it: the decision's
 * bound on its side, the plan's elsewhere; without a decision (x NULL: no
 * ranking, or a histogram became unreadable after the exchange moved the
 * bounds) the plan's. */
static void wanted_bounds(const struct plan_kdamond *kd, const struct xchg_decision *x,
			  uint32_t *nr_min, uint32_t *nr_max, bool *young)
{
	*nr_min = (uint32_t)kd->scheme.nr_accesses_min;
	*nr_max = (uint32_t)kd->scheme.nr_accesses_max;
	*young = kd->scheme.young_filter;
	if (!x)
		return;
	if (kd->role == ROLE_PROMOTE)
		*nr_min = x->promote_min;
	else {
		*nr_max = x->demote_max;
		*young = kd->scheme.young_filter && x->demote_young;
	}
}

/* The exchange across kdamond i's boundary; false until both kdamonds of
 * the boundary have a histogram (then the controller alone decides). */
static bool exchange(const struct decide_input *in, const struct decision *d, unsigned i,
		     const struct plan_calibration *cal, uint64_t free, struct xchg_decision *x)
{
	const struct plan *p = in->plan;
	int j = partner_of(p, i);
	const struct plan_kdamond *pro, *dem;
	const struct kd_runtime *rp, *rd;

	if (!p->kd[i].hist.n || j < 0)
		return false;
	pro = p->kd[i].role == ROLE_PROMOTE ? &p->kd[i] : &p->kd[j];
	dem = p->kd[i].role == ROLE_PROMOTE ? &p->kd[j] : &p->kd[i];
	rp = &d->rt.kd[p->kd[i].role == ROLE_PROMOTE ? i : (unsigned)j];
	rd = &d->rt.kd[p->kd[i].role == ROLE_PROMOTE ? (unsigned)j : i];
	if (!rp->hist.valid || !rd->hist.valid)
		return false;
	xchg_decide(&(struct xchg_input){
			    .fast = &rd->hist, .slow = &rp->hist, .fast_free = free,
			    .levels = &cal->levels, .tick_us = QCTL_TICK_US,
			    .promote_min = (uint32_t)pro->scheme.nr_accesses_min,
			    .demote_max = (uint32_t)dem->scheme.nr_accesses_max,
			    .demote_young = dem->scheme.young_filter,
		    }, x);
	return true;
}

void decide_control(const struct decide_input *in, struct decision *d, const bool *restarting)
{
	const struct observation *o = in->obs;
	const struct plan *p = in->plan;
	struct runtime *rt = &d->rt;

	if (o->meminfo_err) {
		rt->errors++;
		say(d, LOG_WARNING, "quota controller: cannot read the nodes' meminfo: %s",
		    io_strerror(o->meminfo_err));
		d->a[d->n - 1].limit = LIMIT_CONTROL;
		return;
	}
	for (unsigned i = 0; i < p->nr_kdamonds && i < o->nr_ours; i++) {
		if (!p->kd[i].hist.n || restarting[i])
			continue;
		measure_hist(in, d, i);
	}
	for (unsigned i = 0; i < p->nr_kdamonds; i++) {
		const struct plan_kdamond *kd = &p->kd[i];
		bool promote = kd->role == ROLE_PROMOTE;
		int fast = promote ? kd->to_nid : kd->from_nid;
		const struct plan_calibration *cal = plan_calibration_of(p, fast);
		struct kd_runtime *r = &rt->kd[i];
		uint64_t total, free, next;
		struct xchg_decision x;
		uint32_t nr_min, nr_max;
		bool young, ranked, control;
		struct action *a;

		if (!kd->scheme.daemon_quota || restarting[i] || !cal ||
		    !observe_node_mem(o, fast, &total, &free))
			continue;
		ranked = exchange(in, d, i, cal, free, &x);
		if (!ranked) {
			struct qctl_quota q;

			/* No stale reasons in the status. */
			r->promote_why = XP_NO_HISTOGRAM;
			r->demote_why = XD_NO_HISTOGRAM;
			qctl_compute(&cal->levels, free, QCTL_TICK_US, &q);
			next = promote ? q.promote : q.demote;
		} else {
			next = promote ? x.q.promote : x.q.demote;
			/* Once per boundary (from its promotion kdamond), when the
			 * reasons change: the journal tells what the exchange does. */
			if (promote && (r->promote_why != x.promote_why || r->demote_why != x.demote_why)) {
				char hf[128], hs[128];

				hist_text(&rt->kd[partner_of(p, i)].hist, hf, sizeof(hf));
				hist_text(&r->hist, hs, sizeof(hs));
				say(d, LOG_INFO, "exchange node%d <-> node%d: promotion: %s; demotion: %s "
				    "(node%d free %" PRIu64 " MiB; %" PRIu64 " MiB hot in: %" PRIu64
				    " into free, %" PRIu64 " unaccessed and %" PRIu64 " lukewarm out; "
				    "MiB by count: node%d %s, node%d %s)",
				    fast, kd->from_nid, xchg_promote_why_name(x.promote_why),
				    xchg_demote_why_name(x.demote_why), fast, free >> 20, x.hot_in >> 20,
				    x.into_free >> 20, x.idle_out >> 20, x.warm_out >> 20, fast, hf,
				    kd->from_nid, hs);
			}
			r->promote_why = (uint8_t)x.promote_why;
			r->demote_why = (uint8_t)x.demote_why;
		}
		/* Every kdamond that promotes into a fast node gets all of its
		 * room (three tiers: nodes 1 and 2 both promote into node 0).
		 * Splitting it evenly halved promotion where only one of them
		 * had hot pages (measured on 6.12 before it had a yield gain:
		 * 88% of the hot set on node 0 after 100 s instead of 90%); the
		 * cost is that a tick in which both find hot pages may fill the
		 * node past its floor twice over, and promotion then waits
		 * below the floor. */
		next = qctl_gain_apply(next, measure_gain(in, d, i), cal->levels.cap);
		if (r->ticks < UINT32_MAX)
			r->ticks++;
		wanted_bounds(kd, ranked ? &x : NULL, &nr_min, &nr_max, &young);
		/* What the kernel runs: the last control commit's, else the
		 * plan's (a start or re-commit stages the plan). */
		if (r->ctl_known)
			control = nr_min != r->nr_min || nr_max != r->nr_max || young != r->young;
		else
			control = nr_min != kd->scheme.nr_accesses_min ||
				  nr_max != kd->scheme.nr_accesses_max || young != kd->scheme.young_filter;
		/* A failed commit may have staged part of the bounds. */
		if (kd->hist.n && !r->quota_synced)
			control = true;
		if (r->quota_synced && !control && !qctl_should_commit(r->quota_bytes, next, r->ticks))
			continue;
		a = act(d, ACT_SET_QUOTA);
		a->kd = i;
		a->value = next;
		a->limit = LIMIT_CONTROL;
		a->prio = LOG_DEBUG;
		snprintf(a->what, sizeof(a->what), "commit kdamond %u's quota", rt->rec.first + i);
		a->control = control;
		a->nr_min = nr_min;
		a->nr_max = nr_max;
		a->young = young;
		if (!ranked) {
			act_text(a, "quota controller: kdamond %u (%s) %" PRIu64 " -> %" PRIu64 " bytes "
				 "per window (node%d free %" PRIu64 " MiB)", rt->rec.first + i,
				 plan_role_name(kd->role), r->quota_bytes, next, fast, free >> 20);
			continue;
		}
		act_text(a, "exchange: kdamond %u (%s) %" PRIu64 " bytes per window, accesses %" PRIu32
			 "..%" PRIu32 ", young filter %s (node%d free %" PRIu64 " MiB; %s; hot %" PRIu64
			 " MiB in: %" PRIu64 " into free, %" PRIu64 " idle and %" PRIu64 " lukewarm out)",
			 rt->rec.first + i, plan_role_name(kd->role), next, nr_min, nr_max,
			 young ? "on" : "off", fast, free >> 20,
			 promote ? xchg_promote_why_name(x.promote_why) : xchg_demote_why_name(x.demote_why),
			 x.hot_in >> 20, x.into_free >> 20, x.idle_out >> 20, x.warm_out >> 20);
	}
}
