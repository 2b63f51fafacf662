/* SPDX-License-Identifier: MIT */
/*
 * A table block as a node holds it, in the cache (prog_cache.c): the copy
 * and its known flag, and the one way the table phases use them. A GetResp
 * (to a Get or a Set) says what the node holds: copied, known. A Get that
 * found the block other than wanted leaves it unknown until the GetResp of
 * the Set that follows. Before a read, a known block as wanted is left
 * alone and a known one that differs is sent unread (and unknown until its
 * GetResp); an unknown one is read (prog_pkey.c, prog_qos.c).
 */
#include <string.h>

#include "fabric/prog_priv.h"

struct prog_lft *prog_held_node(struct prog *g, uint32_t pi)
{
	const struct subnet_node *n = &g->sn->node[g->sn->port[pi].node];

	return g->cache ? prog_cache_get(g->cache, n->guid) : NULL;
}

bool prog_held_known(struct prog_held h)
{
	return h.copy && *h.known;
}

bool prog_held_is(struct prog_held h, const void *want, size_t size)
{
	return prog_held_known(h) && !memcmp(h.copy, want, size);
}

void prog_held_forget(struct prog_held h)
{
	if (h.copy)
		*h.known = 0;
}

void prog_held_set(struct prog_held h, const void *have, size_t size)
{
	if (!h.copy)
		return;
	memcpy(h.copy, have, size);
	*h.known = 1;
}

bool prog_held_answer(struct prog_held h, const void *have, const void *want, size_t size,
		      bool get)
{
	prog_held_set(h, have, size);
	if (!get || !memcmp(have, want, size))
		return false;
	prog_held_forget(h);
	return true;
}

int prog_held_check(struct prog_held h, const void *want, size_t size)
{
	if (!prog_held_known(h))
		return -1;
	if (!memcmp(h.copy, want, size))
		return 1;
	*h.known = 0;
	return 0;
}
