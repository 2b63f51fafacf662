/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for routing/: the engine registry, the min-hop engine and the
 * file engine. The engine's tables are judged by an independent walker
 * (route_fixture.c): from every switch (so from every CA, whose first hop
 * is its switch) to every LID, follow the LFTs hop by hop and require
 * arrival at the LID's port, no drop, no loop, and exactly as many hops as
 * the fixture's own BFS says is shortest.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "config/config.h"
#include "routing/lft_text.h"
#include "routing/route.h"
#include "model/subnet.h"
#include "tests/unit/route_fixture.h"

static void route(const struct subnet *sn, uint8_t lmc, struct route_out *out,
		  struct route_why *why)
{
	assert_int_equal(rfx_route_lmc("minhop", sn, lmc, out, why), 0);
}

/* The walker's own view of a LID-bearing port. */
static bool has_lids(const struct subnet *sn, uint32_t pi)
{
	const struct subnet_port *p = &sn->port[pi];

	return p->lid && (subnet_is_switch(sn, p->node) ? p->num == 0 : p->num != 0);
}

/*
 * Every (switch, LID) pair: reachable ones arrive in the fewest hops,
 * unreachable ones and LIDs nobody holds are ROUTE_DROP. Returns the number
 * of pairs walked.
 */
static uint64_t check_all(const struct subnet *sn, const struct route_out *out)
{
	uint32_t *dist = calloc(sn->n_nodes, sizeof(*dist));
	uint8_t *held = calloc((size_t)out->max_lid + 1, 1);
	uint64_t walked = 0;

	assert_non_null(dist);
	assert_non_null(held);
	for (uint32_t pi = 0; pi < sn->n_ports; pi++) {
		const struct subnet_port *p = &sn->port[pi];
		uint32_t at;

		if (!has_lids(sn, pi))
			continue;
		at = rfx_attach(sn, pi);
		if (at != SUBNET_NONE)
			rfx_bfs(sn, &at, 1, dist);
		for (uint32_t lid = p->lid; lid < p->lid + (1u << p->lmc); lid++) {
			assert_true(lid <= out->max_lid);
			held[lid] = 1;
			for (uint32_t s = 0; s < out->n_sw; s++) {
				uint32_t node = out->sw_node[s], end;

				if (at == SUBNET_NONE || dist[node] == RFX_INF) {
					assert_int_equal(route_lft(out, s)[lid], ROUTE_DROP);
					continue;
				}
				assert_int_equal(rfx_walk(sn, out, node, lid, NULL, NULL, &end),
						 dist[node]);
				assert_int_equal(end, pi);
				walked++;
			}
		}
	}
	for (uint32_t lid = 0; lid <= out->max_lid; lid++)
		for (uint32_t s = 0; s < out->n_sw && !held[lid]; s++)
			assert_int_equal(route_lft(out, s)[lid], ROUTE_DROP);
	free(dist);
	free(held);
	return walked;
}

static void check_fabric(struct subnet *sn, uint8_t lmc)
{
	struct route_out out;
	struct route_why why = { { 0 } };

	rfx_lids_in_order(sn, lmc);
	route(sn, lmc, &out, &why);
	assert_int_equal(out.stats.unreach, 0);
	assert_int_equal(out.stats.unreach_lids, 0);
	assert_non_null(strstr(why.msg, "routed"));
	assert_true(check_all(sn, &out) > 0);
	assert_int_equal(out.stats.routes, (uint64_t)out.n_sw * out.stats.dest_lids);
	route_out_free(&out);
}

static void check_file(const char *name)
{
	for (uint8_t lmc = 0; lmc <= 2; lmc += 2) {
		struct subnet *sn = rfx_load(name);

		check_fabric(sn, lmc);
		subnet_free(sn);
	}
}

static void test_ft2_k8(void **state)
{
	(void)state;
	check_file("ft2-k8.topo");
}

static void test_ft3_k4(void **state)
{
	(void)state;
	check_file("ft3-k4.topo");
}

