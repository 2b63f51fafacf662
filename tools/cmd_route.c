/* SPDX-License-Identifier: MIT */
/*
 * loom route: the dry run. The topology reader builds the model discovery
 * would build, the LID manager and the routing engine are the ones loomd
 * runs, so the tables printed are the tables loomd would program (stdout, in
 * dump_lfts's format, for a diff against the fabric). --json and --check
 * judge them with the same checker loom verify uses.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "config/config.h"
#include "lib/cleanup.h"
#include "lib/diag.h"
#include "lib/json.h"
#include "model/subnet.h"
#include "model/topo.h"
#include "plan/plan.h"
#include "plan/qos.h"
#include "routing/check.h"
#include "routing/lft_text.h"
#include "routing/route.h"
#include "tools/check_print.h"
#include "tools/loom.h"

/* Options given on the command line win over --config's sm.routing. */
enum { ARG_ENGINE = 1, ARG_FALLBACK = 2, ARG_LMC = 4, ARG_VLS = 8, ARG_ROOTS = 16, ARG_LFTS = 32 };

struct route_args {
	const char *engine, *guid2lid, *topo, *config, *lfts, *keep;
	unsigned lmc, threads, vls;
	bool json, check, canon, pkeys, qos, sl, no_fallback;
	uint64_t roots[256]; /* --root: updn's root switches */
	uint32_t n_roots;
	unsigned set;         /* ARG_*: what the command line gave */
	char engine_buf[128]; /* the configuration's engines, as --engine takes them */
};

static void route_usage(FILE *f)
{
	size_t n;
	const struct route_engine *const *e = route_engine_list(&n);

	fprintf(f,
		"usage: loom route [--engine E[,E...]] [--fallback auto|none] [--lmc N] [--vls N]\n"
		"                  [--root GUID]... [--lfts FILE] [--guid2lid FILE] [--keep FILE]\n"
		"                  [--config FILE] [--threads N] [--check]\n"
		"                  [--json | --canon | --sl] [--pkeys] [--qos] TOPOFILE\n\n"
		"Route a fabric without touching it: read TOPOFILE (ibnetdiscover output or\n"
		"ibsim's form), assign LIDs as loomd does (a port keeps the LID the file\n"
		"gives it, or the one --guid2lid, loomd's state file, gives it), route with\n"
		"the engine loomd would use, and print every switch's table on stdout as\n"
		"dump_lfts prints it, so it can be diffed against the live fabric. A summary\n"
		"goes to stderr.\n\n"
		"  --engine E,...   routing engines tried in order until one routes the fabric,\n"
		"                   as loomd tries them (default auto: ftree, vlayered,\n"
		"                   updn). Engines:");
	for (size_t i = 0; i < n; i++)
		fprintf(f, " %s", e[i]->name);
	fprintf(f,
		"\n"
		"  --fallback M     auto (default): after --engine's engines, try auto's, as\n"
		"                   loomd does; none: only --engine's\n"
		"  --lmc N          2^N LIDs per CA port, 0-7 (default 0)\n"
		"  --vls N          vlayered: the VLs it may spread routes over to break\n"
		"                   credit loops, 1-8 (default 8); it uses as few as it needs\n"
		"  --guid2lid FILE  LIDs from loomd's guid2lid map (read only)\n"
		"  --root GUID      updn: a root switch by NodeGUID, repeatable (default: found)\n"
		"  --lfts FILE      file: the dump_lfts text the engine loads\n"
		"  --keep FILE      dump_lfts text of the tables the fabric holds: keep what\n"
		"                   still holds of them, as loomd does after an event, when\n"
		"                   that routes no worse than the engine's tables\n"
		"  --threads N      worker threads, routing and checking (default: one per\n"
		"                   CPU; the tables and the report do not depend on it)\n"
		"  --json           instead of the tables: the route-quality report (pairs,\n"
		"                   reachability, loops, hops, link load, credit loops per\n"
		"                   VL, routing and checking time, peak memory)\n"
		"  --canon          the tables in loom verify --normalize's canonical form\n"
		"  --sl             instead of the tables: the SL of each route, one line per\n"
		"                   switch and LID, 'SWITCH-GUID LID SL' (engines that choose\n"
		"                   SLs, vlayered: the SA's PathRecord.SL for a path entering\n"
		"                   the fabric at that switch); nothing for the others\n"
		"  --check          exit 1 if a pair is unreachable, a route loops, or the\n"
		"                   channel dependencies of some VL have a cycle (credit loop)\n"
		"  --config FILE    loom.yaml: its routing options are the defaults here\n"
		"  --pkeys          instead of the tables: the P_Key table every port would\n"
		"                   get from --config's partitions (smpquery pkeys order)\n"
		"  --qos            instead of the tables: the QoS settings every port would\n"
		"                   get from --config, or the defaults without one (VLs, SL2VL,\n"
		"                   VLArb high and low), or the engine's SL-to-VL map; ports\n"
		"                   taken to support VL0-7 and 8 VLArb entries (a topology\n"
		"                   file does not say); with --pkeys both, P_Keys first\n\n"
		"Exit status: 0 routed (and, with --check, clean), 1 --check found problems or\n"
		"misuse, 2 the topology cannot be read or routed.\n");
}

