/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for up/down tuning (routing/updn_tune.c) on a degraded 3-level
 * fat tree whose roots need bridges: tuning walks on past the moves that
 * help (a tabu walk through routings that are not better) and keeps the
 * least loaded routing it met, not the last. So its busiest link can only
 * drop as it gets more routings (the walk is the same up to where the
 * budget stops it), and the tables it returns are the ones it measured:
 * the route checker (routing/check.h, which knows nothing of the engine)
 * finds the same busiest link, every pair delivered, no loop, no credit
 * loop.
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
#include "model/subnet.h"
#include "routing/check.h"
#include "routing/route.h"
#include "routing/updn_priv.h"
#include "tests/unit/route_fixture.h"

/*
 * The plain repair routed the first way (updn_modes[0]), then tuned with
 * at most tries routings: the checker's busiest link, which must be the
 * one tuning reports; *start the busiest link before tuning.
 */
static uint64_t tuned(const struct subnet *sn, uint32_t tries, uint64_t *start)
{
	struct route_opts o = { 0 };
	struct route_out out = { 0 };
	struct route_why why = { { 0 } };
	struct check_report rep;
	struct ud m = { .sn = sn, .o = &o, .out = &out, .by_flow = updn_modes[0].by_flow,
			.look = updn_modes[0].look };
	uint64_t worst = 0;

	assert_int_equal(updn_try(&m, &why, &worst), 0);
	*start = worst;
	assert_int_equal(updn_tune(&m, &out, &why, &worst, tries), 0);
	rfx_judge(sn, &out, &rep, true);
	if (!check_ok(&rep) || rep.delivered != rep.pairs || !rep.cdg_acyclic)
		fail_msg("%u routings: delivered %llu of %llu, loops %llu, acyclic %d; why: %s",
			 tries, (unsigned long long)rep.delivered, (unsigned long long)rep.pairs,
			 (unsigned long long)rep.loops, rep.cdg_acyclic, why.msg);
	if (rep.all2all.max != worst)
		fail_msg("%u routings: tuning says %llu on the busiest link, the checker %llu",
			 tries, (unsigned long long)worst, (unsigned long long)rep.all2all.max);
	updn_free(&m);
	route_out_free(&out);
	return worst;
}

/*
 * ft3 k=8 --degrade 0.2 seed 2. With 0 routings nothing moves; more
 * routings never leave a busier link, and the most give a less busy one
 * than the repair's. (Keeping the walk's last routing instead fails here:
 * 328 on the busiest link after 150 routings, 348 after 400.)
 */
static void test_more_routings_never_worse(void **state)
{
	static const uint32_t budget[] = { 0, 5, 20, 60, 150, 400, 1600 };
	_cleanup_(subnet_freep) struct subnet *sn = rfx_load("ft3-k8-degraded-s2.topo");
	uint64_t prev = UINT64_MAX, start = 0, first = 0;

	(void)state;
	rfx_lids(sn, 0);
	for (size_t i = 0; i < ARRAY_SIZE(budget); i++) {
		uint64_t w = tuned(sn, budget[i], &start);

		if (!i) {
			assert_int_equal(w, start);
			first = start;
		}
		assert_int_equal(start, first);
		if (w > prev)
			fail_msg("%u routings: busiest link %llu, %llu with fewer", budget[i],
				 (unsigned long long)w, (unsigned long long)prev);
		prev = w;
	}
	if (prev >= first)
		fail_msg("tuning left the busiest link at %llu (the repair's %llu)",
			 (unsigned long long)prev, (unsigned long long)first);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_more_routings_never_worse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
