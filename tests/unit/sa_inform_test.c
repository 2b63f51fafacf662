/* SPDX-License-Identifier: MIT */
/*
 * InformInfo and InformInfoRecord (sa/sa_rec_inform.c) on the star fabric
 * (sa_fixture.h): decoding a subscription and matching notices against it,
 * a notice through encode and decode, subscribing and unsubscribing, and
 * the rules OpenSM keeps (the requester's QPN, trusted security traps,
 * watching only ports a partition is shared with).
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

#include "tests/unit/sa_fixture.h"

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
	struct sa_fab *f = *state;
	struct sa_events ev = { 0 };
	uint8_t mad[MAD_SIZE];
	struct sa_ans a;
	const ib_inform_info_record_t *r;

	f->src.ev = &ev;
	/* Subscribe from h2 (LID 3); the same Set again is still one subscription. */
	for (int i = 0; i < 2; i++) {
		sa_fix_req(mad, IB_MAD_METHOD_SET, 0x03, 0);
		inform(mad + SA_HDR_SIZE, 65, 1, 1);
		a = sa_fix_ask(&f->src, mad, sizeof(mad), 3, 0);
		assert_int_equal(a.r, 0);
		assert_int_equal(a.status, 0);
		assert_int_equal(sa_fix_hdr(&a)->method, IB_MAD_METHOD_GET_RESP);
		assert_memory_equal(a.out + SA_HDR_SIZE, mad + SA_HDR_SIZE, 36);
		free(a.out);
	}
	assert_int_equal(ev.n_sub, 1);
	assert_int_equal(ev.sub[0].guid, 0x301);
	assert_int_equal(ev.sub[0].lid, 3);
	/* InformInfoRecord lists it, with the subscriber's GID. */
	sa_fix_req(mad, IB_MAD_METHOD_GETTABLE, 0xf3, 0);
	a = sa_fix_ask(&f->src, mad, sizeof(mad), 2, 0);
	assert_int_equal(a.status, 0);
	assert_int_equal(a.len, SA_HDR_SIZE + sizeof(ib_inform_info_record_t));
	r = (const ib_inform_info_record_t *)(a.out + SA_HDR_SIZE);
	assert_int_equal(be64toh(r->subscriber_gid.unicast.interface_id), 0x301);
	assert_int_equal(be16toh(r->inform_info.g_or_v.generic.trap_num), 65);
	free(a.out);
	/* Subscribe values above 1 are invalid; a GID naming no port too. */
	sa_fix_req(mad, IB_MAD_METHOD_SET, 0x03, 0);
	inform(mad + SA_HDR_SIZE, 65, 2, 1);
	a = sa_fix_ask(&f->src, mad, sizeof(mad), 3, 0);
	assert_int_equal(a.status, SA_ST_REQ_INVALID);
	free(a.out);
	inform(mad + SA_HDR_SIZE, 65, 1, 1);
	((ib_inform_info_t *)(mad + SA_HDR_SIZE))->gid.unicast.interface_id = htobe64(0x777);
	a = sa_fix_ask(&f->src, mad, sizeof(mad), 3, 0);
	assert_int_equal(a.status, SA_ST_INVALID_GID);
	free(a.out);
	/* Unsubscribe: once it goes, twice it is refused. */
	for (int i = 0; i < 2; i++) {
		inform(mad + SA_HDR_SIZE, 65, 0, 1);
		a = sa_fix_ask(&f->src, mad, sizeof(mad), 3, 0);
		assert_int_equal(a.status, i ? SA_ST_REQ_INVALID : 0);
		free(a.out);
	}
	assert_int_equal(ev.n_sub, 0);
	/* A port leaving the fabric takes its subscriptions along. */
	inform(mad + SA_HDR_SIZE, 64, 1, 1);
	a = sa_fix_ask(&f->src, mad, sizeof(mad), 3, 0);
	free(a.out);
	assert_int_equal(sa_events_drop_port(&ev, 0x201), 0);
	assert_int_equal(sa_events_drop_port(&ev, 0x301), 1);
	assert_int_equal(ev.n_sub, 0);
	sa_events_free(&ev);
	f->src.ev = NULL;
}


/*
 * InformInfo as OpenSM keeps it: the QPN is the requester's (an unsubscribe
 * names it), security traps need trust, and a requester may watch only
 * ports it shares a partition with (o13-14.1.1).
 */
