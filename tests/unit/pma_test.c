/* SPDX-License-Identifier: MIT */
/* mad/pma.c: a PortCounters Get as perfquery sends it, and its answer decoded field by field. */
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_encode),
		cmocka_unit_test(test_decode),
		cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
