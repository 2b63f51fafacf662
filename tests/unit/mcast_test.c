/* SPDX-License-Identifier: MIT */
/*
 * Multicast groups, trees and MFTs with known answers: MLIDs from 0xC000
 * (lowest free), the last full member's leave, permanent IPoIB groups; the
 * tree of the ibsim 2sw2path fabric (as OpenSM draws it, less the
 * send-only port), a transit switch on a line, the root that minimises
 * the farthest member, and the MFT block/position encoding.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "config/config.h"
#include "mad/smp.h"
#include "plan/mcast.h"

static uint32_t add(struct subnet *sn, enum node_type t, uint8_t nports, uint64_t guid,
		    const char *name)
{
	uint32_t idx;

	assert_int_equal(subnet_add_node(sn, t, nports, guid, name, name, &idx), 0);
	return idx;
}

static void link2(struct subnet *sn, uint32_t a, unsigned pa, uint32_t b, unsigned pb)
{
	assert_int_equal(subnet_link(sn, subnet_port_idx(sn, a, pa), subnet_port_idx(sn, b, pb)), 0);
}

/* The ports of ports[node] as a bit mask of ports 0..63 (enough here). */
static uint64_t mask(const struct mcast_ports *ports, uint32_t node)
{
	return ports[node].w[0];
}

static struct mcast_group group(void)
{
	struct mcast_group g = { .mgid = { 0xff, 0x12, 0x60, 0x1b }, .pkey = 0xffff, .qkey = 0xb1b,
				 .mtu = 4, .rate = 3, .scope = 2 };

	return g;
}

/* ibsim's 2sw2path: the tree OpenSM programs, without send-only Hca4's port. */
static void tree_2sw2path(void **state)
{
	struct subnet *sn;
	struct mcast_group g = group();
	struct mcast_ports ports[8];
	uint32_t root, h1, h2, h3, h4, s1, s2;

	(void)state;
	assert_int_equal(subnet_new(&sn), 0);
	h1 = add(sn, NODE_CA, 2, 0x100, "Hca1");
	h2 = add(sn, NODE_CA, 1, 0x200, "Hca2");
	h3 = add(sn, NODE_CA, 1, 0x300, "Hca3");
	h4 = add(sn, NODE_CA, 1, 0x400, "Hca4");
	s1 = add(sn, NODE_SWITCH, 8, 0x1000, "Switch1");
	s2 = add(sn, NODE_SWITCH, 8, 0x2000, "Switch2");
	link2(sn, h1, 1, s1, 1);
	link2(sn, h1, 2, s2, 6);
	link2(sn, h2, 1, s1, 2);
	link2(sn, h3, 1, s2, 1);
	link2(sn, h4, 1, s2, 2);
	link2(sn, s1, 3, s2, 3);
	link2(sn, s1, 5, s2, 5);
	assert_int_equal(mcast_join(&g, 0x201, MCAST_FULL), 0);
	assert_int_equal(mcast_join(&g, 0x301, MCAST_FULL), 0);
	assert_int_equal(mcast_join(&g, 0x401, MCAST_SENDONLY), 0);
	memset(ports, 0, sizeof(ports));
	assert_int_equal(mcast_tree(sn, &g, ports, &root), 0);
	/* Both switches are one hop from the other: the lower index is the root. */
	assert_int_equal(root, s1);
	/* Switch1: Hca2 and the lowest of the parallel links; Switch2: Hca3 and that link. */
	assert_int_equal(mask(ports, s1), 1u << 2 | 1u << 3);
	assert_int_equal(mask(ports, s2), 1u << 1 | 1u << 3);
	for (uint32_t n = 0; n < 4; n++)
		assert_int_equal(mask(ports, n), 0);
	/* A non-member receives: Hca4 as non-member gets its port. */
	g.m[2].state = MCAST_NON;
	memset(ports, 0, sizeof(ports));
	assert_int_equal(mcast_tree(sn, &g, ports, &root), 0);
	assert_int_equal(mask(ports, s2), 1u << 1 | 1u << 2 | 1u << 3);
	free(g.m);
	subnet_free(sn);
}

/*
 * A line of switches A-B-C-D (port 2 to the right, port 1 to the left),
 * host hX on port 3 of each.
 */
static struct subnet *line(uint32_t sw[4])
{
	struct subnet *sn;

