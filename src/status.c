/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <time.h>
#include <systemd/sd-daemon.h>

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

void status_errno(int err)
{
	sd_notifyf(0, "ERRNO=%d", err < 0 ? -err : err);
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

int status_format_boundary(char *buf, size_t size, const struct numa_node *fast,
			   const struct plan_kdamond *promote, const struct scheme_stats *pst,
			   double promote_mib_s,
			   const struct plan_kdamond *demote, const struct scheme_stats *dst,
			   double demote_mib_s)
{
	char pq[32] = "-", dq[32] = "-", ps[32] = "-", ds[32] = "-";
	int n;

	if (promote && pst) {
		fmt_bytes(pq, sizeof(pq), pst->effective_bytes);
		snprintf(ps, sizeof(ps), "%.1fms", (double)pst->sample_us / 1000.0);
	}
	if (demote && dst) {
		fmt_bytes(dq, sizeof(dq), dst->effective_bytes);
		snprintf(ds, sizeof(ds), "%.1fms", (double)dst->sample_us / 1000.0);
	}
	n = snprintf(buf, size,
		     "node%d used %.1f%%: promoted %.2f MiB/s", fast->nid,
		     pct(fast->mem_total - fast->mem_free, fast->mem_total), promote_mib_s);
	if (n < 0 || (size_t)n >= size)
		return -ENOBUFS;
	if (promote)
		n += snprintf(buf + n, size - (size_t)n, " (from node%d, used goal %.2f%%)",
			      promote->from_nid, (double)promote->scheme.goal.target_value / 100.0);
	if ((size_t)n >= size)
		return -ENOBUFS;
	n += snprintf(buf + n, size - (size_t)n, ", demoted %.2f MiB/s", demote_mib_s);
	if ((size_t)n >= size)
		return -ENOBUFS;
	if (demote)
		n += snprintf(buf + n, size - (size_t)n, " (to node%d, free goal %.2f%%)",
			      demote->to_nid, (double)demote->scheme.goal.target_value / 100.0);
	if ((size_t)n >= size)
		return -ENOBUFS;
	n += snprintf(buf + n, size - (size_t)n,
		      "; effective quota promote %s demote %s; sampling promote %s demote %s",
		      pq, dq, ps, ds);
	if (n < 0 || (size_t)n >= size)
		return -ENOBUFS;
	return 0;
}
