/* SPDX-License-Identifier: MIT */
#ifndef LOOM_UPDN_PRIV_H
#define LOOM_UPDN_PRIV_H

/*
 * The up/down engine's state, shared by updn.c (routes), updn_roots.c
 * (roots, ranks, the up order, hop distances), updn_cover.c (the roots' repair),
 * updn_reorder.c (the repair when bridges cannot) and updn_best.c (the
 * entry: plain repair and variants, the best kept).
 * Switches are numbered as in route_out.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "route.h"

#define INF UINT32_MAX

enum { M_NONE, M_DOWN, M_UP, M_DETOUR };
enum { R_NONE, R_GIVEN, R_TOP, R_CENTRE, R_ONE, R_NOHOST }; /* how roots were chosen */
/* A switch's place within its rank: a bridge goes just below the rank above
 * its own, a lowered switch just below the bridges of the rank below it. */
enum { S_NORMAL, S_BRIDGE, S_LOWERED };

/*
 * Hop distances between switches, a row per destination switch filled as
 * the detours need it (updn.c): the same for every routing of one fabric,
 * so updn_best.c shares one among them. updn_hops_free() accepts a zeroed one.
 */
struct ud_hops {
	uint8_t *have;  /* [sw] its row is filled */
	uint32_t *dist; /* [sw * n_sw + sw] */
};

struct ud {
	const struct subnet *sn;
	const struct route_opts *o;
	struct route_out *out;
	uint32_t n_sw;
	/* Switch-to-switch links, edges of s at adj_off[s]..adj_off[s+1]-1 in
	 * port order; one edge per cable end, so parallel cables are separate. */
	uint32_t *adj_off, *adj_nbr;
	uint8_t *adj_port;
	uint64_t *load;  /* [edge] host routes through it << 16, plus entries */
	uint32_t *stamp; /* [edge] last destination tag */
	uint64_t *traffic; /* [edge] host-to-host routes through it (all-to-all) */
	bool by_flow;      /* pick() balances host routes, not entries */
	bool flows;        /* route LID by LID, counting flows and traffic */
	uint32_t variant;  /* 0: the plain repair; else a seed for its ties */
	uint8_t look;      /* pick() looks ahead: 0 no, 1-4 how (ahead()) */
	bool fell_back;    /* a piece's found roots fell back to one */
	uint32_t *ncas;         /* [sw] host ports linked to it */
	uint32_t *comp, *comp_off, *comp_sw, n_comp; /* pieces and their switches */
	uint8_t *is_root;
	uint8_t *sub; /* [sw] S_*: where it goes among the switches of its rank */
	uint32_t *rank, *ord, *by_ord; /* ord: place in the up order; by_ord: inverse */
	/* Per destination switch. dist and tmp are all INF between uses. */
	uint32_t *dn, *lg, *len, *dist, *tmp, *queue, *pick, *cnt;
	uint8_t *mode, *forced;
	uint16_t *ncand;
	uint32_t *cand; /* [edge] candidates of s at cand[adj_off[s]..], port order */
	uint32_t tick, *ahead_tick; /* the LID being routed; [sw] the one ahead_val is for */
	uint64_t *ahead_val;        /* [sw] what ahead() saw beyond it */
	/* what why says */
	uint32_t missing, note_sw, note_comp, note_rule, note_h, note_node, note_moved;
	uint32_t note_reordered; /* switches moved by updn_reorder() */
	uint32_t note_lower;     /* found roots below the highest (tops) */
	uint32_t note_tuned;     /* switches moved by updn_tune() */
	/* Route with this up order (by_ord) and base's roots and pieces,
	 * instead of finding them (updn_tune.c). */
	const struct ud *base;
	const uint32_t *given_ord;
	uint64_t reorder_budget; /* updn_reorder()'s work, 0 its own */
	uint64_t detours, host_detours;
	struct ud_hops *hops; /* not owned; NULL: a BFS for each destination */
};


