/* SPDX-License-Identifier: MIT */
/*
 * The route-quality report of routing/check.h for people (text) and programs
 * (JSON), shared by loom verify (tables read back from a fabric) and loom
 * route (tables an engine made).
 */
#include <inttypes.h>
#include <stdio.h>

#include "lib/json.h"
#include "tools/check_print.h"

static void print_link(FILE *f, const struct subnet *sn, const struct check_load *l)
{
	if (l->max_node == SUBNET_NONE) {
		fprintf(f, "max %" PRIu64, l->max);
		return;
	}
	fprintf(f, "max %" PRIu64 " at \"%s\"[%u]", l->max,
		subnet_str(sn, sn->node[l->max_node].desc), l->max_port);
}

void check_print_text(FILE *f, const struct subnet *sn, const struct check_report *r,
		      const struct diag *d, bool ok)
{
	fprintf(f, "switches %u, switch-to-switch links %u (each way), hosts %u, destinations %u "
	       "ports / %u LIDs\n", r->switches, r->links, r->hosts, r->dest_ports, r->dest_lids);
	fprintf(f, "pairs %" PRIu64 ": delivered %" PRIu64 ", unreachable %" PRIu64 ", loops %" PRIu64
	       "\n", r->pairs, r->delivered, r->unreachable, r->loops);
	fprintf(f, "hops: max %u, mean %.3f; stretch: mean %.3f, max %.3f, most extra hops %u\n",
	       r->hops_max, r->hops_mean, r->stretch_mean, r->stretch_max, r->extra_max);
	fprintf(f, "switch LIDs: %" PRIu64 " (switch, LID) pairs, %" PRIu64 " not arriving\n",
	       r->sw_pairs, r->sw_bad);
	if (r->lids_skipped)
		fprintf(f, "LIDs not judged: %u (the dump does not show where they go)\n",
		       r->lids_skipped);
	fprintf(f, "routes per link, all-to-all: ");
	print_link(f, sn, &r->all2all);
	fprintf(f, ", mean %.2f, ideal %.2f\n", r->all2all.mean, r->all2all.ideal);
	fprintf(f, "routes per link, shift: ");
	print_link(f, sn, &r->shift);
	fprintf(f, ", mean %.2f, ideal %.2f\n", r->shift.mean, r->shift.ideal);
	if (!(r->vls_used & (r->vls_used - 1))) { /* VL 0 alone, or no route at all */
		fprintf(f, "credit loops (one VL): %s (%" PRIu64 " channel dependencies)\n",
		       r->cdg_acyclic ? "none" : "yes", r->cdg_deps);
	} else {
		fprintf(f, "credit loops (%d VLs):", __builtin_popcount(r->vls_used));
		for (unsigned v = 0; v < 16; v++)
			if (r->vls_used & (1u << v))
				fprintf(f, " VL%u %s", v, r->vls_cyclic & (1u << v) ? "YES" : "none");
		fprintf(f, " (%" PRIu64 " channel dependencies)\n", r->cdg_deps);
	}
	diag_print(d, f);
	fprintf(f, "result: %s\n", ok ? "ok" : "PROBLEMS");
}

static void json_load(FILE *f, const char *name, const struct subnet *sn,
		      const struct check_load *l)
{
	fprintf(f, "\"%s\":{\"routes\":%" PRIu64 ",\"max\":%" PRIu64 ",\"mean\":%.4f,\"ideal\":%.4f",
	       name, l->routes, l->max, l->mean, l->ideal);
	if (l->max_node != SUBNET_NONE) {
		fprintf(f, ",\"max_link\":{\"guid\":\"0x%016" PRIx64 "\",\"desc\":",
		       sn->node[l->max_node].guid);
		json_str(f, subnet_str(sn, sn->node[l->max_node].desc));
		fprintf(f, ",\"port\":%u}", l->max_port);
	}
	fprintf(f, "}");
}

void check_print_json(FILE *f, const struct subnet *sn, const struct check_report *r,
		      const struct diag *d, bool ok)
{
	fprintf(f, "\"switches\":%u,\"links\":%u,\"hosts\":%u,\"dest_ports\":%u,\"dest_lids\":%u,"
	       "\"pairs\":%" PRIu64 ",\"delivered\":%" PRIu64 ",\"unreachable\":%" PRIu64
	       ",\"loops\":%" PRIu64 ",\"hops\":{\"max\":%u,\"mean\":%.4f},"
	       "\"stretch\":{\"mean\":%.4f,\"max\":%.4f,\"extra_hops_max\":%u},"
	       "\"switch_lids\":{\"pairs\":%" PRIu64 ",\"bad\":%" PRIu64 "},\"lids_skipped\":%u,"
	       "\"load\":{",
	       r->switches, r->links, r->hosts, r->dest_ports, r->dest_lids, r->pairs,
	       r->delivered, r->unreachable, r->loops, r->hops_max, r->hops_mean,
	       r->stretch_mean, r->stretch_max, r->extra_max, r->sw_pairs, r->sw_bad,
	       r->lids_skipped);
	json_load(f, "all_to_all", sn, &r->all2all);
	fprintf(f, ",");
	json_load(f, "shift", sn, &r->shift);
	fprintf(f, "},\"cdg\":{\"dependencies\":%" PRIu64 ",\"acyclic\":%s},\"ok\":%s,\"problems\":[",
	       r->cdg_deps, r->cdg_acyclic ? "true" : "false", ok ? "true" : "false");
	for (unsigned i = 0; i < d->n; i++) {
		if (i)
			fprintf(f, ",");
		json_str(f, d->msg[i]);
	}
	fprintf(f, "],\"problems_not_shown\":%u", d->dropped);
}

