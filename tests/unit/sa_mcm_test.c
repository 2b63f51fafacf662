/* SPDX-License-Identifier: MIT */
/*
 * MCMemberRecord (sa/sa_rec_mcm.c) on the star fabric (sa_fixture.h:
 * sa_fix_mcm), one test a rule of IBA 15.2.5.17 as OpenSM's osmtest -f m
 * checks them: which MGIDs and rate or MTU codes are refused, who may
 * create a group and what keeps it, leaves, the PortGID's subnet, what a
 * join to an existing group must match, selectors, and what lists show to
 * requesters without the SM_Key.
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

/* IBA 15.2.5.17 component-mask bits, host order. */
enum {
	M_MGID = 1 << 0, M_PORT_GID = 1 << 1, M_QKEY = 1 << 2, M_MLID = 1 << 3,
	M_MTU_SEL = 1 << 4, M_MTU = 1 << 5, M_TCLASS = 1 << 6, M_PKEY = 1 << 7,
	M_RATE_SEL = 1 << 8, M_RATE = 1 << 9, M_LIFE_SEL = 1 << 10, M_LIFE = 1 << 11,
	M_SL = 1 << 12, M_FLOW = 1 << 13, M_HOP = 1 << 14, M_SCOPE = 1 << 15, M_JOIN = 1 << 16,
};
/* What a create needs (IBA 15.2.5.17.1, o15-0.1.4), JoinState included. */
#define M_CREATE (M_MGID | M_PORT_GID | M_QKEY | M_TCLASS | M_PKEY | M_SL | M_FLOW | M_JOIN)

/* Selectors (IBA 15.2.5.17, as PathRecord's): in the top two bits of MTU, rate, lifetime. */
enum { SEL_GT = 0, SEL_LT = 1, SEL_EQ = 2, SEL_BEST = 3 };

/* The star's hosts: h1 (LID 2, PortGUID 0x201) and h2 (LID 3, 0x301). */
#define H1 0x201
#define H2 0x301
static uint16_t lid_of(uint64_t guid)
{
	return guid == H1 ? 2 : 3;
}

static const uint8_t mgid_a[16] = { 0xff, 0x12, 0xa0, 0x1c, [15] = 1 };

/*
 * An MCMemberRecord request from port guid about mgid with JoinState js,
 * the create components (Q_Key 0x11, the default P_Key, SL, FlowLabel,
 * TClass 0) in the mask, and mask more.
 */
static ib_member_rec_t *mcm_req(uint8_t mad[MAD_SIZE], uint8_t method, const uint8_t mgid[16],
				uint64_t guid, uint8_t js, uint64_t more)
{
	ib_member_rec_t *r = sa_fix_req(mad, method, 0x38, M_CREATE | more);

	memcpy(r->mgid.raw, mgid, 16);
	r->port_gid.unicast.prefix = htobe64(SFX_PREFIX);
	r->port_gid.unicast.interface_id = htobe64(guid);
	r->qkey = htobe32(0x11);
	r->pkey = htobe16(0xffff);
	r->scope_state = (uint8_t)(0x20 | js);
	return r;
}

/* The mask of a request built by mcm_req, changed. */
static void mcm_mask(uint8_t mad[MAD_SIZE], uint64_t mask)
{
	((ib_sa_mad_t *)mad)->comp_mask = htobe64(mask);
}

/* Send the request from port guid: its status; the answer's record in *out if out. */
static uint16_t mcm_ask(const struct sa_fab *f, const uint8_t *mad, uint64_t guid,
			ib_member_rec_t *out)
{
	struct sa_ans a = sa_fix_ask(&f->src, mad, MAD_SIZE, lid_of(guid), 0);
	uint16_t st = a.status;

	assert_int_equal(a.r, 0);
	if (out && !st)
		memcpy(out, sa_fix_rec(&a, sizeof(*out), 0), sizeof(*out));
	free(a.out);
	return st;
}

