/* SPDX-License-Identifier: MIT */
/*
 * The SA's view of a sweep (sa/sa_src.c) on the star fabric
 * (sa_fixture.h): its indexes, every end port by GUID and by LID, unknown
 * ones, ports without a LID, duplicate GUIDs and LIDs, LMC ranges; and
 * that queries by LID answer as a walk of every port would.
 */
#include <endian.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <iba/ib_types.h>

#include "tests/unit/sa_fixture.h"

/* The GUID index: each end port with a LID by the GUID records name it by, nothing else. */
static void test_guid_index(void **state)
{
	struct sa_fab *f = *state;
	uint32_t sw0 = subnet_port_idx(f->sn, f->sw1, 0), h1 = subnet_port_idx(f->sn, f->h1, 1),
		 h2 = subnet_port_idx(f->sn, f->h2, 1);
	unsigned found = 0;

	for (uint32_t pi = 0; pi < f->sn->n_ports; pi++) {
		if (!sa_lid_endport(&f->src, pi))
			continue;
		assert_int_equal(sa_port_of_guid(&f->src, sa_port_guid(&f->src, pi)), pi);
		found++;
	}
	assert_int_equal(found, 3);
	/* A switch by its port 0's GUID, which all its ports share. */
	assert_int_equal(sa_port_of_guid(&f->src, 0x100), sw0);
	assert_int_equal(sa_port_guid(&f->src, subnet_port_idx(f->sn, f->sw1, 3)), 0x100);
	assert_int_equal(sa_port_of_guid(&f->src, 0x201), h1);
	assert_int_equal(sa_port_of_guid(&f->src, 0x301), h2);
	/* Unknown: a NodeGUID of a CA, a GUID nobody has, 0. */
	assert_int_equal(sa_port_of_guid(&f->src, 0x200), SUBNET_NONE);
	assert_int_equal(sa_port_of_guid(&f->src, 0x999), SUBNET_NONE);
	assert_int_equal(sa_port_of_guid(&f->src, 0), SUBNET_NONE);
	/* A port without a LID is no end port to find. */
	f->sn->port[h2].lid = 0;
	assert_int_equal(sa_src_index(&f->src), 0);
	assert_int_equal(sa_port_of_guid(&f->src, 0x301), SUBNET_NONE);
	/* Two ports with one GUID: the first in model order that has a LID. */
	f->sn->port[h2].lid = 3;
	f->sn->port[h2].guid = 0x201;
	assert_int_equal(sa_src_index(&f->src), 0);
	assert_int_equal(sa_port_of_guid(&f->src, 0x201), h1);
	f->sn->port[h1].lid = 0;
	assert_int_equal(sa_src_index(&f->src), 0);
	assert_int_equal(sa_port_of_guid(&f->src, 0x201), h2);
	/* No model: nothing indexed, nothing found. */
	f->src.sn = NULL;
	assert_int_equal(sa_src_index(&f->src), 0);
	assert_int_equal(sa_port_of_guid(&f->src, 0x100), SUBNET_NONE);
	f->src.sn = f->sn;
}

/* The LID index: which ports a query by LID looks at, and the same answers as a walk. */
static void test_lid_index(void **state)
{
	struct sa_fab *f = *state;
	uint32_t first, end, sw0 = subnet_port_idx(f->sn, f->sw1, 0),
			     h1 = subnet_port_idx(f->sn, f->h1, 1),
			     h2 = subnet_port_idx(f->sn, f->h2, 1);
	uint8_t mad[MAD_SIZE];
	struct sa_ans a;

	assert_false(f->src.lid_ambiguous);
	sa_lid_ports(&f->src, false, 2, &first, &end);
	assert_int_equal(first, 0);
	assert_int_equal(end, f->sn->n_ports);
	/* A switch's LID names all its ports (port 0 to 4), a CA's its own node only. */
	sa_lid_ports(&f->src, true, 1, &first, &end);
	assert_int_equal(first, sw0);
	assert_int_equal(end, sw0 + 5);
	sa_lid_ports(&f->src, true, 3, &first, &end);
	assert_int_equal(first, h2 - 1);
	assert_int_equal(end, h2 + 1);
	/* Nobody's: LID 0, a free LID, a multicast LID. */
	for (unsigned i = 0; i < 3; i++) {
		sa_lid_ports(&f->src, true, (const uint16_t[]){ 0, 4, 0xc000 }[i], &first, &end);
		assert_int_equal(end, first);
	}
	/* PortInfoRecords by the switch's LID: every port of it. */
	sa_fix_req(mad, IB_MAD_METHOD_GETTABLE, 0x12, 1);
	sa_fix_set16(mad, 0, 1);
	a = sa_fix_ask(&f->src, mad, sizeof(mad), 2, 0);
	assert_int_equal(a.status, 0);
	assert_int_equal(sa_fix_nrecs(&a, sizeof(ib_portinfo_record_t)), 5);
	free(a.out);
	/* LMC 1: LID 5 is h1's second LID; its NodeRecord names the base. */
	f->sn->port[h1].lid = 4;
	f->sn->port[h1].lmc = 1;
	assert_int_equal(sa_src_index(&f->src), 0);
	sa_lid_ports(&f->src, true, 5, &first, &end);
	assert_int_equal(first, h1 - 1);
	sa_fix_req(mad, IB_MAD_METHOD_GET, 0x11, 1);
	sa_fix_set16(mad, 0, 5);
	a = sa_fix_ask(&f->src, mad, sizeof(mad), 4, 0);
	assert_int_equal(a.status, 0);
	assert_int_equal(be16toh(((const ib_node_record_t *)(a.out + SA_HDR_SIZE))->lid), 4);
	free(a.out);
	/* Two ports claim LID 5: the index cannot tell; every port is looked at, both answer. */
	f->sn->port[h2].lid = 5;
	assert_int_equal(sa_src_index(&f->src), 0);
	assert_true(f->src.lid_ambiguous);
	sa_lid_ports(&f->src, true, 5, &first, &end);
	assert_int_equal(first, 0);
	assert_int_equal(end, f->sn->n_ports);
	a = sa_fix_ask(&f->src, mad, sizeof(mad), 4, 0);
	assert_int_equal(a.status, SA_ST_TOO_MANY_RECORDS);
	free(a.out);
	mad[3] = IB_MAD_METHOD_GETTABLE;
	a = sa_fix_ask(&f->src, mad, sizeof(mad), 4, 0);
	assert_int_equal(a.status, 0);
	assert_int_equal(sa_fix_nrecs(&a, sizeof(ib_node_record_t)), 2);
	free(a.out);
	/* A LID range past the unicast LIDs: looked for by walking too. */
	f->sn->port[h2].lid = 0xbfff;
	f->sn->port[h2].lmc = 1;
	assert_int_equal(sa_src_index(&f->src), 0);
	assert_true(f->src.lid_ambiguous);
	assert_int_equal(f->src.max_lid, 0xbfff);
	sa_src_free(&f->src);
	assert_false(f->src.lid_ambiguous);
	assert_null(f->src.by_lid);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_guid_index, sa_fix_star, sa_fix_teardown),
		cmocka_unit_test_setup_teardown(test_lid_index, sa_fix_star, sa_fix_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
