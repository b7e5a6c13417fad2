/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Finding and reading the config files: the search path and the drop-in
 * directories (see config.h), masking, and the merge of the files one after
 * the other into one struct, with a record of which file and line set each
 * key.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "build-config.h"
#include "config_internal.h"

/* A config file is a few dozen lines; anything larger is a wrong path. */
#define CONFIG_FILE_MAX (1024 * 1024)

static void merge_init(struct config_merge *m, const char *fallback)
{
	memset(m, 0, sizeof(*m));
	config_init(&m->cfg);
	m->fallback = fallback;
}

static bool is_dev_null(const struct stat *st)
{
	return S_ISCHR(st->st_mode) && st->st_rdev == makedev(1, 3);
}

/*
 * Read `path` into buf (CONFIG_FILE_MAX + 1 bytes).  A symlink to /dev/null
 * reads as empty: that is how a drop-in (or the main file) is masked.
 * -ENOENT with *err saying so if the file does not exist.
 */
static int read_file(const char *path, char *buf, size_t *ret_len, struct stat *ret_st,
		     struct config_error *err)
{
	size_t len = 0;
	struct stat st;
	int fd, r;

	/* O_NONBLOCK: a FIFO in place of a config file would block the open
	 * until a writer comes (and hang a start, --check-config or a reload);
	 * opened like this it is refused below as not a regular file.  Reads of
	 * a regular file do not heed the flag. */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		r = -errno;
		if (r == -ENOENT)
			config_set_error(err, path, 0, "no such file (or a dangling symlink)");
		else
			config_set_error(err, path, 0, "cannot open: %s", strerror(-r));
		return r;
	}
	if (fstat(fd, &st) < 0) {
		r = -errno;
		config_set_error(err, path, 0, "cannot stat: %s", strerror(-r));
		goto finish;
	}
	if (is_dev_null(&st)) {
		r = 0;
		goto done;
	}
	if (!S_ISREG(st.st_mode)) {
		r = -EINVAL;
		config_set_error(err, path, 0, "not a regular file but %s; a config file is a regular file "
				 "(or a symlink to /dev/null, to mask it)",
				 S_ISDIR(st.st_mode) ? "a directory" : S_ISFIFO(st.st_mode) ? "a FIFO" :
				 S_ISSOCK(st.st_mode) ? "a socket" : "a device");
		goto finish;
	}
	for (;;) {
		ssize_t n = read(fd, buf + len, CONFIG_FILE_MAX + 1 - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = -errno;
			config_set_error(err, path, 0, "cannot read: %s", strerror(-r));
			goto finish;
		}
		if (n == 0)
			break;
		len += (size_t)n;
		if (len > CONFIG_FILE_MAX) {
			r = -EFBIG;
			config_set_error(err, path, 0, "larger than %d bytes: not a config file", CONFIG_FILE_MAX);
			goto finish;
		}
	}
	r = 0;
done:
	*ret_len = len;
	*ret_st = st;
finish:
	close(fd);
	return r;
}

/* systemd's configuration directories, highest priority first.  The first is
 * the sysconfdir of the build, where "meson install" puts the example file:
 * /etc for --prefix=/usr (the packages), /usr/local/etc for meson's default
 * prefix; like systemd built that way, it then takes the place of /etc. */
static const char *const search_dirs[] = { SYSCONFDIR, "/run", "/usr/local/lib", "/usr/lib" };
#define NR_SEARCH_DIRS (sizeof(search_dirs) / sizeof(search_dirs[0]))
#define CONFIG_NAME "damon-tierd.conf"
#define DROPIN_SUFFIX ".conf"

struct dropin {
	char path[CONFIG_PATH_MAX];
	size_t name_off;       /* where the file name starts in path (the
	                        * array is sorted, so no pointer into it) */
	unsigned prio;         /* index of its directory: 0 wins */
	bool have_st;
	struct stat st;
};

struct dropins {
	struct dropin *v;
	size_t n, cap;
};

/* root + path into buf; -ENAMETOOLONG + err if it does not fit. */
static int join_path(const char *root, const char *path, const char *suffix, char *buf,
		     struct config_error *err)
{
	size_t rl = 0;
	int n;

	if (root && strcmp(root, "/") != 0) {
		rl = strlen(root);
		while (rl > 0 && root[rl - 1] == '/')
			rl--;
	}
	n = snprintf(buf, CONFIG_PATH_MAX, "%.*s%s%s", (int)rl, root ? root : "", path, suffix);
	if (n < 0 || n >= CONFIG_PATH_MAX) {
		if (rl)
			config_set_error(err, NULL, 0, "config root %.64s%s: the paths under it are longer than "
					 "%d bytes; use a shorter root", root, rl > 64 ? "..." : "", CONFIG_PATH_MAX - 1);
		else
			config_set_error(err, path, 0, "path%s is longer than %d bytes; use a shorter one", suffix,
					 CONFIG_PATH_MAX - 1);
		return -ENAMETOOLONG;
	}
	return 0;
}

