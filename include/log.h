/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * Logging: to the journal (with structured fields) when stderr is connected
 * to journald, plain "level: message" lines on stderr otherwise.
 *
 * Callers log once, at the boundary where an error is handled, with the errno
 * and the path involved.  Repeated warnings go through a struct ratelimit.
 */
#include <stdbool.h>
#include <stdint.h>
#include <syslog.h>

enum log_target { LOG_TARGET_AUTO, LOG_TARGET_STDERR, LOG_TARGET_JOURNAL };

/* Choose the target.  AUTO picks the journal when $JOURNAL_STREAM names our
 * stderr (the way systemd services are wired), stderr otherwise. */
void log_setup(enum log_target target);
/* Messages with a priority above max_prio (e.g. LOG_DEBUG) are dropped. */
void log_set_max_level(int max_prio);
int log_get_max_level(void);
bool log_to_journal(void);

/*
 * Log one message.  `fields` is NULL or a NULL-terminated list of extra
 * "KEY=value" journal fields (ignored on stderr).  Returns -abs(error) when
 * error != 0, so a caller can write `return log_error_errno(r, ...)`.
 */
int log_full(int prio, int error, const char *const *fields, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#define log_debug(...)   log_full(LOG_DEBUG, 0, NULL, __VA_ARGS__)
#define log_info(...)    log_full(LOG_INFO, 0, NULL, __VA_ARGS__)
#define log_notice(...)  log_full(LOG_NOTICE, 0, NULL, __VA_ARGS__)
#define log_warning(...) log_full(LOG_WARNING, 0, NULL, __VA_ARGS__)
#define log_error(...)   log_full(LOG_ERR, 0, NULL, __VA_ARGS__)
#define log_error_errno(err, ...)   log_full(LOG_ERR, (err), NULL, __VA_ARGS__)
#define log_warning_errno(err, ...) log_full(LOG_WARNING, (err), NULL, __VA_ARGS__)

/* At most `burst` messages per `interval_usec`; then one "suppressed N" note. */
struct ratelimit {
	uint64_t interval_usec;
	unsigned burst;
	uint64_t begin_usec;
	unsigned num;
	unsigned suppressed;
};
#define RATELIMIT_INIT(interval, b) { .interval_usec = (interval), .burst = (b) }
/* True if the caller may log now.  `now_usec` is CLOCK_MONOTONIC. */
bool ratelimit_below(struct ratelimit *rl, uint64_t now_usec);

/* Capture hook for unit tests: every formatted message is passed here too. */
typedef void (*log_capture_fn)(int prio, const char *msg, void *userdata);
void log_set_capture(log_capture_fn fn, void *userdata);
