/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for routing/lft_text.c (dump_lfts text, both ways) and
 * routing/check.c (the route-quality checker): printer -> reader round trips
 * on min-hop tables of the bundled fabrics, every reader complaint, the
 * checker's verdict on good and broken tables, link loads against numbers
 * worked out by hand, and credit loops found on a torus and not on fat trees.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lib/diag.h"
#include "routing/check.h"
#include "routing/lft_text.h"
#include "routing/route.h"
#include "model/subnet.h"
#include "tests/unit/route_fixture.h"

/* A model with LIDs, routed by min-hop. */
static struct subnet *routed(const char *name, uint8_t lmc, struct route_out *out)
{
	struct subnet *sn = rfx_load(name);

	rfx_lids_in_order(sn, lmc);
	assert_int_equal(rfx_route_lmc("minhop", sn, lmc, out, NULL), 0);
	return sn;
}

static char *print_mem(const struct subnet *sn, const struct route_out *out,
		       const struct lft_text_opts *o, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	assert_non_null(f);
	assert_int_equal(lft_text_print(f, sn, out, o), 0);
	fclose(f);
	return buf;
}

static void check(const struct subnet *sn, const struct route_out *out,
		  struct check_report *rep, struct diag *d)
{
	struct check_opts o = { .max_msgs = 5 };

	assert_int_equal(check_routes(sn, out, &o, rep, d), 0);
}

static bool has_msg(const struct diag *d, const char *a, const char *b)
{
	for (unsigned i = 0; i < d->n; i++)
		if (strstr(d->msg[i], a) && (!b || strstr(d->msg[i], b)))
			return true;
	return false;
}

/* ---- printer -> reader ---------------------------------------------------- */

static void round_trip(const char *name, uint8_t lmc)
{
	const struct lft_text_opts variants[] = {
		LFT_TEXT_DUMP_LFTS,
		LFT_TEXT_CANON,
		{ .addr = LFT_TEXT_ADDR_LID, .root = SUBNET_NONE, .all = true },
		{ .addr = LFT_TEXT_ADDR_DR, .root = SUBNET_NONE, .brief = true, .all = true },
	};
	struct route_out out, back;
	struct subnet *sn = routed(name, lmc, &out);

	for (size_t v = 0; v < sizeof(variants) / sizeof(variants[0]); v++) {
		struct lft_text_stats st;
		struct diag d = { 0 };
		size_t len;
		char *text = print_mem(sn, &out, &variants[v], &len);

		assert_int_equal(lft_text_read_mem(text, len, "mem", sn, &back, &st, &d), 0);
		diag_print(&d, stderr);
		assert_int_equal(diag_count(&d), 0);
		assert_int_equal(st.skipped, 0);
		assert_int_equal(st.missing, 0);
		assert_int_equal(st.switches, out.n_sw);
		assert_int_equal(back.n_sw, out.n_sw);
		assert_int_equal(back.max_lid, out.max_lid);
		assert_memory_equal(back.sw_node, out.sw_node, out.n_sw * sizeof(*out.sw_node));
		assert_memory_equal(back.lft, out.lft, (size_t)out.n_sw * (out.max_lid + 1));
		route_out_free(&back);
		diag_free(&d);
		free(text);
	}
	route_out_free(&out);
	subnet_free(sn);
}

static void test_round_trip(void **state)
{
	static const char *const files[] = {
		"ft2-k8.topo", "ft3-k4.topo", "torus2d-4x4.topo", "random-16-d4.topo",
		"dragonfly-small.topo", "parallel.topo", "2sw2path.topo", "single-switch.topo",
		"loop.topo", "ft2-k8-degraded.topo",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		round_trip(files[i], 0);
		round_trip(files[i], 2);
	}
}

