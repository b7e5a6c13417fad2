/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * The ownership record in the state directory: which kdamond indices this
 * daemon created, their pids and the hash of the applied plan, plus what it
 * changed outside DAMON (damon_stat paused) so that a restart after a crash
 * can restore it.  Also the single-instance lock.
 */
#include <stdbool.h>
#include <stdint.h>


/* As many kdamonds as a plan has at most (plan.h checks). */
#define OWNER_MAX_KDAMONDS 32

struct owner_record {
	unsigned first, count;        /* our kdamonds: [first, first+count) */
	int64_t pids[OWNER_MAX_KDAMONDS];
	uint64_t plan_hash;
	bool paused_damon_stat;       /* we wrote N to damon_stat; restore Y on exit */
};

/* Take the instance lock (state_dir/lock).  Returns an fd, -EWOULDBLOCK if
 * another instance holds it, other -errno. */
int owner_lock(const char *state_dir);

/* True if a process holds the instance lock of state_dir (without taking
 * it, and without creating anything: for "damon-tierd status"). */
bool owner_lock_held(const char *state_dir);

/* Load/save/remove state_dir/owner.  Load: -ENOENT if none, -EINVAL if
 * malformed or not a regular file (the caller then owns nothing). Save is
 * atomic (rename). */
int owner_load(const char *state_dir, struct owner_record *ret);
int owner_save(const char *state_dir, const struct owner_record *r);
int owner_remove(const char *state_dir);
