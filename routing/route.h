/* SPDX-License-Identifier: MIT */
#ifndef LOOM_ROUTE_H
#define LOOM_ROUTE_H

/*
 * DOC: routing/ — subnet model in, forwarding tables out. Never touches MADs.
 *   route.h    this header: the ops table every engine fills, options, output
 *   engine.c   registry of engines; helpers every engine shares (output
 *              tables and their hand-over, the destination list with its LID
 *              checks, unreachable counts, messages)
 *   chain.c    which engines to try, in order ("ftree,vlayered", "auto")
 *   minhop.c   min-hop: shortest paths, routes balanced over equal-cost ports
 *   updn.c     up/down: legal routes go up towards roots, then only down;
 *              deadlock-free on one VL for any topology; updn_roots.c: roots,
 *              ranks and the up order; updn_cover.c: does every host pair
 *              share a found root, and the bridges that make it so;
 *              updn_reorder.c: when bridges cannot, moves in the up order;
 *              updn_best.c: the entry, plain repair and its variants, the
 *              least loaded kept; updn_tune.c: moves in the up order at the
 *              busiest link, kept when it carries less; updn_priv.h what
 *              the six share
 *   ftree.c    fat-tree (Clos) routing, D-mod-K balance, tolerant of missing
 *              links and switches; ftree_rank.c: levels from the CAs up, the
 *              switch graph; ftree_choose.c: one LID's choices; ftree_detour.c:
 *              credit-loop-checked detours where up-down cannot reach;
 *              ftree_priv.h what the four share
 *   vlayered.c deadlock-free for any topology: balanced shortest paths spread
 *              over virtual layers (SLs), each layer's CDG kept acyclic, an
 *              up/down escape (refused when one VL leaves most CA LIDs on
 *              it: short of VLs); vlayered_order.c the escape, vlayered_cdg.c
 *              per-layer CDGs, vlayered_tree.c one LID's tree and its layer,
 *              vlayered_priv.h what they share
 *   file.c     tables loaded from dump_lfts text, as the operator fixed them
 *   check.c    the route-quality checker (check.h; check_cdg.c credit loops,
 *              check_msg.c messages, check_adj.c the switch graph in compact
 *              arrays and LFT columns, check_par.c the LIDs on worker threads,
 *              check_priv.h what they share): follows any tables, written
 *              apart from the engines
 *   lft_text.c dump_lfts text out; lft_text_read.c: dump_lfts text in (lft_text.h)
 *
 * Data flows one way: the LID manager has put LIDs (and LMCs) into the model;
 * an engine reads the model and fills a struct route_out; programming (fabric/)
 * and `loom route` read that. Engines do not print: what went wrong, or what
 * could not be reached, goes into struct route_why for the caller to log.
 */

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "model/subnet.h"

/* IBA LinearForwardingTable: egress port 255 drops the packet; unused LIDs map to it too. */
#define ROUTE_DROP 0xff
/* IBA PortInfo:LMC is 3 bits: a port has up to 2^7 LIDs. */
#define ROUTE_LMC_MAX 7

struct route_opts {
	/* The LMC the LID manager was asked for. Engines route every one of a
	 * port's 2^(port.lmc) LIDs (the model is authoritative); a port whose
	 * LMC exceeds this is a model/config mismatch and an error. */
	uint8_t lmc;
	/* updn: the root switches by NodeGUID; none (n_roots 0) finds them. A
	 * GUID of no node is skipped (said in why); a CA's GUID is -EINVAL. */
	const uint64_t *roots;
	uint32_t n_roots;
	/* file: the dump_lfts text to load (required by that engine). */
	const char *file;
	/* vlayered: the VLs it may spread routes over, 1..8 (0 means 8). */
	uint8_t vls;
	/* Worker threads for engines that parallelise (lib/par.h); 0 means one
	 * per online CPU. The tables never depend on it: same model and
	 * options, byte-identical output with 1 thread or 64. */
	unsigned threads;
	/* Progress for long runs, or NULL: called now and then from the
	 * calling thread (route_tick) with the work done and
	 * the total, in the engine's own units (destination LIDs, say), and
	 * what is under way; the callee limits how often it prints. */
	void (*progress)(void *ctx, const char *what, uint64_t done, uint64_t total);
	void *progress_ctx;
};