/* Port guid joins mgid (creating it if new) with JoinState js: must succeed. */
static void mcm_join(struct sa_fab *f, const uint8_t mgid[16], uint64_t guid, uint8_t js)
{
	uint8_t mad[MAD_SIZE];

	mcm_req(mad, IB_MAD_METHOD_SET, mgid, guid, js, 0);
	assert_int_equal(mcm_ask(f, mad, guid, NULL), SA_ST_OK);
}

/* The member record of guid in mgid's group, or NULL. */
static const struct mcast_member *mcm_member(const struct sa_fab *f, const uint8_t mgid[16],
					     uint64_t guid)
{
	const struct mcast_group *g = mcast_find(f->mc, mgid);

	return g ? mcast_member(g, guid) : NULL;
}

/* o15-0.1.6: a new group's MGID starts 0xff, no reserved flag, no SA signature link-local. */
static void test_mcm_malformed_mgid_refused(void **state)
{
	struct sa_fab *f = *state;
	static const uint8_t bad[][4] = { { 0xfa, 0x12, 0xa0, 0x1c },
					  { 0xff, 0x32, 0xa0, 0x1c },
					  { 0xff, 0x12, 0xa0, 0x1b } };
	uint8_t mad[MAD_SIZE];

	for (unsigned i = 0; i < 3; i++) {
		uint8_t m[16] = { [15] = 7 };

		memcpy(m, bad[i], 4);
		mcm_req(mad, IB_MAD_METHOD_SET, m, H1, MCAST_FULL, 0);
		assert_int_equal(mcm_ask(f, mad, H1, NULL), SA_ST_REQ_INVALID);
	}
	assert_int_equal(f->mc->n, 0);
	mcm_join(f, mgid_a, H1, MCAST_FULL); /* and a well-formed one is taken */
	assert_int_equal(f->mc->n, 1);
}

/* o15-0.1.8: a rate or MTU code that does not exist, given with its selector. */
static void test_mcm_bad_rate_mtu_code_refused(void **state)
{
	struct sa_fab *f = *state;
	uint8_t mad[MAD_SIZE];
	ib_member_rec_t *r;

	r = mcm_req(mad, IB_MAD_METHOD_SET, mgid_a, H1, MCAST_FULL, M_RATE_SEL | M_RATE);
	r->rate = SEL_EQ << 6 | 0x3f;
	assert_int_equal(mcm_ask(f, mad, H1, NULL), SA_ST_REQ_INVALID);
	r = mcm_req(mad, IB_MAD_METHOD_SET, mgid_a, H1, MCAST_FULL, M_MTU_SEL | M_MTU);
	r->mtu = SEL_EQ << 6 | 7;
	assert_int_equal(mcm_ask(f, mad, H1, NULL), SA_ST_REQ_INVALID);
	assert_int_equal(f->mc->n, 0);
}

/* o15-0.1.9: a full or send-only full member creates a group; a non-member does not. */
static void test_mcm_only_full_member_creates(void **state)
{
	struct sa_fab *f = *state;
	uint8_t mad[MAD_SIZE];

	mcm_req(mad, IB_MAD_METHOD_SET, mgid_a, H1, MCAST_NON, 0);
	assert_int_equal(mcm_ask(f, mad, H1, NULL), SA_ST_REQ_INVALID);
	mcm_req(mad, IB_MAD_METHOD_SET, mgid_a, H1, MCAST_SENDONLY, 0);
	assert_int_equal(mcm_ask(f, mad, H1, NULL), SA_ST_REQ_INVALID);
	assert_int_equal(f->mc->n, 0);
	mcm_join(f, mgid_a, H1, MCAST_SENDONLY_FULL);
	assert_int_equal(f->mc->n, 1);
}

