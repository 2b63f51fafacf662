/* SPDX-License-Identifier: MIT */
/*
 * One LID's routes, in two passes.
 *
 * Pass 1 (in parallel over a batch of destinations): a BFS from the LID's
 * switch, so every switch knows its fewest hops, its place in BFS order
 * and its edges one hop nearer (the candidates of pass 2).
 *
 * Pass 2 (in LID order, one LID at a time, against the loads as they are):
 * switches are settled nearest first. Each takes, among its next hops one
 * hop nearer, the one whose path is lightest, a path weighing the routes
 * its links already carry (DFSSSP's weights on the shortest-path DAG: this
 * is Dijkstra in linear time). The other LIDs of the same port pay a large
 * penalty for links an earlier one took, so with LMC > 0 they leave by
 * different paths wherever the fabric has them.
 *
 * A switch with hosts must also give its own route a layer: one whose
 * dependency graph takes all the route's dependencies without a cycle. Its
 * SL is per (switch, LID), so routes to one LID may ride different layers.
 * Layers are tried lowest first (fewest VLs), and in each the next hops
 * lightest first; a route into a switch whose own route is already whole in
 * the layer adds one dependency, else the walk goes on adding them (after a
 * look along the walk for a dependency the layer refused before, which
 * ends it without adding any). Only routes from switches with hosts add
 * dependencies (only they carry traffic that holds credits; a switch
 * without hosts may still be on them).
 *
 * If no layer takes any shortest next hop, the switch tries neighbours as
 * far as itself that have their routes (a longer route, as Nue allows);
 * if none fits either, it waits, and after the first pass the waiting
 * switches try again, with any routed neighbour, round after round while
 * some get placed. Every switch routes only into switches routed before
 * it, so the routes stay a tree; t->order becomes that settling order.
 * If a round places no one, everything this LID added is taken back and
 * its routes become the up/down escape tree, all on the escape layer
 * (vlayered_order.c), where they always fit.
 */
#include <string.h>

#include "vlayered_priv.h"

/* An earlier LID of the same port took this link: avoid it if possible. */
#define LMC_PENALTY (1ull << 40)

void vl_tree_build(struct vl *m, uint32_t slot, uint32_t dest)
{
	const struct route_dest *d = &m->dests[dest];

	for (uint32_t k = 0; k < d->nlids; k++) {
		struct vl_tree *t = &m->tree[slot + k];
		uint32_t head = 0, tail = 1, n_near = 0;

		t->lid = d->lid + k;
		t->dsw = d->sw;
		t->dest = dest;
		t->sw_port = d->sw_port;
		if (m->copy_of[dest] != VL_INF)
			continue; /* commit() in vlayered.c copies its host's */
		memset(t->dist, 0xff, (size_t)m->n_sw * sizeof(*t->dist));
		memset(t->nx, 0xff, (size_t)m->n_sw * sizeof(*t->nx));
		t->order[0] = t->dsw;
		t->dist[t->dsw] = 0;
		/* When s leaves the queue every switch one hop nearer has its
		 * distance: s's nearer edges are known then, in port order. */
		while (head < tail) {
			uint32_t s = t->order[head++], ds = t->dist[s];

			t->near_at[2 * s] = n_near;
			for (uint32_t e = m->adj_off[s]; e < m->adj_off[s + 1]; e++) {
				uint32_t y = m->adj_nbr[e];

				if (t->dist[y] == VL_INF) {
					t->dist[y] = ds + 1;
					t->order[tail++] = y;
				} else if (t->dist[y] + 1 == ds) {
					t->near[n_near++] = e;
				}
			}
			t->near_at[2 * s + 1] = n_near;
		}
		t->n_reach = tail;
	}
}

static uint64_t weight(const struct vl *m, const struct vl_tree *t, uint32_t e)
{
	return m->cost[vl_head(m, e)] + m->load[e] +
	       (m->used[e] == t->dest + 1 ? LMC_PENALTY : 0);
}

/*
 * s's next hops that have their routes (so the routes stay a tree),
 * lightest first (ties: port order): one hop nearer, or (detour) not nearer.
 */
static uint32_t candidates(const struct vl *m, const struct vl_tree *t, uint32_t s,
			   uint32_t *cand, bool detour)
{
	uint64_t wt[SUBNET_MAX_PORTS + 1];
	uint32_t n = 0, j = t->near_at[2 * s], end = t->near_at[2 * s + 1];

	if (detour)
		j = m->adj_off[s], end = m->adj_off[s + 1];
	for (; j < end; j++) {
		uint32_t i, e = detour ? j : t->near[j], y = vl_head(m, e);
		uint64_t w;

		if (m->placed[y] != m->n_trees || (detour && t->dist[y] < t->dist[s]))
			continue;
		w = weight(m, t, e);
		for (i = n; i > 0 && wt[i - 1] > w; i--) {
			cand[i] = cand[i - 1];
			wt[i] = wt[i - 1];
		}
		cand[i] = e;
		wt[i] = w;
		n++;
	}
	return n;
}

/*
 * Switch s routes by edge e on layer l: add its dependency, and on along the
 * route those not yet in the layer, up to a switch whose route is whole in
 * it. Then every switch passed has its route whole in the layer.
 */
