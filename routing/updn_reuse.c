/* SPDX-License-Identifier: MIT */
/*
 * Up/down routing that starts from a routing already made: the tuning
 * (updn_tune.c) routes the whole fabric again after each move of one
 * switch in the up order, though many destinations' trees are the same
 * as before. Ports are picked by the loads the destinations before left
 * (pick() in updn.c), so a destination whose tree is unchanged still gets
 * other ports when one before it changed: only the groups of destinations
 * (one switch's LIDs, in routing order) before the first whose tree
 * differs can be taken over. Each routing that counts flows records every
 * group's tree (the switches' modes, candidates and the order they pick
 * in: all pick() reads besides the loads) and, every UPDN_REUSE_EVERY
 * groups, the loads, stamps and counts before it. A routing with a base
 * (updn_tune.c) compares its trees with base's group by group and copies
 * base's table columns while they match; at the first that differs it
 * takes base's loads at the checkpoint before and routes on from there.
 * The tables are the same byte for byte as routing everything: what pick()
 * reads is the same at every step.
 * Cost: the records take UPDN_REUSE_BYTES at most (else nothing is
 * recorded and everything is routed); on ft3 k=16 (320 groups, 4096 link
 * ends) about 13 MB.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "updn_priv.h"

#define UPDN_REUSE_EVERY 4
#define UPDN_REUSE_BYTES (64ull << 20)

struct ud_tally {
	uint64_t routes, unreach, detours, host_detours;
	uint32_t unreach_lids;
};

void updn_reuse_free(struct ud *m)
{
	free(m->grp_tree);
	free(m->grp_at);
	free(m->snap_load);
	free(m->snap_stamp);
	free(m->snap_tally);
}

static uint32_t n_snap(uint32_t n_grp)
{
	return (n_grp + UPDN_REUSE_EVERY - 1) / UPDN_REUSE_EVERY + 1; /* + the end */
}

int updn_reuse_init(struct ud *m, const struct route_dest *d, const uint32_t *order,
		    uint32_t cnt)
{
	const struct ud *b = m->base;
	uint32_t g = 0, e = m->adj_off[m->n_sw], ns;
	uint64_t bytes;

	if (!m->flows)
		return 0;
	for (uint32_t i = 0; i < cnt; i++)
		g += !i || d[order[i]].sw != d[order[i - 1]].sw;
	m->grp_words = 3 * m->n_sw + e;
	ns = n_snap(g);
	bytes = (uint64_t)g * m->grp_words * 4 + (uint64_t)ns * (20ull * e + sizeof(struct ud_tally));
	if (!g || bytes > UPDN_REUSE_BYTES)
		return 0;
	m->grp_tree = malloc((size_t)g * m->grp_words * sizeof(uint32_t));
	m->grp_at = malloc(((size_t)g + 1) * sizeof(uint32_t));
	m->snap_load = malloc((size_t)ns * 2 * e * sizeof(uint64_t) + 1);
	m->snap_stamp = malloc((size_t)ns * e * sizeof(uint32_t) + 1);
	m->snap_tally = malloc((size_t)ns * sizeof(struct ud_tally));
	if (!m->grp_tree || !m->grp_at || !m->snap_load || !m->snap_stamp || !m->snap_tally)
		return -ENOMEM;
	m->n_grp = g;
	g = 0;
	for (uint32_t i = 0; i < cnt; i++)
		if (!i || d[order[i]].sw != d[order[i - 1]].sw)
			m->grp_at[g++] = i;
	m->grp_at[g] = cnt;
	m->reusing = b && b->grp_tree && b->n_grp == m->n_grp && b->by_flow == m->by_flow &&
		     b->look == m->look && b->flows;
	return 0;
}

/*
 * Write group g's tree into rec: modes and candidate counts, candidates,
 * the route length of each switch that picks, and each detour's place
 * among the detours, which pick first. A switch picks its own links,
 * looking ahead at those of the switches it leads to (ahead()), and adds
 * its routes to its next hop's: the order two switches pick in matters
 * only when one looks at the other's links. Switches with a legal route
 * look only at switches closer to the destination, which pick after them
 * in any order by length, and never at detours; so among them only the
 * lengths matter, and among the detours only the order of those that look
 * at each other (same_tree()). Most moves reorder switches only that way.
 */
static void record(const struct ud *m, uint32_t nr, uint32_t *rec)
{
	uint32_t *cand = rec + m->n_sw, *len = cand + m->adj_off[m->n_sw], *det = len + m->n_sw;
	uint32_t ndet = 0;

	for (uint32_t x = 0; x < m->n_sw; x++) {
		rec[x] = (uint32_t)m->mode[x] << 16 | m->ncand[x];
		len[x] = INF;
		det[x] = INF;
		for (uint32_t k = 0; k < m->adj_off[x + 1] - m->adj_off[x]; k++)
			cand[m->adj_off[x] + k] = k < m->ncand[x] ? m->cand[m->adj_off[x] + k] : INF;
	}
	for (uint32_t j = 0; j < nr; j++) {
		uint32_t x = m->queue[j];

		if (m->mode[x] == M_DETOUR)
			det[x] = ndet++;
		else
			len[x] = m->len[x];
	}
}