struct route_stats {
	uint32_t dest_ports;   /* LID-bearing ports routed to */
	uint32_t dest_lids;    /* LIDs routed to (dest_ports x their 2^lmc) */
	uint64_t routes;       /* LFT entries set (switch, LID) */
	uint64_t unreach;      /* (switch, LID) pairs left at ROUTE_DROP: no path */
	uint32_t unreach_lids; /* LIDs that at least one switch cannot reach */
	/* vlayered: LIDs routed by its up/down escape (no layer took their
	 * routes), a switch's own LIDs counted with the host LID they copy;
	 * escape_host_lids those of CAs and routers. 0 for the other engines. */
	uint32_t escape_lids, escape_host_lids;
};

/*
 * What an engine produces: one linear forwarding table per switch. Switches
 * are numbered 0..n_sw-1 in node order; lft holds n_sw rows of max_lid + 1
 * egress port numbers, row s for switch sw_node[s], indexed by LID. 0 is the
 * switch itself (its own LIDs), ROUTE_DROP no route. Zero it before the
 * first use; route_out_free() releases it and accepts a zeroed one.
 */
struct route_out {
	uint32_t n_sw;
	uint32_t *sw_node;  /* [n_sw] node index of each switch */
	uint32_t *sw_index; /* [n_nodes] switch number of a node, SUBNET_NONE if not one */
	uint16_t max_lid;   /* each row covers LIDs 0..max_lid */
	uint8_t *lft;       /* [n_sw * (max_lid + 1)] */
	/*
	 * Engines that break credit loops with virtual lanes (vlayered) say
	 * which SL each route must travel on; NULL for the others (any SL will
	 * do, one VL is enough). Same shape as lft: row s, entry LID is the SL
	 * for traffic to LID that enters the switched fabric at switch s, from
	 * one of its CAs or from the switch itself. (Routes from all CAs of a
	 * switch share every channel after the first, and the first has no
	 * dependency into it, so nothing finer is needed.) The SA puts it in
	 * PathRecord.SL; every port must map SL to VL by sl2vl (same map on
	 * every port and every in/out pair), and n_vls VLs are used.
	 */
	uint8_t *sl;
	uint8_t sl2vl[16];
	uint8_t n_vls;
	struct route_stats stats;
};

static inline uint8_t *route_lft(const struct route_out *out, uint32_t sw)
{
	return out->lft + (size_t)sw * ((size_t)out->max_lid + 1);
}

/* Row sw of out->sl (which must be set). */
static inline uint8_t *route_sl(const struct route_out *out, uint32_t sw)
{
	return out->sl + (size_t)sw * ((size_t)out->max_lid + 1);
}

void route_out_free(struct route_out *out);

/* Why an engine failed, or what it could not do when it succeeded. */
struct route_why {
	char msg[256];
};

struct route_engine {
	const char *name;
	/*
	 * Route sn into *out (zeroed by the caller). Returns >= 0 on success
	 * (unreachable LIDs are a success, counted in out->stats and said in
	 * why), or -errno with the reason in why and *out untouched: -EINVAL
	 * for a model the engine cannot route (no LIDs, clashing LIDs, an LMC
	 * over o->lmc), -ENOMEM. why may be NULL.
	 */
	int (*route)(const struct subnet *sn, const struct route_opts *o, struct route_out *out,
		     struct route_why *why);
};

/* The engine called name, or NULL. */
const struct route_engine *route_engine_find(const char *name);
/* All engines, in a fixed order; *n gets the count. */
const struct route_engine *const *route_engine_list(size_t *n);

/* ---- which engines to try, in order (chain.c) ------------------------------- */

#define ROUTE_CHAIN_MAX 8
struct route_chain {
	const struct route_engine *e[ROUTE_CHAIN_MAX];
	unsigned n;
};

/*
 * spec: engine names separated by commas, "auto" standing for ftree, vlayered,
 * updn; an engine named twice is tried once. fallback: "auto"'s engines are
 * tried after the list (those not in it already), unless the list has the
 * file engine (its tables are the operator's: no others stand in for them). -EINVAL with the unknown or
 * empty name in bad, -E2BIG past ROUTE_CHAIN_MAX engines; out untouched then.
 */
