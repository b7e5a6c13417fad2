/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * /etc/damon-tierd.conf and its drop-ins: INI files parsed with inih against
 * a table of keys, each with a validator.  config_init() sets every default
 * first; config_load*() parse into a private struct and copy it to the
 * caller's only when everything is valid, so a reload never touches the
 * running config unless every file is valid.
 *
 * Where the files are (config_load_sources(), systemd's rules, see
 * systemd.unit(5) and e.g. journald.conf(5)):
 *   - the main file is the first that exists of /etc/damon-tierd.conf,
 *     /run/damon-tierd.conf, /usr/local/lib/damon-tierd.conf and
 *     /usr/lib/damon-tierd.conf (the vendor default);
 *   - then the drop-ins, files named *.conf in /etc/damon-tierd.conf.d/,
 *     /run/damon-tierd.conf.d/, /usr/local/lib/damon-tierd.conf.d/ and
 *     /usr/lib/damon-tierd.conf.d/: a name in an earlier directory hides the
 *     same name in later ones, and the remaining files are applied in the
 *     lexical order of their names, whatever their directory;
 *   - a drop-in that is a symlink to /dev/null (or empty) masks that name;
 *   - a key assigned twice in one file is an error, across files the later
 *     assignment wins;
 *   - /etc above is the build's sysconfdir (SYSCONFDIR in build-config.h):
 *     /etc for --prefix=/usr, /usr/local/etc for meson's default prefix.
 * With --config FILE, FILE is the only main file (it must exist) and FILE.d/
 * the only drop-in directory: an explicit file replaces the search path, as
 * with systemd-tmpfiles or systemd-sysusers given a file.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Paths (of the sources, state_dir, prometheus_textfile) are at most this
 * long, including the NUL, so that fixed arrays hold them and errors and
 * origins can name them whole. */
#define CONFIG_PATH_MAX 256

enum damon_stat_policy { DAMON_STAT_PAUSE, DAMON_STAT_KEEP };
enum numa_balancing_policy { NUMAB_LEAVE, NUMAB_DISABLE_TIERING };
/* Who sizes the quotas: the daemon's controller (quota_ctl.h) or DAMON's
 * quota goal tuner. */
enum quota_tuner { QUOTA_TUNER_DAEMON, QUOTA_TUNER_KERNEL, QUOTA_TUNER_TEMPORAL };

/* A goal in basis points that is either pinned by the operator or "auto"
 * (derived from the fast node's zone watermarks and promotion quota, see
 * plan_calibrate() in plan.h). */
struct goal_setting {
	bool automatic;
	unsigned bp; /* the configured value; with automatic, the seed value used as bound */
};

/* One id per key of the file, in table order (see config_keys()). */
enum config_key {
	CONFIG_KEY_DAEMON_INTERVAL,
	CONFIG_KEY_DAEMON_STATUS_INTERVAL,
	CONFIG_KEY_DAEMON_VERIFY_INTERVAL,
	CONFIG_KEY_DAEMON_DAMON_STAT,
	CONFIG_KEY_DAEMON_NUMA_BALANCING,
	CONFIG_KEY_DAEMON_STATE_DIR,
	CONFIG_KEY_DAEMON_REFRESH_INTERVAL,
	CONFIG_KEY_DAEMON_PROMETHEUS_TEXTFILE,
	CONFIG_KEY_MONITORING_SAMPLE_INTERVAL,
	CONFIG_KEY_MONITORING_AGGR_INTERVAL,
	CONFIG_KEY_MONITORING_INTERVALS_GOAL_ACCESS_BP,
	CONFIG_KEY_MONITORING_INTERVALS_GOAL_AGGRS,
	CONFIG_KEY_MONITORING_MIN_SAMPLE_INTERVAL,
	CONFIG_KEY_MONITORING_MAX_SAMPLE_INTERVAL,
	CONFIG_KEY_MONITORING_MIN_NR_REGIONS,
	CONFIG_KEY_MONITORING_MAX_NR_REGIONS,
	CONFIG_KEY_QUOTA_SIZE,
	CONFIG_KEY_QUOTA_TIME_LIMIT,
	CONFIG_KEY_QUOTA_RESET_INTERVAL,
	CONFIG_KEY_QUOTA_WEIGHT_SIZE,
	CONFIG_KEY_QUOTA_WEIGHT_ACCESSES,
	CONFIG_KEY_QUOTA_WEIGHT_AGE,
	CONFIG_KEY_QUOTA_APPLY_INTERVAL,
	CONFIG_KEY_QUOTA_TUNER,
	CONFIG_KEY_QUOTA_EXCHANGE,
	CONFIG_KEY_PROMOTE_USED_GOAL,
	CONFIG_KEY_PROMOTE_MIN_ACCESSES,
	CONFIG_KEY_PROMOTE_YOUNG_FILTER,
	CONFIG_KEY_DEMOTE_FREE_GOAL,
	CONFIG_KEY_DEMOTE_MAX_ACCESSES,
	CONFIG_KEY_DEMOTE_MIN_AGE,
	CONFIG_KEY_DEMOTE_YOUNG_FILTER,
	_CONFIG_KEY_MAX,
};

