/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Validation of a whole struct config: every key's range (again, for a
 * struct that does not come from a file), then the keys that must fit
 * together.  An error names both keys, their values and where they were set.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "config_internal.h"

/* Where key k was set, relative to the file an error is reported in:
 * "line 3" in that file, "/etc/x.conf.d/a.conf:3" in another. */
static void describe(const struct config *c, enum config_key k, const struct config_merge *m,
		     const char *err_file, char *buf, size_t n)
{
	char v[64], where[CONFIG_PATH_MAX + 16];

	config_fmt_value(c, k, v, sizeof(v));
	if (m && m->key_file[k] && err_file && strcmp(m->key_file[k], err_file) == 0)
		snprintf(where, sizeof(where), "line %u", m->key_line[k]);
	else if (m && m->key_file[k])
		snprintf(where, sizeof(where), "%s:%u", m->key_file[k], m->key_line[k]);
	else if (config_is_set(c, k))
		snprintf(where, sizeof(where), "set");
	else
		snprintf(where, sizeof(where), "default");
	snprintf(buf, n, "[%s] %s = %s (%s)", config_key_infos[k].section, config_key_infos[k].key, v, where);
}

/* Of keys a, b, c (c may be -1), the one assigned last, -1 if none was. */
static int assigned_last(const struct config_merge *m, int a, int b, int c)
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
static void error_location(const struct config_merge *m, int k, const char **ret_name, unsigned *ret_line)
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
static int cross_error(const struct config *c, const struct config_merge *m, struct config_error *err,
		       enum config_key a, const char *relation, enum config_key b, const char *why)
{
	char da[CONFIG_PATH_MAX + 100], db[CONFIG_PATH_MAX + 100];
	const char *name;
	unsigned line;

	error_location(m, assigned_last(m, a, b, -1), &name, &line);
	describe(c, a, m, name, da, sizeof(da));
	describe(c, b, m, name, db, sizeof(db));
	config_set_error(err, name, line, "%s must be %s %s: %s", da, relation, db, why);
	return -EINVAL;
}

int config_validate_merge(const struct config *c, const struct config_merge *m,
			  struct config_error *err)
{
	char da[CONFIG_PATH_MAX + 100], db[CONFIG_PATH_MAX + 100];
	const char *name;
	unsigned line;
	int k;

	/* Ranges again: the struct may not come from a file. */
	for (k = 0; k < _CONFIG_KEY_MAX; k++) {
		const struct config_key_def *d = &config_key_defs[k];
		char v[64], expected[256];
		bool bad = false;

		switch (d->kind) {
		case K_BOOL:
			break;
		case K_ENUM: {
			int i, val = *(const int *)config_cfield(c, (enum config_key)k);

			for (i = 0; d->names[i]; i++)
				;
			bad = val < 0 || val >= i;
			break;
		}
		case K_PATH: {
			const char *s = config_cfield(c, (enum config_key)k);

			bad = !memchr(s, '\0', CONFIG_PATH_MAX) || (s[0] != '/' && (d->min || s[0] != '\0'));
			break;
		}
		default: {
			uint64_t val = config_get_num(c, (enum config_key)k);

			bad = val < d->min || val > d->max;
			/* The ms fields cannot overflow in the table's ranges,
			 * but a caller's struct can. */
			if (d->kind == K_DURATION_MS && *(const uint64_t *)config_cfield(c, (enum config_key)k) > UINT64_MAX / MSEC)
				bad = true;
			break;
		}
		}
		if (!bad)
			continue;
		config_fmt_value(c, (enum config_key)k, v, sizeof(v));
		config_fmt_expected((enum config_key)k, expected, sizeof(expected));
		error_location(m, k, &name, &line);
		config_set_error(err, name, line, "[%s] %s: out of range (got \"%s\"; expected %s)",
				 config_key_infos[k].section, config_key_infos[k].key, v, expected);
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
		config_set_error(err, name, line,
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
		config_fmt_value(c, CONFIG_KEY_MONITORING_AGGR_INTERVAL, dg, sizeof(dg));
		config_fmt_value(c, CONFIG_KEY_MONITORING_SAMPLE_INTERVAL, ds, sizeof(ds));
		config_set_error(err, name, line,
				 "%s must be at most [monitoring] aggr_interval / sample_interval = %s / %s = %llu: "
				 "a region is seen accessed at most once per sample", da, dg, ds,
				 (unsigned long long)(c->aggr_us / c->sample_us));
		return -EINVAL;
	}
	if (c->demote_max_accesses >= c->promote_min_accesses)
		return cross_error(c, m, err, CONFIG_KEY_DEMOTE_MAX_ACCESSES, "below",
				   CONFIG_KEY_PROMOTE_MIN_ACCESSES,
				   "otherwise the same regions are promoted and demoted back and forth");
	return config_cgroup_validate(c, m ? m->fallback : NULL, err);
}

int config_validate(const struct config *c, struct config_error *err)
{
	struct config_error dummy;

	return config_validate_merge(c, NULL, err ? err : &dummy);
}
