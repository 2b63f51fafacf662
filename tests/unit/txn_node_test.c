/* SPDX-License-Identifier: MIT */
/*
 * What mad/txn.c keeps per node, tested on its own (mad/txn_priv.h):
 * txn_flight.c's in-flight table (collisions, a run across the table's
 * end, deletes inside a run; and many random adds and deletes against a
 * plain count) and txn_gone.c's ring (strikes, an answer, the ring's turn,
 * forget). txn_test.c tests both through the window.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "mad/txn_priv.h"

static uint32_t home_of(const struct txn_flight *fl, uint32_t node)
{
	return (node * 2654435761u) & fl->mask;
}

/* The first n nodes from 1 up whose home slot is want. */
static void nodes_at(const struct txn_flight *fl, uint32_t want, uint32_t *out, unsigned n)
{
	uint32_t node = 1;

	for (unsigned k = 0; k < n; node++)
		if (home_of(fl, node) == want)
			out[k++] = node;
}

/* Three nodes share the last slot (their run wraps to 0 and 1), one more starts at 0. */
static void test_flight_collisions(void **state)
{
	struct txn_flight fl = { 0 };
	uint32_t last[3], first[1];

	(void)state;
	assert_int_equal(txn_flight_init(&fl, 4), 0);
	assert_int_equal(fl.mask, 7); /* at least twice the window */
	nodes_at(&fl, fl.mask, last, 3);
	nodes_at(&fl, 0, first, 1);
	for (unsigned i = 0; i < 3; i++)
		txn_flight_add(&fl, last[i]);
	txn_flight_add(&fl, first[0]);
	txn_flight_add(&fl, first[0]);
	assert_int_equal(txn_flight_count(&fl, last[0]), 1);
	assert_int_equal(txn_flight_count(&fl, last[2]), 1);
	assert_int_equal(txn_flight_count(&fl, first[0]), 2);

	/* The head of the run goes: the rest move up, none is lost. */
	txn_flight_del(&fl, last[0]);
	assert_int_equal(txn_flight_count(&fl, last[0]), 0);
	assert_int_equal(txn_flight_count(&fl, last[1]), 1);
	assert_int_equal(txn_flight_count(&fl, last[2]), 1);
	assert_int_equal(txn_flight_count(&fl, first[0]), 2);
	/* One of two to a node: the entry stays. */
	txn_flight_del(&fl, first[0]);
	assert_int_equal(txn_flight_count(&fl, first[0]), 1);
	txn_flight_del(&fl, last[1]);
	txn_flight_del(&fl, last[2]);
	txn_flight_del(&fl, first[0]);
	for (uint32_t i = 0; i <= fl.mask; i++)
		assert_int_equal(fl.e[i].n, 0);
	/* A node with nothing in flight: nothing happens. */
	txn_flight_del(&fl, last[0]);
	assert_int_equal(txn_flight_count(&fl, last[0]), 0);
	txn_flight_free(&fl);
	txn_flight_free(&fl); /* twice, and a zeroed one, are fine */
}

/* Random adds and deletes, never more than the window in flight, against plain counts. */
static void test_flight_random(void **state)
{
	enum { WINDOW = 16, NODES = 40, STEPS = 20000 };
	struct txn_flight fl = { 0 };
	unsigned want[NODES] = { 0 }, out = 0;
	uint32_t node[NODES];

	(void)state;
	srand(7);
	assert_int_equal(txn_flight_init(&fl, WINDOW), 0);
	for (unsigned i = 0; i < NODES; i++)
		node[i] = 2166136261u ^ (i * 16777619u); /* hash-like values, as txn.c's */
	for (unsigned s = 0; s < STEPS; s++) {
		unsigned i = (unsigned)rand() % NODES;

		if (out < WINDOW && (rand() & 1)) {
			txn_flight_add(&fl, node[i]);
			want[i]++;
			out++;
		} else if (want[i]) {
			txn_flight_del(&fl, node[i]);
			want[i]--;
			out--;
		}
		for (unsigned j = 0; j < NODES; j++)
			if (txn_flight_count(&fl, node[j]) != want[j])
				fail_msg("step %u: node %u: %u in flight, the table says %u", s, j,
					 want[j], txn_flight_count(&fl, node[j]));
	}
	txn_flight_free(&fl);
}

static void test_gone_strikes(void **state)
{
	struct txn_gone g = { 0 };
	uint64_t until = 0;

	(void)state;
	assert_false(txn_gone_any(&g));
	/* An answer from a node without strikes takes no entry. */
	txn_gone_note(&g, 5, true, 100);
	assert_false(txn_gone_any(&g));
	/* One Set given up: not gone (a lossy link may drop one). */
	txn_gone_note(&g, 5, false, 100);
	assert_true(txn_gone_any(&g));
	assert_false(txn_gone_struck(&g, 5, &until));
	/* Two: gone, until 10 s after the last. */
	txn_gone_note(&g, 5, false, 200);
	assert_true(txn_gone_struck(&g, 5, &until));
	assert_int_equal(until, 200 + TXN_GONE_MS);
	assert_false(txn_gone_struck(&g, 6, &until));
	/* It answers after all: no strikes left. */
	txn_gone_note(&g, 5, true, 0);
	assert_false(txn_gone_struck(&g, 5, &until));
	txn_gone_note(&g, 5, false, 300);
	assert_false(txn_gone_struck(&g, 5, &until));
	txn_gone_note(&g, 5, false, 400);
	assert_true(txn_gone_struck(&g, 5, &until));
	/* Forget (a sweep starts): nobody is gone. */
	txn_gone_forget(&g);
	assert_false(txn_gone_any(&g));
	assert_false(txn_gone_struck(&g, 5, &until));
}

/* More nodes than the ring holds: the oldest is forgotten, the newest kept. */
static void test_gone_ring(void **state)
{
	struct txn_gone g = { 0 };
	uint64_t until;

	(void)state;
	for (uint32_t n = 1; n <= TXN_GONE_RING + 1; n++) {
		txn_gone_note(&g, n, false, n);
		txn_gone_note(&g, n, false, n);
	}
	assert_false(txn_gone_struck(&g, 1, &until));
	assert_true(txn_gone_struck(&g, 2, &until));
	assert_true(txn_gone_struck(&g, TXN_GONE_RING + 1, &until));
	assert_int_equal(until, TXN_GONE_RING + 1 + TXN_GONE_MS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flight_collisions),
		cmocka_unit_test(test_flight_random),
		cmocka_unit_test(test_gone_strikes),
		cmocka_unit_test(test_gone_ring),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
