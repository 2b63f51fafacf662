/* SPDX-License-Identifier: MIT */
/*
 * mad/pma.c: a PortCounters Get as perfquery sends it, and its answer decoded field by
 * field; ClassPortInfo's capability bits; PortCountersExtended, with and without the
 * additional error counters.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "mad/pma.h"

static void test_encode(void **state)
{
	uint8_t m[MAD_SIZE];

	(void)state;
	pma_encode_port_counters(3, 0x0102030405060708ull, m);
	assert_int_equal(m[0], 1);
	assert_int_equal(m[1], 0x04);
	assert_int_equal(m[2], 1);
	assert_int_equal(m[3], 0x01);
	assert_int_equal(m[8], 1);
	assert_int_equal(m[15], 8);
	assert_int_equal(m[16] << 8 | m[17], 0x0012);
	assert_int_equal(m[65], 3);
	assert_int_equal(pma_tid(m, sizeof(m)), 0x0102030405060708ull);
}

/* An answer as ibsim's pc_get writes it (IBA 16.1.3.5 offsets). */
static void answer(uint8_t m[MAD_SIZE])
{
	uint8_t *d = m + 64;

	pma_encode_port_counters(5, 42, m);
	m[3] = 0x81;
	d[4] = 0x01; d[5] = 0x02;   /* SymbolErrorCounter 258 */
	d[6] = 3;                   /* LinkErrorRecoveryCounter */
	d[7] = 4;                   /* LinkDownedCounter */
	d[8] = 0; d[9] = 5;         /* PortRcvErrors */
	d[10] = 0; d[11] = 6;       /* PortRcvRemotePhysicalErrors */
	d[12] = 0; d[13] = 7;       /* PortRcvSwitchRelayErrors */
	d[14] = 0xff; d[15] = 0xff; /* PortXmitDiscards, saturated */
	d[16] = 9;                  /* PortXmitConstraintErrors */
	d[17] = 10;                 /* PortRcvConstraintErrors */
	d[19] = 0xbc;               /* LocalLinkIntegrity 11, ExcessiveBufferOverrun 12 */
	d[22] = 0; d[23] = 13;      /* VL15Dropped */
	d[40] = 0; d[41] = 1; d[42] = 0; d[43] = 0; /* PortXmitWait 65536 */
}

static void test_decode(void **state)
{
	static const uint32_t want[_PMA_COUNTER_MAX] = { 258, 3, 4, 5, 6, 7, 65535, 9, 10, 11,
							  12, 13, 65536 };
	uint8_t m[MAD_SIZE];
	struct pma_counters c;

	(void)state;
	answer(m);
	assert_int_equal(pma_decode_port_counters(m, sizeof(m), 5, 42, &c), 0);
	for (unsigned i = 0; i < _PMA_COUNTER_MAX; i++)
		assert_int_equal(c.v[i], want[i]);
	assert_int_equal(c.v[PMA_XMIT_DISCARDS], pma_counter_max(PMA_XMIT_DISCARDS));
	assert_int_equal(pma_counter_max(PMA_LOCAL_LINK_INTEGRITY_ERRORS), 15);
	assert_string_equal(pma_counter_name(PMA_XMIT_WAIT), "PortXmitWait");
}

static void test_refused(void **state)
{
	uint8_t m[MAD_SIZE];
	struct pma_counters c;

	(void)state;
	answer(m);
	assert_int_equal(pma_decode_port_counters(m, 64 + 43, 5, 42, &c), -EPROTO);
	assert_int_equal(pma_decode_port_counters(m, sizeof(m), 5, 43, &c), -EPROTO);
	assert_int_equal(pma_decode_port_counters(m, sizeof(m), 6, 42, &c), -EPROTO);
	m[5] = 0x1c; /* status: invalid attribute */
	assert_int_equal(pma_decode_port_counters(m, sizeof(m), 5, 42, &c), -EREMOTEIO);
	m[5] = 0;
	m[3] = 0x01; /* a request, not an answer */
	assert_int_equal(pma_decode_port_counters(m, sizeof(m), 5, 42, &c), -EPROTO);
}

/* ClassPortInfo as ibsim's do_cpi answers a switch: CapabilityMask 0x1300; CapabilityMask2. */
static void test_class_port_info(void **state)
{
	uint8_t m[MAD_SIZE];
	struct pma_class_info ci = { 0 };

	(void)state;
	pma_encode_class_port_info(77, m);
	assert_int_equal(m[3], 0x01);
	assert_int_equal(m[16] << 8 | m[17], 0x0001);
	m[3] = 0x81;
	m[64] = 1;                  /* BaseVersion */
	m[65] = 1;                  /* ClassVersion */
	m[66] = 0x13; m[67] = 0x00; /* AllPortSelect, ExtWidth, XmitWait */
	/* CapabilityMask2 bit 1 (27 bits above RespTimeValue's 5): 0x2 << 5; RespTime 0x12. */
	m[68] = 0; m[69] = 0; m[70] = 0; m[71] = 0x40 | 0x12;
	assert_int_equal(pma_decode_class_port_info(m, sizeof(m), 77, &ci), 0);
	assert_int_equal(ci.cap, 0x1300);
	assert_int_equal(ci.cap2, PMA_CAP2_ADDL_PORT_COUNTERS_EXT);
	assert_true(pma_has_ext(&ci));
	assert_true(pma_has_ext_errors(&ci));
	ci.cap = PMA_CAP_EXT_WIDTH_NOIETF;
	assert_true(pma_has_ext(&ci));
	ci.cap = PMA_CAP_ALL_PORT_SELECT | PMA_CAP_XMIT_WAIT;
	assert_false(pma_has_ext(&ci));
	assert_false(pma_has_ext_errors(&ci));
	assert_int_equal(pma_decode_class_port_info(m, 64 + 7, 77, &ci), -EPROTO);
	assert_int_equal(pma_decode_class_port_info(m, sizeof(m), 78, &ci), -EPROTO);
	m[17] = 0x12; /* PortCounters, not ClassPortInfo */
	assert_int_equal(pma_decode_class_port_info(m, sizeof(m), 77, &ci), -EPROTO);
}

