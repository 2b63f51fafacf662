/* SPDX-License-Identifier: MIT */
/*
 * vlayered: deadlock-free routing for any topology, balanced shortest paths
 * spread over virtual layers (one SL, and one VL, per layer).
 *
 * Why this design. DFSSSP (Domke, Hoefler, Nagel 2011) routes first and
 * then breaks cycles by moving paths between layers; it can run out of VLs
 * and then fails (OpenSM's needs 9 on an 8x8x8 torus or a random graph of
 * 200 switches). Nue (Domke, Hoefler, Matsuoka 2016) routes each
 * destination inside one layer's dependency graph, never closing a cycle,
 * with an escape that always completes, so any budget works; its routes
 * need not be shortest and its cycle checks cost a search each. vlayered
 * takes Nue's frame (routes assigned to layers, a per-layer CDG that is
 * kept acyclic, an up/down escape committed to a layer up front so that
 * every LID has a route, even with one VL: it refuses only by choice, when
 * short of VLs, below) and DFSSSP's routes (shortest
 * paths weighted by the load already on each link). The cycle check is an
 * incremental topological order per layer (vlayered_cdg.c), O(1) for most
 * dependencies, and a dependency refused once is not searched for again.
 * Each switch's route to a LID goes to the lowest layer that takes it, so
 * layers are opened only when needed: a fat tree's shortest paths are all
 * up-then-down and fit one layer; a ring or torus needs two or more.
 *
 * Granularity: the SL is per (entry switch, LID), as route_out.sl allows:
 * routes to one LID share one tree of next hops (the LFTs) but may ride
 * different layers, which is what lets a torus do with a few. Traffic sourced
 * by a switch without hosts (its own management traffic) adds no
 * dependencies (as in the checker's CDG, host traffic is what holds
 * credits); its SL is a layer that holds its route if there is one.
 *
 * Short of VLs: the one case it refuses. With one VL the only layer is the
 * escape's, so every route is bent to the escape's up/down order from one
 * root. On tori, rings, random graphs and dragonflies that still leaves
 * every LID off the plain escape tree, and its balancing gives a busiest
 * link 0.57-1.13x updn's (median 0.88x; 0.57x on a random graph of 200
 * switches). On fat-tree-like fabrics (3-level trees, degraded or with a
 * cable ftree refuses) 86-100% of the CA LIDs fall to the escape tree: one
 * root carries them, and the busiest link is 2-4.5x updn's, whose roots
 * are the top level. So with a budget of one VL, when more than half of
 * the CA LIDs take the escape (vl_short), it refuses and says so; the
 * engine after it (auto's: updn) routes. Measured 0% or 86-100% on 45
 * fabrics, never near the half. With two VLs or more it always routes: the
 * escape's share says nothing there (random graphs at 2 VLs with 79% on it
 * beat updn, degraded trees with 35% lose), and on everything but fat trees
 * (which ftree routes) it beats updn at every budget.
 *
 * Where no layer takes a switch's shortest route, it waits and tries again
 * through any neighbour routed meanwhile, one not nearer included (Nue's
 * way: a longer route before the escape); only if a round of retries
 * places no one does the LID go to the escape (vlayered_tree.c). On a
 * random graph of 1,000 switches that took the escape LIDs from 592 of
 * 2,000 to none, at a mean stretch of 1.0004.
 *
 * A switch's own LIDs take the tree and SLs of its first host's LID: the
 * routes cross the same switch links on the same SLs, so they need no tree
 * and add no dependencies (half the work on a torus). Their traffic is
 * management traffic and its load is not counted.
 *
 * Work: destinations in LID order, taking one from each switch in turn (so
 * a batch spreads over the fabric rather than piling on one switch's
 * links), a switch's hosts before its own LIDs; per batch of VL_BATCH LIDs
 * the BFSes run in parallel (lib/par.h), then one LID at a time the next
 * hops are weighed against the loads as they are, fitted to layers, and
 * their loads added; the batch's columns of the LFTs and SLs are then
 * written a switch's row at a time, by a second thread while the next
 * batch is placed (it builds the batch after that meanwhile). Ties go to the lowest port, the up/down order is by
 * GUID: same model and options, same tables and SLs, whatever the node
 * order or the number of threads. Cost per LID: a BFS and a pass over the
 * links, O(switches + links), plus the dependency checks; those still
 * dominate on large tori (a check that goes backwards in the order
 * searches the smaller of its two cones), and placement is one thread.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/cleanup.h"
#include "lib/par.h"
#include "vlayered_priv.h"

static void vl_free(struct vl *m)
{
	void *p[] = { m->copy_of, m->own_of, m->adj_off, m->adj_nbr, m->rev,     m->tail,
		      m->adj_port, m->ch_off, m->hosts,   m->load,    m->ord,     m->by_ord,
		      m->dn,       m->len,    m->cnt,     m->cur,     m->chain,   m->placed,
		      m->settled,  m->wait,   m->used,    m->w,       m->cost,    m->in_l,
		      m->sl };

	for (size_t i = 0; i < ARRAY_SIZE(p); i++)
		free(p[i]);
	vl_cdg_free(m);
	if (m->tree[0].nx)
		for (size_t i = 0; i < ARRAY_SIZE(m->tree); i++) {
			free(m->tree[i].nx);
			free(m->tree[i].dist);
			free(m->tree[i].order);
			free(m->tree[i].port);
			free(m->tree[i].sl);
			free(m->tree[i].near_at);
			free(m->tree[i].near);
		}
}

static int count_edges(struct vl *m)
{
	const struct subnet *sn = m->sn;

	m->adj_off = calloc((size_t)m->n_sw + 1, sizeof(*m->adj_off));
	m->hosts = calloc((size_t)m->n_sw + 1, sizeof(*m->hosts));
	if (!m->adj_off || !m->hosts)
		return -ENOMEM;
	for (uint32_t s = 0; s < m->n_sw; s++) {
		uint32_t node = m->out->sw_node[s];

		m->adj_off[s] = m->n_ch;
		for (unsigned p = 1; p <= sn->node[node].nports; p++) {
			uint32_t peer = sn->port[subnet_port_idx(sn, node, p)].peer;

			m->n_ch += route_sw_peer(sn, m->out, node, p, NULL) != SUBNET_NONE;
			m->hosts[s] += peer != SUBNET_NONE && !subnet_is_switch(sn, sn->port[peer].node);
		}
	}
	m->adj_off[m->n_sw] = m->n_ch;
	return 0;
}

/* Switch graph: edges in port order, each with its reverse and dependency bits. */
static int build_graph(struct vl *m)
{
	const struct subnet *sn = m->sn;
	_cleanup_free_ uint32_t *pe = malloc(((size_t)sn->n_ports + 1) * sizeof(*pe));
	size_t n;
	uint32_t e = 0;
	int r = count_edges(m);

	if (r < 0 || !pe)
		return r < 0 ? r : -ENOMEM;
	n = (size_t)m->n_ch + 1;
	m->adj_nbr = malloc(n * sizeof(*m->adj_nbr));
	m->rev = malloc(n * sizeof(*m->rev));
	m->tail = malloc(n * sizeof(*m->tail));
	m->adj_port = malloc(n);
	m->ch_off = malloc(n * sizeof(*m->ch_off));
	m->load = calloc(n, sizeof(*m->load));
	if (!m->adj_nbr || !m->rev || !m->tail || !m->adj_port || !m->ch_off || !m->load)
		return -ENOMEM;
	for (uint32_t s = 0; s < m->n_sw; s++) {
		uint32_t node = m->out->sw_node[s];

		for (unsigned p = 1; p <= sn->node[node].nports; p++) {
			uint32_t y = route_sw_peer(sn, m->out, node, p, NULL);

			if (y == SUBNET_NONE)
				continue;
			pe[subnet_port_idx(sn, node, p)] = e;
			m->adj_nbr[e] = y;
			m->tail[e] = s;
			m->adj_port[e++] = (uint8_t)p;
		}
	}
	m->ch_off[0] = 0;
	for (e = 0; e < m->n_ch; e++) {
		uint32_t pi = subnet_port_idx(sn, m->out->sw_node[m->tail[e]], m->adj_port[e]);
		uint32_t h = m->adj_nbr[e];

		m->rev[e] = pe[sn->port[pi].peer];
		m->ch_off[e + 1] = m->ch_off[e] + (m->adj_off[h + 1] - m->adj_off[h]);
	}
	return 0;
}

