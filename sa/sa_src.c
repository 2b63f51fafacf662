/* SPDX-License-Identifier: MIT */
/*
 * The SA's view of the last sweep: which port owns a LID, which end port
 * has a GUID, which LID names a port in records, which P_Keys a port holds
 * and who may see whom. The indexes are built once a sweep (sa_agent.c
 * rebuilds the view only when the model changes), so a query by LID or GID
 * looks up its ports instead of walking them all.
 */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sa/sa_priv.h"

bool sa_lid_endport(const struct sa_src *s, uint32_t pi)
{
	const struct subnet_port *p = &s->sn->port[pi];

	return p->lid && (subnet_is_switch(s->sn, p->node) ? p->num == 0 : p->num != 0);
}

uint64_t sa_port_guid(const struct sa_src *s, uint32_t pi)
{
	const struct subnet_node *n = &s->sn->node[s->sn->port[pi].node];

	return n->type == NODE_SWITCH ? n->port0_guid : s->sn->port[pi].guid;
}

static uint64_t guid_hash(uint32_t pi, const void *ctx)
{
	return itab_hash_u64(sa_port_guid(ctx, pi));
}

static bool guid_eq(uint32_t pi, const void *key, const void *ctx)
{
	return sa_port_guid(ctx, pi) == *(const uint64_t *)key;
}

/*
 * Every unicast LID to the port that owns it (LMC ranges included), and
 * whether that answers every LID question: not if two ports claim one LID
 * (by_lid names the last of them) or a range runs past the unicast LIDs.
 */
static int index_lids(struct sa_src *s)
{
	const struct subnet *sn = s->sn;

	s->by_lid = malloc((SUBNET_LID_UCAST_END + 1) * sizeof(*s->by_lid));
	if (!s->by_lid)
		return -ENOMEM;
	for (uint32_t l = 0; l <= SUBNET_LID_UCAST_END; l++)
		s->by_lid[l] = SUBNET_NONE;
	for (uint32_t pi = 0; pi < sn->n_ports; pi++) {
		const struct subnet_port *p = &sn->port[pi];
		uint32_t end;

		if (!p->lid)
			continue;
		end = (uint32_t)p->lid + (1u << (p->lmc & 7)) - 1;
		if (end > SUBNET_LID_UCAST_END)
			s->lid_ambiguous = true;
		for (uint32_t l = p->lid; l <= end && l <= SUBNET_LID_UCAST_END; l++) {
			if (s->by_lid[l] != SUBNET_NONE)
				s->lid_ambiguous = true;
			s->by_lid[l] = pi;
		}
		if (end > s->max_lid)
			s->max_lid = (uint16_t)(end > SUBNET_LID_UCAST_END ? SUBNET_LID_UCAST_END : end);
	}
	return 0;
}

/*
 * The end ports with a LID by the GUID records name them by; of two with
 * one GUID (a fabric with duplicates), the first in model order, which is
 * the one a walk over the ports finds first.
 */
static int index_guids(struct sa_src *s)
{
	for (uint32_t pi = 0; pi < s->sn->n_ports; pi++) {
		uint64_t guid;
		int r;

		if (!sa_lid_endport(s, pi))
			continue;
		guid = sa_port_guid(s, pi);
		if (itab_find(&s->by_guid, itab_hash_u64(guid), &guid, guid_eq, s) != ITAB_EMPTY)
			continue;
		r = itab_insert(&s->by_guid, itab_hash_u64(guid), pi, guid_hash, s);
		if (r < 0)
			return r;
	}
	return 0;
}

int sa_src_index(struct sa_src *s)
{
	int r;

	sa_src_free(s);
	if (!s->sn)
		return 0;
	r = index_lids(s);
	if (r == 0)
		r = index_guids(s);
	if (r < 0)
		sa_src_free(s);
	return r;
}

void sa_src_free(struct sa_src *s)
{
	free(s->by_lid);
	s->by_lid = NULL;
	s->max_lid = 0;
	s->lid_ambiguous = false;
	itab_free(&s->by_guid);
}

