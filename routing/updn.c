/* SPDX-License-Identifier: MIT */
/*
 * Up/down routing: deadlock-free on one VL for any topology.
 *
 * Roots. Given (route_opts.roots, switch NodeGUIDs), or found per connected
 * piece of the fabric: a switch's height is its hop distance to the nearest
 * switch with a host (CA or router port) on it. If some switches have no
 * host, the roots are all the highest switches: the spines of a 2-level fat
 * tree, the cores of a 3-level one, however wide (OpenSM's rule, one hop
 * count for over 90% of the hosts, also takes the leaves of trees with 20 or
 * more leaves, whose own hosts are under 5%), and the switches one hop
 * lower with no higher neighbour (a core above an aggregation switch that
 * lost its leaves stands a hop above the others). If every switch has a
 * host (tori, dragonflies, random direct networks), there is no top: the one
 * root is the switch whose farthest host is nearest (then the least total
 * hops to all hosts, then the lowest GUID). Several roots must leave every
 * two host switches a common root above both, or some host pairs would have
 * no legal route. On a degraded tree they often do not; then a few switches
 * are lowered below a neighbour that bridges (updn_cover.c) until they do,
 * else single switches move in the up order (updn_reorder.c), and only if
 * that fails too the piece gets one root instead, its hosts' centre by the
 * same rule. Pieces without a given root get found ones.
 *
 * Up and down. Ranks are hop distances from the nearest root. Switches are
 * ordered by (rank, GUID, and for duplicate GUIDs model order), but for
 * the bridges and the switches lowered below them; a link goes
 * up towards the switch earlier in that order. The order is total, so the up
 * links form no cycle, and a route that never goes up after going down (up*
 * then down*) cannot take part in a credit loop.
 *
 * Routes. Per destination switch d two passes over that order give every
 * switch x its shortest all-down distance dn(x) and its shortest legal
 * distance lg(x). A switch has one LFT entry per LID whatever way traffic
 * arrived, so the choices must agree: traffic that came down into x must be
 * able to go on down. So x goes down (mode D) when an all-down path is a
 * shortest legal one, and it is forced to go down when a switch above sends
 * routes down into it. Switches are settled from the largest dn: a D switch
 * takes the next hops down that are themselves D (or, if there are none, the
 * ones that cost least to force). The others (mode U) then go up, in rank
 * order, to the up neighbours with the shortest route as actually chosen.
 * Among the equal next hops each LID takes the port with the fewest routes
 * so far, first one no other LID of the same port took (LMC), as min-hop
 * does. When the roots needed bridges a switch may forward many more hosts'
 * routes than its entries say, so pick() can count those instead, and the
 * fabric is routed both ways with variants of the repair (updn_best.c).
 * On a fat tree every legal route is a shortest one and no switch is ever
 * forced.
 *
 * Switch-to-switch. With several roots some switches have no legal route to
 * another switch (one spine to another: down, then up). The IBA wants every
 * switch to reach every switch's LID, so those entries follow a shortest path
 * regardless (like OpenSM's connect_roots); they are counted and said in why.
 * No legal route ever leads into such an entry, and roots found
 * automatically never leave a host switch without a legal route to a host,
 * so host-to-host traffic stays up/down: only traffic to a switch's own LID
 * or from a switch may take them (given roots that break this are said in
 * why as not deadlock-free).
 *
 * Determinism: the result depends on the links, GUIDs, port numbers and LIDs,
 * never on the order of nodes in the model: destinations go in LID order
 * (grouped by switch, as min-hop), ties go to the switch order above and to
 * the lowest port. Cost: per destination switch two passes over the links
 * and one counting sort, O(switches x (switches + links)); finding the root
 * of a direct network costs as much again (one BFS per switch).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cleanup.h"
#include "updn_priv.h"

void updn_free(struct ud *m)
{
	void *p[] = { m->adj_off, m->adj_nbr, m->adj_port, m->load, m->stamp, m->traffic, m->ncas,
		      m->comp, m->comp_off, m->comp_sw, m->is_root, m->sub, m->rank, m->ord,
		      m->by_ord, m->dn, m->lg, m->len, m->dist, m->tmp, m->queue, m->pick,
		      m->cnt, m->mode, m->forced, m->ncand, m->cand, m->ahead_tick,
		      m->ahead_val };

	for (size_t i = 0; i < ARRAY_SIZE(p); i++)
		free(p[i]);
}

/* Is port num of switch node linked to a host (a CA or router port)? */
static bool host_port(const struct subnet *sn, uint32_t node, unsigned num)
{
	uint32_t peer = sn->port[subnet_port_idx(sn, node, num)].peer;

	return peer != SUBNET_NONE && !subnet_is_switch(sn, sn->port[peer].node);
}

