/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer harness: every parser in parse.h gets the same input.  The
 * parsers take NUL-terminated strings, so the data is copied and
 * terminated; embedded NULs simply end the string early, as they would for
 * a kernel file read with io_read().
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int range_ok(unsigned lo, unsigned hi, void *ud)
{
	unsigned *n = ud;

	/* The contract: ranges arrive validated and ascending. */
	if (lo > hi)
		abort();
	(*n)++;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t u, total, free_, mask[4];
	struct zone_wmarks w;
	int64_t s;
	unsigned n, count = 0;
	int dist[64];
	bool b;
	char *t;

	if (size > 1 << 20)
		return 0;
	t = malloc(size + 1);
	if (!t)
		return 0;
	memcpy(t, data, size);
	t[size] = '\0';

	(void)parse_u64(t, &u);
	(void)parse_s64(t, &s);
	(void)parse_hex_u64(t, &u);
	(void)parse_list(t, range_ok, &count);
	(void)parse_nodelist_mask(t, mask, 256);
	(void)parse_nodelist_mask(t, mask, 1);
	(void)parse_cpulist_count(t, &n);
	(void)parse_node_meminfo(t, &total, &free_);
	(void)parse_zoneinfo(t, 0, &w);
	(void)parse_zoneinfo(t, 1, &w);
	{
		uint64_t nodes[64];

		(void)parse_memcg_numa_stat(t, nodes, 64);
		(void)parse_memcg_numa_stat(t, nodes, 1);
	}
	(void)parse_memory_block_name(t, &u);
	(void)parse_node_name(t, &n);
	(void)parse_memory_tier_name(t, &n);
	if (parse_distances(t, dist, 64, &n) == 0 && n > 64)
		abort();
	(void)parse_distances(t, dist, 1, &n);
	(void)parse_size(t, &u);
	(void)parse_duration_us(t, &u);
	if (parse_bp(t, &n) == 0 && n > 10000)
		abort();
	(void)parse_bool(t, &b);

	free(t);
	return 0;
}
