/* SPDX-License-Identifier: MIT */
/*
 * PathRecord (IBA 15.2.5.16): for a source and a destination end port, the
 * LID pairs the routing offers, each described by the route the LFTs as
 * programmed actually take (walked switch by switch from the source's
 * switch to the destination):
 *   - MTU and rate: the least over every port of that route (a linked
 *     port's NeighborMTU, the MTU loomd agreed for the link; a switch's
 *     port 0 its MTUCap), rate by IBA's rate order, not the code's;
 *   - SL: route_out.sl of the entry switch for the DLID when the engine set
 *     one (vlayered: that SL keeps the fabric free of credit loops), else
 *     the SL loom.yaml gives the partition of the path's P_Key, else 0;
 *   - P_Key: one both ends hold, one of them as a full member (IBA 10.9.1);
 *     none, no path (two limited members of a partition never get one);
 *   - PacketLifeTime: as OpenSM, its default subnet timeout, 18 (4.096 us *
 *     2^18, about 1 s: ample for any route, so the hop count does not
 *     change it), 0 for a port's path to itself (IBA Table 205). loomd
 *     does not program SubnetTimeOut, so the ports' own value (ibsim: 31,
 *     2.4 hours) says nothing about the fabric.
 * Sources and destinations by GID or LID (component mask), every end port
 * when neither is given; LMC ranges as OpenSM orders them: pairs (i, i)
 * first with Preference 0, then the rest with Preference 2, up to NumbPath.
 * Selectors (>, <, =, best) on MTU, rate and lifetime as OpenSM applies them.
 * MultiPathRecord: the same for every pair of its source and destination GIDs.
 */
#include <endian.h>
#include <string.h>

#include "config/config.h"
#include "mad/rate.h"
#include "sa/sa_priv.h"

/* IBA 15.2.5.16 Table 205: component-mask bits of PathRecord. */
enum {
	PR_SID = 0, PR_SID_LSB = 1, PR_DGID = 2, PR_SGID = 3, PR_DLID = 4, PR_SLID = 5,
	PR_RAW = 6, PR_FLOW = 8, PR_HOPS = 9, PR_TCLASS = 10, PR_REVERSIBLE = 11,
	PR_NUMBPATH = 12, PR_PKEY = 13, PR_SL = 15, PR_MTU_SEL = 16, PR_MTU = 17,
	PR_RATE_SEL = 18, PR_RATE = 19, PR_LIFE_SEL = 20, PR_LIFE = 21,
};

#define PR_HAS(q, bit) (((q)->req->comp_mask >> (bit)) & 1)
/* IBA 14.2.5.6 SubnetTimeOut, OpenSM's default: the PacketLifeTime of every path. */
#define PR_LIFE 18
/* IBA 15.2.5.16: a link-local GID prefix; any subnet's ports answer to it. */
#define PR_LINK_LOCAL 0xfe80000000000000ULL

/* What one route is like. */
struct pr_route {
	uint8_t mtu, rate;
	uint32_t entry; /* node where it enters the switched fabric, SUBNET_NONE: CA to CA */
};

static void pr_port(const struct sa_src *s, uint32_t pi, struct pr_route *r)
{
	ib_port_info_t w;
	uint8_t mtu, rate;

	memcpy(&w, s->live->port[pi].raw, sizeof(w));
	mtu = ib_port_info_get_mtu_cap(&w);
	if (s->sn->port[pi].num && ib_port_info_get_neighbor_mtu(&w))
		mtu = ib_port_info_get_neighbor_mtu(&w);
	rate = ib_port_info_compute_rate(&w, !!(w.capability_mask & IB_PORT_CAP_HAS_EXT_SPEEDS));
	if (mtu && mtu < r->mtu)
		r->mtu = mtu;
	if (rate_speed(rate) && rate_speed(rate) < rate_speed(r->rate))
		r->rate = rate;
}

/*
 * Follow the LFTs as programmed from src to dlid: true if the route ends
 * at dst, with *r describing it. Bounded by IBA's 64 hops (and by a loop).
 */
static bool pr_walk(const struct sa_src *s, uint32_t src, uint32_t dst, uint16_t dlid,
		    struct pr_route *r)
{
	const struct subnet *sn = s->sn;
	uint32_t node = sn->port[src].node, peer;

