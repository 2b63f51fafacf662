/* SPDX-License-Identifier: MIT */
/*
 * LID assignment: the map's LIDs first, then the ones the ports have, then
 * the lowest free. Every pass takes ports in GUID order, so the same model
 * and map give the same LIDs whatever the order of nodes in the model.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cleanup.h"
#include "plan/lid_priv.h"

#define NLIDS (SUBNET_LID_UCAST_END + 1)
#define FREE UINT32_MAX
#define OFFLINE 0x80000000u /* owner: a map entry (index | OFFLINE) of a GUID not in the model */

enum how {
	HOW_NONE,
	HOW_MAP,     /* 1. the map's */
	HOW_FABRIC,  /* 2. the model's */
	HOW_NEW,     /* 3. the lowest free */
	HOW_DUP,     /* an earlier port has the GUID */
	HOW_NOGUID,  /* GUID 0 */
	HOW_NOSPACE, /* no free range left */
};

/* A LID-bearing port, as assignment sees it. */
struct want {
	uint64_t guid;
	uint32_t port;
	uint32_t ent;  /* its map entry, or ITAB_EMPTY */
	uint16_t old;  /* the LID it had in the model */
	uint16_t lid;  /* assigned; 0 if none */
	uint8_t lmc;
	uint8_t how;   /* enum how */
	bool map_lost; /* it had a map entry that it could not keep */
};

struct assign {
	struct subnet *sn;
	const struct lid_map *m;
	struct lid_report *rep;
	struct want *w;
	uint32_t n;
	uint32_t *owner; /* owner[lid]: want index, index of an offline entry | OFFLINE, or FREE */
	uint32_t top;    /* the highest LID a port may get: every switch's LFT must hold it */
	uint16_t cap;    /* the smallest LinearFDBCap, or 0: none given */
	uint32_t unaligned, nospace; /* ports that lost their map LIDs to the LMC, found none */
};

void lid_report_free(struct lid_report *rep)
{
	diag_free(&rep->msgs);
}

static bool range_free(const struct assign *a, uint32_t base, uint8_t lmc)
{
	uint32_t n = 1u << lmc;

	if (base < 1 || base & (n - 1) || base + n - 1 > a->top)
		return false;
	for (uint32_t l = base; l < base + n; l++)
		if (a->owner[l] != FREE)
			return false;
	return true;
}

static void take(struct assign *a, uint32_t base, uint8_t lmc, uint32_t who)
{
	for (uint32_t l = base; l < base + (1u << lmc) && l < NLIDS; l++)
		a->owner[l] = who;
}

/* `CA 0x0002c90300001234 "node01" port 1` */
static const char *port_name(const struct subnet *sn, uint32_t pi, char *buf, size_t size)
{
	const struct subnet_port *p = &sn->port[pi];
	const struct subnet_node *nd = &sn->node[p->node];

	snprintf(buf, size, "%s 0x%016" PRIx64 " \"%s\" port %u", subnet_type_name(nd->type),
		 nd->guid, subnet_str(sn, nd->name), p->num);
	return buf;
}

static int cmp_want(const void *a, const void *b)
{
	const struct want *x = a, *y = b;

	if (x->guid != y->guid)
		return x->guid < y->guid ? -1 : 1;
	return x->port < y->port ? -1 : x->port > y->port; /* node order among duplicates */
}

static uint32_t count_bearing(const struct subnet *sn)
{
	uint32_t k = 0;

	for (uint32_t i = 0; i < sn->n_nodes; i++) {
		const struct subnet_node *nd = &sn->node[i];

		if (nd->type == NODE_SWITCH) {
			k++;
			continue;
		}
		for (unsigned p = 1; p <= nd->nports; p++)
			k += sn->port[nd->port_base + p].peer != SUBNET_NONE;
	}
	return k;
}

