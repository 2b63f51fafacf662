/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cleanup.h"
#include "lib/diag.h"
#include "lib/json.h"
#include "loom.h"
#include "sm/subnet.h"
#include "sm/topo.h"
#include "sm/topo_stats.h"

/*
 * Problems in a topology that reads cleanly: the file is well formed but the
 * fabric it describes is not what an operator wants. Text and JSON output are
 * both printed from this list.
 */
struct problems {
	char *msg[16];
	unsigned n, more;
};

static void problem_add(struct problems *pb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void problem_add(struct problems *pb, const char *fmt, ...)
{
	va_list ap;

	if (pb->n == ARRAY_SIZE(pb->msg)) {
		pb->more++;
		return;
	}
	va_start(ap, fmt);
	if (vasprintf(&pb->msg[pb->n], fmt, ap) >= 0)
		pb->n++;
	else
		pb->more++;
	va_end(ap);
}

static void problems_free(struct problems *pb)
{
	for (unsigned i = 0; i < pb->n; i++)
		free(pb->msg[i]);
}

static const char *node_label(const struct subnet *sn, uint32_t n)
{
	return subnet_str(sn, sn->node[n].name);
}

static void find_problems(const struct subnet *sn, const struct topo_stats *st,
			  struct problems *pb)
{
	for (uint32_t n = 0; n < sn->n_nodes; n++) {
		const struct subnet_node *nd = &sn->node[n];
		bool linked = false;

		for (unsigned i = 1; i <= nd->nports; i++) {
			const struct subnet_port *p = &sn->port[nd->port_base + i];

			if (p->peer == SUBNET_NONE)
				continue;
			linked = true;
			if (sn->port[p->peer].node == n && p->peer > nd->port_base + i)
				problem_add(pb, "%s \"%s\" port %u is cabled to its own port %u",
					    subnet_type_name(nd->type), node_label(sn, n), i,
					    sn->port[p->peer].num);
		}
		if (!linked)
			problem_add(pb, "%s \"%s\" (line %u) has no links",
				    subnet_type_name(nd->type), node_label(sn, n), nd->src_line);
	}
	if (st->components > 1)
		problem_add(pb, "the fabric is in %u pieces: %u nodes cannot be reached from "
			    "\"%s\", the first node (where the SM attaches)",
			    st->components, st->unreached, node_label(sn, 0));
	if (st->switches == 0 && st->cas > 2)
		problem_add(pb, "no switches: only two CAs can be cabled back to back");
}

static void print_text(const char *file, const struct topo_stats *st, const struct problems *pb)
{
	printf("topology %s\n", file);
	printf("  nodes     %u switches, %u CAs, %u routers\n", st->switches, st->cas,
	       st->routers);
	printf("  links     %u (switch-switch %u, switch-end %u, end-end %u)\n", st->links,
	       st->links_sw_sw, st->links_sw_end, st->links_end_end);
	printf("  ports     %u, %u linked\n", st->ports, st->ports_linked);
	printf("  parallel  %u extra links between %u node pairs\n", st->parallel_extra,
	       st->parallel_pairs);
	printf("  radix    ");
	for (unsigned r = 0; r <= SUBNET_MAX_PORTS; r++)
		if (st->radix[r])
			printf(" %u-port x %u", r, st->radix[r]);
	printf("%s\n", st->switches ? "" : " (no switches)");
	if (!pb->n) {
		printf("  problems  none\n");
		return;
	}
	printf("  problems  %u\n", pb->n + pb->more);
	for (unsigned i = 0; i < pb->n; i++)
		printf("    %s\n", pb->msg[i]);
	if (pb->more)
		printf("    (%u more)\n", pb->more);
}

static void print_json(const char *file, const struct topo_stats *st, const struct problems *pb)
{
	const char *sep = "";

	printf("{\"file\": ");
	json_str(stdout, file);
	printf(", \"switches\": %u, \"cas\": %u, \"routers\": %u,\n", st->switches, st->cas,
	       st->routers);
	printf(" \"links\": {\"total\": %u, \"switch_switch\": %u, \"switch_end\": %u, "
	       "\"end_end\": %u, \"self\": %u},\n",
	       st->links, st->links_sw_sw, st->links_sw_end, st->links_end_end, st->self_links);
	printf(" \"ports\": {\"total\": %u, \"linked\": %u},\n", st->ports, st->ports_linked);
	printf(" \"parallel\": {\"pairs\": %u, \"extra_links\": %u},\n", st->parallel_pairs,
	       st->parallel_extra);
	printf(" \"components\": %u, \"unreached\": %u, \"isolated\": %u,\n", st->components,
	       st->unreached, st->isolated);
	printf(" \"radix\": {");
	for (unsigned r = 0; r <= SUBNET_MAX_PORTS; r++)
		if (st->radix[r]) {
			printf("%s\"%u\": %u", sep, r, st->radix[r]);
			sep = ", ";
		}
	printf("},\n \"problems\": [");
	for (unsigned i = 0; i < pb->n; i++) {
		printf("%s", i ? ", " : "");
		json_str(stdout, pb->msg[i]);
	}
	printf("], \"problems_not_listed\": %u}\n", pb->more);
}

/*
 * One line a node and one a link, in a stable form that compares across
 * sources: a link end is "NodeGUID[port]", the lower end first. Tests diff
 * this for a topology file against an ibnetdiscover capture of the fabric
 * the simulator built from it.
 */
static void print_list(const struct subnet *sn)
{
	for (uint32_t n = 0; n < sn->n_nodes; n++) {
		const struct subnet_node *nd = &sn->node[n];

		printf("node %s 0x%016" PRIx64 " ports %u ", subnet_type_name(nd->type), nd->guid,
		       nd->nports);
		json_str(stdout, subnet_str(sn, nd->desc));
		putchar('\n');
	}
	for (uint32_t i = 0; i < sn->n_ports; i++) {
		const struct subnet_port *a = &sn->port[i], *b;
		uint64_t ga, gb;

		if (a->peer == SUBNET_NONE || a->peer < i)
			continue;
		b = &sn->port[a->peer];
		ga = sn->node[a->node].guid;
		gb = sn->node[b->node].guid;
		if (ga > gb || (ga == gb && a->num > b->num)) {
			const struct subnet_port *t = a;

			a = b;
			b = t;
		}
		printf("link 0x%016" PRIx64 "[%u] 0x%016" PRIx64 "[%u]\n", sn->node[a->node].guid,
		       a->num, sn->node[b->node].guid, b->num);
	}
}

static void topo_usage(FILE *f)
{
	fprintf(f, "usage: loom topo [--json | --list] TOPOFILE\n\n"
		   "Read a topology (ibnetdiscover output or ibsim's form), check it and print\n"
		   "its counts: switches, CAs, links, ports, radix, parallel links, problems.\n\n"
		   "  --json   machine-readable report on stdout\n"
		   "  --list   every node (type, GUID, ports, description) and link\n"
		   "           (GUID[port] GUID[port]) instead of the counts\n\n"
		   "Exit status: 0 clean, 1 the fabric has problems (listed), 2 the file\n"
		   "cannot be read or is malformed (FILE:LINE: messages on stderr).\n");
}

int cmd_topo(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "list", no_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	_cleanup_(subnet_freep) struct subnet *sn = NULL;
	struct diag d = { 0 };
	struct problems pb = { 0 };
	struct topo_stats st;
	bool json = false, list = false;
	int c, r;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'l':
			list = true;
			break;
		case 'h':
			topo_usage(stdout);
			return 0;
		default:
			topo_usage(stderr);
			return 1;
		}
	}
	if (optind != argc - 1 || (json && list)) {
		topo_usage(stderr);
		return 1;
	}

	r = topo_read_file(argv[optind], &sn, &d);
	if (r < 0) {
		diag_print(&d, stderr);
		fprintf(stderr, "loom topo: %s: %u problem%s found; nothing was checked\n",
			argv[optind], diag_count(&d), diag_count(&d) == 1 ? "" : "s");
		diag_free(&d);
		return 2;
	}
	diag_free(&d);
	r = topo_stats_compute(sn, &st);
	if (r < 0) {
		fprintf(stderr, "loom topo: %s: cannot compute counts: %s\n", argv[optind],
			strerror(-r));
		return 2;
	}
	find_problems(sn, &st, &pb);
	if (list)
		print_list(sn);
	else if (json)
		print_json(argv[optind], &st, &pb);
	else
		print_text(argv[optind], &st, &pb);
	r = pb.n + pb.more ? 1 : 0;
	problems_free(&pb);
	return r;
}