uint32_t sa_port_of_lid(const struct sa_src *s, uint16_t lid)
{
	if (!s->by_lid || !lid || lid > SUBNET_LID_UCAST_END)
		return SUBNET_NONE;
	return s->by_lid[lid];
}

uint32_t sa_port_of_guid(const struct sa_src *s, uint64_t guid)
{
	return itab_find(&s->by_guid, itab_hash_u64(guid), &guid, guid_eq, s);
}

void sa_lid_ports(const struct sa_src *s, bool by_lid, uint16_t lid, uint32_t *first,
		  uint32_t *end)
{
	uint32_t pi, node;

	*first = 0;
	*end = s->sn->n_ports;
	if (!by_lid || s->lid_ambiguous)
		return;
	/*
	 * Each LID has one owner: only its node's ports can be named by it (a
	 * switch's all by its port 0's LID, a CA's each by its own).
	 */
	pi = sa_port_of_lid(s, lid);
	if (pi == SUBNET_NONE) {
		*end = 0;
		return;
	}
	node = s->sn->port[pi].node;
	*first = subnet_port_idx(s->sn, node, 0);
	*end = *first + s->sn->node[node].nports + 1u;
}

/* A switch's ports are known by its port 0: one LID, one P_Key table that counts. */
static uint32_t endport(const struct subnet *sn, uint32_t pi)
{
	uint32_t node = sn->port[pi].node;

	return subnet_is_switch(sn, node) ? subnet_port_idx(sn, node, 0) : pi;
}

uint16_t sa_endport_lid(const struct sa_src *s, uint32_t pi, uint8_t *lmc)
{
	const struct subnet_port *p = &s->sn->port[endport(s->sn, pi)];

	if (lmc)
		*lmc = p->lmc;
	return p->lid;
}

const uint16_t *sa_port_pkeys(const struct sa_src *s, uint32_t pi, uint32_t *n)
{
	/*
	 * Without partitions loomd leaves P_Key tables as they are, and
	 * every port comes up holding the default full-member key at index 0
	 * (IBA 10.9.1.2); a port the plan has no keys for is left alone too.
	 */
	static const uint16_t dflt = 0xffff;
	const struct pkey_plan *pl = s->pkeys;

	pi = endport(s->sn, pi);
	if (pl && pkey_count(pl, pi)) {
		uint32_t cnt = pkey_count(pl, pi), cap = s->live ?
			s->live->node[s->sn->port[pi].node].partition_cap : cnt;

		/* The table holds what fits: prog_pkey.c leaves the rest out. */
		*n = cap && cap < cnt ? cap : cnt;
		return pl->key + pl->off[pi];
	}
	*n = 1;
	return &dflt;
}

bool sa_ports_share(const struct sa_src *s, uint32_t pa, uint32_t pb)
{
	uint32_t na, nb;
	const uint16_t *a = sa_port_pkeys(s, pa, &na), *b = sa_port_pkeys(s, pb, &nb);

	for (uint32_t i = 0; i < na; i++)
		for (uint32_t j = 0; j < nb; j++)
			if ((a[i] & 0x7fff) && (a[i] & 0x7fff) == (b[j] & 0x7fff) &&
			    ((a[i] | b[j]) & 0x8000))
				return true;
	return false;
}

bool sa_port_holds(const struct sa_src *s, uint32_t pi, uint16_t pkey)
{
	uint32_t n;
	const uint16_t *p = sa_port_pkeys(s, pi, &n);

	for (uint32_t i = 0; i < n; i++)
		if ((p[i] & 0x7fff) && (p[i] & 0x7fff) == (pkey & 0x7fff))
			return true;
	return false;
}

bool sa_visible(const struct sa_query *q, uint32_t pi)
{
	return q->requester != SUBNET_NONE && sa_ports_share(q->src, pi, q->requester);
}

bool sa_lid_in(uint16_t lid, uint16_t base, uint8_t lmc)
{
	return base && lid >= base && (uint32_t)lid < (uint32_t)base + (1u << (lmc & 7));
}

uint16_t sa_tmpl16(const struct sa_query *q, size_t off)
{
	uint16_t v;

	memcpy(&v, q->req->rec + off, 2);
	return be16toh(v);
}