	*r = (struct pr_route){ .mtu = IB_MTU_LEN_4096, .rate = 22, .entry = SUBNET_NONE };
	pr_port(s, src, r);
	if (!subnet_is_switch(sn, node)) {
		peer = sn->port[src].peer;
		if (peer == SUBNET_NONE)
			return false;
		pr_port(s, peer, r);
		if (!subnet_is_switch(sn, sn->port[peer].node))
			return peer == dst; /* CA to CA, back to back */
		node = sn->port[peer].node;
	}
	r->entry = node;
	for (unsigned hop = 0; hop <= SMP_MAX_HOPS; hop++) {
		const uint8_t *lft;
		uint32_t len, out;

		if (!s->lfts || prog_cache_lft(s->lfts, sn->node[node].guid, &lft, &len) < 0 ||
		    dlid >= len || lft[dlid] == ROUTE_DROP || lft[dlid] > sn->node[node].nports)
			return false;
		if (lft[dlid] == 0) { /* the switch's own LID: its port 0 ends the route */
			pr_port(s, subnet_port_idx(sn, node, 0), r);
			return dst == subnet_port_idx(sn, node, 0);
		}
		out = subnet_port_idx(sn, node, lft[dlid]);
		peer = sn->port[out].peer;
		if (peer == SUBNET_NONE)
			return false;
		pr_port(s, out, r);
		pr_port(s, peer, r);
		if (!subnet_is_switch(sn, sn->port[peer].node))
			return peer == dst;
		node = sn->port[peer].node;
	}
	return false;
}

/*
 * The P_Key of the path: the requested one if both hold it, else the first
 * of src's keys that dst holds too; one of them a full member. 0: none.
 */
static uint16_t pr_pkey(const struct sa_query *q, uint32_t src, uint32_t dst)
{
	const uint16_t *a, *b;
	uint32_t na, nb;
	uint16_t want = PR_HAS(q, PR_PKEY) ? sa_tmpl16(q, offsetof(ib_path_rec_t, pkey)) : 0;

	a = sa_port_pkeys(q->src, src, &na);
	b = sa_port_pkeys(q->src, dst, &nb);
	for (uint32_t i = 0; i < na; i++) {
		if (!(a[i] & 0x7fff) || (want && (a[i] & 0x7fff) != (want & 0x7fff)))
			continue;
		for (uint32_t j = 0; j < nb; j++)
			if ((a[i] & 0x7fff) == (b[j] & 0x7fff) && ((a[i] | b[j]) & 0x8000))
				return want ? want : a[i];
	}
	return 0;
}

/* The SL of the route entering at switch node for dlid, or of the partition. */
static uint8_t pr_sl(const struct sa_src *s, const struct pr_route *r, uint16_t dlid,
		     uint16_t pkey, bool *engine)
{
	const struct route_out *ro = s->routes;

	*engine = false;
	if (ro && ro->sl && r->entry != SUBNET_NONE && dlid <= ro->max_lid &&
	    ro->sw_index[r->entry] != SUBNET_NONE) {
		*engine = true;
		return route_sl(ro, ro->sw_index[r->entry])[dlid];
	}
	for (uint32_t i = 0; s->config && i < s->config->n_parts; i++)
		if (s->config->part[i].pkey == (pkey & 0x7fff))
			return s->config->part[i].sl;
	return 0;
}

/*
 * A selector (IBA 15.2.5.16: 0 greater than, 1 less than, 2 exactly, 3 the
 * best) applied to value v; false when the path cannot satisfy it. As
 * OpenSM: only when both the selector and the value are in the mask.
 */
static bool pr_select(const struct sa_query *q, unsigned sel_bit, size_t off, uint8_t *v,
		      bool rate)
{
	uint8_t f = q->req->rec[off], want = f & 0x3f;
	unsigned have_s, want_s;

	if (!PR_HAS(q, sel_bit) || !PR_HAS(q, sel_bit + 1))
		return true;
	have_s = rate ? rate_speed(*v) : *v;
	want_s = rate ? rate_speed(want) : want;
	switch (f >> 6) {
	case 0:
		return have_s > want_s;
	case 1:
		if (have_s < want_s)
			return true;
		*v = rate ? rate_below(want) : (uint8_t)(want - 1);
		return rate ? *v != 0 : want > 1;
	case 2:
		if (have_s < want_s)
			return false;
		*v = want;
		return true;
	default:
		return true;
	}
}

