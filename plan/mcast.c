/* SPDX-License-Identifier: MIT */
/*
 * Multicast groups (IBA 15.2.5.17): by MGID, with the lowest free MLID
 * from 0xC000, and their members by PortGUID with the join states each
 * holds. A group lives while it has a full member, send-only full
 * members included (IBA 15.2.5.17.1: the last full member's leave
 * deletes it, and with it any send-only or non-members, as OpenSM does),
 * except the IPoIB broadcast groups the SM itself creates, which live as
 * long as their partition.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "lib/array.h"
#include "plan/mcast.h"

int mcast_new(struct mcast **out)
{
	struct mcast *mc = calloc(1, sizeof(*mc));

	if (!mc)
		return -ENOMEM;
	mc->next_mgid = 1;
	*out = mc;
	return 0;
}

void mcast_free(struct mcast *mc)
{
	if (!mc)
		return;
	for (uint32_t i = 0; i < mc->n; i++)
		free(mc->g[i].m);
	for (uint32_t i = 0; i < mc->n_mft; i++) {
		free(mc->mft[i].e);
		free(mc->mft[i].known);
	}
	free(mc->g);
	free(mc->mft);
	free(mc);
}

void mcast_changed(struct mcast *mc)
{
	mc->dirty = true;
	if (mc->changed)
		mc->changed(mc->changed_arg);
}

struct mcast_group *mcast_find(const struct mcast *mc, const uint8_t mgid[16])
{
	for (uint32_t i = 0; i < mc->n; i++)
		if (!memcmp(mc->g[i].mgid, mgid, 16))
			return &mc->g[i];
	return NULL;
}

struct mcast_group *mcast_find_mlid(const struct mcast *mc, uint16_t mlid)
{
	for (uint32_t i = 0; i < mc->n; i++)
		if (mc->g[i].mlid == mlid)
			return &mc->g[i];
	return NULL;
}

/* The lowest MLID no group holds: few groups, so a scan is cheap enough. */
static uint16_t free_mlid(const struct mcast *mc)
{
	for (uint32_t l = MCAST_MLID_BASE; l <= MCAST_MLID_END; l++)
		if (!mcast_find_mlid(mc, (uint16_t)l))
			return (uint16_t)l;
	return 0;
}

int mcast_create(struct mcast *mc, const struct mcast_group *tmpl, struct mcast_group **out)
{
	struct mcast_group t = *tmpl;

	if (mcast_find(mc, tmpl->mgid))
		return -EEXIST;
	t.mlid = free_mlid(mc);
	if (!t.mlid)
		return -ENOSPC;
	return mcast_create_at(mc, &t, out);
}

int mcast_create_at(struct mcast *mc, const struct mcast_group *tmpl, struct mcast_group **out)
{
	struct mcast_group *g;

	if (tmpl->mlid < MCAST_MLID_BASE || tmpl->mlid > MCAST_MLID_END)
		return -EINVAL;
	if (mcast_find(mc, tmpl->mgid))
		return -EEXIST;
	if (mcast_find_mlid(mc, tmpl->mlid))
		return -EADDRINUSE;
	if (array_grow((void **)&mc->g, &mc->cap, mc->n + 1, sizeof(*mc->g)) < 0)
		return -ENOMEM;
	g = &mc->g[mc->n++];
	*g = *tmpl;
	g->m = NULL;
	g->n_m = g->cap_m = 0;
	*out = g;
	return 0;
}

void mcast_new_mgid(struct mcast *mc, uint8_t scope, uint16_t pkey, uint8_t mgid[16])
{
	/*
	 * IBA 4.1.1 (Table 2): an SA-assigned MGID is ff1S:a01b:PPPP: and 64
	 * bits of the SA's choosing; a counter, skipping any still in use.
	 */
	do {
		uint64_t v = mc->next_mgid++;

		memset(mgid, 0, 16);
		mgid[0] = 0xff;
		mgid[1] = (uint8_t)(0x10 | (scope & 0xf));
		mgid[2] = 0xa0;
		mgid[3] = 0x1b;
		mgid[4] = (uint8_t)(pkey >> 8);
		mgid[5] = (uint8_t)pkey;
		for (int i = 0; i < 8; i++)
			mgid[15 - i] = (uint8_t)(v >> (8 * i));
	} while (mcast_find(mc, mgid));
}

