/* SPDX-License-Identifier: MIT */
/*
 * The mirror's records: a master SA's SubnAdmGetTableResp of
 * MCMemberRecord (IBA 15.2.5.17), ServiceRecord (15.2.5.14) or
 * InformInfoRecord (15.2.5.12), or NodeRecord (15.2.5.2) and LinkRecord
 * (15.2.5.13), decoded into struct sa_mirror. The
 * answer comes from another SM: every length, offset and count is checked
 * against the bytes that came, never trusted.
 */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/array.h"
#include "sa/sa_mirror.h"
#include "sa/sa_priv.h"

/* IBA 13.6.2.1: the common MAD header and the RMPP header, before the SA's own. */
#define RMPP_HDR_END 36
/* Wire sizes of the records (IBA 15.2.5), before padding to 8 bytes. */
#define MCM_WIRE 52
#define SR_WIRE 176
#define IIR_WIRE 60
#define NODE_WIRE 108
#define LINK_WIRE 6
#define LEASE_FOREVER 0xffffffffu

void sa_mirror_free(struct sa_mirror *m)
{
	if (!m)
		return;
	for (uint32_t i = 0; i < m->n_g; i++)
		free(m->g[i].m);
	free(m->g);
	free(m->svc);
	free(m->sub);
	free(m->node);
	free(m->link);
	memset(m, 0, sizeof(*m));
}

void sa_mirror_req(uint8_t mad[MAD_SIZE], uint16_t attr, uint64_t tid, uint64_t sm_key)
{
	ib_sa_mad_t *q = (ib_sa_mad_t *)mad;

	memset(mad, 0, MAD_SIZE);
	q->base_ver = 1;
	q->mgmt_class = IB_MCLASS_SUBN_ADM;
	q->class_ver = SA_CLASS_VERSION;
	q->method = IB_MAD_METHOD_GETTABLE;
	q->trans_id = htobe64(tid);
	q->attr_id = htobe16(attr);
	q->sm_key = htobe64(sm_key);
	/* Component mask 0: every record (IBA 15.2.4). */
}

static size_t wire_size(uint16_t attr)
{
	switch (attr) {
	case SA_MIRROR_ATTR_MCM: return MCM_WIRE;
	case SA_MIRROR_ATTR_SERVICE: return SR_WIRE;
	case SA_MIRROR_ATTR_INFORM_REC: return IIR_WIRE;
	case SA_MIRROR_ATTR_NODE: return NODE_WIRE;
	case SA_MIRROR_ATTR_LINK: return LINK_WIRE;
	default: return 0;
	}
}

/* The group's fields of one member record, host order, no members. */
static void group_of(const ib_member_rec_t *r, struct mcast_group *g)
{
	uint8_t sl, hop;
	uint32_t flow;

	memset(g, 0, sizeof(*g));
	memcpy(g->mgid, r->mgid.raw, 16);
	g->mlid = be16toh(r->mlid);
	g->qkey = be32toh(r->qkey);
	g->pkey = be16toh(r->pkey);
	g->mtu = r->mtu & 0x3f;
	g->rate = r->rate & 0x3f;
	g->pkt_life = r->pkt_life & 0x3f;
	ib_member_get_sl_flow_hop(r->sl_flow_hop, &sl, &flow, &hop);
	g->sl = sl;
	g->flow = flow;
	g->hop = hop;
	g->tclass = r->tclass;
	g->scope = r->scope_state >> 4;
	/* OpenSM answers Scope 0: the MGID says it (IBA 4.1.1, its low nibble of byte 1). */
	if (!g->scope && g->mgid[0] == 0xff)
		g->scope = g->mgid[1] & 0xf;
}

