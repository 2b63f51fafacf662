/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for the fat-tree engine (routing/ftree*.c) on degraded trees,
 * from contrib/topogen.py, the bundled files and the fixture: everything
 * still arrives, acyclic, the busiest link within 1.5 x the leaf cut bound
 * and no busier than min-hop's; detours through down-up turns that close
 * no credit loop; and the same tables whatever the model's node order (LIDs
 * come from the LID manager, which numbers ports in GUID order, so a model
 * built in another node order gets the same LIDs), run after run.
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
#include "routing/route.h"
#include "model/subnet.h"
#include "tests/unit/ftree_fixture.h"
#include "tests/unit/route_fixture.h"

/* The busiest link on a degraded tree: within 1.5 x the cut bound, and no busier than min-hop's. */
static void degraded(struct subnet *sn, const char *tag)
{
	struct check_report rep;
	struct route_out mh;
	struct route_why why;
	struct check_report mrep;
	struct diag d = { .limit = 1 };
	uint64_t bound;

	rfx_lids(sn, 0);
	rep = ffx_judge(sn, 0, tag);
	bound = ffx_cut_bound(sn, 0);
	assert_true(rep.all2all.max >= bound);
	assert_true(2 * rep.all2all.max <= 3 * bound);
	assert_int_equal(rfx_route_lmc("minhop", sn, 0, &mh, &why), 0);
	assert_int_equal(check_routes(sn, &mh, NULL, &mrep, &d), 0);
	printf("# %s: min-hop all-to-all max %llu (x%.3f of ideal), credit loops: %s\n", tag,
	       (unsigned long long)mrep.all2all.max, mrep.all2all.max / mrep.all2all.ideal,
	       mrep.cdg_acyclic ? "none" : "yes");
	assert_true(rep.all2all.max <= mrep.all2all.max);
	route_out_free(&mh);
	diag_free(&d);
}

static void test_ft2_degraded_file(void **state)
{
	struct subnet *sn = rfx_load("ft2-k8-degraded.topo");

	(void)state;
	degraded(sn, "ft2-k8-degraded.topo");
	subnet_free(sn);
}

static void test_ft3_degraded_generated(void **state)
{
	static const char *const args[] = {
		"fattree3 -k 8 --degrade 0.1 --seed 1",
		"fattree3 -k 8 --degrade 0.2 --keep-connected --seed 1",
		"fattree3 -k 8 --degrade 0.2 --keep-connected --seed 2",
		"fattree3 -k 8 --degrade 0.2 --keep-connected --seed 5",
		"fattree2 -k 8 --degrade 0.2 --keep-connected --seed 4",
		"fattree3 -k 4 --degrade 0.2 --keep-connected --seed 3",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(args) / sizeof(args[0]); i++) {
		struct subnet *sn = ffx_topogen(args[i]);

		degraded(sn, args[i]);
		subnet_free(sn);
	}
}

/* A core and some leaf-agg links missing: still everything, acyclic, bounded. */
static void test_ft3_missing_switch(void **state)
{
	struct ffx_spec s = { 0 };
	struct subnet *sn;

	(void)state;
	ffx_ft3(&s, 8, 5, 7);
	sn = ffx_model(&s, 0);
	degraded(sn, "ft3 k=8 without core0006 and every 7th leaf-agg link");
	subnet_free(sn);
	ffx_free(&s);
}

/*
 * Leaves a and b keep one spine each, and not the same: no up-down path
 * between them. Through leaf c (on both spines) a detour turns down-up,
 * checked to close no credit loop: all pairs arrive, still acyclic.
 */
