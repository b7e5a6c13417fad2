/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * "damon-tierd status": reads what the daemon published in its state
 * directory, says whether it still runs, and what is wrong with the
 * configuration -- which must not keep it from showing the rest: a broken
 * config is exactly when an operator asks.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli_opts.h"
#include "config.h"
#include "owner.h"
#include "status.h"
#include "status_cmd.h"

/* The daemon's files are a few KiB; anything far larger is not one. */
#define REPORT_MAX (256 * 1024)

static volatile sig_atomic_t stop;

static void on_sigint(int sig)
{
	(void)sig;
	stop = 1;
}

struct options {
	const char *config_path;   /* --config FILE, or NULL: the search path */
	const char *state_dir;     /* --state-dir DIR, or NULL: the config's */
	bool json, watch;
};

/* What one look at the state directory found. */
struct view {
	bool config_ok;
	struct config_error err;
	int config_errno;
	struct config cfg;          /* defaults when the config is broken */
	const char *state_dir;
	bool state_dir_default;     /* broken config, no --state-dir: the built-in one */
	bool lock_held;
	/* the report: status.json (and status.txt for text) */
	bool have;
	char why[512];              /* why there is none */
	char *json, *text;
	time_t age;
	int64_t pid;                /* the reporting daemon's, 0 if unknown */
	bool pid_alive;
	uint64_t interval_us;
	bool running, stale;
};

/* path into a malloc'd string, without blocking on a FIFO or a device. */
static int read_report(const char *path, char **ret, time_t *mtime)
{
	struct stat st;
	char *buf;
	ssize_t n;
	size_t len = 0;
	int fd, r = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		r = -errno;
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		r = -EBADFD;
		goto out;
	}
	if (st.st_size > REPORT_MAX) {
		r = -EFBIG;
		goto out;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		r = -ENOMEM;
		goto out;
	}
	while ((n = read(fd, buf + len, (size_t)st.st_size - len)) > 0)
		len += (size_t)n;
	if (n < 0) {
		r = -errno;
		free(buf);
		goto out;
	}
	buf[len] = '\0';
	*ret = buf;
	*mtime = st.st_mtime;
out:
	close(fd);
	return r;
}

static const char *read_error(int r)
{
	switch (r) {
	case -EBADFD:
		return "not a regular file";
	case -EFBIG:
		return "too large to be a damon-tierd report";
	default:
		return strerror(-r);
	}
}

/* The first `"key":` number of the daemon's JSON.  The daemon writes its
 * top-level keys first, and a key inside a string would read \"key\". */
static bool json_number(const char *json, const char *key, uint64_t *ret)
{
	char needle[64];
	const char *p;
	char *end;

	snprintf(needle, sizeof(needle), "\"%s\":", key);
	p = json ? strstr(json, needle) : NULL;
	if (!p)
		return false;
	p += strlen(needle);
	errno = 0;
	*ret = strtoull(p, &end, 10);
	return end != p && errno == 0;
}

static void load_config(const struct options *o, struct view *v)
{
	const struct config_sources src = { .main_file = o->config_path };
	int r = config_load_sources(&src, &v->cfg, NULL, &v->err);

	v->config_ok = r == 0;
	v->config_errno = r;
	if (r < 0) {
		/* The daemon's defaults: where it would put its files. */
		config_init(&v->cfg);
		if (!v->err.message[0])
			snprintf(v->err.message, sizeof(v->err.message), "%s: %s",
				 o->config_path ? o->config_path : "the configuration", strerror(-r));
	}
	v->state_dir = o->state_dir ? o->state_dir : v->cfg.state_dir;
	v->state_dir_default = !v->config_ok && !o->state_dir;
}

