/* SPDX-License-Identifier: MIT */
/*
 * loom verify: judge forwarding tables someone else made. TOPOFILE is an
 * ibnetdiscover capture (its "lid N" comments give the ports their LIDs),
 * LFTFILE what dump_lfts printed on that fabric; the checker in routing/
 * follows every route and reports reachability, loops, hops, link load and
 * credit loops.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cleanup.h"
#include "lib/diag.h"
#include "lib/json.h"
#include "lib/strnum.h"
#include "tools/loom.h"
#include "tools/check_print.h"
#include "routing/check.h"
#include "routing/lft_text.h"
#include "routing/route.h"
#include "model/subnet.h"
#include "model/topo.h"

enum verify_mode { V_CHECK, V_NORMALIZE, V_REPRINT };

struct verify_args {
	enum verify_mode mode;
	bool json, acyclic;
	unsigned max_msgs;
	const char *from; /* --reprint: node or port GUID the paths start from */
	const char *topo, *lft;
};

static void verify_usage(FILE *f)
{
	fprintf(f,
		"usage: loom verify [--json] [--max-msgs N] [--acyclic] TOPOFILE LFTFILE\n"
		"       loom verify --normalize TOPOFILE LFTFILE\n"
		"       loom verify --reprint [--from GUID] TOPOFILE LFTFILE\n\n"
		"Judge unicast forwarding tables by following them. TOPOFILE is the fabric,\n"
		"with LIDs: ibnetdiscover output captured after an SM brought it up. LFTFILE is\n"
		"`dump_lfts` output (also -a, -n, ibroute's, OpenSM's opensm-lfts.dump).\n"
		"Every host to every LID of every other host: does it arrive, does it loop,\n"
		"how many hops against the shortest; every switch to every switch LID; routes\n"
		"per switch-to-switch link for all-to-all and shift traffic against the ideal;\n"
		"and whether the channel dependencies have a cycle (credit loop, one VL).\n\n"
		"  --json         the report as JSON on stdout\n"
		"  --max-msgs N   name at most N bad pairs (default %u)\n"
		"  --acyclic      a credit loop is a problem too (exit 1)\n"
		"  --normalize    print the tables in a canonical form and exit: switches by\n"
		"                 GUID, no DR path or LID in the header, no destination info,\n"
		"                 dropping entries left out; two dumps of the same tables\n"
		"                 normalise to the same text, whatever the variant\n"
		"  --reprint      print the tables as dump_lfts prints them (switches in\n"
		"                 TOPOFILE order, DR paths from --from, destination info)\n"
		"  --from GUID    node or port GUID --reprint's paths start from (the node the\n"
		"                 tools ran on); default: the first node of TOPOFILE\n\n"
		"Exit status: 0 every pair arrives and nothing loops, 1 problems found (listed),\n"
		"2 nothing could be checked: a file is unreadable or malformed (FILE:LINE:\n"
		"messages on stderr), or the command line is wrong.\n",
		CHECK_MSGS_DEFAULT);
}

static int parse_args(int argc, char **argv, struct verify_args *a)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },	 { "max-msgs", required_argument, NULL, 'm' },
		{ "acyclic", no_argument, NULL, 'a' },	 { "normalize", no_argument, NULL, 'n' },
		{ "reprint", no_argument, NULL, 'r' },	 { "from", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },	 {}
	};
	uint64_t v;
	int c;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			a->json = true;
			break;
		case 'm':
			if (strnum_u64(optarg, 10, 1, 100000, &v) < 0) {
				fprintf(stderr, "loom verify: --max-msgs '%s': want 1-100000\n", optarg);
				return 2;
			}
			a->max_msgs = (unsigned)v;
			break;
		case 'a':
			a->acyclic = true;
			break;
		case 'n':
			a->mode = V_NORMALIZE;
			break;
		case 'r':
			a->mode = V_REPRINT;
			break;
		case 'f':
			a->from = optarg;
			break;
		case 'h':
			verify_usage(stdout);
			return 0;
		default:
			loom_misuse(verify_usage, "verify");
			return 2;
		}
	}
	if (optind != argc - 2 || (a->from && a->mode != V_REPRINT) ||
	    (a->json && a->mode != V_CHECK)) {
		if (optind != argc - 2)
			fprintf(stderr, "loom verify: two files, TOPOFILE and LFTFILE, not %d\n",
				argc - optind);
		else
			fprintf(stderr, "loom verify: %s\n", a->from ?
				"--from goes only with --reprint" :
				"--json goes only with the check (not --normalize or --reprint)");
		loom_misuse(verify_usage, "verify");
		return 2;
	}
	a->topo = argv[optind];
	a->lft = argv[optind + 1];
	return -1; /* go on */
}

static bool model_has_lids(const struct subnet *sn)
{
	for (uint32_t i = 0; i < sn->n_ports; i++)
		if (sn->port[i].lid && !subnet_is_switch(sn, sn->port[i].node))
			return true;
	return false;
}

