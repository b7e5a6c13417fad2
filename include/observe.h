/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * Observe: every read of one control tick, done once, into a plain struct
 * that decide.h turns into actions.  Nothing here decides or logs; a failed
 * read is reported in the observation (its -errno and the path) for the
 * decision to weigh.
 *
 * Two kinds of write happen while observing, because the kernel offers no
 * read-only way: the update_* state commands that copy a kdamond's stats,
 * effective quota and tuned intervals into its files (they change nothing
 * the kdamond does), and the keyword probe of the DAMON features, which
 * writes into our own kdamond 0 while it is off (kernel_features.h).  With
 * `readonly` (--dry-run) neither happens: features come from the BTF or from
 * kdamond trees already staged, and stats are not read.
 */
#include <stdbool.h>
#include <stdint.h>

#include "cgroup_rules.h"
#include "damon_sysfs.h"
#include "kernel_features.h"
#include "owner.h"
#include "plan.h"
#include "tiers.h"
#include "topology.h"

/* What to read (bits of observe_request.need). */
enum {
	/* sys/kernel/mm/damon exists, the damon_* modules, nr_kdamonds and
	 * every kdamond's state and pid, the ownership record in the state
	 * directory */
	OBS_HOST = 1u << 0,
	/* NUMA balancing's mode and reclaim-based demotion */
	OBS_TUNABLES = 1u << 8,
	/* the whole topology (ranges, watermarks) and the tier map */
	OBS_TOPOLOGY = 1u << 1,
	/* the DAMON features (see above for the writes) */
	OBS_FEATURES = 1u << 2,
	/* MemTotal and MemFree of every node */
	OBS_MEMINFO = 1u << 3,
	/* state and pid of our kdamonds (plan order) */
	OBS_KDAMONDS = 1u << 4,
	/* stats, effective quota and tuned intervals of our kdamonds */
	OBS_STATS = 1u << 5,
	/* sz_tried / sz_applied of our daemon-quota kdamonds, as the files
	 * are (no refresh command) */
	OBS_CHARGE = 1u << 6,
	/* every planned file of our kdamonds read back and compared with the
	 * plan (the controller's and the fed values excepted) */
	OBS_VERIFY = 1u << 7,
	/* the cgroups of the [cgroup] rules (observe_cgroup.h) */
	OBS_CGROUPS = 1u << 9,
};

#define OBS_MAX_KDAMONDS 64   /* foreign kdamonds looked at for conflicts */
#define OBS_PATH_MAX 512

struct obs_kdamond {
	int err;                   /* 0, or -errno reading state or pid */
	bool on;
	int64_t pid;
};

/* One of our kdamonds (index = plan index; absolute index first + i). */
struct obs_ours {
	struct obs_kdamond st;
	int stats_err;             /* OBS_STATS */
	struct scheme_stats stats;
	bool stats_refreshed;      /* the update_* commands were sent first */
	int charge_err;            /* OBS_CHARGE, daemon-quota kdamonds only */
	bool have_charge;
	uint64_t tried, applied;
	bool have_passed;          /* and sz_ops_filter_passed (6.14 and later) */
	uint64_t passed;
	/* OBS_CHARGE, kdamonds with histogram schemes: their sz_tried
	 * (hotness.h) and the intervals, refreshed by command first */
	int hist_err;
	bool have_hist;
	uint64_t hist_tried[HOT_MAX_BUCKETS];
	uint64_t sample_us, aggr_us;
	int drift;                 /* OBS_VERIFY: 0 same, 1 drifted, -errno */
	char drift_what[OBS_PATH_MAX + 96];
	char failed_path[OBS_PATH_MAX]; /* the file behind the first error above */
};

struct observation {
	uint64_t now_usec;
	unsigned got;              /* the OBS_* bits that were read (each may carry errors) */

