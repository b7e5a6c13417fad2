/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The fake DAMON sysfs against what real kernels showed.  tests/golden/damon-sysfs
 * holds, per kernel, the sysfs tree of one kdamond with one of everything, its
 * default values, which keywords each keyword file accepts and the damon_*
 * module parameters, all captured in QEMU by tests/vm/guest/golden-guest.sh
 * (see the README there).  Each profile of the fake builds the same tree the
 * same way and must show the same; where it differs on purpose, the
 * difference is listed below with its reason.  A mismatch names the path and
 * both sides, and every mismatch of a check is reported before it fails. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fake_damon.h"
#include "sysfs_io.h"
#include "testutil.h"

#define DAMON "sys/kernel/mm/damon"
#define MODULES "sys/module"
#define PATH_LEN 512

struct profile {
	enum fake_profile fp;
	const char *ver; /* suffix of the golden files */
};

static const struct profile profiles[] = {
	{ FAKE_KERNEL_6_12, "6.12" },
	{ FAKE_KERNEL_6_17, "6.17" },
	{ FAKE_KERNEL_7_3, "7.3" },
};

#define P612 (1u << FAKE_KERNEL_6_12)
#define P617 (1u << FAKE_KERNEL_6_17)
#define P73 (1u << FAKE_KERNEL_7_3)

/* A known, deliberate difference: `check` at `path` (and `word` for
 * keywords) is not compared for these profiles. */
struct exception {
	unsigned profiles;
	const char *check; /* "tree", "value", "mode", "keyword", "module" */
	const char *path;
	const char *word;
	const char *why;
};

static const struct exception exceptions[] = {
	{ P617 | P73, "module", "damon_stat/parameters/enabled", NULL,
	  "the kernels boot with damon_stat on, which blocks every kdamond start; "
	  "the fake starts with it off so that a test that wants it calls "
	  "fake_damon_set_module()" },
};
#define NR_EXCEPTIONS (sizeof(exceptions) / sizeof(exceptions[0]))

/* The nr_* files that count children, raised from 0 to 1 as the capture did. */
static const char *const nr_files[] = {
	"nr_kdamonds", "nr_contexts", "nr_targets", "nr_regions", "nr_schemes",
	"nr_goals", "nr_filters", "nr_dests", "nr_probes", NULL,
};

struct entry {
	char *path; /* relative to the tree's top */
	char *a;    /* tree: kind; values/modules: value; keywords: word */
	char *b;    /* keywords: result; values/modules: "=" if a value was captured */
	bool seen;
};

struct list {
	struct entry *v;
	size_t n;
};

struct env {
	const struct profile *p;
	char *dir;
	int root;
	struct fake_damon *fk;
	unsigned mismatches;
	bool used[NR_EXCEPTIONS];
};

static bool in_list(const char *const *list, const char *word)
{
	for (; *list; list++)
		if (strcmp(*list, word) == 0)
			return true;
	return false;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

static char *xstrdup(const char *s)
{
	char *p = strdup(s);

	assert_non_null(p);
	return p;
}

static void list_add(struct list *l, const char *path, const char *a, const char *b)
{
	struct entry *v = realloc(l->v, (l->n + 1) * sizeof(*v));

	assert_non_null(v);
	l->v = v;
	v[l->n] = (struct entry) {
		.path = xstrdup(path), .a = xstrdup(a ? a : ""), .b = xstrdup(b ? b : ""),
	};
	l->n++;
}

static void list_free(struct list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].path);
		free(l->v[i].a);
		free(l->v[i].b);
	}
	free(l->v);
	*l = (struct list) { 0 };
}

static struct entry *list_find(struct list *l, const char *path)
{
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->v[i].path, path) == 0)
			return &l->v[i];
	return NULL;
}

/* A capture writes newlines inside a value as a literal \n. */
static void unescape(char *s)
{
	char *w = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] == 'n') {
			*w++ = '\n';
			s++;
		} else
			*w++ = *s;
	}
	*w = '\0';
}

/* tests/golden/damon-sysfs/<kind>-<ver>.txt, one entry a line; "#" lines are
 * comments.  Values: "PATH=VALUE" (b is "="); modules: the same, or a bare
 * "PATH" for a parameter whose value was not captured (b is ""); tree:
 * "KIND PATH"; keywords: "PATH WORD RESULT...". */
