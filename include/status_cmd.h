/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * "damon-tierd status [--json] [--watch] [--config FILE]": the client side.
 * It reads the runtime status files the daemon publishes every period in its
 * state directory (world-readable, so no root is needed) and says whether
 * the daemon is alive (it holds the lock) and how fresh the files are.
 * Returns the exit status: 0 the daemon runs and reports, 1 it does not
 * (or the files are stale), 2 bad usage.
 */
int status_command(int argc, char **argv, const char *default_config);
