/* SPDX-License-Identifier: MIT */
/*
 * The up/down engine's entry: it routes the fabric with the plain root
 * repair and, when the found roots needed bridges or fell back to one, with
 * variants of the repair, and keeps the tables whose busiest link carries
 * the fewest all-to-all host routes; and the why text of the tables kept.
 *
 * Why variants. The repair (updn_cover.c) is greedy: which host switch it
 * fixes first and which bridge it picks decide where the busiest link of
 * the routed fabric ends up, and whether the repair covers at all. Measured
 * on topogen fattree3 --degrade 0.2/0.3, k=8, 12, 16, seeds 1-10: with the
 * plain repair alone the busiest link was up to 1.16x min-hop's at 0.2 and
 * up to 12x at 0.3 (the repair failed and fell back to one root); breaking
 * the repair's ties by a fixed seed and keeping the best routing brings
 * 82 of those 90 fabrics to min-hop's busiest link or below and covers all
 * but one of the 0.3 ones that fell back. Balancing alone sees only a
 * switch's own ports: an aggregation switch spreads its hosts' routes over
 * its cores, blind to which core's one link down into the destination's
 * pod is crowded (k=12 --degrade 0.2 seed 9: core to aggregation switch,
 * 1680 against min-hop's 1644). Looking ahead fixes those: 87 of 90 at or
 * below min-hop (k=12 0.2 seed 9 now 1338; k=8 0.3 seed 7 740 -> 544,
 * min-hop 720). k=8 at 0.3 seeds 3, 5, 10 stayed 1.08-1.31x (with
 * updn_reorder.c; 1.4-2.3x without): pods so sparse that one leaf's only
 * way up is one core (tests/tools/updn_degraded_test.sh). The cost: ft3
 * k=16 --degrade 0.2/0.3 routes in about 1-2 s (one routing 40 ms).
 * The seeds are fixed and a tie keeps the earlier routing, so the tables
 * depend on the fabric only. A whole tree, or one whose top covers it,
 * needs no bridges and routes once, as before. The routing kept is then
 * tuned (updn_tune.c: switches moved in its up order where its busiest
 * link is), which brought those three to 496, at or below min-hop.
 * Where the plain repair had to move switches (updn_reorder.c), variants
 * do not move them; variant 1 routes the piece from one root instead
 * (updn_roots.c), so the tuning starts from the less loaded of the two:
 * on seeds 11-20, k=8 --degrade 0.4 seed 14 went from 896 to 496
 * (min-hop 740), k=16 --degrade 0.4 seed 20 from 11416 to 8128 (min-hop
 * 8128; with updn_reorder.c's larger budget), and none of the 210
 * fabrics measured (k=8/12/16, --degrade 0.1-0.3 seeds 1-10, 0.1-0.4
 * seeds 11-20) got more loaded.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lib/cleanup.h"
#include "updn_priv.h"

void updn_say(const struct ud *m, struct route_why *why)
{
	const struct route_stats *st = &m->out->stats;
	char buf[sizeof(why->msg)];
	size_t k;

	if (st->unreach_lids)
		k = (size_t)snprintf(buf, sizeof(buf), "%u of %u LIDs cannot be reached from every "
				     "switch (%llu switch-LID pairs dropped): the fabric is in pieces; ",
				     st->unreach_lids, st->dest_lids,
				     (unsigned long long)st->unreach);
	else
		k = (size_t)snprintf(buf, sizeof(buf), "routed %u LIDs on %u switches; ",
				     st->dest_lids, m->n_sw);
	if (k < sizeof(buf) && m->host_detours)
		k += (size_t)snprintf(buf + k, sizeof(buf) - k, "NOT deadlock-free: %llu "
				      "(host switch, host LID) entries have no up/down route; ",
				      (unsigned long long)m->host_detours);
	if (k < sizeof(buf))
		k += (size_t)updn_say_roots(m, buf + k, sizeof(buf) - k);
	if (k < sizeof(buf) && m->note_tuned)
		k += (size_t)snprintf(buf + k, sizeof(buf) - k, "; %u switch%s moved in the up "
				      "order where the busiest link was", m->note_tuned,
				      m->note_tuned == 1 ? "" : "es");
	if (k < sizeof(buf) && m->missing)
		k += (size_t)snprintf(buf + k, sizeof(buf) - k, "; %u given root GUIDs are "
				      "not in the fabric", m->missing);
	if (k < sizeof(buf) && m->detours)
		snprintf(buf + k, sizeof(buf) - k, "; %llu (switch, LID) entries have no up/down "
			 "route: a shortest path, for traffic to or from switches",
			 (unsigned long long)m->detours);
	route_why_set(why, "%s", buf);
}

/*
 * How a try balances: entries (as min-hop), host routes, host routes
 * looking one or two hops ahead at the least load (sum), or at the least
 * busiest link one or two hops on (bottleneck; look 3, 4; see pick()).
 * The plain repair is routed all six ways; its variants the four that win
 * most often on the measured trees (the two-hop ones won only where the
 * plain repair had to move switches, or twice in 60 fabrics).
 */