/* The exact dump_lfts text for one small fabric, worked out from dump_fts.c. */
static void test_print_format(void **state)
{
	struct subnet *sn = rfx_read("Hca 1 \"h1\"\n[1] \"s1\"[1]\n"
				     "Switch 4 \"s1\"\n[1] \"h1\"[1]\n[2] \"s2\"[3]\n"
				     "Switch 4 \"s2\"\n[3] \"s1\"[2]\n[1] \"h2\"[1]\n"
				     "Hca 1 \"h2\"\n[1] \"s2\"[1]\n");
	struct route_out out;
	struct route_why why;
	size_t len;
	char *text;

	(void)state;
	rfx_lids_in_order(sn, 1); /* h1 2-3, s1 4, s2 5, h2 6-7 */
	assert_int_equal(rfx_route_lmc("minhop", sn, 1, &out, &why), 0);
	text = print_mem(sn, &out, &LFT_TEXT_DUMP_LFTS, &len);
	assert_string_equal(
		text,
		"Unicast lids [0x0-0x7] of switch DR path slid 0; dlid 0; 0,1 guid "
		"0x0000000000200000 (s1):\n"
		"  Lid  Out   Destination\n"
		"       Port     Info \n"
		"0x0002 001 : (Channel Adapter portguid 0x0000000000100001: 'h1')\n"
		"0x0003 001 : (path #2 out of 2: portguid 0x0000000000100001)\n"
		"0x0004 000 : (Switch portguid 0x0000000000200000: 's1')\n"
		"0x0005 002 : (Switch portguid 0x0000000000200001: 's2')\n"
		"0x0006 002 : (Channel Adapter portguid 0x0000000000100003: 'h2')\n"
		"0x0007 002 : (path #2 out of 2: portguid 0x0000000000100003)\n"
		"6 valid lids dumped \n"
		"Unicast lids [0x0-0x7] of switch DR path slid 0; dlid 0; 0,1,2 guid "
		"0x0000000000200001 (s2):\n"
		"  Lid  Out   Destination\n"
		"       Port     Info \n"
		"0x0002 003 : (Channel Adapter portguid 0x0000000000100001: 'h1')\n"
		"0x0003 003 : (path #2 out of 2: portguid 0x0000000000100001)\n"
		"0x0004 003 : (Switch portguid 0x0000000000200000: 's1')\n"
		"0x0005 000 : (Switch portguid 0x0000000000200001: 's2')\n"
		"0x0006 001 : (Channel Adapter portguid 0x0000000000100003: 'h2')\n"
		"0x0007 001 : (path #2 out of 2: portguid 0x0000000000100003)\n"
		"6 valid lids dumped \n");
	free(text);
	/* -a and "Lid N": LID 0 and LID 1 (nobody's) drop; dump_fts's quirk for LID 0. */
	text = print_mem(sn, &out,
			 &(struct lft_text_opts){ .addr = LFT_TEXT_ADDR_LID, .all = true }, &len);
	assert_non_null(strstr(text, "Unicast lids [0x0-0x7] of switch Lid 4 guid 0x0000000000200000 "
				     "(s1):\n  Lid  Out   Destination\n       Port     Info \n"
				     "0x0000 255 : (path #0 - illegal port)\n"
				     "0x0001 255 : (illegal port)\n"));
	assert_non_null(strstr(text, "8 lids dumped \n"));
	free(text);
	text = print_mem(sn, &out, &LFT_TEXT_CANON, &len);
	assert_non_null(strstr(text, "Unicast lids [0x0-0x7] of switch guid 0x0000000000200000 "
				     "(s1):\n  Lid  Out   Destination\n       Port     Info \n"
				     "0x0002 001 \n"));
	free(text);
	route_out_free(&out);
	subnet_free(sn);
}

/* ---- reader: every variant, every complaint ------------------------------ */

static const char two_sw[] = "Hca 1 \"h1\"\n[1] \"s1\"[1]\n"
			     "Switch 4 \"s1\"\n[1] \"h1\"[1]\n[2] \"s2\"[3]\n"
			     "Switch 4 \"s2\"\n[3] \"s1\"[2]\n[1] \"h2\"[1]\n"
			     "Hca 1 \"h2\"\n[1] \"s2\"[1]\n";

static int read_text(const struct subnet *sn, const char *text, struct route_out *out,
		     struct lft_text_stats *st, struct diag *d)
{
	memset(out, 0, sizeof(*out));
	return lft_text_read_mem(text, strlen(text), "lfts", sn, out, st, d);
}

