/* SPDX-License-Identifier: MIT */
/*
 * loom health's routes judge (fabric/health_routes.c) on tables an engine
 * made (route_fixture: min-hop on a bundled topology), as if read back from
 * the switches: clean tables give no finding; a dropped entry, a lowered
 * LinearFDBTop, a switch that did not answer and a credit loop each give
 * theirs, named on the right switch. It also pins the checker's messages
 * the judge reads the switch and LID from.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fabric/health.h"
#include "route_fixture.h"

struct rx {
	struct subnet *sn;
	struct disc_live live;
	struct health_lft lft;
	struct health_findings fs;
};

/* name routed by min-hop; every switch's top at the highest LID; links run op_vls. */
static void rx_init(struct rx *x, const char *name, uint8_t op_vls)
{
	x->sn = rfx_minhop(name, 0, &x->lft.ro);
	x->lft.status = calloc(x->lft.ro.n_sw, sizeof(*x->lft.status));
	x->live.node = calloc(x->sn->n_nodes, sizeof(*x->live.node));
	x->live.port = calloc(x->sn->n_ports, sizeof(*x->live.port));
	assert_non_null(x->lft.status);
	assert_non_null(x->live.node);
	assert_non_null(x->live.port);
	for (uint32_t n = 0; n < x->sn->n_nodes; n++)
		x->live.node[n].si.lin_top = x->lft.ro.max_lid;
	for (uint32_t p = 0; p < x->sn->n_ports; p++) {
		x->live.port[p].have_pi = true;
		x->live.port[p].pi.op_vls = op_vls;
	}
}

static void rx_free(struct rx *x)
{
	health_findings_free(&x->fs);
	health_lft_free(&x->lft);
	disc_live_free(&x->live);
	subnet_free(x->sn);
}

static void judge(struct rx *x)
{
	struct health_input in = { .sn = x->sn, .live = &x->live, .lft = &x->lft };

	health_findings_free(&x->fs);
	health_routes_judge(&in, &x->fs);
	assert_int_equal(x->fs.err, 0);
	health_findings_sort(&x->fs);
}

static uint32_t node_of(const struct rx *x, const char *name)
{
	uint32_t n = subnet_find_name(x->sn, name);

	assert_int_not_equal(n, SUBNET_NONE);
	return n;
}

static void test_clean(void **state)
{
	struct rx x = { 0 };

	(void)state;
	rx_init(&x, "ft2-k8.topo", 1);
	judge(&x);
	assert_int_equal(x.fs.n, 0);
	rx_free(&x);
}

/* leaf001 drops h00017's LID: the pairs from its 4 hosts, each named on leaf001. */
static void test_dropped(void **state)
{
	struct rx x = { 0 };
	uint32_t leaf, h;
	uint16_t lid;
	char want[HEALTH_TEXT];

	(void)state;
	rx_init(&x, "ft2-k8.topo", 1);
	leaf = node_of(&x, "leaf001");
	h = node_of(&x, "h00017");
	lid = x.sn->port[subnet_port_idx(x.sn, h, 1)].lid;
	route_lft(&x.lft.ro, x.lft.ro.sw_index[leaf])[lid] = ROUTE_DROP;
	judge(&x);
	assert_int_equal(x.fs.n, 4);
	snprintf(want, sizeof(want), "LID %u unreachable", lid);
	for (uint32_t i = 0; i < x.fs.n; i++) {
		assert_int_equal(x.fs.f[i].group, HEALTH_ROUTES);
		assert_int_equal(x.fs.f[i].severity, HEALTH_ERROR);
		assert_int_equal(x.fs.f[i].node, leaf);
		assert_string_equal(x.fs.f[i].what, "unreachable");
		assert_string_equal(x.fs.f[i].measured, want);
		assert_non_null(strstr(x.fs.f[i].detail, "\"h00017\""));
	}
	rx_free(&x);
}

