/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * The scanners the parsers of parse.h share, and nothing else includes:
 *   parse.c        sysfs formats: numbers, lists, names, distances;
 *   parse_proc.c   /proc text: nodeN/meminfo, zoneinfo;
 *   parse_value.c  config values: size, duration, basis points, bool.
 *
 * They are small, so static inline: one definition, and no symbol outside
 * the parsers.  Everything here is fed untrusted bytes (and is fuzzed), so
 * nothing uses strtoul() and friends: they accept signs, leading whitespace,
 * "0x" and locale-dependent input that the formats we read never contain.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

static inline bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

static inline bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static inline const char *skip_space(const char *p)
{
	while (is_space(*p))
		p++;
	return p;
}

static inline const char *skip_blank(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

static inline char lower(char c)
{
	return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
}

/* Leading decimal digits at *pp into *ret; advances *pp.  -EINVAL if there
 * is no digit, -ERANGE if the number exceeds `max`; *pp and *ret untouched
 * on failure. */
static inline int scan_u64(const char **pp, uint64_t max, uint64_t *ret)
{
	const char *p = *pp;
	uint64_t v = 0;

	if (!is_digit(*p))
		return -EINVAL;
	for (; is_digit(*p); p++) {
		unsigned d = (unsigned)(*p - '0');

		if (v > (max - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
	}
	*pp = p;
	*ret = v;
	return 0;
}

/* *a += b, or -ERANGE with *a untouched if the sum overflows. */
static inline int add_u64(uint64_t *a, uint64_t b)
{
	if (*a > UINT64_MAX - b)
		return -ERANGE;
	*a += b;
	return 0;
}