static void load(struct env *e, const char *kind, struct list *out)
{
	const char *fixtures = getenv("FIXTURES_DIR");
	char path[PATH_LEN], *line = NULL;
	size_t cap = 0;
	ssize_t len;
	FILE *f;

	assert_non_null(fixtures);
	tu_pathf(path, sizeof(path), "%s/../golden/damon-sysfs/%s-%s.txt", fixtures, kind,
		 e->p->ver);
	f = fopen(path, "r");
	if (!f)
		fail_msg("cannot open %s: %s", path, strerror(errno));
	while ((len = getline(&line, &cap, f)) >= 0) {
		char *s1, *s2;

		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		if (len == 0 || line[0] == '#')
			continue;
		if (strcmp(kind, "values") == 0 || strcmp(kind, "modules") == 0) {
			s1 = strchr(line, '=');
			if (!s1 && strcmp(kind, "modules") == 0) {
				list_add(out, line, NULL, NULL); /* b "": no value captured */
				continue;
			}
			if (!s1)
				fail_msg("%s: no '=' in \"%s\"", path, line);
			*s1++ = '\0';
			unescape(s1);
			list_add(out, line, s1, "=");
		} else if (strcmp(kind, "tree") == 0) {
			s1 = strchr(line, ' ');
			if (!s1)
				fail_msg("%s: no kind in \"%s\"", path, line);
			*s1++ = '\0';
			list_add(out, s1, line, NULL);
		} else {
			s1 = strchr(line, ' ');
			s2 = s1 ? strchr(s1 + 1, ' ') : NULL;
			if (!s1 || !s2) {
				fail_msg("%s: not \"PATH WORD RESULT\": \"%s\"", path, line);
				break;
			}
			*s1++ = '\0';
			*s2++ = '\0';
			list_add(out, line, s1, s2);
		}
	}
	free(line);
	fclose(f);
	/* A kernel may have no damon_* module parameters; it always has a tree. */
	if (out->n == 0 && strcmp(kind, "modules") != 0)
		fail_msg("%s has no entries", path);
}

/* A value as the golden files write it (newlines as \n), for messages. */
static const char *esc(const char *s, char *buf, size_t size)
{
	size_t n = 0;

	for (; *s && n + 3 < size; s++) {
		if (*s == '\n') {
			buf[n++] = '\\';
			buf[n++] = 'n';
		} else
			buf[n++] = *s;
	}
	buf[n] = '\0';
	return buf;
}

static const struct exception *excepted(struct env *e, const char *check, const char *path,
					const char *word)
{
	for (size_t i = 0; i < NR_EXCEPTIONS; i++) {
		const struct exception *x = &exceptions[i];

		if (!(x->profiles & (1u << e->p->fp)) || strcmp(x->check, check) != 0 ||
		    strcmp(x->path, path) != 0 || (x->word && (!word || strcmp(x->word, word) != 0)))
			continue;
		e->used[i] = true;
		return x;
	}
	return NULL;
}

