/* SPDX-License-Identifier: MIT */
#ifndef LOOM_MAD_TXN_PRIV_H
#define LOOM_MAD_TXN_PRIV_H

/*
 * Inside the transactions: txn.c keeps the window, sends, retries and
 * matches answers; what it must know about each node (a directed route,
 * named by a hash of its path) is kept apart, because each is a small data
 * structure of its own with rules that do not depend on the window:
 *   txn_flight.c  how many requests are in flight to each node, for per_node
 *   txn_gone.c    which nodes left two Sets unanswered, for failing the rest
 * Neither sends, reads a clock or calls back; txn.c does all of that.
 */

#include <stdbool.h>
#include <stdint.h>

/* ---- in flight per node (txn_flight.c) ---- */

/*
 * An open addressing table of at least twice the window's size, so that
 * per_node is checked in O(1) and not by scanning the window for every
 * queued candidate (which cost more CPU than the simulator spent answering,
 * at window 16). It never fills: at most window nodes are in flight.
 */
struct txn_flight {
	struct txn_flight_ent {
		uint32_t node;
		uint32_t n; /* 0: empty */
	} *e;
	uint32_t mask; /* entries - 1, a power of two minus one */
};

/* Room for window nodes in flight; 0 or -ENOMEM. */
int txn_flight_init(struct txn_flight *fl, unsigned window);
/* Accepts a table that was never set up (zeroed). */
void txn_flight_free(struct txn_flight *fl);
/* Requests in flight to node. */
unsigned txn_flight_count(const struct txn_flight *fl, uint32_t node);
void txn_flight_add(struct txn_flight *fl, uint32_t node);
/* One fewer to node (none: nothing happens). */
void txn_flight_del(struct txn_flight *fl, uint32_t node);

/* ---- nodes taken as gone (txn_gone.c) ---- */

/* Nodes that did not answer a Set after all its retries, remembered at once. */
#define TXN_GONE_RING 16
/* How long one is taken as gone when nobody says forget (txn_forget_gone). */
#define TXN_GONE_MS 10000

/*
 * Until txn_forget_gone() or TXN_GONE_MS: the Sets queued for these nodes
 * fail at once (-ETIMEDOUT) instead of each waiting out its retries, as a
 * switch cut off in the middle of its LFT blocks would. A ring: with more
 * than TXN_GONE_RING such nodes, the oldest is forgotten (its Sets then
 * wait out their retries again, as they would without the ring).
 */
struct txn_gone {
	struct {
		uint32_t node;
		uint64_t until;
		unsigned strikes; /* Sets given up, none answered since: gone from 2 on */
	} e[TXN_GONE_RING];
	unsigned n; /* entries ever noted since the last forget; 0: the ring is empty */
};

/*
 * True if node is taken as gone until *until (the caller compares it with
 * its clock, read only then): two of its Sets given up, none answered since.
 */
bool txn_gone_struck(const struct txn_gone *g, uint32_t node, uint64_t *until);
/* A Set to node given up at now (a strike), or answered (the node is there after all). */
void txn_gone_note(struct txn_gone *g, uint32_t node, bool answered, uint64_t now);
static inline bool txn_gone_any(const struct txn_gone *g)
{
	return g->n != 0;
}
static inline void txn_gone_forget(struct txn_gone *g)
{
	g->n = 0;
}

#endif
