/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for the topology reader (model/topo*.c) on malformed input: every
 * error, in memory and in files and includes, with its exact message. Good
 * input is in topo_test.c.
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

#include "lib/cleanup.h"
#include "lib/diag.h"
#include "model/subnet.h"
#include "model/topo.h"
#include "tests/unit/topo_fixture.h"

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

static void test_read_file_errors(void **state)
{
	struct tfx_dir t = { .path = "/tmp/topo_test.XXXXXX" };
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

	top = tfx_write(&t, "bad-include.topo", "Switch 1 \"s\"\ninclude\n");
	snprintf(want, sizeof(want), "%s:2: bad include line 'include' (expected: include <file>)",
		 top);
	read_file_bad(top, -EINVAL, want);

	top = tfx_write(&t, "missing.topo", "include topo-test-none.topo\nSwitch 1 \"s\"\n");
	snprintf(want, sizeof(want), "%s:1: cannot read include file \"topo-test-none.topo\": No "
		 "such file or directory", top);
	read_file_bad(top, -EINVAL, want);

	top = tfx_write(&t, "cycle-a.topo", "Switch 1 \"s\"\ninclude cycle-b.topo\n");
	tfx_write(&t, "cycle-b.topo", "\n\ninclude cycle-a.topo\n");
	snprintf(want, sizeof(want), "%s/cycle-b.topo:3: include cycle: \"%s\" is already being "
		 "read", t.path, top);
	read_file_bad(top, -EINVAL, want);

	/* A problem in an included file names that file, and the other line's file. */
	top = tfx_write(&t, "dup-a.topo", "Switch 1 \"s\"\ninclude dup-b.topo\n");
	tfx_write(&t, "dup-b.topo", "\nSwitch 1 \"s\"\n");
	snprintf(want, sizeof(want), "%s/dup-b.topo:2: node name \"s\" is already used by the "
		 "switch at line 1 of %s", t.path, top);
	read_file_bad(top, -EINVAL, want);
	tfx_remove(&t);

	/* Eight levels of include are fine; a ninth is refused. */
	assert_non_null(mkdtemp(strcpy(t.path, "/tmp/topo_test.XXXXXX")));
	for (unsigned i = 0; i <= 9; i++) {
		snprintf(name, sizeof(name), "deep%u.topo", i);
		snprintf(text, sizeof(text), "include deep%u.topo\n%s", i + 1,
			 i == 0 ? "Switch 1 \"s\"\n" : "");
		tfx_write(&t, name, i == 9 ? "" : text);
	}
	snprintf(want, sizeof(want), "%s/deep8.topo:1: includes nested more than 8 deep", t.path);
	read_file_bad(t.file[0], -EINVAL, want);
	tfx_remove(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_long_line_and_nul),
		cmocka_unit_test(test_read_file_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
