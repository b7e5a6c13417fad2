/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * damon-tierd: command line, event loop and signals.  This file only parses
 * options and wires one sd-event timer and the signals to the reconciler
 * (reconcile.h); every decision is elsewhere.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-daemon.h>
#include <systemd/sd-event.h>
#include <time.h>
#include <unistd.h>

#include "build-config.h"
#include "cgroup_rules.h"
#include "cli_opts.h"
#include "config.h"
#include "exit_codes.h"
#include "log.h"
#include "owner.h"
#include "reconcile.h"
#include "status_cmd.h"
#include "sysfs_io.h"

struct options {
	const char *config_path;   /* --config FILE, NULL: the search path */
	const char *config_root;   /* --config-root DIR (tests), NULL: / */
	const char *sysfs_root;
	bool foreground, check_config, dry_run, once, verbose, quiet;
};

static void help(void)
{
	printf("Usage: damon-tierd [OPTIONS]\n"
	       "       damon-tierd status [--json] [--watch] [--config FILE] [--state-dir DIR]\n"
	       "\n"
	       "Self-tuned memory tiering with DAMON: discovers the memory tiers, starts a\n"
	       "promote and a demote kdamond per tier boundary and supervises them.\n"
	       "\n"
	       "  -c, --config FILE      configuration file, with drop-ins from FILE.d/ (default:\n"
	       "                         the search path below)\n"
	       "      --sysfs-root DIR   root under which sys/ and proc/ are read (default /)\n"
	       "  -f, --foreground       log to stderr unless started by systemd\n"
	       "      --check-config     validate the configuration, print it, and exit\n"
	       "  -q, --quiet            with --check-config: print only errors\n"
	       "      --dry-run          print the sysfs writes it would make; touch nothing\n"
	       "      --once             apply the plan, leave the kdamonds running, exit\n"
	       "  -v, --verbose          debug logging\n"
	       "  -h, --help             this help\n"
	       "  -V, --version          print the version\n"
	       "\n"
	       "Exit status: 0 ok, 1 runtime failure, 2 bad usage or configuration,\n"
	       "3 the kernel lacks a required feature, 4 another DAMON user blocks us,\n"
	       "5 another instance runs, 77 nothing to tier (one node or one tier).\n"
	       "\n"
	       "Configuration search path: the first found of\n"
	       "  " SYSCONFDIR "/damon-tierd.conf\n"
	       "  /run/damon-tierd.conf\n"
	       "  /usr/local/lib/damon-tierd.conf\n"
	       "  /usr/lib/damon-tierd.conf\n"
	       "then the *.conf drop-ins in the damon-tierd.conf.d/ directories beside them.\n");
}

/* A bad command line (cli_opts.h).  Returns -EINVAL. */
static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int usage_error(const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = cli_vusage_error("damon-tierd --help", fmt, ap);
	va_end(ap);
	return r;
}

/* The one-shot modes are different runs: at most one of them. */
static int check_modes(const struct options *o)
{
	const char *modes[3];
	unsigned n = 0;

	if (o->check_config)
		modes[n++] = "--check-config";
	if (o->dry_run)
		modes[n++] = "--dry-run";
	if (o->once)
		modes[n++] = "--once";
	if (n > 1)
		return usage_error("%s and %s cannot be combined: --check-config only validates the "
				   "configuration, --dry-run only prints the writes, --once applies them; "
				   "run one of them", modes[0], modes[1]);
	return 0;
}

