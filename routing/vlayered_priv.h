/* SPDX-License-Identifier: MIT */
#ifndef LOOM_VLAYERED_PRIV_H
#define LOOM_VLAYERED_PRIV_H

/*
 * The vlayered engine's state, shared by its files:
 *   vlayered.c        the engine: setup, destinations in batches, output
 *   vlayered_order.c  roots, the up/down order, the escape tree of one LID
 *   vlayered_cdg.c    one channel dependency graph per layer, kept acyclic
 *                     with an incremental topological order
 *   vlayered_tree.c   a balanced shortest-path tree per LID, and fitting it
 *                     into layers (longer routes where shortest ones fit
 *                     no layer)
 * Switches are numbered as in route_out. A channel is a directed
 * switch-to-switch link: edge e of switch s, s -> adj_nbr[e] by adj_port[e].
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "route.h"

#define VL_INF UINT32_MAX
#define VL_LAYERS_MAX 8
/* LIDs routed per batch: their trees are computed in parallel against the
 * link loads as they stood before the batch. A constant, so the tables do
 * not depend on the number of threads. */
#define VL_BATCH 32
/* Trees a batch may need: VL_BATCH, or one port's 2^LMC LIDs. */
#define VL_SLOTS (VL_BATCH + 128)
/* Dependency bits read at once in the searches (bits_at shifts by up to 7). */
#define VL_WORD 56

struct vl_layer {
	/* Dependency bits: bit ch_off[c] + j says channel c feeds edge
	 * adj_off[head(c)] + j (the next switch sends on by its j-th link). */
	uint8_t *dep;
	/* The same, by successor: bit rch_off[c] + i says the channel into
	 * tail(c) by the reverse of tail(c)'s i-th edge feeds c. */
	uint8_t *rdep;
	/* Same shape as dep: dependencies refused (they closed a cycle), to
	 * be refused again without a search (see vl_dep_add). */
	uint8_t *nogo;
	/* A channel's place in a topological order of the channels, and the
	 * searches' mark, side by side: a search reads both, a cache miss
	 * each when apart. Places have gaps between them, so a reorder moves
	 * only the channels one search found into the gap beside the other
	 * end; next/prev ([n_ch + 1], n_ch the list's head) is the order
	 * itself, to find that gap and to spread the places when one is full. */
	struct vl_place {
		uint64_t place;
		uint32_t mark, pad;
	} *pos;
	uint32_t *next, *prev;
	bool used;
};

/* One LID's routing tree; arrays are [n_sw]. */
struct vl_tree {
	uint32_t lid, dsw, dest; /* LID, its switch, its destination number */
	uint8_t sw_port;         /* egress at dsw */
	uint32_t n_reach;        /* switches in order[], order[0] = dsw */
	uint32_t *nx;            /* edge to the next hop (VL_INF at dsw and unreached) */
	uint32_t *dist;          /* hops to dsw, VL_INF unreached */
	uint32_t *order;         /* reached switches, parents before children */
	/* The LID's column of the LFTs and of the SLs, kept until the batch is
	 * written row by row (a column at a time was a cache miss per cell). */
	uint8_t *port, *sl;
	/* [2 * n_sw] s's edges one hop nearer, in port order (its shortest
	 * next hops), are near[near_at[2s] .. near_at[2s + 1] - 1]: found in
	 * the BFS, which runs in parallel, not again per switch in pass 2. */
	uint32_t *near_at, *near;
};

/* A dependency refused while the undo log held at entries (vlayered_cdg.c). */
struct vl_refusal {
	uint32_t bit, at;
	uint8_t layer;
};

