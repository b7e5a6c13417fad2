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
#include <stdlib.h>
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
				 "[%.64s]: unknown section (expected [daemon], [monitoring], [quota], [promote], [demote] or [cgroup NAME])",
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
	char section[16];    /* the section inih is in (read_line() saw its header) */
	int cgroup;          /* section "cgroup": the rule's index in m->cfg.cgroups */
	uint64_t file_mask;  /* keys this file set: twice in one file is an error */
	unsigned cg_mask[CONFIG_MAX_CGROUPS]; /* the same per [cgroup NAME] */
	bool failed;
	struct config_error err;
};

static int handle_key(void *user, const char *section, const char *key, const char *value);

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\f' || c == '\v';
}

/* The error for a line that is no header, key line or comment. */
static void cannot_parse_error(struct config_error *err, const char *name, unsigned line,
			       const char *text, size_t len)
{
	while (len > 0 && is_blank(text[len - 1]))
		len--;
	config_set_error(err, name, line, "cannot parse line (got \"%.*s%s\"; expected \"key = value\", "
			 "\"[section]\" or a comment starting with '#' or ';')",
			 (int)(len > 64 ? 64 : len), text, len > 64 ? "..." : "");
}

/*
 * A section header, line[0] == '['.  inih takes "[daemon] interval = 10s"
 * or "[daemon]\rinterval = 10s" as the header alone and drops the rest, so
 * anything after the ']' but a comment is refused here.  Returns the known
 * section's name length, or -EINVAL with ctx->err set.
 */
static int check_header(struct parse_ctx *ctx, const char *line, size_t len)
{
	const char *close = memchr(line, ']', len);
	const char *rest;
	char section[64];
	size_t n, rlen;

	if (!close) {
		config_set_error(&ctx->err, ctx->name, ctx->line,
				 "section header without closing ']' (got \"%.*s%s\"; expected \"[section]\")",
				 (int)(len > 64 ? 64 : len), line, len > 64 ? "..." : "");
		return -EINVAL;
	}
	n = (size_t)(close - line - 1);
	if (n >= 6 && memcmp(line + 1, "cgroup", 6) == 0 && (n == 6 || is_blank(line[7]))) {
		int r = config_cgroup_open(ctx->m, line + 7, n - 6, ctx->name, ctx->line, &ctx->err);

		if (r < 0)
			return r;
		ctx->cgroup = r;
		snprintf(section, sizeof(section), "cgroup %.56s", ctx->m->cfg.cgroups[r].name);
		n = 6; /* the section inih and handle_key() see is "cgroup" */
	} else {
		snprintf(section, sizeof(section), "%.*s", (int)n, line + 1);
		if (n >= sizeof(section) || !known_section(section)) {
			unknown_section_error(&ctx->err, ctx->name, ctx->line, section);
			return -EINVAL;
		}
	}
	rest = close + 1;
	rlen = len - (size_t)(rest - line);
	while (rlen > 0 && is_blank(*rest)) {
		rest++;
		rlen--;
	}
	if (rlen > 0 && *rest != ';') {
		config_set_error(&ctx->err, ctx->name, ctx->line,
				 "[%s]: text after the section header (got \"%.*s%s\"); each key goes on a line "
				 "of its own below the header, and a comment after it starts with ';'",
				 section, (int)(rlen > 64 ? 64 : rlen), rest, rlen > 64 ? "..." : "");
		return -EINVAL;
	}
	memcpy(ctx->section, section, n);
	ctx->section[n] = '\0';
	return (int)n;
}

/*
 * inih's find_chars_or_comment() on s[0, len): the index of the first of
 * `chars`, or of the start of an inline comment (a ';' after a blank), or
 * len.
 */
static size_t find_chars_or_comment(const char *s, size_t len, const char *chars)
{
	bool was_space = false;
	size_t i;

	for (i = 0; i < len; i++) {
		if ((chars && strchr(chars, s[i])) || (was_space && s[i] == ';'))
			break;
		was_space = is_blank(s[i]);
	}
	return i;
}

static char *rstrip(char *s)
{
	size_t n = strlen(s);

	while (n > 0 && is_blank(s[n - 1]))
		s[--n] = '\0';
	return s;
}

/*
 * A key line too long for inih's line buffer (a fixed INI_MAX_LINE of 200
 * bytes in the distributions' libinih: a long path, or a long comment after
 * a value), split at `sep` (its '=' or ':') the way inih splits the short
 * ones and handed to handle_key() directly.  The file's size is then the
 * only limit.
 */
