/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for the LID manager's guid2lid file (plan/lid_file.c): round
 * trip, the file OpenSM writes, every kind of bad line, missing and
 * unreadable files, and the atomic save. Assignment is in lid_test.c.
 */
#include <dirent.h>
#include <errno.h>
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

#include "lib/diag.h"
#include "plan/lid.h"
#include "model/subnet.h"
#include "tests/unit/lid_fixture.h"
#include "tests/unit/route_fixture.h"

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static char *read_text(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = calloc(1, 1 << 20);
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, (1 << 20) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* The names in a directory, space-separated and sorted. */
static void dir_names(const char *dir, char *out, size_t size)
{
	struct dirent **list;
	int n = scandir(dir, &list, NULL, alphasort);

	assert_true(n >= 0);
	out[0] = '\0';
	for (int i = 0; i < n; i++) {
		if (strcmp(list[i]->d_name, ".") && strcmp(list[i]->d_name, "..")) {
			strncat(out, list[i]->d_name, size - strlen(out) - 2);
			strcat(out, " ");
		}
		free(list[i]);
	}
	free(list);
}

/* As OpenSM writes it: hash order, a blank line after each entry. */
static const char opensm_file[] =
	"0x0002c90300000011 0x0004 0x0007\n\n"
	"0x0002c9030000000a 0x0001 0x0001\n\n"
	"0x0002c90300000001 0x0002 0x0002\n\n"
	"0x0002c90300000020 0x0080 0x00ff\n\n";

static const char opensm_saved[] =
	"# loom guid2lid map: port GUID, min LID, max LID (OpenSM's format)\n\n"
	"0x0002c90300000001 0x0002 0x0002\n\n"
	"0x0002c9030000000a 0x0001 0x0001\n\n"
	"0x0002c90300000011 0x0004 0x0007\n\n"
	"0x0002c90300000020 0x0080 0x00ff\n\n";

static void test_roundtrip(void **state)
{
	struct lid_map *m = lfx_map_new(), *m2 = lfx_map_new();
	struct diag d = { 0 };
	char *text, names[256];

	(void)state;
	write_text(lfx_path("opensm"), opensm_file);
	assert_int_equal(lid_map_load(m, lfx_path("opensm"), &d), 0);
	assert_int_equal(diag_count(&d), 0);
	assert_int_equal(lid_map_count(m), 4);
	lfx_expect_ent(m, 0x0002c90300000011, 4, 2);
	lfx_expect_ent(m, 0x0002c9030000000a, 1, 0);
	lfx_expect_ent(m, 0x0002c90300000020, 0x80, 7);

	assert_int_equal(lid_map_save(m, lfx_path("guid2lid")), 0);
	text = read_text(lfx_path("guid2lid"));
	assert_string_equal(text, opensm_saved);
	free(text);
	dir_names(lfx_tmpdir(), names, sizeof(names));
	assert_string_equal(names, "guid2lid opensm "); /* no temporary file left */

	assert_int_equal(lid_map_load(m2, lfx_path("guid2lid"), &d), 0);
	assert_int_equal(diag_count(&d), 0);
	assert_int_equal(lid_map_count(m2), 4);
	for (uint32_t i = 0; i < lid_map_count(m); i++) {
		const struct lid_ent *e = &lid_map_entries(m)[i];

		lfx_expect_ent(m2, e->guid, e->lid, e->lmc);
	}
	/* Saving over the file replaces it. */
	assert_int_equal(lid_map_save(m2, lfx_path("guid2lid")), 0);
	text = read_text(lfx_path("guid2lid"));
	assert_string_equal(text, opensm_saved);
	free(text);
	diag_free(&d);
	lid_map_free(m);
	lid_map_free(m2);
}

/*
 * What OpenSM 3.3 wrote for ft2-k8 on ibsim with LMC 2 (its guid2lid, as is):
 * switches get one LID at a base aligned for the LMC, CAs 4.
 */
static const char opensm_ft2_k8[] =
	"0x0002c90400001a01 0x006c 0x006f\n\n"
	"0x0002c90400000f01 0x0040 0x0043\n\n"
	"0x0002c90400000c01 0x0034 0x0037\n\n"
	"0x0002c90300000001 0x0008 0x0008\n\n"
	"0x0002c90300000002 0x0088 0x0088\n\n"
	"0x0002c90400001d01 0x0078 0x007b\n\n"
	"0x0002c90300000003 0x0089 0x0089\n\n"
	"0x0002c90400001301 0x0050 0x0053\n\n"
	"0x0002c90400001001 0x0044 0x0047\n\n"
	"0x0002c90400000801 0x0024 0x0027\n\n"
	"0x0002c90400000501 0x0018 0x001b\n\n"
	"0x0002c90400000201 0x000c 0x000f\n\n"
	"0x0002c90300000004 0x008a 0x008a\n\n"
	"0x0002c90400001901 0x0068 0x006b\n\n"
	"0x0002c90400001601 0x005c 0x005f\n\n"
	"0x0002c90300000005 0x008b 0x008b\n\n"
	"0x0002c90400001b01 0x0070 0x0073\n\n"
	"0x0002c90400000d01 0x0038 0x003b\n\n"
	"0x0002c90400000a01 0x002c 0x002f\n\n"
	"0x0002c90300000006 0x008c 0x008c\n\n"
	"0x0002c90400001e01 0x007c 0x007f\n\n"
	"0x0002c9030000000a 0x0090 0x0090\n\n"
	"0x0002c90300000007 0x008d 0x008d\n\n"
	"0x0002c90400002001 0x0084 0x0087\n\n"
	"0x0002c90400001401 0x0054 0x0057\n\n"
	"0x0002c90400001101 0x0048 0x004b\n\n"
	"0x0002c90400000901 0x0028 0x002b\n\n"
	"0x0002c90400000601 0x001c 0x001f\n\n"
	"0x0002c90400000301 0x0010 0x0013\n\n"
	"0x0002c9030000000b 0x0091 0x0091\n\n"
	"0x0002c90300000008 0x008e 0x008e\n\n"
	"0x0002c90400001701 0x0060 0x0063\n\n"
	"0x0002c90400000b01 0x0030 0x0033\n\n"
	"0x0002c9030000000c 0x0092 0x0092\n\n"
	"0x0002c90300000009 0x008f 0x008f\n\n"
	"0x0002c90400001f01 0x0080 0x0083\n\n"
	"0x0002c90400001c01 0x0074 0x0077\n\n"
	"0x0002c90400000e01 0x003c 0x003f\n\n"
	"0x0002c90400000401 0x0014 0x0017\n\n"
	"0x0002c90400000101 0x0004 0x0007\n\n"
	"0x0002c90400001801 0x0064 0x0067\n\n"
	"0x0002c90400001501 0x0058 0x005b\n\n"
	"0x0002c90400001201 0x004c 0x004f\n\n"
	"0x0002c90400000701 0x0020 0x0023\n\n";

/* A file OpenSM wrote loads whole, and its LIDs are kept (LMC 2, and the bases with LMC 0). */
static void test_opensm_written(void **state)
{
	struct subnet *sn = rfx_load("ft2-k8.topo");
	struct lid_map *m = lfx_map_new();
	struct lid_report rep;
	struct diag d = { 0 };

	(void)state;
	assert_int_equal(lid_map_load_mem(m, opensm_ft2_k8, strlen(opensm_ft2_k8), "g", &d), 0);
	assert_int_equal(diag_count(&d), 0);
	assert_int_equal(lid_map_count(m), FT2_PORTS);
	lfx_expect_ent(m, 0x0002c90300000002, 0x88, 0);
	lfx_expect_ent(m, 0x0002c90400001a01, 0x6c, 2);
	assert_int_equal(lfx_assign(sn, m, 2, &rep), 0);
	assert_int_equal(rep.kept_map, FT2_PORTS);
	assert_int_equal(rep.map_updates, 0);
	lfx_check_lids(sn, 2, NULL);
	lid_report_free(&rep);
	lfx_zero_lids(sn);
	assert_int_equal(lfx_assign(sn, m, 0, &rep), 0);
	assert_int_equal(rep.kept_map, FT2_PORTS);
	assert_int_equal(rep.map_updates, 32); /* the CAs' LMC */
	lfx_expect_ent(m, 0x0002c90400001a01, 0x6c, 0);
	lfx_check_lids(sn, 0, NULL);
	lid_report_free(&rep);
	diag_free(&d);
	subnet_free(sn);
	lid_map_free(m);
}

static const char bad_file[] =
	"# a comment\n"                                          /* 1 */
	"0x0002c90300000001 0x0001 0x0001\n"                     /* 2 good */
	"0x0002c9030000000g 0x0002 0x0002\n"                     /* 3 bad hex */
	"0x0002c90300000003 0x0003\n"                            /* 4 missing max */
	"0x0002c90300000004 0x0004 0x0006\n"                     /* 5 3 LIDs */
	"0x0002c90300000005 0x0006 0x0009\n"                     /* 6 unaligned */
	"0x0002c90300000006 0x0000 0x0000\n"                     /* 7 LID 0 */
	"0x0002c90300000007 0xc000 0xc000\n"                     /* 8 multicast */
	"0x0002c90300000008 0x0001 0x0001\n"                     /* 9 overlaps 2 */
	"garbage here\n"                                         /* 10 */
	"0x0002c90300000009 0x0010 0x0013\n"                     /* 11 good, LMC 2 */
	"0x0002c90300000001 0x0020 0x0020\n"                     /* 12 GUID of line 2 */
	"  0x0002c9030000000a 0x0012 0x0012\n"                   /* 13 overlaps 11 */
	"0x0002c9030000000b 0x0030 0x0030 junk\n"                /* 14 trailing text */
	"\r\n"                                                   /* 15 blank (CRLF) */
	"0x0002c9030000000c 0x0031 0x0031 # host c\r\n"          /* 16 good, comment */
	"0x0002c9030000000d 0x0040 0x003f\n"                     /* 17 min > max */
	"0x0000000000000000 0x0050 0x0050\n"                     /* 18 GUID 0 */
	"0x0002c9030000000e 0x0100 0x01ff\n"                     /* 19 256 LIDs */
	"0x0002c9030000000f 0xbfff 0xbfff\n"                     /* 20 good, top */
	"0x00000000000000010 0x0041 0x0041\n"                    /* 21 good, GUID 0x10 */
	"0x10000000000000000 0x0042 0x0042\n"                    /* 22 GUID > 64 bits */
	"0x0002c90300000012 8 8\n"                               /* 23 decimal LID */
	"0x0002c90300000013\n"                                   /* 24 missing min */
	"0x0002c90300000014 0x0044 0x0044";                      /* 25 good, no newline */

static const char *const bad_msgs[] = {
	"F:3: bad port GUID \"0x0002c9030000000g\" (expected 0x and up to 16 hex digits); "
	"line skipped",
	"F:4: missing the max LID (expected: 0xPORTGUID 0xMINLID 0xMAXLID); line skipped",
	"F:5: LIDs 0x0004-0x0006 are 3; a port has 2^LMC (1, 2, 4, ... 128); line skipped",
	"F:6: LIDs 0x0006-0x0009 are not aligned: with 4 LIDs the min LID must be a multiple "
	"of 4; line skipped",
	"F:7: min LID \"0x0000\" is not a unicast LID (0x0001-0xbfff); line skipped",
	"F:8: min LID \"0xc000\" is not a unicast LID (0x0001-0xbfff); line skipped",
	"F:9: LIDs 0x0001-0x0001 overlap 0x0001-0x0001 of port GUID 0x0002c90300000001 on "
	"line 2; line skipped",
	"F:10: bad port GUID \"garbage\" (expected 0x and up to 16 hex digits); line skipped",
	"F:12: port GUID 0x0002c90300000001 already has LIDs on line 2; line skipped",
	"F:13: LIDs 0x0012-0x0012 overlap 0x0010-0x0013 of port GUID 0x0002c90300000009 on "
	"line 11; line skipped",
	"F:14: unexpected \"junk\" after the max LID; line skipped",
	"F:17: min LID 0x0040 is above max LID 0x003f; line skipped",
	"F:18: port GUID 0 names no port; line skipped",
	"F:19: LIDs 0x0100-0x01ff are 256; a port has 2^LMC (1, 2, 4, ... 128); line skipped",
	"F:22: bad port GUID \"0x10000000000000000\" (expected 0x and up to 16 hex digits); "
	"line skipped",
	"F:23: bad min LID \"8\" (expected 0x and hex digits); line skipped",
	"F:24: missing the min LID (expected: 0xPORTGUID 0xMINLID 0xMAXLID); line skipped",
};

static void test_bad_lines(void **state)
{
	static const struct { uint64_t guid; uint16_t lid; uint8_t lmc; uint32_t line; } good[] = {
		{ 0x0002c90300000001, 0x0001, 0, 2 },  { 0x0002c90300000009, 0x0010, 2, 11 },
		{ 0x0002c9030000000c, 0x0031, 0, 16 }, { 0x0002c9030000000f, 0xbfff, 0, 20 },
		{ 0x10, 0x0041, 0, 21 },               { 0x0002c90300000014, 0x0044, 0, 25 },
	};
	struct lid_map *m = lfx_map_new();
	struct diag d = { 0 };

	(void)state;
	assert_int_equal(lid_map_load_mem(m, bad_file, strlen(bad_file), "F", &d), 0);
	for (unsigned i = 0; i < d.n; i++)
		if (i >= sizeof(bad_msgs) / sizeof(*bad_msgs) || strcmp(d.msg[i], bad_msgs[i]))
			fail_msg("message %u: \"%s\"", i, d.msg[i]);
	assert_int_equal(d.n, sizeof(bad_msgs) / sizeof(*bad_msgs));
	assert_int_equal(lid_map_count(m), sizeof(good) / sizeof(*good));
	for (unsigned i = 0; i < sizeof(good) / sizeof(*good); i++) {
		const struct lid_ent *e = &lid_map_entries(m)[i];

		lfx_expect_ent(m, good[i].guid, good[i].lid, good[i].lmc);
		assert_int_equal(e->guid, good[i].guid); /* kept in file order */
		assert_int_equal(e->line, good[i].line);
	}
	/* The same from a file: messages name the path. */
	diag_free(&d);
	lid_map_free(m);
	m = lfx_map_new();
	write_text(lfx_path("bad"), bad_file);
	assert_int_equal(lid_map_load(m, lfx_path("bad"), &d), 0);
	assert_int_equal(d.n, sizeof(bad_msgs) / sizeof(*bad_msgs));
	assert_int_equal(strncmp(d.msg[0], lfx_path("bad"), strlen(lfx_path("bad"))), 0);
	assert_string_equal(d.msg[0] + strlen(lfx_path("bad")), bad_msgs[0] + 1);
	assert_int_equal(lid_map_count(m), sizeof(good) / sizeof(*good));
	/* Loading into a map that has entries: those win, and say so. */
	diag_free(&d);
	write_text(lfx_path("more"), "0x0002c90300000099 0x0011 0x0011\n"
				    "0x0002c90300000009 0x0200 0x0200\n");
	assert_int_equal(lid_map_load(m, lfx_path("more"), &d), 0);
	assert_int_equal(d.n, 2);
	assert_non_null(strstr(d.msg[0], ":1: LIDs 0x0011-0x0011 overlap 0x0010-0x0013 of port "
				   "GUID 0x0002c90300000009 in the map; line skipped"));
	assert_non_null(strstr(d.msg[1], ":2: port GUID 0x0002c90300000009 already has LIDs in "
				   "the map; line skipped"));
	diag_free(&d);
	lid_map_free(m);
}

static void test_missing_and_unreadable(void **state)
{
	struct lid_map *m = lfx_map_new();
	struct diag d = { 0 };

	(void)state;
	assert_int_equal(lid_map_load(m, lfx_path("no-such-file"), &d), 0);
	assert_int_equal(lid_map_load(m, "/nonexistent-dir/guid2lid", &d), 0);
	assert_int_equal(diag_count(&d), 0);
	assert_int_equal(lid_map_count(m), 0);
	/* A directory is an I/O error, reported. */
	assert_int_equal(lid_map_load(m, lfx_tmpdir(), &d), -EISDIR);
	assert_int_equal(d.n, 1);
	assert_non_null(strstr(d.msg[0], "cannot read the guid-to-LID map"));
	/* An empty file is an empty map. */
	write_text(lfx_path("empty"), "");
	assert_int_equal(lid_map_load(m, lfx_path("empty"), &d), 0);
	assert_int_equal(lid_map_count(m), 0);
	diag_free(&d);
	lid_map_free(m);
}

static void test_atomic_save(void **state)
{
	static const char old[] = "0x0000000000000001 0x0001 0x0001\n";
	struct lid_map *m = lfx_map_new();
	char names[256], cwd[4096], *text;
	struct stat st;

	(void)state;
	assert_int_equal(lid_map_load_mem(m, opensm_file, strlen(opensm_file), "x", NULL), 0);
	/* No such directory: nothing written anywhere. */
	assert_int_equal(lid_map_save(m, lfx_path("missing/guid2lid")), -ENOENT);
	/* The target is a directory: the rename fails after the write; it is left as it was. */
	assert_int_equal(mkdir(lfx_path("isdir"), 0755), 0);
	assert_true(lid_map_save(m, lfx_path("isdir")) < 0);
	assert_int_equal(stat(lfx_path("isdir"), &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	dir_names(lfx_tmpdir(), names, sizeof(names));
	assert_string_equal(names, "isdir ");
	/* A directory we may not write to: the old file stays (root may write anyway). */
	assert_int_equal(mkdir(lfx_path("ro"), 0755), 0);
	write_text(lfx_path("ro/guid2lid"), old);
	assert_int_equal(chmod(lfx_path("ro"), 0555), 0);
	if (geteuid() != 0) {
		assert_int_equal(lid_map_save(m, lfx_path("ro/guid2lid")), -EACCES);
		text = read_text(lfx_path("ro/guid2lid"));
		assert_string_equal(text, old);
		free(text);
		dir_names(lfx_path("ro"), names, sizeof(names));
		assert_string_equal(names, "guid2lid ");
	} else {
		print_message("# read-only directory case skipped: running as root\n");
	}
	assert_int_equal(chmod(lfx_path("ro"), 0755), 0);
	/* Success: the file has the new content and mode 0644, no temporary file. */
	assert_int_equal(lid_map_save(m, lfx_path("ro/guid2lid")), 0);
	text = read_text(lfx_path("ro/guid2lid"));
	assert_string_equal(text, opensm_saved);
	free(text);
	assert_int_equal(stat(lfx_path("ro/guid2lid"), &st), 0);
	assert_int_equal(st.st_mode & 0777, 0644);
	dir_names(lfx_path("ro"), names, sizeof(names));
	assert_string_equal(names, "guid2lid ");
	/* A bare file name saves into the working directory. */
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir(lfx_tmpdir()), 0);
	assert_int_equal(lid_map_save(m, "bare"), 0);
	assert_int_equal(chdir(cwd), 0);
	assert_int_equal(stat(lfx_path("bare"), &st), 0);
	lid_map_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_roundtrip, lfx_setup_dir, lfx_teardown_dir),
		cmocka_unit_test(test_opensm_written),
		cmocka_unit_test_setup_teardown(test_bad_lines, lfx_setup_dir, lfx_teardown_dir),
		cmocka_unit_test_setup_teardown(test_missing_and_unreadable, lfx_setup_dir,
						lfx_teardown_dir),
		cmocka_unit_test_setup_teardown(test_atomic_save, lfx_setup_dir, lfx_teardown_dir),
	};

	return cmocka_run_group_tests_name("lid_file", tests, NULL, NULL);
}
