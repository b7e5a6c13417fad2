// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tierload: where the workload's pages go (first touch under a thread
 * mempolicy), where they are (move_pages(2) queries), and the --ideal
 * placement's own moves.
 */
#include "tierload.h"

#include <stdio.h>
#include <stdlib.h>

#ifndef MPOL_MF_MOVE
#define MPOL_MF_MOVE (1 << 1)
#endif

uint64_t *page_words(const struct bench *b, size_t page)
{
	return (uint64_t *)(void *)(b->base + page * PAGE);
}

void touch_range(struct bench *b, size_t first, size_t n, int node)
{
	thread_policy(node);
	for (size_t i = first; i < first + n; i++)
		b->base[i * PAGE] = (char)0x5a;
	thread_policy(-1);
}

void query(struct bench *b, size_t first, size_t n)
{
	for (size_t i = first; i < first + n; i += QUERY_BATCH) {
		size_t k = first + n - i < QUERY_BATCH ? first + n - i : QUERY_BATCH;

		if (sys_move_pages(k, b->ptr + i, NULL, b->status + i, 0))
			die("move_pages (query)");
	}
}

size_t move_list(struct bench *b, const size_t *idx, size_t n, int node)
{
	void **p = malloc(QUERY_BATCH * sizeof(*p));
	size_t done = 0;

	if (!p)
		die("malloc");
	for (size_t i = 0; i < n; i += QUERY_BATCH) {
		size_t k = n - i < QUERY_BATCH ? n - i : QUERY_BATCH;

		for (size_t j = 0; j < k; j++) {
			p[j] = b->ptr[idx[i + j]];
			b->nodes[j] = node;
		}
		/* A positive return is the number of pages that could not move. */
		if (sys_move_pages(k, p, b->nodes, b->status, MPOL_MF_MOVE) < 0)
			die("move_pages (move)");
		for (size_t j = 0; j < k; j++)
			done += b->status[j] == node;
	}
	free(p);
	return done;
}

long fast_free_kb(const struct bench *b)
{
	return node_meminfo_kb(b->o.fast, "MemFree");
}

size_t headroom_pages(const struct bench *b)
{
	long kb = fast_free_kb(b) - b->wmark_high_kb;

	return kb > 0 ? (size_t)kb / (PAGE / 1024) : 0;
}

void ideal_place(struct bench *b, const size_t *out, size_t nout)
{
	size_t nin = 0, room, want, moved = 0;
	size_t *in = malloc((b->nhot ? b->nhot : 1) * sizeof(*in));
	size_t *evict = malloc((nout ? nout : 1) * sizeof(*evict));
	size_t nevict = 0;

	if (!in || !evict)
		die("malloc");
	query(b, 0, b->live);
	for (size_t i = 0; i < b->live; i++)
		if (b->hot[i] && b->status[i] != b->o.fast)
			in[nin++] = i;
	for (size_t i = 0; i < nout; i++)
		if (b->status[out[i]] == b->o.fast)
			evict[nevict++] = out[i];
	room = headroom_pages(b);
	/* 16 MiB above the watermarks, the same margin as the setup leaves. */
	want = nin + (size_t)(16 * MIB / PAGE);
	if (want > room) {
		size_t n = want - room;

		moved = move_list(b, evict, n < nevict ? n : nevict, b->o.slow);
	}
	size_t placed = move_list(b, in, nin, b->o.fast);

	printf("BENCH IDEAL moved_out=%zu moved_in=%zu of %zu\n", moved, placed, nin);
	free(in);
	free(evict);
}

void set_uniform(struct bench *b, size_t first, size_t n, double mass)
{
	for (size_t i = first; i < first + n; i++)
		b->weight[i] += mass / (double)n;
}