/* o15-0.1.14: a leave names only bits the port holds, and is answered with what it keeps. */
static void test_mcm_partial_leave_keeps_rest(void **state)
{
	struct sa_fab *f = *state;
	uint8_t mad[MAD_SIZE];
	ib_member_rec_t r;

	mcm_join(f, mgid_a, H1, MCAST_FULL | MCAST_NON);
	mcm_req(mad, IB_MAD_METHOD_DELETE, mgid_a, H1, MCAST_NON | MCAST_SENDONLY, 0);
	assert_int_equal(mcm_ask(f, mad, H1, NULL), SA_ST_REQ_INVALID);
	mcm_req(mad, IB_MAD_METHOD_DELETE, mgid_a, H1, MCAST_NON, 0);
	assert_int_equal(mcm_ask(f, mad, H1, &r), SA_ST_OK);
	assert_int_equal(r.scope_state & 0xf, MCAST_FULL);
	assert_int_equal(mcm_member(f, mgid_a, H1)->state, MCAST_FULL);
}

/*
 * IBA 15.2.5.17.1: a group lives while it has a full member, and a
 * send-only full member is one: it keeps the group when every other
 * member leaves, whether it created the group or joined it later.
 */
static void test_mcm_sendonly_full_keeps_group(void **state)
{
	struct sa_fab *f = *state;
	static const uint8_t mgid_b[16] = { 0xff, 0x12, 0xa0, 0x1c, [15] = 2 };
	uint8_t mad[MAD_SIZE];

	/* h1 creates as a send-only full member; h2 joins and leaves as a non-member. */
	mcm_join(f, mgid_a, H1, MCAST_SENDONLY_FULL);
	mcm_join(f, mgid_a, H2, MCAST_NON);
	mcm_req(mad, IB_MAD_METHOD_DELETE, mgid_a, H2, MCAST_NON, 0);
	assert_int_equal(mcm_ask(f, mad, H2, NULL), SA_ST_OK);
	assert_non_null(mcm_member(f, mgid_a, H1));
	assert_int_equal(mcm_member(f, mgid_a, H1)->state, MCAST_SENDONLY_FULL);
	/* h1 creates as a full member, h2 joins send-only full, h1 leaves. */
	mcm_join(f, mgid_b, H1, MCAST_FULL);
	mcm_join(f, mgid_b, H2, MCAST_SENDONLY_FULL);
	mcm_req(mad, IB_MAD_METHOD_DELETE, mgid_b, H1, MCAST_FULL, 0);
	assert_int_equal(mcm_ask(f, mad, H1, NULL), SA_ST_OK);
	assert_non_null(mcm_member(f, mgid_b, H2));
	assert_null(mcm_member(f, mgid_b, H1));
	/* The last one leaves: the group goes. */
	mcm_req(mad, IB_MAD_METHOD_DELETE, mgid_b, H2, MCAST_SENDONLY_FULL, 0);
	assert_int_equal(mcm_ask(f, mad, H2, NULL), SA_ST_OK);
	assert_null(mcast_find(f->mc, mgid_b));
	assert_int_equal(f->mc->n, 1);
}

/*
 * A leave must say which JoinState bits it drops (IBA 15.2.5.17.1: MGID,
 * PortGID and JoinState are the components of a join and of a leave):
 * without JoinState, "insufficient components" (0x0600), and the port
 * stays in the group.
 */
static void test_mcm_delete_without_joinstate_insufficient(void **state)
{
	struct sa_fab *f = *state;
	uint8_t mad[MAD_SIZE];

	mcm_join(f, mgid_a, H1, MCAST_FULL);
	mcm_req(mad, IB_MAD_METHOD_DELETE, mgid_a, H1, MCAST_FULL, 0);
	mcm_mask(mad, M_MGID | M_PORT_GID);
	assert_int_equal(mcm_ask(f, mad, H1, NULL), SA_ST_INSUF_COMPS);
	mcm_mask(mad, M_MGID | M_JOIN);
	assert_int_equal(mcm_ask(f, mad, H1, NULL), SA_ST_INSUF_COMPS);
	assert_int_equal(mcm_member(f, mgid_a, H1)->state, MCAST_FULL);
	mcm_mask(mad, M_MGID | M_PORT_GID | M_JOIN);
	assert_int_equal(mcm_ask(f, mad, H1, NULL), SA_ST_OK);
	assert_null(mcast_find(f->mc, mgid_a));
}

