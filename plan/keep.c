/* SPDX-License-Identifier: MIT */
/*
 * After an event, the tables that were programmed mostly still hold: a link
 * down breaks only the routes that crossed it. Keeping every entry that is
 * still valid and as short as the engine's changes far fewer LFT blocks than
 * the engine's fresh tables, which may shuffle every LID for balance. The
 * fresh tables are the yardstick: a LID's entries are kept only where every
 * switch still reaches it in as many hops as the fresh tables take, and the
 * whole result only where the route checker finds it no worse than them.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cleanup.h"
#include "lib/diag.h"
#include "plan/keep.h"
#include "routing/check.h"

#define UNSET 0x100      /* a column entry not chosen yet (ports fit in 8 bits) */
#define LEN_UNKNOWN (-2) /* a hop count not worked out yet */
#define LEN_BUSY (-3)    /* on the walk being followed: met again, a loop */
#define STEP_DELIVER UINT32_MAX
#define STEP_FAIL (UINT32_MAX - 1)
#define PATCH_ROUNDS 3   /* entries put back to the engine's before a LID gives up */

struct keep {
	const struct subnet *sn;
	const struct route_out *f;  /* the engine's fresh tables, on sn */
	const uint8_t **prow;       /* [n_sw] the switch's row before, or NULL (new, changed) */
	uint16_t pmax;              /* LIDs the rows before cover */
	uint32_t n_sw, stride;      /* stride: the most ports a switch has, + 1 */
	uint32_t *nbr;              /* [n_sw * stride] the switch a port leads to, or SUBNET_NONE */
	uint8_t *np;                /* [n_sw] ports */
	uint32_t *dsw;              /* [max_lid + 1] the switch a LID leaves the fabric at */
	uint8_t *dport;             /* [max_lid + 1] and its port there (0: the switch's own) */
	uint32_t *load;             /* [n_sw * stride] LIDs out of each port in the result */
	uint32_t *grp;              /* [n_sw * stride] the same, of one destination switch's LIDs */
	uint32_t *order;            /* [max_lid + 1] LIDs by destination switch */
	/* One column's scratch. */
	uint16_t *c, *fc;
	int32_t *cl, *fl;
	uint32_t *stack;
};

static void keep_free(struct keep *k)
{
	free(k->prow);
	free(k->nbr);
	free(k->np);
	free(k->dsw);
	free(k->dport);
	free(k->load);
	free(k->grp);
	free(k->order);
	free(k->c);
	free(k->fc);
	free(k->cl);
	free(k->fl);
	free(k->stack);
}

/* The switch graph, and where each LID leaves it. */
static int keep_graph(struct keep *k)
{
	const struct subnet *sn = k->sn;
	const struct route_out *f = k->f;

	for (uint32_t s = 0; s < f->n_sw; s++)
		if (sn->node[f->sw_node[s]].nports + 1u > k->stride)
			k->stride = sn->node[f->sw_node[s]].nports + 1u;
	k->nbr = malloc((size_t)k->n_sw * k->stride * sizeof(*k->nbr) + 1);
	k->np = malloc((size_t)k->n_sw + 1);
	k->dsw = malloc(((size_t)f->max_lid + 1) * sizeof(*k->dsw));
	k->dport = calloc((size_t)f->max_lid + 1, 1);
	if (!k->nbr || !k->np || !k->dsw || !k->dport)
		return -ENOMEM;
	for (uint32_t s = 0; s < k->n_sw; s++) {
		uint32_t node = f->sw_node[s];

		k->np[s] = sn->node[node].nports;
		k->nbr[(size_t)s * k->stride] = SUBNET_NONE;
		for (unsigned p = 1; p < k->stride; p++)
			k->nbr[(size_t)s * k->stride + p] = p <= k->np[s] ?
				route_sw_peer(sn, f, node, p, NULL) : SUBNET_NONE;
	}
	for (uint32_t l = 0; l <= f->max_lid; l++)
		k->dsw[l] = SUBNET_NONE;
	for (uint32_t i = 0; i < sn->n_ports; i++) {
		const struct subnet_port *pt = &sn->port[i];
		bool sw = subnet_is_switch(sn, pt->node);
		uint32_t at = SUBNET_NONE;
		uint8_t out = 0;

		if (!pt->lid || (sw && pt->num != 0))
			continue;
		if (sw) {
			at = f->sw_index[pt->node];
		} else if (pt->peer != SUBNET_NONE && subnet_is_switch(sn, sn->port[pt->peer].node)) {
			at = f->sw_index[sn->port[pt->peer].node];
			out = sn->port[pt->peer].num;
		}
		for (uint32_t l = pt->lid; l < pt->lid + (1u << pt->lmc) && l <= f->max_lid; l++) {
			k->dsw[l] = at;
			k->dport[l] = out;
		}
	}
	return 0;
}