static void test_inform_rules(void **state)
{
	struct sa_fab *f = *state;
	struct sa_events ev = { 0 };
	uint8_t mad[MAD_SIZE];
	struct sa_ans a;
	struct sa_src s = f->src;
	ib_inform_info_t *ii = (ib_inform_info_t *)(mad + SA_HDR_SIZE);
	/* h1 and h2 share no partition; the switch (the SM's) is in both. */
	const struct sa_fix_pkeys pk[] = {
		{ sa_fix_port(f, f->sw1, 0), { 0xffff, 0x8001, 0x8002 } },
		{ sa_fix_port(f, f->h1, 1), { 0xffff, 0x8001 } },
		{ sa_fix_port(f, f->h2, 1), { 0x8002 } },
	};

	sa_fix_partitions(f, &s, pk, 3);
	s.ev = &ev;
	s.sm.sm_key = 0x5eed;
	/* QPN 0 in the Set, QP 1 the sender's: kept as 1; unsubscribing with 1 finds it. */
	sa_fix_req(mad, IB_MAD_METHOD_SET, 0x03, 0);
	inform(mad + SA_HDR_SIZE, 128, 1, 0);
	a = sa_fix_ask(&s, mad, sizeof(mad), 2, 0);
	assert_int_equal(a.status, 0);
	free(a.out);
	assert_int_equal(ev.n_sub, 1);
	assert_int_equal(ev.sub[0].inf.qpn, 1);
	assert_int_equal(be32toh(((const ib_inform_info_t *)ev.sub[0].wire)->g_or_v.generic
					 .qpn_resp_time_val) >> 8, 1);
	inform(mad + SA_HDR_SIZE, 128, 0, 1);
	a = sa_fix_ask(&s, mad, sizeof(mad), 2, 0);
	assert_int_equal(a.status, 0);
	free(a.out);
	assert_int_equal(ev.n_sub, 0);
	/* Security traps (256-259): refused untrusted, taken trusted. */
	inform(mad + SA_HDR_SIZE, 257, 1, 1);
	a = sa_fix_ask(&s, mad, sizeof(mad), 2, 0);
	assert_int_equal(a.status, SA_ST_REQ_INVALID);
	free(a.out);
	sa_fix_key(mad, 0x5eed);
	a = sa_fix_ask(&s, mad, sizeof(mad), 2, 0);
	assert_int_equal(a.status, 0);
	free(a.out);
	sa_fix_key(mad, 0);
	assert_int_equal(ev.n_sub, 1);
	/* h1 may not watch h2 (by GID, or by a LID range holding LID 3), but every LID (0xFFFF). */
	inform(mad + SA_HDR_SIZE, 128, 1, 1);
	ii->gid.unicast.prefix = htobe64(0xfe80000000000000ULL);
	ii->gid.unicast.interface_id = htobe64(0x301);
	a = sa_fix_ask(&s, mad, sizeof(mad), 2, 0);
	assert_int_equal(a.status, SA_ST_REQ_INVALID);
	free(a.out);
	inform(mad + SA_HDR_SIZE, 128, 1, 1);
	ii->lid_range_begin = htobe16(1);
	ii->lid_range_end = htobe16(3);
	a = sa_fix_ask(&s, mad, sizeof(mad), 2, 0);
	assert_int_equal(a.status, SA_ST_REQ_INVALID);
	free(a.out);
	ii->lid_range_end = htobe16(2); /* the switch and itself: fine */
	a = sa_fix_ask(&s, mad, sizeof(mad), 2, 0);
	assert_int_equal(a.status, 0);
	free(a.out);
	ii->lid_range_begin = htobe16(500); /* past every LID in use */
	ii->lid_range_end = 0;
	a = sa_fix_ask(&s, mad, sizeof(mad), 2, 0);
	assert_int_equal(a.status, SA_ST_REQ_INVALID);
	free(a.out);
	inform(mad + SA_HDR_SIZE, 128, 1, 1);
	a = sa_fix_ask(&s, mad, sizeof(mad), 2, 0);
	assert_int_equal(a.status, 0);
	free(a.out);
	assert_int_equal(ev.n_sub, 3);
	sa_events_free(&ev);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_inform_decode_match),
		cmocka_unit_test_setup_teardown(test_inform_set, sa_fix_star, sa_fix_teardown),
		cmocka_unit_test_setup_teardown(test_inform_rules, sa_fix_star, sa_fix_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
