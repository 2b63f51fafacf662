/* SPDX-License-Identifier: MIT */
/*
 * P_KeyTableRecord, SL2VLMappingTableRecord and VLArbitrationTableRecord
 * (sa/sa_rec_tables.c) on sa_fixture.h's path fabric, its partitions and
 * the engine's SL-to-VL map: P_Key tables only to the trusted and only of
 * ports a limited member may see, SL2VL tables from the engine, VL
 * arbitration from the QoS classes (none without them).
 */
#include <endian.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <iba/ib_types.h>

#include "tests/unit/sa_fixture.h"

/* A GetTable from h1 (LID 2), with the SA's own SM_Key: trusted when the SA has a key. */
static struct sa_ans ask_table(struct sa_fab *f, uint16_t attr, uint64_t mask, const void *tmpl,
			       size_t n)
{
	uint8_t mad[MAD_SIZE];

	memcpy(sa_fix_req(mad, IB_MAD_METHOD_GETTABLE, attr, mask), tmpl, n);
	sa_fix_key(mad, f->src.sm.sm_key);
	return sa_fix_ask(&f->src, mad, sizeof(mad), 2, 0);
}

static void test_tables(void **state)
{
	struct sa_fab *f = *state;
	ib_pkey_table_record_t pk = { .lid = htobe16(5) };
	ib_slvl_table_record_t sv = { .lid = htobe16(1), .out_port_num = 3 };
	ib_vl_arb_table_record_t va = { .lid = htobe16(2) };
	const ib_slvl_table_record_t *s;
	struct sa_ans a;

	sa_fix_path_partitions(f);
	/* P_KeyTableRecords answer trusted requests only (IBA 15.4). */
	a = ask_table(f, 0x33, 1, &pk, sizeof(pk));
	assert_int_equal(a.status, SA_ST_REQ_INVALID);
	free(a.out);
	f->src.sm.sm_key = 1;
	a = ask_table(f, 0x33, 1, &pk, sizeof(pk));
	assert_int_equal(a.status, SA_ST_OK);
	assert_int_equal(a.len, SA_HDR_SIZE + sizeof(pk));
	assert_int_equal(be16toh(((ib_pkey_table_record_t *)(a.out + SA_HDR_SIZE))->pkey_tbl.pkey_entry[1]),
			 0x8001);
	free(a.out);
	/* h2, a limited member like the requester h1: hidden (IBA 10.9.1). */
	pk.lid = htobe16(3);
	a = ask_table(f, 0x33, 1, &pk, sizeof(pk));
	assert_int_equal(a.len, SA_HDR_SIZE);
	free(a.out);
	/* sw1's tables into port 3: from port 0 and port 1 (linked), the engine's map. */
	a = ask_table(f, 0x13, 1 | 4, &sv, sizeof(sv));
	assert_int_equal(a.len, SA_HDR_SIZE + 2 * sizeof(sv));
	s = (const ib_slvl_table_record_t *)(a.out + SA_HDR_SIZE);
	assert_int_equal(s[0].in_port_num, 0);
	assert_int_equal(s[1].in_port_num, 1);
	assert_int_equal(s[1].slvl_tbl.raw_vl_by_sl[1], 0x23); /* SL 2 -> VL 2, SL 3 -> VL 3 */
	free(a.out);
	/* h1's arbitration: low and high blocks (1 and 3), the defaults' weights. */
	a = ask_table(f, 0x36, 1, &va, sizeof(va));
	assert_int_equal(a.len, SA_HDR_SIZE + 2 * sizeof(va));
	assert_int_equal(((ib_vl_arb_table_record_t *)(a.out + SA_HDR_SIZE))->block_num, 1);
	free(a.out);
	/* Without QoS classes loomd does not know the tables: no records. */
	f->src.qos = NULL;
	a = ask_table(f, 0x36, 1, &va, sizeof(va));
	assert_int_equal(a.len, SA_HDR_SIZE);
	free(a.out);
}

