/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for routing/check.c (the route-quality checker): its verdict on
 * good and broken tables (dropped entries, dead ports, loops), link loads
 * against numbers worked out by hand, credit loops found on a torus and not
 * on fat trees, detached hosts and mismatched tables; the same report and
 * messages from any number of worker threads. The dump_lfts text is in
 * lft_text_test.c.
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
#include "routing/check.h"
#include "routing/lft_text.h"
#include "routing/route.h"
#include "model/subnet.h"
#include "tests/unit/route_fixture.h"

static void check(const struct subnet *sn, const struct route_out *out,
		  struct check_report *rep, struct diag *d)
{
	struct check_opts o = { .max_msgs = 5 };

	assert_int_equal(check_routes(sn, out, &o, rep, d), 0);
}

/* acyclic: 1 or 0 as the CDG must be, -1 if either will do. */
static void good(const char *name, uint8_t lmc, int acyclic)
{
	struct route_out out;
	struct subnet *sn = rfx_minhop(name, lmc, &out);
	struct check_report r;
	struct diag d = { 0 };
	uint64_t h;

	check(sn, &out, &r, &d);
	diag_print(&d, stderr);
	assert_true(check_ok(&r));
	h = r.hosts;
	assert_int_equal(r.pairs, h * (h - 1) * (1u << lmc));
	assert_int_equal(r.delivered, r.pairs);
	assert_int_equal(r.unreachable + r.loops + r.sw_bad, 0);
	assert_int_equal(r.sw_pairs, (uint64_t)r.switches * r.switches);
	assert_int_equal(r.extra_max, 0); /* min-hop takes shortest paths */
	assert_true(r.stretch_max < 1.0 + 1e-9 && r.stretch_mean > 1.0 - 1e-9);
	assert_true(r.all2all.max >= r.all2all.ideal - 1e-9);
	assert_true(r.all2all.mean >= r.all2all.ideal - 1e-9);
	if (acyclic >= 0)
		assert_int_equal(r.cdg_acyclic, acyclic);
	assert_int_equal(rfx_diag_has(&d, "credit loop (one VL)", NULL), !r.cdg_acyclic);
	route_out_free(&out);
	diag_free(&d);
	subnet_free(sn);
}

static void test_good(void **state)
{
	(void)state;
	for (uint8_t lmc = 0; lmc <= 2; lmc += 2) {
		good("ft2-k8.topo", lmc, true);
		good("ft3-k4.topo", lmc, true);
		good("torus2d-4x4.topo", lmc, false); /* min-hop on a ring: credit loops */
	}
	good("random-16-d4.topo", 0, -1);
	good("dragonfly-small.topo", 0, -1);
	good("torus3d-3x3x3.topo", 0, false);
}

/* The port of switch node sw that leads to node peer (the first), or 0. */
static uint8_t port_to(const struct subnet *sn, uint32_t sw, uint32_t peer)
{
	for (unsigned p = 1; p <= sn->node[sw].nports; p++) {
		uint32_t q = sn->port[subnet_port_idx(sn, sw, p)].peer;

		if (q != SUBNET_NONE && sn->port[q].node == peer)
			return (uint8_t)p;
	}
	return 0;
}

static uint16_t lid_of(const struct subnet *sn, const char *host)
{
	return sn->port[subnet_port_idx(sn, subnet_find_name(sn, host), 1)].lid;
}

/* One entry dropped: the 4 hosts of that leaf lose that destination. */
static void test_drop(void **state)
{
	struct route_out out;
	struct subnet *sn = rfx_minhop("ft2-k8.topo", 0, &out);
	uint16_t lid = lid_of(sn, "h00017");
	uint8_t up = *rfx_entry(sn, &out, "leaf001", lid);
	struct check_report r;
	struct diag d = { 0 };

	(void)state;
	*rfx_entry(sn, &out, "leaf001", lid) = ROUTE_DROP;
	check(sn, &out, &r, &d);
	diag_print(&d, stderr);
	assert_false(check_ok(&r));
	assert_int_equal(r.unreachable, 4);
	assert_int_equal(r.loops, 0);
	assert_int_equal(r.sw_bad, 0);
	assert_true(rfx_diag_has(&d, "\"h00001\" port 1", "-> \"h00017\" port 1"));
	assert_true(rfx_diag_has(&d, "dropped at switch \"leaf001\" (0x", "no route (LFT entry 255)"));
	assert_int_equal(d.n, 4);
	diag_free(&d);
	/* A LID the tables cannot speak for is not judged. */
	assert_int_equal(check_routes(sn, &out, &(struct check_opts){ .skip_lid = lid }, &r, &d),
			 0);
	assert_true(check_ok(&r));
	assert_int_equal(r.lids_skipped, 1);
	assert_int_equal(r.pairs, 32 * 31 - 31);
	diag_free(&d);

	/* To a host that is not the destination. */
	*rfx_entry(sn, &out, "leaf001", lid) = up;
	*rfx_entry(sn, &out, "leaf002", lid) = 1;
	check(sn, &out, &r, &d);
	diag_print(&d, stderr);
	assert_int_equal(r.unreachable, 4);
	assert_true(rfx_diag_has(&d, "\"h00005\" port 1", "-> \"h00017\" port 1"));
	assert_true(rfx_diag_has(&d, "misdelivered: switch \"leaf002\"", "by port 1 to \"h00005\" port 1"));
	route_out_free(&out);
	diag_free(&d);
	subnet_free(sn);
}

