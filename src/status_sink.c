/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <systemd/sd-daemon.h>
#include <time.h>
#include <unistd.h>

#include "build-config.h"
#include "log.h"
#include "status_sink.h"

#define USEC_PER_SEC UINT64_C(1000000)

static struct ratelimit textfile_rl = RATELIMIT_INIT(60 * USEC_PER_SEC, 1);

void notify_ready(const char *status)
{
	sd_notifyf(0, "READY=1\nSTATUS=%s", status);
}

void notify_blocked(const char *why)
{
	sd_notifyf(0, "READY=1\nSTATUS=blocked: %s", why);
}

void notify_reloading(void)
{
	uint64_t now = 0;
	struct timespec ts;

	/* systemd >= 253 wants MONOTONIC_USEC with RELOADING=1 (Type=notify-reload). */
	if (clock_gettime(CLOCK_MONOTONIC, &ts) == 0)
		now = (uint64_t)ts.tv_sec * USEC_PER_SEC + (uint64_t)ts.tv_nsec / 1000;
	sd_notifyf(0, "RELOADING=1\nMONOTONIC_USEC=%" PRIu64 "\nSTATUS=reloading configuration", now);
}

void notify_stopping(void)
{
	sd_notify(0, "STOPPING=1\nSTATUS=stopping: turning off our kdamonds");
}

void status_log_lines(const struct status_snapshot *s)
{
	for (unsigned i = 0; i < s->nr_boundaries; i++) {
		struct status_boundary lb = s->b[i];
		char text[1024], f1[48], f2[64], f3[64];

		lb.promote.mib_s = lb.promote.line_mib_s;
		lb.demote.mib_s = lb.demote.line_mib_s;
		if (status_format_line(&lb, text, sizeof(text)) < 0)
			continue;
		snprintf(f1, sizeof(f1), "DAMON_TIERD_FAST_NODE=%d", lb.fast_nid);
		/* The reasons as fields too: journalctl DAMON_TIERD_DEMOTE_REASON=low_yield */
		snprintf(f2, sizeof(f2), "DAMON_TIERD_PROMOTE_REASON=%s",
			 explain_reason_name(lb.why_promote.reason));
		snprintf(f3, sizeof(f3), "DAMON_TIERD_DEMOTE_REASON=%s",
			 explain_reason_name(lb.why_demote.reason));
		log_full(LOG_INFO, 0, (const char *const[]){ "DAMON_TIERD_EVENT=status", f1, f2, f3, NULL },
			 "%s", text);
	}
}

void status_publish(const struct status_snapshot *s, const char *state_dir, const char *prom_path,
		    uint64_t now_usec)
{
	static char buf[STATUS_TEXT_MAX];
	char path[300];
	int r;

	snprintf(path, sizeof(path), "%s/status.json", state_dir);
	if (status_format_json(s, buf, sizeof(buf)) == 0)
		(void)status_write_file(path, buf, 0644);
	snprintf(path, sizeof(path), "%s/status.txt", state_dir);
	if (status_format_text(s, buf, sizeof(buf)) == 0)
		(void)status_write_file(path, buf, 0644);
	if (!prom_path[0])
		return;
	r = status_format_prometheus(s, PACKAGE_VERSION, buf, sizeof(buf));
	if (r == 0)
		r = status_write_file(prom_path, buf, 0644);
	if (r < 0 && ratelimit_below(&textfile_rl, now_usec))
		log_warning_errno(r, "cannot write the Prometheus textfile %s (daemon.prometheus_textfile; "
				  "its directory must exist and be writable, the unit needs ReadWritePaths= "
				  "for it)", prom_path);
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