static int parse_args(int argc, char **argv, struct route_args *a)
{
	static const struct option opts[] = {
		{ "engine", required_argument, NULL, 'e' }, { "lmc", required_argument, NULL, 'l' },
		{ "guid2lid", required_argument, NULL, 'g' }, { "json", no_argument, NULL, 'j' },
		{ "check", no_argument, NULL, 'c' },	      { "canon", no_argument, NULL, 'C' },
		{ "config", required_argument, NULL, 'f' },   { "pkeys", no_argument, NULL, 'p' },
		{ "qos", no_argument, NULL, 'q' },	      { "vls", required_argument, NULL, 'v' },
		{ "lfts", required_argument, NULL, 'L' },   { "threads", required_argument, NULL, 't' },
		{ "root", required_argument, NULL, 'r' },     { "sl", no_argument, NULL, 'S' },
		{ "fallback", required_argument, NULL, 'F' }, { "keep", required_argument, NULL, 'k' },
		{ "help", no_argument, NULL, 'h' },	      {}
	};
	char *end;
	int c;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'e': a->engine = optarg; a->set |= ARG_ENGINE; break;
		case 'g': a->guid2lid = optarg; break;
		case 'j': a->json = true; break;
		case 'c': a->check = true; break;
		case 'C': a->canon = true; break;
		case 'f': a->config = optarg; break;
		case 'p': a->pkeys = true; break;
		case 'q': a->qos = true; break;
		case 'S': a->sl = true; break;
		case 'L': a->lfts = optarg; a->set |= ARG_LFTS; break;
		case 'k': a->keep = optarg; break;
		case 'F':
			if (strcmp(optarg, "auto") && strcmp(optarg, "none")) {
				fprintf(stderr, "loom route: --fallback '%s': want auto or none\n", optarg);
				return 1;
			}
			a->no_fallback = !strcmp(optarg, "none");
			a->set |= ARG_FALLBACK;
			break;
		case 't':
			errno = 0;
			a->threads = (unsigned)strtoul(optarg, &end, 10);
			if (errno || *end || !*optarg || a->threads < 1 || a->threads > 1024) {
				fprintf(stderr, "loom route: --threads '%s': want 1-1024\n", optarg);
				return 1;
			}
			break;
		case 'r':
			errno = 0;
			if (a->n_roots < ARRAY_SIZE(a->roots))
				a->roots[a->n_roots] = strtoull(optarg, &end, 0);
			if (a->n_roots == ARRAY_SIZE(a->roots) || errno || *end || !*optarg) {
				fprintf(stderr, "loom route: --root '%s': want a switch NodeGUID "
					"(at most %zu roots)\n", optarg, ARRAY_SIZE(a->roots));
				return 1;
			}
			a->n_roots++;
			a->set |= ARG_ROOTS;
			break;
		case 'l':
			errno = 0;
			a->lmc = (unsigned)strtoul(optarg, &end, 10);
			if (errno || *end || !*optarg || a->lmc > ROUTE_LMC_MAX) {
				fprintf(stderr, "loom route: --lmc '%s': want 0-%u\n", optarg,
					ROUTE_LMC_MAX);
				return 1;
			}
			a->set |= ARG_LMC;
			break;
		case 'v':
			errno = 0;
			a->vls = (unsigned)strtoul(optarg, &end, 10);
			if (errno || *end || !*optarg || a->vls < 1 || a->vls > 8) {
				fprintf(stderr, "loom route: --vls '%s': want 1-8\n", optarg);
				return 1;
			}
			a->set |= ARG_VLS;
			break;
		case 'h': route_usage(stdout); return 0;
		default: loom_misuse(route_usage, "route"); return 1;
		}
	}
	if (optind != argc - 1 || (a->json && a->canon) || (a->pkeys && !a->config)) {
		/* What is wrong first, then how it is used. */
		if (optind >= argc)
			fprintf(stderr, "loom route: no TOPOFILE given\n");
		else if (optind < argc - 1)
			fprintf(stderr, "loom route: one TOPOFILE only; '%s' is one too many\n",
				argv[optind + 1]);
		else if (a->json && a->canon)
			fprintf(stderr, "loom route: --json and --canon: one at most\n");
		else
			fprintf(stderr, "loom route: --pkeys needs the partitions of --config FILE\n");
		loom_misuse(route_usage, "route");
		return 1;
	}
	a->topo = argv[optind];
	return -1;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * Progress on stderr, for fabrics that take more than a second to route:
 * nothing before the first second, then on a terminal one line rewritten
 * five times a second, elsewhere (a log) a line every five seconds.
 */