static int alloc_work(struct vl *m, uint32_t slots)
{
	size_t n = (size_t)m->n_sw + 1;

	m->ord = malloc(n * sizeof(*m->ord));
	m->by_ord = malloc(n * sizeof(*m->by_ord));
	m->dn = malloc(n * sizeof(*m->dn));
	m->len = malloc(n * sizeof(*m->len));
	m->cnt = malloc(n * sizeof(*m->cnt));
	m->cur = malloc(n * sizeof(*m->cur));
	m->chain = malloc(n * sizeof(*m->chain));
	m->placed = calloc(n, sizeof(*m->placed));
	m->settled = malloc(n * sizeof(*m->settled));
	m->wait = malloc(n * sizeof(*m->wait));
	m->used = calloc((size_t)m->n_ch + 1, sizeof(*m->used));
	m->w = malloc(n * sizeof(*m->w));
	m->cost = malloc(n * sizeof(*m->cost));
	m->in_l = malloc(n);
	m->sl = malloc(n);
	if (!m->ord || !m->by_ord || !m->dn || !m->len || !m->cnt || !m->cur || !m->chain ||
	    !m->placed || !m->settled || !m->wait || !m->used || !m->w || !m->cost || !m->in_l ||
	    !m->sl)
		return -ENOMEM;
	for (uint32_t i = 0; i < 2 * VL_SLOTS; i++) {
		struct vl_tree *t = &m->tree[i];

		if (i % VL_SLOTS >= slots)
			continue;

		t->nx = malloc(n * sizeof(*t->nx));
		t->dist = malloc(n * sizeof(*t->dist));
		t->order = malloc(n * sizeof(*t->order));
		t->port = malloc(n);
		t->sl = malloc(n);
		t->near_at = malloc(2 * n * sizeof(*t->near_at));
		t->near = malloc(((size_t)m->n_ch + 1) * sizeof(*t->near));
		if (!t->nx || !t->dist || !t->order || !t->port || !t->sl || !t->near_at ||
		    !t->near)
			return -ENOMEM;
	}
	return 0;
}

