/* SPDX-License-Identifier: MIT */
/*
 * loom status, loom sweep, loom reload: ask a running loomd over its
 * control socket (loomd/ctl_proto.h). One request per connection; the
 * reply's head says ok or why not, its body is printed as it came. Exit 0
 * done, 1 loomd refused or could not do it, 2 no loomd answered.
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "lib/cleanup.h"
#include "loomd/ctl_proto.h"
#include "tools/loom.h"

#define REPLY_MAX (1 << 20) /* a status report is a few kB; more is not loomd talking */
/*
 * For every reply but a sweep's. A sweep runs inside loomd's loop, so a
 * request that arrives during a heavy sweep of a large fabric is answered
 * when that sweep ends.
 */
#define ASK_MS 60000

static void closep(int *fd)
{
	if (*fd >= 0)
		close(*fd);
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int connect_to(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	memcpy(sa.sun_path, path, strlen(path));
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int r = -errno;

		close(fd);
		return r;
	}
	return fd;
}

/* The whole reply (to the end of the stream) into *out, NUL-terminated, within ms. */
static int read_reply(int fd, int ms, char **out, size_t *len)
{
	_cleanup_free_ char *buf = NULL;
	size_t n = 0, size = 0;
	int64_t end = now_ms() + ms;

	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int64_t left = end - now_ms();
		ssize_t r;

		if (left <= 0)
			return -ETIMEDOUT;
		r = poll(&p, 1, (int)left);
		if (r < 0 && errno != EINTR)
			return -errno;
		if (r <= 0)
			continue;
		if (size - n < 4096) {
			char *b;

			if (size >= REPLY_MAX)
				return -EMSGSIZE;
			b = realloc(buf, size + 8192);
			if (!b)
				return -ENOMEM;
			buf = b;
			size += 8192;
		}
		r = read(fd, buf + n, size - n - 1);
		/* loomd closed without reading all we sent (a refusal): its reply came first. */
		if (r < 0 && errno == ECONNRESET && n)
			break;
		if (r < 0 && errno != EINTR)
			return -errno;
		if (r == 0)
			break;
		if (r > 0)
			n += (size_t)r;
	}
	if (!buf)
		buf = calloc(1, 1);
	if (!buf)
		return -ENOMEM;
	buf[n] = '\0';
	*out = TAKE_PTR(buf);
	*len = n;
	return 0;
}

/*
 * Ask loomd at path: req, then wait up to ms for the reply. Prints the body
 * (stdout when ok, stderr when not) and returns the exit code.
 */
static int ask(const char *prog, const char *path, enum ctl_req req, int ms)
{
	_cleanup_free_ char *reply = NULL;
	_cleanup_(closep) int fd = -1;
	char line[CTL_REQ_MAX], msg[512];
	size_t len = 0, body = 0;
	bool ok = false;
	int r;

	fd = connect_to(path);
	if (fd < 0) {
		fprintf(stderr, "%s: no loomd answers at %s: %s%s\n", prog, path, strerror(-fd),
			fd == -ENOENT || fd == -ECONNREFUSED ?
			" (is loomd running? --control gives another socket)" :
			fd == -EACCES ? " (root or the socket's group may ask)" : "");
		return 2;
	}
	r = snprintf(line, sizeof(line), "%s\n", ctl_req_name(req));
	/* MSG_NOSIGNAL: a loomd that closed on us is an error message, not a SIGPIPE. */
	if (send(fd, line, (size_t)r, MSG_NOSIGNAL) != r) {
		fprintf(stderr, "%s: %s: sending '%s': %s\n", prog, path, ctl_req_name(req),
			strerror(errno));
		return 2;
	}
	shutdown(fd, SHUT_WR);
	r = read_reply(fd, ms, &reply, &len);
	if (r < 0) {
		fprintf(stderr, "%s: %s: no whole reply to '%s' within %d s: %s\n", prog, path,
			ctl_req_name(req), ms / 1000, strerror(-r));
		return 2;
	}
	if (ctl_reply_parse(reply, len, &ok, msg, sizeof(msg), &body) < 0) {
		fprintf(stderr, "%s: %s: the reply is not loomd's control protocol (%zu bytes)\n",
			prog, path, len);
		return 2;
	}
	if (!ok) {
		fprintf(stderr, "%s: loomd refused '%s': %s\n", prog, ctl_req_name(req), msg);
		fputs(reply + body, stderr);
		return 1;
	}
	fputs(reply + body, stdout);
	return 0;
}

struct ctl_args {
	const char *path;
	bool json, heavy, pause, resume;
	int ms;
};

/* The options every control subcommand takes; -1: misuse (said), 0 go, 1 --help (said). */
static int parse(int argc, char **argv, void (*usage)(FILE *), struct ctl_args *a)
{
	enum { O_CONTROL = 256, O_JSON, O_HEAVY, O_PAUSE, O_RESUME, O_TIMEOUT };
	static const struct option opts[] = {
		{ "control", required_argument, NULL, O_CONTROL },
		{ "json", no_argument, NULL, O_JSON },
		{ "heavy", no_argument, NULL, O_HEAVY },
		{ "pause", no_argument, NULL, O_PAUSE },
		{ "resume", no_argument, NULL, O_RESUME },
		{ "timeout", required_argument, NULL, O_TIMEOUT },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	char *end;
	long v;
	int c;

	a->path = CTL_DEFAULT_PATH;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case O_CONTROL: a->path = optarg; break;
		case O_JSON: a->json = true; break;
		case O_HEAVY: a->heavy = true; break;
		case O_PAUSE: a->pause = true; break;
		case O_RESUME: a->resume = true; break;
		case O_TIMEOUT:
			v = strtol(optarg, &end, 10);
			if (*end || end == optarg || v < 1 || v > 86400) {
				fprintf(stderr, "loom %s: --timeout '%s': seconds, 1-86400\n",
					argv[0], optarg);
				return -1;
			}
			a->ms = (int)v * 1000;
			break;
		case 'h': usage(stdout); return 1;
		default: loom_misuse(usage, argv[0]); return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "loom %s: unexpected argument '%s'\n", argv[0], argv[optind]);
		loom_misuse(usage, argv[0]);
		return -1;
	}
	return 0;
}

