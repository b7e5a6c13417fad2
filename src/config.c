/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The config file.  One table describes every key (section, name, kind,
 * bounds, default text, help); config_init() parses the default texts with
 * the same code as the file, so defaults, --check-config output and the
 * shipped conf file cannot drift apart (the unit test checks the latter).
 * The files of the search path (see config.h) are parsed one after the other
 * into one struct, with a record of which file and line set each key.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ini.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "config.h"
#include "parse.h"

#define USEC UINT64_C(1)
#define MSEC UINT64_C(1000)
#define SEC  UINT64_C(1000000)
#define MIN  (60 * SEC)
#define HOUR (60 * MIN)

#define KIB (UINT64_C(1) << 10)
#define TIB (UINT64_C(1) << 40)

/* A config file is a few dozen lines; anything larger is a wrong path. */
#define CONFIG_FILE_MAX (1024 * 1024)

enum kind {
	K_DURATION,     /* uint64_t, microseconds */
	K_DURATION_MS,  /* uint64_t, milliseconds; bounds are still in us */
	K_SIZE,         /* uint64_t, bytes */
	K_UINT,         /* unsigned */
	K_BP,           /* unsigned, basis points, "4%" accepted */
	K_BOOL,         /* bool */
	K_GOAL,         /* struct goal_setting */
	K_ENUM,         /* an enum stored as int */
	K_PATH,         /* char[CONFIG_PATH_MAX]; min = 1: required, suffix: required ending */
};

struct key_def {
	enum kind kind;
	size_t offset;
	uint64_t min, max;            /* in the parsed unit (us, bytes, bp, count) */
	unsigned seed_bp;             /* K_GOAL: the bound used while "auto" */
	const char *const *names;     /* K_ENUM: index = value, NULL-terminated */
	const char *suffix;           /* K_PATH: the name must end with it */
};

static const char *const damon_stat_names[] = { "pause", "keep", NULL };
static const char *const numa_balancing_names[] = { "leave", "disable-tiering", NULL };
static const char *const quota_tuner_names[] = { "daemon", "kernel", NULL };

_Static_assert(sizeof(enum damon_stat_policy) == sizeof(int), "enum stored as int");
_Static_assert(sizeof(enum numa_balancing_policy) == sizeof(int), "enum stored as int");
_Static_assert(sizeof(enum quota_tuner) == sizeof(int), "enum stored as int");
_Static_assert(_CONFIG_KEY_MAX <= 64, "set_mask has 64 bits");

#define OFF(field) offsetof(struct config, field)

static const struct config_key_info key_info[_CONFIG_KEY_MAX] = {
	[CONFIG_KEY_DAEMON_INTERVAL] = { "daemon", "interval", "5s",
		"How often the topology is re-read and the kdamonds reconciled with the plan." },
	[CONFIG_KEY_DAEMON_STATUS_INTERVAL] = { "daemon", "status_interval", "60s",
		"How often a status line is logged; at least daemon.interval." },
	[CONFIG_KEY_DAEMON_VERIFY_INTERVAL] = { "daemon", "verify_interval", "30s",
		"How often every planned file of our kdamonds is read back to find changes made behind our back; at least daemon.interval." },
	[CONFIG_KEY_DAEMON_DAMON_STAT] = { "daemon", "damon_stat", "pause",
		"pause: switch DAMON_STAT off while running (its exclusive kdamond blocks ours) and back on at exit; keep: leave it alone." },
	[CONFIG_KEY_DAEMON_NUMA_BALANCING] = { "daemon", "numa_balancing", "leave",
		"leave: never touch kernel.numa_balancing; disable-tiering: clear its memory tiering mode while running." },
	[CONFIG_KEY_DAEMON_STATE_DIR] = { "daemon", "state_dir", "/run/damon-tierd",
		"Absolute directory for the instance lock and the record of the kdamonds this daemon owns." },
	[CONFIG_KEY_DAEMON_REFRESH_INTERVAL] = { "daemon", "refresh_interval", "1s",
		"kdamond refresh_ms: how often the kernel copies stats and tuned intervals to sysfs; 0s = off." },
	[CONFIG_KEY_DAEMON_PROMETHEUS_TEXTFILE] = { "daemon", "prometheus_textfile", "",
		"node_exporter textfile collector output (a *.prom file, rewritten every interval); empty = off." },
	[CONFIG_KEY_MONITORING_SAMPLE_INTERVAL] = { "monitoring", "sample_interval", "5ms",
		"DAMON sampling interval (the starting value when interval tuning is on)." },
	[CONFIG_KEY_MONITORING_AGGR_INTERVAL] = { "monitoring", "aggr_interval", "100ms",
		"DAMON aggregation interval; aggr_interval / sample_interval is the highest access count." },
	[CONFIG_KEY_MONITORING_INTERVALS_GOAL_ACCESS_BP] = { "monitoring", "intervals_goal_access_bp", "400",
		"Interval tuning target: share of sampled accesses to observe, in bp or % (400 = 4%)." },
	[CONFIG_KEY_MONITORING_INTERVALS_GOAL_AGGRS] = { "monitoring", "intervals_goal_aggrs", "3",
		"Tune the intervals every this many aggregations; 0 turns interval tuning off." },
	[CONFIG_KEY_MONITORING_MIN_SAMPLE_INTERVAL] = { "monitoring", "min_sample_interval", "5ms",
		"Lower bound of the tuned sampling interval." },
	[CONFIG_KEY_MONITORING_MAX_SAMPLE_INTERVAL] = { "monitoring", "max_sample_interval", "10s",
		"Upper bound of the tuned sampling interval; the daemon may lower it unless set here." },
	[CONFIG_KEY_MONITORING_MIN_NR_REGIONS] = { "monitoring", "min_nr_regions", "10",
		"Lower bound of the number of DAMON regions per kdamond (the kernel needs at least 3)." },
	[CONFIG_KEY_MONITORING_MAX_NR_REGIONS] = { "monitoring", "max_nr_regions", "1000",
		"Upper bound of the number of DAMON regions per kdamond." },
	[CONFIG_KEY_QUOTA_SIZE] = { "quota", "size", "200MiB",
		"Most memory each kdamond migrates per reset_interval; the daemon may adjust it unless set here." },
	[CONFIG_KEY_QUOTA_TIME_LIMIT] = { "quota", "time_limit", "0ms",
		"Most CPU time each kdamond spends migrating per reset_interval; 0ms = no time limit." },
	[CONFIG_KEY_QUOTA_RESET_INTERVAL] = { "quota", "reset_interval", "1s",
		"The quota charge window." },
	[CONFIG_KEY_QUOTA_WEIGHT_SIZE] = { "quota", "weight_size", "0",
		"Region priority weight of size under a short quota (ignored by the kernel for physical memory)." },
	[CONFIG_KEY_QUOTA_WEIGHT_ACCESSES] = { "quota", "weight_accesses", "100",
		"Region priority weight of the access frequency." },
	[CONFIG_KEY_QUOTA_WEIGHT_AGE] = { "quota", "weight_age", "100",
		"Region priority weight of the age." },
	[CONFIG_KEY_QUOTA_APPLY_INTERVAL] = { "quota", "apply_interval", "1s",
		"How often the schemes are applied; 0s = every aggregation interval." },
	[CONFIG_KEY_QUOTA_TUNER] = { "quota", "tuner", "daemon",
		"daemon: the daemon sets each quota every second from the fast node's free memory and the goals; kernel: DAMON's own goal tuner (node_mem_used_bp/node_mem_free_bp goals)." },
	[CONFIG_KEY_PROMOTE_USED_GOAL] = { "promote", "used_goal", "auto",
		"Target used memory of the fast node: auto, basis points or a percentage (pins it)." },
	[CONFIG_KEY_PROMOTE_MIN_ACCESSES] = { "promote", "min_accesses", "1",
		"Promote regions with at least this many accesses per aggregation." },
	[CONFIG_KEY_PROMOTE_YOUNG_FILTER] = { "promote", "young_filter", "yes",
		"Promote only pages whose accessed bit is set when the scheme is applied." },
	[CONFIG_KEY_DEMOTE_FREE_GOAL] = { "demote", "free_goal", "auto",
		"Target free memory of the fast node: auto, basis points or a percentage (pins it)." },
	[CONFIG_KEY_DEMOTE_MAX_ACCESSES] = { "demote", "max_accesses", "0",
		"Demote regions with at most this many accesses per aggregation; below promote.min_accesses." },
	[CONFIG_KEY_DEMOTE_MIN_AGE] = { "demote", "min_age", "0s",
		"Demote only regions that kept that access count for at least this long." },
	[CONFIG_KEY_DEMOTE_YOUNG_FILTER] = { "demote", "young_filter", "yes",
		"Skip pages whose accessed bit is set when the scheme is applied." },
};