/*
 * Destinations on switches, in turns: the lowest LID of every switch (the
 * switches in the order of their lowest LID), then the second, and so on,
 * a switch's hosts before its own LIDs. order[] gets destination numbers;
 * returns how many.
 */
static int take_turns(const struct vl *m, const struct route_dest *d, uint32_t n,
		      uint32_t *order)
{
	_cleanup_free_ uint32_t *start = calloc((size_t)m->n_sw + 2, sizeof(*start));
	_cleanup_free_ uint32_t *by_sw = malloc(((size_t)n + 1) * sizeof(*by_sw));
	_cleanup_free_ uint32_t *grp = malloc(((size_t)m->n_sw + 1) * sizeof(*grp));
	_cleanup_free_ uint32_t *next = malloc(((size_t)m->n_sw + 1) * sizeof(*next));
	uint32_t k = 0, n_grp = 0;

	if (!start || !by_sw || !grp || !next)
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++)
		if (d[i].sw != SUBNET_NONE && !start[d[i].sw + 2]++)
			grp[n_grp++] = d[i].sw; /* d[] is in LID order */
	for (uint32_t s = 0; s < m->n_sw; s++)
		start[s + 2] += start[s + 1];
	for (int own = 0; own <= 1; own++)
		for (uint32_t i = 0; i < n; i++)
			if (d[i].sw != SUBNET_NONE && (d[i].sw_port == 0) == own)
				by_sw[start[d[i].sw + 1]++] = i;
	/* start[s] .. start[s + 1] - 1 are now s's destinations, hosts first. */
	for (uint32_t s = 0; s < m->n_sw; s++)
		next[s] = start[s];
	while (k < start[m->n_sw])
		for (uint32_t g = 0; g < n_grp; g++)
			if (next[grp[g]] < start[grp[g] + 1])
				order[k++] = by_sw[next[grp[g]]++];
	/*
	 * A switch's own LIDs take the routes of its first host: traffic to
	 * them crosses the same switch links on the same SLs, so they add no
	 * dependencies and need no tree (on a torus, half the LIDs). Their
	 * load is management traffic and is not counted.
	 */
	for (uint32_t s = 0; s < m->n_sw; s++)
		for (uint32_t j = start[s]; j < start[s + 1]; j++)
			if (d[by_sw[j]].sw_port == 0 && d[by_sw[start[s]]].sw_port != 0) {
				m->copy_of[by_sw[j]] = by_sw[start[s]];
				m->own_of[by_sw[start[s]]] = by_sw[j];
			}
	return (int)k;
}

