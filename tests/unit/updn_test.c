/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for the up/down engine (routing/updn.c). LIDs come from the LID
 * manager (lid_assign, GUID order), and the tables are judged by the route
 * checker (routing/check.h), which follows the LFTs and knows nothing of how
 * they were made: every host pair delivered, no loop, every switch reaches
 * every switch LID, and no cycle in the channel dependency graph (one VL).
 * Min-hop fails that last test on a torus, which shows the test can fail.
 */
#include <dirent.h>
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
#include "routing/check.h"
#include "routing/route.h"
#include "model/subnet.h"
#include "tests/unit/route_fixture.h"

static int run(const char *engine, const struct subnet *sn, uint8_t lmc, const uint64_t *roots,
	       uint32_t n_roots, struct route_out *out, struct route_why *why)
{
	struct route_opts o = { .lmc = lmc, .roots = roots, .n_roots = n_roots };

	return rfx_route(engine, sn, &o, out, why);
}

/* updn on sn: every pair, no loop, every switch LID, no credit loop. */
static void updn_clean(const char *tag, struct subnet *sn, uint8_t lmc)
{
	struct route_out out;
	struct route_why why;
	struct check_report rep;

	rfx_lids(sn, lmc);
	assert_int_equal(run("updn", sn, lmc, NULL, 0, &out, &why), 0);
	rfx_judge(sn, &out, &rep, true);
	if (!check_ok(&rep) || !rep.cdg_acyclic || out.stats.unreach)
		fail_msg("%s lmc %u: unreachable %llu, loops %llu, switch LIDs bad %llu, "
			 "acyclic %d; why: %s", tag, lmc, (unsigned long long)rep.unreachable,
			 (unsigned long long)rep.loops, (unsigned long long)rep.sw_bad,
			 rep.cdg_acyclic, why.msg);
	assert_true(rep.delivered == rep.pairs);
	assert_non_null(strstr(why.msg, "routed"));
	assert_null(strstr(why.msg, "NOT deadlock-free"));
	assert_int_equal(out.stats.routes, (uint64_t)out.n_sw * out.stats.dest_lids);
	route_out_free(&out);
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every bundled topology but the duplicate-GUID one, LMC 0 and 1. */
static void test_every_topology(void **state)
{
	char *names[64];
	size_t n = 0;
	DIR *dir;
	struct dirent *de;

	(void)state;
	dir = opendir(rfx_topo_path(""));
	assert_non_null(dir);
	while ((de = readdir(dir)) && n < 64) {
		size_t len = strlen(de->d_name);

		if (len < 6 || strcmp(de->d_name + len - 5, ".topo") ||
		    !strncmp(de->d_name, "dupguid", 7))
			continue;
		names[n++] = strdup(de->d_name);
	}
	closedir(dir);
	qsort(names, n, sizeof(*names), name_cmp);
	assert_true(n >= 11);
	for (size_t i = 0; i < n; i++) {
		for (uint8_t lmc = 0; lmc <= 1; lmc++) {
			struct subnet *sn = rfx_load(names[i]);

			updn_clean(names[i], sn, lmc);
			subnet_free(sn);
		}
		free(names[i]);
	}
}

/* The credit-loop test can fail: min-hop has credit loops on tori, updn none. */
static void test_minhop_torus_has_credit_loops(void **state)
{
	const char *tori[] = { "torus2d-4x4.topo", "torus3d-3x3x3.topo" };

	(void)state;
	for (size_t i = 0; i < 2; i++) {
		struct subnet *sn = rfx_load(tori[i]);
		struct route_out out;
		struct route_why why;
		struct check_report rep;

		rfx_lids(sn, 0);
		assert_int_equal(run("minhop", sn, 0, NULL, 0, &out, &why), 0);
		rfx_judge(sn, &out, &rep, false);
		assert_true(check_ok(&rep));
		assert_false(rep.cdg_acyclic);
		route_out_free(&out);
		assert_int_equal(run("updn", sn, 0, NULL, 0, &out, &why), 0);
		rfx_judge(sn, &out, &rep, true);
		assert_true(check_ok(&rep));
		assert_true(rep.cdg_acyclic);
		route_out_free(&out);
		subnet_free(sn);
	}
}

static bool same_tables(const struct route_out *a, const struct route_out *b)
{
	return a->n_sw == b->n_sw && a->max_lid == b->max_lid &&
	       !memcmp(a->lft, b->lft, (size_t)a->n_sw * (a->max_lid + 1));
}

/* GUIDs of the switches whose name starts with prefix. */
static uint32_t guids_named(const struct subnet *sn, const char *prefix, uint64_t *g)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < sn->n_nodes; i++)
		if (subnet_is_switch(sn, i) &&
		    !strncmp(subnet_str(sn, sn->node[i].name), prefix, strlen(prefix)))
			g[n++] = sn->node[i].guid;
	return n;
}