struct progress {
	double t0, last;
	bool tty, shown;
};

static void progress_cb(void *ctx, const char *what, uint64_t done, uint64_t total)
{
	struct progress *p = ctx;
	double t = now_s();

	if (t - p->t0 < 1.0 || t - p->last < (p->tty ? 0.2 : 5.0))
		return;
	p->last = t;
	p->shown = true;
	fprintf(stderr, "%sloom route: %s: %" PRIu64 "/%" PRIu64 " (%.0f%%), %.1f s%s",
		p->tty ? "\r" : "", what, done, total, total ? 100.0 * (double)done / (double)total : 0.0,
		t - p->t0, p->tty ? "   " : "\n");
}

/* --config's sm.routing, under what the command line gave, as loomd takes it. */
static void config_routing(struct route_args *a, const struct config *c)
{
	const struct config_sm *sm = &c->sm;

	if (!(a->set & ARG_ENGINE))
		a->engine = config_engines_str(sm, a->engine_buf, sizeof(a->engine_buf));
	if (!(a->set & ARG_FALLBACK))
		a->no_fallback = sm->routing.no_fallback;
	if (!(a->set & ARG_LMC))
		a->lmc = sm->routing.lmc;
	if (!(a->set & ARG_VLS))
		a->vls = sm->routing.vls;
	if (!(a->set & ARG_LFTS) && sm->routing.file)
		a->lfts = sm->routing.file;
	if (!(a->set & ARG_ROOTS))
		for (uint32_t i = 0; i < sm->routing.n_roots && a->n_roots < ARRAY_SIZE(a->roots); i++)
			a->roots[a->n_roots++] = sm->routing.root[i].guid;
}

/* Model, configuration and LID map: 0, or the exit status (messages printed). */
static int prepare(const struct route_args *a, struct subnet **sn, struct config **c,
		   struct lid_map **m)
{
	struct diag d = { 0 };
	int r;

	r = topo_read_file(a->topo, sn, &d);
	diag_print(&d, stderr);
	diag_free(&d);
	if (r < 0) {
		fprintf(stderr, "loom route: %s: cannot read the topology; nothing routed\n", a->topo);
		return 2;
	}
	if (a->config) {
		r = config_load_file(a->config, true, c, &d);
		diag_print(&d, stderr);
		diag_free(&d);
		if (r < 0) {
			fprintf(stderr, "loom route: %s: %s; nothing shown\n", a->config,
				r == -EINVAL ? "invalid configuration" : strerror(-r));
			return 2;
		}
	}
	r = lid_map_new(m);
	/* lid_map_load takes a missing file for an empty map, as loomd's first start
	 * must; a map named here that is not there is a mistake, not "no LIDs yet". */
	if (r == 0 && a->guid2lid && access(a->guid2lid, F_OK) < 0) {
		fprintf(stderr, "loom route: --guid2lid %s: %s; nothing routed (loomd keeps "
			"it in its state dir: " CONFIG_DEFAULT_STATE_DIR "/guid2lid by default)\n",
			a->guid2lid, strerror(errno));
		return 2;
	}
	if (r == 0 && a->guid2lid) {
		r = lid_map_load(*m, a->guid2lid, &d);
		diag_print(&d, stderr);
		diag_free(&d);
		if (r < 0) {
			fprintf(stderr, "loom route: %s: %s; nothing routed\n", a->guid2lid,
				strerror(-r));
			return 2;
		}
	}
	if (r < 0) {
		fprintf(stderr, "loom route: %s\n", strerror(-r));
		return 2;
	}
	return 0;
}

