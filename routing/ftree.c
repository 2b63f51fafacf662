/* SPDX-License-Identifier: MIT */
/*
 * Fat-tree (Clos) routing in the spirit of Zahavi's D-mod-K: on a full fat
 * tree the busiest link under all-to-all carries the least any routing can
 * put there (every link of a 2-level tree the same; on 3 levels the leaves'
 * uplinks, which must carry N - k/2 routes each), and a shift permutation
 * puts one route on a link. Levels and the switch graph come from
 * ftree_rank.c (level 0: the switches with CAs); a fabric with a cable
 * inside one level is no fat tree, refused with -EINVAL and the cable named.
 *
 * Per destination LID, routes are up-down: a switch that can reach the
 * destination's switch going only down does so; every other one goes up to
 * a parent that is one hop nearer (shortest up-down path), so no route turns
 * from down to up and the channel dependencies have no cycle.
 *
 * Balance comes from a chain (ftree_choose.c): from the destination's switch
 * the engine climbs one parent a level, to the top, taking the parent whose
 * way up meets the least load so far. Every chain switch sends the LID down
 * the chain; every other switch going up prefers a parent whose route joins
 * the chain. On a full tree all sources meet the chain at the lowest level
 * they can, so each LID has one way down from each level and the chains of
 * a leaf's LIDs fan out over all its uplinks and, above, over all the
 * spines: D-mod-K without computing digits. On a degraded tree the same
 * rules bend around what is missing, and where CA traffic cannot join the
 * chain it takes the way whose busiest link is least loaded. "Load" is the
 * real all-to-all load: after each LID, the routes of every CA are counted
 * over the links they cross.
 *
 * LMC: every port's base LID is routed before the others of its switch, so
 * the base LIDs spread as if there were no LMC; a port's other LIDs avoid the
 * links its earlier ones came down, so they take different uplinks and
 * spines where there are enough.
 *
 * Leaves that lost every common ancestor have no up-down path at all; their
 * CAs get detours through a down-up turn that is checked to close no credit
 * loop (ftree_detour.c). A pair left without a safe detour is dropped and
 * said in why; since which turns are taken first matters, the engine then
 * routes again with those destinations first (up to FT_TRIES times) and
 * keeps the best. Switch LIDs carry no CA traffic: plain shortest paths,
 * without touching the balance.
 *
 * Order: leaves by GUID (ord[]), a leaf's CAs by port, then LID; switch LIDs
 * last. Same model (whatever its node order) and LIDs, same tables.
 *
 * Cost per LID: about two passes over the switches, the uplinks of the
 * chain and of the switches CA traffic passes without joining it; per
 * destination switch two passes over the edges. k=36, 3 levels (11,664
 * hosts, 1,620 switches): about 0.6 s on one core, 1.5 s degraded by 10-20%.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cleanup.h"
#include "ftree_priv.h"

/*
 * Table writes go through a buffer of FT_WBUF LIDs: one LID's entries lie a
 * table row apart, one cache line each, while a buffer flushed switch by
 * switch writes neighbouring LIDs (a leaf's CAs have neighbouring LIDs)
 * together.
 */
static void wbuf_flush(struct ft *f)
{
	struct route_out *out = f->out;
	size_t stride = (size_t)out->max_lid + 1;

	for (uint32_t s = 0; s < f->n_sw; s++) {
		uint8_t *row = out->lft + s * stride;

		for (uint32_t j = 0; j < f->wbuf_n; j++)
			row[f->wbuf_lid[j]] = f->wbuf[(size_t)j * f->n_sw + s];
	}
	f->wbuf_n = 0;
}

static int route_lid(struct ft *f, const struct ft_lid *l)
{
	struct route_out *out = f->out;
	uint8_t *col = f->wbuf + (size_t)f->wbuf_n * f->n_sw;
	uint32_t drop = 0;
	int r;

	r = ft_choose(f, l);
	if (r < 0)
		return r;
	for (uint32_t s = 0; s < f->n_sw; s++) {
		uint32_t e = f->via[s];

		drop += e == FT_NONE;
		col[s] = e == FT_NONE ? ROUTE_DROP : e == FT_HERE ? l->here : f->port[e];
	}
	f->wbuf_lid[f->wbuf_n++] = l->lid;
	if (f->wbuf_n == FT_WBUF)
		wbuf_flush(f);
	out->stats.routes += f->n_sw - drop;
	out->stats.unreach += drop;
	out->stats.unreach_lids += drop != 0;
	return 0;
}

/*
 * The LIDs of destinations order[from..to-1], which hang off one switch:
 * every port's base LID first, so that those (what traffic to one LID per
 * port uses) spread as if there were no LMC; then each port's other LIDs.
 */
static int route_group(struct ft *f, const struct route_dest *d, const uint32_t *order,
		       uint32_t from, uint32_t to)
{
	f->n_glog = 0;
	for (uint32_t pass = 0; pass < 2; pass++) {
		for (uint32_t i = from; i < to; i++) {
			const struct route_dest *cur = &d[order[i]];

			for (uint32_t k = pass; k < (pass ? cur->nlids : 1u); k++) {
				struct ft_lid l = { .g = cur->sw, .lid = cur->lid + k,
						    .tag = order[i] + 1, .here = cur->sw_port,
						    .ca = cur->sw_port != 0, .base = k == 0,
						    .gport = i - from };
				int r = route_lid(f, &l);

				if (r < 0)
					return r;
			}
		}
	}
	return 0;
}

