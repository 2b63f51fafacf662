/* SPDX-License-Identifier: MIT */
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "lib/cleanup.h"
#include "lib/json.h"
#include "model/subnet.h"
#include "model/topo_stats.h"
#include "tools/topo_print.h"

static const char *node_label(const struct subnet *sn, uint32_t n)
{
	return subnet_str(sn, sn->node[n].name);
}

void topo_problems_find(const struct subnet *sn, const struct topo_stats *st,
			struct diag *pb)
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
				diag_msg(pb, "%s \"%s\" port %u is cabled to its own port %u",
					    subnet_type_name(nd->type), node_label(sn, n), i,
					    sn->port[p->peer].num);
		}
		if (!linked && nd->src_line)
			diag_msg(pb, "%s \"%s\" (line %u) has no links",
				    subnet_type_name(nd->type), node_label(sn, n), nd->src_line);
		else if (!linked)
			diag_msg(pb, "%s \"%s\" has no links", subnet_type_name(nd->type),
				    node_label(sn, n));
	}
	if (st->components > 1)
		diag_msg(pb, "the fabric is in %u pieces: %u nodes cannot be reached from "
			    "\"%s\", the first node (where the SM attaches)",
			    st->components, st->unreached, node_label(sn, 0));
	if (st->switches == 0 && st->cas > 2)
		diag_msg(pb, "no switches: only two CAs can be cabled back to back");
}

void topo_print_text(const char *file, const struct topo_stats *st, const struct diag *pb)
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
	printf("  problems  %u\n", pb->n + pb->dropped);
	for (unsigned i = 0; i < pb->n; i++)
		printf("    %s\n", pb->msg[i]);
	if (pb->dropped)
		printf("    (%u more)\n", pb->dropped);
}

void topo_print_json(const char *file, const struct topo_stats *st, const struct diag *pb)
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
	printf("], \"problems_not_listed\": %u}\n", pb->dropped);
}

/*
 * One line a node and one a link, in a stable form that compares across
 * sources: a link end is "NodeGUID[port]", the lower end first. Tests diff
 * this for a topology file against an ibnetdiscover capture of the fabric
 * the simulator built from it.
 */
void topo_print_list(const struct subnet *sn)
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
