/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for the topology reader (model/topo*.c) on good input: ibsim's
 * rules (how GUIDs are given and made up, port options, explicit port
 * GUIDs), lines the reader skips, records without a blank line. The two
 * file forms are in topo_test.c; every error with its exact message is in
 * topo_bad_test.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "lib/cleanup.h"
#include "lib/diag.h"
#include "model/subnet.h"
#include "model/topo.h"
#include "tests/unit/topo_fixture.h"

/* ---- ibsim's rules ------------------------------------------------------ */

/* Checked against ibsim + ibnetdiscover, except the router default (ibsim's is 0). */
static void test_guid_rules(void **state)
{
	struct subnet *sn = tfx_read_ok("switchguid=0x5000\n"
				    "vendid=0x2c9\n"
				    "devid=0xd2f0\n"
				    "sysimgguid=0x777\n"
				    "Switch 8 \"A\" # \"switch A\" enhanced port 0 lid 3 lmc 1\n"
				    "\n"
				    "switchguid+0x10\n"
				    "Switch 4 \"B\"\n"
				    "\n"
				    "Switch 4 \"C\" # unquoted desc lid 9\n"
				    "\n"
				    "caguid=0xabc000\n"
				    "Hca 2 \"H1\"\n"
				    "\n"
				    "hcaguids=0xabc100\n"
				    "Ca 1 \"H2\"\n"
				    "\n"
				    "Ca 3 \"H3\"\n"
				    "\n"
				    "Rt 1 \"R0\"\n"
				    "\n"
				    "rtguid=0x9000\n"
				    "Rt 2 \"R1\"\n"
				    "\n"
				    "switchguid=0x6000(6001)\n"
				    "Switch 2 \"D\"\n");
	static const struct {
		const char *name;
		uint64_t guid, sysguid, port1;
		uint32_t vendor;
	} want[] = {
		{ "A", 0x5000, 0x777, 0, 0x2c9 },
		/* sysimgguid= and vendid= were for A only; devid= stays. */
		{ "B", 0x5010, 0x5010, 0, 0 },
		{ "C", 0x5011, 0x5011, 0, 0 },
		{ "H1", 0xabc000, 0xabc000, 0xabc001, 0 },
		{ "H2", 0xabc100, 0xabc100, 0xabc101, 0 },
		/* A CA uses nports + 1 GUIDs. */
		{ "H3", 0xabc102, 0xabc102, 0xabc103, 0 },
		{ "R0", 0x300000, 0x300000, 0x300001, 0 },
		{ "R1", 0x9000, 0x9000, 0x9001, 0 },
		{ "D", 0x6000, 0x6000, 0, 0 },
	};

	(void)state;
	assert_int_equal(sn->n_nodes, ARRAY_SIZE(want));
	for (unsigned i = 0; i < ARRAY_SIZE(want); i++) {
		const struct subnet_node *nd = &sn->node[tfx_node(sn, want[i].name)];

		assert_int_equal(nd->guid, want[i].guid);
		assert_int_equal(nd->sysguid, want[i].sysguid);
		assert_int_equal(nd->vendor_id, want[i].vendor);
		assert_int_equal(nd->device_id, 0xd2f0);
		if (want[i].port1)
			assert_int_equal(tfx_port(sn, want[i].name, 1)->guid, want[i].port1);
	}
	assert_string_equal(subnet_str(sn, sn->node[0].desc), "switch A");
	assert_int_equal(tfx_port(sn, "A", 0)->lid, 3);
	assert_int_equal(tfx_port(sn, "A", 0)->lmc, 1);
	/* ibsim's unquoted description runs up to " lid ". */
	assert_string_equal(subnet_str(sn, sn->node[2].desc), "unquoted desc");
	assert_int_equal(tfx_port(sn, "C", 0)->lid, 9);
	/* "enhanced port 0" as ibsim reads it: SwitchInfo:EnhancedPort0 (base when unsaid). */
	assert_int_equal(tfx_port(sn, "A", 0)->flags, SUBNET_PORT_ENHANCED0);
	assert_int_equal(tfx_port(sn, "B", 0)->flags, 0);
	assert_int_equal(tfx_port(sn, "C", 0)->flags, 0);
	assert_int_equal(tfx_port(sn, "A", 1)->flags, 0);
	assert_int_equal(tfx_port(sn, "H3", 3)->guid, 0xabc105);
	/* switchguid=X(Y): Y is the port GUID. */
	assert_int_equal(sn->node[8].port0_guid, 0x6001);
	assert_int_equal(tfx_port(sn, "D", 0)->guid, 0x6001);
	assert_int_equal(subnet_find_port_guid(sn, 0x6001), subnet_port_idx(sn, 8, 0));
	assert_int_equal(subnet_find_guid(sn, 0x6000), 8);
	subnet_free(sn);
}

/* ibsim's enabled masks w=, s=, e= (and width= for later ports) give a rate
 * only when they have a single bit. */
