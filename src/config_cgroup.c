/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * [cgroup NAME] sections: one rule per cgroup, named by its cgroup v2 path
 * or a systemd unit.  Parsed, validated and formatted here; what a rule
 * becomes in DAMON is cgroup_rules.c's.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "config_internal.h"
#include "parse.h"

static const char *const cg_keys[_CG_KEY_MAX] = {
	[CG_KEY_PROTECT] = "protect",
	[CG_KEY_PROMOTE] = "promote",
	[CG_KEY_FAST_SHARE] = "fast_share",
};

static bool ends_with(const char *s, const char *suffix)
{
	size_t ls = strlen(s), lx = strlen(suffix);

	return ls > lx && strcmp(s + ls - lx, suffix) == 0;
}

int config_cgroup_name_check(const char *name, char *why, size_t n)
{
	size_t len = strlen(name);

	if (len == 0) {
		snprintf(why, n, "missing cgroup name");
		return -EINVAL;
	}
	if (len >= CGROUP_NAME_MAX) {
		snprintf(why, n, "name longer than %d bytes", CGROUP_NAME_MAX - 1);
		return -EINVAL;
	}
	for (const char *p = name; *p; p++)
		if (*p <= ' ' || *p == 0x7f || *p == '"' || *p == '\\') {
			snprintf(why, n, "a cgroup name has no blanks, quotes, backslashes or control characters");
			return -EINVAL;
		}
	if (name[0] == '/') {
		if (len == 1) {
			snprintf(why, n, "the root cgroup holds every page: a rule for it would be the whole "
				 "policy; name a child cgroup");
			return -EINVAL;
		}
		if (name[len - 1] == '/' || strstr(name, "//") || strstr(name, "/./") ||
		    strstr(name, "/../") || ends_with(name, "/.") || ends_with(name, "/..")) {
			snprintf(why, n, "not a plain cgroup path (no '//', '.', '..' or trailing '/')");
			return -EINVAL;
		}
		return 0;
	}
	if (strchr(name, '/') || !(ends_with(name, ".service") || ends_with(name, ".slice") ||
				   ends_with(name, ".scope"))) {
		snprintf(why, n, "expected a cgroup path starting with '/' or a systemd unit ending in "
			 ".service, .slice or .scope");
		return -EINVAL;
	}
	return 0;
}

int config_cgroup_open(struct config_merge *m, const char *name, size_t len, const char *file,
		       unsigned line, struct config_error *err)
{
	struct config *c = &m->cfg;
	char buf[CGROUP_NAME_MAX + 1], why[160];
	struct cgroup_rule *r;

	while (len > 0 && (*name == ' ' || *name == '\t')) {
		name++;
		len--;
	}
	while (len > 0 && (name[len - 1] == ' ' || name[len - 1] == '\t'))
		len--;
	if (len >= sizeof(buf)) {
		config_set_error(err, file, line, "[cgroup %.64s...]: name longer than %d bytes", name,
				 CGROUP_NAME_MAX - 1);
		return -EINVAL;
	}
	memcpy(buf, name, len);
	buf[len] = '\0';
	if (config_cgroup_name_check(buf, why, sizeof(why)) < 0) {
		config_set_error(err, file, line, "[cgroup %s]: %s (e.g. [cgroup /system.slice/mysql.service] "
				 "or [cgroup mysql.service])", buf, why);
		return -EINVAL;
	}
	for (unsigned i = 0; i < c->nr_cgroups; i++)
		if (strcmp(c->cgroups[i].name, buf) == 0)
			return (int)i; /* a drop-in adds to or overrides the rule */
	if (c->nr_cgroups >= CONFIG_MAX_CGROUPS) {
		config_set_error(err, file, line, "[cgroup %s]: at most %d cgroup sections are supported",
				 buf, CONFIG_MAX_CGROUPS);
		return -EINVAL;
	}
	r = &c->cgroups[c->nr_cgroups];
	memset(r, 0, sizeof(*r));
	memcpy(r->name, buf, len + 1); /* len < CGROUP_NAME_MAX: checked above */
	r->promote = true;
	snprintf(r->file, sizeof(r->file), "%s", file ? file : "");
	r->line = line;
	return (int)c->nr_cgroups++;
}

