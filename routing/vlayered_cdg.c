/* SPDX-License-Identifier: MIT */
/*
 * One channel dependency graph per layer, kept acyclic as dependencies are
 * added one at a time. Each layer keeps a topological order of its channels
 * (after Pearce and Kelly, "A dynamic topological sort algorithm for
 * directed acyclic graphs", JEA 2006): a dependency that goes forward in the
 * order is free; one that goes backward searches only the channels between
 * its two ends, finds the cycle it would close or moves channels so it goes
 * forward. Taking dependencies out never invalidates an order, so undoing a
 * failed attempt clears bits and nothing else. Nue (Domke et al., HPDC 2016)
 * needs the same question answered ("does this dependency close a cycle?")
 * and answers it by search in the graph; the order answers most of them in
 * O(1).
 *
 * What the searches cost is most of the engine's time, so: the two searches
 * (forward from b, backward from a) take turns a step at a time, depth
 * first, and stop where they meet (a cycle) or as soon as one of them has
 * found all of its side; only that side then moves, into the gap beside
 * the other end (places are 64-bit numbers with gaps between them, spread
 * out again in the rare case a gap is full), so a check costs the smaller
 * of the two cones rather than both and the stretch between them. They
 * walk the set bits of a word of dependencies rather than testing each; a
 * refused dependency is remembered (nogo) and refused at once the next
 * time, for as long as the dependencies that refused it stay. Whether a
 * dependency closes a cycle does not depend on the order kept, so neither
 * does any route.
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

#include "lib/cleanup.h"
#include "vlayered_priv.h"

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

/* Channels (low 32 bits) by their places (the high 64): the keys of a
 * move, mostly a few dozen. qsort's callback per comparison was a third of
 * the engine's time. */
struct vl_key {
	uint64_t place;
	uint32_t c;
};