static void long_key_line(struct parse_ctx *ctx, const char *line, size_t len, size_t sep)
{
	char *copy = malloc(len + 1), *value;

	if (!copy) {
		config_set_error(&ctx->err, ctx->name, ctx->line, "out of memory");
		ctx->failed = true;
		return;
	}
	memcpy(copy, line, len);
	copy[len] = '\0';
	copy[sep] = '\0';
	value = copy + sep + 1;
	/* Before the blanks are skipped, as inih does: "key = ;x" is empty. */
	value[find_chars_or_comment(value, strlen(value), NULL)] = '\0';
	while (is_blank(*value))
		value++;
	handle_key(ctx, ctx->section, rstrip(copy), rstrip(value));
	free(copy);
}

/*
 * Our own line reader (for ini_parse_stream) rather than ini_parse_string():
 * inih only reports line numbers through its return value, and counting the
 * lines we hand it gives the handler the exact line.  It also strips leading
 * blanks, because inih would otherwise take an indented "key = value" as a
 * continuation of the previous value; it checks section headers itself, so
 * an unknown section is reported at its header even if it has no keys and
 * nothing can follow a header on its line; it refuses a carriage return
 * inside a line (a file with CR line endings would be one long line to
 * inih, read as its first header); and it takes over the lines that do not
 * fit into inih's buffer.
 */
static char *read_line(char *str, int num, void *stream)
{
	struct parse_ctx *ctx = stream;
	const char *line = ctx->p, *nl, *cr;
	size_t len, sep;
	int n;

	if (ctx->failed || ctx->p >= ctx->end)
		return NULL;  /* stop at the first error: only one is reported */

	ctx->line++;
	nl = memchr(ctx->p, '\n', (size_t)(ctx->end - ctx->p));
	len = nl ? (size_t)(nl - ctx->p) : (size_t)(ctx->end - ctx->p);
	ctx->p += nl ? len + 1 : len;

	if (ctx->line == 1 && len >= 3 && memcmp(line, "\xEF\xBB\xBF", 3) == 0) {
		line += 3;
		len -= 3;
	}
	if (len > 0 && line[len - 1] == '\r')
		len--;  /* CR LF */
	while (len > 0 && is_blank(*line)) {
		line++;
		len--;
	}
	str[0] = '\0';
	cr = memchr(line, '\r', len);
	if (cr) {
		config_set_error(&ctx->err, ctx->name, ctx->line,
				 "carriage return inside a line (after \"%.*s\"): a file with CR line endings? "
				 "Lines must end with LF or CR LF; convert it, e.g. with tr '\\r' '\\n'",
				 (int)(cr - line > 64 ? 64 : cr - line), line);
		ctx->failed = true;
		return str;
	}
	if (len == 0 || line[0] == '#' || line[0] == ';')
		return str;  /* blank or a comment, of any length */
	if (num < 32) {
		config_set_error(&ctx->err, ctx->name, ctx->line, "inih's line buffer is only %d bytes", num);
		ctx->failed = true;
		return str;
	}
	if (line[0] == '[') {
		n = check_header(ctx, line, len);
		if (n < 0)
			ctx->failed = true;
		else
			snprintf(str, (size_t)num, "[%s]", ctx->section);
		return str;
	}
	/* "key = value" or "key: value"; inih would refuse anything else too,
	 * but say only the line number. */
	sep = find_chars_or_comment(line, len, "=:");
	if (sep == len || line[sep] == ';') {
		cannot_parse_error(&ctx->err, ctx->name, ctx->line, line, len);
		ctx->failed = true;
		return str;
	}
	if (len > (size_t)num - 1) {
		long_key_line(ctx, line, len, sep);
		return str;
	}
	memcpy(str, line, len);
	str[len] = '\0';
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
	if (strcmp(section, "cgroup") == 0) {
		if (config_cgroup_key(ctx->m, (unsigned)ctx->cgroup, key, value, ctx->name, line,
				      &ctx->cg_mask[ctx->cgroup], &ctx->err) == 0)
			ctx->failed = false;
		return ctx->failed ? 0 : 1;
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
		config_set_error(&ctx->err, ctx->name, line, "[%s] %s: %s (got \"%.64s%s\"; expected %s%s)",
				 section, key, what, value, strlen(value) > 64 ? "..." : "", expected, hint);
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
	if (r > 0 && !ctx.failed) {
		/* read_line() hands inih only lines it accepts. */
		config_set_error(err, name, (unsigned)r, "cannot parse line");
		return -EINVAL;
	}
	if (ctx.failed) {
		*err = ctx.err;
		return -EINVAL;
	}
	return 0;
}
