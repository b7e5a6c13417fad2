/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "owner.h"
#include "status_cmd.h"

static volatile sig_atomic_t stop;

static void on_sigint(int sig)
{
	(void)sig;
	stop = 1;
}

static int show(const char *state_dir, bool json, uint64_t interval_us)
{
	char path[300], buf[65536];
	struct stat st;
	size_t n;
	FILE *f;
	bool alive = owner_lock_held(state_dir);
	time_t age;

	snprintf(path, sizeof(path), "%s/%s", state_dir, json ? "status.json" : "status.txt");
	f = fopen(path, "re");
	if (!f || fstat(fileno(f), &st) < 0) {
		if (json)
			printf("{\"running\":false,\"error\":\"no status file %s\"}\n", path);
		else
			printf("damon-tierd is %s; no status file %s (%s)\n",
			       alive ? "running" : "not running", path, strerror(errno));
		if (f)
			fclose(f);
		return 1;
	}
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	age = time(NULL) - st.st_mtime;
	if (json) {
		fputs(buf, stdout);
	} else {
		if (!alive)
			printf("damon-tierd is not running; its last report was:\n");
		fputs(buf, stdout);
		printf("updated %lld s ago%s\n", (long long)age,
		       alive ? "" : " (damon-tierd is not running: this is its last report)");
	}
	/* Stale: more than three periods without an update. */
	return alive && (uint64_t)age * 1000000 <= 3 * interval_us + 2000000 ? 0 : 1;
}

int status_command(int argc, char **argv, const char *default_config)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "watch", no_argument, NULL, 'w' },
		{ "config", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	const char *config_path = default_config;
	bool json = false, watch = false, explicit_config = false;
	struct config cfg;
	struct config_error err = {};
	int c, r;

	optind = 1;
	while ((c = getopt_long(argc, argv, "c:h", longopts, NULL)) >= 0) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'w':
			watch = true;
			break;
		case 'c':
			config_path = optarg;
			explicit_config = true;
			break;
		case 'h':
			printf("Usage: damon-tierd status [--json] [--watch] [--config FILE]\n"
			       "Show what damon-tierd runs: tiers, per boundary the fast node's use against\n"
			       "its goals, bytes moved and rates, effective quotas, tuned intervals, kernel\n"
			       "features and conflicts.  Exit status 0 if the daemon runs and reports.\n");
			return 0;
		default:
			fprintf(stderr, "Try 'damon-tierd status --help'.\n");
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "damon-tierd status: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	/* The daemon's own search path and drop-ins: state_dir may be set anywhere. */
	struct config_sources src = { .main_file = explicit_config ? config_path : NULL };

	r = config_load_sources(&src, &cfg, NULL, &err);
	if (r < 0) {
		fprintf(stderr, "damon-tierd status: %s\n", err.message[0] ? err.message : strerror(-r));
		return 2;
	}
	if (!watch)
		return show(cfg.state_dir, json, cfg.interval_us);

	signal(SIGINT, on_sigint);
	signal(SIGTERM, on_sigint);
	while (!stop) {
		/* Home, clear: the summary refreshes in place. */
		fputs("\033[H\033[2J", stdout);
		r = show(cfg.state_dir, json, cfg.interval_us);
		fflush(stdout);
		for (uint64_t waited = 0; !stop && waited < cfg.interval_us; waited += 100000)
			usleep(100000);
	}
	return r;
}
