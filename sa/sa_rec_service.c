/* SPDX-License-Identifier: MIT */
/*
 * ServiceRecord (IBA 15.2.5.14): SubnAdmSet registers a service (or
 * replaces the one with the same ServiceID, ServiceGID and ServiceP_Key,
 * the record's RID), SubnAdmDelete deregisters it, Get/GetTable list what
 * is registered. Behaviour as OpenSM's osm_sa_service_record.c:
 *  - a Set must give ServiceID and ServiceGID, else "request invalid";
 *    without ServiceLease the lease is indefinite (0xFFFFFFFF); without
 *    ServiceP_Key the answer says the default P_Key, though the record
 *    keeps the template's (a record whose P_Key has no partition bits is
 *    seen by every requester);
 *  - with ServiceP_Key, the requester and the ServiceGID's port must both
 *    hold it (Set and Delete), else "request invalid";
 *  - any port may register a service for another port, and delete any;
 *  - Delete finds the record by the template's RID, whatever the mask
 *    says, and answers with the record it deleted; none: "no records";
 *  - a query sees a record only if it holds the record's P_Key;
 *  - a request without the SM_Key (untrusted) never sees a ServiceKey
 *    (IBA 15.2.5.14: zero in answers, except to a trusted request), but
 *    a ServiceKey in the mask still selects, by the key as registered;
 *  - ServiceLease is not a selector (OpenSM ignores it in the mask).
 * Where loomd is stricter: a unicast ServiceGID must name a port of the
 * model ("invalid GID"; OpenSM checks only with ServiceP_Key), because a
 * record belongs to that port and goes when the port leaves the fabric
 * (sa_services_drop_port). A multicast ServiceGID's record belongs to the
 * port that registered it.
 * Leases run out lazily: expired records go when the SA is next asked
 * about services, by the clock in sa_src.now_ms.
 */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sa/sa_priv.h"

_Static_assert(sizeof(ib_service_record_t) == 176, "ServiceRecord is 176 bytes");
_Static_assert(sizeof(((struct sa_service *)0)->wire) == sizeof(ib_service_record_t),
	       "struct sa_service holds one ServiceRecord");

enum {
	SR_SID = 1 << 0, SR_SGID = 1 << 1, SR_SPKEY = 1 << 2, SR_SLEASE = 1 << 4,
	SR_SKEY = 1 << 5, SR_SNAME = 1 << 6,
};
#define LEASE_FOREVER 0xffffffffu
/* Registered services kept; a Set beyond is "no resources" (about 3 MB of records). */
#define SERVICES_MAX 16384
/* ServiceID, ServiceGID and ServiceP_Key: the RID (IBA 15.2.5.14), the first 26 bytes. */
#define RID_SIZE (offsetof(ib_service_record_t, service_pkey) + 2)

#define D8(i) { 896 + 8 * (i), 8 }
#define D16(i) { 1024 + 16 * (i), 16 }
#define D32(i) { 1152 + 32 * (i), 32 }
#define D64(i) { 1280 + 64 * (i), 64 }
static const struct sa_field sr_fields[] = {
	{ 0, 64 }, { 64, 128 }, { 192, 16 }, { 208, 0 }, /* ServiceID, GID, P_Key, reserved */
	{ 224, 0 },                                      /* ServiceLease: not compared */
	{ 256, 128 }, { 384, 512 },                      /* ServiceKey, ServiceName */
	D8(0), D8(1), D8(2), D8(3), D8(4), D8(5), D8(6), D8(7),
	D8(8), D8(9), D8(10), D8(11), D8(12), D8(13), D8(14), D8(15),
	D16(0), D16(1), D16(2), D16(3), D16(4), D16(5), D16(6), D16(7),
	D32(0), D32(1), D32(2), D32(3), D64(0), D64(1),
};

