/* SPDX-License-Identifier: MIT */
/*
 * Up/down roots, ranks and the up order (see updn.c for the rules): roots
 * given or found per connected piece, the coverage check that makes several
 * found roots fall back to one, BFS ranks, and the order (rank, GUID, model
 * order) whose earlier end of every link is its upper end.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cleanup.h"
#include "updn_priv.h"

uint32_t updn_bfs(struct ud *m, uint32_t n_src, uint32_t *dist)
{
	uint32_t head = 0, tail = n_src;

	for (uint32_t i = 0; i < n_src; i++)
		dist[m->queue[i]] = 0;
	while (head < tail) {
		uint32_t s = m->queue[head++];

		for (uint32_t e = m->adj_off[s]; e < m->adj_off[s + 1]; e++) {
			uint32_t y = m->adj_nbr[e];

			if (dist[y] != INF)
				continue;
			dist[y] = dist[s] + 1;
			m->queue[tail++] = y;
		}
	}
	return tail;
}

void updn_bfs_reset(struct ud *m, uint32_t reached, uint32_t *dist)
{
	for (uint32_t i = 0; i < reached; i++)
		dist[m->queue[i]] = INF;
}

/*
 * Hop distances from switch d to every switch, for the detours: a row of
 * m->hops (filled by the first routing of the fabric that needs it; they
 * do not depend on the up order), else a BFS into m->tmp, which
 * updn_bfs_reset() sets back to INF (*reached of them).
 */
#define UPDN_HOPS_BYTES (64ull << 20)

const uint32_t *updn_hops_from(struct ud *m, uint32_t d, uint32_t *reached)
{
	struct ud_hops *h = m->hops;
	uint32_t *row;

	*reached = 0;
	if (h && !h->dist && (uint64_t)m->n_sw * m->n_sw * 4 <= UPDN_HOPS_BYTES) {
		h->have = calloc((size_t)m->n_sw + 1, 1);
		h->dist = malloc((size_t)m->n_sw * m->n_sw * sizeof(*h->dist) + 1);
		if (!h->have || !h->dist) {
			free(h->have);
			free(h->dist);
			h->have = NULL;
			h->dist = NULL;
		}
	}
	m->queue[0] = d;
	if (!h || !h->dist) {
		*reached = updn_bfs(m, 1, m->tmp);
		return m->tmp;
	}
	row = h->dist + (size_t)d * m->n_sw;
	if (!h->have[d]) {
		uint32_t n = updn_bfs(m, 1, m->tmp);

		memcpy(row, m->tmp, m->n_sw * sizeof(*row));
		updn_bfs_reset(m, n, m->tmp);
		h->have[d] = 1;
	}
	return row;
}

void updn_hops_free(struct ud_hops *h)
{
	free(h->have);
	free(h->dist);
	memset(h, 0, sizeof(*h));
}

/* Connected pieces; comp_sw lists each piece's switches, comp_off[c] where. */
static void components(struct ud *m)
{
	uint32_t k = 0;

	for (uint32_t s = 0; s < m->n_sw; s++)
		m->comp[s] = INF;
	for (uint32_t s = 0; s < m->n_sw; s++) {
		uint32_t n;

		if (m->comp[s] != INF)
			continue;
		m->queue[0] = s;
		n = updn_bfs(m, 1, m->dist);
		m->comp_off[m->n_comp] = k;
		for (uint32_t i = 0; i < n; i++) {
			m->comp[m->queue[i]] = m->n_comp;
			m->comp_sw[k++] = m->queue[i];
		}
		updn_bfs_reset(m, n, m->dist);
		m->n_comp++;
	}
	m->comp_off[m->n_comp] = k;
}

/* Does switch a come before b when GUIDs decide (model order for duplicates)? */
static bool guid_before(const struct ud *m, uint32_t a, uint32_t b)
{
	uint64_t ga = ud_guid(m, a), gb = ud_guid(m, b);

	return ga != gb ? ga < gb : a < b;
}

/*
 * Of the n switches in pick[], the one whose farthest host is nearest, then
 * with the fewest hops to all hosts, then the lowest GUID.
 */
