/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for the LID manager (sm/lid.c, sm/lid_file.c): the guid2lid
 * file (round trip, every kind of bad line, atomic save) and assignment
 * (unique aligned LIDs, stable across restarts and node order, map before
 * model before lowest free, offline ports keep theirs, LMC changes, out of
 * LIDs, duplicate GUIDs). LIDs are judged by this file's own checker, not by
 * the report lid_assign writes about itself.
 */
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "lib/diag.h"
#include "sm/lid.h"
#include "sm/subnet.h"
#include "sm/topo.h"

#define FT2_PORTS 44 /* ft2-k8: 12 switches and 32 one-port hosts */

/* ---- helpers ------------------------------------------------------------- */

static char tmpdir[64];

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	chmod(path, 0755);
	return remove(path);
}

static int setup_dir(void **state)
{
	(void)state;
	strcpy(tmpdir, "/tmp/lid_test.XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown_dir(void **state)
{
	(void)state;
	chmod(tmpdir, 0755);
	return nftw(tmpdir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static char *path_in(const char *name)
{
	static char buf[4][256];
	static unsigned k;
	char *p = buf[k++ % 4];

	snprintf(p, 256, "%s/%s", tmpdir, name);
	return p;
}

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

static struct lid_map *map_new(void)
{
	struct lid_map *m = NULL;

	assert_int_equal(lid_map_new(&m), 0);
	return m;
}

static void expect_ent(const struct lid_map *m, uint64_t guid, uint16_t lid, uint8_t lmc)
{
	uint16_t l = 0;
	uint8_t c = 0xff;

	assert_int_equal(lid_map_get(m, guid, &l, &c), 0);
	assert_int_equal(l, lid);
	assert_int_equal(c, lmc);
}

static struct subnet *load_topo(const char *name)
{
	const char *srcdir = getenv("srcdir");
	struct subnet *sn = NULL;
	struct diag d = { 0 };
	char path[4096];

	snprintf(path, sizeof(path), "%s/tests/topologies/%s", srcdir ? srcdir : ".", name);
	if (topo_read_file(path, &sn, &d) < 0)
		diag_print(&d, stderr);
	assert_non_null(sn);
	diag_free(&d);
	return sn;
}

static bool bearing(const struct subnet *sn, uint32_t pi)
{
	const struct subnet_port *p = &sn->port[pi];

	if (subnet_is_switch(sn, p->node))
		return p->num == 0;
	return p->num > 0 && p->peer != SUBNET_NONE;
}

/*
 * The independent judge: every LID-bearing port has a LID range of its LMC
 * (switches 0, others lmc), aligned, inside 1..0xbfff and shared with no
 * other port; every other port has LID 0. Returns the LID-bearing ports
 * that have LIDs; *missing counts those that have none.
 */
static uint32_t check_lids(const struct subnet *sn, uint8_t lmc, uint32_t *missing)
{
	static uint8_t used[SUBNET_LID_UCAST_END + 1];
	uint32_t k = 0, miss = 0;

	memset(used, 0, sizeof(used));
	for (uint32_t i = 0; i < sn->n_ports; i++) {
		const struct subnet_port *p = &sn->port[i];
		uint8_t want = subnet_is_switch(sn, p->node) ? 0 : lmc;

		if (!bearing(sn, i) || !p->lid) {
			assert_int_equal(p->lid, 0);
			assert_int_equal(p->lmc, 0);
			miss += bearing(sn, i);
			continue;
		}
		assert_int_equal(p->lmc, want);
		assert_int_equal(p->lid & ((1u << want) - 1), 0);
		assert_true(p->lid + (1u << want) - 1 <= SUBNET_LID_UCAST_END);
		for (uint32_t l = p->lid; l < p->lid + (1u << want); l++) {
			assert_int_equal(used[l], 0);
			used[l] = 1;
		}
		k++;
	}
	if (missing)
		*missing = miss;
	else
		assert_int_equal(miss, 0);
	return k;
}

static void zero_lids(struct subnet *sn)
{
	for (uint32_t i = 0; i < sn->n_ports; i++)
		sn->port[i].lid = sn->port[i].lmc = 0;
}

/* The port of b that is port pi of a (same node GUID, same number), or SUBNET_NONE. */
static uint32_t same_port(const struct subnet *a, uint32_t pi, const struct subnet *b)
{
	uint32_t n = subnet_find_guid(b, a->node[a->port[pi].node].guid);

	return n == SUBNET_NONE ? n : subnet_port_idx(b, n, a->port[pi].num);
}

/* Every port of a that b has too has the same LIDs in b. Returns how many were compared. */
static uint32_t same_lids(const struct subnet *a, const struct subnet *b)
{
	uint32_t k = 0;

	for (uint32_t i = 0; i < a->n_ports; i++) {
		uint32_t j = same_port(a, i, b);

		if (j == SUBNET_NONE)
			continue;
		assert_int_equal(a->port[i].lid, b->port[j].lid);
		assert_int_equal(a->port[i].lmc, b->port[j].lmc);
		k += a->port[i].lid != 0;
	}
	return k;
}

/*
 * A copy of sn with its nodes in reverse order (or as they are), without the
 * node whose GUID is skip. Port GUIDs (duplicates too), links and the
 * model's LIDs come along.
 */
static struct subnet *copy_model(const struct subnet *sn, bool reverse, uint64_t skip)
{
	uint32_t *map = calloc(sn->n_nodes, sizeof(*map));
	struct subnet *c = NULL;

	assert_non_null(map);
	assert_int_equal(subnet_new(&c), 0);
	for (uint32_t k = 0; k < sn->n_nodes; k++) {
		uint32_t i = reverse ? sn->n_nodes - 1 - k : k;
		const struct subnet_node *nd = &sn->node[i];
		uint32_t ni;

		map[i] = SUBNET_NONE;
		if (nd->guid == skip)
			continue;
		assert_int_equal(subnet_add_node(c, nd->type, nd->nports, nd->guid,
						 subnet_str(sn, nd->name), subnet_str(sn, nd->desc),
						 &ni), 0);
		map[i] = ni;
		c->node[ni].port0_guid = nd->port0_guid;
		for (unsigned p = 0; p <= nd->nports; p++) {
			const struct subnet_port *from = &sn->port[nd->port_base + p];
			struct subnet_port *to = &c->port[c->node[ni].port_base + p];

			if (subnet_set_port_guid(c, c->node[ni].port_base + p, from->guid) < 0)
				to->guid = from->guid; /* a duplicate: kept, not indexed */
			to->lid = from->lid;
			to->lmc = from->lmc;
		}
	}
	for (uint32_t i = 0; i < sn->n_ports; i++) {
		const struct subnet_port *p = &sn->port[i];
		uint32_t a, b;

		if (p->peer == SUBNET_NONE || p->peer < i)
			continue;
		a = map[p->node];
		b = map[sn->port[p->peer].node];
		if (a != SUBNET_NONE && b != SUBNET_NONE)
			assert_int_equal(subnet_link(c, subnet_port_idx(c, a, p->num),
						     subnet_port_idx(c, b, sn->port[p->peer].num)), 0);
	}
	free(map);
	return c;
}

/*
 * nsw switches of nports ports, each with ca_per_sw one-port CAs on ports
 * 1..ca_per_sw. Switch GUIDs from 0x10, CA GUIDs from 0x100000 (port GUID
 * = node GUID + 1).
 */
static struct subnet *synth(uint32_t nsw, uint8_t nports, uint32_t ca_per_sw)
{
	struct subnet *sn = NULL;
	char name[32];

	assert_int_equal(subnet_new(&sn), 0);
	for (uint32_t s = 0; s < nsw; s++) {
		uint32_t si, ci;

		snprintf(name, sizeof(name), "sw%u", s);
		assert_int_equal(subnet_add_node(sn, NODE_SWITCH, nports, 0x10 + s, name, NULL, &si),
				 0);
		for (uint32_t k = 0; k < ca_per_sw; k++) {
			uint64_t g = 0x100000 + 2 * ((uint64_t)s * ca_per_sw + k);

			snprintf(name, sizeof(name), "h%u-%u", s, k);
			assert_int_equal(subnet_add_node(sn, NODE_CA, 1, g, name, NULL, &ci), 0);
			assert_int_equal(subnet_link(sn, subnet_port_idx(sn, si, k + 1),
						     subnet_port_idx(sn, ci, 1)), 0);
		}
	}
	return sn;
}

static int assign(struct subnet *sn, struct lid_map *m, uint8_t lmc, struct lid_report *rep)
{
	int r;

	*rep = (struct lid_report){ .msgs.limit = LID_MAX_MSGS };
	r = lid_assign(sn, m, lmc, rep);
	if (rep->msgs.n && getenv("LID_TEST_VERBOSE"))
		diag_print(&rep->msgs, stderr);
	return r;
}

/* ---- the file ------------------------------------------------------------ */

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
	struct lid_map *m = map_new(), *m2 = map_new();
	struct diag d = { 0 };
	char *text, names[256];

	(void)state;
	write_text(path_in("opensm"), opensm_file);
	assert_int_equal(lid_map_load(m, path_in("opensm"), &d), 0);
	assert_int_equal(diag_count(&d), 0);
	assert_int_equal(lid_map_count(m), 4);
	expect_ent(m, 0x0002c90300000011, 4, 2);
	expect_ent(m, 0x0002c9030000000a, 1, 0);
	expect_ent(m, 0x0002c90300000020, 0x80, 7);

	assert_int_equal(lid_map_save(m, path_in("guid2lid")), 0);
	text = read_text(path_in("guid2lid"));
	assert_string_equal(text, opensm_saved);
	free(text);
	dir_names(tmpdir, names, sizeof(names));
	assert_string_equal(names, "guid2lid opensm "); /* no temporary file left */

	assert_int_equal(lid_map_load(m2, path_in("guid2lid"), &d), 0);
	assert_int_equal(diag_count(&d), 0);
	assert_int_equal(lid_map_count(m2), 4);
	for (uint32_t i = 0; i < lid_map_count(m); i++) {
		const struct lid_ent *e = &lid_map_entries(m)[i];

		expect_ent(m2, e->guid, e->lid, e->lmc);
	}
	/* Saving over the file replaces it. */
	assert_int_equal(lid_map_save(m2, path_in("guid2lid")), 0);
	text = read_text(path_in("guid2lid"));
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
	struct subnet *sn = load_topo("ft2-k8.topo");
	struct lid_map *m = map_new();
	struct lid_report rep;
	struct diag d = { 0 };

	(void)state;
	assert_int_equal(lid_map_load_mem(m, opensm_ft2_k8, strlen(opensm_ft2_k8), "g", &d), 0);
	assert_int_equal(diag_count(&d), 0);
	assert_int_equal(lid_map_count(m), FT2_PORTS);
	expect_ent(m, 0x0002c90300000002, 0x88, 0);
	expect_ent(m, 0x0002c90400001a01, 0x6c, 2);
	assert_int_equal(assign(sn, m, 2, &rep), 0);
	assert_int_equal(rep.kept_map, FT2_PORTS);
	assert_int_equal(rep.map_updates, 0);
	check_lids(sn, 2, NULL);
	lid_report_free(&rep);
	zero_lids(sn);
	assert_int_equal(assign(sn, m, 0, &rep), 0);
	assert_int_equal(rep.kept_map, FT2_PORTS);
	assert_int_equal(rep.map_updates, 32); /* the CAs' LMC */
	expect_ent(m, 0x0002c90400001a01, 0x6c, 0);
	check_lids(sn, 0, NULL);
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
	struct lid_map *m = map_new();
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

		expect_ent(m, good[i].guid, good[i].lid, good[i].lmc);
		assert_int_equal(e->guid, good[i].guid); /* kept in file order */
		assert_int_equal(e->line, good[i].line);
	}
	/* The same from a file: messages name the path. */
	diag_free(&d);
	lid_map_free(m);
	m = map_new();
	write_text(path_in("bad"), bad_file);
	assert_int_equal(lid_map_load(m, path_in("bad"), &d), 0);
	assert_int_equal(d.n, sizeof(bad_msgs) / sizeof(*bad_msgs));
	assert_int_equal(strncmp(d.msg[0], path_in("bad"), strlen(path_in("bad"))), 0);
	assert_string_equal(d.msg[0] + strlen(path_in("bad")), bad_msgs[0] + 1);
	assert_int_equal(lid_map_count(m), sizeof(good) / sizeof(*good));
	/* Loading into a map that has entries: those win, and say so. */
	diag_free(&d);
	write_text(path_in("more"), "0x0002c90300000099 0x0011 0x0011\n"
				    "0x0002c90300000009 0x0200 0x0200\n");
	assert_int_equal(lid_map_load(m, path_in("more"), &d), 0);
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
	struct lid_map *m = map_new();
	struct diag d = { 0 };

	(void)state;
	assert_int_equal(lid_map_load(m, path_in("no-such-file"), &d), 0);
	assert_int_equal(lid_map_load(m, "/nonexistent-dir/guid2lid", &d), 0);
	assert_int_equal(diag_count(&d), 0);
	assert_int_equal(lid_map_count(m), 0);
	/* A directory is an I/O error, reported. */
	assert_int_equal(lid_map_load(m, tmpdir, &d), -EISDIR);
	assert_int_equal(d.n, 1);
	assert_non_null(strstr(d.msg[0], "cannot read the guid-to-LID map"));
	/* An empty file is an empty map. */
	write_text(path_in("empty"), "");
	assert_int_equal(lid_map_load(m, path_in("empty"), &d), 0);
	assert_int_equal(lid_map_count(m), 0);
	diag_free(&d);
	lid_map_free(m);
}

static void test_atomic_save(void **state)
{
	static const char old[] = "0x0000000000000001 0x0001 0x0001\n";
	struct lid_map *m = map_new();
	char names[256], cwd[4096], *text;
	struct stat st;

	(void)state;
	assert_int_equal(lid_map_load_mem(m, opensm_file, strlen(opensm_file), "x", NULL), 0);
	/* No such directory: nothing written anywhere. */
	assert_int_equal(lid_map_save(m, path_in("missing/guid2lid")), -ENOENT);
	/* The target is a directory: the rename fails after the write; it is left as it was. */
	assert_int_equal(mkdir(path_in("isdir"), 0755), 0);
	assert_true(lid_map_save(m, path_in("isdir")) < 0);
	assert_int_equal(stat(path_in("isdir"), &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	dir_names(tmpdir, names, sizeof(names));
	assert_string_equal(names, "isdir ");
	/* A directory we may not write to: the old file stays (root may write anyway). */
	assert_int_equal(mkdir(path_in("ro"), 0755), 0);
	write_text(path_in("ro/guid2lid"), old);
	assert_int_equal(chmod(path_in("ro"), 0555), 0);
	if (geteuid() != 0) {
		assert_int_equal(lid_map_save(m, path_in("ro/guid2lid")), -EACCES);
		text = read_text(path_in("ro/guid2lid"));
		assert_string_equal(text, old);
		free(text);
		dir_names(path_in("ro"), names, sizeof(names));
		assert_string_equal(names, "guid2lid ");
	} else {
		print_message("# read-only directory case skipped: running as root\n");
	}
	assert_int_equal(chmod(path_in("ro"), 0755), 0);
	/* Success: the file has the new content and mode 0644, no temporary file. */
	assert_int_equal(lid_map_save(m, path_in("ro/guid2lid")), 0);
	text = read_text(path_in("ro/guid2lid"));
	assert_string_equal(text, opensm_saved);
	free(text);
	assert_int_equal(stat(path_in("ro/guid2lid"), &st), 0);
	assert_int_equal(st.st_mode & 0777, 0644);
	dir_names(path_in("ro"), names, sizeof(names));
	assert_string_equal(names, "guid2lid ");
	/* A bare file name saves into the working directory. */
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir(tmpdir), 0);
	assert_int_equal(lid_map_save(m, "bare"), 0);
	assert_int_equal(chdir(cwd), 0);
	assert_int_equal(stat(path_in("bare"), &st), 0);
	lid_map_free(m);
}

/* ---- assignment ---------------------------------------------------------- */

static void test_fresh(void **state)
{
	(void)state;
	for (uint8_t lmc = 0; lmc <= 3; lmc++) {
		struct subnet *sn = load_topo("ft2-k8.topo");
		struct lid_map *m = map_new();
		struct lid_report rep;

		assert_int_equal(assign(sn, m, lmc, &rep), 0);
		assert_int_equal(check_lids(sn, lmc, NULL), FT2_PORTS);
		assert_int_equal(rep.assigned_new, FT2_PORTS);
		assert_int_equal(rep.kept_map + rep.kept_fabric + rep.unassigned + rep.changed, 0);
		assert_int_equal(rep.map_updates, FT2_PORTS);
		assert_int_equal(lid_map_count(m), FT2_PORTS);
		assert_int_equal(rep.msgs.n, 0);
		/* Lowest free: with LMC 0 the LIDs are exactly 1..44. */
		if (lmc == 0)
			for (uint32_t i = 0; i < sn->n_ports; i++)
				assert_true(sn->port[i].lid <= FT2_PORTS);
		/* The map holds exactly what the model got. */
		for (uint32_t i = 0; i < sn->n_ports; i++) {
			const struct subnet_port *p = &sn->port[i];

			if (!bearing(sn, i))
				continue;
			expect_ent(m, subnet_is_switch(sn, p->node) ?
				   sn->node[p->node].port0_guid : p->guid, p->lid, p->lmc);
		}
		lid_report_free(&rep);
		lid_map_free(m);
		subnet_free(sn);
	}
}

/* Same model, same map => same LIDs, whatever the node order; a saved map brings them back. */
static void test_stable(void **state)
{
	(void)state;
	for (uint8_t lmc = 0; lmc <= 3; lmc += 3) {
		struct subnet *sn = load_topo("ft2-k8.topo"), *rev, *rev2;
		struct lid_map *m = map_new(), *m2 = map_new(), *m3 = map_new();
		struct lid_report rep;
		struct diag d = { 0 };

		assert_int_equal(assign(sn, m, lmc, &rep), 0);
		lid_report_free(&rep);
		assert_int_equal(lid_map_save(m, path_in("g2l")), 0);
		assert_int_equal(lid_map_load(m2, path_in("g2l"), &d), 0);
		assert_int_equal(diag_count(&d), 0);

		/* Restart: reversed node order, no LIDs in the model, the saved map. */
		rev = copy_model(sn, true, 0);
		zero_lids(rev);
		assert_int_equal(rev->node[0].guid, sn->node[sn->n_nodes - 1].guid);
		assert_int_equal(assign(rev, m2, lmc, &rep), 0);
		assert_int_equal(rep.kept_map, FT2_PORTS);
		assert_int_equal(rep.map_updates, 0);
		assert_int_equal(same_lids(sn, rev), FT2_PORTS);
		lid_report_free(&rep);

		/* No map at all: the node order still does not matter. */
		rev2 = copy_model(sn, true, 0);
		zero_lids(rev2);
		assert_int_equal(assign(rev2, m3, lmc, &rep), 0);
		assert_int_equal(rep.assigned_new, FT2_PORTS);
		assert_int_equal(same_lids(sn, rev2), FT2_PORTS);
		lid_report_free(&rep);

		diag_free(&d);
		subnet_free(rev);
		subnet_free(rev2);
		subnet_free(sn);
		lid_map_free(m);
		lid_map_free(m2);
		lid_map_free(m3);
	}
}

/* ft2-k8's LID-bearing ports: CA ports in ca[32], switch ports 0 in sw[12]. */
static void ft2_ports(const struct subnet *sn, uint32_t *ca, uint32_t *sw)
{
	uint32_t nca = 0, nsw = 0;

	for (uint32_t i = 0; i < sn->n_ports; i++) {
		if (!bearing(sn, i))
			continue;
		if (subnet_is_switch(sn, sn->port[i].node))
			sw[nsw++] = i;
		else
			ca[nca++] = i;
	}
	assert_int_equal(nca, 32);
	assert_int_equal(nsw, 12);
}

/* The map beats the model. */
static void test_map_first(void **state)
{
	struct subnet *sn = load_topo("ft2-k8.topo"), *ref;
	struct lid_map *m = map_new();
	uint32_t ca[32], sw[12], nca = 32;
	struct lid_report rep;

	(void)state;
	assert_int_equal(assign(sn, m, 2, &rep), 0);
	lid_report_free(&rep);
	ref = copy_model(sn, false, 0);
	ft2_ports(sn, ca, sw);

	/* The model says otherwise (LIDs rotated among the CAs): the map wins. */
	for (uint32_t j = 0; j < nca; j++)
		sn->port[ca[j]].lid = ref->port[ca[(j + 1) % nca]].lid;
	assert_int_equal(assign(sn, m, 2, &rep), 0);
	assert_int_equal(rep.kept_map, FT2_PORTS);
	assert_int_equal(rep.changed, 32);
	assert_int_equal(same_lids(ref, sn), FT2_PORTS);
	lid_report_free(&rep);
	subnet_free(sn);
	subnet_free(ref);
	lid_map_free(m);
}

/* Without a map the model's LIDs beat the lowest free; offline entries beat both. */
static void test_model_lids(void **state)
{
	struct subnet *sn = load_topo("ft2-k8.topo");
	struct lid_map *empty = map_new();
	uint32_t ca[32], sw[12], nca = 32, nsw = 12;
	struct lid_report rep;

	(void)state;
	ft2_ports(sn, ca, sw);
	/* The model's LIDs are kept if aligned; an unaligned one is replaced. */
	for (uint32_t j = 0; j < nca; j++)
		sn->port[ca[j]].lid = (uint16_t)(0x1000 + 4 * j);
	for (uint32_t j = 0; j < nsw; j++)
		sn->port[sw[j]].lid = (uint16_t)(0x2001 + j); /* a switch needs no alignment */
	sn->port[ca[7]].lid = 0x3002;
	assert_int_equal(assign(sn, empty, 2, &rep), 0);
	check_lids(sn, 2, NULL);
	assert_int_equal(rep.kept_fabric, FT2_PORTS - 1);
	assert_int_equal(rep.assigned_new, 1);
	assert_int_equal(rep.changed, 1);
	assert_int_equal(rep.map_updates, FT2_PORTS);
	assert_int_equal(sn->port[ca[7]].lid, 4); /* the lowest free 4 LIDs */
	for (uint32_t j = 0; j < nca; j++)
		if (j != 7)
			assert_int_equal(sn->port[ca[j]].lid, 0x1000 + 4 * j);
	for (uint32_t j = 0; j < nsw; j++)
		assert_int_equal(sn->port[sw[j]].lid, 0x2001 + j);
	lid_report_free(&rep);

	/* Two ports with one model LID: one keeps it, the other moves. */
	lid_map_free(empty);
	empty = map_new();
	zero_lids(sn);
	sn->port[ca[0]].lid = sn->port[sw[0]].lid = 0x40;
	assert_int_equal(assign(sn, empty, 0, &rep), 0);
	check_lids(sn, 0, NULL);
	assert_int_equal(rep.kept_fabric, 1);
	assert_int_equal(rep.changed, 1);
	assert_int_equal(rep.assigned_new, FT2_PORTS - 1);
	lid_report_free(&rep);

	/* A GUID the fabric does not have holds its LIDs against a model LID. */
	lid_map_free(empty);
	empty = map_new();
	assert_int_equal(lid_map_load_mem(empty, "0x00000000deadbeef 0x0040 0x0043\n", 33, "x",
					  NULL), 0);
	sn->port[ca[0]].lid = sn->port[sw[0]].lid = 0;
	sn->port[ca[1]].lid = 0x42;
	assert_int_equal(assign(sn, empty, 0, &rep), 0);
	check_lids(sn, 0, NULL);
	for (uint32_t i = 0; i < sn->n_ports; i++)
		assert_true(sn->port[i].lid < 0x40 || sn->port[i].lid > 0x43);
	expect_ent(empty, 0xdeadbeef, 0x40, 2);
	assert_int_equal(lid_map_count(empty), FT2_PORTS + 1);
	lid_report_free(&rep);
	subnet_free(sn);
	lid_map_free(empty);
}

/* A map entry that cannot be kept for a larger LMC moves, and the report says why. */
static void test_map_lost(void **state)
{
	static const char text[] = "0x0000000000100001 0x0040 0x0040\n"  /* h0-0 */
				   "0x0000000000000010 0x0041 0x0041\n"  /* sw0 */
				   "0x0000000000100003 0x0050 0x0050\n"  /* h0-1 */
				   "0x00000000deadbeef 0x0051 0x0051\n"; /* offline */
	struct subnet *sn = synth(1, 8, 3);
	struct lid_map *m = map_new();
	struct lid_report rep;

	(void)state;
	assert_int_equal(lid_map_load_mem(m, text, strlen(text), "x", NULL), 0);
	assert_int_equal(lid_map_count(m), 4);
	assert_int_equal(assign(sn, m, 1, &rep), 0);
	check_lids(sn, 1, NULL);
	assert_int_equal(rep.kept_map, 1); /* the switch, first in GUID order */
	assert_int_equal(rep.assigned_new, 3);
	assert_int_equal(rep.msgs.n, 2);
	assert_string_equal(rep.msgs.msg[0], "CA 0x0000000000100000 \"h0-0\" port 1: LID 0x0040 "
			    "from the map not kept (LID 0x0041 is taken by switch 0x0000000000000010 "
			    "\"sw0\" port 0); it gets 0x0002");
	assert_string_equal(rep.msgs.msg[1], "CA 0x0000000000100002 \"h0-1\" port 1: LID 0x0050 "
			    "from the map not kept (LID 0x0051 is held for port GUID "
			    "0x00000000deadbeef, which is not in the fabric now); it gets 0x0004");
	expect_ent(m, 0x100001, 2, 1);
	expect_ent(m, 0x100003, 4, 1);
	expect_ent(m, 0x100005, 6, 1);
	expect_ent(m, 0xdeadbeef, 0x51, 0);
	assert_int_equal(rep.map_updates, 3);
	lid_report_free(&rep);
	subnet_free(sn);
	lid_map_free(m);
}

/* A node that goes away keeps its LID reserved and gets it back when it returns. */
static void test_offline_node(void **state)
{
	struct subnet *sn = load_topo("ft2-k8.topo"), *gone, *back;
	uint32_t h = subnet_find_name(sn, "h00005"), hp, sw, ca;
	struct lid_map *m = map_new();
	struct lid_report rep;
	uint16_t lid;

	(void)state;
	assert_int_not_equal(h, SUBNET_NONE);
	hp = subnet_port_idx(sn, h, 1);
	assert_int_equal(assign(sn, m, 0, &rep), 0);
	lid_report_free(&rep);
	lid = sn->port[hp].lid;
	assert_true(lid > 0 && lid < FT2_PORTS); /* so the lowest free would be it */

	/* Gone, and a new switch and host arrive: they must not get its LID. */
	gone = copy_model(sn, false, sn->node[h].guid);
	zero_lids(gone);
	assert_int_equal(subnet_add_node(gone, NODE_SWITCH, 4, 0x0002c90500000001, "new-sw", NULL,
					 &sw), 0);
	assert_int_equal(subnet_add_node(gone, NODE_CA, 1, 0x0002c90500000010, "new-h", NULL, &ca),
			 0);
	assert_int_equal(subnet_link(gone, subnet_port_idx(gone, sw, 1),
				     subnet_port_idx(gone, ca, 1)), 0);
	assert_int_equal(assign(gone, m, 0, &rep), 0);
	assert_int_equal(check_lids(gone, 0, NULL), FT2_PORTS + 1);
	assert_int_equal(rep.kept_map, FT2_PORTS - 1);
	assert_int_equal(rep.assigned_new, 2);
	assert_int_equal(same_lids(sn, gone), FT2_PORTS - 1);
	for (uint32_t i = 0; i < gone->n_ports; i++)
		assert_int_not_equal(gone->port[i].lid, lid);
	expect_ent(m, sn->port[hp].guid, lid, 0); /* still in the map */
	assert_int_equal(lid_map_count(m), FT2_PORTS + 2);
	lid_report_free(&rep);

	/* Back, in another node order: its old LID again. */
	back = copy_model(sn, true, 0);
	zero_lids(back);
	assert_int_equal(assign(back, m, 0, &rep), 0);
	assert_int_equal(rep.kept_map, FT2_PORTS);
	assert_int_equal(same_lids(sn, back), FT2_PORTS);
	assert_int_equal(lid_map_count(m), FT2_PORTS + 2); /* the new ones are offline now */
	lid_report_free(&rep);

	/* An unlinked CA port is not LID-bearing: LID 0, and its entry is kept. */
	subnet_unlink(back, same_port(sn, hp, back));
	back->port[same_port(sn, hp, back)].lid = lid;
	assert_int_equal(assign(back, m, 0, &rep), 0);
	assert_int_equal(check_lids(back, 0, NULL), FT2_PORTS - 1);
	assert_int_equal(back->port[same_port(sn, hp, back)].lid, 0);
	expect_ent(m, sn->port[hp].guid, lid, 0);
	lid_report_free(&rep);
	subnet_free(sn);
	subnet_free(gone);
	subnet_free(back);
	lid_map_free(m);
}

/* LMC 0 -> 2: aligned bases are kept if their block is free, others move; 2 -> 0 keeps all. */
static void test_lmc_change(void **state)
{
	struct subnet *sn = load_topo("ft2-k8.topo"), *ref;
	struct lid_map *m = map_new();
	struct lid_report rep;
	uint32_t same = 0, ca_moved = 0;

	(void)state;
	assert_int_equal(assign(sn, m, 0, &rep), 0);
	lid_report_free(&rep);
	ref = copy_model(sn, false, 0);
	zero_lids(sn);
	assert_int_equal(assign(sn, m, 2, &rep), 0);
	assert_int_equal(check_lids(sn, 2, NULL), FT2_PORTS);
	for (uint32_t i = 0; i < sn->n_ports; i++) {
		const struct subnet_port *p = &sn->port[i];

		if (!bearing(sn, i))
			continue;
		same += p->lid == ref->port[i].lid;
		if (!subnet_is_switch(sn, p->node)) {
			expect_ent(m, p->guid, p->lid, 2);
			ca_moved += ref->port[i].lid % 4 != 0;
		}
	}
	assert_int_equal(rep.kept_map, same);
	assert_true(same > 0 && same < FT2_PORTS);
	assert_true(ca_moved > 0);
	assert_int_equal(rep.assigned_new, FT2_PORTS - same);
	assert_int_equal(rep.map_updates, FT2_PORTS - same + 32 - ca_moved); /* + LMC only */
	/* Unaligned ones in one line at the end; any other loss is named (here: taken). */
	{
		char want[160];

		snprintf(want, sizeof(want), "%u ports got new LIDs: their LIDs in the map are not "
			 "aligned for LMC 2 (4 LIDs a port)", ca_moved);
		assert_true(rep.msgs.n >= 1);
		assert_string_equal(rep.msgs.msg[rep.msgs.n - 1], want);
		for (unsigned i = 0; i + 1 < rep.msgs.n; i++)
			assert_non_null(strstr(rep.msgs.msg[i], "from the map not kept (LID 0x"));
		assert_int_equal(rep.msgs.n - 1 + ca_moved + same, FT2_PORTS);
	}
	lid_report_free(&rep);
	subnet_free(ref);

	/* Back to LMC 0: every base is still aligned and free. */
	ref = copy_model(sn, false, 0);
	zero_lids(sn);
	assert_int_equal(assign(sn, m, 0, &rep), 0);
	assert_int_equal(check_lids(sn, 0, NULL), FT2_PORTS);
	assert_int_equal(rep.kept_map, FT2_PORTS);
	for (uint32_t i = 0; i < sn->n_ports; i++)
		assert_int_equal(sn->port[i].lid, ref->port[i].lid);
	lid_report_free(&rep);
	subnet_free(ref);
	subnet_free(sn);
	lid_map_free(m);
}

/* LMC 7: 383 blocks of 128 LIDs (0x0080-0xbfff); 400 CAs do not fit. */
static void test_out_of_lids(void **state)
{
	struct subnet *sn = synth(2, 254, 200);
	struct lid_map *m = map_new();
	struct lid_report rep;
	uint32_t missing = 0;

	(void)state;
	/* LMC 0 first: switches 1-2, CAs 3-402; of those only 128, 256 and 384 are LMC 7 bases. */
	assert_int_equal(assign(sn, m, 0, &rep), 0);
	assert_int_equal(check_lids(sn, 0, NULL), 402);
	lid_report_free(&rep);
	assert_int_equal(assign(sn, m, 7, &rep), -ENOSPC);
	assert_int_equal(check_lids(sn, 7, &missing), 2 + 383);
	assert_int_equal(missing, 17);
	assert_int_equal(rep.unassigned, 17);
	assert_int_equal(rep.kept_map, 5);
	assert_int_equal(rep.assigned_new, 380);
	assert_int_equal(rep.changed, 380);
	/* Every CA's entry changed (LMC) or went (no LIDs); the switches' stayed. */
	assert_int_equal(rep.map_updates, 400);
	assert_int_equal(lid_map_count(m), 385);
	/* GUID order decides who is left out: the 17 highest. */
	for (uint32_t n = 0; n < sn->n_nodes; n++) {
		const struct subnet_port *p = &sn->port[subnet_port_idx(sn, n, 1)];

		if (sn->node[n].type == NODE_CA)
			assert_int_equal(p->lid == 0, sn->node[n].guid >= 0x100000 + 2 * 383);
	}
	assert_int_equal(rep.msgs.n, 19);
	for (unsigned i = 0; i < 17; i++)
		assert_non_null(strstr(rep.msgs.msg[i], "no free range of 128 LIDs (LMC 7) is left"));
	assert_string_equal(rep.msgs.msg[17], "380 ports got new LIDs: their LIDs in the map are "
			    "not aligned for LMC 7 (128 LIDs a port)");
	assert_string_equal(rep.msgs.msg[18], "out of LIDs: 17 ports left without one (LMC 7 "
			    "gives each CA port 128 LIDs; a lower LMC fits more)");
	lid_report_free(&rep);
	/* LMC 6 fits them all, and the switches keep their LIDs. */
	assert_int_equal(assign(sn, m, 6, &rep), 0);
	assert_int_equal(check_lids(sn, 6, NULL), 402);
	assert_int_equal(rep.kept_map, 2 + 383);
	lid_report_free(&rep);
	assert_int_equal(assign(sn, m, 8, &rep), -EINVAL);
	subnet_free(sn);
	lid_map_free(m);
}

static void test_duplicate_guid(void **state)
{
	struct subnet *sn = synth(1, 8, 3), *rev;
	uint32_t a = subnet_find_name(sn, "h0-0"), b = subnet_find_name(sn, "h0-2");
	uint32_t pa = subnet_port_idx(sn, a, 1), pb = subnet_port_idx(sn, b, 1);
	struct lid_map *m = map_new();
	struct lid_report rep;
	uint32_t missing;

	(void)state;
	sn->port[pb].guid = sn->port[pa].guid; /* as a broken fabric has it */
	assert_int_equal(assign(sn, m, 0, &rep), 0);
	assert_int_equal(check_lids(sn, 0, &missing), 3);
	assert_int_equal(missing, 1);
	assert_int_not_equal(sn->port[pa].lid, 0);
	assert_int_equal(sn->port[pb].lid, 0);
	assert_int_equal(rep.duplicate, 1);
	assert_int_equal(rep.unassigned, 1);
	assert_int_equal(rep.msgs.n, 1);
	assert_string_equal(rep.msgs.msg[0], "CA 0x0000000000100004 \"h0-2\" port 1: port GUID "
			    "0x0000000000100001 is also CA 0x0000000000100000 \"h0-0\" port 1's; "
			    "it gets no LID until one of them has another GUID");
	expect_ent(m, sn->port[pa].guid, sn->port[pa].lid, 0);
	assert_int_equal(lid_map_count(m), 3);
	lid_report_free(&rep);

	/* In reverse node order h0-2 comes first: it takes the GUID's LID. */
	rev = copy_model(sn, true, 0);
	assert_int_equal(assign(rev, m, 0, &rep), 0);
	assert_int_equal(rev->port[same_port(sn, pb, rev)].lid, sn->port[pa].lid);
	assert_int_equal(rev->port[same_port(sn, pa, rev)].lid, 0);
	assert_int_equal(rep.duplicate, 1);
	lid_report_free(&rep);
	subnet_free(rev);
	subnet_free(sn);
	lid_map_free(m);
}

static double ms_since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) * 1e3 + (double)(t1.tv_nsec - t0->tv_nsec) / 1e6;
}

/* 1,400 36-port switches, 32 hosts each: 46,200 LID-bearing ports. Timed, never judged on time. */
static void test_large(void **state)
{
	struct subnet *sn = synth(1400, 36, 32), *rev;
	struct lid_map *m = map_new();
	struct lid_report rep;
	struct timespec t0;
	double fresh, again;

	(void)state;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(assign(sn, m, 0, &rep), 0);
	fresh = ms_since(&t0);
	assert_int_equal(check_lids(sn, 0, NULL), 46200);
	lid_report_free(&rep);
	rev = copy_model(sn, true, 0);
	zero_lids(rev);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(assign(rev, m, 0, &rep), 0);
	again = ms_since(&t0);
	assert_int_equal(rep.kept_map, 46200);
	assert_int_equal(same_lids(sn, rev), 46200);
	lid_report_free(&rep);
	print_message("# lid_assign, 46,200 LID-bearing ports (%u in the model): %.1f ms fresh, "
		      "%.1f ms from the map in reverse node order\n", sn->n_ports, fresh, again);
	subnet_free(sn);
	subnet_free(rev);
	lid_map_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_roundtrip, setup_dir, teardown_dir),
		cmocka_unit_test(test_opensm_written),
		cmocka_unit_test_setup_teardown(test_bad_lines, setup_dir, teardown_dir),
		cmocka_unit_test_setup_teardown(test_missing_and_unreadable, setup_dir, teardown_dir),
		cmocka_unit_test_setup_teardown(test_atomic_save, setup_dir, teardown_dir),
		cmocka_unit_test(test_fresh),
		cmocka_unit_test_setup_teardown(test_stable, setup_dir, teardown_dir),
		cmocka_unit_test(test_map_first),
		cmocka_unit_test(test_model_lids),
		cmocka_unit_test(test_map_lost),
		cmocka_unit_test(test_offline_node),
		cmocka_unit_test(test_lmc_change),
		cmocka_unit_test(test_out_of_lids),
		cmocka_unit_test(test_duplicate_guid),
		cmocka_unit_test(test_large),
	};

	return cmocka_run_group_tests_name("lid", tests, NULL, NULL);
}
