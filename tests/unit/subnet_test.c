/* SPDX-License-Identifier: MIT */
/* Unit tests for the subnet model (model/subnet.c) and its index tables. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "lib/itab.h"
#include "model/subnet.h"
#include "model/topo_stats.h"

static struct subnet *new_subnet(void)
{
	struct subnet *sn = NULL;

	assert_int_equal(subnet_new(&sn), 0);
	return sn;
}

static void test_add_and_find(void **state)
{
	struct subnet *sn = new_subnet();
	uint32_t sw, ca;

	(void)state;
	assert_int_equal(subnet_add_node(sn, NODE_SWITCH, 8, 0x200000, "sw1", "leaf 1", &sw), 0);
	assert_int_equal(subnet_add_node(sn, NODE_CA, 2, 0x100000, "h1", NULL, &ca), 0);
	assert_int_equal(sw, 0);
	assert_int_equal(ca, 1);
	/* A switch has ports 0..8; a CA has a placeholder port 0 and ports 1..2. */
	assert_int_equal(sn->n_ports, 9 + 3);
	assert_int_equal(sn->port[subnet_port_idx(sn, sw, 0)].guid, 0x200000);
	assert_int_equal(sn->port[subnet_port_idx(sn, sw, 5)].guid, 0);
	assert_int_equal(sn->port[subnet_port_idx(sn, ca, 2)].guid, 0x100002);
	assert_int_equal(sn->port[subnet_port_idx(sn, ca, 2)].num, 2);
	assert_string_equal(subnet_str(sn, sn->node[sw].desc), "leaf 1");
	assert_string_equal(subnet_str(sn, sn->node[ca].desc), "h1");

	assert_int_equal(subnet_find_guid(sn, 0x100000), ca);
	assert_int_equal(subnet_find_guid(sn, 0x100001), SUBNET_NONE);
	assert_int_equal(subnet_find_port_guid(sn, 0x100001), subnet_port_idx(sn, ca, 1));
	assert_int_equal(subnet_find_port_guid(sn, 0x200000), subnet_port_idx(sn, sw, 0));
	assert_int_equal(subnet_find_name(sn, "sw1"), sw);
	assert_int_equal(subnet_find_name(sn, "nope"), SUBNET_NONE);
	subnet_free(sn);
}

static void test_duplicates_refused(void **state)
{
	struct subnet *sn = new_subnet();

	(void)state;
	assert_int_equal(subnet_add_node(sn, NODE_SWITCH, 8, 0x200000, "a", NULL, NULL), 0);
	assert_int_equal(subnet_add_node(sn, NODE_CA, 1, 0x200000, "b", NULL, NULL), -EEXIST);
	assert_int_equal(subnet_add_node(sn, NODE_CA, 1, 0x300000, "a", NULL, NULL), -EEXIST);
	assert_int_equal(subnet_add_node(sn, NODE_CA, 0, 0x300000, "c", NULL, NULL), -EINVAL);
	assert_int_equal(subnet_add_node(sn, 7, 1, 0x300000, "c", NULL, NULL), -EINVAL);
	assert_int_equal(sn->n_nodes, 1);
	subnet_free(sn);
}

static void test_port_guid_clash(void **state)
{
	struct subnet *sn = new_subnet();
	uint32_t a, b;

	(void)state;
	/* b's default port 2 GUID (0x0f + 2) is a's port 1 GUID: a clash to find. */
	assert_int_equal(subnet_add_node(sn, NODE_CA, 1, 0x10, "a", NULL, &a), 0);
	assert_int_equal(subnet_add_node(sn, NODE_CA, 2, 0x0f, "b", NULL, &b), 0);
	assert_int_equal(subnet_dup_port(sn, subnet_port_idx(sn, b, 2)),
			 subnet_port_idx(sn, a, 1));
	/* Giving b's port an explicit GUID resolves it; the old one is gone. */
	assert_int_equal(subnet_set_port_guid(sn, subnet_port_idx(sn, b, 2), 0x99), 0);
	assert_int_equal(subnet_dup_port(sn, subnet_port_idx(sn, b, 2)), SUBNET_NONE);
	assert_int_equal(subnet_find_port_guid(sn, 0x99), subnet_port_idx(sn, b, 2));
	assert_int_equal(subnet_find_port_guid(sn, 0x11), subnet_port_idx(sn, a, 1));
	assert_int_equal(subnet_set_port_guid(sn, subnet_port_idx(sn, b, 1), 0x99), -EEXIST);
	subnet_free(sn);
}

