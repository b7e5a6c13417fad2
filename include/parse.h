/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * Pure parsers for the kernel's text formats and for config values.  They
 * never read files, never log, accept any NUL-terminated string (they are
 * fuzzed) and return 0 or -EINVAL / -ERANGE unless said otherwise; on failure
 * the output parameters are untouched.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- sysfs formats (parse.c) ---- */

/* Decimal unsigned integer, surrounding whitespace allowed. */
int parse_u64(const char *s, uint64_t *ret);
int parse_s64(const char *s, int64_t *ret);
/* Hex without "0x" prefix, as in memory/block_size_bytes. */
int parse_hex_u64(const char *s, uint64_t *ret);

/* A cpulist/nodelist ("0-3,8,10-11", or empty), ascending and without
 * overlaps as the kernel prints them.  The whole list is checked first; then
 * fn(lo, hi) is called per range (fn may be NULL), and its first non-zero
 * return is returned. */
int parse_list(const char *s, int (*fn)(unsigned lo, unsigned hi, void *ud), void *ud);
/* A nodelist as the bitmap mask[] of nbits bits (bit n in mask[n/64]): cleared,
 * then one bit set per listed id.  An id >= nbits: -ERANGE. */
int parse_nodelist_mask(const char *s, uint64_t *mask, unsigned nbits);
/* Number of CPUs in a cpulist. */
int parse_cpulist_count(const char *s, unsigned *ret);

/* "memory123" -> 123; anything else (memory_failure, memoryX) -EINVAL. */
int parse_memory_block_name(const char *name, uint64_t *ret);
/* "nodeN" -> N. */
int parse_node_name(const char *name, unsigned *ret);
/* "memory_tierN" -> N. */
int parse_memory_tier_name(const char *name, unsigned *ret);

/* Whitespace separated distances ("10 20") into ret[], their number into
 * *ret_n; more than max entries: -ERANGE. */
int parse_distances(const char *s, int *ret, unsigned max, unsigned *ret_n);

/* ---- /proc text (parse_proc.c) ---- */

/* The "Node N MemTotal:  123 kB" and "MemFree:" lines of nodeN/meminfo, in
 * bytes; either output may be NULL. */
int parse_node_meminfo(const char *text, uint64_t *ret_total, uint64_t *ret_free);

/* Sum, over the zones of node `nid` in /proc/zoneinfo, of the min/low/high
 * watermarks and managed pages (all in pages).  -ENODATA if the node has no
 * zone; -EINVAL also if one of its zones lacks one of these fields. */
struct zone_wmarks {
	uint64_t min, low, high, managed;
	unsigned nr_zones;
};
int parse_zoneinfo(const char *text, int nid, struct zone_wmarks *ret);

/* A cgroup's memory.numa_stat: ret[nid] = the "anon" plus the "file" bytes
 * of node nid ("anon N0=4096 N1=0" lines), for nid < max; other lines are
 * skipped.  -EINVAL if the anon or file line is missing or malformed, or a
 * node id is not below max; ret is untouched then. */
int parse_memcg_numa_stat(const char *text, uint64_t *ret, unsigned max);

/* ---- config values (parse_value.c) ---- */

/* Sizes: "200M", "200MiB", "4096", "1G" (binary units).
 * Durations: "5ms", "1s", "100us", "2min" -> microseconds; a bare number is
 * rejected (the unit is mandatory, to avoid ms/us confusion).
 * Basis points: "9970" or "99.7%" -> 0..10000.  Booleans: yes/no/true/false/1/0/on/off. */
int parse_size(const char *s, uint64_t *ret);
int parse_duration_us(const char *s, uint64_t *ret);
int parse_bp(const char *s, unsigned *ret);
int parse_bool(const char *s, bool *ret);
