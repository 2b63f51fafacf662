/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for the vlayered engine (routing/vlayered*.c) and the checker's
 * per-VL channel dependency graphs. LIDs come from the LID manager, and the
 * tables are judged by the route checker (routing/check.h), which follows
 * the LFTs and the SLs and knows nothing of how they were made: every host
 * pair delivered, no loop, every switch reaches every switch LID, and no
 * cycle in any VL's channel dependency graph.
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

#include "lib/cleanup.h"
#include "lib/diag.h"
#include "routing/check.h"
#include "routing/route.h"
#include "model/subnet.h"
#include "tests/unit/route_fixture.h"

static int run(const struct subnet *sn, uint8_t lmc, uint8_t vls, unsigned threads,
	       struct route_out *out, struct route_why *why)
{
	struct route_opts o = { .lmc = lmc, .vls = vls, .threads = threads };

	return rfx_route("vlayered", sn, &o, out, why);
}

/* vlayered on sn with a budget: clean, within it, SL i on VL i. Returns VLs used. */
static unsigned clean(const char *tag, struct subnet *sn, uint8_t lmc, uint8_t vls)
{
	struct route_out out;
	struct route_why why;
	struct check_report rep;
	unsigned n;

	rfx_lids(sn, lmc);
	assert_int_equal(run(sn, lmc, vls, 2, &out, &why), 0);
	assert_non_null(out.sl);
	rfx_judge(sn, &out, &rep, true);
	if (!check_ok(&rep) || !rep.cdg_acyclic || rep.vls_cyclic || out.stats.unreach)
		fail_msg("%s lmc %u vls %u: unreachable %llu, loops %llu, switch LIDs bad %llu, "
			 "acyclic %d; why: %s", tag, lmc, vls,
			 (unsigned long long)rep.unreachable, (unsigned long long)rep.loops,
			 (unsigned long long)rep.sw_bad, rep.cdg_acyclic, why.msg);
	n = out.n_vls;
	assert_true(n >= 1 && n <= (vls ? vls : 8));
	assert_true(rep.vls_used < 1u << n); /* only the VLs it said */
	for (unsigned i = 0; i < n; i++)
		assert_int_equal(out.sl2vl[i], i);
	route_out_free(&out);
	return n;
}

/* A ring of n switches "sI", host "hI" on port 1, port 2 to the next's port 3. */
static struct subnet *ring(unsigned n)
{
	char text[8192];
	size_t k = 0;

	for (unsigned i = 0; i < n; i++)
		k += (size_t)snprintf(text + k, sizeof(text) - k, "Hca\t1 \"h%u\"\n[1]\t\"s%u\"[1]\n\n",
				      i, i);
	for (unsigned i = 0; i < n; i++)
		k += (size_t)snprintf(text + k, sizeof(text) - k,
				      "Switch\t4 \"s%u\"\n[1]\t\"h%u\"[1]\n[2]\t\"s%u\"[3]\n"
				      "[3]\t\"s%u\"[2]\n\n", i, i, (i + 1) % n, (i + n - 1) % n);
	return rfx_read(text);
}

/*
 * A ring of n switches, each pair of neighbours joined by k parallel cables:
 * "sI" has host "hI" on port 1, ports 2..k+1 to the next switch's ports
 * k+2..2k+1.
 */
static struct subnet *wide_ring(unsigned n, unsigned k)
{
	size_t cap = 4096 + (size_t)n * k * 64, len = 0;
	char *text = malloc(cap);
	struct subnet *sn;

