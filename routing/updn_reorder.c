/* SPDX-License-Identifier: MIT */
/*
 * Up/down coverage, the general repair: when the bridges of updn_cover.c
 * cannot give every two host switches of a piece a switch above both,
 * move single switches down the up order until they share one.
 *
 * Why. The bridges place a switch at one of three places within its rank,
 * which is enough for most degraded trees but not for pods so sparse that
 * a leaf's only aggregation switch reaches one core, whose pod-mates reach
 * it only down through a core of another group, a leaf and back up (k=8,
 * --degrade 0.3: the piece fell back to one root, 2-3x min-hop's busiest
 * link). Any total order of the switches is free of credit loops, so the
 * order need not follow ranks at all. A move puts one switch v right next
 * to a neighbour u, on either side, or lifts u right above v: the link
 * between them then points the other way, and routes that reach the lower
 * one go on up through the other. From the rank order, each step takes the
 * host switch short of most partners (the first in up order on a tie) and,
 * of the moves of the switches it reaches going up (itself included) and
 * their neighbours, the one that leaves the fewest host-switch pairs
 * without a common switch above, then lets the host switch reach the most
 * switches going up (a move that opens a way the next one uses; first in
 * up order, then port order, on a tie). A switch moves once at most, so
 * the steps end; the repair fails when no move of any host switch helps,
 * or when its work budget (UPDN_REORDER_WORK, counted in cone words, the
 * same on every machine) is spent.
 *
 * Measured (topogen fattree3 -k 8 --degrade 0.3): seed 5 fell back to one
 * root (1144, 2.3x min-hop's busiest link), now 592 (1.19x); seed 7 (with
 * updn_roots.c's tops) 1572 -> 740 (1.03x); seed 10 800 -> 600 (1.08x).
 * The budget was 50e6: on k=16 --degrade 0.4 seeds 14, 17, 19 and 20 it
 * ran out and the pieces fell back to one root; 200e6 covers them (the
 * whole routing took less CPU then, 0.9-1.5 s, than with one root).
 * Covering is not always the better routing (seeds 13, 17 routed with one
 * root were less loaded), so updn_best.c routes one root too.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cleanup.h"
#include "updn_priv.h"

#define UPDN_REORDER_WORK 200000000ull

struct ro {
	uint32_t c, n, w;   /* piece, its switches, words per switch (for the work) */
	uint32_t wt, *top;  /* words per switch used; [place in piece] top's rank, or INF */
	uint32_t lo, hi;    /* places in by_ord that hold the piece's switches */
	uint64_t *bits;     /* [place in piece * wt] tops above the switch */
	uint64_t *hb;       /* [host switch * wt] the host switches' bits */
	uint32_t *host;     /* [nh] host switches */
	uint8_t *mark;      /* [place in piece] scratch, 0 between uses */
	uint8_t *moved;     /* [place in piece] moved once: never again */
	uint32_t nh;
	uint64_t work, budget;
};

/* Move the switch at place p to place q of by_ord, shifting those between. */
static void shift(struct ud *m, uint32_t p, uint32_t q)
{
	uint32_t v = m->by_ord[p];

	if (p < q)
		memmove(m->by_ord + p, m->by_ord + p + 1, (size_t)(q - p) * sizeof(*m->by_ord));
	else
		memmove(m->by_ord + q + 1, m->by_ord + q, (size_t)(p - q) * sizeof(*m->by_ord));
	m->by_ord[q] = v;
	for (uint32_t i = p < q ? p : q; i <= (p < q ? q : p); i++)
		m->ord[m->by_ord[i]] = i;
}

/*
 * For every switch of the piece, the switches without an upper neighbour
 * (tops) that it reaches going up, as bits by the tops' rank in up order
 * (ro->wt words a switch, at m->tmp[x] * ro->wt); then the host-switch
 * pairs that share none. Numbering only the tops keeps the bits short
 * (the cores of a fat tree: one word for k=16, not five), but the work is
 * counted as for bits by place in the piece, so that the budget, and the
 * order the repair finds, stay what they were.
 */
