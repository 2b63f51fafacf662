/* SPDX-License-Identifier: MIT */
/*
 * Min-hop routing: every switch sends every LID along a shortest path, and
 * among the ports that are one hop closer it takes the one carrying the
 * fewest routes so far (lowest port number on a tie), so equal-cost paths
 * share the load. The LIDs of one port (LMC > 0) prefer ports that no other
 * LID of that port uses yet, so multipath traffic really takes several paths.
 *
 * Cost: one BFS over the switch graph per destination switch (CAs on one
 * switch share its distances), then per destination LID one pass over the
 * candidate ports of every switch: O(switches x (switches + links)) for the
 * BFSes plus O(LIDs x candidates) for the choices. Deterministic: the same
 * model gives the same tables.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cleanup.h"
#include "route.h"

#define DIST_INF UINT32_MAX

struct mh {
	const struct subnet *sn;
	struct route_out *out;
	uint32_t n_sw;
	/* Switch-to-switch links as adjacency lists, edges of switch s at
	 * adj_off[s]..adj_off[s+1]-1 in port order, so a scan meets the lowest
	 * port first. One edge per cable end: parallel links are separate. */
	uint32_t *adj_off, *adj_nbr;
	uint8_t *adj_port;
	uint32_t *load;  /* [edge] routes assigned to this egress port */
	uint32_t *stamp; /* [edge] last destination (index + 1) that took it */
	uint32_t *dist;  /* [switch] hops to the destination switch */
	uint32_t *queue; /* [switch] BFS queue */
	/* Per destination switch: the edges of s that lead one hop closer. */
	uint32_t *cand_off, *cand;
	uint32_t n_unreach; /* switches that cannot reach the current one */
};

static void mh_free(struct mh *m)
{
	free(m->adj_off);
	free(m->adj_nbr);
	free(m->adj_port);
	free(m->load);
	free(m->stamp);
	free(m->dist);
	free(m->queue);
	free(m->cand_off);
	free(m->cand);
}

/* The switch at the far end of port num of switch node, or SUBNET_NONE. */
static uint32_t sw_peer(const struct mh *m, uint32_t node, unsigned num)
{
	const struct subnet *sn = m->sn;
	uint32_t peer = sn->port[subnet_port_idx(sn, node, num)].peer;
	uint32_t pnode;

	if (peer == SUBNET_NONE)
		return SUBNET_NONE;
	pnode = sn->port[peer].node;
	if (pnode == node) /* a cable from a switch to itself carries no route */
		return SUBNET_NONE;
	return m->out->sw_index[pnode];
}

static int build_adj(struct mh *m)
{
	const struct subnet *sn = m->sn;
	uint32_t e = 0;

	m->adj_off = calloc((size_t)m->n_sw + 1, sizeof(*m->adj_off));
	if (!m->adj_off)
		return -ENOMEM;
	for (uint32_t s = 0; s < m->n_sw; s++) {
		uint32_t node = m->out->sw_node[s];

		m->adj_off[s] = e;
		for (unsigned p = 1; p <= sn->node[node].nports; p++)
			e += sw_peer(m, node, p) != SUBNET_NONE;
	}
	m->adj_off[m->n_sw] = e;
	m->adj_nbr = malloc(((size_t)e + 1) * sizeof(*m->adj_nbr));
	m->adj_port = malloc((size_t)e + 1);
	m->load = calloc((size_t)e + 1, sizeof(*m->load));
	m->stamp = calloc((size_t)e + 1, sizeof(*m->stamp));
	m->cand = malloc(((size_t)e + 1) * sizeof(*m->cand));
	m->cand_off = malloc(((size_t)m->n_sw + 1) * sizeof(*m->cand_off));
	m->dist = malloc(((size_t)m->n_sw + 1) * sizeof(*m->dist));
	m->queue = malloc(((size_t)m->n_sw + 1) * sizeof(*m->queue));
	if (!m->adj_nbr || !m->adj_port || !m->load || !m->stamp || !m->cand || !m->cand_off ||
	    !m->dist || !m->queue)
		return -ENOMEM;
	e = 0;
	for (uint32_t s = 0; s < m->n_sw; s++) {
		uint32_t node = m->out->sw_node[s];

		for (unsigned p = 1; p <= sn->node[node].nports; p++) {
			uint32_t nbr = sw_peer(m, node, p);

			if (nbr == SUBNET_NONE)
				continue;
			m->adj_nbr[e] = nbr;
			m->adj_port[e++] = (uint8_t)p;
		}
	}
	return 0;
}

