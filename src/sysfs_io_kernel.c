/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The daemon's binding of the I/O seams (sysfs_io.h) to the files. */
#include "sysfs_io.h"

int io_read(int root, const char *path, char *buf, size_t size)
{
	return io_file_read(root, path, buf, size);
}

int io_write(int root, const char *path, const char *value)
{
	return io_file_write(root, path, value);
}
