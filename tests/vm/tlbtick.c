// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tlbtick: make a TCG guest's accessed bits behave like a real CPU's.
 *
 * DAMON (and page reclaim) learn that a page was used by clearing the
 * accessed bit of its PTEs and looking again later.  A CPU sets the bit
 * again only when it walks the page table, that is on a TLB miss, and
 * x86 Linux clears the bit without a TLB flush.  On hardware this is
 * harmless: a hot set of thousands of pages does not fit the TLB, so a
 * walk, and the bit, come back within microseconds.  QEMU's TCG TLB is
 * software, grows to millions of entries and is only emptied by a flush
 * (a CR3 write on a switch between processes, an INVLPG).  A workload
 * that has its vCPU to itself (kernel threads such as kdamond switch in
 * without a CR3 write) can then touch its hot set for seconds without
 * the accessed bit ever being set again, and DAMON sees a hot set as cold
 * for as long as nothing else runs there.  That made VM tests flaky and
 * benchmarks depend on what else happened to run.
 *
 * tlbtick forks one process per online CPU, pinned to it, that sleeps
 * --period-us (default 1000) and wakes: each wake-up is a switch between
 * processes on that CPU and empties its TLB, so the bit comes back within
 * a period, as it would on hardware for a hot set larger than the TLB.
 * The period is far below every DAMON sampling interval the daemon uses.
 *
 * Usage: tlbtick [--period-us N]   (runs until killed; the children die
 * with the parent)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

static void tick(int cpu, long period_us)
{
	cpu_set_t set;
	struct timespec ts = { .tv_sec = period_us / 1000000,
			       .tv_nsec = (period_us % 1000000) * 1000 };

	/* The ticker must not outlive the init script that started it. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) < 0) {
		fprintf(stderr, "tlbtick: cpu %d: sched_setaffinity: %s\n", cpu, strerror(errno));
		_exit(1);
	}
	for (;;)
		nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
	long period_us = 1000;
	long ncpu;

	if (argc == 3 && strcmp(argv[1], "--period-us") == 0) {
		char *end;

		period_us = strtol(argv[2], &end, 10);
		if (*end || period_us < 10 || period_us > 10000000) {
			fprintf(stderr, "tlbtick: --period-us wants 10..10000000, not '%s'\n", argv[2]);
			return 2;
		}
	} else if (argc != 1) {
		fprintf(stderr, "usage: tlbtick [--period-us N]\n");
		return 2;
	}
	ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	if (ncpu < 1)
		ncpu = 1;
	for (int cpu = 0; cpu < ncpu; cpu++) {
		pid_t pid = fork();

		if (pid < 0) {
			fprintf(stderr, "tlbtick: fork: %s\n", strerror(errno));
			return 1;
		}
		if (pid == 0)
			tick(cpu, period_us);
	}
	for (;;)
		pause();
}
