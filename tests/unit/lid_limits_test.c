/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for the LID manager's assignment (plan/lid.c) at its limits:
 * LMC changes, running out of LIDs, duplicate GUIDs, and a large fabric
 * (time printed, never judged). LIDs are judged by the fixture's own
 * checker (lid_fixture.c). The ordinary cases are in lid_test.c.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "lib/diag.h"
#include "plan/lid.h"
#include "model/subnet.h"
#include "tests/unit/lid_fixture.h"
#include "tests/unit/route_fixture.h"

/* LMC 0 -> 2: aligned bases are kept if their block is free, others move; 2 -> 0 keeps all. */
static void test_lmc_change(void **state)
{
	struct subnet *sn = rfx_load("ft2-k8.topo"), *ref;
	struct lid_map *m = lfx_map_new();
	struct lid_report rep;
	uint32_t same = 0, ca_moved = 0;

	(void)state;
	assert_int_equal(lfx_assign(sn, m, 0, &rep), 0);
	lid_report_free(&rep);
	ref = lfx_copy_model(sn, false, 0);
	lfx_zero_lids(sn);
	assert_int_equal(lfx_assign(sn, m, 2, &rep), 0);
	assert_int_equal(lfx_check_lids(sn, 2, NULL), FT2_PORTS);
	for (uint32_t i = 0; i < sn->n_ports; i++) {
		const struct subnet_port *p = &sn->port[i];

		if (!lfx_bearing(sn, i))
			continue;
		same += p->lid == ref->port[i].lid;
		if (!subnet_is_switch(sn, p->node)) {
			lfx_expect_ent(m, p->guid, p->lid, 2);
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
	ref = lfx_copy_model(sn, false, 0);
	lfx_zero_lids(sn);
	assert_int_equal(lfx_assign(sn, m, 0, &rep), 0);
	assert_int_equal(lfx_check_lids(sn, 0, NULL), FT2_PORTS);
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
	struct subnet *sn = lfx_synth(2, 254, 200);
	struct lid_map *m = lfx_map_new();
	struct lid_report rep;
	uint32_t missing = 0;

	(void)state;
	/* LMC 0 first: switches 1-2, CAs 3-402; of those only 128, 256 and 384 are LMC 7 bases. */
	assert_int_equal(lfx_assign(sn, m, 0, &rep), 0);
	assert_int_equal(lfx_check_lids(sn, 0, NULL), 402);
	lid_report_free(&rep);
	assert_int_equal(lfx_assign(sn, m, 7, &rep), -ENOSPC);
	assert_int_equal(lfx_check_lids(sn, 7, &missing), 2 + 383);
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
	assert_int_equal(lfx_assign(sn, m, 6, &rep), 0);
	assert_int_equal(lfx_check_lids(sn, 6, NULL), 402);
	assert_int_equal(rep.kept_map, 2 + 383);
	lid_report_free(&rep);
	assert_int_equal(lfx_assign(sn, m, 8, &rep), -EINVAL);
	subnet_free(sn);
	lid_map_free(m);
}

static void test_duplicate_guid(void **state)
{
	struct subnet *sn = lfx_synth(1, 8, 3), *rev;
	uint32_t a = subnet_find_name(sn, "h0-0"), b = subnet_find_name(sn, "h0-2");
	uint32_t pa = subnet_port_idx(sn, a, 1), pb = subnet_port_idx(sn, b, 1);
	struct lid_map *m = lfx_map_new();
	struct lid_report rep;
	uint32_t missing;

	(void)state;
	sn->port[pb].guid = sn->port[pa].guid; /* as a broken fabric has it */
	assert_int_equal(lfx_assign(sn, m, 0, &rep), 0);
	assert_int_equal(lfx_check_lids(sn, 0, &missing), 3);
	assert_int_equal(missing, 1);
	assert_int_not_equal(sn->port[pa].lid, 0);
	assert_int_equal(sn->port[pb].lid, 0);
	assert_int_equal(rep.duplicate, 1);
	assert_int_equal(rep.unassigned, 1);
	assert_int_equal(rep.msgs.n, 1);
	assert_string_equal(rep.msgs.msg[0], "CA 0x0000000000100004 \"h0-2\" port 1: port GUID "
			    "0x0000000000100001 is also CA 0x0000000000100000 \"h0-0\" port 1's; "
			    "it gets no LID until one of them has another GUID");
	lfx_expect_ent(m, sn->port[pa].guid, sn->port[pa].lid, 0);
	assert_int_equal(lid_map_count(m), 3);
	lid_report_free(&rep);

	/* In reverse node order h0-2 comes first: it takes the GUID's LID. */
	rev = lfx_copy_model(sn, true, 0);
	assert_int_equal(lfx_assign(rev, m, 0, &rep), 0);
	assert_int_equal(rev->port[lfx_same_port(sn, pb, rev)].lid, sn->port[pa].lid);
	assert_int_equal(rev->port[lfx_same_port(sn, pa, rev)].lid, 0);
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
	struct subnet *sn = lfx_synth(1400, 36, 32), *rev;
	struct lid_map *m = lfx_map_new();
	struct lid_report rep;
	struct timespec t0;
	double fresh, again;

	(void)state;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(lfx_assign(sn, m, 0, &rep), 0);
	fresh = ms_since(&t0);
	assert_int_equal(lfx_check_lids(sn, 0, NULL), 46200);
	lid_report_free(&rep);
	rev = lfx_copy_model(sn, true, 0);
	lfx_zero_lids(rev);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(lfx_assign(rev, m, 0, &rep), 0);
	again = ms_since(&t0);
	assert_int_equal(rep.kept_map, 46200);
	assert_int_equal(lfx_same_lids(sn, rev), 46200);
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
		cmocka_unit_test(test_lmc_change),
		cmocka_unit_test(test_out_of_lids),
		cmocka_unit_test(test_duplicate_guid),
		cmocka_unit_test(test_large),
	};

	return cmocka_run_group_tests_name("lid_limits", tests, NULL, NULL);
}