static void test_read_variants(void **state)
{
	struct subnet *sn = rfx_read(two_sw);
	struct lft_text_stats st;
	struct route_out out;
	struct diag d = { 0 };
	/* OpenSM's opensm-lfts.dump for s1, ibroute -D's header for s2 (CRLF). */
	const char *text =
		"Unicast lids [0-6] of switch Lid 3 guid 0x0000000000200000 ('s1'):\n"
		"0x0001 001 # Channel Adapter portguid 0x0000000000100001: 'h1'\n"
		"0x0003 000 # Switch portguid 0x0000000000200000: 's1'\n"
		"0x0006 002 # unknown node and type\n"
		"6 lids dumped\n"
		"Unicast lids [0x0-0x6] of switch DR path slid 65535; dlid 65535; 0,1,2 guid "
		"0x0000000000200001 (s2):\r\n"
		"  Lid  Out   Destination\r\n"
		"       Port     Info \r\n"
		"0x0000 255 : (path #0 - illegal port)\r\n"
		"0x0001 003 \r\n"
		"0x0006 001 \r\n"
		"2 valid lids dumped \r\n"
		"Multicast mlids [0xc000-0xc3ff] of switch Lid 3 guid 0x0000000000200000 (s1):\n"
		"     Ports: 0 1 2 3 4\n MLid\n0xc000      0006\n0 valid mlids dumped \n"
		"\n*** WARNING ***: this command has been replaced by dump_fts\n\n"
		"ibwarn: [123] sim_connect: attached as client 0 at node \"h1\"\n";

	(void)state;
	rfx_lids_in_order(sn, 0); /* h1 1, s1 2, s2 3, h2 4 */
	assert_int_equal(read_text(sn, text, &out, &st, &d), 0);
	diag_print(&d, stderr);
	assert_int_equal(diag_count(&d), 0);
	assert_int_equal(st.switches, 2);
	assert_int_equal(st.entries, 5);
	assert_int_equal(out.max_lid, 6); /* the text goes past the model's 4 */
	assert_int_equal(route_lft(&out, 0)[1], 1);
	assert_int_equal(route_lft(&out, 0)[3], 0);
	assert_int_equal(route_lft(&out, 0)[6], 2);
	assert_int_equal(route_lft(&out, 0)[2], ROUTE_DROP);
	assert_int_equal(route_lft(&out, 1)[1], 3);
	assert_int_equal(route_lft(&out, 1)[6], 1);
	route_out_free(&out);
	subnet_free(sn);
}

static void test_read_errors(void **state)
{
	struct subnet *sn = rfx_read(two_sw);
	struct lft_text_stats st;
	struct route_out out;
	struct diag d = { 0 };
	const char *text =
		"0x0001 001\n"                                                      /* 1 */
		"Unicast lids [0x0-0x6] of switch Lid 2 guid 0x0000000000200000 (s1):\n"
		"0x0001 001 : ok\n"                                                 /* 3 */
		"0x0001 002 : again\n"                                              /* 4 */
		"0x0002 009\n"                                                      /* 5 */
		"0xc000 001\n"                                                      /* 6 */
		"0x00zz 001\n"                                                      /* 7 */
		"0x0003 1000\n"                                                     /* 8 */
		"something else \x01\n"                                             /* 9 */
		"Unicast lids [0x0-0x6] of switch Lid 9 guid 0x00000000deadbeef (x):\n"
		"0x0001 001\n"                                                      /* 11 */
		"Unicast lids [0x0-0x6] of switch Lid 1 guid 0x0000000000100000 (h1):\n"
		"Unicast lids [0x0-0x6] of switch Lid 2 guid 0x0000000000200000 (s1):\n"
		"0x0002 000\n"                                                      /* 14 */
		"Unicast lids [0x6-0x0] of switch guid 0x0000000000200001 (s2):\n"
		"Unicast lids [0x0-0x6] of switch Lid 3 guid 0xg (s2):\n";          /* 16 */

	(void)state;
	rfx_lids_in_order(sn, 0);
	assert_int_equal(read_text(sn, text, &out, &st, &d), 0);
	diag_print(&d, stderr);
	assert_true(has_msg(&d, "lfts:1: ", "outside a switch table"));
	assert_true(has_msg(&d, "lfts:4: ", "LID 0x0001 is listed twice"));
	assert_true(has_msg(&d, "lfts:5: ", "leaves by port 9, beyond its 4 ports"));
	assert_true(has_msg(&d, "lfts:6: ", "outside the unicast range"));
	assert_true(has_msg(&d, "lfts:7: ", "malformed LFT entry '0x00zz 001'"));
	assert_true(has_msg(&d, "lfts:8: ", "malformed LFT entry"));
	assert_true(has_msg(&d, "lfts:9: ", "not a line of dump_lfts output: 'something else ?'"));
	assert_true(has_msg(&d, "lfts:10: ", "0x00000000deadbeef is not in the topology"));
	assert_true(has_msg(&d, "lfts:12: ", "(\"h1\") is not a switch"));
	assert_true(has_msg(&d, "lfts:13: ", "already has a table at line 2"));
	assert_true(has_msg(&d, "lfts:15: ", "malformed \"Unicast lids\" header"));
	assert_true(has_msg(&d, "lfts:16: ", "malformed switch GUID"));
	assert_true(has_msg(&d, "lfts: switch 0x0000000000200001 (\"s2\")", "has no table"));
	assert_int_equal(st.skipped, 12); /* line 11 goes with its skipped table */
	assert_int_equal(st.missing, 1);
	assert_int_equal(st.switches, 1);
	assert_int_equal(st.entries, 1);
	assert_int_equal(route_lft(&out, 0)[1], 1); /* the first of the two */
	assert_int_equal(route_lft(&out, 0)[2], ROUTE_DROP); /* in the duplicate table */
	route_out_free(&out);
	diag_free(&d);

	/* No unicast table at all: nothing read, *out untouched. */
	memset(&out, 0x5a, sizeof(out));
	assert_int_equal(lft_text_read_mem("Multicast mlids [0xc000-0xc3ff] of switch\n", 42,
					   "lfts", sn, &out, &st, &d), -EINVAL);
	assert_true(has_msg(&d, "lfts: no \"Unicast lids\" table", NULL));
	assert_int_equal(out.n_sw, 0x5a5a5a5a);
	diag_free(&d);
	assert_int_equal(lft_text_read_file("/nonexistent/lfts", sn, &out, &st, &d), -ENOENT);
	assert_true(has_msg(&d, "/nonexistent/lfts: cannot open", NULL));
	diag_free(&d);
	subnet_free(sn);
}