static int alloc_all(struct ud *m, uint32_t e)
{
	size_t n = (size_t)m->n_sw + 2;

	m->adj_nbr = malloc(((size_t)e + 1) * sizeof(uint32_t));
	m->adj_port = malloc((size_t)e + 1);
	m->load = calloc((size_t)e + 1, sizeof(uint64_t));
	m->traffic = calloc((size_t)e + 1, sizeof(uint64_t));
	m->stamp = calloc((size_t)e + 1, sizeof(uint32_t));
	m->cand = malloc(((size_t)e + 1) * sizeof(uint32_t));
	m->comp = malloc(n * sizeof(uint32_t));
	m->comp_off = calloc(n, sizeof(uint32_t));
	m->comp_sw = malloc(n * sizeof(uint32_t));
	m->is_root = calloc(n, 1);
	m->sub = calloc(n, 1);
	m->rank = malloc(n * sizeof(uint32_t));
	m->ord = malloc(n * sizeof(uint32_t));
	m->by_ord = malloc(n * sizeof(uint32_t));
	m->dn = malloc(n * sizeof(uint32_t));
	m->lg = malloc(n * sizeof(uint32_t));
	m->len = malloc(n * sizeof(uint32_t));
	m->dist = malloc(n * sizeof(uint32_t));
	m->tmp = malloc(n * sizeof(uint32_t));
	m->queue = malloc(n * sizeof(uint32_t));
	m->pick = malloc(n * sizeof(uint32_t));
	m->cnt = malloc(n * sizeof(uint32_t));
	m->mode = malloc(n);
	m->forced = malloc(n);
	m->ncand = malloc(n * sizeof(uint16_t));
	m->ahead_tick = calloc(n, sizeof(uint32_t));
	m->ahead_val = malloc(n * sizeof(uint64_t));
	if (!m->adj_nbr || !m->adj_port || !m->load || !m->traffic || !m->stamp || !m->cand || !m->comp ||
	    !m->comp_off || !m->comp_sw || !m->is_root || !m->sub || !m->rank || !m->ord || !m->by_ord ||
	    !m->dn || !m->lg || !m->len || !m->dist || !m->tmp || !m->queue || !m->pick ||
	    !m->cnt || !m->mode || !m->forced || !m->ncand || !m->ahead_tick || !m->ahead_val)
		return -ENOMEM;
	memset(m->dist, 0xff, n * sizeof(uint32_t));
	memset(m->tmp, 0xff, n * sizeof(uint32_t));
	return 0;
}

static int build_adj(struct ud *m)
{
	const struct subnet *sn = m->sn;
	uint32_t e = 0;
	int r;

	m->adj_off = calloc((size_t)m->n_sw + 1, sizeof(*m->adj_off));
	m->ncas = calloc((size_t)m->n_sw + 1, sizeof(*m->ncas));
	if (!m->adj_off || !m->ncas)
		return -ENOMEM;
	for (uint32_t s = 0; s < m->n_sw; s++) {
		uint32_t node = m->out->sw_node[s];

		m->adj_off[s] = e;
		for (unsigned p = 1; p <= sn->node[node].nports; p++)
			e += route_sw_peer(sn, m->out, node, p, NULL) != SUBNET_NONE;
	}
	m->adj_off[m->n_sw] = e;
	r = alloc_all(m, e);
	if (r < 0)
		return r;
	e = 0;
	for (uint32_t s = 0; s < m->n_sw; s++) {
		uint32_t node = m->out->sw_node[s];

		for (unsigned p = 1; p <= sn->node[node].nports; p++) {
			uint32_t nbr = route_sw_peer(sn, m->out, node, p, NULL);

			m->ncas[s] += host_port(sn, node, p);
			if (nbr == SUBNET_NONE)
				continue;
			m->adj_nbr[e] = nbr;
			m->adj_port[e++] = (uint8_t)p;
		}
	}
	return 0;
}

