/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for the fat-tree engine (routing/ftree*.c) on full trees,
 * judged by the independent route checker (routing/check.c): every pair
 * arrives, nothing loops, the channel dependencies are acyclic, and the
 * busiest link under all-to-all carries exactly what the fabric's tightest
 * cut allows (ftree_fixture.h: the leaf cut bound); on a 2-level tree that
 * equals the checker's ideal; on 3 levels the ideal, the mean over all
 * links, is lower than the leaves' uplinks can get. Also: what is not a
 * tree is refused, with a reason; fabrics in pieces; the engine's messages.
 * Degraded trees are in ftree_degraded_test.c.
 *
 * Full trees are built by the fixture (2 and 3 levels, k up to 16), so
 * they do not depend on the generator. LIDs come from the LID manager.
 */
#include <errno.h>
#include <math.h>
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

static void full_tree(struct subnet *sn, uint8_t lmc, const char *tag, bool two_level)
{
	struct check_report rep;

	rfx_lids(sn, lmc);
	rep = ffx_judge(sn, lmc, tag);
	assert_int_equal(rep.all2all.max, ffx_cut_bound(sn, lmc));
	if (two_level)
		assert_true(fabs((double)rep.all2all.max - rep.all2all.ideal) < 1e-6);
	assert_int_equal(rep.shift.max, 1);
}

static void test_ft2_k8(void **state)
{
	(void)state;
	for (uint8_t lmc = 0; lmc <= 2; lmc++) {
		struct subnet *sn = rfx_load("ft2-k8.topo");

		full_tree(sn, lmc, "ft2-k8.topo", true);
		subnet_free(sn);
	}
}

static void test_ft3_k4(void **state)
{
	(void)state;
	for (uint8_t lmc = 0; lmc <= 2; lmc++) {
		struct subnet *sn = rfx_load("ft3-k4.topo");

		full_tree(sn, lmc, "ft3-k4.topo", false);
		subnet_free(sn);
	}
}

static void built_ft3(unsigned k, uint8_t lmc)
{
	struct ffx_spec s = { 0 };
	struct subnet *sn;
	char tag[64];

	ffx_ft3(&s, k, UINT32_MAX, 0);
	sn = ffx_model(&s, 0);
	snprintf(tag, sizeof(tag), "ft3 k=%u lmc %u (built)", k, lmc);
	full_tree(sn, lmc, tag, false);
	/* The bound is N - k/2 per host LID: what a leaf's uplinks must carry. */
	assert_int_equal(ffx_cut_bound(sn, lmc), (uint64_t)(k * k * k / 4 - k / 2) << lmc);
	subnet_free(sn);
	ffx_free(&s);
}

static void test_ft3_k8(void **state)
{
	(void)state;
	built_ft3(8, 0);
	built_ft3(8, 1);
}

static void test_ft3_k16(void **state)
{
	(void)state;
	built_ft3(16, 0);
}

/* Leaf/spine with odd counts: 6 leaves of 5 hosts, 3 spines. */
static void test_ft2_odd(void **state)
{
	struct ffx_spec s = { 0 };
	struct subnet *sn;
	struct check_report rep;

	(void)state;
	ffx_ft2(&s, 6, 5, 3);
	sn = ffx_model(&s, 0);
	rfx_lids(sn, 0);
	rep = ffx_judge(sn, 0, "ft2 6 leaves x 5 hosts, 3 spines");
	/* 5 LIDs a leaf over 3 spines: the chains rotate, so no link takes 2 of a leaf's
	 * LIDs more than the bound needs: ceil(5 x 25 / 3) = 42 -> at most 2 x 25 = 50. */
	assert_true(rep.all2all.max <= 50);
	subnet_free(sn);
	ffx_free(&s);
}

/* Not trees: refused with -EINVAL, a reason, *out untouched. */
static void test_refused(void **state)
{
	static const char *const files[] = {
		"torus2d-4x4.topo", "torus3d-3x3x3.topo", "random-16-d4.topo",
		"dragonfly-small.topo", "loop.topo", "parallel.topo", "2sw2path.topo",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		struct subnet *sn = rfx_load(files[i]);
		struct route_out out, zero;
		struct route_why why;

		rfx_lids(sn, 0);
		memset(&zero, 0, sizeof(zero));
		assert_int_equal(rfx_route_lmc("ftree", sn, 0, &out, &why), -EINVAL);
		assert_memory_equal(&out, &zero, sizeof(out));
		if (!strstr(why.msg, "not a fat tree: \"") || !strstr(why.msg, "level 0"))
			fail_msg("%s: why: %s", files[i], why.msg);
		printf("# %s: %s\n", files[i], why.msg);
		subnet_free(sn);
	}
}

/* A port's 4 LIDs (LMC 2) leave each other leaf by 4 different uplinks. */
static void test_lmc_spread(void **state)
{
	(void)state;
	rfx_ft2_lmc_spread("ftree", rfx_lids);
}

/* Two trees side by side: each routed, the other's LIDs counted unreachable. */
static void test_in_pieces(void **state)
{
	struct subnet *sn = rfx_read("Hca 1 \"h1\"\n[1] \"l1\"[1]\n"
				     "Hca 1 \"h2\"\n[1] \"l2\"[1]\n"
				     "Switch 4 \"l1\"\n[1] \"h1\"[1]\n"
				     "Switch 4 \"l2\"\n[1] \"h2\"[1]\n");
	struct route_out out;
	struct route_why why;

	(void)state;
	rfx_lids(sn, 0);
	assert_int_equal(rfx_route_lmc("ftree", sn, 0, &out, &why), 0);
	assert_int_equal(out.stats.unreach_lids, 4);
	assert_int_equal(out.stats.unreach, 4);
	assert_non_null(strstr(why.msg, "in pieces"));
	route_out_free(&out);
	subnet_free(sn);
}

static void test_messages(void **state)
{
	struct subnet *sn = rfx_load("single-switch.topo");
	struct route_out out;
	struct route_why why;

	(void)state;
	assert_int_equal(rfx_route_lmc("ftree", sn, 0, &out, &why), -EINVAL);
	assert_non_null(strstr(why.msg, "no port has a LID"));
	rfx_lids(sn, 0);
	assert_int_equal(rfx_route_lmc("ftree", sn, 0, &out, &why), 0);
	assert_non_null(strstr(why.msg, "routed 3 LIDs on 1 switches as a fat tree of 1 level"));
	route_out_free(&out);
	subnet_free(sn);
	sn = rfx_load("ft3-k4.topo");
	rfx_lids(sn, 0);
	assert_int_equal(rfx_route_lmc("ftree", sn, 0, &out, &why), 0);
	assert_non_null(strstr(why.msg, "as a fat tree of 3 levels"));
	route_out_free(&out);
	subnet_free(sn);
	assert_non_null(route_engine_find("ftree"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ft2_k8),
		cmocka_unit_test(test_ft3_k4),
		cmocka_unit_test(test_ft3_k8),
		cmocka_unit_test(test_ft3_k16),
		cmocka_unit_test(test_ft2_odd),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_lmc_spread),
		cmocka_unit_test(test_in_pieces),
		cmocka_unit_test(test_messages),
	};

	return cmocka_run_group_tests_name("ftree", tests, NULL, NULL);
}
