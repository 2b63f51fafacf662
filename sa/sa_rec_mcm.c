/* SPDX-License-Identifier: MIT */
/*
 * MCMemberRecord (IBA 15.2.5.17): SubnAdmSet joins a port to a group,
 * creating it on a full member's first join; SubnAdmDelete leaves;
 * Get/GetTable list groups. What a join must pass, as OpenSM checks it
 * (osm_sa_mcmember_record.c) and IBA 15.2.5.17.1 asks:
 *  - MGID, PortGID and JoinState given (create: Q_Key, P_Key, SL,
 *    FlowLabel and TClass too), else "insufficient components";
 *  - the PortGID has the subnet's prefix (or the link-local one), else
 *    "invalid GID", and is the requester's own port (the SM's port may
 *    join for others), else "request denied";
 *  - the port holds the group's P_Key, and its link carries the group's
 *    MTU and rate; a Q_Key, P_Key, MLID, TClass, SL, FlowLabel or
 *    HopLimit given must be the group's: else "request invalid";
 *  - only a full (or send-only full) member creates (o15-0.1.9), and only
 *    with a well-formed MGID (o15-0.1.6: 0xff, no reserved flag, no
 *    SA-style signature with link-local scope);
 *  - a rate or MTU given with its selector is a real code (o15-0.1.8);
 *    given without it, it is ignored (by a create, a join and a list);
 *  - the selectors of MTU, rate and PacketLifeTime are honoured: a
 *    create picks values they allow (none: "request invalid"), a join
 *    and a list compare the group's by them;
 *  - a leave gives MGID, PortGID and JoinState (else "insufficient
 *    components"), names only JoinState bits the port holds and is
 *    answered with what it keeps (o15-0.1.14).
 * OpenSM's osmtest -f m passes against these rules (tests/e2e/osmtest_test.sh).
 * Lists: trusted requesters (the SM_Key) see every member; others one
 * record per group, PortGID and JoinState zeroed (IBA 15.2.5.17, as
 * OpenSM answers them), except their own membership asked by PortGID.
 */
#include <endian.h>
#include <errno.h>
#include <string.h>

#include "mad/rate.h"
#include "sa/sa_priv.h"

_Static_assert(sizeof(ib_member_rec_t) == 56, "MCMemberRecord is 52 bytes, padded to 8");

enum {
	MCR_MGID = 1 << 0, MCR_PORT_GID = 1 << 1, MCR_QKEY = 1 << 2, MCR_MLID = 1 << 3,
	MCR_MTU_SEL = 1 << 4, MCR_MTU = 1 << 5, MCR_TCLASS = 1 << 6, MCR_PKEY = 1 << 7,
	MCR_RATE_SEL = 1 << 8, MCR_RATE = 1 << 9, MCR_LIFE_SEL = 1 << 10, MCR_LIFE = 1 << 11,
	MCR_SL = 1 << 12, MCR_FLOW = 1 << 13, MCR_HOP = 1 << 14, MCR_SCOPE = 1 << 15,
	MCR_JOIN = 1 << 16,
};
#define MCR_JOIN_NEED (MCR_MGID | MCR_PORT_GID | MCR_JOIN)
#define MCR_CREATE_NEED (MCR_QKEY | MCR_PKEY | MCR_SL | MCR_FLOW | MCR_TCLASS)
/* The values that come with a selector: compared by it, never bit for bit. */
#define MCR_SELECTED (MCR_MTU_SEL | MCR_MTU | MCR_RATE_SEL | MCR_RATE | MCR_LIFE_SEL | MCR_LIFE)
/* A new group's PacketLifeTime, unless the request's selector rules it out: 4.096 us * 2^18. */
#define MCR_LIFE_DEFAULT 18

/*
 * Does the mask give a value and its selector (the selector's bit, the
 * value's next)? A value alone says nothing (IBA 15.2.5.17: the selector
 * says how to compare it), and is ignored, as OpenSM ignores it.
 */