static uint32_t centre(struct ud *m, uint32_t n)
{
	uint32_t best = INF, best_ecc = INF;
	uint64_t best_sum = UINT64_MAX;

	for (uint32_t i = 0; i < n; i++) {
		uint32_t c = m->pick[i], ecc = 0, reached;
		uint64_t sum = 0;

		m->queue[0] = c;
		reached = updn_bfs(m, 1, m->dist);
		for (uint32_t j = 0; j < reached; j++) {
			uint32_t t = m->queue[j];

			if (!m->ncas[t])
				continue;
			ecc = m->dist[t] > ecc ? m->dist[t] : ecc;
			sum += (uint64_t)m->ncas[t] * m->dist[t];
		}
		updn_bfs_reset(m, reached, m->dist);
		if (best == INF || ecc < best_ecc || (ecc == best_ecc && sum < best_sum) ||
		    (ecc == best_ecc && sum == best_sum && guid_before(m, c, best))) {
			best = c;
			best_ecc = ecc;
			best_sum = sum;
		}
	}
	return best;
}

/* Note how piece c got its roots, for why: the largest piece's story is told. */
static void note(struct ud *m, uint32_t c, uint32_t rule, uint32_t h, uint32_t sw)
{
	uint32_t size = m->comp_off[c + 1] - m->comp_off[c];

	if (size <= m->note_sw && c != m->note_comp)
		return;
	m->note_sw = size;
	m->note_comp = c;
	m->note_rule = rule;
	m->note_h = h;
	m->note_node = sw == INF ? INF : m->out->sw_node[sw];
}

/*
 * Is s, of height at least h, a top (no neighbour higher)? On a degraded
 * tree a core can stand one hop above the others only because the
 * aggregation switch below it lost its leaves; it must not be the only
 * root while the other cores sit one hop lower.
 */
static bool top(const struct ud *m, uint32_t s, uint32_t h)
{
	if (m->dist[s] < h)
		return false;
	for (uint32_t e = m->adj_off[s]; e < m->adj_off[s + 1]; e++)
		if (m->dist[m->adj_nbr[e]] > m->dist[s])
			return false;
	return true;
}

/*
 * Find roots for piece c: the highest switches (and the tops one hop lower),
 * or the hosts' centre. How many.
 */
static uint32_t roots_auto(struct ud *m, uint32_t c)
{
	const uint32_t *mem = m->comp_sw + m->comp_off[c];
	uint32_t n = m->comp_off[c + 1] - m->comp_off[c], nsrc = 0, hmax = 0, k = 0, lower = 0;
	uint32_t reached;

	for (uint32_t i = 0; i < n; i++)
		if (m->ncas[mem[i]])
			m->queue[nsrc++] = mem[i];
	if (!nsrc) {
		uint32_t r = mem[0];

		for (uint32_t i = 1; i < n; i++)
			r = guid_before(m, mem[i], r) ? mem[i] : r;
		m->is_root[r] = 1;
		note(m, c, R_NOHOST, 0, r);
		return 1;
	}
	reached = updn_bfs(m, nsrc, m->dist);
	for (uint32_t i = 0; i < n; i++)
		hmax = m->dist[mem[i]] > hmax ? m->dist[mem[i]] : hmax;
	for (uint32_t i = 0; i < n; i++)
		if (m->dist[mem[i]] == hmax || (hmax > 1 && top(m, mem[i], hmax - 1))) {
			m->pick[k++] = mem[i];
			lower += m->dist[mem[i]] < hmax;
		}
	updn_bfs_reset(m, reached, m->dist);
	if (hmax) {
		for (uint32_t i = 0; i < k; i++)
			m->is_root[m->pick[i]] = 1;
		note(m, c, R_TOP, hmax, INF);
		if (c == m->note_comp)
			m->note_lower = lower;
		return k;
	}
	k = centre(m, k);
	m->is_root[k] = 1;
	note(m, c, R_CENTRE, 0, k);
	return 1;
}

static int key_cmp(const void *pa, const void *pb)
{
	const uint64_t *a = pa, *b = pb; /* rank, GUID, switch number */

	for (int i = 0; i < 3; i++)
		if (a[i] != b[i])
			return a[i] < b[i] ? -1 : 1;
	return 0;
}

