/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * What the files of the config module share, and nothing else includes:
 *   config_keys.c    the key table, and parsing one value of it;
 *   config_format.c  values back into the text the file accepts;
 *   config_parse.c   one file's text (inih) merged into a struct config,
 *                    with the error messages;
 *   config_check.c   ranges and cross-key checks;
 *   config_cgroup.c  the [cgroup NAME] sections;
 *   config.c         finding, reading and merging the files.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"

#define USEC UINT64_C(1)
#define MSEC UINT64_C(1000)
#define SEC  UINT64_C(1000000)
#define MIN  (60 * SEC)
#define HOUR (60 * MIN)

enum config_kind {
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

struct config_key_def {
	enum config_kind kind;
	size_t offset;                /* of the field in struct config */
	uint64_t min, max;            /* in the parsed unit (us, bytes, bp, count) */
	unsigned seed_bp;             /* K_GOAL: the bound used while "auto" */
	const char *const *names;     /* K_ENUM: index = value, NULL-terminated */
	const char *suffix;           /* K_PATH: the name must end with it */
};

/* The key table, both indexed by enum config_key (config_keys.c). */
extern const struct config_key_info config_key_infos[_CONFIG_KEY_MAX];
extern const struct config_key_def config_key_defs[_CONFIG_KEY_MAX];

/* Key k's field in c. */
static inline const void *config_cfield(const struct config *c, enum config_key k)
{
	return (const char *)c + config_key_defs[k].offset;
}

/* The value of a numeric key in its parsed unit (us for the ms fields);
 * 0 for a K_PATH key. */
uint64_t config_get_num(const struct config *c, enum config_key k);

/*
 * Parse `value` for key k into c's field (set_mask untouched).  0, or
 * -EINVAL with c untouched and `what` holding the first half of the message
 * ("missing unit", "out of range").
 */
int config_parse_value(enum config_key k, const char *value, struct config *c, char *what, size_t n);

/* Key k's value in c, the way the file would spell it, into buf (truncated
 * to n). */
void config_fmt_value(const struct config *c, enum config_key k, char *buf, size_t n);

/* What the file may say for key k, for the "expected ..." part of errors. */
void config_fmt_expected(enum config_key k, char *buf, size_t n);

/* Fill *err (all of it): file `name` ("" if NULL), line (0: none), and a
 * message "name:line: " (or "name: ", or nothing without a name) + fmt. */
__attribute__((format(printf, 4, 5)))
void config_set_error(struct config_error *err, const char *name, unsigned line, const char *fmt, ...);

/*
 * The merge of the files read so far.  Every file assigns into the same
 * struct in order, so a later file's value wins; per key we remember the
 * file, line and order of the winning assignment, for --check-config and so
 * that a cross-key error points at the assignment made last.
 */
struct config_merge {
	struct config cfg;
	const char *key_file[_CONFIG_KEY_MAX];  /* NULL: the default */
	unsigned key_line[_CONFIG_KEY_MAX];
	unsigned key_seq[_CONFIG_KEY_MAX];      /* 0: the default; grows across files */
	unsigned seq;
	const char *fallback;                   /* for errors tied to no key */
};

/*
 * Apply one file's text (len bytes, not NUL-terminated necessarily) on top
 * of m; `name` names it in errors and in m's origins, and must outlive m.
 * 0, -EINVAL with *err filled for the first bad line (a NUL byte, a line
 * inih rejects, an unknown section or key, a key twice in this file, a bad
 * value), -ENOMEM.  On failure m is half-applied: the caller throws it away.
 */
int config_parse_text(struct config_merge *m, const char *text, size_t len, const char *name,
		      struct config_error *err);

/*
 * Every key's range, then the cross-key checks, of c.  m (may be NULL) says
 * where each key was set, so that an error names the file and line of the
 * key assigned last.  0 or -EINVAL with *err filled.
 */
int config_validate_merge(const struct config *c, const struct config_merge *m,
			  struct config_error *err);

/*
 * [cgroup NAME] sections (config_cgroup.c).  config_cgroup_open(): the rule
 * of the header whose name (len bytes, blanks trimmed here) follows
 * "cgroup", made on first sight; its index, or -EINVAL with *err.
 * config_cgroup_key(): one key of that section; file_mask holds the keys
 * this file set already.  0 or -EINVAL with *err.  config_cgroup_validate():
 * the rules' cross-key checks (fallback names the file of a rule without
 * one).  config_cgroup_format(): appends "cgroup[NAME].key = value" lines,
 * with origins "  # file:line" or "  # default"; 0 or -ENOBUFS.
 */
int config_cgroup_open(struct config_merge *m, const char *name, size_t len, const char *file,
		       unsigned line, struct config_error *err);
int config_cgroup_key(struct config_merge *m, unsigned rule, const char *key, const char *value,
		      const char *file, unsigned line, unsigned *file_mask, struct config_error *err);
int config_cgroup_validate(const struct config *c, const char *fallback, struct config_error *err);
int config_cgroup_format(const struct config *c, bool origins, char *buf, size_t size);