/* Port pi (none: no) holds pkey. */
static bool holds_pkey(const struct sa_src *s, uint32_t pi, uint16_t pkey)
{
	return pi != SUBNET_NONE && sa_port_holds(s, pi, pkey);
}

static bool gid_is_mcast(const ib_service_record_t *r)
{
	return r->service_gid.raw[0] == 0xff;
}

static void remove_svc(struct sa_services *sv, uint32_t i)
{
	memmove(&sv->svc[i], &sv->svc[i + 1], (sv->n - i - 1) * sizeof(sv->svc[0]));
	sv->n--;
}

uint32_t sa_services_drop_port(struct sa_services *sv, uint64_t guid)
{
	uint32_t n = 0;

	for (uint32_t i = sv->n; i-- > 0;)
		if (sv->svc[i].guid == guid) {
			remove_svc(sv, i);
			n++;
		}
	return n;
}

void sa_services_free(struct sa_services *sv)
{
	free(sv->svc);
	memset(sv, 0, sizeof(*sv));
}

/* Leases that ran out by now go. */
static void expire(struct sa_services *sv, uint64_t now_ms)
{
	for (uint32_t i = sv->n; i-- > 0;)
		if (now_ms >= sv->svc[i].expires_ms)
			remove_svc(sv, i);
}

/* The record with the RID of t, or sv->n. */
static uint32_t find_rid(const struct sa_services *sv, const ib_service_record_t *t)
{
	uint32_t i;

	for (i = 0; i < sv->n; i++)
		if (!memcmp(sv->svc[i].wire, t, RID_SIZE))
			break;
	return i;
}

/* Answer with r, its ServiceKey hidden from an untrusted requester. */
static bool emit_svc(struct sa_query *q, const ib_service_record_t *r)
{
	ib_service_record_t a = *r;

	if (!q->trusted)
		memset(a.service_key, 0, sizeof(a.service_key));
	return sa_emit(q, &a);
}

/*
 * With a ServiceP_Key, the requester must hold it, and so must the
 * ServiceGID's port if the mask names a unicast one (OpenSM's
 * match_service_pkey_with_ports_pkey).
 */
static uint16_t pkey_check(const struct sa_query *q, const ib_service_record_t *t, uint64_t mask)
{
	uint16_t pkey = be16toh(t->service_pkey);
	uint32_t pi;

	if (!(mask & SR_SPKEY))
		return SA_ST_OK;
	if (!holds_pkey(q->src, q->requester, pkey))
		return SA_ST_REQ_INVALID;
	if ((mask & SR_SGID) && !gid_is_mcast(t)) {
		pi = subnet_find_port_guid(q->src->sn, be64toh(t->service_gid.unicast.interface_id));
		if (!holds_pkey(q->src, pi, pkey))
			return SA_ST_REQ_INVALID;
	}
	return SA_ST_OK;
}

/* The port a record belongs to: the ServiceGID's, or the registrar's for a multicast one. */
static uint16_t owner_of(const struct sa_query *q, const ib_service_record_t *t, uint64_t *guid)
{
	const struct subnet *sn = q->src->sn;
	uint32_t pi = gid_is_mcast(t) ? q->requester :
			subnet_find_port_guid(sn, be64toh(t->service_gid.unicast.interface_id));

	if (pi == SUBNET_NONE || !sn->port[pi].guid)
		return SA_ST_INVALID_GID;
	*guid = sn->port[pi].guid;
	return SA_ST_OK;
}

