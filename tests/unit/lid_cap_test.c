/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for LID assignment within the switches' LinearFDBCap
 * (plan/lid.c lid_assign_cap, lid_switch_cap): no port keeps or gets a LID
 * its switches cannot forward, whether the LID came from the fabric (ibsim's
 * Baselid, another SM) or from the guid2lid map; LIDs just below the cap are
 * kept; LMC ranges must end below it; out of LIDs below it is -ENOSPC; 0 is
 * no limit. LIDs are judged by the fixture's checker and by walking the
 * model, not by the report.
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
#include "model/disc_live.h"
#include "model/subnet.h"
#include "plan/lid.h"
#include "tests/unit/lid_fixture.h"
#include "tests/unit/route_fixture.h"

#define CAP 30720 /* ibsim's switches (smpquery switchinfo: LinearFdbCap) */

/* Port pi of a node by name: a CA's port 1, a switch's port 0. */
static uint32_t port_of(const struct subnet *sn, const char *name)
{
	uint32_t n = subnet_find_name(sn, name);

	assert_int_not_equal(n, SUBNET_NONE);
	return subnet_port_idx(sn, n, subnet_is_switch(sn, n) ? 0 : 1);
}

static uint64_t guid_of(const struct subnet *sn, uint32_t pi)
{
	const struct subnet_node *nd = &sn->node[sn->port[pi].node];

	return nd->type == NODE_SWITCH ? nd->port0_guid : sn->port[pi].guid;
}

/* The highest LID in use (the top of each port's range). */
static uint32_t top_lid(const struct subnet *sn)
{
	uint32_t top = 0;

	for (uint32_t i = 0; i < sn->n_ports; i++)
		if (sn->port[i].lid && sn->port[i].lid + (1u << sn->port[i].lmc) - 1 > top)
			top = sn->port[i].lid + (1u << sn->port[i].lmc) - 1;
	return top;
}

static int assign_cap(struct subnet *sn, struct lid_map *m, uint8_t lmc, uint16_t cap,
		      struct lid_report *rep)
{
	int r;

	*rep = (struct lid_report){ .msgs.limit = LID_MAX_MSGS };
	r = lid_assign_cap(sn, m, lmc, cap, rep);
	if (rep->msgs.n && getenv("LID_TEST_VERBOSE"))
		diag_print(&rep->msgs, stderr);
	return r;
}

/* Does some message of rep contain s? */
static bool said(const struct lid_report *rep, const char *s)
{
	for (unsigned i = 0; i < rep->msgs.n; i++)
		if (strstr(rep->msgs.msg[i], s))
			return true;
	return false;
}

/*
 * Ports that carry LIDs at and past the cap from the fabric (a CA at 49000,
 * a switch at exactly the cap) move below it; one just below it keeps it.
 */
static void test_fabric_lids_past_cap(void **state)
{
	struct subnet *sn = rfx_load("ft2-k8.topo");
	struct lid_map *m = lfx_map_new(), *m2 = lfx_map_new();
	uint32_t ca = port_of(sn, "h00005"), sw = port_of(sn, "leaf002");
	uint32_t edge = port_of(sn, "h00010");
	struct lid_report rep;
	uint16_t lid;
	uint8_t lmc;

	(void)state;
	lfx_zero_lids(sn);
	sn->port[ca].lid = 49000;
	sn->port[sw].lid = CAP;
	sn->port[edge].lid = CAP - 1;
	assert_int_equal(assign_cap(sn, m, 0, CAP, &rep), 0);
	assert_int_equal(lfx_check_lids(sn, 0, NULL), FT2_PORTS);
	assert_true(top_lid(sn) < CAP);
	assert_int_not_equal(sn->port[ca].lid, 0);
	assert_int_not_equal(sn->port[sw].lid, 0);
	assert_int_equal(sn->port[edge].lid, CAP - 1); /* the last LID a switch holds */
	assert_int_equal(rep.moved_cap, 2);
	assert_int_equal(rep.changed, 2);
	assert_true(said(&rep, "\"h00005\" port 1: LID 0xbf68 (49000) is past"));
	assert_true(said(&rep, "\"leaf002\" port 0: LID 0x7800 (30720) is past"));
	/* The map has the new LIDs, so a restart keeps them. */
	assert_int_equal(lid_map_get(m, guid_of(sn, ca), &lid, &lmc), 0);
	assert_int_equal(lid, sn->port[ca].lid);
	assert_int_equal(lid_map_get(m, guid_of(sn, sw), &lid, &lmc), 0);
	assert_int_equal(lid, sn->port[sw].lid);
	lid_report_free(&rep);

	/* No cap (the dry run): the fabric's LIDs are kept, as before. */
	lfx_zero_lids(sn);
	sn->port[ca].lid = 49000;
	assert_int_equal(assign_cap(sn, m2, 0, 0, &rep), 0);
	assert_int_equal(sn->port[ca].lid, 49000);
	assert_int_equal(rep.moved_cap, 0);
	lid_report_free(&rep);
	lid_map_free(m);
	lid_map_free(m2);
	subnet_free(sn);
}

