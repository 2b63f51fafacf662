/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>

#include "mad/txn_priv.h"

/* Fibonacci hashing: the node values are already FNV-1a hashes, this spreads their low bits. */
static uint32_t flight_home(const struct txn_flight *fl, uint32_t node)
{
	return (node * 2654435761u) & fl->mask;
}

int txn_flight_init(struct txn_flight *fl, unsigned window)
{
	uint32_t mask = 1;

	while (mask + 1 < 2 * window)
		mask = mask << 1 | 1;
	fl->e = calloc(mask + 1, sizeof(*fl->e));
	if (!fl->e)
		return -ENOMEM;
	fl->mask = mask;
	return 0;
}

void txn_flight_free(struct txn_flight *fl)
{
	free(fl->e);
	fl->e = NULL;
}

/* The entry of node: its own, or the empty one where it would go. */
static uint32_t flight_at(const struct txn_flight *fl, uint32_t node)
{
	uint32_t i = flight_home(fl, node);

	while (fl->e[i].n && fl->e[i].node != node)
		i = (i + 1) & fl->mask;
	return i;
}

unsigned txn_flight_count(const struct txn_flight *fl, uint32_t node)
{
	return fl->e[flight_at(fl, node)].n;
}

void txn_flight_add(struct txn_flight *fl, uint32_t node)
{
	struct txn_flight_ent *f = &fl->e[flight_at(fl, node)];

	f->node = node;
	f->n++;
}

/*
 * An entry that empties is filled from the run after it (backward shift, no
 * tombstones): a table that only ever adds and deletes would otherwise fill
 * with tombstones and make every look-up walk them.
 */
void txn_flight_del(struct txn_flight *fl, uint32_t node)
{
	uint32_t i = flight_at(fl, node), j = i;

	if (!fl->e[i].n || --fl->e[i].n)
		return;
	for (;;) {
		uint32_t home;

		j = (j + 1) & fl->mask;
		if (!fl->e[j].n)
			return;
		home = flight_home(fl, fl->e[j].node);
		/* j may move to the hole at i if its home is not in (i, j], cyclically. */
		if (i <= j ? (home > i && home <= j) : (home > i || home <= j))
			continue;
		fl->e[i] = fl->e[j];
		fl->e[j].n = 0;
		i = j;
	}
}