static const struct key_def key_defs[_CONFIG_KEY_MAX] = {
	[CONFIG_KEY_DAEMON_INTERVAL] = { K_DURATION, OFF(interval_us), 100 * MSEC, HOUR, 0, NULL },
	[CONFIG_KEY_DAEMON_STATUS_INTERVAL] = { K_DURATION, OFF(status_interval_us), 100 * MSEC, 24 * HOUR, 0, NULL },
	[CONFIG_KEY_DAEMON_VERIFY_INTERVAL] = { K_DURATION, OFF(verify_interval_us), 100 * MSEC, 24 * HOUR, 0, NULL },
	[CONFIG_KEY_DAEMON_DAMON_STAT] = { K_ENUM, OFF(damon_stat), 0, 0, 0, damon_stat_names },
	[CONFIG_KEY_DAEMON_NUMA_BALANCING] = { K_ENUM, OFF(numa_balancing), 0, 0, 0, numa_balancing_names },
	[CONFIG_KEY_DAEMON_STATE_DIR] = { K_PATH, OFF(state_dir), 1, 0, 0, NULL, NULL },
	[CONFIG_KEY_DAEMON_REFRESH_INTERVAL] = { K_DURATION_MS, OFF(refresh_ms), 0, HOUR, 0, NULL },
	/* node_exporter's textfile collector reads only *.prom files. */
	[CONFIG_KEY_DAEMON_PROMETHEUS_TEXTFILE] = { K_PATH, OFF(prometheus_textfile), 0, 0, 0, NULL, ".prom" },
	[CONFIG_KEY_MONITORING_SAMPLE_INTERVAL] = { K_DURATION, OFF(sample_us), 100 * USEC, MIN, 0, NULL },
	[CONFIG_KEY_MONITORING_AGGR_INTERVAL] = { K_DURATION, OFF(aggr_us), 100 * USEC, 10 * MIN, 0, NULL },
	[CONFIG_KEY_MONITORING_INTERVALS_GOAL_ACCESS_BP] = { K_BP, OFF(intervals_goal_access_bp), 1, 10000, 0, NULL },
	[CONFIG_KEY_MONITORING_INTERVALS_GOAL_AGGRS] = { K_UINT, OFF(intervals_goal_aggrs), 0, 1000, 0, NULL },
	[CONFIG_KEY_MONITORING_MIN_SAMPLE_INTERVAL] = { K_DURATION, OFF(min_sample_us), 100 * USEC, MIN, 0, NULL },
	[CONFIG_KEY_MONITORING_MAX_SAMPLE_INTERVAL] = { K_DURATION, OFF(max_sample_us), 100 * USEC, MIN, 0, NULL },
	[CONFIG_KEY_MONITORING_MIN_NR_REGIONS] = { K_UINT, OFF(min_nr_regions), 3, 1000000, 0, NULL },
	[CONFIG_KEY_MONITORING_MAX_NR_REGIONS] = { K_UINT, OFF(max_nr_regions), 3, 1000000, 0, NULL },
	[CONFIG_KEY_QUOTA_SIZE] = { K_SIZE, OFF(quota_bytes), 4 * KIB, TIB, 0, NULL },
	[CONFIG_KEY_QUOTA_TIME_LIMIT] = { K_DURATION_MS, OFF(quota_ms), 0, HOUR, 0, NULL },
	[CONFIG_KEY_QUOTA_RESET_INTERVAL] = { K_DURATION_MS, OFF(quota_reset_interval_ms), MSEC, HOUR, 0, NULL },
	[CONFIG_KEY_QUOTA_WEIGHT_SIZE] = { K_UINT, OFF(weight_sz), 0, 10000, 0, NULL },
	[CONFIG_KEY_QUOTA_WEIGHT_ACCESSES] = { K_UINT, OFF(weight_nr_accesses), 0, 10000, 0, NULL },
	[CONFIG_KEY_QUOTA_WEIGHT_AGE] = { K_UINT, OFF(weight_age), 0, 10000, 0, NULL },
	[CONFIG_KEY_QUOTA_TUNER] = { K_ENUM, OFF(quota_tuner), 0, 0, 0, quota_tuner_names },
	[CONFIG_KEY_QUOTA_APPLY_INTERVAL] = { K_DURATION, OFF(apply_interval_us), 0, HOUR, 0, NULL },
	/* Goals start at 1: the kernel silently drops a goal whose target is 0. */
	[CONFIG_KEY_PROMOTE_USED_GOAL] = { K_GOAL, OFF(promote_used), 1, 10000, 9970, NULL },
	[CONFIG_KEY_PROMOTE_MIN_ACCESSES] = { K_UINT, OFF(promote_min_accesses), 1, UINT32_MAX, 0, NULL },
	[CONFIG_KEY_PROMOTE_YOUNG_FILTER] = { K_BOOL, OFF(promote_young_filter), 0, 0, 0, NULL },
	[CONFIG_KEY_DEMOTE_FREE_GOAL] = { K_GOAL, OFF(demote_free), 1, 10000, 50, NULL },
	[CONFIG_KEY_DEMOTE_MAX_ACCESSES] = { K_UINT, OFF(demote_max_accesses), 0, UINT32_MAX - 1, 0, NULL },
	[CONFIG_KEY_DEMOTE_MIN_AGE] = { K_DURATION, OFF(demote_min_age_us), 0, 24 * HOUR, 0, NULL },
	[CONFIG_KEY_DEMOTE_YOUNG_FILTER] = { K_BOOL, OFF(demote_young_filter), 0, 0, 0, NULL },
};

static const char *const sections[] = { "daemon", "monitoring", "quota", "promote", "demote" };
#define NR_SECTIONS (sizeof(sections) / sizeof(sections[0]))

/* ---- value access ---------------------------------------------------- */

static void *field(struct config *c, enum config_key k)
{
	return (char *)c + key_defs[k].offset;
}

static const void *cfield(const struct config *c, enum config_key k)
{
	return (const char *)c + key_defs[k].offset;
}

/* The value of a numeric key in its parsed unit (us for the ms fields). */
static uint64_t get_num(const struct config *c, enum config_key k)
{
	const void *p = cfield(c, k);

	switch (key_defs[k].kind) {
	case K_DURATION:
	case K_SIZE:
		return *(const uint64_t *)p;
	case K_DURATION_MS:
		return *(const uint64_t *)p * MSEC;
	case K_UINT:
	case K_BP:
		return *(const unsigned *)p;
	case K_GOAL:
		return ((const struct goal_setting *)p)->bp;
	case K_ENUM:
		return (uint64_t)*(const int *)p;
	case K_BOOL:
		return *(const bool *)p;
	case K_PATH:
		break;
	}
	return 0;
}

