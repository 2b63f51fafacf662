/* SPDX-License-Identifier: MIT */
/*
 * Up/down coverage: do several found roots leave every two host switches a
 * root above both (an up*, then down* route between them)? And when they do
 * not, the local repair that makes them.
 *
 * Why a repair, and why this one. On a degraded fat tree the top level, the
 * natural roots, seldom covers every pair: a leaf left with the uplinks to
 * aggregation switches 1, 3 and 4 of its pod shares no core with a leaf of
 * another pod left with only aggregation switch 2 (a core links to the same
 * aggregation index in every pod). No root set of cores can fix that, and
 * one root instead (the old answer) sends every route through that switch:
 * 12 to 50 times the all-to-all bound on ft3 k=8 and k=16 with 20% of the
 * links gone, where min-hop is 3 to 6 times. The up order need not follow
 * the ranks strictly, though; any total order is free of credit loops. So
 * the repair keeps the roots and the ranks and changes the order locally:
 * for the host switch h short of the most partners, each switch A above h
 * (rank r) is lowered below one of its other lower neighbours X (rank r+1),
 * the bridge, which in turn goes just below the switches of rank r. Then h
 * goes up through A into X and on up through X's other upper neighbours:
 * h's cone of roots grows by X's, the path min-hop takes through a leaf.
 * Every A of h gets a bridge, so h's traffic to its partners spreads over
 * all its uplinks. A lowered switch sits below every bridge next to it, so
 * each of those loses an uplink, and a bridge left with one carries all its
 * hosts' traffic on it: the bridge chosen keeps most uplinks on the poorest
 * bridge next to A (two are tried before one), then reaches most of h's
 * partners net of those it loses itself (repaired later from their other
 * end). Routes away from the bridges stay as they were. Every step moves
 * at least one switch for good (normal to lowered or bridge), so the loop
 * ends; when no step helps, the caller moves switches in the up order
 * instead (updn_reorder.c), and falls back to one root only if that fails.
 *
 * Measured (bench/route, fattree3 --degrade 0.2, k=8 seeds 1-12, k=16
 * seeds 1-6): every fabric repaired, the busiest link at or below min-hop's
 * on 14 of 18 and at most 1.16 times it, no credit loop. The repair's
 * greedy ties decide much of that, so updn_best.c also routes variants of
 * it (jitter(), urgency(), the floor to start from) and keeps the best.
 * Trees with 30% of their links gone can leave host switches no step of
 * any variant helps (k=8 --degrade 0.3: 1 seed of 10; updn_reorder.c
 * covers it).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cleanup.h"
#include "updn_priv.h"

struct cones {
	uint64_t *bits; /* [place in piece * w] roots above the switch */
	uint64_t *acc;  /* [w] scratch */
	uint32_t w, nh; /* words per switch; host switches, places in m->pick */
	uint32_t ups;   /* bridge_score(): uplinks the bridge keeps */
	const uint32_t *mem;
	uint32_t n;
};

/*
 * A variant's tie-breaker for switch s: 0..7 from the variant's seed and
 * s's GUID (never its place in the model, so the tables stay the fabric's).
 */
static uint32_t jitter(const struct ud *m, uint32_t s)
{
	uint64_t z = ud_guid(m, s) + 0x9e3779b97f4a7c15ull * (m->variant + 1);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return (uint32_t)(z ^ (z >> 31)) % 8;
}

static bool meet(const uint64_t *a, const uint64_t *b, uint32_t w)
{
	for (uint32_t k = 0; k < w; k++)
		if (a[k] & b[k])
			return true;
	return false;
}

static uint64_t *cone_of(const struct cones *cs, uint32_t place)
{
	return cs->bits + (size_t)place * cs->w;
}

/* The roots above each switch of piece c, in up order; m->tmp[x] is x's place. */
static int cones_make(struct ud *m, uint32_t c, struct cones *cs)
{
	uint32_t nr = 0;

	cs->mem = m->comp_sw + m->comp_off[c];
	cs->n = m->comp_off[c + 1] - m->comp_off[c];
	cs->nh = 0;
	for (uint32_t i = 0; i < cs->n; i++) {
		m->tmp[cs->mem[i]] = i;
		if (m->is_root[cs->mem[i]])
			m->len[cs->mem[i]] = nr++;
	}
	cs->w = (nr + 63) / 64;
	cs->bits = calloc((size_t)cs->n * cs->w + 1, sizeof(*cs->bits));
	cs->acc = malloc(((size_t)cs->w + 1) * sizeof(*cs->acc));
	if (!cs->bits || !cs->acc)
		return -ENOMEM;
	for (uint32_t p = 0; p < m->n_sw; p++) {
		uint32_t x = m->by_ord[p];
		uint64_t *bx;

		if (m->comp[x] != c)
			continue;
		bx = cone_of(cs, m->tmp[x]);
		if (m->is_root[x])
			bx[m->len[x] / 64] |= 1ull << (m->len[x] % 64);
		for (uint32_t e = m->adj_off[x]; e < m->adj_off[x + 1]; e++)
			if (m->ord[m->adj_nbr[e]] < p)
				for (uint32_t k = 0; k < cs->w; k++)
					bx[k] |= cone_of(cs, m->tmp[m->adj_nbr[e]])[k];
		if (m->ncas[x])
			m->pick[cs->nh++] = m->tmp[x];
	}
	return 0;
}

