/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "testutil.h"

#define MS 1000ULL
#define S  1000000ULL

static void assert_config_equal(const struct config *a, const struct config *b)
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

static int load(const char *text, struct config *c, struct config_error *err)
{
	memset(err, 0, sizeof(*err));
	return config_load_string(text, "t.conf", c, err);
}

/* Loading `text` fails at `line` with a message starting "t.conf:line: "
 * and containing every one of the NULL-terminated needles. */
static void expect_error(const char *text, unsigned line, ...)
{
	struct config c, sentinel;
	struct config_error err;
	char prefix[32];
	const char *needle;
	va_list ap;

	memset(&c, 0xA5, sizeof(c));
	memset(&sentinel, 0xA5, sizeof(sentinel));
	assert_int_equal(load(text, &c, &err), -EINVAL);
	print_message("  %s\n", err.message);
	assert_memory_equal(&c, &sentinel, sizeof(c));
	assert_string_equal(err.file, "t.conf");
	assert_int_equal(err.line, line);
	snprintf(prefix, sizeof(prefix), "t.conf:%u: ", line);
	assert_int_equal(strncmp(err.message, prefix, strlen(prefix)), 0);
	va_start(ap, line);
	while ((needle = va_arg(ap, const char *)))
		if (!strstr(err.message, needle))
			fail_msg("\"%s\" not in \"%s\"", needle, err.message);
	va_end(ap);
}

static void test_defaults(void **state)
{
	struct config c;
	struct config_error err;
	int k;

	(void)state;
	config_init(&c);
	assert_int_equal(c.set_mask, 0);
	assert_int_equal(c.interval_us, 5 * S);
	assert_int_equal(c.status_interval_us, 60 * S);
	assert_int_equal(c.damon_stat, DAMON_STAT_PAUSE);
	assert_int_equal(c.numa_balancing, NUMAB_LEAVE);
	assert_string_equal(c.state_dir, "/run/damon-tierd");
	assert_int_equal(c.refresh_ms, 1000);
	assert_int_equal(c.sample_us, 5 * MS);
	assert_int_equal(c.aggr_us, 100 * MS);
	assert_int_equal(c.intervals_goal_access_bp, 400);
	assert_int_equal(c.intervals_goal_aggrs, 3);
	assert_int_equal(c.min_sample_us, 5 * MS);
	assert_int_equal(c.max_sample_us, 10 * S);
	assert_int_equal(c.min_nr_regions, 10);
	assert_int_equal(c.max_nr_regions, 1000);
	assert_int_equal(c.quota_bytes, 200ULL << 20);
	assert_int_equal(c.quota_ms, 0);
	assert_int_equal(c.quota_reset_interval_ms, 1000);
	assert_int_equal(c.weight_sz, 0);
	assert_int_equal(c.weight_nr_accesses, 100);
	assert_int_equal(c.weight_age, 100);
	assert_int_equal(c.apply_interval_us, 1 * S);
	assert_true(c.promote_used.automatic);
	assert_int_equal(c.promote_used.bp, 9970);
	assert_int_equal(c.promote_min_accesses, 1);
	assert_true(c.promote_young_filter);
	assert_true(c.demote_free.automatic);
	assert_int_equal(c.demote_free.bp, 50);
	assert_int_equal(c.demote_max_accesses, 0);
	assert_int_equal(c.demote_min_age_us, 0);
	assert_true(c.demote_young_filter);
	for (k = 0; k < _CONFIG_KEY_MAX; k++)
		assert_false(config_is_set(&c, (enum config_key)k));
	assert_int_equal(config_validate(&c, &err), 0);

	/* An empty file and a file of comments are all defaults. */
	{
		struct config d;

		assert_int_equal(load("", &d, &err), 0);
		assert_config_equal(&c, &d);
		assert_int_equal(d.set_mask, 0);
		assert_int_equal(load("# nothing\n; here\n\n[daemon]\n", &d, &err), 0);
		assert_config_equal(&c, &d);
	}
}

static void test_key_table(void **state)
{
	const struct config_key_info *keys;
	size_t n, i, j;

	(void)state;
	n = config_keys(&keys);
	assert_int_equal(n, _CONFIG_KEY_MAX);
	for (i = 0; i < n; i++) {
		struct config c, d;
		struct config_error err;
		char text[256];

		assert_non_null(keys[i].section);
		assert_non_null(keys[i].key);
		assert_non_null(keys[i].default_text);
		assert_non_null(keys[i].help);
		assert_true(strlen(keys[i].help) > 10);
		for (j = 0; j < i; j++)
			assert_false(strcmp(keys[i].section, keys[j].section) == 0 &&
				     strcmp(keys[i].key, keys[j].key) == 0);

		/* Writing a key's default text explicitly gives the default
		 * and marks exactly that key as set. */
		snprintf(text, sizeof(text), "[%s]\n%s = %s\n", keys[i].section, keys[i].key, keys[i].default_text);
		assert_int_equal(load(text, &c, &err), 0);
		config_init(&d);
		assert_config_equal(&c, &d);
		assert_int_equal(c.set_mask, UINT64_C(1) << i);
		assert_true(config_is_set(&c, (enum config_key)i));
	}
	/* Table order is the enum order. */
	assert_string_equal(keys[CONFIG_KEY_QUOTA_SIZE].key, "size");
	assert_string_equal(keys[CONFIG_KEY_DEMOTE_MIN_AGE].section, "demote");
	assert_string_equal(keys[CONFIG_KEY_MONITORING_MAX_SAMPLE_INTERVAL].key, "max_sample_interval");
}

static const char every_key[] =
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
	"[promote]\n"
	"used_goal = 99.5%\n"
	"min_accesses = 3\n"
	"young_filter = no\n"
	"[demote]\n"
	"free_goal = 200\n"
	"max_accesses = 2\n"
	"min_age = 2min\n"
	"young_filter = off\n";

static void check_every_key(const struct config *c)
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

static void test_every_key(void **state)
{
	struct config c;
	struct config_error err;
	int k;

	(void)state;
	assert_int_equal(load(every_key, &c, &err), 0);
	check_every_key(&c);
	for (k = 0; k < _CONFIG_KEY_MAX; k++)
		assert_true(config_is_set(&c, (enum config_key)k));
	assert_int_equal(config_validate(&c, &err), 0);
}

static void test_syntax_variants(void **state)
{
	struct config c;
	struct config_error err;

	(void)state;
	/* Indentation, CRLF, ':' separators, ';' comments after a value, a
	 * BOM and a repeated section header are all fine. */
	assert_int_equal(load("\xEF\xBB\xBF[daemon]\r\n"
			      "   interval = 3s   ; three seconds\r\n"
			      "\tstatus_interval: 1min\n"
			      "[promote]\n"
			      "used_goal = 9000\n"
			      "[daemon]\n"
			      "damon_stat = keep\n", &c, &err), 0);
	assert_int_equal(c.interval_us, 3 * S);
	assert_int_equal(c.status_interval_us, 60 * S);
	assert_int_equal(c.damon_stat, DAMON_STAT_KEEP);
	assert_false(c.promote_used.automatic);
	assert_int_equal(c.promote_used.bp, 9000);
	assert_true(config_is_set(&c, CONFIG_KEY_DAEMON_INTERVAL));
	assert_false(config_is_set(&c, CONFIG_KEY_DAEMON_STATE_DIR));

	/* An explicit "auto" keeps the seed value but is recorded as set. */
	assert_int_equal(load("[promote]\nused_goal = auto\n[demote]\nfree_goal = 1%\n", &c, &err), 0);
	assert_true(c.promote_used.automatic);
	assert_int_equal(c.promote_used.bp, 9970);
	assert_true(config_is_set(&c, CONFIG_KEY_PROMOTE_USED_GOAL));
	assert_false(c.demote_free.automatic);
	assert_int_equal(c.demote_free.bp, 100);

	/* Intervals tuning off: the sample interval may leave the tuning range. */
	assert_int_equal(load("[monitoring]\nintervals_goal_aggrs = 0\nmin_sample_interval = 50ms\n", &c, &err), 0);
}