/* To a port with no cable; to the switch itself (LFT port 0). */
static void test_dead_port(void **state)
{
	struct subnet *sn = rfx_read(rfx_two_sw);
	struct check_report r;
	struct route_out out;
	struct route_why why;
	struct diag d = { 0 };

	(void)state;
	rfx_lids_in_order(sn, 0); /* h1 1, s1 2, s2 3, h2 4 */
	assert_int_equal(rfx_route_lmc("minhop", sn, 0, &out, &why), 0);
	*rfx_entry(sn, &out, "s1", 4) = 4;
	*rfx_entry(sn, &out, "s2", 1) = 0;
	*rfx_entry(sn, &out, "s1", 3) = 0;
	check(sn, &out, &r, &d);
	diag_print(&d, stderr);
	assert_int_equal(r.pairs, 2);
	assert_int_equal(r.unreachable, 2);
	assert_int_equal(r.sw_bad, 1); /* s1 -> s2's LID 3 */
	assert_true(rfx_diag_has(&d, "\"h1\" port 1 (0x0000000000100001) -> \"h2\" port 1 "
				"(0x0000000000100003) LID 4 (0x0004)",
			    "dropped at switch \"s1\" (0x0000000000200000): LFT port 4 is not linked"));
	assert_true(rfx_diag_has(&d, "-> \"h1\" port 1", "misdelivered: switch \"s2\" "
				"(0x0000000000200001) keeps it (LFT port 0)"));
	assert_true(rfx_diag_has(&d, "switch \"s1\" (0x0000000000200000) -> switch \"s2\" "
				"(0x0000000000200001) LID 3 (0x0003)", "keeps it"));
	route_out_free(&out);
	diag_free(&d);
	subnet_free(sn);
}

/* One entry sends a LID back down to a leaf that sent it up: a loop. */
static void test_loop(void **state)
{
	struct route_out out;
	struct subnet *sn = rfx_minhop("ft2-k8.topo", 0, &out);
	uint16_t lid = lid_of(sn, "h00017");
	uint32_t leaf = subnet_find_name(sn, "leaf001"), spine, sw;
	struct check_report r;
	struct diag d = { 0 };
	uint8_t up = *rfx_entry(sn, &out, "leaf001", lid);
	char want[80];

	(void)state;
	spine = sn->port[sn->port[subnet_port_idx(sn, leaf, up)].peer].node;
	sw = out.sw_index[spine];
	route_lft(&out, sw)[lid] = port_to(sn, spine, leaf);
	check(sn, &out, &r, &d);
	diag_print(&d, stderr);
	assert_false(check_ok(&r));
	assert_true(r.loops >= 4); /* leaf001's hosts at least */
	assert_int_equal(r.unreachable, 0);
	assert_true(r.sw_bad == 0);
	snprintf(want, sizeof(want), "loops: the route comes back to switch \"%s\"",
		 subnet_str(sn, sn->node[spine].desc));
	assert_true(rfx_diag_has(&d, "\"h00001\" port 1 (0x0002c90400000101) -> \"h00017\"", want) ||
		    rfx_diag_has(&d, "-> \"h00017\" port 1", "loops: the route comes back to switch \"leaf001\""));
	assert_true(rfx_diag_has(&d, "more bad pairs, not named (the first 5 are)", NULL) ||
		    r.loops <= 5);
	route_out_free(&out);
	diag_free(&d);
	subnet_free(sn);
}

/*
 * ft2-k8 by hand: 8 leaves of 4 hosts, 4 spines, 32 cables between them, so
 * 64 directed switch links. All-to-all: 32 x 31 = 992 pairs; the 8 x 4 x 3 =
 * 96 on one leaf cross no link, the other 896 cross 2: 1792 link crossings,
 * 1792 / 64 = 28 routes per link, mean and ideal alike. Shift: host i sends
 * to host i + 16, always on another leaf: 32 routes x 2 links / 64 = 1.
 * Now send everything between leaves through spine001 alone: each leaf's
 * link to it carries its 4 hosts x 28 remote hosts = 112, each link down
 * from it 28 x 4 = 112, the rest nothing; mean and ideal stay 28 and 1; the
 * shift's busiest link carries the 4 hosts of one leaf.
 */
