/* SPDX-License-Identifier: MIT */
/*
 * Dispatch and responses: which attribute a request names, whether the
 * requester may ask (IBA 15.4, and the access rules OpenSM applies by
 * default), and the answer: GetResp with exactly one record or a status,
 * GetTableResp with every match behind an RMPP header that the kernel
 * (the shim on the simulator) segments by.
 */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sa/sa_priv.h"

/* Every attribute the SA serves. PathRecord & co. add their line here. */
static const struct sa_attr *const attrs[] = {
	&sa_attr_class_port_info, &sa_attr_node, &sa_attr_port_info, &sa_attr_guid_info,
	&sa_attr_link, &sa_attr_switch_info, &sa_attr_lft, &sa_attr_mft, &sa_attr_sm_info,
	&sa_attr_pkey_table, &sa_attr_sl2vl, &sa_attr_vlarb, &sa_attr_path, &sa_attr_multipath,
	&sa_attr_mcm, &sa_attr_inform, &sa_attr_inform_rec, &sa_attr_service,
};

static const struct sa_attr *find_attr(uint16_t id)
{
	for (size_t i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++)
		if (attrs[i]->id == id)
			return attrs[i];
	return NULL;
}

bool sa_emit(struct sa_query *q, const void *rec)
{
	const struct sa_attr *a = q->attr;

	if (!sa_match(a->fields, a->n_fields, q->mask, q->req->rec, rec))
		return true;
	if (q->n * a->size + a->size > MAD_RMPP_MAX - SA_HDR_SIZE) {
		q->err = -E2BIG;
		return false;
	}
	if ((q->n + 1) * a->size > q->cap) {
		size_t cap = q->cap ? q->cap * 2 : (size_t)a->size * 16;
		uint8_t *p = realloc(q->buf, cap);

		if (!p) {
			q->err = -ENOMEM;
			return false;
		}
		q->buf = p;
		q->cap = cap;
	}
	memcpy(q->buf + q->n * a->size, rec, a->size);
	q->n++;
	return !q->limit || q->n < q->limit;
}

/* IBA 13.4.5: the response method of each request method. */
static uint8_t resp_method(uint8_t method)
{
	/* A Set is answered with GetResp (IBA 13.4.5, Table 101). */
	return method == IB_MAD_METHOD_SET ? IB_MAD_METHOD_GET_RESP
					   : (uint8_t)(method | IB_MAD_METHOD_RESP_MASK);
}

/*
 * The response: the request's header turned around, SM_Key zeroed (IBA
 * 15.2.1.1: a response never reveals it), the data either the records or,
 * with a status, the request's own template echoed (as OpenSM does).
 */
static int respond(const uint8_t *mad, size_t len, uint16_t status, const struct sa_attr *a,
		   const uint8_t *recs, size_t n, bool table, uint8_t **out, size_t *out_len)
{
	size_t data = a && !status ? n * a->size : 0, total = SA_HDR_SIZE + data;
	ib_sa_mad_t *r;
	uint8_t *buf;

	if (total < MAD_SIZE)
		total = MAD_SIZE;
	buf = calloc(1, total);
	if (!buf)
		return -ENOMEM;
	memcpy(buf, mad, len < MAD_SIZE ? len : MAD_SIZE);
	r = (ib_sa_mad_t *)buf;
	r->method = resp_method(r->method);
	r->status = htobe16(status);
	r->resv = 0;
	r->sm_key = 0;
	r->rmpp_version = r->rmpp_type = r->rmpp_flags = r->rmpp_status = 0;
	r->seg_num = r->paylen_newwin = 0;
	r->attr_offset = 0;
	if (a && !status) {
		memset(buf + SA_HDR_SIZE, 0, total - SA_HDR_SIZE);
		if (data)
			memcpy(buf + SA_HDR_SIZE, recs, data);
		r->attr_offset = htobe16(a->size / 8);
	}
	if (table && !status) {
		/*
		 * IBA 15.2.1.1: a GetTableResp is an RMPP DATA message, even an
		 * empty one. The kernel fills in segment numbers, lengths and
		 * First/Last; we write the whole message once.
		 */
		r->rmpp_version = 1 /* IBA 13.6.2.1 */;
		r->rmpp_type = IB_RMPP_TYPE_DATA;
		r->rmpp_flags = IB_RMPP_FLAG_ACTIVE;
		/*
		 * Exactly the records: the receiver counts them from the
		 * PayloadLength the kernel derives from this length; the last
		 * segment's padding on the wire is the kernel's business.
		 */
		*out_len = SA_HDR_SIZE + data;
	} else {
		*out_len = MAD_SIZE;
	}
	*out = buf;
	return 0;
}