static uint64_t uncovered(struct ud *m, struct ro *ro)
{
	uint64_t bad = 0;
	uint32_t tops = 0;

	for (uint32_t p = ro->lo; p < ro->hi; p++) {
		uint32_t x = m->by_ord[p], e;

		if (m->comp[x] != ro->c)
			continue;
		for (e = m->adj_off[x]; e < m->adj_off[x + 1] && m->ord[m->adj_nbr[e]] > p; e++)
			;
		ro->top[m->tmp[x]] = e == m->adj_off[x + 1] ? tops++ : INF;
	}
	ro->wt = (tops + 63) / 64;
	for (uint32_t p = ro->lo; p < ro->hi; p++) {
		uint32_t x = m->by_ord[p], t = m->tmp[x];
		uint64_t *bx = ro->bits + (size_t)t * ro->wt;

		if (m->comp[x] != ro->c)
			continue;
		memset(bx, 0, ro->wt * sizeof(*bx));
		if (ro->top[t] != INF) {
			bx[ro->top[t] / 64] |= 1ull << (ro->top[t] % 64);
			continue;
		}
		for (uint32_t e = m->adj_off[x]; e < m->adj_off[x + 1]; e++) {
			const uint64_t *by = ro->bits + (size_t)m->tmp[m->adj_nbr[e]] * ro->wt;

			if (m->ord[m->adj_nbr[e]] > p)
				continue;
			for (uint32_t k = 0; k < ro->wt; k++)
				bx[k] |= by[k];
		}
	}
	for (uint32_t i = 0; i < ro->nh; i++) /* the host switches' bits side by side */
		memcpy(ro->hb + (size_t)i * ro->wt, ro->bits + (size_t)m->tmp[ro->host[i]] * ro->wt,
		       ro->wt * sizeof(*ro->hb));
	for (uint32_t i = 0; i < ro->nh; i++) {
		const uint64_t *a = ro->hb + (size_t)i * ro->wt;

		if (ro->wt == 1) {
			for (uint32_t j = i + 1; j < ro->nh; j++)
				bad += !(a[0] & ro->hb[j]);
			continue;
		}
		for (uint32_t j = i + 1; j < ro->nh; j++) {
			const uint64_t *b = ro->hb + (size_t)j * ro->wt;
			bool meet = false;

			for (uint32_t k = 0; k < ro->wt && !meet; k++)
				meet = a[k] & b[k];
			bad += !meet;
		}
	}
	ro->work += (uint64_t)ro->n * ro->w + (uint64_t)ro->nh * ro->nh / 2 * ro->w;
	return bad;
}

/* Partners of host switch i without a common top (bits as uncovered() left them). */
static uint32_t partners_short(struct ud *m, const struct ro *ro, uint32_t i)
{
	const uint64_t *a = ro->bits + (size_t)m->tmp[ro->host[i]] * ro->wt;
	uint32_t n = 0;

	for (uint32_t j = 0; j < ro->nh; j++) {
		const uint64_t *b = ro->bits + (size_t)m->tmp[ro->host[j]] * ro->wt;
		bool meet = false;

		for (uint32_t k = 0; k < ro->wt && !meet; k++)
			meet = a[k] & b[k];
		n += !meet;
	}
	return n;
}

/* How many switches h reaches going up, into m->queue (ro->mark set on them). */
static uint32_t closure(struct ud *m, struct ro *ro, uint32_t h)
{
	uint32_t n = 0;

	m->queue[n++] = h;
	ro->mark[m->tmp[h]] = 1;
	for (uint32_t i = 0; i < n; i++)
		for (uint32_t e = m->adj_off[m->queue[i]]; e < m->adj_off[m->queue[i] + 1]; e++) {
			uint32_t y = m->adj_nbr[e];

			if (m->ord[y] < m->ord[m->queue[i]] && !ro->mark[m->tmp[y]]) {
				ro->mark[m->tmp[y]] = 1;
				m->queue[n++] = y;
			}
		}
	return n;
}

static void unmark(struct ud *m, struct ro *ro, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		ro->mark[m->tmp[m->queue[i]]] = 0;
}

/*
 * The best move for host switch h: of the switches h reaches going up (in
 * up order; m->queue and ro->mark as scratch), each v below a neighbour u
 * now under it. *best_bad the pairs left, *bv *bu the move (INF if none
 * leaves fewer than now).
 */
