/* SPDX-License-Identifier: MIT */
/*
 * Up/down tuning by the load measured: once the repair and its variants
 * (updn_best.c) have routed a fabric whose roots needed bridges, move one
 * switch at a time in the kept routing's up order, next to a neighbour,
 * around the busiest link, route again, and keep the move when the
 * routing is less loaded: a busiest link with fewer all-to-all host
 * routes, or as many on fewer links, or the same with the routes spread
 * more evenly (the sum of their squares: a move that takes routes off a
 * busy link shows there before the busiest one drops).
 *
 * Why. The repair picks its bridges by coverage, blind to where the routes
 * then go: on ft3 k=8 --degrade 0.3 seed 3 it lowered two of a leaf's three
 * aggregation switches below it, so all that leaf's traffic came down
 * through the third (648 routes on one link, min-hop 496). Any total order
 * is free of credit loops, so the order may change anywhere as long as
 * every host switch keeps an up*, then down* route to every host: after a
 * move updn_reorder.c covers again what it uncovered (within a few
 * routings' work), and a move that leaves a host switch without is
 * dropped. Moving a switch next to a neighbour turns that one link around;
 * the moves tried are those of the ends of the busiest links, then of
 * their neighbours, and the first that helps is kept (trying them all
 * before choosing cost 3-4 times as many routings and got stuck more
 * often). A step that finds none tries the same order balanced the other
 * ways (updn_modes).
 *
 * The walk. A step where nothing helps is a local minimum, not the end:
 * on k=8 --degrade 0.3 seed 14 the moves stopped at 640 (min-hop 496),
 * and neither more routings nor two moves at a time went lower. So the
 * step then goes on with the least loaded routing it tried, though it is
 * not better (a tabu walk): the switch that move moved stays put for
 * UPDN_TUNE_TABU steps, or the next step would move it straight back.
 * The least loaded routing met on the way is the one kept (its order is
 * routed once more at the end). Tuning ends when the busiest link is down
 * to the bound no routing can beat (a host switch's routes spread evenly
 * over its links), when its routings are spent (updn_best.c), or when no
 * move of a switch not tabu routes at all.
 *
 * Measured (topogen fattree3, k=8/12/16, --degrade 0.1-0.3, seeds 1-10):
 * k=8 --degrade 0.3 seeds 3, 5, 10 went from 648, 564, 600 to 496 each
 * (min-hop 496, 496, 556: 271 routings for seed 10), and no fabric's
 * busiest link grew. With the walk (and 1600 routings at k=8, updn_best.c):
 * k=8 --degrade 0.3 seed 14 640 -> 496 (about 1340 routings), --degrade
 * 0.4 seed 19 800 -> 496 (min-hop 548); the busiest link dropped on 16 of
 * the 90 fabrics of seeds 1-10 (k=12 --degrade 0.2 seed 5 1776 -> 1482)
 * and on 35 of the 120 of seeds 11-20 (0.1-0.4), and grew on none (with
 * updn_best.c's one-root variant and tuning floor too: 21 of 90 and 41 of
 * 120). It is bounded by its routings: k=12 --degrade 0.4 seed 13 stays at
 * 3492 (min-hop 2556) with about 170, and gets to 2556 with 20 times as
 * many (5 s); ft3 k=16 gets about 14.
 * Moves, ties, the links looked at and the tabu steps follow the up order
 * and port numbers, so the tables still depend on the fabric only.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cleanup.h"
#include "updn_priv.h"

int updn_tune_take(struct ud *m)
{
	const struct ud *b = m->base;
	size_t n = m->n_sw;

	memcpy(m->comp, b->comp, n * sizeof(*m->comp));
	memcpy(m->comp_off, b->comp_off, ((size_t)b->n_comp + 1) * sizeof(*m->comp_off));
	memcpy(m->comp_sw, b->comp_sw, n * sizeof(*m->comp_sw));
	memcpy(m->is_root, b->is_root, n);
	memcpy(m->sub, b->sub, n);
	memcpy(m->rank, b->rank, n * sizeof(*m->rank));
	m->n_comp = b->n_comp;
	m->missing = b->missing;
	m->note_sw = b->note_sw;
	m->note_comp = b->note_comp;
	m->note_rule = b->note_rule;
	m->note_h = b->note_h;
	m->note_node = b->note_node;
	m->note_moved = b->note_moved;
	m->note_reordered = b->note_reordered;
	m->note_lower = b->note_lower;
	m->fell_back = b->fell_back;
	m->note_tuned = b->note_tuned +
			!!memcmp(m->given_ord, b->by_ord, n * sizeof(*m->given_ord));
	for (uint32_t p = 0; p < n; p++) {
		m->by_ord[p] = m->given_ord[p];
		m->ord[m->by_ord[p]] = p;
	}
	/* a move may leave host switches without a switch above both: repair */
	for (uint32_t c = 0; c < m->n_comp; c++) {
		int r = updn_reorder(m, c);

		if (r <= 0)
			return r < 0 ? r : -ECANCELED;
	}
	/* the repair undid the move: base's routing again (-ESRCH: not routed) */
	if (m->by_flow == b->by_flow && m->look == b->look &&
	    !memcmp(m->by_ord, b->by_ord, n * sizeof(*m->by_ord)))
		return -ESRCH;
	return 0;
}

