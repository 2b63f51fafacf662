/* SPDX-License-Identifier: MIT */
/*
 * MulticastForwardingTables: what every switch should hold (each group's
 * tree at its MLID) and what was programmed, by switch GUID (kept from
 * sweep to sweep, so a pass sends only the blocks that differ, and the
 * SA's MulticastForwardingTableRecords say what the switches hold).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/array.h"
#include "lib/cleanup.h"
#include "plan/mcast.h"

int mcast_want_build(const struct mcast *mc, const struct subnet *sn, struct mcast_want *w)
{
	_cleanup_free_ struct mcast_ports *tree = NULL;
	uint32_t top = 0;

	memset(w, 0, sizeof(*w));
	for (uint32_t i = 0; i < mc->n; i++)
		if (mc->g[i].mlid - MCAST_MLID_BASE + 1u > top)
			top = mc->g[i].mlid - MCAST_MLID_BASE + 1u;
	w->n = (top + MCAST_MFT_BLOCK - 1) / MCAST_MFT_BLOCK * MCAST_MFT_BLOCK;
	w->top = (uint16_t)(MCAST_MLID_BASE + top - 1);
	if (!w->n || !sn->n_nodes)
		return 0;
	w->e = calloc((size_t)sn->n_nodes * w->n, sizeof(*w->e));
	tree = calloc(sn->n_nodes, sizeof(*tree));
	if (!w->e || !tree) {
		mcast_want_free(w);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < mc->n; i++) {
		const struct mcast_group *g = &mc->g[i];
		uint32_t root, idx = g->mlid - MCAST_MLID_BASE;
		int r;

		memset(tree, 0, sn->n_nodes * sizeof(*tree));
		r = mcast_tree(sn, g, tree, &root);
		if (r < 0) {
			mcast_want_free(w);
			return r;
		}
		for (uint32_t node = 0; root != SUBNET_NONE && node < sn->n_nodes; node++)
			w->e[(size_t)node * w->n + idx] = tree[node];
	}
	return 0;
}

void mcast_want_free(struct mcast_want *w)
{
	free(w->e);
	memset(w, 0, sizeof(*w));
}

const struct mcast_mft *mcast_mft_find(const struct mcast *mc, uint64_t guid)
{
	/* A handful of switches per lookup, once a pass: a scan will do. */
	for (uint32_t i = 0; i < mc->n_mft; i++)
		if (mc->mft[i].guid == guid)
			return &mc->mft[i];
	return NULL;
}

struct mcast_mft *mcast_mft_get(struct mcast *mc, uint64_t guid)
{
	struct mcast_mft *t = (struct mcast_mft *)mcast_mft_find(mc, guid);

	if (t)
		return t;
	if (array_grow((void **)&mc->mft, &mc->cap_mft, mc->n_mft + 1, sizeof(*mc->mft)) < 0)
		return NULL;
	t = &mc->mft[mc->n_mft++];
	memset(t, 0, sizeof(*t));
	t->guid = guid;
	return t;
}

int mcast_mft_size(struct mcast_mft *t, uint32_t n)
{
	struct mcast_ports *e;
	uint8_t *k;
	uint32_t kb = n / MCAST_MFT_BLOCK * MCAST_MFT_POS, ko = t->n / MCAST_MFT_BLOCK * MCAST_MFT_POS;

	if (n <= t->n)
		return 0;
	e = realloc(t->e, n * sizeof(*e));
	if (e)
		t->e = e;
	k = realloc(t->known, kb);
	if (k)
		t->known = k;
	if (!e || !k)
		return -ENOMEM;
	memset(t->e + t->n, 0, (n - t->n) * sizeof(*e));
	memset(t->known + ko, 0, kb - ko);
	t->n = n;
	return 0;
}

void mcast_mft_block(const struct mcast_ports *e, uint32_t n, uint32_t block, unsigned pos,
		     uint16_t out[MCAST_MFT_BLOCK])
{
	for (uint32_t i = 0; i < MCAST_MFT_BLOCK; i++) {
		uint32_t idx = block * MCAST_MFT_BLOCK + i;
		const struct mcast_ports *p = &e[idx];

		out[i] = idx < n ? (uint16_t)(p->w[pos / 4] >> (16 * (pos % 4))) : 0;
	}
}