/* Every LID-bearing port, sorted by GUID, with its map entry; duplicates marked. */
static int collect(struct assign *a, uint8_t lmc)
{
	const struct subnet *sn = a->sn;
	uint32_t k = 0, n = count_bearing(sn);

	a->w = calloc(n ? n : 1, sizeof(*a->w));
	if (!a->w)
		return -ENOMEM;
	for (uint32_t i = 0; i < sn->n_nodes; i++) {
		const struct subnet_node *nd = &sn->node[i];
		bool sw = nd->type == NODE_SWITCH;

		for (unsigned p = sw ? 0 : 1; p <= (sw ? 0u : nd->nports); p++) {
			uint32_t pi = nd->port_base + p;
			const struct subnet_port *sp = &sn->port[pi];

			if (!sw && sp->peer == SUBNET_NONE)
				continue;
			a->w[k++] = (struct want){
				.guid = sw ? (nd->port0_guid ? nd->port0_guid : sp->guid) : sp->guid,
				.port = pi, .old = sp->lid, .lmc = sw ? 0 : lmc,
			};
		}
	}
	a->n = k;
	qsort(a->w, k, sizeof(*a->w), cmp_want);
	for (uint32_t i = 0; i < k; i++) {
		struct want *w = &a->w[i];

		if (!w->guid)
			w->how = HOW_NOGUID;
		else if (i > 0 && w->guid == w[-1].guid)
			w->how = HOW_DUP;
		else
			w->ent = lid_map_find(a->m, w->guid);
		if (w->how)
			w->ent = ITAB_EMPTY;
	}
	return 0;
}

/* Map entries of GUIDs not in the model keep their LIDs for when the port returns. */
static int reserve_offline(struct assign *a, uint8_t **present)
{
	const struct lid_map *m = a->m;

	*present = calloc(m->n ? m->n : 1, 1);
	if (!*present)
		return -ENOMEM;
	for (uint32_t i = 0; i < a->n; i++)
		if (a->w[i].ent != ITAB_EMPTY)
			(*present)[a->w[i].ent] = 1;
	for (uint32_t e = 0; e < m->n; e++)
		if (!(*present)[e])
			take(a, m->e[e].lid, m->e[e].lmc, e | OFFLINE);
	return 0;
}

/* 1. the map's base, 2. the model's LID: kept if aligned for the port's LMC and free. */
static void keep_pass(struct assign *a, enum how how)
{
	for (uint32_t i = 0; i < a->n; i++) {
		struct want *w = &a->w[i];
		uint16_t base;

		if (w->how != HOW_NONE)
			continue;
		if (how == HOW_MAP) {
			if (w->ent == ITAB_EMPTY)
				continue;
			base = a->m->e[w->ent].lid;
		} else {
			base = w->old;
		}
		if (!range_free(a, base, w->lmc)) {
			w->map_lost |= how == HOW_MAP;
			continue;
		}
		w->lid = base;
		w->how = (uint8_t)how;
		take(a, base, w->lmc, i);
	}
}

/* The lowest free aligned range at or after *cursor: LIDs are only taken here, never given back. */
static uint32_t lowest_free(const struct assign *a, uint8_t lmc, uint32_t *cursor)
{
	uint32_t step = 1u << lmc;

	for (uint32_t b = (*cursor + step - 1) & ~(step - 1); b + step - 1 <= a->top; b += step)
		if (range_free(a, b, lmc)) {
			*cursor = b;
			return b;
		}
	*cursor = NLIDS;
	return 0;
}

static void new_pass(struct assign *a)
{
	uint32_t cursor[LID_LMC_MAX + 1];

	for (unsigned l = 0; l <= LID_LMC_MAX; l++)
		cursor[l] = 1;
	for (uint32_t i = 0; i < a->n; i++) {
		struct want *w = &a->w[i];

		if (w->how != HOW_NONE)
			continue;
		w->lid = (uint16_t)lowest_free(a, w->lmc, &cursor[w->lmc]);
		w->how = w->lid ? HOW_NEW : HOW_NOSPACE;
		if (w->lid)
			take(a, w->lid, w->lmc, i);
	}
}

/* Does the range base .. base + 2^lmc - 1 go past what every switch can forward? */
static bool past_cap(const struct assign *a, uint32_t base, uint8_t lmc)
{
	return base + (1u << lmc) - 1 > a->top && base + (1u << lmc) - 1 <= SUBNET_LID_UCAST_END;
}

