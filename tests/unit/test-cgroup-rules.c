/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * [cgroup] rules, pure: the view of their cgroups (presence, ids, shares,
 * the fast_share shield's hysteresis, the goal's size), what each rule adds
 * to a plan on each kernel, the goal arithmetic, the sentence for the log,
 * and memory.numa_stat.  No filesystem.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cgroup_rules.h"
#include "config_fx.h"
#include "parse.h"
#include "plan.h"
#include "testutil.h"

#define MiB (1024ull * 1024)

static const char rules[] = "[cgroup /svc]\nprotect = yes\nfast_share = 80%\n"
			    "[cgroup batch.slice]\npromote = no\n"
			    "[cgroup /web]\nfast_share = 50%\n";

/* An observation: each rule's cgroup present or not, with bytes on node 0
 * (fast) and node 1. */
static void obs_set(struct obs_cgroups *o, unsigned i, const char *name, const char *path,
		    uint64_t id, uint64_t n0, uint64_t n1)
{
	struct obs_cgroup *c = &o->cg[i];

	memset(c, 0, sizeof(*c));
	snprintf(c->name, sizeof(c->name), "%s", name);
	if (o->n <= i)
		o->n = i + 1;
	if (!path)
		return;
	c->present = true;
	snprintf(c->path, sizeof(c->path), "%s", path);
	c->id = id;
	c->node_bytes[0] = n0;
	c->node_bytes[1] = n1;
}

static void test_view(void **state)
{
	struct config c;
	struct config_error err;
	struct obs_cgroups o = { 0 };
	struct cgroup_view v0, v1, v2;

	(void)state;
	assert_int_equal(cfx_load(rules, &c, &err), 0);
	obs_set(&o, 0, "/svc", "/svc", 7, 90 * MiB, 10 * MiB);
	obs_set(&o, 1, "batch.slice", NULL, 0, 0, 0);
	obs_set(&o, 2, "/web", "/web", 9, 70 * MiB, 30 * MiB);
	cgroup_view_next(&c, &o, 1, NULL, NULL, &v0);
	assert_int_equal(v0.n, 3);
	assert_true(v0.cg[0].present && v0.cg[0].have_share);
	assert_int_equal(v0.cg[0].share_bp, 9000);
	assert_int_equal(v0.cg[0].planned_total, 100 * MiB);
	assert_false(v0.cg[0].shielded);          /* 90% >= 80% */
	assert_false(v0.cg[1].present);
	assert_int_equal(v0.cg[2].share_bp, 7000);
	assert_false(v0.cg[2].shielded);          /* 70% >= 50% */

	/* /web falls below its 50%: shielded; it stays shielded until 52%. */
	obs_set(&o, 2, "/web", "/web", 9, 45 * MiB, 55 * MiB);
	cgroup_view_next(&c, &o, 1, &c, &v0, &v1);
	assert_true(v1.cg[2].shielded);
	assert_true(cgroup_view_differs(&v0, &v1));
	obs_set(&o, 2, "/web", "/web", 9, 51 * MiB, 49 * MiB);
	cgroup_view_next(&c, &o, 1, &c, &v1, &v2);
	assert_true(v2.cg[2].shielded);
	assert_false(cgroup_view_differs(&v1, &v2));
	obs_set(&o, 2, "/web", "/web", 9, 52 * MiB, 48 * MiB);
	cgroup_view_next(&c, &o, 1, &c, &v2, &v1);
	assert_false(v1.cg[2].shielded);

	/* The goal follows a size change beyond an eighth only. */
	obs_set(&o, 0, "/svc", "/svc", 7, 100 * MiB, 10 * MiB);
	cgroup_view_next(&c, &o, 1, &c, &v1, &v2);
	assert_int_equal(v2.cg[0].planned_total, 100 * MiB);
	assert_false(cgroup_view_differs(&v1, &v2));
	obs_set(&o, 0, "/svc", "/svc", 7, 110 * MiB, 10 * MiB);
	cgroup_view_next(&c, &o, 1, &c, &v2, &v1);
	assert_int_equal(v1.cg[0].planned_total, 120 * MiB);
	assert_true(cgroup_view_differs(&v2, &v1));

	/* A unit found, a cgroup created again (new id), one gone. */
	obs_set(&o, 1, "batch.slice", "/batch.slice", 11, 0, 5 * MiB);
	obs_set(&o, 0, "/svc", "/svc", 8, 110 * MiB, 10 * MiB);
	obs_set(&o, 2, "/web", NULL, 0, 0, 0);
	cgroup_view_next(&c, &o, 1, &c, &v1, &v2);
	assert_true(v2.cg[1].present);
	assert_string_equal(v2.cg[1].path, "/batch.slice");
	assert_int_equal(v2.cg[0].id, 8);
	assert_false(v2.cg[2].present);
	assert_true(cgroup_view_differs(&v1, &v2));

	/* Not observed (a reload's new rule order): kept by name. */
	struct config c2;

	assert_int_equal(cfx_load("[cgroup /web]\nfast_share = 50%\n[cgroup /svc]\nprotect = yes\n", &c2, &err), 0);
	cgroup_view_next(&c2, NULL, 1, &c, &v2, &v1);
	assert_int_equal(v1.n, 2);
	assert_false(v1.cg[0].present);
	assert_true(v1.cg[1].present);
	assert_int_equal(v1.cg[1].id, 8);
	assert_false(v1.cg[1].shielded); /* no fast_share any more */
}