/* Is y, a neighbour of x, the next hop of an all-down path from x? */
static bool down_next(const struct ud *m, uint32_t x, uint32_t y)
{
	return m->ord[y] > m->ord[x] && m->dn[y] != INF && m->dn[y] + 1 == m->dn[x];
}

/* Shortest all-down (dn) and legal (lg) distances of every switch to d. */
static void dest_dist(struct ud *m, uint32_t d)
{
	for (uint32_t p = m->n_sw; p-- > 0;) {
		uint32_t x = m->by_ord[p], best = x == d ? 0 : INF;

		for (uint32_t e = m->adj_off[x]; e < m->adj_off[x + 1] && x != d; e++) {
			uint32_t y = m->adj_nbr[e];

			if (m->ord[y] > p && m->dn[y] != INF && m->dn[y] + 1 < best)
				best = m->dn[y] + 1;
		}
		m->dn[x] = best;
	}
	for (uint32_t p = 0; p < m->n_sw; p++) {
		uint32_t x = m->by_ord[p], best = m->dn[x];

		for (uint32_t e = m->adj_off[x]; e < m->adj_off[x + 1]; e++) {
			uint32_t y = m->adj_nbr[e];

			if (m->ord[y] < p && m->lg[y] != INF && m->lg[y] + 1 < best)
				best = m->lg[y] + 1;
		}
		m->lg[x] = best;
	}
}

/*
 * x goes down: its next hops are the down neighbours one step closer that go
 * down themselves (an all-down path is their shortest, or a switch above
 * forced them), else those that cost least to force, and they are forced.
 */
static void down_pick(struct ud *m, uint32_t x)
{
	uint32_t good = 0, pen = INF, *c = m->cand + m->adj_off[x];

	m->mode[x] = M_DOWN;
	for (uint32_t e = m->adj_off[x]; e < m->adj_off[x + 1]; e++) {
		uint32_t y = m->adj_nbr[e];

		if (!down_next(m, x, y))
			continue;
		if (m->forced[y] || m->dn[y] == m->lg[y])
			good++;
		else if (m->dn[y] - m->lg[y] < pen)
			pen = m->dn[y] - m->lg[y];
	}
	for (uint32_t e = m->adj_off[x]; e < m->adj_off[x + 1]; e++) {
		uint32_t y = m->adj_nbr[e];
		bool ok;

		if (!down_next(m, x, y))
			continue;
		ok = m->forced[y] || m->dn[y] == m->lg[y];
		if (good ? !ok : m->dn[y] - m->lg[y] != pen)
			continue;
		m->forced[y] = 1;
		c[m->ncand[x]++] = e;
	}
}

/* Settle the switches that go down, from the farthest (largest dn) in. */
static void dest_down(struct ud *m, uint32_t d)
{
	uint32_t maxd = 0, off = 0;

	for (uint32_t x = 0; x < m->n_sw; x++) {
		m->mode[x] = M_NONE;
		m->forced[x] = 0;
		m->ncand[x] = 0;
		if (m->dn[x] != INF && m->dn[x] > maxd)
			maxd = m->dn[x];
	}
	memset(m->cnt, 0, ((size_t)maxd + 1) * sizeof(*m->cnt));
	for (uint32_t x = 0; x < m->n_sw; x++)
		if (m->dn[x] != INF)
			m->cnt[m->dn[x]]++;
	for (uint32_t v = maxd + 1; v-- > 0;) {
		uint32_t k = m->cnt[v];

		m->cnt[v] = off;
		off += k;
	}
	/* Counting sort by dn, largest first; up order within one distance. */
	for (uint32_t p = 0; p < m->n_sw; p++) {
		uint32_t x = m->by_ord[p];

		if (m->dn[x] != INF)
			m->queue[m->cnt[m->dn[x]]++] = x;
	}
	for (uint32_t i = 0; i < off; i++) {
		uint32_t x = m->queue[i];

		if (x != d && (m->forced[x] || m->dn[x] == m->lg[x]))
			down_pick(m, x);
	}
}

