/* SPDX-License-Identifier: MIT */
/*
 * The fat-tree engine's choices for one destination LID (the rules are told
 * in ftree.c): the chain, every switch's egress, and the all-to-all load the
 * routes add. Written for speed, since it runs once per LID on every switch:
 *
 *  - per destination switch (group), the distances and, for each switch that
 *    can go down, its candidate down edges, are computed once for all the
 *    LIDs behind it;
 *  - a switch that joins the chain is found by the chain pushing down to
 *    its children, not by every switch scanning its uplinks;
 *  - the other switches going up choose by load only if CA traffic passes
 *    them (known bottom-up, since a child never needs its parent's choice);
 *    those that carry none take their first valid uplink.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ftree_priv.h"

void ft_group(struct ft *f, uint32_t g)
{
	uint32_t rg = f->rank[g], k = 0;

	for (uint32_t s = 0; s < f->n_sw; s++)
		f->dd[s] = f->ud[s] = FT_INF;
	f->bd_valid = false;
	if (rg == FT_NONE)
		return;
	f->dd[g] = 0;
	for (uint32_t i = f->pos[g] + 1; i < f->n_ranked; i++) {
		uint32_t s = f->ord[i], best = FT_INF;

		if (f->rank[s] <= rg)
			continue;
		for (uint32_t e = f->off[s]; e < f->up[s]; e++)
			if (f->dd[f->to[e]] + 1u < best)
				best = f->dd[f->to[e]] + 1u;
		f->dd[s] = (uint16_t)best;
		f->dn_off[s] = k;
		for (uint32_t e = f->off[s]; e < f->up[s] && best != FT_INF; e++)
			if (f->dd[f->to[e]] + 1u == best)
				f->dn[k++] = e;
		f->dn_end[s] = k;
	}
	for (uint32_t i = f->n_ranked; i-- > 0;) {
		uint32_t s = f->ord[i], best = FT_INF;

		if (f->dd[s] != FT_INF) {
			f->ud[s] = f->dd[s];
			continue;
		}
		for (uint32_t e = f->up[s]; e < f->off[s + 1]; e++)
			if (f->ud[f->to[e]] + 1u < best)
				best = f->ud[f->to[e]] + 1u;
		f->ud[s] = (uint16_t)best;
	}
}

void ft_group_bfs(struct ft *f, uint32_t g)
{
	uint32_t head = 0, tail = 0;

	if (f->bd_valid)
		return;
	f->bd_valid = true;
	for (uint32_t s = 0; s < f->n_sw; s++)
		f->bd[s] = FT_INF;
	f->bd[g] = 0;
	f->queue[tail++] = g;
	while (head < tail) {
		uint32_t s = f->queue[head++];

		for (uint32_t e = f->off[s]; e < f->off[s + 1]; e++) {
			uint32_t t = f->to[e];

			if (f->bd[t] != FT_INF)
				continue;
			f->bd[t] = (uint16_t)(f->bd[s] + 1);
			f->queue[tail++] = t;
		}
	}
}

/*
 * Choices are keyed in one integer: bit 63 set unless preferred, bit 62 set
 * if a sibling LID (same port, LMC > 0) took the link, then the load; the
 * lowest key wins, the earlier edge (ord order) on a tie.
 */
#define KEY_LOAD ((UINT64_C(1) << 62) - 1)

static inline uint64_t key(bool pref, bool sib, uint64_t load)
{
	return (uint64_t)!pref << 63 | (uint64_t)sib << 62 | (load < KEY_LOAD ? load : KEY_LOAD);
}

static inline bool sib(const struct ft *f, const struct ft_lid *l, uint32_t e)
{
	return f->stamp[e] == l->tag;
}

/*
 * above[s] for the switches that can go down to l->g: the least load a
 * chain from s to the top must meet (the busiest down link on the best
 * chain above s; 0 at the top). Top level first.
 */
static void chain_costs(struct ft *f)
{
	for (uint32_t i = f->n_ranked; i-- > 0;) {
		uint32_t s = f->ord[i];
		uint64_t best = UINT64_MAX;

		if (f->dd[s] == FT_INF)
			continue;
		for (uint32_t e = f->up[s]; e < f->off[s + 1]; e++) {
			uint32_t p = f->to[e];
			uint64_t v = f->load[f->rev[e]];

			if (f->dd[p] != f->dd[s] + 1u)
				continue;
			if (f->above[p] > v)
				v = f->above[p];
			if (v < best)
				best = v;
		}
		f->above[s] = best == UINT64_MAX ? 0 : best;
	}
}

