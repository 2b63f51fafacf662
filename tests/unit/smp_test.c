/* SPDX-License-Identifier: MIT */
/*
 * The SMP payloads the SM writes (PortInfo and SwitchInfo Sets) and the
 * SM's own attributes (SMInfo, Notice, answers to requests), checked field
 * by field against ib_types.h's accessors, which are written independently
 * of mad/.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <iba/ib_types.h>

#include "mad/smp.h"

/* A PortInfo as a CA port in INIT might report it. */
static void sample_port(uint8_t raw[SMP_DATA_SIZE])
{
	ib_port_info_t w;

	memset(&w, 0, sizeof(w));
	w.m_key = cl_hton64(0x1122334455667788ULL);
	w.base_lid = cl_hton16(0);
	w.capability_mask = cl_hton32(0x02010048);
	w.local_port_num = 1;
	w.link_width_enabled = 3;
	w.link_width_supported = 3;
	w.link_width_active = 2;
	w.state_info1 = (uint8_t)(0x10 | IB_LINK_INIT); /* speed supported SDR, Init */
	w.state_info2 = (uint8_t)(IB_PORT_PHYS_STATE_LINKUP << 4 | 2);
	w.link_speed = 0x11; /* active SDR, enabled SDR */
	ib_port_info_set_neighbor_mtu(&w, IB_MTU_LEN_1024);
	w.mtu_cap = IB_MTU_LEN_4096;
	w.vl_cap = 0x40; /* VLCap 4: VL0-7 */
	w.link_speed_ext_enabled = 0x1f;
	memset(raw, 0, SMP_DATA_SIZE);
	memcpy(raw, &w, sizeof(w));
}

static void test_port_info_set(void **state)
{
	uint8_t raw[SMP_DATA_SIZE], out[SMP_DATA_SIZE];
	struct smp_port_set s = { .lid = 0x12, .sm_lid = 1, .lmc = 2, .state = SMP_PORT_ARMED,
				  .neighbor_mtu = IB_MTU_LEN_4096, .op_vls = 4,
				  .subnet_prefix = 0xfe80000000000000ULL };
	ib_port_info_t w;

	(void)state;
	sample_port(raw);
	assert_false(smp_port_info_matches(raw, &s));
	smp_port_info_set(raw, &s, out);
	memcpy(&w, out, sizeof(w));
	assert_int_equal(cl_ntoh16(w.base_lid), 0x12);
	assert_int_equal(cl_ntoh16(w.master_sm_base_lid), 1);
	assert_int_equal(ib_port_info_get_lmc(&w), 2);
	assert_int_equal(ib_port_info_get_port_state(&w), IB_LINK_ARMED);
	assert_int_equal(ib_port_info_get_neighbor_mtu(&w), IB_MTU_LEN_4096);
	assert_int_equal(ib_port_info_get_op_vls(&w), 4);
	assert_int_equal(cl_ntoh64(w.subnet_prefix), 0xfe80000000000000ULL);
	assert_int_equal(w.m_key, 0);
	/* The "no change" encodings, so a Set never retrains a link. */
	assert_int_equal(ib_port_info_get_port_phys_state(&w), 0);
	assert_int_equal(w.state_info2, 0);
	assert_int_equal(ib_port_info_get_link_speed_enabled(&w), 0);
	assert_int_equal(w.link_width_enabled, 0);
	assert_int_equal(w.link_speed_ext_enabled, 0);
	/* Read-only fields go back as read. */
	assert_int_equal(cl_ntoh32(w.capability_mask), 0x02010048);
	assert_int_equal(w.mtu_cap, IB_MTU_LEN_4096);
	assert_int_equal(w.link_width_active, 2);
	/* What the Set wrote now matches; state is not part of the match. */
	assert_true(smp_port_info_matches(out, &s));
	s.lid = 0x13;
	assert_false(smp_port_info_matches(out, &s));
	/* 0 for MTU and VLs leaves them as read. */
	s = (struct smp_port_set){ .lid = 5 };
	smp_port_info_set(raw, &s, out);
	memcpy(&w, out, sizeof(w));
	assert_int_equal(ib_port_info_get_neighbor_mtu(&w), IB_MTU_LEN_1024);
	assert_int_equal(ib_port_info_get_port_state(&w), 0);
	assert_int_equal(ib_port_info_get_client_rereg(&w), 0);
	/* ClientReregister: bit 7 of the SubnetTimeOut byte, the timeout kept. */
	memcpy(&w, raw, sizeof(w));
	w.subnet_timeout = 18;
	memcpy(raw, &w, sizeof(w));
	s.client_rereg = true;
	assert_false(smp_port_info_matches(raw, &s));
	smp_port_info_set(raw, &s, out);
	memcpy(&w, out, sizeof(w));
	assert_int_equal(ib_port_info_get_client_rereg(&w), 1);
	assert_int_equal(w.subnet_timeout & 0x1f, 18);
}

