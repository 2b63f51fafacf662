/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for the topology reader (sm/topo*.c): both file forms, ibsim's
 * GUID rules, links, rates, and every error with its exact message.
 */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "lib/cleanup.h"
#include "lib/diag.h"
#include "sm/subnet.h"
#include "sm/topo.h"

/* ---- helpers ------------------------------------------------------------ */

static struct subnet *read_ok(const char *text)
{
	struct diag d = { 0 };
	struct subnet *sn = NULL;
	int r = topo_read_mem(text, strlen(text), "t.topo", &sn, &d);

	if (r != 0 || diag_count(&d))
		diag_print(&d, stderr);
	assert_int_equal(r, 0);
	assert_int_equal(diag_count(&d), 0);
	assert_non_null(sn);
	diag_free(&d);
	return sn;
}

/* Read len bytes that must be refused with exactly the messages in want. */
static void read_bad_len(const char *what, const char *text, size_t len,
			 const char *const *want)
{
	struct subnet *sn = (struct subnet *)&sn; /* must stay untouched */
	struct diag d = { 0 };
	unsigned n = 0;
	bool same;
	int r;

	r = topo_read_mem(text, len, "t.topo", &sn, &d);
	while (want[n])
		n++;
	same = d.n == n && !d.dropped;
	for (unsigned i = 0; same && i < n; i++)
		same = strcmp(d.msg[i], want[i]) == 0;
	if (!same) {
		print_message("case \"%s\": got\n", what);
		diag_print(&d, stderr);
		print_message("want\n");
		for (unsigned i = 0; i < n; i++)
			print_message("%s\n", want[i]);
	}
	assert_int_equal(r, -EINVAL);
	assert_ptr_equal(sn, (struct subnet *)&sn);
	assert_true(same);
	diag_free(&d);
}

static uint32_t node(const struct subnet *sn, const char *name)
{
	uint32_t n = subnet_find_name(sn, name);

	assert_int_not_equal(n, SUBNET_NONE);
	return n;
}

static const struct subnet_port *port(const struct subnet *sn, const char *name, unsigned num)
{
	uint32_t n = node(sn, name);

	assert_true(num <= sn->node[n].nports);
	return &sn->port[subnet_port_idx(sn, n, num)];
}

/* Port name[num] is linked to peer[pnum]. */
static void assert_link(const struct subnet *sn, const char *name, unsigned num, const char *peer,
			unsigned pnum)
{
	const struct subnet_port *p = port(sn, name, num);

	assert_int_not_equal(p->peer, SUBNET_NONE);
	assert_int_equal(p->peer, subnet_port_idx(sn, node(sn, peer), pnum));
	assert_int_equal(sn->port[p->peer].peer, p - sn->port);
}

static unsigned count_links(const struct subnet *sn)
{
	unsigned n = 0;

	for (uint32_t p = 0; p < sn->n_ports; p++)
		n += sn->port[p].peer != SUBNET_NONE && sn->port[p].peer > p;
	return n;
}

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
	struct subnet *sn = read_ok(ibnetdiscover_text);
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
	assert_int_equal(port(sn, "S-0000000000200001", 0)->lid, 3);
	assert_int_equal(port(sn, "S-0000000000200000", 0)->lid, 1);

	nd = &sn->node[node(sn, "H-0000000000100009")];
	assert_int_equal(nd->type, NODE_CA);
	assert_int_equal(nd->guid, 0x100009);
	assert_string_equal(subnet_str(sn, nd->desc), "Hca4");
	assert_int_equal(port(sn, "H-0000000000100009", 1)->guid, 0x10000a);
	assert_int_equal(port(sn, "H-0000000000100009", 1)->lid, 6);
	assert_int_equal(port(sn, "H-0000000000100009", 1)->lmc, 0);
	assert_int_equal(port(sn, "H-0000000000100003", 1)->lid, 4);

	assert_int_equal(count_links(sn), 6);
	assert_link(sn, "S-0000000000200001", 1, "H-0000000000100003", 1);
	assert_link(sn, "S-0000000000200001", 2, "H-0000000000100009", 1);
	assert_link(sn, "S-0000000000200000", 1, "H-0000000000100000", 1);
	/* Two parallel links between the switches. */
	assert_link(sn, "S-0000000000200001", 3, "S-0000000000200000", 3);
	assert_link(sn, "S-0000000000200001", 5, "S-0000000000200000", 5);
	assert_int_equal(port(sn, "S-0000000000200001", 4)->peer, SUBNET_NONE);
	assert_int_equal(port(sn, "H-0000000000100009", 2)->peer, SUBNET_NONE);
	/* "4xSDR" on both ends. */
	assert_int_equal(port(sn, "S-0000000000200001", 3)->width, 2);
	assert_int_equal(port(sn, "S-0000000000200001", 3)->speed, SPEED_SDR);
	assert_int_equal(port(sn, "H-0000000000100003", 1)->width, 2);
	assert_int_equal(port(sn, "H-0000000000100003", 1)->speed, SPEED_SDR);
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
	struct subnet *sn = read_ok(ibsim_text);
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
			assert_int_equal(port(sn, want[i].name, 0)->guid, want[i].guid);
			assert_int_equal(port(sn, want[i].name, 1)->guid, 0);
		} else {
			assert_int_equal(port(sn, want[i].name, 1)->guid, want[i].guid + 1);
			assert_int_equal(port(sn, want[i].name, 2)->guid, want[i].guid + 2);
		}
	}
	assert_int_equal(subnet_find_port_guid(sn, 0x10000a),
			 subnet_port_idx(sn, node(sn, "Hca4"), 1));
	assert_int_equal(count_links(sn), 6);
	assert_link(sn, "Switch1", 1, "Hca1", 1);
	assert_link(sn, "Switch1", 2, "Hca3", 1);
	assert_link(sn, "Switch2", 2, "Hca4", 1);
	assert_link(sn, "Switch1", 3, "Switch2", 3);
	assert_link(sn, "Switch1", 5, "Switch2", 5);
	/* The short form says nothing of rates. */
	assert_int_equal(port(sn, "Switch1", 3)->width, 0);
	assert_int_equal(port(sn, "Switch1", 3)->speed, SPEED_UNKNOWN);
	subnet_free(sn);
}

