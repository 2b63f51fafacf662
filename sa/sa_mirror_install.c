/* SPDX-License-Identifier: MIT */
/*
 * A mirror installed: the master's groups, services and subscriptions
 * become this SM's, so that a takeover keeps them (issue 18). The rules
 * for conflicts are in sa_mirror.h; the one principle behind them: the
 * master's state wins, because the hosts (their QPs attached to an MGID
 * and MLID, their Q_Keys) and the switches (MFTs by MLID) hold what the
 * master told them, and whatever we held as a standby nobody used.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/array.h"
#include "sa/sa_mirror.h"

#define MLID_SLOTS (MCAST_MLID_END - MCAST_MLID_BASE + 1)

struct claims {
	uint8_t bit[(MLID_SLOTS + 7) / 8]; /* MLIDs the mirror's groups take */
	bool *ok;                          /* [m->n_g]: accepted (not refused) */
};

static bool claimed(const struct claims *c, uint16_t mlid)
{
	unsigned i = mlid - MCAST_MLID_BASE;

	return c->bit[i / 8] >> (i % 8) & 1;
}

/* Which mirror groups are accepted: a multicast MLID, not one an earlier group took. */
static void claim(const struct sa_mirror *m, struct claims *c, struct sa_mirror_stats *st)
{
	for (uint32_t i = 0; i < m->n_g; i++) {
		uint16_t l = m->g[i].mlid;
		unsigned b = l - MCAST_MLID_BASE;

		if (l < MCAST_MLID_BASE || l > MCAST_MLID_END || claimed(c, l)) {
			st->groups_refused++;
			continue;
		}
		c->bit[b / 8] |= (uint8_t)(1u << (b % 8));
		c->ok[i] = true;
	}
}

static bool in_mirror(const struct sa_mirror *m, const struct claims *c, const uint8_t mgid[16])
{
	for (uint32_t i = 0; i < m->n_g; i++)
		if (c->ok[i] && !memcmp(m->g[i].mgid, mgid, 16))
			return true;
	return false;
}

/*
 * Is mlid held by a group of ours the mirror does not have? (Ours that it
 * has move to the master's MLIDs, so theirs are free to take.)
 */
static bool held_by_ours(const struct sa_mirror *m, const struct claims *c,
			 const struct mcast *mc, uint16_t mlid)
{
	for (uint32_t i = 0; i < mc->n; i++)
		if (mc->g[i].mlid == mlid && !in_mirror(m, c, mc->g[i].mgid))
			return true;
	return false;
}

/* Our groups that the mirror does not have, off the MLIDs it claims. */
static void move_ours(const struct sa_mirror *m, const struct claims *c, struct mcast *mc,
		      struct sa_mirror_stats *st)
{
	for (uint32_t i = 0; i < mc->n; i++) {
		struct mcast_group *g = &mc->g[i];

		if (g->mlid < MCAST_MLID_BASE || g->mlid > MCAST_MLID_END || !claimed(c, g->mlid) ||
		    in_mirror(m, c, g->mgid))
			continue;
		for (uint32_t l = MCAST_MLID_BASE; l <= MCAST_MLID_END; l++)
			if (!claimed(c, (uint16_t)l) && !held_by_ours(m, c, mc, (uint16_t)l)) {
				g->mlid = (uint16_t)l;
				st->groups_moved++;
				break;
			}
		/* No MLID left at all: it keeps the clash; the master's group is installed anyway. */
	}
}

static bool same_fields(const struct mcast_group *a, const struct mcast_group *b)
{
	return a->qkey == b->qkey && a->pkey == b->pkey && a->mtu == b->mtu && a->rate == b->rate &&
	       a->pkt_life == b->pkt_life && a->sl == b->sl && a->flow == b->flow &&
	       a->hop == b->hop && a->tclass == b->tclass && a->scope == b->scope;
}

static int join_all(struct mcast_group *g, const struct mcast_group *from,
		    struct sa_mirror_stats *st)
{
	for (uint32_t j = 0; j < from->n_m; j++) {
		if (mcast_join(g, from->m[j].guid, from->m[j].state) < 0)
			return -ENOMEM;
		st->members++;
	}
	return 0;
}

/* A group we have by MGID: the master's MLID and fields, members merged. */
static int merge(struct mcast_group *g, const struct mcast_group *w, struct sa_mirror_stats *st)
{
	struct mcast_member *mm = g->m;
	uint32_t n = g->n_m, cap = g->cap_m;
	bool perm = g->permanent;

	if (!same_fields(g, w))
		st->fields_differ++;
	*g = *w;
	g->m = mm;
	g->n_m = n;
	g->cap_m = cap;
	g->permanent = perm;
	st->groups_merged++;
	return join_all(g, w, st);
}