static bool sel_given(uint64_t mask, uint64_t sel_bit)
{
	return (mask & (sel_bit | sel_bit << 1)) == (sel_bit | sel_bit << 1);
}

static const struct sa_field mcr_fields[] = {
	{ 0, 128 }, { 128, 128 }, { 256, 32 }, { 288, 16 }, /* MGID, PortGID, Q_Key, MLID */
	/* Selectors say how to compare, they are not compared themselves. */
	{ 304, 0 }, { 306, 6 }, { 312, 8 }, { 320, 16 },    /* MTUSel, MTU, TClass, P_Key */
	{ 336, 0 }, { 338, 6 }, { 344, 0 }, { 346, 6 },     /* RateSel, Rate, LifeSel, Life */
	{ 352, 4 }, { 356, 20 }, { 376, 8 }, { 384, 4 },    /* SL, FlowLabel, HopLimit, Scope */
	{ 388, 4 }, { 392, 1 },                             /* JoinState, ProxyJoin */
};

/* What port pi's link carries: its MTU and rate codes. */
static void port_caps(const struct sa_src *s, uint32_t pi, uint8_t *mtu, uint8_t *rate)
{
	ib_port_info_t w;

	memcpy(&w, s->live->port[pi].raw, sizeof(w));
	*mtu = ib_port_info_get_mtu_cap(&w);
	if (s->sn->port[pi].num && ib_port_info_get_neighbor_mtu(&w))
		*mtu = ib_port_info_get_neighbor_mtu(&w);
	*rate = ib_port_info_compute_rate(&w, !!(w.capability_mask & IB_PORT_CAP_HAS_EXT_SPEEDS));
}

static bool holds_pkey(const struct sa_src *s, uint32_t pi, uint16_t pkey)
{
	uint32_t n;
	const uint16_t *k = sa_port_pkeys(s, pi, &n);

	for (uint32_t i = 0; i < n; i++)
		if ((k[i] & 0x7fff) && (k[i] & 0x7fff) == (pkey & 0x7fff))
			return true;
	return false;
}

static uint64_t prefix_of(const struct sa_src *s)
{
	return s->sn->subnet_prefix ? s->sn->subnet_prefix : 0xfe80000000000000ULL;
}

/* The record of g, for member guid (0: none) with join state js. */
static void rec_of(const struct sa_src *s, const struct mcast_group *g, uint64_t guid, uint8_t js,
		   ib_member_rec_t *r)
{
	memset(r, 0, sizeof(*r));
	memcpy(r->mgid.raw, g->mgid, 16);
	if (guid) {
		r->port_gid.unicast.prefix = htobe64(prefix_of(s));
		r->port_gid.unicast.interface_id = htobe64(guid);
	}
	r->qkey = htobe32(g->qkey);
	r->mlid = htobe16(g->mlid);
	/* Selector 2, "exactly", as OpenSM reports a group's MTU, rate and lifetime. */
	r->mtu = (uint8_t)(2 << 6 | (g->mtu & 0x3f));
	r->tclass = g->tclass;
	r->pkey = htobe16(g->pkey);
	r->rate = (uint8_t)(2 << 6 | (g->rate & 0x3f));
	r->pkt_life = (uint8_t)(2 << 6 | (g->pkt_life & 0x3f));
	r->sl_flow_hop = ib_member_set_sl_flow_hop(g->sl, g->flow, g->hop);
	r->scope_state = (uint8_t)(g->scope << 4 | (js & 0xf));
}

/*
 * A selector's answer (IBA 15.2.5.17: 0 greater than, 1 less than, 2
 * exactly, 3 the largest MTU or rate, the smallest lifetime, available:
 * any) for a value v the port or group has: does v satisfy "sel want"?
 * Rates compare by speed, not code.
 */
static bool sel_ok(uint8_t sel, uint8_t want, uint8_t v, bool rate)
{
	unsigned a = rate ? rate_speed(v) : v, b = rate ? rate_speed(want) : want;

	switch (sel) {
	case 0: return a > b;
	case 1: return a < b;
	case 2: return a == b;
	default: return true;
	}
}