static void cones_free(struct ud *m, struct cones *cs)
{
	for (uint32_t i = 0; i < cs->n; i++)
		m->tmp[cs->mem[i]] = INF;
	free(cs->bits);
	free(cs->acc);
}

/* Is there a root above every host switch? Then every pair shares it. */
static bool common_root(const struct cones *cs, const uint32_t *host)
{
	for (uint32_t k = 0; k < cs->w; k++) {
		uint64_t all = ~0ull;

		for (uint32_t i = 0; i < cs->nh && all; i++)
			all &= cone_of(cs, host[i])[k];
		if (all)
			return true;
	}
	return false;
}

/* How many host switches each host switch shares no root with: bad[i]. */
static uint64_t count_bad(const struct cones *cs, const uint32_t *host, uint32_t *bad)
{
	uint64_t total = 0;

	for (uint32_t i = 0; i < cs->nh; i++) {
		bad[i] = 0;
		for (uint32_t j = 0; j < cs->nh; j++)
			bad[i] += !meet(cone_of(cs, host[i]), cone_of(cs, host[j]), cs->w);
		total += bad[i];
	}
	return total;
}

/*
 * How many more of h's partners without a common root would X reach up
 * through its upper neighbours of rank r but a (X's cone once a is lowered
 * below it) than X would lose itself? Those are repaired later from their
 * other end, so only a net gain counts.
 */
static int64_t bridge_score(struct ud *m, struct cones *cs, const uint32_t *host, uint32_t h,
			    uint32_t a, uint32_t x)
{
	const uint64_t *ch = cone_of(cs, m->tmp[h]), *cx = cone_of(cs, m->tmp[x]);
	int64_t score = 0;

	cs->ups = 0;
	memset(cs->acc, 0, (size_t)cs->w * sizeof(*cs->acc));
	for (uint32_t e = m->adj_off[x]; e < m->adj_off[x + 1]; e++) {
		uint32_t y = m->adj_nbr[e];

		if (y == a || m->rank[y] != m->rank[a] || m->sub[y] == S_LOWERED)
			continue;
		cs->ups++;
		for (uint32_t k = 0; k < cs->w; k++)
			cs->acc[k] |= cone_of(cs, m->tmp[y])[k];
	}
	for (uint32_t j = 0; j < cs->nh; j++) {
		const uint64_t *cj = cone_of(cs, host[j]);
		bool reach = meet(cs->acc, cj, cs->w);

		score -= !reach && meet(cx, cj, cs->w);
		score += reach && !meet(ch, cj, cs->w);
	}
	return score;
}

/* Uplinks z keeps (neighbours one rank up, not lowered) once a is lowered. */
static uint32_t ups_without(const struct ud *m, uint32_t z, uint32_t a)
{
	uint32_t n = 0;

	for (uint32_t e = m->adj_off[z]; e < m->adj_off[z + 1]; e++) {
		uint32_t y = m->adj_nbr[e];

		n += y != a && m->rank[y] + 1 == m->rank[z] && m->sub[y] != S_LOWERED;
	}
	return n;
}

/* The fewest uplinks a bridge next to a keeps once a is lowered, or least. */
static uint32_t bridges_keep(const struct ud *m, uint32_t a, uint32_t least)
{
	for (uint32_t e = m->adj_off[a]; e < m->adj_off[a + 1]; e++) {
		uint32_t z = m->adj_nbr[e], k;

		if (m->sub[z] != S_BRIDGE || m->rank[z] != m->rank[a] + 1)
			continue;
		k = ups_without(m, z, a);
		least = k < least ? k : least;
	}
	return least;
}

/*
 * Lower a, an upper neighbour of h, below the bridge that reaches most of
 * h's partners; false if none does while every bridge next to a keeps
 * min_ups uplinks. A lowered switch is below every bridge next to it, so
 * each of them loses an uplink, and a bridge left with one uplink carries
 * all its hosts' traffic on it: the choice first keeps the most uplinks on
 * the poorest bridge, then reaches the most partners.
 */
