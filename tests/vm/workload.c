// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * workload: a tiering test workload for the damon-tierd QEMU tests.
 *
 * It maps a "cold" region and places it on the fast node (default node 0)
 * and a "hot" region placed on the slow node (default node 1), with mbind()
 * MPOL_BIND and a first touch of every page. Then it drops the binding
 * (--policy default: MPOL_DEFAULT; preferred: MPOL_PREFERRED on the fast
 * node; keep: leave MPOL_BIND on), and for --duration seconds does random
 * read+write accesses to the hot region only. The cold region is never
 * touched again.
 *
 * The cold set's default size (--cold auto) is the fast node's MemFree
 * minus --leave-free MiB (48; above the ~37 MiB high watermark of a 512 MiB
 * node), so the fast node is full and the hot set cannot be promoted there
 * without demoting cold pages first.
 *
 * Every --report-interval seconds it prints one line saying where its pages
 * are, found with move_pages(2) with a NULL nodes array:
 *
 *   WORKLOAD t=12.0 hot_on_node0=0.4300 cold_on_node1=0.1000 hot_pages=16384
 *     cold_pages=92160 hot_n0=... hot_n1=... cold_n0=... cold_n1=...
 *     hot_other=... cold_other=... accesses=... node0_free_kb=...
 *     node1_free_kb=...
 *
 * ("node0" is --fast-node, "node1" --slow-node; hot_other/cold_other count
 * pages that move_pages reports on no node, i.e. not present or an error
 * status; hot_by_node=a,b,... and cold_by_node=... count the pages on each
 * node from node 0 up to the highest node with any of them or named, for
 * machines with more than two nodes) and at the end a "WORKLOAD FINAL
 * t=..." line with the same fields.
 *
 * --idle places the data and then only reports, without touching it: a
 * filler whose pages are all cold, or a service whose data all went cold
 * (the cgroup tests run several workloads on the guest's two CPUs, and an
 * idle one leaves them to the others).
 * Before the first report it prints "WORKLOAD START pid=... hot_addr=A-B
 * cold_addr=C-D ..." and, with --ready-file, writes its pid to that file.
 *
 * It uses raw syscalls (no libnuma at run time) so that only libc is needed
 * inside the guest. Build: cc -O2 -Wall -o workload workload.c
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
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
#define MPOL_PREFERRED 1
#define MPOL_BIND 2
#endif
#ifndef MPOL_MF_STRICT
#define MPOL_MF_STRICT (1 << 0)
#define MPOL_MF_MOVE (1 << 1)
#endif

#define MIB (1024UL * 1024UL)
#define MAX_NODES 64

struct options {
	unsigned long hot_mib;
	unsigned long cold_mib;
	double duration;
	double report_interval;
	int fast_node;
	int slow_node;
	int policy; /* MPOL_DEFAULT, MPOL_PREFERRED or -1 (keep the bind) */
	uint64_t seed;
	const char *ready_file;
	int cold_auto;
	unsigned long leave_free_mib;
	int idle;             /* --idle: place the sets, then only report */
};

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static long sys_mbind(void *addr, unsigned long len, int mode,
		      const unsigned long *nodemask, unsigned long maxnode,
		      unsigned int flags)
{
	return syscall(SYS_mbind, addr, len, mode, nodemask, maxnode, flags);
}

static long sys_move_pages(int pid, unsigned long count, void **pages,
			   const int *nodes, int *status, int flags)
{
	return syscall(SYS_move_pages, pid, count, pages, nodes, status, flags);
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

/* MemFree of a node in kB, from /sys/devices/system/node/nodeN/meminfo; -1 if unknown. */
static long node_free_kb(int node)
{
	char path[96], line[256];
	long kb = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/meminfo", node);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *p = strstr(line, "MemFree:");

		if (p) {
			kb = strtol(p + strlen("MemFree:"), NULL, 10);
			break;
		}
	}
	fclose(f);
	return kb;
}