/*
 * No routing's busiest link carries less than this: a host switch's routes
 * to and from the other hosts of its piece spread evenly over its links.
 */
static uint64_t floor_load(const struct ud *m)
{
	uint64_t least = 0;

	for (uint32_t c = 0; c < m->n_comp; c++) {
		uint64_t hosts = 0;

		for (uint32_t i = m->comp_off[c]; i < m->comp_off[c + 1]; i++)
			hosts += m->ncas[m->comp_sw[i]];
		for (uint32_t i = m->comp_off[c]; i < m->comp_off[c + 1]; i++) {
			uint32_t s = m->comp_sw[i], links = m->adj_off[s + 1] - m->adj_off[s];
			uint64_t routes = (uint64_t)m->ncas[s] * (hosts - m->ncas[s]);

			if (links && (routes + links - 1) / links > least)
				least = (routes + links - 1) / links;
		}
	}
	return least;
}

/*
 * How loaded a routing is, compared in this order: its busiest link's
 * all-to-all host routes, how many links carry as many, the sum of every
 * link's routes squared (the lower, the more evenly spread: a move that
 * takes routes off a busy link shows there before the busiest one drops).
 */
struct score {
	uint64_t worst;
	uint32_t at;
	uint64_t sq;
};

static struct score measure(const struct ud *m)
{
	struct score sc = { 0 };

	for (uint32_t e = 0; e < m->adj_off[m->n_sw]; e++) {
		if (m->traffic[e] > sc.worst) {
			sc.worst = m->traffic[e];
			sc.at = 0;
		}
		sc.at += m->traffic[e] == sc.worst;
		sc.sq += m->traffic[e] * m->traffic[e];
	}
	return sc;
}

static bool better(const struct score *a, const struct score *b)
{
	if (a->worst != b->worst)
		return a->worst < b->worst;
	return a->at != b->at ? a->at < b->at : a->sq < b->sq;
}

/* by_ord with the switch at place p moved to place q, those between shifted. */
static void shift(uint32_t *by_ord, uint32_t p, uint32_t q)
{
	uint32_t v = by_ord[p];

	if (p < q)
		memmove(by_ord + p, by_ord + p + 1, (size_t)(q - p) * sizeof(*by_ord));
	else
		memmove(by_ord + q + 1, by_ord + q, (size_t)(p - q) * sizeof(*by_ord));
	by_ord[q] = v;
}

/* A routing and what it measured. */
struct tuned {
	struct ud m;
	struct route_out out;
	struct route_why why;
	uint64_t worst;
	struct score sc;
};

static void tuned_free(struct tuned *t)
{
	updn_free(&t->m);
	route_out_free(&t->out);
	memset(t, 0, sizeof(*t));
}

/* updn_reorder()'s work to cover again after a move, in routings' work */
#define UPDN_TUNE_REORDER 4ull

/*
 * Route with best's order but switch place p moved to place q (into *t).
 * 1 routed and every host switch keeps its up/down routes, 0 not, -ESRCH
 * not routed (the same order as best's), -ENOMEM.
 */
static int try_move(const struct ud *best, uint32_t *cand, uint32_t p, uint32_t q,
		    struct tuned *t, const struct updn_mode *how)
{
	int r;