	assert_non_null(text);
	for (unsigned i = 0; i < n; i++)
		len += (size_t)snprintf(text + len, cap - len,
					"Hca\t1 \"h%u\"\n[1]\t\"s%u\"[1]\n\n", i, i);
	for (unsigned i = 0; i < n; i++) {
		len += (size_t)snprintf(text + len, cap - len,
					"Switch\t%u \"s%u\"\n[1]\t\"h%u\"[1]\n", 2 * k + 1, i, i);
		for (unsigned j = 0; j < k; j++)
			len += (size_t)snprintf(text + len, cap - len, "[%u]\t\"s%u\"[%u]\n",
						2 + j, (i + 1) % n, k + 2 + j);
		for (unsigned j = 0; j < k; j++)
			len += (size_t)snprintf(text + len, cap - len, "[%u]\t\"s%u\"[%u]\n",
						k + 2 + j, (i + n - 1) % n, 2 + j);
		len += (size_t)snprintf(text + len, cap - len, "\n");
	}
	sn = rfx_read(text);
	free(text);
	return sn;
}

/*
 * Switches with more switch links than the dependency searches read in one
 * word (56): rings of five and seven with 40 cables each way, 80 links a
 * switch. (Spread over the cables, the routes of a ring can do with one VL.)
 */
static void test_wide_switches(void **state)
{
	for (unsigned n = 5; n <= 7; n += 2) {
		struct subnet *sn = wide_ring(n, 40);

		(void)state;
		clean("wide ring", sn, 0, 8);
		clean("wide ring", sn, 1, 2);
		assert_int_equal(clean("wide ring", sn, 0, 1), 1);
		subnet_free(sn);
	}
}

/* The LIDs the why message says went to the up/down escape. */
static unsigned long escaped(const struct route_why *why)
{
	const char *p = strstr(why->msg, "VLs used, ");

	assert_non_null(p);
	return strtoul(p + strlen("VLs used, "), NULL, 10);
}

/*
 * Where no layer takes a switch's shortest route, it waits for a longer one
 * through a neighbour routed later, before its LID goes to the escape:
 * with one VL these fabrics sent 22 and 96 LIDs to the escape, and now none,
 * with a few longer routes.
 */
static void test_detours(void **state)
{
	const char *files[] = { "random-16-d4.topo", "dragonfly-small.topo" };

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		struct subnet *sn = rfx_load(files[i]);
		struct route_out out;
		struct route_why why;
		struct check_report rep;

		clean(files[i], sn, 0, 1);
		assert_int_equal(run(sn, 0, 1, 1, &out, &why), 0);
		rfx_judge(sn, &out, &rep, true);
		assert_int_equal(escaped(&why), 0);
		assert_true(rep.extra_max > 0);
		assert_true(rep.stretch_mean < 1.1);
		route_out_free(&out);
		subnet_free(sn);
	}
}

/*
 * A switch's own LID takes the routes and SLs of the first host on it (no
 * tree of its own): same egress everywhere but at the switch itself, same
 * SL everywhere. With LMC 1 the host's base LID is the one copied.
 */
static void test_switch_lids(void **state)
{
	const char *files[] = { "torus2d-4x4.topo", "dragonfly-small.topo" };

	(void)state;
	for (size_t f = 0; f < ARRAY_SIZE(files); f++) {
		struct subnet *sn = rfx_load(files[f]);
		struct route_out out;
		struct route_why why;
		unsigned copies = 0;

		clean(files[f], sn, 1, 8);
		rfx_lids(sn, 1);
		assert_int_equal(run(sn, 1, 8, 2, &out, &why), 0);
		for (uint32_t s = 0; s < out.n_sw; s++) {
			uint32_t node = out.sw_node[s], host = SUBNET_NONE;
			uint16_t own = sn->port[subnet_port_idx(sn, node, 0)].lid;

			/* Its first host: the lowest host LID on the switch. */
			for (unsigned p = 1; p <= sn->node[node].nports; p++) {
				uint32_t peer = sn->port[subnet_port_idx(sn, node, p)].peer;

				if (peer == SUBNET_NONE)
					continue;
				if (subnet_is_switch(sn, sn->port[peer].node))
					continue;
				if (host == SUBNET_NONE || sn->port[peer].lid < sn->port[host].lid)
					host = peer;
			}
			if (host == SUBNET_NONE)
				continue;
			for (uint32_t x = 0; x < out.n_sw; x++) {
				const uint8_t *lft = route_lft(&out, x);
				uint16_t hl = sn->port[host].lid;

				assert_int_equal(route_sl(&out, x)[own], route_sl(&out, x)[hl]);
				assert_int_equal(lft[own], x == s ? 0 : lft[hl]);
			}
			copies++;
		}
		assert_true(copies > 0);
		route_out_free(&out);
		subnet_free(sn);
	}
}

