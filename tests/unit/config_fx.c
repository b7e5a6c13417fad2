/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "config_fx.h"

void cfx_assert_equal(const struct config *a, const struct config *b)
{
	assert_int_equal(a->interval_us, b->interval_us);
	assert_int_equal(a->status_interval_us, b->status_interval_us);
	assert_int_equal(a->damon_stat, b->damon_stat);
	assert_int_equal(a->numa_balancing, b->numa_balancing);
	assert_string_equal(a->state_dir, b->state_dir);
	assert_string_equal(a->prometheus_textfile, b->prometheus_textfile);
	assert_int_equal(a->refresh_ms, b->refresh_ms);
	assert_int_equal(a->sample_us, b->sample_us);
	assert_int_equal(a->aggr_us, b->aggr_us);
	assert_int_equal(a->intervals_goal_access_bp, b->intervals_goal_access_bp);
	assert_int_equal(a->intervals_goal_aggrs, b->intervals_goal_aggrs);
	assert_int_equal(a->min_sample_us, b->min_sample_us);
	assert_int_equal(a->max_sample_us, b->max_sample_us);
	assert_int_equal(a->min_nr_regions, b->min_nr_regions);
	assert_int_equal(a->max_nr_regions, b->max_nr_regions);
	assert_int_equal(a->quota_bytes, b->quota_bytes);
	assert_int_equal(a->quota_ms, b->quota_ms);
	assert_int_equal(a->quota_reset_interval_ms, b->quota_reset_interval_ms);
	assert_int_equal(a->weight_sz, b->weight_sz);
	assert_int_equal(a->weight_nr_accesses, b->weight_nr_accesses);
	assert_int_equal(a->weight_age, b->weight_age);
	assert_int_equal(a->apply_interval_us, b->apply_interval_us);
	assert_int_equal(a->promote_used.automatic, b->promote_used.automatic);
	assert_int_equal(a->promote_used.bp, b->promote_used.bp);
	assert_int_equal(a->promote_min_accesses, b->promote_min_accesses);
	assert_int_equal(a->promote_young_filter, b->promote_young_filter);
	assert_int_equal(a->demote_free.automatic, b->demote_free.automatic);
	assert_int_equal(a->demote_free.bp, b->demote_free.bp);
	assert_int_equal(a->demote_max_accesses, b->demote_max_accesses);
	assert_int_equal(a->demote_min_age_us, b->demote_min_age_us);
	assert_int_equal(a->demote_young_filter, b->demote_young_filter);
}

int cfx_load(const char *text, struct config *c, struct config_error *err)
{
	memset(err, 0, sizeof(*err));
	return config_load_string(text, "t.conf", c, err);
}

const char cfx_every_key[] =
	"[daemon]\n"
	"interval = 5s\n"
	"status_interval = 10min\n"
	"verify_interval = 2min\n"
	"damon_stat = keep\n"
	"numa_balancing = disable-tiering\n"
	"state_dir = /var/lib/tierd\n"
	"refresh_interval = 0s\n"
	"prometheus_textfile = /var/lib/prometheus/node-exporter/damon-tierd.prom\n"
	"[monitoring]\n"
	"sample_interval = 1ms\n"
	"aggr_interval = 1.5s\n"
	"intervals_goal_access_bp = 4.5%\n"
	"intervals_goal_aggrs = 7\n"
	"min_sample_interval = 500us\n"
	"max_sample_interval = 2s\n"
	"min_nr_regions = 3\n"
	"max_nr_regions = 5000\n"
	"[quota]\n"
	"size = 1G\n"
	"time_limit = 20ms\n"
	"reset_interval = 2s\n"
	"weight_size = 1\n"
	"weight_accesses = 200\n"
	"weight_age = 0\n"
	"apply_interval = 0s\n"
	"tuner = kernel\n"
	"exchange = no\n"
	"[promote]\n"
	"used_goal = 99.5%\n"
	"min_accesses = 3\n"
	"young_filter = no\n"
	"[demote]\n"
	"free_goal = 200\n"
	"max_accesses = 2\n"
	"min_age = 2min\n"
	"young_filter = off\n";

void cfx_check_every_key(const struct config *c)
{
	assert_int_equal(c->interval_us, 5 * S);
	assert_int_equal(c->status_interval_us, 600 * S);
	assert_int_equal(c->verify_interval_us, 120 * S);
	assert_int_equal(c->damon_stat, DAMON_STAT_KEEP);
	assert_int_equal(c->numa_balancing, NUMAB_DISABLE_TIERING);
	assert_string_equal(c->state_dir, "/var/lib/tierd");
	assert_int_equal(c->refresh_ms, 0);
	assert_string_equal(c->prometheus_textfile, "/var/lib/prometheus/node-exporter/damon-tierd.prom");
	assert_int_equal(c->sample_us, 1 * MS);
	assert_int_equal(c->aggr_us, 1500 * MS);
	assert_int_equal(c->intervals_goal_access_bp, 450);
	assert_int_equal(c->intervals_goal_aggrs, 7);
	assert_int_equal(c->min_sample_us, 500);
	assert_int_equal(c->max_sample_us, 2 * S);
	assert_int_equal(c->min_nr_regions, 3);
	assert_int_equal(c->max_nr_regions, 5000);
	assert_int_equal(c->quota_bytes, 1ULL << 30);
	assert_int_equal(c->quota_ms, 20);
	assert_int_equal(c->quota_reset_interval_ms, 2000);
	assert_int_equal(c->weight_sz, 1);
	assert_int_equal(c->weight_nr_accesses, 200);
	assert_int_equal(c->weight_age, 0);
	assert_int_equal(c->apply_interval_us, 0);
	assert_int_equal(c->quota_tuner, QUOTA_TUNER_KERNEL);
	assert_false(c->exchange);
	assert_false(c->promote_used.automatic);
	assert_int_equal(c->promote_used.bp, 9950);
	assert_int_equal(c->promote_min_accesses, 3);
	assert_false(c->promote_young_filter);
	assert_false(c->demote_free.automatic);
	assert_int_equal(c->demote_free.bp, 200);
	assert_int_equal(c->demote_max_accesses, 2);
	assert_int_equal(c->demote_min_age_us, 120 * S);
	assert_false(c->demote_young_filter);
}