	if (p != q)
		memcpy(cand, best->by_ord, best->n_sw * sizeof(*cand));
	shift(cand, p, q);
	t->m = (struct ud){ .sn = best->sn, .o = best->o, .out = &t->out,
			    .by_flow = how ? how->by_flow : best->by_flow,
			    .look = how ? how->look : best->look, .base = best, .given_ord = cand,
			    .hops = best->hops,
			    .reorder_budget = UPDN_TUNE_REORDER * best->n_sw *
					      best->adj_off[best->n_sw] };
	r = updn_try(&t->m, &t->why, &t->worst);
	if (r == -ENOMEM || r == -ESRCH)
		return r;
	if (r < 0 || t->m.host_detours > best->host_detours ||
	    t->out.stats.unreach != best->out->stats.unreach)
		return 0;
	t->sc = measure(&t->m);
	return 1;
}

/*
 * The switches whose moves a step tries, into set[] (pos[] their places
 * there): the ends of the first UPDN_TUNE_LINKS busiest links in up order
 * then port order, then the neighbours of those ends in the same order
 * (turning a link next to the busiest one moves the routes the busiest one
 * would take over). How many.
 */
#define UPDN_TUNE_LINKS 4

static uint32_t tune_set(const struct ud *m, uint64_t worst, uint32_t *set, uint32_t *pos)
{
	uint32_t n = 0, links = 0, ends;

	for (uint32_t p = 0; p < m->n_sw && links < UPDN_TUNE_LINKS; p++) {
		uint32_t s = m->by_ord[p];

		for (uint32_t e = m->adj_off[s]; e < m->adj_off[s + 1] && links < UPDN_TUNE_LINKS;
		     e++) {
			uint32_t two[2] = { s, m->adj_nbr[e] };

			if (m->traffic[e] != worst)
				continue;
			links++;
			for (int i = 0; i < 2; i++)
				if (pos[two[i]] == INF) {
					pos[two[i]] = n;
					set[n++] = two[i];
				}
		}
	}
	ends = n;
	for (uint32_t i = 0; i < ends; i++)
		for (uint32_t e = m->adj_off[set[i]]; e < m->adj_off[set[i] + 1]; e++)
			if (pos[m->adj_nbr[e]] == INF) {
				pos[m->adj_nbr[e]] = n;
				set[n++] = m->adj_nbr[e];
			}
	return n;
}

/* Keep t in *step if it beats now. */
static bool keep_better(struct tuned *t, const struct score *now, struct tuned *step)
{
	if (!better(&t->sc, now))
		return false;
	*step = *t;
	step->m.out = &step->out;
	memset(t, 0, sizeof(*t));
	return true;
}

/*
 * What a step carries besides the moves it finds better: the best routing
 * of those not better than now (the way on when none is), and the switches
 * such ways on moved lately (tabu), which no step moves again until
 * UPDN_TUNE_TABU steps later, so the search does not walk straight back
 * (4 and 16 steps, or both ends of the link turned, did worse than 8 on
 * the k=8 --degrade 0.3/0.4 fabrics that stayed above min-hop).
 */
#define UPDN_TUNE_TABU 8

struct walk {
	struct tuned side;
	uint32_t *tabu; /* [sw] step number from which it may move again */
	uint32_t step, side_moved;
};

/*
 * Route the move of place p to place q in best's order (or best's order
 * balanced the way how says; moved the switch moved, or INF): 1 it beats
 * now (in *step), 0 not (kept in w->side if it is the best of those),
 * -ESRCH not routed (the repair after the move undid it), -ENOMEM.
 */
static int tune_one(const struct ud *best, uint32_t *cand, uint32_t p, uint32_t q,
		    const struct updn_mode *how, const struct score *now, struct tuned *step,
		    struct walk *w, uint32_t moved)
{
	struct tuned t = { 0 };
	int r = try_move(best, cand, p, q, &t, how);
	bool ok = r > 0;

	if (r > 0)
		r = keep_better(&t, now, step);
	if (ok && r == 0 && (!w->side.m.out || better(&t.sc, &w->side.sc))) {
		tuned_free(&w->side);
		w->side_moved = moved;
		keep_better(&t, &(struct score){ UINT64_MAX, 0, 0 }, &w->side);
	}
	tuned_free(&t);
	return r;
}

/*
 * One step: the moves of the switches of tune_set() next to a neighbour
 * (or of the neighbour next to them), each turning one link, in that order,
 * then best's order balanced the other ways; the first routing that beats
 * now goes into *step. Switches tabu are not moved. 1 found, 0 none,
 * -ENOMEM. *tries counts down the routings.
 */
