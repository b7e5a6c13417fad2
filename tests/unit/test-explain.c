/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Why promotion and demotion do what they do (explain.h): one table case
 * per reason, from facts to reason and text; then the facts gathered from
 * the decisions' fixture (decide_fx.h: the VM's two nodes, a plan, a
 * runtime and an observation).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "decide_fx.h"
#include "explain.h"
#include "quota_ctl.h"

#define MiB (1024ull * 1024)
#define N(t) (sizeof(t) / sizeof((t)[0]))

/*
 * The base facts: running, node0 1000 MiB with 200 MiB free, the daemon's
 * controller, promotion's used goal 89.7% and floor 50 MiB, demotion's free
 * goal 10.5%, a 4 MiB quota of a 16 MiB cap, and the kernel moved 45 of the
 * 60 MiB it tried over the last span.
 */
static void base(struct explain_facts *f, bool promote)
{
	*f = (struct explain_facts){
		.promote = promote,
		.state = RC_RUNNING,
		.fast_nid = 0,
		.slow_nid = 1,
		.present = true,
		.kdamond = promote ? 1 : 0,
		.observed = true,
		.on = true,
		.have_mem = true,
		.mem_total = 1000 * MiB,
		.mem_free = 200 * MiB,
		.daemon_quota = true,
		.goal_bp = promote ? 8970 : 1050,
		.floor_bytes = promote ? 50 * MiB : 0,
		.have_quota = true,
		.quota_bytes = 4 * MiB,
		.cap_bytes = 16 * MiB,
		.have_span = true,
		.tried_bytes = 60 * MiB,
		.applied_bytes = 45 * MiB,
	};
}

static void probing(struct explain_facts *f) { f->state = RC_PROBE; }
static void reloading(struct explain_facts *f) { f->state = RC_RELOAD; }
static void done(struct explain_facts *f) { f->state = RC_DONE; }
static void blocked(struct explain_facts *f) { f->state = RC_BLOCKED; }
static void blocked_stat(struct explain_facts *f)
{
	f->state = RC_BLOCKED;
	f->block = EXPLAIN_BLOCK_DAMON_STAT;
}
static void blocked_foreign(struct explain_facts *f)
{
	f->state = RC_BLOCKED;
	f->block = EXPLAIN_BLOCK_FOREIGN;
	f->foreign_kdamond = 3;
	f->foreign_pid = 4242;
}
static void no_kdamond(struct explain_facts *f) { f->present = false; }
static void unobserved(struct explain_facts *f) { f->observed = false; }
static void unreadable(struct explain_facts *f) { f->kd_err = -EIO; }
static void off(struct explain_facts *f) { f->on = false; }
static void disarmed(struct explain_facts *f) { f->disarmed = true; }
static void no_mem(struct explain_facts *f) { f->have_mem = false; }
static void free_12(struct explain_facts *f) { f->mem_free = 120 * MiB; }
static void free_8(struct explain_facts *f) { f->mem_free = 80 * MiB; }
static void free_3(struct explain_facts *f) { f->mem_free = 30 * MiB; }
static void kernel_tuner(struct explain_facts *f)
{
	f->daemon_quota = false;
	f->floor_bytes = 0;
}
static void used_91(struct explain_facts *f)
{
	kernel_tuner(f);
	f->mem_free = 90 * MiB;
}
static void used_80_kernel(struct explain_facts *f) { kernel_tuner(f); }
static void stopped_quota(struct explain_facts *f)
{
	f->mem_free = f->floor_bytes + 4096;
	f->quota_bytes = QCTL_STOP_BYTES;
}
/* The controller stops demotion when less than a page per window is
 * missing: a few KiB short of the goal. */
