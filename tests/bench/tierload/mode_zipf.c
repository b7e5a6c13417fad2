// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tierload mode zipf: a key-value table of 1.5 * C one-page values, the
 * first C pages on the fast node, the rest on the slow node, accessed with
 * Zipf(--zipf-s) popularity over a random permutation of the pages (hot keys
 * are scattered over both nodes).  The hot set is the most popular pages
 * that together receive --zipf-hot-mass of the accesses.
 */
#include "tierload.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void zipf_setup(struct bench *b)
{
	double sum = 0, acc = 0;

	b->ntable = b->cap + b->cap / 2;
	b->npages = b->ntable;
	b->perm = malloc(b->ntable * sizeof(*b->perm));
	b->cdf = malloc(b->ntable * sizeof(*b->cdf));
	if (!b->perm || !b->cdf)
		die("malloc");
	for (size_t i = 0; i < b->ntable; i++) {
		b->perm[i] = i;
		sum += pow((double)(i + 1), -b->o.zipf_s);
	}
	for (size_t i = b->ntable - 1; i > 0; i--) {
		size_t j = (size_t)(xorshift64(&b->rng) % (i + 1));
		size_t t = b->perm[i];

		b->perm[i] = b->perm[j];
		b->perm[j] = t;
	}
	for (size_t i = 0; i < b->ntable; i++) {
		acc += pow((double)(i + 1), -b->o.zipf_s) / sum;
		b->cdf[i] = acc;
	}
	b->cdf[b->ntable - 1] = 1.0;
}

static void zipf_phase(struct bench *b)
{
	double prev = 0;

	memset(b->hot, 0, b->npages);
	b->nhot = 0;
	for (size_t r = 0; r < b->ntable; r++) {
		b->weight[b->perm[r]] = b->cdf[r] - prev;
		prev = b->cdf[r];
		if (b->nhot < b->cap && (r == 0 || b->cdf[r - 1] < b->o.zipf_hot_mass)) {
			b->hot[b->perm[r]] = 1;
			b->nhot++;
		}
	}
}

static void zipf_place(struct bench *b)
{
	if (b->o.ideal) {
		/* The most popular C pages on the fast node, the rest on the slow one. */
		thread_policy(b->o.fast);
		for (size_t r = 0; r < b->ntable; r++) {
			if (r == b->cap)
				thread_policy(b->o.slow);
			b->base[b->perm[r] * PAGE] = (char)0x5a;
		}
		thread_policy(-1);
	} else {
		touch_range(b, 0, b->cap, b->o.fast);
		touch_range(b, b->cap, b->ntable - b->cap, b->o.slow);
	}
	b->live = b->ntable;
	zipf_phase(b);
}

static void zipf_access(struct bench *b, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		uint64_t r = xorshift64(&b->rng);
		double u = (double)(r >> 11) * (1.0 / 9007199254740992.0);
		size_t lo = 0, hi = b->ntable - 1;

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (b->cdf[mid] < u)
				lo = mid + 1;
			else
				hi = mid;
		}
		page_words(b, b->perm[lo])[r & 511] += r >> 40;
	}
}

const struct mode_ops zipf_ops = {
	.name = "zipf",
	.setup = zipf_setup,
	.place = zipf_place,
	.access = zipf_access,
};
