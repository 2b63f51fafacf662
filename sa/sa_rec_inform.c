/* SPDX-License-Identifier: MIT */
/*
 * Subscriptions to events: InformInfo (IBA 13.4.8.3) SubnAdmSet subscribes
 * or unsubscribes the requester's port, InformInfoRecord (IBA 15.2.5.12)
 * lists subscriptions, and the match that decides who gets a Report of a
 * Notice (IBA 13.4.8.2). Behaviour as OpenSM's osm_sa_informinfo.c and
 * osm_inform.c:
 *  - the subscriber is the port the request came from (its LID); the
 *    InformInfo's QPN says where on it the reports go;
 *  - a second subscription with the same fields replaces the first (a
 *    client that retries its Set does not get every report twice);
 *  - unsubscribing what was never subscribed is "request invalid";
 *  - a GID that names no port is "invalid GID".
 * The Reports themselves go out from sa_agent.c, which has the transport.
 */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sa/sa_priv.h"

_Static_assert(sizeof(ib_inform_info_t) == 36, "InformInfo is 36 bytes");
_Static_assert(sizeof(ib_inform_info_record_t) == 64, "InformInfoRecord is 60 bytes, padded");
_Static_assert(sizeof(ib_mad_notice_attr_t) == 80, "Notice is 80 bytes");

#define INFORM_SIZE 36
#define NOTICE_SIZE 80