/* The others go up, to the up neighbours whose chosen route is shortest. */
static void dest_up(struct ud *m, uint32_t d)
{
	for (uint32_t p = 0; p < m->n_sw; p++) {
		uint32_t x = m->by_ord[p], best = INF, *c = m->cand + m->adj_off[x];

		if (x == d || m->mode[x] == M_DOWN) {
			m->len[x] = m->dn[x];
			continue;
		}
		m->len[x] = INF;
		if (m->lg[x] == INF)
			continue;
		for (uint32_t e = m->adj_off[x]; e < m->adj_off[x + 1]; e++)
			if (m->ord[m->adj_nbr[e]] < p && m->len[m->adj_nbr[e]] < best)
				best = m->len[m->adj_nbr[e]];
		if (best == INF)
			continue;
		for (uint32_t e = m->adj_off[x]; e < m->adj_off[x + 1]; e++)
			if (m->ord[m->adj_nbr[e]] < p && m->len[m->adj_nbr[e]] == best)
				c[m->ncand[x]++] = e;
		m->mode[x] = M_UP;
		m->len[x] = best + 1;
	}
}

/* Switches of d's piece with no legal route: a shortest path, said in why. */
static void dest_detour(struct ud *m, uint32_t d)
{
	const uint32_t *mem = m->comp_sw + m->comp_off[m->comp[d]], *dist;
	uint32_t n = m->comp_off[m->comp[d] + 1] - m->comp_off[m->comp[d]], need = 0, reached;

	for (uint32_t i = 0; i < n; i++)
		need += mem[i] != d && !m->ncand[mem[i]];
	if (!need)
		return;
	dist = updn_hops_from(m, d, &reached);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t x = mem[i], *c = m->cand + m->adj_off[x];

		if (x == d || m->ncand[x])
			continue;
		m->mode[x] = M_DETOUR;
		for (uint32_t e = m->adj_off[x]; e < m->adj_off[x + 1]; e++)
			if (dist[m->adj_nbr[e]] + 1 == dist[x])
				c[m->ncand[x]++] = e;
	}
	updn_bfs_reset(m, reached, m->tmp);
}

/*
 * The busiest link a route over edge e must cross within depth more hops,
 * when each next hop takes its least busy way on: the look ahead that
 * follows the max-load objective rather than the sum of loads.
 */
static uint64_t bottleneck(const struct ud *m, uint32_t e, unsigned depth)
{
	uint32_t y = m->adj_nbr[e];
	const uint32_t *c = m->cand + m->adj_off[y];
	uint64_t least = UINT64_MAX;

	if (!depth || m->mode[y] == M_NONE || !m->ncand[y])
		return m->load[e];
	for (uint32_t i = 0; i < m->ncand[y]; i++) {
		uint64_t b = bottleneck(m, c[i], depth - 1);

		least = b < least ? b : least;
	}
	return least > m->load[e] ? least : m->load[e];
}

/*
 * With look, what lies beyond switch y for a route into it: look 1, the
 * least load on y's own candidates for this destination; look 2, each of
 * those plus the least on its next hop's (0 where a switch has none yet,
 * or at the destination); look 3 and 4, the least bottleneck() zero and
 * one hop on. UINT64_MAX: nothing (ahead() then adds nothing).
 */
static uint64_t beyond(const struct ud *m, uint32_t y)
{
	const uint32_t *c = m->cand + m->adj_off[y];
	uint64_t least = UINT64_MAX;

	if (m->mode[y] == M_NONE || (m->look >= 3 && !m->ncand[y]))
		return UINT64_MAX;
	for (uint32_t i = 0; i < m->ncand[y]; i++) {
		uint64_t l = m->look >= 3 ? bottleneck(m, c[i], m->look - 3u) : m->load[c[i]];
		uint32_t z = m->adj_nbr[c[i]];
		const uint32_t *cz = m->cand + m->adj_off[z];
		uint64_t lz = UINT64_MAX;

		if (m->look == 2 && m->mode[z] != M_NONE)
			for (uint32_t j = 0; j < m->ncand[z]; j++)
				lz = m->load[cz[j]] < lz ? m->load[cz[j]] : lz;
		l += lz == UINT64_MAX ? 0 : lz;
		least = l < least ? l : least;
	}
	return least;
}

/*
 * With look, what edge e leads into beyond its next hop y (beyond()). An
 * aggregation switch choosing among its cores then sees which core's way
 * down into the destination's pod is already crowded, which its own
 * uplinks' loads do not show. The value is kept for the rest of the LID
 * (tick), until y picks (pick() drops it): for a switch with a legal
 * route (legal) the links beyond y belong to switches closer to the
 * destination, which pick after every switch that looks at them
 * (by_distance()), and detours, which pick first, are never among them.
 * A detour may look at other detours, which pick in any order; so it keeps
 * the value only where it is y's own links alone (look 1 and 3).
 */
