/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Parsers for the /proc-style text of nodeN/meminfo and /proc/zoneinfo: line
 * oriented, keyed by words, values in kB or pages.  Every parser validates
 * the whole input before it touches an output parameter.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "parse.h"
#include "parse_internal.h"

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