static void test_ft2_degraded(void **state)
{
	(void)state;
	check_file("ft2-k8-degraded.topo");
}

static void test_torus(void **state)
{
	(void)state;
	check_file("torus2d-4x4.topo");
}

static void test_loop(void **state)
{
	(void)state;
	check_file("loop.topo");
}

static void test_parallel(void **state)
{
	(void)state;
	check_file("parallel.topo");
}

static void test_2sw2path(void **state)
{
	(void)state;
	check_file("2sw2path.topo");
}

static void test_single(void **state)
{
	(void)state;
	check_file("single-switch.topo");
}

/* ibsim's own example, read as ibsim ships it. */
static void test_ibsim_example(void **state)
{
	const char *path = "/usr/share/doc/ibsim-utils/net-examples/net.2sw2path4hca";

	(void)state;
	if (access(path, R_OK))
		skip();
	for (uint8_t lmc = 0; lmc <= 2; lmc += 2) {
		struct subnet *sn = rfx_load_path(path);

		check_fabric(sn, lmc);
		subnet_free(sn);
	}
}

/* On ft2-k8 every leaf's uplinks carry the same number of routes, +-1. */
static void test_ft2_balance(void **state)
{
	(void)state;
	for (uint8_t lmc = 0; lmc <= 2; lmc += 2) {
		struct subnet *sn = rfx_load("ft2-k8.topo");
		struct route_out out;
		unsigned leaves = 0;

		rfx_lids_in_order(sn, lmc);
		route(sn, lmc, &out, NULL);
		for (uint32_t s = 0; s < out.n_sw; s++) {
			uint32_t node = out.sw_node[s], cnt[256] = { 0 }, lo = UINT32_MAX, hi = 0;
			const uint8_t *lft = route_lft(&out, s);

			if (!rfx_has_ca(sn, node))
				continue;
			leaves++;
			for (uint32_t lid = 0; lid <= out.max_lid; lid++)
				cnt[lft[lid]]++;
			for (unsigned p = 1; p <= sn->node[node].nports; p++) {
				uint32_t peer = sn->port[subnet_port_idx(sn, node, p)].peer;

				if (peer == SUBNET_NONE || !subnet_is_switch(sn, sn->port[peer].node))
					continue;
				lo = cnt[p] < lo ? cnt[p] : lo;
				hi = cnt[p] > hi ? cnt[p] : hi;
			}
			assert_true(hi > 0);
			assert_true(hi - lo <= 1);
		}
		assert_int_equal(leaves, 8);
		route_out_free(&out);
		subnet_free(sn);
	}
}

/* LMC 2: the 4 LIDs of a remote host leave a leaf by 4 different uplinks. */
static void test_lmc_spread(void **state)
{
	(void)state;
	rfx_ft2_lmc_spread("minhop", rfx_lids_in_order);
}

/* Parallel links are all candidates: routes between the two switches use every one. */
static void test_parallel_links_used(void **state)
{
	struct subnet *sn = rfx_load("parallel.topo");
	struct route_out out;

	(void)state;
	rfx_lids_in_order(sn, 0);
	route(sn, 0, &out, NULL);
	assert_int_equal(out.n_sw, 2);
	for (uint32_t s = 0; s < 2; s++) {
		uint32_t node = out.sw_node[s], used = 0, links = 0;
		const uint8_t *lft = route_lft(&out, s);

		for (unsigned p = 1; p <= sn->node[node].nports; p++) {
			uint32_t peer = sn->port[subnet_port_idx(sn, node, p)].peer;

			links += peer != SUBNET_NONE && subnet_is_switch(sn, sn->port[peer].node);
		}
		for (uint32_t lid = 1; lid <= out.max_lid; lid++) {
			uint8_t e = lft[lid];
			uint32_t peer;

			if (e == 0 || e == ROUTE_DROP)
				continue;
			peer = sn->port[subnet_port_idx(sn, node, e)].peer;
			if (subnet_is_switch(sn, sn->port[peer].node))
				used |= 1u << e;
		}
		assert_int_equal(links, 4);
		/* 3 remote LIDs (2 hosts + switch) over 4 links: 3 distinct ports. */
		assert_int_equal(__builtin_popcount(used), 3);
	}
	route_out_free(&out);
	subnet_free(sn);
}