static void test_bad_values(void **state)
{
	struct config c;
	struct config_error err;

	(void)state;
	/* The whole message, once, so its shape is pinned down. */
	assert_int_equal(load("[monitoring]\nsample_interval = 5 parsecs\n", &c, &err), -EINVAL);
	assert_string_equal(err.message,
			    "t.conf:2: [monitoring] sample_interval: not a duration (got \"5 parsecs\"; "
			    "expected a duration with a unit (us, ms, s, min, h) in 100us..1min, e.g. \"5ms\")");

	expect_error("[daemon]\ninterval = 2\n", 2, "[daemon] interval: missing unit", "got \"2\"", NULL);
	expect_error("[daemon]\n\ninterval = 10ms\n", 3, "[daemon] interval: out of range", "100ms..1h", NULL);
	expect_error("[daemon]\nrefresh_interval = 1500us\n", 2, "not a whole number of milliseconds", NULL);
	expect_error("[daemon]\nverify_interval = often\n", 2, "[daemon] verify_interval: not a duration", "got \"often\"", NULL);
	expect_error("[daemon]\nverify_interval = 2d\n", 2, "[daemon] verify_interval:", "100ms..24h", NULL);
	expect_error("[daemon]\nverify_interval = 50ms\n", 2, "[daemon] verify_interval: out of range", "100ms..24h", NULL);
	expect_error("[quota]\nsize = 200MB\n", 2, "[quota] size: not a size", "got \"200MB\"", "MiB", NULL);
	expect_error("[quota]\nsize = 0\n", 2, "[quota] size: out of range", "4KiB..1TiB", NULL);
	expect_error("[quota]\nsize = 2TiB\n", 2, "[quota] size: out of range", NULL);
	expect_error("[quota]\nreset_interval = 0s\n", 2, "[quota] reset_interval: out of range", "1ms..1h", NULL);
	expect_error("[promote]\nused_goal = 10001\n", 2, "[promote] used_goal: out of range", "\"auto\"", NULL);
	expect_error("[promote]\nused_goal = 101%\n", 2, "[promote] used_goal: out of range", NULL);
	expect_error("[promote]\nused_goal = 0\n", 2, "[promote] used_goal: out of range", "1..10000", NULL);
	expect_error("[demote]\nfree_goal = lots\n", 2, "[demote] free_goal: not basis points", NULL);
	expect_error("[monitoring]\nintervals_goal_access_bp = 99.5\n", 2,
		     "intervals_goal_access_bp: not basis points", NULL);
	expect_error("[monitoring]\nmin_nr_regions = 2\n", 2, "[monitoring] min_nr_regions: out of range", "3..1000000", NULL);
	expect_error("[monitoring]\nmax_nr_regions = -5\n", 2, "max_nr_regions: not an integer", NULL);
	expect_error("[monitoring]\nintervals_goal_aggrs = 99999999999999999999\n", 2, "out of range", NULL);
	expect_error("[promote]\nyoung_filter = maybe\n", 2, "[promote] young_filter: not a boolean", "yes or no", NULL);
	expect_error("[daemon]\ndamon_stat = stop\n", 2, "[daemon] damon_stat: unknown value", "pause or keep", NULL);
	expect_error("[daemon]\nnuma_balancing = off\n", 2, "leave or disable-tiering", NULL);
	expect_error("[quota]\ntuner = auto\n", 2, "[quota] tuner: unknown value", "daemon or kernel", NULL);
	expect_error("[daemon]\nstate_dir = run/x\n", 2, "[daemon] state_dir: not an absolute path", NULL);
	expect_error("[daemon]\nstate_dir =\n", 2, "[daemon] state_dir: empty value", NULL);
	expect_error("[daemon]\nprometheus_textfile = tierd.prom\n", 2,
		     "[daemon] prometheus_textfile: not an absolute path", "empty (off) or an absolute path ending in .prom");
	expect_error("[daemon]\nprometheus_textfile = /var/lib/node-exporter/tierd.txt\n", 2,
		     "[daemon] prometheus_textfile: the file name must end in .prom", NULL);
	/* '#' after a value is not a comment: say so. */
	expect_error("[daemon]\ninterval = 2s # two\n", 2, "got \"2s # two\"", "';'", NULL);
}

static void test_bad_lines(void **state)
{
	char longline[400];

	(void)state;
	expect_error("[daemon]\ninterval =\n", 2, "[daemon] interval: empty value", "e.g. \"5s\"", NULL);
	expect_error("[monitoring]\nsample_intervl = 5ms\n", 2,
		     "[monitoring] sample_intervl: unknown key (did you mean \"sample_interval\"?)", NULL);
	expect_error("[quota]\nweigth_age = 1\n", 2, "did you mean \"weight_age\"?", NULL);
	expect_error("[daemon]\nsample_interval = 5ms\n", 2,
		     "[daemon] sample_interval: unknown key in this section (it belongs in [monitoring])", NULL);
	expect_error("[daemon]\nmin_sample_intervals = 5ms\n", 2, "did you mean \"min_sample_interval\" in [monitoring]?", NULL);
	expect_error("[quota]\nfrobnicate = 1\n", 2, "[quota] frobnicate: unknown key (keys of [quota]: size, time_limit", NULL);
	expect_error("[daemon]\ninterval = 2s\n[promte]\nused_goal = 1\n", 3,
		     "[promte]: unknown section (did you mean [promote]?)", NULL);
	/* Reported at the header even when the section has no keys. */
	expect_error("[bogus]\n[daemon]\n", 1, "[bogus]: unknown section (expected [daemon], [monitoring]", NULL);
	expect_error("# c\n[daemon]\ninterval = 2s\nstatus_interval = 1min\ninterval = 3s\n", 5,
		     "[daemon] interval: duplicate key (first set on line 3", NULL);
	/* Duplicates across repeated section headers are duplicates too. */
	expect_error("[daemon]\ninterval = 2s\n[quota]\n[daemon]\ninterval = 2s\n", 5, "duplicate key", NULL);
	expect_error("[daemon]\n# fine\nthis is not ini\n", 3, "cannot parse line (got \"this is not ini\"", NULL);
	expect_error("[daemon\ninterval = 2s\n", 1, "section header without closing ']' (got \"[daemon\"", NULL);
	expect_error("interval = 2s\n", 1, "interval: key outside any section (put it under [daemon])", NULL);
	expect_error("[daemon]\n= 2s\n", 2, "missing key name", NULL);
	/* Line numbers count comments, blank lines, CRLF and indented lines. */
	expect_error("\n# c\n; c\r\n[daemon]\r\n  interval = 3s\r\n\tbogus = 1\n", 6, "[daemon] bogus: unknown key", NULL);
	/* The first error wins, whichever kind it is. */
	expect_error("[daemon]\ngarbage\ninterval = 1\n", 2, "cannot parse line", NULL);
	expect_error("[daemon]\ninterval = 1\ngarbage\n", 2, "missing unit", NULL);

	memset(longline, 'x', sizeof(longline) - 1);
	longline[sizeof(longline) - 1] = '\0';
	{
		char text[512];

		snprintf(text, sizeof(text), "[daemon]\n#%s\n", longline);
		expect_error(text, 2, "line too long", NULL);
	}
}