/* The GID prefix of end port pi: what its PortInfo says, else the model's. */
static uint64_t pr_prefix(const struct sa_src *s, uint32_t pi)
{
	ib_port_info_t w;

	memcpy(&w, s->live->port[pi].raw, sizeof(w));
	if (w.subnet_prefix)
		return be64toh(w.subnet_prefix);
	return s->sn->subnet_prefix ? s->sn->subnet_prefix : PR_LINK_LOCAL;
}

/* One record for (src, slid) -> (dst, dlid), if the fabric has that path. */
static bool pr_build(const struct sa_query *q, uint32_t src, uint32_t dst, uint16_t slid,
		     uint16_t dlid, uint8_t pref, ib_path_rec_t *pr)
{
	const struct sa_src *s = q->src;
	const ib_path_rec_t *t = (const ib_path_rec_t *)q->req->rec;
	struct pr_route r, back;
	uint16_t pkey = pr_pkey(q, src, dst);
	uint8_t sl, life = src == dst ? 0 : PR_LIFE;
	bool rev, engine;

	if (!pkey || !pr_walk(s, src, dst, dlid, &r))
		return false;
	rev = pr_walk(s, dst, src, slid, &back);
	/* IBA 15.2.5.16: Reversible 0 in the mask is "don't care", 1 requires it. */
	if (PR_HAS(q, PR_REVERSIBLE) && (t->num_path & 0x80) && !rev)
		return false;
	sl = pr_sl(s, &r, dlid, pkey, &engine);
	if (PR_HAS(q, PR_SL)) {
		uint8_t want = be16toh(t->qos_class_sl) & 0x0f;

		/* The engine's SL is the one that is free of credit loops: no other. */
		if (engine && want != sl)
			return false;
		sl = want;
	}
	if (!pr_select(q, PR_MTU_SEL, offsetof(ib_path_rec_t, mtu), &r.mtu, false) ||
	    !pr_select(q, PR_RATE_SEL, offsetof(ib_path_rec_t, rate), &r.rate, true) ||
	    !pr_select(q, PR_LIFE_SEL, offsetof(ib_path_rec_t, pkt_life), &life, false))
		return false;
	memset(pr, 0, sizeof(*pr));
	if (PR_HAS(q, PR_SID) || PR_HAS(q, PR_SID_LSB))
		pr->service_id = t->service_id;
	pr->dgid.unicast.prefix = htobe64(pr_prefix(s, dst));
	pr->dgid.unicast.interface_id = htobe64(sa_port_guid(s, dst));
	pr->sgid.unicast.prefix = htobe64(pr_prefix(s, src));
	pr->sgid.unicast.interface_id = htobe64(sa_port_guid(s, src));
	pr->dlid = htobe16(dlid);
	pr->slid = htobe16(slid);
	/* In the subnet: HopLimit 0 (no router); FlowLabel and TClass as asked. */
	if (PR_HAS(q, PR_FLOW))
		pr->hop_flow_raw = t->hop_flow_raw & htobe32(0x0fffff00);
	if (PR_HAS(q, PR_TCLASS))
		pr->tclass = t->tclass;
	pr->num_path = rev ? 0x80 : 0;
	pr->pkey = htobe16(pkey);
	pr->qos_class_sl = htobe16(sl & 0x0f);
	/* IBA: selector 2 ("exactly") in what the SA hands out. */
	pr->mtu = (uint8_t)(0x80 | r.mtu);
	pr->rate = (uint8_t)(0x80 | r.rate);
	pr->pkt_life = (uint8_t)(0x80 | life);
	pr->preference = pref;
	return true;
}

/*
 * The LID pairs of one port pair, as OpenSM orders them: (min + i, min + i)
 * first (Preference 0: the routing spreads these), then the others
 * (Preference 2). Get: one path (IBA 1.2 erratum: NumbPath 1).
 */
