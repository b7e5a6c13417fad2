/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Pure parsers for kernel text formats and config values.
 *
 * Everything here is fed untrusted bytes (and is fuzzed), so nothing uses
 * strtoul() and friends: they accept signs, leading whitespace, "0x" and
 * locale-dependent input that the formats we read never contain.  Every
 * parser validates the whole input before it touches an output parameter.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "parse.h"

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static const char *skip_space(const char *p)
{
	while (is_space(*p))
		p++;
	return p;
}

static const char *skip_blank(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

static char lower(char c)
{
	return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
}

/* Case-insensitive compare of [p, p+n) with the NUL-terminated word w. */
static bool word_eq(const char *p, size_t n, const char *w)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (w[i] == '\0' || lower(p[i]) != lower(w[i]))
			return false;
	return w[n] == '\0';
}

/* Leading decimal digits at *pp into *ret; advances *pp.  -EINVAL if there
 * is no digit, -ERANGE if the number exceeds `max`. */
static int scan_u64(const char **pp, uint64_t max, uint64_t *ret)
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

/* Bounds of the line starting at p: returns the end (pointing at '\n' or NUL). */
static const char *line_end(const char *p)
{
	const char *e = strchr(p, '\n');

	return e ? e : p + strlen(p);
}

/* Does [p, end) start with the literal `lit`?  Advances *pp past it. */
static bool eat(const char **pp, const char *end, const char *lit)
{
	size_t n = strlen(lit);

	if ((size_t)(end - *pp) < n || memcmp(*pp, lit, n) != 0)
		return false;
	*pp += n;
	return true;
}

/*
 * One "Node N Key:   value kB" line of nodeN/meminfo.
 * Returns 1 and the value in bytes if the line carries `key`, 0 if it is some
 * other key, negative if a line for `key` is malformed.
 */
static int meminfo_line(const char *p, const char *end, const char *key, uint64_t *ret)
{
	uint64_t nid, kb;
	int r;

	if (!eat(&p, end, "Node "))
		return 0;
	p = skip_blank(p);
	if (scan_u64(&p, UINT_MAX, &nid) < 0)
		return 0;
	p = skip_blank(p);
	if (!eat(&p, end, key) || !eat(&p, end, ":"))
		return 0;
	p = skip_blank(p);
	r = scan_u64(&p, UINT64_MAX, &kb);
	if (r < 0)
		return r;
	p = skip_blank(p);
	if (!eat(&p, end, "kB"))
		return -EINVAL;
	p = skip_blank(p);
	if (*p == '\r')
		p++;
	if (p != end)
		return -EINVAL;
	if (kb > UINT64_MAX / 1024)
		return -ERANGE;
	*ret = kb * 1024;
	return 1;
}

int parse_node_meminfo(const char *text, uint64_t *ret_total, uint64_t *ret_free)
{
	uint64_t total = 0, free_ = 0;
	bool have_total = false, have_free = false;
	const char *p;

	if (!text)
		return -EINVAL;

	for (p = text; *p; ) {
		const char *end = line_end(p);
		uint64_t v;
		int r;

		r = meminfo_line(p, end, "MemTotal", &v);
		if (r < 0)
			return r;
		if (r > 0) {
			if (have_total)
				return -EINVAL;
			have_total = true;
			total = v;
		}
		r = meminfo_line(p, end, "MemFree", &v);
		if (r < 0)
			return r;
		if (r > 0) {
			if (have_free)
				return -EINVAL;
			have_free = true;
			free_ = v;
		}
		p = *end ? end + 1 : end;
	}

	if (!have_total || !have_free)
		return -EINVAL;
	if (ret_total)
		*ret_total = total;
	if (ret_free)
		*ret_free = free_;
	return 0;
}

/*
 * /proc/zoneinfo.  Each zone starts with "Node N, zone NAME"; the watermarks
 * are the indented single-word keys "min", "low", "high", "managed".  The
 * per-cpu "high:" has a colon and the stat counters are all nr_*, numa_*
 * etc., so exact-word matching is safe.
 */
enum { ZF_MIN = 1, ZF_LOW = 2, ZF_HIGH = 4, ZF_MANAGED = 8, ZF_ALL = 15 };

/* "Node N, zone NAME": returns 1 and the node id, 0 if not a header, <0 if
 * it starts like one but is malformed. */
static int zone_header(const char *p, const char *end, uint64_t *ret_nid)
{
	uint64_t nid;
	int r;

	if (!eat(&p, end, "Node "))
		return 0;
	r = scan_u64(&p, INT_MAX, &nid);
	if (r < 0)
		return r;
	if (!eat(&p, end, ", zone "))
		return -EINVAL;
	p = skip_blank(p);
	if (p >= end || is_space(*p))
		return -EINVAL;
	while (p < end && !is_space(*p))
		p++;
	p = skip_blank(p);
	if (p < end && *p == '\r')
		p++;
	if (p != end)
		return -EINVAL;
	*ret_nid = nid;
	return 1;
}