	assert_int_equal(subnet_new(&sn), 0);
	for (unsigned i = 0; i < 4; i++) {
		char name[8] = { 'S', (char)('A' + i) }, host[8] = { 'h', (char)('A' + i) };
		uint32_t h;

		sw[i] = add(sn, NODE_SWITCH, 4, 0x1000 * (i + 1), name);
		h = add(sn, NODE_CA, 1, 0x100 * (i + 1), host);
		link2(sn, sw[i], 3, h, 1);
		if (i)
			link2(sn, sw[i - 1], 2, sw[i], 1);
	}
	return sn;
}

static void tree_transit(void **state)
{
	uint32_t sw[4], root;
	struct subnet *sn = line(sw);
	struct mcast_group g = group();
	struct mcast_ports ports[8] = { 0 };

	(void)state;
	/* Members on A and C: B carries the group through, D stays out. */
	assert_int_equal(mcast_join(&g, 0x101, MCAST_FULL), 0);
	assert_int_equal(mcast_join(&g, 0x301, MCAST_FULL), 0);
	assert_int_equal(mcast_tree(sn, &g, ports, &root), 0);
	assert_int_equal(root, sw[0]);
	assert_int_equal(mask(ports, sw[0]), 1u << 2 | 1u << 3);
	assert_int_equal(mask(ports, sw[1]), 1u << 1 | 1u << 2);
	assert_int_equal(mask(ports, sw[2]), 1u << 1 | 1u << 3);
	assert_int_equal(mask(ports, sw[3]), 0);
	free(g.m);
	subnet_free(sn);
}

static void tree_root(void **state)
{
	uint32_t sw[4], root;
	struct subnet *sn = line(sw);
	struct mcast_group g = group();
	struct mcast_ports ports[8] = { 0 };

	(void)state;
	/* Members on A, C and D: from C the farthest is 2 hops, from A or D 3. */
	assert_int_equal(mcast_join(&g, 0x101, MCAST_FULL), 0);
	assert_int_equal(mcast_join(&g, 0x301, MCAST_FULL), 0);
	assert_int_equal(mcast_join(&g, 0x401, MCAST_SENDONLY), 0);
	assert_int_equal(mcast_tree(sn, &g, ports, &root), 0);
	assert_int_equal(root, sw[2]);
	assert_int_equal(mask(ports, sw[3]), 1u << 1); /* send-only: its link, not its host */
	assert_int_equal(mask(ports, sw[2]), 1u << 1 | 1u << 2 | 1u << 3);
	/* Nobody in the model: no tree. */
	free(g.m);
	g = group();
	assert_int_equal(mcast_join(&g, 0x9999, MCAST_FULL), 0);
	memset(ports, 0, sizeof(ports));
	assert_int_equal(mcast_tree(sn, &g, ports, &root), 0);
	assert_int_equal(root, SUBNET_NONE);
	for (uint32_t n = 0; n < sn->n_nodes; n++)
		assert_int_equal(mask(ports, n), 0);
	free(g.m);
	subnet_free(sn);
}

static void groups(void **state)
{
	struct mcast *mc;
	struct mcast_group t = group(), *a, *b, *c;
	uint8_t mgid[16];
	bool gone;

	(void)state;
	assert_int_equal(mcast_new(&mc), 0);
	assert_int_equal(mcast_create(mc, &t, &a), 0);
	assert_int_equal(a->mlid, 0xc000);
	assert_int_equal(mcast_create(mc, &t, &b), -EEXIST);
	t.mgid[15] = 1;
	assert_int_equal(mcast_create(mc, &t, &b), 0);
	assert_int_equal(b->mlid, 0xc001);
	/* The first group: a full and a send-only member; the full one leaves. */
	a = mcast_find(mc, group().mgid);
	assert_non_null(a);
	assert_int_equal(mcast_join(a, 0x11, MCAST_FULL), 0);
	assert_int_equal(mcast_join(a, 0x22, MCAST_SENDONLY), 0);
	assert_int_equal(mcast_join(a, 0x11, MCAST_NON), 0);
	assert_int_equal(mcast_member(a, 0x11)->state, MCAST_FULL | MCAST_NON);
	assert_int_equal(mcast_leave(mc, a, 0x33, MCAST_FULL, &gone), -ENOENT);
	assert_int_equal(mcast_leave(mc, a, 0x11, MCAST_NON, &gone), 0);
	assert_false(gone);
	assert_int_equal(mcast_leave(mc, a, 0x11, MCAST_FULL, &gone), 0);
	assert_true(gone); /* the send-only member goes with it */
	assert_null(mcast_find(mc, group().mgid));
	assert_int_equal(mc->n, 1);
	/* 0xC000 is free again: the next group takes it. */
	t.mgid[15] = 2;
	assert_int_equal(mcast_create(mc, &t, &c), 0);
	assert_int_equal(c->mlid, 0xc000);
	/* SA-assigned MGIDs: ff1S:a01b:PKEY:..., never one in use. */
	mcast_new_mgid(mc, 2, 0x8031, mgid);
	assert_int_equal(mgid[0], 0xff);
	assert_int_equal(mgid[1], 0x12);
	assert_int_equal(mgid[2], 0xa0);
	assert_int_equal(mgid[3], 0x1b);
	assert_int_equal(mgid[4], 0x80);
	assert_int_equal(mgid[5], 0x31);
	assert_null(mcast_find(mc, mgid));
	mcast_free(mc);
}