/* Where a packet for LID l goes from switch s by entry e. */
static uint32_t step(const struct keep *k, uint32_t s, uint16_t e, uint32_t l)
{
	if (e == UNSET || e == ROUTE_DROP)
		return STEP_FAIL;
	if (s == k->dsw[l] && e == k->dport[l])
		return STEP_DELIVER;
	if (e == 0 || e > k->np[s])
		return STEP_FAIL;
	uint32_t t = k->nbr[(size_t)s * k->stride + e];

	return t == SUBNET_NONE ? STEP_FAIL : t;
}

/* len[s]: switch hops from s until LID l leaves the fabric by column c, -1: never. */
static void col_len(const struct keep *k, const uint16_t *c, uint32_t l, int32_t *len)
{
	for (uint32_t s = 0; s < k->n_sw; s++)
		len[s] = LEN_UNKNOWN;
	for (uint32_t s = 0; s < k->n_sw; s++) {
		uint32_t n = 0, cur = s;
		int32_t v;

		for (;;) {
			uint32_t nx;

			if (len[cur] != LEN_UNKNOWN) {
				v = len[cur] == LEN_BUSY ? -1 : len[cur];
				break;
			}
			nx = step(k, cur, c[cur], l);
			if (nx == STEP_DELIVER || nx == STEP_FAIL) {
				v = len[cur] = nx == STEP_DELIVER ? 0 : -1;
				break;
			}
			len[cur] = LEN_BUSY;
			k->stack[n++] = cur;
			cur = nx;
		}
		while (n--) {
			v = v < 0 ? -1 : v + 1;
			len[k->stack[n]] = v;
		}
	}
}

/* Switch s's entry for LID l before the event; ROUTE_DROP where it had none. */
static uint8_t prev_entry(const struct keep *k, uint32_t s, uint32_t l)
{
	return k->prow[s] && l <= k->pmax ? k->prow[s][l] : ROUTE_DROP;
}

/* Whether the entry e kept from before at s can stay for LID l: its port still leads on. */
static bool alive(const struct keep *k, uint32_t s, uint8_t e, uint32_t l)
{
	uint32_t nx = step(k, s, e, l);

	return nx != STEP_FAIL;
}

/* The column's entry before the event, UNSET when there is none to keep. */
static uint16_t before(const struct keep *k, uint32_t s, uint32_t l)
{
	uint8_t e = prev_entry(k, s, l);

	if (k->fl[s] < 0 || e == ROUTE_DROP)
		return UNSET;
	return alive(k, s, e, l) ? e : UNSET;
}

/*
 * A broken entry at s (d hops from l by the fresh tables): of the ports whose
 * far switch now gets there in d - 1, the one chosen below; else the engine's.
 */
static uint16_t patch_one(struct keep *k, uint32_t s, uint32_t l, int32_t d)
{
	uint16_t best = k->fc[s];
	uint64_t best_load = UINT64_MAX;

	if (s == k->dsw[l])
		return k->fc[s];
	for (unsigned p = 1; p <= k->np[s]; p++) {
		uint32_t t = k->nbr[(size_t)s * k->stride + p];
		/*
		 * A destination switch's LIDs spread over the ports first (fat
		 * trees: over the spines), then the engine's port (a switch back
		 * gets the table it had), then the least loaded.
		 */
		uint64_t ld = (uint64_t)k->grp[(size_t)s * k->stride + p] << 32 |
			      (p == k->fc[s] ? 0 : 1 + (uint64_t)k->load[(size_t)s * k->stride + p]);

		if (t == SUBNET_NONE || k->cl[t] != d - 1)
			continue;
		if (ld < best_load) {
			best = (uint16_t)p;
			best_load = ld;
		}
	}
	return best;
}

/* Does s's entry lead on to a switch d - 1 hops away now (then s is d away)? */
static bool ok_now(struct keep *k, uint32_t s, uint32_t l, int32_t d)
{
	uint32_t nx = step(k, s, k->c[s], l);

	if (nx == STEP_FAIL || (nx == STEP_DELIVER ? 0 : k->cl[nx]) != d - (nx != STEP_DELIVER))
		return false;
	k->cl[s] = d;
	return true;
}