/* Parallel links from a 2-port HCA to one switch; "[N]" left out means port 1. */
static void test_parallel_and_default_port(void **state)
{
	struct subnet *sn = read_ok("Switch 8 \"Switch1\"\n"
				    "[1] \"Hca1\"\n"
				    "[2] \"Hca1\"[2]\n"
				    "[7] \"Switch1\"[8]\n"
				    "[8] \"Switch1\"[7]\n"
				    "\n"
				    "Hca 2 \"Hca1\"\n"
				    "[1] \"Switch1\"[1]\n"
				    "[2] \"Switch1\"[2]\n");

	(void)state;
	assert_int_equal(count_links(sn), 3);
	assert_link(sn, "Switch1", 1, "Hca1", 1);
	assert_link(sn, "Switch1", 2, "Hca1", 2);
	/* A loop-back cable between two ports of one switch. */
	assert_link(sn, "Switch1", 7, "Switch1", 8);
	subnet_free(sn);
}

/* What real fabrics print: HDR/NDR, "[ext N]", routers, odd descriptions. */
static void test_real_fabric(void **state)
{
	struct subnet *sn = read_ok(
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
	sw = &sn->node[node(sn, "S-0002c90300a1b2c0")];
	ca = &sn->node[node(sn, "H-0002c90300abcd00")];
	rt = &sn->node[node(sn, "R-0002c90300eeee00")];
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
	assert_int_equal(port(sn, "S-0002c90300a1b2c0", 0)->lid, 3);
	assert_int_equal(port(sn, "H-0002c90300abcd00", 2)->lid, 14);
	assert_int_equal(port(sn, "H-0002c90300abcd00", 2)->lmc, 2);
	assert_int_equal(port(sn, "R-0002c90300eeee00", 1)->lid, 13);

	assert_int_equal(count_links(sn), 3);
	assert_link(sn, "S-0002c90300a1b2c0", 12, "H-0002c90300abcd00", 1);
	assert_link(sn, "S-0002c90300a1b2c0", 13, "R-0002c90300eeee00", 1);
	assert_link(sn, "S-0002c90300a1b2c0", 14, "H-0002c90300abcd00", 2);
	assert_int_equal(port(sn, "H-0002c90300abcd00", 1)->width, 2);
	assert_int_equal(port(sn, "H-0002c90300abcd00", 1)->speed, SPEED_HDR);
	assert_int_equal(port(sn, "R-0002c90300eeee00", 1)->width, 16);
	assert_int_equal(port(sn, "R-0002c90300eeee00", 1)->speed, SPEED_NDR);
	/* "4x???" at one end and "??SDR" at the other: each gives what it knows. */
	assert_int_equal(port(sn, "S-0002c90300a1b2c0", 14)->width, 2);
	assert_int_equal(port(sn, "S-0002c90300a1b2c0", 14)->speed, SPEED_SDR);
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
	sn = read_ok(text);
	for (unsigned i = 0; i < ARRAY_SIZE(rate); i++) {
		snprintf(name, sizeof(name), "h%u", i);
		assert_int_equal(port(sn, name, 1)->width, rate[i].width);
		assert_int_equal(port(sn, name, 1)->speed, rate[i].speed);
		assert_int_equal(port(sn, "sw", i + 1)->width, rate[i].width);
		assert_int_equal(port(sn, name, 1)->lid, i + 10);
	}
	subnet_free(sn);
}

/* ---- ibsim's rules ------------------------------------------------------ */

/* Checked against ibsim + ibnetdiscover, except the router default (ibsim's is 0). */
static void test_guid_rules(void **state)
{
	struct subnet *sn = read_ok("switchguid=0x5000\n"
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
		const struct subnet_node *nd = &sn->node[node(sn, want[i].name)];

		assert_int_equal(nd->guid, want[i].guid);
		assert_int_equal(nd->sysguid, want[i].sysguid);
		assert_int_equal(nd->vendor_id, want[i].vendor);
		assert_int_equal(nd->device_id, 0xd2f0);
		if (want[i].port1)
			assert_int_equal(port(sn, want[i].name, 1)->guid, want[i].port1);
	}
	assert_string_equal(subnet_str(sn, sn->node[0].desc), "switch A");
	assert_int_equal(port(sn, "A", 0)->lid, 3);
	assert_int_equal(port(sn, "A", 0)->lmc, 1);
	/* ibsim's unquoted description runs up to " lid ". */
	assert_string_equal(subnet_str(sn, sn->node[2].desc), "unquoted desc");
	assert_int_equal(port(sn, "C", 0)->lid, 9);
	assert_int_equal(port(sn, "H3", 3)->guid, 0xabc105);
	/* switchguid=X(Y): Y is the port GUID. */
	assert_int_equal(sn->node[8].port0_guid, 0x6001);
	assert_int_equal(port(sn, "D", 0)->guid, 0x6001);
	assert_int_equal(subnet_find_port_guid(sn, 0x6001), subnet_port_idx(sn, 8, 0));
	assert_int_equal(subnet_find_guid(sn, 0x6000), 8);
	subnet_free(sn);
}

/* ibsim's enabled masks w=, s=, e= (and width= for later ports) give a rate
 * only when they have a single bit. */
static void test_port_options(void **state)
{
	struct subnet *sn = read_ok("width=2\n"
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
		assert_int_equal(port(sn, "s", i + 1)->width, width[i]);
		assert_int_equal(port(sn, "s", i + 1)->speed, speed[i]);
	}
	subnet_free(sn);

	/* speed= and extspeed= for all later ports; e= of a port wins over both. */
	sn = read_ok("speed=2\nextspeed=0\n"
		     "Switch 2 \"s\"\n[1] \"h\"[1]\n[2] \"h\"[2] e=2\n\n"
		     "Hca 2 \"h\"\n[1] \"s\"[1]\n[2] \"s\"[2] e=2\n");
	assert_int_equal(port(sn, "h", 1)->speed, SPEED_DDR);
	assert_int_equal(port(sn, "h", 2)->speed, SPEED_EDR);
	assert_int_equal(port(sn, "h", 2)->width, 0);
	subnet_free(sn);
}

/* A CA's lines may give its ports GUIDs that were each other's defaults. */
static void test_explicit_port_guids(void **state)
{
	struct subnet *sn = read_ok("caguid=0x100\n"
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
	assert_int_equal(port(sn, "h1", 1)->guid, 0x102);
	assert_int_equal(port(sn, "h1", 2)->guid, 0x101);
	assert_int_equal(sn->node[node(sn, "h2")].guid, 0x103);
	assert_int_equal(port(sn, "h2", 1)->guid, 0xabcdef);
	assert_int_equal(subnet_find_port_guid(sn, 0x102), subnet_port_idx(sn, 0, 1));
	assert_int_equal(subnet_find_port_guid(sn, 0xabcdef), subnet_port_idx(sn, 1, 1));
	assert_int_equal(subnet_find_port_guid(sn, 0x104), SUBNET_NONE);
	assert_int_equal(count_links(sn), 3);
	subnet_free(sn);
}

/* Lines that are read and dropped, comments inside records, CRLF, no last newline. */
static void test_other_lines(void **state)
{
	struct subnet *sn = read_ok("Chassis 1 (guid 0x2c90300001234)\r\n"
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
	assert_link(sn, "s", 1, "h", 1);
	assert_string_equal(subnet_str(sn, sn->node[1].desc), "the host");
	subnet_free(sn);
}

/* A header ends the record before it, blank line or not. */
static void test_record_without_blank(void **state)
{
	struct subnet *sn = read_ok("Switch 4 \"s\"\n[1] \"h\"[1]\nHca 1 \"h\"\n[1] \"s\"[1]\n");

	(void)state;
	assert_link(sn, "s", 1, "h", 1);
	subnet_free(sn);
}

/* ---- errors: each file with exactly the messages it must give ----------- */

struct bad_case {
	const char *what;
	const char *text;
	const char *msg[7]; /* NULL-terminated */
};

#define EXPECT_RECORD \
	"(port lines follow their Switch, Ca, Hca or Rt line with no blank line between)"
#define PORT_FORM "(expected: [<port>] \"<remote name>\"[<remote port>])"
#define RATES "(allowed: 1x 2x 4x 8x 12x with SDR DDR QDR FDR10 FDR EDR HDR NDR XDR)"
#define OPTS "(allowed: w=1 to 31, s=0 to 7, e=0 to 15)"

static const struct bad_case bad_cases[] = {
	/* lines */
	{ "unknown keyword",
	  "Hca\t1 \"h1\"\n[1]\t\"s1\"[1]\n\nSwich\t8 \"s1\"\n[1]\t\"h1\"[1]\n",
	  { "t.topo:4: unknown line 'Swich 8 \"s1\"' (expected Switch, Ca, Hca, Rt, a [port] "
	    "line, a guid/vendid/devid line or a # comment)" } },
	{ "keyword glued to a number", "Switch8 \"s1\"\n",
	  { "t.topo:1: unknown line 'Switch8 \"s1\"' (expected Switch, Ca, Hca, Rt, a [port] "
	    "line, a guid/vendid/devid line or a # comment)" } },
	{ "empty file", "", { "t.topo: no nodes found (expected Switch, Ca, Hca or Rt lines)" } },
	{ "comments only", "# nothing but a comment\n\n",
	  { "t.topo: no nodes found (expected Switch, Ca, Hca or Rt lines)" } },

	/* node headers */
	{ "missing port count", "Switch \"s1\"\n",
	  { "t.topo:1: missing port count in 'Switch \"s1\"' (expected: Switch <ports> "
	    "\"<name>\")" } },
	{ "zero ports", "Switch 0 \"s1\"\n",
	  { "t.topo:1: bad port count '0' for Switch \"s1\" (allowed: 1 to 254)" } },
	{ "255 ports", "Hca 255 \"h1\"\n",
	  { "t.topo:1: bad port count '255' for Hca \"h1\" (allowed: 1 to 254)" } },
	{ "port count past 64 bits", "Rt 99999999999999999999999 \"r1\"\n",
	  { "t.topo:1: bad port count '99999999999999999999999' for Rt \"r1\" (allowed: 1 to "
	    "254)" } },
	{ "missing name", "Switch 8\n",
	  { "t.topo:1: missing quoted node name in 'Switch 8' (expected: Switch <ports> "
	    "\"<name>\")" } },
	{ "reserved characters", "Switch 8 \"a#b\"\n\nCa 1 \"c@d\"\n",
	  { "t.topo:1: node name \"a#b\" contains '#' ('#' and '@' are reserved, as in ibsim)",
	    "t.topo:3: node name \"c@d\" contains '@' ('#' and '@' are reserved, as in ibsim)" } },
	{ "empty name", "Switch 8 \"\"\n", { "t.topo:1: empty node name in 'Switch 8 \"\"'" } },
	{ "junk after the name", "Switch 8 \"s1\" junk\n",
	  { "t.topo:1: unexpected 'junk' after the node name (expected a # comment)" } },
	{ "unterminated name", "Switch 8 \"s1\n\nHca 1 \"h1\"\n",
	  { "t.topo:1: unterminated quote in 'Switch 8 \"s1'" } },
	{ "unterminated description", "Switch 8 \"s1\" # \"desc\n",
	  { "t.topo:1: unterminated quote in 'Switch 8 \"s1\" # \"desc'" } },
	{ "header LID", "Switch 4 \"s\" # \"d\" enhanced port 0 lid 49152 lmc 0\n",
	  { "t.topo:1: switch \"s\" port 0: LID 49152 is not a unicast LID (allowed: 0 to "
	    "49151)" } },

	/* port lines */
	{ "port line outside a record", "Switch 8 \"s1\"\n\n[1] \"h1\"[1]\n",
	  { "t.topo:3: port line '[1] \"h1\"[1]' is outside a node record " EXPECT_RECORD } },
	{ "port 0 on a CA", "Hca\t2 \"h1\"\n[0]\t\"s1\"[1]\n\nSwitch\t8 \"s1\"\n",
	  { "t.topo:2: port 0 of CA \"h1\": CA and router ports are numbered from 1" } },
	{ "port 0 on a switch", "Switch 8 \"s1\"\n[0] \"s1\"[1]\n",
	  { "t.topo:2: port 0 of switch \"s1\" is its management port and cannot be linked" } },
	{ "port beyond the node's ports",
	  "Hca\t1 \"h1\"\n[1]\t\"s1\"[1]\n\nSwitch\t8 \"s1\"\n[1]\t\"h1\"[1]\n[9]\t\"h2\"[1]\n\n"
	  "Hca\t1 \"h2\"\n[1]\t\"s1\"[9]\n",
	  { "t.topo:6: port 9 is beyond the 8 ports of switch \"s1\" (line 4)",
	    "t.topo:9: CA \"h2\" port 1: remote port 9 is beyond the 8 ports of switch \"s1\" "
	    "(line 4)" } },
	{ "port listed twice",
	  "Hca\t1 \"h1\"\n[1]\t\"s1\"[1]\n\nSwitch\t8 \"s1\"\n[1]\t\"h1\"[1]\n[1]\t\"h1\"[1]\n",
	  { "t.topo:6: port 1 of switch \"s1\" is listed twice (first at line 5)" } },
	{ "bad port number", "Switch 8 \"s1\"\n[x] \"h1\"[1]\n",
	  { "t.topo:2: bad port number in '[x] \"h1\"[1]' " PORT_FORM } },
	{ "bad remote port numbers",
	  "Switch 8 \"s1\"\n[2] \"h1\"[0]\n[3] \"h1\"[255]\n[4] \"h\"[a]\n",
	  { "t.topo:2: bad remote port number in '[2] \"h1\"[0]' (allowed: 1 to 254)",
	    "t.topo:3: bad remote port number in '[3] \"h1\"[255]' (allowed: 1 to 254)",
	    "t.topo:4: bad remote port number in '[4] \"h\"[a]' (allowed: 1 to 254)" } },
	{ "missing remote name", "Switch 8 \"s1\"\n[1] h1[1]\n",
	  { "t.topo:2: missing quoted remote node name in '[1] h1[1]' " PORT_FORM } },
	{ "empty remote name", "Switch 8 \"s1\"\n[1] \"\"[1]\n",
	  { "t.topo:2: empty remote node name: '[1] \"\"[1]'" } },
	{ "unterminated quote", "Switch 8 \"s1\"\n[2] \"h1[1]\n\n",
	  { "t.topo:2: unterminated quote in '[2] \"h1[1]'" } },
	{ "truncated file",
	  "Hca\t1 \"h1\"\n[1]\t\"s1\"[1]\n\nSwitch\t8 \"s1\"\n[1]\t\"h1\"[1]\n[2]\t\"h2",
	  { "t.topo:6: unterminated quote in '[2] \"h2' (the file looks truncated)" } },
	{ "truncated in a bracket", "Hca 1 \"h1\"\n[1] \"s1\"[1",
	  { "t.topo:2: unterminated '[' in '[1] \"s1\"[1' (the file looks truncated)" } },
	{ "truncated in a port number", "Hca 1 \"h1\"\n[1",
	  { "t.topo:2: unterminated '[' in '[1' (the file looks truncated)" } },
	{ "bad [ext N]", "Switch 8 \"s1\"\n[1][ext x] \"h\"[1]\n",
	  { "t.topo:2: bad '[ext N]' in '[1][ext x] \"h\"[1]'" } },
	{ "truncated in [ext N]", "Switch 8 \"s1\"\n[1][ext 3",
	  { "t.topo:2: unterminated '[' in '[1][ext 3' (the file looks truncated)" } },
	{ "truncated in a port GUID", "Hca 1 \"h1\"\n[1](12",
	  { "t.topo:2: unterminated '(' in '[1](12' (the file looks truncated)" } },
	{ "aliases", "Switch 8 \"s1\"\n[5] \"h1@x\"[1]\n@a \"x\"\n",
	  { "t.topo:2: aliases ('@') are not supported: '[5] \"h1@x\"[1]'",
	    "t.topo:3: aliases ('@') are not supported: '@a \"x\"'" } },
	{ "bad port options", "Switch 8 \"s1\"\n[1] \"h1\"[1] w=0\n[2] \"h1\"[2] s=8\n"
	  "[3] \"h1\"[3] e=0x10\n",
	  { "t.topo:2: bad port option 'w=0' " OPTS, "t.topo:3: bad port option 's=8' " OPTS,
	    "t.topo:4: bad port option 'e=0x10' " OPTS } },
	{ "unknown port option", "Switch 8 \"s1\"\n[1] \"h1\"[1] q=1\n[2] \"h1\"[2] junk\n",
	  { "t.topo:2: unexpected 'q=1' after the link (expected options w=, s=, e= or a # "
	    "comment)",
	    "t.topo:3: unexpected 'junk' after the link (expected options w=, s=, e= or a # "
	    "comment)" } },
	{ "GUID on a switch port", "Switch 8 \"s1\"\n[1](1234) \"h1\"[1]\n",
	  { "t.topo:2: switch \"s1\" port 1: a switch port has no GUID of its own (all share the "
	    "switchguid)" } },
	{ "bad port GUIDs", "Hca 2 \"h1\"\n[1](0) \"s\"[1]\n[2](12 \"s\"[2]\n",
	  { "t.topo:2: bad port GUID in '[1](0) \"s\"[1]' (expected (<hex GUID>), not 0)",
	    "t.topo:3: bad port GUID in '[2](12 \"s\"[2]' (expected (<hex GUID>), not 0)" } },
	{ "bad LID, LMC and rate",
	  "Hca 1 \"h1\"\n[1] \"s\"[1] # lid 70000 lmc 9 \"s\" lid 1 4xQQQ\n\n"
	  "Switch 4 \"s\"\n[1] \"h1\"[1] # \"h1\" lid 1 3xSDR\n",
	  { "t.topo:2: CA \"h1\" port 1: LID 70000 is not a unicast LID (allowed: 0 to 49151)",
	    "t.topo:2: CA \"h1\" port 1: bad LMC 9 (allowed: 0 to 7)",
	    "t.topo:2: unknown link width or speed '4xQQQ' " RATES,
	    "t.topo:5: unknown link width or speed '3xSDR' " RATES } },

	/* names and GUIDs */
	{ "duplicate name",
	  "Hca\t1 \"h1\"\n[1]\t\"s1\"[1]\n\nSwitch\t8 \"s1\"\n[1]\t\"h1\"[1]\n\nSwitch\t8 \"s1\"\n",
	  { "t.topo:7: node name \"s1\" is already used by the switch at line 4" } },
	{ "duplicate node GUID",
	  "caguid=0x100\nHca\t1 \"h1\"\n[1]\t\"s1\"[1]\n\nswitchguid=0x5000\nSwitch\t8 \"s1\"\n"
	  "[1]\t\"h1\"[1]\n[2]\t\"s2\"[2]\n\nswitchguid=0x5000\nSwitch\t8 \"s2\"\n[2]\t\"s1\"[2]\n",
	  { "t.topo:11: switch \"s2\" has GUID 0x0000000000005000, already used by switch \"s1\" "
	    "(line 6)" } },
	{ "port GUID given twice",
	  "caguid=0x100\nHca 2 \"h1\"\n\nHca 2 \"h2\"\n[1](101) \"s\"[1]\n\nSwitch 4 \"s\"\n"
	  "[1] \"h2\"[1]\n",
	  { "t.topo:5: CA \"h2\" port 1 has port GUID 0x0000000000000101, already used by CA "
	    "\"h1\" port 1 (line 2)" } },
	{ "given port GUID is a later default",
	  "caguid=0x100\nHca 2 \"h1\"\n[1](105) \"s1\"[1]\n\nHca 2 \"h2\"\n\nswitchguid=0x101\n"
	  "Switch 4 \"s1\"\n[1] \"h1\"[1]\n",
	  { "t.topo:5: CA \"h2\" port 2 has port GUID 0x0000000000000105, already used by CA "
	    "\"h1\" port 1 (line 3)" } },
	{ "default port GUIDs clash",
	  "caguid=0x100\nHca 2 \"h1\"\n\nswitchguid=0x102\nSwitch 4 \"s\"\n",
	  { "t.topo:5: switch \"s\" port 0 has port GUID 0x0000000000000102, already used by CA "
	    "\"h1\" port 2 (line 2)" } },
	{ "switch port GUID clash", "caguid=0x100\nHca 1 \"h1\"\n\nswitchguid=0x200(101)\n"
	  "Switch 4 \"s\"\n",
	  { "t.topo:5: switch \"s\" port 0 has port GUID 0x0000000000000101, already used by CA "
	    "\"h1\" port 1 (line 2)" } },
	{ "GUID 0", "switchguid=0\nSwitch 4 \"s1\"\n\nrtguid=0x0\nRt 1 \"r1\"\n",
	  { "t.topo:2: switch \"s1\" would get GUID 0 (give it one with switchguid=)",
	    "t.topo:5: router \"r1\" would get GUID 0 (give it one with rtguid=)" } },

	/* links */
	{ "missing remote node",
	  "Hca\t1 \"h1\"\n[1]\t\"s1\"[1]\n\nSwitch\t8 \"s1\"\n[1]\t\"h1\"[1]\n[2]\t\"ghost\"[1]\n",
	  { "t.topo:6: switch \"s1\" port 2: remote node \"ghost\" does not exist" } },
	{ "remote port beyond", "Hca\t1 \"h1\"\n[1]\t\"s1\"[12]\n\nSwitch\t8 \"s1\"\n",
	  { "t.topo:2: CA \"h1\" port 1: remote port 12 is beyond the 8 ports of switch \"s1\" "
	    "(line 4)" } },
	{ "link the other end disagrees with",
	  "Hca\t1 \"h1\"\n[1]\t\"a\"[1]\n\nSwitch\t8 \"a\"\n[1]\t\"h1\"[1]\n[3]\t\"b\"[3]\n\n"
	  "Switch\t8 \"b\"\n[3]\t\"c\"[1]\n\nSwitch\t8 \"c\"\n[1]\t\"b\"[3]\n",
	  { "t.topo:6: switch \"a\" port 3 is linked to switch \"b\" port 3, but that port "
	    "(line 9) is linked to \"c\" port 1" } },
	{ "one-sided links",
	  "Hca\t1 \"h1\"\n[1]\t\"a\"[1]\n\nSwitch\t8 \"a\"\n[1]\t\"h1\"[1]\n[3]\t\"b\"[3]\n\n"
	  "Switch\t8 \"b\"\n[4]\t\"h1\"[1]\n",
	  { "t.topo:6: switch \"a\" port 3 is linked to switch \"b\" port 3, but switch \"b\" "
	    "(line 8) lists nothing on port 3 (both ends of a link must be listed)",
	    "t.topo:9: switch \"b\" port 4 is linked to CA \"h1\" port 1, but that port (line 2) "
	    "is linked to \"a\" port 1" } },
	{ "port linked to itself", "Switch 4 \"s1\"\n[1] \"s1\"[1]\n",
	  { "t.topo:2: switch \"s1\" port 1 is linked to itself" } },
	{ "wrong remote port GUID",
	  "Switch 4 \"s1\"\n[2] \"h1\"[1](999)\n\nHca 1 \"h1\"\n[1] \"s1\"[2]\n",
	  { "t.topo:2: switch \"s1\" port 2: the line gives CA \"h1\" port 1 GUID "
	    "0x0000000000000999, but its GUID is 0x0000000000100001" } },
	{ "ends disagree on the rate",
	  "Switch 4 \"s1\"\n[3] \"h1\"[2] w=1\n[4] \"h2\"[1] # \"h2\" lid 0 4xEDR\n\n"
	  "Hca 2 \"h1\"\n[2] \"s1\"[3] w=2\n\nHca 1 \"h2\"\n[1] \"s1\"[4] # lid 0 lmc 0 \"s1\" "
	  "lid 0 4xHDR\n",
	  { "t.topo:2: switch \"s1\" port 3 and CA \"h1\" port 2 (line 6) disagree on the link "
	    "rate (1x here, 4x there)",
	    "t.topo:3: switch \"s1\" port 4 and CA \"h2\" port 1 (line 9) disagree on the link "
	    "rate (4xEDR here, 4xHDR there)" } },

	/* keyword lines */
	{ "bad values",
	  "vendid=0x1000000\ndevid=x\nwidth=0\nspeed=8\nextspeed=16\nsysimgguid\nSwitch 1 \"s\"\n",
	  { "t.topo:1: bad value in 'vendid=0x1000000' (allowed: vendid=0 to 0xffffff)",
	    "t.topo:2: bad value in 'devid=x' (allowed: devid=0 to 0xffff)",
	    "t.topo:3: bad value in 'width=0' (allowed: width=1 to 31)",
	    "t.topo:4: bad value in 'speed=8' (allowed: speed=1 to 7)",
	    "t.topo:5: bad value in 'extspeed=16' (allowed: extspeed=0 to 15)",
	    "t.topo:6: bad value in 'sysimgguid' (allowed: sysimgguid=<GUID>)" } },
	{ "bad GUID lines", "caguid 5\nswitchguid=5(0)\nrtguid=5(1)\nSwitch 1 \"s\"\n",
	  { "t.topo:1: bad value in 'caguid 5' (expected: caguid=<GUID> or caguid+<offset>)",
	    "t.topo:2: bad value in 'switchguid=5(0)' (expected: switchguid=<GUID>[(<port "
	    "GUID>)] or switchguid+<offset>)",
	    "t.topo:3: bad value in 'rtguid=5(1)' (expected: rtguid=<GUID> or rtguid+<offset>)" } },
	{ "module", "module \"m\"\nSwitch 1 \"s\"\n",
	  { "t.topo:1: 'module' is not supported (ibsim would prefix the names of later nodes): "
	    "'module \"m\"'" } },
	{ "include from memory", "include \"a.topo\"\nSwitch 1 \"s\"\n",
	  { "t.topo:1: 'include' works only in a file read from disk: 'include \"a.topo\"'" } },

	/* all problems of a file, in order, parsing on past each */
	{ "many problems",
	  "Switch 4 \"s\"\n[1] \"h\"[1]\n[2] \"ghost\"[1]\n[9] \"h\"[2]\n\n"
	  "Hca 2 \"h\"\n[1] \"s\"[1]\nBogus\n",
	  { "t.topo:4: port 9 is beyond the 4 ports of switch \"s\" (line 1)",
	    "t.topo:8: unknown line 'Bogus' (expected Switch, Ca, Hca, Rt, a [port] line, a "
	    "guid/vendid/devid line or a # comment)",
	    "t.topo:3: switch \"s\" port 2: remote node \"ghost\" does not exist" } },
};

static void test_errors(void **state)
{
	(void)state;
	for (unsigned i = 0; i < ARRAY_SIZE(bad_cases); i++)
		read_bad_len(bad_cases[i].what, bad_cases[i].text, strlen(bad_cases[i].text),
			     bad_cases[i].msg);
}

static void test_long_line_and_nul(void **state)
{
	static const char nul[] =
		"Switch 4 \"s1\"\n[1] \"h\"[1] # x\0y\n\nHca 1 \"h\"\n[1] \"s1\"[1]\n";
	static const char nul_opt[] = "Switch 4 \"s1\"\n[1] \"s1\"[2] \0=0x10\n[2] \"s1\"[1]\n";
	enum { SIZE = 5000 + 64 };
	_cleanup_free_ char *text = malloc(SIZE);
	size_t len;

	(void)state;
	assert_non_null(text);
	/* A long comment inside a record: reported, and the record still reads. */
	len = (size_t)snprintf(text, SIZE, "Switch 4 \"s1\"\n# %0*d\n[1] \"h\"[1]\n\nHca 1 \"h\"\n"
				       "[1] \"s1\"[1]\n", 5000, 0);
	read_bad_len("long line", text, len,
		     (const char *const[]){ "t.topo:2: line is longer than 4096 bytes", NULL });
	/* A name too long for the buffers is cut, not overrun. */
	len = (size_t)snprintf(text, SIZE, "Switch 4 \"%0*d\"\n", 5000, 0);
	read_bad_len("long name", text, len,
		     (const char *const[]){ "t.topo:1: line is longer than 4096 bytes", NULL });
	read_bad_len("NUL byte", nul, sizeof(nul) - 1,
		     (const char *const[]){ "t.topo:2: line holds a NUL byte (is this a text "
					    "file?)", NULL });
	/* Found by fuzz_topo: a NUL where an option letter goes was taken as e=. */
	read_bad_len("NUL option", nul_opt, sizeof(nul_opt) - 1,
		     (const char *const[]){
			     "t.topo:2: line holds a NUL byte (is this a text file?)",
			     "t.topo:2: unexpected '?=0x10' after the link (expected options w=, "
			     "s=, e= or a # comment)",
			     NULL });
}

/* ---- files and includes ------------------------------------------------- */

struct tmpdir {
	char path[64];
	char file[16][128];
	unsigned n;
};

static const char *tmp_write(struct tmpdir *t, const char *name, const char *text)
{
	char *path = t->file[t->n++], buf[sizeof(t->file[0])];
	FILE *f;

	assert_true(t->n <= ARRAY_SIZE(t->file));
	snprintf(buf, sizeof(buf), "%s/%s", t->path, name);
	memcpy(path, buf, sizeof(buf));
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

static void tmp_remove(struct tmpdir *t)
{
	char sub[128];

	while (t->n)
		unlink(t->file[--t->n]);
	snprintf(sub, sizeof(sub), "%s/sub", t->path);
	rmdir(sub);
	rmdir(t->path);
}

/* Read a file that must be refused with exactly one message. */
static void read_file_bad(const char *path, int want_r, const char *want)
{
	struct subnet *sn = (struct subnet *)&sn;
	struct diag d = { 0 };
	int r = topo_read_file(path, &sn, &d);

	if (d.n != 1 || strcmp(d.msg[0], want))
		diag_print(&d, stderr);
	assert_int_equal(r, want_r);
	assert_ptr_equal(sn, (struct subnet *)&sn);
	assert_int_equal(diag_count(&d), 1);
	assert_string_equal(d.msg[0], want);
	diag_free(&d);
}

/* An include is found beside the file that names it; GUID counters carry over. */
static void test_read_file_include(void **state)
{
	struct tmpdir t = { .path = "/tmp/topo_test.XXXXXX" };
	struct subnet *sn = NULL;
	struct diag d = { 0 };
	char sub[128];
	const char *top;

	(void)state;
	assert_non_null(mkdtemp(t.path));
	snprintf(sub, sizeof(sub), "%s/sub", t.path);
	assert_int_equal(mkdir(sub, 0700), 0);
	top = tmp_write(&t, "main.topo", "Switch 4 \"s\"\n[1] \"h\"[1]\n[2] \"t\"[1]\n"
					 "include \"sub/topo-test-hosts.topo\"\n"
					 "Switch 2 \"t\"\n[1] \"s\"[2]\n");
	tmp_write(&t, "sub/topo-test-hosts.topo", "# hosts\ninclude topo-test-guids.topo\n"
						  "Hca 1 \"h\"\n[1] \"s\"[1]\n");
	tmp_write(&t, "sub/topo-test-guids.topo", "caguid=0x777000\n");
	assert_int_equal(topo_read_file(top, &sn, &d), 0);
	assert_int_equal(diag_count(&d), 0);
	assert_int_equal(sn->n_nodes, 3);
	assert_string_equal(subnet_str(sn, sn->node[1].name), "h");
	assert_int_equal(sn->node[1].guid, 0x777000);
	assert_int_equal(sn->node[1].src_line, 3);
	assert_int_equal(sn->node[2].guid, 0x200001);
	assert_int_equal(sn->node[2].src_line, 5);
	assert_link(sn, "s", 1, "h", 1);
	assert_link(sn, "s", 2, "t", 1);
	subnet_free(sn);
	diag_free(&d);
	tmp_remove(&t);
}

static void test_read_file_errors(void **state)
{
	struct tmpdir t = { .path = "/tmp/topo_test.XXXXXX" };
	char want[512], path[128], name[32], text[64];
	const char *top;

	(void)state;
	assert_non_null(mkdtemp(t.path));

	snprintf(path, sizeof(path), "%s/none.topo", t.path);
	snprintf(want, sizeof(want), "%s: cannot read: No such file or directory", path);
	read_file_bad(path, -ENOENT, want);
	snprintf(want, sizeof(want), "%s: cannot read: Is a directory", t.path);
	read_file_bad(t.path, -EISDIR, want);

	/* Not a regular file: read to its end all the same. */
	read_file_bad("/dev/null", -EINVAL,
		      "/dev/null: no nodes found (expected Switch, Ca, Hca or Rt lines)");

	top = tmp_write(&t, "bad-include.topo", "Switch 1 \"s\"\ninclude\n");
	snprintf(want, sizeof(want), "%s:2: bad include line 'include' (expected: include <file>)",
		 top);
	read_file_bad(top, -EINVAL, want);

	top = tmp_write(&t, "missing.topo", "include topo-test-none.topo\nSwitch 1 \"s\"\n");
	snprintf(want, sizeof(want), "%s:1: cannot read include file \"topo-test-none.topo\": No "
		 "such file or directory", top);
	read_file_bad(top, -EINVAL, want);

	top = tmp_write(&t, "cycle-a.topo", "Switch 1 \"s\"\ninclude cycle-b.topo\n");
	tmp_write(&t, "cycle-b.topo", "\n\ninclude cycle-a.topo\n");
	snprintf(want, sizeof(want), "%s/cycle-b.topo:3: include cycle: \"%s\" is already being "
		 "read", t.path, top);
	read_file_bad(top, -EINVAL, want);

	/* A problem in an included file names that file, and the other line's file. */
	top = tmp_write(&t, "dup-a.topo", "Switch 1 \"s\"\ninclude dup-b.topo\n");
	tmp_write(&t, "dup-b.topo", "\nSwitch 1 \"s\"\n");
	snprintf(want, sizeof(want), "%s/dup-b.topo:2: node name \"s\" is already used by the "
		 "switch at line 1 of %s", t.path, top);
	read_file_bad(top, -EINVAL, want);
	tmp_remove(&t);

	/* Eight levels of include are fine; a ninth is refused. */
	assert_non_null(mkdtemp(strcpy(t.path, "/tmp/topo_test.XXXXXX")));
	for (unsigned i = 0; i <= 9; i++) {
		snprintf(name, sizeof(name), "deep%u.topo", i);
		snprintf(text, sizeof(text), "include deep%u.topo\n%s", i + 1,
			 i == 0 ? "Switch 1 \"s\"\n" : "");
		tmp_write(&t, name, i == 9 ? "" : text);
	}
	snprintf(want, sizeof(want), "%s/deep8.topo:1: includes nested more than 8 deep", t.path);
	read_file_bad(t.file[0], -EINVAL, want);
	tmp_remove(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ibnetdiscover),
		cmocka_unit_test(test_ibsim),
		cmocka_unit_test(test_parallel_and_default_port),
		cmocka_unit_test(test_real_fabric),
		cmocka_unit_test(test_rates),
		cmocka_unit_test(test_guid_rules),
		cmocka_unit_test(test_port_options),
		cmocka_unit_test(test_explicit_port_guids),
		cmocka_unit_test(test_other_lines),
		cmocka_unit_test(test_record_without_blank),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_long_line_and_nul),
		cmocka_unit_test(test_read_file_include),
		cmocka_unit_test(test_read_file_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
