/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Observe the cgroups of the [cgroup] rules: whether each exists with a
 * memory controller, its path below the cgroup2 mount, its id, and its
 * memory per node.  Reads only, relative to the root.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "observe_cgroup.h"
#include "parse.h"
#include "sysfs_io.h"

#define CGROUP_MOUNT "sys/fs/cgroup"
/* A unit is looked for this deep: /user.slice/user-0.slice/x.service is 3. */
#define UNIT_SEARCH_DEPTH 4
#define NUMA_STAT_MAX (64 * 1024)

/* The cgroup directory mount + path: its inode (the cgroup id), or 0. */
static uint64_t dir_id(int root, const char *path)
{
	char full[CGROUP_NAME_MAX + 32];
	struct stat st;

	if (io_path(full, sizeof(full), CGROUP_MOUNT "%s", path) < 0 ||
	    fstatat(root, full, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISDIR(st.st_mode))
		return 0;
	return (uint64_t)st.st_ino;
}

struct search {
	int root;
	const char *unit;
	const char *dir;            /* the directory being listed, below the mount ("" = the mount) */
	char found[CGROUP_NAME_MAX];
	/* directories of the next level */
	unsigned n, cap;
	char (*next)[CGROUP_NAME_MAX];
};

static int visit(const char *name, void *ud)
{
	struct search *s = ud;
	char path[CGROUP_NAME_MAX];

	if (snprintf(path, sizeof(path), "%s/%s", s->dir, name) >= (int)sizeof(path) ||
	    dir_id(s->root, path) == 0)
		return 0;
	if (strcmp(name, s->unit) == 0) {
		memcpy(s->found, path, sizeof(path));
		return 1;
	}
	if (s->n == s->cap) {
		unsigned cap = s->cap ? 2 * s->cap : 32;
		void *p = realloc(s->next, cap * sizeof(*s->next));

		if (!p)
			return -ENOMEM;
		s->next = p;
		s->cap = cap;
	}
	memcpy(s->next[s->n++], path, sizeof(path));
	return 0;
}

/* Breadth first, so /system.slice/x.service wins over a deeper namesake. */
static int find_unit(int root, const char *unit, char *ret)
{
	struct search s = { .root = root, .unit = unit };
	char (*level)[CGROUP_NAME_MAX] = NULL;
	unsigned nlevel = 1;
	int r = 0;

	level = calloc(1, sizeof(*level));
	if (!level)
		return -ENOMEM;
	for (unsigned depth = 0; depth < UNIT_SEARCH_DEPTH && nlevel && r == 0; depth++) {
		s.n = 0;
		for (unsigned i = 0; i < nlevel && r == 0; i++) {
			char dir[CGROUP_NAME_MAX + 32];

			s.dir = level[i];
			if (io_path(dir, sizeof(dir), CGROUP_MOUNT "%s", level[i]) < 0)
				continue;
			r = io_for_each_entry(root, dir, visit, &s);
			if (r < 0 && r != -ENOMEM)
				r = 0; /* a cgroup that went away meanwhile */
		}
		free(level);
		level = s.next;
		nlevel = s.n;
		s.next = NULL;
		s.cap = 0;
	}
	free(level);
	free(s.next);
	if (r == 1) {
		memcpy(ret, s.found, CGROUP_NAME_MAX);
		return 0;
	}
	return r < 0 ? r : -ENOENT;
}

static void observe_one(int root, const char *name, const struct obs_cgroup *hint,
			struct obs_cgroup *o)
{
	char file[CGROUP_NAME_MAX + 48];
	char *text = NULL;
	int r;

	memset(o, 0, sizeof(*o));
	snprintf(o->name, sizeof(o->name), "%s", name);
	o->stat_err = -ENOENT;
	if (name[0] == '/') {
		snprintf(o->path, sizeof(o->path), "%s", name);
		o->id = dir_id(root, o->path);
	} else if (hint && hint->present && hint->id && dir_id(root, hint->path) == hint->id) {
		memcpy(o->path, hint->path, sizeof(o->path)); /* still where it was */
		o->id = hint->id;
	} else if (find_unit(root, name, o->path) == 0) {
		o->id = dir_id(root, o->path);
	}
	if (o->id == 0)
		return;
	if (io_path(file, sizeof(file), CGROUP_MOUNT "%s/memory.numa_stat", o->path) < 0)
		return;
	r = io_read_alloc(root, file, &text, NUMA_STAT_MAX);
	if (r == -ENOENT) {
		/* DAMON finds only cgroups with a memory controller. */
		o->no_memcg = true;
		return;
	}
	o->present = true;
	o->stat_err = r < 0 ? r : parse_memcg_numa_stat(text, o->node_bytes, TOPO_MAX_NODES);
	if (o->stat_err == -EINVAL)
		o->stat_err = -EBADMSG;
	free(text);
}

void observe_cgroups(int root, const struct config *c, const struct obs_cgroups *hint,
		     struct obs_cgroups *ret)
{
	memset(ret, 0, sizeof(*ret));
	if (!io_exists(root, CGROUP_MOUNT "/cgroup.controllers")) {
		ret->err = -ENOENT;
		return;
	}
	for (unsigned i = 0; i < c->nr_cgroups; i++)
		observe_one(root, c->cgroups[i].name, cgroup_obs_of(hint, c->cgroups[i].name),
			    &ret->cg[ret->n++]);
}