static void test_goal_arithmetic(void **state)
{
	struct obs_cgroup o = { .node_bytes = { 100 * MiB, 25 * MiB } };

	(void)state;
	/* 80% of 125 MiB on a 500 MiB fast tier: 20% of the node. */
	assert_int_equal(cgroup_goal_target_bp(8000, 125 * MiB, 500 * MiB), 2000);
	assert_int_equal(cgroup_goal_target_bp(8000, 0, 500 * MiB), 0);
	assert_int_equal(cgroup_goal_target_bp(10000, 900 * MiB, 500 * MiB), 10000);
	assert_int_equal(cgroup_goal_target_bp(1, 1, 500 * MiB), 1);
	assert_int_equal(cgroup_goal_current_bp(&o, 0, 500 * MiB), 2000);
	assert_int_equal(cgroup_goal_current_bp(&o, 1, 500 * MiB), 500);
	assert_int_equal(cgroup_goal_current_bp(&o, 0, 0), 0);
	o.stat_err = -EBADMSG;
	assert_int_equal(cgroup_goal_current_bp(&o, 0, 500 * MiB), 0);
}

/* The filters and cgroup schemes each rule adds, on 6.12, 6.17 and 7.3. */
static void test_apply(void **state)
{
	const struct damon_features *feats[] = { &tu_feat_612, &tu_feat_617, &tu_feat_617, &tu_feat_617 };
	struct config c;
	struct config_error err;
	struct obs_cgroups o = { 0 };
	struct cgroup_view v;
	struct topology t;
	struct tier_map m;
	static struct plan p;
	char why[256];

	(void)state;
	assert_int_equal(cfx_load(rules, &c, &err), 0);
	tu_vm_topology(&t, &m);
	obs_set(&o, 0, "/svc", "/svc", 7, 100 * MiB, 0);
	obs_set(&o, 1, "batch.slice", "/batch.slice", 8, 0, 10 * MiB);
	obs_set(&o, 2, "/web", "/web", 9, 10 * MiB, 90 * MiB);
	cgroup_view_next(&c, &o, 1, NULL, NULL, &v);
	/* k = 3: a 7.2+ kernel, with fail_charge. */
	for (unsigned k = 0; k < 4; k++) {
		struct damon_features f = *feats[k];
		const struct plan_kdamond *dem, *pro;

		f.memcg_goals = k >= 2;
		f.fail_charge = k == 3;
		assert_int_equal(plan_build_cg(&t, &m, &f, &c, &v, &p, why, sizeof(why)), 0);
		dem = p.kd[0].role == ROLE_DEMOTE ? &p.kd[0] : &p.kd[1];
		pro = p.kd[0].role == ROLE_DEMOTE ? &p.kd[1] : &p.kd[0];
		/* Demotion: /svc (protect) and /web (below its share). */
		assert_int_equal(dem->scheme.nr_memcg, 2);
		assert_string_equal(dem->scheme.memcg[0].path, "/svc");
		assert_string_equal(dem->scheme.memcg[1].path, "/web");
		assert_true(dem->scheme.memcg[0].matching);
		assert_int_equal(dem->scheme.filter_dir, k == 0 ? FILTER_DIR_LEGACY : FILTER_DIR_OPS);
		assert_int_equal(dem->nr_cg, 0);
		/* Promotion: batch.slice (promote = no), found at its path. */
		assert_int_equal(pro->scheme.nr_memcg, 1);
		assert_string_equal(pro->scheme.memcg[0].path, "/batch.slice");
		/* One scheme per fast_share rule, with its goal. */
		assert_int_equal(pro->nr_cg, 2);
		assert_true(pro->cg[0].armed && pro->cg[1].armed);
		assert_string_equal(pro->cg[0].path, "/svc");
		assert_int_equal(pro->cg[0].goal.nid, pro->to_nid);
		assert_int_equal(pro->cg[0].goal.metric, k >= 2 ? GOAL_NODE_MEMCG_USED_BP : GOAL_USER_INPUT);
		assert_string_equal(pro->cg[0].goal.path, k >= 2 ? "/svc" : "");
		/* Rejected pages charge 1/32 where the kernel can: both
		 * migration schemes carry a memcg filter. */
		assert_int_equal(dem->scheme.fail_charge_num, k == 3 ? CGROUP_FAIL_CHARGE_NUM : 0);
		assert_int_equal(dem->scheme.fail_charge_denom, k == 3 ? CGROUP_FAIL_CHARGE_DENOM : 0);
		assert_int_equal(pro->scheme.fail_charge_num, k == 3 ? CGROUP_FAIL_CHARGE_NUM : 0);
		assert_int_equal(pro->scheme.fail_charge_denom, k == 3 ? CGROUP_FAIL_CHARGE_DENOM : 0);
		assert_int_equal(pro->cg[0].goal.target_value,
				 cgroup_goal_target_bp(8000, 100 * MiB, t.nodes[0].mem_total));
		assert_int_equal(pro->cg[1].goal.target_value,
				 cgroup_goal_target_bp(5000, 100 * MiB, t.nodes[0].mem_total));
	}

	/* Missing cgroups: no filter, the scheme stays (same shape), unarmed. */
	obs_set(&o, 0, "/svc", NULL, 0, 0, 0);
	obs_set(&o, 1, "batch.slice", NULL, 0, 0, 0);
	obs_set(&o, 2, "/web", NULL, 0, 0, 0);
	cgroup_view_next(&c, &o, 1, NULL, NULL, &v);
	assert_int_equal(plan_build_cg(&t, &m, &tu_feat_617, &c, &v, &p, why, sizeof(why)), 0);
	struct damon_features f72 = tu_feat_617;

	f72.fail_charge = true;
	assert_int_equal(plan_build_cg(&t, &m, &f72, &c, &v, &p, why, sizeof(why)), 0);
	for (unsigned i = 0; i < p.nr_kdamonds; i++) {
		/* No filter, no reduced charge. */
		assert_int_equal(p.kd[i].scheme.fail_charge_denom, 0);
		assert_int_equal(p.kd[i].scheme.nr_memcg, 0);
		assert_int_equal(p.kd[i].nr_cg, p.kd[i].role == ROLE_PROMOTE ? 2 : 0);
		for (unsigned j = 0; j < p.kd[i].nr_cg; j++)
			assert_false(p.kd[i].cg[j].armed);
	}
	/* Without a view the plan is plan_build()'s. */
	static struct plan q;

	assert_int_equal(plan_build(&t, &m, &tu_feat_617, &c, &q, why, sizeof(why)), 0);
	assert_int_equal(plan_hash(&p), plan_hash(&q));
}

