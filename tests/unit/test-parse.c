/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "parse.h"

#define SENTINEL UINT64_C(0xdeadbeef)

static void test_u64(void **state)
{
	uint64_t v;

	(void)state;
	assert_int_equal(parse_u64("0", &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(parse_u64(" 42\n", &v), 0);
	assert_int_equal(v, 42);
	assert_int_equal(parse_u64("18446744073709551615", &v), 0);
	assert_true(v == UINT64_MAX);

	static const char *const bad[] = { "", " ", "-1", "+1", "1a", "0x10", "1 2", "a", "1.0" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		v = SENTINEL;
		assert_int_equal(parse_u64(bad[i], &v), -EINVAL);
		assert_true(v == SENTINEL);
	}
	v = SENTINEL;
	assert_int_equal(parse_u64("18446744073709551616", &v), -ERANGE);
	assert_int_equal(parse_u64("99999999999999999999999", &v), -ERANGE);
	assert_true(v == SENTINEL);
	assert_int_equal(parse_u64(NULL, &v), -EINVAL);
}

static void test_s64(void **state)
{
	int64_t v;

	(void)state;
	assert_int_equal(parse_s64("-1\n", &v), 0);
	assert_int_equal(v, -1);
	assert_int_equal(parse_s64("+7", &v), 0);
	assert_int_equal(v, 7);
	assert_int_equal(parse_s64("-9223372036854775808", &v), 0);
	assert_true(v == INT64_MIN);
	assert_int_equal(parse_s64("9223372036854775807", &v), 0);
	assert_true(v == INT64_MAX);

	v = 5;
	assert_int_equal(parse_s64("9223372036854775808", &v), -ERANGE);
	assert_int_equal(parse_s64("-9223372036854775809", &v), -ERANGE);
	assert_int_equal(parse_s64("-", &v), -EINVAL);
	assert_int_equal(parse_s64("--1", &v), -EINVAL);
	assert_int_equal(parse_s64("1-", &v), -EINVAL);
	assert_int_equal(parse_s64("", &v), -EINVAL);
	assert_int_equal(v, 5);
}

static void test_hex(void **state)
{
	uint64_t v;

	(void)state;
	assert_int_equal(parse_hex_u64("8000000\n", &v), 0);
	assert_true(v == 0x8000000);
	assert_int_equal(parse_hex_u64("ffffFFFFffffFFFF", &v), 0);
	assert_true(v == UINT64_MAX);
	v = SENTINEL;
	assert_int_equal(parse_hex_u64("10000000000000000", &v), -ERANGE);
	assert_int_equal(parse_hex_u64("0x10", &v), -EINVAL);
	assert_int_equal(parse_hex_u64("g", &v), -EINVAL);
	assert_int_equal(parse_hex_u64("", &v), -EINVAL);
	assert_true(v == SENTINEL);
}

struct ranges {
	unsigned lo[16], hi[16];
	unsigned n;
};

static int collect(unsigned lo, unsigned hi, void *ud)
{
	struct ranges *r = ud;

	if (r->n >= 16)
		return -E2BIG;
	r->lo[r->n] = lo;
	r->hi[r->n] = hi;
	r->n++;
	return 0;
}

static int stop_at_second(unsigned lo, unsigned hi, void *ud)
{
	unsigned *calls = ud;

	(void)lo;
	(void)hi;
	return ++*calls == 2 ? 77 : 0;
}

static void test_list(void **state)
{
	struct ranges r = { 0 };
	unsigned calls = 0;

	(void)state;
	assert_int_equal(parse_list("0-3,8,10-11\n", collect, &r), 0);
	assert_int_equal(r.n, 3);
	assert_int_equal(r.lo[0], 0);
	assert_int_equal(r.hi[0], 3);
	assert_int_equal(r.lo[1], 8);
	assert_int_equal(r.hi[1], 8);
	assert_int_equal(r.lo[2], 10);
	assert_int_equal(r.hi[2], 11);

	memset(&r, 0, sizeof(r));
	assert_int_equal(parse_list("", collect, &r), 0);
	assert_int_equal(parse_list("\n", collect, &r), 0);
	assert_int_equal(r.n, 0);

	assert_int_equal(parse_list("0,1,2", stop_at_second, &calls), 77);
	assert_int_equal(calls, 2);

	static const char *const bad[] = {
		"3-1", "a", "1,,2", ",1", "1,", "1-", "-1", "1-2-3", "0 - 3", "1 2",
		"0-3,2", "5,4", "1:2", "0-3:2/4", "0x1", "1;2",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&r, 0, sizeof(r));
		assert_int_equal(parse_list(bad[i], collect, &r), -EINVAL);
		/* Validation happens before the first callback. */
		assert_int_equal(r.n, 0);
	}
	assert_int_equal(parse_list("4294967296", collect, &r), -ERANGE);
	assert_int_equal(parse_list("0-99999999999999999999", collect, &r), -ERANGE);
	assert_int_equal(parse_list("2147483648", collect, &r), -ERANGE);
	assert_int_equal(r.n, 0);
	assert_int_equal(parse_list("0-3", NULL, NULL), 0);
}

static void test_nodelist_mask(void **state)
{
	uint64_t mask[2] = { SENTINEL, SENTINEL };

	(void)state;
	assert_int_equal(parse_nodelist_mask("0,2,64-65", mask, 128), 0);
	assert_true(mask[0] == 0x5);
	assert_true(mask[1] == 0x3);

	mask[0] = mask[1] = SENTINEL;
	assert_int_equal(parse_nodelist_mask("0,128", mask, 128), -ERANGE);
	assert_int_equal(parse_nodelist_mask("0,x", mask, 128), -EINVAL);
	assert_true(mask[0] == SENTINEL && mask[1] == SENTINEL);

	assert_int_equal(parse_nodelist_mask("", mask, 128), 0);
	assert_true(mask[0] == 0 && mask[1] == 0);
}

static void test_cpulist_count(void **state)
{
	unsigned n = 99;

	(void)state;
	assert_int_equal(parse_cpulist_count("0-3,8,10-11\n", &n), 0);
	assert_int_equal(n, 7);
	assert_int_equal(parse_cpulist_count("", &n), 0);
	assert_int_equal(n, 0);
	n = 99;
	assert_int_equal(parse_cpulist_count("1-0", &n), -EINVAL);
	assert_int_equal(n, 99);
	/* The largest valid range still counts without overflow. */
	assert_int_equal(parse_cpulist_count("0-2147483647", &n), 0);
	assert_int_equal(n, 2147483648u);
}

static const char meminfo[] =
	"Node 1 MemTotal:         524288 kB\n"
	"Node 1 MemFree:          487712 kB\n"
	"Node 1 MemUsed:           36576 kB\n"
	"Node 1 SwapCached:            0 kB\n"
	"Node 1 Active:             1024 kB\n"
	"Node 1 HugePages_Total:     0\n"
	"Node 1 HugePages_Free:      0\n";

static void test_meminfo(void **state)
{
	uint64_t total = SENTINEL, free_ = SENTINEL;

	(void)state;
	assert_int_equal(parse_node_meminfo(meminfo, &total, &free_), 0);
	assert_true(total == UINT64_C(524288) * 1024);
	assert_true(free_ == UINT64_C(487712) * 1024);

	/* Order does not matter; NULL outputs are allowed. */
	assert_int_equal(parse_node_meminfo("Node 0 MemFree: 1 kB\nNode 0 MemTotal: 2 kB", NULL, &free_), 0);
	assert_true(free_ == 1024);

	total = free_ = SENTINEL;
	static const char *const bad[] = {
		"",
		"garbage",
		"Node 0 MemTotal: 100 kB\n",                         /* no MemFree */
		"Node 0 MemFree: 100 kB\n",                          /* no MemTotal */
		"Node 0 MemTotal: x kB\nNode 0 MemFree: 1 kB\n",
		"Node 0 MemTotal: 100\nNode 0 MemFree: 1 kB\n",      /* no unit */
		"Node 0 MemTotal: 100 MB\nNode 0 MemFree: 1 kB\n",
		"Node 0 MemTotal: 100 kB junk\nNode 0 MemFree: 1 kB\n",
		"Node 0 MemTotal: -1 kB\nNode 0 MemFree: 1 kB\n",
		"Node 0 MemTotal: 1 kB\nNode 0 MemTotal: 2 kB\nNode 0 MemFree: 1 kB\n",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(parse_node_meminfo(bad[i], &total, &free_), -EINVAL);
	assert_int_equal(parse_node_meminfo("Node 0 MemTotal: 18014398509481984 kB\nNode 0 MemFree: 1 kB\n",
					    &total, &free_), -ERANGE);
	assert_true(total == SENTINEL && free_ == SENTINEL);
}

/* Shaped like mm/vmstat.c:zoneinfo_show_print on 6.12+ (with "promo"),
 * trimmed: two nodes, unpopulated zones, per-node stats, pagesets whose
 * "high:" must not be taken for the watermark. */
static const char zoneinfo[] =
	"Node 0, zone      DMA\n"
	"  per-node stats\n"
	"      nr_inactive_anon 1234\n"
	"      nr_active_anon 55\n"
	"  pages free     3840\n"
	"        boost    0\n"
	"        min      20\n"
	"        low      25\n"
	"        high     30\n"
	"        promo    35\n"
	"        spanned  4095\n"
	"        present  3998\n"
	"        managed  3840\n"
	"        cma      0\n"
	"        protection: (0, 1910, 1910, 1910, 1910)\n"
	"      nr_free_pages 3840\n"
	"      numa_hit     0\n"
	"  pagesets\n"
	"    cpu: 0\n"
	"              count: 0\n"
	"              high:  99999\n"
	"              batch: 1\n"
	"  vm stats threshold: 4\n"
	"  node_unreclaimable:  0\n"
	"  start_pfn:           1\n"
	"Node 0, zone    DMA32\n"
	"  pages free     100000\n"
	"        boost    0\n"
	"        min      5614\n"
	"        low      7017\n"
	"        high     8420\n"
	"        promo    9823\n"
	"        spanned  126944\n"
	"        present  126944\n"
	"        managed  110000\n"
	"        cma      0\n"
	"        protection: (0, 0, 0, 0, 0)\n"
	"      nr_free_pages 100000\n"
	"  pagesets\n"
	"    cpu: 0\n"
	"              count: 10\n"
	"              high:  500\n"
	"              batch: 63\n"
	"  vm stats threshold: 24\n"
	"    cpu: 1\n"
	"              count: 3\n"
	"              high:  500\n"
	"              batch: 63\n"
	"  vm stats threshold: 24\n"
	"  node_unreclaimable:  0\n"
	"  start_pfn:           4096\n"
	"Node 0, zone   Normal\n"
	"  pages free     0\n"
	"        boost    0\n"
	"        min      0\n"
	"        low      0\n"
	"        high     0\n"
	"        promo    0\n"
	"        spanned  0\n"
	"        present  0\n"
	"        managed  0\n"
	"        cma      0\n"
	"        protection: (0, 0, 0, 0, 0)\n"
	"Node 0, zone  Movable\n"
	"  pages free     0\n"
	"        boost    0\n"
	"        min      0\n"
	"        low      0\n"
	"        high     0\n"
	"        promo    0\n"
	"        spanned  0\n"
	"        present  0\n"
	"        managed  0\n"
	"        cma      0\n"
	"        protection: (0, 0, 0, 0, 0)\n"
	"Node 1, zone      DMA\n"
	"  pages free     0\n"
	"        boost    0\n"
	"        min      0\n"
	"        low      0\n"
	"        high     0\n"
	"        promo    0\n"
	"        spanned  0\n"
	"        present  0\n"
	"        managed  0\n"
	"        cma      0\n"
	"        protection: (0, 0, 0, 0, 0)\n"
	"Node 1, zone   Normal\n"
	"  per-node stats\n"
	"      nr_inactive_anon 10\n"
	"  pages free     120000\n"
	"        boost    0\n"
	"        min      1000\n"
	"        low      1250\n"
	"        high     1500\n"
	"        promo    1750\n"
	"        spanned  131072\n"
	"        present  131072\n"
	"        managed  125000\n"
	"        cma      0\n"
	"        protection: (0, 0, 0, 0, 0)\n"
	"      nr_free_pages 120000\n"
	"  pagesets\n"
	"    cpu: 0\n"
	"              count: 1\n"
	"              high:  7\n"
	"              batch: 1\n"
	"  vm stats threshold: 4\n"
	"  node_unreclaimable:  0\n"
	"  start_pfn:           262144\n";

static void test_zoneinfo(void **state)
{
	struct zone_wmarks w;

	(void)state;
	assert_int_equal(parse_zoneinfo(zoneinfo, 0, &w), 0);
	assert_int_equal(w.nr_zones, 4);
	assert_int_equal(w.min, 20 + 5614);
	assert_int_equal(w.low, 25 + 7017);
	assert_int_equal(w.high, 30 + 8420);
	assert_int_equal(w.managed, 3840 + 110000);

	assert_int_equal(parse_zoneinfo(zoneinfo, 1, &w), 0);
	assert_int_equal(w.nr_zones, 2);
	assert_int_equal(w.min, 1000);
	assert_int_equal(w.low, 1250);
	assert_int_equal(w.high, 1500);
	assert_int_equal(w.managed, 125000);

	memset(&w, 0x5a, sizeof(w));
	assert_int_equal(parse_zoneinfo(zoneinfo, 2, &w), -ENODATA);
	assert_int_equal(parse_zoneinfo("", 0, &w), -ENODATA);
	assert_int_equal(parse_zoneinfo(zoneinfo, -1, &w), -EINVAL);
	assert_int_equal(w.nr_zones, 0x5a5a5a5a);
}

static void test_zoneinfo_bad(void **state)
{
	static const char *const bad[] = {
		/* missing managed */
		"Node 0, zone   Normal\n        min      1\n        low 2\n        high 3\n",
		/* duplicated min */
		"Node 0, zone   Normal\n        min 1\n        min 1\n        low 2\n        high 3\n        managed 4\n",
		/* bad number */
		"Node 0, zone   Normal\n        min 1x\n        low 2\n        high 3\n        managed 4\n",
		"Node 0, zone   Normal\n        min\n        low 2\n        high 3\n        managed 4\n",
		/* malformed header */
		"Node 0 zone Normal\n",
		"Node x, zone Normal\n",
		"Node 0, zone \n",
		"Node 0, zone Normal extra\n",
	};
	struct zone_wmarks w = { .nr_zones = 99 };

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(parse_zoneinfo(bad[i], 0, &w), -EINVAL);
	assert_int_equal(
		parse_zoneinfo("Node 0, zone A\n min 18446744073709551615\n low 0\n high 0\n managed 0\n"
			       "Node 0, zone B\n min 1\n low 0\n high 0\n managed 0\n", 0, &w),
		-ERANGE);
	assert_int_equal(parse_zoneinfo("Node 99999999999, zone A\n", 0, &w), -ERANGE);
	assert_int_equal(w.nr_zones, 99);

	/* A broken zone of another node is not our business. */
	assert_int_equal(parse_zoneinfo("Node 1, zone A\n min x\n"
					"Node 0, zone B\n min 1\n low 2\n high 3\n managed 4\n", 0, &w), 0);
	assert_int_equal(w.nr_zones, 1);
	assert_int_equal(w.managed, 4);
}

static void test_names(void **state)
{
	uint64_t b = SENTINEL;
	unsigned u = 77;

	(void)state;
	assert_int_equal(parse_memory_block_name("memory123", &b), 0);
	assert_int_equal(b, 123);
	assert_int_equal(parse_memory_block_name("memory0", &b), 0);
	assert_int_equal(b, 0);
	b = SENTINEL;
	static const char *const badmem[] = {
		"memory", "memory_failure", "memory12a", "memory012", "memory-1", "Memory1",
		"memory 1", " memory1", "memory1\n", "node1", "memory_tier4", "",
	};
	for (size_t i = 0; i < sizeof(badmem) / sizeof(badmem[0]); i++)
		assert_int_equal(parse_memory_block_name(badmem[i], &b), -EINVAL);
	assert_int_equal(parse_memory_block_name("memory18446744073709551616", &b), -ERANGE);
	assert_true(b == SENTINEL);

	assert_int_equal(parse_node_name("node3", &u), 0);
	assert_int_equal(u, 3);
	u = 77;
	assert_int_equal(parse_node_name("node", &u), -EINVAL);
	assert_int_equal(parse_node_name("node03", &u), -EINVAL);
	assert_int_equal(parse_node_name("nodes", &u), -EINVAL);
	assert_int_equal(parse_node_name("node1x", &u), -EINVAL);
	assert_int_equal(parse_node_name("has_cpu", &u), -EINVAL);
	assert_int_equal(parse_node_name("node4294967296", &u), -ERANGE);
	assert_int_equal(u, 77);

	assert_int_equal(parse_memory_tier_name("memory_tier4", &u), 0);
	assert_int_equal(u, 4);
	u = 77;
	assert_int_equal(parse_memory_tier_name("memory_tier", &u), -EINVAL);
	assert_int_equal(parse_memory_tier_name("memory_tiers", &u), -EINVAL);
	assert_int_equal(parse_memory_tier_name("memory4", &u), -EINVAL);
	assert_int_equal(parse_memory_tier_name("memory_tier-1", &u), -EINVAL);
	assert_int_equal(u, 77);
}

static void test_distances(void **state)
{
	int d[4] = { -7, -7, -7, -7 };
	unsigned n = 99;

	(void)state;
	assert_int_equal(parse_distances("10 20 30\n", d, 4, &n), 0);
	assert_int_equal(n, 3);
	assert_int_equal(d[0], 10);
	assert_int_equal(d[1], 20);
	assert_int_equal(d[2], 30);
	assert_int_equal(d[3], -7);

	d[0] = -7;
	n = 99;
	assert_int_equal(parse_distances("10 20 30 40 50", d, 4, &n), -ERANGE);
	assert_int_equal(parse_distances("10 2147483648", d, 4, &n), -ERANGE);
	assert_int_equal(parse_distances("", d, 4, &n), -EINVAL);
	assert_int_equal(parse_distances("10,20", d, 4, &n), -EINVAL);
	assert_int_equal(parse_distances("10 -1", d, 4, &n), -EINVAL);
	assert_int_equal(parse_distances("10 x", d, 4, &n), -EINVAL);
	assert_int_equal(parse_distances("10 20a", d, 4, &n), -EINVAL);
	assert_int_equal(d[0], -7);
	assert_int_equal(n, 99);
}

static void test_size(void **state)
{
	static const struct { const char *s; uint64_t v; } good[] = {
		{ "4096", 4096 }, { "0", 0 }, { "4096B", 4096 }, { "4096 b", 4096 },
		{ "1K", 1024 }, { "1k", 1024 }, { "1KiB", 1024 }, { "1kib", 1024 },
		{ "200M", UINT64_C(200) << 20 }, { "200MiB", UINT64_C(200) << 20 },
		{ " 1G\n", UINT64_C(1) << 30 }, { "1GiB", UINT64_C(1) << 30 },
		{ "2T", UINT64_C(2) << 40 }, { "2TiB", UINT64_C(2) << 40 },
		{ "16777215T", UINT64_C(16777215) << 40 },
		{ "18446744073709551615", UINT64_MAX },
	};
	static const char *const bad[] = {
		"", "M", "-1M", "1.5G", "1MB", "1KB", "1 M B", "1X", "1Mi", "1P", "1M1", "0x10", "1e3",
	};
	uint64_t v;

	(void)state;
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		v = SENTINEL;
		assert_int_equal(parse_size(good[i].s, &v), 0);
		assert_true(v == good[i].v);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		v = SENTINEL;
		assert_int_equal(parse_size(bad[i], &v), -EINVAL);
		assert_true(v == SENTINEL);
	}
	assert_int_equal(parse_size("16777216T", &v), -ERANGE);
	assert_int_equal(parse_size("18446744073709551616", &v), -ERANGE);
	assert_int_equal(parse_size("17179869184G", &v), -ERANGE);
	assert_true(v == SENTINEL);
}

static void test_duration(void **state)
{
	static const struct { const char *s; uint64_t v; } good[] = {
		{ "100us", 100 }, { "5ms", 5000 }, { "1s", 1000000 }, { "1.5s", 1500000 },
		{ "2min", 120000000 }, { "1h", UINT64_C(3600000000) }, { "0.5ms", 500 },
		{ " 10 ms\n", 10000 }, { "0us", 0 }, { "1.000000s", 1000000 }, { "1.50000000s", 1500000 },
		{ "0.000001s", 1 }, { "1.25h", UINT64_C(4500000000) }, { "5MS", 5000 },
	};
	static const char *const bad[] = {
		"", "5", "1000", "ms", "-5ms", "5m", "5sec", "5 s s", "1.5us", "0.0000001s",
		"1.s", ".5s", "1..5s", "5ms5", "5 %", "1e3ms", "5d",
	};
	uint64_t v;

	(void)state;
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		v = SENTINEL;
		assert_int_equal(parse_duration_us(good[i].s, &v), 0);
		assert_true(v == good[i].v);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		v = SENTINEL;
		assert_int_equal(parse_duration_us(bad[i], &v), -EINVAL);
		assert_true(v == SENTINEL);
	}
	assert_int_equal(parse_duration_us("18446744073709551615us", &v), 0);
	assert_true(v == UINT64_MAX);
	v = SENTINEL;
	assert_int_equal(parse_duration_us("18446744073709551616us", &v), -ERANGE);
	assert_int_equal(parse_duration_us("5124096000h", &v), -ERANGE);
	assert_int_equal(parse_duration_us("18446744073709.551616s", &v), -ERANGE);
	assert_true(v == SENTINEL);
}