/* Does group g satisfy every selector the request gives with its value (MTU, rate, lifetime)? */
static bool selectors_ok(const ib_member_rec_t *t, uint64_t mask, const struct mcast_group *g)
{
	if (sel_given(mask, MCR_MTU_SEL) && !sel_ok(t->mtu >> 6, t->mtu & 0x3f, g->mtu, false))
		return false;
	if (sel_given(mask, MCR_LIFE_SEL) &&
	    !sel_ok(t->pkt_life >> 6, t->pkt_life & 0x3f, g->pkt_life, false))
		return false;
	return !sel_given(mask, MCR_RATE_SEL) ||
	       sel_ok(t->rate >> 6, t->rate & 0x3f, g->rate, true);
}

/*
 * A new group's PacketLifeTime (6 bits): ours, unless the selector rules
 * it out, then the nearest the selector allows; -1 if it allows none
 * (less than 0, greater than 63). Selector 3 asks for the smallest
 * available: the SA offers only its own.
 */
static int life_pick(uint8_t sel, uint8_t want)
{
	switch (sel) {
	case 0: return want >= 0x3f ? -1 : want < MCR_LIFE_DEFAULT ? MCR_LIFE_DEFAULT : want + 1;
	case 1: return !want ? -1 : want > MCR_LIFE_DEFAULT ? MCR_LIFE_DEFAULT : want - 1;
	case 2: return want;
	default: return MCR_LIFE_DEFAULT;
	}
}

/* The value a new group gets: the port's best that the selector allows; 0 if none. */
static uint8_t pick(uint8_t sel, uint8_t want, uint8_t port, bool rate)
{
	if (sel_ok(sel, want, port, rate))
		return port;
	if (sel == 1 || sel == 2) {
		/* Less than, or exactly: the request's own value, if the port carries it. */
		uint8_t v = sel == 2 ? want : 0;

		if (sel == 1)
			for (uint8_t c = 1; c <= (rate ? 22 : 5); c++)
				if (sel_ok(1, want, c, rate) && sel_ok(1, port, c, rate) &&
				    (rate ? rate_speed(c) > rate_speed(v) : c > v))
					v = c;
		return v && (rate ? rate_speed(v) <= rate_speed(port) : v <= port) ? v : 0;
	}
	return 0;
}

/*
 * The member's port: the PortGID's, which must be the requester's (or the
 * SM's proxy). A GID names a port of this subnet by the subnet's prefix,
 * or by the link-local one every port also has (IBA 4.1.1); another
 * prefix is another subnet's port: ERR_REQ_INVALID_GID (0x0500, IBA
 * 15.2.4), as OpenSM and osmtest have it.
 */
static uint16_t member_port(struct sa_query *q, const ib_member_rec_t *t, uint32_t *pi)
{
	const struct sa_src *s = q->src;
	uint64_t guid = be64toh(t->port_gid.unicast.interface_id);
	uint64_t prefix = be64toh(t->port_gid.unicast.prefix);

	if (prefix != prefix_of(s) && prefix != IB_DEFAULT_SUBNET_PREFIX_HO)
		return SA_ST_INVALID_GID;
	*pi = subnet_find_port_guid(s->sn, guid);
	if (*pi == SUBNET_NONE)
		return SA_ST_REQ_INVALID; /* a port the SM does not know: as OpenSM answers */
	if (*pi != q->requester && q->requester != s->sm_port)
		return SA_ST_DENIED;
	return SA_ST_OK;
}

/*
 * Does the request agree with group g on every field its mask gives
 * that a join cannot change: Q_Key, P_Key (either membership), MLID,
 * TClass, SL, FlowLabel, HopLimit (IBA 15.2.5.17.1; OpenSM checks the
 * same on a join)?
 */
