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
 *                     into a layer
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

struct vl_layer {
	/* Dependency bits: bit ch_off[c] + j says channel c feeds edge
	 * adj_off[head(c)] + j (the next switch sends on by its j-th link). */
	uint8_t *dep;
	uint32_t *pos, *at; /* a topological order of the channels and its inverse */
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
};

struct vl {
	const struct subnet *sn;
	const struct route_opts *o;
	struct route_out *out;
	const struct route_dest *dests;
	uint32_t n_sw, n_ch;
	/* Switch graph, edges of s at adj_off[s]..adj_off[s+1]-1 in port order. */
	uint32_t *adj_off, *adj_nbr, *rev, *tail;
	uint8_t *adj_port;
	uint32_t *ch_off; /* [n_ch + 1] first dependency bit of each channel */
	uint32_t *hosts;  /* [sw] host ports linked to it */
	uint64_t *load;   /* [n_ch] host routes over the channel so far */
	/* The escape order: up/down over BFS ranks from one root per piece. */
	uint32_t *ord, *by_ord, n_roots;
	uint32_t *dn, *len, *cnt; /* [n_sw + 1] escape tree scratch */
	uint8_t n_layers, esc; /* layers allowed; the escape layer is the last */
	struct vl_layer layer[VL_LAYERS_MAX];
	/* Incremental order scratch. */
	uint32_t *mark, stamp, *stk, *fw, *bw;
	uint64_t *keys;
	/* Dependency bits (and their layers) set for the tree under way. */
	uint32_t *undo, n_undo;
	uint8_t *undo_l;
	/* Fitting scratch, [n_sw]: next hops, path weights, the layers that
	 * hold a switch's whole route, the SL of its own route. */
	uint32_t *cur, *chain, *used;
	uint64_t *w, *cost;
	uint8_t *in_l, *sl;
	/* Trees of the batch and per worker scratch. */
	struct vl_tree tree[VL_BATCH + 128];
	unsigned workers;
	/* What why says. */
	uint64_t escapes, pk_moves;
};

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
/* Add "channel a feeds channel b" to layer L; false if that closes a cycle. */
bool vl_dep_add(struct vl *m, struct vl_layer *L, uint32_t a, uint32_t b);
/* Take back the dependencies set since the undo log held n entries. */
void vl_dep_undo(struct vl *m, uint32_t n);

/* Pass 1 for destination number i (all its LIDs), into trees from slot. */
void vl_tree_build(struct vl *m, uint32_t slot, uint32_t dest);
/* Pass 2: next hops and a layer for every host switch's route (m->sl),
 * else the escape tree, all on the escape layer. */
void vl_tree_place(struct vl *m, struct vl_tree *t);

#endif