/* The host routes of tree t onto the link loads. */
static void add_load(struct vl *m, const struct vl_tree *t)
{
	for (uint32_t i = 0; i < t->n_reach; i++)
		m->w[t->order[i]] = m->hosts[t->order[i]];
	for (uint32_t i = t->n_reach; i-- > 1;) {
		uint32_t s = t->order[i], e = t->nx[s];

		m->load[e] += m->w[s];
		m->w[vl_head(m, e)] += m->w[s];
	}
}

/* The routes of tree t: link loads, and its columns (written by write_rows). */
static void commit(struct vl *m, struct vl_tree *t)
{
	struct route_stats *st = &m->out->stats;
	uint32_t n_own = 0;

	if (m->own_of[t->dest] != VL_INF && t->lid == m->dests[t->dest].lid)
		n_own = m->dests[m->own_of[t->dest]].nlids;
	add_load(m, t);
	t->port[t->dsw] = t->sw_port;
	t->sl[t->dsw] = m->sl[t->dsw];
	for (uint32_t i = 1; i < t->n_reach; i++) {
		uint32_t s = t->order[i];

		t->port[s] = m->adj_port[t->nx[s]];
		t->sl[s] = m->sl[s];
		m->used[t->nx[s]] = t->dest + 1; /* for the port's next LID */
	}
	st->routes += (uint64_t)t->n_reach * (1 + n_own);
	st->unreach += (uint64_t)(m->n_sw - t->n_reach) * (1 + n_own);
	st->unreach_lids += (t->n_reach < m->n_sw) * (1 + n_own);
}

/*
 * The batch's columns into the LFTs and SLs, one switch's row at a time
 * (the LIDs of a batch lie close together, so a row is a cache line or
 * two): each tree's LID, and those of the switch's own LIDs if they copy it.
 */
static void write_rows(struct vl *m, const struct vl_tree *tree, uint32_t n_slots)
{
	uint32_t k[VL_SLOTS], n = 0;

	for (uint32_t i = 0; i < n_slots; i++)
		if (m->copy_of[tree[i].dest] == VL_INF)
			k[n++] = i;
	for (uint32_t s = 0; s < m->n_sw; s++) {
		uint8_t *lft = route_lft(m->out, s), *sl = route_sl(m->out, s);

		for (uint32_t j = 0; j < n; j++) {
			const struct vl_tree *t = &tree[k[j]];
			const struct route_dest *own;

			if (t->dist[s] == VL_INF)
				continue;
			lft[t->lid] = t->port[s];
			sl[t->lid] = t->sl[s];
			if (m->own_of[t->dest] == VL_INF || t->lid != m->dests[t->dest].lid)
				continue;
			own = &m->dests[m->own_of[t->dest]];
			for (uint32_t i = 0; i < own->nlids; i++) {
				lft[own->lid + i] = s == t->dsw ? own->sw_port : t->port[s];
				sl[own->lid + i] = t->sl[s];
			}
		}
	}
}

/* A batch of destinations and its trees, from tree[base]. */
struct batch {
	struct vl *m;
	uint32_t dest[VL_BATCH + 1], slot[VL_BATCH + 1], n, n_slots, base;
};

static void build_one(void *ctx, uint64_t i, unsigned worker)
{
	struct batch *b = ctx;

	(void)worker;
	vl_tree_build(b->m, b->base + b->slot[i], b->dest[i]);
}

