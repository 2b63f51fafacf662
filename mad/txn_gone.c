/* SPDX-License-Identifier: MIT */
#include "mad/txn_priv.h"

/* The ring's entry for node, or -1. */
static int gone_slot(const struct txn_gone *g, uint32_t node)
{
	for (unsigned i = 0; i < g->n && i < TXN_GONE_RING; i++)
		if (g->e[i].node == node)
			return (int)i;
	return -1;
}

/*
 * Two of its Sets given up and none answered since: one lost Set on a lossy
 * link is not enough (the node's other requests still go), but a node cut
 * off loses every one in flight to it at once.
 */
bool txn_gone_struck(const struct txn_gone *g, uint32_t node, uint64_t *until)
{
	int s = gone_slot(g, node);

	if (s < 0 || g->e[s].strikes < 2)
		return false;
	*until = g->e[s].until;
	return true;
}

void txn_gone_note(struct txn_gone *g, uint32_t node, bool answered, uint64_t now)
{
	int s = gone_slot(g, node);

	/* A node that answers and has no strikes needs no entry. */
	if (s < 0 && answered)
		return;
	if (s < 0) {
		s = (int)(g->n++ % TXN_GONE_RING);
		g->e[s].node = node;
		g->e[s].strikes = 0;
	}
	g->e[s].strikes = answered ? 0 : g->e[s].strikes + 1;
	g->e[s].until = now + TXN_GONE_MS;
}
