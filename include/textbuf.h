/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * A bounded text appender for the pure formatters (status.c, explain.c):
 * every format function is a list of tb_put()s into a caller's buffer, and
 * tb_done() says at the end whether it all fitted.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct textbuf {
	char *buf;
	size_t size, off;
	bool overflow;
};

#define TEXTBUF_INIT(b, s) { (b), (s), 0, (s) == 0 }

/* Append; once something did not fit, nothing more is (buf stays a
 * terminated prefix when size > 0). */
void tb_put(struct textbuf *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Bytes for people: "1.5GiB", "3.0MiB", "4.0KiB", "512B". */
void tb_bytes(struct textbuf *t, uint64_t v);
/* 0, or -ENOBUFS if something did not fit. */
int tb_done(const struct textbuf *t);
