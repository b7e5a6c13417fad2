/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

#include "textbuf.h"

void tb_put(struct textbuf *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (t->overflow)
		return;
	va_start(ap, fmt);
	n = vsnprintf(t->buf + t->off, t->size - t->off, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= t->size - t->off) {
		t->overflow = true;
		return;
	}
	t->off += (size_t)n;
}

void tb_bytes(struct textbuf *t, uint64_t v)
{
	if (v >= 1024ull * 1024 * 1024)
		tb_put(t, "%.1fGiB", (double)v / (1024.0 * 1024 * 1024));
	else if (v >= 1024 * 1024)
		tb_put(t, "%.1fMiB", (double)v / (1024.0 * 1024));
	else if (v >= 1024)
		tb_put(t, "%.1fKiB", (double)v / 1024.0);
	else
		tb_put(t, "%" PRIu64 "B", v);
}

int tb_done(const struct textbuf *t)
{
	return t->overflow ? -ENOBUFS : 0;
}