/* The next batch from order[*i]: destinations only, up to VL_BATCH LIDs. */
static void next_batch(const struct vl *m, struct batch *b, const uint32_t *order, uint32_t n,
		       uint32_t *i)
{
	b->n = b->n_slots = 0;
	while (*i < n && b->n < VL_BATCH &&
	       (!b->n || b->n_slots + m->dests[order[*i]].nlids <= VL_BATCH)) {
		b->dest[b->n] = order[(*i)++];
		b->slot[b->n] = b->n_slots;
		b->n_slots += m->dests[b->dest[b->n++]].nlids;
	}
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void progress(struct vl *m, uint64_t done, uint64_t total, double *last)
{
	double t;

	if (!m->o->progress)
		return;
	t = now_s();
	if (t - *last < 0.25 && done < total)
		return;
	*last = t;
	m->o->progress(m->o->progress_ctx, "routing LIDs over virtual layers", done, total);
}

/*
 * The helper's share while a batch is placed: write the rows of the batch
 * placed before it (n_done trees), then build the next batch's trees in
 * the same slots. Neither touches what placing reads or writes.
 */
struct helper {
	struct batch *next;
	uint32_t n_done;
};

static void *help(void *ctx)
{
	struct helper *h = ctx;
	struct batch *b = h->next;

	write_rows(b->m, &b->m->tree[b->base], h->n_done);
	for (uint32_t k = 0; k < b->n; k++)
		build_one(b, k, 0);
	return NULL;
}

/*
 * Batches of destinations (order[0..n-1]), placed in order. The first
 * batch's trees are built in parallel; then a batch is placed while a
 * second thread writes the previous batch's rows and builds the next
 * batch's trees (in the previous one's slots). Building and writing read
 * only the graph and trees already placed: the tables are the same on one
 * thread (the helper's work done first, in turn) or two.
 */
static void route_all(struct vl *m, const uint32_t *order, uint32_t n)
{
	struct batch bt[2] = { { .m = m, .base = 0 }, { .m = m, .base = VL_SLOTS } };
	uint64_t done = 0, total = m->out->stats.dest_lids;
	double last = now_s();
	uint32_t i = 0, cur = 0;

	next_batch(m, &bt[0], order, n, &i);
	par_for(bt[0].n, par_workers(m->workers, bt[0].n), build_one, &bt[0]);
	while (bt[cur].n) {
		struct batch *b = &bt[cur];
		struct helper h = { .next = &bt[!cur], .n_done = bt[!cur].n_slots };
		bool threaded = false;
		pthread_t th;

		next_batch(m, h.next, order, n, &i);
		if (m->workers > 1)
			threaded = pthread_create(&th, NULL, help, &h) == 0;
		if (!threaded)
			help(&h);
		for (uint32_t k = b->base; k < b->base + b->n_slots; k++) {
			if (m->copy_of[m->tree[k].dest] != VL_INF)
				continue; /* write_rows() writes it with its host's */
			vl_tree_place(m, &m->tree[k]);
			commit(m, &m->tree[k]);
		}
		if (threaded)
			pthread_join(th, NULL);
		if (vl_short(m))
			return; /* refused (vlayered_route): no need to go on */
		done += b->n_slots;
		progress(m, done, total, &last);
		cur = !cur;
	}
	/* The last batch's rows (the other batch is empty). */
	write_rows(m, &m->tree[bt[!cur].base], bt[!cur].n_slots);
}

/* Layers used become SLs 0, 1, ... in layer order; SL i travels on VL i. */
static void number_layers(struct vl *m)
{
	struct route_out *out = m->out;
	uint8_t sl_of[VL_LAYERS_MAX] = { 0 }, n = 0;
	size_t cells = (size_t)out->n_sw * ((size_t)out->max_lid + 1);

	for (uint8_t l = 0; l < m->n_layers; l++)
		if (m->layer[l].used)
			sl_of[l] = n++;
	for (size_t i = 0; i < cells; i++)
		out->sl[i] = sl_of[out->sl[i]];
	out->n_vls = n ? n : 1;
	/* Unused SLs map to VL 0: nothing is routed on them. */
	memset(out->sl2vl, 0, sizeof(out->sl2vl));
	for (uint8_t i = 0; i < out->n_vls; i++)
		out->sl2vl[i] = i;
}

static int vl_run(struct vl *m, const struct route_dest *d, uint32_t n)
{
	_cleanup_free_ uint32_t *order = malloc(((size_t)n + 1) * sizeof(*order));
	uint32_t slots = VL_BATCH;
	int cnt, r;

	m->copy_of = malloc(((size_t)n + 1) * sizeof(*m->copy_of));
	m->own_of = malloc(((size_t)n + 1) * sizeof(*m->own_of));
	if (!order || !m->copy_of || !m->own_of)
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++)
		m->copy_of[i] = m->own_of[i] = VL_INF;
	for (uint32_t i = 0; i < n; i++) {
		if (d[i].nlids > slots)
			slots = d[i].nlids;
		if (d[i].sw != SUBNET_NONE && d[i].sw_port)
			m->host_lids += d[i].nlids;
		if (d[i].sw == SUBNET_NONE) { /* on no switch: nobody reaches it */
			m->out->stats.unreach += (uint64_t)m->n_sw * d[i].nlids;
			m->out->stats.unreach_lids += d[i].nlids;
		}
	}
	m->out->sl = calloc((size_t)m->n_sw * ((size_t)m->out->max_lid + 1) + 1, 1);
	if (!m->out->sl)
		return -ENOMEM;
	r = build_graph(m);
	if (r == 0)
		r = alloc_work(m, slots);
	if (r == 0)
		r = vl_order(m);
	if (r == 0)
		r = vl_cdg_init(m);
	if (r < 0)
		return r;
	cnt = take_turns(m, d, n, order);
	if (cnt < 0)
		return cnt;
	route_all(m, order, (uint32_t)cnt);
	if (vl_short(m))
		return -EINVAL; /* vlayered_route says why */
	number_layers(m);
	return 0;
}