/* The engine's SL-to-VL map, the same on every port (route_out.sl2vl). */
static uint8_t vl_of_sl2vl(void *ctx, uint32_t node, uint8_t in, uint8_t out, uint8_t sl)
{
	const struct route_out *o = ctx;

	(void)node;
	(void)in;
	(void)out;
	return o->sl2vl[sl & 15];
}

static void print_json(const struct route_args *a, const struct subnet *sn,
		       const struct plan *p, const struct check_report *rep,
		       const struct diag *d, bool ok, double secs, double check_secs)
{
	const struct route_out *out = &p->routes;
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	printf("{\"topology\":");
	json_str(stdout, a->topo);
	printf(",\"engine\":");
	json_str(stdout, p->engine->name);
	/* The engines tried first, and why each refused the fabric. */
	printf(",\"refused\":[");
	for (unsigned i = 0; i < p->n_refused; i++) {
		printf("%s{\"engine\":", i ? "," : "");
		json_str(stdout, p->refused[i].engine->name);
		printf(",\"why\":");
		json_str(stdout, p->refused[i].why.msg);
		printf("}");
	}
	printf("]");
	/* vlayered: how many LIDs its budget of VLs left on the up/down escape. */
	if (p->engine == &route_vlayered)
		printf(",\"escape\":{\"lids\":%u,\"host_lids\":%u,\"of_lids\":%u}",
		       out->stats.escape_lids, out->stats.escape_host_lids, out->stats.dest_lids);
	printf(",\"lmc\":%u,\"max_lid\":%u,\"routing_seconds\":%.3f,\"check_seconds\":%.3f,"
	       "\"peak_rss_kb\":%ld,\"vls_used\":%d,\"vls\":[", a->lmc, out->max_lid, secs,
	       check_secs, ru.ru_maxrss,
	       rep->vls_used ? __builtin_popcount(rep->vls_used) : 1);
	/* Per VL that carries a route over a switch link: is its CDG acyclic? */
	for (unsigned v = 0, k = 0; v < 16; v++)
		if (rep->vls_used & (1u << v))
			printf("%s{\"vl\":%u,\"acyclic\":%s}", k++ ? "," : "", v,
			       rep->vls_cyclic & (1u << v) ? "false" : "true");
	printf("],");
	/* The SL-to-VL map every port must apply, when the engine chose SLs. */
	if (out->sl) {
		printf("\"sl2vl\":[");
		for (unsigned sl = 0; sl < 16; sl++)
			printf("%s%u", sl ? "," : "", out->sl2vl[sl]);
		printf("],");
	}
	check_print_json(stdout, sn, rep, d, ok);
	printf("}\n");
}

/* --sl: route_out.sl as text, routed LIDs only (the SA's PathRecord.SL). */
static void print_sl(const struct subnet *sn, const struct route_out *out)
{
	for (uint32_t s = 0; out->sl && s < out->n_sw; s++)
		for (uint32_t lid = 1; lid <= out->max_lid; lid++)
			if (route_lft(out, s)[lid] != ROUTE_DROP)
				printf("0x%016" PRIx64 " %u %u\n", sn->node[out->sw_node[s]].guid, lid,
				       route_sl(out, s)[lid]);
}

/*
 * --qos: per port with data VLs (plan/qos.h qos_has_data_vls, the rule
 * loomd programs by: linked ports, and a switch's port 0 only where the
 * topology says "enhanced port 0"), what loomd programs: its class, the
 * OperationalVLs within what both ends can (a topology file has no VLCap:
 * QOS_DRY_VL_CAP), the SL-to-VL table out of it (folded into those VLs, or
 * the engine's map; on a switch, from every other input port) and the VL
 * arbitration entries the port has room for.
 */
