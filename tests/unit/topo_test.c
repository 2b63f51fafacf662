/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for the topology reader (model/topo*.c) on good input: both file
 * forms, links, parallel links and default ports, a real fabric's file,
 * rates, and includes. ibsim's GUID and port rules are in topo_rules_test.c;
 * every error with its exact message is in topo_bad_test.c.
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

/* ---- the two forms ------------------------------------------------------ */

/* ibnetdiscover run against ibsim on net.2sw2path4hca, after an SM gave LIDs. */
static const char ibnetdiscover_text[] =
	"#\n"
	"# Topology file: generated on Mon Nov 23 02:58:46 2026\n"
	"#\n"
	"# Initiated from node 0000000000200000 port 0000000000200000\n"
	"\n"
	"vendid=0x0\n"
	"devid=0x0\n"
	"sysimgguid=0x200001\n"
	"switchguid=0x200001(200001)\n"
	"Switch\t8 \"S-0000000000200001\"\t\t# \"Switch2\" base port 0 lid 3 lmc 0\n"
	"[1]\t\"H-0000000000100003\"[1](100004) \t\t# \"Hca2\" lid 4 4xSDR\n"
	"[2]\t\"H-0000000000100009\"[1](10000a) \t\t# \"Hca4\" lid 6 4xSDR\n"
	"[3]\t\"S-0000000000200000\"[3]\t\t# \"Switch1\" lid 1 4xSDR\n"
	"[5]\t\"S-0000000000200000\"[5]\t\t# \"Switch1\" lid 1 4xSDR\n"
	"\n"
	"vendid=0x0\n"
	"devid=0x0\n"
	"sysimgguid=0x200000\n"
	"switchguid=0x200000(200000)\n"
	"Switch\t8 \"S-0000000000200000\"\t\t# \"Switch1\" base port 0 lid 1 lmc 0\n"
	"[1]\t\"H-0000000000100000\"[1](100001) \t\t# \"Hca1\" lid 2 4xSDR\n"
	"[2]\t\"H-0000000000100006\"[1](100007) \t\t# \"Hca3\" lid 5 4xSDR\n"
	"[3]\t\"S-0000000000200001\"[3]\t\t# \"Switch2\" lid 3 4xSDR\n"
	"[5]\t\"S-0000000000200001\"[5]\t\t# \"Switch2\" lid 3 4xSDR\n"
	"\n"
	"vendid=0x0\n"
	"devid=0x0\n"
	"sysimgguid=0x100009\n"
	"caguid=0x100009\n"
	"Ca\t2 \"H-0000000000100009\"\t\t# \"Hca4\"\n"
	"[1](10000a) \t\"S-0000000000200001\"[2]\t\t# lid 6 lmc 0 \"Switch2\" lid 3 4xSDR\n"
	"\n"
	"vendid=0x0\n"
	"devid=0x0\n"
	"sysimgguid=0x100003\n"
	"caguid=0x100003\n"
	"Ca\t2 \"H-0000000000100003\"\t\t# \"Hca2\"\n"
	"[1](100004) \t\"S-0000000000200001\"[1]\t\t# lid 4 lmc 0 \"Switch2\" lid 3 4xSDR\n"
	"\n"
	"vendid=0x0\n"
	"devid=0x0\n"
	"sysimgguid=0x100006\n"
	"caguid=0x100006\n"
	"Ca\t2 \"H-0000000000100006\"\t\t# \"Hca3\"\n"
	"[1](100007) \t\"S-0000000000200000\"[2]\t\t# lid 5 lmc 0 \"Switch1\" lid 1 4xSDR\n"
	"\n"
	"vendid=0x0\n"
	"devid=0x0\n"
	"sysimgguid=0x100000\n"
	"caguid=0x100000\n"
	"Ca\t2 \"H-0000000000100000\"\t\t# \"Hca1\"\n"
	"[1](100001) \t\"S-0000000000200000\"[1]\t\t# lid 2 lmc 0 \"Switch1\" lid 1 4xSDR\n";