static int install_groups(const struct sa_mirror *m, struct mcast *mc, struct sa_mirror_stats *st)
{
	struct claims c = { .ok = calloc(m->n_g ? m->n_g : 1, sizeof(bool)) };
	int r = 0;

	if (!c.ok)
		return -ENOMEM;
	claim(m, &c, st);
	move_ours(m, &c, mc, st);
	/* Ours first, so that every MLID the mirror claims is free before a group is created. */
	for (uint32_t i = 0; i < m->n_g && r == 0; i++) {
		struct mcast_group *g = c.ok[i] ? mcast_find(mc, m->g[i].mgid) : NULL;

		if (g)
			r = merge(g, &m->g[i], st);
	}
	for (uint32_t i = 0; i < m->n_g && r == 0; i++) {
		struct mcast_group t = m->g[i], *g;

		if (!c.ok[i] || mcast_find(mc, t.mgid))
			continue;
		t.m = NULL;
		t.n_m = t.cap_m = 0;
		t.permanent = false;
		r = mcast_create_at(mc, &t, &g);
		if (r == 0) {
			st->groups_new++;
			r = join_all(g, &m->g[i], st);
		} else if (r != -ENOMEM) {
			st->groups_refused++; /* cannot happen after claim and move; counted if it does */
			r = 0;
		}
	}
	free(c.ok);
	return r;
}

static int install_services(const struct sa_mirror *m, struct sa_services *sv, uint64_t now_ms,
			    struct sa_mirror_stats *st)
{
	/* ServiceID, ServiceGID and ServiceP_Key: the RID (IBA 15.2.5.14). */
	const size_t rid = 8 + 16 + 2;

	for (uint32_t i = 0; i < m->n_svc; i++) {
		struct sa_service s = m->svc[i];
		uint32_t j;

		/*
		 * The lease starts again now. OpenSM and loomd both answer the
		 * ServiceLease as registered, not what remains of it (OpenSM
		 * counts the rest down in a field of its own), so a service may
		 * outlive its lease at the old master by up to one lease; its
		 * owner renews it within the lease anyway.
		 */
		if (s.expires_ms != UINT64_MAX)
			s.expires_ms += now_ms;
		for (j = 0; j < sv->n; j++)
			if (!memcmp(sv->svc[j].wire, s.wire, rid))
				break;
		if (j == sv->n) {
			if (array_grow((void **)&sv->svc, &sv->cap, sv->n + 1, sizeof(*sv->svc)) < 0)
				return -ENOMEM;
			sv->n++;
		}
		sv->svc[j] = s;
		st->services++;
	}
	return 0;
}

static int install_subs(const struct sa_mirror *m, struct sa_events *ev, const struct subnet *sn,
			struct sa_mirror_stats *st)
{
	for (uint32_t i = 0; i < m->n_sub; i++) {
		struct sa_sub s = m->sub[i];
		uint32_t pi = sn ? subnet_find_port_guid(sn, s.guid) : SUBNET_NONE, j;

		/* Reports go to the subscriber's LID, which only the model knows. */
		if (pi == SUBNET_NONE || !sn->port[pi].lid) {
			st->subs_unknown++;
			continue;
		}
		s.lid = sn->port[pi].lid;
		for (j = 0; j < ev->n_sub; j++)
			if (ev->sub[j].guid == s.guid && !memcmp(ev->sub[j].wire, s.wire, sizeof(s.wire)))
				break;
		if (j == ev->n_sub) {
			if (array_grow((void **)&ev->sub, &ev->cap_sub, ev->n_sub + 1,
				       sizeof(*ev->sub)) < 0)
				return -ENOMEM;
			ev->n_sub++;
		}
		ev->sub[j] = s;
		st->subs++;
	}
	return 0;
}

static int cmp_gid(const void *a, const void *b)
{
	return memcmp(a, b, 16);
}

/* Trap 66/67's baseline: the groups as they are now (sa_mcast_changed diffs against it). */
static int baseline(const struct mcast *mc, struct sa_events *ev)
{
	uint8_t(*cur)[16] = malloc((mc->n ? mc->n : 1) * sizeof(*cur));

	if (!cur)
		return -ENOMEM;
	for (uint32_t i = 0; i < mc->n; i++)
		memcpy(cur[i], mc->g[i].mgid, 16);
	qsort(cur, mc->n, sizeof(*cur), cmp_gid);
	free(ev->mgids);
	ev->mgids = cur;
	ev->n_mgids = mc->n;
	return 0;
}

int sa_mirror_install(const struct sa_mirror *m, struct mcast *mc, struct sa_services *svc,
		      struct sa_events *ev, const struct subnet *sn, uint64_t now_ms,
		      struct sa_mirror_stats *st)
{
	int r = 0;

	memset(st, 0, sizeof(*st));
	if (mc)
		r = install_groups(m, mc, st);
	if (r == 0 && svc)
		r = install_services(m, svc, now_ms, st);
	if (r == 0 && ev)
		r = install_subs(m, ev, sn, st);
	if (r == 0 && ev && mc)
		r = baseline(mc, ev);
	/*
	 * After the baseline: loomd's listener reports groups created against
	 * it (sa_mcast_changed), and these the hosts knew all along.
	 */
	if (mc && (st->groups_new || st->groups_merged || st->groups_moved))
		mcast_changed(mc);
	return r;
}