/*
 * Climb from l->g one parent a level: not taken by a chain of a sibling LID
 * (same port: f->glog remembers the chains of the group's ports), then the
 * parent whose best chain to the top meets the least load (on a full tree
 * all are equal until a parent's uplinks fill up, which spreads the chains
 * as D-mod-K does; on a degraded one, parents with few uplinks left take
 * fewer), then the least loaded link, then for a port's base LID the link
 * fewest base LIDs took, then the parent fewest chains pass.
 */
static int chain_up(struct ft *f, const struct ft_lid *l)
{
	uint32_t c = l->g;

	/* Mark the down links the chains of l's port took so far. */
	if (++f->sib_gen == 0) {
		memset(f->sib_mark, 0, ((size_t)f->n_edges + 1) * sizeof(*f->sib_mark));
		f->sib_gen = 1;
	}
	for (uint32_t i = 0; i < f->n_glog; i++)
		if (f->glog[i].port == l->gport)
			f->sib_mark[f->glog[i].edge] = f->sib_gen;
	chain_costs(f);
	f->chain_gen[c] = f->gen;
	for (;;) {
		uint32_t best = FT_NONE;
		uint64_t bk = 0, bl = 0, bc = 0;

		for (uint32_t e = f->up[c]; e < f->off[c + 1]; e++) {
			uint32_t down = f->rev[e], t = f->to[e];
			uint64_t ld = f->load[down];
			uint64_t k = key(true, f->sib_mark[down] == f->sib_gen,
					 f->above[t] > ld ? f->above[t] : ld);
			/* Then base LIDs (what one LID per port, as in shift, uses) spread
			 * on their own; then chains through the parent. */
			uint64_t tie = (l->base ? (uint64_t)f->bases[down] << 32 : 0) | f->chains[t];

			if (f->dd[t] != f->dd[c] + 1u)
				continue;
			if (best == FT_NONE || k < bk || (k == bk && (ld < bl ||
			    (ld == bl && tie < bc)))) {
				best = e;
				bk = k;
				bl = ld;
				bc = tie;
			}
		}
		if (best == FT_NONE)
			return 0;
		c = f->to[best];
		f->chain_to[c] = f->rev[best];
		f->chain_gen[c] = f->gen;
		f->chains[c]++;
		f->bases[f->rev[best]] += l->base;
		f->stamp[f->rev[best]] = l->tag;
		if (f->n_glog == f->cap_glog) {
			uint32_t cap = f->cap_glog ? 2 * f->cap_glog : 256;
			struct ft_glog *g = realloc(f->glog, (size_t)cap * sizeof(*g));

			if (!g)
				return -ENOMEM;
			f->glog = g;
			f->cap_glog = cap;
		}
		f->glog[f->n_glog++] = (struct ft_glog){ l->gport, f->rev[best] };
	}
}

/* A switch that can go down: towards the chain if it may, else the least loaded. */
static uint32_t pick_down(struct ft *f, uint32_t s, const struct ft_lid *l)
{
	uint32_t i = f->dn_off[s], best = f->dn[i];
	uint64_t bk;

	if (i + 1 == f->dn_end[s])
		return best;
	bk = key(f->chain_gen[f->to[best]] == f->gen, sib(f, l, best), f->load[best]);
	for (i++; i < f->dn_end[s]; i++) {
		uint32_t e = f->dn[i];
		uint64_t k = key(f->chain_gen[f->to[e]] == f->gen, sib(f, l, e), f->load[e]);

		if (k < bk) {
			best = e;
			bk = k;
		}
	}
	return best;
}

/* A switch going up that CA traffic passes, with no parent on the chain. */
static uint32_t pick_up(struct ft *f, uint32_t s, const struct ft_lid *l)
{
	uint32_t best = FT_NONE, want = f->ud[s] - 1u;
	uint64_t bk = UINT64_MAX;

	for (uint32_t e = f->up[s]; e < f->off[s + 1]; e++) {
		uint64_t k;

		if (f->ud[f->to[e]] != want)
			continue;
		k = key(false, sib(f, l, e), f->load[e]);
		if (best == FT_NONE || k < bk) {
			best = e;
			bk = k;
		}
	}
	return best;
}