static bool pr_pair(struct sa_query *q, uint32_t src, uint32_t dst)
{
	const ib_path_rec_t *t = (const ib_path_rec_t *)q->req->rec;
	uint8_t slmc, dlmc;
	uint16_t s0 = sa_endport_lid(q->src, src, &slmc), d0 = sa_endport_lid(q->src, dst, &dlmc);
	uint16_t s1 = (uint16_t)(s0 + (1u << (slmc & 7)) - 1), d1 = (uint16_t)(d0 + (1u << (dlmc & 7)) - 1);
	unsigned want = UINT32_MAX, got = 0;
	ib_path_rec_t pr;

	if (!s0 || !d0 || !sa_visible(q, src) || !sa_visible(q, dst))
		return true;
	/* A LID asked for narrows the range; one of another port (GID and LID disagree): none. */
	if (PR_HAS(q, PR_SLID)) {
		if (!sa_lid_in(be16toh(t->slid), s0, slmc))
			return true;
		s0 = s1 = be16toh(t->slid);
	}
	if (PR_HAS(q, PR_DLID)) {
		if (!sa_lid_in(be16toh(t->dlid), d0, dlmc))
			return true;
		d0 = d1 = be16toh(t->dlid);
	}
	if (q->req->method == IB_MAD_METHOD_GET)
		want = 1;
	else if (PR_HAS(q, PR_NUMBPATH))
		want = t->num_path & 0x7f;
	for (uint32_t i = 0; got < want && s0 + i <= s1 && d0 + i <= d1; i++)
		if (pr_build(q, src, dst, (uint16_t)(s0 + i), (uint16_t)(d0 + i), 0, &pr)) {
			got++;
			if (!sa_emit(q, &pr))
				return false;
		}
	for (uint32_t sl = s0; sl <= s1 && got < want; sl++)
		for (uint32_t dl = d0; dl <= d1 && got < want; dl++)
			if (sl - s0 != dl - d0 &&
			    pr_build(q, src, dst, (uint16_t)sl, (uint16_t)dl, 2, &pr)) {
				got++;
				if (!sa_emit(q, &pr))
					return false;
			}
	return true;
}

/*
 * One end of the path from the template (gid at goff, lid at loff): by GID,
 * else by LID, else any (*pi SUBNET_NONE, returns 0). A status otherwise.
 */
static uint16_t pr_end(const struct sa_query *q, unsigned gid_bit, size_t goff, unsigned lid_bit,
		       size_t loff, uint32_t *pi)
{
	const struct sa_src *s = q->src;
	ib_gid_t g;

	*pi = SUBNET_NONE;
	if (PR_HAS(q, gid_bit)) {
		uint64_t prefix;

		memcpy(&g, q->req->rec + goff, sizeof(g));
		prefix = be64toh(g.unicast.prefix);
		/* Multicast destinations are MCMemberRecord's business (not served here). */
		if (g.raw[0] == 0xff)
			return SA_ST_NO_RECORDS;
		if (prefix != PR_LINK_LOCAL && prefix != pr_prefix(s, s->sm_port))
			return SA_ST_INVALID_GID; /* off this subnet: no routers here */
		*pi = sa_port_of_guid(s, be64toh(g.unicast.interface_id));
		return *pi == SUBNET_NONE ? SA_ST_INVALID_GID : 0;
	}
	if (PR_HAS(q, lid_bit)) {
		*pi = sa_port_of_lid(s, sa_tmpl16(q, loff));
		if (*pi != SUBNET_NONE && !sa_lid_endport(s, *pi))
			*pi = subnet_port_idx(s->sn, s->sn->port[*pi].node, 0);
		return *pi == SUBNET_NONE ? SA_ST_NO_RECORDS : 0;
	}
	return 0;
}

/* The ports to try for one end: pi alone if given, else every port. */
static void pr_range(const struct sa_src *s, uint32_t pi, uint32_t *first, uint32_t *end)
{
	*first = pi != SUBNET_NONE ? pi : 0;
	*end = pi != SUBNET_NONE ? pi + 1 : s->sn->n_ports;
}

static void walk_paths(struct sa_query *q)
{
	const struct sa_src *s = q->src;
	uint32_t src, dst, d0, d1, a0, a1;
	uint16_t st;

	/* Every field the mask names is handled here: the template is a question. */
	q->mask = 0;
	st = pr_end(q, PR_SGID, offsetof(ib_path_rec_t, sgid), PR_SLID,
		    offsetof(ib_path_rec_t, slid), &src);
	if (!st)
		st = pr_end(q, PR_DGID, offsetof(ib_path_rec_t, dgid), PR_DLID,
			    offsetof(ib_path_rec_t, dlid), &dst);
	if (st) {
		q->status = st;
		return;
	}
	/* Get: the first path found (as OpenSM), never "too many". */
	if (q->req->method == IB_MAD_METHOD_GET)
		q->limit = 1;
	/* Destinations outside, sources inside; an end given is the only one there is. */
	pr_range(s, dst, &d0, &d1);
	pr_range(s, src, &a0, &a1);
	for (uint32_t d = d0; d < d1; d++) {
		if (dst == SUBNET_NONE && !sa_lid_endport(s, d))
			continue;
		for (uint32_t a = a0; a < a1; a++) {
			if (src == SUBNET_NONE && !sa_lid_endport(s, a))
				continue;
			if (!pr_pair(q, a, d) || (q->limit && q->n >= q->limit))
				return;
		}
	}
}

