/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Parsers for config values: sizes, durations, basis points, booleans.
 * Units are case-insensitive words; every parser validates the whole input
 * before it touches an output parameter.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "parse.h"
#include "parse_internal.h"

/* Case-insensitive compare of [p, p+n) with the NUL-terminated word w. */
static bool word_eq(const char *p, size_t n, const char *w)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (w[i] == '\0' || lower(p[i]) != lower(w[i]))
			return false;
	return w[n] == '\0';
}

/*
 * A decimal number with an optional fraction, as used by durations and
 * percentages: integer part in *ret_int, fraction scaled to 10^frac_max in
 * *ret_frac.  More significant fraction digits than frac_max: -EINVAL
 * (trailing zeros are fine).  Advances *pp.
 */
static int scan_decimal(const char **pp, unsigned frac_max, uint64_t *ret_int, uint64_t *ret_frac)
{
	const char *p = *pp;
	uint64_t i, f = 0;
	unsigned nd = 0;
	int r;

	r = scan_u64(&p, UINT64_MAX, &i);
	if (r < 0)
		return r;
	if (*p == '.') {
		p++;
		if (!is_digit(*p))
			return -EINVAL;
		for (; is_digit(*p); p++) {
			if (nd < frac_max) {
				f = f * 10 + (uint64_t)(*p - '0');
				nd++;
			} else if (*p != '0') {
				return -EINVAL;
			}
		}
	}
	for (; nd < frac_max; nd++)
		f *= 10;
	*pp = p;
	*ret_int = i;
	*ret_frac = f;
	return 0;
}

/* The unit word at p: letters only, up to the trailing whitespace. */
static int scan_unit(const char **pp, const char **ret_w, size_t *ret_n)
{
	const char *p = skip_blank(*pp), *w = p;

	while ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || *p == '%')
		p++;
	if (*skip_space(p) != '\0')
		return -EINVAL;
	*ret_w = w;
	*ret_n = (size_t)(p - w);
	*pp = p;
	return 0;
}

/*
 * The whole of s: optional whitespace, a number, an optional unit word,
 * optional whitespace.  frac_max 0: an integer (no '.'), *ret_frac 0;
 * otherwise as scan_decimal().  The unit is [*ret_w, *ret_w + *ret_n).
 */
static int scan_quantity(const char *s, unsigned frac_max, uint64_t *ret_int, uint64_t *ret_frac,
			 const char **ret_w, size_t *ret_n)
{
	const char *p;
	uint64_t in, fr = 0;
	int r;

	if (!s)
		return -EINVAL;
	p = skip_space(s);
	if (frac_max)
		r = scan_decimal(&p, frac_max, &in, &fr);
	else
		r = scan_u64(&p, UINT64_MAX, &in);
	if (r < 0)
		return r;
	r = scan_unit(&p, ret_w, ret_n);
	if (r < 0)
		return r;
	*ret_int = in;
	*ret_frac = fr;
	return 0;
}

int parse_size(const char *s, uint64_t *ret)
{
	static const struct { const char *unit; unsigned shift; } units[] = {
		{ "", 0 }, { "b", 0 },
		{ "k", 10 }, { "kib", 10 },
		{ "m", 20 }, { "mib", 20 },
		{ "g", 30 }, { "gib", 30 },
		{ "t", 40 }, { "tib", 40 },
	};
	const char *w;
	uint64_t v, fr;
	size_t i, n;
	int r;

	r = scan_quantity(s, 0, &v, &fr, &w, &n);
	if (r < 0)
		return r;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (!word_eq(w, n, units[i].unit))
			continue;
		if (units[i].shift > 0 && v > (UINT64_MAX >> units[i].shift))
			return -ERANGE;
		*ret = v << units[i].shift;
		return 0;
	}
	return -EINVAL;
}

int parse_duration_us(const char *s, uint64_t *ret)
{
	static const struct { const char *unit; uint64_t usec; } units[] = {
		{ "us", 1 },
		{ "ms", 1000 },
		{ "s", 1000000 },
		{ "min", UINT64_C(60000000) },
		{ "h", UINT64_C(3600000000) },
	};
	const char *w;
	uint64_t in, fr;
	size_t i, n;
	int r;

	/* Six fraction digits: the finest unit that takes a fraction with
	 * meaning, "s", then resolves to whole microseconds. */
	r = scan_quantity(s, 6, &in, &fr, &w, &n);
	if (r < 0)
		return r;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		uint64_t whole, part;

		if (n == 0 || !word_eq(w, n, units[i].unit))
			continue;
		if (in > UINT64_MAX / units[i].usec)
			return -ERANGE;
		whole = in * units[i].usec;
		/* fr < 10^6 and usec <= 3.6e9, so the product fits. */
		if ((fr * units[i].usec) % 1000000 != 0)
			return -EINVAL; /* not a whole number of microseconds */
		part = fr * units[i].usec / 1000000;
		if (add_u64(&whole, part) < 0)
			return -ERANGE;
		*ret = whole;
		return 0;
	}
	return -EINVAL;
}

int parse_bp(const char *s, unsigned *ret)
{
	const char *w;
	uint64_t in, fr, bp;
	size_t n;
	int r;

	r = scan_quantity(s, 2, &in, &fr, &w, &n);
	if (r < 0)
		return r;
	if (n == 0) {
		/* A bare number is basis points, which have no fraction. */
		if (fr != 0 || strchr(s, '.'))
			return -EINVAL;
		bp = in;
	} else if (n == 1 && *w == '%') {
		if (in > 100)
			return -ERANGE;
		bp = in * 100 + fr;
	} else {
		return -EINVAL;
	}
	if (bp > 10000)
		return -ERANGE;
	*ret = (unsigned)bp;
	return 0;
}

int parse_bool(const char *s, bool *ret)
{
	static const char *const yes[] = { "1", "yes", "true", "on" };
	static const char *const no[] = { "0", "no", "false", "off" };
	const char *p, *e;
	size_t i, n;

	if (!s)
		return -EINVAL;
	p = skip_space(s);
	e = p + strlen(p);
	while (e > p && is_space(e[-1]))
		e--;
	n = (size_t)(e - p);
	for (i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (word_eq(p, n, yes[i])) {
			*ret = true;
			return 0;
		}
		if (word_eq(p, n, no[i])) {
			*ret = false;
			return 0;
		}
	}
	return -EINVAL;
}
