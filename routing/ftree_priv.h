/* SPDX-License-Identifier: MIT */
#ifndef LOOM_FTREE_PRIV_H
#define LOOM_FTREE_PRIV_H

/*
 * Inside the fat-tree engine: ftree.c runs it and writes the tables,
 * ftree_rank.c finds the levels and builds the switch graph, ftree_choose.c
 * makes every switch's choice for one LID, ftree_detour.c routes what
 * up-down cannot.
 * Switches keep route_out's numbers; every order the engine depends on
 * comes from ord[] (level, then GUID), never from the model's node order.
 */

#include <stdbool.h>
#include <stdint.h>

#include "route.h"

#define FT_NONE UINT32_MAX
#define FT_INF UINT16_MAX
#define FT_HERE (UINT32_MAX - 1) /* via[]: the destination hangs off this switch */

struct ft {
	const struct subnet *sn;
	const struct route_opts *o;
	struct route_out *out;
	uint32_t n_sw;

	/* ---- the tree (ftree_rank.c) ---- */
	uint32_t *rank;    /* [sw] level: 0 for switches with CAs, FT_NONE if no CA is reachable */
	uint32_t *ord;     /* [n_sw] switches by (level, GUID); unlevelled ones last */
	uint32_t *pos;     /* [sw] place in ord[] */
	uint32_t n_ranked; /* ord[0..n_ranked-1] have a level */
	uint32_t levels;   /* highest level + 1 */
	uint32_t *hosts;   /* [sw] LID-bearing CA/router ports linked to it: traffic sources */
	/*
	 * Switch-to-switch edges (one per cable end, a cable to itself left
	 * out). Switch s has edges off[s]..off[s+1]-1: down edges (to level - 1)
	 * up to up[s], then up edges (to level + 1); each run sorted by the far
	 * switch's ord place, then port, so a scan meets the preferred one first.
	 * Unlevelled switches have only "down" edges (used by switch LIDs only).
	 */
	uint32_t *off, *up;
	uint32_t *to;   /* [edge] far switch */
	uint32_t *rev;  /* [edge] the same cable the other way */
	uint8_t *port;  /* [edge] egress port number */
	uint32_t *ecan, *ecan_inv; /* [edge] its number with switches in ord order, and back */
	uint32_t n_edges;

	/* ---- balancing state, over the whole run ---- */
	uint64_t *load;   /* [edge] all-to-all routes over it so far (CA sources) */
	uint32_t *stamp;  /* [edge] last destination port (tag) whose traffic took it */
	uint32_t *chains; /* [sw] destination LIDs whose chain passes it */
	uint32_t *bases;  /* [edge] base LIDs whose chain comes down it */

	/* ---- per destination switch (group) ---- */
	uint16_t *dd;   /* [sw] hops going only down to the group switch, FT_INF */
	uint16_t *ud;   /* [sw] hops going up, then down (shortest such), FT_INF */
	uint16_t *bd;   /* [sw] plain shortest hops (for switch LIDs), FT_INF */
	uint32_t *dn_off, *dn_end; /* [sw] its edges in dn[] if dd[sw] is finite */
	uint32_t *dn;   /* [edge] down edges one hop nearer, per switch */
	bool bd_valid;  /* bd[] is for this group */
	uint32_t *queue;

	/* Chain down links taken by the group's LIDs so far, by port in the group. */
	struct ft_glog {
		uint32_t port, edge;
	} *glog;
	uint32_t n_glog, cap_glog;
	uint32_t *sib_mark, sib_gen; /* [edge] == sib_gen: a sibling LID's chain took it */

	/* ---- per destination LID ---- */
	uint32_t *via;       /* [sw] edge the route leaves by, FT_HERE, or FT_NONE */
	uint32_t *chain_to;  /* [sw] the chain's down edge at a chain switch */
	uint32_t *chain_gen; /* [sw] == gen: on this LID's chain */
	uint32_t gen;
	uint32_t *cgen;      /* [sw] == gen: a parent's route is on the chain or joins it */
	uint32_t *cedge;     /* [sw] then the best uplink to such a parent, */
	uint64_t *ckey;      /* and its key */
	uint32_t *fgen;      /* [sw] == gen: CA traffic passes it */
	uint64_t *flow;      /* [sw] CA sources whose route passes it */
	uint32_t up_routed, pending; /* levelled switches with an up-down route, without */
	uint64_t *above;     /* [sw] least load of a chain from it to the top */
	uint64_t *pmax;      /* [sw] busiest link on its way down (see ftree_choose.c), */
	uint32_t *pgen;      /* [sw] valid if == gen */

	/* ---- detours (ftree_detour.c) ---- */
	uint8_t *is_up;      /* [edge] goes up a level */
	uint32_t *turn_head; /* [edge] first down-to-up turn allowed after this down edge */
	uint32_t *turn_in, *turn_out, *turn_next; /* [turn] its two edges; next after in */
	uint32_t n_turns, cap_turns;
	uint32_t *seen, seen_gen; /* [edge] marks of the turn check */
	uint32_t *equeue;    /* [edge] its queue */
	uint32_t *dgen, seen_gen2; /* [edge] marks of the path search */
	uint32_t *dist, *prev; /* [edge] its costs and the channel before */
	uint64_t *heap;      /* its queue */
	uint32_t heap_n, heap_cap;
	uint32_t *round;     /* [sw] when a detour fixed its route (0: before) */
	uint32_t path_gen;

	/* ---- table writes (ftree.c) ---- */
#define FT_WBUF 64
	uint8_t *wbuf;       /* [FT_WBUF][n_sw] egress ports of the LIDs buffered */
	uint32_t wbuf_lid[FT_WBUF], wbuf_n;

	/* ---- what happened ---- */
	uint8_t *prio;       /* [sw] route its CA LIDs first; set when a detour was refused */
	uint64_t detours;    /* (switch with CAs, CA LID) routes through a down-to-up turn */
	uint64_t blocked;    /* (switch with CAs, CA LID) pairs with no credit-loop-free route */
	uint32_t detour_sw, detour_lid;   /* the first of each, for the message */
	uint32_t blocked_sw, blocked_lid;
};

/* One LID to route. */
struct ft_lid {
	uint32_t g;    /* the switch it hangs off */
	uint32_t lid;
	uint32_t tag;  /* its port's number + 1: stamps LMC siblings */
	uint8_t here;  /* egress port at g (0: g's own LID) */
	bool ca;       /* a CA/router LID: counted in the balance */
	bool base;     /* its port's base LID */
	uint32_t gport; /* its port's place among the group's ports */
};

/* ftree_rank.c: levels, order and edges; -EINVAL and why if it is no fat tree. */
int ft_build(struct ft *f, struct route_why *why);
void ft_free(struct ft *f);

/* ftree_choose.c: distances to destination switch g, before routing CA LIDs on it. */
void ft_group(struct ft *f, uint32_t g);
/* bd[] to g, once after bd_valid was cleared. */
void ft_group_bfs(struct ft *f, uint32_t g);
/* Every switch's egress for l in via[], balance updated. 0, or -ENOMEM. */
int ft_choose(struct ft *f, const struct ft_lid *l);

/*
 * ftree_detour.c: routes for the switches ft_choose() left without one (no
 * up-down path to l's switch). 0, or -ENOMEM.
 */
int ft_detour(struct ft *f, const struct ft_lid *l);

#endif
