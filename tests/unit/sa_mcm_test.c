/* SPDX-License-Identifier: MIT */
/*
 * MCMemberRecord (sa/sa_rec_mcm.c) on the star fabric (sa_fixture.h), as
 * OpenSM's osmtest -f m checks it: malformed MGIDs and rate or MTU codes
 * refused, who may create a group, and partial leaves.
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

/* An MCMemberRecord Set or Delete from h1 (LID 2): MGID, h1's PortGID, JoinState, and the create components. */
static void mcm_req(uint8_t mad[MAD_SIZE], uint8_t method, const uint8_t mgid[16], uint8_t js)
{
	ib_member_rec_t *r = (ib_member_rec_t *)(mad + SA_HDR_SIZE);

	/* MGID, PortGID, Q_Key, TClass, P_Key, SL, FlowLabel, JoinState */
	sa_fix_req(mad, method, 0x38, 1 | 2 | 4 | 1 << 6 | 1 << 7 | 1 << 12 | 1 << 13 | 1 << 16);
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
	struct sa_fab *f = *state;
	struct sa_src s = f->src;
	struct mcast *mc = NULL;
	uint8_t mad[MAD_SIZE], mgid[16] = { 0xff, 0x12, 0xa0, 0x1c, [15] = 1 };
	ib_member_rec_t *r = (ib_member_rec_t *)(mad + SA_HDR_SIZE);
	ib_port_info_t pi;
	struct sa_ans a;

	/* h1's and h2's links: 4x, 2048-byte MTU, so that a group fits them. */
	for (uint32_t n = f->h1; n <= f->h2; n++) {
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
			a = sa_fix_ask(&s, mad, sizeof(mad), 2, 0);
			assert_int_equal(a.status, SA_ST_REQ_INVALID);
			free(a.out);
		}
	}
	/* A rate or MTU code that does not exist, with its selector. */
	mcm_req(mad, IB_MAD_METHOD_SET, mgid, MCAST_FULL);
	((ib_sa_mad_t *)mad)->comp_mask |= htobe64(1 << 8 | 1 << 9);
	r->rate = 2 << 6 | 0x3f;
	a = sa_fix_ask(&s, mad, sizeof(mad), 2, 0);
	assert_int_equal(a.status, SA_ST_REQ_INVALID);
	free(a.out);
	mcm_req(mad, IB_MAD_METHOD_SET, mgid, MCAST_FULL);
	((ib_sa_mad_t *)mad)->comp_mask |= htobe64(1 << 4 | 1 << 5);
	r->mtu = 2 << 6 | 7;
	a = sa_fix_ask(&s, mad, sizeof(mad), 2, 0);
	assert_int_equal(a.status, SA_ST_REQ_INVALID);
	free(a.out);
	/* A send-only full member creates; a non-member does not. */
	mcm_req(mad, IB_MAD_METHOD_SET, mgid, MCAST_NON);
	a = sa_fix_ask(&s, mad, sizeof(mad), 2, 0);
	assert_int_equal(a.status, SA_ST_REQ_INVALID);
	free(a.out);
	mcm_req(mad, IB_MAD_METHOD_SET, mgid, MCAST_SENDONLY_FULL);
	a = sa_fix_ask(&s, mad, sizeof(mad), 2, 0);
	assert_int_equal(a.status, 0);
	free(a.out);
	assert_int_equal(mc->n, 1);
	/* Full and non-member; then leave 0x6 (0x4 not held): refused; leave 0x2: keeps 0x1. */
	mcm_req(mad, IB_MAD_METHOD_SET, mgid, MCAST_FULL | MCAST_NON);
	a = sa_fix_ask(&s, mad, sizeof(mad), 2, 0);
	assert_int_equal(a.status, 0);
	free(a.out);
	mcm_req(mad, IB_MAD_METHOD_DELETE, mgid, MCAST_NON | MCAST_SENDONLY);
	a = sa_fix_ask(&s, mad, sizeof(mad), 2, 0);
	assert_int_equal(a.status, SA_ST_REQ_INVALID);
	free(a.out);
	mcm_req(mad, IB_MAD_METHOD_DELETE, mgid, MCAST_NON);
	a = sa_fix_ask(&s, mad, sizeof(mad), 2, 0);
	assert_int_equal(a.status, 0);
	assert_int_equal(((const ib_member_rec_t *)(a.out + SA_HDR_SIZE))->scope_state & 0xf,
			 MCAST_FULL | MCAST_SENDONLY_FULL);
	free(a.out);
	mcast_free(mc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_mcm_rules, sa_fix_star, sa_fix_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