static void print_qos(const struct subnet *sn, const struct plan *p)
{
	struct qos_view v = { .sn = sn, .ro = &p->routes, .qos = p->qos };

	for (uint32_t pi = 0; p->qos && pi < sn->n_ports; pi++) {
		const struct subnet_port *sp = &sn->port[pi];
		const struct subnet_node *n = &sn->node[sp->node];
		enum config_port_class k = (enum config_port_class)qos_port_class(sn, pi);
		static const enum smp_vlarb_block blk[] = { SMP_VLARB_HIGH_0_31, SMP_VLARB_LOW_0_31 };
		uint8_t vl[SMP_NUM_SL];
		bool folded;

		if ((sp->num && sp->peer == SUBNET_NONE) || !qos_has_data_vls(sn, pi))
			continue;
		qos_want_sl2vl(&v, pi, vl, &folded);
		printf("%s 0x%016" PRIx64 " \"%s\" port %u [%s]: vls %u sl2vl", subnet_type_name(n->type),
		       n->guid, subnet_str(sn, n->desc), sp->num, config_class_name(k),
		       qos_vls_of(qos_port_op_vls(&v, pi, QOS_DRY_VL_CAP)));
		for (unsigned sl = 0; sl < SMP_NUM_SL; sl++)
			printf("%c%u", sl ? ',' : ' ', vl[sl]);
		for (unsigned b = 0; b < 2; b++) {
			const struct config_qos_class *q = &p->qos->qos[k];
			unsigned listed = b ? q->n_low : q->n_high;
			struct smp_vlarb e[SMP_VLARB_BLOCK];
			unsigned room = qos_want_vlarb(&v, pi, blk[b], e);

			printf(" vlarb-%s", b ? "low" : "high");
			for (unsigned i = 0; i < listed && i < room; i++)
				printf("%c%u:%u", i ? ',' : ' ', e[i].vl, e[i].weight);
		}
		printf("\n");
	}
}

/* --pkeys: every port that takes part, in model order, as smpquery pkeys lists them. */
static void print_pkeys(const struct subnet *sn, const struct plan *p)
{
	for (uint32_t pi = 0; p->have_pkeys && pi < sn->n_ports; pi++) {
		const struct subnet_node *n = &sn->node[sn->port[pi].node];

		if (!pkey_count(&p->pkeys, pi))
			continue;
		printf("%s 0x%016" PRIx64 " \"%s\" port %u%s:", subnet_type_name(n->type), n->guid,
		       subnet_str(sn, n->desc), sn->port[pi].num,
		       p->pkeys.enforce[pi] ? " enforce" : "");
		for (uint32_t i = p->pkeys.off[pi]; i < p->pkeys.off[pi + 1]; i++)
			printf(" 0x%04x", p->pkeys.key[i]);
		printf("\n");
	}
}

/*
 * The plan loomd would make of this fabric: plan_build, as a sweep calls it.
 * The dry run's SM is where ibsim puts it: the first node's first port.
 * 0, or the exit status (messages printed).
 */
static int plan(const struct route_args *a, const struct route_chain *engines,
		struct subnet *sn, const struct config *c, struct lid_map *m, struct progress *prog,
		struct plan *out)
{
	struct plan_report rep = { .lids.msgs.limit = LID_MAX_MSGS };
	struct plan_opts po = {
		.engines = *engines, .config = c, .sm_port = plan_sm_port(sn, 1),
		.route = { .lmc = (uint8_t)a->lmc, .roots = a->roots, .n_roots = a->n_roots,
			   .file = a->lfts, .threads = a->threads, .vls = (uint8_t)a->vls,
			   .progress = progress_cb, .progress_ctx = prog },
	};
	_cleanup_(route_out_free) struct route_out prev = { 0 };
	struct diag d = { .limit = DIAG_MAX };
	int r;

	if (a->keep) {
		r = lft_text_read_file(a->keep, sn, &prev, NULL, &d);
		diag_print(&d, stderr);
		diag_free(&d);
		if (r < 0) {
			fprintf(stderr, "loom route: --keep %s: %s; nothing routed\n", a->keep,
				strerror(-r));
			return 2;
		}
		po.prev = &prev;
	}
	r = plan_build(sn, m, &po, NULL, out, &rep);
	if (r == 0 && rep.keep.used)
		fprintf(stderr, "loom route: %s: kept where they still hold: %" PRIu32 " LIDs kept "
			"(%" PRIu64 " entries rerouted), %" PRIu32 " routed afresh; busiest link %"
			PRIu64 " routes (fresh tables: %" PRIu64 ")\n", a->keep, rep.keep.lids_kept,
			rep.keep.entries_patched, rep.keep.lids_fresh, rep.keep.max_load_kept,
			rep.keep.max_load_fresh);
	else if (r == 0 && rep.keep.tried)
		fprintf(stderr, "loom route: %s: not kept, the engine's tables: %s\n", a->keep,
			rep.keep.why);
	diag_print(&rep.lids.msgs, stderr);
	diag_print(&rep.pkeys, stderr);
	if (r == 0)
		r = rep.lid_err; /* the dry run does not go on without every LID */
	plan_report_free(&rep);
	if (r < 0) {
		fprintf(stderr, "loom route: %s: assigning LIDs: %s; nothing routed\n", a->topo,
			strerror(-r));
		return 2;
	}
	return 0;
}