/*
 * A PortGID names a port of this subnet only with the subnet's prefix
 * (or the link-local default, which every port also answers to): any
 * other prefix gets ERR_REQ_INVALID_GID (0x0500), for a join and a leave.
 */
static void test_mcm_foreign_prefix_invalid_gid(void **state)
{
	struct sa_fab *f = *state;
	uint8_t mad[MAD_SIZE];
	ib_member_rec_t *r;

	f->sn->subnet_prefix = 0xfec0000000000001ULL;
	r = mcm_req(mad, IB_MAD_METHOD_SET, mgid_a, H1, MCAST_FULL, 0);
	r->port_gid.unicast.prefix = htobe64(0xfec0000000000002ULL);
	assert_int_equal(mcm_ask(f, mad, H1, NULL), SA_ST_INVALID_GID);
	assert_int_equal(f->mc->n, 0);
	r->port_gid.unicast.prefix = htobe64(0xfec0000000000001ULL);
	assert_int_equal(mcm_ask(f, mad, H1, NULL), SA_ST_OK);
	r = mcm_req(mad, IB_MAD_METHOD_SET, mgid_a, H2, MCAST_FULL, 0);
	assert_int_equal(mcm_ask(f, mad, H2, NULL), SA_ST_OK); /* fe80::, the default */
	r = mcm_req(mad, IB_MAD_METHOD_DELETE, mgid_a, H1, MCAST_FULL, 0);
	r->port_gid.unicast.prefix = htobe64(0xfec0000000000002ULL);
	assert_int_equal(mcm_ask(f, mad, H1, NULL), SA_ST_INVALID_GID);
	assert_int_equal(mcm_member(f, mgid_a, H1)->state, MCAST_FULL);
}

/*
 * A join to an existing group must agree with it on TClass, SL,
 * FlowLabel and HopLimit when its mask gives them (IBA 15.2.5.17.1, as
 * OpenSM validates a join): else ERR_REQ_INVALID, and the port stays out.
 * A field the mask leaves out is not compared.
 */
static void test_mcm_join_matches_tclass_sl_flow_hop(void **state)
{
	struct sa_fab *f = *state;
	static const struct {
		uint64_t bit;
		uint8_t tclass, sl, hop;
		uint32_t flow;
	} wrong[] = {
		{ M_TCLASS, 6, 3, 7, 0x12345 }, { M_SL, 5, 4, 7, 0x12345 },
		{ M_FLOW, 5, 3, 7, 0x12346 },   { M_HOP, 5, 3, 8, 0x12345 },
	};
	uint8_t mad[MAD_SIZE];
	ib_member_rec_t *r;

	r = mcm_req(mad, IB_MAD_METHOD_SET, mgid_a, H1, MCAST_FULL, M_HOP);
	r->tclass = 5;
	r->sl_flow_hop = ib_member_set_sl_flow_hop(3, 0x12345, 7);
	assert_int_equal(mcm_ask(f, mad, H1, NULL), SA_ST_OK);
	for (unsigned i = 0; i < 4; i++) {
		r = mcm_req(mad, IB_MAD_METHOD_SET, mgid_a, H2, MCAST_FULL, M_HOP);
		r->tclass = wrong[i].tclass;
		r->sl_flow_hop =
			ib_member_set_sl_flow_hop(wrong[i].sl, wrong[i].flow, wrong[i].hop);
		assert_int_equal(mcm_ask(f, mad, H2, NULL), SA_ST_REQ_INVALID);
		assert_null(mcm_member(f, mgid_a, H2));
		/* Not in the mask: not compared. */
		mcm_mask(mad, (M_CREATE | M_HOP) & ~wrong[i].bit);
		assert_int_equal(mcm_ask(f, mad, H2, NULL), SA_ST_OK);
		assert_non_null(mcm_member(f, mgid_a, H2));
		mcm_req(mad, IB_MAD_METHOD_DELETE, mgid_a, H2, MCAST_FULL, 0);
		assert_int_equal(mcm_ask(f, mad, H2, NULL), SA_ST_OK);
	}
	r = mcm_req(mad, IB_MAD_METHOD_SET, mgid_a, H2, MCAST_FULL, M_HOP);
	r->tclass = 5;
	r->sl_flow_hop = ib_member_set_sl_flow_hop(3, 0x12345, 7);
	assert_int_equal(mcm_ask(f, mad, H2, NULL), SA_ST_OK);
}

