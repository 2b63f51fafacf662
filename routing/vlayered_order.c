/* SPDX-License-Identifier: MIT */
/*
 * The escape: up/down routing over one root per connected piece. Ranks are
 * BFS hops from the root, switches are ordered by (rank, GUID), a channel
 * goes up towards the earlier switch. Every switch but the root has a BFS
 * parent one rank nearer, so every switch can climb to the root and the root
 * can descend to every switch: a legal (up* then down*) route exists between
 * any two switches of a piece, and the dependencies of all legal routes
 * together are acyclic. vlayered_cdg.c commits all of them to the escape
 * layer up front, so an up/down tree always fits there: that is why the
 * engine never fails, whatever the VL budget.
 *
 * The root is the highest switch (the most hops away from any switch with
 * hosts: a fat tree's spine), then the lowest GUID: on a tree the escape is
 * then the tree's own up/down; on a direct network (hosts everywhere) any
 * switch will do, so the lowest GUID. Nothing depends on node order.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cleanup.h"
#include "vlayered_priv.h"

static uint64_t guid_of(const struct vl *m, uint32_t s)
{
	return m->sn->node[m->out->sw_node[s]].guid;
}

/* BFS from the n_src switches in q[] into dist (VL_INF where unvisited). */
static uint32_t bfs(const struct vl *m, uint32_t *q, uint32_t n_src, uint32_t *dist)
{
	uint32_t head = 0, tail = n_src;

	while (head < tail) {
		uint32_t s = q[head++];

		for (uint32_t e = m->adj_off[s]; e < m->adj_off[s + 1]; e++) {
			uint32_t y = m->adj_nbr[e];

			if (dist[y] != VL_INF)
				continue;
			dist[y] = dist[s] + 1;
			q[tail++] = y;
		}
	}
	return tail;
}

/* Is a better root than b (higher, then lower GUID, then model order)? */
static bool better_root(const struct vl *m, const uint32_t *height, uint32_t a, uint32_t b)
{
	uint32_t ha = height[a] == VL_INF ? 0 : height[a];
	uint32_t hb = height[b] == VL_INF ? 0 : height[b];

	if (ha != hb)
		return ha > hb;
	if (guid_of(m, a) != guid_of(m, b))
		return guid_of(m, a) < guid_of(m, b);
	return a < b;
}

static int cmp_rank(const void *pa, const void *pb, void *ctx)
{
	const struct vl *m = ctx;
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;

	if (m->dn[a] != m->dn[b])
		return m->dn[a] < m->dn[b] ? -1 : 1;
	if (guid_of(m, a) != guid_of(m, b))
		return guid_of(m, a) < guid_of(m, b) ? -1 : 1;
	return a < b ? -1 : a > b;
}

/* One root per piece into q[]; returns how many. height and comp are scratch. */
static uint32_t find_roots(struct vl *m, uint32_t *q, uint32_t *height, uint32_t *comp)
{
	uint32_t n = 0, k = 0;

	memset(height, 0xff, (size_t)m->n_sw * sizeof(*height));
	for (uint32_t s = 0; s < m->n_sw; s++)
		if (m->hosts[s]) {
			height[s] = 0;
			q[n++] = s;
		}
	bfs(m, q, n, height);
	memset(comp, 0xff, (size_t)m->n_sw * sizeof(*comp));
	for (uint32_t s = 0; s < m->n_sw; s++) {
		uint32_t reached, best = s;

		if (comp[s] != VL_INF)
			continue;
		m->len[0] = s;
		comp[s] = 0;
		reached = bfs(m, m->len, 1, comp);
		for (uint32_t i = 0; i < reached; i++)
			if (better_root(m, height, m->len[i], best))
				best = m->len[i];
		q[k++] = best;
	}
	return k;
}