	/* OBS_HOST */
	int host_err;              /* a read that makes the rest meaningless */
	char host_err_path[OBS_PATH_MAX];
	bool damon_sysfs;          /* admin/kdamonds/nr_kdamonds exists */
	struct damon_modules mods;
	/* OBS_TUNABLES */
	int numa_balancing;        /* -1: unreadable */
	char demotion_enabled[16]; /* "true", "false" or "unknown" */
	/* OBS_HOST */
	bool have_record;          /* an ownership record was found */
	struct owner_record record;
	unsigned nr_kdamonds;
	struct obs_kdamond all[OBS_MAX_KDAMONDS]; /* the first nr_kdamonds, capped */

	/* OBS_TOPOLOGY: into the caller's buffer (observe_request.topo) */
	int topo_err;              /* topology_read; then tiers_build */
	int tiers_err;             /* -ENODEV: nothing to tier */
	char topo_why[512];
	struct tier_map tiers;

	/* OBS_FEATURES */
	int feat_err;
	char feat_err_path[OBS_PATH_MAX];
	struct damon_features feat;
	char feat_source[256];     /* where the features were read from, for the log */
	bool feat_assumed;         /* a dry run had nothing to read them from */

	/* OBS_MEMINFO */
	int meminfo_err;
	unsigned nr_nodes;
	struct {
		int nid;
		uint64_t total, free;
	} mem[TOPO_MAX_NODES];

	/* OBS_KDAMONDS / STATS / CHARGE / VERIFY */
	unsigned nr_ours;
	struct obs_ours ours[PLAN_MAX_KDAMONDS];

	/* OBS_CGROUPS: the rules' cgroups, in rule order */
	struct obs_cgroups cg;
};

/* OBS_VERIFY: the exchange's bounds in the kernel for one of our kdamonds
 * (damon_set_control); check = false when not known (a control write that
 * failed part way), which leaves those files out of the drift check. */
struct obs_ctl {
	bool check;
	uint32_t nr_min, nr_max;
	bool young;
};

struct observe_request {
	unsigned need;             /* OBS_* */
	/* our kdamonds: absolute indices [first, first + count); plan->kd[i]
	 * is the one at first + i (the plan may be NULL for OBS_KDAMONDS) */
	unsigned first, count;
	const struct plan *plan;
	/* OBS_STATS: bit i set = ask kdamond i's kernel copy to be refreshed
	 * first (update_schemes_stats etc.); kdamonds without refresh_ms are
	 * always refreshed */
	uint32_t refresh;
	/* OBS_FEATURES: probe by writing into our kdamond `first` (off, ours);
	 * otherwise read them from our staged kdamonds, and a dry run, which
	 * may have none, from the kernel's BTF or, failing that, assume them */
	bool probe_writes;
	bool dry_run;
	const char *state_dir;     /* OBS_HOST: the ownership record */
	/* OBS_TOPOLOGY: read into it; OBS_MEMINFO: its nodes' meminfo is
	 * refreshed in it (all or nothing) and copied to the observation */
	struct topology *topo;
	/* OBS_CGROUPS: whose rules, and the last observation of them (may be
	 * NULL), whose unit paths are tried before a search */
	const struct config *cfg;
	const struct obs_cgroups *cg_hint;
	struct obs_ctl ctl[PLAN_MAX_KDAMONDS]; /* OBS_VERIFY, per kdamond of the plan */
};

/*
 * Read what rq->need asks for into *ret, which is zeroed first (but for
 * now_usec, which the caller sets before).  Never fails as a whole: every
 * part records its own error.  OBS_STATS, OBS_CHARGE and OBS_VERIFY need
 * rq->plan with at least rq->count kdamonds.
 */
void observe(struct damon_io *io, const struct observe_request *rq, struct observation *ret);

/* MemTotal / MemFree of node nid in o, or false if not observed. */
static inline bool observe_node_mem(const struct observation *o, int nid, uint64_t *total,
				    uint64_t *free)
{
	if (!(o->got & OBS_MEMINFO) || o->meminfo_err)
		return false;
	for (unsigned i = 0; i < o->nr_nodes; i++)
		if (o->mem[i].nid == nid) {
			*total = o->mem[i].total;
			*free = o->mem[i].free;
			return true;
		}
	return false;
}
