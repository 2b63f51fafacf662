/* SPDX-License-Identifier: MIT */
/*
 * The SA's request decoder and answers, on a hand-built fabric (one switch,
 * two CAs): record counts and sizes, the Get/GetTable statuses (exactly one,
 * none, too many), component masks down to sub-byte PortInfo fields,
 * partitions hiding ports, and malformed or unsupported requests answered
 * with the right MAD status, never read past their end. The view's
 * indexes: every end port by GUID and by LID, unknown ones, duplicates.
 */
#include <endian.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <iba/ib_types.h>

#include "sa/sa_priv.h"

struct fab {
	struct subnet *sn;
	struct disc_live live;
	struct sa_src src;
	uint32_t sw, ca1, ca2; /* node indices */
};

/* A switch (LID 1) with CA h1 (LID 2) on port 1 and CA h2 (LID 3) on port 2. */
static int setup(void **state)
{
	struct fab *f = calloc(1, sizeof(*f));
	ib_port_info_t pi;

	assert_non_null(f);
	assert_int_equal(subnet_new(&f->sn), 0);
	assert_int_equal(subnet_add_node(f->sn, NODE_SWITCH, 4, 0x100, "sw", "sw", &f->sw), 0);
	assert_int_equal(subnet_add_node(f->sn, NODE_CA, 1, 0x200, "h1", "h1 HCA-1", &f->ca1), 0);
	assert_int_equal(subnet_add_node(f->sn, NODE_CA, 1, 0x300, "h2", "h2 HCA-1", &f->ca2), 0);
	assert_int_equal(subnet_link(f->sn, subnet_port_idx(f->sn, f->sw, 1),
				     subnet_port_idx(f->sn, f->ca1, 1)), 0);
	assert_int_equal(subnet_link(f->sn, subnet_port_idx(f->sn, f->sw, 2),
				     subnet_port_idx(f->sn, f->ca2, 1)), 0);
	f->sn->port[subnet_port_idx(f->sn, f->sw, 0)].lid = 1;
	f->sn->port[subnet_port_idx(f->sn, f->ca1, 1)].lid = 2;
	f->sn->port[subnet_port_idx(f->sn, f->ca2, 1)].lid = 3;
	f->live.node = calloc(f->sn->n_nodes, sizeof(*f->live.node));
	f->live.port = calloc(f->sn->n_ports, sizeof(*f->live.port));
	for (uint32_t i = 0; i < f->sn->n_ports; i++) {
		const struct subnet_port *p = &f->sn->port[i];

		if (!subnet_is_switch(f->sn, p->node) && !p->num)
			continue;
		memset(&pi, 0, sizeof(pi));
		pi.base_lid = htobe16(p->lid);
		pi.local_port_num = p->num;
		pi.m_key = htobe64(0x1234);
		/* PortState (4 bits, 260..263): Active where linked, else Down. */
		pi.state_info1 = p->peer != SUBNET_NONE || !p->num ? IB_LINK_ACTIVE : IB_LINK_DOWN;
		f->live.port[i].have_pi = true;
		memcpy(f->live.port[i].raw, &pi, sizeof(pi));
	}
	f->src = (struct sa_src){ .sn = f->sn, .live = &f->live,
				  .sm_port = subnet_port_idx(f->sn, f->ca1, 1),
				  .sm = { .guid = 0x201, .priority = 5, .state = 3 } };
	assert_int_equal(sa_src_index(&f->src), 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fab *f = *state;

	sa_src_free(&f->src);
	disc_live_free(&f->live);
	subnet_free(f->sn);
	free(f);
	return 0;
}

/* A request as saquery builds it. */
static void req(uint8_t mad[MAD_SIZE], uint8_t method, uint16_t attr, uint64_t mask)
{
	ib_sa_mad_t *m = (ib_sa_mad_t *)mad;

	memset(mad, 0, MAD_SIZE);
	m->base_ver = 1;
	m->mgmt_class = IB_MCLASS_SUBN_ADM;
	m->class_ver = 2;
	m->method = method;
	m->trans_id = htobe64(0xabcdef);
	m->attr_id = htobe16(attr);
	m->comp_mask = htobe64(mask);
}

static void set16(uint8_t mad[MAD_SIZE], size_t rec_off, uint16_t v)
{
	v = htobe16(v);
	memcpy(mad + SA_HDR_SIZE + rec_off, &v, 2);
}

struct ans {
	int r;
	uint16_t status;
	size_t len;
	uint8_t *out;
};

static struct ans ask(const struct sa_src *s, const uint8_t *mad, size_t len, uint16_t from_lid,
		      uint16_t pkey_index)
{
	struct mad_addr from = { .lid = from_lid, .qpn = 1, .pkey_index = pkey_index,
				 .agent = MAD_AGENT_SA };
	struct ans a = { 0 };

	a.r = sa_answer(s, mad, len, &from, &a.out, &a.len, &a.status);
	return a;
}

static const ib_sa_mad_t *hdr(const struct ans *a)
{
	return (const ib_sa_mad_t *)a->out;
}

static void test_gettable_nodes(void **state)
{
	struct fab *f = *state;
	uint8_t mad[MAD_SIZE];
	struct ans a;
	const ib_node_record_t *r;

	req(mad, IB_MAD_METHOD_GETTABLE, 0x11, 0);
	a = ask(&f->src, mad, sizeof(mad), 2, 0);
	assert_int_equal(a.r, 0);
	assert_int_equal(a.status, 0);
	/* Three end ports: the switch's port 0 and each CA's port; exactly their bytes. */
	assert_int_equal(a.len, SA_HDR_SIZE + 3 * sizeof(ib_node_record_t));
	assert_int_equal(hdr(&a)->method, IB_MAD_METHOD_GETTABLE_RESP);
	assert_int_equal(be16toh(hdr(&a)->attr_offset), sizeof(ib_node_record_t) / 8);
	assert_int_equal(hdr(&a)->rmpp_flags & IB_RMPP_FLAG_ACTIVE, IB_RMPP_FLAG_ACTIVE);
	assert_int_equal(hdr(&a)->rmpp_type, IB_RMPP_TYPE_DATA);
	assert_int_equal(be64toh(hdr(&a)->trans_id), 0xabcdef);
	r = (const ib_node_record_t *)(a.out + SA_HDR_SIZE);
	assert_int_equal(be16toh(r[0].lid), 1);
	assert_int_equal(r[0].node_info.node_type, IB_NODE_TYPE_SWITCH);
	assert_int_equal(be16toh(r[1].lid), 2);
	assert_int_equal(be64toh(r[1].node_info.port_guid), 0x201);
	assert_int_equal(be32toh(r[1].node_info.port_num_vendor_id) >> 24, 1);
	assert_memory_equal(r[2].node_desc.description, "h2 HCA-1", 9);
	free(a.out);
}

static void test_get_statuses(void **state)
{
	struct fab *f = *state;
	uint8_t mad[MAD_SIZE];
	struct ans a;

	/* By LID: exactly one. */
	req(mad, IB_MAD_METHOD_GET, 0x11, 1);
	set16(mad, 0, 3);
	a = ask(&f->src, mad, sizeof(mad), 2, 0);
	assert_int_equal(a.status, 0);
	assert_int_equal(a.len, MAD_SIZE);
	assert_int_equal(hdr(&a)->method, IB_MAD_METHOD_GET_RESP);
	assert_int_equal(be64toh(((const ib_node_record_t *)(a.out + SA_HDR_SIZE))->node_info.node_guid),
			 0x300);
	assert_int_equal(hdr(&a)->rmpp_flags, 0);
	free(a.out);
	/* No such LID: ERR_NO_RECORDS (IBA 15.2.1.1 status 3). */
	set16(mad, 0, 99);
	a = ask(&f->src, mad, sizeof(mad), 2, 0);
	assert_int_equal(a.status, SA_ST_NO_RECORDS);
	assert_int_equal(be16toh(hdr(&a)->status), 0x0300);
	free(a.out);
	/* No mask: three match, a Get must fail with ERR_TOO_MANY_RECORDS. */
	req(mad, IB_MAD_METHOD_GET, 0x11, 0);
	a = ask(&f->src, mad, sizeof(mad), 2, 0);
	assert_int_equal(a.status, SA_ST_TOO_MANY_RECORDS);
	free(a.out);
	/* GetTable with nothing matching: an empty table, not an error. */
	req(mad, IB_MAD_METHOD_GETTABLE, 0x11, 1);
	set16(mad, 0, 99);
	a = ask(&f->src, mad, sizeof(mad), 2, 0);
	assert_int_equal(a.status, 0);
	assert_int_equal(a.len, SA_HDR_SIZE);
	free(a.out);
}

static void test_masks(void **state)
{
	struct fab *f = *state;
	uint8_t mad[MAD_SIZE];
	ib_portinfo_record_t *t = (ib_portinfo_record_t *)(mad + SA_HDR_SIZE);
	const ib_portinfo_record_t *r;
	struct ans a;

	/* PortInfoRecord by PortState (mask bit 15, a 4-bit field): the two Down switch ports. */
	req(mad, IB_MAD_METHOD_GETTABLE, 0x12, 1ULL << 15);
	t->port_info.state_info1 = IB_LINK_DOWN;
	a = ask(&f->src, mad, sizeof(mad), 2, 0);
	assert_int_equal(a.status, 0);
	assert_int_equal(a.len, SA_HDR_SIZE + 2 * sizeof(*r));
	r = (const ib_portinfo_record_t *)(a.out + SA_HDR_SIZE);
	assert_int_equal(r[0].port_num, 3);
	assert_int_equal(r[1].port_num, 4);
	/* The M_Key is never handed out. */
	assert_int_equal(r[0].port_info.m_key, 0);
	free(a.out);
	/* Switch LID and port number: one record. */
	req(mad, IB_MAD_METHOD_GET, 0x12, 1 | 2);
	set16(mad, 0, 1);
	t->port_num = 2;
	a = ask(&f->src, mad, sizeof(mad), 2, 0);
	assert_int_equal(a.status, 0);
	free(a.out);
	/* LinkRecord: each link from both ends; from LID 1 port 1: one. */
	req(mad, IB_MAD_METHOD_GETTABLE, 0x20, 0);
	a = ask(&f->src, mad, sizeof(mad), 3, 0);
	assert_int_equal(a.len, SA_HDR_SIZE + 4 * sizeof(ib_link_record_t));
	free(a.out);
	req(mad, IB_MAD_METHOD_GET, 0x20, 1 | 2);
	set16(mad, 0, 1);
	mad[SA_HDR_SIZE + 2] = 1;
	a = ask(&f->src, mad, sizeof(mad), 3, 0);
	assert_int_equal(a.status, 0);
	assert_int_equal(be16toh(((const ib_link_record_t *)(a.out + SA_HDR_SIZE))->to_lid), 2);
	free(a.out);
	/* SMInfoRecord: this SM, priority and state packed. */
	req(mad, IB_MAD_METHOD_GET, 0x18, 0);
	a = ask(&f->src, mad, sizeof(mad), 3, 0);
	assert_int_equal(a.status, 0);
	assert_int_equal(((const ib_sminfo_record_t *)(a.out + SA_HDR_SIZE))->sm_info.pri_state, 0x53);
	free(a.out);
}

static void test_bad_requests(void **state)
{
	struct fab *f = *state;
	uint8_t mad[MAD_SIZE];
	struct ans a;

	/* ServiceAssociationRecord is not served: unsupported method/attribute. */
	req(mad, IB_MAD_METHOD_GET, 0x3b, 0);
	a = ask(&f->src, mad, sizeof(mad), 2, 0);
	assert_int_equal(a.status, SA_ST_UNSUP_METHOD_ATTR);
	assert_int_equal(hdr(&a)->method, IB_MAD_METHOD_GET_RESP);
	free(a.out);
	/* A Set on a read-only record: the same (IBA 15.4 lists Get/GetTable only), answered as GetResp. */
	req(mad, IB_MAD_METHOD_SET, 0x11, 0);
	a = ask(&f->src, mad, sizeof(mad), 2, 0);
	assert_int_equal(a.status, SA_ST_UNSUP_METHOD_ATTR);
	assert_int_equal(hdr(&a)->method, IB_MAD_METHOD_GET_RESP);
	free(a.out);
	/* A method the SA class does not define. */
	req(mad, 0x07, 0x11, 0);
	a = ask(&f->src, mad, sizeof(mad), 2, 0);
	assert_int_equal(a.status, SA_ST_UNSUP_METHOD);
	free(a.out);
	/* Wrong class version. */
	req(mad, IB_MAD_METHOD_GET, 0x11, 0);
	mad[2] = 1;
	a = ask(&f->src, mad, sizeof(mad), 2, 0);
	assert_int_equal(a.status, SA_ST_BAD_VERSION);
	free(a.out);
	/* Short: answered with "invalid request" from the header alone. */
	req(mad, IB_MAD_METHOD_GET, 0x11, 0);
	a = ask(&f->src, mad, 100, 2, 0);
	assert_int_equal(a.r, 0);
	assert_int_equal(a.status, SA_ST_REQ_INVALID);
	free(a.out);
	/* Shorter than a MAD header, a response, another class: no answer. */
	assert_int_equal(ask(&f->src, mad, 20, 2, 0).r, -EPROTO);
	mad[3] = IB_MAD_METHOD_GET_RESP;
	assert_int_equal(ask(&f->src, mad, sizeof(mad), 2, 0).r, -EPROTO);
	req(mad, IB_MAD_METHOD_GET, 0x11, 0);
	mad[1] = 0x81;
	assert_int_equal(ask(&f->src, mad, sizeof(mad), 2, 0).r, -EPROTO);
	/* A non-zero status in a request is a malformed request. */
	req(mad, IB_MAD_METHOD_GET, 0x11, 0);
	mad[4] = 1;
	a = ask(&f->src, mad, sizeof(mad), 2, 0);
	assert_int_equal(a.status, SA_ST_INVALID_FIELD);
	free(a.out);
	/* Before the first sweep: busy. */
	{
		struct sa_src none = { 0 };

		req(mad, IB_MAD_METHOD_GET, 0x11, 0);
		a = ask(&none, mad, sizeof(mad), 2, 0);
		assert_int_equal(a.status, SA_ST_BUSY);
		free(a.out);
	}
}

static void test_access(void **state)
{
	struct fab *f = *state;
	uint8_t mad[MAD_SIZE];
	struct ans a;
	/* h1 (and the switch, the SM's port) in 0x8001 and the default; h2 only in 0x8002. */
	uint32_t off[16] = { 0 };
	uint16_t key[8];
	uint32_t n = 0, sw0 = subnet_port_idx(f->sn, f->sw, 0);
	uint32_t h1 = subnet_port_idx(f->sn, f->ca1, 1), h2 = subnet_port_idx(f->sn, f->ca2, 1);
	struct pkey_plan pl = { .off = off, .key = key };
	struct sa_src s = f->src;

	for (uint32_t p = 0; p < f->sn->n_ports; p++) {
		off[p] = n;
		if (p == sw0 || p == h1) {
			key[n++] = 0xffff;
			key[n++] = 0x8001;
		} else if (p == h2) {
			key[n++] = 0x8002;
		}
	}
	off[f->sn->n_ports] = n;
	s.pkeys = &pl;
	req(mad, IB_MAD_METHOD_GETTABLE, 0x11, 0);
	/* h1 sees itself and the switch, not h2 (no common partition). */
	a = ask(&s, mad, sizeof(mad), 2, 0);
	assert_int_equal(a.status, 0);
	assert_int_equal(a.len, SA_HDR_SIZE + 2 * sizeof(ib_node_record_t));
	free(a.out);
	/* h2 does not hold the P_Key at index 0 of the SA's port: denied. */
	a = ask(&s, mad, sizeof(mad), 3, 0);
	assert_int_equal(a.status, SA_ST_DENIED);
	free(a.out);
	/*
	 * An index past the SA port's table is umad2sim's stale field, read as
	 * index 0 (sa.c): h1 may ask, h2 still not. A LID nobody has: denied.
	 */
	a = ask(&s, mad, sizeof(mad), 2, 7);
	assert_int_equal(a.status, 0);
	free(a.out);
	a = ask(&s, mad, sizeof(mad), 3, 7);
	assert_int_equal(a.status, SA_ST_DENIED);
	free(a.out);
	a = ask(&s, mad, sizeof(mad), 77, 0);
	assert_int_equal(a.status, SA_ST_DENIED);
	free(a.out);
}

static void test_match_bits(void **state)
{
	static const struct sa_field f[] = { { 4, 3 }, { 8, 16 }, { 24, 0 } };
	uint8_t a[4] = { 0x5a, 0x12, 0x34, 0xff }, b[4] = { 0x52, 0x12, 0x34, 0x00 };

	(void)state;
	/* Bits 4..6 of byte 0: 101 vs 001 differ; bits 8..23 agree; a width-0 field never fails. */
	assert_false(sa_match(f, 3, 1, a, b));
	assert_true(sa_match(f, 3, 2 | 4, a, b));
	b[0] = 0x5b; /* bit 7 differs: outside the field */
	assert_true(sa_match(f, 3, 1, a, b));
	/* Mask bits beyond the table select nothing. */
	assert_true(sa_match(f, 3, 1ULL << 40, a, b));
}

/* An InformInfo as a subscriber sends it: generic trap trap from any issuer, to QP qpn. */
static void inform(uint8_t *p, uint16_t trap, uint8_t subscribe, uint32_t qpn)
{
	ib_inform_info_t *ii = (ib_inform_info_t *)p;

	memset(ii, 0, sizeof(*ii));
	ii->lid_range_begin = htobe16(0xffff);
	ii->is_generic = 1;
	ii->subscribe = subscribe;
	ii->trap_type = htobe16(0xffff);
	ii->g_or_v.generic.trap_num = htobe16(trap);
	ii->g_or_v.generic.qpn_resp_time_val = htobe32(qpn << 8 | 18);
	ii->g_or_v.generic.node_type_msb = 0xff;
	ii->g_or_v.generic.node_type_lsb = htobe16(0xffff);
}

static void test_inform_decode_match(void **state)
{
	uint8_t w[36], nw[80];
	struct sa_inform in;
	struct sa_notice n = { .is_generic = true, .type = 1, .producer = 2, .trap_num = 128,
			       .issuer_lid = 7, .issuer_guid = 0x99 }, back;

	(void)state;
	inform(w, 128, 1, 0x123456);
	assert_int_equal(sa_inform_decode(w, sizeof(w), &in), 0);
	assert_int_equal(in.lid_begin, 0xffff);
	assert_true(in.is_generic);
	assert_int_equal(in.subscribe, 1);
	assert_int_equal(in.trap_num, 128);
	assert_int_equal(in.qpn, 0x123456);
	assert_int_equal(in.resp_time, 18);
	assert_int_equal(in.producer, 0xffffff);
	assert_int_equal(sa_inform_decode(w, 35, &in), -EPROTO); /* short: refused */
	assert_int_equal(sa_inform_decode(w, sizeof(w), &in), 0);
	assert_true(sa_inform_match(&in, &n));
	n.trap_num = 129;
	assert_false(sa_inform_match(&in, &n));
	in.trap_num = 0xffff; /* any trap */
	assert_true(sa_inform_match(&in, &n));
	n.is_generic = false;
	assert_false(sa_inform_match(&in, &n));
	n.is_generic = true;
	in.producer = 4;
	assert_false(sa_inform_match(&in, &n));
	in.producer = 0xffffff;
	/* LID range: [5, 7] holds 7; end 0 means the begin alone. */
	in.lid_begin = 5, in.lid_end = 7;
	assert_true(sa_inform_match(&in, &n));
	in.lid_end = 0;
	assert_false(sa_inform_match(&in, &n));
	/* A GID names the issuer, whatever the range says. */
	in.gid_guid = 0x99;
	assert_true(sa_inform_match(&in, &n));
	in.gid_guid = 0x98;
	assert_false(sa_inform_match(&in, &n));
	/* A notice survives encode and decode. */
	n.details[6] = 0xfe;
	n.toggle_count = 0x8001;
	n.issuer_prefix = 0xfe80000000000000ULL;
	sa_notice_encode(&n, nw);
	assert_int_equal(nw[0], 0x81);
	assert_int_equal(sa_notice_decode(nw, sizeof(nw), &back), 0);
	assert_memory_equal(&back, &n, sizeof(n));
	assert_int_equal(sa_notice_decode(nw, 79, &back), -EPROTO);
}

static void test_inform_set(void **state)
{
	struct fab *f = *state;
	struct sa_events ev = { 0 };
	uint8_t mad[MAD_SIZE];
	struct ans a;
	const ib_inform_info_record_t *r;

	f->src.ev = &ev;
	/* Subscribe from h2 (LID 3); the same Set again is still one subscription. */
	for (int i = 0; i < 2; i++) {
		req(mad, IB_MAD_METHOD_SET, 0x03, 0);
		inform(mad + SA_HDR_SIZE, 65, 1, 1);
		a = ask(&f->src, mad, sizeof(mad), 3, 0);
		assert_int_equal(a.r, 0);
		assert_int_equal(a.status, 0);
		assert_int_equal(hdr(&a)->method, IB_MAD_METHOD_GET_RESP);
		assert_memory_equal(a.out + SA_HDR_SIZE, mad + SA_HDR_SIZE, 36);
		free(a.out);
	}
	assert_int_equal(ev.n_sub, 1);
	assert_int_equal(ev.sub[0].guid, 0x301);
	assert_int_equal(ev.sub[0].lid, 3);
	/* InformInfoRecord lists it, with the subscriber's GID. */
	req(mad, IB_MAD_METHOD_GETTABLE, 0xf3, 0);
	a = ask(&f->src, mad, sizeof(mad), 2, 0);
	assert_int_equal(a.status, 0);
	assert_int_equal(a.len, SA_HDR_SIZE + sizeof(ib_inform_info_record_t));
	r = (const ib_inform_info_record_t *)(a.out + SA_HDR_SIZE);
	assert_int_equal(be64toh(r->subscriber_gid.unicast.interface_id), 0x301);
	assert_int_equal(be16toh(r->inform_info.g_or_v.generic.trap_num), 65);
	free(a.out);
	/* Subscribe values above 1 are invalid; a GID naming no port too. */
	req(mad, IB_MAD_METHOD_SET, 0x03, 0);
	inform(mad + SA_HDR_SIZE, 65, 2, 1);
	a = ask(&f->src, mad, sizeof(mad), 3, 0);
	assert_int_equal(a.status, SA_ST_REQ_INVALID);
	free(a.out);
	inform(mad + SA_HDR_SIZE, 65, 1, 1);
	((ib_inform_info_t *)(mad + SA_HDR_SIZE))->gid.unicast.interface_id = htobe64(0x777);
	a = ask(&f->src, mad, sizeof(mad), 3, 0);
	assert_int_equal(a.status, SA_ST_INVALID_GID);
	free(a.out);
	/* Unsubscribe: once it goes, twice it is refused. */
	for (int i = 0; i < 2; i++) {
		inform(mad + SA_HDR_SIZE, 65, 0, 1);
		a = ask(&f->src, mad, sizeof(mad), 3, 0);
		assert_int_equal(a.status, i ? SA_ST_REQ_INVALID : 0);
		free(a.out);
	}
	assert_int_equal(ev.n_sub, 0);
	/* A port leaving the fabric takes its subscriptions along. */
	inform(mad + SA_HDR_SIZE, 64, 1, 1);
	a = ask(&f->src, mad, sizeof(mad), 3, 0);
	free(a.out);
	assert_int_equal(sa_events_drop_port(&ev, 0x201), 0);
	assert_int_equal(sa_events_drop_port(&ev, 0x301), 1);
	assert_int_equal(ev.n_sub, 0);
	sa_events_free(&ev);
	f->src.ev = NULL;
}

/* A request carrying SM_Key key (IBA 15.2.1.1). */
static void with_key(uint8_t mad[MAD_SIZE], uint64_t key)
{
	((ib_sa_mad_t *)mad)->sm_key = htobe64(key);
}

/*
 * Trust (IBA 15.2.1.1, C15-0.1.5): a wrong SM_Key is discarded unanswered;
 * the right one opens P_KeyTableRecords and the SM_Key in SMInfoRecord,
 * and never comes back in a response.
 */
static void test_trust(void **state)
{
	struct fab *f = *state;
	uint8_t mad[MAD_SIZE];
	struct ans a;
	struct sa_src s = f->src;

	s.sm.sm_key = 0x5eed;
	req(mad, IB_MAD_METHOD_GETTABLE, 0x33, 0);
	with_key(mad, 0x1);
	a = ask(&s, mad, sizeof(mad), 2, 0);
	assert_int_equal(a.r, -EACCES);
	assert_null(a.out);
	with_key(mad, 0);
	a = ask(&s, mad, sizeof(mad), 2, 0);
	assert_int_equal(a.r, 0);
	assert_int_equal(a.status, SA_ST_REQ_INVALID);
	free(a.out);
	with_key(mad, 0x5eed);
	a = ask(&s, mad, sizeof(mad), 2, 0);
	assert_int_equal(a.status, 0);
	assert_true(a.len > SA_HDR_SIZE);
	assert_int_equal(hdr(&a)->sm_key, 0);
	free(a.out);
	/* SMInfoRecord: the SM_Key only to the trusted. */
	req(mad, IB_MAD_METHOD_GETTABLE, 0x18, 0);
	a = ask(&s, mad, sizeof(mad), 2, 0);
	assert_int_equal(a.status, 0);
	assert_int_equal(((const ib_sminfo_record_t *)(a.out + SA_HDR_SIZE))->sm_info.sm_key, 0);
	free(a.out);
	with_key(mad, 0x5eed);
	a = ask(&s, mad, sizeof(mad), 2, 0);
	assert_int_equal(be64toh(((const ib_sminfo_record_t *)(a.out + SA_HDR_SIZE))->sm_info.sm_key),
			 0x5eed);
	free(a.out);
	/* With no SM_Key of ours (0), any key is a wrong one. */
	s.sm.sm_key = 0;
	a = ask(&s, mad, sizeof(mad), 2, 0);
	assert_int_equal(a.r, -EACCES);
}

/*
 * InformInfo as OpenSM keeps it: the QPN is the requester's (an unsubscribe
 * names it), security traps need trust, and a requester may watch only
 * ports it shares a partition with (o13-14.1.1).
 */
static void test_inform_rules(void **state)
{
	struct fab *f = *state;
	struct sa_events ev = { 0 };
	uint8_t mad[MAD_SIZE];
	struct ans a;
	uint32_t off[16] = { 0 }, n = 0, sw0 = subnet_port_idx(f->sn, f->sw, 0);
	uint32_t h1 = subnet_port_idx(f->sn, f->ca1, 1), h2 = subnet_port_idx(f->sn, f->ca2, 1);
	uint16_t key[8];
	struct pkey_plan pl = { .off = off, .key = key };
	struct sa_src s = f->src;
	ib_inform_info_t *ii = (ib_inform_info_t *)(mad + SA_HDR_SIZE);

	/* h1 and h2 share no partition; the switch (the SM's) is in both. */
	for (uint32_t p = 0; p < f->sn->n_ports; p++) {
		off[p] = n;
		if (p == sw0) {
			key[n++] = 0xffff;
			key[n++] = 0x8001;
			key[n++] = 0x8002;
		} else if (p == h1) {
			key[n++] = 0xffff;
			key[n++] = 0x8001;
		} else if (p == h2) {
			key[n++] = 0x8002;
		}
	}
	off[f->sn->n_ports] = n;
	s.pkeys = &pl;
	s.ev = &ev;
	s.sm.sm_key = 0x5eed;
	/* QPN 0 in the Set, QP 1 the sender's: kept as 1; unsubscribing with 1 finds it. */
	req(mad, IB_MAD_METHOD_SET, 0x03, 0);
	inform(mad + SA_HDR_SIZE, 128, 1, 0);
	a = ask(&s, mad, sizeof(mad), 2, 0);
	assert_int_equal(a.status, 0);
	free(a.out);
	assert_int_equal(ev.n_sub, 1);
	assert_int_equal(ev.sub[0].inf.qpn, 1);
	assert_int_equal(be32toh(((const ib_inform_info_t *)ev.sub[0].wire)->g_or_v.generic
					 .qpn_resp_time_val) >> 8, 1);
	inform(mad + SA_HDR_SIZE, 128, 0, 1);
	a = ask(&s, mad, sizeof(mad), 2, 0);
	assert_int_equal(a.status, 0);
	free(a.out);
	assert_int_equal(ev.n_sub, 0);
	/* Security traps (256-259): refused untrusted, taken trusted. */
	inform(mad + SA_HDR_SIZE, 257, 1, 1);
	a = ask(&s, mad, sizeof(mad), 2, 0);
	assert_int_equal(a.status, SA_ST_REQ_INVALID);
	free(a.out);
	with_key(mad, 0x5eed);
	a = ask(&s, mad, sizeof(mad), 2, 0);
	assert_int_equal(a.status, 0);
	free(a.out);
	with_key(mad, 0);
	assert_int_equal(ev.n_sub, 1);
	/* h1 may not watch h2 (by GID, or by a LID range holding LID 3), but every LID (0xFFFF). */
	inform(mad + SA_HDR_SIZE, 128, 1, 1);
	ii->gid.unicast.prefix = htobe64(0xfe80000000000000ULL);
	ii->gid.unicast.interface_id = htobe64(0x301);
	a = ask(&s, mad, sizeof(mad), 2, 0);
	assert_int_equal(a.status, SA_ST_REQ_INVALID);
	free(a.out);
	inform(mad + SA_HDR_SIZE, 128, 1, 1);
	ii->lid_range_begin = htobe16(1);
	ii->lid_range_end = htobe16(3);
	a = ask(&s, mad, sizeof(mad), 2, 0);
	assert_int_equal(a.status, SA_ST_REQ_INVALID);
	free(a.out);
	ii->lid_range_end = htobe16(2); /* the switch and itself: fine */
	a = ask(&s, mad, sizeof(mad), 2, 0);
	assert_int_equal(a.status, 0);
	free(a.out);
	ii->lid_range_begin = htobe16(500); /* past every LID in use */
	ii->lid_range_end = 0;
	a = ask(&s, mad, sizeof(mad), 2, 0);
	assert_int_equal(a.status, SA_ST_REQ_INVALID);
	free(a.out);
	inform(mad + SA_HDR_SIZE, 128, 1, 1);
	a = ask(&s, mad, sizeof(mad), 2, 0);
	assert_int_equal(a.status, 0);
	free(a.out);
	assert_int_equal(ev.n_sub, 3);
	sa_events_free(&ev);
}

/* The GUID index: each end port with a LID by the GUID records name it by, nothing else. */
static void test_guid_index(void **state)
{
	struct fab *f = *state;
	uint32_t sw0 = subnet_port_idx(f->sn, f->sw, 0), h1 = subnet_port_idx(f->sn, f->ca1, 1),
		 h2 = subnet_port_idx(f->sn, f->ca2, 1);
	unsigned found = 0;

	for (uint32_t pi = 0; pi < f->sn->n_ports; pi++) {
		if (!sa_lid_endport(&f->src, pi))
			continue;
		assert_int_equal(sa_port_of_guid(&f->src, sa_port_guid(&f->src, pi)), pi);
		found++;
	}
	assert_int_equal(found, 3);
	/* A switch by its port 0's GUID, which all its ports share. */
	assert_int_equal(sa_port_of_guid(&f->src, 0x100), sw0);
	assert_int_equal(sa_port_guid(&f->src, subnet_port_idx(f->sn, f->sw, 3)), 0x100);
	assert_int_equal(sa_port_of_guid(&f->src, 0x201), h1);
	assert_int_equal(sa_port_of_guid(&f->src, 0x301), h2);
	/* Unknown: a NodeGUID of a CA, a GUID nobody has, 0. */
	assert_int_equal(sa_port_of_guid(&f->src, 0x200), SUBNET_NONE);
	assert_int_equal(sa_port_of_guid(&f->src, 0x999), SUBNET_NONE);
	assert_int_equal(sa_port_of_guid(&f->src, 0), SUBNET_NONE);
	/* A port without a LID is no end port to find. */
	f->sn->port[h2].lid = 0;
	assert_int_equal(sa_src_index(&f->src), 0);
	assert_int_equal(sa_port_of_guid(&f->src, 0x301), SUBNET_NONE);
	/* Two ports with one GUID: the first in model order that has a LID. */
	f->sn->port[h2].lid = 3;
	f->sn->port[h2].guid = 0x201;
	assert_int_equal(sa_src_index(&f->src), 0);
	assert_int_equal(sa_port_of_guid(&f->src, 0x201), h1);
	f->sn->port[h1].lid = 0;
	assert_int_equal(sa_src_index(&f->src), 0);
	assert_int_equal(sa_port_of_guid(&f->src, 0x201), h2);
	/* No model: nothing indexed, nothing found. */
	f->src.sn = NULL;
	assert_int_equal(sa_src_index(&f->src), 0);
	assert_int_equal(sa_port_of_guid(&f->src, 0x100), SUBNET_NONE);
	f->src.sn = f->sn;
}

static unsigned nrecs(const struct ans *a, size_t size)
{
	return (unsigned)((a->len - SA_HDR_SIZE) / size);
}

/* The LID index: which ports a query by LID looks at, and the same answers as a walk. */
static void test_lid_index(void **state)
{
	struct fab *f = *state;
	uint32_t first, end, sw0 = subnet_port_idx(f->sn, f->sw, 0),
			     h1 = subnet_port_idx(f->sn, f->ca1, 1),
			     h2 = subnet_port_idx(f->sn, f->ca2, 1);
	uint8_t mad[MAD_SIZE];
	struct ans a;

	assert_false(f->src.lid_ambiguous);
	sa_lid_ports(&f->src, false, 2, &first, &end);
	assert_int_equal(first, 0);
	assert_int_equal(end, f->sn->n_ports);
	/* A switch's LID names all its ports (port 0 to 4), a CA's its own node only. */
	sa_lid_ports(&f->src, true, 1, &first, &end);
	assert_int_equal(first, sw0);
	assert_int_equal(end, sw0 + 5);
	sa_lid_ports(&f->src, true, 3, &first, &end);
	assert_int_equal(first, h2 - 1);
	assert_int_equal(end, h2 + 1);
	/* Nobody's: LID 0, a free LID, a multicast LID. */
	for (unsigned i = 0; i < 3; i++) {
		sa_lid_ports(&f->src, true, (const uint16_t[]){ 0, 4, 0xc000 }[i], &first, &end);
		assert_int_equal(end, first);
	}
	/* PortInfoRecords by the switch's LID: every port of it. */
	req(mad, IB_MAD_METHOD_GETTABLE, 0x12, 1);
	set16(mad, 0, 1);
	a = ask(&f->src, mad, sizeof(mad), 2, 0);
	assert_int_equal(a.status, 0);
	assert_int_equal(nrecs(&a, sizeof(ib_portinfo_record_t)), 5);
	free(a.out);
	/* LMC 1: LID 5 is h1's second LID; its NodeRecord names the base. */
	f->sn->port[h1].lid = 4;
	f->sn->port[h1].lmc = 1;
	assert_int_equal(sa_src_index(&f->src), 0);
	sa_lid_ports(&f->src, true, 5, &first, &end);
	assert_int_equal(first, h1 - 1);
	req(mad, IB_MAD_METHOD_GET, 0x11, 1);
	set16(mad, 0, 5);
	a = ask(&f->src, mad, sizeof(mad), 4, 0);
	assert_int_equal(a.status, 0);
	assert_int_equal(be16toh(((const ib_node_record_t *)(a.out + SA_HDR_SIZE))->lid), 4);
	free(a.out);
	/* Two ports claim LID 5: the index cannot tell; every port is looked at, both answer. */
	f->sn->port[h2].lid = 5;
	assert_int_equal(sa_src_index(&f->src), 0);
	assert_true(f->src.lid_ambiguous);
	sa_lid_ports(&f->src, true, 5, &first, &end);
	assert_int_equal(first, 0);
	assert_int_equal(end, f->sn->n_ports);
	a = ask(&f->src, mad, sizeof(mad), 4, 0);
	assert_int_equal(a.status, SA_ST_TOO_MANY_RECORDS);
	free(a.out);
	mad[3] = IB_MAD_METHOD_GETTABLE;
	a = ask(&f->src, mad, sizeof(mad), 4, 0);
	assert_int_equal(a.status, 0);
	assert_int_equal(nrecs(&a, sizeof(ib_node_record_t)), 2);
	free(a.out);
	/* A LID range past the unicast LIDs: looked for by walking too. */
	f->sn->port[h2].lid = 0xbfff;
	f->sn->port[h2].lmc = 1;
	assert_int_equal(sa_src_index(&f->src), 0);
	assert_true(f->src.lid_ambiguous);
	assert_int_equal(f->src.max_lid, 0xbfff);
	sa_src_free(&f->src);
	assert_false(f->src.lid_ambiguous);
	assert_null(f->src.by_lid);
}

/* An MCMemberRecord Set or Delete from h1 (LID 2): MGID, h1's PortGID, JoinState, and the create components. */
static void mcm_req(uint8_t mad[MAD_SIZE], uint8_t method, const uint8_t mgid[16], uint8_t js)
{
	ib_member_rec_t *r = (ib_member_rec_t *)(mad + SA_HDR_SIZE);

	/* MGID, PortGID, Q_Key, TClass, P_Key, SL, FlowLabel, JoinState */
	req(mad, method, 0x38, 1 | 2 | 4 | 1 << 6 | 1 << 7 | 1 << 12 | 1 << 13 | 1 << 16);
	memcpy(r->mgid.raw, mgid, 16);
	r->port_gid.unicast.prefix = htobe64(0xfe80000000000000ULL);
	r->port_gid.unicast.interface_id = htobe64(0x201);
	r->qkey = htobe32(0x11);
	r->pkey = htobe16(0xffff);
	r->scope_state = (uint8_t)(0x20 | js);
}

/*
 * MCMemberRecord as OpenSM's osmtest -f m checks it: malformed MGIDs and
 * rate/MTU codes refused (o15-0.1.6, o15-0.1.8), a send-only full member
 * creates (o15-0.1.9), a partial leave must name only bits the port holds
 * and is answered with what it keeps (o15-0.1.14).
 */
static void test_mcm_rules(void **state)
{
	struct fab *f = *state;
	struct sa_src s = f->src;
	struct mcast *mc = NULL;
	uint8_t mad[MAD_SIZE], mgid[16] = { 0xff, 0x12, 0xa0, 0x1c, [15] = 1 };
	ib_member_rec_t *r = (ib_member_rec_t *)(mad + SA_HDR_SIZE);
	ib_port_info_t pi;
	struct ans a;

	/* h1's and h2's links: 4x, 2048-byte MTU, so that a group fits them. */
	for (uint32_t n = f->ca1; n <= f->ca2; n++) {
		uint32_t p = subnet_port_idx(f->sn, n, 1);

		memcpy(&pi, f->live.port[p].raw, sizeof(pi));
		pi.mtu_cap = 4;
		ib_port_info_set_neighbor_mtu(&pi, 4);
		pi.link_width_active = IB_LINK_WIDTH_ACTIVE_4X;
		pi.link_speed = (uint8_t)(1 << IB_PORT_LINK_SPEED_SHIFT | 1);
		memcpy(f->live.port[p].raw, &pi, sizeof(pi));
	}
	assert_int_equal(mcast_new(&mc), 0);
	s.mcast = mc;
	/* Malformed MGIDs: not 0xff; a reserved flag; SA-style signature, link-local scope. */
	{
		static const uint8_t bad[][4] = { { 0xfa, 0x12, 0xa0, 0x1c },
						  { 0xff, 0x32, 0xa0, 0x1c },
						  { 0xff, 0x12, 0xa0, 0x1b } };

		for (unsigned i = 0; i < 3; i++) {
			uint8_t m[16] = { [15] = 7 };

			memcpy(m, bad[i], 4);
			mcm_req(mad, IB_MAD_METHOD_SET, m, MCAST_FULL);
			a = ask(&s, mad, sizeof(mad), 2, 0);
			assert_int_equal(a.status, SA_ST_REQ_INVALID);
			free(a.out);
		}
	}
	/* A rate or MTU code that does not exist, with its selector. */
	mcm_req(mad, IB_MAD_METHOD_SET, mgid, MCAST_FULL);
	((ib_sa_mad_t *)mad)->comp_mask |= htobe64(1 << 8 | 1 << 9);
	r->rate = 2 << 6 | 0x3f;
	a = ask(&s, mad, sizeof(mad), 2, 0);
	assert_int_equal(a.status, SA_ST_REQ_INVALID);
	free(a.out);
	mcm_req(mad, IB_MAD_METHOD_SET, mgid, MCAST_FULL);
	((ib_sa_mad_t *)mad)->comp_mask |= htobe64(1 << 4 | 1 << 5);
	r->mtu = 2 << 6 | 7;
	a = ask(&s, mad, sizeof(mad), 2, 0);
	assert_int_equal(a.status, SA_ST_REQ_INVALID);
	free(a.out);
	/* A send-only full member creates; a non-member does not. */
	mcm_req(mad, IB_MAD_METHOD_SET, mgid, MCAST_NON);
	a = ask(&s, mad, sizeof(mad), 2, 0);
	assert_int_equal(a.status, SA_ST_REQ_INVALID);
	free(a.out);
	mcm_req(mad, IB_MAD_METHOD_SET, mgid, MCAST_SENDONLY_FULL);
	a = ask(&s, mad, sizeof(mad), 2, 0);
	assert_int_equal(a.status, 0);
	free(a.out);
	assert_int_equal(mc->n, 1);
	/* Full and non-member; then leave 0x6 (0x4 not held): refused; leave 0x2: keeps 0x1. */
	mcm_req(mad, IB_MAD_METHOD_SET, mgid, MCAST_FULL | MCAST_NON);
	a = ask(&s, mad, sizeof(mad), 2, 0);
	assert_int_equal(a.status, 0);
	free(a.out);
	mcm_req(mad, IB_MAD_METHOD_DELETE, mgid, MCAST_NON | MCAST_SENDONLY);
	a = ask(&s, mad, sizeof(mad), 2, 0);
	assert_int_equal(a.status, SA_ST_REQ_INVALID);
	free(a.out);
	mcm_req(mad, IB_MAD_METHOD_DELETE, mgid, MCAST_NON);
	a = ask(&s, mad, sizeof(mad), 2, 0);
	assert_int_equal(a.status, 0);
	assert_int_equal(((const ib_member_rec_t *)(a.out + SA_HDR_SIZE))->scope_state & 0xf,
			 MCAST_FULL | MCAST_SENDONLY_FULL);
	free(a.out);
	mcast_free(mc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_gettable_nodes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_get_statuses, setup, teardown),
		cmocka_unit_test_setup_teardown(test_masks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_requests, setup, teardown),
		cmocka_unit_test_setup_teardown(test_access, setup, teardown),
		cmocka_unit_test(test_match_bits),
		cmocka_unit_test(test_inform_decode_match),
		cmocka_unit_test_setup_teardown(test_inform_set, setup, teardown),
		cmocka_unit_test_setup_teardown(test_trust, setup, teardown),
		cmocka_unit_test_setup_teardown(test_inform_rules, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mcm_rules, setup, teardown),
		cmocka_unit_test_setup_teardown(test_guid_index, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lid_index, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