/* dump_fts never prints the top LID of a table whose top is a multiple of 64. */
static void test_read_top64(void **state)
{
	struct subnet *sn = rfx_read(two_sw);
	static const char *const text[] = {
		"Unicast lids [0x0-0x40] of switch DR path slid 0; dlid 0; 0 guid 0x0000000000200000 (s1):\n"
		"0x0001 001 \n1 valid lids dumped \n"
		"Unicast lids [0x0-0x40] of switch Lid 3 guid 0x0000000000200001 (s2):\n"
		"0x0001 002 \n1 valid lids dumped \n",
		"Unicast lids [0x0-0x40] of switch Lid 2 guid 0x0000000000200000 (s1):\n"
		"0x0040 001 \n",
		"Unicast lids [0-64] of switch Lid 2 guid 0x0000000000200000 ('s1'):\n"
		"0x0001 001 # x\n",
		"Unicast lids [0x0-0x41] of switch Lid 2 guid 0x0000000000200000 (s1):\n",
	};
	static const unsigned want_tables[] = { 2, 0, 0, 0 };
	struct lft_text_stats st;
	struct route_out out;
	struct diag d = { 0 };

	(void)state;
	rfx_lids_in_order(sn, 0);
	for (size_t i = 0; i < sizeof(text) / sizeof(text[0]); i++) {
		assert_int_equal(read_text(sn, text[i], &out, &st, &d), 0);
		assert_int_equal(st.unread_tables, want_tables[i]);
		assert_int_equal(st.unread_lid, want_tables[i] ? 0x40 : 0);
		route_out_free(&out);
		diag_free(&d);
	}
	subnet_free(sn);
}

/* ---- checker ---------------------------------------------------------------- */

