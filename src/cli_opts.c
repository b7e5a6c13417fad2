/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Refusing an option, for both command lines (cli_opts.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli_opts.h"

int cli_vusage_error(const char *help, const char *fmt, va_list ap)
{
	fputs("damon-tierd: ", stderr);
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "; try '%s'.\n", help);
	return -EINVAL;
}

int cli_usage_error(const char *help, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = cli_vusage_error(help, fmt, ap);
	va_end(ap);
	return r;
}

int cli_bad_option(const char *help, int c, const char *arg, const struct option *longopts)
{
	if (strncmp(arg, "--", 2) == 0) {
		size_t n = strcspn(arg + 2, "=");
		const struct option *lo, *found = NULL;
		unsigned matches = 0;

		/* getopt_long() takes a unique prefix of a name, too. */
		for (lo = longopts; lo->name; lo++) {
			if (strncmp(lo->name, arg + 2, n) != 0)
				continue;
			if (strlen(lo->name) == n) {
				found = lo;
				matches = 1;
				break;
			}
			found = lo;
			matches++;
		}
		if (matches > 1)
			return cli_usage_error(help, "ambiguous option '--%.*s'", (int)n, arg + 2);
		if (!found)
			return cli_usage_error(help, "unknown option '--%.*s'", (int)n, arg + 2);
		lo = found;
		if (c == ':')
			return cli_usage_error(help, "--%s needs a value", lo->name);
		return cli_usage_error(help, "--%s takes no value (got '%s')", lo->name, arg);
	}
	if (c == ':')
		return cli_usage_error(help, "-%c needs a value", optopt);
	return cli_usage_error(help, "unknown option '-%c'", optopt);
}