int config_cgroup_key(struct config_merge *m, unsigned rule, const char *key, const char *value,
		      const char *file, unsigned line, unsigned *file_mask, struct config_error *err)
{
	struct cgroup_rule *r = &m->cfg.cgroups[rule];
	int k;
	bool b;
	unsigned bp;

	for (k = 0; k < _CG_KEY_MAX; k++)
		if (strcmp(key, cg_keys[k]) == 0)
			break;
	if (k == _CG_KEY_MAX) {
		config_set_error(err, file, line, "[cgroup %s] %.64s: unknown key (keys of a cgroup section: "
				 "protect, promote, fast_share)", r->name, key);
		return -EINVAL;
	}
	if (*file_mask & (1u << k)) {
		config_set_error(err, file, line, "[cgroup %s] %s: duplicate key (first set on line %u; keep "
				 "only one)", r->name, key, r->key_line[k]);
		return -EINVAL;
	}
	if (k == CG_KEY_FAST_SHARE) {
		int pr = parse_bp(value, &bp);

		if (pr < 0 || bp == 0) {
			config_set_error(err, file, line, "[cgroup %s] fast_share: %s (got \"%.64s\"; expected a "
					 "percentage in 0.01%%..100%% or basis points in 1..10000, e.g. \"80%%\")",
					 r->name, pr == -EINVAL ? "not a share" : "out of range", value);
			return -EINVAL;
		}
		r->fast_share_bp = bp;
	} else {
		if (parse_bool(value, &b) < 0) {
			config_set_error(err, file, line, "[cgroup %s] %s: not a boolean (got \"%.64s\"; expected "
					 "yes or no)", r->name, key, value);
			return -EINVAL;
		}
		if (k == CG_KEY_PROTECT)
			r->protect = b;
		else
			r->promote = b;
	}
	r->set |= 1u << k;
	*file_mask |= 1u << k;
	snprintf(r->key_file[k], sizeof(r->key_file[k]), "%s", file ? file : "");
	r->key_line[k] = line;
	return 0;
}

int config_cgroup_validate(const struct config *c, const char *fallback, struct config_error *err)
{
	for (unsigned i = 0; i < c->nr_cgroups; i++) {
		const struct cgroup_rule *r = &c->cgroups[i];
		const char *file = r->file[0] ? r->file : fallback;
		char why[160];

		if (config_cgroup_name_check(r->name, why, sizeof(why)) < 0) {
			config_set_error(err, file, r->line, "[cgroup %s]: %s", r->name, why);
			return -EINVAL;
		}
		if (!r->set) {
			config_set_error(err, file, r->line, "[cgroup %s]: the section sets nothing (expected "
					 "protect = yes, promote = no or fast_share = N%%)", r->name);
			return -EINVAL;
		}
		if (r->fast_share_bp > 10000) {
			config_set_error(err, file, r->key_line[CG_KEY_FAST_SHARE], "[cgroup %s] fast_share: out "
					 "of range (expected 1%%..100%%)", r->name);
			return -EINVAL;
		}
		if (r->fast_share_bp && !r->promote) {
			/* Report at the key set last: usually the one just edited. */
			bool share_last = r->key_line[CG_KEY_FAST_SHARE] > r->key_line[CG_KEY_PROMOTE] &&
					  strcmp(r->key_file[CG_KEY_FAST_SHARE], r->key_file[CG_KEY_PROMOTE]) == 0;
			enum cgroup_key k = share_last ? CG_KEY_FAST_SHARE : CG_KEY_PROMOTE;

			config_set_error(err, r->key_file[k][0] ? r->key_file[k] : file, r->key_line[k],
					 "[cgroup %s]: fast_share = %u.%02u%% (line %u) conflicts with promote = no "
					 "(line %u): a share of the fast tier is kept by promoting the cgroup's pages; "
					 "drop one of them", r->name, r->fast_share_bp / 100, r->fast_share_bp % 100,
					 r->key_line[CG_KEY_FAST_SHARE], r->key_line[CG_KEY_PROMOTE]);
			return -EINVAL;
		}
	}
	return 0;
}

int config_cgroup_format(const struct config *c, bool origins, char *buf, size_t size)
{
	size_t used = strlen(buf);

	for (unsigned i = 0; i < c->nr_cgroups; i++) {
		const struct cgroup_rule *r = &c->cgroups[i];

		for (int k = 0; k < _CG_KEY_MAX; k++) {
			char line[CGROUP_NAME_MAX + 64], v[16];
			int n;

			if (k == CG_KEY_FAST_SHARE && !r->fast_share_bp)
				continue;
			if (k == CG_KEY_FAST_SHARE)
				snprintf(v, sizeof(v), "%u.%02u%%", r->fast_share_bp / 100, r->fast_share_bp % 100);
			else
				snprintf(v, sizeof(v), "%s", (k == CG_KEY_PROTECT ? r->protect : r->promote) ?
					 "yes" : "no");
			snprintf(line, sizeof(line), "cgroup[%s].%s = %s", r->name, cg_keys[k], v);
			if (!origins)
				n = snprintf(buf + used, size - used, "%s\n", line);
			else if (r->set & (1u << k))
				n = snprintf(buf + used, size - used, "%s  # %s:%u\n", line, r->key_file[k],
					     r->key_line[k]);
			else
				n = snprintf(buf + used, size - used, "%s  # default\n", line);
			if (n < 0 || (size_t)n >= size - used)
				return -ENOBUFS;
			used += (size_t)n;
		}
	}
	return 0;
}