/*
 * Who asks, and with which P_Key: the requester must be a port of the
 * model (its source LID) and hold the P_Key the request came with, which
 * our port knows by index (IBA 10.9.3: the P_Key check passed on our side,
 * this is the SA's own; a limited member may still ask).
 */
static uint16_t check_access(const struct sa_src *src, const struct mad_addr *from,
			     uint32_t *requester)
{
	const uint16_t *mine, *theirs;
	uint32_t nm, nt, idx, who = sa_port_of_lid(src, from ? from->lid : 0);

	*requester = who;
	if (who == SUBNET_NONE)
		return SA_ST_DENIED;
	mine = sa_port_pkeys(src, src->sm_port, &nm);
	/*
	 * The kernel always gives an index into our P_Key table (the packet
	 * passed our port's P_Key check with it). umad2sim leaves the field
	 * as stale memory (913, say): an index past the table can only come
	 * from there, and is read as index 0, the default partition's.
	 */
	idx = from->pkey_index < nm ? from->pkey_index : 0;
	if (!nm)
		return SA_ST_DENIED;
	theirs = sa_port_pkeys(src, who, &nt);
	for (uint32_t i = 0; i < nt; i++)
		if ((theirs[i] & 0x7fff) && (theirs[i] & 0x7fff) == (mine[idx] & 0x7fff))
			return SA_ST_OK;
	return SA_ST_DENIED;
}

/*
 * Which status, if any, stops the request before the walk; < 0: no answer
 * at all. IBA 15.2.1.1 (C15-0.1.5): a request whose SM_Key is neither 0 nor
 * ours is discarded unanswered, so a wrong key learns nothing, not even
 * that an SA listens; the right key makes the request trusted.
 */
static int screen(const struct sa_src *src, struct sa_req *q, const uint8_t *mad,
		  size_t len, const struct mad_addr *from, const struct sa_attr **a,
		  struct sa_query *qy)
{
	int r = sa_req_decode(mad, len, q);

	if (r != 0)
		return r;
	if (q->sm_key && q->sm_key != src->sm.sm_key)
		return -EACCES;
	qy->trusted = q->sm_key != 0;
	if (!src->sn || !src->by_lid)
		return SA_ST_BUSY; /* IBA 13.4.7: no sweep yet; try again later */
	*a = find_attr(q->attr_id);
	if (!*a || !((*a)->methods & sa_method_bit(q->method))) {
		*a = NULL;
		return SA_ST_UNSUP_METHOD_ATTR;
	}
	r = check_access(src, from, &qy->requester);
	if (r == SA_ST_OK && ((*a)->flags & SA_A_TRUSTED_ONLY) && !qy->trusted)
		r = SA_ST_REQ_INVALID; /* as OpenSM answers an untrusted P_KeyTableRecord query */
	return r;
}

int sa_answer(const struct sa_src *src, const uint8_t *mad, size_t len,
	      const struct mad_addr *from, uint8_t **out, size_t *out_len, uint16_t *status)
{
	struct sa_req q;
	const struct sa_attr *a = NULL;
	struct sa_query qy = { .src = src, .req = &q, .requester = SUBNET_NONE, .from = from };
	uint16_t st;
	bool table;
	int r;

	r = screen(src, &q, mad, len, from, &a, &qy);
	if (r < 0)
		return r;
	st = (uint16_t)r;
	/* GetMulti (MultiPathRecord) is answered as a table too (IBA 15.2.5.20). */
	table = q.method == IB_MAD_METHOD_GETTABLE || q.method == IB_MAD_METHOD_GETMULTI;
	if (st) {
		*status = st;
		return respond(mad, len, st, NULL, NULL, 0, false, out, out_len);
	}
	qy.attr = a;
	qy.mask = q.comp_mask;
	qy.limit = table ? 0 : 2;
	a->walk(&qy);
	if (qy.err == -ENOMEM) {
		free(qy.buf);
		return -ENOMEM;
	}
	if (qy.status)
		st = qy.status; /* e.g. PathRecord: no port has that GID */
	else if (qy.err)
		st = SA_ST_NO_RESOURCES;
	else if (!table && qy.n == 0)
		st = SA_ST_NO_RECORDS;
	else if (!table && qy.n > 1)
		st = SA_ST_TOO_MANY_RECORDS;
	*status = st;
	r = respond(mad, len, st, a, qy.buf, qy.n, table, out, out_len);
	free(qy.buf);
	return r;
}