/* A top below a LID in use, and a switch that did not answer, are named. */
static void test_top_and_read(void **state)
{
	struct rx x = { 0 };
	uint32_t leaf, spine;
	bool top = false, rd = false;

	(void)state;
	rx_init(&x, "ft2-k8.topo", 1);
	leaf = node_of(&x, "leaf002");
	spine = node_of(&x, "spine003");
	x.live.node[leaf].si.lin_top = 3;
	x.lft.status[x.lft.ro.sw_index[spine]] = -ETIMEDOUT;
	judge(&x);
	for (uint32_t i = 0; i < x.fs.n; i++) {
		const struct health_finding *f = &x.fs.f[i];

		if (!strcmp(f->what, "lft top")) {
			assert_int_equal(f->node, leaf);
			assert_string_equal(f->measured, "LinearFDBTop 0x0003");
			top = true;
		}
		if (!strcmp(f->what, "lft read")) {
			assert_int_equal(f->node, spine);
			assert_string_equal(f->measured, "no answer");
			rd = true;
		}
	}
	assert_true(top);
	assert_true(rd);
	rx_free(&x);
}

/* Min-hop on a torus has a credit loop on one VL: an error on VL0-only links, a
 * warning that says so when the links run several VLs. */
static void test_credit_loop(void **state)
{
	static const uint8_t vls[] = { 1, 3 };

	(void)state;
	for (unsigned i = 0; i < 2; i++) {
		struct rx x = { 0 };

		rx_init(&x, "torus2d-4x4.topo", vls[i]);
		judge(&x);
		assert_int_equal(x.fs.n, 1);
		assert_string_equal(x.fs.f[0].what, "credit loop");
		assert_int_equal(x.fs.f[0].node, SUBNET_NONE);
		assert_int_equal(x.fs.f[0].severity, i ? HEALTH_WARNING : HEALTH_ERROR);
		assert_true(!i || strstr(x.fs.f[0].expected, "judged on one VL"));
		rx_free(&x);
	}
}

/* Tables of every switch's port pairs, all mapping SL s to VL s % vls. */
static void tables(const struct rx *x, struct health_sl2vl *h, unsigned vls)
{
	size_t n = 0;

	*h = (struct health_sl2vl){ .n_sw = x->lft.ro.n_sw, .sw_index = x->lft.ro.sw_index };
	h->stride = calloc(h->n_sw, sizeof(*h->stride));
	h->base = calloc(h->n_sw, sizeof(*h->base));
	h->status = calloc(h->n_sw, sizeof(*h->status));
	assert_non_null(h->stride);
	assert_non_null(h->base);
	assert_non_null(h->status);
	for (uint32_t s = 0; s < h->n_sw; s++) {
		h->stride[s] = (uint32_t)x->sn->node[x->lft.ro.sw_node[s]].nports + 1;
		h->base[s] = n;
		n += (size_t)h->stride[s] * h->stride[s] * 16;
	}
	h->vl = calloc(n, 1);
	assert_non_null(h->vl);
	for (size_t i = 0; i < n; i++)
		h->vl[i] = (uint8_t)(i % 16 % vls);
	h->asked = 1;
}

/*
 * With the SLs (the SA's) and the SL2VL tables read, min-hop's torus loop is
 * judged on them: every route on SL 0 is a credit loop, an error that says
 * how it was judged; the same routes all on SL 1, which the tables of one
 * switch send to VL 15, are dropped (unreachable). With no SLs (no SA) it stays the
 * one-VL warning, and missing PathRecords are a warning of their own. The
 * reads are needed only where VL0 alone loops: the torus, not a fat tree.
 */
