/* SPDX-License-Identifier: MIT */
#ifndef LOOM_PLAN_PLAN_H
#define LOOM_PLAN_PLAN_H

/*
 * DOC: plan/ — what the fabric should hold, computed from the model and the
 * configuration. Pure: no MADs, no printing. The daemon (loomd/sweep.c), the
 * dry run (tools/cmd_route.c) and the SA (sa/) take it from one plan_build(),
 * so `loom route` prints what loomd programs and the SA answers with it.
 *   plan.c       plan_build(): LIDs -> routes -> P_Keys -> QoS classes -> IPoIB groups
 *   lid.c        LID assignment; lid_file.c the guid2lid map and its file
 *   pkey.c       partitions -> the P_Key table each port must hold
 *   qos.c        the OperationalVLs, SL2VL and VLArb tables each port should hold
 *   keep.c       after an event: the entries of the tables before that still hold,
 *                kept in the engine's fresh tables when they route no worse
 *   mcast.c      multicast groups; mcast_tree.c a group's tree; mcast_mft.c the
 *                MFTs the trees make
 *
 * Data flows one way: model (+ what discovery read, model/disc_live.h) and
 * config in, struct plan out; fabric/ sends what differs from it.
 */

#include <stdbool.h>
#include <stdint.h>

#include "config/config.h"
#include "lib/diag.h"
#include "model/subnet.h"
#include "plan/keep.h"
#include "plan/lid.h"
#include "plan/mcast.h"
#include "plan/pkey.h"
#include "routing/route.h"

#define PLAN_MAX_MSGS 32

struct plan_opts {
	struct route_chain engines;   /* tried in order until one routes the fabric */
	struct route_opts route;      /* .lmc: the LMC of CA and router ports */
	/*
	 * Data VLs every switch port supports (PortInfo:VLCap); vlayered is kept
	 * within them whatever route.vls says. 0: unknown (a topology file), 8.
	 */
	uint8_t vl_cap;
	const struct config *config;  /* loom.yaml; NULL: none (no partitions) */
	uint32_t sm_port;             /* the SM's model port: MasterSMLID, partition member "self" */
	uint16_t lid_cap;             /* no LID at or past it (lid_switch_cap); 0: no limit */
	bool lids_fabric_first;       /* the fabric's LIDs before the map's (a takeover) */
	/*
	 * The tables the fabric was given before (numbered on prev_sn; NULL:
	 * none, route afresh): their entries that still hold are kept
	 * (plan/keep.h) when that routes no worse. prev_sn NULL: numbered on sn.
	 */
	const struct route_out *prev;
	const struct subnet *prev_sn;
	/* The engine that made prev; NULL: unknown. Kept only for the same engine. */
	const struct route_engine *prev_engine;
};

/*
 * What one plan_build() said, by phase: the callers word and print them their
 * own way (loomd's sweep summary, loom route's stderr).
 */
struct plan_report {
	struct lid_report lids;   /* start .msgs with .limit = LID_MAX_MSGS or less */
	int lid_err;              /* -ENOSPC: some ports got no LID (the others did) */
	struct diag pkeys;        /* partition members that match no port */
	bool no_mlid;             /* some partitions got no IPoIB broadcast group: MLIDs ran out */
	struct keep_report keep;  /* plan_opts.prev: whether its entries were kept */
};

struct plan {
	const struct config *config; /* what it was built from (o->config), borrowed */
	const struct route_engine *engine; /* the engine that routed; NULL: every one refused */
	int route_err;            /* 0, or the last engine's -errno: every engine refused */
	struct route_why why;     /* the routing engine's summary, or the last refusal */
	/* The engines tried before it (all of them when route_err), each with why it refused. */
	struct plan_refusal {
		const struct route_engine *engine;
		struct route_why why;
	} refused[ROUTE_CHAIN_MAX];
	unsigned n_refused;
	struct route_out routes;  /* empty (n_sw 0) when route_err */
	bool have_pkeys;          /* partitions configured: pkeys is valid */
	struct pkey_plan pkeys;
	/*
	 * The QoS classes every port's tables follow (plan/qos.h): loom.yaml's,
	 * else the defaults (then qos == qos_def, owned). NULL only when routing
	 * failed: nothing is programmed then.
	 */
	const struct config *qos;
	struct config *qos_def;
	uint32_t sm_port;
	uint16_t sm_lid;          /* MasterSMLID for every port */
};

/*
 * Plan sn: give its ports their LIDs from lids (the guid2lid map, updated;
 * saving it is the caller's), route with the first of o->engines that
 * routes it (the engines before it refused: out->refused says why), build
 * the P_Key plan from o->config's partitions, pick the QoS classes, and (mc
 * not NULL) make sure the IPoIB broadcast group of every partition exists in
 * mc. The choice depends only on sn and o, so two SMs with one
 * configuration plan the same tables. Engines that all refuse the fabric are
 * not an error: out->route_err says so, and nothing is to be programmed.
 * Returns 0, or -errno (-ENOMEM, -EINVAL for a bad LMC); on failure out
 * holds nothing to free. rep may list problems either way.
 */
int plan_build(struct subnet *sn, struct lid_map *lids, const struct plan_opts *o,
	       struct mcast *mc, struct plan *out, struct plan_report *rep);
void plan_free(struct plan *p);
/* "ftree: not a fat tree: ...; vlayered: ...": the refusals as one line. */
const char *plan_refused_str(const struct plan *p, char *buf, size_t len);
void plan_report_free(struct plan_report *rep);

/*
 * The SM's port in a model: a switch SM is its port 0, else the port of
 * node 0 the SM sends through (local_port). The dry run has no transport:
 * ibsim attaches the SM to the first node's port 1.
 */
uint32_t plan_sm_port(const struct subnet *sn, uint8_t local_port);

#endif
