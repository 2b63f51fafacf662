/* SPDX-License-Identifier: MIT */
/*
 * One channel dependency graph per layer, kept acyclic as dependencies are
 * added one at a time. Each layer keeps a topological order of its channels
 * (Pearce and Kelly, "A dynamic topological sort algorithm for directed
 * acyclic graphs", JEA 2006): a dependency that goes forward in the order is
 * free; one that goes backward searches only the channels between its two
 * ends, finds the cycle it would close or reorders just that stretch. Taking
 * dependencies out never invalidates an order, so undoing a failed attempt
 * clears bits and nothing else. Nue (Domke et al., HPDC 2016) needs the
 * same question answered ("does this dependency close a cycle?") and answers
 * it by search in the graph; the order answers most of them in O(1).
 *
 * Every layer starts from the same order: up channels before down ones, up
 * channels by descending, down by ascending up/down order of the switch they
 * leave. It is a topological order of all legal up/down dependencies: the
 * escape layer holds exactly those from the start, and routes that are
 * mostly up/down-shaped fit the free layers with few moves.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vlayered_priv.h"

static bool bit_get(const uint8_t *d, uint32_t b)
{
	return d[b / 8] & (1u << (b % 8));
}

static void bit_set(uint8_t *d, uint32_t b)
{
	d[b / 8] |= (uint8_t)(1u << (b % 8));
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Sort key of a channel in the starting order (unique: tail and port). */
static uint64_t start_key(const struct vl *m, uint32_t e)
{
	uint64_t p = m->ord[m->tail[e]], j = e - m->adj_off[m->tail[e]];

	if (vl_down(m, e))
		return 1ull << 62 | p << 8 | j;
	return ((uint64_t)m->n_sw - p) << 8 | j;
}

static int cmp_start(const void *a, const void *b, void *ctx)
{
	const struct vl *m = ctx;
	uint64_t x = start_key(m, *(const uint32_t *)a), y = start_key(m, *(const uint32_t *)b);

	return x < y ? -1 : x > y;
}

static void dep_set(struct vl *m, struct vl_layer *L, uint32_t a, uint32_t b)
{
	bit_set(L->dep, m->ch_off[a] + (b - m->adj_off[vl_head(m, a)]));
}

/* The escape layer: every legal up/down dependency (never down, then up). */
static void fill_escape(struct vl *m, struct vl_layer *L)
{
	for (uint32_t a = 0; a < m->n_ch; a++) {
		uint32_t h = vl_head(m, a);

		for (uint32_t b = m->adj_off[h]; b < m->adj_off[h + 1]; b++)
			if (vl_head(m, b) != m->tail[a] && (!vl_down(m, a) || vl_down(m, b)))
				dep_set(m, L, a, b);
	}
}

int vl_cdg_init(struct vl *m)
{
	size_t n = (size_t)m->n_ch + 1, bytes = (size_t)m->ch_off[m->n_ch] / 8 + 1;

	m->mark = calloc(n, sizeof(*m->mark));
	m->stk = malloc(n * sizeof(*m->stk));
	m->fw = malloc(n * sizeof(*m->fw));
	m->bw = malloc(n * sizeof(*m->bw));
	m->keys = malloc(2 * n * sizeof(*m->keys));
	m->undo = malloc(((size_t)m->n_sw + 1) * VL_LAYERS_MAX * sizeof(*m->undo));
	m->undo_l = malloc(((size_t)m->n_sw + 1) * VL_LAYERS_MAX);
	if (!m->mark || !m->stk || !m->fw || !m->bw || !m->keys || !m->undo || !m->undo_l)
		return -ENOMEM;
	for (unsigned l = 0; l < m->n_layers; l++) {
		struct vl_layer *L = &m->layer[l];

		L->dep = calloc(bytes, 1);
		L->pos = malloc(n * sizeof(*L->pos));
		L->at = malloc(n * sizeof(*L->at));
		if (!L->dep || !L->pos || !L->at)
			return -ENOMEM;
		if (l == 0) {
			for (uint32_t e = 0; e < m->n_ch; e++)
				L->at[e] = e;
			qsort_r(L->at, m->n_ch, sizeof(*L->at), cmp_start, m);
		} else {
			memcpy(L->at, m->layer[0].at, (size_t)m->n_ch * sizeof(*L->at));
		}
		for (uint32_t p = 0; p < m->n_ch; p++)
			L->pos[L->at[p]] = p;
	}
	fill_escape(m, &m->layer[m->esc]);
	return 0;
}

void vl_cdg_free(struct vl *m)
{
	for (unsigned l = 0; l < VL_LAYERS_MAX; l++) {
		free(m->layer[l].dep);
		free(m->layer[l].pos);
		free(m->layer[l].at);
	}
	free(m->mark);
	free(m->stk);
	free(m->fw);
	free(m->bw);
	free(m->keys);
	free(m->undo);
	free(m->undo_l);
}