/* Build LID l's column in k->c from the kept entries: true if it holds, else use the fresh one. */
static bool keep_col(struct keep *k, uint32_t l, uint64_t *patched)
{
	int32_t dmax = 0;
	uint64_t n_patched = 0;

	for (uint32_t s = 0; s < k->n_sw; s++) {
		k->c[s] = k->fc[s];
		if (k->fl[s] < 0)
			continue;
		k->c[s] = before(k, s, l);
		if (k->fl[s] > dmax)
			dmax = k->fl[s];
	}
	col_len(k, k->c, l, k->cl);
	/* Nearest first: a patched switch gives the ones behind it a way through. */
	for (int32_t d = 0; d <= dmax; d++)
		for (uint32_t s = 0; s < k->n_sw; s++) {
			if (k->fl[s] != d || k->cl[s] == d || ok_now(k, s, l, d))
				continue;
			k->c[s] = patch_one(k, s, l, d);
			n_patched++;
			ok_now(k, s, l, d);
		}
	for (unsigned round = 0; round <= PATCH_ROUNDS; round++) {
		bool ok = true;

		col_len(k, k->c, l, k->cl);
		for (uint32_t s = 0; s < k->n_sw; s++)
			if (k->fl[s] >= 0 && k->cl[s] != k->fl[s]) {
				ok = false;
				if (k->c[s] != k->fc[s])
					n_patched++;
				k->c[s] = k->fc[s];
			}
		if (ok) {
			*patched += n_patched;
			return true;
		}
	}
	return false;
}

/* k->order: LIDs 1..max_lid by destination switch, in LID order within one. */
static void lids_by_switch(struct keep *k)
{
	uint32_t n = 0;

	for (uint32_t l = 1; l <= k->f->max_lid; l++)
		if (k->dsw[l] == SUBNET_NONE)
			k->order[n++] = l;
	/* A switch's own LIDs after its CAs': they carry no host traffic to spread. */
	for (uint32_t s = 0; s < k->n_sw; s++)
		for (int own = 0; own < 2; own++)
			for (uint32_t l = 1; l <= k->f->max_lid; l++)
				if (k->dsw[l] == s && (k->dport[l] == 0) == own)
					k->order[n++] = l;
}

/* A destination switch's LIDs begin at order[i]: count its CAs' kept entries per port. */
static void group_start(struct keep *k, uint32_t i)
{
	uint32_t dsw = k->dsw[k->order[i]];

	memset(k->grp, 0, (size_t)k->n_sw * k->stride * sizeof(*k->grp));
	for (; i < k->f->max_lid && k->dsw[k->order[i]] == dsw; i++) {
		uint32_t l = k->order[i];

		if (!k->dport[l])
			continue;
		for (uint32_t s = 0; s < k->n_sw; s++) {
			uint8_t e = prev_entry(k, s, l);

			if (e != ROUTE_DROP && e < k->stride && alive(k, s, e, l))
				k->grp[(size_t)s * k->stride + e]++;
		}
	}
}

/* The kept tables in cand (a copy of fresh's shape): fills rep's counts. */
static void keep_all(struct keep *k, struct route_out *cand, struct keep_report *rep)
{
	const struct route_out *f = k->f;

	/* What the kept entries load each port with, before any is patched. */
	for (uint32_t l = 1; l <= f->max_lid; l++)
		for (uint32_t s = 0; s < k->n_sw; s++) {
			uint8_t e = prev_entry(k, s, l);

			if (e != ROUTE_DROP && e < k->stride && alive(k, s, e, l))
				k->load[(size_t)s * k->stride + e]++;
		}
	lids_by_switch(k);
	for (uint32_t i = 0; i < f->max_lid; i++) {
		uint32_t l = k->order[i];

		if (k->dsw[l] == SUBNET_NONE) /* no port holds it, or none reaches it */
			continue;
		if (i == 0 || k->dsw[l] != k->dsw[k->order[i - 1]])
			group_start(k, i);
		for (uint32_t s = 0; s < k->n_sw; s++)
			k->fc[s] = route_lft(f, s)[l];
		col_len(k, k->fc, l, k->fl);
		if (!keep_col(k, l, &rep->entries_patched)) {
			rep->lids_fresh++;
			continue;
		}
		rep->lids_kept++;
		for (uint32_t s = 0; s < k->n_sw; s++) {
			uint8_t e = (uint8_t)k->c[s];
			uint8_t was = prev_entry(k, s, l);

			route_lft(cand, s)[l] = e;
			if (e != was && e < k->stride) {
				k->load[(size_t)s * k->stride + e]++;
				k->grp[(size_t)s * k->stride + e] += k->dport[l] != 0;
			}
		}
	}
}

