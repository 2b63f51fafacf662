/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/health_read.h"
#include "lib/cleanup.h"
#include "mad/txn.h"
#include "loomd/ha_plan.h"
#include "plan/plan.h"

/* Blocks of switch s (of both numberings, the same) this SM would send. */
static void compare_switch(const struct route_out *want, const struct route_out *have,
			   uint32_t s, struct ha_plan_cmp *out)
{
	const uint8_t *w = route_lft(want, s), *h = route_lft(have, s);
	uint32_t nblocks = (uint32_t)want->max_lid / SMP_LFT_BLOCK + 1;

	for (uint32_t b = 0; b < nblocks; b++) {
		uint32_t first = b * SMP_LFT_BLOCK;
		bool differ = false;

		for (uint32_t l = first; l < first + SMP_LFT_BLOCK && l <= want->max_lid; l++)
			if (w[l] != (l <= have->max_lid ? h[l] : ROUTE_DROP)) {
				differ = true;
				break;
			}
		out->blocks++;
		out->blocks_differ += differ;
	}
}

int ha_plan_compare(struct txn *x, struct subnet *sn, const struct disc_live *live,
		    const struct sweep_opts *o, bool (*stop)(void *arg), void *arg,
		    struct ha_plan_cmp *out)
{
	struct health_progress pg = { .arg = arg, .stop = stop };
	_cleanup_free_ uint16_t *lid = malloc((sn->n_ports ? sn->n_ports : 1) * sizeof(*lid));
	_cleanup_free_ uint8_t *lmc = malloc(sn->n_ports ? sn->n_ports : 1);
	struct plan_report rep = { .lids.msgs.limit = 1, .pkeys.limit = 1 };
	struct plan_opts po = { .engines = o->engines, .route = o->route, .config = o->config,
				.vl_cap = qos_switch_vl_cap(sn, live),
				.sm_port = plan_sm_port(sn, live->local_port),
				.lid_cap = lid_switch_cap(sn, live), .lids_fabric_first = true };
	struct health_lft have = { 0 };
	struct lid_map *map = NULL;
	struct plan plan = { 0 };
	int r;

	memset(out, 0, sizeof(*out));
	if (!lid || !lmc)
		return -ENOMEM;
	/* The model's LIDs are the fabric's: kept for the caller, whatever the plan gives. */
	for (uint32_t p = 0; p < sn->n_ports; p++) {
		lid[p] = sn->port[p].lid;
		lmc[p] = sn->port[p].lmc;
	}
	r = lid_map_new(&map);
	if (r == 0)
		r = plan_build(sn, map, &po, NULL, &plan, &rep);
	if (r == 0 && plan.route_err)
		r = -EHOSTUNREACH;
	/* Routing took its time, the port unread: a Set that came meanwhile is seen here. */
	if (r == 0 && stop && (r = txn_drain(x)) == 0 && stop(arg))
		r = -EINTR;
	if (r == 0) {
		out->engine = plan.engine->name;
		out->lids_changed = rep.lids.changed;
		r = health_read_lft_some(x, sn, live, stop ? &pg : NULL,
					 plan.routes.n_sw / HA_PLAN_SAMPLE + 1, &have);
	}
	/*
	 * A Set read with the last batch's answers stops it too: the agent
	 * reads the port only inside txn calls, so after this check none comes
	 * before the caller logs the result, and every HANDOVER the comparison
	 * saw cuts it short (one rule; the takeover then reads the LFTs back).
	 */
	if (r == 0 && stop && stop(arg))
		r = -EINTR;
	if (r == 0 && have.ro.n_sw == plan.routes.n_sw) {
		for (uint32_t s = 0; s < have.ro.n_sw; s++) {
			if (have.status[s] || have.ro.sw_node[s] != plan.routes.sw_node[s])
				continue;
			out->switches++;
			compare_switch(&plan.routes, &have.ro, s, out);
		}
	}
	for (uint32_t p = 0; p < sn->n_ports; p++) {
		sn->port[p].lid = lid[p];
		sn->port[p].lmc = lmc[p];
	}
	health_lft_free(&have);
	plan_free(&plan);
	plan_report_free(&rep);
	lid_map_free(map);
	return r;
}