static void put64(uint8_t *p, uint64_t v)
{
	for (unsigned i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (56 - 8 * i));
}

/* PortCountersExtended (IBA 16.1.4.11): 64-bit data counters, then the additional error ones. */
static void test_ext(void **state)
{
	uint8_t m[MAD_SIZE];
	uint8_t *d = m + 64;
	struct pma_counters c;

	(void)state;
	pma_encode_port_counters_ext(4, 9, false, m);
	assert_int_equal(m[3], 0x01);
	assert_int_equal(m[16] << 8 | m[17], 0x001d);
	assert_int_equal(m[65], 4);
	assert_int_equal(m[68], 0); /* a Get selects nothing more */
	pma_encode_port_counters_ext(4, 9, true, m);
	assert_int_equal(m[3], 0x02);
	assert_int_equal(m[66] << 8 | m[67], 0xffff);
	assert_int_equal(m[68] & m[69] & m[70] & m[71], 0xff);

	pma_encode_port_counters_ext(4, 9, false, m);
	m[3] = 0x81;
	put64(d + 8, 10000000000ull);  /* PortXmitData */
	put64(d + 16, 1ull << 40);     /* PortRcvData */
	put64(d + 24, 7);              /* PortXmitPkts */
	put64(d + 32, UINT64_MAX);     /* PortRcvPkts: at its top */
	for (unsigned i = 0; i < _PMA_COUNTER_MAX; i++)
		put64(d + 72 + 8 * i, 100000 + i);

	/* Data counters only: the error counters stay PortCounters' ones. */
	c = (struct pma_counters){ .v = { [PMA_SYMBOL_ERRORS] = 65535 }, .data = { 1, 2, 3, 4 } };
	assert_false(pma_data_saturated(&c, PMA_RCV_PKTS));
	c.data[PMA_RCV_PKTS] = UINT32_MAX;
	assert_true(pma_data_saturated(&c, PMA_RCV_PKTS));
	assert_true(pma_saturated(&c, PMA_SYMBOL_ERRORS));
	assert_int_equal(pma_decode_port_counters_ext(m, sizeof(m), 4, 9, false, &c), 0);
	assert_true(c.wide_data);
	assert_false(c.wide_errors);
	assert_true(c.data[PMA_XMIT_DATA] == 10000000000ull);
	assert_true(c.data[PMA_RCV_DATA] == 1ull << 40);
	assert_int_equal(c.data[PMA_XMIT_PKTS], 7);
	assert_true(pma_data_saturated(&c, PMA_RCV_PKTS));
	assert_int_equal(c.v[PMA_SYMBOL_ERRORS], 65535);
	assert_true(pma_saturated(&c, PMA_SYMBOL_ERRORS));

	/* With the additional counters: every error counter 64 bits, 65535 no longer the top. */
	put64(d + 72, 65535);
	assert_int_equal(pma_decode_port_counters_ext(m, sizeof(m), 4, 9, true, &c), 0);
	assert_true(c.wide_errors);
	assert_int_equal(c.v[PMA_SYMBOL_ERRORS], 65535);
	assert_false(pma_saturated(&c, PMA_SYMBOL_ERRORS));
	assert_int_equal(c.v[PMA_XMIT_WAIT], 100000 + PMA_XMIT_WAIT);
	assert_string_equal(pma_data_name(PMA_RCV_DATA), "PortRcvData");

	/* Short: the data counters need 40 bytes, the error counters 176; c untouched. */
	c.data[PMA_XMIT_PKTS] = 1;
	assert_int_equal(pma_decode_port_counters_ext(m, 64 + 39, 4, 9, false, &c), -EPROTO);
	assert_int_equal(pma_decode_port_counters_ext(m, 64 + 175, 4, 9, true, &c), -EPROTO);
	assert_int_equal(pma_decode_port_counters_ext(m, 64 + 40, 4, 9, false, &c), 0);
	assert_int_equal(c.data[PMA_XMIT_PKTS], 7);
	assert_int_equal(pma_decode_port_counters_ext(m, sizeof(m), 5, 9, false, &c), -EPROTO);
	m[5] = 0x0c;
	assert_int_equal(pma_decode_port_counters_ext(m, sizeof(m), 4, 9, false, &c), -EREMOTEIO);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_encode),
		cmocka_unit_test(test_decode),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_class_port_info),
		cmocka_unit_test(test_ext),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
