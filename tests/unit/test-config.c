/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The configuration as text: defaults, the key table, every key's values and
 * syntax, the errors that name file:line, and the rules across keys. */
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
#include "config_fx.h"

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
	assert_int_equal(cfx_load(text, &c, &err), -EINVAL);
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

		assert_int_equal(cfx_load("", &d, &err), 0);
		cfx_assert_equal(&c, &d);
		assert_int_equal(d.set_mask, 0);
		assert_int_equal(cfx_load("# nothing\n; here\n\n[daemon]\n", &d, &err), 0);
		cfx_assert_equal(&c, &d);
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
		assert_int_equal(cfx_load(text, &c, &err), 0);
		config_init(&d);
		cfx_assert_equal(&c, &d);
		assert_int_equal(c.set_mask, UINT64_C(1) << i);
		assert_true(config_is_set(&c, (enum config_key)i));
	}
	/* Table order is the enum order. */
	assert_string_equal(keys[CONFIG_KEY_QUOTA_SIZE].key, "size");
	assert_string_equal(keys[CONFIG_KEY_DEMOTE_MIN_AGE].section, "demote");
	assert_string_equal(keys[CONFIG_KEY_MONITORING_MAX_SAMPLE_INTERVAL].key, "max_sample_interval");
}


static void test_every_key(void **state)
{
	struct config c;
	struct config_error err;
	int k;

	(void)state;
	assert_int_equal(cfx_load(cfx_every_key, &c, &err), 0);
	cfx_check_every_key(&c);
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
	assert_int_equal(cfx_load("\xEF\xBB\xBF[daemon]\r\n"
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
	assert_int_equal(cfx_load("[promote]\nused_goal = auto\n[demote]\nfree_goal = 1%\n", &c, &err), 0);
	assert_true(c.promote_used.automatic);
	assert_int_equal(c.promote_used.bp, 9970);
	assert_true(config_is_set(&c, CONFIG_KEY_PROMOTE_USED_GOAL));
	assert_false(c.demote_free.automatic);
	assert_int_equal(c.demote_free.bp, 100);

	/* Intervals tuning off: the sample interval may leave the tuning range. */
	assert_int_equal(cfx_load("[monitoring]\nintervals_goal_aggrs = 0\nmin_sample_interval = 50ms\n", &c, &err), 0);
}

static void test_bad_values(void **state)
{
	struct config c;
	struct config_error err;

	(void)state;
	/* The whole message, once, so its shape is pinned down. */
	assert_int_equal(cfx_load("[monitoring]\nsample_interval = 5 parsecs\n", &c, &err), -EINVAL);
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

}

/* A long line in a t.conf text: prefix, `pad` times c, suffix. */
static char *padded(const char *prefix, size_t pad, char c, const char *suffix)
{
	size_t lp = strlen(prefix), ls = strlen(suffix);
	char *t = malloc(lp + pad + ls + 1);

	assert_non_null(t);
	memcpy(t, prefix, lp);
	memset(t + lp, c, pad);
	memcpy(t + lp + pad, suffix, ls + 1);
	return t;
}

/* Lines of 300 bytes and more: prefix, 300 times pad, suffix. */
static const struct long_error {
	const char *prefix;
	char pad;
	const char *suffix;
	unsigned line;
	const char *needle;
} long_errors[] = {
	{ "[daemon]\n\nstate_dir = /", 'p', "\n", 3, "[daemon] state_dir: path too long (301 bytes)" },
	{ "[daemon]\nstate_dir = /", 'p', "\n", 2, "pppp...\"; expected an absolute path shorter than 256 bytes" },
	{ "[daemon]\ninterval = ", '9', "\n", 2, "[daemon] interval:" },
	{ "[daemon]\nbogus_key = ", 'x', "\n", 2, "[daemon] bogus_key: unknown key" },
	{ "[daemon]\n", 'x', "\n", 2, "cannot parse line (got \"xxxx" },
	{ "[daemon]\n", 'x', "\n", 2, "...\"; expected \"key = value\"" },
	{ "[daemon]\n = ", 'x', "\n", 2, "missing key name" },
	{ "state_dir = /", 'x', "\n", 1, "state_dir: key outside any section" },
	{ "[", 'x', "]\n", 1, "unknown section" },
	{ "[daemon] ", 'x', "\n", 1, "text after the section header" },
	{ "[daemon", 'x', "\n", 1, "section header without closing ']' (got \"[daemonxxx" },
	{ "[daemon]\ninterval = 10s\n", 'x', " = 1\n", 3, "unknown key" },
};

/* What inih alone misreads: CR line endings, text after a header, and lines
 * longer than its 200-byte buffer. */
static void test_line_syntax(void **state)
{
	struct config c;
	struct config_error err;
	char *t;

	(void)state;
	/* CR-only line endings: one line to inih, its header and nothing else. */
	expect_error("[daemon]\rinterval = 10s\rstatus_interval = 2min\r", 1,
		     "carriage return inside a line (after \"[daemon]\")", "CR line endings", NULL);
	expect_error("[daemon]\ninterval = 10s\rstatus_interval = 2min\n", 2,
		     "carriage return inside a line (after \"interval = 10s\")", NULL);
	/* CR LF is fine, also on the last line without LF. */
	assert_int_equal(cfx_load("[daemon]\r\ninterval = 10s\r\nstatus_interval = 2min\r", &c, &err), 0);
	assert_int_equal(c.interval_us, 10 * S);
	assert_int_equal(c.status_interval_us, 120 * S);

	/* Nothing but a comment after a header. */
	expect_error("[daemon] interval = 10s\n", 1,
		     "[daemon]: text after the section header (got \"interval = 10s\")", NULL);
	expect_error("[quota]\n[daemon] junk\n", 2, "[daemon]: text after the section header (got \"junk\")", NULL);
	expect_error("[daemon] # main\n", 1, "text after the section header", "starts with ';'", NULL);
	expect_error("[daemon]]\n", 1, "text after the section header (got \"]\")", NULL);
	assert_int_equal(cfx_load("[daemon] ; main\ninterval = 10s\n  [quota];x\nsize = 1G\n", &c, &err), 0);
	assert_int_equal(c.interval_us, 10 * S);
	assert_true(c.quota_bytes == 1ULL << 30);

	/* Lines past inih's buffer: a comment of any length... */
	t = padded("[daemon]\n# ", 5000, 'x', "\ninterval = 10s\n");
	assert_int_equal(cfx_load(t, &c, &err), 0);
	assert_int_equal(c.interval_us, 10 * S);
	free(t);
	/* ...a value with a long comment after it, split as inih splits... */
	t = padded("[daemon]\ninterval = 10s ; ", 5000, 'x', "\n[quota]\nsize = 1G\n");
	assert_int_equal(cfx_load(t, &c, &err), 0);
	assert_int_equal(c.interval_us, 10 * S);
	assert_true(c.quota_bytes == 1ULL << 30);
	free(t);
	t = padded("[daemon]\nstate_dir : /run/x;y  ; ", 300, ' ', "c\n");
	assert_int_equal(cfx_load(t, &c, &err), 0);
	assert_string_equal(c.state_dir, "/run/x;y");
	free(t);
	/* ...the longest path a key takes... */
	t = padded("[daemon]\nstate_dir = /", CONFIG_PATH_MAX - 2, 'p', "\n");
	assert_int_equal(cfx_load(t, &c, &err), 0);
	assert_int_equal(strlen(c.state_dir), CONFIG_PATH_MAX - 1);
	free(t);
	/* ...and every error gets its own message, at its line. */
	for (size_t i = 0; i < sizeof(long_errors) / sizeof(long_errors[0]); i++) {
		const struct long_error *e = &long_errors[i];

		t = padded(e->prefix, 300, e->pad, e->suffix);
		expect_error(t, e->line, e->needle, NULL);
		free(t);
	}
}

/* A key line read by inih and the same line made too long for it by a
 * comment after it give the same result: the long-line split is inih's. */
static void test_long_lines_split_like_inih(void **state)
{
	static const char *const lines[] = {
		"interval = 10s", "interval=10s", "interval: 10s", "interval =10s ; c",
		"interval = 10s\t", "interval = 10s;c", "state_dir = /a;b", "state_dir = /a ;b",
		"state_dir = /a\t;b", "state_dir = /a:b=c", "prometheus_textfile =",
		"prometheus_textfile = ; c", "prometheus_textfile = ;x.prom", "interval ; = 10s",
		"interval", "interval = = 10s", "= 10s", "interval x = 10s",
	};
	char short_text[128];

	(void)state;
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		struct config a, b;
		struct config_error ea, eb;
		char *long_text;
		int ra, rb;

		snprintf(short_text, sizeof(short_text), "[daemon]\n%s", lines[i]);
		long_text = padded(short_text, 300, ' ', " ; padding\n");
		strcat(short_text, "\n");
		ra = cfx_load(short_text, &a, &ea);
		rb = cfx_load(long_text, &b, &eb);
		print_message("  %-28s %d %s\n", lines[i], ra, ra ? ea.message : "");
		assert_int_equal(ra, rb);
		if (ra == 0)
			cfx_assert_equal(&a, &b);
		else if (strstr(ea.message, "cannot parse line"))
			assert_non_null(strstr(eb.message, "cannot parse line"));
		else
			assert_string_equal(ea.message, eb.message);
		free(long_text);
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
		assert_int_equal(cfx_load("[daemon]\ninterval = 1h\nstatus_interval = 1h\n", &c, &err), 0);
		assert_int_equal(config_verify_interval_us(&c), 3600 * S);
		assert_int_equal(cfx_load("[daemon]\nverify_interval = 2min\n", &c, &err), 0);
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

/* [cgroup NAME]: paths and units, merged by name, every error at its line. */
static void test_cgroup_sections(void **state)
{
	struct config c;
	struct config_error err;
	char buf[8192] = "";

	(void)state;
	assert_int_equal(cfx_load("[cgroup /system.slice/mysql.service]\nprotect = yes\nfast_share = 80%\n"
				  "[cgroup batch.slice]\npromote = no\n"
				  "[cgroup /system.slice/mysql.service]\nprotect = no\n", &c, &err), -EINVAL);
	assert_non_null(strstr(err.message, "t.conf:7: [cgroup /system.slice/mysql.service] protect: duplicate key"));
	assert_int_equal(cfx_load("[cgroup /system.slice/mysql.service]\nprotect = yes\nfast_share = 80%\n"
				  "[cgroup batch.slice]\npromote = no\n[quota]\nsize = 64MiB\n", &c, &err), 0);
	assert_int_equal(c.nr_cgroups, 2);
	assert_string_equal(c.cgroups[0].name, "/system.slice/mysql.service");
	assert_true(c.cgroups[0].protect && c.cgroups[0].promote);
	assert_int_equal(c.cgroups[0].fast_share_bp, 8000);
	assert_string_equal(c.cgroups[1].name, "batch.slice");
	assert_false(c.cgroups[1].protect || c.cgroups[1].promote);
	assert_int_equal(c.cgroups[1].fast_share_bp, 0);
	assert_int_equal(c.quota_bytes, 64 << 20);
	assert_int_equal(config_format(&c, buf, sizeof(buf)), 0);
	assert_non_null(strstr(buf, "cgroup[/system.slice/mysql.service].fast_share = 80.00%\n"));
	assert_non_null(strstr(buf, "cgroup[batch.slice].promote = no\n"));

	expect_error("[cgroup /x]\nfast_share = 120%\n", 2, "[cgroup /x] fast_share: out of range", NULL);
	expect_error("[cgroup /x]\nfast_share = 0\n", 2, "out of range", NULL);
	expect_error("[cgroup /x]\nfast_share = lots\n", 2, "not a share", NULL);
	expect_error("[cgroup /x]\nprotect = maybe\n", 2, "protect: not a boolean", NULL);
	expect_error("[cgroup /x]\nfast_share = 20%\npromote = no\n", 3,
		     "fast_share = 20.00% (line 2) conflicts with promote = no (line 3)", NULL);
	expect_error("[cgroup /x]\npromote = no\nfast_share = 20%\n", 3, "conflicts", NULL);
	expect_error("[cgroup /x]\n[daemon]\n", 1, "[cgroup /x]: the section sets nothing", NULL);
	expect_error("[cgroup]\nprotect = yes\n", 1, "missing cgroup name", NULL);
	expect_error("[cgroup /]\nprotect = yes\n", 1, "the root cgroup", NULL);
	expect_error("[cgroup /a//b]\nprotect = yes\n", 1, "not a plain cgroup path", NULL);
	expect_error("[cgroup /a/../b]\nprotect = yes\n", 1, "not a plain cgroup path", NULL);
	expect_error("[cgroup mysql]\nprotect = yes\n", 1, "systemd unit ending in .service", NULL);
	expect_error("[cgroup /a b]\nprotect = yes\n", 1, "no blanks", NULL);
	expect_error("[cgroup /x]\nprotec = yes\n", 2, "protec: unknown key (keys of a cgroup section", NULL);
	expect_error("[cgroup /a]\nprotect=1\n[cgroup /b]\nprotect=1\n[cgroup /c]\nprotect=1\n"
		     "[cgroup /d]\nprotect=1\n[cgroup /e]\nprotect=1\n[cgroup /f]\nprotect=1\n"
		     "[cgroup /g]\nprotect=1\n[cgroup /h]\nprotect=1\n[cgroup /i]\nprotect=1\n", 17,
		     "at most 8 cgroup sections", NULL);
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
		cmocka_unit_test(test_line_syntax),
		cmocka_unit_test(test_long_lines_split_like_inih),
		cmocka_unit_test(test_cross_keys),
		cmocka_unit_test(test_cgroup_sections),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
