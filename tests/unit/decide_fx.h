/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * The decisions' table tests (test-decide*.c): a fixture that holds every
 * input of decide() -- the QEMU VM's two nodes, a plan made from them, an
 * observation and a runtime that say "all is well" for the state under test
 * -- which each case changes a little before deciding; and the decision
 * rendered as one line ("STOP:0 SET_NR_KDAMONDS=2 ...") to compare with the
 * case's expectation.
 */
#include <stdbool.h>
#include <stddef.h>

#include "config.h"
#include "decide.h"
#include "kernel_features.h"
#include "observe.h"
#include "plan.h"
#include "tiers.h"
#include "topology.h"

#define FX_NOW (1000ull * 1000000)
#define FX_MiB (1024ull * 1024)
#define FX_PID 10000

struct fx {
	struct config cfg;
	struct damon_features feat;
	struct topology topo;
	struct tier_map tiers;
	struct plan plan, next;
	struct observation obs;
	struct runtime rt;
	struct decide_input in;
	struct decision d;
};

/* A case: the state, what changes from the fixture, what must come out. */
struct dcase {
	const char *name;
	enum rc_state state;
	void (*setup)(struct fx *f);   /* NULL: the fixture as it is */
	enum rc_state next;
	/* the rendered decision: every action, in order; LOG and READY by
	 * kind only, START/COMMIT/... with ":<kd>", SET_NR_KDAMONDS, EXIT,
	 * the NUMA balancing modes with "=<value>" */
	const char *actions;
	const char *text;               /* in some action's text, or NULL */
	void (*check)(const struct fx *f); /* more assertions, or NULL */
};

/* The fixture for `state`, on 6.17 with the daemon's quota controller and
 * the default exchange (histogram schemes, no reading yet): plan built,
 * ours running as recorded (from ADOPT on), node0 200 MiB free, every
 * observation of the state read without error. */
void fx_init(struct fx *f, enum rc_state state);
/* The plan again, after a change of f->cfg or f->feat (keeps f->next equal). */
void fx_replan(struct fx *f);
/* decide() on the fixture. */
void fx_decide(struct fx *f);
/* Render f->d into buf. */
const char *fx_render(const struct decision *d, char *buf, size_t size);
/* True if some action's text contains needle. */
bool fx_says(const struct decision *d, const char *needle);
/* Run every case of the table, failing with the case's name. */
void fx_run(const struct dcase *cases, size_t n);