static void test_describe(void **state)
{
	struct config c;
	struct config_error err;
	struct damon_features f = tu_feat_612;
	char buf[640];

	(void)state;
	assert_int_equal(cfx_load(rules, &c, &err), 0);
	assert_int_equal(cgroup_rule_describe(&c.cgroups[0], &f, buf, sizeof(buf)), 0);
	assert_non_null(strstr(buf, "cgroup /svc: protect: a memcg filter rejecting its pages on every "
				    "demotion scheme, beside the young filter"));
	assert_non_null(strstr(buf, "a user_input goal the daemon feeds from memory.numa_stat"));
	f = tu_feat_617;
	f.memcg_goals = true;
	assert_int_equal(cgroup_rule_describe(&c.cgroups[0], &f, buf, sizeof(buf)), 0);
	assert_non_null(strstr(buf, "ahead of the young filter (first match decides)"));
	assert_non_null(strstr(buf, "a node_memcg_used_bp goal on the fast node"));
	assert_int_equal(cgroup_rule_describe(&c.cgroups[1], NULL, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "cgroup batch.slice: promote = no: a memcg filter rejecting its pages on "
				 "every promotion scheme, ahead of the young filter; on 7.2 and later a "
				 "filtered scheme charges its quota 1/32 for bytes it does not move "
				 "(fail_charge), elsewhere in full");
	assert_non_null(strstr(buf, "1/32"));
	assert_int_equal(cgroup_rule_describe(&c.cgroups[1], &f, buf, sizeof(buf)), 0);
	assert_non_null(strstr(buf, "count against the scheme's quota in full"));
	f.fail_charge = true;
	assert_int_equal(cgroup_rule_describe(&c.cgroups[1], &f, buf, sizeof(buf)), 0);
	assert_non_null(strstr(buf, "so rejected pages do not use it up"));
	assert_int_equal(cgroup_rule_describe(&c.cgroups[2], NULL, buf, sizeof(buf)), 0);
	assert_non_null(strstr(buf, "below the share demotion rejects its pages too"));
	assert_int_equal(cgroup_rule_describe(&c.cgroups[0], NULL, buf, 40), -ENOBUFS);
}

static void test_numa_stat(void **state)
{
	uint64_t b[4] = { 9, 9, 9, 9 };

	(void)state;
	assert_int_equal(parse_memcg_numa_stat("anon N0=4096 N1=8192\nfile N0=1 N1=2\n"
					       "anon_thp N0=100 N1=0\nkernel_stack N0=5 N1=0\n", b, 2), 0);
	assert_int_equal(b[0], 4097);
	assert_int_equal(b[1], 8194);
	assert_int_equal(b[2], 9); /* past max: untouched */
	assert_int_equal(parse_memcg_numa_stat("anon N0=1\n", b, 2), -EINVAL);        /* no file line */
	assert_int_equal(parse_memcg_numa_stat("anon N0=x\nfile N0=1\n", b, 2), -EINVAL);
	assert_int_equal(parse_memcg_numa_stat("anon N5=1\nfile N0=1\n", b, 2), -EINVAL); /* node >= max */
	assert_int_equal(parse_memcg_numa_stat("anon N0=1 junk\nfile N0=1\n", b, 2), -EINVAL);
	assert_int_equal(parse_memcg_numa_stat("anon N0=18446744073709551615\n"
					       "file N0=1\n", b, 2), -EINVAL); /* overflow */
	assert_int_equal(b[0], 4097);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_view),
		cmocka_unit_test(test_goal_arithmetic),
		cmocka_unit_test(test_apply),
		cmocka_unit_test(test_describe),
		cmocka_unit_test(test_numa_stat),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