/*
 * Channels reachable from b whose place is below ub into fw[]; false if a
 * (at ub) is among them: a -> b would close a cycle.
 */
static bool search_fwd(struct vl *m, struct vl_layer *L, uint32_t a, uint32_t b, uint32_t *nf)
{
	uint32_t top = 0, n = 0, ub = L->pos[a];

	m->mark[b] = m->stamp;
	m->stk[top++] = b;
	while (top) {
		uint32_t w = m->stk[--top], h = vl_head(m, w), base = m->ch_off[w];

		m->fw[n++] = w;
		for (uint32_t j = 0; j < m->adj_off[h + 1] - m->adj_off[h]; j++) {
			uint32_t x = m->adj_off[h] + j;

			if (!bit_get(L->dep, base + j))
				continue;
			if (x == a)
				return false;
			if (m->mark[x] == m->stamp || L->pos[x] > ub)
				continue;
			m->mark[x] = m->stamp;
			m->stk[top++] = x;
		}
	}
	*nf = n;
	return true;
}

/* Channels that reach a and sit above lb into bw[]. */
static uint32_t search_back(struct vl *m, struct vl_layer *L, uint32_t a, uint32_t lb)
{
	uint32_t top = 0, n = 0;

	m->mark[a] = m->stamp;
	m->stk[top++] = a;
	while (top) {
		uint32_t w = m->stk[--top], t = m->tail[w], j = w - m->adj_off[t];

		m->bw[n++] = w;
		for (uint32_t f = m->adj_off[t]; f < m->adj_off[t + 1]; f++) {
			uint32_t p = m->rev[f]; /* the channel into t from f's far end */

			if (!bit_get(L->dep, m->ch_off[p] + j))
				continue;
			if (m->mark[p] == m->stamp || L->pos[p] < lb)
				continue;
			m->mark[p] = m->stamp;
			m->stk[top++] = p;
		}
	}
	return n;
}

/* The found channels take the same places, those reaching a first. */
static void reorder(struct vl *m, struct vl_layer *L, uint32_t nb, uint32_t nf)
{
	uint64_t *kb = m->keys, *kf = m->keys + nb;
	uint32_t i = 0, jb = 0, jf = 0;

	for (uint32_t k = 0; k < nb; k++)
		kb[k] = (uint64_t)L->pos[m->bw[k]] << 32 | m->bw[k];
	for (uint32_t k = 0; k < nf; k++)
		kf[k] = (uint64_t)L->pos[m->fw[k]] << 32 | m->fw[k];
	qsort(kb, nb, sizeof(*kb), cmp_u64);
	qsort(kf, nf, sizeof(*kf), cmp_u64);
	/* The places, merged in order, into stk[]. */
	while (jb < nb || jf < nf) {
		if (jf == nf || (jb < nb && kb[jb] < kf[jf]))
			m->stk[i++] = (uint32_t)(kb[jb++] >> 32);
		else
			m->stk[i++] = (uint32_t)(kf[jf++] >> 32);
	}
	for (uint32_t k = 0; k < nb + nf; k++) {
		uint32_t c = k < nb ? (uint32_t)kb[k] : (uint32_t)kf[k - nb];

		L->pos[c] = m->stk[k];
		L->at[m->stk[k]] = c;
	}
	m->pk_moves += nb + nf;
}

bool vl_dep_add(struct vl *m, struct vl_layer *L, uint32_t a, uint32_t b)
{
	uint32_t bit = m->ch_off[a] + (b - m->adj_off[vl_head(m, a)]), nf = 0, nb;

	if (bit_get(L->dep, bit))
		return true;
	if (L->pos[a] > L->pos[b]) {
		if (++m->stamp == 0) {
			memset(m->mark, 0, ((size_t)m->n_ch + 1) * sizeof(*m->mark));
			m->stamp = 1;
		}
		if (!search_fwd(m, L, a, b, &nf))
			return false;
		nb = search_back(m, L, a, L->pos[b]);
		reorder(m, L, nb, nf);
	}
	bit_set(L->dep, bit);
	m->undo_l[m->n_undo] = (uint8_t)(L - m->layer);
	m->undo[m->n_undo++] = bit;
	return true;
}

void vl_dep_undo(struct vl *m, uint32_t n)
{
	while (m->n_undo > n) {
		uint32_t bit = m->undo[--m->n_undo];
		uint8_t *dep = m->layer[m->undo_l[m->n_undo]].dep;

		dep[bit / 8] &= (uint8_t)~(1u << (bit % 8));
	}
}
