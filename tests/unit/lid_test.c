/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for the LID manager's assignment (plan/lid.c): unique aligned
 * LIDs, stable across restarts and node order, map before model before
 * lowest free, lost maps, offline ports keep theirs. LIDs are judged by the
 * fixture's own checker (lid_fixture.c), not by the report lid_assign
 * writes about itself. LMC changes, running out of LIDs, duplicate GUIDs
 * and a large fabric are in lid_limits_test.c; the guid2lid file is in
 * lid_file_test.c.
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

/* ft2-k8's LID-bearing ports: CA ports in ca[32], switch ports 0 in sw[12]. */
static void ft2_ports(const struct subnet *sn, uint32_t *ca, uint32_t *sw)
{
	uint32_t nca = 0, nsw = 0;

	for (uint32_t i = 0; i < sn->n_ports; i++) {
		if (!lfx_bearing(sn, i))
			continue;
		if (subnet_is_switch(sn, sn->port[i].node))
			sw[nsw++] = i;
		else
			ca[nca++] = i;
	}
	assert_int_equal(nca, 32);
	assert_int_equal(nsw, 12);
}

/* ---- assignment ---------------------------------------------------------- */

static void test_fresh(void **state)
{
	(void)state;
	for (uint8_t lmc = 0; lmc <= 3; lmc++) {
		struct subnet *sn = rfx_load("ft2-k8.topo");
		struct lid_map *m = lfx_map_new();
		struct lid_report rep;

		assert_int_equal(lfx_assign(sn, m, lmc, &rep), 0);
		assert_int_equal(lfx_check_lids(sn, lmc, NULL), FT2_PORTS);
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

			if (!lfx_bearing(sn, i))
				continue;
			lfx_expect_ent(m, subnet_is_switch(sn, p->node) ?
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
		struct subnet *sn = rfx_load("ft2-k8.topo"), *rev, *rev2;
		struct lid_map *m = lfx_map_new(), *m2 = lfx_map_new(), *m3 = lfx_map_new();
		struct lid_report rep;
		struct diag d = { 0 };

		assert_int_equal(lfx_assign(sn, m, lmc, &rep), 0);
		lid_report_free(&rep);
		assert_int_equal(lid_map_save(m, lfx_path("g2l")), 0);
		assert_int_equal(lid_map_load(m2, lfx_path("g2l"), &d), 0);
		assert_int_equal(diag_count(&d), 0);

		/* Restart: reversed node order, no LIDs in the model, the saved map. */
		rev = lfx_copy_model(sn, true, 0);
		lfx_zero_lids(rev);
		assert_int_equal(rev->node[0].guid, sn->node[sn->n_nodes - 1].guid);
		assert_int_equal(lfx_assign(rev, m2, lmc, &rep), 0);
		assert_int_equal(rep.kept_map, FT2_PORTS);
		assert_int_equal(rep.map_updates, 0);
		assert_int_equal(lfx_same_lids(sn, rev), FT2_PORTS);
		lid_report_free(&rep);

		/* No map at all: the node order still does not matter. */
		rev2 = lfx_copy_model(sn, true, 0);
		lfx_zero_lids(rev2);
		assert_int_equal(lfx_assign(rev2, m3, lmc, &rep), 0);
		assert_int_equal(rep.assigned_new, FT2_PORTS);
		assert_int_equal(lfx_same_lids(sn, rev2), FT2_PORTS);
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

/* The map beats the model. */
static void test_map_first(void **state)
{
	struct subnet *sn = rfx_load("ft2-k8.topo"), *ref;
	struct lid_map *m = lfx_map_new();
	uint32_t ca[32], sw[12], nca = 32;
	struct lid_report rep;

	(void)state;
	assert_int_equal(lfx_assign(sn, m, 2, &rep), 0);
	lid_report_free(&rep);
	ref = lfx_copy_model(sn, false, 0);
	ft2_ports(sn, ca, sw);

	/* The model says otherwise (LIDs rotated among the CAs): the map wins. */
	for (uint32_t j = 0; j < nca; j++)
		sn->port[ca[j]].lid = ref->port[ca[(j + 1) % nca]].lid;
	assert_int_equal(lfx_assign(sn, m, 2, &rep), 0);
	assert_int_equal(rep.kept_map, FT2_PORTS);
	assert_int_equal(rep.changed, 32);
	assert_int_equal(lfx_same_lids(ref, sn), FT2_PORTS);
	lid_report_free(&rep);
	subnet_free(sn);
	subnet_free(ref);
	lid_map_free(m);
}

/*
 * A takeover (fabric_first): the model's LIDs, as the old master gave them,
 * beat a stale map; the map learns them, so the next sweep keeps them too.
 */
static void test_fabric_first(void **state)
{
	struct subnet *sn = rfx_load("ft2-k8.topo"), *ref;
	struct lid_map *m = lfx_map_new();
	uint32_t ca[32], sw[12], nca = 32;
	struct lid_report rep = { .msgs.limit = LID_MAX_MSGS };
	uint16_t lid;
	uint8_t lmc;

	(void)state;
	assert_int_equal(lfx_assign(sn, m, 2, &rep), 0);
	lid_report_free(&rep);
	ft2_ports(sn, ca, sw);
	/* The fabric holds the CAs' LIDs rotated: what another master gave them. */
	ref = lfx_copy_model(sn, false, 0);
	for (uint32_t j = 0; j < nca; j++)
		sn->port[ca[j]].lid = ref->port[ca[(j + 1) % nca]].lid;
	subnet_free(ref);
	ref = lfx_copy_model(sn, false, 0);
	assert_int_equal(lid_assign_order(sn, m, 2, 0, true, &rep), 0);
	assert_int_equal(rep.kept_fabric, FT2_PORTS);
	assert_int_equal(rep.changed, 0);
	assert_int_equal(lfx_same_lids(ref, sn), FT2_PORTS);
	assert_int_equal(lid_map_get(m, sn->port[ca[0]].guid, &lid, &lmc), 0);
	assert_int_equal(lid, sn->port[ca[0]].lid);
	lid_report_free(&rep);
	/* The next sweep, map first: the same LIDs. */
	assert_int_equal(lfx_assign(sn, m, 2, &rep), 0);
	assert_int_equal(rep.changed, 0);
	assert_int_equal(lfx_same_lids(ref, sn), FT2_PORTS);
	lid_report_free(&rep);
	subnet_free(sn);
	subnet_free(ref);
	lid_map_free(m);
}

/* Without a map the model's LIDs beat the lowest free; offline entries beat both. */
static void test_model_lids(void **state)
{
	struct subnet *sn = rfx_load("ft2-k8.topo");
	struct lid_map *empty = lfx_map_new();
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
	assert_int_equal(lfx_assign(sn, empty, 2, &rep), 0);
	lfx_check_lids(sn, 2, NULL);
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
	empty = lfx_map_new();
	lfx_zero_lids(sn);
	sn->port[ca[0]].lid = sn->port[sw[0]].lid = 0x40;
	assert_int_equal(lfx_assign(sn, empty, 0, &rep), 0);
	lfx_check_lids(sn, 0, NULL);
	assert_int_equal(rep.kept_fabric, 1);
	assert_int_equal(rep.changed, 1);
	assert_int_equal(rep.assigned_new, FT2_PORTS - 1);
	lid_report_free(&rep);

	/* A GUID the fabric does not have holds its LIDs against a model LID. */
	lid_map_free(empty);
	empty = lfx_map_new();
	assert_int_equal(lid_map_load_mem(empty, "0x00000000deadbeef 0x0040 0x0043\n", 33, "x",
					  NULL), 0);
	sn->port[ca[0]].lid = sn->port[sw[0]].lid = 0;
	sn->port[ca[1]].lid = 0x42;
	assert_int_equal(lfx_assign(sn, empty, 0, &rep), 0);
	lfx_check_lids(sn, 0, NULL);
	for (uint32_t i = 0; i < sn->n_ports; i++)
		assert_true(sn->port[i].lid < 0x40 || sn->port[i].lid > 0x43);
	lfx_expect_ent(empty, 0xdeadbeef, 0x40, 2);
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
	struct subnet *sn = lfx_synth(1, 8, 3);
	struct lid_map *m = lfx_map_new();
	struct lid_report rep;

	(void)state;
	assert_int_equal(lid_map_load_mem(m, text, strlen(text), "x", NULL), 0);
	assert_int_equal(lid_map_count(m), 4);
	assert_int_equal(lfx_assign(sn, m, 1, &rep), 0);
	lfx_check_lids(sn, 1, NULL);
	assert_int_equal(rep.kept_map, 1); /* the switch, first in GUID order */
	assert_int_equal(rep.assigned_new, 3);
	assert_int_equal(rep.msgs.n, 2);
	assert_string_equal(rep.msgs.msg[0], "CA 0x0000000000100000 \"h0-0\" port 1: LID 0x0040 "
			    "from the map not kept (LID 0x0041 is taken by switch 0x0000000000000010 "
			    "\"sw0\" port 0); it gets 0x0002");
	assert_string_equal(rep.msgs.msg[1], "CA 0x0000000000100002 \"h0-1\" port 1: LID 0x0050 "
			    "from the map not kept (LID 0x0051 is held for port GUID "
			    "0x00000000deadbeef, which is not in the fabric now); it gets 0x0004");
	lfx_expect_ent(m, 0x100001, 2, 1);
	lfx_expect_ent(m, 0x100003, 4, 1);
	lfx_expect_ent(m, 0x100005, 6, 1);
	lfx_expect_ent(m, 0xdeadbeef, 0x51, 0);
	assert_int_equal(rep.map_updates, 3);
	lid_report_free(&rep);
	subnet_free(sn);
	lid_map_free(m);
}

/* A node that goes away keeps its LID reserved and gets it back when it returns. */
static void test_offline_node(void **state)
{
	struct subnet *sn = rfx_load("ft2-k8.topo"), *gone, *back;
	uint32_t h = subnet_find_name(sn, "h00005"), hp, sw, ca;
	struct lid_map *m = lfx_map_new();
	struct lid_report rep;
	uint16_t lid;

	(void)state;
	assert_int_not_equal(h, SUBNET_NONE);
	hp = subnet_port_idx(sn, h, 1);
	assert_int_equal(lfx_assign(sn, m, 0, &rep), 0);
	lid_report_free(&rep);
	lid = sn->port[hp].lid;
	assert_true(lid > 0 && lid < FT2_PORTS); /* so the lowest free would be it */

	/* Gone, and a new switch and host arrive: they must not get its LID. */
	gone = lfx_copy_model(sn, false, sn->node[h].guid);
	lfx_zero_lids(gone);
	assert_int_equal(subnet_add_node(gone, NODE_SWITCH, 4, 0x0002c90500000001, "new-sw", NULL,
					 &sw), 0);
	assert_int_equal(subnet_add_node(gone, NODE_CA, 1, 0x0002c90500000010, "new-h", NULL, &ca),
			 0);
	assert_int_equal(subnet_link(gone, subnet_port_idx(gone, sw, 1),
				     subnet_port_idx(gone, ca, 1)), 0);
	assert_int_equal(lfx_assign(gone, m, 0, &rep), 0);
	assert_int_equal(lfx_check_lids(gone, 0, NULL), FT2_PORTS + 1);
	assert_int_equal(rep.kept_map, FT2_PORTS - 1);
	assert_int_equal(rep.assigned_new, 2);
	assert_int_equal(lfx_same_lids(sn, gone), FT2_PORTS - 1);
	for (uint32_t i = 0; i < gone->n_ports; i++)
		assert_int_not_equal(gone->port[i].lid, lid);
	lfx_expect_ent(m, sn->port[hp].guid, lid, 0); /* still in the map */
	assert_int_equal(lid_map_count(m), FT2_PORTS + 2);
	lid_report_free(&rep);

	/* Back, in another node order: its old LID again. */
	back = lfx_copy_model(sn, true, 0);
	lfx_zero_lids(back);
	assert_int_equal(lfx_assign(back, m, 0, &rep), 0);
	assert_int_equal(rep.kept_map, FT2_PORTS);
	assert_int_equal(lfx_same_lids(sn, back), FT2_PORTS);
	assert_int_equal(lid_map_count(m), FT2_PORTS + 2); /* the new ones are offline now */
	lid_report_free(&rep);

	/* An unlinked CA port is not LID-bearing: LID 0, and its entry is kept. */
	subnet_unlink(back, lfx_same_port(sn, hp, back));
	back->port[lfx_same_port(sn, hp, back)].lid = lid;
	assert_int_equal(lfx_assign(back, m, 0, &rep), 0);
	assert_int_equal(lfx_check_lids(back, 0, NULL), FT2_PORTS - 1);
	assert_int_equal(back->port[lfx_same_port(sn, hp, back)].lid, 0);
	lfx_expect_ent(m, sn->port[hp].guid, lid, 0);
	lid_report_free(&rep);
	subnet_free(sn);
	subnet_free(gone);
	subnet_free(back);
	lid_map_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fresh),
		cmocka_unit_test_setup_teardown(test_stable, lfx_setup_dir, lfx_teardown_dir),
		cmocka_unit_test(test_map_first),
		cmocka_unit_test(test_model_lids),
		cmocka_unit_test(test_fabric_first),
		cmocka_unit_test(test_map_lost),
		cmocka_unit_test(test_offline_node),
	};

	return cmocka_run_group_tests_name("lid", tests, NULL, NULL);
}