/* acyclic: 1 or 0 as the CDG must be, -1 if either will do. */
static void good(const char *name, uint8_t lmc, int acyclic)
{
	struct route_out out;
	struct subnet *sn = routed(name, lmc, &out);
	struct check_report r;
	struct diag d = { 0 };
	uint64_t h;

	check(sn, &out, &r, &d);
	diag_print(&d, stderr);
	assert_true(check_ok(&r));
	h = r.hosts;
	assert_int_equal(r.pairs, h * (h - 1) * (1u << lmc));
	assert_int_equal(r.delivered, r.pairs);
	assert_int_equal(r.unreachable + r.loops + r.sw_bad, 0);
	assert_int_equal(r.sw_pairs, (uint64_t)r.switches * r.switches);
	assert_int_equal(r.extra_max, 0); /* min-hop takes shortest paths */
	assert_true(r.stretch_max < 1.0 + 1e-9 && r.stretch_mean > 1.0 - 1e-9);
	assert_true(r.all2all.max >= r.all2all.ideal - 1e-9);
	assert_true(r.all2all.mean >= r.all2all.ideal - 1e-9);
	if (acyclic >= 0)
		assert_int_equal(r.cdg_acyclic, acyclic);
	assert_int_equal(has_msg(&d, "credit loop (one VL)", NULL), !r.cdg_acyclic);
	route_out_free(&out);
	diag_free(&d);
	subnet_free(sn);
}

static void test_good(void **state)
{
	(void)state;
	for (uint8_t lmc = 0; lmc <= 2; lmc += 2) {
		good("ft2-k8.topo", lmc, true);
		good("ft3-k4.topo", lmc, true);
		good("torus2d-4x4.topo", lmc, false); /* min-hop on a ring: credit loops */
	}
	good("random-16-d4.topo", 0, -1);
	good("dragonfly-small.topo", 0, -1);
	good("torus3d-3x3x3.topo", 0, false);
}

/* The port of switch node sw that leads to node peer (the first), or 0. */
static uint8_t port_to(const struct subnet *sn, uint32_t sw, uint32_t peer)
{
	for (unsigned p = 1; p <= sn->node[sw].nports; p++) {
		uint32_t q = sn->port[subnet_port_idx(sn, sw, p)].peer;

		if (q != SUBNET_NONE && sn->port[q].node == peer)
			return (uint8_t)p;
	}
	return 0;
}

static uint8_t *entry(const struct subnet *sn, struct route_out *out, const char *sw,
		      uint32_t lid)
{
	return &route_lft(out, out->sw_index[subnet_find_name(sn, sw)])[lid];
}

static uint16_t lid_of(const struct subnet *sn, const char *host)
{
	return sn->port[subnet_port_idx(sn, subnet_find_name(sn, host), 1)].lid;
}

/* One entry dropped: the 4 hosts of that leaf lose that destination. */
static void test_drop(void **state)
{
	struct route_out out;
	struct subnet *sn = routed("ft2-k8.topo", 0, &out);
	uint16_t lid = lid_of(sn, "h00017");
	uint8_t up = *entry(sn, &out, "leaf001", lid);
	struct check_report r;
	struct diag d = { 0 };

	(void)state;
	*entry(sn, &out, "leaf001", lid) = ROUTE_DROP;
	check(sn, &out, &r, &d);
	diag_print(&d, stderr);
	assert_false(check_ok(&r));
	assert_int_equal(r.unreachable, 4);
	assert_int_equal(r.loops, 0);
	assert_int_equal(r.sw_bad, 0);
	assert_true(has_msg(&d, "\"h00001\" port 1", "-> \"h00017\" port 1"));
	assert_true(has_msg(&d, "dropped at switch \"leaf001\" (0x", "no route (LFT entry 255)"));
	assert_int_equal(d.n, 4);
	diag_free(&d);
	/* A LID the tables cannot speak for is not judged. */
	assert_int_equal(check_routes(sn, &out, &(struct check_opts){ .skip_lid = lid }, &r, &d),
			 0);
	assert_true(check_ok(&r));
	assert_int_equal(r.lids_skipped, 1);
	assert_int_equal(r.pairs, 32 * 31 - 31);
	diag_free(&d);

	/* To a host that is not the destination. */
	*entry(sn, &out, "leaf001", lid) = up;
	*entry(sn, &out, "leaf002", lid) = 1;
	check(sn, &out, &r, &d);
	diag_print(&d, stderr);
	assert_int_equal(r.unreachable, 4);
	assert_true(has_msg(&d, "\"h00005\" port 1", "-> \"h00017\" port 1"));
	assert_true(has_msg(&d, "misdelivered: switch \"leaf002\"", "by port 1 to \"h00005\" port 1"));
	route_out_free(&out);
	diag_free(&d);
	subnet_free(sn);
}