static uint16_t be16_at(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t be24_at(const uint8_t *p)
{
	return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
}

static uint64_t be64_at(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return be64toh(v);
}

int sa_inform_decode(const uint8_t *p, size_t len, struct sa_inform *out)
{
	uint32_t qrt;

	if (len < INFORM_SIZE)
		return -EPROTO;
	memset(out, 0, sizeof(*out));
	out->gid_prefix = be64_at(p);
	out->gid_guid = be64_at(p + 8);
	out->lid_begin = be16_at(p + 16);
	out->lid_end = be16_at(p + 18);
	out->is_generic = p[22] != 0;
	out->subscribe = p[23];
	out->type = be16_at(p + 24);
	out->trap_num = be16_at(p + 26);
	qrt = (uint32_t)be16_at(p + 28) << 16 | be16_at(p + 30);
	out->qpn = qrt >> 8;
	out->resp_time = qrt & 0x1f;
	out->producer = be24_at(p + 33);
	return 0;
}

int sa_notice_decode(const uint8_t *p, size_t len, struct sa_notice *out)
{
	if (len < NOTICE_SIZE)
		return -EPROTO;
	memset(out, 0, sizeof(*out));
	out->is_generic = p[0] >> 7;
	out->type = p[0] & 0x7f;
	out->producer = be24_at(p + 1);
	out->trap_num = be16_at(p + 4);
	out->issuer_lid = be16_at(p + 6);
	out->toggle_count = be16_at(p + 8);
	memcpy(out->details, p + 10, sizeof(out->details));
	out->issuer_prefix = be64_at(p + 64);
	out->issuer_guid = be64_at(p + 72);
	return 0;
}

void sa_notice_encode(const struct sa_notice *n, uint8_t out[NOTICE_SIZE])
{
	uint64_t v;

	memset(out, 0, NOTICE_SIZE);
	out[0] = (uint8_t)((n->is_generic ? 0x80 : 0) | (n->type & 0x7f));
	out[1] = (uint8_t)(n->producer >> 16);
	out[2] = (uint8_t)(n->producer >> 8);
	out[3] = (uint8_t)n->producer;
	out[4] = (uint8_t)(n->trap_num >> 8);
	out[5] = (uint8_t)n->trap_num;
	out[6] = (uint8_t)(n->issuer_lid >> 8);
	out[7] = (uint8_t)n->issuer_lid;
	out[8] = (uint8_t)(n->toggle_count >> 8);
	out[9] = (uint8_t)n->toggle_count;
	memcpy(out + 10, n->details, sizeof(n->details));
	v = htobe64(n->issuer_prefix);
	memcpy(out + 64, &v, 8);
	v = htobe64(n->issuer_guid);
	memcpy(out + 72, &v, 8);
}

bool sa_inform_match(const struct sa_inform *s, const struct sa_notice *n)
{
	uint16_t end;

	if (s->is_generic != n->is_generic)
		return false;
	if (s->type != 0xffff && s->type != n->type)
		return false;
	if (s->trap_num != 0xffff && s->trap_num != n->trap_num)
		return false;
	if (s->producer != 0xffffff && s->producer != n->producer)
		return false;
	/* IBA 13.4.8.3: a GID names one issuer; else the LID range, 0xFFFF all. */
	if (s->gid_guid)
		return n->issuer_guid == s->gid_guid &&
		       (!s->gid_prefix || !n->issuer_prefix || s->gid_prefix == n->issuer_prefix);
	if (s->lid_begin == 0xffff)
		return true;
	/* LIDRangeEnd 0: the range is LIDRangeBegin alone. */
	end = s->lid_end ? s->lid_end : s->lid_begin;
	return n->issuer_lid >= s->lid_begin && n->issuer_lid <= end;
}

/* The same subscription: one port asking for the same thing, to the same QP. */
static bool same_sub(const struct sa_sub *a, uint64_t guid, const struct sa_inform *b)
{
	const struct sa_inform *x = &a->inf;

	return a->guid == guid && x->gid_guid == b->gid_guid && x->gid_prefix == b->gid_prefix &&
	       x->lid_begin == b->lid_begin && x->lid_end == b->lid_end &&
	       x->is_generic == b->is_generic && x->type == b->type &&
	       x->trap_num == b->trap_num && x->qpn == b->qpn && x->producer == b->producer;
}

static void remove_sub(struct sa_events *ev, uint32_t i)
{
	memmove(&ev->sub[i], &ev->sub[i + 1], (ev->n_sub - i - 1) * sizeof(ev->sub[0]));
	ev->n_sub--;
}

uint32_t sa_events_drop_port(struct sa_events *ev, uint64_t guid)
{
	uint32_t n = 0;

	for (uint32_t i = ev->n_sub; i-- > 0;)
		if (ev->sub[i].guid == guid) {
			remove_sub(ev, i);
			n++;
		}
	return n;
}

void sa_events_free(struct sa_events *ev)
{
	free(ev->sub);
	free(ev->rep);
	free(ev->ports);
	free(ev->mgids);
	memset(ev, 0, sizeof(*ev));
}

static int add_sub(struct sa_events *ev, const struct sa_sub *s)
{
	if (ev->n_sub == ev->cap_sub) {
		uint32_t cap = ev->cap_sub ? ev->cap_sub * 2 : 16;
		struct sa_sub *p = realloc(ev->sub, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		ev->sub = p;
		ev->cap_sub = cap;
	}
	ev->sub[ev->n_sub++] = *s;
	return 0;
}

/*
 * May the requester subscribe to this? Security traps (256-259) only when
 * trusted (C15-0.2-1.16); and it must be able to reach what it watches
 * (o13-14.1.1): the GID's port, or every port in the LID range, shares a
 * partition with it. LIDRangeBegin 0xFFFF is every port: always allowed.
 */
static bool may_subscribe(const struct sa_query *q, const struct sa_inform *in)
{
	const struct sa_src *s = q->src;
	uint32_t pi, end;

	if (in->is_generic && in->trap_num >= 256 && in->trap_num <= 259 && !q->trusted)
		return false;
	if (in->gid_guid) {
		pi = subnet_find_port_guid(s->sn, in->gid_guid);
		return pi != SUBNET_NONE && sa_visible(q, pi);
	}
	if (in->lid_begin == 0xffff)
		return true;
	if (in->lid_begin > s->max_lid)
		return false;
	end = in->lid_end ? in->lid_end : in->lid_begin;
	if (end > s->max_lid)
		end = s->max_lid;
	for (uint32_t lid = in->lid_begin; lid <= end; lid++) {
		pi = sa_port_of_lid(s, (uint16_t)lid);
		if (pi != SUBNET_NONE && !sa_visible(q, pi))
			return false;
	}
	return true;
}

/* Subscribe or unsubscribe the requester; the answer is the InformInfo as sent. */
static void inform_set(struct sa_query *q)
{
	const struct sa_src *s = q->src;
	struct sa_events *ev = s->ev;
	struct sa_sub sub = { 0 };
	uint32_t i;

	sa_inform_decode(q->req->rec, sizeof(q->req->rec), &sub.inf);
	if (!ev) {
		q->status = SA_ST_NO_RESOURCES;
		return;
	}
	if (sub.inf.subscribe > 1) {
		q->status = SA_ST_REQ_INVALID;
		return;
	}
	if (sub.inf.gid_guid && subnet_find_port_guid(s->sn, sub.inf.gid_guid) == SUBNET_NONE) {
		q->status = SA_ST_INVALID_GID;
		return;
	}
	if (sub.inf.subscribe && !may_subscribe(q, &sub.inf)) {
		q->status = SA_ST_REQ_INVALID; /* as OpenSM answers (o13-14.1.1) */
		return;
	}
	sub.guid = s->sn->port[q->requester].guid;
	sub.lid = sa_endport_lid(s, q->requester, NULL);
	memcpy(sub.wire, q->req->rec, sizeof(sub.wire));
	if (sub.inf.subscribe && q->from) {
		/*
		 * The subscription is kept with the QP the Set came from, as
		 * OpenSM keeps it: Reports go there, and an unsubscribe names it.
		 */
		sub.inf.qpn = q->from->qpn & 0xffffff;
		sub.wire[28] = (uint8_t)(sub.inf.qpn >> 16);
		sub.wire[29] = (uint8_t)(sub.inf.qpn >> 8);
		sub.wire[30] = (uint8_t)sub.inf.qpn;
	}
	for (i = 0; i < ev->n_sub; i++)
		if (same_sub(&ev->sub[i], sub.guid, &sub.inf))
			break;
	if (sub.inf.subscribe) {
		if (i < ev->n_sub)
			ev->sub[i] = sub; /* a retried Set: the same subscription, once */
		else if (add_sub(ev, &sub) < 0) {
			q->err = -ENOMEM;
			return;
		}
	} else if (i < ev->n_sub) {
		remove_sub(ev, i);
	} else {
		q->status = SA_ST_REQ_INVALID; /* nothing to unsubscribe */
		return;
	}
	q->mask = 0; /* the answer is the InformInfo, whatever the mask said */
	sa_emit(q, q->req->rec);
}

const struct sa_attr sa_attr_inform = {
	.id = 0x0003, .name = "InformInfo", .size = 40 /* 36, to a multiple of 8 */,
	.methods = SA_M_SET, .fields = NULL, .n_fields = 0, .walk = inform_set,
};

/* ---- InformInfoRecord ---- */

static const struct sa_field iir_fields[] = {
	{ 0, 128 }, { 128, 16 }, { 144, 0 },                /* SubscriberGID, Enum, reserved */
	{ 192, 128 }, { 320, 16 }, { 336, 16 }, { 352, 0 }, /* GID, LIDRangeBegin/End, resv */
	{ 368, 8 }, { 376, 8 }, { 384, 16 }, { 400, 16 },   /* IsGeneric, Subscribe, Type, Trap */
	{ 416, 24 }, { 440, 0 }, { 443, 5 }, { 448, 0 },    /* QPN, resv, RespTime, resv */
	{ 456, 24 },                                        /* ProducerType */
};

static void walk_iir(struct sa_query *q)
{
	const struct sa_src *s = q->src;
	const struct sa_events *ev = s->ev;
	uint64_t prefix = s->sn->subnet_prefix ? s->sn->subnet_prefix : 0xfe80000000000000ULL;

	if (!ev)
		return;
	for (uint32_t i = 0; i < ev->n_sub; i++) {
		const struct sa_sub *sub = &ev->sub[i];
		uint32_t pi = subnet_find_port_guid(s->sn, sub->guid);
		ib_inform_info_record_t r;
		uint16_t e = 0;

		/* A subscription is shown to those who may see its subscriber. */
		if (pi == SUBNET_NONE || !sa_visible(q, pi))
			continue;
		/* IBA 15.2.5.12: Enum tells apart one subscriber's subscriptions. */
		for (uint32_t j = 0; j < i; j++)
			e += ev->sub[j].guid == sub->guid;
		memset(&r, 0, sizeof(r));
		r.subscriber_gid.unicast.prefix = htobe64(prefix);
		r.subscriber_gid.unicast.interface_id = htobe64(sub->guid);
		r.subscriber_enum = htobe16(e);
		memcpy(&r.inform_info, sub->wire, sizeof(sub->wire));
		if (!sa_emit(q, &r))
			return;
	}
}

const struct sa_attr sa_attr_inform_rec = {
	.id = 0x00f3, .name = "InformInfoRecord", .size = sizeof(ib_inform_info_record_t),
	.methods = SA_M_GET | SA_M_GETTABLE, .fields = iir_fields,
	.n_fields = sizeof(iir_fields) / sizeof(iir_fields[0]), .walk = walk_iir,
};