static bool fields_match(const ib_member_rec_t *t, uint64_t mask, const struct mcast_group *g)
{
	uint8_t sl, hop;
	uint32_t flow;

	ib_member_get_sl_flow_hop(t->sl_flow_hop, &sl, &flow, &hop);
	return !(((mask & MCR_QKEY) && be32toh(t->qkey) != g->qkey) ||
		 ((mask & MCR_PKEY) && (be16toh(t->pkey) & 0x7fff) != (g->pkey & 0x7fff)) ||
		 ((mask & MCR_MLID) && be16toh(t->mlid) != g->mlid) ||
		 ((mask & MCR_TCLASS) && t->tclass != g->tclass) ||
		 ((mask & MCR_SL) && sl != g->sl) || ((mask & MCR_FLOW) && flow != g->flow) ||
		 ((mask & MCR_HOP) && hop != g->hop));
}

/* Can port pi be in g? Its P_Key, MTU and rate, and what the request asks. */
static uint16_t join_checks(struct sa_query *q, const ib_member_rec_t *t, uint64_t mask,
			    const struct mcast_group *g, uint32_t pi)
{
	uint8_t mtu, rate;

	if (!fields_match(t, mask, g))
		return SA_ST_REQ_INVALID;
	if (!holds_pkey(q->src, pi, g->pkey))
		return SA_ST_REQ_INVALID; /* IBA 15.2.5.17.1: not in the group's partition */
	port_caps(q->src, pi, &mtu, &rate);
	if (g->mtu > mtu || rate_speed(g->rate) > rate_speed(rate))
		return SA_ST_REQ_INVALID; /* the port's link cannot carry the group */
	return selectors_ok(t, mask, g) ? SA_ST_OK : SA_ST_REQ_INVALID;
}

/*
 * May a new group have this MGID (IBA 4.1.1, o15-0.1.6)? It starts 0xff;
 * the three upper flag bits are reserved; an SA-style MGID (signature
 * 0xA01B) is not link-local. IPoIB MGIDs (0x401B, 0x601B) are taken as
 * they come, as OpenSM takes them.
 */
static bool mgid_ok(const uint8_t m[16])
{
	uint16_t sig = (uint16_t)(m[2] << 8 | m[3]);

	if (m[0] != 0xff)
		return false;
	if (sig == 0x401b || sig == 0x601b)
		return true;
	if (m[1] & 0xe0)
		return false;
	return !(sig == 0xa01b && (m[1] & 0xf) == 2);
}

/* A new group from the request; the port pi creates it. */
static uint16_t create(struct sa_query *q, const ib_member_rec_t *t, uint64_t mask, uint32_t pi,
		       struct mcast_group **out)
{
	struct mcast *mc = q->src->mcast;
	struct mcast_group g = { 0 };
	uint8_t mtu, rate, sl;
	uint32_t flow;
	uint8_t hop;
	int life;
	static const uint8_t zero[16];

