/* SPDX-License-Identifier: MIT */
#ifndef LOOM_CHECK_H
#define LOOM_CHECK_H

/*
 * Route quality, judged from the forwarding tables alone: whoever made them
 * (a loom engine, loomd's tables read back from a fabric, OpenSM's), the
 * checker follows the LFTs hop by hop over the model's links and knows
 * nothing of how they were computed.
 *
 * Definitions (what every number in struct check_report means):
 *  - A host is a CA (or router) port with a LID, linked to a switch. A
 *    destination is any CA or router port with a LID (linked or not).
 *  - A pair is (source host, one LID of a destination port) with the two
 *    ports different: every one of a destination's 2^LMC LIDs is a pair.
 *  - A route starts at the source's switch and follows the LFT entry for the
 *    LID at each switch. It is delivered when it leaves a switch by the port
 *    linked to the destination port (or, for a switch's own LID, at LFT port
 *    0 of that switch). It is unreachable when an entry is 255 or beyond the
 *    switch's ports, the LID is above the table's top, the egress port is not
 *    linked, it is delivered to another port, or the destination is not
 *    linked to a switch. It loops when it comes back to a switch it passed.
 *  - Hops count switch-to-switch links crossed (0 for two hosts on one
 *    switch). Stretch compares them with the fewest hops over the model's
 *    links (BFS): extra_max is the most extra hops of any pair; stretch is
 *    the ratio of links end to end, host links included, (hops + 2) /
 *    (shortest + 2), so 1.0 is shortest.
 *  - A link is a directed switch-to-switch link (a cable between two
 *    switches counts twice, once each way; parallel cables separately).
 *    Load is the number of routes over a link, for two traffic patterns:
 *    all-to-all (every delivered pair once) and shift (hosts sorted by port
 *    GUID, host i sends to host (i + n/2) mod n, to its base LID). max is the
 *    busiest link, mean the total over all links (idle ones too) / links,
 *    ideal = (sum of the pattern's shortest hops) / links: no routing of the
 *    pattern can make its busiest link carry less, so max / ideal says how
 *    far the tables are from perfect balance.
 *  - Switch LIDs: every switch must route every switch's LID (the SM and
 *    the tools reach switches by LID); (switch, switch LID) pairs that do
 *    not arrive count in sw_bad.
 *  - The channel dependency graph: channels are (link, VL); a delivered
 *    all-to-all route that enters a switch on channel a and leaves it on
 *    channel b adds a -> b. A cycle means traffic can deadlock on credits
 *    (a credit loop). A route travels on the SL check_opts.sl gives (SL 0
 *    without it); on each link its VL is what check_opts.vl_of says the
 *    switch maps that SL to from the route's in port to its out port (the
 *    SL itself without vl_of; a route mapped to VL 15 is dropped there and
 *    counts as unreachable). With one SL everywhere this is the plain
 *    one-VL graph.
 *
 * Cost: per destination LID one walk from each switch, memoised, so each
 * switch's entry is followed once per LID: O(LIDs x switches) time, the
 * LIDs shared out between worker threads (check_opts.threads); one BFS per
 * switch that has destinations (per thread); memory O(switches + ports +
 * LIDs) besides the tables, per thread: the LFT columns of 256 LIDs (and
 * their SLs), 64 bytes per channel for the per-VL memo, and one bit per
 * (channel, next port) for the CDG.
 */

#include <stdbool.h>
#include <stdint.h>

#include "lib/diag.h"
#include "routing/route.h"
#include "model/subnet.h"

#define CHECK_MSGS_DEFAULT 20

struct check_opts {
	unsigned max_msgs; /* bad pairs named in d; 0 means CHECK_MSGS_DEFAULT */
	/* A LID not to judge, 0 for none: the tables cannot say where it goes
	 * (struct lft_text_stats.unread_lid). Its pairs are not counted. */
	uint32_t skip_lid;
	/* The SL of each route, shaped as route_out.sl (row: the switch where
	 * the route enters the fabric, entry: destination LID), or NULL. */
	const uint8_t *sl;
	/* The VL that switch node maps sl to for a packet in by port in, out
	 * by port out (SL2VL table), 0..14 or 15 (drop); NULL: VL = SL. For
	 * tables read back from a fabric: `smpquery sl2vl` of each switch. */
	uint8_t (*vl_of)(void *ctx, uint32_t node, uint8_t in, uint8_t out, uint8_t sl);
	void *vl_ctx;
	/* Worker threads; 0: one per CPU, and one alone for a few hundred
	 * LIDs. The report is the same for any number. vl_of is called from
	 * all of them at once. */
	unsigned threads;
};

struct check_load {
	uint64_t routes; /* routes counted for this pattern */
	uint64_t max;    /* routes over the busiest link */
	double mean;     /* routes x hops / links */
	double ideal;    /* shortest hops of the pattern / links: a lower bound on max */
	uint32_t max_node; /* the busiest link: switch node and egress port, */
	uint8_t max_port;  /* SUBNET_NONE / 0 if there is none */
};

struct check_report {
	uint32_t hosts, dest_ports, dest_lids;
	uint32_t switches, links;
	uint64_t pairs, delivered, unreachable, loops;
	uint32_t hops_max, extra_max;
	double hops_mean, stretch_mean, stretch_max;
	uint64_t sw_pairs, sw_bad; /* (switch, switch LID) pairs, and those not arriving */
	uint32_t lids_skipped;     /* LIDs held by a port but not judged (check_opts.skip_lid) */
	struct check_load all2all, shift;
	uint64_t cdg_deps; /* distinct channel dependencies */
	bool cdg_acyclic;  /* no credit loop on any VL */
	uint16_t vls_used; /* bit v: some delivered route crosses a switch link on VL v */
	uint16_t vls_cyclic; /* bit v: VL v's dependencies hold a cycle */
};

/*
 * Judge out (forwarding tables for sn's switches, numbered as
 * route_out_init numbers them) against sn's links and LIDs. Fills *rep and
 * names the first o->max_msgs bad pairs (and one credit loop, if any) in d.
 * Returns 0, -EINVAL if out was not built for sn, -ENOMEM.
 */
int check_routes(const struct subnet *sn, const struct route_out *out,
		 const struct check_opts *o, struct check_report *rep, struct diag *d);

/* Every pair and every switch LID arrives, and nothing loops. */
static inline bool check_ok(const struct check_report *r)
{
	return !r->unreachable && !r->loops && !r->sw_bad;
}

#endif