int cmd_route(int argc, char **argv)
{
	_cleanup_(subnet_freep) struct subnet *sn = NULL;
	_cleanup_(config_freep) struct config *c = NULL;
	_cleanup_(lid_map_freep) struct lid_map *m = NULL;
	_cleanup_(plan_free) struct plan p = { 0 };
	struct route_args a = { .engine = "auto" };
	struct route_chain engines;
	char bad[64], refused[1024];
	struct check_report rep;
	struct check_opts co = { 0 };
	struct diag d = { .limit = DIAG_MAX };
	struct lft_text_opts po = LFT_TEXT_DUMP_LFTS;
	struct progress prog;
	double t0, secs, check_secs = 0;
	bool ok = true;
	int r;

	r = parse_args(argc, argv, &a);
	if (r >= 0)
		return r;
	if (route_chain_parse(a.engine, !a.no_fallback, &engines, bad, sizeof(bad)) < 0) {
		fprintf(stderr, "loom route: --engine '%s': no such engine (see --help)\n", bad);
		return 1;
	}
	r = prepare(&a, &sn, &c, &m);
	if (r)
		return r;
	if (c) {
		config_routing(&a, c);
		if (route_chain_parse(a.engine, !a.no_fallback, &engines, bad, sizeof(bad)) < 0)
			return 2; /* the configuration's names were checked when it was read */
	}
	t0 = now_s();
	prog = (struct progress){ .t0 = t0, .tty = isatty(STDERR_FILENO) };
	r = plan(&a, &engines, sn, c, m, &prog, &p);
	secs = now_s() - t0;
	if (prog.shown && prog.tty)
		fputc('\n', stderr);
	if (r)
		return r;
	plan_refused_str(&p, refused, sizeof(refused));
	if (p.route_err < 0 && engines.n == 1) {
		fprintf(stderr, "loom route: %s: %s cannot route it: %s\n", a.topo, engines.e[0]->name,
			p.why.msg);
		return 2;
	}
	if (p.route_err < 0) {
		fprintf(stderr, "loom route: %s: no engine can route it: %s\n", a.topo, refused);
		return 2;
	}
	if (p.n_refused)
		fprintf(stderr, "loom route: %s: refused by %s; routed with %s\n", a.topo, refused,
			p.engine->name);
	if (a.pkeys || a.qos) {
		if (a.pkeys)
			print_pkeys(sn, &p);
		if (a.qos)
			print_qos(sn, &p);
		return 0;
	}
	fprintf(stderr, "loom route: %s: %s: %u switches, %u LIDs, %.3f s; %s\n", a.topo,
		p.engine->name, p.routes.n_sw, p.routes.stats.dest_lids, secs, p.why.msg);
	if (a.json || a.check) {
		co.threads = a.threads;
		if (p.routes.sl) { /* the SLs the engine chose, on the VLs its sl2vl gives */
			co.sl = p.routes.sl;
			co.vl_of = vl_of_sl2vl;
			co.vl_ctx = &p.routes;
		}
		t0 = now_s();
		r = check_routes(sn, &p.routes, &co, &rep, &d);
		check_secs = now_s() - t0;
		if (r < 0) {
			fprintf(stderr, "loom route: checking the tables: %s\n", strerror(-r));
			diag_free(&d);
			return 2;
		}
		ok = check_ok(&rep) && rep.cdg_acyclic;
	}
	if (a.json)
		print_json(&a, sn, &p, &rep, &d, ok, secs, check_secs);
	else if (a.sl)
		print_sl(sn, &p.routes);
	else {
		if (a.canon)
			po = LFT_TEXT_CANON;
		r = lft_text_print(stdout, sn, &p.routes, &po);
		if (r < 0)
			fprintf(stderr, "loom route: writing the tables: %s\n", strerror(-r));
	}
	if (a.check && !a.json)
		check_print_text(stderr, sn, &rep, &d, ok);
	diag_free(&d);
	if (r < 0)
		return 2;
	return a.check && !ok ? 1 : 0;
}