static void test_cross_keys(void **state)
{
	struct config c;
	struct config_error err;

	(void)state;
	expect_error("[monitoring]\nsample_interval = 200ms\n", 2,
		     "[monitoring] sample_interval = 200ms (line 2) must be at most "
		     "[monitoring] aggr_interval = 100ms (default)", NULL);
	/* The error points at the later of the two lines. */
	expect_error("[monitoring]\nsample_interval = 50ms\n\naggr_interval = 20ms\n", 4,
		     "sample_interval = 50ms (line 2)", "aggr_interval = 20ms (line 4)", NULL);
	expect_error("[monitoring]\nmin_sample_interval = 50ms\n", 2,
		     "[monitoring] sample_interval = 5ms (default) must be at least "
		     "[monitoring] min_sample_interval = 50ms (line 2)", NULL);
	expect_error("[monitoring]\nmin_sample_interval = 1ms\nmax_sample_interval = 2ms\n", 3,
		     "sample_interval = 5ms (default) must be at most [monitoring] max_sample_interval = 2ms (line 3)",
		     NULL);
	expect_error("[monitoring]\nmin_sample_interval = 3s\nmax_sample_interval = 2s\nsample_interval = 2s\n"
		     "aggr_interval = 10s\n", 3,
		     "min_sample_interval = 3s (line 2) must be at most [monitoring] max_sample_interval = 2s (line 3)",
		     NULL);
	expect_error("[monitoring]\nmin_nr_regions = 2000\n", 2,
		     "[monitoring] min_nr_regions = 2000 (line 2) must be at most "
		     "[monitoring] max_nr_regions = 1000 (default)", NULL);
	expect_error("[daemon]\nverify_interval = 2s\n", 2,
		     "[daemon] verify_interval = 2s (line 2) must be at least [daemon] interval = 5s (default)", NULL);
	{
		/* The default verify_interval follows a longer interval
		 * instead of making "interval = 1h" invalid. */
		assert_int_equal(load("[daemon]\ninterval = 1h\nstatus_interval = 1h\n", &c, &err), 0);
		assert_int_equal(config_verify_interval_us(&c), 3600 * S);
		assert_int_equal(load("[daemon]\nverify_interval = 2min\n", &c, &err), 0);
		assert_int_equal(config_verify_interval_us(&c), 120 * S);
	}
	expect_error("[daemon]\nstatus_interval = 1s\n", 2,
		     "[daemon] status_interval = 1s (line 2) must be at least [daemon] interval = 5s (default)", NULL);
	expect_error("[quota]\ntime_limit = 2s\n", 2,
		     "[quota] time_limit = 2s (line 2) must be at most [quota] reset_interval = 1s (default)", NULL);
	expect_error("[quota]\nweight_accesses = 0\nweight_age = 0\n", 3,
		     "[quota] weight_accesses = 0 (line 2) and [quota] weight_age = 0 (line 3) cannot both be 0", NULL);
	expect_error("[promote]\nmin_accesses = 21\n", 2,
		     "[promote] min_accesses = 21 (line 2) must be at most [monitoring] aggr_interval / "
		     "sample_interval = 100ms / 5ms = 20", NULL);
	expect_error("[promote]\nmin_accesses = 2\n[demote]\nmax_accesses = 2\n", 4,
		     "[demote] max_accesses = 2 (line 4) must be below [promote] min_accesses = 2 (line 2)", NULL);

	/* config_validate() on a struct that did not come from a file. */
	config_init(&c);
	c.quota_bytes = 0;
	assert_int_equal(config_validate(&c, &err), -EINVAL);
	assert_int_equal(err.line, 0);
	assert_string_equal(err.file, "");
	assert_string_equal(err.message, "[quota] size: out of range (got \"0\"; expected bytes or a size with a "
			    "binary unit (K/KiB, M/MiB, G/GiB, T/TiB) in 4KiB..1TiB, e.g. \"200MiB\")");

	config_init(&c);
	c.quota_reset_interval_ms = 0;
	assert_int_equal(config_validate(&c, &err), -EINVAL);
	assert_non_null(strstr(err.message, "[quota] reset_interval: out of range"));

	config_init(&c);
	c.interval_us = 50 * MS;
	assert_int_equal(config_validate(&c, &err), -EINVAL);
	assert_non_null(strstr(err.message, "[daemon] interval: out of range (got \"50ms\""));

	config_init(&c);
	c.promote_used = (struct goal_setting){ .automatic = false, .bp = 10001 };
	assert_int_equal(config_validate(&c, &err), -EINVAL);
	assert_non_null(strstr(err.message, "[promote] used_goal: out of range"));

	config_init(&c);
	c.damon_stat = (enum damon_stat_policy)7;
	assert_int_equal(config_validate(&c, &err), -EINVAL);
	assert_non_null(strstr(err.message, "[daemon] damon_stat: out of range"));

	config_init(&c);
	c.state_dir[0] = '\0';
	assert_int_equal(config_validate(&c, &err), -EINVAL);
	assert_non_null(strstr(err.message, "[daemon] state_dir"));

	config_init(&c);
	c.sample_us = 200 * MS;
	assert_int_equal(config_validate(&c, &err), -EINVAL);
	assert_string_equal(err.message, "[monitoring] sample_interval = 200ms (default) must be at most "
			    "[monitoring] aggr_interval = 100ms (default): an aggregation is made of samples");
	c.set_mask = UINT64_C(1) << CONFIG_KEY_MONITORING_SAMPLE_INTERVAL;
	assert_int_equal(config_validate(&c, &err), -EINVAL);
	assert_non_null(strstr(err.message, "sample_interval = 200ms (set)"));

	/* With tuning off the tuning range is not checked. */
	config_init(&c);
	c.intervals_goal_aggrs = 0;
	c.min_sample_us = 50 * MS;
	assert_int_equal(config_validate(&c, &err), 0);
}

static char *tmpdir(void)
{
	char *d = strdup("/tmp/test-config.XXXXXX");

	assert_non_null(d);
	assert_non_null(mkdtemp(d));
	return d;
}

static void write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "we");

	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