static void test_ibnetdiscover(void **state)
{
	struct subnet *sn = tfx_read_ok(ibnetdiscover_text);
	const struct subnet_node *nd;

	(void)state;
	assert_int_equal(sn->n_nodes, 6);
	/* Node order is file order: the first node is where the SM attaches. */
	nd = &sn->node[0];
	assert_string_equal(subnet_str(sn, nd->name), "S-0000000000200001");
	assert_string_equal(subnet_str(sn, nd->desc), "Switch2");
	assert_int_equal(nd->type, NODE_SWITCH);
	assert_int_equal(nd->nports, 8);
	assert_int_equal(nd->guid, 0x200001);
	assert_int_equal(nd->sysguid, 0x200001);
	assert_int_equal(nd->port0_guid, 0x200001);
	assert_int_equal(nd->src_line, 10);
	assert_int_equal(tfx_port(sn, "S-0000000000200001", 0)->lid, 3);
	assert_int_equal(tfx_port(sn, "S-0000000000200000", 0)->lid, 1);
	assert_int_equal(tfx_port(sn, "S-0000000000200000", 0)->flags, 0); /* base port 0 */

	nd = &sn->node[tfx_node(sn, "H-0000000000100009")];
	assert_int_equal(nd->type, NODE_CA);
	assert_int_equal(nd->guid, 0x100009);
	assert_string_equal(subnet_str(sn, nd->desc), "Hca4");
	assert_int_equal(tfx_port(sn, "H-0000000000100009", 1)->guid, 0x10000a);
	assert_int_equal(tfx_port(sn, "H-0000000000100009", 1)->lid, 6);
	assert_int_equal(tfx_port(sn, "H-0000000000100009", 1)->lmc, 0);
	assert_int_equal(tfx_port(sn, "H-0000000000100003", 1)->lid, 4);

	assert_int_equal(tfx_count_links(sn), 6);
	tfx_assert_link(sn, "S-0000000000200001", 1, "H-0000000000100003", 1);
	tfx_assert_link(sn, "S-0000000000200001", 2, "H-0000000000100009", 1);
	tfx_assert_link(sn, "S-0000000000200000", 1, "H-0000000000100000", 1);
	/* Two parallel links between the switches. */
	tfx_assert_link(sn, "S-0000000000200001", 3, "S-0000000000200000", 3);
	tfx_assert_link(sn, "S-0000000000200001", 5, "S-0000000000200000", 5);
	assert_int_equal(tfx_port(sn, "S-0000000000200001", 4)->peer, SUBNET_NONE);
	assert_int_equal(tfx_port(sn, "H-0000000000100009", 2)->peer, SUBNET_NONE);
	/* "4xSDR" on both ends. */
	assert_int_equal(tfx_port(sn, "S-0000000000200001", 3)->width, 2);
	assert_int_equal(tfx_port(sn, "S-0000000000200001", 3)->speed, SPEED_SDR);
	assert_int_equal(tfx_port(sn, "H-0000000000100003", 1)->width, 2);
	assert_int_equal(tfx_port(sn, "H-0000000000100003", 1)->speed, SPEED_SDR);
	subnet_free(sn);
}

/* ibsim's net-examples/net.2sw2path4hca, as shipped. */
static const char ibsim_text[] =
	"# Net configuration file example\n"
	"#\n"
	"# The first port in the file is used as the SM port.\n"
	"#\n"
	"\n"
	"Switch\t8 \"Switch1\"\n"
	"[1]\t\"Hca1\"[1]\n"
	"[2]\t\"Hca3\"[1]\n"
	"[3]\t\"Switch2\"[3]\n"
	"[5]\t\"Switch2\"[5]\n"
	"\n"
	"Switch 8 \"Switch2\"\n"
	"[1]\t\"Hca2\"[1]\n"
	"[2]\t\"Hca4\"[1]\n"
	"[3]\t\"Switch1\"[3]\n"
	"[5]\t\"Switch1\"[5]\n"
	"\n"
	"Hca\t2 \"Hca1\"\n"
	"[1]\t\"Switch1\"[1]\n"
	"\n"
	"Hca\t2 \"Hca2\"\n"
	"[1]\t\"Switch2\"[1]\n"
	"\n"
	"Hca\t2 \"Hca3\"\n"
	"[1]\t\"Switch1\"[2]\n"
	"\n"
	"Hca \t2 \"Hca4\"\n"
	"[1]\t\"Switch2\"[2]\n";

