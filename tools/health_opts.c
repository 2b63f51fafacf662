/* SPDX-License-Identifier: MIT */
/*
 * loom health's command line and where its defaults come from. Thresholds
 * have one order whatever the order of the options: --threshold over
 * --threshold-file over loom.yaml's health section over infiniband-diags'
 * suggestions, so that a one-off --threshold always wins.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/config.h"
#include "lib/cleanup.h"
#include "tools/health_opts.h"
#include "tools/loom.h"

#define MAX_THRESHOLD_ARGS 64

static void health_usage(FILE *f)
{
	fprintf(f, "usage: loom health [--only GROUPS] [--expect TOPOFILE] [--json] [--strict]\n"
		   "                   [--threshold NAME=N]... [--threshold-file FILE]\n"
		   "                   [--since FILE] [--prometheus FILE] [--config FILE]\n"
		   "                   [--activity-wait MS] [--progress] [--ca NAME] [--port N]\n"
		   "                   [--window N] [--timeout MS] [--retries N]\n\n"
		   "Sweep the live fabric with directed-route SMPs, read every port's\n"
		   "PortCounters, judge it and print a verdict, then one line per problem: node\n"
		   "description, GUID, port, measured against expected.\n"
		   "Reads only; changes nothing.\n\n"
		   "  --only GROUPS    comma-separated groups to check (default: all):\n"
		   "                   links  port states, trained width and speed, MTU and VLs\n"
		   "                          of both ends of every link\n"
		   "                   sm     one master SM, LIDs unique and set, MasterSMLID\n"
		   "                   counters  PerfMgt error counters of every port that is up\n"
		   "                          (PortCounters from its PMA) against thresholds\n"
		   "                   routes every switch's LFT read back, judged as loom verify\n"
		   "                          judges: unreachable pairs, loops, credit loops (per\n"
		   "                          VL: SL2VL tables and the SA's SLs, read when VL0\n"
		   "                          alone has a loop), LinearFDBTop below the highest LID\n"
		   "                          in use\n"
		   "                   drift  with --expect: nodes missing (error) or extra\n"
		   "                          (warning), extra links (warning), cables moved\n"
		   "                          to other ports (error)\n"
		   "  --threshold NAME=N  report counter NAME (as perfquery names it) over N\n"
		   "                   (defaults: infiniband-diags' suggested error_thresholds,\n"
		   "                   10, 100 or 1000; 0: any non-zero value); repeatable\n"
		   "  --threshold-file FILE  thresholds as ibqueryerrors reads them: Name=value\n"
		   "                   lines, '#' comments. --threshold wins over it, it wins\n"
		   "                   over loom.yaml's health section, which wins over the\n"
		   "                   defaults\n"
		   "  --config FILE    loom.yaml, for its health section (default:\n"
		   "                   /etc/loom/loom.yaml if it exists)\n"
		   "  --activity-wait MS  sm group: report the master if its ActCount did not\n"
		   "                   move in MS (read again at the end; after the whole wait\n"
		   "                   only if it has not moved by then) (default: loom.yaml's\n"
		   "                   health.activity-wait, 1000; 0: read once)\n"
		   "  --progress       a progress line on stderr about every second (default:\n"
		   "                   when stderr is a terminal)\n"
		   "  --expect FILE    a topology file (ibnetdiscover or ibsim form): its links\n"
		   "                   that the fabric does not have are reported (links group),\n"
		   "                   and what else differs (drift group)\n"
		   "  --json           every finding, machine-readable, on stdout (with the\n"
		   "                   counters group: every port's raw counters too)\n"
		   "  --strict         warnings count as problems (exit 1)\n"
		   "  --since FILE     judge counters by how much they moved since an earlier\n"
		   "                   --json run saved in FILE (errors per interval)\n"
		   "  --reset          clear each port's PortCounters once they are read (off by\n"
		   "                   default: reading changes nothing); the values judged and\n"
		   "                   printed are those read before the clear\n"
		   "  --prometheus FILE  also write the result for node_exporter's textfile\n"
		   "                   collector (atomically): verdict, problems by group, and\n"
		   "                   loom_port_up and every error counter of every port read\n"
		   "  --ca NAME        the CA to send from (default: the first one)\n"
		   "  --port N         its port (default: the first one)\n"
		   "  --window N       SMPs in flight at once (default 16)\n"
		   "  --timeout MS     per try (default 200)\n"
		   "  --retries N      tries after the first (default 3)\n\n"
		   "Exit status: 0 healthy (warnings alone too, unless --strict), 1 problems\n"
		   "found, 2 could not check (no port, fabric unreadable, no master SM).\n");
}

static int parse_uint(const char *s, unsigned max, unsigned *out);



/* "PortXmitDiscards=5": one counter's threshold into t (NULL: only checked). */
static int parse_threshold(const char *s, uint32_t t[_PMA_COUNTER_MAX])
{
	const char *eq = strchr(s, '=');
	unsigned v;

	if (!eq)
		return -EINVAL;
	for (unsigned c = 0; c < _PMA_COUNTER_MAX; c++) {
		const char *name = pma_counter_name(c);

		if (strlen(name) != (size_t)(eq - s) || strncmp(s, name, strlen(name)))
			continue;
		if (parse_uint(eq + 1, UINT32_MAX, &v) < 0)
			return -EINVAL;
		if (t)
			t[c] = v;
		return 0;
	}
	return -EINVAL;
}

static int parse_uint(const char *s, unsigned max, unsigned *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || v > max || s[0] == '-')
		return -EINVAL;
	*out = (unsigned)v;
	return 0;
}

