/* SPDX-License-Identifier: MIT */
#ifndef LOOM_SM_SWEEP_H
#define LOOM_SM_SWEEP_H

#include <stdbool.h>
#include <stdint.h>

#include "config/config.h"
#include "lib/diag.h"
#include "mad/txn.h"
#include "routing/route.h"
#include "loomd/agent.h"
#include "loomd/flap.h"
#include "fabric/disc.h"
#include "plan/lid.h"
#include "plan/mcast.h"
#include "plan/plan.h"
#include "fabric/prog.h"
#include "model/diff.h"
#include "model/subnet.h"

#define SWEEP_MAX_EVENTS 64 /* lines kept; past them, a count */

struct sweep_opts {
	struct route_chain engines; /* tried in order until one routes the fabric */
	struct route_opts route;
	const char *guid2lid;   /* the persistent guid-to-LID map; NULL: none */
	uint64_t subnet_prefix; /* 0: keep what the SM's port has, else fe80::/64 */
	const struct config *config; /* partitions to program; NULL: P_Keys left alone */
	struct flap_opts flap;
};

/*
 * The SM's sweeps, from one heavy sweep to the next: the model of the last
 * one (and what the fabric said that the model does not hold), the LID
 * map, and the LFTs as programmed.
 */
struct sweeper {
	struct txn *x;
	struct agent *agent;
	struct sweep_opts o;
	struct lid_map *lids;
	struct prog_cache *cache;
	/* The model routed: as discovered, less the damped links (flap). */
	struct subnet *sn;
	struct disc_live live;
	/*
	 * What the fabric should hold, for sn: the routes the LFTs were
	 * programmed from (empty when the last heavy sweep could not route),
	 * the P_Keys and QoS classes. The SA answers from it.
	 */
	struct plan plan;
	struct mcast *mcast;   /* multicast groups (the SA changes them) and the MFTs programmed */
	/* What the last heavy sweep found changed since the one before: one line an event. */
	struct diag events;
	struct flap flap; /* links that change too often, kept out of sn */
	/*
	 * A whole discovery made just before (the SM election's, ha.c), which
	 * the next heavy sweep starts from instead of discovering again; its
	 * SMPs and time count in that sweep's.
	 */
	struct subnet *pre_sn;
	struct disc_live pre_live;
	uint64_t pre_smps;
	unsigned pre_ms;
	unsigned heavy, light; /* sweeps done */
	bool up;               /* the last heavy sweep reached SUBNET UP */
	/*
	 * This SM took over a running subnet: until a heavy sweep reaches SUBNET
	 * UP, the LIDs the ports hold (the old master's) win over the map's.
	 */
	bool takeover;
};

/* One sweep, as the summary line tells it. */
struct sweep_stats {
	bool heavy;
	uint32_t nodes, ports;
	unsigned changes; /* heavy: Sets sent; light: switches reporting a change */
	unsigned events;  /* heavy: nodes gone or new, links down, up, damped or released */
	unsigned lft_blocks; /* of the changes: LFT blocks sent */
	unsigned pkey_blocks; /* of the changes: P_Key blocks sent */
	unsigned qos_blocks;  /* of the changes: SL2VL and VLArb blocks sent */
	unsigned mft_blocks;  /* of the changes: MFT blocks sent */
	uint64_t smps;    /* SMPs sent by this sweep, retries included */
	unsigned ms;
	bool up;
	char why_not[160]; /* why the sweep did not reach SUBNET UP */
};

/* Load the LID map (its bad lines go to msgs). -errno on I/O errors. */
int sweeper_init(struct sweeper *s, struct txn *x, struct agent *a, const struct sweep_opts *o,
		 struct diag *msgs);
void sweeper_free(struct sweeper *s);

/*
 * Discover, assign LIDs, route and program what differs. Problems go to
 * msgs (the caller logs them). -errno only when the sweep could not run at
 * all (the local port does not answer, out of memory).
 */
int sweep_heavy(struct sweeper *s, struct sweep_stats *st, struct diag *msgs);
/*
 * A damped link's hold is over at now_us (CLOCK_MONOTONIC): the next sweep
 * must be heavy to put it back in the routes.
 */
bool sweep_flap_due(const struct sweeper *s, uint64_t now_us);
/*
 * The sweep timer's next time after a sweep at now_us: next_us, or earlier
 * when a damped link's hold ends (a second after now_us at the earliest).
 */
uint64_t sweep_next_us(const struct sweeper *s, uint64_t now_us, uint64_t next_us);
/*
 * Ask every switch of the last model whether a port changed state
 * (SwitchInfo:PortStateChange); *changed when one did or did not answer.
 */
int sweep_light(struct sweeper *s, bool *changed, struct sweep_stats *st);
/*
 * Multicast changed between sweeps (a join or leave through the SA): the
 * MFT blocks that differ from the groups' trees, on the last sweep's
 * model. Nothing to do before the first SUBNET UP (the heavy sweep does it).
 */
int sweep_mcast(struct sweeper *s, struct sweep_stats *st, struct diag *msgs);

#endif
