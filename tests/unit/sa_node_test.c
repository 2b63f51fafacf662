/* SPDX-License-Identifier: MIT */
/*
 * NodeRecord, PortInfoRecord (sa/sa_rec_node.c), LinkRecord
 * (sa_rec_link.c) and SMInfoRecord (sa_rec_sm.c) on the star fabric
 * (sa_fixture.h): record counts, sizes and bytes, the GetTable header, and
 * component masks down to PortInfo's 4-bit PortState.
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

static void test_gettable_nodes(void **state)
{
	struct sa_fab *f = *state;
	uint8_t mad[MAD_SIZE];
	struct sa_ans a;
	const ib_node_record_t *r;

	sa_fix_req(mad, IB_MAD_METHOD_GETTABLE, 0x11, 0);
	a = sa_fix_ask(&f->src, mad, sizeof(mad), 2, 0);
	assert_int_equal(a.r, 0);
	assert_int_equal(a.status, 0);
	/* Three end ports: the switch's port 0 and each CA's port; exactly their bytes. */
	assert_int_equal(a.len, SA_HDR_SIZE + 3 * sizeof(ib_node_record_t));
	assert_int_equal(sa_fix_hdr(&a)->method, IB_MAD_METHOD_GETTABLE_RESP);
	assert_int_equal(be16toh(sa_fix_hdr(&a)->attr_offset), sizeof(ib_node_record_t) / 8);
	assert_int_equal(sa_fix_hdr(&a)->rmpp_flags & IB_RMPP_FLAG_ACTIVE, IB_RMPP_FLAG_ACTIVE);
	assert_int_equal(sa_fix_hdr(&a)->rmpp_type, IB_RMPP_TYPE_DATA);
	assert_int_equal(be64toh(sa_fix_hdr(&a)->trans_id), 0xabcdef);
	r = (const ib_node_record_t *)(a.out + SA_HDR_SIZE);
	assert_int_equal(be16toh(r[0].lid), 1);
	assert_int_equal(r[0].node_info.node_type, IB_NODE_TYPE_SWITCH);
	assert_int_equal(be16toh(r[1].lid), 2);
	assert_int_equal(be64toh(r[1].node_info.port_guid), 0x201);
	assert_int_equal(be32toh(r[1].node_info.port_num_vendor_id) >> 24, 1);
	assert_memory_equal(r[2].node_desc.description, "h2 HCA-1", 9);
	free(a.out);
}

static void test_masks(void **state)
{
	struct sa_fab *f = *state;
	uint8_t mad[MAD_SIZE];
	ib_portinfo_record_t *t = (ib_portinfo_record_t *)(mad + SA_HDR_SIZE);
	const ib_portinfo_record_t *r;
	struct sa_ans a;

	/* PortInfoRecord by PortState (mask bit 15, a 4-bit field): the two Down switch ports. */
	sa_fix_req(mad, IB_MAD_METHOD_GETTABLE, 0x12, 1ULL << 15);
	t->port_info.state_info1 = IB_LINK_DOWN;
	a = sa_fix_ask(&f->src, mad, sizeof(mad), 2, 0);
	assert_int_equal(a.status, 0);
	assert_int_equal(a.len, SA_HDR_SIZE + 2 * sizeof(*r));
	r = (const ib_portinfo_record_t *)(a.out + SA_HDR_SIZE);
	assert_int_equal(r[0].port_num, 3);
	assert_int_equal(r[1].port_num, 4);
	/* The M_Key is never handed out. */
	assert_int_equal(r[0].port_info.m_key, 0);
	free(a.out);
	/* Switch LID and port number: one record. */
	sa_fix_req(mad, IB_MAD_METHOD_GET, 0x12, 1 | 2);
	sa_fix_set16(mad, 0, 1);
	t->port_num = 2;
	a = sa_fix_ask(&f->src, mad, sizeof(mad), 2, 0);
	assert_int_equal(a.status, 0);
	free(a.out);
	/* LinkRecord: each link from both ends; from LID 1 port 1: one. */
	sa_fix_req(mad, IB_MAD_METHOD_GETTABLE, 0x20, 0);
	a = sa_fix_ask(&f->src, mad, sizeof(mad), 3, 0);
	assert_int_equal(a.len, SA_HDR_SIZE + 4 * sizeof(ib_link_record_t));
	free(a.out);
	sa_fix_req(mad, IB_MAD_METHOD_GET, 0x20, 1 | 2);
	sa_fix_set16(mad, 0, 1);
	mad[SA_HDR_SIZE + 2] = 1;
	a = sa_fix_ask(&f->src, mad, sizeof(mad), 3, 0);
	assert_int_equal(a.status, 0);
	assert_int_equal(be16toh(((const ib_link_record_t *)(a.out + SA_HDR_SIZE))->to_lid), 2);
	free(a.out);
	/* SMInfoRecord: this SM, priority and state packed. */
	sa_fix_req(mad, IB_MAD_METHOD_GET, 0x18, 0);
	a = sa_fix_ask(&f->src, mad, sizeof(mad), 3, 0);
	assert_int_equal(a.status, 0);
	assert_int_equal(((const ib_sminfo_record_t *)(a.out + SA_HDR_SIZE))->sm_info.pri_state, 0x53);
	free(a.out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_gettable_nodes, sa_fix_star, sa_fix_teardown),
		cmocka_unit_test_setup_teardown(test_masks, sa_fix_star, sa_fix_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