/* Shortest paths on a ring of five close a credit loop each way: two VLs. */
static void test_ring(void **state)
{
	struct subnet *sn = ring(5);
	struct route_out out;
	struct route_why why;
	struct check_report rep;

	(void)state;
	assert_int_equal(clean("ring5", sn, 0, 8), 2);
	rfx_lids(sn, 0);
	assert_int_equal(run(sn, 0, 8, 1, &out, &why), 0);
	rfx_judge(sn, &out, &rep, true);
	assert_int_equal(rep.extra_max, 0); /* all shortest */
	assert_int_equal(rep.vls_used, 3);
	route_out_free(&out);
	/* One VL: the escape takes what does not fit, still clean. */
	assert_int_equal(clean("ring5", sn, 0, 1), 1);
	assert_int_equal(clean("ring5", sn, 1, 1), 1);
	subnet_free(sn);
}

static void test_tori(void **state)
{
	const char *files[] = { "torus2d-4x4.topo", "torus3d-3x3x3.topo", "random-16-d4.topo",
				"dragonfly-small.topo" };

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		struct subnet *sn = rfx_load(files[i]);

		for (uint8_t vls = 1; vls <= 8; vls *= 2)
			clean(files[i], sn, 0, vls);
		clean(files[i], sn, 2, 0);
		subnet_free(sn);
	}
}

/* A fat tree's shortest paths are up-then-down: one layer holds them all. */
static void test_fat_trees(void **state)
{
	const char *files[] = { "ft2-k8.topo", "ft3-k4.topo", "ft2-k8-degraded.topo" };

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		struct subnet *sn = rfx_load(files[i]);

		assert_int_equal(clean(files[i], sn, 0, 8), 1);
		assert_int_equal(clean(files[i], sn, 1, 8), 1);
		subnet_free(sn);
	}
}

static void test_small_ones(void **state)
{
	const char *files[] = { "loop.topo", "parallel.topo", "2sw2path.topo",
				"single-switch.topo" };

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		struct subnet *sn = rfx_load(files[i]);

		clean(files[i], sn, 0, 1);
		clean(files[i], sn, 2, 8);
		subnet_free(sn);
	}
}

static void test_node_order(void **state)
{
	const char *files[] = { "torus2d-4x4.topo", "random-16-d4.topo", "dragonfly-small.topo",
				"ft3-k4.topo" };

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		char *text = rfx_reversed(files[i]);
		struct subnet *a = rfx_load(files[i]), *b = rfx_read(text);
		struct route_out ra, rb;
		struct route_why why;

		for (uint8_t lmc = 0; lmc <= 1; lmc++) {
			rfx_lids(a, lmc);
			rfx_lids(b, lmc);
			assert_int_equal(run(a, lmc, 0, 1, &ra, &why), 0);
			assert_int_equal(run(b, lmc, 0, 1, &rb, &why), 0);
			rfx_same_rows(a, &ra, b, &rb);
			route_out_free(&ra);
			route_out_free(&rb);
		}
		subnet_free(a);
		subnet_free(b);
		free(text);
	}
}