static void test_load_file(void **state)
{
	struct config c, sentinel, d;
	struct config_error err;
	char path[512], prefix[600];
	char *dir = tmpdir();

	(void)state;
	memset(&sentinel, 0xA5, sizeof(sentinel));

	/* Missing: -ENOENT, err names the path, *ret untouched. */
	snprintf(path, sizeof(path), "%s/missing.conf", dir);
	memset(&c, 0xA5, sizeof(c));
	assert_int_equal(config_load(path, &c, &err), -ENOENT);
	assert_memory_equal(&c, &sentinel, sizeof(c));
	assert_string_equal(err.file, path);
	assert_int_equal(err.line, 0);
	assert_non_null(strstr(err.message, path));

	/* A directory is not a config file. */
	assert_int_equal(config_load(dir, &c, &err), -EINVAL);
	assert_non_null(strstr(err.message, "not a regular file"));
	assert_memory_equal(&c, &sentinel, sizeof(c));

	/* Good file. */
	snprintf(path, sizeof(path), "%s/good.conf", dir);
	write_file(path, every_key, strlen(every_key));
	assert_int_equal(config_load(path, &c, &err), 0);
	check_every_key(&c);

	/* Bad file: path:line in the message, *ret untouched. */
	snprintf(path, sizeof(path), "%s/bad.conf", dir);
	write_file(path, "[daemon]\n\ninterval = soon\n", 26);
	memset(&c, 0xA5, sizeof(c));
	assert_int_equal(config_load(path, &c, &err), -EINVAL);
	assert_memory_equal(&c, &sentinel, sizeof(c));
	snprintf(prefix, sizeof(prefix), "%s:3: [daemon] interval: not a duration", path);
	assert_int_equal(strncmp(err.message, prefix, strlen(prefix)), 0);
	assert_string_equal(err.file, path);
	assert_int_equal(err.line, 3);

	/* A cross-key failure from a file also leaves *ret alone. */
	snprintf(path, sizeof(path), "%s/cross.conf", dir);
	write_file(path, "[monitoring]\nsample_interval = 1s\n", 34);
	assert_int_equal(config_load(path, &c, &err), -EINVAL);
	assert_memory_equal(&c, &sentinel, sizeof(c));
	assert_int_equal(err.line, 2);

	/* Binary junk. */
	snprintf(path, sizeof(path), "%s/nul.conf", dir);
	write_file(path, "[daemon]\n\0x\n", 12);
	assert_int_equal(config_load(path, &c, &err), -EINVAL);
	assert_non_null(strstr(err.message, "NUL"));
	assert_memory_equal(&c, &sentinel, sizeof(c));

	/* Unreadable (only meaningful when not root). */
	snprintf(path, sizeof(path), "%s/good.conf", dir);
	if (geteuid() != 0) {
		assert_int_equal(chmod(path, 0), 0);
		assert_int_equal(config_load(path, &c, &err), -EACCES);
		assert_non_null(strstr(err.message, path));
		assert_memory_equal(&c, &sentinel, sizeof(c));
	}
	unlink(path);

	/* A NULL err is allowed. */
	assert_int_equal(config_load_string("[daemon]\ninterval = 3s\n", "x", &d, NULL), 0);
	assert_int_equal(d.interval_us, 3 * S);
	assert_int_equal(config_load_string("[daemon]\ninterval = 3\n", "x", &d, NULL), -EINVAL);

	snprintf(path, sizeof(path), "%s/bad.conf", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/cross.conf", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/nul.conf", dir);
	unlink(path);
	assert_int_equal(rmdir(dir), 0);
	free(dir);
}

/* "section.key = value" lines back into an INI text. */
static void format_to_ini(const char *formatted, char *out, size_t size)
{
	char section[32] = "";
	const char *p = formatted;
	size_t used = 0;

	while (*p) {
		const char *nl = strchr(p, '\n'), *dot = strchr(p, '.');
		int n;

		assert_non_null(nl);
		assert_non_null(dot);
		if (strlen(section) != (size_t)(dot - p) || strncmp(section, p, (size_t)(dot - p)) != 0) {
			snprintf(section, sizeof(section), "%.*s", (int)(dot - p), p);
			n = snprintf(out + used, size - used, "[%s]\n", section);
			assert_true(n > 0 && (size_t)n < size - used);
			used += (size_t)n;
		}
		n = snprintf(out + used, size - used, "%.*s\n", (int)(nl - dot - 1), dot + 1);
		assert_true(n > 0 && (size_t)n < size - used);
		used += (size_t)n;
		p = nl + 1;
	}
}

static void test_format(void **state)
{
	const struct config_key_info *keys;
	struct config c, d;
	struct config_error err;
	char buf[4096], ini[4096], line[128];
	size_t n, i;

	(void)state;
	config_init(&c);
	assert_int_equal(config_format(&c, buf, sizeof(buf)), 0);
	assert_non_null(strstr(buf, "daemon.interval = 5s\n"));
	assert_non_null(strstr(buf, "daemon.state_dir = /run/damon-tierd\n"));
	assert_non_null(strstr(buf, "monitoring.sample_interval = 5ms\n"));
	assert_non_null(strstr(buf, "monitoring.intervals_goal_access_bp = 400\n"));
	assert_non_null(strstr(buf, "quota.size = 200MiB\n"));
	assert_non_null(strstr(buf, "quota.time_limit = 0s\n"));
	assert_non_null(strstr(buf, "promote.used_goal = auto\n"));
	assert_non_null(strstr(buf, "demote.young_filter = yes\n"));
	n = config_keys(&keys);
	for (i = 0; i < n; i++) {
		snprintf(line, sizeof(line), "%s.%s = ", keys[i].section, keys[i].key);
		assert_non_null(strstr(buf, line));
	}

	/* Round trip: what --check-config prints parses back to the same. */
	format_to_ini(buf, ini, sizeof(ini));
	assert_int_equal(load(ini, &d, &err), 0);
	assert_config_equal(&c, &d);

	assert_int_equal(load(every_key, &c, &err), 0);
	assert_int_equal(config_format(&c, buf, sizeof(buf)), 0);
	assert_non_null(strstr(buf, "monitoring.aggr_interval = 1500ms\n"));
	assert_non_null(strstr(buf, "monitoring.min_sample_interval = 500us\n"));
	assert_non_null(strstr(buf, "daemon.status_interval = 10min\n"));
	assert_non_null(strstr(buf, "quota.size = 1GiB\n"));
	assert_non_null(strstr(buf, "promote.used_goal = 9950\n"));
	assert_non_null(strstr(buf, "daemon.numa_balancing = disable-tiering\n"));
	format_to_ini(buf, ini, sizeof(ini));
	assert_int_equal(load(ini, &d, &err), 0);
	assert_config_equal(&c, &d);

	c.quota_bytes = 4097;
	c.demote_min_age_us = 2 * 3600 * S;
	assert_int_equal(config_format(&c, buf, sizeof(buf)), 0);
	assert_non_null(strstr(buf, "quota.size = 4097\n"));
	assert_non_null(strstr(buf, "demote.min_age = 2h\n"));

	assert_int_equal(config_format(&c, buf, 40), -ENOBUFS);
	assert_int_equal(config_format(&c, buf, 0), -ENOBUFS);
}

static char *read_conf(void)
{
	const char *fixtures = getenv("FIXTURES_DIR");
	char path[1024];
	struct stat st;
	char *text;
	FILE *f;

	if (!fixtures)
		fail_msg("FIXTURES_DIR is not set");
	snprintf(path, sizeof(path), "%s/../../conf/damon-tierd.conf", fixtures);
	f = fopen(path, "re");
	if (!f)
		fail_msg("cannot open %s", path);
	assert_int_equal(fstat(fileno(f), &st), 0);
	text = calloc(1, (size_t)st.st_size + 1);
	assert_non_null(text);
	assert_int_equal(fread(text, 1, (size_t)st.st_size, f), (size_t)st.st_size);
	fclose(f);
	return text;
}

/* Uncommenting every "#key = value" line of the shipped file gives exactly
 * the defaults, so the documented defaults are the real ones. */