/*
 * On a degraded tree a leaf can lose every parent that joins the chain; its
 * traffic and its parents' then come down some other way, and a choice by
 * the uplink's load alone can pile them onto one weak link further on. Such
 * LIDs choose by the busiest link of the whole way down instead: pmax[s] is
 * that for s's route (loads so far), or for the best route s can still take;
 * worked out only for the switches such a choice looks at.
 */
static bool need_paths(const struct ft *f, const struct ft_lid *l)
{
	for (uint32_t i = 0; i < f->n_ranked && f->rank[f->ord[i]] == 0; i++) {
		uint32_t s = f->ord[i];

		if (s != l->g && f->hosts[s] && f->dd[s] == FT_INF && f->ud[s] != FT_INF &&
		    f->cgen[s] != f->gen)
			return true;
	}
	return false;
}

static inline uint64_t max64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

/* pmax[s], worked out when first asked for in this LID (pgen), along routes fixed so far. */
static uint64_t path_max(struct ft *f, uint32_t s, const struct ft_lid *l)
{
	uint32_t e = f->via[s], want = f->ud[s] - 1u;
	uint64_t v = UINT64_MAX;

	if (f->pgen[s] == f->gen)
		return f->pmax[s];
	if (s == l->g)
		v = 0;
	else if (e < FT_HERE)
		v = max64(f->load[e], path_max(f, f->to[e], l));
	else
		for (e = f->up[s]; e < f->off[s + 1]; e++)
			if (f->ud[f->to[e]] == want) {
				uint64_t w = max64(f->load[e], path_max(f, f->to[e], l));

				v = w < v ? w : v;
			}
	f->pgen[s] = f->gen;
	f->pmax[s] = v;
	return v;
}

/* pick_up by the busiest link of the whole way (pmax), then the uplink's load. */
static uint32_t pick_up_path(struct ft *f, uint32_t s, const struct ft_lid *l)
{
	uint32_t best = FT_NONE, want = f->ud[s] - 1u;
	uint64_t bk = UINT64_MAX, bl = UINT64_MAX;

	for (uint32_t e = f->up[s]; e < f->off[s + 1]; e++) {
		uint64_t k;

		if (f->ud[f->to[e]] != want)
			continue;
		k = key(false, sib(f, l, e), max64(f->load[e], path_max(f, f->to[e], l)));
		if (best == FT_NONE || k < bk || (k == bk && f->load[e] < bl)) {
			best = e;
			bk = k;
			bl = f->load[e];
		}
	}
	return best;
}

static uint32_t first_up(const struct ft *f, uint32_t s)
{
	uint32_t want = f->ud[s] - 1u;

	for (uint32_t e = f->up[s]; e < f->off[s + 1]; e++)
		if (f->ud[f->to[e]] == want)
			return e;
	return FT_NONE; /* cannot be: ud[s] is finite */
}

/* s routes up a chain switch or a switch joining it: offer its children s. */
static void push_conv(struct ft *f, uint32_t s, const struct ft_lid *l)
{
	uint32_t want = f->ud[s] + 1u;

	for (uint32_t e = f->off[s]; e < f->up[s]; e++) {
		uint32_t t = f->to[e], u = f->rev[e];
		uint64_t k;

		if (f->ud[t] != want || f->dd[t] != FT_INF)
			continue;
		k = key(true, sib(f, l, u), f->load[u]);
		if (f->cgen[t] != f->gen || k < f->ckey[t] || (k == f->ckey[t] && u < f->cedge[t])) {
			f->cgen[t] = f->gen;
			f->ckey[t] = k;
			f->cedge[t] = u;
		}
	}
}