static void test_threads(void **state)
{
	struct subnet *sn = rfx_load("dragonfly-small.topo");
	struct route_out a, b;
	struct route_why why;

	(void)state;
	rfx_lids(sn, 1);
	assert_int_equal(run(sn, 1, 0, 1, &a, &why), 0);
	assert_int_equal(run(sn, 1, 0, 4, &b, &why), 0);
	rfx_same_rows(sn, &a, sn, &b);
	route_out_free(&a);
	route_out_free(&b);
	subnet_free(sn);
}

/* How often the two LIDs of a host leave a switch (not its own) by different ports. */
static double lmc_spread(const char *file)
{
	struct subnet *sn = rfx_load(file);
	struct route_out out;
	struct route_why why;
	uint32_t spread = 0, total = 0;

	rfx_lids(sn, 1);
	assert_int_equal(run(sn, 1, 0, 1, &out, &why), 0);
	for (uint32_t p = 0; p < sn->n_ports; p++) {
		const struct subnet_port *sp = &sn->port[p];

		if (subnet_is_switch(sn, sp->node) || !sp->lid || sp->peer == SUBNET_NONE)
			continue;
		for (uint32_t s = 0; s < out.n_sw; s++) {
			const uint8_t *row = route_lft(&out, s);

			if (out.sw_node[s] == sn->port[sp->peer].node)
				continue; /* its own switch */
			total++;
			spread += row[sp->lid] != row[sp->lid + 1];
		}
	}
	route_out_free(&out);
	subnet_free(sn);
	return total ? (double)spread / total : 0;
}

/*
 * LMC: a port's LIDs take different paths where the fabric has them. On a
 * fat tree every leaf has a choice of spines for every other leaf's hosts;
 * on a torus fewer switches have a choice, and fitting routes into few
 * layers comes first.
 */
static void test_lmc_spread(void **state)
{
	(void)state;
	assert_true(lmc_spread("ft2-k8.topo") > 0.5);
	assert_true(lmc_spread("torus2d-4x4.topo") > 0.3);
}

static void test_refused(void **state)
{
	struct subnet *sn = rfx_load("torus2d-4x4.topo");
	struct route_out out;
	struct route_why why;

	(void)state;
	rfx_lids(sn, 0);
	assert_int_equal(run(sn, 0, 9, 1, &out, &why), -EINVAL);
	assert_non_null(strstr(why.msg, "1-8"));
	subnet_free(sn);
}

/*
 * Short of VLs: with one VL, a 3-level fat tree sends every CA LID to the
 * one-root escape (updn does it better), and vlayered refuses, saying so,
 * with the same words on one thread or two; with two VLs it routes, none on
 * the escape. A torus and a random graph with one VL send none there and are
 * routed (test_tori, test_detours).
 */
static void test_short_of_vls(void **state)
{
	struct subnet *sn = rfx_load("ft3-k4.topo");
	struct route_out out = { 0 };
	struct route_why why, why2;

	(void)state;
	rfx_lids(sn, 0);
	assert_int_equal(run(sn, 0, 1, 1, &out, &why), -EINVAL);
	assert_null(out.lft); /* untouched */
	assert_non_null(strstr(why.msg, "short of VLs: with 1 VL, over half the CA LIDs"));
	assert_non_null(strstr(why.msg, "updn"));
	assert_int_equal(run(sn, 0, 1, 2, &out, &why2), -EINVAL);
	assert_string_equal(why.msg, why2.msg);
	assert_int_equal(clean("ft3-k4", sn, 0, 2), 1);
	assert_int_equal(run(sn, 0, 2, 1, &out, &why), 0);
	assert_int_equal(out.stats.escape_lids, 0);
	route_out_free(&out);
	subnet_free(sn);
}

/* ---- the checker's per-VL graphs, on tables made by hand ---------------------- */

static uint8_t all_vl0(void *ctx, uint32_t node, uint8_t in, uint8_t out, uint8_t sl)
{
	(void)ctx, (void)node, (void)in, (void)out, (void)sl;
	return 0;
}