static void say(const struct vl *m, struct route_why *why)
{
	const struct route_stats *st = &m->out->stats;
	char buf[sizeof(why->msg)];
	int k;

	if (st->unreach_lids)
		k = snprintf(buf, sizeof(buf), "%u of %u LIDs cannot be reached from every switch "
			     "(the fabric is in pieces); ", st->unreach_lids, st->dest_lids);
	else
		k = snprintf(buf, sizeof(buf), "routed %u LIDs on %u switches; ", st->dest_lids,
			     m->n_sw);
	if (k >= 0 && (size_t)k < sizeof(buf))
		snprintf(buf + k, sizeof(buf) - (size_t)k,
			 "%u of %u VLs used, %u LIDs on the up/down escape (%u root%s)",
			 m->out->n_vls, m->n_layers, m->out->stats.escape_lids, m->n_roots,
			 m->n_roots == 1 ? "" : "s");
	route_why_set(why, "%s", buf);
}

static int vlayered_route(const struct subnet *sn, const struct route_opts *o,
			  struct route_out *out, struct route_why *why)
{
	struct route_out res = { 0 };
	_cleanup_free_ struct route_dest *d = NULL;
	struct vl m = { .sn = sn, .o = o, .out = &res };
	uint32_t n = 0;
	int r;

	if (o->vls > VL_LAYERS_MAX) {
		route_why_set(why, "a budget of %u VLs: want 1-%u (0 for %u)", o->vls,
			      VL_LAYERS_MAX, VL_LAYERS_MAX);
		return -EINVAL;
	}
	r = route_out_init(sn, o, &res, &d, &n, why);
	if (r < 0)
		return r;
	m.n_sw = res.n_sw;
	m.dests = d;
	m.n_layers = o->vls ? o->vls : VL_LAYERS_MAX;
	m.esc = (uint8_t)(m.n_layers - 1);
	m.workers = par_workers(o->threads, VL_BATCH);
	r = vl_run(&m, d, n);
	if (r >= 0)
		say(&m, why);
	else if (vl_short(&m))
		route_why_set(why, "short of VLs: with 1 VL, over half the CA LIDs take its one-root "
			      "up/down escape (%u of %u when it stopped); updn does that better "
			      "(2 VLs or more avoid it)", res.stats.escape_host_lids, m.host_lids);
	vl_free(&m);
	return route_out_finish(&res, r, out, why);
}

const struct route_engine route_vlayered = {
	.name = "vlayered",
	.route = vlayered_route,
};