/*
 * On fat trees the roots found are the top switches: the tables equal those
 * routed with the spines (cores) given as roots, and differ from those with
 * a leaf as the root (so the comparison can fail).
 */
static void fat_tree_roots(const char *file, const char *top, uint32_t want)
{
	struct subnet *sn = rfx_load(file);
	struct route_out a, b;
	struct route_why why;
	struct check_report rep;
	uint64_t g[64];
	uint32_t n = guids_named(sn, top, g);
	char says[64];

	assert_int_equal(n, want);
	rfx_lids(sn, 0);
	assert_int_equal(run("updn", sn, 0, NULL, 0, &a, &why), 0);
	snprintf(says, sizeof(says), "roots: %u found", want);
	if (!strstr(why.msg, says))
		fail_msg("%s: why \"%s\", want \"%s\"", file, why.msg, says);
	assert_int_equal(run("updn", sn, 0, g, n, &b, &why), 0);
	snprintf(says, sizeof(says), "roots: %u given", want);
	assert_non_null(strstr(why.msg, says));
	assert_true(same_tables(&a, &b));
	route_out_free(&b);
	assert_int_equal(guids_named(sn, "leaf001", g) + guids_named(sn, "p01leaf01", g), 1);
	assert_int_equal(run("updn", sn, 0, g, 1, &b, &why), 0);
	assert_false(same_tables(&a, &b));
	rfx_judge(sn, &b, &rep, true);
	assert_true(check_ok(&rep) && rep.cdg_acyclic); /* any root is deadlock-free */
	/* Every route is a shortest one on a fat tree with its top as roots. */
	rfx_judge(sn, &a, &rep, true);
	assert_int_equal(rep.extra_max, 0);
	route_out_free(&a);
	route_out_free(&b);
	subnet_free(sn);
}

static void test_fat_tree_roots(void **state)
{
	(void)state;
	fat_tree_roots("ft2-k8.topo", "spine", 4);
	fat_tree_roots("ft3-k4.topo", "core", 4);
	fat_tree_roots("ft2-k8-degraded.topo", "spine", 4);
}

/* Nothing depends on the model's node order: switch by switch, equal tables. */
static void test_node_order(void **state)
{
	const char *files[] = { "ft3-k4.topo", "ft2-k8-degraded.topo", "torus2d-4x4.topo",
				"random-16-d4.topo", "dragonfly-small.topo", "torus3d-3x3x3.topo" };

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		char *text = rfx_reversed(files[i]);
		struct subnet *a = rfx_load(files[i]), *b = rfx_read(text);
		struct route_out ra, rb;
		struct route_why why;
		uint32_t first_a = SUBNET_NONE, first_b = SUBNET_NONE;

		for (uint8_t lmc = 0; lmc <= 2; lmc += 2) {
			rfx_lids(a, lmc);
			rfx_lids(b, lmc);
			assert_int_equal(run("updn", a, lmc, NULL, 0, &ra, &why), 0);
			assert_int_equal(run("updn", b, lmc, NULL, 0, &rb, &why), 0);
			rfx_same_rows(a, &ra, b, &rb);
			route_out_free(&ra);
			route_out_free(&rb);
		}
		/* ... and the order really was different. */
		for (uint32_t n = 0; n < a->n_nodes && first_a == SUBNET_NONE; n++)
			if (subnet_is_switch(a, n))
				first_a = n;
		for (uint32_t n = 0; n < b->n_nodes && first_b == SUBNET_NONE; n++)
			if (subnet_is_switch(b, n))
				first_b = n;
		assert_int_not_equal(a->node[first_a].guid, b->node[first_b].guid);
		subnet_free(a);
		subnet_free(b);
		free(text);
	}
}