/* The GUIDs are the ones ibnetdiscover reads from ibsim for this file. */
static void test_ibsim(void **state)
{
	struct subnet *sn = tfx_read_ok(ibsim_text);
	static const struct {
		const char *name;
		uint64_t guid;
		unsigned line;
	} want[] = {
		{ "Switch1", 0x200000, 6 }, { "Switch2", 0x200001, 12 }, { "Hca1", 0x100000, 18 },
		{ "Hca2", 0x100003, 21 },   { "Hca3", 0x100006, 24 },    { "Hca4", 0x100009, 27 },
	};

	(void)state;
	assert_int_equal(sn->n_nodes, 6);
	for (unsigned i = 0; i < ARRAY_SIZE(want); i++) {
		const struct subnet_node *nd = &sn->node[i];

		assert_string_equal(subnet_str(sn, nd->name), want[i].name);
		assert_string_equal(subnet_str(sn, nd->desc), want[i].name);
		assert_int_equal(nd->guid, want[i].guid);
		assert_int_equal(nd->sysguid, want[i].guid);
		assert_int_equal(nd->src_line, want[i].line);
		if (nd->type == NODE_SWITCH) {
			assert_int_equal(tfx_port(sn, want[i].name, 0)->guid, want[i].guid);
			assert_int_equal(tfx_port(sn, want[i].name, 1)->guid, 0);
		} else {
			assert_int_equal(tfx_port(sn, want[i].name, 1)->guid, want[i].guid + 1);
			assert_int_equal(tfx_port(sn, want[i].name, 2)->guid, want[i].guid + 2);
		}
	}
	assert_int_equal(subnet_find_port_guid(sn, 0x10000a),
			 subnet_port_idx(sn, tfx_node(sn, "Hca4"), 1));
	assert_int_equal(tfx_count_links(sn), 6);
	tfx_assert_link(sn, "Switch1", 1, "Hca1", 1);
	tfx_assert_link(sn, "Switch1", 2, "Hca3", 1);
	tfx_assert_link(sn, "Switch2", 2, "Hca4", 1);
	tfx_assert_link(sn, "Switch1", 3, "Switch2", 3);
	tfx_assert_link(sn, "Switch1", 5, "Switch2", 5);
	/* The short form says nothing of rates. */
	assert_int_equal(tfx_port(sn, "Switch1", 3)->width, 0);
	assert_int_equal(tfx_port(sn, "Switch1", 3)->speed, SPEED_UNKNOWN);
	subnet_free(sn);
}

/* Parallel links from a 2-port HCA to one switch; "[N]" left out means port 1. */
static void test_parallel_and_default_port(void **state)
{
	struct subnet *sn = tfx_read_ok("Switch 8 \"Switch1\"\n"
				    "[1] \"Hca1\"\n"
				    "[2] \"Hca1\"[2]\n"
				    "[7] \"Switch1\"[8]\n"
				    "[8] \"Switch1\"[7]\n"
				    "\n"
				    "Hca 2 \"Hca1\"\n"
				    "[1] \"Switch1\"[1]\n"
				    "[2] \"Switch1\"[2]\n");

	(void)state;
	assert_int_equal(tfx_count_links(sn), 3);
	tfx_assert_link(sn, "Switch1", 1, "Hca1", 1);
	tfx_assert_link(sn, "Switch1", 2, "Hca1", 2);
	/* A loop-back cable between two ports of one switch. */
	tfx_assert_link(sn, "Switch1", 7, "Switch1", 8);
	subnet_free(sn);
}

/* A file an editor saved with a UTF-8 byte-order mark reads as without it. */
static void test_byte_order_mark(void **state)
{
	struct subnet *sn = tfx_read_ok("\xef\xbb\xbfSwitch 8 \"Switch1\"\n"
				    "[1] \"Hca1\"[1]\n"
				    "\n"
				    "Hca 1 \"Hca1\"\n"
				    "[1] \"Switch1\"[1]\n");

	(void)state;
	assert_int_equal(sn->n_nodes, 2);
	tfx_assert_link(sn, "Switch1", 1, "Hca1", 1);
	subnet_free(sn);
}