static inline uint64_t ud_guid(const struct ud *m, uint32_t s)
{
	return m->sn->node[m->out->sw_node[s]].guid;
}

/*
 * BFS from the n_src switches the caller put in queue[], into dist (all INF
 * on entry). Returns how many switches it reached: queue[0..ret-1], which
 * updn_bfs_reset() sets back to INF.
 */
uint32_t updn_bfs(struct ud *m, uint32_t n_src, uint32_t *dist);
void updn_bfs_reset(struct ud *m, uint32_t reached, uint32_t *dist);
/*
 * Hop distances from switch d: m->hops's row for d (filled on first use;
 * *reached 0), or where there is none a BFS into m->tmp (*reached for
 * updn_bfs_reset()).
 */
const uint32_t *updn_hops_from(struct ud *m, uint32_t d, uint32_t *reached);

/*
 * Roots for every connected piece (given, else found), ranks and the up
 * order (ord, by_ord). -EINVAL with why for a given root that is no switch,
 * -ENOMEM.
 */
int updn_roots(struct ud *m, struct route_why *why);
/* Ranks from the roots, and the up order from ranks and sub: -ENOMEM. */
int updn_order(struct ud *m);
/*
 * Does every host pair of piece c share a found root above both? If not,
 * lower switches below bridges until it does (updn_cover.c). 1 yes (the up
 * order is current), 0 it cannot (sub is reset for the piece), -ENOMEM.
 */
int updn_cover(struct ud *m, uint32_t c);
/*
 * When the bridges cannot cover piece c (the up order is its rank order):
 * move switches down the up order until every host pair of it shares a
 * switch above both (updn_reorder.c). 1 it does (the order is current; do
 * not call updn_order()), 0 it cannot, -ENOMEM.
 */
int updn_reorder(struct ud *m, uint32_t c);
/* How the roots came about, for why: snprintf's return. */
int updn_say_roots(const struct ud *m, char *buf, size_t len);
/*
 * updn.c: route destinations d[0..n-1] with m's settings into m->out (roots
 * found or given, then every destination switch): -ENOMEM, -ECANCELED for
 * a variant of the repair that cannot cover. updn_free() frees m's arrays.
 */
int updn_run(struct ud *m, const struct route_dest *d, uint32_t n, struct route_why *why);
void updn_free(struct ud *m);
void updn_hops_free(struct ud_hops *h);
/* updn_best.c: the ways a routing balances (by_flow, look), see there. */
#define UPDN_MODES_PLAIN 6
struct updn_mode {
	bool by_flow;
	uint8_t look;
};
extern const struct updn_mode updn_modes[UPDN_MODES_PLAIN];
/* updn_best.c: what the routing in m did and how its roots came about. */
void updn_say(const struct ud *m, struct route_why *why);
/*
 * updn_best.c: one routing with m's settings (sn, o, by_flow, look, variant,
 * base) into m->out, a zeroed route_out; *worst the busiest link's
 * all-to-all host routes. m's arrays stay for the caller's updn_free(),
 * also on failure. -ENOMEM, -ECANCELED (see updn_run()).
 */
int updn_try(struct ud *m, struct route_why *why, uint64_t *worst);
/*
 * updn_tune.c: with m->base and m->given_ord set, take base's roots, pieces
 * and notes, and the given up order, covered again by updn_reorder() where
 * the order left host pairs without a switch above both. -ECANCELED it
 * cannot, -ESRCH that gives base's order and balance again, -ENOMEM.
 */
int updn_tune_take(struct ud *m);
/*
 * updn_tune.c: best routed the fabric into *out with the busiest link
 * *worst; move switches in its up order where the busiest link is while
 * that lowers it, at most tries routings. best, *out, *why and *worst then
 * hold the best routing found. -ENOMEM.
 */
int updn_tune(struct ud *best, struct route_out *out, struct route_why *why, uint64_t *worst,
	      uint32_t tries);

#endif