/* ---- formatting ------------------------------------------------------ */

static void fmt_duration(uint64_t us, char *buf, size_t n)
{
	static const struct { const char *unit; uint64_t usec; } units[] = {
		{ "h", HOUR }, { "min", MIN }, { "s", SEC }, { "ms", MSEC },
	};
	size_t i;

	if (us == 0) {
		snprintf(buf, n, "0s");
		return;
	}
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (us % units[i].usec == 0) {
			snprintf(buf, n, "%llu%s", (unsigned long long)(us / units[i].usec), units[i].unit);
			return;
		}
	snprintf(buf, n, "%lluus", (unsigned long long)us);
}

static void fmt_size(uint64_t bytes, char *buf, size_t n)
{
	static const char *const units[] = { "TiB", "GiB", "MiB", "KiB" };
	unsigned i;

	for (i = 0; i < 4 && bytes != 0; i++) {
		unsigned shift = 40 - 10 * i;

		if (bytes % (UINT64_C(1) << shift) == 0) {
			snprintf(buf, n, "%llu%s", (unsigned long long)(bytes >> shift), units[i]);
			return;
		}
	}
	snprintf(buf, n, "%llu", (unsigned long long)bytes);
}

/* A number of key k's kind, rendered the way the file would spell it. */
static void fmt_num(enum config_key k, uint64_t v, char *buf, size_t n)
{
	switch (key_defs[k].kind) {
	case K_DURATION:
	case K_DURATION_MS:
		fmt_duration(v, buf, n);
		break;
	case K_SIZE:
		fmt_size(v, buf, n);
		break;
	default:
		snprintf(buf, n, "%llu", (unsigned long long)v);
		break;
	}
}

static void fmt_value(const struct config *c, enum config_key k, char *buf, size_t n)
{
	const struct key_def *d = &key_defs[k];
	const void *p = cfield(c, k);

	switch (d->kind) {
	case K_BOOL:
		snprintf(buf, n, "%s", *(const bool *)p ? "yes" : "no");
		break;
	case K_GOAL: {
		const struct goal_setting *g = p;

		if (g->automatic)
			snprintf(buf, n, "auto");
		else
			snprintf(buf, n, "%u", g->bp);
		break;
	}
	case K_ENUM: {
		int v = *(const int *)p, i;

		for (i = 0; d->names[i]; i++)
			if (i == v) {
				snprintf(buf, n, "%s", d->names[i]);
				return;
			}
		snprintf(buf, n, "(invalid %d)", v);
		break;
	}
	case K_PATH:
		snprintf(buf, n, "%.*s", CONFIG_PATH_MAX, (const char *)p);
		break;
	default:
		fmt_num(k, get_num(c, k), buf, n);
		break;
	}
}

/* What the file may say for key k, for the "expected ..." part of errors. */
static void fmt_expected(enum config_key k, char *buf, size_t n)
{
	const struct key_def *d = &key_defs[k];
	const char *def = key_info[k].default_text;
	char lo[32], hi[32];

	fmt_num(k, d->min, lo, sizeof(lo));
	fmt_num(k, d->max, hi, sizeof(hi));

	switch (d->kind) {
	case K_DURATION:
	case K_DURATION_MS:
		snprintf(buf, n, "a duration with a unit (us, ms, s, min, h) in %s..%s%s, e.g. \"%s\"",
			 lo, hi, d->kind == K_DURATION_MS ? " (whole milliseconds)" : "", def);
		break;
	case K_SIZE:
		snprintf(buf, n, "bytes or a size with a binary unit (K/KiB, M/MiB, G/GiB, T/TiB) in %s..%s, e.g. \"%s\"",
			 lo, hi, def);
		break;
	case K_UINT:
		snprintf(buf, n, "an integer in %s..%s", lo, hi);
		break;
	case K_BP:
		snprintf(buf, n, "basis points in %s..%s or a percentage, e.g. \"%s\" or \"4%%\"", lo, hi, def);
		break;
	case K_GOAL:
		snprintf(buf, n, "\"auto\", basis points in %s..%s or a percentage, e.g. \"%u\" or \"99.7%%\"",
			 lo, hi, d->seed_bp);
		break;
	case K_BOOL:
		snprintf(buf, n, "yes or no (or true/false, on/off, 1/0)");
		break;
	case K_ENUM:
		snprintf(buf, n, "%s or %s", d->names[0], d->names[1]);
		break;
	case K_PATH:
		snprintf(buf, n, "%san absolute path%s%s shorter than %d bytes", d->min ? "" : "empty (off) or ",
			 d->suffix ? " ending in " : "", d->suffix ? d->suffix : "", CONFIG_PATH_MAX);
		break;
	}
}

/* ---- parsing one value ----------------------------------------------- */

/*
 * Parse `value` for key k into c.  On failure, c is untouched and `what`
 * holds the first half of the message ("missing unit", "out of range").
 */
static int parse_value(enum config_key k, const char *value, struct config *c, char *what, size_t n)
{
	const struct key_def *d = &key_defs[k];
	void *p = field(c, k);
	uint64_t v = 0;
	unsigned bp;
	bool b;
	int r;

	switch (d->kind) {
	case K_DURATION:
	case K_DURATION_MS:
		r = parse_duration_us(value, &v);
		if (r < 0) {
			/* "5" could mean 5us, 5ms or 5s: refuse to guess. */
			if (r == -EINVAL && parse_u64(value, &v) == 0)
				snprintf(what, n, "missing unit");
			else
				snprintf(what, n, r == -ERANGE ? "out of range" : "not a duration");
			return -EINVAL;
		}
		if (d->kind == K_DURATION_MS && v % MSEC != 0) {
			snprintf(what, n, "not a whole number of milliseconds");
			return -EINVAL;
		}
		break;
	case K_SIZE:
		r = parse_size(value, &v);
		if (r < 0) {
			snprintf(what, n, r == -ERANGE ? "out of range" : "not a size");
			return -EINVAL;
		}
		break;
	case K_UINT:
		r = parse_u64(value, &v);
		if (r < 0) {
			snprintf(what, n, r == -ERANGE ? "out of range" : "not an integer");
			return -EINVAL;
		}
		break;
	case K_BP:
	case K_GOAL:
		if (d->kind == K_GOAL && strcmp(value, "auto") == 0) {
			*(struct goal_setting *)p = (struct goal_setting){ .automatic = true, .bp = d->seed_bp };
			return 0;
		}
		r = parse_bp(value, &bp);
		if (r < 0) {
			snprintf(what, n, r == -ERANGE ? "out of range" : "not basis points or a percentage");
			return -EINVAL;
		}
		v = bp;
		break;
	case K_BOOL:
		if (parse_bool(value, &b) < 0) {
			snprintf(what, n, "not a boolean");
			return -EINVAL;
		}
		*(bool *)p = b;
		return 0;
	case K_ENUM: {
		int i;

		for (i = 0; d->names[i]; i++)
			if (strcmp(value, d->names[i]) == 0) {
				*(int *)p = i;
				return 0;
			}
		snprintf(what, n, "unknown value");
		return -EINVAL;
	}
	case K_PATH: {
		size_t len = strlen(value);

		if (len == 0 && !d->min) {
			memset(p, 0, CONFIG_PATH_MAX);
			return 0;
		}
		if (value[0] != '/') {
			snprintf(what, n, "not an absolute path");
			return -EINVAL;
		}
		if (len >= CONFIG_PATH_MAX) {
			snprintf(what, n, "path too long");
			return -EINVAL;
		}
		if (d->suffix && (len <= strlen(d->suffix) || strcmp(value + len - strlen(d->suffix), d->suffix) != 0)) {
			snprintf(what, n, "the file name must end in %s", d->suffix);
			return -EINVAL;
		}
		memset(p, 0, CONFIG_PATH_MAX);
		memcpy(p, value, len);
		return 0;
	}
	}

	if (v < d->min || v > d->max) {
		snprintf(what, n, "out of range");
		return -EINVAL;
	}

	switch (d->kind) {
	case K_DURATION:
	case K_SIZE:
		*(uint64_t *)p = v;
		break;
	case K_DURATION_MS:
		*(uint64_t *)p = v / MSEC;
		break;
	case K_UINT:
	case K_BP:
		*(unsigned *)p = (unsigned)v;
		break;
	case K_GOAL:
		*(struct goal_setting *)p = (struct goal_setting){ .automatic = false, .bp = (unsigned)v };
		break;
	default:
		break;
	}
	return 0;
}

