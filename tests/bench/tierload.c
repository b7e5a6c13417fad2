// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tierload: the tiering benchmark's workloads (tests/bench/bench.sh).
 *
 * Every mode keeps all of its data in one anonymous mapping of 4 KiB pages
 * (THP off) and knows, at every moment, the probability with which it
 * accesses each page.  Every --report-interval seconds it asks the kernel
 * where its pages are (move_pages(2) with a NULL nodes array) and prints
 *
 *   BENCH SAMPLE t=T fast_ratio=R hot_fast=H ...
 *
 * fast_ratio is the expected share of its accesses that hit fast-node pages
 * (the sum of the access probabilities of the pages found on the fast node);
 * hot_fast is the fraction of the current hot set on the fast node.  Both
 * are computed from the workload's own access distribution and the current
 * placement, not from hardware counters.
 *
 * Modes (sizes scale with the nodes: C = fast-node MemFree minus
 * --leave-free, H = --hot, default 15% of the fast node's MemTotal):
 *
 *   gups  cold data fills the fast node (C); the hot set A (H) starts on the
 *         slow node and receives every access (random 8-byte updates); at
 *         half the run the accesses move to B (H), also on the slow node.
 *   grow  old data (C - H/2) on the fast node, then a new chunk of H is
 *         allocated (first touch, default policy) at t = k*D/--chunks; 70% of
 *         the accesses go to the newest chunk, 20% to the one before, 10% to
 *         all older data.  The resident set grows past the fast node.
 *   zipf  a key-value table of 1.5*C one-page values, the first C pages on
 *         the fast node, the rest on the slow node, accessed with Zipf(s)
 *         popularity over a random permutation of the pages (hot keys are
 *         scattered over both nodes).  The hot set is the most popular pages
 *         that together receive 80% of the accesses.
 *
 * --ideal: no kernel migration is expected; the workload places its known
 * hot set on the fast node itself (thread mempolicy at first touch, and
 * move_pages(2) at a shift, after moving colder data out to make room): the
 * upper limit of what a tiering policy can reach with this much fast memory.
 *
 * Protocol with the driver: after placing its data the workload prints
 * "BENCH READY", writes its pid to --ready-file and waits for SIGUSR1 (or
 * SIGTERM); t = 0 is that signal.  Each phase change prints
 *
 *   BENCH EVENT n=N kind=start|shift t=T hot_pages=P hot_slow_pages=S
 *     headroom_kb=K need_bytes=B
 *
 * need_bytes is what a perfect tiering policy has to migrate for the new
 * hot set: its pages on the slow node, plus as many bytes of other data that
 * must leave the fast node to make room (beyond the free memory above the
 * fast node's zone high watermarks).  After each event the hot set is
 * checked every --check-interval seconds until 90% of it is on the fast
 * node: "BENCH T90 n=N kind=K t90=SEC" (or t90=NA window=SEC when the next
 * event or the end came first).  At the end: "BENCH FINAL t=T
 * mean_fast_ratio=R need_bytes=B ...", the time-weighted mean of the
 * samples.
 *
 * Raw syscalls only (no libnuma), so that it runs in a busybox initramfs.
 * Build: cc -O2 -Wall -Wextra -o tierload tierload.c -lm
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef MPOL_DEFAULT
#define MPOL_DEFAULT 0
#define MPOL_BIND 2
#endif
#ifndef MPOL_MF_MOVE
#define MPOL_MF_MOVE (1 << 1)
#endif

#define PAGE 4096UL
#define MIB (1024UL * 1024UL)
#define MAX_NODES 64
#define QUERY_BATCH 16384UL
#define MAX_EVENTS 64

enum mode { MODE_GUPS, MODE_GROW, MODE_ZIPF };

struct options {
	enum mode mode;
	bool ideal;
	double duration;
	double report_interval;
	double check_interval;
	int fast;
	int slow;
	unsigned long hot_mib;       /* 0 = auto */
	long leave_free_mib;         /* <0 = auto */
	unsigned chunks;
	double zipf_s;
	double zipf_hot_mass;
	uint64_t seed;
	const char *ready_file;
};

/* One phase change: a new hot set, as the mode defines it. */
struct event {
	double at;        /* scheduled time (s after go) */
	const char *kind; /* "start" or "shift" */
	double fired;     /* actual time, <0 until it fires */
	bool reached;
};

struct bench {
	struct options o;
	char *base;
	size_t npages;    /* mapped */
	size_t live;      /* pages [0, live) are allocated (touched) */
	void **ptr;
	int *status;
	int *nodes;       /* move_pages target buffer */
	double *weight;   /* access probability per page, sums to 1 over [0, live) */
	uint8_t *hot;     /* current hot set */
	size_t nhot;

	/* sizes in pages */
	size_t cap;       /* C: what fills the fast node */
	size_t h;         /* H: hot set / chunk size */

	/* gups */
	size_t cold0, a0, b0;
	int phase;
	/* grow */
	size_t base_pages;
	unsigned nchunks_live;
	/* zipf */
	size_t *perm;     /* rank -> page */
	double *cdf;      /* cumulative probability by rank */
	size_t ntable;

	struct event ev[MAX_EVENTS];
	unsigned nev, cur_ev;
	uint64_t need_bytes;

	unsigned long long accesses;
	uint64_t rng;
	long wmark_high_kb;
};

static volatile sig_atomic_t go_flag, stop_flag;

static void on_usr1(int sig)
{
	(void)sig;
	go_flag = 1;
}

static void on_term(int sig)
{
	(void)sig;
	stop_flag = 1;
	go_flag = 1;
}

static void die(const char *what)
{
	fprintf(stderr, "tierload: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void fail(const char *msg)
{
	fprintf(stderr, "tierload: %s\n", msg);
	exit(1);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t xorshift64(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*s = x;
	return x;
}

static long sys_set_mempolicy(int mode, const unsigned long *mask, unsigned long maxnode)
{
	return syscall(SYS_set_mempolicy, mode, mask, maxnode);
}

static long sys_move_pages(unsigned long count, void **pages, const int *nodes, int *status,
			   int flags)
{
	return syscall(SYS_move_pages, 0, count, pages, nodes, status, flags);
}

/* Every first touch of this thread goes to node (or the default policy for node < 0). */
static void thread_policy(int node)
{
	unsigned long mask[MAX_NODES / (8 * sizeof(unsigned long))] = { 0 };

	if (node < 0) {
		if (sys_set_mempolicy(MPOL_DEFAULT, NULL, 0))
			die("set_mempolicy(MPOL_DEFAULT)");
		return;
	}
	mask[node / (8 * sizeof(unsigned long))] |= 1UL << (node % (8 * sizeof(unsigned long)));
	if (sys_set_mempolicy(MPOL_BIND, mask, MAX_NODES + 1))
		die("set_mempolicy(MPOL_BIND)");
}

/* A node's meminfo field in kB, from /sys/devices/system/node/nodeN/meminfo; -1 if absent. */
static long node_meminfo_kb(int node, const char *field)
{
	char path[96], line[256];
	long kb = -1;
	size_t fl = strlen(field);
	FILE *f;

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/meminfo", node);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *p = strstr(line, field);

		if (p && p[fl] == ':') {
			kb = strtol(p + fl + 1, NULL, 10);
			break;
		}
	}
	fclose(f);
	return kb;
}

/*
 * Sum of the zones' high watermarks of a node, in kB, from /proc/zoneinfo:
 * promotion (and any allocation without reclaim) cannot use the memory below
 * them, so they are not "room" for a new hot set.  The watermark line is
 * "high <pages>"; the per-cpu "high:" lines have a colon and do not match.
 */
static long node_wmark_high_kb(int node)
{
	char line[256];
	long pages = 0;
	int cur = -1;
	FILE *f = fopen("/proc/zoneinfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		int n;
		unsigned long v;

		if (sscanf(line, "Node %d, zone", &n) == 1)
			cur = n;
		else if (cur == node && sscanf(line, " high %lu", &v) == 1)
			pages += (long)v;
	}
	fclose(f);
	return pages * (long)(PAGE / 1024);
}

static void usage(int rc)
{
	fprintf(rc ? stderr : stdout,
		"usage: tierload --mode gups|grow|zipf [--ideal] [--duration SEC]\n"
		"       [--report-interval SEC] [--check-interval SEC] [--fast-node N]\n"
		"       [--slow-node N] [--hot MiB] [--leave-free MiB] [--chunks N]\n"
		"       [--zipf-s S] [--zipf-hot-mass F] [--seed N] [--ready-file PATH]\n"
		"defaults: --duration 240 --report-interval 2 --check-interval 0.5\n"
		"          --fast-node 0 --slow-node 1 --hot auto (15%% of the fast node)\n"
		"          --leave-free auto (zone high watermarks + 16 MiB) --chunks 4\n"
		"          --zipf-s 0.99 --zipf-hot-mass 0.8\n"
		"t = 0 is SIGUSR1, sent after \"BENCH READY\".\n");
	exit(rc);
}

static double parse_pos(const char *s, bool allow_zero)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || v < 0 || (!allow_zero && v == 0)) {
		fprintf(stderr, "tierload: bad number '%s'\n", s);
		usage(2);
	}
	return v;
}

static void parse_args(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
		{ "mode", required_argument, NULL, 'm' },
		{ "ideal", no_argument, NULL, 'i' },
		{ "duration", required_argument, NULL, 'd' },
		{ "report-interval", required_argument, NULL, 'r' },
		{ "check-interval", required_argument, NULL, 'c' },
		{ "fast-node", required_argument, NULL, 'f' },
		{ "slow-node", required_argument, NULL, 's' },
		{ "hot", required_argument, NULL, 'H' },
		{ "leave-free", required_argument, NULL, 'L' },
		{ "chunks", required_argument, NULL, 'k' },
		{ "zipf-s", required_argument, NULL, 'z' },
		{ "zipf-hot-mass", required_argument, NULL, 'M' },
		{ "seed", required_argument, NULL, 'S' },
		{ "ready-file", required_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool have_mode = false;
	int c;

	*o = (struct options){
		.duration = 240, .report_interval = 2, .check_interval = 0.5,
		.fast = 0, .slow = 1, .hot_mib = 0, .leave_free_mib = -1, .chunks = 4,
		.zipf_s = 0.99, .zipf_hot_mass = 0.8, .seed = 0x9e3779b97f4a7c15ULL,
	};
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'm':
			have_mode = true;
			if (!strcmp(optarg, "gups"))
				o->mode = MODE_GUPS;
			else if (!strcmp(optarg, "grow"))
				o->mode = MODE_GROW;
			else if (!strcmp(optarg, "zipf"))
				o->mode = MODE_ZIPF;
			else
				usage(2);
			break;
		case 'i': o->ideal = true; break;
		case 'd': o->duration = parse_pos(optarg, false); break;
		case 'r': o->report_interval = parse_pos(optarg, false); break;
		case 'c': o->check_interval = parse_pos(optarg, false); break;
		case 'f': o->fast = (int)parse_pos(optarg, true); break;
		case 's': o->slow = (int)parse_pos(optarg, true); break;
		case 'H': o->hot_mib = (unsigned long)parse_pos(optarg, false); break;
		case 'L': o->leave_free_mib = (long)parse_pos(optarg, true); break;
		case 'k': o->chunks = (unsigned)parse_pos(optarg, false); break;
		case 'z': o->zipf_s = parse_pos(optarg, false); break;
		case 'M': o->zipf_hot_mass = parse_pos(optarg, false); break;
		case 'S': o->seed = (uint64_t)parse_pos(optarg, false); break;
		case 'R': o->ready_file = optarg; break;
		case 'h': usage(0); break;
		default: usage(2);
		}
	}
	if (optind != argc || !have_mode || o->fast == o->slow || o->fast >= MAX_NODES ||
	    o->slow >= MAX_NODES || o->chunks < 1 || o->chunks > MAX_EVENTS ||
	    o->zipf_hot_mass >= 1)
		usage(2);
}

/* ---- placement ------------------------------------------------------------ */

static void touch_range(struct bench *b, size_t first, size_t n, int node)
{
	thread_policy(node);
	for (size_t i = first; i < first + n; i++)
		b->base[i * PAGE] = (char)0x5a;
	thread_policy(-1);
}

/* Where pages [first, first+n) are; fills b->status. */
static void query(struct bench *b, size_t first, size_t n)
{
	for (size_t i = first; i < first + n; i += QUERY_BATCH) {
		size_t k = first + n - i < QUERY_BATCH ? first + n - i : QUERY_BATCH;

		if (sys_move_pages(k, b->ptr + i, NULL, b->status + i, 0))
			die("move_pages (query)");
	}
}

/* Move the listed pages (indexes) to node; returns how many are now there. */
static size_t move_list(struct bench *b, const size_t *idx, size_t n, int node)
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

static long fast_free_kb(const struct bench *b)
{
	return node_meminfo_kb(b->o.fast, "MemFree");
}

/* Free fast-node memory usable without reclaim, in pages. */
static size_t headroom_pages(const struct bench *b)
{
	long kb = fast_free_kb(b) - b->wmark_high_kb;

	return kb > 0 ? (size_t)kb / (PAGE / 1024) : 0;
}

/*
 * --ideal at a phase change: make room on the fast node by moving the pages
 * listed in `out` (coldest first) to the slow node, just as many as the hot
 * pages need, then move the hot set in.
 */
static void ideal_place(struct bench *b, const size_t *out, size_t nout)
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

/* ---- modes ---------------------------------------------------------------- */

/* The 512 words of a page (the mapping is page-aligned). */
static uint64_t *page_words(const struct bench *b, size_t page)
{
	return (uint64_t *)(void *)(b->base + page * PAGE);
}

static void set_uniform(struct bench *b, size_t first, size_t n, double mass)
{
	for (size_t i = first; i < first + n; i++)
		b->weight[i] += mass / (double)n;
}

static void gups_setup(struct bench *b)
{
	b->cold0 = 0;
	b->a0 = b->cap;
	b->b0 = b->cap + b->h;
	b->npages = b->cap + 2 * b->h;
}

static void gups_place(struct bench *b)
{
	if (b->o.ideal) {
		/* A on the fast node; cold data fills the rest of it, then the slow node. */
		touch_range(b, b->a0, b->h, b->o.fast);
		touch_range(b, b->cold0, b->cap - b->h, b->o.fast);
		touch_range(b, b->cold0 + b->cap - b->h, b->h, b->o.slow);
	} else {
		touch_range(b, b->cold0, b->cap, b->o.fast);
		touch_range(b, b->a0, b->h, b->o.slow);
	}
	touch_range(b, b->b0, b->h, b->o.slow);
	b->live = b->npages;
}

/* Phase 0: hot set A; phase 1: B (A is now cold). */
static void gups_phase(struct bench *b, int phase)
{
	size_t hot0 = phase ? b->b0 : b->a0;

	b->phase = phase;
	memset(b->hot, 0, b->npages);
	memset(b->weight, 0, b->npages * sizeof(*b->weight));
	memset(b->hot + hot0, 1, b->h);
	b->nhot = b->h;
	set_uniform(b, hot0, b->h, 1.0);
}

static void gups_access(struct bench *b, unsigned n)
{
	uint64_t *base = page_words(b, b->phase ? b->b0 : b->a0);
	size_t words = b->h * PAGE / sizeof(uint64_t);

	for (unsigned i = 0; i < n; i++) {
		uint64_t r = xorshift64(&b->rng);

		base[r % words] += r >> 40;
	}
}

static void grow_setup(struct bench *b)
{
	b->base_pages = b->cap > b->h / 2 ? b->cap - b->h / 2 : 0;
	b->npages = b->base_pages + b->o.chunks * b->h;
}

static void grow_place(struct bench *b)
{
	touch_range(b, 0, b->base_pages, b->o.fast);
	b->live = b->base_pages;
}

static size_t chunk0(const struct bench *b, unsigned k)
{
	return b->base_pages + (size_t)k * b->h;
}

/* Allocate chunk k: where the kernel puts it (first touch, default policy), or --ideal. */
static void grow_phase(struct bench *b, unsigned k)
{
	size_t c0 = chunk0(b, k);

	if (b->o.ideal) {
		/* Room first: the oldest data on the fast node goes out. */
		size_t need = b->h, room = headroom_pages(b);

		if (need + (size_t)(16 * MIB / PAGE) > room) {
			size_t n = need + (size_t)(16 * MIB / PAGE) - room, m = 0;
			size_t *idx = malloc(c0 * sizeof(*idx) + 1);

			if (!idx)
				die("malloc");
			query(b, 0, b->live);
			for (size_t i = 0; i < b->live && m < n; i++)
				if (b->status[i] == b->o.fast)
					idx[m++] = i;
			size_t moved = move_list(b, idx, m, b->o.slow);

			printf("BENCH IDEAL moved_out=%zu moved_in=0 of 0\n", moved);
			free(idx);
		}
		touch_range(b, c0, b->h, b->o.fast);
	} else {
		touch_range(b, c0, b->h, -1);
	}
	b->live = c0 + b->h;
	b->nchunks_live = k + 1;
	memset(b->hot, 0, b->npages);
	memset(b->weight, 0, b->npages * sizeof(*b->weight));
	memset(b->hot + c0, 1, b->h);
	b->nhot = b->h;
	if (k == 0) {
		set_uniform(b, c0, b->h, 0.9);
		if (b->base_pages)
			set_uniform(b, 0, b->base_pages, 0.1);
		else
			set_uniform(b, c0, b->h, 0.1);
	} else {
		set_uniform(b, c0, b->h, 0.7);
		set_uniform(b, chunk0(b, k - 1), b->h, 0.2);
		set_uniform(b, 0, chunk0(b, k - 1), 0.1);
	}
}

static void grow_access(struct bench *b, unsigned n)
{
	unsigned k = b->nchunks_live - 1;
	size_t cur = chunk0(b, k), prev = k ? chunk0(b, k - 1) : cur;

	for (unsigned i = 0; i < n; i++) {
		uint64_t r = xorshift64(&b->rng);
		unsigned pick = (unsigned)(r >> 56) % 100; /* 0..99 */
		size_t page;

		if (pick < (k ? 70u : 90u))
			page = cur + (r % b->h);
		else if (pick < 90)
			page = prev + (r % b->h);
		else if (prev > 0)
			page = (size_t)(r % prev);
		else
			page = cur + (r % b->h);
		page_words(b, page)[(r >> 20) & 511] += r >> 40;
	}
}

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

/* ---- events and measurement ----------------------------------------------- */

static void schedule(struct bench *b)
{
	const double d = b->o.duration;

	b->nev = 0;
	b->ev[b->nev++] = (struct event){ 0, "start", -1, false };
	if (b->o.mode == MODE_GUPS)
		b->ev[b->nev++] = (struct event){ d / 2, "shift", -1, false };
	else if (b->o.mode == MODE_GROW)
		for (unsigned k = 1; k < b->o.chunks; k++)
			b->ev[b->nev++] = (struct event){ d * k / b->o.chunks, "shift", -1, false };
}

static double hot_fast_frac(struct bench *b)
{
	size_t on = 0;

	/* Only the hot pages' runs: cheap enough to check often. */
	for (size_t i = 0; i < b->live;) {
		size_t j;

		while (i < b->live && !b->hot[i])
			i++;
		j = i;
		while (j < b->live && b->hot[j] && j - i < QUERY_BATCH)
			j++;
		if (j > i) {
			query(b, i, j - i);
			for (size_t k = i; k < j; k++)
				on += b->status[k] == b->o.fast;
		}
		i = j;
	}
	return b->nhot ? (double)on / (double)b->nhot : 0;
}

static void fire(struct bench *b, unsigned n, double t)
{
	struct event *e = &b->ev[n];
	size_t hot_slow = 0, room;
	uint64_t need;

	if (n > 0 && !b->ev[n - 1].reached)
		printf("BENCH T90 n=%u kind=%s t90=NA window=%.1f\n", n - 1, b->ev[n - 1].kind,
		       t - b->ev[n - 1].fired);
	switch (b->o.mode) {
	case MODE_GUPS:
		if (n > 0) {
			gups_phase(b, 1);
			if (b->o.ideal) {
				size_t *out = malloc(b->h * sizeof(*out));

				if (!out)
					die("malloc");
				for (size_t i = 0; i < b->h; i++)
					out[i] = b->a0 + i;
				/* What had to move is measured before the workload moves it itself. */
				query(b, 0, b->live);
				for (size_t i = 0; i < b->live; i++)
					hot_slow += b->hot[i] && b->status[i] != b->o.fast;
				room = headroom_pages(b);
				ideal_place(b, out, b->h);
				free(out);
				goto report;
			}
		}
		break;
	case MODE_GROW:
		if (b->o.ideal) {
			/*
			 * What had to move is what the kernel's placement would
			 * have left to fix: the part of the chunk beyond the
			 * fast node's room, twice (it comes in, as much goes out).
			 */
			size_t room0 = headroom_pages(b);

			hot_slow = b->h > room0 ? b->h - room0 : 0;
			room = 0;
			grow_phase(b, n);
			goto report;
		}
		grow_phase(b, n);
		break;
	case MODE_ZIPF:
		break;
	}
	query(b, 0, b->live);
	for (size_t i = 0; i < b->live; i++)
		hot_slow += b->hot[i] && b->status[i] != b->o.fast;
	room = headroom_pages(b);
report:
	need = (uint64_t)(hot_slow + (hot_slow > room ? hot_slow - room : 0)) * PAGE;
	b->need_bytes += need;
	e->fired = t;
	b->cur_ev = n;
	printf("BENCH EVENT n=%u kind=%s t=%.2f hot_pages=%zu hot_slow_pages=%zu headroom_kb=%zu "
	       "need_bytes=%llu live_pages=%zu\n",
	       n, e->kind, t, b->nhot, hot_slow, room * (PAGE / 1024), (unsigned long long)need,
	       b->live);
}

struct sample {
	double fast_ratio, hot_fast;
	size_t on_fast, on_slow, other;
};

static void measure(struct bench *b, struct sample *s)
{
	size_t hot_on = 0;
	double r = 0;

	query(b, 0, b->live);
	*s = (struct sample){ 0 };
	for (size_t i = 0; i < b->live; i++) {
		int st = b->status[i];

		if (st == b->o.fast) {
			s->on_fast++;
			r += b->weight[i];
			hot_on += b->hot[i];
		} else if (st == b->o.slow) {
			s->on_slow++;
		} else {
			s->other++;
		}
	}
	s->fast_ratio = r;
	s->hot_fast = b->nhot ? (double)hot_on / (double)b->nhot : 0;
}

struct series {
	double last_t, last_r, area;
	unsigned long long last_acc;
	unsigned n;
};

static void check_t90(struct bench *b, double t, double frac);

/* One full sample: placement of every live page, printed; feeds the time-weighted mean. */
static void sample(struct bench *b, struct series *sr, double t)
{
	struct sample s;
	double dt = t - sr->last_t;

	measure(b, &s);
	check_t90(b, t, s.hot_fast);
	/* Time-weighted mean: each sample holds until the next one. */
	if (sr->n)
		sr->area += sr->last_r * dt;
	printf("BENCH SAMPLE t=%.2f fast_ratio=%.4f hot_fast=%.4f on_fast=%zu on_slow=%zu "
	       "other=%zu fast_free_kb=%ld slow_free_kb=%ld access_rate=%.0f\n",
	       t, s.fast_ratio, s.hot_fast, s.on_fast, s.on_slow, s.other, fast_free_kb(b),
	       node_meminfo_kb(b->o.slow, "MemFree"),
	       sr->n && dt > 0 ? (double)(b->accesses - sr->last_acc) / dt : 0.0);
	sr->last_t = t;
	sr->last_r = s.fast_ratio;
	sr->last_acc = b->accesses;
	sr->n++;
}

static void check_t90(struct bench *b, double t, double frac)
{
	struct event *e = &b->ev[b->cur_ev];

	if (e->reached || e->fired < 0 || frac < 0.9)
		return;
	e->reached = true;
	printf("BENCH T90 n=%u kind=%s t90=%.2f\n", b->cur_ev, e->kind, t - e->fired);
}

int main(int argc, char **argv)
{
	static const char *mode_names[] = { "gups", "grow", "zipf" };
	struct bench b = { 0 };
	long fast_total, fast_free, slow_free;
	double t0, t, next_report, next_check;
	struct series sr = { 0 };

	parse_args(argc, argv, &b.o);
	setvbuf(stdout, NULL, _IOLBF, 0);
	b.rng = b.o.seed;
	signal(SIGUSR1, on_usr1);
	signal(SIGTERM, on_term);
	signal(SIGINT, on_term);

	fast_total = node_meminfo_kb(b.o.fast, "MemTotal");
	fast_free = node_meminfo_kb(b.o.fast, "MemFree");
	slow_free = node_meminfo_kb(b.o.slow, "MemFree");
	b.wmark_high_kb = node_wmark_high_kb(b.o.fast);
	if (fast_total <= 0 || fast_free <= 0 || slow_free <= 0 || b.wmark_high_kb < 0)
		fail("cannot read the nodes' meminfo or /proc/zoneinfo (are both nodes online?)");
	if (b.o.leave_free_mib < 0)
		b.o.leave_free_mib = b.wmark_high_kb / 1024 + 16;
	if (fast_free / 1024 <= b.o.leave_free_mib + 16)
		fail("the fast node has too little free memory for this benchmark");
	b.cap = (size_t)(fast_free / 1024 - b.o.leave_free_mib) * (MIB / PAGE);
	b.h = (size_t)(b.o.hot_mib ? b.o.hot_mib : (unsigned long)(fast_total / 1024 * 15 / 100)) *
	      (MIB / PAGE);
	if (b.h == 0 || b.h * 2 > b.cap)
		fail("--hot must be at most half of the fast node's free memory");

	switch (b.o.mode) {
	case MODE_GUPS: gups_setup(&b); break;
	case MODE_GROW: grow_setup(&b); break;
	case MODE_ZIPF: zipf_setup(&b); break;
	}
	/* What the slow node must hold in the worst case: everything not on the fast node. */
	if ((long)((b.npages > b.cap ? b.npages - b.cap : 0) + b.h) * (long)(PAGE / 1024) > slow_free)
		fail("the slow node has too little free memory for this workload (lower --hot)");

	b.base = mmap(NULL, b.npages * PAGE, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (b.base == MAP_FAILED)
		die("mmap");
	/* Page-granular placement is the point: no THP. */
	madvise(b.base, b.npages * PAGE, MADV_NOHUGEPAGE);
	b.ptr = malloc(b.npages * sizeof(*b.ptr));
	b.status = malloc(b.npages * sizeof(*b.status));
	b.nodes = malloc(QUERY_BATCH * sizeof(*b.nodes));
	b.weight = calloc(b.npages, sizeof(*b.weight));
	b.hot = calloc(b.npages, 1);
	if (!b.ptr || !b.status || !b.nodes || !b.weight || !b.hot)
		die("malloc");
	for (size_t i = 0; i < b.npages; i++)
		b.ptr[i] = b.base + i * PAGE;

	printf("BENCH CONFIG mode=%s ideal=%d duration=%g fast_node=%d slow_node=%d "
	       "fast_total_kb=%ld fast_free_kb=%ld slow_free_kb=%ld wmark_high_kb=%ld "
	       "leave_free_mib=%ld cap_pages=%zu hot_pages=%zu total_pages=%zu chunks=%u zipf_s=%g\n",
	       mode_names[b.o.mode], b.o.ideal, b.o.duration, b.o.fast, b.o.slow, fast_total,
	       fast_free, slow_free, b.wmark_high_kb, b.o.leave_free_mib, b.cap, b.h, b.npages,
	       b.o.mode == MODE_GROW ? b.o.chunks : 0, b.o.zipf_s);

	switch (b.o.mode) {
	case MODE_GUPS: gups_place(&b); gups_phase(&b, 0); break;
	case MODE_GROW: grow_place(&b); break;
	case MODE_ZIPF: zipf_place(&b); zipf_phase(&b); break;
	}
	schedule(&b);

	/* Placement done: wait for the driver to set up the tiering policy. */
	printf("BENCH READY pid=%d\n", (int)getpid());
	if (b.o.ready_file) {
		FILE *f = fopen(b.o.ready_file, "w");

		if (!f)
			die("ready-file");
		fprintf(f, "%d\n", (int)getpid());
		fclose(f);
	}
	while (!go_flag) {
		struct timespec ts = { 0, 10 * 1000 * 1000 };

		nanosleep(&ts, NULL);
	}

	t0 = now_s();
	fire(&b, 0, 0);
	sample(&b, &sr, 0);
	next_report = b.o.report_interval;
	next_check = b.o.check_interval;
	t = 0;
	for (;;) {
		switch (b.o.mode) {
		case MODE_GUPS: gups_access(&b, 4096); break;
		case MODE_GROW: grow_access(&b, 4096); break;
		case MODE_ZIPF: zipf_access(&b, 4096); break;
		}
		b.accesses += 4096;
		t = now_s() - t0;
		if (t >= b.o.duration || stop_flag)
			break;
		if (b.cur_ev + 1 < b.nev && t >= b.ev[b.cur_ev + 1].at) {
			fire(&b, b.cur_ev + 1, t);
			/* --ideal moved pages in fire(): that time counts. */
			t = now_s() - t0;
			next_check = t;
		}
		if (t >= next_report) {
			sample(&b, &sr, t);
			while (next_report <= t)
				next_report += b.o.report_interval;
			next_check = t + b.o.check_interval;
		} else if (!b.ev[b.cur_ev].reached && t >= next_check) {
			check_t90(&b, t, hot_fast_frac(&b));
			next_check = t + b.o.check_interval;
		}
	}
	if (!b.ev[b.cur_ev].reached)
		printf("BENCH T90 n=%u kind=%s t90=NA window=%.1f\n", b.cur_ev, b.ev[b.cur_ev].kind,
		       t - b.ev[b.cur_ev].fired);
	sample(&b, &sr, t);
	printf("BENCH FINAL t=%.2f mean_fast_ratio=%.4f fast_ratio=%.4f need_bytes=%llu "
	       "accesses=%llu samples=%u\n",
	       t, t > 0 ? sr.area / t : sr.last_r, sr.last_r, (unsigned long long)b.need_bytes,
	       b.accesses, sr.n);
	return 0;
}
