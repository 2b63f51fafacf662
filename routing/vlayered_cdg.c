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
 * What the searches cost is most of the engine's time, so: the two searches
 * take turns a step at a time and stop where they meet (a cycle is found
 * near its ends, not after the whole cone of one side); they walk the set
 * bits of a word of dependencies rather than testing each; a refused
 * dependency is remembered (nogo) and refused at once the next time, for
 * as long as the dependencies that refused it stay; and the reordered
 * places are sorted by a scan of the stretch when it is short.
 *
 * Every layer starts from the same order: up channels before down ones, up
 * channels by descending, down by ascending up/down order of the switch they
 * leave. It is a topological order of all legal up/down dependencies: the
 * escape layer holds exactly those from the start, and routes that are
 * mostly up/down-shaped fit the free layers with few moves.
 */
#include <endian.h>
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

static void bit_clear(uint8_t *d, uint32_t b)
{
	d[b / 8] &= (uint8_t)~(1u << (b % 8));
}

/* Bits b .. b + n - 1 (n <= VL_WORD), as a word; bit arrays have 8 spare bytes. */
static uint64_t bits_at(const uint8_t *d, uint32_t b, uint32_t n)
{
	uint64_t w;

	memcpy(&w, d + b / 8, sizeof(w));
	w = le64toh(w) >> (b % 8);
	return n < 64 ? w & ((1ull << n) - 1) : w;
}

/* Sort keys ascending: qsort's callback per comparison was a third of the
 * engine's time; reorder() sorts often, mostly a few dozen keys. */