static void test_switch_info_set(void **state)
{
	uint8_t raw[SMP_DATA_SIZE] = { 0 }, out[SMP_DATA_SIZE];
	ib_switch_info_t w;

	(void)state;
	memset(&w, 0, sizeof(w));
	w.lin_cap = cl_hton16(0xc000);
	w.life_state = (uint8_t)(0x0a << 3 | IB_SWITCH_PSC);
	memcpy(raw, &w, sizeof(w));
	smp_switch_info_set(raw, 0x123, false, out);
	memcpy(&w, out, sizeof(w));
	assert_int_equal(cl_ntoh16(w.lin_top), 0x123);
	assert_int_equal(cl_ntoh16(w.lin_cap), 0xc000);
	assert_false(ib_switch_info_get_state_change(&w)); /* 0: leave it */
	assert_int_equal(w.life_state >> 3, 0x0a);
	smp_switch_info_set(raw, 0x123, true, out);
	memcpy(&w, out, sizeof(w));
	assert_true(ib_switch_info_get_state_change(&w)); /* 1: clear it */
}

static void make_request(uint8_t mad[MAD_SIZE], uint8_t mclass, uint8_t method, uint16_t attr)
{
	ib_smp_t smp;

	memset(&smp, 0, sizeof(smp));
	smp.base_ver = 1;
	smp.mgmt_class = mclass;
	smp.class_ver = 1;
	smp.method = method;
	smp.trans_id = cl_hton64(0xabcdef0012345678ULL);
	smp.attr_id = cl_hton16(attr);
	smp.hop_count = 2;
	smp.hop_ptr = 2;
	memcpy(mad, &smp, MAD_SIZE);
}

static void test_sm_info_and_resp(void **state)
{
	struct smp_sm_info si = { .guid = 0x0002c90400000101ULL, .sm_key = 7, .act_count = 553,
				  .priority = 14, .state = SMP_SM_MASTER }, back;
	uint8_t data[SMP_DATA_SIZE], req[MAD_SIZE], resp[MAD_SIZE];
	ib_sm_info_t w;
	ib_smp_t smp;

	(void)state;
	assert_int_equal(smp_encode_sm_info(&si, data), 0);
	memcpy(&w, data, sizeof(w));
	assert_int_equal(ib_sminfo_get_priority(&w), 14);
	assert_int_equal(ib_sminfo_get_state(&w), IB_SMINFO_STATE_MASTER);
	assert_int_equal(cl_ntoh32(w.act_count), 553);
	si.priority = 16;
	assert_int_equal(smp_encode_sm_info(&si, data), -EINVAL);

	/* LID-routed Get: GetResp, same TID, no D bit; the data decodes back. */
	si.priority = 14;
	smp_encode_sm_info(&si, data);
	make_request(req, IB_MCLASS_SUBN_LID, SMP_GET, SMP_ATTR_SM_INFO);
	assert_int_equal(smp_make_resp(req, MAD_SIZE, 0, data, resp), 0);
	memcpy(&smp, resp, sizeof(smp));
	assert_int_equal(smp.method, SMP_GET_RESP);
	assert_int_equal(cl_ntoh64(smp.trans_id), 0xabcdef0012345678ULL);
	assert_int_equal(smp.status, 0);
	assert_int_equal(smp_decode_sm_info(resp, MAD_SIZE, &back), 0);
	assert_int_equal(back.guid, si.guid);
	assert_int_equal(back.act_count, 553);
	assert_int_equal(back.state, SMP_SM_MASTER);

	/* Directed route: D bit set (IBA 14.2.2.2), status kept apart from it. */
	make_request(req, IB_MCLASS_SUBN_DIR, SMP_GET, SMP_ATTR_SM_INFO);
	assert_int_equal(smp_make_resp(req, MAD_SIZE, 0x000c, NULL, resp), 0);
	memcpy(&smp, resp, sizeof(smp));
	assert_true(smp.status & IB_SMP_DIRECTION);
	assert_int_equal(cl_ntoh16(smp.status) & 0x7fff, 0x000c);

	/* A Trap is answered with TrapRepress; answers are not answered. */
	make_request(req, IB_MCLASS_SUBN_LID, SMP_TRAP, SMP_ATTR_NOTICE);
	assert_int_equal(smp_make_resp(req, MAD_SIZE, 0, NULL, resp), 0);
	assert_int_equal(resp[3], SMP_TRAP_REPRESS);
	make_request(req, IB_MCLASS_SUBN_LID, SMP_GET_RESP, SMP_ATTR_SM_INFO);
	assert_int_equal(smp_make_resp(req, MAD_SIZE, 0, NULL, resp), -EPROTO);
	assert_int_equal(smp_make_resp(req, 100, 0, NULL, resp), -EPROTO);
}

