/* Touch every page of a 64 MiB buffer RATE times a second, uniformly; at the end
 * report how many of its pages are on node 1 (move_pages query). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <signal.h>
#include <sys/syscall.h>
static volatile sig_atomic_t stop;
static void on(int s) { (void)s; stop = 1; }
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }
int main(int argc, char **argv)
{
	size_t n = 16384, ps = 4096;
	double rate = argc > 1 ? atof(argv[1]) : 3;
	char *b = aligned_alloc(ps, n * ps);
	memset(b, 1, n * ps);
	signal(SIGUSR1, on);
	printf("TOUCHER ready\n"); fflush(stdout);
	double t0 = now();
	unsigned long long k = 0;
	while (!stop) {
		/* touches due so far: rate * n * elapsed */
		double due = rate * n * (now() - t0);
		while (k < due) { b[(k * 7919 % n) * ps + (k % 512) * 8]++; k++; }
		usleep(2000);
	}
	void **pages = malloc(n * sizeof(void *));
	int *st = malloc(n * sizeof(int));
	for (size_t i = 0; i < n; i++) pages[i] = b + i * ps;
	long r = syscall(SYS_move_pages, 0, n, pages, NULL, st, 0);
	size_t on1 = 0;
	for (size_t i = 0; i < n; i++) on1 += st[i] == 1;
	printf("TOUCHER rc=%ld rate=%.1f on_node1=%zu of %zu touches=%llu\n", r, rate, on1, n, k);
	return 0;
}