static int tune_step(const struct ud *best, const struct score *now, struct tuned *step,
		     uint32_t *tries, struct walk *w)
{
	size_t sz = ((size_t)best->n_sw + 1) * sizeof(uint32_t);
	_cleanup_free_ uint32_t *cand = malloc(sz), *set = malloc(sz), *pos = malloc(sz);
	uint32_t n;
	int r = 0;

	if (!cand || !set || !pos)
		return -ENOMEM;
	memset(pos, 0xff, sz);
	n = tune_set(best, now->worst, set, pos);
	for (uint32_t i = 0; i < n && *tries && !r; i++) {
		uint32_t z = set[i];

		for (uint32_t f = best->adj_off[z]; f < best->adj_off[z + 1] && *tries && !r; f++) {
			uint32_t u = best->adj_nbr[f], dup = pos[u] < i;

			for (uint32_t g = best->adj_off[z]; g < f; g++)
				dup |= best->adj_nbr[g] == u; /* parallel cables */
			/* z next to u, then u next to z: either turns the link z-u */
			for (int k = 0; k < 2 && *tries && !r && !dup; k++) {
				uint32_t p = best->ord[k ? u : z], q = best->ord[k ? z : u];

				if (w->tabu[k ? u : z] > w->step)
					continue;
				r = tune_one(best, cand, p, q, NULL, now, step, w, k ? u : z);
				*tries -= r != -ESRCH;
				r = r == -ESRCH ? 0 : r;
			}
		}
	}
	for (uint32_t k = 0; k < UPDN_MODES_PLAIN && *tries && !r; k++) {
		if (updn_modes[k].by_flow == best->by_flow && updn_modes[k].look == best->look)
			continue;
		(*tries)--;
		memcpy(cand, best->by_ord, best->n_sw * sizeof(*cand));
		r = tune_one(best, cand, 0, 0, &updn_modes[k], now, step, w, INF);
	}
	return r;
}

static void adopt(struct ud *best, struct route_out *out, struct route_why *why,
		  uint64_t *worst, struct tuned *step)
{
	updn_free(best);
	route_out_free(out);
	*best = step->m;
	*out = step->out;
	best->out = out;
	best->base = NULL;
	best->given_ord = NULL;
	if (why)
		*why = step->why;
	*worst = step->worst;
	memset(step, 0, sizeof(*step));
}

int updn_tune(struct ud *best, struct route_out *out, struct route_why *why, uint64_t *worst,
	      uint32_t tries)
{
	uint64_t least = floor_load(best);
	struct score now = measure(best), top = now;
	size_t sz = ((size_t)best->n_sw + 1) * sizeof(uint32_t);
	_cleanup_free_ uint32_t *top_ord = malloc(sz), *cand = malloc(sz), *tabu = calloc(sz, 1);
	struct updn_mode top_how = { best->by_flow, best->look };
	struct walk w = { .tabu = tabu };
	bool at_top = true;
	int r = 0;

	if (!top_ord || !cand || !tabu)
		return -ENOMEM;
	memcpy(top_ord, best->by_ord, best->n_sw * sizeof(*top_ord));
	while (top.worst > least && tries) {
		struct tuned step = { 0 };

		w.step++;
		r = tune_step(best, &now, &step, &tries, &w);
		if (r == 0 && w.side.m.out) {
			step = w.side;
			memset(&w.side, 0, sizeof(w.side));
			if (w.side_moved != INF)
				tabu[w.side_moved] = w.step + UPDN_TUNE_TABU;
			r = 1;
		}
		tuned_free(&w.side);
		if (r <= 0) {
			tuned_free(&step);
			break;
		}
		now = step.sc;
		adopt(best, out, why, worst, &step);
		at_top = better(&now, &top);
		if (at_top) {
			top = now;
			top_how = (struct updn_mode){ best->by_flow, best->look };
			memcpy(top_ord, best->by_ord, best->n_sw * sizeof(*top_ord));
		}
	}
	if (r >= 0 && !at_top) {
		struct tuned t = { 0 };

		memcpy(cand, top_ord, best->n_sw * sizeof(*cand));
		r = try_move(best, cand, 0, 0, &t, &top_how);
		if (r > 0)
			adopt(best, out, why, worst, &t);
		tuned_free(&t);
	}
	return r < 0 ? r : 0;
}