/* What real fabrics print: HDR/NDR, "[ext N]", routers, odd descriptions. */
static void test_real_fabric(void **state)
{
	struct subnet *sn = tfx_read_ok(
		"# Initiated from node 0002c90300abcd00 port 0002c90300abcd01\n"
		"\n"
		"vendid=0x2c9\n"
		"devid=0xd2f0\n"
		"sysimgguid=0x2c90300a1b2c0\n"
		"switchguid=0x2c90300a1b2c0(2c90300a1b2c0)\n"
		"Switch\t36 \"S-0002c90300a1b2c0\"\t\t# \"MF0;sw01:MQM8700/U1\" enhanced port 0 "
		"lid 3 lmc 0\n"
		"[12]\t\"H-0002c90300abcd00\"[1](2c90300abcd01) \t\t# \"node01 \"HCA\" #1\" lid 12 "
		"4xHDR\n"
		"[13]\t\"R-0002c90300eeee00\"[1](2c90300eeee01) \t\t# \"gw #1\" lid 13 2xNDR\n"
		"[14][ext 3]\t\"H-0002c90300abcd00\"[2](2c90300abcd02) \t\t# \"node01 \"HCA\" #1\" "
		"lid 14 4x???\n"
		"\n"
		"vendid=0x2c9\n"
		"devid=0x101b\n"
		"sysimgguid=0x2c90300abcd06\n"
		"caguid=0x2c90300abcd00\n"
		"Ca\t2 \"H-0002c90300abcd00\"\t\t# \"node01 \"HCA\" #1\"\n"
		"[1](2c90300abcd01) \t\"S-0002c90300a1b2c0\"[12]\t\t# lid 12 lmc 0 "
		"\"MF0;sw01:MQM8700/U1\" lid 3 4xHDR\n"
		"[2](2c90300abcd02) \t\"S-0002c90300a1b2c0\"[14][ext 3]\t\t# lid 14 lmc 2 "
		"\"MF0;sw01:MQM8700/U1\" lid 3 ??SDR\n"
		"\n"
		"vendid=0x2c9\n"
		"devid=0x101b\n"
		"rtguid=0x2c90300eeee00\n"
		"Rt\t1 \"R-0002c90300eeee00\"\t\t# \"gw #1\"\n"
		"[1](2c90300eeee01) \t\"S-0002c90300a1b2c0\"[13]\t\t# lid 13 lmc 0 "
		"\"MF0;sw01:MQM8700/U1\" lid 3 2xNDR\n");
	const struct subnet_node *sw, *ca, *rt;

	(void)state;
	sw = &sn->node[tfx_node(sn, "S-0002c90300a1b2c0")];
	ca = &sn->node[tfx_node(sn, "H-0002c90300abcd00")];
	rt = &sn->node[tfx_node(sn, "R-0002c90300eeee00")];
	assert_string_equal(subnet_str(sn, sw->desc), "MF0;sw01:MQM8700/U1");
	assert_string_equal(subnet_str(sn, ca->desc), "node01 \"HCA\" #1");
	assert_string_equal(subnet_str(sn, rt->desc), "gw #1");
	assert_int_equal(sw->guid, 0x2c90300a1b2c0);
	assert_int_equal(sw->vendor_id, 0x2c9);
	assert_int_equal(sw->device_id, 0xd2f0);
	assert_int_equal(ca->sysguid, 0x2c90300abcd06);
	assert_int_equal(ca->device_id, 0x101b);
	assert_int_equal(rt->type, NODE_ROUTER);
	assert_int_equal(rt->guid, 0x2c90300eeee00);
	assert_int_equal(rt->sysguid, 0x2c90300eeee00);
	assert_int_equal(tfx_port(sn, "S-0002c90300a1b2c0", 0)->lid, 3);
	assert_int_equal(tfx_port(sn, "S-0002c90300a1b2c0", 0)->flags, SUBNET_PORT_ENHANCED0);
	assert_int_equal(tfx_port(sn, "H-0002c90300abcd00", 2)->lid, 14);
	assert_int_equal(tfx_port(sn, "H-0002c90300abcd00", 2)->lmc, 2);
	assert_int_equal(tfx_port(sn, "R-0002c90300eeee00", 1)->lid, 13);

	assert_int_equal(tfx_count_links(sn), 3);
	tfx_assert_link(sn, "S-0002c90300a1b2c0", 12, "H-0002c90300abcd00", 1);
	tfx_assert_link(sn, "S-0002c90300a1b2c0", 13, "R-0002c90300eeee00", 1);
	tfx_assert_link(sn, "S-0002c90300a1b2c0", 14, "H-0002c90300abcd00", 2);
	assert_int_equal(tfx_port(sn, "H-0002c90300abcd00", 1)->width, 2);
	assert_int_equal(tfx_port(sn, "H-0002c90300abcd00", 1)->speed, SPEED_HDR);
	assert_int_equal(tfx_port(sn, "R-0002c90300eeee00", 1)->width, 16);
	assert_int_equal(tfx_port(sn, "R-0002c90300eeee00", 1)->speed, SPEED_NDR);
	/* "4x???" at one end and "??SDR" at the other: each gives what it knows. */
	assert_int_equal(tfx_port(sn, "S-0002c90300a1b2c0", 14)->width, 2);
	assert_int_equal(tfx_port(sn, "S-0002c90300a1b2c0", 14)->speed, SPEED_SDR);
	subnet_free(sn);
}