/* A guid2lid entry past the cap is not kept either: the port moves, the entry follows. */
static void test_map_lid_past_cap(void **state)
{
	struct subnet *sn = rfx_load("ft2-k8.topo");
	struct lid_map *m = lfx_map_new();
	uint32_t ca = port_of(sn, "h00007");
	struct lid_report rep;
	struct diag d = { 0 };
	char text[128];
	uint16_t lid;
	uint8_t lmc;

	(void)state;
	lfx_zero_lids(sn);
	snprintf(text, sizeof(text), "0x%016llx 0x9c40 0x9c40\n\n",
		 (unsigned long long)guid_of(sn, ca));
	assert_int_equal(lid_map_load_mem(m, text, strlen(text), "g2l", &d), 0);
	assert_int_equal(diag_count(&d), 0);
	assert_int_equal(assign_cap(sn, m, 0, CAP, &rep), 0);
	assert_int_equal(lfx_check_lids(sn, 0, NULL), FT2_PORTS);
	assert_true(top_lid(sn) < CAP);
	assert_int_equal(rep.moved_cap, 1);
	assert_true(said(&rep, "LinearFDBCap is 30720"));
	assert_int_equal(lid_map_get(m, guid_of(sn, ca), &lid, &lmc), 0);
	assert_int_equal(lid, sn->port[ca].lid);
	assert_true(lid < CAP);
	lid_report_free(&rep);
	diag_free(&d);
	lid_map_free(m);
	subnet_free(sn);
}

/* With an LMC, a range must end below the cap: base 32 of LMC 2 ends at 35. */
static void test_lmc_range_past_cap(void **state)
{
	struct subnet *sn = rfx_load("ft2-k8.topo");
	struct lid_map *m = lfx_map_new();
	uint32_t in = port_of(sn, "h00003"), out = port_of(sn, "h00004");
	struct lid_report rep;

	(void)state;
	lfx_zero_lids(sn);
	sn->port[in].lid = 252; /* 252..255: below a cap of 256 */
	sn->port[out].lid = 256;
	assert_int_equal(assign_cap(sn, m, 2, 256, &rep), 0);
	assert_int_equal(lfx_check_lids(sn, 2, NULL), FT2_PORTS);
	assert_true(top_lid(sn) < 256);
	assert_int_equal(sn->port[in].lid, 252);
	assert_int_not_equal(sn->port[out].lid, 256);
	assert_int_equal(rep.moved_cap, 1);
	lid_report_free(&rep);
	lid_map_free(m);
	subnet_free(sn);
}

/* Fewer LIDs below the cap than ports: -ENOSPC, and still none at or past it. */
static void test_cap_out_of_lids(void **state)
{
	struct subnet *sn = rfx_load("ft2-k8.topo");
	struct lid_map *m = lfx_map_new();
	struct lid_report rep;
	uint32_t missing = 0;

	(void)state;
	lfx_zero_lids(sn);
	assert_int_equal(assign_cap(sn, m, 0, 21, &rep), -ENOSPC);
	assert_int_equal(lfx_check_lids(sn, 0, &missing), 20);
	assert_int_equal(missing, FT2_PORTS - 20);
	assert_true(top_lid(sn) <= 20);
	assert_int_equal(rep.unassigned, FT2_PORTS - 20);
	assert_true(said(&rep, "LinearFDBCap"));
	lid_report_free(&rep);
	lid_map_free(m);
	subnet_free(sn);
}

/* The cap is the smallest switch's; CAs and switches that gave none do not count. */
static void test_switch_cap(void **state)
{
	struct subnet *sn = rfx_load("ft2-k8.topo");
	struct disc_live live = { 0 };
	uint32_t leaf = subnet_find_name(sn, "leaf003");
	uint32_t h = subnet_find_name(sn, "h00001");
	uint32_t spine = subnet_find_name(sn, "spine002");

	(void)state;
	live.node = calloc(sn->n_nodes, sizeof(*live.node));
	assert_non_null(live.node);
	assert_int_equal(lid_switch_cap(sn, &live), 0); /* none read */
	for (uint32_t i = 0; i < sn->n_nodes; i++)
		live.node[i].si.lin_cap = subnet_is_switch(sn, i) ? 49152 : 0;
	assert_int_equal(lid_switch_cap(sn, &live), 49152);
	live.node[leaf].si.lin_cap = CAP;
	live.node[h].si.lin_cap = 100;  /* a CA has no SwitchInfo: ignored */
	live.node[spine].si.lin_cap = 0; /* no answer: ignored */
	assert_int_equal(lid_switch_cap(sn, &live), CAP);
	free(live.node);
	subnet_free(sn);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fabric_lids_past_cap),
		cmocka_unit_test(test_map_lid_past_cap),
		cmocka_unit_test(test_lmc_range_past_cap),
		cmocka_unit_test(test_cap_out_of_lids),
		cmocka_unit_test(test_switch_cap),
	};

	return cmocka_run_group_tests_name("lid_cap", tests, NULL, NULL);
}