/* Is cand no worse than fresh by the route checker's measures? Says why not. */
static int judge(const struct subnet *sn, const struct route_out *fresh,
		 const struct route_out *cand, struct keep_report *rep, bool *better)
{
	struct check_opts o = { .max_msgs = 1 };
	struct check_report rf, rc;
	struct diag d = { .limit = 1 };
	int r;

	r = check_routes(sn, fresh, &o, &rf, &d);
	if (r == 0)
		r = check_routes(sn, cand, &o, &rc, &d);
	diag_free(&d);
	if (r < 0)
		return r;
	rep->max_load_fresh = rf.all2all.max;
	rep->max_load_kept = rc.all2all.max;
	*better = false;
	if (rc.unreachable > rf.unreachable || rc.sw_bad > rf.sw_bad)
		snprintf(rep->why, sizeof(rep->why), "kept routes reach %" PRIu64 " pairs fewer",
			 rc.unreachable - rf.unreachable);
	else if (rc.loops > rf.loops)
		snprintf(rep->why, sizeof(rep->why), "kept routes loop");
	else if (rf.cdg_acyclic && !rc.cdg_acyclic)
		snprintf(rep->why, sizeof(rep->why), "kept routes have a credit loop");
	else if (rc.all2all.max > rf.all2all.max)
		snprintf(rep->why, sizeof(rep->why), "kept routes load the busiest link (\"%s\" "
			 "port %u) with %" PRIu64 " routes, fresh ones with %" PRIu64,
			 rc.all2all.max_node == SUBNET_NONE ? "?" :
			 subnet_str(sn, sn->node[rc.all2all.max_node].desc), rc.all2all.max_port,
			 rc.all2all.max, rf.all2all.max);
	else
		*better = true;
	return 0;
}

/* k->prow: each switch's row before, found by NodeGUID; a switch whose ports changed has none. */
static int keep_rows(struct keep *k, const struct subnet *prev_sn, const struct route_out *prev)
{
	k->prow = calloc((size_t)k->n_sw + 1, sizeof(*k->prow));
	if (!k->prow)
		return -ENOMEM;
	k->pmax = prev->max_lid;
	for (uint32_t s = 0; s < k->n_sw; s++) {
		const struct subnet_node *m = &k->sn->node[k->f->sw_node[s]];
		uint32_t o = subnet_find_guid(prev_sn, m->guid);

		if (o == SUBNET_NONE || prev_sn->node[o].nports != m->nports ||
		    prev->sw_index[o] == SUBNET_NONE)
			continue;
		k->prow[s] = route_lft(prev, prev->sw_index[o]);
	}
	return 0;
}

int keep_routes(const struct subnet *prev_sn, const struct route_out *prev,
		const struct subnet *sn, struct route_out *fresh, struct keep_report *rep)
{
	_cleanup_(keep_free) struct keep k = { .sn = sn, .f = fresh, .n_sw = fresh->n_sw };
	struct route_out cand = { 0 };
	bool better = false;
	size_t n = (size_t)fresh->n_sw + 1;
	int r;

	memset(rep, 0, sizeof(*rep));
	if (fresh->sl || !prev->lft || !fresh->n_sw || !prev->n_sw)
		return 0;
	rep->tried = true;
	r = keep_rows(&k, prev_sn, prev);
	if (r == 0)
		r = keep_graph(&k);
	if (r < 0)
		return r;
	k.load = calloc(n * k.stride, sizeof(*k.load));
	k.grp = calloc(n * k.stride, sizeof(*k.grp));
	k.order = calloc((size_t)fresh->max_lid + 1, sizeof(*k.order));
	k.c = malloc(n * sizeof(*k.c));
	k.fc = malloc(n * sizeof(*k.fc));
	k.cl = malloc(n * sizeof(*k.cl));
	k.fl = malloc(n * sizeof(*k.fl));
	k.stack = malloc(n * sizeof(*k.stack));
	cand.lft = malloc(n * ((size_t)fresh->max_lid + 1));
	if (!k.load || !k.grp || !k.order || !k.c || !k.fc || !k.cl || !k.fl || !k.stack || !cand.lft) {
		free(cand.lft);
		return -ENOMEM;
	}
	memcpy(cand.lft, fresh->lft, (size_t)fresh->n_sw * ((size_t)fresh->max_lid + 1));
	cand.n_sw = fresh->n_sw;
	cand.sw_node = fresh->sw_node;
	cand.sw_index = fresh->sw_index;
	cand.max_lid = fresh->max_lid;
	keep_all(&k, &cand, rep);
	r = judge(sn, fresh, &cand, rep, &better);
	if (r == 0 && better) {
		free(fresh->lft);
		fresh->lft = cand.lft;
		rep->used = true;
	} else {
		free(cand.lft);
	}
	return r;
}