static void ipoib(void **state)
{
	struct config_partition parts[2] = {
		{ .pkey = 0x7fff, .ipoib = true, .mtu = 4, .rate = 3, .qkey = 0xb1b },
		{ .pkey = 0x0031, .ipoib = true, .mtu = 5, .rate = 7, .qkey = 0x1234, .sl = 1 },
	};
	struct config c = { .part = parts, .n_parts = 2 };
	static const uint8_t want[16] = { 0xff, 0x12, 0x40, 0x1b, 0x80, 0x31, 0, 0,
					  0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff };
	struct mcast *mc;
	struct mcast_group *g;
	bool gone;

	(void)state;
	assert_int_equal(mcast_new(&mc), 0);
	assert_int_equal(mcast_ipoib_sync(mc, &c), 0);
	assert_int_equal(mc->n, 2);
	assert_true(mc->dirty);
	g = mcast_find(mc, want);
	assert_non_null(g);
	assert_int_equal(g->mlid, 0xc001);
	assert_int_equal(g->pkey, 0x8031);
	assert_int_equal(g->qkey, 0x1234);
	assert_int_equal(g->mtu, 5);
	assert_int_equal(g->rate, 7);
	assert_int_equal(g->sl, 1);
	/* Permanent: the last member's leave keeps it. */
	assert_int_equal(mcast_join(g, 0x11, MCAST_FULL), 0);
	assert_int_equal(mcast_leave(mc, g, 0x11, MCAST_FULL, &gone), 0);
	assert_false(gone);
	/* Again: nothing new. */
	mc->dirty = false;
	assert_int_equal(mcast_ipoib_sync(mc, &c), 0);
	assert_int_equal(mc->n, 2);
	assert_false(mc->dirty);
	mcast_free(mc);
}

static void mft(void **state)
{
	uint32_t sw[4];
	struct subnet *sn = line(sw);
	struct mcast *mc;
	struct mcast_group t = group(), *a, *b;
	struct mcast_want w;
	struct mcast_ports e[64] = { 0 };
	uint16_t blk[32];

	(void)state;
	/* IBA 14.2.5.12: position in bits 31..28, block in 8..0. */
	assert_int_equal(smp_mft_mod(3, 2), 0x20000003u);
	assert_int_equal(mcast_new(&mc), 0);
	assert_int_equal(mcast_create(mc, &t, &a), 0);
	t.mgid[15] = 1;
	assert_int_equal(mcast_create(mc, &t, &b), 0);
	assert_int_equal(mcast_join(b, 0x101, MCAST_FULL), 0);
	assert_int_equal(mcast_join(b, 0x201, MCAST_FULL), 0);
	assert_int_equal(mcast_want_build(mc, sn, &w), 0);
	assert_int_equal(w.n, 32);
	/* 0xC000 has no member: empty; 0xC001: A's host and link, B's link and host. */
	assert_int_equal(w.e[sw[0] * w.n + 0].w[0], 0);
	assert_int_equal(w.e[sw[0] * w.n + 1].w[0], 1u << 2 | 1u << 3);
	assert_int_equal(w.e[sw[1] * w.n + 1].w[0], 1u << 1 | 1u << 3);
	assert_int_equal(w.e[sw[2] * w.n + 1].w[0], 0);
	mcast_want_free(&w);
	/* Block 1 position 1: entries 32..63, ports 16..31. */
	mcast_ports_set(&e[33], 17);
	mcast_ports_set(&e[33], 3);
	mcast_mft_block(e, 64, 1, 1, blk);
	assert_int_equal(blk[1], 1u << 1);
	assert_int_equal(blk[0], 0);
	mcast_mft_block(e, 64, 1, 0, blk);
	assert_int_equal(blk[1], 1u << 3);
	mcast_free(mc);
	subnet_free(sn);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(tree_2sw2path), cmocka_unit_test(tree_transit),
		cmocka_unit_test(tree_root),     cmocka_unit_test(groups),
		cmocka_unit_test(ipoib),         cmocka_unit_test(mft),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