/* A GetTable of every group from port guid, trusted or not: the answer, to free. */
static struct sa_ans mcm_list(const struct sa_fab *f, uint8_t mad[MAD_SIZE], uint64_t guid,
			      bool trusted)
{
	struct sa_ans a;

	if (trusted)
		sa_fix_key(mad, SFX_SM_KEY);
	a = sa_fix_ask(&f->src, mad, MAD_SIZE, lid_of(guid), 0);
	assert_int_equal(a.r, 0);
	assert_int_equal(a.status, SA_ST_OK);
	return a;
}

/*
 * An MTU or rate means something only with its selector (IBA 15.2.5.17:
 * the selector says how to compare): given alone it is ignored, by a
 * create (the group gets what the creator's link carries), a join and a
 * list; given with it, a list keeps the groups the selector allows.
 */
static void test_mcm_mtu_rate_without_selector_ignored(void **state)
{
	struct sa_fab *f = *state;
	uint8_t mad[MAD_SIZE];
	ib_member_rec_t *r, ans;
	struct sa_ans a;

	/* A create: MTU 256 (code 1), rate 2.5 Gb/s (2) alone: the link's 2048 and 10 Gb/s. */
	r = mcm_req(mad, IB_MAD_METHOD_SET, mgid_a, H1, MCAST_FULL, M_MTU | M_RATE);
	r->mtu = SEL_EQ << 6 | IB_MTU_LEN_256;
	r->rate = SEL_EQ << 6 | IB_PATH_RECORD_RATE_2_5_GBS;
	assert_int_equal(mcm_ask(f, mad, H1, &ans), SA_ST_OK);
	assert_int_equal(ans.mtu & 0x3f, IB_MTU_LEN_2048);
	assert_int_equal(ans.rate & 0x3f, IB_PATH_RECORD_RATE_10_GBS);
	/* A join: 40 Gb/s, which the group has not, and an MTU code that does not exist. */
	r = mcm_req(mad, IB_MAD_METHOD_SET, mgid_a, H2, MCAST_FULL, M_MTU | M_RATE);
	r->mtu = SEL_EQ << 6 | 7;
	r->rate = SEL_EQ << 6 | IB_PATH_RECORD_RATE_40_GBS;
	assert_int_equal(mcm_ask(f, mad, H2, NULL), SA_ST_OK);
	/* A list: ignored alone; with the selector, "exactly" and "less than" are compared. */
	r = sa_fix_req(mad, IB_MAD_METHOD_GETTABLE, 0x38, M_MTU | M_RATE);
	r->mtu = SEL_EQ << 6 | IB_MTU_LEN_4096;
	r->rate = SEL_EQ << 6 | IB_PATH_RECORD_RATE_40_GBS;
	a = mcm_list(f, mad, H1, true);
	assert_int_equal(sa_fix_nrecs(&a, sizeof(ib_member_rec_t)), 2);
	free(a.out);
	mcm_mask(mad, M_MTU_SEL | M_MTU);
	a = mcm_list(f, mad, H1, true);
	assert_int_equal(sa_fix_nrecs(&a, sizeof(ib_member_rec_t)), 0);
	free(a.out);
	r->mtu = SEL_LT << 6 | IB_MTU_LEN_4096;
	a = mcm_list(f, mad, H1, true);
	assert_int_equal(sa_fix_nrecs(&a, sizeof(ib_member_rec_t)), 2);
	free(a.out);
	mcm_mask(mad, M_RATE_SEL | M_RATE);
	r->rate = SEL_LT << 6 | IB_PATH_RECORD_RATE_10_GBS;
	a = mcm_list(f, mad, H1, true);
	assert_int_equal(sa_fix_nrecs(&a, sizeof(ib_member_rec_t)), 0);
	free(a.out);
}