/* Hop distances from every switch to switch dst, and the ports that close them. */
static void bfs(struct mh *m, uint32_t dst)
{
	uint32_t head = 0, tail = 0, k = 0;

	for (uint32_t s = 0; s < m->n_sw; s++)
		m->dist[s] = DIST_INF;
	m->dist[dst] = 0;
	m->queue[tail++] = dst;
	while (head < tail) {
		uint32_t s = m->queue[head++];

		for (uint32_t e = m->adj_off[s]; e < m->adj_off[s + 1]; e++) {
			uint32_t n = m->adj_nbr[e];

			if (m->dist[n] != DIST_INF)
				continue;
			m->dist[n] = m->dist[s] + 1;
			m->queue[tail++] = n;
		}
	}
	m->n_unreach = m->n_sw - tail;
	for (uint32_t s = 0; s < m->n_sw; s++) {
		m->cand_off[s] = k;
		if (s == dst || m->dist[s] == DIST_INF)
			continue;
		for (uint32_t e = m->adj_off[s]; e < m->adj_off[s + 1]; e++)
			if (m->dist[m->adj_nbr[e]] + 1 == m->dist[s])
				m->cand[k++] = e;
	}
	m->cand_off[m->n_sw] = k;
}

/*
 * Switch s's egress for one LID of destination tag: among the candidates,
 * first one that no other LID of this destination took, then the least
 * loaded; candidates are in port order, so a tie goes to the lowest port.
 */
static uint8_t pick(struct mh *m, uint32_t s, uint32_t tag)
{
	uint32_t i = m->cand_off[s], end = m->cand_off[s + 1];
	uint32_t best = m->cand[i];
	uint64_t best_key = (uint64_t)(m->stamp[best] == tag) << 32 | m->load[best];

	for (i++; i < end; i++) {
		uint32_t e = m->cand[i];
		uint64_t key = (uint64_t)(m->stamp[e] == tag) << 32 | m->load[e];

		if (key < best_key) {
			best = e;
			best_key = key;
		}
	}
	m->load[best]++;
	m->stamp[best] = tag;
	return m->adj_port[best];
}

/*
 * Route every LID of the destinations order[from..to-1], which all hang off
 * switch dst (bfs() ran for it). A switch's choice touches only its own
 * ports' counters, so switches can go one at a time: the tables come out the
 * same as LID by LID, and each row is written in one stretch, not one byte
 * per row per LID.
 */
static void route_group(struct mh *m, const struct route_dest *d, const uint32_t *order,
			uint32_t from, uint32_t to, uint32_t dst)
{
	struct route_out *out = m->out;

	for (uint32_t s = 0; s < m->n_sw; s++) {
		uint8_t *row = route_lft(out, s);
		bool reach = m->cand_off[s] != m->cand_off[s + 1];

		if (s != dst && !reach)
			continue;
		for (uint32_t i = from; i < to; i++) {
			const struct route_dest *cur = &d[order[i]];

			for (uint32_t l = cur->lid; l < (uint32_t)cur->lid + cur->nlids; l++)
				row[l] = s == dst ? cur->sw_port : pick(m, s, order[i] + 1);
		}
	}
	for (uint32_t i = from; i < to; i++) {
		const struct route_dest *cur = &d[order[i]];

		out->stats.routes += (uint64_t)(m->n_sw - m->n_unreach) * cur->nlids;
		out->stats.unreach += (uint64_t)m->n_unreach * cur->nlids;
		if (m->n_unreach)
			out->stats.unreach_lids += cur->nlids;
	}
}

/*
 * Destinations grouped by their switch (LID order within a switch), so that
 * one BFS serves all of a switch's CAs; the groups in the order of their
 * lowest LID. The order decides how the port loads build up, so it must not
 * be the model's node order: that is discovery order, which a lossy or
 * differently rooted sweep changes, while LIDs are stable. order[] gets the
 * destination numbers.
 */