static bool is_dropin_name(const char *name)
{
	size_t n = strlen(name), s = strlen(DROPIN_SUFFIX);

	/* Hidden files are editor and package manager leftovers, as in
	 * systemd; backups (x.conf~, x.conf.dpkg-old) fail the suffix. */
	return name[0] != '.' && n > s && strcmp(name + n - s, DROPIN_SUFFIX) == 0;
}

static int add_dropins(struct dropins *list, const char *dir, unsigned prio, struct config_error *err)
{
	struct dirent *de;
	DIR *d;
	int r = 0;

	d = opendir(dir);
	if (!d) {
		r = -errno;
		if (r == -ENOENT)
			return 0;  /* no drop-in directory: nothing to add */
		if (r == -ENOTDIR)
			config_set_error(err, dir, 0, "not a directory (drop-ins go into a directory of that name)");
		else
			config_set_error(err, dir, 0, "cannot open the drop-in directory: %s", strerror(-r));
		return r;
	}
	for (;;) {
		struct dropin *e;
		int n;

		errno = 0;
		de = readdir(d);
		if (!de) {
			if (errno != 0) {
				r = -errno;
				config_set_error(err, dir, 0, "cannot read the drop-in directory: %s", strerror(-r));
			}
			break;
		}
		if (!is_dropin_name(de->d_name))
			continue;
		if (list->n == list->cap) {
			size_t cap = list->cap ? 2 * list->cap : 16;
			struct dropin *v = realloc(list->v, cap * sizeof(*v));

			if (!v) {
				r = -ENOMEM;
				config_set_error(err, dir, 0, "out of memory");
				break;
			}
			list->v = v;
			list->cap = cap;
		}
		e = &list->v[list->n];
		memset(e, 0, sizeof(*e));
		n = snprintf(e->path, sizeof(e->path), "%s/%s", dir, de->d_name);
		if (n < 0 || (size_t)n >= sizeof(e->path)) {
			r = -ENAMETOOLONG;
			config_set_error(err, dir, 0, "drop-in \"%.64s\": path longer than %d bytes; use a shorter name",
					 de->d_name, CONFIG_PATH_MAX - 1);
			break;
		}
		e->name_off = strlen(dir) + 1;
		e->prio = prio;
		list->n++;
	}
	closedir(d);
	return r;
}

static int dropin_cmp(const void *a, const void *b)
{
	const struct dropin *x = a, *y = b;
	int c = strcmp(x->path + x->name_off, y->path + y->name_off);

	if (c != 0)
		return c;
	return x->prio < y->prio ? -1 : x->prio > y->prio;
}

/* Sort by name and keep, of each name, the one of the first directory. */
static void dedup_dropins(struct dropins *list)
{
	size_t i, out = 0;

	if (list->n == 0)
		return;
	qsort(list->v, list->n, sizeof(list->v[0]), dropin_cmp);
	for (i = 0; i < list->n; i++) {
		const struct dropin *prev = out > 0 ? &list->v[out - 1] : NULL;

		if (prev && strcmp(prev->path + prev->name_off, list->v[i].path + list->v[i].name_off) == 0)
			continue;  /* hidden by the same name in a higher directory */
		if (out != i)
			list->v[out] = list->v[i];
		out++;
	}
	list->n = out;
}

int config_load_string(const char *text, const char *name, struct config *ret,
		       struct config_error *err)
{
	struct config_error dummy;
	struct config_merge *m;
	int r;

	if (!err)
		err = &dummy;
	if (!name)
		name = "(string)";
	/* Runs in the fuzzer: keep it off the stack. */
	m = malloc(sizeof(*m));
	if (!m) {
		config_set_error(err, name, 0, "out of memory");
		return -ENOMEM;
	}
	merge_init(m, name);
	r = config_parse_text(m, text, strlen(text), name, err);
	if (r == 0)
		r = config_validate_merge(&m->cfg, m, err);
	if (r == 0)
		*ret = m->cfg;
	free(m);
	return r;
}

int config_load(const char *path, struct config *ret, struct config_error *err)
{
	struct config_error dummy;
	struct config_merge *m = NULL;
	char *buf;
	struct stat st;
	size_t len = 0;
	int r;

	if (!err)
		err = &dummy;
	buf = malloc(CONFIG_FILE_MAX + 1);
	m = malloc(sizeof(*m));
	if (!buf || !m) {
		r = -ENOMEM;
		config_set_error(err, path, 0, "out of memory");
		goto finish;
	}
	r = read_file(path, buf, &len, &st, err);
	if (r < 0)
		goto finish;
	merge_init(m, path);
	r = config_parse_text(m, buf, len, path, err);
	if (r == 0)
		r = config_validate_merge(&m->cfg, m, err);
	if (r == 0)
		*ret = m->cfg;
finish:
	free(m);
	free(buf);
	return r;
}