/*
 * The PacketLifeTime selector (IBA 15.2.5.17) is honoured: a create gets
 * a lifetime it allows (none: ERR_REQ_INVALID), a join and a list
 * compare the group's by it; a lifetime without its selector is ignored.
 */
static void test_mcm_lifetime_selector_honoured(void **state)
{
	struct sa_fab *f = *state;
	static const struct {
		uint8_t sel, want;
		uint16_t status;
		uint8_t lo, hi; /* the group's lifetime in [lo, hi] */
	} create[] = {
		{ SEL_GT, 0, SA_ST_OK, 1, 63 },    { SEL_GT, 40, SA_ST_OK, 41, 63 },
		{ SEL_LT, 10, SA_ST_OK, 0, 9 },    { SEL_EQ, 5, SA_ST_OK, 5, 5 },
		{ SEL_BEST, 0, SA_ST_OK, 0, 63 },  { SEL_LT, 0, SA_ST_REQ_INVALID, 0, 0 },
		{ SEL_GT, 63, SA_ST_REQ_INVALID, 0, 0 },
	};
	uint8_t mad[MAD_SIZE], mgid[16];
	ib_member_rec_t *r, ans;
	struct sa_ans a;
	unsigned n = 0;

	for (unsigned i = 0; i < sizeof(create) / sizeof(create[0]); i++) {
		memcpy(mgid, mgid_a, 16);
		mgid[14] = (uint8_t)(i + 1);
		r = mcm_req(mad, IB_MAD_METHOD_SET, mgid, H1, MCAST_FULL, M_LIFE_SEL | M_LIFE);
		r->pkt_life = (uint8_t)(create[i].sel << 6 | create[i].want);
		assert_int_equal(mcm_ask(f, mad, H1, &ans), create[i].status);
		n += !create[i].status;
		assert_int_equal(f->mc->n, n);
		if (create[i].status)
			continue;
		assert_in_range(ans.pkt_life & 0x3f, create[i].lo, create[i].hi);
		assert_int_equal(mcast_find(f->mc, mgid)->pkt_life, ans.pkt_life & 0x3f);
	}
	/* Alone, a lifetime is ignored: the group gets the SA's, not 5. */
	r = mcm_req(mad, IB_MAD_METHOD_SET, mgid_a, H1, MCAST_FULL, M_LIFE);
	r->pkt_life = SEL_EQ << 6 | 5;
	assert_int_equal(mcm_ask(f, mad, H1, &ans), SA_ST_OK);
	assert_int_not_equal(ans.pkt_life & 0x3f, 5);
	/* A join: the group's lifetime must be less than 5 (it is not), then not less. */
	r = mcm_req(mad, IB_MAD_METHOD_SET, mgid_a, H2, MCAST_NON, M_LIFE_SEL | M_LIFE);
	r->pkt_life = SEL_LT << 6 | 5;
	assert_int_equal(mcm_ask(f, mad, H2, NULL), SA_ST_REQ_INVALID);
	r->pkt_life = (uint8_t)(SEL_EQ << 6 | (ans.pkt_life & 0x3f));
	assert_int_equal(mcm_ask(f, mad, H2, NULL), SA_ST_OK);
	/* A list: the groups with a lifetime of exactly 5; then greater than 40. */
	r = sa_fix_req(mad, IB_MAD_METHOD_GETTABLE, 0x38, M_LIFE_SEL | M_LIFE);
	r->pkt_life = SEL_EQ << 6 | 5;
	a = mcm_list(f, mad, H1, true);
	assert_int_equal(sa_fix_nrecs(&a, sizeof(ib_member_rec_t)), 1);
	free(a.out);
	r->pkt_life = SEL_GT << 6 | 40;
	a = mcm_list(f, mad, H1, true);
	assert_int_equal(sa_fix_nrecs(&a, sizeof(ib_member_rec_t)), 1);
	free(a.out);
}