/* ---- errors ---------------------------------------------------------- */

__attribute__((format(printf, 4, 5)))
static void set_error(struct config_error *err, const char *name, unsigned line, const char *fmt, ...)
{
	size_t used = 0;
	va_list ap;
	int n = 0;

	memset(err, 0, sizeof(*err));
	snprintf(err->file, sizeof(err->file), "%s", name ? name : "");
	err->line = line;
	if (name && line > 0)
		n = snprintf(err->message, sizeof(err->message), "%s:%u: ", name, line);
	else if (name)
		n = snprintf(err->message, sizeof(err->message), "%s: ", name);
	if (n > 0)
		used = (size_t)n < sizeof(err->message) ? (size_t)n : sizeof(err->message) - 1;

	va_start(ap, fmt);
	vsnprintf(err->message + used, sizeof(err->message) - used, fmt, ap);
	va_end(ap);
}

static int lower(int ch)
{
	return ch >= 'A' && ch <= 'Z' ? ch - 'A' + 'a' : ch;
}

/* Levenshtein distance, case-insensitive; long strings count as far. */
static unsigned edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j;
	unsigned row[65];

	if (la > 64 || lb > 64)
		return 1000;
	for (j = 0; j <= lb; j++)
		row[j] = (unsigned)j;
	for (i = 1; i <= la; i++) {
		unsigned diag = row[0];

		row[0] = (unsigned)i;
		for (j = 1; j <= lb; j++) {
			unsigned up = row[j];
			unsigned best = diag + (lower(a[i - 1]) != lower(b[j - 1]));

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}

static bool known_section(const char *s)
{
	size_t i;

	for (i = 0; i < NR_SECTIONS; i++)
		if (strcmp(s, sections[i]) == 0)
			return true;
	return false;
}

static int find_key(const char *section, const char *key)
{
	int k;

	for (k = 0; k < _CONFIG_KEY_MAX; k++)
		if (strcmp(key_info[k].section, section) == 0 && strcmp(key_info[k].key, key) == 0)
			return k;
	return -1;
}

static void unknown_section_error(struct config_error *err, const char *name, unsigned line,
				  const char *section)
{
	const char *best = NULL;
	unsigned best_d = 3;
	size_t i;

	for (i = 0; i < NR_SECTIONS; i++) {
		unsigned dist = edit_distance(section, sections[i]);

		if (dist < best_d) {
			best_d = dist;
			best = sections[i];
		}
	}
	if (best)
		set_error(err, name, line, "[%.64s]: unknown section (did you mean [%s]?)", section, best);
	else
		set_error(err, name, line,
			  "[%.64s]: unknown section (expected [daemon], [monitoring], [quota], [promote] or [demote])",
			  section);
}

static void unknown_key_error(struct config_error *err, const char *name, unsigned line,
			      const char *section, const char *key)
{
	char list[256] = "";
	int k, best = -1;
	unsigned best_d = 3;

	/* Right key, wrong section: say where it belongs. */
	for (k = 0; k < _CONFIG_KEY_MAX; k++)
		if (strcmp(key_info[k].key, key) == 0) {
			set_error(err, name, line, "[%s] %.64s: unknown key in this section (it belongs in [%s])",
				  section, key, key_info[k].section);
			return;
		}

	/* Prefer a near miss in the same section. */
	for (k = 0; k < _CONFIG_KEY_MAX; k++) {
		unsigned dist = edit_distance(key, key_info[k].key);
		bool same = strcmp(key_info[k].section, section) == 0;

		if (dist < best_d || (dist == best_d && same && best >= 0 &&
				      strcmp(key_info[best].section, section) != 0)) {
			best_d = dist;
			best = k;
		}
	}
	if (best >= 0 && strcmp(key_info[best].section, section) == 0) {
		set_error(err, name, line, "[%s] %.64s: unknown key (did you mean \"%s\"?)",
			  section, key, key_info[best].key);
		return;
	}
	if (best >= 0) {
		set_error(err, name, line, "[%s] %.64s: unknown key (did you mean \"%s\" in [%s]?)",
			  section, key, key_info[best].key, key_info[best].section);
		return;
	}

	for (k = 0; k < _CONFIG_KEY_MAX; k++) {
		if (strcmp(key_info[k].section, section) != 0)
			continue;
		if (list[0])
			strncat(list, ", ", sizeof(list) - strlen(list) - 1);
		strncat(list, key_info[k].key, sizeof(list) - strlen(list) - 1);
	}
	set_error(err, name, line, "[%s] %.64s: unknown key (keys of [%s]: %s)", section, key, section, list);
}

/* ---- parsing a file -------------------------------------------------- */

/*
 * The merge of the files read so far.  Every file assigns into the same
 * struct in order, so a later file's value wins; per key we remember the
 * file, line and order of the winning assignment, for --check-config and so
 * that a cross-key error points at the assignment made last.
 */
struct merge {
	struct config cfg;
	const char *key_file[_CONFIG_KEY_MAX];  /* NULL: the default */
	unsigned key_line[_CONFIG_KEY_MAX];
	unsigned key_seq[_CONFIG_KEY_MAX];      /* 0: the default; grows across files */
	unsigned seq;
	const char *fallback;                   /* for errors tied to no key */
};

struct parse_ctx {
	struct merge *m;
	const char *name;
	const char *text, *p, *end;
	unsigned line;       /* the line inih is working on */
	uint64_t file_mask;  /* keys this file set: twice in one file is an error */
	bool failed;
	struct config_error err;
};

static void merge_init(struct merge *m, const char *fallback)
{
	memset(m, 0, sizeof(*m));
	config_init(&m->cfg);
	m->fallback = fallback;
}
/*
 * Our own line reader (for ini_parse_stream) rather than ini_parse_string():
 * inih only reports line numbers through its return value, and counting the
 * lines we hand it gives the handler the exact line.  It also strips leading
 * blanks, because inih would otherwise take an indented "key = value" as a
 * continuation of the previous value, and it checks section headers itself,
 * so an unknown section is reported at its header even if it has no keys.
 */
static char *read_line(char *str, int num, void *stream)
{
	struct parse_ctx *ctx = stream;
	const char *line = ctx->p, *nl;
	size_t len;

	if (ctx->failed || ctx->p >= ctx->end)
		return NULL;  /* stop at the first error: only one is reported */

	ctx->line++;
	nl = memchr(ctx->p, '\n', (size_t)(ctx->end - ctx->p));
	len = nl ? (size_t)(nl - ctx->p) + 1 : (size_t)(ctx->end - ctx->p);
	ctx->p += len;

	if (ctx->line == 1 && len >= 3 && memcmp(line, "\xEF\xBB\xBF", 3) == 0) {
		line += 3;
		len -= 3;
	}
	while (len > 0 && (*line == ' ' || *line == '\t')) {
		line++;
		len--;
	}
	if (num < 2 || len > (size_t)num - 1) {
		set_error(&ctx->err, ctx->name, ctx->line, "line too long (%zu bytes; at most %d)",
			  len, num - 2);
		ctx->failed = true;
		str[0] = '\0';
		return str;
	}
	memcpy(str, line, len);
	str[len] = '\0';

	if (str[0] == '[') {
		const char *close = strchr(str, ']');

		if (close) {
			char section[64];

			snprintf(section, sizeof(section), "%.*s", (int)(close - str - 1), str + 1);
			if (!known_section(section)) {
				unknown_section_error(&ctx->err, ctx->name, ctx->line, section);
				ctx->failed = true;
				str[0] = '\0';
			}
		}
	}
	return str;
}

static int handle_key(void *user, const char *section, const char *key, const char *value)
{
	struct parse_ctx *ctx = user;
	unsigned line = ctx->line;
	char what[96], expected[256];
	const char *hint = "";
	int k;

	if (ctx->failed)
		return 0;
	ctx->failed = true;  /* until the key is accepted */

	if (section[0] == '\0') {
		for (k = 0; k < _CONFIG_KEY_MAX; k++)
			if (strcmp(key_info[k].key, key) == 0)
				break;
		if (k < _CONFIG_KEY_MAX)
			set_error(&ctx->err, ctx->name, line, "%.64s: key outside any section (put it under [%s])",
				  key, key_info[k].section);
		else
			set_error(&ctx->err, ctx->name, line, "%.64s: key outside any section (and not a known key)",
				  key);
		return 0;
	}
	if (!known_section(section)) {
		/* read_line() catches these first; kept for headers it cannot see. */
		unknown_section_error(&ctx->err, ctx->name, line, section);
		return 0;
	}
	if (key[0] == '\0') {
		set_error(&ctx->err, ctx->name, line, "[%s]: missing key name before '=' (got \"= %.64s\")",
			  section, value);
		return 0;
	}
	k = find_key(section, key);
	if (k < 0) {
		unknown_key_error(&ctx->err, ctx->name, line, section, key);
		return 0;
	}
	if (ctx->file_mask & (UINT64_C(1) << k)) {
		/* Within one file a second assignment is a mistake; across
		 * files it is what drop-ins are for. */
		set_error(&ctx->err, ctx->name, line, "[%s] %s: duplicate key (first set on line %u; keep only one)",
			  section, key, ctx->m->key_line[k]);
		return 0;
	}

	fmt_expected((enum config_key)k, expected, sizeof(expected));
	/* Empty is a value only where it means "off". */
	if (value[0] == '\0' && !(key_defs[k].kind == K_PATH && !key_defs[k].min)) {
		set_error(&ctx->err, ctx->name, line, "[%s] %s: empty value (expected %s)", section, key, expected);
		return 0;
	}
	if (parse_value((enum config_key)k, value, &ctx->m->cfg, what, sizeof(what)) < 0) {
		if (strchr(value, '#'))
			hint = "; comments after a value start with ';', '#' only at the start of a line";
		set_error(&ctx->err, ctx->name, line, "[%s] %s: %s (got \"%.64s\"; expected %s%s)",
			  section, key, what, value, expected, hint);
		return 0;
	}

	ctx->m->cfg.set_mask |= UINT64_C(1) << k;
	ctx->file_mask |= UINT64_C(1) << k;
	ctx->m->key_file[k] = ctx->name;
	ctx->m->key_line[k] = line;
	ctx->m->key_seq[k] = ++ctx->m->seq;
	ctx->failed = false;
	return 1;
}

/* Line n (1-based) of text, for messages about lines inih rejected. */
static void get_line(const char *text, const char *end, unsigned n, char *buf, size_t size)
{
	const char *p = text, *nl;
	size_t len;

	for (; n > 1 && p < end; n--) {
		nl = memchr(p, '\n', (size_t)(end - p));
		p = nl ? nl + 1 : end;
	}
	nl = memchr(p, '\n', (size_t)(end - p));
	len = (nl ? (size_t)(nl - p) : (size_t)(end - p));
	while (len > 0 && (p[len - 1] == '\r' || p[len - 1] == ' ' || p[len - 1] == '\t'))
		len--;
	while (len > 0 && (*p == ' ' || *p == '\t')) {
		p++;
		len--;
	}
	snprintf(buf, size, "%.*s", (int)(len > 64 ? 64 : len), p);
}

/* Apply one file's text on top of m.  On failure m is half-applied: the
 * caller throws it away. */
static int parse_text(struct merge *m, const char *text, size_t len, const char *name,
		      struct config_error *err)
{
	struct parse_ctx ctx = {
		.m = m,
		.name = name,
		.text = text,
		.p = text,
		.end = text + len,
	};
	int r;

	if (memchr(text, '\0', len)) {
		set_error(err, name, 0, "contains a NUL byte: not a text file");
		return -EINVAL;
	}

	r = ini_parse_stream(read_line, &ctx, handle_key, &ctx);
	if (r < 0) {
		set_error(err, name, 0, "out of memory while parsing");
		return -ENOMEM;
	}
	if (r > 0 && (!ctx.failed || (unsigned)r < ctx.err.line)) {
		/* A line inih itself rejected, before any error of ours. */
		char text_line[80];

		get_line(text, text + len, (unsigned)r, text_line, sizeof(text_line));
		if (text_line[0] == '[')
			set_error(err, name, (unsigned)r,
				  "section header without closing ']' (got \"%s\"; expected \"[section]\")", text_line);
		else
			set_error(err, name, (unsigned)r,
				  "cannot parse line (got \"%s\"; expected \"key = value\", \"[section]\" "
				  "or a comment starting with '#' or ';')", text_line);
		return -EINVAL;
	}
	if (ctx.failed) {
		*err = ctx.err;
		return -EINVAL;
	}
	return 0;
}

/* ---- validation ------------------------------------------------------ */

/* Where key k was set, relative to the file an error is reported in:
 * "line 3" in that file, "/etc/x.conf.d/a.conf:3" in another. */
static void describe(const struct config *c, enum config_key k, const struct merge *m,
		     const char *err_file, char *buf, size_t n)
{
	char v[64], where[CONFIG_PATH_MAX + 16];

	fmt_value(c, k, v, sizeof(v));
	if (m && m->key_file[k] && err_file && strcmp(m->key_file[k], err_file) == 0)
		snprintf(where, sizeof(where), "line %u", m->key_line[k]);
	else if (m && m->key_file[k])
		snprintf(where, sizeof(where), "%s:%u", m->key_file[k], m->key_line[k]);
	else if (config_is_set(c, k))
		snprintf(where, sizeof(where), "set");
	else
		snprintf(where, sizeof(where), "default");
	snprintf(buf, n, "[%s] %s = %s (%s)", key_info[k].section, key_info[k].key, v, where);
}

/* Of keys a, b, c (c may be -1), the one assigned last, -1 if none was. */
static int assigned_last(const struct merge *m, int a, int b, int c)
{
	int keys[3] = { a, b, c }, best = -1;
	unsigned i;

	if (!m)
		return -1;
	for (i = 0; i < 3; i++)
		if (keys[i] >= 0 && m->key_seq[keys[i]] > 0 &&
		    (best < 0 || m->key_seq[keys[i]] > m->key_seq[best]))
			best = keys[i];
	return best;
}

/* Where an error about key k (or -1: none in particular) is reported. */
static void error_location(const struct merge *m, int k, const char **ret_name, unsigned *ret_line)
{
	*ret_name = m ? m->fallback : NULL;
	*ret_line = 0;
	if (m && k >= 0 && m->key_file[k]) {
		*ret_name = m->key_file[k];
		*ret_line = m->key_line[k];
	}
}

/* Two keys that do not fit together; the error points at the one assigned
 * last, because that is usually the one just edited (or the drop-in that
 * overrode a working value). */
static int cross_error(const struct config *c, const struct merge *m, struct config_error *err,
		       enum config_key a, const char *relation, enum config_key b, const char *why)
{
	char da[CONFIG_PATH_MAX + 100], db[CONFIG_PATH_MAX + 100];
	const char *name;
	unsigned line;

	error_location(m, assigned_last(m, a, b, -1), &name, &line);
	describe(c, a, m, name, da, sizeof(da));
	describe(c, b, m, name, db, sizeof(db));
	set_error(err, name, line, "%s must be %s %s: %s", da, relation, db, why);
	return -EINVAL;
}

static int validate_impl(const struct config *c, const struct merge *m, struct config_error *err)
{
	char da[CONFIG_PATH_MAX + 100], db[CONFIG_PATH_MAX + 100];
	const char *name;
	unsigned line;
	int k;

	/* Ranges again: the struct may not come from a file. */
	for (k = 0; k < _CONFIG_KEY_MAX; k++) {
		const struct key_def *d = &key_defs[k];
		char v[64], expected[256];
		bool bad = false;

		switch (d->kind) {
		case K_BOOL:
			break;
		case K_ENUM: {
			int i, val = *(const int *)cfield(c, (enum config_key)k);

			for (i = 0; d->names[i]; i++)
				;
			bad = val < 0 || val >= i;
			break;
		}
		case K_PATH: {
			const char *s = cfield(c, (enum config_key)k);

			bad = !memchr(s, '\0', CONFIG_PATH_MAX) || (s[0] != '/' && (d->min || s[0] != '\0'));
			break;
		}
		default: {
			uint64_t val = get_num(c, (enum config_key)k);

			bad = val < d->min || val > d->max;
			/* The ms fields cannot overflow in the table's ranges,
			 * but a caller's struct can. */
			if (d->kind == K_DURATION_MS && *(const uint64_t *)cfield(c, (enum config_key)k) > UINT64_MAX / MSEC)
				bad = true;
			break;
		}
		}
		if (!bad)
			continue;
		fmt_value(c, (enum config_key)k, v, sizeof(v));
		fmt_expected((enum config_key)k, expected, sizeof(expected));
		error_location(m, k, &name, &line);
		set_error(err, name, line, "[%s] %s: out of range (got \"%s\"; expected %s)",
			  key_info[k].section, key_info[k].key, v, expected);
		return -EINVAL;
	}

	if (c->status_interval_us < c->interval_us)
		return cross_error(c, m, err, CONFIG_KEY_DAEMON_STATUS_INTERVAL, "at least",
				   CONFIG_KEY_DAEMON_INTERVAL, "status is reported once per reconcile round at most");
	/* Only a pinned value is an error: the default follows a longer
	 * interval (config_verify_interval_us()), so "interval = 1h" alone
	 * stays a valid config. */
	if (config_is_set(c, CONFIG_KEY_DAEMON_VERIFY_INTERVAL) && c->verify_interval_us < c->interval_us)
		return cross_error(c, m, err, CONFIG_KEY_DAEMON_VERIFY_INTERVAL, "at least",
				   CONFIG_KEY_DAEMON_INTERVAL, "the files are read back in a reconcile round");
	if (c->sample_us > c->aggr_us)
		return cross_error(c, m, err, CONFIG_KEY_MONITORING_SAMPLE_INTERVAL, "at most",
				   CONFIG_KEY_MONITORING_AGGR_INTERVAL, "an aggregation is made of samples");
	if (c->intervals_goal_aggrs > 0) {
		if (c->min_sample_us > c->max_sample_us)
			return cross_error(c, m, err, CONFIG_KEY_MONITORING_MIN_SAMPLE_INTERVAL,
					   "at most", CONFIG_KEY_MONITORING_MAX_SAMPLE_INTERVAL,
					   "the tuning range is empty (or set intervals_goal_aggrs = 0)");
		if (c->sample_us < c->min_sample_us)
			return cross_error(c, m, err, CONFIG_KEY_MONITORING_SAMPLE_INTERVAL,
					   "at least", CONFIG_KEY_MONITORING_MIN_SAMPLE_INTERVAL,
					   "the kernel refuses a start value outside the tuning range");
		if (c->sample_us > c->max_sample_us)
			return cross_error(c, m, err, CONFIG_KEY_MONITORING_SAMPLE_INTERVAL,
					   "at most", CONFIG_KEY_MONITORING_MAX_SAMPLE_INTERVAL,
					   "the kernel refuses a start value outside the tuning range");
	}
	if (c->min_nr_regions > c->max_nr_regions)
		return cross_error(c, m, err, CONFIG_KEY_MONITORING_MIN_NR_REGIONS, "at most",
				   CONFIG_KEY_MONITORING_MAX_NR_REGIONS, "the kernel refuses min > max");
	if (c->quota_ms > c->quota_reset_interval_ms)
		return cross_error(c, m, err, CONFIG_KEY_QUOTA_TIME_LIMIT, "at most",
				   CONFIG_KEY_QUOTA_RESET_INTERVAL,
				   "the time limit is spent within one charge window");
	if (c->weight_nr_accesses == 0 && c->weight_age == 0) {
		error_location(m, assigned_last(m, CONFIG_KEY_QUOTA_WEIGHT_ACCESSES, CONFIG_KEY_QUOTA_WEIGHT_AGE, -1),
			       &name, &line);
		describe(c, CONFIG_KEY_QUOTA_WEIGHT_ACCESSES, m, name, da, sizeof(da));
		describe(c, CONFIG_KEY_QUOTA_WEIGHT_AGE, m, name, db, sizeof(db));
		set_error(err, name, line,
			  "%s and %s cannot both be 0: every region would score the same and the quota "
			  "would pick regions blindly", da, db);
		return -EINVAL;
	}
	if (c->sample_us > 0 && c->promote_min_accesses > c->aggr_us / c->sample_us) {
		char ds[64], dg[64];

		error_location(m, assigned_last(m, CONFIG_KEY_PROMOTE_MIN_ACCESSES,
						CONFIG_KEY_MONITORING_AGGR_INTERVAL, CONFIG_KEY_MONITORING_SAMPLE_INTERVAL),
			       &name, &line);
		describe(c, CONFIG_KEY_PROMOTE_MIN_ACCESSES, m, name, da, sizeof(da));
		fmt_value(c, CONFIG_KEY_MONITORING_AGGR_INTERVAL, dg, sizeof(dg));
		fmt_value(c, CONFIG_KEY_MONITORING_SAMPLE_INTERVAL, ds, sizeof(ds));
		set_error(err, name, line,
			  "%s must be at most [monitoring] aggr_interval / sample_interval = %s / %s = %llu: "
			  "a region is seen accessed at most once per sample", da, dg, ds,
			  (unsigned long long)(c->aggr_us / c->sample_us));
		return -EINVAL;
	}
	if (c->demote_max_accesses >= c->promote_min_accesses)
		return cross_error(c, m, err, CONFIG_KEY_DEMOTE_MAX_ACCESSES, "below",
				   CONFIG_KEY_PROMOTE_MIN_ACCESSES,
				   "otherwise the same regions are promoted and demoted back and forth");
	return 0;
}


/* ---- reading files --------------------------------------------------- */

static bool is_dev_null(const struct stat *st)
{
	return S_ISCHR(st->st_mode) && st->st_rdev == makedev(1, 3);
}

/*
 * Read `path` into buf (CONFIG_FILE_MAX + 1 bytes).  A symlink to /dev/null
 * reads as empty: that is how a drop-in (or the main file) is masked.
 * -ENOENT with *err saying so if the file does not exist.
 */
static int read_file(const char *path, char *buf, size_t *ret_len, struct stat *ret_st,
		     struct config_error *err)
{
	size_t len = 0;
	struct stat st;
	int fd, r;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		r = -errno;
		if (r == -ENOENT)
			set_error(err, path, 0, "no such file (or a dangling symlink)");
		else
			set_error(err, path, 0, "cannot open: %s", strerror(-r));
		return r;
	}
	if (fstat(fd, &st) < 0) {
		r = -errno;
		set_error(err, path, 0, "cannot stat: %s", strerror(-r));
		goto finish;
	}
	if (is_dev_null(&st)) {
		r = 0;
		goto done;
	}
	if (!S_ISREG(st.st_mode)) {
		r = -EINVAL;
		set_error(err, path, 0, "not a regular file%s", S_ISDIR(st.st_mode) ? " but a directory" : "");
		goto finish;
	}
	for (;;) {
		ssize_t n = read(fd, buf + len, CONFIG_FILE_MAX + 1 - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = -errno;
			set_error(err, path, 0, "cannot read: %s", strerror(-r));
			goto finish;
		}
		if (n == 0)
			break;
		len += (size_t)n;
		if (len > CONFIG_FILE_MAX) {
			r = -EFBIG;
			set_error(err, path, 0, "larger than %d bytes: not a config file", CONFIG_FILE_MAX);
			goto finish;
		}
	}
	r = 0;
done:
	*ret_len = len;
	*ret_st = st;
finish:
	close(fd);
	return r;
}

