/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for the test rig's M_Key rules (tests/rig/mkey.c, IBA 14.2.4):
 * the verdict for each protect level, method and key; a port with M_Key 0;
 * the violation counter; the lease countdown (started by a violation, stopped
 * by a good key, protection 0 when it ends); PortInfo bytes written and
 * shown; trap 256's Notice bytes. Bytes are compared at their IBA offsets.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "tests/rig/mkey.h"

#define KEY 0x1122334455667788ULL
#define BAD 0x0badULL

static struct mkey_table tab;

static struct mkey_port *port(uint8_t protect, uint16_t lease)
{
	struct mkey_port *p;

	memset(&tab, 0, sizeof(tab));
	p = mkey_get(&tab, 0x10, true);
	assert_non_null(p);
	p->key = KEY;
	p->protect = protect;
	p->lease = lease;
	return p;
}

static void test_levels(void **state)
{
	(void)state;
	for (uint8_t lvl = 0; lvl < 4; lvl++) {
		struct mkey_port *p = port(lvl, 0);
		enum mkey_verdict get = lvl == 0 ? MKEY_PASS :
					lvl == 1 ? MKEY_PASS_HIDDEN : MKEY_FAIL;

		assert_int_equal(mkey_check(p, KEY, MKEY_METHOD_GET, 0), MKEY_PASS);
		assert_int_equal(mkey_check(p, KEY, MKEY_METHOD_SET, 0), MKEY_PASS);
		assert_int_equal(p->violations, 0);
		assert_int_equal(mkey_check(p, BAD, MKEY_METHOD_GET, 0), get);
		assert_int_equal(p->violations, lvl >= 2 ? 1 : 0);
		assert_int_equal(mkey_check(p, BAD, MKEY_METHOD_SET, 0), MKEY_FAIL);
		assert_int_equal(mkey_check(p, 0, MKEY_METHOD_SET, 0), MKEY_FAIL);
		assert_int_equal(mkey_check(p, BAD, MKEY_METHOD_TRAP_REPRESS, 0), MKEY_FAIL);
		assert_int_equal(p->violations, lvl >= 2 ? 4 : 3);
		/* Answers and traps are not checked. */
		assert_int_equal(mkey_check(p, BAD, 0x81, 0), MKEY_PASS);
		assert_int_equal(mkey_check(p, BAD, 0x05, 0), MKEY_PASS);
	}
}

static void test_no_key(void **state)
{
	struct mkey_port *p = port(3, 60);

	(void)state;
	p->key = 0; /* IBA 14.2.4.1: M_Key 0 checks nothing */
	assert_int_equal(mkey_check(p, BAD, MKEY_METHOD_GET, 0), MKEY_PASS);
	assert_int_equal(mkey_check(p, BAD, MKEY_METHOD_SET, 0), MKEY_PASS);
	assert_int_equal(p->violations, 0);
	assert_int_equal(p->lease_end, 0);
	/* A port never given a key. */
	assert_int_equal(mkey_check(NULL, BAD, MKEY_METHOD_SET, 0), MKEY_PASS);
}

static void test_lease(void **state)
{
	struct mkey_port *p = port(2, 5);

	(void)state;
	assert_int_equal(mkey_check(p, BAD, MKEY_METHOD_GET, 1000), MKEY_FAIL);
	assert_int_equal(p->lease_end, 6000);
	/* Later violations do not restart it. */
	assert_int_equal(mkey_check(p, BAD, MKEY_METHOD_SET, 3000), MKEY_FAIL);
	assert_int_equal(p->lease_end, 6000);
	assert_int_equal(mkey_check(p, BAD, MKEY_METHOD_GET, 5999), MKEY_FAIL);
	/* It ran out: protect 0, the key stays, Gets pass, Sets still need it. */
	assert_int_equal(mkey_check(p, BAD, MKEY_METHOD_GET, 6000), MKEY_PASS);
	assert_int_equal(p->protect, 0);
	assert_int_equal(p->key, KEY);
	assert_int_equal(mkey_check(p, BAD, MKEY_METHOD_SET, 6001), MKEY_FAIL);

	/* A good key stops the countdown. */
	p = port(2, 5);
	assert_int_equal(mkey_check(p, BAD, MKEY_METHOD_GET, 0), MKEY_FAIL);
	assert_int_equal(mkey_check(p, KEY, MKEY_METHOD_GET, 1000), MKEY_PASS);
	assert_int_equal(p->lease_end, 0);
	assert_int_equal(mkey_check(p, BAD, MKEY_METHOD_GET, 9000), MKEY_FAIL);
	assert_int_equal(p->protect, 2);

	/* Lease 0: never expires. */
	p = port(2, 0);
	assert_int_equal(mkey_check(p, BAD, MKEY_METHOD_GET, 0), MKEY_FAIL);
	assert_int_equal(p->lease_end, 0);
	assert_int_equal(mkey_check(p, BAD, MKEY_METHOD_GET, 1000000), MKEY_FAIL);
}