/* [cgroup NAME] sections (config_cgroup.c): rules for one cgroup each. */
#define CONFIG_MAX_CGROUPS 8
/* A cgroup path or unit name, as DAMON's memcg_path takes it (NUL included). */
#define CGROUP_NAME_MAX 192
enum cgroup_key { CG_KEY_PROTECT, CG_KEY_PROMOTE, CG_KEY_FAST_SHARE, _CG_KEY_MAX };

struct cgroup_rule {
	/* "/system.slice/mysql.service" (a path below the cgroup2 mount) or
	 * a systemd unit name "mysql.service", found in the tree at run time */
	char name[CGROUP_NAME_MAX];
	bool protect;            /* never demote its pages */
	bool promote;            /* false: never promote its pages */
	unsigned fast_share_bp;  /* keep this share of its memory on the fast tier; 0: none */
	unsigned set;            /* bit (1 << enum cgroup_key) per key a file set */
	/* Where the section was first opened and each key last set. */
	char file[CONFIG_PATH_MAX];
	unsigned line;
	char key_file[_CG_KEY_MAX][CONFIG_PATH_MAX];
	unsigned key_line[_CG_KEY_MAX];
};

struct config {
	/* Bit (1 << enum config_key) per key a file (any of the main file and
	 * drop-ins) set explicitly, even to its default value: the planner
	 * auto-calibrates some values (quota, max sample interval, ...) unless
	 * the operator pinned them. */
	uint64_t set_mask;

	/* [daemon] */
	uint64_t interval_us;          /* reconcile period */
	uint64_t status_interval_us;
	uint64_t verify_interval_us;     /* full read-back of our kdamonds' files */
	enum damon_stat_policy damon_stat;
	enum numa_balancing_policy numa_balancing;
	char state_dir[CONFIG_PATH_MAX];
	uint64_t refresh_ms;           /* kdamond refresh_ms when the kernel has it */
	char prometheus_textfile[CONFIG_PATH_MAX]; /* "" = off */

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
	enum quota_tuner quota_tuner;
	bool exchange;             /* the ranked exchange (exchange.h) */

	/* [promote] */
	struct goal_setting promote_used;
	unsigned promote_min_accesses;
	bool promote_young_filter;

	/* [demote] */
	struct goal_setting demote_free;
	unsigned demote_max_accesses;
	uint64_t demote_min_age_us;    /* converted to aggregation intervals by the planner */
	bool demote_young_filter;

	/* [cgroup NAME], in the order first seen */
	unsigned nr_cgroups;
	struct cgroup_rule cgroups[CONFIG_MAX_CGROUPS];
};

#define CONFIG_ERR_MAX 512
struct config_error {
	char file[256];        /* "" for config_validate() on a struct not read from a file */
	unsigned line;         /* 0 when the error is not tied to a line */
	/* Complete and printable as is: "file:line: [section] key: what is
	 * wrong (got "value"; expected ...)". */
	char message[CONFIG_ERR_MAX];
};

/* All defaults (the default texts of config_keys()), set_mask 0. */
void config_init(struct config *c);

/* True if the file set key k (see set_mask). */
bool config_is_set(const struct config *c, enum config_key k);

/* The effective daemon.verify_interval: the configured value, or
 * daemon.interval when that is longer (only a pinned verify_interval below
 * interval is a validation error). */