/* Every rate ibnetdiscover prints, one CA each. */
static void test_rates(void **state)
{
	static const struct {
		const char *text;
		uint8_t width, speed;
	} rate[] = {
		{ "1xSDR", 1, SPEED_SDR },     { "4xDDR", 2, SPEED_DDR },
		{ "12xQDR", 8, SPEED_QDR },    { "4xFDR10", 2, SPEED_FDR10 },
		{ "4xFDR", 2, SPEED_FDR },     { "4xEDR", 2, SPEED_EDR },
		{ "4xHDR", 2, SPEED_HDR },     { "2xNDR", 16, SPEED_NDR },
		{ "8xNDR", 4, SPEED_NDR },     { "4xXDR", 2, SPEED_XDR },
		{ "12xDDR", 8, SPEED_DDR },    { "??HDR", 0, SPEED_HDR },
	};
	char text[4096], *p = text, name[16];
	struct subnet *sn;

	(void)state;
	p += sprintf(p, "Switch 36 \"sw\"\n");
	for (unsigned i = 0; i < ARRAY_SIZE(rate); i++)
		p += sprintf(p, "[%u] \"h%u\"[1](%x) \t\t# \"h%u\" lid %u %s\n", i + 1, i,
			     0x100001 + 2 * i, i, i + 10, rate[i].text);
	for (unsigned i = 0; i < ARRAY_SIZE(rate); i++)
		p += sprintf(p, "\nHca 1 \"h%u\"\n[1] \"sw\"[%u] # lid %u lmc 0 \"sw\" lid 1 %s\n",
			     i, i + 1, i + 10, rate[i].text);
	sn = tfx_read_ok(text);
	for (unsigned i = 0; i < ARRAY_SIZE(rate); i++) {
		snprintf(name, sizeof(name), "h%u", i);
		assert_int_equal(tfx_port(sn, name, 1)->width, rate[i].width);
		assert_int_equal(tfx_port(sn, name, 1)->speed, rate[i].speed);
		assert_int_equal(tfx_port(sn, "sw", i + 1)->width, rate[i].width);
		assert_int_equal(tfx_port(sn, name, 1)->lid, i + 10);
	}
	subnet_free(sn);
}

/* ---- files and includes ------------------------------------------------- */

/* An include is found beside the file that names it; GUID counters carry over. */
static void test_read_file_include(void **state)
{
	struct tfx_dir t = { .path = "/tmp/topo_test.XXXXXX" };
	struct subnet *sn = NULL;
	struct diag d = { 0 };
	char sub[128];
	const char *top;

	(void)state;
	assert_non_null(mkdtemp(t.path));
	snprintf(sub, sizeof(sub), "%s/sub", t.path);
	assert_int_equal(mkdir(sub, 0700), 0);
	top = tfx_write(&t, "main.topo", "Switch 4 \"s\"\n[1] \"h\"[1]\n[2] \"t\"[1]\n"
					 "include \"sub/topo-test-hosts.topo\"\n"
					 "Switch 2 \"t\"\n[1] \"s\"[2]\n");
	tfx_write(&t, "sub/topo-test-hosts.topo", "# hosts\ninclude topo-test-guids.topo\n"
						  "Hca 1 \"h\"\n[1] \"s\"[1]\n");
	tfx_write(&t, "sub/topo-test-guids.topo", "caguid=0x777000\n");
	assert_int_equal(topo_read_file(top, &sn, &d), 0);
	assert_int_equal(diag_count(&d), 0);
	assert_int_equal(sn->n_nodes, 3);
	assert_string_equal(subnet_str(sn, sn->node[1].name), "h");
	assert_int_equal(sn->node[1].guid, 0x777000);
	assert_int_equal(sn->node[1].src_line, 3);
	assert_int_equal(sn->node[2].guid, 0x200001);
	assert_int_equal(sn->node[2].src_line, 5);
	tfx_assert_link(sn, "s", 1, "h", 1);
	tfx_assert_link(sn, "s", 2, "t", 1);
	subnet_free(sn);
	diag_free(&d);
	tfx_remove(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ibnetdiscover),
		cmocka_unit_test(test_ibsim),
		cmocka_unit_test(test_parallel_and_default_port),
		cmocka_unit_test(test_byte_order_mark),
		cmocka_unit_test(test_real_fabric),
		cmocka_unit_test(test_rates),
		cmocka_unit_test(test_read_file_include),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