static bool same_inode(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

int config_load_sources(const struct config_sources *src, struct config *ret,
			struct config_origins *ret_origins, struct config_error *err)
{
	static const struct config_sources production = { .root = "/" };
	char main_paths[NR_SEARCH_DIRS][CONFIG_PATH_MAX];
	const char *main_read = NULL;
	struct config_error dummy;
	struct dropins list = {};
	struct config_merge *m = NULL;
	unsigned nr_main = 0, nr_dropins = 0, i;
	struct stat st;
	size_t len, j;
	char *buf = NULL;
	int r;

	if (!err)
		err = &dummy;
	if (!src)
		src = &production;

	/* The candidates for the main file, and every drop-in directory. */
	if (src->main_file) {
		char dir[CONFIG_PATH_MAX];

		r = join_path(NULL, src->main_file, "", main_paths[0], err);
		if (r < 0)
			goto finish;
		nr_main = 1;
		r = join_path(NULL, src->main_file, ".d", dir, err);
		if (r < 0)
			goto finish;
		r = add_dropins(&list, dir, 0, err);
		if (r < 0)
			goto finish;
	} else {
		for (i = 0; i < NR_SEARCH_DIRS; i++) {
			char dir[CONFIG_PATH_MAX];

			r = join_path(src->root, search_dirs[i], "/" CONFIG_NAME, main_paths[nr_main++], err);
			if (r < 0)
				goto finish;
			r = join_path(src->root, search_dirs[i], "/" CONFIG_NAME ".d", dir, err);
			if (r < 0)
				goto finish;
			r = add_dropins(&list, dir, i, err);
			if (r < 0)
				goto finish;
		}
	}
	dedup_dropins(&list);
	/* A main file that is also a drop-in (a symlink either way) is read
	 * once, as the drop-in, as systemd does. */
	for (j = 0; j < list.n; j++)
		list.v[j].have_st = stat(list.v[j].path, &list.v[j].st) == 0;

	buf = malloc(CONFIG_FILE_MAX + 1);
	m = malloc(sizeof(*m));
	if (!buf || !m) {
		r = -ENOMEM;
		config_set_error(err, src->main_file ? src->main_file : "configuration", 0, "out of memory");
		goto finish;
	}
	merge_init(m, NULL);

	/* The first main file found, and only that one. */
	for (i = 0; i < nr_main; i++) {
		bool is_dropin = false;

		r = read_file(main_paths[i], buf, &len, &st, err);
		if (r == -ENOENT && !src->main_file)
			continue;
		if (r < 0)
			goto finish;
		for (j = 0; j < list.n; j++)
			if (list.v[j].have_st && same_inode(&list.v[j].st, &st))
				is_dropin = true;
		if (!is_dropin && !is_dev_null(&st)) {
			r = config_parse_text(m, buf, len, main_paths[i], err);
			if (r < 0)
				goto finish;
			main_read = main_paths[i];
			m->fallback = main_read;
		}
		break;
	}

	/* Then the drop-ins, by name across directories. */
	for (j = 0; j < list.n; j++) {
		r = read_file(list.v[j].path, buf, &len, &st, err);
		if (r < 0)
			goto finish;
		if (is_dev_null(&st))
			continue;  /* masked */
		r = config_parse_text(m, buf, len, list.v[j].path, err);
		if (r < 0)
			goto finish;
		if (!m->fallback)
			m->fallback = list.v[j].path;
		nr_dropins++;
	}

	r = config_validate_merge(&m->cfg, m, err);
	if (r < 0)
		goto finish;

	*ret = m->cfg;
	if (ret_origins) {
		memset(ret_origins, 0, sizeof(*ret_origins));
		for (i = 0; i < _CONFIG_KEY_MAX; i++)
			if (m->key_file[i]) {
				snprintf(ret_origins->key[i].file, sizeof(ret_origins->key[i].file), "%s",
					 m->key_file[i]);
				ret_origins->key[i].line = m->key_line[i];
			}
		if (main_read)
			/* join_path() made it shorter than CONFIG_PATH_MAX. */
			memcpy(ret_origins->main_file, main_read, strlen(main_read) + 1);
		ret_origins->nr_dropins = nr_dropins;
	}
	r = 0;
finish:
	free(m);
	free(buf);
	free(list.v);
	return r;
}