uint64_t config_verify_interval_us(const struct config *c);

/*
 * Parse the one file `path` (no drop-ins; the daemon uses
 * config_load_sources()) into *ret (which the function initialises with
 * defaults first), then config_validate() it.  A symlink to /dev/null reads
 * as an empty file.  -ENOENT if the file does not exist
 * (callers may treat that as "all defaults"; *err says so too), -EINVAL with
 * *err filled for the first bad line or value, a failed cross-key check or a
 * path that is not a regular file, -EFBIG above 1 MiB, -ENOMEM, another
 * -errno if the file cannot be read.  *ret is only written on success; err
 * may be NULL.
 */
int config_load(const char *path, struct config *ret, struct config_error *err);
/* Same from a string (for tests and fuzzing); `name` (NULL: "(string)") is
 * used in errors. */
int config_load_string(const char *text, const char *name, struct config *ret,
		       struct config_error *err);

/* Where to look (see the top of this file). */
struct config_sources {
	/* Prefix of every path of the search path: NULL or "/" in production,
	 * a temporary directory in tests.  Symlinks are not resolved inside it:
	 * it is a test aid, not a chroot. */
	const char *root;
	/* --config FILE: the only main file (not prefixed with root), FILE.d/
	 * the only drop-in directory.  NULL: the search path. */
	const char *main_file;
};

/* Where a key's effective value comes from: file "" and line 0 for the
 * built-in default. */
struct config_origin {
	char file[CONFIG_PATH_MAX];
	unsigned line;
};

struct config_origins {
	struct config_origin key[_CONFIG_KEY_MAX];   /* indexed by enum config_key */
	char main_file[CONFIG_PATH_MAX];             /* "" if none was found, masked or read as a drop-in */
	unsigned nr_dropins;                         /* drop-ins read, masked ones not counted */
};

/*
 * Find, parse and merge the main file and the drop-ins of `src` (NULL: the
 * production search path), then config_validate() the result.  Nothing found
 * is all defaults and returns 0.  -ENOENT for a missing src->main_file or a
 * dangling drop-in symlink; -EINVAL with *err naming file:line for the first
 * bad line or value in any file, or a failed cross-key check (at the key
 * assigned last, in the file that assigned it), or a main file or drop-in
 * that is not a regular file; -ENOTDIR for a drop-in directory that is a file;
 * -ENAMETOOLONG for a path longer than CONFIG_PATH_MAX - 1; -EFBIG for a file
 * above 1 MiB; -ENOMEM; another -errno with *err naming the path if a file or
 * directory cannot be read.  *ret and *ret_origins (may be NULL) are only
 * written on success; err may be NULL.
 */
int config_load_sources(const struct config_sources *src, struct config *ret,
			struct config_origins *ret_origins, struct config_error *err);

/* Every key's range, then the cross-key checks (min <= max, sample <= aggr,
 * ...; see conf/damon-tierd.conf).  0 or -EINVAL + err (line 0); err may be
 * NULL. */
int config_validate(const struct config *c, struct config_error *err);

/* Write "section.key = value" lines of the effective config to buf, one per
 * key in table order, values in units the file accepts back (200MiB, 5ms).
 * 0, or -ENOBUFS if size is too small (buf then holds a truncated text). */
int config_format(const struct config *c, char *buf, size_t size);

/* Same, each line followed by the key's origin, aligned:
 * "quota.size = 1GiB    # /etc/damon-tierd.conf.d/10-quota.conf:3" or
 * "... # default".  origins NULL: like config_format().  0 or -ENOBUFS. */
int config_format_sources(const struct config *c, const struct config_origins *origins,
			  char *buf, size_t size);

/* Whether name is a usable [cgroup NAME]: a path below the cgroup2 mount
 * ("/a/b", not the root) or a systemd unit ("x.service", ".slice",
 * ".scope").  0, or -EINVAL with why (n bytes) saying what is wrong. */
int config_cgroup_name_check(const char *name, char *why, size_t n);

/* Each table row, for documentation tests: section, key, default text and
 * help.  *ret is indexed by enum config_key; returns _CONFIG_KEY_MAX. */
struct config_key_info {
	const char *section;
	const char *key;
	const char *default_text;
	const char *help;      /* one line */
};
size_t config_keys(const struct config_key_info **ret);
