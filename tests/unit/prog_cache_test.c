/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for prog_cache_forget_reset() and prog_cache_recheck()
 * (fabric/prog_cache.c): which nodes' cached LFT and QoS tables are
 * forgotten between two models. A link down leaves a switch's, and so
 * does every external port down while its port 0 keeps its LID,
 * MasterSMLID and LinearFDBTop; a CA whose Active port went down, a switch
 * reset (port 0 at LID 0, or another LinearFDBTop) lose theirs, and so do
 * nodes another SM set up (LID, MasterSMLID). A leaf and its hosts cut off
 * and back, with their own links still Active or the leaf's links all down
 * too, keep theirs until the next whole sweep; back reset (a host's port
 * Init, the leaf's port 0 at LID 0), with another LID or another
 * MasterSMLID, they lose them; a takeover forgets everything, the nodes
 * away too.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fabric/prog_priv.h"
#include "model/disc_live.h"
#include "tests/unit/topo_fixture.h"

/* h0 (the SM's host) on s1; a leaf l1 with two hosts and two uplinks to s1. */
static const char full[] =
	"Switch 4 \"s1\"\n[1] \"h0\"[1]\n[2] \"l1\"[3]\n[3] \"l1\"[4]\n\n"
	"Switch 4 \"l1\"\n[1] \"h1\"[1]\n[2] \"h2\"[1]\n[3] \"s1\"[2]\n[4] \"s1\"[3]\n\n"
	"Hca 1 \"h0\"\n[1] \"s1\"[1]\n\nHca 1 \"h1\"\n[1] \"l1\"[1]\n\n"
	"Hca 1 \"h2\"\n[1] \"l1\"[2]\n";
/* Its uplinks both down: l1, h1 and h2 out of the model. */
static const char cut[] = "Switch 4 \"s1\"\n[1] \"h0\"[1]\n\nHca 1 \"h0\"\n[1] \"s1\"[1]\n";

#define SM_LID 1

/* A model and what its ports said. */
struct view {
	struct subnet *sn;
	struct disc_live live;
};

/* The LID a port carries: the same whatever model holds it. */
static uint16_t lid_of(const struct subnet *sn, uint32_t n, unsigned p)
{
	return (uint16_t)((sn->node[n].guid & 0xff) * 8 + p + 2);
}

/* text's model, every linked port (and switch port 0) Active and pointing at SM_LID. */
static void view_make(struct view *v, const char *text)
{
	v->sn = tfx_read_ok(text);
	v->live.node = calloc(v->sn->n_nodes, sizeof(*v->live.node));
	v->live.port = calloc(v->sn->n_ports, sizeof(*v->live.port));
	assert_non_null(v->live.node);
	assert_non_null(v->live.port);
	for (uint32_t n = 0; n < v->sn->n_nodes; n++)
		for (unsigned p = 0; p <= v->sn->node[n].nports; p++) {
			uint32_t pi = subnet_port_idx(v->sn, n, p);
			struct disc_port *dp = &v->live.port[pi];
			bool sw = subnet_is_switch(v->sn, n);

			if ((sw && p == 0) || v->sn->port[pi].peer != SUBNET_NONE) {
				dp->have_pi = true;
				dp->pi.state = SMP_PORT_ACTIVE;
			}
			if (sw ? p == 0 : p > 0) {
				dp->pi.lid = lid_of(v->sn, n, p);
				dp->pi.sm_lid = SM_LID;
			}
		}
}

static void view_free(struct view *v)
{
	subnet_free(v->sn);
	disc_live_free(&v->live);
}

static struct disc_port *port(struct view *v, const char *name, unsigned num)
{
	return &v->live.port[subnet_port_idx(v->sn, tfx_node(v->sn, name), num)];
}

static uint64_t guid(const struct view *v, const char *name)
{
	return v->sn->node[tfx_node(v->sn, name)].guid;
}

/* Every node of v with an LFT block and QoS tables known. */
static void prime(struct prog_cache *c, const struct view *v)
{
	for (uint32_t n = 0; n < v->sn->n_nodes; n++) {
		struct prog_lft *e = prog_cache_get(c, v->sn->node[n].guid);

		assert_non_null(e);
		assert_int_equal(prog_lft_size(e, 64), 0);
		e->known[0] = 1;
		assert_non_null(prog_qos_tab(e, v->sn->node[n].nports));
	}
}

/* Are the node's tables still known? */
static bool kept(struct prog_cache *c, uint64_t g)
{
	struct prog_lft *e = prog_cache_find(c, g);

	assert_non_null(e);
	assert_true(!e->qos == !e->known[0]); /* forgotten as a whole */
	return e->qos != NULL;
}

static bool unverified(struct prog_cache *c, uint64_t g)
{
	return prog_cache_find(c, g)->unverified;
}

/* One sweep from a to b. */
static void step(struct prog_cache *c, const struct view *a, const struct view *b)
{
	prog_cache_forget_reset(c, a ? a->sn : NULL, a ? &a->live : NULL, b->sn, &b->live);
}

/*
 * A trip away and back: the cache primed on a (full), the leaf cut off
 * (away), back as b; or a sweep from a to b in place.
 */
struct trip {
	struct view a, away, b;
	struct prog_cache *c;
};

/* b made as full, every port Active: the test changes it, then trip_run(). */
static void trip_start(struct trip *t)
{
	assert_int_equal(prog_cache_new(&t->c), 0);
	view_make(&t->a, full);
	view_make(&t->away, cut);
	view_make(&t->b, full);
	prime(t->c, &t->a);
}

static void trip_run(struct trip *t)
{
	step(t->c, &t->a, &t->away);
	step(t->c, &t->away, &t->b);
}

static void trip_end(struct trip *t)
{
	prog_cache_free(t->c);
	view_free(&t->a);
	view_free(&t->away);
	view_free(&t->b);
}

/* Node name of b's tables kept? */
static bool trip_kept(struct trip *t, const char *name)
{
	return kept(t->c, guid(&t->b, name));
}

static void test_link_down(void **state)
{
	struct trip t;

	(void)state;
	trip_start(&t);
	/* One uplink down (both ends Init again), and h1's link bounced; in one sweep. */
	port(&t.b, "s1", 2)->pi.state = port(&t.b, "l1", 3)->pi.state = SMP_PORT_INIT;
	port(&t.b, "h1", 1)->pi.state = port(&t.b, "l1", 1)->pi.state = SMP_PORT_INIT;
	step(t.c, &t.a, &t.b);
	assert_true(trip_kept(&t, "s1"));
	assert_true(trip_kept(&t, "l1"));
	assert_false(trip_kept(&t, "h1")); /* a CA: a driver restart looks the same */
	assert_true(trip_kept(&t, "h2"));
	assert_false(unverified(t.c, guid(&t.b, "l1")));
	trip_end(&t);
}

/*
 * Every external port of l1 down, its port 0 as it was: kept. Then its port
 * 0 at LID 0 (a reset), or another LinearFDBTop: forgotten.
 */
static void test_switch_reset_in_place(void **state)
{
	struct trip t;

	(void)state;
	trip_start(&t);
	for (unsigned p = 1; p <= 4; p++)
		port(&t.b, "l1", p)->pi.state = SMP_PORT_INIT;
	step(t.c, &t.a, &t.b);
	assert_true(trip_kept(&t, "l1"));
	port(&t.b, "l1", 0)->pi.lid = 0;
	port(&t.b, "l1", 0)->pi.sm_lid = 0;
	step(t.c, &t.a, &t.b);
	assert_false(trip_kept(&t, "l1"));
	assert_true(trip_kept(&t, "s1"));
	trip_end(&t);

	trip_start(&t);
	t.b.live.node[tfx_node(t.b.sn, "l1")].si.lin_top = 0x20;
	step(t.c, &t.a, &t.b);
	assert_false(trip_kept(&t, "l1"));
	assert_true(trip_kept(&t, "s1"));
	trip_end(&t);
}

/* Another SM set up ports the last model had as this one's: their nodes are read again. */
static void test_other_sm_in_place(void **state)
{
	struct trip t;

	(void)state;
	trip_start(&t);
	port(&t.b, "l1", 0)->pi.sm_lid = SM_LID + 1;
	port(&t.b, "h2", 1)->pi.lid++;
	step(t.c, &t.a, &t.b);
	assert_false(trip_kept(&t, "l1"));
	assert_false(trip_kept(&t, "h2"));
	assert_true(trip_kept(&t, "h1"));
	assert_true(trip_kept(&t, "s1"));
	trip_end(&t);
}

/* The uplinks back, the leaf's and hosts' own links never down: all kept, checked later. */
static void test_back_kept(void **state)
{
	struct trip t;

	(void)state;
	trip_start(&t);
	port(&t.b, "s1", 2)->pi.state = port(&t.b, "s1", 3)->pi.state = SMP_PORT_INIT;
	port(&t.b, "l1", 3)->pi.state = port(&t.b, "l1", 4)->pi.state = SMP_PORT_INIT;
	trip_run(&t);
	assert_true(trip_kept(&t, "l1"));
	assert_true(trip_kept(&t, "h1"));
	assert_true(trip_kept(&t, "h2"));
	assert_true(unverified(t.c, guid(&t.b, "l1")));
	assert_false(unverified(t.c, guid(&t.b, "s1")));
	/* A targeted sweep after: still kept. */
	step(t.c, &t.b, &t.b);
	assert_true(trip_kept(&t, "h1"));
	/* The next whole sweep reads them again, and them only. */
	prog_cache_recheck(t.c);
	assert_false(trip_kept(&t, "l1"));
	assert_false(trip_kept(&t, "h1"));
	assert_false(trip_kept(&t, "h2"));
	assert_true(trip_kept(&t, "s1"));
	assert_true(trip_kept(&t, "h0"));
	trip_end(&t);
}

/* Back with h1's port Init (rebooted meanwhile): h1 read again, the others kept. */
static void test_back_host_reset(void **state)
{
	struct trip t;

	(void)state;
	trip_start(&t);
	port(&t.b, "h1", 1)->pi.state = port(&t.b, "l1", 1)->pi.state = SMP_PORT_INIT;
	trip_run(&t);
	assert_false(trip_kept(&t, "h1"));
	assert_true(trip_kept(&t, "h2"));
	assert_true(trip_kept(&t, "l1"));
	trip_end(&t);
}

/*
 * Back with every port Init (the leaf unplugged whole): the leaf kept on
 * its port 0's word, its hosts (a CA port down) read again. Again, the
 * leaf reset meanwhile (port 0 at LID 0): read again too.
 */
static void test_back_switch_reset(void **state)
{
	struct trip t;

	(void)state;
	for (int reset = 0; reset < 2; reset++) {
		trip_start(&t);
		for (unsigned p = 1; p <= 4; p++)
			port(&t.b, "l1", p)->pi.state = SMP_PORT_INIT;
		port(&t.b, "h1", 1)->pi.state = port(&t.b, "h2", 1)->pi.state = SMP_PORT_INIT;
		if (reset)
			port(&t.b, "l1", 0)->pi.lid = port(&t.b, "l1", 0)->pi.sm_lid = 0;
		trip_run(&t);
		assert_int_equal(trip_kept(&t, "l1"), !reset);
		assert_false(trip_kept(&t, "h1"));
		assert_false(trip_kept(&t, "h2"));
		assert_true(trip_kept(&t, "s1"));
		trip_end(&t);
	}
}

/* Back with port 0 as it was but another LinearFDBTop: read again. */
static void test_back_lin_top(void **state)
{
	struct trip t;

	(void)state;
	trip_start(&t);
	t.b.live.node[tfx_node(t.b.sn, "l1")].si.lin_top = 0x20;
	trip_run(&t);
	assert_false(trip_kept(&t, "l1"));
	assert_true(trip_kept(&t, "h1"));
	trip_end(&t);
}

/* Back Active, but set up by another SM meanwhile (its MasterSMLID), or with another LID. */
static void test_back_other_sm(void **state)
{
	struct trip t;

	(void)state;
	trip_start(&t);
	port(&t.b, "l1", 0)->pi.sm_lid = SM_LID + 1;
	port(&t.b, "h2", 1)->pi.lid++;
	trip_run(&t);
	assert_false(trip_kept(&t, "l1"));
	assert_true(trip_kept(&t, "h1"));
	assert_false(trip_kept(&t, "h2"));
	trip_end(&t);
}

/* A takeover forgets every node, and what was kept of the nodes away. */
static void test_takeover(void **state)
{
	struct trip t;

	(void)state;
	trip_start(&t);
	step(t.c, &t.a, &t.away);
	step(t.c, NULL, &t.away);
	assert_false(trip_kept(&t, "s1"));
	assert_false(trip_kept(&t, "l1"));
	prime(t.c, &t.a);
	step(t.c, &t.away, &t.b); /* the leaf back Active: but nothing vouches for it now */
	assert_false(trip_kept(&t, "l1"));
	assert_false(trip_kept(&t, "h1"));
	assert_true(trip_kept(&t, "s1"));
	trip_end(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_link_down),
		cmocka_unit_test(test_switch_reset_in_place),
		cmocka_unit_test(test_other_sm_in_place),
		cmocka_unit_test(test_back_kept),
		cmocka_unit_test(test_back_host_reset),
		cmocka_unit_test(test_back_switch_reset),
		cmocka_unit_test(test_back_lin_top),
		cmocka_unit_test(test_back_other_sm),
		cmocka_unit_test(test_takeover),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
