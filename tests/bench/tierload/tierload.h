/* SPDX-License-Identifier: GPL-2.0-or-later */
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
 *   gups      cold data fills the fast node (C); the hot set A (H) starts on
 *             the slow node and receives every access (random 8-byte
 *             updates); at half the run the accesses move to B (H), also on
 *             the slow node (mode_gups.c).
 *   lukewarm  gups whose data outside the current hot set (the cold data,
 *             and the other of A and B) receives --cold-share of the
 *             accesses, spread evenly over its pages (mode_gups.c).
 *   grow      old data (C - H/2) on the fast node, then a new chunk of H is
 *             allocated (first touch, default policy) at t = k*D/--chunks;
 *             70% of the accesses go to the newest chunk, 20% to the one
 *             before, 10% to all older data (mode_grow.c).
 *   zipf      a key-value table of 1.5*C one-page values, the first C pages
 *             on the fast node, the rest on the slow node, accessed with
 *             Zipf(s) popularity over a random permutation of the pages
 *             (mode_zipf.c).  The hot set is the most popular pages that
 *             together receive 80% of the accesses.
 *   scan      cold data fills the fast node (C) and C/2 more lies on the slow
 *             node; the hot set (H) starts on the slow node and receives the
 *             updates; every --scan-period seconds a sequential pass reads
 *             every cold page once (mode_scan.c).
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
 * Build: cc -O2 -Wall -Wextra -o tierload tests/bench/tierload/\*.c -lm
 *
 * Files: main.c (options, setup, the main loop), measure.c (events,
 * samples, t90), place.c (first-touch placement, move_pages, the --ideal
 * moves), sys.c (syscalls, node meminfo, clock, random numbers) and one
 * mode_*.c per workload family.
 */
#ifndef TIERLOAD_H
#define TIERLOAD_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PAGE 4096UL
#define MIB (1024UL * 1024UL)
#define MAX_NODES 64
#define QUERY_BATCH 16384UL
#define MAX_EVENTS 64

enum mode { MODE_GUPS, MODE_GROW, MODE_ZIPF, MODE_LUKEWARM, MODE_SCAN };

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
	double cold_share;           /* lukewarm: share of the accesses outside the hot set */
	double scan_period;          /* scan: seconds from one pass's start to the next */
	double scan_pass;            /* scan: seconds one pass is spread over */
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

/* Which line a mode's extra key=value fields are printed on (mode_ops.fields). */
enum line { LINE_CONFIG, LINE_SAMPLE, LINE_FINAL };

struct bench;

/*
 * What makes a mode.  setup, place and access are required; the others may
 * be NULL.
 */
struct mode_ops {
	const char *name;
	/* Sizes: sets npages and the mode's own layout from cap and h. */
	void (*setup)(struct bench *b);
	/* First touch of every page (sets live) and the first hot set. */
	void (*place)(struct bench *b);
	/* Appends the shift events after the start (b->ev[0]). */
	void (*schedule)(struct bench *b);
	/*
	 * Event n (0 = the start) fires: switch the hot set.  Returns true when
	 * it measured *hot_slow (hot pages off the fast node) and *room
	 * (headroom_pages) itself, before moving pages (--ideal); false leaves
	 * that to the caller, after the switch.
	 */
	bool (*event)(struct bench *b, unsigned n, size_t *hot_slow, size_t *room);
	/* n accesses, by the mode's distribution. */
	void (*access)(struct bench *b, unsigned n);
	/* Called from the main loop after each batch of accesses, at time t. */
	void (*tick)(struct bench *b, double t);
	/*
	 * Extra " key=value" fields for a line, printed before its newline.  On
	 * LINE_SAMPLE b->status holds every live page's node (measure()) and
	 * b->last_node the previous sample's (b->have_last false at the first).
	 */
	void (*fields)(struct bench *b, enum line which);
};

struct bench {
	struct options o;
	const struct mode_ops *ops;
	char *base;
	size_t npages;    /* mapped */
	size_t live;      /* pages [0, live) are allocated (touched) */
	void **ptr;
	int *status;
	int *nodes;       /* move_pages target buffer */
	int *last_node;   /* status at the previous full sample */
	bool have_last;
	double *weight;   /* access probability per page, sums to 1 over [0, live) */
	uint8_t *hot;     /* current hot set */
	size_t nhot;

	/* sizes in pages */
	size_t cap;       /* C: what fills the fast node */
	size_t h;         /* H: hot set / chunk size */

