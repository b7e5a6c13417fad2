/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * Where the status goes: systemd (sd_notify; silently nothing outside
 * systemd), the journal's periodic status lines, the runtime status files
 * that "damon-tierd status" reads, and the Prometheus textfile.
 */
#include <stdint.h>
#include <sys/types.h>

#include "status.h"

void notify_ready(const char *status);
/* READY too: the daemon is up and retries by itself. */
void notify_blocked(const char *why);
void notify_reloading(void);
void notify_stopping(void);

/* One journal line per boundary, with the rates since the previous line. */
void status_log_lines(const struct status_snapshot *s);

/* The largest status file or textfile status_publish() writes: room for
 * TOPO_MAX_NODES nodes and PLAN_MAX_KDAMONDS kdamonds (test-status checks). */
#define STATUS_TEXT_MAX 32768

/*
 * Write state_dir/status.json and status.txt, and the Prometheus textfile
 * when prom_path is not "".  Metrics are a side channel: a failure is warned
 * about (ratelimited by now_usec) and tiering goes on.
 */
void status_publish(const struct status_snapshot *s, const char *state_dir, const char *prom_path,
		    uint64_t now_usec);

/* Write text to path atomically (temp file + rename), with mode.  0 or -errno. */
int status_write_file(const char *path, const char *text, mode_t mode);