	if ((mask & MCR_CREATE_NEED) != MCR_CREATE_NEED)
		return SA_ST_INSUF_COMPS;
	memcpy(g.mgid, t->mgid.raw, 16);
	if (memcmp(g.mgid, zero, 16) && !mgid_ok(g.mgid))
		return SA_ST_REQ_INVALID; /* as OpenSM answers a malformed MGID (o15-0.1.6) */
	g.qkey = be32toh(t->qkey);
	g.pkey = be16toh(t->pkey);
	if (!(g.pkey & 0x7fff) || !holds_pkey(q->src, pi, g.pkey))
		return SA_ST_REQ_INVALID;
	g.pkey |= 0x8000; /* a group's P_Key is the full-member key, as IPoIB's */
	port_caps(q->src, pi, &mtu, &rate);
	g.mtu = sel_given(mask, MCR_MTU_SEL) ? pick(t->mtu >> 6, t->mtu & 0x3f, mtu, false) : mtu;
	g.rate = sel_given(mask, MCR_RATE_SEL) ? pick(t->rate >> 6, t->rate & 0x3f, rate, true) :
						 rate;
	life = sel_given(mask, MCR_LIFE_SEL) ? life_pick(t->pkt_life >> 6, t->pkt_life & 0x3f) :
					       MCR_LIFE_DEFAULT;
	if (!g.mtu || !g.rate || life < 0)
		return SA_ST_REQ_INVALID; /* the creator's link cannot carry it, or no lifetime fits */
	g.pkt_life = (uint8_t)life;
	ib_member_get_sl_flow_hop(t->sl_flow_hop, &sl, &flow, &hop);
	g.sl = sl;
	g.flow = flow;
	g.hop = (mask & MCR_HOP) ? hop : 0;
	g.tclass = t->tclass;
	g.scope = g.mgid[0] == 0xff ? g.mgid[1] & 0xf : (mask & MCR_SCOPE) ? t->scope_state >> 4 : 2;
	if (!g.scope)
		g.scope = 2; /* link-local, what IPoIB and OpenSM default to */
	if (g.mgid[0] != 0xff)
		mcast_new_mgid(mc, g.scope, g.pkey, g.mgid);
	switch (mcast_create(mc, &g, out)) {
	case 0: return SA_ST_OK;
	case -ENOSPC: return SA_ST_NO_RESOURCES;
	default: q->err = -ENOMEM; return SA_ST_NO_RESOURCES;
	}
}

static void join(struct sa_query *q, const ib_member_rec_t *t, uint64_t mask)
{
	struct mcast *mc = q->src->mcast;
	struct mcast_group *g;
	uint8_t js = t->scope_state & 0xf;
	ib_member_rec_t r;
	uint32_t pi;

	if ((mask & MCR_JOIN_NEED) != MCR_JOIN_NEED)
		q->status = SA_ST_INSUF_COMPS;
	else if (!js || (js & ~(MCAST_FULL | MCAST_NON | MCAST_SENDONLY | MCAST_SENDONLY_FULL)))
		q->status = SA_ST_REQ_INVALID;
	else
		q->status = member_port(q, t, &pi);
	if (q->status)
		return;
	g = mcast_find(mc, t->mgid.raw);
	if (!g) {
		/* IBA 15.2.5.17.1 (o15-0.1.9): only a full member creates a group. */
		q->status = !(js & (MCAST_FULL | MCAST_SENDONLY_FULL)) ? SA_ST_REQ_INVALID :
									 create(q, t, mask, pi, &g);
		if (q->status)
			return;
	} else if ((q->status = join_checks(q, t, mask, g, pi))) {
		return;
	}
	if (mcast_join(g, q->src->sn->port[pi].guid, js) < 0) {
		q->err = -ENOMEM;
		return;
	}
	mcast_changed(mc);
	rec_of(q->src, g, q->src->sn->port[pi].guid, mcast_member(g, q->src->sn->port[pi].guid)->state,
	       &r);
	q->mask = 0; /* the answer is the record, whatever the template said */
	sa_emit(q, &r);
}

static void leave(struct sa_query *q, const ib_member_rec_t *t, uint64_t mask)
{
	struct mcast *mc = q->src->mcast;
	struct mcast_group *g;
	const struct mcast_member *m;
	uint8_t js;
	ib_member_rec_t r;
	uint32_t pi;
	bool gone;

	/*
	 * IBA 15.2.5.17.1: a leave has the components of a join; without
	 * JoinState it does not say what to drop (as osmtest expects).
	 */
	if ((mask & MCR_JOIN_NEED) != MCR_JOIN_NEED) {
		q->status = SA_ST_INSUF_COMPS;
		return;
	}
	if ((q->status = member_port(q, t, &pi)))
		return;
	g = mcast_find(mc, t->mgid.raw);
	if (!g) {
		q->status = SA_ST_REQ_INVALID; /* no such group */
		return;
	}
	/*
	 * o15-0.1.14: the JoinState bits to drop must all be the port's. The
	 * answer says what the port keeps, as OpenSM's: built before the
	 * group may go.
	 */
	m = mcast_member(g, q->src->sn->port[pi].guid);
	js = t->scope_state & 0xf;
	if (!m || !js || (js & ~m->state)) {
		q->status = SA_ST_REQ_INVALID; /* not a member with that state */
		return;
	}
	rec_of(q->src, g, q->src->sn->port[pi].guid, (uint8_t)(m->state & ~js), &r);
	if (mcast_leave(mc, g, q->src->sn->port[pi].guid, js, &gone) < 0) {
		q->status = SA_ST_REQ_INVALID;
		return;
	}
	mcast_changed(mc);
	q->mask = 0;
	sa_emit(q, &r);
}