static bool same_fields(const struct mcast_group *a, const struct mcast_group *b)
{
	return a->mlid == b->mlid && a->qkey == b->qkey && a->pkey == b->pkey && a->mtu == b->mtu &&
	       a->rate == b->rate && a->pkt_life == b->pkt_life && a->sl == b->sl &&
	       a->flow == b->flow && a->hop == b->hop && a->tclass == b->tclass &&
	       a->scope == b->scope;
}

static int add_mcm(struct sa_mirror *m, const uint8_t *p)
{
	static const uint8_t zero[16];
	ib_member_rec_t r;
	struct mcast_group want, *g = NULL;
	uint64_t guid, prefix;
	uint8_t js;

	memcpy(&r, p, MCM_WIRE);
	if (!memcmp(r.mgid.raw, zero, 16)) {
		m->skipped++;
		return 0;
	}
	group_of(&r, &want);
	for (uint32_t i = 0; i < m->n_g && !g; i++)
		if (!memcmp(m->g[i].mgid, want.mgid, 16))
			g = &m->g[i];
	if (!g) {
		if (array_grow((void **)&m->g, &m->cap_g, m->n_g + 1, sizeof(*m->g)) < 0)
			return -ENOMEM;
		g = &m->g[m->n_g++];
		*g = want;
	} else if (!same_fields(g, &want)) {
		m->inconsistent++; /* the first record's fields stand */
	}
	/*
	 * A record without PortGID or JoinState names the group only (what
	 * an untrusted requester is shown): the group, no member.
	 */
	guid = be64toh(r.port_gid.unicast.interface_id);
	prefix = be64toh(r.port_gid.unicast.prefix);
	js = r.scope_state & 0xf;
	if (!guid || !js)
		return 0;
	if (prefix)
		m->prefix = prefix;
	return mcast_join(g, guid, js) < 0 ? -ENOMEM : 0;
}

static int add_sr(struct sa_mirror *m, const uint8_t *p)
{
	static const uint8_t zero[SR_WIRE];
	struct sa_service s = { 0 };
	ib_service_record_t w;
	uint32_t lease, i;

	if (!memcmp(p, zero, SR_WIRE)) {
		m->skipped++; /* padding of a one-MAD answer without RMPP */
		return 0;
	}
	memcpy(s.wire, p, SR_WIRE);
	memcpy(&w, s.wire, sizeof(w));
	if (w.service_gid.raw[0] != 0xff)
		s.guid = be64toh(w.service_gid.unicast.interface_id);
	lease = be32toh(w.service_lease);
	s.expires_ms = lease == LEASE_FOREVER ? UINT64_MAX : (uint64_t)lease * 1000;
	/* The same RID (ServiceID, ServiceGID, ServiceP_Key) twice: the last stands. */
	for (i = 0; i < m->n_svc; i++)
		if (!memcmp(m->svc[i].wire, s.wire, offsetof(ib_service_record_t, service_pkey) + 2))
			break;
	if (i == m->n_svc) {
		if (array_grow((void **)&m->svc, &m->cap_svc, m->n_svc + 1, sizeof(*m->svc)) < 0)
			return -ENOMEM;
		m->n_svc++;
	}
	m->svc[i] = s;
	return 0;
}

static int add_iir(struct sa_mirror *m, const uint8_t *p)
{
	ib_inform_info_record_t r;
	struct sa_sub s = { 0 };

	memcpy(&r, p, IIR_WIRE);
	s.guid = be64toh(r.subscriber_gid.unicast.interface_id);
	if (!s.guid) {
		m->skipped++;
		return 0;
	}
	if (r.subscriber_gid.unicast.prefix)
		m->prefix = be64toh(r.subscriber_gid.unicast.prefix);
	memcpy(s.wire, &r.inform_info, sizeof(s.wire));
	sa_inform_decode(s.wire, sizeof(s.wire), &s.inf);
	if (array_grow((void **)&m->sub, &m->cap_sub, m->n_sub + 1, sizeof(*m->sub)) < 0)
		return -ENOMEM;
	m->sub[m->n_sub++] = s;
	return 0;
}

