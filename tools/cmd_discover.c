/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/cleanup.h"
#include "lib/strnum.h"
#include "tools/loom.h"
#include "mad/txn.h"
#include "mad/umad.h"
#include "fabric/disc.h"
#include "model/subnet.h"
#include "model/topo_stats.h"
#include "tools/topo_print.h"

/* Drops are logged, but only the first few: a misbehaving fabric can send thousands. */
#define DROP_LOG_MAX 10

static const char *const drop_name[_TXN_DROP_MAX] = {
	[TXN_DROP_MALFORMED] = "malformed or not matching its request",
	[TXN_DROP_UNEXPECTED] = "unexpected (no request with its TID)",
	[TXN_DROP_LATE] = "late (its request had timed out)",
};

static void log_drop(void *arg, enum txn_drop why, const struct smp_hdr *h)
{
	unsigned *n = arg;

	if (++*n > DROP_LOG_MAX)
		return;
	if (h)
		fprintf(stderr, "loom discover: dropped a MAD: %s: class 0x%02x method 0x%02x "
			"TID 0x%08" PRIx32 " attribute 0x%04x modifier 0x%x%s\n", drop_name[why],
			h->mgmt_class, h->method, h->tid, h->attr_id, h->attr_mod,
			*n == DROP_LOG_MAX ? " (no more drops are logged)" : "");
	else
		fprintf(stderr, "loom discover: dropped a MAD shorter than its header\n");
}

static void discover_usage(FILE *f)
{
	fprintf(f, "usage: loom discover [--ca NAME] [--port N] [--list | --json]\n"
		   "                     [--window N] [--timeout MS] [--retries N]\n\n"
		   "Sweep the live fabric with directed-route SMPs (NodeInfo, NodeDescription,\n"
		   "PortInfo, SwitchInfo) and print what loom topo prints for a file.\n\n"
		   "  --ca NAME     the CA to send from (default: the first one)\n"
		   "  --port N      its port (default: the first one)\n"
		   "  --json        machine-readable report on stdout\n"
		   "  --list        every node (type, GUID, ports, description) and link\n"
		   "  --window N    SMPs in flight at once (default 16)\n"
		   "  --timeout MS  per try (default 200)\n"
		   "  --retries N   tries after the first (default 3)\n\n"
		   "Counts of SMPs sent, retries, timeouts and the time taken go to stderr.\n"
		   "Exit status: 0 clean, 1 problems found (listed; some parts may be missing),\n"
		   "2 the fabric could not be swept.\n");
}

static int parse_uint(const char *s, unsigned max, unsigned *out)
{
	uint64_t v;
	int r = strnum_u64(s, 10, 0, max, &v);

	if (r < 0)
		return r;
	*out = (unsigned)v;
	return 0;
}

struct discover_args {
	const char *ca;
	unsigned port;
	bool json, list;
	struct txn_opts o;
};