/* Destinations in routing order: CA LIDs by (leaf, leaf port, LID), then switches. */
static int cmp_dest(const void *a, const void *b, void *ctx)
{
	const struct ft *f = ((const void *const *)ctx)[0];
	const struct route_dest *d = ((const void *const *)ctx)[1];
	const struct route_dest *x = &d[*(const uint32_t *)a], *y = &d[*(const uint32_t *)b];
	bool sx = x->sw_port == 0, sy = y->sw_port == 0;

	if (sx != sy)
		return sx ? 1 : -1;
	if (f->prio[x->sw] != f->prio[y->sw])
		return f->prio[x->sw] ? -1 : 1;
	if (f->pos[x->sw] != f->pos[y->sw])
		return f->pos[x->sw] < f->pos[y->sw] ? -1 : 1;
	if (x->sw_port != y->sw_port)
		return x->sw_port < y->sw_port ? -1 : 1;
	return x->lid < y->lid ? -1 : x->lid > y->lid;
}

static int ft_run(struct ft *f, const struct route_dest *d, uint32_t n)
{
	_cleanup_free_ uint32_t *order = malloc(((size_t)n + 1) * sizeof(*order));
	const void *ctx[2] = { f, d };
	uint32_t k = 0;
	int r;

	f->wbuf = malloc((size_t)FT_WBUF * f->n_sw + 1);
	if (!order || !f->wbuf)
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++)
		if (d[i].sw != SUBNET_NONE)
			order[k++] = i;
	route_count_unattached(f->out, d, n);
	qsort_r(order, k, sizeof(*order), cmp_dest, ctx);
	for (uint32_t i = 0, j; i < k; i = j) {
		const struct route_dest *cur = &d[order[i]];

		for (j = i + 1; j < k && d[order[j]].sw == cur->sw &&
		     !d[order[j]].sw_port == !cur->sw_port; j++)
			;
		if (cur->sw_port)
			ft_group(f, cur->sw);
		f->bd_valid = false;
		r = route_group(f, d, order, i, j);
		if (r < 0)
			return r;
		route_tick(f->o, "ftree: destinations routed", j, k);
	}
	wbuf_flush(f);
	return 0;
}

static void say_done(const struct ft *f, const struct route_out *res, struct route_why *why)
{
	const struct subnet *sn = f->sn;
	const struct route_stats *st = &res->stats;
	char turns[96] = "";

	if (f->detours)
		snprintf(turns, sizeof(turns), "; %llu routes from CA switches detour through %u "
			 "checked down-up turns", (unsigned long long)f->detours, f->n_turns);
	if (f->blocked)
		route_why_set(why, "%llu pairs (switch with CAs, LID) have no route free of credit "
			      "loops and are dropped, e.g. \"%s\" to LID %u; %u of %u LIDs not "
			      "reached from every switch%s",
			      (unsigned long long)f->blocked,
			      subnet_str(sn, sn->node[res->sw_node[f->blocked_sw]].name),
			      f->blocked_lid, st->unreach_lids, st->dest_lids, turns);
	else if (st->unreach_lids)
		route_why_set(why, "%u of %u LIDs cannot be reached from every switch "
			      "(%llu switch-LID pairs dropped): the fabric is in pieces%s",
			      st->unreach_lids, st->dest_lids, (unsigned long long)st->unreach,
			      turns);
	else
		route_why_set(why, "routed %u LIDs on %u switches as a fat tree of %u levels%s",
			      st->dest_lids, res->n_sw, f->levels, turns);
}

/* One routing of the whole fabric into *out (zeroed), destinations on prio[] switches first. */
static int ft_attempt(const struct subnet *sn, const struct route_opts *o, uint8_t *prio,
		      struct route_out *out, struct route_why *why, uint64_t *blocked)
{
	struct route_out res = { 0 };
	_cleanup_free_ struct route_dest *d = NULL;
	struct ft f = { .sn = sn, .o = o, .out = &res, .prio = prio };
	uint32_t n = 0;
	int r;

	r = route_out_init(sn, o, &res, &d, &n, why);
	if (r < 0)
		return r;
	f.n_sw = res.n_sw;
	r = ft_build(&f, why);
	if (r == 0)
		r = ft_run(&f, d, n);
	if (r == 0)
		say_done(&f, &res, why);
	*blocked = f.blocked;
	ft_free(&f);
	return route_out_finish(&res, r, out, why);
}

/*
 * A detour refused on a degraded tree depends on which turns earlier
 * detours took: route again with the destinations that had a refusal first
 * (their detours then choose first), and keep the best of a few tries.
 */
#define FT_TRIES 3

static int ftree_route(const struct subnet *sn, const struct route_opts *o,
		       struct route_out *out, struct route_why *why)
{
	_cleanup_free_ uint8_t *prio = calloc((size_t)sn->n_nodes + 1, 1);
	struct route_out best = { 0 };
	struct route_why best_why = { { 0 } };
	uint64_t best_blocked = UINT64_MAX;

	if (!prio) {
		route_why_set(why, "out of memory routing %u nodes", sn->n_nodes);
		return -ENOMEM;
	}
	for (int i = 0; i < FT_TRIES && best_blocked; i++) {
		struct route_out res = { 0 };
		struct route_why w = { { 0 } };
		uint64_t blocked = 0;
		int r = ft_attempt(sn, o, prio, &res, &w, &blocked);

		if (r < 0) {
			route_out_free(&best);
			if (why)
				*why = w;
			return r;
		}
		if (blocked < best_blocked) {
			route_out_free(&best);
			best = res;
			best_why = w;
			best_blocked = blocked;
		} else {
			route_out_free(&res);
		}
	}
	if (why)
		*why = best_why;
	*out = best;
	return 0;
}

const struct route_engine route_ftree = {
	.name = "ftree",
	.route = ftree_route,
};