/* To a port with no cable; to the switch itself (LFT port 0). */
static void test_dead_port(void **state)
{
	struct subnet *sn = rfx_read(two_sw);
	struct check_report r;
	struct route_out out;
	struct route_why why;
	struct diag d = { 0 };

	(void)state;
	rfx_lids_in_order(sn, 0); /* h1 1, s1 2, s2 3, h2 4 */
	assert_int_equal(rfx_route_lmc("minhop", sn, 0, &out, &why), 0);
	*entry(sn, &out, "s1", 4) = 4;
	*entry(sn, &out, "s2", 1) = 0;
	*entry(sn, &out, "s1", 3) = 0;
	check(sn, &out, &r, &d);
	diag_print(&d, stderr);
	assert_int_equal(r.pairs, 2);
	assert_int_equal(r.unreachable, 2);
	assert_int_equal(r.sw_bad, 1); /* s1 -> s2's LID 3 */
	assert_true(has_msg(&d, "\"h1\" port 1 (0x0000000000100001) -> \"h2\" port 1 "
				"(0x0000000000100003) LID 4 (0x0004)",
			    "dropped at switch \"s1\" (0x0000000000200000): LFT port 4 is not linked"));
	assert_true(has_msg(&d, "-> \"h1\" port 1", "misdelivered: switch \"s2\" "
				"(0x0000000000200001) keeps it (LFT port 0)"));
	assert_true(has_msg(&d, "switch \"s1\" (0x0000000000200000) -> switch \"s2\" "
				"(0x0000000000200001) LID 3 (0x0003)", "keeps it"));
	route_out_free(&out);
	diag_free(&d);
	subnet_free(sn);
}

/* One entry sends a LID back down to a leaf that sent it up: a loop. */
static void test_loop(void **state)
{
	struct route_out out;
	struct subnet *sn = routed("ft2-k8.topo", 0, &out);
	uint16_t lid = lid_of(sn, "h00017");
	uint32_t leaf = subnet_find_name(sn, "leaf001"), spine, sw;
	struct check_report r;
	struct diag d = { 0 };
	uint8_t up = *entry(sn, &out, "leaf001", lid);
	char want[80];

	(void)state;
	spine = sn->port[sn->port[subnet_port_idx(sn, leaf, up)].peer].node;
	sw = out.sw_index[spine];
	route_lft(&out, sw)[lid] = port_to(sn, spine, leaf);
	check(sn, &out, &r, &d);
	diag_print(&d, stderr);
	assert_false(check_ok(&r));
	assert_true(r.loops >= 4); /* leaf001's hosts at least */
	assert_int_equal(r.unreachable, 0);
	assert_true(r.sw_bad == 0);
	snprintf(want, sizeof(want), "loops: the route comes back to switch \"%s\"",
		 subnet_str(sn, sn->node[spine].desc));
	assert_true(has_msg(&d, "\"h00001\" port 1 (0x0002c90400000101) -> \"h00017\"", want) ||
		    has_msg(&d, "-> \"h00017\" port 1", "loops: the route comes back to switch \"leaf001\""));
	assert_true(has_msg(&d, "more bad pairs, not named (the first 5 are)", NULL) ||
		    r.loops <= 5);
	route_out_free(&out);
	diag_free(&d);
	subnet_free(sn);
}

/*
 * ft2-k8 by hand: 8 leaves of 4 hosts, 4 spines, 32 cables between them, so
 * 64 directed switch links. All-to-all: 32 x 31 = 992 pairs; the 8 x 4 x 3 =
 * 96 on one leaf cross no link, the other 896 cross 2: 1792 link crossings,
 * 1792 / 64 = 28 routes per link, mean and ideal alike. Shift: host i sends
 * to host i + 16, always on another leaf: 32 routes x 2 links / 64 = 1.
 * Now send everything between leaves through spine001 alone: each leaf's
 * link to it carries its 4 hosts x 28 remote hosts = 112, each link down
 * from it 28 x 4 = 112, the rest nothing; mean and ideal stay 28 and 1; the
 * shift's busiest link carries the 4 hosts of one leaf.
 */