static void list(struct sa_query *q, const ib_member_rec_t *t)
{
	const struct sa_src *s = q->src;
	const struct mcast *mc = s->mcast;
	bool trusted = q->trusted;
	uint64_t me = q->requester != SUBNET_NONE ? s->sn->port[q->requester].guid : 0;
	uint64_t want = be64toh(t->port_gid.unicast.interface_id), mask = q->mask;
	ib_member_rec_t r;

	q->mask &= ~(uint64_t)MCR_SELECTED; /* selectors_ok compares those */
	for (uint32_t i = 0; i < mc->n; i++) {
		const struct mcast_group *g = &mc->g[i];

		if (q->requester == SUBNET_NONE || !holds_pkey(s, q->requester, g->pkey) ||
		    !selectors_ok(t, mask, g))
			continue;
		if (!trusted) {
			/* A port sees its own membership; of others, only that the group exists. */
			const struct mcast_member *m = mcast_member(g, me);

			if ((q->mask & MCR_PORT_GID) && m && want == me)
				rec_of(s, g, me, m->state, &r);
			else
				rec_of(s, g, 0, 0, &r);
			if (!sa_emit(q, &r))
				return;
			continue;
		}
		if (!g->n_m) {
			rec_of(s, g, 0, 0, &r);
			if (!sa_emit(q, &r))
				return;
		}
		for (uint32_t j = 0; j < g->n_m; j++) {
			rec_of(s, g, g->m[j].guid, g->m[j].state, &r);
			if (!sa_emit(q, &r))
				return;
		}
	}
}

/* A rate or MTU the request gives with its selector must be a real code (IBA Tables 205, 207). */
static bool codes_ok(const ib_member_rec_t *t, uint64_t mask)
{
	uint8_t rate = t->rate & 0x3f, mtu = t->mtu & 0x3f;

	if (sel_given(mask, MCR_RATE_SEL) && !rate_speed(rate))
		return false;
	return !sel_given(mask, MCR_MTU_SEL) || (mtu >= 1 && mtu <= 5);
}

static void walk_mcm(struct sa_query *q)
{
	ib_member_rec_t t;
	uint64_t mask = q->req->comp_mask;

	if (!q->src->mcast) {
		q->status = q->req->method == IB_MAD_METHOD_GET ||
				    q->req->method == IB_MAD_METHOD_GETTABLE ? 0 : SA_ST_NO_RESOURCES;
		return;
	}
	memcpy(&t, q->req->rec, sizeof(t));
	if (!codes_ok(&t, mask)) {
		q->status = SA_ST_REQ_INVALID; /* as OpenSM, for every method */
		return;
	}
	switch (q->req->method) {
	case IB_MAD_METHOD_SET: join(q, &t, mask); break;
	case IB_MAD_METHOD_DELETE: leave(q, &t, mask); break;
	default: list(q, &t); break;
	}
}

const struct sa_attr sa_attr_mcm = {
	.id = 0x0038, .name = "MCMemberRecord", .size = sizeof(ib_member_rec_t),
	.methods = SA_M_GET | SA_M_GETTABLE | SA_M_SET | SA_M_DELETE, .fields = mcr_fields,
	.n_fields = sizeof(mcr_fields) / sizeof(mcr_fields[0]), .walk = walk_mcm,
};
