/* SPDX-License-Identifier: MIT */
/*
 * Programming P_Key tables: each block read, sent only if it differs; on a
 * node no SM had configured (prog_fresh_nodes()), sent without a read. A
 * targeted sweep trusts the cache (prog_cache.c, prog_held.c) for block 0,
 * the one most ports have: known and as wanted, neither read nor sent;
 * known and not, sent without a read. A heavy sweep reads every block (and fills the cache).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "plan/pkey.h"
#include "fabric/prog_priv.h"

/* The P_Keys port pi can hold: a switch's external port per SwitchInfo, else NodeInfo. */
static uint32_t pkey_cap(const struct prog *g, uint32_t pi)
{
	const struct subnet_port *p = &g->sn->port[pi];
	const struct disc_node *ln = &g->live->node[p->node];

	return subnet_is_switch(g->sn, p->node) && p->num ? ln->si.enforce_cap : ln->partition_cap;
}

/* Block b of what port pi should hold, zero-padded. */
static void want_pkeys(const struct prog *g, uint32_t pi, uint32_t b, uint16_t out[SMP_PKEY_BLOCK])
{
	const struct pkey_plan *pl = g->o->pkeys;
	uint32_t n = pkey_count(pl, pi), cap = pkey_cap(g, pi);

	if (n > cap)
		n = cap;
	memset(out, 0, SMP_PKEY_BLOCK * sizeof(*out));
	for (uint32_t i = b * SMP_PKEY_BLOCK; i < n && i < (b + 1) * SMP_PKEY_BLOCK; i++)
		out[i - b * SMP_PKEY_BLOCK] = pl->key[pl->off[pi] + i];
}

static uint32_t pkey_mod(const struct prog *g, uint32_t pi, uint32_t b)
{
	const struct subnet_port *p = &g->sn->port[pi];

	return smp_pkey_mod(subnet_is_switch(g->sn, p->node) ? p->num : 0, (uint16_t)b);
}

/* The cache's block 0 of port pi's table (copy NULL: none, or ENOMEM). */
static struct prog_held cached(struct prog *g, uint32_t pi)
{
	const struct subnet_port *p = &g->sn->port[pi];
	struct prog_lft *e = prog_held_node(g, pi);

	if (!e || prog_pkey_tab(e, g->sn->node[p->node].nports) < 0)
		return (struct prog_held){ NULL, NULL };
	return (struct prog_held){ e->pkey[p->num], &e->pkey_known[p->num] };
}

static void send_block(struct prog *g, uint32_t pi, uint32_t b, const uint16_t want[SMP_PKEY_BLOCK])
{
	struct smp_req r = { .method = SMP_SET, .attr_id = SMP_ATTR_PKEY_TABLE };

	if (!prog_port_route(g, pi, &r))
		return;
	r.attr_mod = pkey_mod(g, pi, b);
	smp_encode_pkeys(want, r.data);
	g->rep->pkey_blocks++;
	prog_submit(g, &r, PREQ_PKEY_SET, pi, b, 0);
}

/* A GetResp to a Get or a Set: block 0 cached; after a Get, the block sent if it differs. */
void prog_pkey_reply(struct prog *g, const struct preq *q, const uint8_t *resp, size_t len)
{
	uint16_t have[SMP_PKEY_BLOCK], want[SMP_PKEY_BLOCK];
	struct prog_held c = q->block == 0 ? cached(g, q->idx) : (struct prog_held){ NULL, NULL };

	if (smp_decode_pkeys(resp, len, have) < 0)
		return;
	want_pkeys(g, q->idx, q->block, want);
	if (prog_held_answer(c, have, want, sizeof(have), q->kind == PREQ_PKEY_GET))
		send_block(g, q->idx, q->block, want);
}

/* A targeted sweep and block 0 known: left alone if as wanted, else sent. True if done so. */
static bool from_cache(struct prog *g, uint32_t pi, uint32_t b)
{
	uint16_t want[SMP_PKEY_BLOCK];
	int k;

	if (!g->o->only || b != 0)
		return false;
	want_pkeys(g, pi, b, want);
	k = prog_held_check(cached(g, pi), want, sizeof(want));
	if (k == 0)
		send_block(g, pi, b, want);
	return k >= 0;
}

void prog_program_pkeys(struct prog *g)
{
	const struct pkey_plan *pl = g->o->pkeys;

	for (uint32_t pi = 0; pl && pi < g->sn->n_ports && !g->err; pi++) {
		uint32_t n = pkey_count(pl, pi), cap;
		char buf[160];

		if (g->o->only && !g->o->only[pi])
			continue;
		if (!n)
			continue;
		cap = pkey_cap(g, pi);
		if (n > cap) {
			diag_msg(&g->rep->msgs, "%s: member of %u partitions but holds %u P_Keys; "
				 "the last %u are left out", prog_port_name(g, pi, buf, sizeof(buf)), n,
				 cap, n - cap);
			n = cap;
		}
		for (uint32_t b = 0; b * SMP_PKEY_BLOCK < n; b++) {
			struct smp_req r = { .method = SMP_GET, .attr_id = SMP_ATTR_PKEY_TABLE,
					     .attr_mod = pkey_mod(g, pi, b) };

			if (from_cache(g, pi, b))
				continue;
			/* A node no SM had configured holds what a reset left: set, unread. */
			if (g->fresh[g->sn->port[pi].node]) {
				uint16_t want[SMP_PKEY_BLOCK];

				want_pkeys(g, pi, b, want);
				send_block(g, pi, b, want);
				continue;
			}
			if (!prog_port_route(g, pi, &r))
				break;
			g->rep->pkey_reads++;
			prog_submit(g, &r, PREQ_PKEY_GET, pi, b, 0);
		}
	}
}