static void test_bp(void **state)
{
	static const struct { const char *s; unsigned v; } good[] = {
		{ "9970", 9970 }, { "0", 0 }, { "10000", 10000 }, { "99.7%", 9970 },
		{ "99.75%", 9975 }, { "100%", 10000 }, { "0%", 0 }, { "0.5%", 50 },
		{ " 50 %\n", 5000 }, { "99.70%", 9970 }, { "99.700%", 9970 },
	};
	static const char *const bad[] = {
		"", "%", "99.7", "99.705%", "abc", "-1", "-1%", "50%%", "50 bp", "1.%", ".5%", "5e3",
	};
	unsigned v;

	(void)state;
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		v = 12345;
		assert_int_equal(parse_bp(good[i].s, &v), 0);
		assert_int_equal(v, good[i].v);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		v = 12345;
		assert_int_equal(parse_bp(bad[i], &v), -EINVAL);
		assert_int_equal(v, 12345);
	}
	assert_int_equal(parse_bp("10001", &v), -ERANGE);
	assert_int_equal(parse_bp("100.01%", &v), -ERANGE);
	assert_int_equal(parse_bp("101%", &v), -ERANGE);
	assert_int_equal(parse_bp("99999999999999999999%", &v), -ERANGE);
	assert_int_equal(v, 12345);
}

static void test_bool(void **state)
{
	static const char *const yes[] = { "yes", "true", "on", "1", "YES", "True", " on\n" };
	static const char *const no[] = { "no", "false", "off", "0", "NO", "Off" };
	static const char *const bad[] = { "", "y", "n", "2", "yess", "enable", "1 0", "o" };
	bool b;

	(void)state;
	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		b = false;
		assert_int_equal(parse_bool(yes[i], &b), 0);
		assert_true(b);
	}
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
		b = true;
		assert_int_equal(parse_bool(no[i], &b), 0);
		assert_false(b);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		b = true;
		assert_int_equal(parse_bool(bad[i], &b), -EINVAL);
		assert_true(b);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_u64),
		cmocka_unit_test(test_s64),
		cmocka_unit_test(test_hex),
		cmocka_unit_test(test_list),
		cmocka_unit_test(test_nodelist_mask),
		cmocka_unit_test(test_cpulist_count),
		cmocka_unit_test(test_meminfo),
		cmocka_unit_test(test_zoneinfo),
		cmocka_unit_test(test_zoneinfo_bad),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_distances),
		cmocka_unit_test(test_size),
		cmocka_unit_test(test_duration),
		cmocka_unit_test(test_bp),
		cmocka_unit_test(test_bool),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
