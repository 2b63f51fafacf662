/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for the up/down roots found automatically (routing/updn_roots.c,
 * routing/updn_cover.c): on whole fat trees they are the top level; on 3-level
 * fat trees with 20% of their links gone the top level leaves host pairs
 * without a common root, and the roots found must still route every pair
 * with no credit loop and a busiest link no worse than min-hop's. Load and
 * credit loops are the route checker's (routing/check.h), which follows the
 * tables and knows nothing of the engines.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lib/cleanup.h"
#include "routing/check.h"
#include "routing/route.h"
#include "model/subnet.h"
#include "tests/unit/route_fixture.h"

static int run(const char *engine, const struct subnet *sn, const uint64_t *roots,
	       uint32_t n_roots, struct route_out *out, struct route_why *why)
{
	struct route_opts o = { .roots = roots, .n_roots = n_roots };

	return rfx_route(engine, sn, &o, out, why);
}

/* GUIDs of the switches whose name starts with prefix. */
static uint32_t guids_named(const struct subnet *sn, const char *prefix, uint64_t *g)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < sn->n_nodes; i++)
		if (subnet_is_switch(sn, i) &&
		    !strncmp(subnet_str(sn, sn->node[i].name), prefix, strlen(prefix)))
			g[n++] = sn->node[i].guid;
	return n;
}

static bool same_tables(const struct route_out *a, const struct route_out *b)
{
	return a->n_sw == b->n_sw && a->max_lid == b->max_lid &&
	       !memcmp(a->lft, b->lft, (size_t)a->n_sw * (a->max_lid + 1));
}

/*
 * A whole fat tree: the roots found are exactly its top level. The found
 * roots' tables equal those with the top level given, and differ from
 * those with the top level less one switch (so the comparison can fail);
 * nothing is lowered, as every two leaves share every top switch.
 */
static void whole_tree(const char *file, const char *top, uint32_t want)
{
	struct subnet *sn = rfx_load(file);
	struct route_out found, given;
	struct route_why why;
	uint64_t g[64];
	uint32_t n = guids_named(sn, top, g);
	char says[64];

	assert_int_equal(n, want);
	rfx_lids(sn, 0);
	assert_int_equal(run("updn", sn, NULL, 0, &found, &why), 0);
	snprintf(says, sizeof(says), "roots: %u found", want);
	if (!strstr(why.msg, says) || strstr(why.msg, "lowered"))
		fail_msg("%s: why \"%s\", want \"%s\" and nothing lowered", file, why.msg, says);
	assert_int_equal(run("updn", sn, g, n, &given, &why), 0);
	assert_true(same_tables(&found, &given));
	route_out_free(&given);
	assert_int_equal(run("updn", sn, g + 1, n - 1, &given, &why), 0);
	assert_false(same_tables(&found, &given));
	route_out_free(&given);
	route_out_free(&found);
	subnet_free(sn);
}

static void test_whole_trees_top_level(void **state)
{
	(void)state;
	whole_tree("ft2-k8.topo", "spine", 4);
	whole_tree("ft3-k4.topo", "core", 4);
}

/* The checker's busiest all-to-all link of engine's tables, judged clean. */
static uint64_t busiest(const char *engine, const struct subnet *sn, const uint64_t *roots,
			uint32_t n_roots, bool acyclic, struct route_why *why)
{
	struct route_out out;
	struct check_report rep;

	assert_int_equal(run(engine, sn, roots, n_roots, &out, why), 0);
	rfx_judge(sn, &out, &rep, acyclic);
	if (!check_ok(&rep) || rep.delivered != rep.pairs || (acyclic && !rep.cdg_acyclic))
		fail_msg("%s: delivered %llu of %llu, loops %llu, acyclic %d; why: %s", engine,
			 (unsigned long long)rep.delivered, (unsigned long long)rep.pairs,
			 (unsigned long long)rep.loops, rep.cdg_acyclic, why->msg);
	route_out_free(&out);
	return rep.all2all.max;
}

/*
 * A degraded 3-level tree: the cores found as roots leave host pairs
 * without a common root, so switches are lowered below bridges; every pair
 * is routed up/down (no "NOT deadlock-free", no credit loop) and the
 * busiest link carries no more all-to-all routes than min-hop's. The old
 * answer, one root, is routed too: it is far worse than min-hop, so the
 * load test can fail.
 */
static void degraded_tree(const char *file)
{
	struct subnet *sn = rfx_load(file);
	struct route_why why;
	uint64_t mh, ud, one, g[1];

	rfx_lids(sn, 0);
	mh = busiest("minhop", sn, NULL, 0, false, &why);
	ud = busiest("updn", sn, NULL, 0, true, &why);
	if (!strstr(why.msg, "roots: 16 found") || !strstr(why.msg, "lowered below a bridge") ||
	    strstr(why.msg, "NOT deadlock-free"))
		fail_msg("%s: why \"%s\"", file, why.msg);
	if (ud > mh)
		fail_msg("%s: updn's busiest link carries %llu routes, min-hop's %llu", file,
			 (unsigned long long)ud, (unsigned long long)mh);
	assert_int_equal(guids_named(sn, "core0001", g), 1);
	one = busiest("updn", sn, g, 1, true, &why);
	assert_true(one > 2 * mh);
	subnet_free(sn);
}

static void test_degraded_trees(void **state)
{
	(void)state;
	degraded_tree("ft3-k8-degraded-s2.topo");
	degraded_tree("ft3-k8-degraded-s8.topo");
}

/* Found roots and their bridges do not depend on the model's node order. */
static void test_degraded_node_order(void **state)
{
	const char *file = "ft3-k8-degraded-s2.topo";
	char *text = rfx_reversed(file);
	struct subnet *a = rfx_load(file), *b = rfx_read(text);
	struct route_out ra, rb;
	struct route_why wa, wb;

	(void)state;
	rfx_lids(a, 0);
	rfx_lids(b, 0);
	assert_int_equal(run("updn", a, NULL, 0, &ra, &wa), 0);
	assert_int_equal(run("updn", b, NULL, 0, &rb, &wb), 0);
	assert_string_equal(wa.msg, wb.msg);
	rfx_same_rows(a, &ra, b, &rb);
	route_out_free(&ra);
	route_out_free(&rb);
	subnet_free(a);
	subnet_free(b);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_whole_trees_top_level),
		cmocka_unit_test(test_degraded_trees),
		cmocka_unit_test(test_degraded_node_order),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
