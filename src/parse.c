/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Parsers for the sysfs formats: numbers, node and cpu lists, directory
 * names, node distances.  Every parser validates the whole input before it
 * touches an output parameter.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "parse.h"
#include "parse_internal.h"

int parse_u64(const char *s, uint64_t *ret)
{
	const char *p;
	uint64_t v;
	int r;

	if (!s)
		return -EINVAL;
	p = skip_space(s);
	r = scan_u64(&p, UINT64_MAX, &v);
	if (r < 0)
		return r;
	if (*skip_space(p) != '\0')
		return -EINVAL;
	*ret = v;
	return 0;
}

int parse_s64(const char *s, int64_t *ret)
{
	const char *p;
	bool neg = false;
	uint64_t v;
	int r;

	if (!s)
		return -EINVAL;
	p = skip_space(s);
	if (*p == '-' || *p == '+') {
		neg = *p == '-';
		p++;
	}
	r = scan_u64(&p, neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX, &v);
	if (r < 0)
		return r;
	if (*skip_space(p) != '\0')
		return -EINVAL;
	if (neg)
		*ret = v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v;
	else
		*ret = (int64_t)v;
	return 0;
}

static int hex_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = lower(c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

int parse_hex_u64(const char *s, uint64_t *ret)
{
	const char *p;
	uint64_t v = 0;

	if (!s)
		return -EINVAL;
	p = skip_space(s);
	if (hex_value(*p) < 0)
		return -EINVAL;
	for (; hex_value(*p) >= 0; p++) {
		if (v > (UINT64_MAX >> 4))
			return -ERANGE;
		v = (v << 4) | (uint64_t)hex_value(*p);
	}
	if (*skip_space(p) != '\0')
		return -EINVAL;
	*ret = v;
	return 0;
}

/*
 * Lists.  The kernel prints them ascending and without overlaps (%*pbl), so
 * we insist on that: it keeps counts exact without a bitmap and turns a
 * config typo like "3,1-4" into an error instead of a silent double count.
 * Ids above INT_MAX are nonsense for CPUs and nodes and would make counts
 * overflow.
 */
#define LIST_ID_MAX ((uint64_t)INT_MAX)

static int list_walk(const char *s, int (*fn)(unsigned lo, unsigned hi, void *ud), void *ud)
{
	const char *p;
	bool first = true;
	uint64_t prev_hi = 0;

	p = skip_space(s);
	if (*p == '\0')
		return 0;

	for (;;) {
		uint64_t lo, hi;
		int r;

		r = scan_u64(&p, LIST_ID_MAX, &lo);
		if (r < 0)
			return r;
		hi = lo;
		if (*p == '-') {
			p++;
			r = scan_u64(&p, LIST_ID_MAX, &hi);
			if (r < 0)
				return r;
			if (hi < lo)
				return -EINVAL;
		}
		if (!first && lo <= prev_hi)
			return -EINVAL;
		first = false;
		prev_hi = hi;

		if (fn) {
			r = fn((unsigned)lo, (unsigned)hi, ud);
			if (r != 0)
				return r;
		}

		if (*p == ',') {
			p++;
			continue;
		}
		if (*skip_space(p) != '\0')
			return -EINVAL;
		return 0;
	}
}

int parse_list(const char *s, int (*fn)(unsigned lo, unsigned hi, void *ud), void *ud)
{
	int r;

	if (!s)
		return -EINVAL;
	/* Validate first, so fn never sees the head of a bad list. */
	r = list_walk(s, NULL, NULL);
	if (r < 0)
		return r;
	if (!fn)
		return 0;
	return list_walk(s, fn, ud);
}

struct mask_ctx {
	uint64_t *mask;
	unsigned nbits;
};

static int mask_check(unsigned lo, unsigned hi, void *ud)
{
	struct mask_ctx *c = ud;

	(void)lo;
	return hi >= c->nbits ? -ERANGE : 0;
}

static int mask_set(unsigned lo, unsigned hi, void *ud)
{
	struct mask_ctx *c = ud;
	unsigned i;

	for (i = lo; i <= hi; i++)
		c->mask[i / 64] |= UINT64_C(1) << (i % 64);
	return 0;
}

int parse_nodelist_mask(const char *s, uint64_t *mask, unsigned nbits)
{
	struct mask_ctx c = { .mask = mask, .nbits = nbits };
	int r;

	if (!s || (!mask && nbits > 0))
		return -EINVAL;
	r = parse_list(s, mask_check, &c);
	if (r < 0)
		return r;
	/* The result is exactly the list, not an OR into the caller's mask. */
	if (nbits > 0)
		memset(mask, 0, ((size_t)nbits + 63) / 64 * sizeof(uint64_t));
	return parse_list(s, mask_set, &c);
}

static int count_range(unsigned lo, unsigned hi, void *ud)
{
	uint64_t *n = ud;

	*n += (uint64_t)hi - lo + 1;
	return *n > UINT_MAX ? -ERANGE : 0;
}

int parse_cpulist_count(const char *s, unsigned *ret)
{
	uint64_t n = 0;
	int r;

	if (!s)
		return -EINVAL;
	r = parse_list(s, count_range, &n);
	if (r < 0)
		return r;
	*ret = (unsigned)n;
	return 0;
}

/* "<prefix><decimal>" in the kernel's "%s%d" spelling: no sign, no leading
 * zeros (so two names never map to one id), nothing after the digits. */
static int parse_prefixed_id(const char *name, const char *prefix, uint64_t max, uint64_t *ret)
{
	size_t n;
	const char *p;
	uint64_t v;
	int r;

	if (!name)
		return -EINVAL;
	n = strlen(prefix);
	if (strncmp(name, prefix, n) != 0)
		return -EINVAL;
	p = name + n;
	if (p[0] == '0' && p[1] != '\0')
		return -EINVAL;
	r = scan_u64(&p, max, &v);
	if (r < 0)
		return r;
	if (*p != '\0')
		return -EINVAL;
	*ret = v;
	return 0;
}

int parse_memory_block_name(const char *name, uint64_t *ret)
{
	return parse_prefixed_id(name, "memory", UINT64_MAX, ret);
}

static int parse_prefixed_uint(const char *name, const char *prefix, unsigned *ret)
{
	uint64_t v;
	int r;

	r = parse_prefixed_id(name, prefix, UINT_MAX, &v);
	if (r < 0)
		return r;
	*ret = (unsigned)v;
	return 0;
}

int parse_node_name(const char *name, unsigned *ret)
{
	return parse_prefixed_uint(name, "node", ret);
}

int parse_memory_tier_name(const char *name, unsigned *ret)
{
	return parse_prefixed_uint(name, "memory_tier", ret);
}

static int distances_walk(const char *s, int *out, unsigned max, unsigned *ret_n)
{
	const char *p = skip_space(s);
	unsigned n = 0;

	if (*p == '\0')
		return -EINVAL;
	while (*p) {
		uint64_t v;
		int r;

		r = scan_u64(&p, INT_MAX, &v);
		if (r < 0)
			return r;
		if (*p && !is_space(*p))
			return -EINVAL;
		if (n >= max)
			return -ERANGE;
		if (out)
			out[n] = (int)v;
		n++;
		p = skip_space(p);
	}
	*ret_n = n;
	return 0;
}

int parse_distances(const char *s, int *ret, unsigned max, unsigned *ret_n)
{
	unsigned n;
	int r;

	if (!s || !ret_n || (!ret && max > 0))
		return -EINVAL;
	r = distances_walk(s, NULL, max, &n);
	if (r < 0)
		return r;
	return distances_walk(s, ret, max, ret_n);
}
