/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * Act: the two settings of the host outside DAMON's admin tree that the
 * daemon may change while it runs, and change back: damon_stat (paused,
 * because its exclusive context blocks every sysfs kdamond) and the tiering
 * bit of NUMA balancing (only with numa_balancing = disable-tiering).  With
 * `dry` non-NULL nothing is written: "write PATH VALUE" is printed there.
 * Each returns 0 or -errno and logs nothing; *failed is set to the path
 * (relative to the root, or the state directory) it wrote last.
 */
#include <stdbool.h>
#include <stdio.h>

#include "owner.h"

#define HOST_DAMON_STAT_ENABLED "sys/module/damon_stat/parameters/enabled"
#define HOST_NUMA_BALANCING "proc/sys/kernel/numa_balancing"

/*
 * Pause damon_stat.  The ownership record `rec` (which must say
 * paused_damon_stat) is saved in state_dir first: if we crash after the
 * write, the next start knows it has to restore damon_stat on exit.
 */
int host_pause_damon_stat(int root, FILE *dry, const char *state_dir,
			  const struct owner_record *rec, const char **failed);
int host_restore_damon_stat(int root, FILE *dry, const char **failed);
int host_set_numa_balancing(int root, FILE *dry, int mode, const char **failed);
