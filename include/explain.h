/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * Explain (pure): why promotion and demotion across one tier boundary do
 * what they do, in one reason code per side plus the numbers that back it,
 * for "damon-tierd status", its JSON and the journal's status lines.
 *
 * Nothing here decides anything the daemon does: the reasons are read off
 * what the decisions already left behind -- the reconciler's state, the
 * plan's goals and caps, the quota controller's quota (struct runtime), the
 * fast node's free memory and the kernel's counters of what a scheme tried
 * and moved.  Two steps, both pure and table-tested:
 *   explain_gather()  the daemon's structs -> struct explain_facts
 *   explain_decide()  facts -> struct explain_side (a reason + numbers)
 * and explain_format() turns a side into one line of text.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "decide.h"
#include "exchange.h"

/* Every reason, most general first; explain_reason_name() is the stable
 * name used in the JSON (docs/status-json.md). */
enum explain_reason {
	EXPLAIN_UNKNOWN,            /* nothing observed yet */
	EXPLAIN_NO_KDAMOND,         /* the plan moves nothing this way across this boundary */
	EXPLAIN_STARTING,           /* the daemon is setting up (discover ... apply) */
	EXPLAIN_SWITCHING,          /* a reload or memory hotplug is being applied */
	EXPLAIN_STOPPED,            /* the daemon stops or has stopped */
	EXPLAIN_BLOCKED,            /* blocked, for the reason in the state's detail */
	EXPLAIN_BLOCKED_DAMON_STAT, /* damon_stat is on and the config says damon_stat = keep */
	EXPLAIN_BLOCKED_FOREIGN,    /* a kdamond that is not ours runs */
	EXPLAIN_KDAMOND_UNREADABLE, /* our kdamond's state cannot be read */
	EXPLAIN_KDAMOND_OFF,        /* our kdamond was found off: it is being restarted */
	EXPLAIN_NOT_ARMED,          /* it runs, but arming its scheme failed: retried */
	EXPLAIN_NO_MEMINFO,         /* the fast node's free memory cannot be read */
	EXPLAIN_GOAL_MET,           /* idle: the fast node meets this side's goal */
	EXPLAIN_WAIT_FLOOR,         /* promotion waits: fast node below its floor, demotion first */
	EXPLAIN_NOTHING_ELIGIBLE,   /* the quota allows, but no region qualifies */
	EXPLAIN_LOW_YIELD,          /* the kernel moved little of what it tried */
	EXPLAIN_QUOTA_CAP,          /* the quota is at its cap */
	EXPLAIN_QUOTA_RAMP,         /* the kernel's goal tuner still grows the quota from < 1 page */
	EXPLAIN_ACTIVE,             /* moving toward the goal */
	/* The ranked exchange (exchange.h): see explain_facts.have_xchg. */
	EXPLAIN_NOTHING_HOTTER,     /* promotion idle: nothing on slow hotter than fast's coldest */
	EXPLAIN_EXCHANGE,           /* promotion: hotter data takes the place of colder data */
	EXPLAIN_MAKING_ROOM,        /* demotion: colder data makes room for hotter data */
	_EXPLAIN_REASON_MAX,
};

/* What a side does, the word after "promotion"/"demotion". */
enum explain_activity {
	EXPLAIN_ACT_UNKNOWN,
	EXPLAIN_ACT_NONE,
	EXPLAIN_ACT_IDLE,
	EXPLAIN_ACT_ACTIVE,
	EXPLAIN_ACT_LIMITED,
	EXPLAIN_ACT_WAITING,
	EXPLAIN_ACT_BLOCKED,
	EXPLAIN_ACT_STOPPED,
};

/* What blocks the daemon, as the observation shows it. */
enum explain_block { EXPLAIN_BLOCK_OTHER, EXPLAIN_BLOCK_DAMON_STAT, EXPLAIN_BLOCK_FOREIGN };

/* Less than this tried in a span says nothing about the yield. */
#define EXPLAIN_YIELD_MIN_BYTES (1024ull * 1024)
/* Moved less than 1/EXPLAIN_LOW_YIELD_DIV of what was tried: low yield. */
#define EXPLAIN_LOW_YIELD_DIV 4u