/*
 * IBA 15.2.5.17: a list's PortGID and JoinState are zero unless the
 * request is trusted (it carries the SM_Key). Without it, a port sees
 * each group once, and of members only itself (its PortGID in the
 * mask): nobody learns who else is in a group, nor in which state.
 */
static void test_mcm_untrusted_list_hides_members(void **state)
{
	struct sa_fab *f = *state;
	uint8_t mad[MAD_SIZE];
	const ib_member_rec_t *rec;
	ib_member_rec_t *r;
	struct sa_ans a;

	mcm_join(f, mgid_a, H1, MCAST_FULL);
	mcm_join(f, mgid_a, H2, MCAST_NON);
	sa_fix_req(mad, IB_MAD_METHOD_GETTABLE, 0x38, 0);
	a = mcm_list(f, mad, H2, false);
	assert_int_equal(sa_fix_nrecs(&a, sizeof(*rec)), 1);
	rec = sa_fix_rec(&a, sizeof(*rec), 0);
	assert_memory_equal(rec->mgid.raw, mgid_a, 16);
	assert_int_equal(rec->port_gid.unicast.interface_id, 0);
	assert_int_equal(rec->port_gid.unicast.prefix, 0);
	assert_int_equal(rec->scope_state & 0xf, 0);
	free(a.out);
	/* Asking by h1's PortGID, or by a JoinState: nothing. */
	r = sa_fix_req(mad, IB_MAD_METHOD_GETTABLE, 0x38, M_PORT_GID);
	r->port_gid.unicast.prefix = htobe64(SFX_PREFIX);
	r->port_gid.unicast.interface_id = htobe64(H1);
	a = mcm_list(f, mad, H2, false);
	assert_int_equal(sa_fix_nrecs(&a, sizeof(*rec)), 0);
	free(a.out);
	r = sa_fix_req(mad, IB_MAD_METHOD_GETTABLE, 0x38, M_JOIN);
	r->scope_state = MCAST_FULL;
	a = mcm_list(f, mad, H2, false);
	assert_int_equal(sa_fix_nrecs(&a, sizeof(*rec)), 0);
	free(a.out);
	/* Its own membership, by its own PortGID. */
	r = sa_fix_req(mad, IB_MAD_METHOD_GETTABLE, 0x38, M_PORT_GID);
	r->port_gid.unicast.prefix = htobe64(SFX_PREFIX);
	r->port_gid.unicast.interface_id = htobe64(H2);
	a = mcm_list(f, mad, H2, false);
	assert_int_equal(sa_fix_nrecs(&a, sizeof(*rec)), 1);
	assert_int_equal(((const ib_member_rec_t *)sa_fix_rec(&a, sizeof(*rec), 0))->scope_state & 0xf,
			 MCAST_NON);
	free(a.out);
	/* Trusted: every member, with its PortGID and JoinState. */
	sa_fix_req(mad, IB_MAD_METHOD_GETTABLE, 0x38, 0);
	a = mcm_list(f, mad, H2, true);
	assert_int_equal(sa_fix_nrecs(&a, sizeof(*rec)), 2);
	for (unsigned i = 0; i < 2; i++) {
		rec = sa_fix_rec(&a, sizeof(*rec), i);
		assert_int_equal(rec->scope_state & 0xf,
				 be64toh(rec->port_gid.unicast.interface_id) == H1 ? MCAST_FULL :
										     MCAST_NON);
	}
	free(a.out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, sa_fix_mcm, sa_fix_teardown)
		T(test_mcm_malformed_mgid_refused),
		T(test_mcm_bad_rate_mtu_code_refused),
		T(test_mcm_only_full_member_creates),
		T(test_mcm_partial_leave_keeps_rest),
		T(test_mcm_sendonly_full_keeps_group),
		T(test_mcm_delete_without_joinstate_insufficient),
		T(test_mcm_foreign_prefix_invalid_gid),
		T(test_mcm_join_matches_tclass_sl_flow_hop),
		T(test_mcm_mtu_rate_without_selector_ignored),
		T(test_mcm_lifetime_selector_honoured),
		T(test_mcm_untrusted_list_hides_members),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
