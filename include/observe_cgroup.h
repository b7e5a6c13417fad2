/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * Observe the cgroups the [cgroup] rules name (cgroup_rules.h), below the
 * cgroup2 mount sys/fs/cgroup of the root: each one's presence (a directory
 * with memory.numa_stat: DAMON resolves memcg paths only to cgroups with a
 * memory controller), its path (a unit name is looked up breadth first, four
 * levels deep), its id (the directory's inode, which a re-created cgroup
 * does not share) and its anon + file bytes per node.  Reads only.
 */
#include "cgroup_rules.h"
#include "config.h"

/* Every rule of c, in order, into *ret (zeroed first).  hint (may be NULL):
 * the last observation, whose unit paths are tried before a search.
 * ret->err = -ENOENT without a cgroup2 mount; a rule's cgroup that is
 * missing is just not present. */
void observe_cgroups(int root, const struct config *c, const struct obs_cgroups *hint,
		     struct obs_cgroups *ret);
