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
 *
 * Threads: a switch's choice reads and bumps only its own ports' counters,
 * so switches are independent of each other as long as each sees the
 * destinations in the same order. The destination switches go in batches:
 * their BFSes in parallel (one scratch slot each), then the switches in
 * parallel, each taking the batch's destinations in order. The tables are
 * the same for any number of threads.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cleanup.h"
#include "lib/par.h"
#include "route.h"

#define DIST_INF UINT32_MAX
/* Destination switches per batch, at most: 4 per worker keep them busy,
 * and a slot is O(switches + links) of memory. */
#define MH_BATCH 64

/* One destination switch's BFS: distances and, per switch, the edges
 * that lead one hop closer. */
struct mh_slot {
	uint32_t dst;        /* the destination switch */
	uint32_t from, to;   /* its destinations: order[from..to-1] */
	uint32_t *dist;      /* [switch] hops to dst */
	uint32_t *queue;     /* [switch] BFS queue */
	uint32_t *cand_off, *cand;
	uint32_t n_unreach;  /* switches that cannot reach dst */
};

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
	struct mh_slot slot[MH_BATCH];
	uint32_t n_slots; /* slots of the current batch */
	uint32_t batch;   /* slots allocated: the batch size (no effect on the tables) */
	const struct route_dest *d;
	const uint32_t *order;
	unsigned workers;
};

static void mh_free(struct mh *m)
{
	free(m->adj_off);
	free(m->adj_nbr);
	free(m->adj_port);
	free(m->load);
	free(m->stamp);
	for (unsigned i = 0; i < MH_BATCH; i++) {
		free(m->slot[i].dist);
		free(m->slot[i].queue);
		free(m->slot[i].cand_off);
		free(m->slot[i].cand);
	}
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
			e += route_sw_peer(sn, m->out, node, p, NULL) != SUBNET_NONE;
	}
	m->adj_off[m->n_sw] = e;
	m->adj_nbr = malloc(((size_t)e + 1) * sizeof(*m->adj_nbr));
	m->adj_port = malloc((size_t)e + 1);
	m->load = calloc((size_t)e + 1, sizeof(*m->load));
	m->stamp = calloc((size_t)e + 1, sizeof(*m->stamp));
	if (!m->adj_nbr || !m->adj_port || !m->load || !m->stamp)
		return -ENOMEM;
	for (unsigned i = 0; i < m->batch; i++) {
		struct mh_slot *sl = &m->slot[i];

		sl->cand = malloc(((size_t)e + 1) * sizeof(*sl->cand));
		sl->cand_off = malloc(((size_t)m->n_sw + 1) * sizeof(*sl->cand_off));
		sl->dist = malloc(((size_t)m->n_sw + 1) * sizeof(*sl->dist));
		sl->queue = malloc(((size_t)m->n_sw + 1) * sizeof(*sl->queue));
		if (!sl->cand || !sl->cand_off || !sl->dist || !sl->queue)
			return -ENOMEM;
	}
	e = 0;
	for (uint32_t s = 0; s < m->n_sw; s++) {
		uint32_t node = m->out->sw_node[s];

		for (unsigned p = 1; p <= sn->node[node].nports; p++) {
			uint32_t nbr = route_sw_peer(sn, m->out, node, p, NULL);

			if (nbr == SUBNET_NONE)
				continue;
			m->adj_nbr[e] = nbr;
			m->adj_port[e++] = (uint8_t)p;
		}
	}
	return 0;
}

/* Hop distances from every switch to the slot's switch, and the ports that close them. */
static void bfs(const struct mh *m, struct mh_slot *sl)
{
	uint32_t head = 0, tail = 0, k = 0, dst = sl->dst;
	uint32_t *dist = sl->dist, *queue = sl->queue;

	for (uint32_t s = 0; s < m->n_sw; s++)
		dist[s] = DIST_INF;
	dist[dst] = 0;
	queue[tail++] = dst;
	while (head < tail) {
		uint32_t s = queue[head++];

		for (uint32_t e = m->adj_off[s]; e < m->adj_off[s + 1]; e++) {
			uint32_t n = m->adj_nbr[e];

			if (dist[n] != DIST_INF)
				continue;
			dist[n] = dist[s] + 1;
			queue[tail++] = n;
		}
	}
	sl->n_unreach = m->n_sw - tail;
	for (uint32_t s = 0; s < m->n_sw; s++) {
		sl->cand_off[s] = k;
		if (s == dst || dist[s] == DIST_INF)
			continue;
		for (uint32_t e = m->adj_off[s]; e < m->adj_off[s + 1]; e++)
			if (dist[m->adj_nbr[e]] + 1 == dist[s])
				sl->cand[k++] = e;
	}
	sl->cand_off[m->n_sw] = k;
}

