/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/* Helpers shared by the unit tests.  They abort the test (cmocka fail) on
 * any error, so tests stay short. */
#include <stddef.h>
#include <stdint.h>

/* A fresh temporary directory (removed by tu_rmtree). Returns a malloc'd path. */
char *tu_mkdtemp(void);
void tu_rmtree(const char *path);
/* snprintf into buf; a path that does not fit is a bug of the test: abort. */
void tu_pathf(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Copy tests/fixtures/<name> (from $FIXTURES_DIR) into a fresh temp dir;
 * returns the temp dir path. */
char *tu_fixture_copy(const char *name);
/* $FIXTURES_DIR/<name> (malloc'd), read-only use. */
char *tu_fixture_path(const char *name);
/* Write/read a file below dir, creating parent directories on write. */
void tu_write(const char *dir, const char *rel, const char *content);
/* Returns a malloc'd string with the trailing newline stripped, or NULL if missing. */
char *tu_read(const char *dir, const char *rel);
int tu_exists(const char *dir, const char *rel);

/* Collect log messages (via log_set_capture) for assertions. */
void tu_log_capture_start(void);
/* True if any captured message contains needle. */
int tu_log_contains(const char *needle);
const char *tu_log_text(void);
void tu_log_capture_stop(void);

/* Pure inputs shared by the planner's and the decisions' tests. */
struct damon_features;
struct topology;
struct tier_map;
/* What DAMON offers on 6.17 (7.3 adds nothing the daemon uses) and 6.12. */
extern const struct damon_features tu_feat_617, tu_feat_612;
/* The QEMU VM: node0 476 MiB with CPUs (200 MiB free, high watermarks
 * 33 MiB, two ranges), node1 515 MiB CPU-less; its tier map. */
void tu_vm_topology(struct topology *t, struct tier_map *m);