int vl_order(struct vl *m)
{
	_cleanup_free_ uint32_t *q = malloc(((size_t)m->n_sw + 1) * sizeof(*q));
	_cleanup_free_ uint32_t *height = malloc(((size_t)m->n_sw + 1) * sizeof(*height));
	_cleanup_free_ uint32_t *comp = malloc(((size_t)m->n_sw + 1) * sizeof(*comp));

	if (!q || !height || !comp)
		return -ENOMEM;
	m->n_roots = find_roots(m, q, height, comp);
	/* Ranks (kept in dn until the first escape tree needs it). */
	memset(m->dn, 0xff, (size_t)m->n_sw * sizeof(*m->dn));
	for (uint32_t i = 0; i < m->n_roots; i++)
		m->dn[q[i]] = 0;
	bfs(m, q, m->n_roots, m->dn);
	for (uint32_t s = 0; s < m->n_sw; s++)
		m->by_ord[s] = s;
	qsort_r(m->by_ord, m->n_sw, sizeof(*m->by_ord), cmp_rank, m);
	for (uint32_t p = 0; p < m->n_sw; p++)
		m->ord[m->by_ord[p]] = p;
	return 0;
}

/* Among x's edges that pass ok, the least loaded (then lowest port). */
static uint32_t least_loaded(const struct vl *m, uint32_t x, const uint32_t *val, bool down,
			     uint32_t want)
{
	uint32_t best = VL_INF;

	for (uint32_t e = m->adj_off[x]; e < m->adj_off[x + 1]; e++) {
		uint32_t y = m->adj_nbr[e];

		if (vl_down(m, e) != down || val[y] == VL_INF || val[y] + 1 != want)
			continue;
		if (best == VL_INF || m->load[e] < m->load[best])
			best = e;
	}
	return best;
}

/* Shortest all-down distance of every reached switch to t->dsw. */
static void down_dist(struct vl *m, const struct vl_tree *t)
{
	for (uint32_t p = m->n_sw; p-- > 0;) {
		uint32_t x = m->by_ord[p], best = x == t->dsw ? 0 : VL_INF;

		if (t->dist[x] == VL_INF)
			continue;
		for (uint32_t e = m->adj_off[x]; e < m->adj_off[x + 1] && x != t->dsw; e++) {
			uint32_t y = m->adj_nbr[e];

			if (vl_down(m, e) && m->dn[y] != VL_INF && m->dn[y] + 1 < best)
				best = m->dn[y] + 1;
		}
		m->dn[x] = best;
	}
}

/*
 * Switches that can reach the destination going down only do so; the others
 * climb to the up neighbour whose route is shortest. Both choices pick the
 * least loaded of equal links.
 */
void vl_escape_tree(struct vl *m, struct vl_tree *t)
{
	uint32_t maxl = 0, off = 0;

	for (uint32_t i = 0; i < t->n_reach; i++)
		m->dn[t->order[i]] = VL_INF;
	down_dist(m, t);
	for (uint32_t p = 0; p < m->n_sw; p++) {
		uint32_t x = m->by_ord[p], best = VL_INF;

		if (t->dist[x] == VL_INF)
			continue;
		t->nx[x] = VL_INF;
		m->len[x] = m->dn[x];
		if (x == t->dsw)
			continue;
		if (m->dn[x] != VL_INF) {
			t->nx[x] = least_loaded(m, x, m->dn, true, m->dn[x]);
			continue;
		}
		for (uint32_t e = m->adj_off[x]; e < m->adj_off[x + 1]; e++)
			if (!vl_down(m, e) && m->len[m->adj_nbr[e]] < best)
				best = m->len[m->adj_nbr[e]];
		/* best is finite: x's BFS parent is up and has a route. */
		t->nx[x] = least_loaded(m, x, m->len, false, best + 1);
		m->len[x] = best + 1;
	}
	/* order[] by hops, so parents come before children. */
	for (uint32_t i = 0; i < t->n_reach; i++)
		if (m->len[t->order[i]] > maxl)
			maxl = m->len[t->order[i]];
	memset(m->cnt, 0, ((size_t)maxl + 1) * sizeof(*m->cnt));
	for (uint32_t i = 0; i < t->n_reach; i++)
		m->cnt[m->len[t->order[i]]]++;
	for (uint32_t v = 0; v <= maxl; v++) {
		uint32_t k = m->cnt[v];

		m->cnt[v] = off;
		off += k;
	}
	for (uint32_t p = 0; p < m->n_sw; p++) {
		uint32_t x = m->by_ord[p];

		if (t->dist[x] != VL_INF)
			m->dn[m->cnt[m->len[x]]++] = x;
	}
	for (uint32_t i = 0; i < t->n_reach; i++) {
		t->order[i] = m->dn[i];
		t->dist[m->dn[i]] = m->len[m->dn[i]];
	}
}