static void look(const struct options *o, struct view *v)
{
	char path[CONFIG_PATH_MAX + 32];
	time_t mtime = 0, now = time(NULL);
	uint64_t u;
	int r;

	memset(v, 0, sizeof(*v));
	load_config(o, v);
	v->lock_held = owner_lock_held(v->state_dir);
	/* The JSON's pid and interval judge the text too. */
	snprintf(path, sizeof(path), "%s/status.json", v->state_dir);
	r = read_report(path, &v->json, &mtime);
	if (!o->json) {
		snprintf(path, sizeof(path), "%s/status.txt", v->state_dir);
		r = read_report(path, &v->text, &mtime);
	}
	if (r < 0)
		snprintf(v->why, sizeof(v->why), "cannot read %s: %s", path, read_error(r));
	else if (o->json && (v->json[0] != '{' || !strrchr(v->json, '}')))
		snprintf(v->why, sizeof(v->why), "%s is not a damon-tierd report", path);
	else
		v->have = true;
	v->age = v->have && now > mtime ? now - mtime : 0;
	v->interval_us = v->cfg.interval_us;
	if (json_number(v->json, "interval_us", &u) && u > 0)
		v->interval_us = u;
	if (json_number(v->json, "pid", &u) && u > 0 && u < INT32_MAX)
		v->pid = (int64_t)u;
	/* EPERM: it exists, as another user's process. */
	v->pid_alive = v->pid == 0 || kill((pid_t)v->pid, 0) == 0 || errno == EPERM;
	v->running = v->lock_held && v->pid_alive;
	/* More than three periods without an update. */
	v->stale = !v->running || !v->have ||
		   (uint64_t)v->age * 1000000 > 3 * v->interval_us + 2000000;
}

static void drop(struct view *v)
{
	free(v->json);
	free(v->text);
	v->json = v->text = NULL;
}

static void print_json_str(const char *s)
{
	putchar('"');
	for (const char *p = s; *p; p++) {
		if (*p == '"' || *p == '\\')
			printf("\\%c", *p);
		else if ((unsigned char)*p < 0x20)
			printf("\\u%04x", (unsigned char)*p);
		else
			putchar(*p);
	}
	putchar('"');
}

/* The client's members, then the daemon's object without its "schema"
 * (the client's comes first): one line, one object. */
static void print_json(const struct view *v)
{
	uint64_t schema = STATUS_JSON_SCHEMA;
	const char *body = v->have ? v->json + 1 : "}";
	size_t len;

	if (v->have && strncmp(v->json, "{\"schema\":", 10) == 0 && json_number(v->json, "schema", &schema))
		body = strchr(v->json, ',') ? strchr(v->json, ',') + 1 : "}";
	printf("{\"schema\":%" PRIu64 ",\"running\":%s,\"stale\":%s,\"age_s\":", schema,
	       v->running ? "true" : "false", v->stale ? "true" : "false");
	if (v->have)
		printf("%lld", (long long)v->age);
	else
		printf("null");
	printf(",\"state_dir\":");
	print_json_str(v->state_dir);
	printf(",\"state_dir_default\":%s,\"config\":{\"valid\":%s,\"error\":",
	       v->state_dir_default ? "true" : "false", v->config_ok ? "true" : "false");
	if (v->config_ok) {
		printf("null,\"file\":null,\"line\":null}");
	} else {
		print_json_str(v->err.message);
		printf(",\"file\":");
		if (v->err.file[0])
			print_json_str(v->err.file);
		else
			printf("null");
		if (v->err.line)
			printf(",\"line\":%u}", v->err.line);
		else
			printf(",\"line\":null}");
	}
	if (!v->have) {
		printf(",\"error\":");
		print_json_str(v->why);
		printf("}\n");
		return;
	}
	/* The daemon's members, up to its closing brace. */
	len = (size_t)(strrchr(body, '}') - body);
	while (len && (body[len - 1] == ' ' || body[len - 1] == '\n'))
		len--;
	printf("%s%.*s}\n", len ? "," : "", (int)len, body);
}

static void print_text(const struct view *v)
{
	if (!v->config_ok) {
		printf("configuration: invalid: %s\n", v->err.message);
		printf("  damon-tierd cannot start or reload with it until it is fixed "
		       "(damon-tierd --check-config)%s\n",
		       v->running ? "; the running daemon keeps the configuration it loaded" : "");
		if (v->state_dir_default)
			printf("  reading %s, the default state directory (--state-dir DIR if state_dir "
			       "is set elsewhere)\n", v->state_dir);
	}
	if (!v->have) {
		printf("damon-tierd is %s; no status report: %s\n",
		       v->lock_held ? "running" : "not running", v->why);
		return;
	}
	if (!v->lock_held)
		printf("damon-tierd is not running (no process holds %s/lock); its last report:\n",
		       v->state_dir);
	else if (!v->pid_alive)
		printf("damon-tierd is not running as pid %" PRId64 ", which wrote this report (another "
		       "process holds %s/lock); its last report:\n", v->pid, v->state_dir);
	fputs(v->text, stdout);
	if (v->text[0] && v->text[strlen(v->text) - 1] != '\n')
		putchar('\n');
	printf("updated %lld s ago%s\n", (long long)v->age,
	       !v->running ? " (damon-tierd is not running: this is its last report)"
	       : v->stale ? " (more than three periods: damon-tierd may be stuck)" : "");
}

