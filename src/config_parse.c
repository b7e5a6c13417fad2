/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One file's text, parsed with inih against the key table and applied on
 * top of the files read before it.  Errors name the file and line, and for
 * an unknown section or key suggest the nearest known one.
 */
#include <errno.h>
#include <ini.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "config_internal.h"

static const char *const sections[] = { "daemon", "monitoring", "quota", "promote", "demote" };
#define NR_SECTIONS (sizeof(sections) / sizeof(sections[0]))

void config_set_error(struct config_error *err, const char *name, unsigned line, const char *fmt, ...)
{
	size_t used = 0;
	va_list ap;
	int n = 0;

	memset(err, 0, sizeof(*err));
	snprintf(err->file, sizeof(err->file), "%s", name ? name : "");
	err->line = line;
	if (name && line > 0)
		n = snprintf(err->message, sizeof(err->message), "%s:%u: ", name, line);
	else if (name)
		n = snprintf(err->message, sizeof(err->message), "%s: ", name);
	if (n > 0)
		used = (size_t)n < sizeof(err->message) ? (size_t)n : sizeof(err->message) - 1;

	va_start(ap, fmt);
	vsnprintf(err->message + used, sizeof(err->message) - used, fmt, ap);
	va_end(ap);
}

static int lower(int ch)
{
	return ch >= 'A' && ch <= 'Z' ? ch - 'A' + 'a' : ch;
}