static void test_load_by_hand(void **state)
{
	struct route_out out;
	struct subnet *sn = rfx_minhop("ft2-k8.topo", 0, &out);
	uint32_t spine1 = subnet_find_name(sn, "spine001");
	struct check_report r;
	struct diag d = { 0 };

	(void)state;
	check(sn, &out, &r, &d);
	assert_int_equal(r.links, 64);
	assert_int_equal(r.pairs, 992);
	assert_int_equal(r.all2all.routes, 992);
	assert_true(r.all2all.mean == 28.0 && r.all2all.ideal == 28.0);
	assert_true(r.all2all.max >= 28 && r.all2all.max <= 32);
	assert_true(r.hops_mean == 1792.0 / 992);
	assert_int_equal(r.hops_max, 2);
	assert_int_equal(r.shift.routes, 32);
	assert_true(r.shift.mean == 1.0 && r.shift.ideal == 1.0);
	assert_int_equal(r.cdg_deps, 32 * 7); /* leaf -> spine -> 7 other leaves */
	for (uint32_t pi = 0; pi < sn->n_ports; pi++) {
		const struct subnet_port *p = &sn->port[pi];

		if (subnet_is_switch(sn, p->node) || !p->lid)
			continue;
		for (uint32_t s = 0; s < out.n_sw; s++) {
			uint32_t node = out.sw_node[s];
			uint8_t *e = &route_lft(&out, s)[p->lid];
			uint32_t peer = sn->port[subnet_port_idx(sn, node, *e)].peer;

			/* A leaf's uplink (its peer is a spine) becomes the one to spine001. */
			if (!strncmp(subnet_str(sn, sn->node[node].desc), "leaf", 4) &&
			    subnet_is_switch(sn, sn->port[peer].node))
				*e = port_to(sn, node, spine1);
		}
	}
	check(sn, &out, &r, &d);
	assert_true(check_ok(&r));
	assert_int_equal(r.all2all.max, 112);
	assert_true(r.all2all.mean == 28.0 && r.all2all.ideal == 28.0);
	assert_int_equal(r.shift.max, 4);
	assert_true(r.shift.mean == 1.0 && r.shift.ideal == 1.0);
	assert_int_equal(r.cdg_deps, 8 * 7);
	assert_true(r.cdg_acyclic);
	route_out_free(&out);
	diag_free(&d);
	subnet_free(sn);
}

/* Ports with a LID and no cable, and tables that belong to another model. */
static void test_detached_and_mismatch(void **state)
{
	struct subnet *sn = rfx_read("Switch 4 \"s1\"\n[1] \"h1\"[1]\n[2] \"h2\"[1]\n"
				     "Hca 2 \"h1\"\n[1] \"s1\"[1]\n"
				     "Hca 1 \"h2\"\n[1] \"s1\"[2]\n");
	struct subnet *other = rfx_load("ft2-k8.topo");
	struct check_report r;
	struct route_out out;
	struct route_why why;
	struct diag d = { 0 };

	(void)state;
	rfx_lids_in_order(sn, 0);
	sn->port[subnet_port_idx(sn, subnet_find_name(sn, "h1"), 2)].lid = 9;
	assert_int_equal(rfx_route_lmc("minhop", sn, 0, &out, &why), 0);
	check(sn, &out, &r, &d);
	assert_int_equal(r.hosts, 2);
	assert_int_equal(r.dest_ports, 3);
	assert_int_equal(r.pairs, 2 + 2);   /* h1:1 <-> h2, and both of them to h1:2 */
	assert_int_equal(r.unreachable, 2); /* those two */
	assert_true(rfx_diag_has(&d, "-> \"h1\" port 2", "not linked to a switch"));
	assert_int_equal(r.links, 0);
	assert_true(r.all2all.max_node == SUBNET_NONE);
	diag_free(&d);
	assert_int_equal(check_routes(other, &out, NULL, &r, &d), -EINVAL);
	route_out_free(&out);
	subnet_free(sn);
	subnet_free(other);
}

/* SLs 0-2 by switch and LID; SL 2 out of port 2 goes to VL 15 (dropped). */
static uint8_t vl_test(void *ctx, uint32_t node, uint8_t in, uint8_t out, uint8_t sl)
{
	(void)ctx;
	(void)node;
	(void)in;
	return sl == 2 && out == 2 ? 15 : sl;
}