static bool bridge_one(struct ud *m, struct cones *cs, const uint32_t *host, uint32_t h,
		       uint32_t a, uint32_t min_ups)
{
	uint32_t bx = INF, best_ups = 0, others = bridges_keep(m, a, UINT32_MAX);
	int64_t best = 0;

	for (uint32_t f = m->adj_off[a]; f < m->adj_off[a + 1]; f++) {
		uint32_t x = m->adj_nbr[f], ups;
		int64_t s;

		if (x == h || m->rank[x] != m->rank[h] || m->sub[x] == S_LOWERED ||
		    (m->sub[a] == S_LOWERED && m->sub[x] == S_BRIDGE))
			continue;
		s = bridge_score(m, cs, host, h, a, x);
		ups = cs->ups < others ? cs->ups : others;
		if (m->variant && s > 0) /* a variant: gains within 1/8 can swap */
			s = s * 8 + jitter(m, x);
		if (s > 0 && ups >= min_ups && (ups > best_ups || (ups == best_ups && s > best))) {
			best = s;
			best_ups = ups;
			bx = x;
		}
	}
	if (!best)
		return false;
	m->sub[a] = S_LOWERED;
	m->sub[bx] = S_BRIDGE;
	return true;
}

/*
 * One repair step for host switch h: each upper neighbour A of h is lowered
 * below its best bridge, so that h's routes to its partners spread over all
 * its uplinks instead of crowding one. 0 done, -ENOENT none helps.
 */
static int bridge(struct ud *m, struct cones *cs, const uint32_t *host, uint32_t h,
		  uint32_t floor)
{
	bool moved = false;

	if (m->sub[h] == S_BRIDGE) /* its upper neighbours must stay above it */
		return -ENOENT;
	for (uint32_t e = m->adj_off[h]; e < m->adj_off[h + 1]; e++) {
		uint32_t a = m->adj_nbr[e];

		if (m->ord[a] > m->ord[h] || m->rank[a] + 1 != m->rank[h] ||
		    m->sub[a] == S_BRIDGE)
			continue;
		/* spreading must not leave a bridge one uplink */
		moved |= bridge_one(m, cs, host, h, a, moved ? 2 : floor);
	}
	return moved ? 0 : -ENOENT;
}

/*
 * How urgent host switch i's repair is: its partners without a common root,
 * weighed in a variant by 4 to 11 from its GUID, so that variants repair
 * host switches in different orders.
 */
static uint64_t urgency(const struct ud *m, const struct cones *cs, const uint32_t *bad,
			uint32_t i)
{
	if (!m->variant)
		return bad[i];
	return (uint64_t)bad[i] * (4 + jitter(m, cs->mem[m->pick[i]]));
}

/*
 * Repair the host switch short of most partners (the first in up order on
 * a tie), else the next one, with bridges that keep at least floor uplinks.
 * 0 switches moved, -ENOENT no move helps.
 */
static int cover_pass(struct ud *m, struct cones *cs, uint32_t *bad, uint32_t floor)
{
	int r = -ENOENT;

	while (r == -ENOENT) {
		uint32_t worst = 0;

		for (uint32_t i = 1; i < cs->nh; i++)
			worst = urgency(m, cs, bad, i) > urgency(m, cs, bad, worst) ? i : worst;
		if (!bad[worst])
			break;
		bad[worst] = 0;
		r = bridge(m, cs, m->pick, cs->mem[m->pick[worst]], floor);
	}
	return r;
}

/*
 * 1 every host pair of piece c shares a root, 0 switches moved, -ENOENT no
 * move helps, -ENOMEM. Bridges left two uplinks are tried first: one left
 * a single uplink carries all its hosts' traffic on it.
 */
static int cover_step(struct ud *m, uint32_t c)
{
	struct cones cs = { 0 };
	uint32_t *bad = NULL;
	int r;

	r = cones_make(m, c, &cs);
	if (r < 0 || cs.nh < 2 || common_root(&cs, m->pick)) {
		r = r < 0 ? r : 1;
		goto out;
	}
	bad = malloc(((size_t)cs.nh + 1) * sizeof(*bad));
	r = -ENOMEM;
	if (!bad)
		goto out;
	r = 1;
	for (uint32_t floor = 2 - (m->variant % 3 == 2); floor >= 1 && r; floor--)
		r = count_bad(&cs, m->pick, bad) ? cover_pass(m, &cs, bad, floor) : 1;
out:
	free(bad);
	cones_free(m, &cs);
	return r;
}

int updn_cover(struct ud *m, uint32_t c)
{
	uint32_t n = m->comp_off[c + 1] - m->comp_off[c];
	int r = 0;

	/* Each step moves a switch from S_NORMAL for good: at most n steps. */
	for (uint32_t i = 0; i <= n; i++) {
		r = updn_order(m);
		if (r < 0)
			return r;
		r = cover_step(m, c);
		if (r != 0)
			break;
	}
	if (r == 1)
		return 1;
	for (uint32_t i = m->comp_off[c]; i < m->comp_off[c + 1]; i++)
		m->sub[m->comp_sw[i]] = S_NORMAL;
	return r == -ENOMEM ? r : 0;
}
