/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdio.h>

#include "host_tunables.h"
#include "sysfs_io.h"

static int write_or_print(int root, FILE *dry, const char *path, const char *value,
			  const char **failed)
{
	int r = 0;

	if (dry)
		fprintf(dry, "write /%s %s\n", path, value);
	else
		r = io_write(root, path, value);
	*failed = path;
	return r;
}

int host_pause_damon_stat(int root, FILE *dry, const char *state_dir,
			  const struct owner_record *rec, const char **failed)
{
	int r = dry ? 0 : owner_save(state_dir, rec);

	if (r < 0) {
		*failed = state_dir;
		return r;
	}
	return write_or_print(root, dry, HOST_DAMON_STAT_ENABLED, "N", failed);
}

int host_restore_damon_stat(int root, FILE *dry, const char **failed)
{
	return write_or_print(root, dry, HOST_DAMON_STAT_ENABLED, "Y", failed);
}

int host_set_numa_balancing(int root, FILE *dry, int mode, const char **failed)
{
	char v[16];

	snprintf(v, sizeof(v), "%d", mode);
	return write_or_print(root, dry, HOST_NUMA_BALANCING, v, failed);
}
