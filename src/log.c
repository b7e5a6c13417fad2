/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Logging to the journal or stderr.
 *
 * Under systemd, stderr is usually a journald stream already, but going
 * through sd_journal_sendv() keeps the priority and lets callers attach
 * structured fields (NODE=, KDAMOND=, ...), so we detect that case:
 * $JOURNAL_STREAM holds "dev:ino" of the stream and it must match what fd 2
 * is (a child may inherit the variable with a redirected stderr).
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

/* The location would be this file's, not the caller's: leave it out. */
#define SD_JOURNAL_SUPPRESS_LOCATION
#include <systemd/sd-journal.h>

#include "log.h"

#define LOG_IDENT "damon-tierd"
#define LOG_LINE_MAX 2048
#define LOG_FIELDS_MAX 32

static bool to_journal;
static int max_level = LOG_INFO;
static log_capture_fn capture_fn;
static void *capture_userdata;

static bool stderr_is_journal(void)
{
	unsigned long long dev, ino;
	const char *e;
	struct stat st;
	char tail;

	e = getenv("JOURNAL_STREAM");
	if (!e || sscanf(e, "%llu:%llu%c", &dev, &ino, &tail) != 2)
		return false;
	if (fstat(STDERR_FILENO, &st) < 0)
		return false;
	return (unsigned long long)st.st_dev == dev && (unsigned long long)st.st_ino == ino;
}

void log_setup(enum log_target target)
{
	switch (target) {
	case LOG_TARGET_JOURNAL:
		to_journal = true;
		break;
	case LOG_TARGET_STDERR:
		to_journal = false;
		break;
	case LOG_TARGET_AUTO:
	default:
		to_journal = stderr_is_journal();
		break;
	}
}

void log_set_max_level(int max_prio)
{
	max_level = max_prio;
}

int log_get_max_level(void)
{
	return max_level;
}

bool log_to_journal(void)
{
	return to_journal;
}

void log_set_capture(log_capture_fn fn, void *userdata)
{
	capture_fn = fn;
	capture_userdata = userdata;
}

static const char *level_prefix(int prio)
{
	switch (prio) {
	case LOG_EMERG:   return "emergency: ";
	case LOG_ALERT:   return "alert: ";
	case LOG_CRIT:    return "critical: ";
	case LOG_ERR:     return "error: ";
	case LOG_WARNING: return "warning: ";
	case LOG_NOTICE:  return "notice: ";
	case LOG_DEBUG:   return "debug: ";
	case LOG_INFO:
	default:          return "";
	}
}

static int write_journal(int prio, int error, const char *const *fields, const char *msg)
{
	struct iovec iov[4 + LOG_FIELDS_MAX];
	char *message = NULL, *priority = NULL, *errno_field = NULL;
	size_t n = 0, i;
	int r;

	if (asprintf(&message, "MESSAGE=%s", msg) < 0) {
		message = NULL;
		r = -ENOMEM;
		goto out;
	}
	if (asprintf(&priority, "PRIORITY=%d", prio) < 0) {
		priority = NULL;
		r = -ENOMEM;
		goto out;
	}
	iov[n++] = (struct iovec) { message, strlen(message) };
	iov[n++] = (struct iovec) { priority, strlen(priority) };
	iov[n++] = (struct iovec) { (char *)"SYSLOG_IDENTIFIER=" LOG_IDENT,
				    strlen("SYSLOG_IDENTIFIER=" LOG_IDENT) };
	if (error != 0) {
		if (asprintf(&errno_field, "ERRNO=%d", error) < 0) {
			errno_field = NULL;
			r = -ENOMEM;
			goto out;
		}
		iov[n++] = (struct iovec) { errno_field, strlen(errno_field) };
	}
	/* Fields without '=' would make journald drop the whole entry. */
	for (i = 0; fields && fields[i] && n < sizeof(iov) / sizeof(iov[0]); i++)
		if (strchr(fields[i], '=') && fields[i][0] != '=')
			iov[n++] = (struct iovec) { (char *)fields[i], strlen(fields[i]) };

	r = sd_journal_sendv(iov, (int)n);
out:
	free(message);
	free(priority);
	free(errno_field);
	return r;
}

static void write_stderr(int prio, const char *msg)
{
	char line[LOG_LINE_MAX + 64];
	int n;

	/* One write per message so concurrent writers do not interleave. */
	n = snprintf(line, sizeof(line), LOG_IDENT ": %s%s\n", level_prefix(prio), msg);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(line)) {
		n = (int)sizeof(line) - 1;
		line[n - 1] = '\n';
	}
	if (write(STDERR_FILENO, line, (size_t)n) < 0) {
		/* Nowhere left to report this. */
	}
}

int log_full(int prio, int error, const char *const *fields, const char *fmt, ...)
{
	char msg[LOG_LINE_MAX];
	int saved_errno = errno, e, ret;
	size_t len;
	va_list ap;

	/* INT_MIN has no positive counterpart; it is no errno anyway. */
	e = error == 0 ? 0 : error == INT_MIN ? INT_MAX : abs(error);
	ret = -e;

	/* Let callers use %m for the error they pass in, as in systemd. */
	errno = e;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);

	if (e != 0) {
		char ebuf[128];
		const char *es = strerror_r(e, ebuf, sizeof(ebuf));

		len = strlen(msg);
		snprintf(msg + len, sizeof(msg) - len, ": %s", es);
	}

	/* Tests want to assert on debug messages without turning on debug
	 * output, so the capture sees everything. */
	if (capture_fn)
		capture_fn(prio, msg, capture_userdata);

	if ((prio & LOG_PRIMASK) > max_level)
		goto out;

	if (!to_journal || write_journal(prio & LOG_PRIMASK, e, fields, msg) < 0)
		write_stderr(prio & LOG_PRIMASK, msg);
out:
	errno = saved_errno;
	return ret;
}

bool ratelimit_below(struct ratelimit *rl, uint64_t now_usec)
{
	if (!rl)
		return true;
	if (rl->interval_usec == 0 || rl->burst == 0)
		return true;

	/* begin_usec 0 with num 0 is the untouched RATELIMIT_INIT state. */
	if ((rl->begin_usec == 0 && rl->num == 0) ||
	    now_usec < rl->begin_usec ||
	    now_usec - rl->begin_usec >= rl->interval_usec) {
		unsigned suppressed = rl->suppressed;

		rl->begin_usec = now_usec;
		rl->num = 1;
		rl->suppressed = 0;
		if (suppressed > 0)
			log_full(LOG_NOTICE, 0, NULL, "Suppressed %u similar message%s",
				 suppressed, suppressed == 1 ? "" : "s");
		return true;
	}

	if (rl->num < rl->burst) {
		rl->num++;
		return true;
	}
	if (rl->suppressed < UINT_MAX)
		rl->suppressed++;
	return false;
}