static bool try_chain(struct vl *m, uint8_t l, const struct vl_tree *t, uint32_t s, uint32_t e)
{
	uint32_t mark = m->n_undo, n = 0, x = s, ex = e;

	/* A dependency refused before ends the chain: find out before adding
	 * (and searching for) the ones ahead of it, only to take them back. */
	for (uint32_t y = vl_head(m, ex); y != t->dsw; y = vl_head(m, ex)) {
		if (vl_dep_refused(m, &m->layer[l], ex, m->cur[y]))
			return false;
		if (m->in_l[y] & 1u << l)
			break;
		ex = m->cur[y];
	}
	ex = e;
	m->cur[s] = e;
	for (;;) {
		uint32_t y = vl_head(m, ex);

		if (y != t->dsw && !vl_dep_add(m, &m->layer[l], ex, m->cur[y])) {
			vl_dep_undo(m, mark);
			return false;
		}
		m->chain[n++] = x;
		if (m->in_l[y] & 1u << l)
			break;
		x = y;
		ex = m->cur[y];
	}
	while (n)
		m->in_l[m->chain[--n]] |= (uint8_t)(1u << l);
	return true;
}

/* A layer and next hop for host switch s: the lowest layer that takes one. */
static bool place_switch(struct vl *m, const struct vl_tree *t, uint32_t s, const uint32_t *cand,
			 uint32_t n)
{
	for (uint8_t l = 0; l < m->n_layers; l++)
		for (uint32_t i = 0; i < n; i++)
			if (try_chain(m, l, t, s, cand[i])) {
				m->sl[s] = l;
				return true;
			}
	return false;
}

/*
 * Next hop (and layer, for a host switch) for s, among switches that have
 * their routes: one hop nearer if one fits, else a longer way round.
 * False: none fits yet.
 */
static bool place_one(struct vl *m, const struct vl_tree *t, uint32_t s, uint32_t *cand)
{
	uint32_t n = candidates(m, t, s, cand, false);

	m->in_l[s] = 0;
	m->sl[s] = 0;
	if (!m->hosts[s] && n) {
		m->cur[s] = cand[0];
	} else if (!n || !place_switch(m, t, s, cand, n)) {
		n = candidates(m, t, s, cand, true);
		if (!n || (m->hosts[s] && !place_switch(m, t, s, cand, n)))
			return false;
		if (!m->hosts[s])
			m->cur[s] = cand[0];
		m->detours++;
	}
	m->cost[s] = weight(m, t, m->cur[s]);
	m->placed[s] = m->n_trees;
	return true;
}

/*
 * Every reached switch, nearest first. A switch that fits nowhere waits;
 * the waiting ones try again, with any neighbour that has its route by
 * then, until a round places none: then the LID goes to the escape.
 * Switches enter settled[] as they get their routes (next hops before
 * those that use them), which becomes t->order.
 */
static bool place_all(struct vl *m, struct vl_tree *t)
{
	uint32_t cand[SUBNET_MAX_PORTS + 1], n_set = 1, n_wait = 0;

	m->n_trees++;
	m->cost[t->dsw] = 0;
	m->in_l[t->dsw] = 0xff;
	m->sl[t->dsw] = 0;
	m->placed[t->dsw] = m->n_trees;
	m->settled[0] = t->dsw;
	for (uint32_t i = 1; i < t->n_reach; i++) {
		uint32_t s = t->order[i];

		if (place_one(m, t, s, cand))
			m->settled[n_set++] = s;
		else
			m->wait[n_wait++] = s;
	}
	while (n_wait) {
		uint32_t k = 0;

		for (uint32_t j = 0; j < n_wait; j++) {
			uint32_t s = m->wait[j];

			if (place_one(m, t, s, cand))
				m->settled[n_set++] = s;
			else
				m->wait[k++] = s;
		}
		if (k == n_wait)
			return false;
		n_wait = k;
	}
	memcpy(t->order, m->settled, (size_t)t->n_reach * sizeof(*t->order));
	return true;
}

/* t's LID, and the switch's own LIDs that copy it, are on the escape. */
static void count_escape(struct vl *m, const struct vl_tree *t)
{
	struct route_stats *st = &m->out->stats;
	const struct route_dest *d = &m->dests[t->dest];

	st->escape_lids++;
	st->escape_host_lids += d->sw_port != 0;
	if (m->own_of[t->dest] != VL_INF && t->lid == d->lid)
		st->escape_lids += m->dests[m->own_of[t->dest]].nlids;
}

void vl_tree_place(struct vl *m, struct vl_tree *t)
{
	m->n_undo = 0;
	if (place_all(m, t)) {
		for (uint32_t i = 1; i < t->n_reach; i++) {
			uint32_t s = t->order[i];

			t->nx[s] = m->cur[s];
			/* A switch without hosts: a layer that holds its route, if any. */
			if (!m->hosts[s] && m->in_l[s])
				m->sl[s] = (uint8_t)__builtin_ctz(m->in_l[s]);
			m->layer[m->sl[s]].used = true;
		}
		vl_dep_keep(m);
		return;
	}
	vl_dep_undo(m, 0);
	vl_escape_tree(m, t);
	for (uint32_t i = 0; i < t->n_reach; i++)
		m->sl[t->order[i]] = m->esc;
	m->layer[m->esc].used = true;
	m->escapes++;
	count_escape(m, t);
}