/* ---- finding the sources --------------------------------------------- */

/* systemd's configuration directories, highest priority first. */
static const char *const search_dirs[] = { "/etc", "/run", "/usr/local/lib", "/usr/lib" };
#define NR_SEARCH_DIRS (sizeof(search_dirs) / sizeof(search_dirs[0]))
#define CONFIG_NAME "damon-tierd.conf"
#define DROPIN_SUFFIX ".conf"

struct dropin {
	char path[CONFIG_PATH_MAX];
	size_t name_off;       /* where the file name starts in path (the
	                        * array is sorted, so no pointer into it) */
	unsigned prio;         /* index of its directory: 0 wins */
	bool have_st;
	struct stat st;
};

struct dropins {
	struct dropin *v;
	size_t n, cap;
};

/* root + path into buf; -ENAMETOOLONG + err if it does not fit. */
static int join_path(const char *root, const char *path, const char *suffix, char *buf,
		     struct config_error *err)
{
	size_t rl = 0;
	int n;

	if (root && strcmp(root, "/") != 0) {
		rl = strlen(root);
		while (rl > 0 && root[rl - 1] == '/')
			rl--;
	}
	n = snprintf(buf, CONFIG_PATH_MAX, "%.*s%s%s", (int)rl, root ? root : "", path, suffix);
	if (n < 0 || n >= CONFIG_PATH_MAX) {
		if (rl)
			set_error(err, NULL, 0, "config root %.64s%s: the paths under it are longer than "
				  "%d bytes; use a shorter root", root, rl > 64 ? "..." : "", CONFIG_PATH_MAX - 1);
		else
			set_error(err, path, 0, "path%s is longer than %d bytes; use a shorter one", suffix,
				  CONFIG_PATH_MAX - 1);
		return -ENAMETOOLONG;
	}
	return 0;
}