static void test_conf_file_defaults(void **state)
{
	char *text = read_conf(), *p;
	struct config c, d;
	struct config_error err;
	unsigned uncommented = 0;

	(void)state;
	/* As shipped (all commented out) it is valid and all defaults. */
	assert_int_equal(config_load_string(text, "damon-tierd.conf", &c, &err), 0);
	assert_int_equal(c.set_mask, 0);

	for (p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		size_t n;

		if (p[0] != '#')
			continue;
		n = strspn(p + 1, "abcdefghijklmnopqrstuvwxyz_");
		/* "#key =" alone: the default is empty (off). */
		if (n > 0 && (strncmp(p + 1 + n, " = ", 3) == 0 || strncmp(p + 1 + n, " =\n", 3) == 0)) {
			p[0] = ' ';
			uncommented++;
		}
	}
	assert_int_equal(uncommented, _CONFIG_KEY_MAX);
	if (config_load_string(text, "damon-tierd.conf", &c, &err) < 0)
		fail_msg("%s", err.message);
	config_init(&d);
	assert_config_equal(&c, &d);
	assert_int_equal(c.set_mask, (UINT64_C(1) << _CONFIG_KEY_MAX) - 1);
	free(text);
}

/* Every key appears in the shipped file, in its section, with its default. */
static void test_conf_file_lists_every_key(void **state)
{
	const struct config_key_info *keys;
	char *text = read_conf();
	size_t n, i;

	(void)state;
	n = config_keys(&keys);
	for (i = 0; i < n; i++) {
		char header[64], line[256];
		const char *sec, *next, *hit;

		snprintf(header, sizeof(header), "\n[%s]\n", keys[i].section);
		sec = strstr(text, header);
		if (!sec)
			fail_msg("section [%s] missing from the conf file", keys[i].section);
		sec += strlen(header);
		next = strstr(sec, "\n[");
		snprintf(line, sizeof(line), "\n#%s =%s%s\n", keys[i].key, keys[i].default_text[0] ? " " : "",
			 keys[i].default_text);
		hit = strstr(sec - 1, line);
		if (!hit || (next && hit > next))
			fail_msg("\"#%s = %s\" missing from [%s] in the conf file",
				 keys[i].key, keys[i].default_text, keys[i].section);
	}
	free(text);
}

/* ---- sources: main file, drop-ins, provenance ------------------------- */

#define ETC_MAIN "etc/damon-tierd.conf"
#define ETC_D    "etc/damon-tierd.conf.d/"
#define RUN_D    "run/damon-tierd.conf.d/"
#define LOCAL_D  "usr/local/lib/damon-tierd.conf.d/"
#define USR_D    "usr/lib/damon-tierd.conf.d/"

static int load_root(const char *root, struct config *c, struct config_origins *o, struct config_error *err)
{
	const struct config_sources src = { .root = root };

	memset(err, 0, sizeof(*err));
	return config_load_sources(&src, c, o, err);
}

/* root/rel as a string for comparisons (static: one at a time). */
static const char *at(const char *root, const char *rel)
{
	static char buf[2][512];
	static unsigned i;

	i ^= 1;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", root, rel);
	return buf[i];
}

static void make_symlink(const char *target, const char *root, const char *rel)
{
	tu_write(root, rel, "");  /* creates the parent directories */
	assert_int_equal(unlink(at(root, rel)), 0);
	assert_int_equal(symlink(target, at(root, rel)), 0);
}

static void assert_origin(const struct config_origins *o, enum config_key k, const char *file, unsigned line)
{
	if (strcmp(o->key[k].file, file) != 0 || o->key[k].line != line)
		fail_msg("origin of key %d is \"%s\":%u, expected \"%s\":%u", (int)k, o->key[k].file,
			 o->key[k].line, file, line);
}

/* A failed load writes neither *ret nor *ret_origins. */
static int load_root_expect_untouched(const char *root, struct config_error *err)
{
	struct config c, csent;
	static struct config_origins o, osent;
	int r;

	memset(&c, 0xA5, sizeof(c));
	memset(&csent, 0xA5, sizeof(csent));
	memset(&o, 0x5A, sizeof(o));
	memset(&osent, 0x5A, sizeof(osent));
	r = load_root(root, &c, &o, err);
	assert_true(r < 0);
	print_message("  %s\n", err->message);
	assert_memory_equal(&c, &csent, sizeof(c));
	assert_memory_equal(&o, &osent, sizeof(o));
	return r;
}

static void test_sources_nothing_found(void **state)
{
	char *root = tu_mkdtemp();
	struct config c, d;
	struct config_origins o;
	struct config_error err;
	int k;

	(void)state;
	memset(&o, 0x5A, sizeof(o));
	assert_int_equal(load_root(root, &c, &o, &err), 0);
	config_init(&d);
	assert_config_equal(&c, &d);
	assert_int_equal(c.set_mask, 0);
	assert_string_equal(o.main_file, "");
	assert_int_equal(o.nr_dropins, 0);
	for (k = 0; k < _CONFIG_KEY_MAX; k++)
		assert_origin(&o, (enum config_key)k, "", 0);

	/* Empty drop-in directories and files that are not drop-ins change
	 * nothing: hidden files, backups, other suffixes. */
	tu_write(root, ETC_D ".hidden.conf", "[quota]\nsize = 1G\n");
	tu_write(root, ETC_D "10-a.conf~", "[quota]\nsize = 1G\n");
	tu_write(root, ETC_D "10-a.conf.dpkg-old", "[quota]\nsize = 1G\n");
	tu_write(root, ETC_D "README", "not ini at all\n");
	tu_write(root, USR_D ".conf", "[quota]\nsize = 1G\n");
	assert_int_equal(mkdir(at(root, "run"), 0755), 0);
	assert_int_equal(mkdir(at(root, RUN_D), 0755), 0);
	assert_int_equal(load_root(root, &c, &o, &err), 0);
	assert_config_equal(&c, &d);
	assert_int_equal(c.set_mask, 0);
	assert_int_equal(o.nr_dropins, 0);

	/* NULL origins and NULL err are fine. */
	assert_int_equal(config_load_sources(&(struct config_sources){ .root = root }, &c, NULL, NULL), 0);
	tu_rmtree(root);
	free(root);
}

static void test_sources_main_search(void **state)
{
	char *root = tu_mkdtemp();
	struct config c;
	struct config_origins o;
	struct config_error err;

	(void)state;
	/* The vendor default alone. */
	tu_write(root, "usr/lib/damon-tierd.conf", "[quota]\nsize = 1G\n[daemon]\ninterval = 5s\n");
	assert_int_equal(load_root(root, &c, &o, &err), 0);
	assert_int_equal(c.quota_bytes, 1ULL << 30);
	assert_int_equal(c.interval_us, 5 * S);
	assert_string_equal(o.main_file, at(root, "usr/lib/damon-tierd.conf"));
	assert_origin(&o, CONFIG_KEY_QUOTA_SIZE, at(root, "usr/lib/damon-tierd.conf"), 2);

	/* The first found is the only main file read: /usr/local/lib hides
	 * the vendor file entirely (interval falls back to its default). */
	tu_write(root, "usr/local/lib/damon-tierd.conf", "[quota]\nsize = 2G\n");
	assert_int_equal(load_root(root, &c, &o, &err), 0);
	assert_int_equal(c.quota_bytes, 2ULL << 30);
	assert_int_equal(c.interval_us, 5 * S);
	assert_false(config_is_set(&c, CONFIG_KEY_DAEMON_INTERVAL));
	assert_string_equal(o.main_file, at(root, "usr/local/lib/damon-tierd.conf"));

	tu_write(root, "run/damon-tierd.conf", "[quota]\nsize = 3G\n");
	assert_int_equal(load_root(root, &c, &o, &err), 0);
	assert_int_equal(c.quota_bytes, 3ULL << 30);

	tu_write(root, ETC_MAIN, "# local\n[quota]\nsize = 4G\n");
	assert_int_equal(load_root(root, &c, &o, &err), 0);
	assert_int_equal(c.quota_bytes, 4ULL << 30);
	assert_string_equal(o.main_file, at(root, ETC_MAIN));
	assert_origin(&o, CONFIG_KEY_QUOTA_SIZE, at(root, ETC_MAIN), 3);
	assert_int_equal(o.nr_dropins, 0);

	/* /etc/damon-tierd.conf -> /dev/null masks every lower main file. */
	make_symlink("/dev/null", root, ETC_MAIN);
	assert_int_equal(load_root(root, &c, &o, &err), 0);
	assert_int_equal(c.set_mask, 0);
	assert_string_equal(o.main_file, "");

	/* A trailing slash on the root is fine. */
	assert_int_equal(unlink(at(root, ETC_MAIN)), 0);
	tu_write(root, ETC_MAIN, "[quota]\nsize = 5G\n");
	{
		char slash[512];

		snprintf(slash, sizeof(slash), "%s/", root);
		assert_int_equal(load_root(slash, &c, &o, &err), 0);
		assert_int_equal(c.quota_bytes, 5ULL << 30);
		assert_string_equal(o.main_file, at(root, ETC_MAIN));
	}
	tu_rmtree(root);
	free(root);
}