/* SL2VL records of LID lid (comp mask LID only): how many. */
static size_t sl2vl_count(struct sa_fab *f, uint16_t lid)
{
	ib_slvl_table_record_t sv = { .lid = htobe16(lid) };
	struct sa_ans a = ask_table(f, 0x13, 1, &sv, sizeof(sv));
	size_t n = (a.len - SA_HDR_SIZE) / sizeof(sv);

	assert_int_equal(a.status, SA_ST_OK);
	free(a.out);
	return n;
}

/*
 * IBA 14.2.5.6 IsSLMappingSupported: a CA port without it, or a switch whose
 * port 0 lacks it, has no SL-to-VL tables, and the SA lists none of them.
 */
static void test_sl_map(void **state)
{
	struct sa_fab *f = *state;
	uint32_t h1 = sa_fix_port(f, f->h1, 1), sw0 = sa_fix_port(f, f->sw1, 0);
	size_t sw_n = sl2vl_count(f, 1);

	assert_int_equal(sl2vl_count(f, 2), 1); /* h1: its one table */
	assert_true(sw_n > 0);
	f->live.port[h1].pi.cap_mask &= ~SMP_CAP_SL_MAP;
	assert_int_equal(sl2vl_count(f, 2), 0);
	assert_int_equal(sl2vl_count(f, 1), sw_n); /* sw1's tables are its own */
	f->live.port[sw0].pi.cap_mask &= ~SMP_CAP_SL_MAP;
	assert_int_equal(sl2vl_count(f, 1), 0);
	assert_int_equal(sl2vl_count(f, 3), 1); /* h2 still has its table */
}

/* VLArb records of LID lid, port port (comp mask LID and OutputPortNum): how many. */
static size_t vlarb_count(struct sa_fab *f, uint16_t lid, uint8_t port)
{
	ib_vl_arb_table_record_t va = { .lid = htobe16(lid), .port_num = port };
	struct sa_ans a = ask_table(f, 0x36, 1 | 2, &va, sizeof(va));
	size_t n = (a.len - SA_HDR_SIZE) / sizeof(va);

	assert_int_equal(a.status, SA_ST_OK);
	free(a.out);
	return n;
}

/*
 * A switch's base port 0 has no data VLs (plan/qos.h qos_has_data_vls): no
 * SL-to-VL table as an output port, no VL arbitration; as an input port it
 * is in the others' tables. An enhanced port 0 (SwitchInfo:EnhancedPort0,
 * in the model as discovery reads it) has both.
 */
static void test_base_port0(void **state)
{
	struct sa_fab *f = *state;
	ib_slvl_table_record_t sv = { .lid = htobe16(1), .out_port_num = 0 };
	uint32_t sw0 = sa_fix_port(f, f->sw1, 0);
	struct sa_ans a;
	size_t n;

	a = ask_table(f, 0x13, 1 | 4, &sv, sizeof(sv));
	assert_int_equal(a.len, SA_HDR_SIZE);
	free(a.out);
	sv.in_port_num = 0;
	sv.out_port_num = 1;
	a = ask_table(f, 0x13, 1 | 2 | 4, &sv, sizeof(sv));
	assert_int_equal(a.len, SA_HDR_SIZE + sizeof(sv));
	free(a.out);
	n = sl2vl_count(f, 1);
	assert_int_equal(vlarb_count(f, 1, 0), 0);
	assert_int_equal(vlarb_count(f, 1, 1), 2); /* a linked port: low and high */
	/* SwitchInfo as read says enhanced, but the model is what counts: discovery sets both. */
	f->live.node[f->sw1].si.flags |= SMP_SI_ENHANCED_PORT0;
	assert_int_equal(sl2vl_count(f, 1), n);
	f->sn->port[sw0].flags |= SUBNET_PORT_ENHANCED0;
	sv.out_port_num = 0;
	a = ask_table(f, 0x13, 1 | 4, &sv, sizeof(sv));
	assert_true(a.len > SA_HDR_SIZE);
	free(a.out);
	assert_true(sl2vl_count(f, 1) > n);
	assert_int_equal(vlarb_count(f, 1, 0), 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_tables, sa_fix_path, sa_fix_teardown),
		cmocka_unit_test_setup_teardown(test_sl_map, sa_fix_path, sa_fix_teardown),
		cmocka_unit_test_setup_teardown(test_base_port0, sa_fix_path, sa_fix_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
