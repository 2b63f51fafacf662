/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for plan/keep.c: the tables before an event kept where they
 * still hold. On ft2-k8 with ftree: a spine link down, a host gone, a leaf
 * gone and back, and tables before that hold nothing at all. Each time the
 * result (kept or the engine's) is judged by the route checker apart from
 * keep.c's own verdict: every pair arrives, no loop, no credit loop, and the
 * busiest link no busier than the engine's fresh tables'; where the kept
 * tables are used, they change fewer entries than the fresh ones would.
 * vlayered's tables (with SLs) are never kept.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "plan/keep.h"
#include "routing/check.h"
#include "routing/route.h"
#include "model/subnet.h"
#include "tests/unit/route_fixture.h"

/* Unlink node name's port num (both ends). */
static void cut(struct subnet *sn, const char *name, unsigned num)
{
	uint32_t n = subnet_find_name(sn, name);

	assert_int_not_equal(n, SUBNET_NONE);
	subnet_unlink(sn, subnet_port_idx(sn, n, num));
}

/* Entries (switch, LID) that differ between a and b, switches matched by GUID. */
static uint64_t differ(const struct subnet *sa, const struct route_out *a, const struct subnet *sb,
		       const struct route_out *b)
{
	uint64_t n = 0;

	for (uint32_t s = 0; s < b->n_sw; s++) {
		uint32_t o = subnet_find_guid(sa, sb->node[b->sw_node[s]].guid);
		uint32_t max = a->max_lid > b->max_lid ? a->max_lid : b->max_lid;

		for (uint32_t l = 1; l <= max; l++) {
			uint8_t eb = l <= b->max_lid ? route_lft(b, s)[l] : ROUTE_DROP;
			uint8_t ea = ROUTE_DROP;

			if (o != SUBNET_NONE && a->sw_index[o] != SUBNET_NONE && l <= a->max_lid)
				ea = route_lft(a, a->sw_index[o])[l];
			n += ea != eb;
		}
	}
	return n;
}

struct run {
	struct keep_report rep;
	uint64_t changed_kept, changed_fresh;
};

/*
 * Route before (the tables before) and after with engine, keep what holds,
 * and judge the result against the fresh tables with the checker.
 */
static struct run keep_run(const char *engine, const struct subnet *before,
			   const struct subnet *after)
{
	struct route_out prev, fresh, res;
	struct check_report rf, rr;
	struct run run = { 0 };

	assert_true(rfx_route_lmc(engine, before, 0, &prev, NULL) >= 0);
	assert_true(rfx_route_lmc(engine, after, 0, &fresh, NULL) >= 0);
	assert_true(rfx_route_lmc(engine, after, 0, &res, NULL) >= 0);
	assert_int_equal(keep_routes(before, &prev, after, &res, &run.rep), 0);
	rfx_judge(after, &fresh, &rf, false);
	rfx_judge(after, &res, &rr, false);
	assert_true(rr.unreachable <= rf.unreachable);
	assert_int_equal(rr.loops, 0);
	assert_true(rr.cdg_acyclic || !rf.cdg_acyclic);
	assert_true(rr.all2all.max <= rf.all2all.max);
	run.changed_fresh = differ(before, &prev, after, &fresh);
	run.changed_kept = differ(before, &prev, after, &res);
	if (!run.rep.used)
		assert_int_equal(run.changed_kept, run.changed_fresh);
	route_out_free(&prev);
	route_out_free(&fresh);
	route_out_free(&res);
	return run;
}

static struct subnet *ft(void)
{
	struct subnet *sn = rfx_load("ft2-k8.topo");

	rfx_lids(sn, 0);
	return sn;
}

static void spine_link_down(void **state)
{
	struct subnet *a = ft(), *b = ft();
	struct run r;

	(void)state;
	cut(b, "spine001", 1);
	r = keep_run("ftree", a, b);
	assert_true(r.rep.tried);
	assert_true(r.rep.used);
	assert_true(r.rep.entries_patched > 0);
	assert_true(r.changed_kept < r.changed_fresh);
	subnet_free(a);
	subnet_free(b);
}

static void host_gone(void **state)
{
	struct subnet *a = ft(), *b = ft();
	uint32_t h = subnet_find_name(a, "h00009");
	uint16_t lid = a->port[subnet_port_idx(a, h, 1)].lid;
	struct run r;

	(void)state;
	cut(b, "h00009", 1);
	r = keep_run("ftree", a, b);
	assert_true(r.rep.used);
	/* Only the gone host's LID changes: every switch drops it. */
	assert_true(r.changed_kept <= 12);
	assert_true(lid > 0);
	subnet_free(a);
	subnet_free(b);
}

/* A leaf cut off, then back: both ways no worse than fresh, the way back kept too. */
static void leaf_gone_and_back(void **state)
{
	struct subnet *a = ft(), *b = ft();
	struct run r;

	(void)state;
	for (unsigned p = 1; p <= 8; p++)
		cut(b, "leaf004", p);
	r = keep_run("ftree", a, b);
	assert_true(r.rep.used);
	r = keep_run("ftree", b, a);
	assert_true(r.rep.tried);
	assert_true(r.rep.used);
	assert_true(r.changed_kept <= r.changed_fresh);
	subnet_free(a);
	subnet_free(b);
}

/* A link back: the old tables leave it idle, so the fresh ones are busier-balanced and win. */
static void link_up(void **state)
{
	struct subnet *a = ft(), *b = ft();
	struct run r;

	(void)state;
	cut(a, "spine001", 1);
	r = keep_run("ftree", a, b);
	assert_true(r.rep.tried);
	subnet_free(a);
	subnet_free(b);
}

/* Tables before that drop everything: every entry is patched, and still no worse. */
static void nothing_held(void **state)
{
	struct subnet *sn = ft();
	struct route_out prev, res, fresh;
	struct check_report rr, rf;
	struct keep_report rep;

	(void)state;
	assert_true(rfx_route_lmc("ftree", sn, 0, &prev, NULL) >= 0);
	memset(prev.lft, ROUTE_DROP, (size_t)prev.n_sw * (prev.max_lid + 1u));
	assert_true(rfx_route_lmc("ftree", sn, 0, &res, NULL) >= 0);
	assert_true(rfx_route_lmc("ftree", sn, 0, &fresh, NULL) >= 0);
	assert_int_equal(keep_routes(sn, &prev, sn, &res, &rep), 0);
	assert_true(rep.tried);
	rfx_judge(sn, &res, &rr, true);
	rfx_judge(sn, &fresh, &rf, false);
	assert_int_equal(rr.unreachable, 0);
	assert_int_equal(rr.loops, 0);
	assert_true(rr.all2all.max <= rf.all2all.max);
	route_out_free(&prev);
	route_out_free(&res);
	route_out_free(&fresh);
	subnet_free(sn);
}

/* vlayered chooses SLs with its routes: its tables are its own to make. */
static void vlayered_untouched(void **state)
{
	struct subnet *a = rfx_load("torus2d-4x4.topo"), *b = rfx_load("torus2d-4x4.topo");
	struct route_out prev, res;
	struct keep_report rep;
	uint8_t *copy;
	size_t len;

	(void)state;
	rfx_lids(a, 0);
	rfx_lids(b, 0);
	cut(b, "sw-0-0", 2);
	assert_true(rfx_route_lmc("vlayered", a, 0, &prev, NULL) >= 0);
	assert_true(rfx_route_lmc("vlayered", b, 0, &res, NULL) >= 0);
	assert_non_null(res.sl);
	len = (size_t)res.n_sw * (res.max_lid + 1u);
	copy = malloc(len);
	assert_non_null(copy);
	memcpy(copy, res.lft, len);
	assert_int_equal(keep_routes(a, &prev, b, &res, &rep), 0);
	assert_false(rep.tried);
	assert_false(rep.used);
	assert_memory_equal(copy, res.lft, len);
	free(copy);
	route_out_free(&prev);
	route_out_free(&res);
	subnet_free(a);
	subnet_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(spine_link_down),
		cmocka_unit_test(host_gone),
		cmocka_unit_test(leaf_gone_and_back),
		cmocka_unit_test(link_up),
		cmocka_unit_test(nothing_held),
		cmocka_unit_test(vlayered_untouched),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