/* --from GUID: a node GUID, or a port GUID (its node). */
static int find_root(const struct subnet *sn, const char *s, uint32_t *node)
{
	char *end;
	uint64_t g;
	uint32_t i;

	errno = 0;
	g = strtoull(s, &end, 16);
	if (errno || *end || !*s)
		return -EINVAL;
	i = subnet_find_guid(sn, g);
	if (i == SUBNET_NONE) {
		i = subnet_find_port_guid(sn, g);
		if (i == SUBNET_NONE)
			return -ENOENT;
		i = sn->port[i].node;
	}
	*node = i;
	return 0;
}

static int reprint(const struct verify_args *a, const struct subnet *sn,
		   const struct route_out *out)
{
	struct lft_text_opts o = LFT_TEXT_CANON;
	int r;

	if (a->mode == V_REPRINT) {
		o = LFT_TEXT_DUMP_LFTS;
		if (a->from && find_root(sn, a->from, &o.root) < 0) {
			fprintf(stderr, "loom verify: --from '%s': no node or port with that GUID in "
					"%s; nothing printed\n", a->from, a->topo);
			return 2;
		}
	}
	r = lft_text_print(stdout, sn, out, &o);
	if (r < 0) {
		fprintf(stderr, "loom verify: cannot print the tables: %s\n", strerror(-r));
		return 2;
	}
	return 0;
}

/* Read both files; 0, or the exit status (messages printed). */
static int load(const struct verify_args *a, struct subnet **sn, struct route_out *out,
		uint16_t *unread)
{
	struct diag d = { 0 };
	struct lft_text_stats st = { 0 };
	int r;

	r = topo_read_file(a->topo, sn, &d);
	if (r < 0) {
		diag_print(&d, stderr);
		fprintf(stderr, "loom verify: %s: cannot read the topology; nothing was checked\n",
			a->topo);
		diag_free(&d);
		return 2;
	}
	diag_free(&d);
	if (a->mode == V_CHECK && !model_has_lids(*sn)) {
		fprintf(stderr, "loom verify: %s: no port has a LID (capture the fabric with "
				"ibnetdiscover after an SM brought it up); nothing was checked\n",
			a->topo);
		return 2;
	}
	r = lft_text_read_file(a->lft, *sn, out, &st, &d);
	diag_print(&d, stderr);
	diag_free(&d);
	if (r < 0 || st.skipped) {
		fprintf(stderr, "loom verify: %s: %s; nothing was checked\n", a->lft,
			r < 0 ? "cannot read the tables" : "lines were skipped (see above)");
		if (r == 0)
			route_out_free(out);
		return 2;
	}
	if (st.unread_lid && a->mode == V_CHECK)
		fprintf(stderr, "loom verify: %s: note: %u tables end at LID %u (0x%04x), a multiple "
				"of 64, and do not list it: dump_lfts and ibroute never read the LFT "
				"block that holds such a top LID; routes to LID %u are not judged\n",
			a->lft, st.unread_tables, st.unread_lid, st.unread_lid, st.unread_lid);
	*unread = st.unread_lid;
	return 0;
}

int cmd_verify(int argc, char **argv)
{
	_cleanup_(subnet_freep) struct subnet *sn = NULL;
	struct verify_args a = { .max_msgs = CHECK_MSGS_DEFAULT };
	struct route_out out = { 0 };
	struct check_report rep;
	struct check_opts o;
	struct diag d = { .limit = DIAG_MAX };
	uint16_t unread = 0;
	bool ok;
	int r;

	r = parse_args(argc, argv, &a);
	if (r >= 0)
		return r;
	r = load(&a, &sn, &out, &unread);
	if (r)
		return r;
	if (a.mode != V_CHECK) {
		r = reprint(&a, sn, &out);
		route_out_free(&out);
		return r;
	}
	o = (struct check_opts){ .max_msgs = a.max_msgs, .skip_lid = unread };
	r = check_routes(sn, &out, &o, &rep, &d);
	route_out_free(&out);
	if (r < 0) {
		fprintf(stderr, "loom verify: cannot check %s: %s\n", a.lft, strerror(-r));
		diag_free(&d);
		return 2;
	}
	ok = check_ok(&rep) && (!a.acyclic || rep.cdg_acyclic);
	if (a.json) {
		printf("{\"topology\":");
		json_str(stdout, a.topo);
		printf(",\"lfts\":");
		json_str(stdout, a.lft);
		printf(",");
		check_print_json(stdout, sn, &rep, &d, ok);
		printf("}\n");
	} else {
		printf("loom verify: %s + %s\n", a.topo, a.lft);
		check_print_text(stdout, sn, &rep, &d, ok);
	}
	diag_free(&d);
	return ok ? 0 : 1;
}