static void near_goal_stopped(struct explain_facts *f)
{
	f->mem_free = 1000 * MiB / 10000 * 1050 - 2048;
	f->quota_bytes = QCTL_STOP_BYTES;
}
static void nothing_tried(struct explain_facts *f)
{
	f->tried_bytes = 0;
	f->applied_bytes = 0;
}
static void nothing_cold(struct explain_facts *f)
{
	free_8(f);
	nothing_tried(f);
}
static void low_yield(struct explain_facts *f)
{
	free_8(f);
	f->tried_bytes = 145 * MiB;
	f->applied_bytes = 3 * MiB;
}
static void low_yield_at_cap(struct explain_facts *f)
{
	low_yield(f);
	f->quota_bytes = f->cap_bytes;
}
static void little_tried(struct explain_facts *f)
{
	free_8(f);
	f->tried_bytes = 512 * 1024;
	f->applied_bytes = 0;
}
static void at_cap(struct explain_facts *f) { f->quota_bytes = f->cap_bytes; }
static void ramping(struct explain_facts *f)
{
	kernel_tuner(f);
	free_8(f);
	f->quota_bytes = 1;
	nothing_tried(f);
}
static void no_span(struct explain_facts *f) { f->have_span = false; }
static void xchg(struct explain_facts *f, enum xchg_promote_why p, enum xchg_demote_why d)
{
	f->have_xchg = true;
	f->xchg_promote = p;
	f->xchg_demote = d;
}
static void nothing_hotter(struct explain_facts *f) { xchg(f, XP_NOTHING_HOTTER, XD_IDLE); }
static void exchanging(struct explain_facts *f) { xchg(f, XP_EXCHANGE, XD_LUKEWARM_OUT); }
static void into_free(struct explain_facts *f) { xchg(f, XP_INTO_FREE, XD_IDLE); }
static void xchg_floor(struct explain_facts *f)
{
	free_3(f);
	xchg(f, XP_WAIT_FLOOR, XD_FREE_GOAL);
}
static void making_room(struct explain_facts *f) { xchg(f, XP_EXCHANGE, XD_IDLE_OUT); }
static void xchg_while_blocked(struct explain_facts *f)
{
	blocked_stat(f);
	nothing_hotter(f);
}

struct ecase {
	const char *name;
	bool promote;
	void (*setup)(struct explain_facts *f);
	enum explain_reason reason;
	const char *text;           /* the whole explain_format() line */
};