static void status_usage(FILE *f)
{
	fprintf(f,
		"usage: loom status [--json] [--timeout S] [--control PATH]\n\n"
		"What the running loomd is doing: SM state and priority, whether the subnet\n"
		"is up (and why not), the routing engine, whether sweeps are paused, the\n"
		"last sweeps, counters since start (SMPs, retries, timeouts, traps, SA\n"
		"requests), uptime and version. Exit 0, or 2 when no loomd answers.\n\n"
		"  --json          one JSON object instead of text\n"
		"  --timeout S     how long to wait for the answer (default 60; loomd\n"
		"                  answers after the sweep it may be running)\n"
		"  --control PATH  loomd's control socket (default " CTL_DEFAULT_PATH ")\n");
}

int cmd_status(int argc, char **argv)
{
	struct ctl_args a = { .ms = ASK_MS };
	int r = parse(argc, argv, status_usage, &a);

	if (r || a.heavy || a.pause || a.resume) {
		if (r == 0)
			loom_misuse(status_usage, "status");
		return r > 0 ? 0 : 1;
	}
	return ask("loom status", a.path, a.json ? CTL_STATUS_JSON : CTL_STATUS, a.ms);
}

static void sweep_usage(FILE *f)
{
	fprintf(f,
		"usage: loom sweep [--heavy] [--timeout S] [--control PATH]\n"
		"       loom sweep --pause | --resume [--control PATH]\n\n"
		"Ask the running loomd for a sweep now and print its summary line when it\n"
		"has ended (a light sweep that finds a change is followed by a heavy one;\n"
		"the line is the last sweep's). --pause holds timer and trap sweeps for a\n"
		"maintenance window (a sweep asked for still runs); --resume releases them\n"
		"and sweeps at once. Exit 0, 1 when loomd could not, 2 when none answers.\n\n"
		"  --heavy         discover, route and program (default: a light sweep)\n"
		"  --timeout S     how long to wait for the answer (default 300)\n"
		"  --pause         hold sweeps until --resume\n"
		"  --resume        release them\n"
		"  --control PATH  loomd's control socket (default " CTL_DEFAULT_PATH ")\n");
}

int cmd_sweep(int argc, char **argv)
{
	struct ctl_args a = { .ms = 300000 };
	enum ctl_req req;
	int r = parse(argc, argv, sweep_usage, &a);

	if (r == 0 && a.heavy + a.pause + a.resume > 1) {
		fprintf(stderr, "loom sweep: --heavy, --pause and --resume: one at most\n");
		r = -1;
	}
	if (r || a.json) {
		if (r == 0)
			loom_misuse(sweep_usage, "sweep");
		return r > 0 ? 0 : 1;
	}
	req = a.pause ? CTL_SWEEP_PAUSE : a.resume ? CTL_SWEEP_RESUME :
	      a.heavy ? CTL_SWEEP_HEAVY : CTL_SWEEP;
	return ask("loom sweep", a.path, req, a.ms);
}

static void reload_usage(FILE *f)
{
	fprintf(f,
		"usage: loom reload [--timeout S] [--control PATH]\n\n"
		"Have the running loomd read its configuration file again, as SIGHUP does:\n"
		"a valid file is taken and a heavy sweep applies what changed (printed as a\n"
		"diff of the normalised configuration); an invalid one is refused with\n"
		"every error, and the running configuration stays.\n"
		"Exit 0 taken, 1 refused, 2 when no loomd answers.\n\n"
		"  --timeout S     how long to wait for the answer (default 60)\n"
		"  --control PATH  loomd's control socket (default " CTL_DEFAULT_PATH ")\n");
}

/* A command that takes only --timeout and --control and sends one request. */
static int ask_plain(int argc, char **argv, void (*usage)(FILE *), const char *prog,
		     enum ctl_req req)
{
	struct ctl_args a = { .ms = ASK_MS };
	int r = parse(argc, argv, usage, &a);

	if (r || a.json || a.heavy || a.pause || a.resume) {
		if (r == 0)
			loom_misuse(usage, argv[0]);
		return r > 0 ? 0 : 1;
	}
	return ask(prog, a.path, req, a.ms);
}

int cmd_reload(int argc, char **argv)
{
	return ask_plain(argc, argv, reload_usage, "loom reload", CTL_RELOAD);
}

static void handover_usage(FILE *f)
{
	fprintf(f,
		"usage: loom handover [--timeout S] [--control PATH]\n\n"
		"Have the running loomd give back a mastership that sm.sticky keeps: a\n"
		"loomd that became master by taking over from a failed master stays master\n"
		"when the higher SM returns; after this, its next look at the other SMs\n"
		"sends the higher one HANDOVER (IBA 14.4), which loomd asks for at once.\n"
		"Exit 0 released, 1 when there is nothing to give up (not master, or\n"
		"nothing holds the role), 2 when no loomd answers.\n\n"
		"  --timeout S     how long to wait for the answer (default 60)\n"
		"  --control PATH  loomd's control socket (default " CTL_DEFAULT_PATH ")\n");
}

int cmd_handover(int argc, char **argv)
{
	return ask_plain(argc, argv, handover_usage, "loom handover", CTL_HANDOVER);
}