static void test_notice(void **state)
{
	uint8_t mad[MAD_SIZE];
	ib_mad_notice_attr_t n;
	struct smp_notice out;

	(void)state;
	make_request(mad, IB_MCLASS_SUBN_LID, SMP_TRAP, SMP_ATTR_NOTICE);
	memset(&n, 0, sizeof(n));
	n.generic_type = 0x80 | 1; /* generic, urgent */
	n.g_or_v.generic.prod_type_lsb = cl_hton16(2); /* switch */
	n.g_or_v.generic.trap_num = cl_hton16(128);
	n.issuer_lid = cl_hton16(0x2a);
	memcpy(mad + offsetof(ib_smp_t, data), &n, SMP_DATA_SIZE);
	assert_int_equal(smp_decode_notice(mad, MAD_SIZE, &out), 0);
	assert_true(out.generic);
	assert_int_equal(out.type, 1);
	assert_int_equal(out.trap_num, 128);
	assert_int_equal(out.issuer_lid, 0x2a);
	assert_int_equal(out.producer, 2);
	assert_int_equal(smp_decode_notice(mad, 64, &out), -EPROTO);
}

static void put_data(uint8_t mad[MAD_SIZE], const uint8_t data[SMP_DATA_SIZE])
{
	memset(mad, 0, MAD_SIZE);
	memcpy(mad + offsetof(ib_smp_t, data), data, SMP_DATA_SIZE);
}

/* P_KeyTable, SL2VL and VLArb blocks against ib_types.h's layout, and their modifiers. */
static void test_tables(void **state)
{
	uint16_t pk[SMP_PKEY_BLOCK], back[SMP_PKEY_BLOCK];
	uint8_t vl[SMP_NUM_SL], vback[SMP_NUM_SL], data[SMP_DATA_SIZE], mad[MAD_SIZE];
	struct smp_vlarb arb[SMP_VLARB_BLOCK], aback[SMP_VLARB_BLOCK];
	ib_pkey_table_t pw;
	ib_slvl_table_t sw;
	ib_vl_arb_table_t aw;

	(void)state;
	for (unsigned i = 0; i < SMP_PKEY_BLOCK; i++)
		pk[i] = (uint16_t)(i ? 0x8000 | i : 0xffff);
	smp_encode_pkeys(pk, data);
	memcpy(&pw, data, sizeof(pw));
	assert_int_equal(cl_ntoh16(pw.pkey_entry[0]), 0xffff);
	assert_int_equal(cl_ntoh16(pw.pkey_entry[5]), 0x8005);
	put_data(mad, data);
	assert_int_equal(smp_decode_pkeys(mad, MAD_SIZE, back), 0);
	assert_memory_equal(pk, back, sizeof(pk));
	assert_int_equal(smp_decode_pkeys(mad, 100, back), -EPROTO);
	assert_int_equal(smp_pkey_mod(7, 2), 0x00070002);

	for (unsigned sl = 0; sl < SMP_NUM_SL; sl++)
		vl[sl] = (uint8_t)(sl % 8);
	vl[15] = 15; /* VL15: the SL is dropped */
	assert_int_equal(smp_encode_sl2vl(vl, data), 0);
	memcpy(&sw, data, sizeof(sw));
	assert_int_equal(sw.raw_vl_by_sl[0], 0x01); /* SL0 high nibble, SL1 low */
	assert_int_equal(sw.raw_vl_by_sl[7], 0x6f); /* SL14 -> 6, SL15 -> 15 */
	put_data(mad, data);
	assert_int_equal(smp_decode_sl2vl(mad, MAD_SIZE, vback), 0);
	assert_memory_equal(vl, vback, sizeof(vl));
	vl[3] = 16;
	assert_int_equal(smp_encode_sl2vl(vl, data), -EINVAL);
	assert_int_equal(smp_sl2vl_mod(3, 9), 0x0309);

	for (unsigned i = 0; i < SMP_VLARB_BLOCK; i++)
		arb[i] = (struct smp_vlarb){ .vl = (uint8_t)(i % 8), .weight = (uint8_t)(i * 3) };
	assert_int_equal(smp_encode_vlarb(arb, data), 0);
	memcpy(&aw, data, sizeof(aw));
	assert_int_equal(aw.vl_entry[5].vl, 5);
	assert_int_equal(aw.vl_entry[5].weight, 15);
	put_data(mad, data);
	assert_int_equal(smp_decode_vlarb(mad, MAD_SIZE, aback), 0);
	assert_memory_equal(arb, aback, sizeof(arb));
	arb[0].vl = 16;
	assert_int_equal(smp_encode_vlarb(arb, data), -EINVAL);
	assert_int_equal(smp_vlarb_mod(4, SMP_VLARB_HIGH_0_31), 0x00030004);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_port_info_set),
		cmocka_unit_test(test_switch_info_set),
		cmocka_unit_test(test_sm_info_and_resp),
		cmocka_unit_test(test_notice),
		cmocka_unit_test(test_tables),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
