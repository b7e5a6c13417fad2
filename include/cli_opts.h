/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * What the command lines of `damon-tierd` and `damon-tierd status` say when
 * they refuse an option: one line on stderr, starting with the program's
 * name like every other message, and ending with where to read more.
 */
#include <getopt.h>
#include <stdarg.h>

/* "damon-tierd: <message>; try '<help>'." on stderr.  Returns -EINVAL. */
int cli_usage_error(const char *help, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int cli_vusage_error(const char *help, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

/* What getopt_long() refused (c is '?' or ':', with opterr = 0 and an
 * optstring starting with ':'), said by name: `arg` is the argument it
 * stopped at, "--name[=value]" or "-xyz".  Returns -EINVAL. */
int cli_bad_option(const char *help, int c, const char *arg, const struct option *longopts);