static void test_deterministic(void **state)
{
	struct subnet *sn = rfx_load("ft3-k4.topo");
	struct route_out a, b;

	(void)state;
	rfx_lids_in_order(sn, 2);
	route(sn, 2, &a, NULL);
	route(sn, 2, &b, NULL);
	assert_int_equal(a.n_sw, b.n_sw);
	assert_int_equal(a.max_lid, b.max_lid);
	assert_memory_equal(a.lft, b.lft, (size_t)a.n_sw * (a.max_lid + 1));
	route_out_free(&a);
	route_out_free(&b);
	subnet_free(sn);
}

/* Two pieces: each switch reaches only its own half; counted, not an error. */
static void test_disconnected(void **state)
{
	struct subnet *sn = rfx_read("Switch 4 \"s1\"\n[1] \"h1\"[1]\n"
				     "Switch 4 \"s2\"\n[1] \"h2\"[1]\n"
				     "Hca 2 \"h1\"\n[1] \"s1\"[1]\n"
				     "Hca 1 \"h2\"\n[1] \"s2\"[1]\n");
	struct route_why why = { { 0 } };
	struct route_out out;

	(void)state;
	rfx_lids_in_order(sn, 0);
	/* h1's port 2 has a LID but no link: no switch reaches it. */
	sn->port[subnet_port_idx(sn, subnet_find_name(sn, "h1"), 2)].lid = 9;
	route(sn, 0, &out, &why);
	assert_int_equal(out.stats.dest_lids, 5);
	assert_int_equal(out.stats.unreach_lids, 5);
	assert_int_equal(out.stats.unreach, 4 + 2);
	assert_int_equal(out.stats.routes, 4);
	assert_non_null(strstr(why.msg, "5 of 5 LIDs cannot be reached"));
	check_all(sn, &out);
	route_out_free(&out);
	subnet_free(sn);
}

/* A model the engine cannot route: -EINVAL, a reason, and *out untouched. */
static void route_bad(struct subnet *sn, uint8_t lmc, const char *want)
{
	struct route_why why;
	struct route_out out, zero;

	memset(&zero, 0, sizeof(zero));
	assert_int_equal(rfx_route_lmc("minhop", sn, lmc, &out, &why), -EINVAL);
	assert_memory_equal(&out, &zero, sizeof(out));
	if (!strstr(why.msg, want))
		fail_msg("why: \"%s\", want \"%s\"", why.msg, want);
}

static void test_refused(void **state)
{
	struct subnet *sn = rfx_load("single-switch.topo");
	struct subnet_port *sw0 = NULL, *ca = NULL;

	(void)state;
	route_bad(sn, 0, "no port has a LID");
	rfx_lids_in_order(sn, 0);
	for (uint32_t i = 0; i < sn->n_ports; i++) {
		if (!has_lids(sn, i))
			continue;
		if (subnet_is_switch(sn, sn->port[i].node))
			sw0 = &sn->port[i];
		else
			ca = &sn->port[i];
	}
	assert_non_null(sw0);
	assert_non_null(ca);
	ca->lid = sw0->lid;
	route_bad(sn, 0, "is held by both");
	ca->lid = 8;
	ca->lmc = 2;
	route_bad(sn, 0, "has LMC 2, more than the 0");
	ca->lid = 6;
	route_bad(sn, 2, "not a multiple of 2^LMC");
	ca->lid = 0xc000;
	route_bad(sn, 2, "leave the unicast range");
	subnet_free(sn);
}

/*
 * The file engine: minhop's tables written as dump_lfts text come back
 * entry for entry; the same text without one switch's table leaves that
 * switch dropping every LID, counted and said, never filled in.
 */
