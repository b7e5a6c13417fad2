/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Values back into text: in the units the file accepts (200MiB, 5ms), so
 * that --check-config output can be pasted into a file, and the "expected"
 * part of error messages.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "config_internal.h"

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
	switch (config_key_defs[k].kind) {
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

void config_fmt_value(const struct config *c, enum config_key k, char *buf, size_t n)
{
	const struct config_key_def *d = &config_key_defs[k];
	const void *p = config_cfield(c, k);

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
		fmt_num(k, config_get_num(c, k), buf, n);
		break;
	}
}

void config_fmt_expected(enum config_key k, char *buf, size_t n)
{
	const struct config_key_def *d = &config_key_defs[k];
	const char *def = config_key_infos[k].default_text;
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

		config_fmt_value(c, (enum config_key)k, v, sizeof(v));
		snprintf(lines[k], sizeof(lines[k]), "%s.%s = %s", config_key_infos[k].section, config_key_infos[k].key, v);
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
	return config_cgroup_format(c, origins != NULL, buf, size);
}

int config_format(const struct config *c, char *buf, size_t size)
{
	return config_format_sources(c, NULL, buf, size);
}