static void test_port_options(void **state)
{
	struct subnet *sn = tfx_read_ok("width=2\n"
				    "Switch 8 \"s\"\n"
				    "[1] \"h1\"[1] w=1\n"
				    "[2] \"h2\"[1] w=3\n"
				    "[3] \"h3\"[1] s=2\n"
				    "[4] \"h4\"[1] s=0\n"
				    "[5] \"h5\"[1] e=4 s=4 # HDR\n"
				    "[6] \"h6\"[1] s=3\n"
				    "\n"
				    "Hca 1 \"h1\"\n[1] \"s\"[1] w=1\n\n"
				    "Hca 1 \"h2\"\n[1] \"s\"[2]\n\n"
				    "Hca 1 \"h3\"\n[1] \"s\"[3]\n\n"
				    "Hca 1 \"h4\"\n[1] \"s\"[4]\n\n"
				    "Hca 1 \"h5\"\n[1] \"s\"[5]\n\n"
				    "Hca 1 \"h6\"\n[1] \"s\"[6] w=0x1f\n");
	static const uint8_t width[] = { 1, 2, 2, 2, 2, 2 };
	static const uint8_t speed[] = { 0, 0, SPEED_DDR, SPEED_QDR, SPEED_HDR, 0 };

	(void)state;
	for (unsigned i = 0; i < ARRAY_SIZE(width); i++) {
		assert_int_equal(tfx_port(sn, "s", i + 1)->width, width[i]);
		assert_int_equal(tfx_port(sn, "s", i + 1)->speed, speed[i]);
	}
	subnet_free(sn);

	/* speed= and extspeed= for all later ports; e= of a port wins over both. */
	sn = tfx_read_ok("speed=2\nextspeed=0\n"
		     "Switch 2 \"s\"\n[1] \"h\"[1]\n[2] \"h\"[2] e=2\n\n"
		     "Hca 2 \"h\"\n[1] \"s\"[1]\n[2] \"s\"[2] e=2\n");
	assert_int_equal(tfx_port(sn, "h", 1)->speed, SPEED_DDR);
	assert_int_equal(tfx_port(sn, "h", 2)->speed, SPEED_EDR);
	assert_int_equal(tfx_port(sn, "h", 2)->width, 0);
	subnet_free(sn);
}

/* A CA's lines may give its ports GUIDs that were each other's defaults. */
static void test_explicit_port_guids(void **state)
{
	struct subnet *sn = tfx_read_ok("caguid=0x100\n"
				    "Hca 2 \"h1\"\n"
				    "[1](102) \"s\"[1]\n"
				    "[2](0x101) \"s\"[2]\n"
				    "\n"
				    "Hca 1 \"h2\"\n"
				    "[1](abcdef) \"s\"[3]\n"
				    "\n"
				    "Switch 4 \"s\"\n"
				    "[1] \"h1\"[1](102)\n"
				    "[2] \"h1\"[2](101)\n"
				    "[3] \"h2\"[1]\n");

	(void)state;
	assert_int_equal(tfx_port(sn, "h1", 1)->guid, 0x102);
	assert_int_equal(tfx_port(sn, "h1", 2)->guid, 0x101);
	assert_int_equal(sn->node[tfx_node(sn, "h2")].guid, 0x103);
	assert_int_equal(tfx_port(sn, "h2", 1)->guid, 0xabcdef);
	assert_int_equal(subnet_find_port_guid(sn, 0x102), subnet_port_idx(sn, 0, 1));
	assert_int_equal(subnet_find_port_guid(sn, 0xabcdef), subnet_port_idx(sn, 1, 1));
	assert_int_equal(subnet_find_port_guid(sn, 0x104), SUBNET_NONE);
	assert_int_equal(tfx_count_links(sn), 3);
	subnet_free(sn);
}

/* Lines that are read and dropped, comments inside records, CRLF, no last newline. */
static void test_other_lines(void **state)
{
	struct subnet *sn = tfx_read_ok("Chassis 1 (guid 0x2c90300001234)\r\n"
				    "Hostname: gw01\r\n"
				    "Non-Chassis Nodes\r\n"
				    "do echo hello\r\n"
				    "pdebug=1\r\n"
				    "  Switch\t4 \"s\"   \r\n"
				    "# a comment does not end the record\r\n"
				    "   [1] \"h\"[1]   # a plain comment\r\n"
				    "\t\r\n"
				    "Hca 1 \"h\" # \"the host\"\r\n"
				    "[1] \"s\"[1]");

	(void)state;
	assert_int_equal(sn->n_nodes, 2);
	tfx_assert_link(sn, "s", 1, "h", 1);
	assert_string_equal(subnet_str(sn, sn->node[1].desc), "the host");
	subnet_free(sn);
}

/* A header ends the record before it, blank line or not. */
static void test_record_without_blank(void **state)
{
	struct subnet *sn = tfx_read_ok("Switch 4 \"s\"\n[1] \"h\"[1]\nHca 1 \"h\"\n[1] \"s\"[1]\n");

	(void)state;
	tfx_assert_link(sn, "s", 1, "h", 1);
	subnet_free(sn);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_guid_rules),
		cmocka_unit_test(test_port_options),
		cmocka_unit_test(test_explicit_port_guids),
		cmocka_unit_test(test_other_lines),
		cmocka_unit_test(test_record_without_blank),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