static void test_credit_loop_vls(void **state)
{
	struct rx x = { 0 }, ft = { 0 };
	struct health_sl2vl h;
	struct health_sl sl = { 0 };
	size_t rows;
	struct health_input in;
	bool loop = false, drop = false;
	uint32_t sw;

	(void)state;
	rx_init(&x, "torus2d-4x4.topo", 3);
	rx_init(&ft, "ft2-k8.topo", 3);
	assert_true(health_routes_need_vls(x.sn, &x.live, &x.lft));
	assert_false(health_routes_need_vls(ft.sn, &ft.live, &ft.lft));
	rx_free(&ft);
	x.live.port[0].pi.op_vls = 1;
	for (uint32_t p = 0; p < x.sn->n_ports; p++)
		x.live.port[p].pi.op_vls = 1;
	assert_false(health_routes_need_vls(x.sn, &x.live, &x.lft));
	for (uint32_t p = 0; p < x.sn->n_ports; p++)
		x.live.port[p].pi.op_vls = 3;

	tables(&x, &h, 3);
	rows = (size_t)x.lft.ro.n_sw * ((size_t)x.lft.ro.max_lid + 1);
	sl.sl = calloc(rows, 1);
	assert_non_null(sl.sl);
	sl.asked = 10;
	in = (struct health_input){ .sn = x.sn, .live = &x.live, .lft = &x.lft, .sl2vl = &h,
				    .sl = &sl };
	health_routes_judge(&in, &x.fs);
	for (unsigned i = 0; i < x.fs.n; i++)
		loop |= !strcmp(x.fs.f[i].what, "credit loop") &&
			x.fs.f[i].severity == HEALTH_ERROR &&
			strstr(x.fs.f[i].expected, "judged on the SA's SLs") != NULL;
	assert_true(loop);

	/* Every route on SL 1; one switch's tables send SL 1 to VL 15. */
	memset(sl.sl, 1, rows);
	sw = 5;
	for (uint32_t i = 0; i < h.stride[sw] * h.stride[sw]; i++)
		h.vl[h.base[sw] + (size_t)i * 16 + 1] = 15;
	health_findings_free(&x.fs);
	health_routes_judge(&in, &x.fs);
	for (unsigned i = 0; i < x.fs.n; i++)
		drop |= !strcmp(x.fs.f[i].what, "unreachable") &&
			strstr(x.fs.f[i].detail, "maps to VL 15") != NULL;
	assert_true(drop);

	/* Some PathRecords not answered: a warning of their own. */
	memset(sl.sl, 0, rows);
	sl.failed = 2;
	health_findings_free(&x.fs);
	health_routes_judge(&in, &x.fs);
	loop = false;
	for (unsigned i = 0; i < x.fs.n; i++)
		loop |= !strcmp(x.fs.f[i].what, "route sl") && x.fs.f[i].severity == HEALTH_WARNING;
	assert_true(loop);

	/* No SLs at all: the one-VL warning, saying the SA gave none. */
	health_sl_free(&sl);
	health_findings_free(&x.fs);
	health_routes_judge(&in, &x.fs);
	assert_int_equal(x.fs.n, 1);
	assert_int_equal(x.fs.f[0].severity, HEALTH_WARNING);
	assert_non_null(strstr(x.fs.f[0].expected, "the SA gave no SLs"));
	health_sl2vl_free(&h);
	rx_free(&x);
}

/* Findings a and b the same, line for line. */
static void same_findings(const struct health_findings *a, const struct health_findings *b)
{
	assert_int_equal(a->n, b->n);
	for (uint32_t i = 0; i < a->n; i++) {
		assert_int_equal(a->f[i].severity, b->f[i].severity);
		assert_int_equal(a->f[i].node, b->f[i].node);
		assert_string_equal(a->f[i].what, b->f[i].what);
		assert_string_equal(a->f[i].measured, b->f[i].measured);
		assert_string_equal(a->f[i].expected, b->f[i].expected);
		assert_string_equal(a->f[i].detail, b->f[i].detail);
	}
}

/*
 * The checker's run that health_routes_need_vls keeps is the judge's own:
 * judging with it and with a fresh run gives the same findings, on a fat
 * tree with dropped entries (no credit loop: nothing more is read) and on a
 * torus whose VLs are not read (the one-VL credit loop).
 * More bad pairs than the judge names: the kept run names as many.
 */
static void test_kept_run(void **state)
{
	static const char *const topo[] = { "ft2-k8.topo", "torus2d-4x4.topo" };

	(void)state;
	for (unsigned t = 0; t < 2; t++) {
		struct rx x = { 0 };
		struct health_findings kept;
		bool need;

		rx_init(&x, topo[t], 3);
		/* Every third LID dropped at the first switch: more bad pairs than are named. */
		for (uint32_t lid = 1; lid <= x.lft.ro.max_lid; lid += 3)
			route_lft(&x.lft.ro, 0)[lid] = ROUTE_DROP;
		need = health_routes_need_vls(x.sn, &x.live, &x.lft);
		assert_int_equal(need, t == 1);
		assert_true(x.lft.vl0_kept);
		judge(&x);
		assert_true(x.fs.n > 0);
		kept = x.fs;
		x.fs = (struct health_findings){ 0 };
		x.lft.vl0_kept = false;
		judge(&x);
		same_findings(&kept, &x.fs);
		health_findings_free(&kept);
		rx_free(&x);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clean),
		cmocka_unit_test(test_dropped),
		cmocka_unit_test(test_top_and_read),
		cmocka_unit_test(test_credit_loop),
		cmocka_unit_test(test_credit_loop_vls),
		cmocka_unit_test(test_kept_run),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
