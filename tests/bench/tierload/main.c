// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tierload: options, sizes, setup and the main loop (see tierload.h for the
 * workloads and the protocol with the driver).
 */
#include "tierload.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static const struct mode_ops *const modes[] = {
	[MODE_GUPS] = &gups_ops,
	[MODE_GROW] = &grow_ops,
	[MODE_ZIPF] = &zipf_ops,
	[MODE_LUKEWARM] = &lukewarm_ops,
	[MODE_SCAN] = &scan_ops,
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

static void usage(int rc)
{
	fprintf(rc ? stderr : stdout,
		"usage: tierload --mode gups|grow|zipf|lukewarm|scan [--ideal] [--duration SEC]\n"
		"       [--report-interval SEC] [--check-interval SEC] [--fast-node N]\n"
		"       [--slow-node N] [--hot MiB] [--leave-free MiB] [--chunks N]\n"
		"       [--zipf-s S] [--zipf-hot-mass F] [--cold-share F]\n"
		"       [--scan-period SEC] [--scan-pass SEC] [--seed N] [--ready-file PATH]\n"
		"defaults: --duration 240 --report-interval 2 --check-interval 0.5\n"
		"          --fast-node 0 --slow-node 1 --hot auto (15%% of the fast node)\n"
		"          --leave-free auto (zone high watermarks + 16 MiB) --chunks 4\n"
		"          --zipf-s 0.99 --zipf-hot-mass 0.8 --cold-share 0.1 (lukewarm)\n"
		"          --scan-period 20 --scan-pass 2 (scan)\n"
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
		{ "cold-share", required_argument, NULL, 'C' },
		{ "scan-period", required_argument, NULL, 'P' },
		{ "scan-pass", required_argument, NULL, 'p' },
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
		.zipf_s = 0.99, .zipf_hot_mass = 0.8, .cold_share = 0.1,
		.scan_period = 20, .scan_pass = 2, .seed = 0x9e3779b97f4a7c15ULL,
	};
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'm':
			have_mode = false;
			for (unsigned m = 0; m < sizeof(modes) / sizeof(modes[0]); m++)
				if (!strcmp(optarg, modes[m]->name)) {
					o->mode = (enum mode)m;
					have_mode = true;
				}
			if (!have_mode) {
				fprintf(stderr, "tierload: unknown mode '%s'\n", optarg);
				usage(2);
			}
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
		case 'C': o->cold_share = parse_pos(optarg, true); break;
		case 'P': o->scan_period = parse_pos(optarg, false); break;
		case 'p': o->scan_pass = parse_pos(optarg, false); break;
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
	if (o->cold_share >= 1) {
		fprintf(stderr, "tierload: --cold-share must be below 1 (a fraction of the accesses)\n");
		usage(2);
	}
	if (o->scan_pass >= o->scan_period) {
		fprintf(stderr, "tierload: --scan-pass must be shorter than --scan-period\n");
		usage(2);
	}
}

/* Maps the data, allocates the per-page arrays; exits on failure. */
static void map_data(struct bench *b)
{
	b->base = mmap(NULL, b->npages * PAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (b->base == MAP_FAILED)
		die("mmap");
	/* Page-granular placement is the point: no THP. */
	madvise(b->base, b->npages * PAGE, MADV_NOHUGEPAGE);
	b->ptr = malloc(b->npages * sizeof(*b->ptr));
	b->status = malloc(b->npages * sizeof(*b->status));
	b->last_node = calloc(b->npages, sizeof(*b->last_node));
	b->nodes = malloc(QUERY_BATCH * sizeof(*b->nodes));
	b->weight = calloc(b->npages, sizeof(*b->weight));
	b->hot = calloc(b->npages, 1);
	if (!b->ptr || !b->status || !b->last_node || !b->nodes || !b->weight || !b->hot)
		die("malloc");
	for (size_t i = 0; i < b->npages; i++)
		b->ptr[i] = b->base + i * PAGE;
}

/* Prints BENCH READY, writes the ready file and waits for SIGUSR1 (or SIGTERM). */
static void wait_for_go(const struct bench *b)
{
	printf("BENCH READY pid=%d\n", (int)getpid());
	if (b->o.ready_file) {
		FILE *f = fopen(b->o.ready_file, "w");

		if (!f)
			die("ready-file");
		fprintf(f, "%d\n", (int)getpid());
		fclose(f);
	}
	while (!go_flag) {
		struct timespec ts = { 0, 10 * 1000 * 1000 };

		nanosleep(&ts, NULL);
	}
}

int main(int argc, char **argv)
{
	struct bench b = { 0 };
	long fast_total, fast_free, slow_free;
	double t0, t, next_report, next_check;
	struct series sr = { 0 };

	parse_args(argc, argv, &b.o);
	b.ops = modes[b.o.mode];
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

	b.ops->setup(&b);
	/* What the slow node must hold in the worst case: everything not on the fast node. */
	if ((long)((b.npages > b.cap ? b.npages - b.cap : 0) + b.h) * (long)(PAGE / 1024) > slow_free)
		fail("the slow node has too little free memory for this workload (lower --hot)");
	map_data(&b);

	printf("BENCH CONFIG mode=%s ideal=%d duration=%g fast_node=%d slow_node=%d "
	       "fast_total_kb=%ld fast_free_kb=%ld slow_free_kb=%ld wmark_high_kb=%ld "
	       "leave_free_mib=%ld cap_pages=%zu hot_pages=%zu total_pages=%zu chunks=%u zipf_s=%g",
	       b.ops->name, b.o.ideal, b.o.duration, b.o.fast, b.o.slow, fast_total,
	       fast_free, slow_free, b.wmark_high_kb, b.o.leave_free_mib, b.cap, b.h, b.npages,
	       b.o.mode == MODE_GROW ? b.o.chunks : 0, b.o.zipf_s);
	if (b.ops->fields)
		b.ops->fields(&b, LINE_CONFIG);
	printf("\n");

	b.ops->place(&b);
	schedule(&b);

	/* Placement done: wait for the driver to set up the tiering policy. */
	wait_for_go(&b);

	t0 = now_s();
	fire(&b, 0, 0);
	sample(&b, &sr, 0);
	next_report = b.o.report_interval;
	next_check = b.o.check_interval;
	t = 0;
	for (;;) {
		b.ops->access(&b, 4096);
		b.accesses += 4096;
		t = now_s() - t0;
		if (t >= b.o.duration || stop_flag)
			break;
		if (b.ops->tick)
			b.ops->tick(&b, t);
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
	       "accesses=%llu samples=%u",
	       t, t > 0 ? sr.area / t : sr.last_r, sr.last_r, (unsigned long long)b.need_bytes,
	       b.accesses, sr.n);
	if (b.ops->fields)
		b.ops->fields(&b, LINE_FINAL);
	printf("\n");
	return 0;
}