	/* gups, lukewarm, scan */
	size_t cold0, a0, b0;
	int phase;
	/* lukewarm */
	uint64_t cold_thresh;         /* an access is lukewarm when its top 16 bits are below */
	uint64_t cold_demoted_pages;  /* lukewarm pages seen moving fast -> slow between samples */
	/* scan */
	size_t cold1, ncold1;         /* the cold data on the slow node */
	uint8_t *slow0;               /* page was on the slow node at t = 0 */
	unsigned scan_passes;         /* passes started */
	size_t scan_next;             /* the current pass's next cold page (index into the cold data) */
	double scan_start;            /* the current pass's start, <0 between passes */
	uint64_t scan_reads;
	uint64_t scan_sum;
	uint64_t scan_promoted_pages; /* scanned pages seen moving slow -> fast between samples */
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

extern const struct mode_ops gups_ops, lukewarm_ops, grow_ops, zipf_ops, scan_ops;

/* ---- sys.c: process, clock, random numbers, kernel interfaces ------------ */

/* Print "tierload: WHAT: strerror(errno)" and exit 1. */
void die(const char *what) __attribute__((noreturn));
/* Print "tierload: MSG" and exit 1. */
void fail(const char *msg) __attribute__((noreturn));
/* CLOCK_MONOTONIC in seconds. */
double now_s(void);
/* The next number of the xorshift64 sequence in *s (never 0 for a nonzero seed). */
uint64_t xorshift64(uint64_t *s);
/* move_pages(2) of this process; a NULL nodes array only queries. */
long sys_move_pages(unsigned long count, void **pages, const int *nodes, int *status, int flags);
/* Every first touch of this thread goes to node (the default policy for node < 0); exits on error. */
void thread_policy(int node);
/* A node's meminfo field in kB, from /sys/devices/system/node/nodeN/meminfo; -1 if absent. */
long node_meminfo_kb(int node, const char *field);
/* Sum of the zones' high watermarks of a node in kB (/proc/zoneinfo); -1 if unreadable. */
long node_wmark_high_kb(int node);

/* ---- place.c: placement and migration of the workload's pages ------------ */

/* The 512 words of a page (the mapping is page-aligned). */
uint64_t *page_words(const struct bench *b, size_t page);
/* First touch of pages [first, first+n) with every allocation on node (<0: default policy). */
void touch_range(struct bench *b, size_t first, size_t n, int node);
/* Where pages [first, first+n) are: fills b->status[first..]; exits on error. */
void query(struct bench *b, size_t first, size_t n);
/* Move the listed pages (indexes) to node; returns how many are now there. */
size_t move_list(struct bench *b, const size_t *idx, size_t n, int node);
/* The fast node's MemFree in kB (-1 if unreadable). */
long fast_free_kb(const struct bench *b);
/* Free fast-node memory usable without reclaim (above the high watermarks), in pages. */
size_t headroom_pages(const struct bench *b);
/*
 * --ideal at a phase change: moves as many of the pages listed in `out`
 * (coldest first) that are on the fast node to the slow node as the hot
 * pages need, then the hot set in; prints a BENCH IDEAL line.
 */
void ideal_place(struct bench *b, const size_t *out, size_t nout);
/* Adds mass spread evenly over pages [first, first+n) to their weights. */
void set_uniform(struct bench *b, size_t first, size_t n, double mass);

/* ---- mode_gups.c: what scan shares with gups ------------------------------ */

/*
 * First touch of the cold data [cold0, cold0 + cap) on the fast node and of
 * the hot set [a0, a0 + h) on the slow node; --ideal: the hot set on the
 * fast node, the cold data filling the rest of it, its last h pages on the
 * slow node.
 */
void gups_place_cold_a(struct bench *b);
/* n random 8-byte updates of the hot set at a0 (phase 0) or b0 (phase 1). */
void gups_access(struct bench *b, unsigned n);

/* ---- measure.c: events, samples, t90 -------------------------------------- */

/* The events of the run: the start, then the mode's shifts. */
void schedule(struct bench *b);
/* Event n fires at t: the mode switches its hot set; prints BENCH EVENT (and the previous event's T90 NA). */
void fire(struct bench *b, unsigned n, double t);
/* The fraction of the hot set on the fast node (queries only the hot pages). */
double hot_fast_frac(struct bench *b);

/* The running time-weighted mean of the samples. */
struct series {
	double last_t, last_r, area;
	unsigned long long last_acc;
	unsigned n;
};

/* One full sample at t: every live page's node, a BENCH SAMPLE line; feeds sr. */
void sample(struct bench *b, struct series *sr, double t);
/* Prints the current event's BENCH T90 line once frac reaches 0.9. */
void check_t90(struct bench *b, double t, double frac);

#endif
