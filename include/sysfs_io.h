/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * All file access of the daemon goes through here, relative to a root
 * directory fd (--sysfs-root, "/" in production), so unit tests can point it
 * at a fixture tree.  Paths passed in are relative ("sys/kernel/mm/damon/...";
 * a leading '/' is skipped).  All functions return 0 or a negative errno and
 * log nothing: the caller knows what the access was for.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define IO_VALUE_MAX 4096

/*
 * The error (negated) of a read or write whose path is not a regular file: a
 * FIFO, device or socket where a sysfs or procfs file belongs.  They are
 * refused without blocking.  No errno means "not a regular file", and the
 * kernel's files never return this one; io_strerror() says what it means.
 */
#define IO_ENOTREG EMEDIUMTYPE

/* strerror(-err), but for -IO_ENOTREG and for -EBADMSG (what readers return
 * for a file whose content is not what the kernel writes) a message saying
 * what they mean. */
const char *io_strerror(int err);

/* Open `path` as the root.  Returns an O_PATH|O_DIRECTORY fd or -errno. */
int io_root_open(const char *path);

/* Read a whole small file into buf (NUL-terminated, trailing newlines
 * stripped).  -E2BIG if it does not fit.  Returns the length or -errno. */
int io_read(int root, const char *path, char *buf, size_t size);
/* Read a large text file (e.g. proc/zoneinfo) into a malloc'd string. */
int io_read_alloc(int root, const char *path, char **ret, size_t max);

int io_read_u64(int root, const char *path, uint64_t *ret);
int io_read_s64(int root, const char *path, int64_t *ret);

/* Write `value` with one write(2), as sysfs expects.  The kernel's return
 * (e.g. -EBUSY, -EINVAL) is passed through. */
int io_write(int root, const char *path, const char *value);
int io_writef(int root, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

bool io_exists(int root, const char *path);

/* Call fn for every entry name of directory `path` (no "." / "..").
 * Stops and returns fn's value if it is non-zero. */
int io_for_each_entry(int root, const char *path,
		      int (*fn)(const char *name, void *userdata), void *userdata);

/* Format a path into buf; -ENAMETOOLONG if it does not fit. */
int io_path(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * The two seams: io_read() and io_write() are what every module calls, and
 * every other function here reads and writes through them.  The daemon
 * binds them to the files (sysfs_io_kernel.c: io_file_read/io_file_write);
 * the unit tests bind them to a fake DAMON sysfs that behaves like the
 * kernel's (tests/unit/fake_damon.c) instead.  So the production binary
 * carries no test hook.
 */
int io_file_read(int root, const char *path, char *buf, size_t size);
int io_file_write(int root, const char *path, const char *value);
