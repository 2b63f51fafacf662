/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for routing/lft_text.c (dump_lfts text, both ways): printer ->
 * reader round trips on min-hop tables of the bundled fabrics, the printed
 * format, every reader variant and every reader complaint. The checker
 * (routing/check.c) is in check_test.c.
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
	struct subnet *sn = rfx_minhop(name, lmc, &out);

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

static int read_text(const struct subnet *sn, const char *text, struct route_out *out,
		     struct lft_text_stats *st, struct diag *d)
{
	memset(out, 0, sizeof(*out));
	return lft_text_read_mem(text, strlen(text), "lfts", sn, out, st, d);
}

static void test_read_variants(void **state)
{
	struct subnet *sn = rfx_read(rfx_two_sw);
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
	struct subnet *sn = rfx_read(rfx_two_sw);
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
	assert_true(rfx_diag_has(&d, "lfts:1: ", "outside a switch table"));
	assert_true(rfx_diag_has(&d, "lfts:4: ", "LID 0x0001 is listed twice"));
	assert_true(rfx_diag_has(&d, "lfts:5: ", "leaves by port 9, beyond its 4 ports"));
	assert_true(rfx_diag_has(&d, "lfts:6: ", "outside the unicast range"));
	assert_true(rfx_diag_has(&d, "lfts:7: ", "malformed LFT entry '0x00zz 001'"));
	assert_true(rfx_diag_has(&d, "lfts:8: ", "malformed LFT entry"));
	assert_true(rfx_diag_has(&d, "lfts:9: ", "not a line of dump_lfts output: 'something else ?'"));
	assert_true(rfx_diag_has(&d, "lfts:10: ", "0x00000000deadbeef is not in the topology"));
	assert_true(rfx_diag_has(&d, "lfts:12: ", "(\"h1\") is not a switch"));
	assert_true(rfx_diag_has(&d, "lfts:13: ", "already has a table at line 2"));
	assert_true(rfx_diag_has(&d, "lfts:15: ", "malformed \"Unicast lids\" header"));
	assert_true(rfx_diag_has(&d, "lfts:16: ", "malformed switch GUID"));
	assert_true(rfx_diag_has(&d, "lfts: switch 0x0000000000200001 (\"s2\")", "has no table"));
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
	assert_true(rfx_diag_has(&d, "lfts: no \"Unicast lids\" table", NULL));
	assert_int_equal(out.n_sw, 0x5a5a5a5a);
	diag_free(&d);
	assert_int_equal(lft_text_read_file("/nonexistent/lfts", sn, &out, &st, &d), -ENOENT);
	assert_true(rfx_diag_has(&d, "/nonexistent/lfts: cannot open", NULL));
	diag_free(&d);
	subnet_free(sn);
}

/* dump_fts never prints the top LID of a table whose top is a multiple of 64. */
static void test_read_top64(void **state)
{
	struct subnet *sn = rfx_read(rfx_two_sw);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_print_format),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_read_variants),
		cmocka_unit_test(test_read_errors),
		cmocka_unit_test(test_read_top64),
	};

	return cmocka_run_group_tests_name("lft_text", tests, NULL, NULL);
}
