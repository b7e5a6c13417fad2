/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * Decide (pure): (state, plan, observation, runtime) -> actions.
 *
 * Every choice the daemon makes about the kernel is made here and nowhere
 * else: refuse, block or go on at start, adopt or replace the kdamonds of a
 * crashed run, start and arm, restart what was found off, re-commit what
 * drifted, the quota controller's tick, the goal values fed on kernels
 * without node goals, online reload and memory hotplug, and what to give
 * back at the end.  No I/O: the inputs are plain structs (observe.h,
 * plan.h), the output is a list of actions that actuate.h carries out, plus
 * the runtime state as it is once the actions succeed.  What the result of
 * an action changes (a new pid, a failure) is folded back by decide_settle().
 *
 * The plan is the desired state and is never changed here; what changes at
 * run time (the controller's quotas, fed goal values, pids, who is armed)
 * lives in struct runtime.
 */
#include <stdbool.h>
#include <stdint.h>

#include "cgroup_rules.h"
#include "config.h"
#include "hotness.h"
#include "observe.h"
#include "owner.h"
#include "plan.h"

_Static_assert(PLAN_MAX_KDAMONDS <= OWNER_MAX_KDAMONDS, "the record holds every kdamond's pid");

/*
 * The states of the reconciler (reconcile.h), which steps through them:
 *
 *   DISCOVER -> PROBE -> PLAN -> APPLY -> RUNNING (repairs, quota ticks)
 *                          \-> ADOPT --/     | hotplug: REPLAN -> SWITCH
 *   BLOCKED (backoff) -> DISCOVER            | SIGHUP:  RELOAD -> SWITCH
 *   any -> TEARDOWN -> DONE
 */
enum rc_state {
	RC_DISCOVER,  /* observe the host; refuse, block, or take the kdamond slots */
	RC_PROBE,     /* probe the kernel's features in our kdamond 0 */
	RC_PLAN,      /* build the plan (reconcile.c, plan.h) */
	RC_ADOPT,     /* keep the kdamonds of a previous run, or replace them */
	RC_APPLY,     /* start and arm every kdamond of the plan */
	RC_RUNNING,   /* supervise: repair, quota ticks, goal feeding */
	RC_BLOCKED,   /* something outside our control stops us: wait, discover again */
	RC_RELOAD,    /* SIGHUP: re-read the config, build a plan (reconcile.c) */
	RC_REPLAN,    /* node memory changed: re-read the topology, build a plan */
	RC_SWITCH,    /* make the new plan the running one: commit online or restart */
	RC_TEARDOWN,  /* give everything back */
	RC_DONE,
};

const char *rc_state_name(enum rc_state s);

/* Per kdamond of the plan (index = plan index). */
struct kd_runtime {
	bool disarmed;            /* started, but the arming commit failed */
	uint64_t quota_bytes;     /* daemon quota: what the kernel runs (last staged) */
	bool quota_synced;        /* quota_bytes is known to be in the kernel */
	unsigned gain;            /* the controller's yield gain (quota_ctl.h) */
	unsigned ticks;           /* controller ticks since its last quota commit */
	uint64_t tried, applied;  /* charge counters at the last tick; tried UINT64_MAX: none */
	uint64_t goal_current;    /* user_input goals: the value last fed */
	/* The cgroup schemes' user_input goals (plan.h): the values last fed,
	 * which a commit stages so the goal tuner never sees a 0 */
	uint64_t cg_goal_current[CONFIG_MAX_CGROUPS];
	/* The exchange (kdamonds with histogram schemes, exchange.h) */
	bool hist_prev_ok;        /* hist_prev holds a reading of the counters */
	uint64_t hist_prev[HOT_MAX_BUCKETS];
	struct hot_hist hist;     /* the last histogram measured */
	bool ctl_known;           /* the bounds below are in the kernel; else the plan's */
	uint32_t nr_min, nr_max;  /* the migration scheme's nr_accesses bounds */
	bool young;               /* ...and its young filter */
	uint8_t promote_why, demote_why; /* the last decision's reasons */
};

/* What a failed action left for the next decision in the same state. */
struct failure {
	bool set;
	int kind;                 /* enum action_kind */
	unsigned kd;
	int err;
	char path[OBS_PATH_MAX + 16];
};

struct runtime {
	bool owns;                /* the record's kdamonds are ours */
	struct owner_record rec;  /* ours: [first, first + count), pids, plan hash, damon_stat */
	bool adopting;            /* a previous run's kdamonds run: ADOPT after PLAN */
	bool no_adopt;            /* ...and they did not match: replace them */
	bool numab_checked;       /* NUMA balancing looked at once */
	int numab_saved;          /* mode we changed, to restore; -1: untouched */
	int numab_mode;           /* as found; -1: unknown */
	unsigned attempts;        /* consecutive failures, for the backoff */
	uint64_t blocked_until;   /* no setup or repair before this (CLOCK_MONOTONIC us) */
	char blocked_reason[512];
	int blocked_code;         /* --once/--dry-run exit with it: EXIT_CONFLICT when
	                           * another DAMON user blocks, EXIT_FAILURE_RUNTIME
	                           * when a read or setup failed */
	uint64_t notes_said;      /* hash of the topology warnings last said */
	bool repaired, repair_failed; /* this tick's repairs, and whether one failed */
	bool ctl_retry;           /* a quota commit failed: tick again soon */
	uint64_t repairs, errors, ctl_commits;
	struct failure failure;
	/* MemTotal of every node when the running plan was made: a change is
	 * memory hotplug */
	unsigned nr_seen;
	struct {
		int nid;
		uint64_t total;
	} seen[TOPO_MAX_NODES];
	struct kd_runtime kd[PLAN_MAX_KDAMONDS];
};

/* A fresh runtime: owns nothing, nothing changed. */
void runtime_init(struct runtime *rt);

enum action_kind {
	ACT_LOG,                  /* text at prio */
	ACT_BLOCK,                /* text: why; wait (backoff) then discover again */
	ACT_EXIT,                 /* value: exit code; text logged at prio if any */
	ACT_READY,                /* tell systemd we are up; text: the status */
	ACT_PAUSE_DAMON_STAT,     /* record first, then write N (restored at exit) */
	ACT_RESTORE_DAMON_STAT,
	ACT_SET_NUMA_BALANCING,   /* value: the mode to write; from: the mode found */
	ACT_RESTORE_NUMA_BALANCING, /* value: the mode to write back */
	ACT_STOP,                 /* kd: absolute index of our kdamond to turn off */
	ACT_SET_NR_KDAMONDS,      /* value (refused while any kdamond is on) */
	ACT_START,                /* kd: plan index; start disarmed, read the pid, arm */
	ACT_COMMIT,               /* kd: plan index; stage the plan's files and commit */
	ACT_RESTAGE,              /* kd: stage the running plan's files, no commit (rollback) */
	ACT_SET_QUOTA,            /* kd, value: bytes per window (daemon quota); with
				   * control also the exchange's bounds */
	ACT_FEED_GOAL,            /* kd, value: the user_input goal's current value */
	ACT_SAVE_RECORD,          /* of the running plan, or next_plan's */
	ACT_REMOVE_RECORD,
};

/* The ratelimits of warnings that may repeat every period. */
enum act_limit { LIMIT_NONE, LIMIT_SUPERVISE, LIMIT_CONTROL };

struct action {
	enum action_kind kind;
	unsigned kd;
	uint64_t value;
	uint64_t from;            /* SET_NUMA_BALANCING: the mode found */
	unsigned scheme;          /* FEED_GOAL: the scheme (0, or a cgroup scheme) */
	unsigned cg;              /* FEED_GOAL, scheme > 0: the index in the kdamond's cg[] */
	/* START / COMMIT: what is staged besides the plan */
	uint64_t quota_bytes;     /* daemon quota (the plan's otherwise) */
	uint64_t goal_current;    /* user_input goal */
	/* SET_QUOTA with control: the migration scheme's nr_accesses bounds
	 * and young filter (the exchange's) */
	bool control;
	uint32_t nr_min, nr_max;
	bool young;
	bool next_plan;           /* COMMIT, SAVE_RECORD: of the plan being switched to */
	bool restart;             /* START: of a kdamond found off */
	/* On failure: stop here, and the next decision sees rt->failure (it
	 * logs); otherwise actuate logs "cannot <what>" and goes on. */
	bool abort;
	int prio;                 /* LOG, EXIT, and the text of a success */
	enum act_limit limit;     /* LOG, and a failure's warning: ratelimited */
	const char *event;        /* LOG, EXIT: the journal's DAMON_TIERD_EVENT, or NULL */
	char what[96];            /* for the failure message: "re-commit kdamond 1" */
	/* LOG, EXIT, BLOCK, READY: the message; START, COMMIT, SET_QUOTA,
	 * SET_NUMA_BALANCING: logged at prio once it succeeded ("" = nothing) */
	char text[640];
};

#define DECIDE_MAX_ACTIONS (6 * PLAN_MAX_KDAMONDS + 16)

struct decision {
	enum rc_state next;       /* the state once every action succeeded */
	bool take_next_plan;      /* SWITCH: the new plan becomes the running one */
	struct runtime rt;        /* the runtime as it is once the actions succeeded */
	unsigned n;
	struct action a[DECIDE_MAX_ACTIONS];
};

struct decide_input {
	enum rc_state state;
	uint64_t now;
	const struct config *cfg;       /* the running configuration */
	const struct plan *plan;        /* the running plan; NULL before PLAN */
	const struct topology *topo_seen; /* what the (next) plan is made from */
	const struct plan *next_plan;   /* SWITCH: the plan to switch to */
	const char *switch_why;         /* SWITCH: "reload" or "memory hotplug", for the log */
	bool switch_reload;             /* SWITCH: a reload (the new plan's goals are logged) */
	bool state_dir_changed;         /* SWITCH (reload): the record moves */
	const struct observation *obs;
	const struct runtime *rt;
	bool fresh;      /* --dry-run: plan as on a machine where nothing of ours runs */
	bool once;       /* --once: leave the kdamonds running and exit */
	/* RUNNING: which ticks are due (what obs was asked for) */
	bool period_due, control_due, verify_due;
	/* PLAN: plan_build failed; err says why */
	int plan_err;
	const char *plan_why;
	/* The kernel's features (NULL before PROBE), for what the [cgroup]
	 * rules become */
	const struct damon_features *feat;
	/* The cgroups of the [cgroup] rules as the running plan has them, and
	 * RUNNING: cgroup_switch = they changed and next_plan is made for
	 * next_cgv (cgroup_rules.h) */
	const struct cgroup_view *cgv, *next_cgv;
	bool cgroup_switch;
};

/*
 * The observations each state's decision needs (OBS_* bits); RUNNING's
 * depend on the ticks due.  rt->failure adds what a failure needs (e.g. the
 * modules after a start refused with EBUSY).
 */
unsigned decide_needs(enum rc_state state, const struct runtime *rt, bool period_due,
		      bool control_due, bool verify_due);

/* The decision for in->state.  Always succeeds; *out is overwritten. */
void decide(const struct decide_input *in, struct decision *out);

/* The result of one action, as actuate.h reports it. */
struct act_result {
	int err;                  /* 0 or -errno */
	int arm_err;              /* START: 0, or the arming's -errno (it runs disarmed) */
	int64_t pid;              /* START: the kdamond's pid */
	char path[OBS_PATH_MAX + 16]; /* the file behind err */
};

/*
 * Fold the result of action a into rt (pure): pids, armed state, the
 * controller's synced quota, counters, the repair backoff, and on an
 * aborting failure rt->failure.  Returns true if the remaining actions of
 * the decision must not run.
 */
bool decide_settle(struct runtime *rt, const struct action *a, const struct act_result *res,
		   enum rc_state state, uint64_t now);

/* Backoff before the n-th consecutive retry: 1 s doubling to 5 min. */
uint64_t decide_backoff_usec(unsigned attempts);