/* Who holds part of an aligned map range that a port could not keep, for the message. */
static void lost_why(const struct assign *a, const struct want *w, char *buf, size_t size)
{
	uint32_t n = 1u << w->lmc, base = a->m->e[w->ent].lid;
	char who[160];

	if (past_cap(a, base, w->lmc)) {
		snprintf(buf, size, "a switch's LinearFDBCap is %u: its LFT holds no LID past 0x%04x",
			 a->cap, a->top);
		return;
	}
	for (uint32_t l = base; l < base + n; l++) {
		uint32_t o = a->owner[l];

		/* Not w itself: its new range is another aligned block of the same size. */
		if (o == FREE)
			continue;
		if (o & OFFLINE)
			snprintf(buf, size, "LID 0x%04x is held for port GUID 0x%016" PRIx64
				 ", which is not in the fabric now", l, a->m->e[o & ~OFFLINE].guid);
		else
			snprintf(buf, size, "LID 0x%04x is taken by %s", l,
				 port_name(a->sn, a->w[o].port, who, sizeof(who)));
		return;
	}
	snprintf(buf, size, "taken");
}

static void report_port(struct assign *a, uint32_t i)
{
	struct lid_report *rep = a->rep;
	const struct want *w = &a->w[i];
	char name[160], other[160], why[300];
	uint32_t first = i;

	switch (w->how) {
	case HOW_DUP:
		while (a->w[first].how == HOW_DUP) /* the port that has the GUID */
			first--;
		rep->duplicate++;
		diag_msg(&rep->msgs, "%s: port GUID 0x%016" PRIx64 " is also %s's; it gets no LID "
			 "until one of them has another GUID",
			 port_name(a->sn, w->port, name, sizeof(name)), w->guid,
			 port_name(a->sn, a->w[first].port, other, sizeof(other)));
		break;
	case HOW_NOGUID:
		diag_msg(&rep->msgs, "%s: port GUID is 0; it gets no LID",
			 port_name(a->sn, w->port, name, sizeof(name)));
		break;
	case HOW_NOSPACE:
		a->nospace++;
		diag_msg(&rep->msgs, "%s: no free range of %u LIDs (LMC %u) is left; it gets no LID",
			 port_name(a->sn, w->port, name, sizeof(name)), 1u << w->lmc, w->lmc);
		break;
	default:
		/*
		 * IBA 14.2.5.4: a switch forwards only LIDs below its
		 * LinearFDBCap; a port kept at a LID past it is unreachable.
		 */
		if (!w->map_lost && w->old && w->lid != w->old && past_cap(a, w->old, w->lmc)) {
			a->rep->moved_cap++;
			diag_msg(&rep->msgs, "%s: LID 0x%04x (%u) is past what every switch can "
				 "forward (the smallest LinearFDBCap is %u: LIDs below it); it moves "
				 "to 0x%04x", port_name(a->sn, w->port, name, sizeof(name)), w->old,
				 w->old, a->cap, w->lid);
			break;
		}
		if (!w->map_lost)
			break;
		if (past_cap(a, a->m->e[w->ent].lid, w->lmc))
			a->rep->moved_cap++;
		/* Expected after an LMC change: one line for all of them, at the end. */
		if (a->m->e[w->ent].lid & ((1u << w->lmc) - 1)) {
			a->unaligned++;
			break;
		}
		lost_why(a, w, why, sizeof(why));
		diag_msg(&rep->msgs, "%s: LID 0x%04x from the map not kept (%s); it gets 0x%04x",
			 port_name(a->sn, w->port, name, sizeof(name)), a->m->e[w->ent].lid, why,
			 w->lid);
	}
}

/* The new map: offline entries as they were, then every assigned port's LIDs. */
static int build_map(struct assign *a, const uint8_t *present, struct lid_ent **out,
		     uint32_t *nout)
{
	const struct lid_map *m = a->m;
	struct lid_ent *e = malloc(((size_t)m->n + a->n + 1) * sizeof(*e));
	uint32_t k = 0;

	if (!e)
		return -ENOMEM;
	for (uint32_t i = 0; i < m->n; i++)
		if (!present[i])
			e[k++] = m->e[i];
	for (uint32_t i = 0; i < a->n; i++) {
		const struct want *w = &a->w[i];
		const struct lid_ent *old = w->ent != ITAB_EMPTY ? &m->e[w->ent] : NULL;

		if (!w->lid) {
			a->rep->map_updates += old != NULL; /* its entry goes */
			continue;
		}
		if (old && old->lid == w->lid && old->lmc == w->lmc) {
			e[k++] = *old;
			continue;
		}
		e[k++] = (struct lid_ent){ .guid = w->guid, .lid = w->lid, .lmc = w->lmc };
		a->rep->map_updates++;
	}
	*out = e;
	*nout = k;
	return 0;
}