/* The test's own up/down judge, one route at a time. */
struct updown {
	const struct subnet *sn;
	const uint32_t *rank;
	bool down, bad;
};

/* A hop goes up when it reaches a switch of lower (rank, GUID); up after down is illegal. */
static bool updown_hop(void *ctx, uint32_t cur, uint32_t next)
{
	struct updown *u = ctx;
	const struct subnet *sn = u->sn;
	bool up = u->rank[next] != u->rank[cur] ? u->rank[next] < u->rank[cur] :
		  sn->node[next].guid < sn->node[cur].guid;

	if (up && u->down) {
		u->bad = true;
		return false;
	}
	u->down = !up;
	return true;
}

/*
 * Ranks by BFS from the given roots; walks every host to every host LID and
 * counts the routes that go up after going down.
 */
static uint64_t illegal_routes(const struct subnet *sn, const struct route_out *out,
			       const uint64_t *roots, uint32_t n_roots)
{
	uint32_t *rank = malloc(sn->n_nodes * sizeof(*rank));
	uint32_t *from = malloc(sn->n_nodes * sizeof(*from));
	uint32_t n_from = 0;
	uint64_t bad = 0, walked = 0;

	assert_non_null(rank);
	assert_non_null(from);
	for (uint32_t i = 0; i < sn->n_nodes; i++)
		for (uint32_t r = 0; r < n_roots && subnet_is_switch(sn, i); r++)
			if (sn->node[i].guid == roots[r]) {
				from[n_from++] = i;
				break;
			}
	rfx_bfs(sn, from, n_from, rank);
	for (uint32_t src = 0; src < sn->n_ports; src++) {
		const struct subnet_port *s = &sn->port[src];

		if (!s->lid || subnet_is_switch(sn, s->node) || s->peer == SUBNET_NONE)
			continue;
		for (uint32_t dst = 0; dst < sn->n_ports; dst++) {
			const struct subnet_port *d = &sn->port[dst];
			struct updown u = { .sn = sn, .rank = rank };
			uint32_t end;

			if (dst == src || !d->lid || subnet_is_switch(sn, d->node))
				continue;
			walked++;
			rfx_walk(sn, out, sn->port[s->peer].node, d->lid, updown_hop, &u, &end);
			assert_true(u.bad || end == dst);
			bad += u.bad;
		}
	}
	assert_true(walked > 0);
	free(rank);
	free(from);
	return bad;
}

/* Given roots, every host route is up then down, by the test's own ranks. */
static void test_routes_are_up_then_down(void **state)
{
	const char *files[][2] = { { "torus2d-4x4.topo", "sw-2-1" },
				   { "torus3d-3x3x3.topo", "sw-0-0-0" },
				   { "random-16-d4.topo", "sw0007" },
				   { "dragonfly-small.topo", "g03r02" },
				   { "loop.topo", "sw3" },
				   { "ft3-k4.topo", "core" },
				   { "ft2-k8-degraded.topo", "spine" } };

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		struct subnet *sn = rfx_load(files[i][0]);
		struct route_out out;
		struct route_why why;
		uint64_t g[64];
		uint32_t n = guids_named(sn, files[i][1], g);

		assert_true(n > 0);
		rfx_lids(sn, 1);
		assert_int_equal(run("updn", sn, 1, g, n, &out, &why), 0);
		assert_int_equal(illegal_routes(sn, &out, g, n), 0);
		route_out_free(&out);
		subnet_free(sn);
	}
}