static void sort_u64(uint64_t *k, uint32_t n)
{
	while (n > 16) {
		uint64_t p = k[n / 2], t;
		uint32_t i = 0, j = n - 1;

		/* Hoare partition around the middle key. */
		for (;;) {
			while (k[i] < p)
				i++;
			while (k[j] > p)
				j--;
			if (i >= j)
				break;
			t = k[i], k[i] = k[j], k[j] = t;
			i++, j--;
		}
		/* Recurse into the smaller side, loop on the larger. */
		if (j + 1 < n - j - 1) {
			sort_u64(k, j + 1);
			k += j + 1, n -= j + 1;
		} else {
			sort_u64(k + j + 1, n - j - 1);
			n = j + 1;
		}
	}
	for (uint32_t i = 1; i < n; i++) {
		uint64_t v = k[i];
		uint32_t j = i;

		for (; j > 0 && k[j - 1] > v; j--)
			k[j] = k[j - 1];
		k[j] = v;
	}
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

/*
 * Dependency a -> b is kept twice: bit ch_off[a] + j in dep (b is the j-th
 * edge of a's head), and bit rch_off[b] + i in rdep (rev[a] is the i-th
 * edge of b's tail), so both searches walk set bits only.
 */
static uint32_t dep_bit(const struct vl *m, uint32_t a, uint32_t b)
{
	return m->ch_off[a] + (b - m->adj_off[vl_head(m, a)]);
}

static uint32_t rdep_bit(const struct vl *m, uint32_t a, uint32_t b)
{
	return m->rch_off[b] + (m->rev[a] - m->adj_off[m->tail[b]]);
}

static void dep_set(struct vl *m, struct vl_layer *L, uint32_t a, uint32_t b)
{
	bit_set(L->dep, dep_bit(m, a, b));
	bit_set(L->rdep, rdep_bit(m, a, b));
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
	size_t n = (size_t)m->n_ch + 1, bytes = (size_t)m->ch_off[m->n_ch] / 8 + 9;

	m->rch_off = malloc(n * sizeof(*m->rch_off));
	m->stk = malloc(n * sizeof(*m->stk));
	m->fw = malloc(n * sizeof(*m->fw));
	m->bw = malloc(n * sizeof(*m->bw));
	m->keys = malloc(2 * n * sizeof(*m->keys));
	m->undo = malloc(((size_t)m->n_sw + 1) * VL_LAYERS_MAX * sizeof(*m->undo));
	m->undo_b = malloc(((size_t)m->n_sw + 1) * VL_LAYERS_MAX * sizeof(*m->undo_b));
	m->undo_l = malloc(((size_t)m->n_sw + 1) * VL_LAYERS_MAX);
	if (!m->rch_off || !m->stk || !m->fw || !m->bw || !m->keys || !m->undo ||
	    !m->undo_b || !m->undo_l)
		return -ENOMEM;
	/* As many bits as dep: every switch heads and tails deg channels. */
	m->rch_off[0] = 0;
	for (uint32_t e = 0; e < m->n_ch; e++)
		m->rch_off[e + 1] = m->rch_off[e] + m->adj_off[m->tail[e] + 1] -
				    m->adj_off[m->tail[e]];
	for (unsigned l = 0; l < m->n_layers; l++) {
		struct vl_layer *L = &m->layer[l];

		L->dep = calloc(bytes, 1);
		L->rdep = calloc(bytes, 1);
		L->nogo = calloc(bytes, 1);
		L->pos = calloc(n, sizeof(*L->pos));
		L->at = malloc(n * sizeof(*L->at));
		if (!L->dep || !L->rdep || !L->nogo || !L->pos || !L->at)
			return -ENOMEM;
		if (l == 0) {
			for (uint32_t e = 0; e < m->n_ch; e++)
				L->at[e] = e;
			qsort_r(L->at, m->n_ch, sizeof(*L->at), cmp_start, m);
		} else {
			memcpy(L->at, m->layer[0].at, (size_t)m->n_ch * sizeof(*L->at));
		}
		for (uint32_t p = 0; p < m->n_ch; p++)
			L->pos[L->at[p]].place = p;
	}
	fill_escape(m, &m->layer[m->esc]);
	return 0;
}

void vl_cdg_free(struct vl *m)
{
	for (unsigned l = 0; l < VL_LAYERS_MAX; l++) {
		free(m->layer[l].dep);
		free(m->layer[l].rdep);
		free(m->layer[l].nogo);
		free(m->layer[l].pos);
		free(m->layer[l].at);
	}
	free(m->rch_off);
	free(m->stk);
	free(m->fw);
	free(m->bw);
	free(m->keys);
	free(m->undo);
	free(m->undo_b);
	free(m->undo_l);
	free(m->ng);
}

/*
 * One step of the search forward from b: the successors of fw[i] below ub
 * that are new join fw[]. Successors are the set bits of fw[i]'s stretch of
 * dep, a word at a time (testing each bit was a mispredicted branch per
 * edge, most of the engine's time). False if one is marked bw: it reaches
 * a, so a -> b would close a cycle.
 */
static bool step_fwd(struct vl *m, struct vl_layer *L, uint32_t i, uint32_t *nf,
		     uint32_t fw, uint32_t bw, uint32_t ub)
{
	uint32_t w = m->fw[i], h = vl_head(m, w), first = m->adj_off[h];
	uint32_t deg = m->adj_off[h + 1] - first;

	for (uint32_t k = 0; k < deg; k += VL_WORD) {
		uint32_t len = deg - k < VL_WORD ? deg - k : VL_WORD;
		uint64_t bits = bits_at(L->dep, m->ch_off[w] + k, len);

		for (; bits; bits &= bits - 1) {
			uint32_t x = first + k + (uint32_t)__builtin_ctzll(bits);

			if (L->pos[x].mark == bw)
				return false;
			if (L->pos[x].mark == fw || L->pos[x].place > ub)
				continue;
			L->pos[x].mark = fw;
			m->fw[(*nf)++] = x;
		}
	}
	return true;
}

/* The same backwards from a, predecessors above lb, by rdep. */
static bool step_back(struct vl *m, struct vl_layer *L, uint32_t i, uint32_t *nb,
		      uint32_t fw, uint32_t bw, uint32_t lb)
{
	uint32_t w = m->bw[i], t = m->tail[w], first = m->adj_off[t];
	uint32_t deg = m->adj_off[t + 1] - first;

	for (uint32_t k = 0; k < deg; k += VL_WORD) {
		uint32_t len = deg - k < VL_WORD ? deg - k : VL_WORD;
		uint64_t bits = bits_at(L->rdep, m->rch_off[w] + k, len);

		for (; bits; bits &= bits - 1) {
			/* The channel into t from the far end of t's edge. */
			uint32_t p = m->rev[first + k + (uint32_t)__builtin_ctzll(bits)];

			if (L->pos[p].mark == fw)
				return false;
			if (L->pos[p].mark == bw || L->pos[p].place < lb)
				continue;
			L->pos[p].mark = bw;
			m->bw[(*nb)++] = p;
		}
	}
	return true;
}

/*
 * Pearce-Kelly's two searches for a -> b (b placed before a): channels
 * reachable from b up to a's place into fw[], channels reaching a down to
 * b's place into bw[], a step of each in turn. If they meet, b reaches a:
 * false, a cycle. Taking turns finds a cycle after a few steps of the
 * shorter side, where one search after the other explored the whole cone
 * of b first (the failing checks were half the searching).
 */
static bool search(struct vl *m, struct vl_layer *L, uint32_t a, uint32_t b, uint32_t *nf,
		   uint32_t *nb, uint32_t fw, uint32_t bw)
{
	uint32_t hf = 0, hb = 0, lb = L->pos[b].place, ub = L->pos[a].place;

	*nf = *nb = 1;
	m->fw[0] = b;
	L->pos[b].mark = fw;
	m->bw[0] = a;
	L->pos[a].mark = bw;
	while (hf < *nf || hb < *nb) {
		if (hf < *nf && !step_fwd(m, L, hf++, nf, fw, bw, ub))
			return false;
		if (hb < *nb && !step_back(m, L, hb++, nb, fw, bw, lb))
			return false;
	}
	return true;
}

/*
 * The found channels take the same places, those reaching a first, each
 * group in its old order. Their places are sorted by a scan of the order
 * between the two ends when that stretch is short next to the channels
 * found (marked fw and bw), else by sorting.
 */
static void reorder(struct vl *m, struct vl_layer *L, uint32_t nb, uint32_t nf, uint32_t fw,
		    uint32_t lb, uint32_t ub)
{
	uint64_t *kb = m->keys, *kf = m->keys + nb;
	uint32_t i = 0, jb = 0, jf = 0;

	if (ub - lb < 8 * (nb + nf)) {
		for (uint32_t p = lb; p <= ub; p++) {
			uint32_t c = L->at[p];

			if (L->pos[c].mark == fw)
				kf[jf++] = c;
			else if (L->pos[c].mark == m->stamp)
				kb[jb++] = c;
			else
				continue;
			m->stk[i++] = p;
		}
	} else {
		for (uint32_t k = 0; k < nb; k++)
			kb[k] = (uint64_t)L->pos[m->bw[k]].place << 32 | m->bw[k];
		for (uint32_t k = 0; k < nf; k++)
			kf[k] = (uint64_t)L->pos[m->fw[k]].place << 32 | m->fw[k];
		sort_u64(kb, nb);
		sort_u64(kf, nf);
		/* The places, merged in order, into stk[]. */
		while (jb < nb || jf < nf) {
			if (jf == nf || (jb < nb && kb[jb] < kf[jf]))
				m->stk[i++] = (uint32_t)(kb[jb++] >> 32);
			else
				m->stk[i++] = (uint32_t)(kf[jf++] >> 32);
		}
	}
	for (uint32_t k = 0; k < nb + nf; k++) {
		uint32_t c = k < nb ? (uint32_t)kb[k] : (uint32_t)kf[k - nb];

		L->pos[c].place = m->stk[k];
		L->at[m->stk[k]] = c;
	}
	m->pk_moves += nb + nf;
}

/* A fresh mark for a search. */
static uint32_t new_stamp(struct vl *m)
{
	if (++m->stamp == 0) {
		for (unsigned l = 0; l < m->n_layers; l++)
			for (uint32_t c = 0; c < m->n_ch; c++)
				m->layer[l].pos[c].mark = 0;
		m->stamp = 1;
	}
	return m->stamp;
}

bool vl_dep_refused(const struct vl *m, const struct vl_layer *L, uint32_t a, uint32_t b)
{
	return bit_get(L->nogo, dep_bit(m, a, b));
}

/*
 * A dependency refused once is refused again without a search (nogo):
 * checks that fail were most of the engine's time, and the same ones are
 * asked LID after LID. A refusal holds while the dependencies on its cycle
 * stay, and those only accumulate, except the ones the tree under way added
 * (the undo log): a refusal made while the log held n entries may lean on
 * any of them, so it is noted (at = n) and dropped when the log is taken
 * back below n. When the tree's routes are committed, its notes become
 * permanent. (Keeping every refusal for good was as fast, but the stale
 * ones cost layers and sent LIDs to the escape.)
 */
static void refuse(struct vl *m, struct vl_layer *L, uint32_t bit)
{
	if (m->n_undo && m->n_ng == m->cap_ng) {
		uint32_t cap = m->cap_ng ? 2 * m->cap_ng : 1024;
		struct vl_refusal *ng = realloc(m->ng, cap * sizeof(*ng));

		if (!ng)
			return; /* not remembered: only the next check costs more */
		m->ng = ng;
		m->cap_ng = cap;
	}
	if (m->n_undo)
		m->ng[m->n_ng++] = (struct vl_refusal){ .bit = bit, .at = m->n_undo,
							.layer = (uint8_t)(L - m->layer) };
	bit_set(L->nogo, bit);
}

bool vl_dep_add(struct vl *m, struct vl_layer *L, uint32_t a, uint32_t b)
{
	uint32_t bit = dep_bit(m, a, b), nf = 0, nb;

	if (bit_get(L->dep, bit))
		return true;
	if (bit_get(L->nogo, bit))
		return false;
	if (L->pos[a].place > L->pos[b].place) {
		/* Two marks, one per search (a wrap clears all marks first). */
		uint32_t fw = new_stamp(m), bw = new_stamp(m);

		if (!search(m, L, a, b, &nf, &nb, fw, bw)) {
			refuse(m, L, bit);
			return false;
		}
		reorder(m, L, nb, nf, fw, L->pos[b].place, L->pos[a].place);
	}
	dep_set(m, L, a, b);
	m->undo_l[m->n_undo] = (uint8_t)(L - m->layer);
	m->undo_b[m->n_undo] = b;
	m->undo[m->n_undo++] = a;
	return true;
}

void vl_dep_undo(struct vl *m, uint32_t n)
{
	while (m->n_undo > n) {
		struct vl_layer *L = &m->layer[m->undo_l[--m->n_undo]];
		uint32_t a = m->undo[m->n_undo], b = m->undo_b[m->n_undo];

		bit_clear(L->dep, dep_bit(m, a, b));
		bit_clear(L->rdep, rdep_bit(m, a, b));
	}
	/* Refusals noted at a longer log are taken back with it (at only
	 * grows along ng: a take-back leaves none above n). */
	while (m->n_ng && m->ng[m->n_ng - 1].at > n) {
		const struct vl_refusal *r = &m->ng[--m->n_ng];

		bit_clear(m->layer[r->layer].nogo, r->bit);
	}
}

void vl_dep_keep(struct vl *m)
{
	m->n_undo = 0;
	m->n_ng = 0;
}
