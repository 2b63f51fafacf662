/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for loomd/flap.c with fake times: a link counted, damped past
 * its flaps, kept out of the model without an event every sweep, watched
 * while damped, released after hold; a window that forgets; damping off;
 * a link that cannot go without cutting nodes off.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "loomd/flap.h"
#include "model/diff.h"
#include "model/topo.h"
#include "tests/unit/topo_fixture.h"

/* Two switches with two links between them (ports 2 and 3), a host on each. */
static const char twice[] =
	"Switch 4 \"s1\"\n[1] \"h1\"[1]\n[2] \"s2\"[2]\n[3] \"s2\"[3]\n\n"
	"Switch 4 \"s2\"\n[1] \"h2\"[1]\n[2] \"s1\"[2]\n[3] \"s1\"[3]\n\n"
	"Hca 1 \"h1\"\n[1] \"s1\"[1]\n\nHca 1 \"h2\"\n[1] \"s2\"[1]\n";
/* The same with the port 3 link down. */
static const char once[] =
	"Switch 4 \"s1\"\n[1] \"h1\"[1]\n[2] \"s2\"[2]\n\n"
	"Switch 4 \"s2\"\n[1] \"h2\"[1]\n[2] \"s1\"[2]\n\n"
	"Hca 1 \"h1\"\n[1] \"s1\"[1]\n\nHca 1 \"h2\"\n[1] \"s2\"[1]\n";
/* The port 2 link alone (the fabric of once): it is the only way to s2 and h2. */
static const char *const bridge = once;
static const char bridge_down[] =
	"Switch 4 \"s1\"\n[1] \"h1\"[1]\n\n"
	"Switch 4 \"s2\"\n[1] \"h2\"[1]\n\n"
	"Hca 1 \"h1\"\n[1] \"s1\"[1]\n\nHca 1 \"h2\"\n[1] \"s2\"[1]\n";

/* A daemon's view: the model it routed last, and the last sweep's report and lines. */
struct run {
	struct flap f;
	struct subnet *planned;
	struct flap_report rep;
	struct diag msgs;
	unsigned events; /* between the last two planned models, as loomd names them */
};

static void count_event(void *arg, const struct diff_event *ev)
{
	(void)ev;
	(*(unsigned *)arg)++;
}

/* One heavy sweep at now that finds text; what it keeps is the model routed. */
static void sweep(struct run *r, const char *text, uint64_t now)
{
	struct subnet *raw = tfx_read_ok(text);

	diag_free(&r->msgs);
	r->msgs = (struct diag){ .limit = 16 };
	assert_int_equal(flap_sweep(&r->f, r->planned, raw, now, &r->rep, &r->msgs), 0);
	r->events = 0;
	if (r->planned)
		diff_models(r->planned, raw, count_event, &r->events);
	subnet_free(r->planned);
	r->planned = raw;
}

static void run_free(struct run *r)
{
	subnet_free(r->planned);
	diag_free(&r->msgs);
	flap_free(&r->f);
}

/* Is s1 port p linked in the model routed last? */
static bool linked(const struct run *r, unsigned p)
{
	uint32_t s1 = subnet_find_name(r->planned, "s1");

	return r->planned->port[subnet_port_idx(r->planned, s1, p)].peer != SUBNET_NONE;
}

static void test_damp_and_release(void **state)
{
	struct run r = { 0 };

	(void)state;
	flap_init(&r.f, &(struct flap_opts){ .flaps = 1, .window_ms = 20000, .hold_ms = 3000 });
	sweep(&r, twice, 0);
	assert_int_equal(r.msgs.n, 0);
	sweep(&r, once, 1000); /* one change: within flaps */
	assert_int_equal(r.rep.damped, 0);
	assert_int_equal(r.events, 1);
	assert_int_equal(flap_due(&r.f), UINT64_MAX);
	sweep(&r, twice, 2000); /* two: damped as it comes up, so no reroute back */
	assert_int_equal(r.rep.damped, 1);
	assert_int_equal(r.rep.out, 1);
	assert_int_equal(r.events, 0);
	assert_false(linked(&r, 3));
	assert_true(linked(&r, 2));
	assert_int_equal(r.msgs.n, 1);
	assert_non_null(strstr(r.msgs.msg[0], "link damped: switch 0x"));
	assert_non_null(strstr(r.msgs.msg[0], "\"s1\" port 3 <-> switch 0x"));
	assert_non_null(strstr(r.msgs.msg[0], "2 changes in 20s; kept out of the routes until "
					      "it has been up for 3s"));
	assert_int_equal(flap_due(&r.f), 5000);
	/* Still flapping: no line, no event, and the hold starts again at each up. */
	sweep(&r, once, 2500);
	assert_int_equal(flap_due(&r.f), UINT64_MAX);
	sweep(&r, twice, 3000);
	for (uint64_t t = 3500; t < 6000; t += 500) {
		sweep(&r, twice, t);
		assert_int_equal(r.msgs.n, 0);
		assert_int_equal(r.events, 0);
		assert_false(linked(&r, 3));
	}
	assert_int_equal(flap_due(&r.f), 6000);
	sweep(&r, twice, 6000);
	assert_int_equal(r.rep.released, 1);
	assert_int_equal(r.rep.out, 0);
	assert_true(linked(&r, 3));
	assert_int_equal(r.events, 1); /* the reroute back: one */
	assert_int_equal(r.msgs.n, 1);
	assert_non_null(strstr(r.msgs.msg[0], "link released: switch 0x"));
	assert_non_null(strstr(r.msgs.msg[0], ": up for 3s; routed again"));
	assert_int_equal(flap_due(&r.f), UINT64_MAX);
	/* Released, it is not counted as a change: the next sweep is quiet. */
	sweep(&r, twice, 7000);
	assert_int_equal(r.msgs.n, 0);
	assert_int_equal(r.events, 0);
	run_free(&r);
}

