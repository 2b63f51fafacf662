/* SPDX-License-Identifier: MIT */
#ifndef LOOM_PLAN_KEEP_H
#define LOOM_PLAN_KEEP_H

#include <stdbool.h>
#include <stdint.h>

#include "model/subnet.h"
#include "routing/route.h"

/*
 * What keep_routes() did: whether the tables kept from before replaced the
 * engine's, and why not when they did not.
 */
struct keep_report {
	bool tried;           /* there were tables before, and the engine's have no SLs */
	bool used;            /* the routes now are the kept ones, patched */
	uint32_t lids_kept;   /* LIDs whose entries were kept (patched where broken) */
	uint32_t lids_fresh;  /* LIDs that took the engine's entries as they are */
	uint64_t entries_patched; /* (switch, LID) entries rerouted among the kept ones */
	uint64_t max_load_kept, max_load_fresh; /* routes over the busiest link, all-to-all */
	char why[160];        /* why the engine's tables stand (tried, not used) */
};

/*
 * Keep what still holds of the tables before an event (prev, numbered on
 * prev_sn) in the engine's fresh tables for sn (fresh, numbered on sn): an
 * entry is kept where its port is still linked and the route from there is
 * still valid and as short as the engine's; the LIDs whose route broke are
 * rerouted where it broke only, spread over the ports with the fewest LIDs
 * that still give a route as short; a LID that cannot be patched so takes
 * the engine's entries. The result replaces fresh only when the route
 * checker (routing/check.h) finds it no worse than fresh: no more pairs
 * unreachable, no loop, no credit loop where fresh has none, and a busiest
 * link no busier. Tables with SLs (fresh->sl) are left as they are: their
 * layers are the engine's to choose. Returns 0 (rep says what happened) or
 * -ENOMEM, fresh untouched then.
 */
int keep_routes(const struct subnet *prev_sn, const struct route_out *prev,
		const struct subnet *sn, struct route_out *fresh, struct keep_report *rep);

#endif