static void sort_keys(struct vl_key *k, uint32_t n)
{
	while (n > 16) {
		uint64_t p = k[n / 2].place;
		struct vl_key t;
		uint32_t i = 0, j = n - 1;

		/* Hoare partition around the middle key. */
		for (;;) {
			while (k[i].place < p)
				i++;
			while (k[j].place > p)
				j--;
			if (i >= j)
				break;
			t = k[i], k[i] = k[j], k[j] = t;
			i++, j--;
		}
		/* Recurse into the smaller side, loop on the larger. */
		if (j + 1 < n - j - 1) {
			sort_keys(k, j + 1);
			k += j + 1, n -= j + 1;
		} else {
			sort_keys(k + j + 1, n - j - 1);
			n = j + 1;
		}
	}
	for (uint32_t i = 1; i < n; i++) {
		struct vl_key v = k[i];
		uint32_t j = i;

		for (; j > 0 && k[j - 1].place > v.place; j--)
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
static uint32_t rdep_bit(const struct vl *m, uint32_t a, uint32_t b)
{
	return m->rdep_base[b] + m->rev[a];
}

static void dep_set(struct vl *m, struct vl_layer *L, uint32_t a, uint32_t b)
{
	bit_set(L->dep, vl_dep_bit(m, a, b));
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

/* Places spread evenly along the order again: a gap was full. */
static void spread(struct vl *m, struct vl_layer *L)
{
	uint64_t p = 0;

	for (uint32_t c = L->next[m->n_ch]; c != m->n_ch; c = L->next[c])
		L->pos[c].place = p += m->gap;
	m->respreads++;
}

int vl_cdg_init(struct vl *m)
{
	size_t n = (size_t)m->n_ch + 1, bytes = (size_t)m->ch_off[m->n_ch] / 8 + 9;
	_cleanup_free_ uint32_t *at = malloc(n * sizeof(*at));

	m->rch_off = malloc(n * sizeof(*m->rch_off));
	m->dep_base = malloc(n * sizeof(*m->dep_base));
	m->rdep_base = malloc(n * sizeof(*m->rdep_base));
	m->fw = malloc(n * sizeof(*m->fw));
	m->bw = malloc(n * sizeof(*m->bw));
	m->sf = malloc(n * sizeof(*m->sf));
	m->sb = malloc(n * sizeof(*m->sb));
	m->keys = malloc(n * sizeof(*m->keys));
	m->undo = malloc(((size_t)m->n_sw + 1) * VL_LAYERS_MAX * sizeof(*m->undo));
	m->undo_b = malloc(((size_t)m->n_sw + 1) * VL_LAYERS_MAX * sizeof(*m->undo_b));
	m->undo_l = malloc(((size_t)m->n_sw + 1) * VL_LAYERS_MAX);
	if (!at || !m->rch_off || !m->dep_base || !m->rdep_base || !m->fw || !m->bw || !m->sf || !m->sb || !m->keys ||
	    !m->undo || !m->undo_b || !m->undo_l)
		return -ENOMEM;
	/* As many bits as dep: every switch heads and tails deg channels. */
	m->rch_off[0] = 0;
	for (uint32_t e = 0; e < m->n_ch; e++)
		m->rch_off[e + 1] = m->rch_off[e] + m->adj_off[m->tail[e] + 1] -
				    m->adj_off[m->tail[e]];
	for (uint32_t e = 0; e < m->n_ch; e++) {
		m->dep_base[e] = m->ch_off[e] - m->adj_off[vl_head(m, e)];
		m->rdep_base[e] = m->rch_off[e] - m->adj_off[m->tail[e]];
	}
	for (uint32_t e = 0; e < m->n_ch; e++)
		at[e] = e;
	qsort_r(at, m->n_ch, sizeof(*at), cmp_start, m);
	m->gap = UINT64_MAX / ((uint64_t)m->n_ch + 2);
	for (unsigned l = 0; l < m->n_layers; l++) {
		struct vl_layer *L = &m->layer[l];

		L->dep = calloc(bytes, 1);
		L->rdep = calloc(bytes, 1);
		L->nogo = calloc(bytes, 1);
		L->pos = calloc(n, sizeof(*L->pos));
		L->next = malloc(n * sizeof(*L->next));
		L->prev = malloc(n * sizeof(*L->prev));
		if (!L->dep || !L->rdep || !L->nogo || !L->pos || !L->next || !L->prev)
			return -ENOMEM;
		/* The list is a ring through n_ch, its head. */
		for (uint32_t p = 0, c = m->n_ch; p <= m->n_ch; p++) {
			uint32_t d = p < m->n_ch ? at[p] : m->n_ch;

			L->next[c] = d;
			L->prev[d] = c;
			c = d;
		}
		spread(m, L);
	}
	m->respreads = 0;
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
		free(m->layer[l].next);
		free(m->layer[l].prev);
	}
	free(m->rch_off);
	free(m->dep_base);
	free(m->rdep_base);
	free(m->fw);
	free(m->bw);
	free(m->sf);
	free(m->sb);
	free(m->keys);
	free(m->undo);
	free(m->undo_b);
	free(m->undo_l);
	free(m->ng);
}

/*
 * One step of the search forward: the successors of channel w placed
 * before ub that are new join fw[] and the stack sf[]. Successors are the
 * set bits of w's stretch of dep, a word at a time (testing each bit was a
 * mispredicted branch per edge, most of the engine's time). False if one
 * is marked bw: it reaches a, so a -> b would close a cycle.
 */
static bool step_fwd(struct vl *m, struct vl_layer *L, uint32_t w, uint32_t *nf, uint32_t *tf,
		     uint32_t fw, uint32_t bw, uint64_t ub)
{
	uint32_t h = vl_head(m, w), first = m->adj_off[h];
	uint32_t deg = m->adj_off[h + 1] - first;

	for (uint32_t k = 0; k < deg; k += VL_WORD) {
		uint32_t len = deg - k < VL_WORD ? deg - k : VL_WORD;
		uint64_t bits = bits_at(L->dep, m->ch_off[w] + k, len);

		for (; bits; bits &= bits - 1) {
			uint32_t x = first + k + (uint32_t)__builtin_ctzll(bits);
			struct vl_place *px = &L->pos[x];

			if (px->mark == bw)
				return false;
			if (px->mark == fw || px->place > ub)
				continue;
			px->mark = fw;
			m->fw[(*nf)++] = x;
			m->sf[(*tf)++] = x;
		}
	}
	return true;
}

/* The same backwards from w, predecessors placed after lb, by rdep. */
static bool step_back(struct vl *m, struct vl_layer *L, uint32_t w, uint32_t *nb, uint32_t *tb,
		      uint32_t fw, uint32_t bw, uint64_t lb)
{
	uint32_t t = m->tail[w], first = m->adj_off[t];
	uint32_t deg = m->adj_off[t + 1] - first;

	for (uint32_t k = 0; k < deg; k += VL_WORD) {
		uint32_t len = deg - k < VL_WORD ? deg - k : VL_WORD;
		uint64_t bits = bits_at(L->rdep, m->rch_off[w] + k, len);

		for (; bits; bits &= bits - 1) {
			/* The channel into t from the far end of t's edge. */
			uint32_t p = m->rev[first + k + (uint32_t)__builtin_ctzll(bits)];
			struct vl_place *pp = &L->pos[p];

			if (pp->mark == fw)
				return false;
			if (pp->mark == bw || pp->place < lb)
				continue;
			pp->mark = bw;
			m->bw[(*nb)++] = p;
			m->sb[(*tb)++] = p;
		}
	}
	return true;
}

enum { VL_CYCLE, VL_FW_WHOLE, VL_BW_WHOLE };

/*
 * Pearce-Kelly's two searches for a -> b (b placed before a): channels
 * reachable from b up to a's place into fw[], channels reaching a down to
 * b's place into bw[], taking turns a step at a time, each depth first.
 * If they meet, b reaches a: a cycle. Else the first to run out has found
 * all its side (the other need not finish: only that side moves). Taking
 * turns finds a cycle after a few steps of the shorter side, and stopping
 * at the first side done costs the smaller cone rather than both.
 */
static int search(struct vl *m, struct vl_layer *L, uint32_t a, uint32_t b, uint32_t *nf,
		  uint32_t *nb, uint32_t fw, uint32_t bw)
{
	uint64_t lb = L->pos[b].place, ub = L->pos[a].place;
	uint32_t tf = 1, tb = 1;

	*nf = *nb = 1;
	m->fw[0] = m->sf[0] = b;
	L->pos[b].mark = fw;
	m->bw[0] = m->sb[0] = a;
	L->pos[a].mark = bw;
	for (;;) {
		if (!step_fwd(m, L, m->sf[--tf], nf, &tf, fw, bw, ub))
			return VL_CYCLE;
		if (!tf)
			return VL_FW_WHOLE;
		if (!step_back(m, L, m->sb[--tb], nb, &tb, fw, bw, lb))
			return VL_CYCLE;
		if (!tb)
			return VL_BW_WHOLE;
	}
}

static void unlink_ch(struct vl_layer *L, uint32_t c)
{
	L->next[L->prev[c]] = L->next[c];
	L->prev[L->next[c]] = L->prev[c];
}

/*
 * Move the n channels of set[] (in their old order) into the gap right
 * after channel `after` (the list's head: the start). Channels a search
 * found whole may move so: all of b's successors before a go right after
 * a, or all of a's predecessors after b right before b, and every
 * dependency still goes forward.
 */
static void move(struct vl *m, struct vl_layer *L, const uint32_t *set, uint32_t n, uint32_t after)
{
	struct vl_key *k = m->keys;
	uint64_t lo, hi, step;

	for (uint32_t i = 0; i < n; i++) {
		k[i] = (struct vl_key){ .place = L->pos[set[i]].place, .c = set[i] };
		unlink_ch(L, set[i]);
	}
	sort_keys(k, n);
	for (;;) {
		uint32_t nx = L->next[after];

		lo = after == m->n_ch ? 0 : L->pos[after].place;
		hi = nx == m->n_ch ? UINT64_MAX : L->pos[nx].place;
		step = (hi - lo) / ((uint64_t)n + 1);
		if (step)
			break;
		spread(m, L);
	}
	for (uint32_t i = 0; i < n; i++) {
		uint32_t c = k[i].c, nx = L->next[after];

		L->pos[c].place = lo += step;
		L->prev[c] = after;
		L->next[c] = nx;
		L->next[after] = c;
		L->prev[nx] = c;
		after = c;
	}
	m->pk_moves += n;
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

bool vl_dep_add_new(struct vl *m, struct vl_layer *L, uint32_t a, uint32_t b)
{
	uint32_t bit = vl_dep_bit(m, a, b), nf = 0, nb;

	if (L->pos[a].place > L->pos[b].place) {
		/* Two marks, one per search (a wrap clears all marks first). */
		uint32_t fw = new_stamp(m), bw = new_stamp(m);

		switch (search(m, L, a, b, &nf, &nb, fw, bw)) {
		case VL_CYCLE:
			refuse(m, L, bit);
			return false;
		case VL_FW_WHOLE:
			move(m, L, m->fw, nf, a);
			break;
		default:
			move(m, L, m->bw, nb, L->prev[b]);
			break;
		}
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

		bit_clear(L->dep, vl_dep_bit(m, a, b));
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