/*
 * A sweep that fails after counting (out of memory in planning) leaves the
 * last model in place: the next one names the same down again, not a new one.
 */
static void test_same_change_twice(void **state)
{
	struct run r = { 0 };
	struct subnet *raw;

	(void)state;
	flap_init(&r.f, &(struct flap_opts){ .flaps = 1, .window_ms = 20000, .hold_ms = 3000 });
	sweep(&r, twice, 0);
	raw = tfx_read_ok(once);
	assert_int_equal(flap_sweep(&r.f, r.planned, raw, 1000, &r.rep, &r.msgs), 0);
	subnet_free(raw); /* the sweep failed: r.planned stays */
	sweep(&r, once, 2000);
	assert_int_equal(r.rep.damped, 0);
	assert_int_equal(r.events, 1);
	sweep(&r, twice, 3000);
	assert_int_equal(r.rep.damped, 1);
	run_free(&r);
}

/* Changes further apart than the window never add up, and the link is forgotten. */
static void test_window(void **state)
{
	struct run r = { 0 };

	(void)state;
	flap_init(&r.f, &(struct flap_opts){ .flaps = 1, .window_ms = 1000, .hold_ms = 3000 });
	sweep(&r, twice, 0);
	for (uint64_t t = 1000; t <= 10000; t += 1000) {
		sweep(&r, t % 2000 ? once : twice, t);
		assert_int_equal(r.rep.damped, 0);
		assert_int_equal(r.events, 1);
		assert_int_equal(r.f.n, 1);
	}
	sweep(&r, twice, 11000);
	assert_int_equal(r.f.n, 0);
	/* Two within the window do. */
	sweep(&r, once, 12000);
	sweep(&r, twice, 12999);
	assert_int_equal(r.rep.damped, 1);
	run_free(&r);
}

/* flaps 0: never damped; set to 0 while damped: released at the next sweep. */
static void test_off(void **state)
{
	struct run r = { 0 };

	(void)state;
	flap_init(&r.f, &(struct flap_opts){ .flaps = 0, .window_ms = 20000, .hold_ms = 3000 });
	sweep(&r, twice, 0);
	for (uint64_t t = 1; t <= 20; t++) {
		sweep(&r, t % 2 ? once : twice, t);
		assert_int_equal(r.rep.damped, 0);
		assert_int_equal(r.events, 1);
	}
	r.f.o.flaps = 2;
	sweep(&r, once, 21);
	sweep(&r, twice, 22);
	sweep(&r, once, 23);
	assert_int_equal(r.rep.damped, 1);
	assert_int_equal(flap_due(&r.f), UINT64_MAX);
	r.f.o.flaps = 0;
	assert_int_equal(flap_due(&r.f), 0);
	sweep(&r, twice, 24);
	assert_int_equal(r.rep.released, 1);
	assert_true(linked(&r, 3));
	assert_non_null(strstr(r.msgs.msg[0], "flap damping is off; routed again"));
	run_free(&r);
}

/* The only link to half the fabric: damped, but kept in the routes, said once. */
static void test_cut(void **state)
{
	struct run r = { 0 };

	(void)state;
	flap_init(&r.f, &(struct flap_opts){ .flaps = 1, .window_ms = 20000, .hold_ms = 3000 });
	sweep(&r, bridge, 0);
	sweep(&r, bridge_down, 100);
	sweep(&r, bridge, 200);
	assert_int_equal(r.rep.damped, 1);
	assert_int_equal(r.rep.out, 0);
	assert_true(linked(&r, 2));
	assert_int_equal(r.msgs.n, 2);
	assert_non_null(strstr(r.msgs.msg[1], "link damped but still routed: "));
	assert_non_null(strstr(r.msgs.msg[1], "without it 2 nodes are cut off from the SM"));
	sweep(&r, bridge, 300);
	assert_int_equal(r.msgs.n, 0);
	assert_true(linked(&r, 2));
	sweep(&r, bridge, 3200);
	assert_int_equal(r.rep.released, 1);
	run_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_damp_and_release),
		cmocka_unit_test(test_same_change_twice),
		cmocka_unit_test(test_window),
		cmocka_unit_test(test_off),
		cmocka_unit_test(test_cut),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
