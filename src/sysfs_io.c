/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * File access relative to a root directory fd.
 *
 * Everything goes through openat() on the root so the whole daemon can run
 * against a fixture tree; no function here logs, because only the caller
 * knows what a failed access means (a missing optional feature, or a bug).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "parse.h"
#include "sysfs_io.h"

/* The root is the anchor; "/x" and "x" mean the same file below it, and ""
 * or "/" mean the root itself. */
static const char *rel(const char *path)
{
	if (!path)
		return NULL;
	while (*path == '/')
		path++;
	return *path ? path : ".";
}

int io_root_open(const char *path)
{
	int fd;

	if (!path || !*path)
		return -EINVAL;
	fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/* Read until EOF.  Sysfs attributes must be read in one go from offset 0
 * (they are regenerated per open), so loop on short reads but never seek. */
static ssize_t read_all(int fd, char *buf, size_t size)
{
	size_t len = 0;

	while (len < size) {
		ssize_t n = read(fd, buf + len, size - len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	return (ssize_t)len;
}

static size_t strip_newlines(char *buf, size_t len)
{
	while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
		len--;
	buf[len] = '\0';
	return len;
}

/*
 * openat() for a regular file only.  Sysfs attributes and procfs files are
 * regular files; anything else in their place (a FIFO, a device, a socket in
 * a captured tree or under a wrong --sysfs-root) could block the open or the
 * read for ever.  O_NONBLOCK keeps the open of a FIFO from waiting for a
 * writer; it is cleared again once the file is known to be regular, so
 * reads and writes behave as without it.
 */
static int open_regular(int root, const char *path, int flags)
{
	struct stat st;
	int fd, r;

	fd = openat(root, path, flags | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		r = -errno;
		goto fail;
	}
	if (S_ISDIR(st.st_mode)) {
		r = -EISDIR;
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		r = -IO_ENOTREG;
		goto fail;
	}
	/* F_SETFL ignores the access mode and O_TRUNC: this clears O_NONBLOCK. */
	if (fcntl(fd, F_SETFL, flags) < 0) {
		r = -errno;
		goto fail;
	}
	return fd;
fail:
	close(fd);
	return r;
}

const char *io_strerror(int err)
{
	if (err == -IO_ENOTREG)
		return "not a regular file (a FIFO, device or socket in place of the kernel's file)";
	if (err == -EBADMSG)
		return "unexpected content, not what the kernel writes there";
	return strerror(err < 0 ? -err : err);
}

static int read_file(int root, const char *path, char *buf, size_t size)
{
	ssize_t n;
	char extra;
	int fd, r;

	fd = open_regular(root, path, O_RDONLY);
	if (fd < 0)
		return fd;
	n = read_all(fd, buf, size - 1);
	if (n < 0) {
		r = (int)n;
		goto out;
	}
	if ((size_t)n == size - 1) {
		/* Full buffer: only fine if the file ends exactly here. */
		ssize_t m = read_all(fd, &extra, 1);

		if (m < 0) {
			r = (int)m;
			goto out;
		}
		if (m > 0) {
			r = -E2BIG;
			goto out;
		}
	}
	r = (int)strip_newlines(buf, (size_t)n);
out:
	close(fd);
	return r;
}

int io_file_read(int root, const char *path, char *buf, size_t size)
{
	const char *p = rel(path);

	if (!p || !buf || size == 0 || size > INT32_MAX)
		return -EINVAL;
	return read_file(root, p, buf, size);
}

int io_read_alloc(int root, const char *path, char **ret, size_t max)
{
	const char *p = rel(path);
	size_t cap, len = 0;
	char *buf;
	int fd, r;

	if (!p || !ret || max == 0 || max > INT32_MAX)
		return -EINVAL;
	fd = open_regular(root, p, O_RDONLY);
	if (fd < 0)
		return fd;

	/* procfs files report st_size 0, so grow as we go. */
	cap = max + 1 < 16384 ? max + 1 : 16384;
	buf = malloc(cap);
	if (!buf) {
		r = -ENOMEM;
		goto fail;
	}
	for (;;) {
		ssize_t n;

		if (len == cap - 1) {
			char extra, *nb;

			if (cap == max + 1) {
				n = read_all(fd, &extra, 1);
				if (n < 0) {
					r = (int)n;
					goto fail;
				}
				if (n > 0) {
					r = -E2BIG;
					goto fail;
				}
				break;
			}
			cap = cap * 2 < max + 1 ? cap * 2 : max + 1;
			nb = realloc(buf, cap);
			if (!nb) {
				r = -ENOMEM;
				goto fail;
			}
			buf = nb;
		}
		n = read(fd, buf + len, cap - 1 - len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			goto fail;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	close(fd);
	*ret = buf;
	return (int)len;

fail:
	free(buf);
	close(fd);
	return r;
}

int io_read_u64(int root, const char *path, uint64_t *ret)
{
	char buf[64];
	int r;

	r = io_read(root, path, buf, sizeof(buf));
	if (r < 0)
		return r;
	return parse_u64(buf, ret);
}

int io_read_s64(int root, const char *path, int64_t *ret)
{
	char buf[64];
	int r;

	r = io_read(root, path, buf, sizeof(buf));
	if (r < 0)
		return r;
	return parse_s64(buf, ret);
}

int io_file_write(int root, const char *path, const char *value)
{
	const char *p = rel(path);
	size_t len;
	ssize_t n;
	int fd, r = 0;

	if (!p || !value)
		return -EINVAL;
	/* No O_CREAT: a missing attribute means a missing kernel feature and
	 * must stay -ENOENT.  O_TRUNC is a no-op on sysfs and keeps plain
	 * files in test trees from keeping a longer old value's tail. */
	fd = open_regular(root, p, O_WRONLY | O_TRUNC);
	if (fd < 0)
		return fd;
	len = strlen(value);
	/* One write(2): sysfs hands each write to the attribute's store()
	 * separately, so a split value would be parsed as two. */
	do
		n = write(fd, value, len);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		r = -errno;
	else if ((size_t)n != len)
		r = -EIO;
	close(fd);
	return r;
}

int io_writef(int root, const char *path, const char *fmt, ...)
{
	char buf[IO_VALUE_MAX];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		return -EINVAL;
	if ((size_t)n >= sizeof(buf))
		return -E2BIG;
	return io_write(root, path, buf);
}

bool io_exists(int root, const char *path)
{
	const char *p = rel(path);
	struct stat st;

	if (!p)
		return false;
	/* Follow symlinks: nodeN/memoryM links count only if the block is there. */
	return fstatat(root, p, &st, 0) == 0;
}

int io_for_each_entry(int root, const char *path,
		      int (*fn)(const char *name, void *userdata), void *userdata)
{
	const char *p = rel(path);
	struct dirent *de;
	DIR *d;
	int fd, r = 0;

	if (!p || !fn)
		return -EINVAL;
	fd = openat(root, p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	d = fdopendir(fd);
	if (!d) {
		r = -errno;
		close(fd);
		return r;
	}
	for (;;) {
		errno = 0;
		de = readdir(d);
		if (!de) {
			if (errno != 0)
				r = -errno;
			break;
		}
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		r = fn(de->d_name, userdata);
		if (r != 0)
			break;
	}
	closedir(d);
	return r;
}

int io_path(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!buf || size == 0)
		return -EINVAL;
	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -EINVAL;
	if ((size_t)n >= size)
		return -ENAMETOOLONG;
	return 0;
}