const struct updn_mode updn_modes[UPDN_MODES_PLAIN] = {
	{ false, 0 }, { true, 0 }, { true, 1 }, { true, 3 }, { true, 2 }, { true, 4 }
};

#define UPDN_MODES       4 /* of a variant: the first four */

int updn_try(struct ud *m, struct route_why *why, uint64_t *worst)
{
	_cleanup_free_ struct route_dest *d = NULL;
	uint32_t n = 0;
	int r;

	r = route_out_init(m->sn, m->o, m->out, &d, &n, why);
	if (r < 0)
		return r;
	m->n_sw = m->out->n_sw;
	r = updn_run(m, d, n, why);
	if (r < 0)
		return r;
	updn_say(m, why);
	*worst = 0;
	for (uint32_t e = 0; e < m->adj_off[m->n_sw]; e++)
		*worst = m->traffic[e] > *worst ? m->traffic[e] : *worst;
	return 0;
}

/*
 * One routing into m (its out res) with try t's balancing and repair
 * variant. *how UPDN_PLAIN, UPDN_BRIDGED, UPDN_MOVED (updn_reorder.c) or
 * UPDN_ONE. *work the switches times the links, what one routing costs.
 * -ECANCELED: a variant that cannot cover (not routed).
 */
enum { UPDN_PLAIN, UPDN_BRIDGED, UPDN_MOVED, UPDN_ONE };

static int updn_try_t(const struct subnet *sn, const struct route_opts *o, uint32_t t,
		      struct ud *m, struct route_out *res, struct route_why *why, uint64_t *worst,
		      int *how, uint64_t *work, struct ud_hops *hops)
{
	uint32_t k = t < UPDN_MODES_PLAIN ? t : (t - UPDN_MODES_PLAIN) % UPDN_MODES;
	int r;

	*m = (struct ud){ .sn = sn, .o = o, .out = res, .by_flow = updn_modes[k].by_flow,
			  .look = updn_modes[k].look, .hops = hops,
			  .variant = t < UPDN_MODES_PLAIN ? 0 :
				     1 + (t - UPDN_MODES_PLAIN) / UPDN_MODES };
	r = updn_try(m, why, worst);
	if (r >= 0) {
		*how = m->fell_back ? UPDN_ONE : m->note_reordered ? UPDN_MOVED : UPDN_PLAIN;
		for (uint32_t s = 0; s < m->n_sw; s++)
			*how = m->sub[s] != S_NORMAL ? UPDN_BRIDGED : *how;
		*work = (uint64_t)m->n_sw * m->adj_off[m->n_sw];
	}
	return r;
}

/*
 * Routings tried at most: UPDN_TRIES (the plain repair six ways and 15
 * variants four ways) where one routing costs up to UPDN_WORK
 * (switches x link ends; ft3 k=16 is about 1.8e6, 40 ms), fewer on larger
 * fabrics so that all of them cost about as much, never fewer than 4.
 * Variants that cannot cover cost no routing; UPDN_ATTEMPTS bounds them.
 */
#define UPDN_TRIES    66
#define UPDN_WORK     1100000ull
#define UPDN_ATTEMPTS 128

static uint32_t tries_for(uint64_t work)
{
	uint64_t n = work ? UPDN_TRIES * UPDN_WORK / work : UPDN_TRIES;

	return n < 4 ? 4 : n > UPDN_TRIES ? UPDN_TRIES : (uint32_t)n;
}