void mcast_ipoib_mgid(uint16_t pkey, uint8_t mgid[16])
{
	static const uint8_t tmpl[16] = { 0xff, 0x12, 0x40, 0x1b, 0, 0, 0, 0,
					  0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff };

	memcpy(mgid, tmpl, 16);
	mgid[4] = (uint8_t)(pkey >> 8);
	mgid[5] = (uint8_t)pkey;
}

struct mcast_member *mcast_member(const struct mcast_group *g, uint64_t guid)
{
	for (uint32_t i = 0; i < g->n_m; i++)
		if (g->m[i].guid == guid)
			return &g->m[i];
	return NULL;
}

int mcast_join(struct mcast_group *g, uint64_t guid, uint8_t state)
{
	struct mcast_member *m = mcast_member(g, guid);

	if (m) {
		m->state |= state;
		return 0;
	}
	if (array_grow((void **)&g->m, &g->cap_m, g->n_m + 1, sizeof(*g->m)) < 0)
		return -ENOMEM;
	g->m[g->n_m++] = (struct mcast_member){ .guid = guid, .state = state };
	return 0;
}

/*
 * IBA 15.2.5.17.1: a send-only full member is a full member that does not
 * receive; it created the group or could have, and it keeps it.
 */
static bool has_full(const struct mcast_group *g)
{
	for (uint32_t i = 0; i < g->n_m; i++)
		if (g->m[i].state & (MCAST_FULL | MCAST_SENDONLY_FULL))
			return true;
	return false;
}

int mcast_leave(struct mcast *mc, struct mcast_group *g, uint64_t guid, uint8_t state, bool *gone)
{
	struct mcast_member *m = mcast_member(g, guid);
	uint32_t gi = (uint32_t)(g - mc->g);

	*gone = false;
	if (!m || !(m->state & state))
		return -ENOENT;
	m->state &= (uint8_t)~state;
	if (!m->state)
		*m = g->m[--g->n_m];
	if (g->permanent || has_full(g))
		return 0;
	/* No full member left: the group goes, with its other members. */
	free(g->m);
	mc->g[gi] = mc->g[--mc->n];
	*gone = true;
	return 0;
}

int mcast_ipoib_sync(struct mcast *mc, const struct config *c)
{
	bool changed = false;

	for (uint32_t i = 0; i < c->n_parts; i++) {
		const struct config_partition *pt = &c->part[i];
		/* RFC 4391: the broadcast group's P_Key is the full-member one. */
		struct mcast_group want = { .pkey = (uint16_t)(pt->pkey | 0x8000), .qkey = pt->qkey,
					    .mtu = pt->mtu, .rate = pt->rate, .sl = pt->sl,
					    .scope = 2 /* link-local */, .pkt_life = 18,
					    .permanent = true };
		struct mcast_group *g;
		int r;

		if (!pt->ipoib)
			continue;
		mcast_ipoib_mgid(want.pkey, want.mgid);
		g = mcast_find(mc, want.mgid);
		if (!g) {
			r = mcast_create(mc, &want, &g);
			if (r < 0)
				return r;
			changed = true;
			continue;
		}
		/* A reload may change its fields; members stay. */
		if (g->qkey != want.qkey || g->mtu != want.mtu || g->rate != want.rate ||
		    g->sl != want.sl || !g->permanent) {
			g->qkey = want.qkey;
			g->mtu = want.mtu;
			g->rate = want.rate;
			g->sl = want.sl;
			g->permanent = true;
			changed = true;
		}
	}
	if (changed)
		mc->dirty = true;
	return 0;
}