static int read_thresholds(const char *path, uint32_t t[_PMA_COUNTER_MAX])
{
	struct diag d = { .limit = 20 };
	int r = health_thresholds_read_file(path, t, &d);

	if (r < 0) {
		diag_print(&d, stderr);
		fprintf(stderr, "loom health: --threshold-file %s: not used; nothing was checked\n",
			path);
	}
	diag_free(&d);
	return r;
}

/* What the command line says before the files it names are read. */
struct raw_args {
	struct health_args h;
	const char *tfile;
	const char *targ[MAX_THRESHOLD_ARGS];
	unsigned n_targ;
	bool act_wait_set;
	unsigned act_wait;
};

static int parse_args(int argc, char **argv, struct raw_args *ra)
{
	struct health_args *a = &ra->h;
	static const struct option opts[] = {
		{ "ca", required_argument, NULL, 'c' },
		{ "port", required_argument, NULL, 'p' },
		{ "only", required_argument, NULL, 'o' },
		{ "expect", required_argument, NULL, 'e' },
		{ "json", no_argument, NULL, 'j' },
		{ "strict", no_argument, NULL, 's' },
		{ "threshold", required_argument, NULL, 'T' },
		{ "threshold-file", required_argument, NULL, 'F' },
		{ "prometheus", required_argument, NULL, 'P' },
		{ "since", required_argument, NULL, 'S' },
		{ "reset", no_argument, NULL, 'R' },
		{ "window", required_argument, NULL, 'w' },
		{ "timeout", required_argument, NULL, 't' },
		{ "retries", required_argument, NULL, 'r' },
		{ "config", required_argument, NULL, 'C' },
		{ "activity-wait", required_argument, NULL, 'A' },
		{ "progress", no_argument, NULL, 'G' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	int c, li = 0, r = 0;

	while ((c = getopt_long(argc, argv, "h", opts, &li)) != -1) {
		switch (c) {
		case 'c': a->ca = optarg; break;
		case 'p': r = parse_uint(optarg, 254, &a->port); break;
		case 'o': r = health_groups_parse(optarg, &a->groups); break;
		case 'e': a->expect = optarg; break;
		case 'P': a->prom = optarg; break;
		case 'S': a->since = optarg; break;
		case 'R': a->reset = true; break;
		case 'j': a->json = true; break;
		case 's': a->strict = true; break;
		case 'T':
			r = parse_threshold(optarg, NULL);
			if (r == 0 && ra->n_targ == MAX_THRESHOLD_ARGS)
				r = -E2BIG;
			if (r == 0)
				ra->targ[ra->n_targ++] = optarg;
			break;
		case 'F': ra->tfile = optarg; break;
		case 'C': a->config = optarg; break;
		case 'A':
			r = parse_uint(optarg, 600000, &ra->act_wait);
			ra->act_wait_set = true;
			break;
		case 'G': a->progress = true; break;
		case 'w': r = parse_uint(optarg, 4096, &a->o.window); break;
		case 't': r = parse_uint(optarg, 60000, &a->o.timeout_ms); break;
		case 'r': r = parse_uint(optarg, 100, &a->o.retries); break;
		case 'h':
			health_usage(stdout);
			return 0;
		default:
			return -EINVAL;
		}
		if (r < 0) {
			fprintf(stderr, "loom health: --%s: bad value '%s'%s\n", opts[li].name,
				optarg,
				c == 'o' ? " (groups: links, sm, counters, routes, drift)" :
				c == 'T' ? " (NAME=N, NAME as perfquery names a counter)" : "");
			return -EINVAL;
		}
	}
	if (optind != argc || !a->o.window || !a->o.timeout_ms)
		return -EINVAL;
	return 1;
}


/* loom.yaml: the file --config names, else the default one if it is there. */
static int load_config(const char *path, struct config **out)
{
	struct diag d = { .limit = 20 };
	const char *p = path ? path : CONFIG_DEFAULT_PATH;
	int r = config_load_file(p, path != NULL, out, &d);

	diag_print(&d, stderr);
	diag_free(&d);
	if (r < 0)
		fprintf(stderr, "loom health: %s: %s; nothing was checked (--config names "
			"another file)\n", p,
			r == -EINVAL ? "invalid configuration" : strerror(-r));
	return r;
}

int health_opts_parse(int argc, char **argv, struct health_args *a)
{
	struct raw_args ra = { .h = { .o = TXN_OPTS_DEFAULT, .groups = HEALTH_ALL_GROUPS } };
	_cleanup_(config_freep) struct config *cfg = NULL;
	int r;

	r = parse_args(argc, argv, &ra);
	if (r <= 0) {
		if (r == -EINVAL)
			loom_misuse(health_usage, "health");
		return r;
	}
	if (load_config(ra.h.config, &cfg) < 0)
		return -ENOENT;
	memcpy(ra.h.thresh, cfg->health.threshold, sizeof(ra.h.thresh));
	ra.h.strict |= cfg->health.strict;
	ra.h.act_wait_ms = ra.act_wait_set ? ra.act_wait
					   : (unsigned)(cfg->health.act_wait_us / 1000);
	if (ra.tfile && read_thresholds(ra.tfile, ra.h.thresh) < 0)
		return -ENOENT;
	for (unsigned i = 0; i < ra.n_targ; i++)
		parse_threshold(ra.targ[i], ra.h.thresh);
	if (isatty(STDERR_FILENO))
		ra.h.progress = true;
	*a = ra.h;
	return 1;
}
