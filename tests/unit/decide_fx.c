/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "decide_fx.h"
#include "quota_ctl.h"
#include "testutil.h"

void fx_replan(struct fx *f)
{
	char err[256] = "";

	if (plan_build(&f->topo, &f->tiers, &f->feat, &f->cfg, &f->plan, err, sizeof(err)) < 0)
		fail_msg("plan_build: %s", err);
	f->next = f->plan;
	f->rt.rec.plan_hash = plan_hash(&f->plan);
}

static void fx_observe(struct fx *f)
{
	struct observation *o = &f->obs;
	static const char *const mods[] = { "damon_stat", "damon_reclaim", "damon_lru_sort" };

	memset(o, 0, sizeof(*o));
	o->now_usec = FX_NOW;
	/* Everything but the read-back, which only its own tick does. */
	o->got = ~(unsigned)OBS_VERIFY;
	o->damon_sysfs = true;
	for (int i = 0; i < _DAMON_MOD_MAX; i++) {
		o->mods.mod[i].name = mods[i];
		o->mods.mod[i].present = true;
	}
	o->numa_balancing = 1;
	snprintf(o->demotion_enabled, sizeof(o->demotion_enabled), "false");
	o->tiers = f->tiers;
	o->feat = f->feat;
	snprintf(o->feat_source, sizeof(o->feat_source), "probed in /sys/kernel/mm/damon/admin/kdamonds/0");
	o->nr_nodes = f->topo.nr_nodes;
	for (unsigned i = 0; i < f->topo.nr_nodes; i++) {
		o->mem[i].nid = f->topo.nodes[i].nid;
		o->mem[i].total = f->topo.nodes[i].mem_total;
		o->mem[i].free = f->topo.nodes[i].mem_free;
	}
}

/* Ours, as an earlier run or this one left them: running with our pids. */
static void fx_ours(struct fx *f)
{
	struct runtime *rt = &f->rt;
	struct observation *o = &f->obs;

	rt->owns = true;
	rt->rec.first = 0;
	rt->rec.count = f->plan.nr_kdamonds;
	rt->rec.plan_hash = plan_hash(&f->plan);
	rt->numab_checked = true;
	rt->numab_mode = 1;
	o->nr_kdamonds = o->nr_ours = f->plan.nr_kdamonds;
	for (unsigned i = 0; i < f->plan.nr_kdamonds; i++) {
		rt->rec.pids[i] = FX_PID + i;
		rt->kd[i].quota_synced = true;
		rt->kd[i].gain = QCTL_GAIN_ONE;
		rt->kd[i].tried = UINT64_MAX;
		o->all[i] = (struct obs_kdamond){ .on = true, .pid = FX_PID + i };
		o->ours[i].st = o->all[i];
	}
	/* node0 200 MiB free: no demotion, promotion at its cap. */
	rt->kd[0].quota_bytes = QCTL_STOP_BYTES;
	rt->kd[1].quota_bytes = f->plan.kd[1].scheme.quota_cap;
	rt->nr_seen = f->topo.nr_nodes;
	for (unsigned i = 0; i < f->topo.nr_nodes; i++) {
		rt->seen[i].nid = f->topo.nodes[i].nid;
		rt->seen[i].total = f->topo.nodes[i].mem_total;
	}
}

void fx_init(struct fx *f, enum rc_state state)
{
	memset(f, 0, sizeof(*f));
	config_init(&f->cfg);
	f->feat = tu_feat_617;
	tu_vm_topology(&f->topo, &f->tiers);
	runtime_init(&f->rt);
	fx_replan(f);
	fx_observe(f);
	if (state >= RC_ADOPT && state != RC_BLOCKED)
		fx_ours(f);
	if (state == RC_PROBE)
		f->rt.owns = true, f->rt.rec.count = 2;
	f->in = (struct decide_input){
		.state = state,
		.now = FX_NOW,
		.cfg = &f->cfg,
		.plan = state >= RC_PLAN && state != RC_BLOCKED ? &f->plan : NULL,
		.topo_seen = &f->topo,
		.next_plan = &f->next,
		.switch_why = "reload",
		.switch_reload = true,
		.obs = &f->obs,
		.rt = &f->rt,
		.period_due = state == RC_RUNNING,
	};
}

void fx_decide(struct fx *f)
{
	decide(&f->in, &f->d);
}

const char *fx_render(const struct decision *d, char *buf, size_t size)
{
	static const char *const names[] = {
		[ACT_LOG] = "LOG", [ACT_BLOCK] = "BLOCK", [ACT_EXIT] = "EXIT", [ACT_READY] = "READY",
		[ACT_PAUSE_DAMON_STAT] = "PAUSE_DAMON_STAT",
		[ACT_RESTORE_DAMON_STAT] = "RESTORE_DAMON_STAT",
		[ACT_SET_NUMA_BALANCING] = "SET_NUMA_BALANCING",
		[ACT_RESTORE_NUMA_BALANCING] = "RESTORE_NUMA_BALANCING", [ACT_STOP] = "STOP",
		[ACT_SET_NR_KDAMONDS] = "SET_NR_KDAMONDS", [ACT_START] = "START",
		[ACT_COMMIT] = "COMMIT", [ACT_RESTAGE] = "RESTAGE", [ACT_SET_QUOTA] = "SET_QUOTA",
		[ACT_FEED_GOAL] = "FEED_GOAL", [ACT_SAVE_RECORD] = "SAVE_RECORD",
		[ACT_REMOVE_RECORD] = "REMOVE_RECORD",
	};
	size_t off = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < d->n && off < size; i++) {
		const struct action *a = &d->a[i];
		char arg[32] = "";

		switch (a->kind) {
		case ACT_STOP:
		case ACT_START:
		case ACT_COMMIT:
		case ACT_RESTAGE:
		case ACT_SET_QUOTA:
		case ACT_FEED_GOAL:
			snprintf(arg, sizeof(arg), ":%u", a->kd);
			break;
		case ACT_SET_NR_KDAMONDS:
		case ACT_EXIT:
		case ACT_SET_NUMA_BALANCING:
		case ACT_RESTORE_NUMA_BALANCING:
			snprintf(arg, sizeof(arg), "=%" PRIu64, a->value);
			break;
		default:
			break;
		}
		off += (size_t)snprintf(buf + off, size - off, "%s%s%s", i ? " " : "", names[a->kind], arg);
	}
	return buf;
}

bool fx_says(const struct decision *d, const char *needle)
{
	for (unsigned i = 0; i < d->n; i++)
		if (strstr(d->a[i].text, needle))
			return true;
	return false;
}

void fx_run(const struct dcase *cases, size_t n)
{
	static struct fx f;
	char got[2048];

	for (size_t i = 0; i < n; i++) {
		const struct dcase *c = &cases[i];

		fx_init(&f, c->state);
		if (c->setup)
			c->setup(&f);
		fx_decide(&f);
		fx_render(&f.d, got, sizeof(got));
		if (strcmp(got, c->actions) != 0)
			fail_msg("%s: actions \"%s\", expected \"%s\"", c->name, got, c->actions);
		if (f.d.next != c->next)
			fail_msg("%s: next state %s, expected %s", c->name, rc_state_name(f.d.next),
				 rc_state_name(c->next));
		if (c->text && !fx_says(&f.d, c->text))
			fail_msg("%s: no action says \"%s\"", c->name, c->text);
		if (c->check)
			c->check(&f);
	}
}