static void test_load_by_hand(void **state)
{
	struct route_out out;
	struct subnet *sn = routed("ft2-k8.topo", 0, &out);
	uint32_t spine1 = subnet_find_name(sn, "spine001");
	struct check_report r;
	struct diag d = { 0 };

	(void)state;
	check(sn, &out, &r, &d);
	assert_int_equal(r.links, 64);
	assert_int_equal(r.pairs, 992);
	assert_int_equal(r.all2all.routes, 992);
	assert_true(r.all2all.mean == 28.0 && r.all2all.ideal == 28.0);
	assert_true(r.all2all.max >= 28 && r.all2all.max <= 32);
	assert_true(r.hops_mean == 1792.0 / 992);
	assert_int_equal(r.hops_max, 2);
	assert_int_equal(r.shift.routes, 32);
	assert_true(r.shift.mean == 1.0 && r.shift.ideal == 1.0);
	assert_int_equal(r.cdg_deps, 32 * 7); /* leaf -> spine -> 7 other leaves */
	for (uint32_t pi = 0; pi < sn->n_ports; pi++) {
		const struct subnet_port *p = &sn->port[pi];

		if (subnet_is_switch(sn, p->node) || !p->lid)
			continue;
		for (uint32_t s = 0; s < out.n_sw; s++) {
			uint32_t node = out.sw_node[s];
			uint8_t *e = &route_lft(&out, s)[p->lid];
			uint32_t peer = sn->port[subnet_port_idx(sn, node, *e)].peer;

			/* A leaf's uplink (its peer is a spine) becomes the one to spine001. */
			if (!strncmp(subnet_str(sn, sn->node[node].desc), "leaf", 4) &&
			    subnet_is_switch(sn, sn->port[peer].node))
				*e = port_to(sn, node, spine1);
		}
	}
	check(sn, &out, &r, &d);
	assert_true(check_ok(&r));
	assert_int_equal(r.all2all.max, 112);
	assert_true(r.all2all.mean == 28.0 && r.all2all.ideal == 28.0);
	assert_int_equal(r.shift.max, 4);
	assert_true(r.shift.mean == 1.0 && r.shift.ideal == 1.0);
	assert_int_equal(r.cdg_deps, 8 * 7);
	assert_true(r.cdg_acyclic);
	route_out_free(&out);
	diag_free(&d);
	subnet_free(sn);
}

/* Ports with a LID and no cable, and tables that belong to another model. */
static void test_detached_and_mismatch(void **state)
{
	struct subnet *sn = rfx_read("Switch 4 \"s1\"\n[1] \"h1\"[1]\n[2] \"h2\"[1]\n"
				     "Hca 2 \"h1\"\n[1] \"s1\"[1]\n"
				     "Hca 1 \"h2\"\n[1] \"s1\"[2]\n");
	struct subnet *other = rfx_load("ft2-k8.topo");
	struct check_report r;
	struct route_out out;
	struct route_why why;
	struct diag d = { 0 };

	(void)state;
	rfx_lids_in_order(sn, 0);
	sn->port[subnet_port_idx(sn, subnet_find_name(sn, "h1"), 2)].lid = 9;
	assert_int_equal(rfx_route_lmc("minhop", sn, 0, &out, &why), 0);
	check(sn, &out, &r, &d);
	assert_int_equal(r.hosts, 2);
	assert_int_equal(r.dest_ports, 3);
	assert_int_equal(r.pairs, 2 + 2);   /* h1:1 <-> h2, and both of them to h1:2 */
	assert_int_equal(r.unreachable, 2); /* those two */
	assert_true(has_msg(&d, "-> \"h1\" port 2", "not linked to a switch"));
	assert_int_equal(r.links, 0);
	assert_true(r.all2all.max_node == SUBNET_NONE);
	diag_free(&d);
	assert_int_equal(check_routes(other, &out, NULL, &r, &d), -EINVAL);
	route_out_free(&out);
	subnet_free(sn);
	subnet_free(other);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_print_format),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_read_variants),
		cmocka_unit_test(test_read_errors),
		cmocka_unit_test(test_read_top64),
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_drop),
		cmocka_unit_test(test_dead_port),
		cmocka_unit_test(test_loop),
		cmocka_unit_test(test_load_by_hand),
		cmocka_unit_test(test_detached_and_mismatch),
	};

	return cmocka_run_group_tests_name("check", tests, NULL, NULL);
}