static uint8_t sl1_dropped(void *ctx, uint32_t node, uint8_t in, uint8_t out, uint8_t sl)
{
	(void)ctx, (void)node, (void)in, (void)out;
	return sl == 1 ? 15 : sl;
}

/* Ring position of the switch node is (its name is sN). */
static unsigned pos_of(const struct subnet *sn, uint32_t node)
{
	return (unsigned)atoi(subnet_str(sn, sn->node[node].name) + 1);
}

/*
 * A ring of four, every route clockwise: one VL has a credit loop. Routes
 * that go through s0 from s3 on to s1 take SL 1: neither SL then holds all
 * four turns of the ring, so both are acyclic.
 */
static void test_checker_per_vl(void **state)
{
	struct subnet *sn = ring(4);
	struct route_out out;
	struct route_why why;
	struct check_report rep;
	struct check_opts co = { 0 };
	struct diag d = { .limit = 20 };
	uint8_t *sl;

	(void)state;
	rfx_lids(sn, 0);
	/* minhop numbers the switches and sizes the tables; then overwrite them. */
	assert_int_equal(rfx_route_lmc("minhop", sn, 0, &out, &why), 0);
	sl = calloc((size_t)out.n_sw * (out.max_lid + 1u), 1);
	assert_non_null(sl);
	for (uint32_t p = 0; p < sn->n_ports; p++) {
		const struct subnet_port *sp = &sn->port[p];
		uint32_t at;

		if (!sp->lid || (subnet_is_switch(sn, sp->node) ? sp->num : !sp->num))
			continue;
		at = subnet_is_switch(sn, sp->node) ? sp->node : sn->port[sp->peer].node;
		for (uint32_t s = 0; s < out.n_sw; s++) {
			unsigned from = pos_of(sn, out.sw_node[s]), to = pos_of(sn, at);

			if (out.sw_node[s] != at)
				route_lft(&out, s)[sp->lid] = 2;
			else
				route_lft(&out, s)[sp->lid] = subnet_is_switch(sn, sp->node) ? 0 : 1;
			sl[s * (out.max_lid + 1u) + sp->lid] = to && to < from;
		}
	}
	assert_int_equal(check_routes(sn, &out, &co, &rep, &d), 0);
	assert_true(check_ok(&rep));
	assert_false(rep.cdg_acyclic);
	assert_int_equal(rep.vls_cyclic, 1);
	diag_free(&d);

	co.sl = sl;
	assert_int_equal(check_routes(sn, &out, &co, &rep, &d), 0);
	assert_true(check_ok(&rep));
	assert_true(rep.cdg_acyclic);
	assert_int_equal(rep.vls_used, 3);
	assert_int_equal(rep.vls_cyclic, 0);
	diag_free(&d);

	co.vl_of = all_vl0; /* the same SLs, all on one VL: the loop is back */
	assert_int_equal(check_routes(sn, &out, &co, &rep, &d), 0);
	assert_false(rep.cdg_acyclic);
	assert_int_equal(rep.vls_used, 1);
	assert_int_equal(rep.vls_cyclic, 1);
	diag_free(&d);

	co.vl_of = sl1_dropped; /* SL 1 on VL 15: those routes are dropped */
	assert_int_equal(check_routes(sn, &out, &co, &rep, &d), 0);
	assert_true(rep.unreachable > 0);
	assert_true(rep.cdg_acyclic);
	assert_int_equal(rep.vls_used, 1);
	diag_free(&d);

	free(sl);
	route_out_free(&out);
	subnet_free(sn);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ring),
		cmocka_unit_test(test_wide_switches),
		cmocka_unit_test(test_detours),
		cmocka_unit_test(test_switch_lids),
		cmocka_unit_test(test_tori),
		cmocka_unit_test(test_fat_trees),
		cmocka_unit_test(test_small_ones),
		cmocka_unit_test(test_node_order),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_lmc_spread),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_short_of_vls),
		cmocka_unit_test(test_checker_per_vl),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