/* Write the result into the model: only assigned ports have LIDs. */
static void commit(struct assign *a)
{
	struct subnet *sn = a->sn;
	struct lid_report *rep = a->rep;

	for (uint32_t i = 0; i < sn->n_ports; i++) {
		sn->port[i].lid = 0;
		sn->port[i].lmc = 0;
	}
	for (uint32_t i = 0; i < a->n; i++) {
		const struct want *w = &a->w[i];

		rep->kept_map += w->how == HOW_MAP;
		rep->kept_fabric += w->how == HOW_FABRIC;
		rep->assigned_new += w->how == HOW_NEW;
		if (!w->lid) {
			rep->unassigned++;
			continue;
		}
		rep->changed += w->old && w->old != w->lid;
		sn->port[w->port].lid = w->lid;
		sn->port[w->port].lmc = w->lmc;
	}
}

uint16_t lid_switch_cap(const struct subnet *sn, const struct disc_live *live)
{
	uint16_t cap = 0;

	for (uint32_t i = 0; i < sn->n_nodes; i++) {
		uint16_t c = live->node[i].si.lin_cap;

		if (subnet_is_switch(sn, i) && c && (!cap || c < cap))
			cap = c;
	}
	return cap;
}

int lid_assign(struct subnet *sn, struct lid_map *m, uint8_t lmc, struct lid_report *rep)
{
	return lid_assign_cap(sn, m, lmc, 0, rep);
}

int lid_assign_cap(struct subnet *sn, struct lid_map *m, uint8_t lmc, uint16_t cap,
		   struct lid_report *rep)
{
	return lid_assign_order(sn, m, lmc, cap, false, rep);
}

int lid_assign_order(struct subnet *sn, struct lid_map *m, uint8_t lmc, uint16_t cap,
		     bool fabric_first, struct lid_report *rep)
{
	_cleanup_free_ uint32_t *owner = malloc(NLIDS * sizeof(*owner));
	_cleanup_free_ uint8_t *present = NULL;
	struct assign a = { .sn = sn, .m = m, .rep = rep, .owner = owner, .cap = cap,
			    .top = cap && cap <= SUBNET_LID_UCAST_END ? cap - 1u :
			    SUBNET_LID_UCAST_END };
	struct lid_ent *e;
	uint32_t ne;
	int r;

	if (lmc > LID_LMC_MAX)
		return -EINVAL;
	if (!owner)
		return -ENOMEM;
	memset(owner, 0xff, NLIDS * sizeof(*owner)); /* FREE */
	rep->kept_map = rep->kept_fabric = rep->assigned_new = rep->changed = 0;
	rep->unassigned = rep->duplicate = rep->map_updates = rep->moved_cap = 0;
	r = collect(&a, lmc);
	if (r == 0)
		r = reserve_offline(&a, &present);
	if (r < 0)
		goto out;
	if (fabric_first)
		keep_pass(&a, HOW_FABRIC);
	keep_pass(&a, HOW_MAP);
	keep_pass(&a, HOW_FABRIC);
	new_pass(&a);
	for (uint32_t i = 0; i < a.n; i++)
		report_port(&a, i);
	r = build_map(&a, present, &e, &ne);
	if (r == 0)
		r = lid_map_replace(m, e, ne);
	if (r < 0)
		goto out;
	commit(&a);
	if (a.unaligned)
		diag_msg(&rep->msgs, "%u ports got new LIDs: their LIDs in the map are not aligned "
			 "for LMC %u (%u LIDs a port)", a.unaligned, lmc, 1u << lmc);
	if (a.nospace) {
		diag_msg(&rep->msgs, "out of LIDs: %u ports left without one (LMC %u gives each CA "
			 "port %u LIDs; a lower LMC fits more%s)", a.nospace, lmc, 1u << lmc,
			 a.top < SUBNET_LID_UCAST_END ? "; every switch's LFT must hold every LID, "
			 "and the smallest one stops at its LinearFDBCap" : "");
		r = -ENOSPC;
	}
out:
	free(a.w);
	return r;
}