static bool is_dropin_name(const char *name)
{
	size_t n = strlen(name), s = strlen(DROPIN_SUFFIX);

	/* Hidden files are editor and package manager leftovers, as in
	 * systemd; backups (x.conf~, x.conf.dpkg-old) fail the suffix. */
	return name[0] != '.' && n > s && strcmp(name + n - s, DROPIN_SUFFIX) == 0;
}

static int add_dropins(struct dropins *list, const char *dir, unsigned prio, struct config_error *err)
{
	struct dirent *de;
	DIR *d;
	int r = 0;

	d = opendir(dir);
	if (!d) {
		r = -errno;
		if (r == -ENOENT)
			return 0;  /* no drop-in directory: nothing to add */
		if (r == -ENOTDIR)
			set_error(err, dir, 0, "not a directory (drop-ins go into a directory of that name)");
		else
			set_error(err, dir, 0, "cannot open the drop-in directory: %s", strerror(-r));
		return r;
	}
	for (;;) {
		struct dropin *e;
		int n;

		errno = 0;
		de = readdir(d);
		if (!de) {
			if (errno != 0) {
				r = -errno;
				set_error(err, dir, 0, "cannot read the drop-in directory: %s", strerror(-r));
			}
			break;
		}
		if (!is_dropin_name(de->d_name))
			continue;
		if (list->n == list->cap) {
			size_t cap = list->cap ? 2 * list->cap : 16;
			struct dropin *v = realloc(list->v, cap * sizeof(*v));

			if (!v) {
				r = -ENOMEM;
				set_error(err, dir, 0, "out of memory");
				break;
			}
			list->v = v;
			list->cap = cap;
		}
		e = &list->v[list->n];
		memset(e, 0, sizeof(*e));
		n = snprintf(e->path, sizeof(e->path), "%s/%s", dir, de->d_name);
		if (n < 0 || (size_t)n >= sizeof(e->path)) {
			r = -ENAMETOOLONG;
			set_error(err, dir, 0, "drop-in \"%.64s\": path longer than %d bytes; use a shorter name",
				  de->d_name, CONFIG_PATH_MAX - 1);
			break;
		}
		e->name_off = strlen(dir) + 1;
		e->prio = prio;
		list->n++;
	}
	closedir(d);
	return r;
}

