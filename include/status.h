/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * Status: a snapshot of what runs, built (purely) from the plan, the last
 * observation and the runtime, and turned (purely) into the periodic log
 * line, the runtime status files read by "damon-tierd status", and the
 * Prometheus textfile.  Where they go is status_sink.h.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "cgroup_rules.h"
#include "config.h"
#include "explain.h"
#include "plan.h"
#include "topology.h"

struct damon_features;
struct observation;
struct owner_record;
struct tier_map;

/* The "schema" of status.json (docs/status-json.md): raised when a field
 * changes its meaning or goes away, not when one is added. */
#define STATUS_JSON_SCHEMA 1

/* Per kdamond counters remembered between two samples. */
struct status_sample {
	uint64_t sz_applied;
	uint64_t sz_tried;
	uint64_t at_usec;
	bool valid;
};

/* The explanations' yield (explain.h) is measured over at least this long:
 * with refresh_ms the kernel's counters may lag by several seconds, and a
 * single period could show nothing tried where something was. */
#define STATUS_SPAN_US (30ull * 1000000)

/* Pure: MiB/s between two samples (0 when either is invalid or the counter
 * went backwards, i.e. the kdamond was restarted). */
double status_rate_mib_s(const struct status_sample *prev, const struct status_sample *cur);

/* One migration direction of a boundary. */
struct status_direction {
	bool present;
	unsigned kdamond;          /* index under admin/kdamonds */
	int64_t pid;
	unsigned goal_bp;          /* effective goal (used for promote, free for demote) */
	bool stats_valid;
	uint64_t applied_bytes;    /* sz_applied since the kdamond started */
	uint64_t tried_bytes;      /* sz_tried: regions the scheme tried, within its quota */
	uint64_t quota_exceeds;    /* qt_exceeds: quota windows that used up the quota */
	double mib_s;              /* since the previous sample */
	uint64_t quota_bytes;      /* effective quota */
	uint64_t sample_us;        /* tuned sampling interval */
	double line_mib_s;         /* since the previous status line */
};

/* A tier boundary: the fast node, its slow partner, both directions, and
 * why each does what it does. */
struct status_boundary {
	int fast_nid, slow_nid;
	uint64_t fast_total, fast_free;
	struct status_direction promote, demote;
	struct explain_side why_promote, why_demote;
};

/* A [cgroup] rule's cgroup (status_cgroup.c). */
struct status_cgroup {
	char name[CGROUP_NAME_MAX];  /* as configured */
	bool present;
	char path[CGROUP_NAME_MAX];  /* where it was found */
	bool protect, promote;
	unsigned fast_share_goal_bp; /* 0: no fast_share */
	const char *goal;            /* "kernel", "daemon" (fed), NULL without fast_share */
	bool have_share;
	uint64_t total, fast;        /* bytes */
	unsigned share_bp;           /* fast / total */
	bool demotion_skipped;       /* protect, or below its fast_share */
};

struct status_snapshot {
	const char *state;          /* reconciler state name */
	uint64_t interval_us;       /* [daemon] interval: how often the files are rewritten */
	char detail[512];           /* why blocked, or "" */
	uint64_t realtime_usec;
	pid_t pid;
	char features[512];
	int numa_balancing;         /* -1 unknown */
	bool damon_stat_paused;
	unsigned nr_nodes;
	struct {
		int nid, rank;
		bool has_cpu;
		uint64_t total, free;
	} nodes[TOPO_MAX_NODES];
	unsigned nr_boundaries;
	struct status_boundary b[PLAN_MAX_KDAMONDS];
	uint64_t errors_total, repairs_total;
	unsigned nr_cgroups;
	struct status_cgroup cg[CONFIG_MAX_CGROUPS];
};

/* Pure: the log line of one boundary, its explanations last. */
int status_format_line(const struct status_boundary *b, char *buf, size_t size);
/* Pure: the human-readable summary ("damon-tierd status"). */
int status_format_text(const struct status_snapshot *s, char *buf, size_t size);
/* Pure: the same as JSON ("damon-tierd status --json"). */
int status_format_json(const struct status_snapshot *s, char *buf, size_t size);
/* Pure: node_exporter textfile, Prometheus naming conventions.  Every metric
 * is in docs/metrics.md (test-metrics-doc holds the two together). */
int status_format_prometheus(const struct status_snapshot *s, const char *version, char *buf,
			     size_t size);

/* What the snapshot remembers between two periods, per kdamond of the plan:
 * the samples the rates are computed from, the last stats read, and the
 * two samples the explanations' span runs from (span_at is at least
 * STATUS_SPAN_US older than span_mid). */
struct status_history {
	struct status_sample sample[PLAN_MAX_KDAMONDS], line[PLAN_MAX_KDAMONDS];
	struct status_sample span_at[PLAN_MAX_KDAMONDS], span_mid[PLAN_MAX_KDAMONDS];
	struct {
		bool valid;
		uint64_t applied, tried, qt_exceeds, effective_bytes, sample_us;
	} last[PLAN_MAX_KDAMONDS];
};

struct status_input {
	const char *state;               /* rc_state_name() */
	enum rc_state rc_state;          /* the same, for the explanations */
	uint64_t interval_us;            /* [daemon] interval */
	bool damon_stat_keep;            /* [daemon] damon_stat = keep */
	const struct runtime *rt;        /* the controller's quotas, who is armed; may be NULL */
	const char *detail;              /* why blocked, or "" */
	uint64_t now_usec;               /* CLOCK_MONOTONIC, for the rates */
	uint64_t realtime_usec;          /* for "updated" */
	pid_t pid;
	const struct damon_features *feat;
	int numa_balancing;
	uint64_t repairs, errors;
	const struct owner_record *rec;  /* our kdamonds' indices and pids */
	const struct topology *topo;     /* the nodes (meminfo as last read) */
	const struct tier_map *tiers;    /* their ranks and pairs; NULL before discovery */
	const struct plan *plan;         /* NULL: the boundaries come from the tiers' pairs */
	const struct observation *obs;   /* the last observation (OBS_STATS when running), or NULL */
	bool line;                       /* a status line is due: line rates restart */
	const struct config *cfg;        /* the [cgroup] rules; may be NULL */
	const struct cgroup_view *cgv;   /* their cgroups as last observed; may be NULL */
};

/* status_cgroup.c (pure): the rules' cgroups into s, and their part of the
 * text, the JSON (a ",\"cgroups\":[...]" member) and the textfile. */
struct textbuf;
void status_build_cgroups(const struct status_input *in, struct status_snapshot *s);
void status_text_cgroups(struct textbuf *t, const struct status_snapshot *s);
void status_json_cgroups(struct textbuf *t, const struct status_snapshot *s);
void status_prometheus_cgroups(struct textbuf *t, const struct status_snapshot *s);

/* Pure: the snapshot *s from in, the rates against *h, which is updated
 * with this period's samples. */
void status_build(const struct status_input *in, struct status_history *h,
		  struct status_snapshot *s);
