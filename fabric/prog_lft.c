/* SPDX-License-Identifier: MIT */
/*
 * Programming linear forwarding tables: SwitchInfo's LinearFDBTop, then each
 * LFT block read (unless the switch never held one), sent only if it differs.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "fabric/prog_priv.h"

/* The LIDs of block b whose entry changes (want against what the switch held, if known). */
static void count_rerouted(struct prog *g, const struct prog_lft *e, uint32_t b,
			   const uint8_t *want, size_t n)
{
	const uint8_t *had = e->known[b] ? e->lft + (size_t)b * SMP_LFT_BLOCK : NULL;

	for (size_t i = 0; i < n; i++) {
		size_t lid = (size_t)b * SMP_LFT_BLOCK + i;

		if (lid >= PROG_LID_SPACE)
			break;
		if (had ? had[i] == want[i] : want[i] == ROUTE_DROP)
			continue;
		if (!g->rerouted[lid]) {
			g->rerouted[lid] = 1;
			g->rep->lids_rerouted++;
		}
	}
}

/*
 * LinearFDBTop moved from top to the new max_lid. Lowered: the LIDs above
 * it that the switch forwarded (or may have: not known) are dropped from now
 * on. Raised: the LIDs above top that switch s is to forward are forwarded
 * from now on, whether or not their block is sent.
 */
static void count_top(struct prog *g, uint32_t s, const struct prog_lft *e, uint32_t top)
{
	uint32_t lo = top < g->ro->max_lid ? top + 1 : (uint32_t)g->ro->max_lid + 1;
	uint32_t hi = top < g->ro->max_lid ? g->ro->max_lid : top;
	const uint8_t *want = route_lft(g->ro, s);

	for (uint32_t lid = lo; lid <= hi && lid < PROG_LID_SPACE; lid++) {
		uint32_t b = lid / SMP_LFT_BLOCK;

		if (top < g->ro->max_lid ? want[lid] == ROUTE_DROP :
		    lid < e->len && e->known[b] && e->lft[lid] == ROUTE_DROP)
			continue;
		if (!g->rerouted[lid]) {
			g->rerouted[lid] = 1;
			g->rep->lids_rerouted++;
		}
	}
}

static void send_block(struct prog *g, uint32_t s, uint32_t b)
{
	const uint8_t *want = route_lft(g->ro, s) + (size_t)b * SMP_LFT_BLOCK;
	uint64_t guid = g->sn->node[g->ro->sw_node[s]].guid;
	struct prog_lft *e = prog_cache_find(g->cache, guid);
	uint32_t nlids = (uint32_t)g->ro->max_lid + 1;
	struct smp_req r = { .method = SMP_SET, .attr_id = SMP_ATTR_LFT, .attr_mod = b };
	size_t n = SMP_LFT_BLOCK;

	if (e->known[b] && !memcmp(e->lft + (size_t)b * SMP_LFT_BLOCK, want,
				   b * SMP_LFT_BLOCK + n <= nlids ? n : nlids - b * SMP_LFT_BLOCK))
		return;
	if (!prog_port_route(g, subnet_port_idx(g->sn, g->ro->sw_node[s], 0), &r))
		return;
	/* The last block may run past max_lid: those LIDs are dropped. */
	memset(r.data, ROUTE_DROP, SMP_LFT_BLOCK);
	if ((size_t)b * SMP_LFT_BLOCK + n > nlids)
		n = nlids - (size_t)b * SMP_LFT_BLOCK;
	memcpy(r.data, want, n);
	count_rerouted(g, e, b, want, n);
	e->known[b] = 0; /* until the switch acknowledges it */
	g->rep->lft_blocks++;
	prog_submit(g, &r, PREQ_LFT_SET, s, b, 0);
}

/*
 * prog_opts.lft_later: block b of switch s taken to hold the routes, cached
 * as them (the SA's PathRecords follow it) but not known, so the next pass
 * reads it back.
 */
static void assume_block(struct prog *g, uint32_t s, struct prog_lft *e, uint32_t b)
{
	const uint8_t *want = route_lft(g->ro, s) + (size_t)b * SMP_LFT_BLOCK;
	size_t first = (size_t)b * SMP_LFT_BLOCK, nlids = (size_t)g->ro->max_lid + 1;
	size_t n = first + SMP_LFT_BLOCK <= nlids ? SMP_LFT_BLOCK : nlids - first;

	memset(e->lft + first, ROUTE_DROP, SMP_LFT_BLOCK);
	memcpy(e->lft + first, want, n);
	g->rep->lft_later_blocks++;
}

static void program_switch(struct prog *g, uint32_t s)
{
	uint32_t n = g->ro->sw_node[s];
	struct disc_node *ln = &g->live->node[n];
	uint32_t nblocks = (uint32_t)g->ro->max_lid / SMP_LFT_BLOCK + 1;
	struct prog_lft *e = prog_cache_get(g->cache, g->sn->node[n].guid);
	bool psc = ln->si.life_state & 0x04; /* IBA 14.2.5.4: PortStateChange */
	struct smp_req r = { .method = SMP_SET, .attr_id = SMP_ATTR_SWITCH_INFO };

	if (!e || prog_lft_size(e, nblocks * SMP_LFT_BLOCK) < 0) {
		g->err = -ENOMEM;
		return;
	}
	if (ln->si.lin_top != g->ro->max_lid || psc) {
		if (prog_port_route(g, subnet_port_idx(g->sn, n, 0), &r)) {
			smp_switch_info_set(ln->si_raw, g->ro->max_lid, psc, r.data);
			g->rep->si_sets++;
			if (ln->si.lin_top != g->ro->max_lid)
				count_top(g, s, e, ln->si.lin_top);
			prog_submit(g, &r, PREQ_SWITCH_INFO, s, 0, 0);
		}
	}
	/* Only a table the old master sized for these LIDs: any other was not routed for them. */
	bool later = g->o->lft_later && ln->si.lin_top && ln->si.lin_top == g->ro->max_lid;

	g->rep->lft_later_sw += later;
	for (uint32_t b = 0; b < nblocks; b++) {
		struct smp_req q = { .method = SMP_GET, .attr_id = SMP_ATTR_LFT, .attr_mod = b };

		if (later && !e->known[b]) {
			assume_block(g, s, e, b);
			continue;
		}

		/*
		 * A table we know (set it, or read it) is diffed; one we do not
		 * is read first, unless LinearFDBTop 0 says nothing was ever
		 * programmed: then every block is written without a read.
		 */
		if (e->known[b] || ln->si.lin_top == 0) {
			send_block(g, s, b);
			continue;
		}
		if (!prog_port_route(g, subnet_port_idx(g->sn, n, 0), &q))
			continue;
		g->rep->lft_reads++;
		prog_submit(g, &q, PREQ_LFT_GET, s, b, 0);
	}
}

void prog_lft_reply(struct prog *g, const struct preq *q, const uint8_t *resp, size_t len)
{
	uint64_t guid = g->sn->node[g->ro->sw_node[q->idx]].guid;
	struct prog_lft *e = prog_cache_find(g->cache, guid);
	uint8_t data[SMP_DATA_SIZE];

	if (!e || smp_data(resp, len, data) < 0)
		return;
	memcpy(e->lft + (size_t)q->block * SMP_LFT_BLOCK, data, SMP_LFT_BLOCK);
	e->known[q->block] = 1;
	if (q->kind == PREQ_LFT_GET)
		send_block(g, q->idx, q->block);
}

void prog_program_lfts(struct prog *g)
{
	for (uint32_t s = 0; s < g->ro->n_sw && !g->err; s++)
		program_switch(g, s);
}