static int dropin_cmp(const void *a, const void *b)
{
	const struct dropin *x = a, *y = b;
	int c = strcmp(x->path + x->name_off, y->path + y->name_off);

	if (c != 0)
		return c;
	return x->prio < y->prio ? -1 : x->prio > y->prio;
}

/* Sort by name and keep, of each name, the one of the first directory. */
static void dedup_dropins(struct dropins *list)
{
	size_t i, out = 0;

	if (list->n == 0)
		return;
	qsort(list->v, list->n, sizeof(list->v[0]), dropin_cmp);
	for (i = 0; i < list->n; i++) {
		const struct dropin *prev = out > 0 ? &list->v[out - 1] : NULL;

		if (prev && strcmp(prev->path + prev->name_off, list->v[i].path + list->v[i].name_off) == 0)
			continue;  /* hidden by the same name in a higher directory */
		if (out != i)
			list->v[out] = list->v[i];
		out++;
	}
	list->n = out;
}

/* ---- public ---------------------------------------------------------- */

void config_init(struct config *c)
{
	char what[96];
	int k;

	memset(c, 0, sizeof(*c));
	for (k = 0; k < _CONFIG_KEY_MAX; k++)
		/* The table's own defaults failing to parse is a bug, caught by
		 * the unit test on its first run. */
		if (parse_value((enum config_key)k, key_info[k].default_text, c, what, sizeof(what)) < 0)
			abort();
}

uint64_t config_verify_interval_us(const struct config *c)
{
	return c->verify_interval_us > c->interval_us ? c->verify_interval_us : c->interval_us;
}

bool config_is_set(const struct config *c, enum config_key k)
{
	return (unsigned)k < _CONFIG_KEY_MAX && (c->set_mask & (UINT64_C(1) << k));
}