static int parse_args(int argc, char **argv, struct options *o)
{
	enum { OPT_ROOT = 256, OPT_CHECK, OPT_DRY, OPT_ONCE, OPT_VERSION, OPT_CONFIG_ROOT };
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		/* Not in --help: for tests, the config search path below DIR. */
		{ "config-root", required_argument, NULL, OPT_CONFIG_ROOT },
		{ "sysfs-root", required_argument, NULL, OPT_ROOT },
		{ "foreground", no_argument, NULL, 'f' },
		{ "check-config", no_argument, NULL, OPT_CHECK },
		{ "dry-run", no_argument, NULL, OPT_DRY },
		{ "once", no_argument, NULL, OPT_ONCE },
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, OPT_VERSION },
		{}
	};
	int c, r;

	/* getopt's own messages would start with argv[0], a path. */
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":c:fvqhV", longopts, NULL)) >= 0) {
		switch (c) {
		case 'c':
			if (!*optarg)
				return usage_error("--config needs a file name (got an empty one)");
			o->config_path = optarg;
			break;
		case OPT_ROOT:
			if (!*optarg)
				return usage_error("--sysfs-root needs a directory (got an empty one)");
			o->sysfs_root = optarg;
			break;
		case OPT_CONFIG_ROOT:
			if (!*optarg)
				return usage_error("--config-root needs a directory (got an empty one)");
			o->config_root = optarg;
			break;
		case 'f':
			o->foreground = true;
			break;
		case OPT_CHECK:
			o->check_config = true;
			break;
		case OPT_DRY:
			o->dry_run = true;
			break;
		case OPT_ONCE:
			o->once = true;
			break;
		case 'v':
			o->verbose = true;
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'h':
			help();
			exit(EXIT_OK);
		case 'V':
		case OPT_VERSION:
			printf("damon-tierd " PACKAGE_VERSION "\n");
			exit(EXIT_OK);
		default:
			return cli_bad_option("damon-tierd --help", c, argv[optind - 1], longopts);
		}
	}
	if (optind < argc)
		return usage_error("unexpected argument '%s'", argv[optind]);
	r = check_modes(o);
	if (r < 0)
		return r;
	/* ExecReload= runs --check-config --quiet: the verdict is the exit
	 * status, and the journal gets the errors only. */
	if (o->quiet && !o->check_config)
		return usage_error("--quiet applies to --check-config only");
	if (o->config_root && o->config_path)
		return usage_error("--config-root applies to the search path only; drop --config or "
				   "--config-root");
	/* A SIGHUP reload reads the real search path (the reconciler only
	 * knows config_path), so the test root is for one-shot modes only. */
	if (o->config_root && !(o->check_config || o->dry_run || o->once))
		return usage_error("--config-root is for tests: use it with --check-config, --dry-run "
				   "or --once");
	return 0;
}

/* Nothing found on the search path is fine: every key has a default. */
static int load_config(const struct options *o, struct config *c, struct config_origins *origins)
{
	const struct config_sources src = { .root = o->config_root, .main_file = o->config_path };
	struct config_error err = {};
	int r;

	r = config_load_sources(&src, c, origins, &err);
	if (r < 0)
		log_error("%s", err.message[0] ? err.message : strerror(-r));
	return r;
}

struct loop {
	struct reconciler *rc;
	sd_event *ev;
	sd_event_source *timer;
};

static void run_step(struct loop *l)
{
	uint64_t now, delay;

	sd_event_now(l->ev, CLOCK_MONOTONIC, &now);
	delay = reconcile_step(l->rc, now);
	if (reconcile_state(l->rc) == RC_DONE) {
		sd_event_exit(l->ev, reconcile_exit_code(l->rc));
		return;
	}
	sd_event_source_set_time(l->timer, now + delay);
	sd_event_source_set_enabled(l->timer, SD_EVENT_ONESHOT);
}

static int on_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
	run_step(userdata);
	return 0;
}

static int on_signal(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata)
{
	struct loop *l = userdata;

	if (si->ssi_signo == SIGHUP) {
		log_info("SIGHUP: reloading the configuration");
		reconcile_request_reload(l->rc);
	} else {
		log_info("%s: stopping", strsignal((int)si->ssi_signo));
		reconcile_request_stop(l->rc);
	}
	run_step(l);
	return 0;
}

/* --dry-run and --once need no event loop: step until done, sleeping in
 * between. */