static void test_file_engine(void **state)
{
	const struct route_engine *file = route_engine_find("file");
	struct subnet *sn = rfx_load("ft2-k8.topo");
	struct lft_text_opts po = LFT_TEXT_DUMP_LFTS;
	struct route_why why = { { 0 } };
	struct route_out a, b;
	char path[] = "/tmp/loom-file-engine.XXXXXX", *text = NULL, *cut, *next;
	size_t len = 0;
	FILE *f;
	int fd;

	(void)state;
	assert_non_null(file);
	rfx_lids_in_order(sn, 0);
	route(sn, 0, &a, NULL);
	f = open_memstream(&text, &len);
	assert_non_null(f);
	assert_int_equal(lft_text_print(f, sn, &a, &po), 0);
	fclose(f);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, len), (ssize_t)len);
	close(fd);

	memset(&b, 0, sizeof(b));
	assert_int_equal(file->route(sn, &(struct route_opts){ .file = path }, &b, &why), 0);
	assert_int_equal(b.n_sw, a.n_sw);
	assert_int_equal(b.max_lid, a.max_lid);
	assert_memory_equal(b.lft, a.lft, (size_t)a.n_sw * (a.max_lid + 1));
	assert_int_equal(b.stats.unreach, 0);
	assert_non_null(strstr(why.msg, "loaded 12 switches' tables"));
	route_out_free(&b);

	/* Drop the first switch's table (up to the next "Unicast lids" line). */
	cut = strstr(text, "Unicast lids");
	next = cut ? strstr(cut + 1, "Unicast lids") : NULL;
	assert_non_null(next);
	f = fopen(path, "w");
	assert_non_null(f);
	fwrite(text, 1, (size_t)(cut - text), f);
	fputs(next, f);
	fclose(f);
	memset(&b, 0, sizeof(b));
	assert_int_equal(file->route(sn, &(struct route_opts){ .file = path }, &b, &why), 0);
	assert_int_equal(b.stats.unreach_lids, b.stats.dest_lids);
	assert_int_equal(b.stats.unreach, b.stats.dest_lids);
	assert_non_null(strstr(why.msg, "are not routed from every switch"));
	route_out_free(&b);

	/* No file: refused, with what to give it. */
	memset(&b, 0, sizeof(b));
	assert_int_equal(file->route(sn, &(struct route_opts){ 0 }, &b, &why), -EINVAL);
	assert_non_null(strstr(why.msg, "needs a dump_lfts file"));

	unlink(path);
	free(text);
	route_out_free(&a);
	subnet_free(sn);
}

static void test_registry(void **state)
{
	const struct route_engine *const *list;
	size_t n = 0;

	(void)state;
	list = route_engine_list(&n);
	assert_true(n >= 1);
	for (size_t i = 0; i < n; i++)
		assert_ptr_equal(route_engine_find(list[i]->name), list[i]);
	assert_string_equal(route_engine_find("minhop")->name, "minhop");
	assert_null(route_engine_find("nope"));
	assert_null(route_engine_find(""));
	/* One list of names: the registry is loom.yaml's, engine for engine, in order. */
	assert_int_equal(n, _CONFIG_ENGINE_MAX);
	for (size_t i = 0; i < n; i++) {
		assert_non_null(list[i]);
		assert_string_equal(list[i]->name, config_engine_name((enum config_engine)i));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_registry),
		cmocka_unit_test(test_ft2_k8),
		cmocka_unit_test(test_ft3_k4),
		cmocka_unit_test(test_ft2_degraded),
		cmocka_unit_test(test_torus),
		cmocka_unit_test(test_loop),
		cmocka_unit_test(test_parallel),
		cmocka_unit_test(test_2sw2path),
		cmocka_unit_test(test_single),
		cmocka_unit_test(test_ibsim_example),
		cmocka_unit_test(test_ft2_balance),
		cmocka_unit_test(test_lmc_spread),
		cmocka_unit_test(test_parallel_links_used),
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_disconnected),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_file_engine),
	};

	return cmocka_run_group_tests_name("routing", tests, NULL, NULL);
}