static int best_move(struct ud *m, struct ro *ro, uint32_t h, uint64_t now, uint64_t *best_bad,
		     uint32_t *bv, uint32_t *bu)
{
	uint32_t n = closure(m, ro, h), best_up = n;
	_cleanup_free_ uint32_t *mine = malloc(((size_t)n + 1) * sizeof(*mine));

	*best_bad = now;
	*bv = *bu = INF;
	if (!mine) {
		unmark(m, ro, n);
		return -ENOMEM;
	}
	for (uint32_t i = 0, k = 0; k < n; i++) /* h's up-closure in up order */
		if (m->comp[m->by_ord[ro->lo + i]] == ro->c && ro->mark[m->tmp[m->by_ord[ro->lo + i]]])
			mine[k++] = m->by_ord[ro->lo + i];
	unmark(m, ro, n);
	for (uint32_t i = 0; i < n && ro->work < ro->budget; i++) {
		uint32_t v = mine[i];

		for (uint32_t e = m->adj_off[v]; e < m->adj_off[v + 1]; e++) {
			uint32_t u = m->adj_nbr[e];

			/* v next to u (either side), or u lifted just above v */
			for (int kind = 0; kind < 2; kind++) {
				uint32_t x = kind ? u : v, p = m->ord[x], q = m->ord[kind ? v : u], up;
				uint64_t bad;

				if (ro->moved[m->tmp[x]] || (kind && q > p))
					continue;
				shift(m, p, q);
				bad = uncovered(m, ro);
				up = closure(m, ro, h);
				unmark(m, ro, up);
				shift(m, q, p);
				if (bad < *best_bad || (bad == *best_bad && up > best_up)) {
					*best_bad = bad;
					best_up = up;
					*bv = x;
					*bu = kind ? v : u;
				}
			}
		}
	}
	return 0;
}

/* One step: 1 a move made, 0 none helps, -E2BIG the budget is spent. */
static int reorder_step(struct ud *m, struct ro *ro, uint8_t *tried)
{
	uint64_t now = uncovered(m, ro);

	memset(tried, 0, ro->nh);
	for (;;) {
		uint32_t worst = INF, most = 0, v, u;
		uint64_t bad;

		uncovered(m, ro);
		for (uint32_t i = 0; i < ro->nh; i++) {
			uint32_t k = tried[i] ? 0 : partners_short(m, ro, i);

			if (k > most || (k == most && k && m->ord[ro->host[i]] <
						     m->ord[ro->host[worst]])) {
				most = k;
				worst = i;
			}
		}
		if (worst == INF)
			return 0;
		tried[worst] = 1;
		if (best_move(m, ro, ro->host[worst], now, &bad, &v, &u) < 0)
			return -ENOMEM;
		if (ro->work >= ro->budget)
			return -E2BIG;
		if (v != INF) {
			shift(m, m->ord[v], m->ord[u]);
			ro->moved[m->tmp[v]] = 1;
			m->note_reordered++;
			return bad ? 1 : 2;
		}
	}
}

int updn_reorder(struct ud *m, uint32_t c)
{
	const uint32_t *mem = m->comp_sw + m->comp_off[c];
	struct ro ro = { .c = c, .n = m->comp_off[c + 1] - m->comp_off[c], .lo = INF };
	_cleanup_free_ uint8_t *tried = NULL;
	int r = 1;

	ro.w = (ro.n + 63) / 64;
	ro.budget = m->reorder_budget ? m->reorder_budget : UPDN_REORDER_WORK;
	ro.bits = calloc((size_t)ro.n * ro.w + 1, sizeof(*ro.bits));
	ro.host = malloc(((size_t)ro.n + 1) * sizeof(*ro.host));
	tried = malloc((size_t)ro.n + 1);
	ro.mark = calloc((size_t)ro.n + 1, 1);
	ro.top = malloc(((size_t)ro.n + 1) * sizeof(*ro.top));
	ro.hb = malloc(((size_t)ro.n * ro.w + 1) * sizeof(*ro.hb));
	ro.moved = calloc((size_t)ro.n + 1, 1);
	if (!ro.bits || !ro.host || !tried || !ro.mark || !ro.moved || !ro.top || !ro.hb) {
		r = -ENOMEM;
		goto out;
	}
	for (uint32_t i = 0; i < ro.n; i++) {
		uint32_t x = mem[i];

		m->tmp[x] = i;
		ro.lo = m->ord[x] < ro.lo ? m->ord[x] : ro.lo;
		ro.hi = m->ord[x] + 1 > ro.hi ? m->ord[x] + 1 : ro.hi;
	}
	for (uint32_t p = ro.lo; p < ro.hi; p++)
		if (m->comp[m->by_ord[p]] == c && m->ncas[m->by_ord[p]])
			ro.host[ro.nh++] = m->by_ord[p];
	if (!uncovered(m, &ro))
		goto out;
	/* Each switch moves once at most: at most n steps. */
	while ((r = reorder_step(m, &ro, tried)) == 1)
		;
	r = r == 2 ? 1 : r == -ENOMEM ? r : 0;
out:
	for (uint32_t i = 0; i < ro.n; i++)
		m->tmp[mem[i]] = INF;
	free(ro.bits);
	free(ro.host);
	free(ro.mark);
	free(ro.moved);
	free(ro.top);
	free(ro.hb);
	return r;
}