/* Levenshtein distance, case-insensitive; long strings count as far. */
static unsigned edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j;
	unsigned row[65];

	if (la > 64 || lb > 64)
		return 1000;
	for (j = 0; j <= lb; j++)
		row[j] = (unsigned)j;
	for (i = 1; i <= la; i++) {
		unsigned diag = row[0];

		row[0] = (unsigned)i;
		for (j = 1; j <= lb; j++) {
			unsigned up = row[j];
			unsigned best = diag + (lower(a[i - 1]) != lower(b[j - 1]));

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}

static bool known_section(const char *s)
{
	size_t i;

	for (i = 0; i < NR_SECTIONS; i++)
		if (strcmp(s, sections[i]) == 0)
			return true;
	return false;
}

static int find_key(const char *section, const char *key)
{
	int k;

	for (k = 0; k < _CONFIG_KEY_MAX; k++)
		if (strcmp(config_key_infos[k].section, section) == 0 && strcmp(config_key_infos[k].key, key) == 0)
			return k;
	return -1;
}

static void unknown_section_error(struct config_error *err, const char *name, unsigned line,
				  const char *section)
{
	const char *best = NULL;
	unsigned best_d = 3;
	size_t i;

	for (i = 0; i < NR_SECTIONS; i++) {
		unsigned dist = edit_distance(section, sections[i]);

		if (dist < best_d) {
			best_d = dist;
			best = sections[i];
		}
	}
	if (best)
		config_set_error(err, name, line, "[%.64s]: unknown section (did you mean [%s]?)", section, best);
	else
		config_set_error(err, name, line,
				 "[%.64s]: unknown section (expected [daemon], [monitoring], [quota], [promote] or [demote])",
				 section);
}

static void unknown_key_error(struct config_error *err, const char *name, unsigned line,
			      const char *section, const char *key)
{
	char list[256] = "";
	int k, best = -1;
	unsigned best_d = 3;

	/* Right key, wrong section: say where it belongs. */
	for (k = 0; k < _CONFIG_KEY_MAX; k++)
		if (strcmp(config_key_infos[k].key, key) == 0) {
			config_set_error(err, name, line, "[%s] %.64s: unknown key in this section (it belongs in [%s])",
					 section, key, config_key_infos[k].section);
			return;
		}

	/* Prefer a near miss in the same section. */
	for (k = 0; k < _CONFIG_KEY_MAX; k++) {
		unsigned dist = edit_distance(key, config_key_infos[k].key);
		bool same = strcmp(config_key_infos[k].section, section) == 0;

		if (dist < best_d || (dist == best_d && same && best >= 0 &&
				      strcmp(config_key_infos[best].section, section) != 0)) {
			best_d = dist;
			best = k;
		}
	}
	if (best >= 0 && strcmp(config_key_infos[best].section, section) == 0) {
		config_set_error(err, name, line, "[%s] %.64s: unknown key (did you mean \"%s\"?)",
				 section, key, config_key_infos[best].key);
		return;
	}
	if (best >= 0) {
		config_set_error(err, name, line, "[%s] %.64s: unknown key (did you mean \"%s\" in [%s]?)",
				 section, key, config_key_infos[best].key, config_key_infos[best].section);
		return;
	}

	for (k = 0; k < _CONFIG_KEY_MAX; k++) {
		if (strcmp(config_key_infos[k].section, section) != 0)
			continue;
		if (list[0])
			strncat(list, ", ", sizeof(list) - strlen(list) - 1);
		strncat(list, config_key_infos[k].key, sizeof(list) - strlen(list) - 1);
	}
	config_set_error(err, name, line, "[%s] %.64s: unknown key (keys of [%s]: %s)", section, key, section, list);
}

struct parse_ctx {
	struct config_merge *m;
	const char *name;
	const char *text, *p, *end;
	unsigned line;       /* the line inih is working on */
	uint64_t file_mask;  /* keys this file set: twice in one file is an error */
	bool failed;
	struct config_error err;
};

/*
 * Our own line reader (for ini_parse_stream) rather than ini_parse_string():
 * inih only reports line numbers through its return value, and counting the
 * lines we hand it gives the handler the exact line.  It also strips leading
 * blanks, because inih would otherwise take an indented "key = value" as a
 * continuation of the previous value, and it checks section headers itself,
 * so an unknown section is reported at its header even if it has no keys.
 */
static char *read_line(char *str, int num, void *stream)
{
	struct parse_ctx *ctx = stream;
	const char *line = ctx->p, *nl;
	size_t len;

	if (ctx->failed || ctx->p >= ctx->end)
		return NULL;  /* stop at the first error: only one is reported */

	ctx->line++;
	nl = memchr(ctx->p, '\n', (size_t)(ctx->end - ctx->p));
	len = nl ? (size_t)(nl - ctx->p) + 1 : (size_t)(ctx->end - ctx->p);
	ctx->p += len;

	if (ctx->line == 1 && len >= 3 && memcmp(line, "\xEF\xBB\xBF", 3) == 0) {
		line += 3;
		len -= 3;
	}
	while (len > 0 && (*line == ' ' || *line == '\t')) {
		line++;
		len--;
	}
	if (num < 2 || len > (size_t)num - 1) {
		config_set_error(&ctx->err, ctx->name, ctx->line, "line too long (%zu bytes; at most %d)",
				 len, num - 2);
		ctx->failed = true;
		str[0] = '\0';
		return str;
	}
	memcpy(str, line, len);
	str[len] = '\0';

	if (str[0] == '[') {
		const char *close = strchr(str, ']');

		if (close) {
			char section[64];

			snprintf(section, sizeof(section), "%.*s", (int)(close - str - 1), str + 1);
			if (!known_section(section)) {
				unknown_section_error(&ctx->err, ctx->name, ctx->line, section);
				ctx->failed = true;
				str[0] = '\0';
			}
		}
	}
	return str;
}

static int handle_key(void *user, const char *section, const char *key, const char *value)
{
	struct parse_ctx *ctx = user;
	unsigned line = ctx->line;
	char what[96], expected[256];
	const char *hint = "";
	int k;

	if (ctx->failed)
		return 0;
	ctx->failed = true;  /* until the key is accepted */

	if (section[0] == '\0') {
		for (k = 0; k < _CONFIG_KEY_MAX; k++)
			if (strcmp(config_key_infos[k].key, key) == 0)
				break;
		if (k < _CONFIG_KEY_MAX)
			config_set_error(&ctx->err, ctx->name, line, "%.64s: key outside any section (put it under [%s])",
					 key, config_key_infos[k].section);
		else
			config_set_error(&ctx->err, ctx->name, line, "%.64s: key outside any section (and not a known key)",
					 key);
		return 0;
	}
	if (!known_section(section)) {
		/* read_line() catches these first; kept for headers it cannot see. */
		unknown_section_error(&ctx->err, ctx->name, line, section);
		return 0;
	}
	if (key[0] == '\0') {
		config_set_error(&ctx->err, ctx->name, line, "[%s]: missing key name before '=' (got \"= %.64s\")",
				 section, value);
		return 0;
	}
	k = find_key(section, key);
	if (k < 0) {
		unknown_key_error(&ctx->err, ctx->name, line, section, key);
		return 0;
	}
	if (ctx->file_mask & (UINT64_C(1) << k)) {
		/* Within one file a second assignment is a mistake; across
		 * files it is what drop-ins are for. */
		config_set_error(&ctx->err, ctx->name, line, "[%s] %s: duplicate key (first set on line %u; keep only one)",
				 section, key, ctx->m->key_line[k]);
		return 0;
	}

	config_fmt_expected((enum config_key)k, expected, sizeof(expected));
	/* Empty is a value only where it means "off". */
	if (value[0] == '\0' && !(config_key_defs[k].kind == K_PATH && !config_key_defs[k].min)) {
		config_set_error(&ctx->err, ctx->name, line, "[%s] %s: empty value (expected %s)", section, key, expected);
		return 0;
	}
	if (config_parse_value((enum config_key)k, value, &ctx->m->cfg, what, sizeof(what)) < 0) {
		if (strchr(value, '#'))
			hint = "; comments after a value start with ';', '#' only at the start of a line";
		config_set_error(&ctx->err, ctx->name, line, "[%s] %s: %s (got \"%.64s\"; expected %s%s)",
				 section, key, what, value, expected, hint);
		return 0;
	}

	ctx->m->cfg.set_mask |= UINT64_C(1) << k;
	ctx->file_mask |= UINT64_C(1) << k;
	ctx->m->key_file[k] = ctx->name;
	ctx->m->key_line[k] = line;
	ctx->m->key_seq[k] = ++ctx->m->seq;
	ctx->failed = false;
	return 1;
}

/* Line n (1-based) of text, for messages about lines inih rejected. */
static void get_line(const char *text, const char *end, unsigned n, char *buf, size_t size)
{
	const char *p = text, *nl;
	size_t len;

	for (; n > 1 && p < end; n--) {
		nl = memchr(p, '\n', (size_t)(end - p));
		p = nl ? nl + 1 : end;
	}
	nl = memchr(p, '\n', (size_t)(end - p));
	len = (nl ? (size_t)(nl - p) : (size_t)(end - p));
	while (len > 0 && (p[len - 1] == '\r' || p[len - 1] == ' ' || p[len - 1] == '\t'))
		len--;
	while (len > 0 && (*p == ' ' || *p == '\t')) {
		p++;
		len--;
	}
	snprintf(buf, size, "%.*s", (int)(len > 64 ? 64 : len), p);
}

int config_parse_text(struct config_merge *m, const char *text, size_t len, const char *name,
		      struct config_error *err)
{
	struct parse_ctx ctx = {
		.m = m,
		.name = name,
		.text = text,
		.p = text,
		.end = text + len,
	};
	int r;

	if (memchr(text, '\0', len)) {
		config_set_error(err, name, 0, "contains a NUL byte: not a text file");
		return -EINVAL;
	}

	r = ini_parse_stream(read_line, &ctx, handle_key, &ctx);
	if (r < 0) {
		config_set_error(err, name, 0, "out of memory while parsing");
		return -ENOMEM;
	}
	if (r > 0 && (!ctx.failed || (unsigned)r < ctx.err.line)) {
		/* A line inih itself rejected, before any error of ours. */
		char text_line[80];

		get_line(text, text + len, (unsigned)r, text_line, sizeof(text_line));
		if (text_line[0] == '[')
			config_set_error(err, name, (unsigned)r,
					 "section header without closing ']' (got \"%s\"; expected \"[section]\")", text_line);
		else
			config_set_error(err, name, (unsigned)r,
					 "cannot parse line (got \"%s\"; expected \"key = value\", \"[section]\" "
					 "or a comment starting with '#' or ';')", text_line);
		return -EINVAL;
	}
	if (ctx.failed) {
		*err = ctx.err;
		return -EINVAL;
	}
	return 0;
}