/*
 * MultiPathRecord (IBA 15.2.5.20), GetMulti: the PathRecords between every
 * source GID and every destination GID of the request, each pair answered
 * as a PathRecord query by GIDs with the request's other components (its
 * fields 0-12 are PathRecord's 40-52, its mask bits 0-15 PathRecord's
 * 6-21). The GIDs follow the record's header: 11 fit in one MAD; more
 * come as an RMPP request the kernel reassembles (IBA 15.2.5.20), and
 * every GID the request carries is served.
 */
enum { MPR_SGID_COUNT = 19, MPR_DGID_COUNT = 20 };
#define MPR_HDR offsetof(ib_multipath_rec_t, gids)

/* GID i of the request's list, from all of its data. */
static void mpr_gid(const struct sa_req *req, unsigned i, ib_gid_t *g)
{
	memcpy(g, req->data + MPR_HDR + i * sizeof(*g), sizeof(*g));
}

static void walk_multipaths(struct sa_query *q)
{
	const struct sa_req *req = q->req;
	const ib_multipath_rec_t *m = (const ib_multipath_rec_t *)req->rec;
	struct sa_req pq = *req;
	ib_path_rec_t *t = (ib_path_rec_t *)pq.rec;
	unsigned ns = m->sgid_count, nd = m->dgid_count;
	uint16_t st = 0;

	q->mask = 0;
	/* IBA 15.4: MultiPathRecord is asked for with GetMulti only. */
	if (req->method != IB_MAD_METHOD_GETMULTI) {
		q->status = SA_ST_UNSUP_METHOD_ATTR;
		return;
	}
	if (!(req->comp_mask >> MPR_SGID_COUNT & 1) || !(req->comp_mask >> MPR_DGID_COUNT & 1) ||
	    !ns || !nd) {
		q->status = SA_ST_INSUF_COMPS;
		return;
	}
	/* Every GID counted must be there (a length from the wire, checked). */
	if (req->data_len < MPR_HDR || (ns + nd) > (req->data_len - MPR_HDR) / sizeof(ib_gid_t)) {
		q->status = SA_ST_REQ_INVALID;
		return;
	}
	memset(pq.rec, 0, sizeof(pq.rec));
	memcpy(pq.rec + offsetof(ib_path_rec_t, hop_flow_raw), m, 13);
	pq.comp_mask = (req->comp_mask & 0xffff) << PR_RAW | 1ULL << PR_SGID | 1ULL << PR_DGID;
	q->req = &pq;
	for (unsigned i = 0; i < ns && !st; i++) {
		for (unsigned j = 0; j < nd && !st; j++) {
			uint32_t src, dst;

			mpr_gid(req, i, &t->sgid);
			mpr_gid(req, ns + j, &t->dgid);
			st = pr_end(q, PR_SGID, offsetof(ib_path_rec_t, sgid), PR_SLID,
				    offsetof(ib_path_rec_t, slid), &src);
			if (!st)
				st = pr_end(q, PR_DGID, offsetof(ib_path_rec_t, dgid), PR_DLID,
					    offsetof(ib_path_rec_t, dlid), &dst);
			if (!st && !pr_pair(q, src, dst))
				break;
		}
	}
	q->req = req;
	q->status = st;
}

const struct sa_attr sa_attr_multipath = {
	/* The answer is PathRecords: the records' size is theirs. */
	.id = 0x003a, .name = "MultiPathRecord", .size = sizeof(ib_path_rec_t),
	.methods = SA_M_GETMULTI, .fields = NULL, .n_fields = 0, .walk = walk_multipaths,
};

const struct sa_attr sa_attr_path = {
	.id = 0x0035, .name = "PathRecord", .size = sizeof(ib_path_rec_t),
	.methods = SA_M_GET | SA_M_GETTABLE, .fields = NULL, .n_fields = 0, .walk = walk_paths,
};