/* Everything explain_decide() looks at, for one side of one boundary. */
struct explain_facts {
	bool promote;               /* the side: promotion (slow -> fast) or demotion */
	enum rc_state state;
	enum explain_block block;   /* RC_BLOCKED: what blocks */
	unsigned foreign_kdamond;   /* EXPLAIN_BLOCK_FOREIGN: which, and its pid */
	int64_t foreign_pid;
	int fast_nid, slow_nid;
	bool present;               /* the plan has this side's kdamond */
	unsigned kdamond;           /* its absolute index */
	bool observed;              /* its state was observed this period */
	int kd_err;                 /* 0, or -errno reading its state */
	bool on, disarmed;
	bool have_mem;              /* the fast node's meminfo */
	uint64_t mem_total, mem_free;
	bool daemon_quota;          /* the daemon's controller sizes the quota (quota_ctl.h) */
	unsigned goal_bp;           /* used goal (promotion) / free goal (demotion) */
	uint64_t floor_bytes;       /* daemon controller: promotion waits below this free */
	bool have_quota;
	uint64_t quota_bytes;       /* what the kernel runs (per quota window) */
	uint64_t cap_bytes;         /* its most (0: none) */
	bool have_span;             /* the kernel's counters over the last span */
	uint64_t tried_bytes, applied_bytes;
	/* The ranked exchange's last reasons for this boundary (struct
	 * xchg_decision, kept in the promote kdamond's runtime), which
	 * explain_decide() prefers where they say more. */
	bool have_xchg;
	enum xchg_promote_why xchg_promote;
	enum xchg_demote_why xchg_demote;
};

/* One side's explanation: the reason and the numbers its text quotes.
 * Numbers without their have_* flag are unknown (null in the JSON). */
struct explain_side {
	enum explain_reason reason;
	bool promote;
	const char *state;          /* STARTING, SWITCHING: rc_state_name() */
	int fast_nid, slow_nid;
	unsigned kdamond;           /* KDAMOND_*, NOT_ARMED, BLOCKED_FOREIGN */
	int64_t pid;                /* BLOCKED_FOREIGN */
	bool have_mem;
	unsigned free_bp, used_bp;  /* the fast node's */
	unsigned goal_bp;
	bool have_floor;
	unsigned floor_bp;          /* as a share of the fast node free */
	bool have_quota;
	uint64_t quota_bytes, cap_bytes;
	bool have_span;
	uint64_t tried_bytes, applied_bytes;
};

/* Pure: the explanation of the side f describes.  Always succeeds. */
void explain_decide(const struct explain_facts *f, struct explain_side *ret);

/* The daemon's view of one side, for explain_gather(). */
struct explain_input {
	enum rc_state state;
	bool damon_stat_keep;               /* [daemon] damon_stat = keep */
	const struct plan *plan;            /* the running plan, or NULL */
	const struct observation *obs;      /* the last observation, or NULL */
	const struct runtime *rt;           /* NULL: nothing known of our kdamonds */
};

/* The kernel's counters of one kdamond over the last span (status.h keeps
 * them). */
struct explain_span {
	bool valid;
	uint64_t tried, applied;
};

/*
 * Pure: the facts of one side of the boundary fast_nid/slow_nid, whose
 * kdamond is plan index kd (-1: the plan has none, or there is no plan).
 * span may be NULL.
 */
void explain_gather(const struct explain_input *in, int fast_nid, int slow_nid, bool promote,
		    int kd, const struct explain_span *span, struct explain_facts *ret);

enum explain_activity explain_activity_of(enum explain_reason r);
/* "goal_met", "idle", ...: stable names for scripts. */
const char *explain_reason_name(enum explain_reason r);
const char *explain_activity_name(enum explain_activity a);

/* Pure: "demotion idle: node0 12.0% free >= goal 10.5%".  0 or -ENOBUFS
 * (buf then holds what fitted). */
int explain_format(const struct explain_side *e, char *buf, size_t size);