/*
 * Switch s's egress for one LID of destination tag: among the candidates,
 * first one that no other LID of this destination took, then the least
 * loaded; candidates are in port order, so a tie goes to the lowest port.
 */
static uint8_t pick(struct mh *m, const struct mh_slot *sl, uint32_t s, uint32_t tag)
{
	uint32_t i = sl->cand_off[s], end = sl->cand_off[s + 1];
	uint32_t best = sl->cand[i];
	uint64_t best_key = (uint64_t)(m->stamp[best] == tag) << 32 | m->load[best];

	for (i++; i < end; i++) {
		uint32_t e = sl->cand[i];
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
 * Switch s's entries for every destination of the batch, slot by slot in
 * order: what s picks depends only on its own ports' counters and on the
 * order it sees the destinations in, so the switches can run in parallel.
 * Each row is written in one stretch, not one byte per row per LID.
 */
static void route_switch(void *ctx, uint64_t si, unsigned worker)
{
	struct mh *m = ctx;
	uint32_t s = (uint32_t)si;
	uint8_t *row = route_lft(m->out, s);

	(void)worker;
	for (uint32_t k = 0; k < m->n_slots; k++) {
		const struct mh_slot *sl = &m->slot[k];

		if (s != sl->dst && sl->cand_off[s] == sl->cand_off[s + 1])
			continue; /* s cannot reach this switch */
		for (uint32_t i = sl->from; i < sl->to; i++) {
			const struct route_dest *cur = &m->d[m->order[i]];

			for (uint32_t l = cur->lid; l < (uint32_t)cur->lid + cur->nlids; l++)
				row[l] = s == sl->dst ? cur->sw_port : pick(m, sl, s, m->order[i] + 1);
		}
	}
}

static void bfs_slot(void *ctx, uint64_t k, unsigned worker)
{
	struct mh *m = ctx;

	(void)worker;
	bfs(m, &m->slot[k]);
}

/* The batch's counts in the statistics. */
static void batch_stats(struct mh *m)
{
	struct route_stats *st = &m->out->stats;

	for (uint32_t k = 0; k < m->n_slots; k++) {
		const struct mh_slot *sl = &m->slot[k];

		for (uint32_t i = sl->from; i < sl->to; i++) {
			uint32_t nl = m->d[m->order[i]].nlids;

			st->routes += (uint64_t)(m->n_sw - sl->n_unreach) * nl;
			st->unreach += (uint64_t)sl->n_unreach * nl;
			if (sl->n_unreach)
				st->unreach_lids += nl;
		}
	}
}

static int minhop_run(struct mh *m, const struct route_opts *o, const struct route_dest *d,
		      uint32_t n)
{
	_cleanup_free_ uint32_t *order = malloc(((size_t)n + 1) * sizeof(*order));
	int cnt, r;

	if (!order)
		return -ENOMEM;
	m->workers = par_workers(o->threads, m->n_sw);
	m->batch = m->workers * 4 < MH_BATCH ? m->workers * 4 : MH_BATCH;
	r = build_adj(m);
	if (r < 0)
		return r;
	cnt = route_group_by_switch(m->n_sw, d, n, order);
	if (cnt < 0)
		return cnt;
	m->d = d;
	m->order = order;
	for (uint32_t i = 0, j; i < (uint32_t)cnt;) {
		for (m->n_slots = 0; m->n_slots < m->batch && i < (uint32_t)cnt; i = j) {
			uint32_t sw = d[order[i]].sw;
			struct mh_slot *sl = &m->slot[m->n_slots++];

			for (j = i + 1; j < (uint32_t)cnt && d[order[j]].sw == sw; j++)
				;
			sl->dst = sw;
			sl->from = i;
			sl->to = j;
		}
		par_for(m->n_slots, m->workers, bfs_slot, m);
		par_for(m->n_sw, m->workers, route_switch, m);
		batch_stats(m);
		route_tick(o, "minhop: destinations routed", i, (uint64_t)cnt);
	}
	route_count_unattached(m->out, d, n);
	return 0;
}

static void say(const struct route_out *res, struct route_why *why)
{
	if (res->stats.unreach_lids)
		route_why_set(why, "%u of %u LIDs cannot be reached from every switch "
			      "(%llu switch-LID pairs dropped): the fabric is in pieces",
			      res->stats.unreach_lids, res->stats.dest_lids,
			      (unsigned long long)res->stats.unreach);
	else
		route_why_set(why, "routed %u LIDs on %u switches", res->stats.dest_lids,
			      res->n_sw);
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
	r = minhop_run(&m, o, d, n);
	mh_free(&m);
	if (r >= 0)
		say(&res, why);
	return route_out_finish(&res, r, out, why);
}

const struct route_engine route_minhop = {
	.name = "minhop",
	.route = minhop_route,
};