static void set(struct sa_query *q, const ib_service_record_t *t, uint64_t mask)
{
	struct sa_services *sv = q->src->svc;
	struct sa_service rec = { 0 };
	ib_service_record_t *r = (ib_service_record_t *)rec.wire;
	uint32_t lease, i;

	if ((mask & (SR_SID | SR_SGID)) != (SR_SID | SR_SGID))
		q->status = SA_ST_REQ_INVALID;
	else if (!(q->status = owner_of(q, t, &rec.guid)))
		q->status = pkey_check(q, t, mask);
	if (q->status)
		return;
	*r = *t;
	if (!(mask & SR_SLEASE))
		r->service_lease = htobe32(LEASE_FOREVER);
	lease = be32toh(r->service_lease);
	rec.expires_ms = lease == LEASE_FOREVER ? UINT64_MAX
						: q->src->now_ms + (uint64_t)lease * 1000;
	i = find_rid(sv, r);
	if (i == sv->n) {
		if (sv->n >= SERVICES_MAX) {
			q->status = SA_ST_NO_RESOURCES;
			return;
		}
		if (sv->n == sv->cap) {
			uint32_t cap = sv->cap ? sv->cap * 2 : 16;
			struct sa_service *p = realloc(sv->svc, cap * sizeof(*p));

			if (!p) {
				q->err = -ENOMEM;
				return;
			}
			sv->svc = p;
			sv->cap = cap;
		}
		sv->n++;
	}
	sv->svc[i] = rec; /* new, or the same RID registered again: replaced, lease renewed */
	q->mask = 0;      /* the answer is the record, whatever the template said */
	if (!(mask & SR_SPKEY)) {
		ib_service_record_t a = *r;

		a.service_pkey = htobe16(0xffff); /* what OpenSM answers: the default P_Key */
		emit_svc(q, &a);
	} else {
		emit_svc(q, r);
	}
}

static void del(struct sa_query *q, const ib_service_record_t *t, uint64_t mask)
{
	struct sa_services *sv = q->src->svc;
	ib_service_record_t r;
	uint32_t i;

	if ((q->status = pkey_check(q, t, mask)))
		return;
	i = find_rid(sv, t);
	if (i == sv->n) {
		q->status = SA_ST_NO_RECORDS;
		return;
	}
	memcpy(&r, sv->svc[i].wire, sizeof(r));
	remove_svc(sv, i);
	q->mask = 0;
	emit_svc(q, &r);
}

static void list(struct sa_query *q)
{
	const struct sa_services *sv = q->src->svc;
	uint64_t mask = q->mask;

	/* Matched here on the records as registered; what goes out may hide the key. */
	q->mask = 0;
	for (uint32_t i = 0; i < sv->n; i++) {
		const ib_service_record_t *r = (const ib_service_record_t *)sv->svc[i].wire;
		uint16_t pkey = be16toh(r->service_pkey);

		if (!sa_match(sr_fields, sizeof(sr_fields) / sizeof(sr_fields[0]), mask, q->req->rec,
			      sv->svc[i].wire))
			continue;
		if ((pkey & 0x7fff) && !holds_pkey(q->src, q->requester, pkey))
			continue;
		if (!emit_svc(q, r))
			return;
	}
}

static void walk_sr(struct sa_query *q)
{
	struct sa_services *sv = q->src->svc;
	ib_service_record_t t;
	uint64_t mask = q->req->comp_mask;

	if (!sv) {
		q->status = q->req->method == IB_MAD_METHOD_GET ||
				    q->req->method == IB_MAD_METHOD_GETTABLE ? 0 : SA_ST_NO_RESOURCES;
		return;
	}
	expire(sv, q->src->now_ms);
	memcpy(&t, q->req->rec, sizeof(t));
	switch (q->req->method) {
	case IB_MAD_METHOD_SET: set(q, &t, mask); break;
	case IB_MAD_METHOD_DELETE: del(q, &t, mask); break;
	default: list(q); break;
	}
}

const struct sa_attr sa_attr_service = {
	.id = 0x0031, .name = "ServiceRecord", .size = sizeof(ib_service_record_t),
	.methods = SA_M_GET | SA_M_GETTABLE | SA_M_SET | SA_M_DELETE, .fields = sr_fields,
	.n_fields = sizeof(sr_fields) / sizeof(sr_fields[0]), .walk = walk_sr,
};
