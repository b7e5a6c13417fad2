/* hog: writes N MiB once and sleeps (tests/bench/experiments/first-pass). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	size_t mib = strtoul(argv[1], 0, 0), sz = mib << 20;
	char *p = malloc(sz);
	memset(p, 1, sz);
	printf("HOG ready %zu MiB\n", mib); fflush(stdout);
	pause();
	return 0;
}