static inline __attribute__((always_inline)) uint64_t ahead(struct ud *m, uint32_t e, bool legal)
{
	uint32_t y = m->adj_nbr[e];
	uint64_t b;

	if (!m->look)
		return 0;
	if (legal && m->ahead_tick[y] == m->tick) {
		b = m->ahead_val[y];
	} else {
		b = beyond(m, y);
		if (legal) {
			m->ahead_tick[y] = m->tick;
			m->ahead_val[y] = b;
		}
	}
	if (b == UINT64_MAX)
		return 0;
	if (m->look < 3)
		return b;
	return b > m->load[e] ? b - m->load[e] : 0;
}

/*
 * Switch s's egress edge for one LID of destination tag that flow hosts'
 * routes pass through: among the candidates, first one that no other LID
 * of this destination took, then the one fewest host routes cross, then
 * the fewest entries; candidates are in port order, so a tie goes to the
 * lowest port. Counting the routes a switch forwards rather than its
 * entries is what balances a degraded tree, where a switch next to a
 * missing link forwards far more hosts' traffic than one at the edge.
 */
static inline __attribute__((always_inline)) uint32_t pick(struct ud *m, uint32_t s, uint32_t tag,
							   uint32_t flow)
{
	const uint32_t *c = m->cand + m->adj_off[s];
	uint32_t best = c[0];
	bool legal = m->flows && (m->mode[s] != M_DETOUR || m->look == 1 || m->look == 3);
	uint64_t best_key = (uint64_t)(m->stamp[best] == tag) << 63 |
			    (m->load[best] + ahead(m, best, legal));

	for (uint32_t i = 1; i < m->ncand[s]; i++) {
		uint64_t key = (uint64_t)(m->stamp[c[i]] == tag) << 63 |
			       (m->load[c[i]] + ahead(m, c[i], legal));

		if (key < best_key) {
			best = c[i];
			best_key = key;
		}
	}
	/* Entries stay below 2^16 (one per LID), host routes below 2^32. */
	m->load[best] += (m->by_flow ? (uint64_t)flow << 16 : 0) + 1;
	m->stamp[best] = tag;
	m->ahead_tick[s] = 0; /* what lies beyond s changed */
	return best;
}

/*
 * The switches with a route to dst into queue[], so that every switch comes
 * before its next hops: the detours first (no legal route leads into them),
 * then farthest first by route length, in up order within one length.
 */
static uint32_t by_distance(struct ud *m, uint32_t dst)
{
	uint32_t maxl = 0, n = 0, off = 0;

	for (uint32_t s = 0; s < m->n_sw; s++)
		if (s != dst && m->ncand[s] && m->mode[s] != M_DETOUR && m->len[s] > maxl)
			maxl = m->len[s];
	memset(m->pick, 0, ((size_t)maxl + 1) * sizeof(*m->pick));
	for (uint32_t p = 0; p < m->n_sw; p++) {
		uint32_t s = m->by_ord[p];

		if (s == dst || !m->ncand[s])
			continue;
		if (m->mode[s] == M_DETOUR)
			m->queue[n++] = s;
		else
			m->pick[m->len[s]]++;
	}
	off = n;
	for (uint32_t v = maxl + 1; v-- > 0;) {
		uint32_t k = m->pick[v];

		m->pick[v] = off;
		off += k;
	}
	for (uint32_t p = 0; p < m->n_sw; p++) {
		uint32_t s = m->by_ord[p];

		if (s != dst && m->ncand[s] && m->mode[s] != M_DETOUR)
			m->queue[m->pick[m->len[s]]++] = s;
	}
	return off;
}

/* The LIDs switch by switch, a row at a time: the fast way, without flows. */
static void lids_by_switch(struct ud *m, const struct route_dest *d, const uint32_t *order,
			   uint32_t from, uint32_t to, uint32_t nr)
{
	for (uint32_t j = 0; j < nr; j++) {
		uint32_t s = m->queue[j];
		uint8_t *row = route_lft(m->out, s);

		for (uint32_t i = from; i < to; i++) {
			const struct route_dest *cur = &d[order[i]];

			for (uint32_t l = cur->lid; l < (uint32_t)cur->lid + cur->nlids; l++)
				row[l] = m->adj_port[pick(m, s, order[i] + 1, 0)];
		}
	}
}