/* "   KEY   VALUE" with KEY one of the watermark words: returns the ZF_ flag
 * and the value, 0 for any other line, <0 for a malformed watermark line. */
static int zone_field(const char *p, const char *end, uint64_t *ret)
{
	static const struct { const char *key; int flag; } keys[] = {
		{ "min", ZF_MIN }, { "low", ZF_LOW }, { "high", ZF_HIGH }, { "managed", ZF_MANAGED },
	};
	const char *w;
	size_t i, n;
	uint64_t v;
	int flag = 0, r;

	p = skip_blank(p);
	w = p;
	while (p < end && !is_space(*p))
		p++;
	n = (size_t)(p - w);
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (n == strlen(keys[i].key) && memcmp(w, keys[i].key, n) == 0)
			flag = keys[i].flag;
	if (!flag)
		return 0;
	p = skip_blank(p);
	r = scan_u64(&p, UINT64_MAX, &v);
	if (r < 0)
		return r;
	p = skip_blank(p);
	if (p < end && *p == '\r')
		p++;
	if (p != end)
		return -EINVAL;
	*ret = v;
	return flag;
}

static int add_u64(uint64_t *a, uint64_t b)
{
	if (*a > UINT64_MAX - b)
		return -ERANGE;
	*a += b;
	return 0;
}

int parse_zoneinfo(const char *text, int nid, struct zone_wmarks *ret)
{
	struct zone_wmarks w = { 0 };
	bool in_target = false;
	int seen = 0;
	const char *p;

	if (!text || nid < 0)
		return -EINVAL;

	for (p = text; ; ) {
		const char *end = line_end(p);
		uint64_t v = 0;
		int r;

		/* A zone ends at the next header or at EOF: it must have had
		 * every watermark exactly once, or the format is not what we
		 * think it is. */
		r = *p ? zone_header(p, end, &v) : 1;
		if (r < 0)
			return r;
		if (r > 0) {
			if (in_target && seen != ZF_ALL)
				return -EINVAL;
			if (!*p)
				break;
			in_target = v == (uint64_t)nid;
			seen = 0;
			if (in_target) {
				if (w.nr_zones == UINT_MAX)
					return -ERANGE;
				w.nr_zones++;
			}
		} else if (in_target) {
			uint64_t *dst;

			r = zone_field(p, end, &v);
			if (r < 0)
				return r;
			if (r > 0) {
				if (seen & r)
					return -EINVAL;
				seen |= r;
				dst = r == ZF_MIN ? &w.min : r == ZF_LOW ? &w.low :
				      r == ZF_HIGH ? &w.high : &w.managed;
				if (add_u64(dst, v) < 0)
					return -ERANGE;
			}
		}
		p = *end ? end + 1 : end;
	}

	if (w.nr_zones == 0)
		return -ENODATA;
	*ret = w;
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

int parse_node_name(const char *name, unsigned *ret)
{
	uint64_t v;
	int r;

	r = parse_prefixed_id(name, "node", UINT_MAX, &v);
	if (r < 0)
		return r;
	*ret = (unsigned)v;
	return 0;
}

int parse_memory_tier_name(const char *name, unsigned *ret)
{
	uint64_t v;
	int r;

	r = parse_prefixed_id(name, "memory_tier", UINT_MAX, &v);
	if (r < 0)
		return r;
	*ret = (unsigned)v;
	return 0;
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

int parse_size(const char *s, uint64_t *ret)
{
	static const struct { const char *unit; unsigned shift; } units[] = {
		{ "", 0 }, { "b", 0 },
		{ "k", 10 }, { "kib", 10 },
		{ "m", 20 }, { "mib", 20 },
		{ "g", 30 }, { "gib", 30 },
		{ "t", 40 }, { "tib", 40 },
	};
	const char *p, *w;
	uint64_t v;
	size_t i, n;
	int r;

	if (!s)
		return -EINVAL;
	p = skip_space(s);
	r = scan_u64(&p, UINT64_MAX, &v);
	if (r < 0)
		return r;
	r = scan_unit(&p, &w, &n);
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
	const char *p, *w;
	uint64_t in, fr;
	size_t i, n;
	int r;

	if (!s)
		return -EINVAL;
	p = skip_space(s);
	/* Six fraction digits: the finest unit that takes a fraction with
	 * meaning, "s", then resolves to whole microseconds. */
	r = scan_decimal(&p, 6, &in, &fr);
	if (r < 0)
		return r;
	r = scan_unit(&p, &w, &n);
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
	const char *p, *w;
	uint64_t in, fr, bp;
	size_t n;
	int r;

	if (!s)
		return -EINVAL;
	p = skip_space(s);
	r = scan_decimal(&p, 2, &in, &fr);
	if (r < 0)
		return r;
	r = scan_unit(&p, &w, &n);
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
