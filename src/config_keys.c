/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The key table: one row per key (section, name, kind, bounds, default
 * text, help).  config_init() parses the default texts with the same code as
 * the file, so defaults, --check-config output and the shipped conf file
 * cannot drift apart (the unit test checks the latter).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config_internal.h"
#include "parse.h"

#define KIB (UINT64_C(1) << 10)
#define TIB (UINT64_C(1) << 40)

static const char *const damon_stat_names[] = { "pause", "keep", NULL };
static const char *const numa_balancing_names[] = { "leave", "disable-tiering", NULL };
static const char *const quota_tuner_names[] = { "daemon", "kernel", "temporal", NULL };

_Static_assert(sizeof(enum damon_stat_policy) == sizeof(int), "enum stored as int");
_Static_assert(sizeof(enum numa_balancing_policy) == sizeof(int), "enum stored as int");
_Static_assert(sizeof(enum quota_tuner) == sizeof(int), "enum stored as int");
_Static_assert(_CONFIG_KEY_MAX <= 64, "set_mask has 64 bits");

#define OFF(field) offsetof(struct config, field)

const struct config_key_info config_key_infos[_CONFIG_KEY_MAX] = {
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
		"daemon: the daemon sets each quota every second from the fast node's free memory and the goals; kernel: DAMON's own goal tuner (node_mem_used_bp/node_mem_free_bp goals); temporal: the same goals with DAMON's temporal goal tuner (Linux 7.1 and later)." },
	[CONFIG_KEY_QUOTA_EXCHANGE] = { "quota", "exchange", "yes",
		"The default, with tuner = daemon: rank both nodes' memory by access rate and exchange the slow node's clearly hotter data for the fast node's coldest, demoting lukewarm data only to make room for it; no: the plain controller (quotas from the fast node's free memory, young-filter gated)." },
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

const struct config_key_def config_key_defs[_CONFIG_KEY_MAX] = {
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
	[CONFIG_KEY_QUOTA_EXCHANGE] = { K_BOOL, OFF(exchange), 0, 0, 0, NULL },
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

static void *field(struct config *c, enum config_key k)
{
	return (char *)c + config_key_defs[k].offset;
}

uint64_t config_get_num(const struct config *c, enum config_key k)
{
	const void *p = config_cfield(c, k);

	switch (config_key_defs[k].kind) {
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

int config_parse_value(enum config_key k, const char *value, struct config *c, char *what, size_t n)
{
	const struct config_key_def *d = &config_key_defs[k];
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
			snprintf(what, n, "path too long (%zu bytes)", len);
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

void config_init(struct config *c)
{
	char what[96];
	int k;

	memset(c, 0, sizeof(*c));
	for (k = 0; k < _CONFIG_KEY_MAX; k++)
		/* The table's own defaults failing to parse is a bug, caught by
		 * the unit test on its first run. */
		if (config_parse_value((enum config_key)k, config_key_infos[k].default_text, c, what, sizeof(what)) < 0)
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

size_t config_keys(const struct config_key_info **ret)
{
	*ret = config_key_infos;
	return _CONFIG_KEY_MAX;
}