/*
 * Ranks from the roots, and the up order: (rank and place within it, GUID,
 * model order). Within rank r come first the switches as ranked, then the
 * bridges of rank r + 1, then the switches of rank r lowered below them.
 */
int updn_order(struct ud *m)
{
	_cleanup_free_ uint64_t *key = malloc(((size_t)m->n_sw + 1) * 3 * sizeof(*key));
	uint32_t n = 0;

	if (!key)
		return -ENOMEM;
	for (uint32_t s = 0; s < m->n_sw; s++) {
		m->rank[s] = INF;
		if (m->is_root[s])
			m->queue[n++] = s;
	}
	updn_bfs(m, n, m->rank);
	for (uint32_t s = 0; s < m->n_sw; s++) {
		key[3 * s] = 4ull * m->rank[s] + (m->sub[s] == S_LOWERED ? 2 : 0);
		if (m->sub[s] == S_BRIDGE)
			key[3 * s] -= 3;
		key[3 * s + 1] = ud_guid(m, s);
		key[3 * s + 2] = s;
	}
	qsort(key, m->n_sw, 3 * sizeof(*key), key_cmp);
	for (uint32_t p = 0; p < m->n_sw; p++) {
		m->by_ord[p] = (uint32_t)key[3 * p + 2];
		m->ord[m->by_ord[p]] = p;
	}
	return 0;
}

static int u64_cmp(const void *pa, const void *pb)
{
	uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;

	return a < b ? -1 : a > b;
}

/* Take the given roots; -EINVAL if one is not a switch. given[c]: piece c has one. */
static int roots_given(struct ud *m, uint8_t *given, struct route_why *why)
{
	const struct subnet *sn = m->sn;
	uint32_t n = m->o->n_roots;
	_cleanup_free_ uint64_t *g = malloc(((size_t)n + 1) * sizeof(*g));

	if (!g)
		return -ENOMEM;
	if (n)
		memcpy(g, m->o->roots, n * sizeof(*g));
	qsort(g, n, sizeof(*g), u64_cmp);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t node = subnet_find_guid(sn, g[i]);

		if (i && g[i] == g[i - 1])
			continue;
		if (node == SUBNET_NONE) {
			m->missing++;
			continue;
		}
		if (!subnet_is_switch(sn, node)) {
			route_why_set(why, "root 0x%016llx is %s \"%s\", not a switch",
				      (unsigned long long)g[i],
				      subnet_type_name((enum node_type)sn->node[node].type),
				      subnet_str(sn, sn->node[node].name));
			return -EINVAL;
		}
	}
	for (uint32_t s = 0; s < m->n_sw; s++) {
		uint64_t key = ud_guid(m, s);

		if (!n || !bsearch(&key, g, n, sizeof(*g), u64_cmp))
			continue;
		m->is_root[s] = 1;
		if (!given[m->comp[s]])
			note(m, m->comp[s], R_GIVEN, 0, s);
		given[m->comp[s]] = 1;
	}
	return 0;
}

/* Piece c gets one root, its hosts' centre: its found roots cannot cover. */
static void one_root(struct ud *m, uint32_t c)
{
	const uint32_t *mem = m->comp_sw + m->comp_off[c];
	uint32_t n = m->comp_off[c + 1] - m->comp_off[c], k = 0, one;

	for (uint32_t i = 0; i < n; i++) {
		k += m->is_root[mem[i]];
		m->is_root[mem[i]] = 0;
		m->pick[i] = mem[i];
	}
	one = centre(m, n);
	m->is_root[one] = 1;
	note(m, c, R_ONE, k, one);
}

/*
 * The pieces the bridges could not cover (kind 3): move switches in their
 * up order, else one root. Any piece that falls back changes the ranks, so
 * the order is made again and the moves (which depend on their own piece
 * only) are made again. 0, -ECANCELED for a variant (not routed).
 */