int config_load_string(const char *text, const char *name, struct config *ret,
		       struct config_error *err)
{
	struct config_error dummy;
	struct merge *m;
	int r;

	if (!err)
		err = &dummy;
	if (!name)
		name = "(string)";
	/* Runs in the fuzzer and the reload path: keep it off the stack. */
	m = malloc(sizeof(*m));
	if (!m) {
		set_error(err, name, 0, "out of memory");
		return -ENOMEM;
	}
	merge_init(m, name);
	r = parse_text(m, text, strlen(text), name, err);
	if (r == 0)
		r = validate_impl(&m->cfg, m, err);
	if (r == 0)
		*ret = m->cfg;
	free(m);
	return r;
}

int config_load(const char *path, struct config *ret, struct config_error *err)
{
	struct config_error dummy;
	struct merge *m = NULL;
	char *buf;
	struct stat st;
	size_t len = 0;
	int r;

	if (!err)
		err = &dummy;
	buf = malloc(CONFIG_FILE_MAX + 1);
	m = malloc(sizeof(*m));
	if (!buf || !m) {
		r = -ENOMEM;
		set_error(err, path, 0, "out of memory");
		goto finish;
	}
	r = read_file(path, buf, &len, &st, err);
	if (r < 0)
		goto finish;
	merge_init(m, path);
	r = parse_text(m, buf, len, path, err);
	if (r == 0)
		r = validate_impl(&m->cfg, m, err);
	if (r == 0)
		*ret = m->cfg;
finish:
	free(m);
	free(buf);
	return r;
}

static bool same_inode(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

int config_load_sources(const struct config_sources *src, struct config *ret,
			struct config_origins *ret_origins, struct config_error *err)
{
	static const struct config_sources production = { .root = "/" };
	char main_paths[NR_SEARCH_DIRS][CONFIG_PATH_MAX];
	const char *main_read = NULL;
	struct config_error dummy;
	struct dropins list = {};
	struct merge *m = NULL;
	unsigned nr_main = 0, nr_dropins = 0, i;
	struct stat st;
	size_t len, j;
	char *buf = NULL;
	int r;

	if (!err)
		err = &dummy;
	if (!src)
		src = &production;

	/* The candidates for the main file, and every drop-in directory. */
	if (src->main_file) {
		char dir[CONFIG_PATH_MAX];

		r = join_path(NULL, src->main_file, "", main_paths[0], err);
		if (r < 0)
			goto finish;
		nr_main = 1;
		r = join_path(NULL, src->main_file, ".d", dir, err);
		if (r < 0)
			goto finish;
		r = add_dropins(&list, dir, 0, err);
		if (r < 0)
			goto finish;
	} else {
		for (i = 0; i < NR_SEARCH_DIRS; i++) {
			char dir[CONFIG_PATH_MAX];

			r = join_path(src->root, search_dirs[i], "/" CONFIG_NAME, main_paths[nr_main++], err);
			if (r < 0)
				goto finish;
			r = join_path(src->root, search_dirs[i], "/" CONFIG_NAME ".d", dir, err);
			if (r < 0)
				goto finish;
			r = add_dropins(&list, dir, i, err);
			if (r < 0)
				goto finish;
		}
	}
	dedup_dropins(&list);
	/* A main file that is also a drop-in (a symlink either way) is read
	 * once, as the drop-in, as systemd does. */
	for (j = 0; j < list.n; j++)
		list.v[j].have_st = stat(list.v[j].path, &list.v[j].st) == 0;

	buf = malloc(CONFIG_FILE_MAX + 1);
	m = malloc(sizeof(*m));
	if (!buf || !m) {
		r = -ENOMEM;
		set_error(err, src->main_file ? src->main_file : "configuration", 0, "out of memory");
		goto finish;
	}
	merge_init(m, NULL);

	/* The first main file found, and only that one. */
	for (i = 0; i < nr_main; i++) {
		bool is_dropin = false;

		r = read_file(main_paths[i], buf, &len, &st, err);
		if (r == -ENOENT && !src->main_file)
			continue;
		if (r < 0)
			goto finish;
		for (j = 0; j < list.n; j++)
			if (list.v[j].have_st && same_inode(&list.v[j].st, &st))
				is_dropin = true;
		if (!is_dropin && !is_dev_null(&st)) {
			r = parse_text(m, buf, len, main_paths[i], err);
			if (r < 0)
				goto finish;
			main_read = main_paths[i];
			m->fallback = main_read;
		}
		break;
	}

	/* Then the drop-ins, by name across directories. */
	for (j = 0; j < list.n; j++) {
		r = read_file(list.v[j].path, buf, &len, &st, err);
		if (r < 0)
			goto finish;
		if (is_dev_null(&st))
			continue;  /* masked */
		r = parse_text(m, buf, len, list.v[j].path, err);
		if (r < 0)
			goto finish;
		if (!m->fallback)
			m->fallback = list.v[j].path;
		nr_dropins++;
	}

	r = validate_impl(&m->cfg, m, err);
	if (r < 0)
		goto finish;

	*ret = m->cfg;
	if (ret_origins) {
		memset(ret_origins, 0, sizeof(*ret_origins));
		for (i = 0; i < _CONFIG_KEY_MAX; i++)
			if (m->key_file[i]) {
				snprintf(ret_origins->key[i].file, sizeof(ret_origins->key[i].file), "%s",
					 m->key_file[i]);
				ret_origins->key[i].line = m->key_line[i];
			}
		if (main_read)
			/* join_path() made it shorter than CONFIG_PATH_MAX. */
			memcpy(ret_origins->main_file, main_read, strlen(main_read) + 1);
		ret_origins->nr_dropins = nr_dropins;
	}
	r = 0;
finish:
	free(m);
	free(buf);
	free(list.v);
	return r;
}

int config_validate(const struct config *c, struct config_error *err)
{
	struct config_error dummy;

	return validate_impl(c, NULL, err ? err : &dummy);
}

int config_format_sources(const struct config *c, const struct config_origins *origins,
			  char *buf, size_t size)
{
	/* Align the origins, but not to a column a long state_dir would push
	 * off the screen. */
	const size_t max_column = 48;
	char lines[_CONFIG_KEY_MAX][320];
	size_t used = 0, column = 0;
	int k;

	if (size == 0)
		return -ENOBUFS;
	buf[0] = '\0';
	for (k = 0; k < _CONFIG_KEY_MAX; k++) {
		char v[300];
		size_t l;

		fmt_value(c, (enum config_key)k, v, sizeof(v));
		snprintf(lines[k], sizeof(lines[k]), "%s.%s = %s", key_info[k].section, key_info[k].key, v);
		l = strlen(lines[k]);
		if (l > column && l <= max_column)
			column = l;
	}
	for (k = 0; k < _CONFIG_KEY_MAX; k++) {
		const struct config_origin *o = origins ? &origins->key[k] : NULL;
		int n;

		if (!o)
			n = snprintf(buf + used, size - used, "%s\n", lines[k]);
		else if (o->file[0])
			n = snprintf(buf + used, size - used, "%-*s  # %s:%u\n", (int)column, lines[k],
				     o->file, o->line);
		else
			n = snprintf(buf + used, size - used, "%-*s  # default\n", (int)column, lines[k]);
		if (n < 0 || (size_t)n >= size - used)
			return -ENOBUFS;
		used += (size_t)n;
	}
	return 0;
}

int config_format(const struct config *c, char *buf, size_t size)
{
	return config_format_sources(c, NULL, buf, size);
}

size_t config_keys(const struct config_key_info **ret)
{
	*ret = key_info;
	return _CONFIG_KEY_MAX;
}