static void test_sources_dropin_precedence(void **state)
{
	char *root = tu_mkdtemp();
	struct config c;
	struct config_origins o;
	struct config_error err;

	(void)state;
	tu_write(root, ETC_MAIN, "[quota]\nsize = 1G\nweight_age = 7\n");
	tu_write(root, USR_D "50-vendor.conf", "[quota]\nsize = 2G\n[daemon]\ninterval = 5s\n");
	assert_int_equal(load_root(root, &c, &o, &err), 0);
	/* A drop-in overrides the main file, even from /usr/lib. */
	assert_int_equal(c.quota_bytes, 2ULL << 30);
	assert_int_equal(c.weight_age, 7);
	assert_int_equal(c.interval_us, 5 * S);
	assert_int_equal(o.nr_dropins, 1);
	assert_origin(&o, CONFIG_KEY_QUOTA_SIZE, at(root, USR_D "50-vendor.conf"), 2);
	assert_origin(&o, CONFIG_KEY_QUOTA_WEIGHT_AGE, at(root, ETC_MAIN), 3);

	/* The same name in /etc replaces the /usr/lib file as a whole: its
	 * interval is gone, not merged. */
	tu_write(root, ETC_D "50-vendor.conf", "[quota]\nsize = 3G\n");
	assert_int_equal(load_root(root, &c, &o, &err), 0);
	assert_int_equal(c.quota_bytes, 3ULL << 30);
	assert_int_equal(c.interval_us, 5 * S);
	assert_false(config_is_set(&c, CONFIG_KEY_DAEMON_INTERVAL));
	assert_int_equal(o.nr_dropins, 1);
	assert_origin(&o, CONFIG_KEY_QUOTA_SIZE, at(root, ETC_D "50-vendor.conf"), 2);

	/* /run sits between /etc and /usr/local/lib. */
	tu_write(root, RUN_D "60-x.conf", "[quota]\nweight_age = 8\n");
	tu_write(root, LOCAL_D "60-x.conf", "[quota]\nweight_age = 9\n");
	assert_int_equal(load_root(root, &c, &o, &err), 0);
	assert_int_equal(c.weight_age, 8);
	assert_origin(&o, CONFIG_KEY_QUOTA_WEIGHT_AGE, at(root, RUN_D "60-x.conf"), 2);
	tu_write(root, LOCAL_D "61-x.conf", "[quota]\nweight_age = 9\n");
	assert_int_equal(load_root(root, &c, &o, &err), 0);
	assert_int_equal(c.weight_age, 9);
	assert_int_equal(o.nr_dropins, 3);
	tu_rmtree(root);
	free(root);
}

static void test_sources_dev_null_masks(void **state)
{
	char *root = tu_mkdtemp();
	struct config c;
	struct config_origins o;
	struct config_error err;

	(void)state;
	tu_write(root, USR_D "20-quota.conf", "[quota]\nsize = 2G\n");
	tu_write(root, USR_D "30-other.conf", "[daemon]\ninterval = 5s\n");
	make_symlink("/dev/null", root, ETC_D "20-quota.conf");
	assert_int_equal(load_root(root, &c, &o, &err), 0);
	assert_int_equal(c.quota_bytes, 200ULL << 20);
	assert_false(config_is_set(&c, CONFIG_KEY_QUOTA_SIZE));
	assert_origin(&o, CONFIG_KEY_QUOTA_SIZE, "", 0);
	assert_int_equal(c.interval_us, 5 * S);
	assert_int_equal(o.nr_dropins, 1);  /* the masked one is not counted */

	/* An empty file masks too (it sets nothing). */
	assert_int_equal(unlink(at(root, ETC_D "20-quota.conf")), 0);
	tu_write(root, RUN_D "20-quota.conf", "");
	assert_int_equal(load_root(root, &c, &o, &err), 0);
	assert_false(config_is_set(&c, CONFIG_KEY_QUOTA_SIZE));
	tu_rmtree(root);
	free(root);
}

static void test_sources_lexical_order(void **state)
{
	char *root = tu_mkdtemp();
	struct config c;
	struct config_origins o;
	struct config_error err;

	(void)state;
	/* Order is by name across all directories, not by directory: the
	 * /usr/lib 90- file comes after the /etc 10- file and wins. */
	tu_write(root, ETC_MAIN, "[quota]\nsize = 1G\n");
	tu_write(root, ETC_D "10-early.conf", "[quota]\nsize = 2G\nweight_age = 5\n");
	tu_write(root, USR_D "90-late.conf", "[quota]\n\nsize = 3G\n");
	tu_write(root, LOCAL_D "50-mid.conf", "[quota]\nweight_age = 6\nsize = 4G\n");
	assert_int_equal(load_root(root, &c, &o, &err), 0);
	assert_int_equal(c.quota_bytes, 3ULL << 30);
	assert_int_equal(c.weight_age, 6);
	assert_origin(&o, CONFIG_KEY_QUOTA_SIZE, at(root, USR_D "90-late.conf"), 3);
	assert_origin(&o, CONFIG_KEY_QUOTA_WEIGHT_AGE, at(root, LOCAL_D "50-mid.conf"), 2);
	assert_int_equal(o.nr_dropins, 3);

	/* Byte order, not number order: "9-" sorts after "10-". */
	tu_write(root, RUN_D "9-x.conf", "[quota]\nweight_age = 1\n");
	tu_write(root, RUN_D "A-x.conf", "[quota]\nweight_age = 2\n");
	tu_write(root, RUN_D "a-x.conf", "[quota]\nweight_age = 3\n");
	assert_int_equal(load_root(root, &c, &o, &err), 0);
	assert_int_equal(c.weight_age, 3);
	assert_int_equal(unlink(at(root, RUN_D "a-x.conf")), 0);
	assert_int_equal(load_root(root, &c, &o, &err), 0);
	assert_int_equal(c.weight_age, 2);
	assert_int_equal(unlink(at(root, RUN_D "A-x.conf")), 0);
	assert_int_equal(load_root(root, &c, &o, &err), 0);
	assert_int_equal(c.weight_age, 1);
	tu_rmtree(root);
	free(root);
}