static void test_detour(void **state)
{
	struct subnet *sn = rfx_read("Hca 1 \"ha1\"\n[1] \"a\"[1]\n"
				     "Hca 1 \"ha2\"\n[1] \"a\"[2]\n"
				     "Hca 1 \"hb1\"\n[1] \"b\"[1]\n"
				     "Hca 1 \"hc1\"\n[1] \"c\"[1]\n"
				     "Switch 4 \"a\"\n[1] \"ha1\"[1]\n[2] \"ha2\"[1]\n[3] \"s1\"[1]\n"
				     "Switch 4 \"b\"\n[1] \"hb1\"[1]\n[4] \"s2\"[2]\n"
				     "Switch 4 \"c\"\n[1] \"hc1\"[1]\n[3] \"s1\"[3]\n[4] \"s2\"[3]\n"
				     "Switch 4 \"s1\"\n[1] \"a\"[3]\n[3] \"c\"[3]\n"
				     "Switch 4 \"s2\"\n[2] \"b\"[4]\n[3] \"c\"[4]\n");
	struct route_out out;
	struct route_why why;

	(void)state;
	rfx_lids(sn, 0);
	ffx_judge(sn, 0, "two leaves without a common spine");
	assert_int_equal(rfx_route_lmc("ftree", sn, 0, &out, &why), 0);
	if (!strstr(why.msg, "detour") || !strstr(why.msg, "checked down-up turns"))
		fail_msg("why: %s", why.msg);
	route_out_free(&out);
	subnet_free(sn);
}

/* Each switch's table, by switch GUID, is the same whatever the model's node order. */
static void same_tables(const struct ffx_spec *s, uint8_t lmc, unsigned seed)
{
	struct subnet *a = ffx_model(s, 0), *b = ffx_model(s, seed);
	struct route_out oa, ob;
	struct route_why why;

	rfx_lids(a, lmc);
	rfx_lids(b, lmc);
	assert_int_equal(rfx_route_lmc("ftree", a, lmc, &oa, &why), 0);
	assert_int_equal(rfx_route_lmc("ftree", b, lmc, &ob, &why), 0);
	rfx_same_rows(a, &oa, b, &ob);
	assert_int_not_equal(a->node[0].guid, b->node[0].guid); /* really shuffled */
	route_out_free(&oa);
	route_out_free(&ob);
	subnet_free(a);
	subnet_free(b);
}

static void test_node_order(void **state)
{
	struct ffx_spec full = { 0 }, cut = { 0 }, gen = { 0 };
	struct subnet *sn;
	struct route_out out;
	struct route_why why;

	(void)state;
	ffx_ft3(&full, 4, UINT32_MAX, 0);
	same_tables(&full, 0, 7);
	same_tables(&full, 2, 7);
	ffx_ft3(&cut, 8, 3, 5); /* degraded */
	same_tables(&cut, 0, 7);
	/* With detours (their path search breaks ties too). */
	sn = ffx_topogen("fattree3 -k 8 --degrade 0.2 --keep-connected --seed 2");
	rfx_lids(sn, 0);
	assert_int_equal(rfx_route_lmc("ftree", sn, 0, &out, &why), 0);
	if (!strstr(why.msg, "detour"))
		fail_msg("no detour: %s", why.msg);
	route_out_free(&out);
	ffx_from(&gen, sn);
	subnet_free(sn);
	for (unsigned seed = 1; seed <= 4; seed++)
		same_tables(&gen, 0, seed);
	ffx_free(&full);
	ffx_free(&cut);
	ffx_free(&gen);
}

static void test_deterministic(void **state)
{
	struct subnet *sn = rfx_load("ft2-k8-degraded.topo");
	struct route_out a, b;
	struct route_why why;

	(void)state;
	rfx_lids(sn, 1);
	assert_int_equal(rfx_route_lmc("ftree", sn, 1, &a, &why), 0);
	assert_int_equal(rfx_route_lmc("ftree", sn, 1, &b, &why), 0);
	assert_memory_equal(a.lft, b.lft, (size_t)a.n_sw * (a.max_lid + 1));
	route_out_free(&a);
	route_out_free(&b);
	subnet_free(sn);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ft2_degraded_file),
		cmocka_unit_test(test_ft3_degraded_generated),
		cmocka_unit_test(test_ft3_missing_switch),
		cmocka_unit_test(test_detour),
		cmocka_unit_test(test_node_order),
		cmocka_unit_test(test_deterministic),
	};

	return cmocka_run_group_tests_name("ftree_degraded", tests, NULL, NULL);
}