/*
 * A switch whose own best route goes up (y: y -> w -> d) but that the only
 * way down from another root (r2) runs through: y must go down (y -> z1 ->
 * z2 -> d) for r2's routes to stay legal. GUIDs in file order: r < w < y <
 * z1 < z2 < d < r2, roots r and r2; ranks r, r2 0; w, y 1; z1, z2, d 2.
 */
static void test_forced_down(void **state)
{
	static const char text[] =
		"Switch 4 \"r\"\n[1] \"w\"[1]\n[2] \"y\"[1]\n\n"
		"Switch 4 \"w\"\n[1] \"r\"[1]\n[2] \"y\"[2]\n[3] \"d\"[1]\n[4] \"z2\"[4]\n\n"
		"Switch 4 \"y\"\n[1] \"r\"[2]\n[2] \"w\"[2]\n[3] \"z1\"[1]\n[4] \"r2\"[1]\n\n"
		"Switch 4 \"z1\"\n[1] \"y\"[3]\n[2] \"z2\"[1]\n\n"
		"Switch 4 \"z2\"\n[1] \"z1\"[2]\n[2] \"d\"[2]\n[4] \"w\"[4]\n\n"
		"Switch 4 \"d\"\n[1] \"w\"[3]\n[2] \"z2\"[2]\n[3] \"hd\"[1]\n\n"
		"Switch 4 \"r2\"\n[1] \"y\"[4]\n[2] \"hr\"[1]\n\n"
		"Hca 1 \"hd\"\n[1] \"d\"[3]\n\nHca 1 \"hr\"\n[1] \"r2\"[2]\n";
	struct subnet *sn = rfx_read(text);
	uint32_t y = subnet_find_name(sn, "y"), d = subnet_find_name(sn, "hd");
	struct route_out out;
	struct route_why why;
	struct check_report rep;
	uint64_t g[2];

	(void)state;
	g[0] = sn->node[subnet_find_name(sn, "r")].guid;
	g[1] = sn->node[subnet_find_name(sn, "r2")].guid;
	rfx_lids(sn, 0);
	assert_int_equal(run("updn", sn, 0, g, 2, &out, &why), 0);
	rfx_judge(sn, &out, &rep, true);
	assert_true(check_ok(&rep) && rep.cdg_acyclic);
	assert_int_equal(illegal_routes(sn, &out, g, 2), 0);
	/* y goes down to z1 (its port 3) for hd, not up to w. */
	assert_int_equal(route_lft(&out, out.sw_index[y])[sn->port[subnet_port_idx(sn, d, 1)].lid], 3);
	route_out_free(&out);
	subnet_free(sn);
}

/* LMC 2 on ft2-k8: a remote host's 4 LIDs leave every leaf by 4 different uplinks. */
static void test_lmc_spread(void **state)
{
	(void)state;
	rfx_ft2_lmc_spread("updn", rfx_lids);
}

static void test_deterministic(void **state)
{
	struct subnet *sn = rfx_load("random-16-d4.topo");
	struct route_out a, b;
	struct route_why why;

	(void)state;
	rfx_lids(sn, 2);
	assert_int_equal(run("updn", sn, 2, NULL, 0, &a, &why), 0);
	assert_int_equal(run("updn", sn, 2, NULL, 0, &b, &why), 0);
	assert_true(same_tables(&a, &b));
	route_out_free(&a);
	route_out_free(&b);
	subnet_free(sn);
}