static void same_report(const struct check_report *a, const struct check_report *b)
{
	assert_int_equal(a->pairs, b->pairs);
	assert_int_equal(a->delivered, b->delivered);
	assert_int_equal(a->unreachable, b->unreachable);
	assert_int_equal(a->loops, b->loops);
	assert_int_equal(a->hops_max, b->hops_max);
	assert_int_equal(a->extra_max, b->extra_max);
	assert_true(a->hops_mean == b->hops_mean);
	assert_true(a->stretch_mean == b->stretch_mean);
	assert_true(a->stretch_max == b->stretch_max);
	assert_int_equal(a->sw_pairs, b->sw_pairs);
	assert_int_equal(a->sw_bad, b->sw_bad);
	assert_int_equal(a->lids_skipped, b->lids_skipped);
	assert_int_equal(a->all2all.max, b->all2all.max);
	assert_int_equal(a->all2all.max_node, b->all2all.max_node);
	assert_int_equal(a->all2all.max_port, b->all2all.max_port);
	assert_true(a->all2all.ideal == b->all2all.ideal);
	assert_int_equal(a->shift.routes, b->shift.routes);
	assert_int_equal(a->shift.max, b->shift.max);
	assert_true(a->shift.ideal == b->shift.ideal);
	assert_int_equal(a->cdg_deps, b->cdg_deps);
	assert_int_equal(a->cdg_acyclic, b->cdg_acyclic);
	assert_int_equal(a->vls_used, b->vls_used);
	assert_int_equal(a->vls_cyclic, b->vls_cyclic);
}

/*
 * A torus with broken entries (drops, wrong ports, loops), SLs some of
 * which map to VL 15, and a host whose LID is above the tables' top: 1, 2,
 * 3 and 7 worker threads give the same report and the same messages in the
 * same order, with the max_msgs cut falling inside a later thread's share.
 */
static void test_threads(void **state)
{
	struct route_out out;
	struct subnet *sn = rfx_minhop("torus3d-3x3x3.topo", 1, &out);
	size_t w = (size_t)out.max_lid + 1;
	uint8_t *sl = calloc((size_t)out.n_sw * w, 1);
	uint32_t h = subnet_find_name(sn, "h00027");
	unsigned threads[] = { 1, 2, 3, 7 };

	(void)state;
	assert_non_null(sl);
	assert_true(h != SUBNET_NONE);
	for (uint32_t s = 0; s < out.n_sw; s++)
		for (uint32_t l = 1; l <= out.max_lid; l++) {
			sl[s * w + l] = (uint8_t)((s + l) % 3);
			if ((s * 31 + l * 17) % 97 == 0)
				route_lft(&out, s)[l] = (uint8_t)(l % 3 ? ROUTE_DROP : 1 + (s + l) % 7);
		}
	/* A loop between switch 5 and a switch neighbour, to h00001's LIDs. */
	for (unsigned p = 1, a = out.sw_node[5]; p <= sn->node[a].nports; p++) {
		uint32_t q = sn->port[subnet_port_idx(sn, a, p)].peer, b;

		if (q == SUBNET_NONE || !subnet_is_switch(sn, sn->port[q].node))
			continue;
		b = sn->port[q].node;
		route_lft(&out, 5)[lid_of(sn, "h00001")] = (uint8_t)p;
		route_lft(&out, out.sw_index[b])[lid_of(sn, "h00001")] = port_to(sn, b, a);
		break;
	}
	/* Above the top: dropped everywhere (sorted among the others by switch). */
	sn->port[subnet_port_idx(sn, h, 1)].lid = (uint16_t)(out.max_lid + 1);
	for (unsigned m = 3; m <= 1000; m += 997) {
		struct check_report r0, r;
		struct diag d0 = { 0 };

		for (unsigned i = 0; i < sizeof(threads) / sizeof(threads[0]); i++) {
			struct check_opts o = { .max_msgs = m, .sl = sl, .vl_of = vl_test,
						.threads = threads[i] };
			struct diag d = { 0 };

			assert_int_equal(check_routes(sn, &out, &o, i ? &r : &r0, i ? &d : &d0), 0);
			if (!i) {
				assert_true(r0.unreachable > 0 && r0.loops > 0 && r0.sw_bad > 0);
				assert_true(rfx_diag_has(&d0, "above its table's top", NULL) || m < 10);
				assert_true(rfx_diag_has(&d0, "maps to VL 15", NULL) || m < 10);
				continue;
			}
			same_report(&r0, &r);
			assert_int_equal(d.n, d0.n);
			for (unsigned j = 0; j < d.n; j++)
				assert_string_equal(d.msg[j], d0.msg[j]);
			diag_free(&d);
		}
		diag_free(&d0);
	}
	free(sl);
	route_out_free(&out);
	subnet_free(sn);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_drop),
		cmocka_unit_test(test_dead_port),
		cmocka_unit_test(test_loop),
		cmocka_unit_test(test_load_by_hand),
		cmocka_unit_test(test_detached_and_mismatch),
		cmocka_unit_test(test_threads),
	};

	return cmocka_run_group_tests_name("check", tests, NULL, NULL);
}