/* 0 the daemon runs, reports and its config is valid; 1 it does not run or
 * its report is stale; 2 the config is invalid or unreadable. */
static int show(const struct options *o, uint64_t *interval_us)
{
	struct view v;
	int rc;

	look(o, &v);
	if (o->json)
		print_json(&v);
	else
		print_text(&v);
	rc = v.stale ? 1 : !v.config_ok ? 2 : 0;
	*interval_us = v.interval_us;
	drop(&v);
	return rc;
}

static void usage(void)
{
	printf("Usage: damon-tierd status [--json] [--watch] [--config FILE] [--state-dir DIR]\n"
	       "Show what damon-tierd runs: its state, the tiers, per boundary the fast node's use\n"
	       "against its goals, bytes moved and rates, effective quotas, tuned intervals, and\n"
	       "why promotion and demotion do what they do.  It also says what is wrong with\n"
	       "the configuration, and then reads the default state directory (or DIR).\n"
	       "\n"
	       "  --json            one JSON object (docs/status-json.md)\n"
	       "  --watch           refresh every period: in place on a terminal, else one\n"
	       "                    report per refresh (text: each ends with an empty line)\n"
	       "  --config FILE     the configuration that names the state directory\n"
	       "  --state-dir DIR   read DIR instead of the configuration's state_dir\n"
	       "\n"
	       "Exit status: 0 the daemon runs and reports, and the configuration is valid;\n"
	       "1 it does not run or its report is stale; 2 bad usage, or an invalid or\n"
	       "unreadable configuration (the report is shown all the same).\n");
}

#define HELP "damon-tierd status --help"

static int parse(int argc, char **argv, struct options *o)
{
	enum { OPT_STATE_DIR = 256 };
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "watch", no_argument, NULL, 'w' },
		{ "config", required_argument, NULL, 'c' },
		{ "state-dir", required_argument, NULL, OPT_STATE_DIR },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	int c;

	optind = 1;
	/* getopt's own messages would start with argv[0], a path. */
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":c:h", longopts, NULL)) >= 0) {
		switch (c) {
		case 'j':
			o->json = true;
			break;
		case 'w':
			o->watch = true;
			break;
		case 'c':
			o->config_path = optarg;
			break;
		case OPT_STATE_DIR:
			if (!optarg[0] || strlen(optarg) >= CONFIG_PATH_MAX)
				return cli_usage_error(HELP, "status: --state-dir needs a directory of at "
						       "most %d bytes", CONFIG_PATH_MAX - 1);
			o->state_dir = optarg;
			break;
		case 'h':
			usage();
			return 1;
		default:
			return cli_bad_option(HELP, c, argv[optind - 1], longopts);
		}
	}
	if (optind < argc)
		return cli_usage_error(HELP, "status: unexpected argument '%s'", argv[optind]);
	return 0;
}

int status_command(int argc, char **argv, const char *default_config)
{
	struct options o = {};
	uint64_t interval_us;
	bool tty;
	int r;

	/* The daemon's own search path and drop-ins unless --config: state_dir
	 * may be set in any of them. */
	(void)default_config;
	r = parse(argc, argv, &o);
	if (r != 0)
		return r > 0 ? 0 : 2;
	if (!o.watch)
		return show(&o, &interval_us);

	/* In place only for a person at a terminal; scripts and pipes get
	 * whole reports and no escape sequences. */
	tty = !o.json && isatty(STDOUT_FILENO);
	signal(SIGINT, on_sigint);
	signal(SIGTERM, on_sigint);
	for (;;) {
		if (tty)
			fputs("\033[H\033[2J", stdout);
		r = show(&o, &interval_us);
		if (!tty && !o.json)
			putchar('\n');
		fflush(stdout);
		for (uint64_t waited = 0; !stop && waited < interval_us; waited += 100000)
			usleep(100000);
		if (stop)
			break;
	}
	return r;
}