static void test_sources_explicit_file(void **state)
{
	char *root = tu_mkdtemp();
	char main_path[512], dir[512];
	struct config c, sentinel;
	struct config_origins o;
	struct config_error err;
	struct config_sources src = { .root = root, .main_file = main_path };

	(void)state;
	snprintf(main_path, sizeof(main_path), "%s/my.conf", root);
	snprintf(dir, sizeof(dir), "%s/my.conf.d/10-q.conf", root);

	/* Missing FILE: -ENOENT naming it, even with FILE.d/ present. */
	tu_write(root, "my.conf.d/10-q.conf", "[quota]\nsize = 2G\n");
	memset(&c, 0xA5, sizeof(c));
	memset(&sentinel, 0xA5, sizeof(sentinel));
	assert_int_equal(config_load_sources(&src, &c, &o, &err), -ENOENT);
	assert_memory_equal(&c, &sentinel, sizeof(c));
	assert_string_equal(err.file, main_path);
	assert_non_null(strstr(err.message, "my.conf: no such file"));

	/* FILE, then FILE.d/; the search path (under root or not) is not read. */
	tu_write(root, "my.conf", "[quota]\nsize = 1G\nweight_age = 3\n");
	tu_write(root, ETC_MAIN, "[daemon]\ninterval = 5s\n");
	tu_write(root, ETC_D "20-x.conf", "[daemon]\nstatus_interval = 5min\n");
	assert_int_equal(config_load_sources(&src, &c, &o, &err), 0);
	assert_int_equal(c.quota_bytes, 2ULL << 30);
	assert_int_equal(c.weight_age, 3);
	assert_false(config_is_set(&c, CONFIG_KEY_DAEMON_INTERVAL));
	assert_false(config_is_set(&c, CONFIG_KEY_DAEMON_STATUS_INTERVAL));
	assert_string_equal(o.main_file, main_path);
	assert_int_equal(o.nr_dropins, 1);
	assert_origin(&o, CONFIG_KEY_QUOTA_SIZE, dir, 2);
	assert_origin(&o, CONFIG_KEY_QUOTA_WEIGHT_AGE, main_path, 3);

	/* A relative FILE works relative to the working directory. */
	{
		char cwd[512];

		assert_non_null(getcwd(cwd, sizeof(cwd)));
		assert_int_equal(chdir(root), 0);
		src.main_file = "my.conf";
		assert_int_equal(config_load_sources(&src, &c, &o, &err), 0);
		assert_int_equal(c.quota_bytes, 2ULL << 30);
		assert_string_equal(o.key[CONFIG_KEY_QUOTA_SIZE].file, "my.conf.d/10-q.conf");
		assert_int_equal(chdir(cwd), 0);
	}

	/* config_load() is the one file, without its drop-ins. */
	assert_int_equal(config_load(main_path, &c, &err), 0);
	assert_int_equal(c.quota_bytes, 1ULL << 30);
	tu_rmtree(root);
	free(root);
}

static void test_sources_format(void **state)
{
	char *root = tu_mkdtemp();
	struct config c;
	struct config_origins o;
	struct config_error err;
	char buf[8192], plain[8192], want[600];
	const char *line, *p;
	size_t hash_col = 0;

	(void)state;
	tu_write(root, ETC_MAIN, "[daemon]\ninterval = 5s\n");
	tu_write(root, ETC_D "10-quota.conf", "# more migration\n[quota]\nsize = 1G\n");
	assert_int_equal(load_root(root, &c, &o, &err), 0);
	assert_int_equal(config_format_sources(&c, &o, buf, sizeof(buf)), 0);
	print_message("%s", buf);

	snprintf(want, sizeof(want), "  # %s:3\n", at(root, ETC_D "10-quota.conf"));
	line = strstr(buf, "quota.size = 1GiB ");
	assert_non_null(line);
	assert_non_null(strstr(line, want));
	assert_true(strstr(line, want) < strchr(line, '\n'));
	snprintf(want, sizeof(want), "  # %s:2\n", at(root, ETC_MAIN));
	line = strstr(buf, "daemon.interval = 5s ");
	assert_non_null(line);
	assert_true(strstr(line, want) < strchr(line, '\n'));
	line = strstr(buf, "promote.used_goal = auto ");
	assert_non_null(line);
	assert_true(strstr(line, "  # default\n") < strchr(line, '\n'));

	/* One line per key, the comments aligned in one column. */
	for (p = buf; *p; p = strchr(p, '\n') + 1) {
		size_t col = (size_t)(strstr(p, "  # ") - p);

		if (hash_col == 0)
			hash_col = col;
		assert_int_equal(col, hash_col);
	}

	/* Without origins, and with the comments cut, it is config_format(). */
	assert_int_equal(config_format(&c, plain, sizeof(plain)), 0);
	assert_int_equal(config_format_sources(&c, NULL, buf, sizeof(buf)), 0);
	assert_string_equal(buf, plain);
	assert_int_equal(config_format_sources(&c, &o, buf, 100), -ENOBUFS);
	assert_int_equal(config_format_sources(&c, &o, buf, 0), -ENOBUFS);
	tu_rmtree(root);
	free(root);
}