static void mismatch(struct env *e, const char *check, const char *path, const char *word,
		     const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static void mismatch(struct env *e, const char *check, const char *path, const char *word,
		     const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	if (excepted(e, check, path, word))
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	print_error("kernel %s, %s: %s%s%s: %s\n", e->p->ver, check, path, word ? " " : "",
		    word ? word : "", msg);
	e->mismatches++;
}

/* Fails on the mismatches reported so far, and on an exception of this check
 * that no longer matches anything (the fake or the kernel changed). */
static void finish(struct env *e, const char *check)
{
	for (size_t i = 0; i < NR_EXCEPTIONS; i++) {
		const struct exception *x = &exceptions[i];

		if ((x->profiles & (1u << e->p->fp)) && strcmp(x->check, check) == 0 && !e->used[i]) {
			print_error("kernel %s, %s: exception for %s no longer needed (%s)\n",
				    e->p->ver, check, x->path, x->why);
			e->mismatches++;
		}
	}
	if (e->mismatches)
		fail_msg("kernel %s: %u %s mismatch(es) between the fake and the golden data",
			 e->p->ver, e->mismatches, check);
}

/* Every entry below `top` of the fake's tree: "d" for a directory, "f" for a file. */
static void walk(struct env *e, const char *top, const char *rel, struct list *out)
{
	char path[PATH_LEN], sub[PATH_LEN];
	struct dirent *de;
	DIR *d;

	tu_pathf(path, sizeof(path), "%s/%s%s%s", e->dir, top, *rel ? "/" : "", rel);
	d = opendir(path);
	if (!d && errno == ENOENT && !*rel)
		return; /* e.g. no sys/module/damon_* in this profile */
	if (!d)
		fail_msg("cannot open %s: %s", path, strerror(errno));
	while ((de = readdir(d))) {
		struct stat st;
		char full[PATH_LEN];

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		tu_pathf(sub, sizeof(sub), "%s%s%s", rel, *rel ? "/" : "", de->d_name);
		tu_pathf(full, sizeof(full), "%s/%s", path, de->d_name);
		assert_int_equal(stat(full, &st), 0);
		list_add(out, sub, S_ISDIR(st.st_mode) ? "d" : "f", NULL);
		if (S_ISDIR(st.st_mode))
			walk(e, top, sub, out);
	}
	closedir(d);
}

static void rd(struct env *e, const char *top, const char *rel, char *buf, size_t size)
{
	char path[PATH_LEN];
	int r;

	tu_pathf(path, sizeof(path), "%s/%s", top, rel);
	r = io_read(e->root, path, buf, size);
	if (r < 0)
		snprintf(buf, size, "(read: %s)", strerror(-r));
}

static int wr(struct env *e, const char *rel, const char *value)
{
	char path[PATH_LEN];

	tu_pathf(path, sizeof(path), DAMON "/%s", rel);
	return io_write(e->root, path, value);
}

/* One kdamond with one of everything, built as golden-guest.sh does: raise
 * every child-counting nr_* file still at 0, until none is. */
static void raise_all(struct env *e)
{
	for (int pass = 0;; pass++) {
		struct list l = { 0 };
		bool raised = false;
		char v[64];

		assert_true(pass <= 10);
		walk(e, DAMON, "", &l);
		for (size_t i = 0; i < l.n; i++) {
			if (strcmp(l.v[i].a, "f") != 0 || !in_list(nr_files, base_name(l.v[i].path)))
				continue;
			rd(e, DAMON, l.v[i].path, v, sizeof(v));
			if (strcmp(v, "0") != 0)
				continue;
			if (wr(e, l.v[i].path, "1") != 0)
				fail_msg("kernel %s: cannot raise %s", e->p->ver, l.v[i].path);
			raised = true;
		}
		list_free(&l);
		if (!raised)
			return;
	}
}

static int setup(void **state, const struct profile *p)
{
	struct env *e = calloc(1, sizeof(*e));

	assert_non_null(e);
	e->p = p;
	e->dir = tu_mkdtemp();
	e->fk = fake_damon_new(e->dir, p->fp);
	e->root = io_root_open(e->dir);
	assert_true(e->root >= 0);
	raise_all(e);
	*state = e;
	return 0;
}

static int setup_612(void **state) { return setup(state, &profiles[0]); }
static int setup_617(void **state) { return setup(state, &profiles[1]); }
static int setup_73(void **state) { return setup(state, &profiles[2]); }

static int teardown(void **state)
{
	struct env *e = *state;

	fake_damon_free(e->fk);
	close(e->root);
	tu_rmtree(e->dir);
	free(e->dir);
	free(e);
	return 0;
}

/* ---- checks ---- */

/* Same paths, and directories where the kernel has directories. */
static void test_tree(void **state)
{
	struct env *e = *state;
	struct list gold = { 0 }, fake = { 0 };

	load(e, "tree", &gold);
	walk(e, DAMON, "", &fake);
	for (size_t i = 0; i < gold.n; i++) {
		struct entry *g = &gold.v[i], *f = list_find(&fake, g->path);
		bool gdir = strcmp(g->a, "d") == 0;

		if (!f) {
			mismatch(e, "tree", g->path, NULL, "kernel has it (%s), the fake does not", g->a);
			continue;
		}
		f->seen = true;
		if (gdir != (strcmp(f->a, "d") == 0))
			mismatch(e, "tree", g->path, NULL, "kernel: %s, fake: %s",
				 gdir ? "directory" : "file", gdir ? "file" : "directory");
	}
	for (size_t i = 0; i < fake.n; i++)
		if (!fake.v[i].seen)
			mismatch(e, "tree", fake.v[i].path, NULL, "the fake has it, kernel does not");
	list_free(&gold);
	list_free(&fake);
	finish(e, "tree");
}

/* Default values, as read back. */
static void test_values(void **state)
{
	struct env *e = *state;
	struct list gold = { 0 };
	char v[IO_VALUE_MAX + 1], b1[256], b2[256];

	load(e, "values", &gold);
	for (size_t i = 0; i < gold.n; i++) {
		struct entry *g = &gold.v[i];

		rd(e, DAMON, g->path, v, sizeof(v));
		if (strcmp(v, g->a) != 0)
			mismatch(e, "value", g->path, NULL, "kernel \"%s\", fake \"%s\"",
				 esc(g->a, b1, sizeof(b1)), esc(v, b2, sizeof(b2)));
	}
	list_free(&gold);
	finish(e, "value");
}

/* A file without write permission refuses writes with EACCES (kernfs does
 * at open); a writable one does not.  Writes the file's own default back, so
 * nothing changes; nr_* and state are left alone, since writing them is an
 * action (children rebuilt, kdamond started) rather than a value. */
static void test_modes(void **state)
{
	struct env *e = *state;
	struct list gold = { 0 }, vals = { 0 };
	char b1[256];

	load(e, "tree", &gold);
	load(e, "values", &vals);
	for (size_t i = 0; i < gold.n; i++) {
		struct entry *g = &gold.v[i], *v = list_find(&vals, g->path);
		const char *b = base_name(g->path);
		bool ro = strcmp(g->a, "ro") == 0;
		int r;

		if (strcmp(g->a, "d") == 0 || in_list(nr_files, b) || strcmp(b, "state") == 0)
			continue;
		if (!v) {
			mismatch(e, "mode", g->path, NULL, "no golden value to write back");
			continue;
		}
		r = wr(e, g->path, v->a);
		if (r == -ENOENT)
			continue; /* test_tree reports it */
		if (ro != (r == -EACCES))
			mismatch(e, "mode", g->path, NULL, "kernel: %s, fake: write of \"%s\" gives %s",
				 ro ? "read-only (EACCES)" : "writable", esc(v->a, b1, sizeof(b1)),
				 r ? strerror(-r) : "success");
	}
	list_free(&gold);
	list_free(&vals);
	finish(e, "mode");
}

/* Each candidate word of each keyword file: accepted, or the same error.  A
 * fresh tree per test, so the files are not put back. */
static void test_keywords(void **state)
{
	struct env *e = *state;
	struct list gold = { 0 };

	load(e, "keywords", &gold);
	for (size_t i = 0; i < gold.n; i++) {
		struct entry *g = &gold.v[i];
		int r = wr(e, g->path, g->a);
		const char *got = r == 0 ? "ok" : strerror(-r);

		if (strcmp(got, g->b) != 0)
			mismatch(e, "keyword", g->path, g->a, "kernel: %s, fake: %s", g->b, got);
	}
	list_free(&gold);
	finish(e, "keyword");
}

/* The module parameters the daemon reads: parameters/enabled, present where
 * the kernel has it.  The fake need not model the modules' other parameters,
 * but must not invent any. */
static void test_modules(void **state)
{
	struct env *e = *state;
	struct list gold = { 0 }, fake = { 0 };
	char v[256];

	load(e, "modules", &gold);
	walk(e, MODULES, "", &fake);
	for (size_t i = 0; i < gold.n; i++) {
		struct entry *g = &gold.v[i], *f = list_find(&fake, g->path);

		if (f) {
			rd(e, MODULES, g->path, v, sizeof(v));
			if (*g->b && strcmp(v, g->a) != 0)
				mismatch(e, "module", g->path, NULL, "kernel \"%s\", fake \"%s\"", g->a, v);
			f->seen = true;
		} else if (strcmp(base_name(g->path), "enabled") == 0)
			mismatch(e, "module", g->path, NULL, "kernel has it, the fake does not");
	}
	for (size_t i = 0; i < fake.n; i++)
		if (!fake.v[i].seen && strcmp(fake.v[i].a, "f") == 0)
			mismatch(e, "module", fake.v[i].path, NULL, "the fake has it, kernel does not");
	list_free(&gold);
	list_free(&fake);
	finish(e, "module");
}

/* Named per kernel, so a failure says which. */
#define PER_PROFILE(fn)                                     \
	{ #fn " 6.12", fn, setup_612, teardown, NULL }, \
	{ #fn " 6.17", fn, setup_617, teardown, NULL }, \
	{ #fn " 7.3", fn, setup_73, teardown, NULL }

int main(void)
{
	const struct CMUnitTest tests[] = {
		PER_PROFILE(test_tree),
		PER_PROFILE(test_values),
		PER_PROFILE(test_modes),
		PER_PROFILE(test_keywords),
		PER_PROFILE(test_modules),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