struct vl {
	const struct subnet *sn;
	const struct route_opts *o;
	struct route_out *out;
	const struct route_dest *dests;
	/* [n dests] a switch's own LIDs: the destination on the same switch
	 * whose routes they take (routed before them), else VL_INF. */
	uint32_t *copy_of;
	uint32_t *own_of; /* [n dests] the inverse: the own LIDs copying a host, or VL_INF */
	uint32_t n_sw, n_ch;
	/* Switch graph, edges of s at adj_off[s]..adj_off[s+1]-1 in port order. */
	uint32_t *adj_off, *adj_nbr, *rev, *tail;
	uint8_t *adj_port;
	uint32_t *ch_off; /* [n_ch + 1] first dependency bit of each channel */
	uint32_t *rch_off; /* [n_ch + 1] the same in rdep */
	/* [n_ch] the same less the first edge's number: the bit of a -> b is
	 * dep_base[a] + b in dep, rdep_base[b] + rev[a] in rdep (mod 2^32),
	 * one load where the checks made three. */
	uint32_t *dep_base, *rdep_base;
	uint32_t *hosts;  /* [sw] host ports linked to it */
	uint64_t *load;   /* [n_ch] host routes over the channel so far */
	/* The escape order: up/down over BFS ranks from one root per piece. */
	uint32_t *ord, *by_ord, n_roots;
	uint32_t *dn, *len, *cnt; /* [n_sw + 1] escape tree scratch */
	uint8_t n_layers, esc; /* layers allowed; the escape layer is the last */
	struct vl_layer layer[VL_LAYERS_MAX];
	/* Incremental order scratch: the channels each search found, its
	 * stack of those still to step from, sort keys. */
	uint32_t stamp, *fw, *bw, *sf, *sb;
	struct vl_key *keys;
	uint64_t gap; /* between places when spread out */
	/* Dependency bits (and their layers) set for the tree under way. */
	uint32_t *undo, *undo_b, n_undo; /* a -> b */
	uint8_t *undo_l;
	/* Refusals that may lean on dependencies in the undo log. */
	struct vl_refusal *ng;
	uint32_t n_ng, cap_ng;
	/* Fitting scratch, [n_sw]: next hops, path weights, the layers that
	 * hold a switch's whole route, the SL of its own route. */
	uint32_t *cur, *chain, *used;
	/* [n_sw] placed[s] == n_trees: s has its route for the tree under way. */
	uint32_t *placed, n_trees;
	uint32_t *settled, *wait; /* [n_sw] switches routed, and waiting, in turn */
	uint64_t *w, *cost;
	uint8_t *in_l, *sl;
	/* Trees of two batches: the one being placed, and the next one
	 * being built (VL_SLOTS each, from tree[0] and tree[VL_SLOTS]). */
	struct vl_tree tree[2 * VL_SLOTS];
	unsigned workers;
	/* LIDs of CAs and routers on a switch (their traffic is what counts). */
	uint32_t host_lids;
	/* What why says. */
	uint64_t escapes, pk_moves, respreads, detours;
};

/*
 * Short of VLs (vlayered.c): with one VL, more than half of the CA LIDs
 * took the escape. Only rises as LIDs are routed, so it can be asked
 * after every batch.
 */
static inline bool vl_short(const struct vl *m)
{
	return m->n_layers == 1 && 2ull * m->out->stats.escape_host_lids > m->host_lids;
}

static inline uint32_t vl_head(const struct vl *m, uint32_t e)
{
	return m->adj_nbr[e];
}

/* Roots, ranks and the up order (ord, by_ord). -ENOMEM. */
int vl_order(struct vl *m);
/* Is channel e down (towards the later switch in the up order)? */
static inline bool vl_down(const struct vl *m, uint32_t e)
{
	return m->ord[m->adj_nbr[e]] > m->ord[m->tail[e]];
}
/* Replace t's tree with an up/down one (same reach); order[] by hops. */
void vl_escape_tree(struct vl *m, struct vl_tree *t);

/* Layers: allocate, order, and fill the escape layer. -ENOMEM. */
int vl_cdg_init(struct vl *m);
void vl_cdg_free(struct vl *m);
/* vl_dep_add()'s search, for a dependency neither in L nor refused there. */
bool vl_dep_add_new(struct vl *m, struct vl_layer *L, uint32_t a, uint32_t b);
/* The tree's dependencies stay: empty the undo log. */
void vl_dep_keep(struct vl *m);

static inline bool vl_bit_get(const uint8_t *d, uint32_t b)
{
	return d[b / 8] & (1u << (b % 8));
}

/* The bit of dependency a -> b in a layer's dep and nogo. */
static inline uint32_t vl_dep_bit(const struct vl *m, uint32_t a, uint32_t b)
{
	return m->dep_base[a] + b;
}

/* Was a -> b refused in layer L before (vl_dep_add would say no at once)? */
static inline bool vl_dep_refused(const struct vl *m, const struct vl_layer *L, uint32_t a,
				  uint32_t b)
{
	return vl_bit_get(L->nogo, vl_dep_bit(m, a, b));
}

/* Add "channel a feeds channel b" to layer L; false if that closes a cycle.
 * Inline for the common answers (already there, refused before). */
static inline bool vl_dep_add(struct vl *m, struct vl_layer *L, uint32_t a, uint32_t b)
{
	uint32_t bit = vl_dep_bit(m, a, b);

	if (vl_bit_get(L->dep, bit))
		return true;
	if (vl_bit_get(L->nogo, bit))
		return false;
	return vl_dep_add_new(m, L, a, b);
}
/* Take back the dependencies set since the undo log held n entries. */
void vl_dep_undo(struct vl *m, uint32_t n);

/* Pass 1 for destination number i (all its LIDs), into trees from slot. */
void vl_tree_build(struct vl *m, uint32_t slot, uint32_t dest);
/* Pass 2: next hops and a layer for every host switch's route (m->sl),
 * else the escape tree, all on the escape layer. */
void vl_tree_place(struct vl *m, struct vl_tree *t);

#endif