static void test_sources_errors(void **state)
{
	char *root = tu_mkdtemp();
	struct config_error err;
	char prefix[600];

	(void)state;
	tu_write(root, ETC_MAIN, "[promote]\nmin_accesses = 2\n");
	tu_write(root, USR_D "10-good.conf", "[quota]\nsize = 1G\n");

	/* A bad value in a drop-in names the drop-in and its line. */
	tu_write(root, RUN_D "20-bad.conf", "[quota]\n\nsize = 200 parsecs\n");
	assert_int_equal(load_root_expect_untouched(root, &err), -EINVAL);
	assert_string_equal(err.file, at(root, RUN_D "20-bad.conf"));
	assert_int_equal(err.line, 3);
	snprintf(prefix, sizeof(prefix), "%s:3: [quota] size: not a size", at(root, RUN_D "20-bad.conf"));
	assert_int_equal(strncmp(err.message, prefix, strlen(prefix)), 0);

	/* Twice in one drop-in is still an error... */
	tu_write(root, RUN_D "20-bad.conf", "[quota]\nsize = 2G\nsize = 3G\n");
	assert_int_equal(load_root_expect_untouched(root, &err), -EINVAL);
	assert_string_equal(err.file, at(root, RUN_D "20-bad.conf"));
	assert_int_equal(err.line, 3);
	assert_non_null(strstr(err.message, "duplicate key (first set on line 2"));
	/* ... once in each of two files is the point of drop-ins. */
	tu_write(root, RUN_D "20-bad.conf", "[quota]\nsize = 2G\n");
	{
		struct config c;

		assert_int_equal(load_root(root, &c, NULL, &err), 0);
		assert_int_equal(c.quota_bytes, 2ULL << 30);
	}

	/* A cross-key failure is reported where the last of the two keys was
	 * set, naming where the other one came from. */
	tu_write(root, RUN_D "20-bad.conf", "[demote]\nmax_accesses = 2\n");
	assert_int_equal(load_root_expect_untouched(root, &err), -EINVAL);
	assert_string_equal(err.file, at(root, RUN_D "20-bad.conf"));
	assert_int_equal(err.line, 2);
	snprintf(prefix, sizeof(prefix), "[demote] max_accesses = 2 (line 2) must be below "
		 "[promote] min_accesses = 2 (%s:2)", at(root, ETC_MAIN));
	assert_non_null(strstr(err.message, prefix));

	/* Unknown section, line syntax, NUL bytes: all named in the drop-in. */
	tu_write(root, RUN_D "20-bad.conf", "[qouta]\n");
	assert_int_equal(load_root_expect_untouched(root, &err), -EINVAL);
	assert_string_equal(err.file, at(root, RUN_D "20-bad.conf"));
	assert_int_equal(err.line, 1);
	assert_non_null(strstr(err.message, "did you mean [quota]?"));
	tu_write(root, RUN_D "20-bad.conf", "[quota]\nnonsense\n");
	assert_int_equal(load_root_expect_untouched(root, &err), -EINVAL);
	assert_int_equal(err.line, 2);
	assert_non_null(strstr(err.message, "cannot parse line"));
	assert_int_equal(unlink(at(root, RUN_D "20-bad.conf")), 0);

	/* Bad sources: a directory named *.conf, a dangling symlink, a drop-in
	 * directory that is a file, an unreadable drop-in. */
	assert_int_equal(mkdir(at(root, ETC_D), 0755), 0);
	assert_int_equal(mkdir(at(root, ETC_D "30-dir.conf"), 0755), 0);
	assert_int_equal(load_root_expect_untouched(root, &err), -EINVAL);
	assert_string_equal(err.file, at(root, ETC_D "30-dir.conf"));
	assert_non_null(strstr(err.message, "not a regular file but a directory"));
	assert_int_equal(rmdir(at(root, ETC_D "30-dir.conf")), 0);

	make_symlink("/nonexistent/damon-tierd-test", root, ETC_D "30-gone.conf");
	assert_int_equal(load_root_expect_untouched(root, &err), -ENOENT);
	assert_string_equal(err.file, at(root, ETC_D "30-gone.conf"));
	assert_non_null(strstr(err.message, "dangling symlink"));
	assert_int_equal(unlink(at(root, ETC_D "30-gone.conf")), 0);

	tu_write(root, "usr/local/lib/damon-tierd.conf.d", "[quota]\nsize = 1G\n");
	assert_int_equal(load_root_expect_untouched(root, &err), -ENOTDIR);
	assert_string_equal(err.file, at(root, "usr/local/lib/damon-tierd.conf.d"));
	assert_non_null(strstr(err.message, "not a directory"));
	assert_int_equal(unlink(at(root, "usr/local/lib/damon-tierd.conf.d")), 0);

	if (geteuid() != 0) {
		tu_write(root, ETC_D "40-secret.conf", "[quota]\nsize = 1G\n");
		assert_int_equal(chmod(at(root, ETC_D "40-secret.conf"), 0), 0);
		assert_int_equal(load_root_expect_untouched(root, &err), -EACCES);
		assert_string_equal(err.file, at(root, ETC_D "40-secret.conf"));
		assert_int_equal(unlink(at(root, ETC_D "40-secret.conf")), 0);
	}

	/* A root so long that the paths would not fit. */
	{
		char longroot[400];

		memset(longroot, 'x', sizeof(longroot) - 1);
		longroot[0] = '/';
		longroot[sizeof(longroot) - 1] = '\0';
		assert_int_equal(load_root_expect_untouched(longroot, &err), -ENAMETOOLONG);
		assert_non_null(strstr(err.message, "longer than 255 bytes"));
	}
	tu_rmtree(root);
	free(root);
}

static void test_sources_pinning(void **state)
{
	char *root = tu_mkdtemp();
	struct config c;
	struct config_origins o;
	struct config_error err;

	(void)state;
	/* set_mask is the union over the files: a key pinned anywhere stays
	 * pinned, a key written nowhere stays calibrated. */
	tu_write(root, ETC_MAIN, "[quota]\nsize = 200MiB\n[promote]\nused_goal = 90%\n");
	tu_write(root, USR_D "10-mon.conf", "[monitoring]\nmax_sample_interval = 10s\n");
	tu_write(root, ETC_D "20-goal.conf", "[promote]\nused_goal = auto\n");
	assert_int_equal(load_root(root, &c, &o, &err), 0);
	assert_true(config_is_set(&c, CONFIG_KEY_QUOTA_SIZE));
	assert_true(config_is_set(&c, CONFIG_KEY_MONITORING_MAX_SAMPLE_INTERVAL));
	assert_false(config_is_set(&c, CONFIG_KEY_QUOTA_RESET_INTERVAL));
	assert_false(config_is_set(&c, CONFIG_KEY_QUOTA_APPLY_INTERVAL));
	assert_int_equal(c.set_mask, (UINT64_C(1) << CONFIG_KEY_QUOTA_SIZE) |
			 (UINT64_C(1) << CONFIG_KEY_MONITORING_MAX_SAMPLE_INTERVAL) |
			 (UINT64_C(1) << CONFIG_KEY_PROMOTE_USED_GOAL));
	/* The drop-in's "auto" replaces the main file's pinned 90%. */
	assert_true(c.promote_used.automatic);
	assert_int_equal(c.promote_used.bp, 9970);
	assert_origin(&o, CONFIG_KEY_PROMOTE_USED_GOAL, at(root, ETC_D "20-goal.conf"), 2);

	/* Masking the drop-in un-pins what only it set. */
	make_symlink("/dev/null", root, ETC_D "10-mon.conf");
	assert_int_equal(load_root(root, &c, &o, &err), 0);
	assert_false(config_is_set(&c, CONFIG_KEY_MONITORING_MAX_SAMPLE_INTERVAL));
	tu_rmtree(root);
	free(root);
}

static void test_sources_main_is_dropin(void **state)
{
	char *root = tu_mkdtemp();
	struct config c;
	struct config_origins o;
	struct config_error err;

	(void)state;
	/* As in systemd: a main file that is (a symlink to) one of the
	 * drop-ins is read once, as that drop-in, in its place in the order. */
	tu_write(root, ETC_D "50-all.conf", "[quota]\nsize = 1G\n");
	tu_write(root, ETC_D "60-more.conf", "[quota]\nweight_age = 5\n");
	assert_int_equal(symlink(at(root, ETC_D "50-all.conf"), at(root, ETC_MAIN)), 0);
	assert_int_equal(load_root(root, &c, &o, &err), 0);
	assert_int_equal(c.quota_bytes, 1ULL << 30);
	assert_string_equal(o.main_file, "");
	assert_int_equal(o.nr_dropins, 2);
	assert_origin(&o, CONFIG_KEY_QUOTA_SIZE, at(root, ETC_D "50-all.conf"), 2);
	tu_rmtree(root);
	free(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_key_table),
		cmocka_unit_test(test_every_key),
		cmocka_unit_test(test_syntax_variants),
		cmocka_unit_test(test_bad_values),
		cmocka_unit_test(test_bad_lines),
		cmocka_unit_test(test_cross_keys),
		cmocka_unit_test(test_load_file),
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_conf_file_defaults),
		cmocka_unit_test(test_conf_file_lists_every_key),
		cmocka_unit_test(test_sources_nothing_found),
		cmocka_unit_test(test_sources_main_search),
		cmocka_unit_test(test_sources_dropin_precedence),
		cmocka_unit_test(test_sources_dev_null_masks),
		cmocka_unit_test(test_sources_lexical_order),
		cmocka_unit_test(test_sources_explicit_file),
		cmocka_unit_test(test_sources_format),
		cmocka_unit_test(test_sources_errors),
		cmocka_unit_test(test_sources_pinning),
		cmocka_unit_test(test_sources_main_is_dropin),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
