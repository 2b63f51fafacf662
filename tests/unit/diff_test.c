/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for model/diff.c: two models of one fabric, the events between
 * them, each named once, with both ends of a link, whatever the node order.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "model/diff.h"
#include "model/topo.h"
#include "tests/unit/topo_fixture.h"

/* Two switches, two hosts; the second file may change it. */
static const char base[] =
	"Switch 4 \"s1\"\n[1] \"h1\"[1]\n[2] \"s2\"[2]\n[3] \"s2\"[3]\n\n"
	"Switch 4 \"s2\"\n[1] \"h2\"[1]\n[2] \"s1\"[2]\n[3] \"s1\"[3]\n\n"
	"Hca 1 \"h1\"\n[1] \"s1\"[1]\n\nHca 1 \"h2\"\n[1] \"s2\"[1]\n";

struct seen {
	char line[8][320];
	unsigned n;
	const struct subnet *old, *cur;
};

static void record(void *arg, const struct diff_event *ev)
{
	struct seen *s = arg;

	assert_true(s->n < 8);
	diff_event_str(s->old, s->cur, ev, s->line[s->n], sizeof(s->line[0]));
	s->n++;
}

static unsigned run(const struct subnet *old, const struct subnet *cur, struct seen *s)
{
	memset(s, 0, sizeof(*s));
	s->old = old;
	s->cur = cur;
	return diff_models(old, cur, record, s);
}

static void test_same_fabric(void **state)
{
	struct subnet *a = tfx_read_ok(base), *b = tfx_read_ok(base);
	struct seen s;

	(void)state;
	assert_int_equal(run(a, b, &s), 0);
	subnet_free(a);
	subnet_free(b);
}

/* One of the two parallel links gone: one event, named from the lower GUID's end. */
static void test_link_down_and_up(void **state)
{
	static const char one_less[] =
		"Switch 4 \"s1\"\n[1] \"h1\"[1]\n[2] \"s2\"[2]\n\n"
		"Switch 4 \"s2\"\n[1] \"h2\"[1]\n[2] \"s1\"[2]\n\n"
		"Hca 1 \"h1\"\n[1] \"s1\"[1]\n\nHca 1 \"h2\"\n[1] \"s2\"[1]\n";
	struct subnet *a = tfx_read_ok(base), *b = tfx_read_ok(one_less);
	struct seen s;

	(void)state;
	assert_int_equal(run(a, b, &s), 1);
	assert_non_null(strstr(s.line[0], "link down: switch 0x"));
	assert_non_null(strstr(s.line[0], "\"s1\" port 3 <-> switch 0x"));
	assert_non_null(strstr(s.line[0], "\"s2\" port 3"));
	/* The other way round: the same cable comes back. */
	assert_int_equal(run(b, a, &s), 1);
	assert_non_null(strstr(s.line[0], "link up: "));
	assert_non_null(strstr(s.line[0], "\"s1\" port 3 <-> "));
	subnet_free(a);
	subnet_free(b);
}

/* A host gone: the node, and its cable. A cable moved: down on one port, up on the other. */
static void test_node_gone_and_cable_moved(void **state)
{
	static const char moved[] =
		"Switch 4 \"s1\"\n[4] \"h1\"[1]\n[2] \"s2\"[2]\n[3] \"s2\"[3]\n\n"
		"Switch 4 \"s2\"\n[2] \"s1\"[2]\n[3] \"s1\"[3]\n\n"
		"Hca 1 \"h1\"\n[1] \"s1\"[4]\n";
	struct subnet *a = tfx_read_ok(base), *b = tfx_read_ok(moved);
	struct seen s;

	(void)state;
	assert_int_equal(run(a, b, &s), 4);
	assert_non_null(strstr(s.line[0], "node gone: CA 0x"));
	assert_non_null(strstr(s.line[0], "\"h2\""));
	assert_non_null(strstr(s.line[1], "link down: "));
	assert_non_null(strstr(s.line[2], "link down: "));
	assert_non_null(strstr(s.line[3], "link up: "));
	assert_non_null(strstr(s.line[3], "\"s1\" port 4"));
	/* Back: the node is new again. */
	assert_int_equal(run(b, a, &s), 4);
	assert_non_null(strstr(s.line[0], "node new: CA 0x"));
	subnet_free(a);
	subnet_free(b);
}

static void test_no_old_model(void **state)
{
	struct subnet *b = tfx_read_ok(base);
	struct seen s;

	(void)state;
	/* Everything new: two switches, two hosts, four cables. */
	assert_int_equal(run(NULL, b, &s), 8);
	subnet_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_fabric),
		cmocka_unit_test(test_link_down_and_up),
		cmocka_unit_test(test_node_gone_and_cable_moved),
		cmocka_unit_test(test_no_old_model),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