/* Does detour w pick on the same side of detour x in both records? */
static bool same_side(const uint32_t *det, const uint32_t *was, uint32_t x, uint32_t w)
{
	return det[w] == INF || (det[w] < det[x]) == (was[w] < was[x]);
}

/*
 * Are the trees of records rec and was the same for pick()? The same
 * modes, candidates and lengths, and every detour on the same side of each
 * detour whose links it looks at: its next hops' (look 1-4) and theirs
 * (look 2 and 4).
 */
static bool same_tree(const struct ud *m, const uint32_t *rec, const uint32_t *was)
{
	const uint32_t *cand = rec + m->n_sw, *det = cand + m->adj_off[m->n_sw] + m->n_sw;
	const uint32_t *was_det = was + (det - rec);
	bool deep = m->look == 2 || m->look == 4;

	if (memcmp(rec, was, (size_t)(det - rec) * sizeof(*rec)))
		return false;
	for (uint32_t x = 0; x < m->n_sw && m->look; x++) {
		if (det[x] == INF)
			continue;
		for (uint32_t i = 0; i < (rec[x] & 0xffff); i++) {
			uint32_t y = m->adj_nbr[cand[m->adj_off[x] + i]];

			if (!same_side(det, was_det, x, y))
				return false;
			for (uint32_t k = 0; deep && k < (rec[y] & 0xffff); k++)
				if (!same_side(det, was_det, x, m->adj_nbr[cand[m->adj_off[y] + k]]))
					return false;
		}
	}
	return true;
}

/* The state before group g (a checkpoint) from src's records, or src's end state. */
static void restore(struct ud *m, const struct ud *src, uint32_t snap, bool end)
{
	size_t e = m->adj_off[m->n_sw];
	const struct ud_tally *t = &src->snap_tally[snap];
	struct route_stats *st = &m->out->stats;

	memcpy(m->load, end ? src->load : src->snap_load + snap * 2 * e, e * sizeof(*m->load));
	memcpy(m->traffic, end ? src->traffic : src->snap_load + snap * 2 * e + e,
	       e * sizeof(*m->traffic));
	memcpy(m->stamp, end ? src->stamp : src->snap_stamp + snap * e, e * sizeof(*m->stamp));
	st->routes = t->routes;
	st->unreach = t->unreach;
	st->unreach_lids = t->unreach_lids;
	m->detours = t->detours;
	m->host_detours = t->host_detours;
	/* and base's checkpoints up to there, for routings that start from m */
	memcpy(m->snap_load, src->snap_load, (snap + 1) * 2 * e * sizeof(*m->snap_load));
	memcpy(m->snap_stamp, src->snap_stamp, (snap + 1) * e * sizeof(*m->snap_stamp));
	memcpy(m->snap_tally, src->snap_tally, (snap + 1) * sizeof(*m->snap_tally));
}

int64_t updn_reuse_group(struct ud *m, uint32_t g, uint32_t nr, const struct route_dest *d,
			 const uint32_t *order)
{
	const struct ud *b = m->base;
	uint32_t *rec;
	uint32_t c;

	if (!m->grp_tree)
		return 0;
	rec = m->grp_tree + (size_t)g * m->grp_words;
	record(m, nr, rec);
	if (!m->reusing)
		return 0;
	if (same_tree(m, rec, b->grp_tree + (size_t)g * m->grp_words)) {
		for (uint32_t i = m->grp_at[g]; i < m->grp_at[g + 1]; i++) {
			const struct route_dest *cur = &d[order[i]];

			for (uint32_t s = 0; s < m->n_sw; s++)
				memcpy(route_lft(m->out, s) + cur->lid, route_lft(b->out, s) + cur->lid,
				       cur->nlids);
		}
		return 1;
	}
	/* the first group that differs: route on from the checkpoint before it */
	m->reusing = false;
	c = g / UPDN_REUSE_EVERY;
	restore(m, b, c, false);
	return c * UPDN_REUSE_EVERY == g ? 0 : -1 - (int64_t)(c * UPDN_REUSE_EVERY);
}

void updn_reuse_save(struct ud *m, uint32_t g)
{
	size_t e = m->adj_off[m->n_sw];
	uint32_t snap = g == m->n_grp ? n_snap(m->n_grp) - 1 : g / UPDN_REUSE_EVERY;
	const struct route_stats *st = &m->out->stats;

	if (!m->grp_tree || (g % UPDN_REUSE_EVERY && g != m->n_grp))
		return;
	if (g == m->n_grp && m->reusing) { /* every group as base's: its end state */
		restore(m, m->base, n_snap(m->n_grp) - 1, true);
		return;
	}
	memcpy(m->snap_load + snap * 2 * e, m->load, e * sizeof(*m->load));
	memcpy(m->snap_load + snap * 2 * e + e, m->traffic, e * sizeof(*m->traffic));
	memcpy(m->snap_stamp + snap * e, m->stamp, e * sizeof(*m->stamp));
	m->snap_tally[snap] = (struct ud_tally){ st->routes, st->unreach, m->detours,
						 m->host_detours, st->unreach_lids };
}