/* Two pieces: each gets its own root; the other piece's LIDs are counted, not an error. */
static void test_pieces(void **state)
{
	static const char text[] =
		"Switch 4 \"a1\"\n[1] \"ha\"[1]\n[2] \"a2\"[2]\n[3] \"a3\"[3]\n\n"
		"Switch 4 \"a2\"\n[2] \"a1\"[2]\n[3] \"a3\"[2]\n\n"
		"Switch 4 \"a3\"\n[2] \"a2\"[3]\n[3] \"a1\"[3]\n\n"
		"Switch 4 \"b1\"\n[1] \"hb\"[1]\n[2] \"b2\"[1]\n\n"
		"Switch 4 \"b2\"\n[1] \"b1\"[2]\n\n"
		"Hca 1 \"ha\"\n[1] \"a1\"[1]\n\nHca 1 \"hb\"\n[1] \"b1\"[1]\n";
	struct subnet *sn = rfx_read(text);
	struct route_out out;
	struct route_why why;
	struct check_report rep;

	(void)state;
	rfx_lids(sn, 0);
	assert_int_equal(run("updn", sn, 0, NULL, 0, &out, &why), 0);
	/* 7 LIDs (5 switches, 2 hosts); each is dropped by the other piece. */
	assert_int_equal(out.stats.dest_lids, 7);
	assert_int_equal(out.stats.unreach_lids, 7);
	assert_int_equal(out.stats.unreach, 4 * 2 + 3 * 3);
	assert_int_equal(out.stats.routes, 4 * 3 + 3 * 2);
	if (!strstr(why.msg, "7 of 7 LIDs cannot be reached") || !strstr(why.msg, "pieces"))
		fail_msg("why: %s", why.msg);
	rfx_judge(sn, &out, &rep, false);
	assert_int_equal(rep.pairs, 2);
	assert_int_equal(rep.unreachable, 2);
	assert_int_equal(rep.loops, 0);
	assert_true(rep.cdg_acyclic);
	/* Within a piece every switch reaches every switch LID. */
	assert_int_equal(rep.sw_bad, 5 * 5 - (3 * 3 + 2 * 2));
	route_out_free(&out);
	subnet_free(sn);
}

/*
 * l1 - s1 - m - s2 - l2, hosts on l1, m, l2: s1 and s2 are the highest
 * switches, but l1 reaches only s1 and l2 only s2, so those two roots would
 * leave l1 -> l2 without a legal route. No bridge helps (m has no upper
 * neighbour), so a switch moves in the up order (updn_reorder.c) and every
 * host pair has an up/down route again. Given as roots (no repair), the
 * hosts' traffic has to leave up/down, and why says so.
 */
static void test_roots_that_do_not_cover(void **state)
{
	static const char text[] =
		"Switch 4 \"l1\"\n[1] \"h1\"[1]\n[2] \"s1\"[1]\n\n"
		"Switch 4 \"s1\"\n[1] \"l1\"[2]\n[2] \"m\"[2]\n\n"
		"Switch 4 \"m\"\n[1] \"hm\"[1]\n[2] \"s1\"[2]\n[3] \"s2\"[2]\n\n"
		"Switch 4 \"s2\"\n[1] \"l2\"[2]\n[2] \"m\"[3]\n\n"
		"Switch 4 \"l2\"\n[1] \"h2\"[1]\n[2] \"s2\"[1]\n\n"
		"Hca 1 \"h1\"\n[1] \"l1\"[1]\n\nHca 1 \"hm\"\n[1] \"m\"[1]\n\n"
		"Hca 1 \"h2\"\n[1] \"l2\"[1]\n";
	struct subnet *sn = rfx_read(text);
	struct route_out out;
	struct route_why why;
	struct check_report rep;
	uint64_t g[2];

	(void)state;
	rfx_lids(sn, 0);
	assert_int_equal(run("updn", sn, 0, NULL, 0, &out, &why), 0);
	if (!strstr(why.msg, "roots: 2 found") ||
	    !strstr(why.msg, "1 moved in the up order so that every two host switches share"))
		fail_msg("why: %s", why.msg);
	rfx_judge(sn, &out, &rep, true);
	assert_true(check_ok(&rep) && rep.cdg_acyclic);
	route_out_free(&out);

	g[0] = sn->node[subnet_find_name(sn, "s1")].guid;
	g[1] = sn->node[subnet_find_name(sn, "s2")].guid;
	assert_int_equal(run("updn", sn, 0, g, 2, &out, &why), 0);
	if (!strstr(why.msg, "NOT deadlock-free") || !strstr(why.msg, "2 given"))
		fail_msg("why: %s", why.msg);
	rfx_judge(sn, &out, &rep, true);
	assert_true(check_ok(&rep)); /* delivered, by paths outside up/down */
	route_out_free(&out);
	subnet_free(sn);
}