static int reorder_all(struct ud *m, uint8_t *kind)
{
	bool again = false;
	int r;

	for (uint32_t c = 0; c < m->n_comp; c++) {
		if (kind[c] != 3)
			continue;
		/* Only the plain repair moves switches: moves in every variant
		 * cost more than all the routings (ft3 k=16 --degrade 0.3 seed
		 * 3: 7.7 s against 1.3 s) and won nothing on the measured trees.
		 * Variant 1 gives the piece one root instead, the other routing
		 * updn_best.c compares (k=8 --degrade 0.4 seed 14: tuned from
		 * there 496, from the moves 896, min-hop 740). */
		if (m->variant > 1)
			return -ECANCELED;
		r = m->variant ? 0 : updn_reorder(m, c);
		if (r < 0)
			return r;
		if (r)
			continue;
		m->fell_back = true;
		kind[c] = 1;
		one_root(m, c);
		again = true;
	}
	if (!again)
		return 0;
	r = updn_order(m);
	for (uint32_t c = 0; c < m->n_comp && r >= 0; c++)
		if (kind[c] == 3)
			r = updn_reorder(m, c) < 0 ? -ENOMEM : 0;
	return r;
}

int updn_roots(struct ud *m, struct route_why *why)
{
	/* per piece: 1 given or one, 2 found and several, 3 they need moves */
	_cleanup_free_ uint8_t *kind = NULL;
	int r;

	components(m);
	kind = calloc((size_t)m->n_comp + 1, 1);
	if (!kind)
		return -ENOMEM;
	r = roots_given(m, kind, why);
	if (r < 0)
		return r;
	for (uint32_t c = 0; c < m->n_comp; c++)
		if (!kind[c] && roots_auto(m, c) > 1)
			kind[c] = 2;
	for (uint32_t c = 0; c < m->n_comp && r >= 0; c++) {
		const uint32_t *mem = m->comp_sw + m->comp_off[c];
		uint32_t n = m->comp_off[c + 1] - m->comp_off[c];

		if (kind[c] != 2 || (r = updn_cover(m, c)) != 0) {
			for (uint32_t i = 0; r > 0 && c == m->note_comp && i < n; i++)
				m->note_moved += m->sub[mem[i]] == S_LOWERED;
			continue;
		}
		kind[c] = 3;
	}
	r = r < 0 ? r : updn_order(m);
	return r < 0 ? r : reorder_all(m, kind);
}

int updn_say_roots(const struct ud *m, char *buf, size_t len)
{
	const char *name = m->note_node == INF ? "" :
			   subnet_str(m->sn, m->sn->node[m->note_node].name);
	char moved[96] = "";
	uint32_t n = 0;

	if (m->note_moved)
		snprintf(moved, sizeof(moved), " (%u lowered below a bridge so that every two "
			 "host switches share a root)", m->note_moved);
	else if (m->note_reordered)
		snprintf(moved, sizeof(moved), " (%u moved in the up order so that every two "
			 "host switches share a switch above)", m->note_reordered);
	if (m->note_rule == R_NONE)
		return snprintf(buf, len, "no switches, no up/down roots");
	for (uint32_t i = m->comp_off[m->note_comp]; i < m->comp_off[m->note_comp + 1]; i++)
		n += m->is_root[m->comp_sw[i]];
	switch (m->note_rule) {
	case R_GIVEN:
		return snprintf(buf, len, "up/down roots: %u given", n);
	case R_TOP:
		if (m->note_lower)
			return snprintf(buf, len, "up/down roots: %u found, the switches %u hops "
					"from the nearest host's switch and %u with no higher "
					"neighbour one hop lower%s", n, m->note_h, m->note_lower,
					moved);
		return snprintf(buf, len, "up/down roots: %u found, the switches %u hop%s from "
				"the nearest host's switch%s", n, m->note_h, m->note_h == 1 ? "" : "s",
				moved);
	case R_CENTRE:
		return snprintf(buf, len, "up/down root: \"%s\" found, the hosts' centre", name);
	case R_ONE:
		return snprintf(buf, len, "up/down root: \"%s\" found, the hosts' centre (the "
				"%u highest switches leave host pairs without a common root)",
				name, m->note_h);
	default:
		return snprintf(buf, len, "up/down root: \"%s\" (no hosts)", name);
	}
}