int route_chain_parse(const char *spec, bool fallback, struct route_chain *out, char *bad,
		      size_t bad_len);
/* "ftree,vlayered,updn": the names in order. */
const char *route_chain_str(const struct route_chain *c, char *buf, size_t len);

/* ---- for engines ------------------------------------------------------------ */

/* Each engine's ops table, listed in engine.c. */
extern const struct route_engine route_minhop;
extern const struct route_engine route_updn;
extern const struct route_engine route_ftree;
extern const struct route_engine route_vlayered;
extern const struct route_engine route_file;

/* A LID-bearing port: where its LIDs leave the switched fabric. */
struct route_dest {
	uint32_t port;   /* port index in the model */
	uint32_t sw;     /* switch number it hangs off (itself for port 0), or SUBNET_NONE */
	uint16_t lid;    /* base LID */
	uint16_t nlids;  /* 2^lmc */
	uint8_t sw_port; /* egress port at sw: 0 for a switch's own LIDs */
};

/*
 * Start an output: number the switches, check every LID-bearing port (CA and
 * router ports with a LID, switch port 0 with a LID) and list them in LID
 * order in *dests (n_dests of them; free() it), and allocate the LFTs filled
 * with ROUTE_DROP. Fails with -EINVAL and a reason in why for no LIDs at all,
 * a LID outside the unicast range, a base LID not aligned to its LMC, two
 * ports holding one LID, or an LMC over o->lmc; -ENOMEM.
 */
int route_out_init(const struct subnet *sn, const struct route_opts *o, struct route_out *out,
		   struct route_dest **dests, uint32_t *n_dests, struct route_why *why);

/*
 * Number the switches 0..n_sw-1 in node order: fill out->n_sw, sw_node and
 * sw_index (SUBNET_NONE for the other nodes). route_out_init does it for the
 * engines; a table read from text (lft_text_read.c) takes the same numbers.
 * -ENOMEM, with whatever was allocated left in out for route_out_free.
 */
int route_out_number(const struct subnet *sn, struct route_out *out);
/* The LFT rows of a numbered out for LIDs 0..max, every entry ROUTE_DROP. -ENOMEM. */
int route_out_rows(struct route_out *out, uint32_t max);

/*
 * The end of an engine's route(), r being what its run returned: on success
 * (r >= 0) move *res into *out and return 0; on failure free *res, say so in
 * why for -ENOMEM (other errors have said their reason already) and return
 * r, *out untouched.
 */
int route_out_finish(struct route_out *res, int r, struct route_out *out, struct route_why *why);

/*
 * The switch (numbered as in out) at the far end of port num of switch node,
 * or SUBNET_NONE: the port is unlinked, linked to a CA or router, or cabled
 * back to node itself (such a cable carries no route). When there is one and
 * peer_port is not NULL, *peer_port gets the far port's index in the model.
 * Every engine builds its switch graph from this, once per port: not for an
 * inner loop.
 */
uint32_t route_sw_peer(const struct subnet *sn, const struct route_out *out, uint32_t node,
		       unsigned num, uint32_t *peer_port);

/* Count the destinations on no switch (unlinked, or CA to CA) in out->stats:
 * no switch reaches them (nothing to count without switches). */
void route_count_unattached(struct route_out *out, const struct route_dest *d, uint32_t n);

/*
 * Destinations grouped by their switch (LID order within a switch), so that
 * one search from a switch serves all of its CAs; the groups in the order of
 * their lowest LID. The order decides how port loads build up, so it must
 * not be the model's node order: that is discovery order, which a lossy or
 * differently rooted sweep changes, while LIDs are stable. order[] (room
 * for n) gets the destination numbers of those on a switch; returns how
 * many, or -ENOMEM.
 */
int route_group_by_switch(uint32_t n_sw, const struct route_dest *d, uint32_t n, uint32_t *order);

/* Report progress (route_opts.progress). Cheap, but call it per batch or
 * per destination, not in an inner loop. */
static inline void route_tick(const struct route_opts *o, const char *what, uint64_t done,
			      uint64_t total)
{
	if (o->progress)
		o->progress(o->progress_ctx, what, done, total);
}

void route_why_set(struct route_why *why, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