static int group_by_switch(const struct mh *m, const struct route_dest *d, uint32_t n,
			   uint32_t *order)
{
	_cleanup_free_ uint32_t *start = calloc((size_t)m->n_sw + 2, sizeof(*start));
	_cleanup_free_ uint32_t *first = malloc(((size_t)m->n_sw + 1) * sizeof(*first));
	_cleanup_free_ uint32_t *by_sw = malloc(((size_t)n + 1) * sizeof(*by_sw));
	uint32_t k = 0;

	if (!start || !first || !by_sw)
		return -ENOMEM;
	for (uint32_t s = 0; s < m->n_sw; s++)
		first[s] = UINT32_MAX;
	for (uint32_t i = 0; i < n; i++)
		if (d[i].sw != SUBNET_NONE) {
			start[d[i].sw + 2]++;
			if (first[d[i].sw] == UINT32_MAX)
				first[d[i].sw] = i; /* d[] is in LID order */
		}
	for (uint32_t s = 0; s < m->n_sw; s++)
		start[s + 2] += start[s + 1];
	for (uint32_t i = 0; i < n; i++)
		if (d[i].sw != SUBNET_NONE)
			by_sw[start[d[i].sw + 1]++] = i;
	/* Walking d[] in LID order meets each switch's group first at its lowest LID. */
	for (uint32_t i = 0; i < n; i++) {
		uint32_t s = d[i].sw;

		if (s == SUBNET_NONE || first[s] != i)
			continue;
		for (uint32_t j = start[s]; j < start[s + 1]; j++)
			order[k++] = by_sw[j];
	}
	return (int)k;
}

static int minhop_run(struct mh *m, const struct route_dest *d, uint32_t n)
{
	_cleanup_free_ uint32_t *order = malloc(((size_t)n + 1) * sizeof(*order));
	int cnt, r;

	if (!order)
		return -ENOMEM;
	r = build_adj(m);
	if (r < 0)
		return r;
	cnt = group_by_switch(m, d, n, order);
	if (cnt < 0)
		return cnt;
	for (uint32_t i = 0, j; i < (uint32_t)cnt; i = j) {
		uint32_t sw = d[order[i]].sw;

		for (j = i + 1; j < (uint32_t)cnt && d[order[j]].sw == sw; j++)
			;
		bfs(m, sw);
		route_group(m, d, order, i, j, sw);
	}
	/* Ports on no switch (unlinked, or CA to CA): no switch reaches them. */
	for (uint32_t i = 0; i < n; i++) {
		if (d[i].sw != SUBNET_NONE || !m->n_sw)
			continue;
		m->out->stats.unreach += (uint64_t)m->n_sw * d[i].nlids;
		m->out->stats.unreach_lids += d[i].nlids;
	}
	return 0;
}

static int minhop_route(const struct subnet *sn, const struct route_opts *o,
			struct route_out *out, struct route_why *why)
{
	struct route_out res = { 0 };
	_cleanup_free_ struct route_dest *d = NULL;
	struct mh m = { .sn = sn, .out = &res };
	uint32_t n = 0;
	int r;

	r = route_out_init(sn, o, &res, &d, &n, why);
	if (r < 0)
		return r;
	m.n_sw = res.n_sw;
	r = minhop_run(&m, d, n);
	mh_free(&m);
	if (r < 0) {
		route_why_set(why, "out of memory routing %u switches", res.n_sw);
		route_out_free(&res);
		return r;
	}
	if (res.stats.unreach_lids)
		route_why_set(why, "%u of %u LIDs cannot be reached from every switch "
			      "(%llu switch-LID pairs dropped): the fabric is in pieces",
			      res.stats.unreach_lids, res.stats.dest_lids,
			      (unsigned long long)res.stats.unreach);
	else
		route_why_set(why, "routed %u LIDs on %u switches", res.stats.dest_lids, res.n_sw);
	*out = res;
	return 0;
}

const struct route_engine route_minhop = {
	.name = "minhop",
	.route = minhop_route,
};