/* Given roots: a GUID of no node is skipped, a CA's GUID refused. */
static void test_given_roots(void **state)
{
	struct subnet *sn = rfx_load("torus2d-4x4.topo");
	uint32_t sw = subnet_find_name(sn, "sw-1-1"), h = SUBNET_NONE;
	struct route_out out, zero;
	struct route_why why;
	struct check_report rep;
	uint64_t g[2];

	(void)state;
	assert_int_not_equal(sw, SUBNET_NONE);
	for (uint32_t i = 0; i < sn->n_nodes && h == SUBNET_NONE; i++)
		if (!subnet_is_switch(sn, i))
			h = i;
	rfx_lids(sn, 0);
	g[0] = sn->node[sw].guid;
	g[1] = 0x1234; /* nobody's */
	assert_int_equal(run("updn", sn, 0, g, 2, &out, &why), 0);
	if (!strstr(why.msg, "roots: 1 given") || !strstr(why.msg, "1 given root GUIDs are not"))
		fail_msg("why: %s", why.msg);
	rfx_judge(sn, &out, &rep, true);
	assert_true(check_ok(&rep) && rep.cdg_acyclic);
	route_out_free(&out);

	g[1] = sn->node[h].guid;
	memset(&zero, 0, sizeof(zero));
	assert_int_equal(run("updn", sn, 0, g, 2, &out, &why), -EINVAL);
	assert_memory_equal(&out, &zero, sizeof(out));
	if (!strstr(why.msg, "not a switch"))
		fail_msg("why: %s", why.msg);
	subnet_free(sn);
}

/* With several roots a spine cannot reach another legally: shortest path, said. */
static void test_switch_to_switch(void **state)
{
	struct subnet *sn = rfx_load("ft2-k8.topo");
	struct route_out out;
	struct route_why why;
	struct check_report rep;

	(void)state;
	rfx_lids(sn, 0);
	assert_int_equal(run("updn", sn, 0, NULL, 0, &out, &why), 0);
	/* 4 spines x 3 other spines' LIDs. */
	if (!strstr(why.msg, "; 12 (switch, LID) entries have no up/down route"))
		fail_msg("why: %s", why.msg);
	rfx_judge(sn, &out, &rep, true);
	assert_int_equal(rep.sw_bad, 0);
	assert_int_equal(rep.sw_pairs, 12 * 12);
	route_out_free(&out);
	subnet_free(sn);
}

static void test_refused(void **state)
{
	struct subnet *sn = rfx_load("single-switch.topo");
	struct route_out out;
	struct route_why why;

	(void)state;
	assert_int_equal(run("updn", sn, 0, NULL, 0, &out, &why), -EINVAL);
	assert_non_null(strstr(why.msg, "no port has a LID"));
	subnet_free(sn);
	assert_non_null(route_engine_find("updn"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_topology),
		cmocka_unit_test(test_minhop_torus_has_credit_loops),
		cmocka_unit_test(test_fat_tree_roots),
		cmocka_unit_test(test_node_order),
		cmocka_unit_test(test_lmc_spread),
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_pieces),
		cmocka_unit_test(test_roots_that_do_not_cover),
		cmocka_unit_test(test_given_roots),
		cmocka_unit_test(test_switch_to_switch),
		cmocka_unit_test(test_routes_are_up_then_down),
		cmocka_unit_test(test_forced_down),
		cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests_name("updn", tests, NULL, NULL);
}
