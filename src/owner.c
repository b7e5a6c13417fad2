/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Ownership record and instance lock.  The record is small text so that an
 * operator can read it: state_dir/owner, /run/damon-tierd/owner by default.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "owner.h"

static int mkdir_p(const char *dir)
{
	char buf[256];
	size_t n = strlen(dir);

	if (n == 0 || n >= sizeof(buf))
		return -ENAMETOOLONG;
	memcpy(buf, dir, n + 1);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) < 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(buf, 0755) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

static int state_path(char *buf, size_t size, const char *dir, const char *name)
{
	int n = snprintf(buf, size, "%s/%s", dir, name);

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

int owner_lock(const char *state_dir)
{
	char path[300];
	int fd, r;

	r = mkdir_p(state_dir);
	if (r < 0)
		return r;
	r = state_path(path, sizeof(path), state_dir, "lock");
	if (r < 0)
		return r;
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		r = errno == EWOULDBLOCK ? -EWOULDBLOCK : -errno;
		close(fd);
		return r;
	}
	return fd;
}

bool owner_lock_held(const char *state_dir)
{
	char path[300];
	bool held = false;
	int fd;

	if (state_path(path, sizeof(path), state_dir, "lock") < 0)
		return false;
	/* O_NONBLOCK: "status" must not hang on a FIFO put there. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return false;
	if (flock(fd, LOCK_SH | LOCK_NB) < 0 && errno == EWOULDBLOCK)
		held = true;
	close(fd);
	return held;
}

int owner_load(const char *state_dir, struct owner_record *ret)
{
	struct owner_record rec = {};
	char path[300], line[256];
	unsigned seen = 0, npids = 0;
	FILE *f;
	int r;

	r = state_path(path, sizeof(path), state_dir, "owner");
	if (r < 0)
		return r;
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		unsigned u;
		uint64_t h;
		int64_t pid;

		if (sscanf(line, "first=%u", &u) == 1) {
			rec.first = u;
			seen |= 1;
		} else if (sscanf(line, "count=%u", &u) == 1 && u <= OWNER_MAX_KDAMONDS) {
			rec.count = u;
			seen |= 2;
		} else if (sscanf(line, "plan_hash=%" SCNx64, &h) == 1) {
			rec.plan_hash = h;
			seen |= 4;
		} else if (sscanf(line, "pid=%" SCNd64, &pid) == 1 && npids < OWNER_MAX_KDAMONDS) {
			rec.pids[npids++] = pid;
		} else if (sscanf(line, "paused_damon_stat=%u", &u) == 1) {
			rec.paused_damon_stat = u != 0;
		} else {
			fclose(f);
			return -EINVAL;
		}
	}
	fclose(f);
	if (seen != 7 || npids != rec.count)
		return -EINVAL;
	*ret = rec;
	return 0;
}

int owner_save(const char *state_dir, const struct owner_record *rec)
{
	char path[300], tmp[310];
	FILE *f;
	int r;

	r = mkdir_p(state_dir);
	if (r < 0)
		return r;
	r = state_path(path, sizeof(path), state_dir, "owner");
	if (r < 0)
		return r;
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "we");
	if (!f)
		return -errno;
	fprintf(f, "first=%u\ncount=%u\nplan_hash=%016" PRIx64 "\npaused_damon_stat=%u\n",
		rec->first, rec->count, rec->plan_hash, rec->paused_damon_stat ? 1u : 0u);
	for (unsigned i = 0; i < rec->count && i < OWNER_MAX_KDAMONDS; i++)
		fprintf(f, "pid=%" PRId64 "\n", rec->pids[i]);
	if (fflush(f) != 0 || fsync(fileno(f)) < 0) {
		r = -errno;
		fclose(f);
		unlink(tmp);
		return r;
	}
	if (fclose(f) != 0 || rename(tmp, path) < 0) {
		r = -errno;
		unlink(tmp);
		return r;
	}
	return 0;
}

int owner_remove(const char *state_dir)
{
	char path[300];
	int r;

	r = state_path(path, sizeof(path), state_dir, "owner");
	if (r < 0)
		return r;
	if (unlink(path) < 0 && errno != ENOENT)
		return -errno;
	return 0;
}