static void test_violations_saturate(void **state)
{
	struct mkey_port *p = port(2, 0);

	(void)state;
	p->violations = 0xfffe;
	mkey_check(p, BAD, MKEY_METHOD_SET, 0);
	mkey_check(p, BAD, MKEY_METHOD_SET, 0);
	assert_int_equal(p->violations, 0xffff);
}

static void test_portinfo(void **state)
{
	uint8_t pi[64] = { 0 };
	struct mkey_port *p = port(0, 0);

	(void)state;
	memcpy(pi, "\x11\x22\x33\x44\x55\x66\x77\x88", 8); /* M_Key */
	pi[16] = 0x00, pi[17] = 0x07;  /* LID 7 */
	pi[18] = 0x00, pi[19] = 0x01;  /* MasterSMLID 1 */
	pi[26] = 0x00, pi[27] = 0x2a;  /* M_KeyLeasePeriod 42 */
	pi[34] = 0x80 | 0x03;          /* protect 2, LMC 3 */
	assert_true(mkey_pi_has_key(pi));
	p->violations = 9;
	mkey_store(p, pi); /* M_KeyViolations written 0: reset */
	assert_int_equal(p->key, KEY);
	assert_int_equal(p->protect, 2);
	assert_int_equal(p->lease, 42);
	assert_int_equal(p->lid, 7);
	assert_int_equal(p->sm_lid, 1);
	assert_int_equal(p->violations, 0);

	p->violations = 0x0102;
	memset(pi, 0xee, 8);
	pi[34] = 0x03;
	pi[26] = pi[27] = 0;
	mkey_show(p, pi, false);
	assert_memory_equal(pi, "\x11\x22\x33\x44\x55\x66\x77\x88", 8);
	assert_int_equal(pi[34], 0x83); /* LMC kept */
	assert_int_equal(pi[27], 42);
	assert_int_equal(pi[44], 0x01);
	assert_int_equal(pi[45], 0x02);
	mkey_show(p, pi, true);
	assert_memory_equal(pi, "\0\0\0\0\0\0\0\0", 8);

	memset(pi, 0, sizeof(pi));
	pi[34] = 0x07; /* LMC only */
	assert_false(mkey_pi_has_key(pi));
}

static void test_trap256(void **state)
{
	uint8_t smp[256] = { 0 }, n[64];
	struct mkey_port *p = port(2, 0);

	(void)state;
	p->lid = 5;
	smp[1] = 0x81;                    /* directed route */
	smp[3] = MKEY_METHOD_SET;
	smp[7] = 2;                       /* hop count */
	smp[16] = 0x00, smp[17] = 0x15;   /* PortInfo */
	smp[23] = 0x03;                   /* attribute modifier 3 */
	memset(smp + 24, 0xab, 8);        /* the offending M_Key */
	smp[32] = smp[33] = 0xff;         /* DrSLID */
	smp[192] = 1, smp[193] = 4;       /* return path */
	mkey_trap256(p, smp, 9, n);
	assert_int_equal(n[0], 0x82);     /* generic, security */
	assert_int_equal(n[3], 2);        /* producer: switch */
	assert_int_equal(n[4] << 8 | n[5], 256);
	assert_int_equal(n[6] << 8 | n[7], 5);      /* IssuerLID */
	assert_int_equal(n[12] << 8 | n[13], 9);    /* LIDADDR: the requester */
	assert_int_equal(n[14] << 8 | n[15], 0xffff);
	assert_int_equal(n[16], MKEY_METHOD_SET);
	assert_int_equal(n[18] << 8 | n[19], 0x15);
	assert_int_equal(n[23], 3);
	assert_memory_equal(n + 24, smp + 24, 8);
	assert_int_equal(n[33], 0x80 | 2); /* DRNotice, 2 hops */
	assert_int_equal(n[34], 1);
	assert_int_equal(n[35], 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_levels),
		cmocka_unit_test(test_no_key),
		cmocka_unit_test(test_lease),
		cmocka_unit_test(test_violations_saturate),
		cmocka_unit_test(test_portinfo),
		cmocka_unit_test(test_trap256),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