/*
 * Routings updn_tune() may spend once the variants have spent routings of
 * work each: what is left of all the variants' budget (UPDN_TRIES routings
 * of UPDN_WORK), at least UPDN_TUNE_MIN and at most UPDN_TUNE_WORK worth,
 * and UPDN_TUNE routings at most. The largest fabrics spend most of it on
 * variants (ft3 k=16: 0-11 routings of 40 ms left; the floor gives about
 * 14, which took k=16 --degrade 0.2 seed 19 from 4120 to 4056, min-hop
 * 4064), ft3 k=12 gets about 170 routings of 6 ms, k=8 1600 of 1 ms.
 * Tuning needed 210-280 on ft3 k=8 --degrade 0.3 seed 3, and its walk
 * past the moves that help (updn_tune.c) about 1340 on seed 14 (640 ->
 * 496, min-hop 496) and 1530 on k=8 --degrade 0.4 seed 19 (800 -> 496,
 * min-hop 548); with 400 routings and at most 12e6 worth (before) those
 * stayed at 640 and 800. The slowest of ft3 k=8/12/16 --degrade 0.1-0.4
 * seeds 1-20 went from 0.4/0.9/2.4 s to 1.7/2.3/3.0 s of CPU. Routings
 * then got 18-31% cheaper (ahead()'s values kept per LID, shared hop
 * distances, shorter cover bits) and the budget grew by a quarter (from
 * 1600 routings, 50e6 and 25e6 worth): on ft3 k=8/12/16 --degrade 0.1-0.3
 * seeds 1-10 and six 0.4 trees the busiest link dropped on 10 (k=16
 * --degrade 0.4 seed 17 9944 -> 8856, min-hop 6064; seed 19 9920 -> 8536,
 * min-hop 8384) and grew on none; the slowest CPU per size 1.71/1.87/2.97
 * s before both, 1.75/1.59/2.20 s after.
 */
#define UPDN_TUNE      2000
#define UPDN_TUNE_WORK 62500000ull
#define UPDN_TUNE_MIN  31250000ull

static uint32_t tune_for(uint64_t work, uint32_t routings)
{
	uint64_t spent = work * routings, left = UPDN_TRIES * UPDN_WORK;
	uint64_t n;

	left = spent < left ? left - spent : 0;
	left = left < UPDN_TUNE_MIN ? UPDN_TUNE_MIN : left;
	left = left < UPDN_TUNE_WORK ? left : UPDN_TUNE_WORK;
	n = work ? left / work : 0;
	return n > UPDN_TUNE ? UPDN_TUNE : (uint32_t)n;
}

static int updn_route(const struct subnet *sn, const struct route_opts *o, struct route_out *out,
		      struct route_why *why)
{
	struct route_out a = { 0 }, b = { 0 };
	struct route_why wb = { { 0 } };
	struct ud ma = { 0 }, mb = { 0 };
	struct ud_hops hops = { 0 };
	uint64_t wa = 0, wl = 0, work = 0;
	uint32_t ok = 1;
	int how = UPDN_PLAIN, hb, r;

	r = updn_try_t(sn, o, 0, &ma, &a, why, &wa, &how, &work, &hops);
	for (uint32_t t = 1; r >= 0 && how != UPDN_PLAIN && ok < tries_for(work) &&
				     t < UPDN_ATTEMPTS; t++) {
		int rb = updn_try_t(sn, o, t, &mb, &b, &wb, &wl, &hb, &work, &hops);

		if (rb == -ENOMEM) {
			r = rb;
			updn_free(&mb);
			break;
		}
		ok += rb >= 0;
		if (rb >= 0 && wl < wa) {
			route_out_free(&a);
			updn_free(&ma);
			a = b;
			ma = mb;
			ma.out = &a;
			wa = wl;
			memset(&b, 0, sizeof(b));
			if (why)
				*why = wb;
		} else {
			updn_free(&mb);
		}
		route_out_free(&b);
	}
	if (r >= 0 && how != UPDN_PLAIN)
		r = updn_tune(&ma, &a, why, &wa, tune_for(work, ok));
	updn_free(&ma);
	updn_hops_free(&hops);
	return route_out_finish(&a, r, out, why);
}

const struct route_engine route_updn = {
	.name = "updn",
	.route = updn_route,
};