/* Every levelled switch's egress for CA LID l; FT_NONE where up-down cannot reach. */
static void choose(struct ft *f, const struct ft_lid *l)
{
	bool paths;

	/* Top level first: the chain and the switches going down, and who joins. */
	f->up_routed = 0;
	for (uint32_t i = f->n_ranked; i-- > 0;) {
		uint32_t s = f->ord[i];
		bool conv = true;

		if (s == l->g)
			f->via[s] = FT_HERE;
		else if (f->chain_gen[s] == f->gen)
			f->via[s] = f->chain_to[s];
		else if (f->dd[s] != FT_INF)
			f->via[s] = pick_down(f, s, l), conv = false;
		else if (f->cgen[s] == f->gen)
			f->via[s] = f->cedge[s];
		else
			f->via[s] = FT_NONE, conv = false;
		f->up_routed += f->via[s] != FT_NONE || f->ud[s] != FT_INF;
		if (conv)
			push_conv(f, s, l);
	}
	/* Leaves first: the rest going up, by load where CA traffic passes. */
	paths = need_paths(f, l);
	for (uint32_t i = 0; i < f->n_ranked; i++) {
		uint32_t s = f->ord[i];
		bool busy = f->hosts[s] || f->fgen[s] == f->gen;

		if (f->dd[s] != FT_INF || f->ud[s] == FT_INF)
			continue;
		if (f->via[s] == FT_NONE)
			f->via[s] = !busy ? first_up(f, s) : paths ? pick_up_path(f, s, l)
							    : pick_up(f, s, l);
		if (busy)
			f->fgen[f->to[f->via[s]]] = f->gen;
	}
	for (uint32_t i = f->n_ranked; i < f->n_sw; i++)
		f->via[f->ord[i]] = FT_NONE;
	f->pending = f->n_ranked - f->up_routed;
}

/* Switch LID l: no CA traffic, so plain shortest paths (the first in ord order). */
static void choose_switch(struct ft *f, const struct ft_lid *l)
{
	ft_group_bfs(f, l->g);
	for (uint32_t s = 0; s < f->n_sw; s++) {
		f->via[s] = s == l->g ? FT_HERE : FT_NONE;
		if (s == l->g || f->bd[s] == FT_INF)
			continue;
		for (uint32_t e = f->off[s]; e < f->off[s + 1]; e++) {
			if (f->bd[f->to[e]] + 1u == f->bd[s]) {
				f->via[s] = e;
				break;
			}
		}
	}
}

/* Count l's all-to-all routes (one from every CA) over the links they cross. */
static void count_flows(struct ft *f, const struct ft_lid *l)
{
	for (uint32_t s = 0; s < f->n_sw; s++)
		f->flow[s] = f->hosts[s];
	/* Going up: leaves first; then going down: the top first. */
	for (uint32_t i = 0; i < f->n_ranked; i++) {
		uint32_t s = f->ord[i], e = f->via[s];

		if (s == l->g || f->dd[s] != FT_INF || f->ud[s] == FT_INF || !f->flow[s])
			continue;
		f->load[e] += f->flow[s];
		f->stamp[e] = l->tag;
		f->flow[f->to[e]] += f->flow[s];
	}
	for (uint32_t i = f->n_ranked; i-- > 0;) {
		uint32_t s = f->ord[i], e = f->via[s];

		if (s == l->g || f->dd[s] == FT_INF || !f->flow[s])
			continue;
		f->load[e] += f->flow[s];
		f->stamp[e] = l->tag;
		f->flow[f->to[e]] += f->flow[s];
	}
	/* Detours from switches with CAs, one walk each (they are rare). */
	for (uint32_t s = 0; s < f->n_sw && f->pending; s++) {
		uint32_t cur = s;

		if (!f->hosts[s] || f->ud[s] != FT_INF)
			continue;
		for (uint32_t n = 0; n < f->n_sw && f->via[cur] < FT_HERE; n++) {
			f->load[f->via[cur]] += f->hosts[s];
			cur = f->to[f->via[cur]];
		}
	}
}

int ft_choose(struct ft *f, const struct ft_lid *l)
{
	int r;

	if (++f->gen == 0) { /* wrapped: clear every mark of an old LID */
		memset(f->chain_gen, 0, ((size_t)f->n_sw + 1) * sizeof(*f->chain_gen));
		memset(f->cgen, 0, ((size_t)f->n_sw + 1) * sizeof(*f->cgen));
		memset(f->fgen, 0, ((size_t)f->n_sw + 1) * sizeof(*f->fgen));
		memset(f->pgen, 0, ((size_t)f->n_sw + 1) * sizeof(*f->pgen));
		f->gen = 1;
	}
	if (!l->ca) {
		choose_switch(f, l);
		return 0;
	}
	r = chain_up(f, l);
	if (r < 0)
		return r;
	choose(f, l);
	r = ft_detour(f, l);
	if (r < 0)
		return r;
	count_flows(f, l);
	return 0;
}