/*
 * The LIDs one at a time, the switches farthest first, so that each knows
 * how many hosts' routes reach it (cnt[]) when it picks its port, and the
 * all-to-all routes per link (traffic[]) add up.
 */
static void lids_with_flows(struct ud *m, const struct route_dest *d, const uint32_t *order,
			    uint32_t from, uint32_t to, uint32_t nr)
{
	for (uint32_t i = from; i < to; i++) {
		const struct route_dest *cur = &d[order[i]];

		for (uint32_t l = cur->lid; l < (uint32_t)cur->lid + cur->nlids; l++) {
			m->tick++; /* ahead()'s values are for this LID */
			for (uint32_t j = 0; j < nr; j++)
				m->cnt[m->queue[j]] = m->ncas[m->queue[j]];
			for (uint32_t j = 0; j < nr; j++) {
				uint32_t s = m->queue[j], f = cur->sw_port ? m->cnt[s] : 0;
				uint32_t e = pick(m, s, order[i] + 1, f);

				route_lft(m->out, s)[l] = m->adj_port[e];
				m->traffic[e] += f;
				if (m->mode[s] != M_DETOUR)
					m->cnt[m->adj_nbr[e]] += m->cnt[s];
			}
		}
	}
}

/*
 * Every LID of destinations order[from..to-1], all on switch dst. Flows are
 * counted only where they are used, on fabrics whose roots needed bridges:
 * a column at a time costs twice the time on a k=36 fat tree.
 */
static void route_group(struct ud *m, const struct route_dest *d, const uint32_t *order,
			uint32_t from, uint32_t to, uint32_t dst)
{
	struct route_stats *st = &m->out->stats;
	uint32_t nr = by_distance(m, dst), reach = nr + 1, det = 0, hdet = 0;
	uint8_t *row = route_lft(m->out, dst);

	for (uint32_t j = 0; j < nr; j++) {
		det += m->mode[m->queue[j]] == M_DETOUR;
		hdet += m->mode[m->queue[j]] == M_DETOUR && m->ncas[m->queue[j]];
	}
	if (m->flows)
		lids_with_flows(m, d, order, from, to, nr);
	else
		lids_by_switch(m, d, order, from, to, nr);
	for (uint32_t i = from; i < to; i++) {
		const struct route_dest *cur = &d[order[i]];

		for (uint32_t l = cur->lid; l < (uint32_t)cur->lid + cur->nlids; l++)
			row[l] = cur->sw_port;
		st->routes += (uint64_t)reach * cur->nlids;
		st->unreach += (uint64_t)(m->n_sw - reach) * cur->nlids;
		if (reach < m->n_sw)
			st->unreach_lids += cur->nlids;
		m->detours += (uint64_t)det * cur->nlids;
		if (cur->sw_port)
			m->host_detours += (uint64_t)hdet * cur->nlids;
	}
}

int updn_run(struct ud *m, const struct route_dest *d, uint32_t n, struct route_why *why)
{
	_cleanup_free_ uint32_t *order = malloc(((size_t)n + 1) * sizeof(*order));
	int cnt, r;

	if (!order)
		return -ENOMEM;
	r = build_adj(m);
	if (r < 0)
		return r;
	r = m->base ? updn_tune_take(m) : updn_roots(m, why);
	if (r < 0)
		return r;
	m->flows = m->by_flow || m->variant || m->fell_back || m->note_reordered || m->base;
	for (uint32_t s = 0; s < m->n_sw; s++)
		m->flows |= m->sub[s] != S_NORMAL;
	cnt = route_group_by_switch(m->n_sw, d, n, order);
	if (cnt < 0)
		return cnt;
	for (uint32_t i = 0, j; i < (uint32_t)cnt; i = j) {
		uint32_t sw = d[order[i]].sw;

		for (j = i + 1; j < (uint32_t)cnt && d[order[j]].sw == sw; j++)
			;
		dest_dist(m, sw);
		dest_down(m, sw);
		dest_up(m, sw);
		dest_detour(m, sw);
		route_group(m, d, order, i, j, sw);
		route_tick(m->o, "updn: destinations routed", j, (uint64_t)cnt);
	}
	route_count_unattached(m->out, d, n);
	return 0;
}