static int run_plain(struct reconciler *rc)
{
	for (;;) {
		struct timespec ts;
		uint64_t now, delay;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		now = (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
		delay = reconcile_step(rc, now);
		if (reconcile_state(rc) == RC_DONE)
			return reconcile_exit_code(rc);
		usleep((useconds_t)(delay > 1000000 ? 1000000 : delay));
	}
}

static int run_loop(struct reconciler *rc)
{
	struct loop l = { .rc = rc };
	sigset_t mask;
	int r;

	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	sigprocmask(SIG_BLOCK, &mask, NULL);

	r = sd_event_default(&l.ev);
	if (r < 0) {
		log_error_errno(r, "cannot create the event loop");
		return EXIT_FAILURE_RUNTIME;
	}
	sd_event_add_signal(l.ev, NULL, SIGTERM, on_signal, &l);
	sd_event_add_signal(l.ev, NULL, SIGINT, on_signal, &l);
	sd_event_add_signal(l.ev, NULL, SIGHUP, on_signal, &l);
	/* Sends WATCHDOG=1 at half of WatchdogSec while the loop turns. */
	sd_event_set_watchdog(l.ev, true);
	r = sd_event_add_time(l.ev, &l.timer, CLOCK_MONOTONIC, 0, 10000, on_timer, &l);
	if (r < 0) {
		log_error_errno(r, "cannot add the reconcile timer");
		sd_event_unref(l.ev);
		return EXIT_FAILURE_RUNTIME;
	}
	r = sd_event_loop(l.ev);
	if (r < 0) {
		log_error_errno(r, "event loop failed");
		r = EXIT_FAILURE_RUNTIME;
	}
	sd_event_source_unref(l.timer);
	sd_event_unref(l.ev);
	return r;
}

int main(int argc, char **argv)
{
	struct options o = { .sysfs_root = "/" };
	static struct config_origins origins;
	struct reconcile_options ro = {};
	struct reconciler *rc;
	struct config cfg;
	int root, lock_fd = -1, r, exit_code;

	if (argc > 1 && strcmp(argv[1], "status") == 0)
		return status_command(argc - 1, argv + 1, DEFAULT_CONFIG_PATH);

	if (parse_args(argc, argv, &o) < 0)
		return EXIT_USAGE;

	log_setup(o.dry_run || o.check_config ? LOG_TARGET_STDERR : LOG_TARGET_AUTO);
	log_set_max_level(o.verbose ? LOG_DEBUG : LOG_INFO);

	if (load_config(&o, &cfg, &origins) < 0)
		return EXIT_USAGE;
	if (o.check_config && o.quiet)
		return EXIT_OK;
	if (o.check_config) {
		static char buf[16384];

		config_format_sources(&cfg, &origins, buf, sizeof(buf));
		fputs(buf, stdout);
		if (buf[0] && buf[strlen(buf) - 1] != '\n')
			fputc('\n', stdout);
		/* What each rule becomes; which goal depends on the kernel. */
		for (unsigned i = 0; i < cfg.nr_cgroups; i++)
			if (cgroup_rule_describe(&cfg.cgroups[i], NULL, buf, sizeof(buf)) == 0)
				printf("# %s\n", buf);
		fprintf(stderr, "damon-tierd: %s + %u drop-in%s: configuration is valid\n",
			origins.main_file[0] ? origins.main_file : "no main file", origins.nr_dropins,
			origins.nr_dropins == 1 ? "" : "s");
		return EXIT_OK;
	}

	root = io_root_open(o.sysfs_root);
	if (root < 0) {
		log_error_errno(root, "cannot open --sysfs-root %s", o.sysfs_root);
		return EXIT_USAGE;
	}
	if (!o.dry_run) {
		lock_fd = owner_lock(cfg.state_dir);
		if (lock_fd == -EWOULDBLOCK) {
			log_error("another damon-tierd is running (it holds %s/lock); stop it first "
				  "(systemctl stop damon-tierd)", cfg.state_dir);
			close(root);
			return EXIT_INSTANCE;
		}
		if (lock_fd < 0) {
			log_error_errno(lock_fd, "cannot take the lock in the state directory %s",
					cfg.state_dir);
			close(root);
			return EXIT_FAILURE_RUNTIME;
		}
	}

	ro.root = root;
	ro.config_path = o.config_path;
	ro.once = o.once;
	ro.dry_run = o.dry_run ? stdout : NULL;
	r = reconcile_new(&ro, &cfg, &rc);
	if (r < 0) {
		log_error_errno(r, "out of memory");
		exit_code = EXIT_FAILURE_RUNTIME;
	} else {
		exit_code = o.dry_run || o.once ? run_plain(rc) : run_loop(rc);
		reconcile_free(rc);
	}
	close(root);
	if (lock_fd >= 0)
		close(lock_fd);
	return exit_code;
}
