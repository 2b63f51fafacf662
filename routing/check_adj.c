/* SPDX-License-Identifier: MIT */
/*
 * The checker's view of the fabric in compact arrays, built once: each
 * switch's ports by number (what its egress reaches: a switch, a port, or
 * nothing; the channel it leaves by), each switch's switch neighbours for the
 * BFS, and each channel's far end. The LFTs are read by column: the entries
 * of every switch for a batch of LIDs are gathered in one pass over the
 * tables, so a LID's walks read one contiguous array instead of a cache line
 * of a different row per switch.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check_priv.h"

void ck_adj_free(struct ck *k)
{
	free(k->np);
	free(k->adj);
	free(k->nb_off);
	free(k->nb);
	free(k->chan_to);
	free(k->chan_in);
}

/* What leaves switch node by port e reaches (e 0: the switch's own port 0). */
static uint32_t port_to(const struct ck *k, uint32_t node, unsigned e)
{
	const struct subnet *sn = k->sn;
	uint32_t pi = subnet_port_idx(sn, node, e), peer = sn->port[pi].peer;

	if (e == 0)
		return CK_TO_PORT | pi;
	if (peer == SUBNET_NONE)
		return CK_TO_DEAD;
	if (!subnet_is_switch(sn, sn->port[peer].node))
		return CK_TO_PORT | peer;
	return k->out->sw_index[sn->port[peer].node];
}

/* Switch s's distinct switch neighbours into nb[] from *n on; their count. */
static uint32_t neighbours(struct ck *k, uint32_t s, uint32_t n)
{
	uint32_t first = n;

	for (unsigned e = 1; e <= k->np[s]; e++) {
		uint32_t t = k->adj[(size_t)s * k->stride + e].to, i;

		if (t & CK_TO_PORT)
			continue;
		for (i = first; i < n && k->nb[i] != t; i++)
			;
		if (i == n)
			k->nb[n++] = t;
	}
	return n;
}

int ck_adj_setup(struct ck *k)
{
	const struct subnet *sn = k->sn;
	uint32_t n = 0, max = 0;

	if (sn->n_ports >= CK_TO_PORT)
		return -ENOMEM; /* cannot be encoded; no fabric is that big */
	k->np = malloc((size_t)k->n_sw + 1);
	if (!k->np)
		return -ENOMEM;
	for (uint32_t s = 0; s < k->n_sw; s++) {
		k->np[s] = sn->node[k->out->sw_node[s]].nports;
		max = k->np[s] > max ? k->np[s] : max;
	}
	k->stride = max + 1;
	k->adj = malloc(((size_t)k->n_sw * k->stride + 1) * sizeof(*k->adj));
	k->nb_off = malloc(((size_t)k->n_sw + 1) * sizeof(*k->nb_off));
	k->nb = malloc(((size_t)k->n_chan + 1) * sizeof(*k->nb));
	k->chan_to = malloc(((size_t)k->n_chan + 1) * sizeof(*k->chan_to));
	k->chan_in = malloc((size_t)k->n_chan + 1);
	if (!k->adj || !k->nb_off || !k->nb || !k->chan_to || !k->chan_in)
		return -ENOMEM;
	for (uint32_t s = 0; s < k->n_sw; s++) {
		uint32_t node = k->out->sw_node[s];

		for (unsigned e = 0; e <= k->np[s]; e++) {
			struct ck_hop *h = &k->adj[(size_t)s * k->stride + e];

			h->to = port_to(k, node, e);
			h->chan = e ? k->port_chan[subnet_port_idx(sn, node, e)] : SUBNET_NONE;
		}
		k->nb_off[s] = n;
		n = neighbours(k, s, n);
	}
	k->nb_off[k->n_sw] = n;
	for (uint32_t c = 0; c < k->n_chan; c++) {
		const struct subnet_port *p = &sn->port[sn->port[k->chan_port[c]].peer];

		k->chan_to[c] = k->out->sw_index[p->node];
		k->chan_in[c] = p->num;
	}
	return 0;
}

/* Fewest switch-to-switch hops from every switch to switch dst. */
void ck_bfs(struct ck *k, uint32_t dst)
{
	uint32_t head = 0, tail = 0, *dist = k->dist, *q = k->queue;

	for (uint32_t s = 0; s < k->n_sw; s++)
		dist[s] = CK_INF;
	dist[dst] = 0;
	q[tail++] = dst;
	while (head < tail) {
		uint32_t s = q[head++], d = dist[s] + 1;

		for (uint32_t i = k->nb_off[s]; i < k->nb_off[s + 1]; i++) {
			uint32_t t = k->nb[i];

			if (dist[t] == CK_INF) {
				dist[t] = d;
				q[tail++] = t;
			}
		}
	}
}

/* cols[j * n_sw + s]: switch s's entry for lids[j] (j < n <= CK_COLS), and
 * its SL in slcols; a LID above the tables' top is dropped everywhere. */
void ck_cols(struct ck *k, const uint32_t *lids, uint32_t n)
{
	const struct route_out *out = k->out;
	size_t w = (size_t)out->max_lid + 1;
	uint32_t in[CK_COLS], m = 0; /* the columns of LIDs within the tables */

	for (uint32_t j = 0; j < n; j++) {
		if (lids[j] <= out->max_lid) {
			in[m++] = j;
			continue;
		}
		memset(k->cols + (size_t)j * k->n_sw, ROUTE_DROP, k->n_sw);
		if (k->slcols)
			memset(k->slcols + (size_t)j * k->n_sw, 0, k->n_sw);
	}
	for (uint32_t s = 0; s < k->n_sw; s++) {
		const uint8_t *row = route_lft(out, s);

		for (uint32_t i = 0; i < m; i++)
			k->cols[(size_t)in[i] * k->n_sw + s] = row[lids[in[i]]];
	}
	if (!k->slcols)
		return;
	for (uint32_t s = 0; s < k->n_sw; s++) {
		const uint8_t *row = k->o->sl + (size_t)s * w;

		for (uint32_t i = 0; i < m; i++)
			k->slcols[(size_t)in[i] * k->n_sw + s] = row[lids[in[i]]];
	}
}
