/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <systemd/sd-daemon.h>
#include <time.h>
#include <unistd.h>

#include "status.h"

void status_ready(const char *status)
{
	sd_notifyf(0, "READY=1\nSTATUS=%s", status);
}

void status_set(const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	sd_notifyf(0, "STATUS=%s", buf);
}

void status_reloading(void)
{
	uint64_t now = 0;
	struct timespec ts;

	/* systemd >= 253 wants MONOTONIC_USEC with RELOADING=1 (Type=notify-reload). */
	if (clock_gettime(CLOCK_MONOTONIC, &ts) == 0)
		now = (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
	sd_notifyf(0, "RELOADING=1\nMONOTONIC_USEC=%" PRIu64 "\nSTATUS=reloading configuration", now);
}

void status_stopping(void)
{
	sd_notify(0, "STOPPING=1\nSTATUS=stopping: turning off our kdamonds");
}

double status_rate_mib_s(const struct status_sample *prev, const struct status_sample *cur)
{
	if (!prev->valid || !cur->valid || cur->at_usec <= prev->at_usec ||
	    cur->sz_applied < prev->sz_applied)
		return 0.0;
	return (double)(cur->sz_applied - prev->sz_applied) / (1024.0 * 1024.0) /
	       ((double)(cur->at_usec - prev->at_usec) / 1e6);
}

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static void fmt_bytes(char *buf, size_t size, uint64_t v)
{
	if (v >= 1024ull * 1024 * 1024)
		snprintf(buf, size, "%.1fGiB", (double)v / (1024.0 * 1024 * 1024));
	else if (v >= 1024 * 1024)
		snprintf(buf, size, "%.1fMiB", (double)v / (1024.0 * 1024));
	else if (v >= 1024)
		snprintf(buf, size, "%.1fKiB", (double)v / 1024.0);
	else
		snprintf(buf, size, "%" PRIu64 "B", v);
}

/* A bounded appender: every format function below is a list of emit()s. */
struct out {
	char *buf;
	size_t size, off;
	bool overflow;
};

static void emit(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void emit(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (o->overflow)
		return;
	va_start(ap, fmt);
	n = vsnprintf(o->buf + o->off, o->size - o->off, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= o->size - o->off) {
		o->overflow = true;
		return;
	}
	o->off += (size_t)n;
}

static int out_done(const struct out *o)
{
	return o->overflow ? -ENOBUFS : 0;
}

static void dir_quota(const struct status_direction *d, char *q, size_t qs, char *s, size_t ss)
{
	snprintf(q, qs, "-");
	snprintf(s, ss, "-");
	if (d->present && d->stats_valid) {
		fmt_bytes(q, qs, d->quota_bytes);
		snprintf(s, ss, "%.1fms", (double)d->sample_us / 1000.0);
	}
}

int status_format_line(const struct status_boundary *b, char *buf, size_t size)
{
	struct out o = { buf, size, 0, size == 0 };
	char pq[32], dq[32], ps[32], ds[32];

	dir_quota(&b->promote, pq, sizeof(pq), ps, sizeof(ps));
	dir_quota(&b->demote, dq, sizeof(dq), ds, sizeof(ds));
	emit(&o, "node%d used %.1f%%: promoted %.2f MiB/s", b->fast_nid,
	     pct(b->fast_total - b->fast_free, b->fast_total), b->promote.mib_s);
	if (b->promote.present)
		emit(&o, " (from node%d, used goal %.2f%%)", b->slow_nid, b->promote.goal_bp / 100.0);
	emit(&o, ", demoted %.2f MiB/s", b->demote.mib_s);
	if (b->demote.present)
		emit(&o, " (to node%d, free goal %.2f%%)", b->slow_nid, b->demote.goal_bp / 100.0);
	emit(&o, "; effective quota promote %s demote %s; sampling promote %s demote %s", pq, dq,
	     ps, ds);
	return out_done(&o);
}

int status_format_text(const struct status_snapshot *s, char *buf, size_t size)
{
	struct out o = { buf, size, 0, size == 0 };

	emit(&o, "damon-tierd (pid %d): %s%s%s\n", (int)s->pid, s->state, s->detail[0] ? ": " : "",
	     s->detail);
	emit(&o, "kernel DAMON features: %s\n", s->features[0] ? s->features : "(not probed)");
	if (s->numa_balancing >= 0)
		emit(&o, "NUMA balancing mode %d%s\n", s->numa_balancing,
		     s->numa_balancing & 2 ? " (tiering mode: competes with DAMON promotion)" : "");
	if (s->damon_stat_paused)
		emit(&o, "damon_stat paused by damon-tierd (restored when it stops)\n");
	emit(&o, "nodes:\n");
	for (unsigned i = 0; i < s->nr_nodes; i++)
		emit(&o, "  node%d  tier %d%s  %" PRIu64 " MiB, %.1f%% used\n", s->nodes[i].nid,
		     s->nodes[i].rank, s->nodes[i].has_cpu ? "          " : " (CPU-less)",
		     s->nodes[i].total >> 20, pct(s->nodes[i].total - s->nodes[i].free, s->nodes[i].total));
	for (unsigned i = 0; i < s->nr_boundaries; i++) {
		const struct status_boundary *b = &s->b[i];
		const struct status_direction *d[2] = { &b->promote, &b->demote };
		const char *name[2] = { "promote", "demote " };

		emit(&o, "boundary node%d (fast) <-> node%d (slow): node%d %.1f%% used, %.1f%% free\n",
		     b->fast_nid, b->slow_nid, b->fast_nid, pct(b->fast_total - b->fast_free, b->fast_total),
		     pct(b->fast_free, b->fast_total));
		for (int k = 0; k < 2; k++) {
			char q[32], sm[32], ap[32];

			if (!d[k]->present)
				continue;
			dir_quota(d[k], q, sizeof(q), sm, sizeof(sm));
			fmt_bytes(ap, sizeof(ap), d[k]->applied_bytes);
			emit(&o, "  %s kdamond %u (pid %" PRId64 "): goal %s %.2f%%, moved %s, %.2f MiB/s, "
				 "quota %s, sampling %s\n",
			     name[k], d[k]->kdamond, d[k]->pid, k == 0 ? "used" : "free",
			     d[k]->goal_bp / 100.0, ap, d[k]->mib_s, q, sm);
		}
	}
	emit(&o, "repairs %" PRIu64 ", errors %" PRIu64 "\n", s->repairs_total, s->errors_total);
	return out_done(&o);
}

/* Our strings are plain, but a detail may quote a path or a value. */
static void emit_json_str(struct out *o, const char *str)
{
	emit(o, "\"");
	for (const char *p = str; *p; p++) {
		if (*p == '"' || *p == '\\')
			emit(o, "\\%c", *p);
		else if ((unsigned char)*p < 0x20)
			emit(o, "\\u%04x", (unsigned char)*p);
		else
			emit(o, "%c", *p);
	}
	emit(o, "\"");
}

static void emit_json_dir(struct out *o, const char *name, const struct status_direction *d)
{
	if (!d->present) {
		emit(o, "\"%s\":null", name);
		return;
	}
	emit(o, "\"%s\":{\"kdamond\":%u,\"pid\":%" PRId64 ",\"goal_bp\":%u,\"applied_bytes\":%" PRIu64
		",\"mib_per_s\":%.3f,\"effective_quota_bytes\":%" PRIu64 ",\"sample_us\":%" PRIu64
		",\"stats_valid\":%s}",
	     name, d->kdamond, d->pid, d->goal_bp, d->applied_bytes, d->mib_s, d->quota_bytes,
	     d->sample_us, d->stats_valid ? "true" : "false");
}

int status_format_json(const struct status_snapshot *s, char *buf, size_t size)
{
	struct out o = { buf, size, 0, size == 0 };

	emit(&o, "{\"pid\":%d,\"state\":", (int)s->pid);
	emit_json_str(&o, s->state);
	emit(&o, ",\"detail\":");
	emit_json_str(&o, s->detail);
	emit(&o, ",\"updated_usec\":%" PRIu64 ",\"features\":", s->realtime_usec);
	emit_json_str(&o, s->features);
	emit(&o, ",\"numa_balancing\":%d,\"damon_stat_paused\":%s,\"nodes\":[", s->numa_balancing,
	     s->damon_stat_paused ? "true" : "false");
	for (unsigned i = 0; i < s->nr_nodes; i++)
		emit(&o, "%s{\"nid\":%d,\"tier\":%d,\"has_cpu\":%s,\"total_bytes\":%" PRIu64
			 ",\"free_bytes\":%" PRIu64 "}",
		     i ? "," : "", s->nodes[i].nid, s->nodes[i].rank, s->nodes[i].has_cpu ? "true" : "false",
		     s->nodes[i].total, s->nodes[i].free);
	emit(&o, "],\"boundaries\":[");
	for (unsigned i = 0; i < s->nr_boundaries; i++) {
		const struct status_boundary *b = &s->b[i];

		emit(&o, "%s{\"fast_node\":%d,\"slow_node\":%d,\"fast_total_bytes\":%" PRIu64
			 ",\"fast_free_bytes\":%" PRIu64 ",",
		     i ? "," : "", b->fast_nid, b->slow_nid, b->fast_total, b->fast_free);
		emit_json_dir(&o, "promote", &b->promote);
		emit(&o, ",");
		emit_json_dir(&o, "demote", &b->demote);
		emit(&o, "}");
	}
	emit(&o, "],\"repairs_total\":%" PRIu64 ",\"errors_total\":%" PRIu64 "}\n", s->repairs_total,
	     s->errors_total);
	return out_done(&o);
}

int status_format_prometheus(const struct status_snapshot *s, const char *version, char *buf,
			     size_t size)
{
	struct out o = { buf, size, 0, size == 0 };

	emit(&o, "# HELP damon_tierd_build_info damon-tierd version.\n"
		 "# TYPE damon_tierd_build_info gauge\n"
		 "damon_tierd_build_info{version=\"%s\"} 1\n", version);
	emit(&o, "# HELP damon_tierd_running 1 while damon-tierd runs its plan.\n"
		 "# TYPE damon_tierd_running gauge\n"
		 "damon_tierd_running %d\n", strcmp(s->state, "running") == 0);
	emit(&o, "# HELP damon_tierd_node_used_ratio Used share of the node's memory.\n"
		 "# TYPE damon_tierd_node_used_ratio gauge\n");
	for (unsigned i = 0; i < s->nr_nodes; i++)
		emit(&o, "damon_tierd_node_used_ratio{node=\"%d\"} %.4f\n", s->nodes[i].nid,
		     pct(s->nodes[i].total - s->nodes[i].free, s->nodes[i].total) / 100.0);
	emit(&o, "# HELP damon_tierd_goal_ratio Effective goal of the fast node (used for promotion, "
		 "free for demotion).\n# TYPE damon_tierd_goal_ratio gauge\n");
	for (unsigned i = 0; i < s->nr_boundaries; i++) {
		const struct status_boundary *b = &s->b[i];

		if (b->promote.present)
			emit(&o, "damon_tierd_goal_ratio{goal=\"used\",node=\"%d\"} %.4f\n", b->fast_nid,
			     b->promote.goal_bp / 10000.0);
		if (b->demote.present)
			emit(&o, "damon_tierd_goal_ratio{goal=\"free\",node=\"%d\"} %.4f\n", b->fast_nid,
			     b->demote.goal_bp / 10000.0);
	}
	emit(&o, "# HELP damon_tierd_migrated_bytes_total Bytes migrated by our kdamonds, by direction "
		 "and source node (resets when a kdamond restarts).\n"
		 "# TYPE damon_tierd_migrated_bytes_total counter\n");
	for (unsigned i = 0; i < s->nr_boundaries; i++) {
		const struct status_boundary *b = &s->b[i];

		if (b->promote.present && b->promote.stats_valid)
			emit(&o, "damon_tierd_migrated_bytes_total{direction=\"promote\",node=\"%d\"} %" PRIu64
				 "\n", b->slow_nid, b->promote.applied_bytes);
		if (b->demote.present && b->demote.stats_valid)
			emit(&o, "damon_tierd_migrated_bytes_total{direction=\"demote\",node=\"%d\"} %" PRIu64
				 "\n", b->fast_nid, b->demote.applied_bytes);
	}
	emit(&o, "# HELP damon_tierd_effective_quota_bytes The quota the kernel's goal tuner chose.\n"
		 "# TYPE damon_tierd_effective_quota_bytes gauge\n");
	for (unsigned i = 0; i < s->nr_boundaries; i++) {
		const struct status_boundary *b = &s->b[i];

		if (b->promote.present && b->promote.stats_valid)
			emit(&o, "damon_tierd_effective_quota_bytes{direction=\"promote\",node=\"%d\"} %" PRIu64
				 "\n", b->slow_nid, b->promote.quota_bytes);
		if (b->demote.present && b->demote.stats_valid)
			emit(&o, "damon_tierd_effective_quota_bytes{direction=\"demote\",node=\"%d\"} %" PRIu64
				 "\n", b->fast_nid, b->demote.quota_bytes);
	}
	emit(&o, "# HELP damon_tierd_repairs_total Kdamonds restarted or re-committed.\n"
		 "# TYPE damon_tierd_repairs_total counter\n"
		 "damon_tierd_repairs_total %" PRIu64 "\n", s->repairs_total);
	emit(&o, "# HELP damon_tierd_errors_total Errors while supervising.\n"
		 "# TYPE damon_tierd_errors_total counter\n"
		 "damon_tierd_errors_total %" PRIu64 "\n", s->errors_total);
	return out_done(&o);
}

int status_write_file(const char *path, const char *text, mode_t mode)
{
	char tmp[512];
	size_t len = strlen(text);
	ssize_t n;
	int fd, r = 0;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	if (fd < 0)
		return -errno;
	/* open() applies the umask; the mode is part of the contract. */
	if (fchmod(fd, mode) < 0)
		r = -errno;
	n = r == 0 ? write(fd, text, len) : 0;
	if (r == 0 && (n < 0 || (size_t)n != len))
		r = n < 0 ? -errno : -EIO;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	if (r == 0 && rename(tmp, path) < 0)
		r = -errno;
	if (r < 0)
		unlink(tmp);
	return r;
}