static void die(const char *what)
{
	fprintf(stderr, "workload: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void usage(const char *prog, int rc)
{
	fprintf(rc ? stderr : stdout,
		"usage: %s [--hot MiB] [--cold MiB|auto] [--leave-free MiB]\n"
		"       [--duration SEC]\n"
		"       [--report-interval SEC] [--fast-node N] [--slow-node N]\n"
		"       [--policy default|preferred|keep] [--seed N]\n"
		"       [--ready-file PATH] [--idle]\n"
		"defaults: --hot 64 --cold auto --leave-free 48 --duration 20\n"
		"          --report-interval 2\n"
		"          --fast-node 0 --slow-node 1 --policy default\n"
		"--cold auto: size the cold set to the fast node's MemFree minus\n"
		"             --leave-free (default 48) MiB\n",
		prog);
	exit(rc);
}

static int parse_ulong(const char *s, unsigned long *out)
{
	char *end;

	errno = 0;
	*out = strtoul(s, &end, 10);
	return errno || end == s || *end ? -1 : 0;
}

static int parse_double(const char *s, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	return errno || end == s || *end || *out < 0 ? -1 : 0;
}

static void parse_args(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
		{ "hot", required_argument, NULL, 'H' },
		{ "cold", required_argument, NULL, 'C' },
		{ "duration", required_argument, NULL, 'd' },
		{ "report-interval", required_argument, NULL, 'r' },
		{ "fast-node", required_argument, NULL, 'f' },
		{ "slow-node", required_argument, NULL, 's' },
		{ "policy", required_argument, NULL, 'p' },
		{ "seed", required_argument, NULL, 'S' },
		{ "ready-file", required_argument, NULL, 'R' },
		{ "leave-free", required_argument, NULL, 'L' },
		{ "idle", no_argument, NULL, 'I' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long v;
	int c;

	o->hot_mib = 64;
	o->cold_mib = 0;
	o->duration = 20;
	o->report_interval = 2;
	o->fast_node = 0;
	o->slow_node = 1;
	o->policy = MPOL_DEFAULT;
	o->seed = 0x9e3779b97f4a7c15ULL;
	o->ready_file = NULL;
	o->cold_auto = 1;
	o->leave_free_mib = 48;
	o->idle = 0;

	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'H':
			if (parse_ulong(optarg, &o->hot_mib))
				usage(argv[0], 2);
			break;
		case 'C':
			if (!strcmp(optarg, "auto"))
				o->cold_auto = 1;
			else if (parse_ulong(optarg, &o->cold_mib))
				usage(argv[0], 2);
			else
				o->cold_auto = 0;
			break;
		case 'L':
			if (parse_ulong(optarg, &o->leave_free_mib))
				usage(argv[0], 2);
			break;
		case 'I':
			o->idle = 1;
			break;
		case 'd':
			if (parse_double(optarg, &o->duration))
				usage(argv[0], 2);
			break;
		case 'r':
			if (parse_double(optarg, &o->report_interval) ||
			    o->report_interval <= 0)
				usage(argv[0], 2);
			break;
		case 'f':
			if (parse_ulong(optarg, &v) || v >= MAX_NODES)
				usage(argv[0], 2);
			o->fast_node = (int)v;
			break;
		case 's':
			if (parse_ulong(optarg, &v) || v >= MAX_NODES)
				usage(argv[0], 2);
			o->slow_node = (int)v;
			break;
		case 'p':
			if (!strcmp(optarg, "default"))
				o->policy = MPOL_DEFAULT;
			else if (!strcmp(optarg, "preferred"))
				o->policy = MPOL_PREFERRED;
			else if (!strcmp(optarg, "keep"))
				o->policy = -1;
			else
				usage(argv[0], 2);
			break;
		case 'S':
			if (parse_ulong(optarg, &v) || v == 0)
				usage(argv[0], 2);
			o->seed = v;
			break;
		case 'R':
			o->ready_file = optarg;
			break;
		case 'h':
			usage(argv[0], 0);
			break;
		default:
			usage(argv[0], 2);
		}
	}
	if (optind != argc || o->hot_mib == 0)
		usage(argv[0], 2);
}

struct region {
	const char *name;
	char *base;
	size_t len;
	size_t npages;
	void **pages;
	int *status;
};

static void region_map(struct region *r, const char *name, size_t len,
		       size_t pagesz)
{
	r->name = name;
	r->len = len;
	r->npages = len / pagesz;
	r->base = NULL;
	r->pages = NULL;
	r->status = NULL;
	if (!len)
		return;
	r->base = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (r->base == MAP_FAILED)
		die("mmap");
	/* Keep THP out of the way: page-granular placement is the point. */
	madvise(r->base, len, MADV_NOHUGEPAGE);
	r->pages = calloc(r->npages, sizeof(*r->pages));
	r->status = calloc(r->npages, sizeof(*r->status));
	if (!r->pages || !r->status)
		die("calloc");
	for (size_t i = 0; i < r->npages; i++)
		r->pages[i] = r->base + i * pagesz;
}

static void region_set_policy(struct region *r, int mode, int node)
{
	unsigned long mask[MAX_NODES / (8 * sizeof(unsigned long))] = { 0 };
	const unsigned long *maskp = NULL;
	unsigned long maxnode = 0;

	if (!r->len)
		return;
	if (mode != MPOL_DEFAULT) {
		mask[node / (8 * sizeof(unsigned long))] |=
			1UL << (node % (8 * sizeof(unsigned long)));
		maskp = mask;
		maxnode = MAX_NODES + 1;
	}
	if (sys_mbind(r->base, r->len, mode, maskp, maxnode, 0))
		die("mbind");
}

static void region_touch(struct region *r, size_t pagesz, unsigned char v)
{
	for (size_t off = 0; off < r->len; off += pagesz)
		r->base[off] = v;
}

struct placement {
	size_t on_node[MAX_NODES];
	size_t other; /* negative status: not present, error */
};

static void region_query(struct region *r, struct placement *p)
{
	const size_t batch = 16384;

	memset(p, 0, sizeof(*p));
	for (size_t i = 0; i < r->npages; i += batch) {
		size_t n = r->npages - i < batch ? r->npages - i : batch;

		if (sys_move_pages(0, n, r->pages + i, NULL, r->status + i, 0))
			die("move_pages");
	}
	for (size_t i = 0; i < r->npages; i++) {
		int s = r->status[i];

		if (s >= 0 && s < MAX_NODES)
			p->on_node[s]++;
		else
			p->other++;
	}
}

/* "a,b,c" for nodes 0..last, where last is the highest node with pages in
 * a or b, or named by the options. */
static void by_node(char *buf, size_t size, const struct placement *p, int last)
{
	size_t off = 0;

	buf[0] = '\0';
	for (int n = 0; n <= last && off < size; n++)
		off += (size_t)snprintf(buf + off, size - off, "%s%zu", n ? "," : "", p->on_node[n]);
}

static void report(const char *tag, double t, const struct options *o,
		   struct region *hot, struct region *cold,
		   unsigned long long accesses)
{
	struct placement ph, pc;
	double hot_fast, cold_slow;
	char hb[MAX_NODES * 12], cb[MAX_NODES * 12];
	int last;

	region_query(hot, &ph);
	region_query(cold, &pc);
	last = o->fast_node > o->slow_node ? o->fast_node : o->slow_node;
	for (int n = last + 1; n < MAX_NODES; n++)
		if (ph.on_node[n] || pc.on_node[n])
			last = n;
	by_node(hb, sizeof(hb), &ph, last);
	by_node(cb, sizeof(cb), &pc, last);
	hot_fast = hot->npages ?
		(double)ph.on_node[o->fast_node] / (double)hot->npages : 0;
	cold_slow = cold->npages ?
		(double)pc.on_node[o->slow_node] / (double)cold->npages : 0;
	printf("WORKLOAD %s%.1f hot_on_node%d=%.4f cold_on_node%d=%.4f "
	       "hot_pages=%zu cold_pages=%zu hot_n%d=%zu hot_n%d=%zu "
	       "cold_n%d=%zu cold_n%d=%zu hot_other=%zu cold_other=%zu "
	       "accesses=%llu node%d_free_kb=%ld node%d_free_kb=%ld "
	       "hot_by_node=%s cold_by_node=%s\n",
	       tag, t, o->fast_node, hot_fast, o->slow_node, cold_slow,
	       hot->npages, cold->npages, o->fast_node,
	       ph.on_node[o->fast_node], o->slow_node,
	       ph.on_node[o->slow_node], o->fast_node,
	       pc.on_node[o->fast_node], o->slow_node,
	       pc.on_node[o->slow_node],
	       ph.other, pc.other, accesses, o->fast_node,
	       node_free_kb(o->fast_node), o->slow_node,
	       node_free_kb(o->slow_node), hb, cb);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	struct options o;
	struct region hot, cold;
	size_t pagesz = (size_t)sysconf(_SC_PAGESIZE);
	unsigned long long accesses = 0;
	double start, next_report, end;
	uint64_t rng;
	const char *pol_name;

	parse_args(argc, argv, &o);
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	rng = o.seed;

	if (o.cold_auto) {
		long kb = node_free_kb(o.fast_node);

		if (kb < 0) {
			fprintf(stderr, "workload: cannot read node%d MemFree\n", o.fast_node);
			return 1;
		}
		o.cold_mib = (unsigned long)kb / 1024 > o.leave_free_mib ?
			(unsigned long)kb / 1024 - o.leave_free_mib : 0;
	}
	/* Cold first, so that it takes the fast node's free memory. */
	region_map(&cold, "cold", o.cold_mib * MIB, pagesz);
	region_map(&hot, "hot", o.hot_mib * MIB, pagesz);
	region_set_policy(&cold, MPOL_BIND, o.fast_node);
	region_set_policy(&hot, MPOL_BIND, o.slow_node);
	region_touch(&cold, pagesz, 0x5a);
	region_touch(&hot, pagesz, 0xa5);

	if (o.policy == -1) {
		pol_name = "keep-bind";
	} else {
		pol_name = o.policy == MPOL_PREFERRED ? "preferred" : "default";
		region_set_policy(&cold, o.policy, o.fast_node);
		region_set_policy(&hot, o.policy, o.fast_node);
	}
	printf("WORKLOAD START pid=%d hot_mib=%lu cold_mib=%lu duration=%g "
	       "policy=%s hot_addr=%p-%p cold_addr=%p-%p\n",
	       (int)getpid(), o.hot_mib, o.cold_mib, o.duration, pol_name,
	       (void *)hot.base, (void *)(hot.base + hot.len),
	       (void *)cold.base, (void *)(cold.base + cold.len));
	report("t=", 0, &o, &hot, &cold, 0);
	if (o.ready_file) {
		FILE *f = fopen(o.ready_file, "w");

		if (!f)
			die("ready-file");
		fprintf(f, "%d\n", (int)getpid());
		fclose(f);
	}

	start = now_s();
	end = start + o.duration;
	next_report = start + o.report_interval;
	while (!stop_requested && o.idle) {
		double t = now_s();

		if (t >= end)
			break;
		if (t >= next_report) {
			report("t=", t - start, &o, &hot, &cold, 0);
			while (next_report <= t)
				next_report += o.report_interval;
		}
		usleep(100000);
	}
	while (!stop_requested && !o.idle) {
		/* A burst of random word accesses over the hot set. */
		for (int i = 0; i < 4096; i++) {
			uint64_t r = xorshift64(&rng);
			size_t off = (size_t)(r % hot.len) & ~(size_t)7;
			uint64_t *w = (uint64_t *)(hot.base + off);

			*w = *w + (r >> 32);
		}
		accesses += 4096;
		double t = now_s();

		if (t >= end)
			break;
		if (t >= next_report) {
			report("t=", t - start, &o, &hot, &cold, accesses);
			while (next_report <= t)
				next_report += o.report_interval;
		}
	}
	report("FINAL t=", now_s() - start, &o, &hot, &cold, accesses);
	return 0;
}
