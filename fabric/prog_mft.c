/* SPDX-License-Identifier: MIT */
/*
 * Programming MulticastForwardingTables (IBA 14.2.5.12) as the LFT phase
 * does: every switch's wanted MFT comes from the groups' trees
 * (mcast_want_build); a block and port position we have not seen is read
 * first, and sent only if it differs; what was sent or read is kept
 * (struct mcast's MFTs by switch GUID), so the next pass diffs against
 * memory. Blocks of groups since deleted are part of the pass too: they
 * are cleared the same way.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/prog_priv.h"

/* Keep what the switch holds at block b, position pos. */
static void store(struct mcast_mft *t, uint32_t b, unsigned pos, const uint16_t m[SMP_MFT_BLOCK])
{
	unsigned w = pos / 4, sh = 16 * (pos % 4);

	for (uint32_t i = 0; i < SMP_MFT_BLOCK; i++) {
		struct mcast_ports *e = &t->e[b * SMP_MFT_BLOCK + i];

		e->w[w] = (e->w[w] & ~(0xffffULL << sh)) | (uint64_t)m[i] << sh;
	}
	t->known[b * MCAST_MFT_POS + pos] = 1;
}

static void want_block(const struct prog *g, uint32_t node, uint32_t b, unsigned pos,
		       uint16_t out[SMP_MFT_BLOCK])
{
	const struct mcast_want *w = g->mft;

	if (!w->n) {
		memset(out, 0, SMP_MFT_BLOCK * sizeof(*out));
		return;
	}
	mcast_mft_block(w->e + (size_t)node * w->n, w->n, b, pos, out);
}

/* Send block b, position pos of switch node if the switch holds something else. */
static void send_block(struct prog *g, uint32_t node, uint32_t b, unsigned pos)
{
	struct mcast_mft *t = mcast_mft_get(g->o->mcast, g->sn->node[node].guid);
	uint32_t p0 = subnet_port_idx(g->sn, node, 0);
	struct smp_req r = { .method = SMP_SET, .attr_id = SMP_ATTR_MFT,
			     .attr_mod = smp_mft_mod(b, pos) };
	uint16_t want[SMP_MFT_BLOCK], have[SMP_MFT_BLOCK];

	if (!t) {
		g->err = -ENOMEM;
		return;
	}
	want_block(g, node, b, pos, want);
	mcast_mft_block(t->e, t->n, b, pos, have);
	if (!memcmp(want, have, sizeof(want)) || !prog_port_route(g, p0, &r))
		return;
	smp_encode_mft(want, r.data);
	t->known[b * MCAST_MFT_POS + pos] = 0; /* until the switch acknowledges it */
	g->rep->mft_blocks++;
	prog_submit(g, &r, PREQ_MFT_SET, p0, b, 0);
}

void prog_mft_reply(struct prog *g, const struct preq *q, const uint8_t *resp, size_t len)
{
	uint32_t node = g->sn->port[q->idx].node;
	struct mcast_mft *t = mcast_mft_get(g->o->mcast, g->sn->node[node].guid);
	unsigned pos = q->r.attr_mod >> 28;
	uint16_t m[SMP_MFT_BLOCK];

	if (!t || q->block >= t->n / SMP_MFT_BLOCK || smp_decode_mft(resp, len, m) < 0)
		return;
	store(t, q->block, pos, m);
	if (q->kind == PREQ_MFT_GET)
		send_block(g, node, q->block, pos);
}

/*
 * IBA 14.2.5.4: a switch that supports MulticastFDBTop forwards only MLIDs
 * up to it; it must follow the highest group. Sent with the switch's
 * number in the routing (PREQ_SWITCH_INFO keeps the answer by it).
 */
static void set_top(struct prog *g, uint32_t node)
{
	uint32_t p0 = subnet_port_idx(g->sn, node, 0);
	const struct disc_port *lp = &g->live->port[p0];
	struct disc_node *ln = &g->live->node[node];
	struct smp_req r = { .method = SMP_SET, .attr_id = SMP_ATTR_SWITCH_INFO };

	if (!lp->have_pi || !(lp->pi.cap_mask & SMP_CAP_MCAST_FDB_TOP) ||
	    ln->si.mcast_top == g->mft->top || !g->ro->sw_index ||
	    g->ro->sw_index[node] == SUBNET_NONE || !prog_port_route(g, p0, &r))
		return;
	smp_switch_info_mcast_top(ln->si_raw, g->mft->top, r.data);
	g->rep->si_sets++;
	prog_submit(g, &r, PREQ_SWITCH_INFO, g->ro->sw_index[node], 0, 0);
}

static void program_switch(struct prog *g, uint32_t node)
{
	const struct subnet_node *n = &g->sn->node[node];
	struct mcast_mft *t = mcast_mft_get(g->o->mcast, n->guid);
	uint32_t cap = g->live->node[node].si.mcast_cap, want = g->mft->n, blocks;
	unsigned npos = n->nports / MCAST_MFT_POS + 1;

	if (!t) {
		g->err = -ENOMEM;
		return;
	}
	if (want > cap) {
		diag_msg(&g->rep->msgs, "switch 0x%016" PRIx64 " \"%s\": holds %u multicast LIDs, "
			 "groups use %u; MLIDs above 0x%04x do not reach it", n->guid,
			 subnet_str(g->sn, n->desc), cap, want, MCAST_MLID_BASE + cap - 1);
		want = cap / SMP_MFT_BLOCK * SMP_MFT_BLOCK;
	}
	set_top(g, node);
	/* What was programmed beyond today's groups is cleared too. */
	if (mcast_mft_size(t, want) < 0) {
		g->err = -ENOMEM;
		return;
	}
	blocks = (t->n < cap ? t->n : cap) / SMP_MFT_BLOCK;
	for (uint32_t b = 0; b < blocks && !g->err; b++) {
		for (unsigned pos = 0; pos < npos; pos++) {
			struct smp_req r = { .method = SMP_GET, .attr_id = SMP_ATTR_MFT,
					     .attr_mod = smp_mft_mod(b, pos) };

			if (t->known[b * MCAST_MFT_POS + pos]) {
				send_block(g, node, b, pos);
				continue;
			}
			if (!prog_port_route(g, subnet_port_idx(g->sn, node, 0), &r))
				continue;
			g->rep->mft_reads++;
			prog_submit(g, &r, PREQ_MFT_GET, subnet_port_idx(g->sn, node, 0), b, 0);
		}
	}
}

void prog_program_mfts(struct prog *g)
{
	struct mcast *mc = g->o->mcast;
	int r;

	/* Changes from here on (the SA answers mid-pass) call for another pass. */
	mc->dirty = false;
	g->mft = calloc(1, sizeof(*g->mft));
	if (!g->mft) {
		g->err = -ENOMEM;
		return;
	}
	r = mcast_want_build(mc, g->sn, g->mft);
	if (r < 0) {
		g->err = r;
		return;
	}
	for (uint32_t node = 0; node < g->sn->n_nodes && !g->err; node++)
		if (subnet_is_switch(g->sn, node) && g->live->node[node].si.mcast_cap)
			program_switch(g, node);
}