static const struct ecase cases[] = {
	{ "setting up", true, probing, EXPLAIN_STARTING,
	  "promotion waiting: damon-tierd is setting up (state probe)" },
	{ "reloading", false, reloading, EXPLAIN_SWITCHING,
	  "demotion waiting: damon-tierd is applying a new plan (state reload)" },
	{ "stopped", true, done, EXPLAIN_STOPPED, "promotion stopped: damon-tierd has stopped" },
	{ "blocked", false, blocked, EXPLAIN_BLOCKED,
	  "demotion blocked: damon-tierd waits (the state's detail says why)" },
	{ "blocked by damon_stat", true, blocked_stat, EXPLAIN_BLOCKED_DAMON_STAT,
	  "promotion blocked: damon_stat is on (damon_stat = keep)" },
	{ "blocked by a foreign kdamond", false, blocked_foreign, EXPLAIN_BLOCKED_FOREIGN,
	  "demotion blocked: kdamond 3 (pid 4242) is not damon-tierd's" },
	{ "blocked comes before the exchange", true, xchg_while_blocked, EXPLAIN_BLOCKED_DAMON_STAT,
	  "promotion blocked: damon_stat is on (damon_stat = keep)" },
	{ "no kdamond this way", true, no_kdamond, EXPLAIN_NO_KDAMOND,
	  "promotion none: the plan has no kdamond for this direction" },
	{ "not observed", true, unobserved, EXPLAIN_UNKNOWN, "promotion unknown: not observed yet" },
	{ "state unreadable", false, unreadable, EXPLAIN_KDAMOND_UNREADABLE,
	  "demotion unknown: cannot read kdamond 0's state" },
	{ "found off", true, off, EXPLAIN_KDAMOND_OFF,
	  "promotion stopped: kdamond 1 was found off; damon-tierd restarts it" },
	{ "not armed", false, disarmed, EXPLAIN_NOT_ARMED,
	  "demotion waiting: kdamond 0 runs, but its scheme is not armed yet (retried every period)" },
	{ "no meminfo", false, no_mem, EXPLAIN_NO_MEMINFO,
	  "demotion unknown: node0's free memory cannot be read" },
	{ "demotion at its goal", false, free_12, EXPLAIN_GOAL_MET,
	  "demotion idle: node0 12.0% free >= goal 10.5%" },
	{ "demotion stopped a few pages short", false, near_goal_stopped, EXPLAIN_GOAL_MET,
	  "demotion idle: node0 10.5% free >= goal 10.5%" },
	{ "promotion at its goal (kernel tuner)", true, used_91, EXPLAIN_GOAL_MET,
	  "promotion idle: node0 91.0% used >= goal 89.7%" },
	{ "promotion stopped at its floor (controller)", true, stopped_quota, EXPLAIN_GOAL_MET,
	  "promotion idle: node0 5.0% free reaches floor 5.0%" },
	{ "promotion below the floor", true, free_3, EXPLAIN_WAIT_FLOOR,
	  "promotion waiting: node0 3.0% free < floor 5.0%: demotion makes room first" },
	{ "nothing hot enough", true, nothing_tried, EXPLAIN_NOTHING_ELIGIBLE,
	  "promotion idle: nothing on node1 is accessed often enough to promote" },
	{ "nothing cold enough", false, nothing_cold, EXPLAIN_NOTHING_ELIGIBLE,
	  "demotion idle: nothing on node0 is cold enough to demote (node0 8.0% free < goal 10.5%)" },
	{ "low yield", false, low_yield, EXPLAIN_LOW_YIELD,
	  "demotion limited: kernel moved 3.0 of 145 MiB tried (the rest was unmovable or young)" },
	{ "low yield before the cap", false, low_yield_at_cap, EXPLAIN_LOW_YIELD,
	  "demotion limited: kernel moved 3.0 of 145 MiB tried (the rest was unmovable or young)" },
	{ "too little tried to judge", false, little_tried, EXPLAIN_ACTIVE,
	  "demotion active: node0 8.0% free < goal 10.5%, quota 4.0MiB per window, kernel moved "
	  "0.0 of 0.5 MiB tried" },
	{ "quota at its cap", true, at_cap, EXPLAIN_QUOTA_CAP,
	  "promotion limited: quota at its cap (16.0MiB per window)" },
	{ "kernel tuner ramping", false, ramping, EXPLAIN_QUOTA_RAMP,
	  "demotion limited: the kernel's goal tuner has the quota at 1B per window and grows it "
	  "slowly" },
	{ "promotion active", true, NULL, EXPLAIN_ACTIVE,
	  "promotion active: node0 80.0% used < goal 89.7%, quota 4.0MiB per window, kernel moved "
	  "45 of 60 MiB tried" },
	{ "promotion active (kernel tuner)", true, used_80_kernel, EXPLAIN_ACTIVE,
	  "promotion active: node0 80.0% used < goal 89.7%, quota 4.0MiB per window, kernel moved "
	  "45 of 60 MiB tried" },
	{ "demotion active, no span yet", false, no_span, EXPLAIN_GOAL_MET,
	  "demotion idle: node0 20.0% free >= goal 10.5%" },
	{ "promotion active, no span yet", true, no_span, EXPLAIN_ACTIVE,
	  "promotion active: node0 80.0% used < goal 89.7%, quota 4.0MiB per window" },
	{ "exchange: nothing hotter", true, nothing_hotter, EXPLAIN_NOTHING_HOTTER,
	  "promotion idle: nothing on node1 hotter than node0's coldest" },
	{ "exchange: exchanging", true, exchanging, EXPLAIN_EXCHANGE,
	  "promotion active: node1's hotter data takes the place of node0's colder data" },
	{ "exchange: lukewarm out", false, exchanging, EXPLAIN_MAKING_ROOM,
	  "demotion active: node0's colder data makes room for hotter data from node1" },
	{ "exchange: idle out", false, making_room, EXPLAIN_MAKING_ROOM,
	  "demotion active: node0's colder data makes room for hotter data from node1" },
	{ "exchange: into free is the controller's", true, into_free, EXPLAIN_ACTIVE, NULL },
	{ "exchange: demotion idle is the controller's", false, nothing_hotter, EXPLAIN_GOAL_MET, NULL },
	{ "exchange: below the floor", true, xchg_floor, EXPLAIN_WAIT_FLOOR, NULL },
};

static void test_reasons(void **state)
{
	bool seen[_EXPLAIN_REASON_MAX] = { false };

	(void)state;
	for (size_t i = 0; i < N(cases); i++) {
		const struct ecase *c = &cases[i];
		struct explain_facts f;
		struct explain_side e;
		char text[256];

		base(&f, c->promote);
		if (c->setup)
			c->setup(&f);
		explain_decide(&f, &e);
		if (e.reason != c->reason)
			fail_msg("%s: reason %s, expected %s", c->name, explain_reason_name(e.reason),
				 explain_reason_name(c->reason));
		assert_int_equal(explain_format(&e, text, sizeof(text)), 0);
		if (c->text && strcmp(text, c->text) != 0)
			fail_msg("%s: \"%s\", expected \"%s\"", c->name, text, c->text);
		seen[e.reason] = true;
	}
	/* Every reason has a case, a name and an activity. */
	for (int r = 0; r < _EXPLAIN_REASON_MAX; r++) {
		if (!seen[r])
			fail_msg("reason %d (%s) has no case", r, explain_reason_name(r));
		if (r != EXPLAIN_UNKNOWN && strcmp(explain_reason_name(r), "unknown") == 0)
			fail_msg("reason %d has no name", r);
	}
}

