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

/* One "name N0=v N1=v ..." line into acc[]; 1 if it is that line, 0 if
 * another, -EINVAL if malformed. */
static int numa_stat_line(const char *p, const char *end, const char *name, uint64_t *acc,
			  unsigned max)
{
	size_t n = strlen(name);

	if ((size_t)(end - p) <= n || memcmp(p, name, n) != 0 || p[n] != ' ')
		return 0;
	p += n;
	while (p < end) {
		char num[32];
		uint64_t nid, v;
		const char *eq, *sp;

		while (p < end && *p == ' ')
			p++;
		if (p == end)
			break;
		if (*p != 'N')
			return -EINVAL;
		eq = memchr(p, '=', (size_t)(end - p));
		if (!eq || eq - p - 1 <= 0 || (size_t)(eq - p - 1) >= sizeof(num))
			return -EINVAL;
		memcpy(num, p + 1, (size_t)(eq - p - 1));
		num[eq - p - 1] = '\0';
		if (parse_u64(num, &nid) < 0 || nid >= max)
			return -EINVAL;
		sp = memchr(eq, ' ', (size_t)(end - eq));
		if (!sp)
			sp = end;
		if (sp - eq - 1 <= 0 || (size_t)(sp - eq - 1) >= sizeof(num))
			return -EINVAL;
		memcpy(num, eq + 1, (size_t)(sp - eq - 1));
		num[sp - eq - 1] = '\0';
		if (parse_u64(num, &v) < 0 || acc[nid] > UINT64_MAX - v)
			return -EINVAL;
		acc[nid] += v;
		p = sp;
	}
	return 1;
}

int parse_memcg_numa_stat(const char *text, uint64_t *ret, unsigned max)
{
	uint64_t acc[64] = { 0 };
	bool anon = false, file = false;

	if (!text || max > 64)
		return -EINVAL;
	for (const char *p = text; *p;) {
		const char *end = line_end(p);
		int a, f;

		a = numa_stat_line(p, end, "anon", acc, max);
		f = a ? 0 : numa_stat_line(p, end, "file", acc, max);
		if (a < 0 || f < 0)
			return -EINVAL;
		anon |= a > 0;
		file |= f > 0;
		p = *end ? end + 1 : end;
	}
	if (!anon || !file)
		return -EINVAL;
	memcpy(ret, acc, max * sizeof(*ret));
	return 0;
}
