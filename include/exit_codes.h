/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/* The documented exit codes (damon-tierd(8), README "Troubleshooting"). */
enum {
	EXIT_OK = 0,
	EXIT_FAILURE_RUNTIME = 1,
	EXIT_USAGE = 2,           /* bad command line or config */
	EXIT_KERNEL = 3,          /* the kernel lacks a required DAMON feature */
	EXIT_CONFLICT = 4,        /* another DAMON user blocks us */
	EXIT_INSTANCE = 5,        /* another damon-tierd holds the lock */
	EXIT_NOTHING_TO_TIER = 77 /* one node or one tier: nothing to do */
};