static void test_link(void **state)
{
	struct subnet *sn = new_subnet();
	uint32_t s, h, ps, ph;

	(void)state;
	assert_int_equal(subnet_add_node(sn, NODE_SWITCH, 4, 0x200000, "s", NULL, &s), 0);
	assert_int_equal(subnet_add_node(sn, NODE_CA, 1, 0x100000, "h", NULL, &h), 0);
	ps = subnet_port_idx(sn, s, 3);
	ph = subnet_port_idx(sn, h, 1);
	assert_int_equal(subnet_link(sn, ps, ph), 0);
	assert_int_equal(sn->port[ps].peer, ph);
	assert_int_equal(sn->port[ph].peer, ps);
	assert_int_equal(subnet_link(sn, ps, subnet_port_idx(sn, s, 4)), -EBUSY);
	assert_int_equal(subnet_link(sn, ps, ps), -EINVAL);
	subnet_unlink(sn, ph);
	assert_int_equal(sn->port[ps].peer, SUBNET_NONE);
	assert_int_equal(sn->port[ph].peer, SUBNET_NONE);
	subnet_free(sn);
}

/*
 * The whole unicast LID space: 49,151 CAs, each port holding one LID.
 * Lookups stay right across table growth and removals.
 */
#define N_FULL SUBNET_LID_UCAST_END
static void test_full_lid_space(void **state)
{
	struct subnet *sn = new_subnet();
	char name[32];

	(void)state;
	for (uint32_t i = 0; i < N_FULL; i++) {
		snprintf(name, sizeof(name), "h%u", i);
		assert_int_equal(subnet_add_node(sn, NODE_CA, 1, 0x1000000 + 4 * i, name, NULL,
						 NULL), 0);
		sn->port[subnet_port_idx(sn, i, 1)].lid = (uint16_t)(i + 1);
	}
	assert_int_equal(sn->n_nodes, 49151);
	assert_int_equal(sn->port[subnet_port_idx(sn, N_FULL - 1, 1)].lid, 0xbfff);
	for (uint32_t i = 0; i < N_FULL; i += 2)
		assert_int_equal(subnet_set_port_guid(sn, subnet_port_idx(sn, i, 1),
						      0x9000000 + i), 0);
	for (uint32_t i = 0; i < N_FULL; i++) {
		snprintf(name, sizeof(name), "h%u", i);
		assert_int_equal(subnet_find_name(sn, name), i);
		assert_int_equal(subnet_find_guid(sn, 0x1000000 + 4 * i), i);
		assert_int_equal(subnet_find_port_guid(sn, i % 2 ? 0x1000000 + 4 * i + 1
								 : 0x9000000 + i),
				 subnet_port_idx(sn, i, 1));
		if (i % 2 == 0)
			assert_int_equal(subnet_find_port_guid(sn, 0x1000000 + 4 * i + 1),
					 SUBNET_NONE);
	}
	subnet_free(sn);
}

/* Two switches with two parallel links, a CA on each, one isolated CA. */
static void test_stats(void **state)
{
	struct subnet *sn = new_subnet();
	struct topo_stats st;
	uint32_t a, b, h1, h2, h3;

	(void)state;
	assert_int_equal(subnet_add_node(sn, NODE_CA, 1, 0x100000, "h1", NULL, &h1), 0);
	assert_int_equal(subnet_add_node(sn, NODE_SWITCH, 8, 0x200000, "a", NULL, &a), 0);
	assert_int_equal(subnet_add_node(sn, NODE_SWITCH, 8, 0x200001, "b", NULL, &b), 0);
	assert_int_equal(subnet_add_node(sn, NODE_CA, 1, 0x100010, "h2", NULL, &h2), 0);
	assert_int_equal(subnet_add_node(sn, NODE_CA, 2, 0x100020, "h3", NULL, &h3), 0);
	assert_int_equal(subnet_link(sn, subnet_port_idx(sn, a, 1), subnet_port_idx(sn, h1, 1)), 0);
	assert_int_equal(subnet_link(sn, subnet_port_idx(sn, b, 1), subnet_port_idx(sn, h2, 1)), 0);
	assert_int_equal(subnet_link(sn, subnet_port_idx(sn, a, 3), subnet_port_idx(sn, b, 3)), 0);
	assert_int_equal(subnet_link(sn, subnet_port_idx(sn, a, 5), subnet_port_idx(sn, b, 5)), 0);
	assert_int_equal(topo_stats_compute(sn, &st), 0);
	assert_int_equal(st.switches, 2);
	assert_int_equal(st.cas, 3);
	assert_int_equal(st.links, 4);
	assert_int_equal(st.links_sw_sw, 2);
	assert_int_equal(st.links_sw_end, 2);
	assert_int_equal(st.ports, 8 + 8 + 1 + 1 + 2);
	assert_int_equal(st.ports_linked, 8);
	assert_int_equal(st.parallel_pairs, 1);
	assert_int_equal(st.parallel_extra, 1);
	assert_int_equal(st.isolated, 1);
	assert_int_equal(st.components, 2);
	assert_int_equal(st.unreached, 1);
	assert_int_equal(st.radix[8], 2);
	subnet_free(sn);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_add_and_find),
		cmocka_unit_test(test_duplicates_refused),
		cmocka_unit_test(test_port_guid_clash),
		cmocka_unit_test(test_link),
		cmocka_unit_test(test_full_lid_space),
		cmocka_unit_test(test_stats),
	};

	return cmocka_run_group_tests_name("subnet", tests, NULL, NULL);
}
