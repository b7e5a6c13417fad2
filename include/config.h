/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * /etc/damon-tierd.conf: an INI file parsed with inih against a table of
 * keys, each with a validator.  config_init() sets every default first;
 * config_load() parses into the caller's fresh struct, so a reload never
 * touches the running config unless the whole file is valid.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum damon_stat_policy { DAMON_STAT_PAUSE, DAMON_STAT_KEEP };
enum numa_balancing_policy { NUMAB_LEAVE, NUMAB_DISABLE_TIERING };

/* A goal in basis points that is either pinned by the operator or "auto"
 * (derived from the node's zone watermarks, see plan_calibrate_goals()). */
struct goal_setting {
	bool automatic;
	unsigned bp; /* the configured value; with automatic, the seed value used as bound */
};

struct config {
	/* [daemon] */
	uint64_t interval_us;          /* reconcile period */
	uint64_t status_interval_us;
	enum damon_stat_policy damon_stat;
	enum numa_balancing_policy numa_balancing;
	char state_dir[256];
	uint64_t refresh_ms;           /* kdamond refresh_ms when the kernel has it */

	/* [monitoring] */
	uint64_t sample_us, aggr_us;
	unsigned intervals_goal_access_bp, intervals_goal_aggrs;
	uint64_t min_sample_us, max_sample_us;
	unsigned min_nr_regions, max_nr_regions;

	/* [quota] (both kdamonds) */
	uint64_t quota_bytes;
	uint64_t quota_ms;
	uint64_t quota_reset_interval_ms;
	unsigned weight_sz, weight_nr_accesses, weight_age;
	uint64_t apply_interval_us;

	/* [promote] */
	struct goal_setting promote_used;
	unsigned promote_min_accesses;
	bool promote_young_filter;

	/* [demote] */
	struct goal_setting demote_free;
	unsigned demote_max_accesses;
	uint64_t demote_min_age_us;    /* converted to aggregation intervals by the planner */
	bool demote_young_filter;
};

#define CONFIG_ERR_MAX 512
struct config_error {
	char file[256];
	unsigned line;         /* 0 when the error is not tied to a line */
	char message[CONFIG_ERR_MAX];
};

/* All defaults (the seed design's values). */
void config_init(struct config *c);

/*
 * Parse `path` into *ret (which the function initialises with defaults
 * first).  -ENOENT if the file does not exist (callers may treat that as
 * "all defaults"), -EINVAL with *err filled for any bad line or value,
 * another -errno if the file cannot be read.  *ret is only written on success.
 */
int config_load(const char *path, struct config *ret, struct config_error *err);
/* Same from a string (for tests and fuzzing); `name` is used in errors. */
int config_load_string(const char *text, const char *name, struct config *ret,
		       struct config_error *err);

/* Cross-key checks (min <= max, sample <= aggr, ...).  0 or -EINVAL + err. */
int config_validate(const struct config *c, struct config_error *err);

/* Write "section.key = value" lines of the effective config to buf. */
int config_format(const struct config *c, char *buf, size_t size);

/* Each table row, for documentation tests: section, key, default text. */
struct config_key_info {
	const char *section;
	const char *key;
	const char *default_text;
};
size_t config_keys(const struct config_key_info **ret);