static void test_numbers_and_buffer(void **state)
{
	struct explain_facts f;
	struct explain_side e;
	char text[16];

	(void)state;
	base(&f, true);
	free_3(&f);
	explain_decide(&f, &e);
	assert_true(e.have_mem && e.have_floor && e.have_quota && e.have_span);
	assert_int_equal(e.free_bp, 300);
	assert_int_equal(e.used_bp, 9700);
	assert_int_equal(e.floor_bp, 500);
	assert_int_equal(e.goal_bp, 8970);
	assert_int_equal(e.quota_bytes, 4 * MiB);
	assert_int_equal(e.tried_bytes, 60 * MiB);
	/* No kdamond: no quota or span to show. */
	base(&f, false);
	no_kdamond(&f);
	explain_decide(&f, &e);
	assert_false(e.have_quota || e.have_span || e.have_floor);
	/* Too small a buffer: -ENOBUFS and a terminated prefix. */
	assert_int_equal(explain_format(&e, text, sizeof(text)), -ENOBUFS);
	assert_int_equal(strlen(text), sizeof(text) - 1);
	assert_string_equal(explain_activity_name(explain_activity_of(EXPLAIN_LOW_YIELD)), "limited");
}

/* The status formats give a text 256 bytes (status.c): every reason fits
 * with the widest numbers. */
static void test_widest_fits(void **state)
{
	char text[256];

	(void)state;
	for (int r = 0; r < _EXPLAIN_REASON_MAX; r++) {
		const struct explain_side e = {
			.reason = r, .promote = r % 2, .state = "teardown", .fast_nid = INT32_MIN,
			.slow_nid = INT32_MIN, .kdamond = UINT32_MAX, .pid = INT64_MIN, .have_mem = true,
			.free_bp = 10000, .used_bp = 10000, .goal_bp = 10000, .have_floor = true,
			.floor_bp = 10000, .have_quota = true, .quota_bytes = UINT64_MAX,
			.cap_bytes = UINT64_MAX, .have_span = true, .tried_bytes = UINT64_MAX,
			.applied_bytes = UINT64_MAX,
		};

		if (explain_format(&e, text, sizeof(text)) != 0)
			fail_msg("reason %s does not fit: %s", explain_reason_name(r), text);
	}
}

/* ---- gathered from the daemon's structs ---- */

static void gather(const struct fx *f, enum rc_state state, bool keep, bool promote, int kd,
		   const struct explain_span *sp, struct explain_side *ret)
{
	const struct explain_input in = {
		.state = state,
		.damon_stat_keep = keep,
		.plan = state == RC_RUNNING ? &f->plan : NULL,
		.obs = &f->obs,
		.rt = &f->rt,
	};
	struct explain_facts facts;

	explain_gather(&in, 0, 1, promote, kd, sp, &facts);
	explain_decide(&facts, ret);
}

/* The fixture's plan: kdamond 0 demotes node0, kdamond 1 promotes node1. */
static void test_gather_running(void **state)
{
	static struct fx f;
	const struct explain_span sp = { .valid = true, .tried = 8 * MiB, .applied = 6 * MiB };
	struct explain_side e;

	(void)state;
	fx_init(&f, RC_RUNNING);
	assert_int_equal(f.plan.kd[0].role, ROLE_DEMOTE);
	assert_int_equal(f.plan.kd[1].role, ROLE_PROMOTE);
	/* node0 200 MiB free: demotion at its goal, promotion at its cap. */
	gather(&f, RC_RUNNING, false, false, 0, &sp, &e);
	assert_int_equal(e.reason, EXPLAIN_GOAL_MET);
	assert_true(e.have_mem && e.have_quota && e.have_span);
	assert_int_equal(e.goal_bp, plan_calibration_of(&f.plan, 0)->eff_free_bp);
	gather(&f, RC_RUNNING, false, true, 1, &sp, &e);
	assert_int_equal(e.reason, EXPLAIN_QUOTA_CAP);
	assert_int_equal(e.quota_bytes, f.plan.kd[1].scheme.quota_cap);
	assert_int_equal(e.kdamond, 1);
	/* Nothing tried over the span: nothing on node1 qualifies. */
	f.rt.kd[1].quota_bytes = 1 * MiB;
	gather(&f, RC_RUNNING, false, true, 1, &(struct explain_span){ .valid = true }, &e);
	assert_int_equal(e.reason, EXPLAIN_NOTHING_ELIGIBLE);
	/* Below the floor. */
	f.obs.mem[0].free = 4 * MiB;
	gather(&f, RC_RUNNING, false, true, 1, &sp, &e);
	assert_int_equal(e.reason, EXPLAIN_WAIT_FLOOR);
	assert_true(e.have_floor);
	/* Found off, not armed, no kdamond this way. */
	f.obs.ours[1].st.on = false;
	gather(&f, RC_RUNNING, false, true, 1, &sp, &e);
	assert_int_equal(e.reason, EXPLAIN_KDAMOND_OFF);
	f.rt.kd[0].disarmed = true;
	gather(&f, RC_RUNNING, false, false, 0, &sp, &e);
	assert_int_equal(e.reason, EXPLAIN_NOT_ARMED);
	gather(&f, RC_RUNNING, false, false, -1, NULL, &e);
	assert_int_equal(e.reason, EXPLAIN_NO_KDAMOND);
	/* No meminfo this period. */
	f.rt.kd[0].disarmed = false;
	f.obs.meminfo_err = -EIO;
	gather(&f, RC_RUNNING, false, false, 0, &sp, &e);
	assert_int_equal(e.reason, EXPLAIN_NO_MEMINFO);
}

