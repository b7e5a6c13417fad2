// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tierload: the process, the clock, random numbers and the kernel
 * interfaces (raw syscalls, node meminfo, zone watermarks).
 */
#include "tierload.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef MPOL_DEFAULT
#define MPOL_DEFAULT 0
#define MPOL_BIND 2
#endif

void die(const char *what)
{
	fprintf(stderr, "tierload: %s: %s\n", what, strerror(errno));
	exit(1);
}

void fail(const char *msg)
{
	fprintf(stderr, "tierload: %s\n", msg);
	exit(1);
}

double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

uint64_t xorshift64(uint64_t *s)
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

long sys_move_pages(unsigned long count, void **pages, const int *nodes, int *status, int flags)
{
	return syscall(SYS_move_pages, 0, count, pages, nodes, status, flags);
}

void thread_policy(int node)
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

long node_meminfo_kb(int node, const char *field)
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
 * Promotion (and any allocation without reclaim) cannot use the memory below
 * the high watermarks, so they are not "room" for a new hot set.  The
 * watermark line is "high <pages>"; the per-cpu "high:" lines have a colon
 * and do not match.
 */
long node_wmark_high_kb(int node)
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