static int add_node(struct sa_mirror *m, const uint8_t *p)
{
	ib_node_record_t r;

	memcpy(&r, p, NODE_WIRE);
	if (!r.lid || !r.node_info.node_guid) {
		m->skipped++;
		return 0;
	}
	if (array_grow((void **)&m->node, &m->cap_node, m->n_node + 1, sizeof(*m->node)) < 0)
		return -ENOMEM;
	m->node[m->n_node++] = (struct sa_mirror_node){ .lid = be16toh(r.lid),
							.guid = be64toh(r.node_info.node_guid) };
	return 0;
}

static int add_link(struct sa_mirror *m, const uint8_t *p)
{
	ib_link_record_t r;

	memcpy(&r, p, LINK_WIRE);
	if (!r.from_lid || !r.to_lid) {
		m->skipped++;
		return 0;
	}
	if (array_grow((void **)&m->link, &m->cap_link, m->n_link + 1, sizeof(*m->link)) < 0)
		return -ENOMEM;
	m->link[m->n_link++] = (struct sa_mirror_link){ .from_lid = be16toh(r.from_lid),
							.to_lid = be16toh(r.to_lid),
							.from_port = r.from_port_num,
							.to_port = r.to_port_num };
	return 0;
}

/* Where the records end: the message's length, or less if RMPP's PayloadLength says so. */
static size_t data_end(const ib_sa_mad_t *h, size_t len)
{
	uint32_t paylen = be32toh(h->paylen_newwin);

	/*
	 * IBA 13.6.2.3: the first segment's PayloadLength is the whole
	 * payload (SA header included) of the message. A one-MAD answer
	 * comes padded to 256 bytes: this tells records from the padding.
	 */
	if ((h->rmpp_flags & IB_RMPP_FLAG_ACTIVE) && (h->rmpp_flags & IB_RMPP_FLAG_FIRST) &&
	    paylen >= SA_HDR_SIZE - RMPP_HDR_END && RMPP_HDR_END + (size_t)paylen < len)
		return RMPP_HDR_END + paylen;
	return len;
}

int sa_mirror_decode(struct sa_mirror *m, const uint8_t *mad, size_t len, uint16_t *status)
{
	ib_sa_mad_t h;
	uint16_t attr, st;
	size_t rs, stride, end, n;
	int (*add)(struct sa_mirror *, const uint8_t *);

	*status = 0;
	if (!mad || len < SA_HDR_SIZE)
		return -EPROTO;
	memcpy(&h, mad, SA_HDR_SIZE);
	attr = be16toh(h.attr_id);
	rs = wire_size(attr);
	if (h.mgmt_class != IB_MCLASS_SUBN_ADM || h.class_ver != SA_CLASS_VERSION ||
	    h.method != IB_MAD_METHOD_GETTABLE_RESP || !rs)
		return -EPROTO;
	st = be16toh(h.status);
	if (st == SA_ST_NO_RECORDS)
		return 0; /* an empty table, as some SAs say it */
	if (st) {
		*status = st;
		return -EREMOTEIO;
	}
	end = data_end(&h, len);
	if (end == SA_HDR_SIZE)
		return 0;
	stride = (size_t)be16toh(h.attr_offset) * 8;
	if (stride < rs)
		return -EPROTO;
	n = (end - SA_HDR_SIZE) / stride;
	switch (attr) {
	case SA_MIRROR_ATTR_MCM: add = add_mcm; break;
	case SA_MIRROR_ATTR_SERVICE: add = add_sr; break;
	case SA_MIRROR_ATTR_INFORM_REC: add = add_iir; break;
	case SA_MIRROR_ATTR_NODE: add = add_node; break;
	default: add = add_link; break;
	}
	for (size_t i = 0; i < n; i++) {
		int r = add(m, mad + SA_HDR_SIZE + i * stride);

		if (r < 0)
			return r;
	}
	return 0;
}