/* The kernel's goal tuner: the effective quota is the kernel's. */
static void test_gather_kernel_tuner(void **state)
{
	static struct fx f;
	struct explain_side e;

	(void)state;
	fx_init(&f, RC_RUNNING);
	f.cfg.quota_tuner = QUOTA_TUNER_KERNEL;
	fx_replan(&f);
	f.obs.mem[0].free = 20 * MiB;
	f.obs.ours[0].stats.effective_bytes = 3 * MiB;
	gather(&f, RC_RUNNING, false, false, 0, NULL, &e);
	assert_int_equal(e.reason, EXPLAIN_ACTIVE);
	assert_true(e.have_quota);
	assert_int_equal(e.quota_bytes, 3 * MiB);
	assert_int_equal(e.cap_bytes, f.plan.kd[0].scheme.quota_bytes);
	/* No effective quota reported: unknown, not zero. */
	f.obs.ours[0].stats.effective_bytes = 0;
	gather(&f, RC_RUNNING, false, false, 0, NULL, &e);
	assert_false(e.have_quota);
}

static void test_gather_blocked(void **state)
{
	static struct fx f;
	struct explain_side e;

	(void)state;
	fx_init(&f, RC_BLOCKED);
	/* damon_stat on with damon_stat = keep. */
	f.obs.mods.mod[DAMON_MOD_STAT].enabled = true;
	gather(&f, RC_BLOCKED, true, true, -1, NULL, &e);
	assert_int_equal(e.reason, EXPLAIN_BLOCKED_DAMON_STAT);
	/* With pause it would not block for that: something else did. */
	gather(&f, RC_BLOCKED, false, true, -1, NULL, &e);
	assert_int_equal(e.reason, EXPLAIN_BLOCKED);
	/* A kdamond not ours, checked first as decide.c does. */
	f.obs.nr_kdamonds = 1;
	f.obs.all[0] = (struct obs_kdamond){ .on = true, .pid = 4242 };
	gather(&f, RC_BLOCKED, true, false, -1, NULL, &e);
	assert_int_equal(e.reason, EXPLAIN_BLOCKED_FOREIGN);
	assert_int_equal(e.kdamond, 0);
	assert_int_equal(e.pid, 4242);
	/* Ours (recorded, same pid) does not block. */
	f.rt.owns = true;
	f.rt.rec.count = 1;
	f.rt.rec.pids[0] = 4242;
	gather(&f, RC_BLOCKED, false, false, -1, NULL, &e);
	assert_int_equal(e.reason, EXPLAIN_BLOCKED);
	/* Without the host observation nothing is classified. */
	f.obs.got &= ~(unsigned)OBS_HOST;
	f.rt.owns = false;
	gather(&f, RC_BLOCKED, true, false, -1, NULL, &e);
	assert_int_equal(e.reason, EXPLAIN_BLOCKED);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reasons),
		cmocka_unit_test(test_numbers_and_buffer),
		cmocka_unit_test(test_widest_fits),
		cmocka_unit_test(test_gather_running),
		cmocka_unit_test(test_gather_kernel_tuner),
		cmocka_unit_test(test_gather_blocked),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