static int parse_args(int argc, char **argv, struct discover_args *a)
{
	static const struct option opts[] = {
		{ "ca", required_argument, NULL, 'c' },
		{ "port", required_argument, NULL, 'p' },
		{ "json", no_argument, NULL, 'j' },
		{ "list", no_argument, NULL, 'l' },
		{ "window", required_argument, NULL, 'w' },
		{ "timeout", required_argument, NULL, 't' },
		{ "retries", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	int c, li = 0, r = 0;

	while ((c = getopt_long(argc, argv, "h", opts, &li)) != -1) {
		switch (c) {
		case 'c':
			a->ca = optarg;
			break;
		case 'p':
			r = parse_uint(optarg, 254, &a->port);
			break;
		case 'j':
			a->json = true;
			break;
		case 'l':
			a->list = true;
			break;
		case 'w':
			r = parse_uint(optarg, 4096, &a->o.window);
			break;
		case 't':
			r = parse_uint(optarg, 60000, &a->o.timeout_ms);
			break;
		case 'r':
			r = parse_uint(optarg, 100, &a->o.retries);
			break;
		case 'h':
			discover_usage(stdout);
			return 0;
		default:
			return -EINVAL;
		}
		if (r < 0) {
			fprintf(stderr, "loom discover: --%s: bad value '%s'\n",
				opts[li].name,
				optarg);
			return -EINVAL;
		}
	}
	if (optind != argc || (a->json && a->list) || !a->o.window || !a->o.timeout_ms)
		return -EINVAL;
	return 1;
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static int print_model(const struct discover_args *a, const char *source, const struct subnet *sn)
{
	struct diag pb = { .limit = TOPO_PROBLEMS_SHOWN };
	struct topo_stats st;
	int r;

	r = topo_stats_compute(sn, &st);
	if (r < 0) {
		fprintf(stderr, "loom discover: cannot compute counts: %s\n", strerror(-r));
		return 2;
	}
	topo_problems_find(sn, &st, &pb);
	if (a->list)
		topo_print_list(sn);
	else if (a->json)
		topo_print_json(source, &st, &pb);
	else
		topo_print_text(source, &st, &pb);
	r = diag_count(&pb) ? 1 : 0;
	diag_free(&pb);
	return r;
}

int cmd_discover(int argc, char **argv)
{
	struct discover_args a = { .o = TXN_OPTS_DEFAULT };
	_cleanup_(mad_umad_closep) struct mad_umad *u = NULL;
	_cleanup_(txn_freep) struct txn *x = NULL;
	_cleanup_(subnet_freep) struct subnet *sn = NULL;
	struct disc_report rep = { .msgs.limit = DISC_MAX_MSGS };
	const struct txn_stats *ts;
	unsigned drops_logged = 0;
	char source[96];
	uint64_t t0;
	int r, rc;

	r = parse_args(argc, argv, &a);
	if (r <= 0) {
		if (r < 0)
			loom_misuse(discover_usage, "discover");
		return r < 0 ? 1 : 0;
	}
	r = mad_umad_open(a.ca, a.port, 0, &u);
	if (r < 0) {
		char port[16] = "its first port";

		if (a.port)
			snprintf(port, sizeof(port), "port %u", a.port);
		fprintf(stderr, "loom discover: cannot open %s%s, %s: %s; nothing was swept\n",
			a.ca ? "CA " : "", a.ca ? a.ca : "the first CA", port, strerror(-r));
		return 2;
	}
	snprintf(source, sizeof(source), "fabric at %s port %u", mad_umad_ca(u),
		 mad_umad_port(u));
	r = txn_new(&mad_umad_ops, u, &a.o, &x);
	if (r < 0) {
		fprintf(stderr, "loom discover: %s\n", strerror(-r));
		return 2;
	}
	txn_set_drop_hook(x, log_drop, &drops_logged);

	t0 = now_ms();
	r = disc_run(x, &sn, NULL, &rep);
	ts = txn_stats(x);
	fprintf(stderr, "loom discover: %u nodes; SMPs sent %" PRIu64 ", retries %" PRIu64
		", timeouts %" PRIu64 ", dropped %" PRIu64 "; %" PRIu64 " ms\n",
		sn ? sn->n_nodes : 0, ts->sent, ts->retries, ts->timeouts,
		ts->dropped[0] + ts->dropped[1] + ts->dropped[2], now_ms() - t0);
	for (unsigned i = 0; i < rep.msgs.n; i++)
		fprintf(stderr, "loom discover: %s\n", rep.msgs.msg[i]);
	if (rep.msgs.dropped)
		fprintf(stderr, "loom discover: (%u more problems)\n", rep.msgs.dropped);
	if (r < 0) {
		fprintf(stderr, "loom discover: %s: sweep failed: %s\n", source, strerror(-r));
		disc_report_free(&rep);
		return 2;
	}
	rc = print_model(&a, source, sn);
	if (rc == 0 && (rep.timeouts || rep.errors || rep.conflicts))
		rc = 1;
	disc_report_free(&rep);
	return rc;
}
