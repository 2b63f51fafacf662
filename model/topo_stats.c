/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cleanup.h"
#include "model/topo_stats.h"

static void count_port(const struct subnet *sn, uint32_t pi, struct topo_stats *st)
{
	const struct subnet_port *p = &sn->port[pi], *q;
	bool a_sw, b_sw;

	st->ports++;
	if (p->peer == SUBNET_NONE)
		return;
	st->ports_linked++;
	/* Count each cable from its lower-indexed end only. */
	if (p->peer < pi)
		return;
	q = &sn->port[p->peer];
	st->links++;
	if (q->node == p->node) {
		st->self_links++;
		return;
	}
	a_sw = subnet_is_switch(sn, p->node);
	b_sw = subnet_is_switch(sn, q->node);
	if (a_sw && b_sw)
		st->links_sw_sw++;
	else if (a_sw || b_sw)
		st->links_sw_end++;
	else
		st->links_end_end++;
}

/*
 * Parallel links: for each node, count links to each neighbour. A node's
 * ports are contiguous, so a small per-node scratch of neighbour indices is
 * enough; sort it and count runs. Each pair is seen from both ends, so only
 * the end with the lower node index counts it.
 */
static int count_parallel(const struct subnet *sn, struct topo_stats *st)
{
	_cleanup_free_ uint32_t *nb = malloc((SUBNET_MAX_PORTS + 1) * sizeof(*nb));

	if (!nb)
		return -ENOMEM;
	for (uint32_t n = 0; n < sn->n_nodes; n++) {
		const struct subnet_node *nd = &sn->node[n];
		unsigned k = 0;

		for (unsigned i = 1; i <= nd->nports; i++) {
			uint32_t peer = sn->port[nd->port_base + i].peer;

			if (peer != SUBNET_NONE && sn->port[peer].node > n)
				nb[k++] = sn->port[peer].node;
		}
		/* Insertion sort: k is at most the radix. */
		for (unsigned i = 1; i < k; i++)
			for (unsigned j = i; j > 0 && nb[j - 1] > nb[j]; j--) {
				uint32_t t = nb[j];

				nb[j] = nb[j - 1];
				nb[j - 1] = t;
			}
		for (unsigned i = 0; i < k;) {
			unsigned j = i + 1;

			while (j < k && nb[j] == nb[i])
				j++;
			if (j - i > 1) {
				st->parallel_pairs++;
				st->parallel_extra += j - i - 1;
			}
			i = j;
		}
	}
	return 0;
}

/* Breadth-first labelling of connected components; component 0 holds node 0. */
static int count_components(const struct subnet *sn, struct topo_stats *st)
{
	_cleanup_free_ uint32_t *comp = malloc(sn->n_nodes * sizeof(*comp) + 1);
	_cleanup_free_ uint32_t *queue = malloc(sn->n_nodes * sizeof(*queue) + 1);
	uint32_t ncomp = 0;

	if (!comp || !queue)
		return -ENOMEM;
	for (uint32_t n = 0; n < sn->n_nodes; n++)
		comp[n] = SUBNET_NONE;
	for (uint32_t s = 0; s < sn->n_nodes; s++) {
		uint32_t head = 0, tail = 0, size = 0;

		if (comp[s] != SUBNET_NONE)
			continue;
		comp[s] = ncomp;
		queue[tail++] = s;
		while (head < tail) {
			const struct subnet_node *nd = &sn->node[queue[head++]];

			size++;
			for (unsigned i = 0; i <= nd->nports; i++) {
				uint32_t peer = sn->port[nd->port_base + i].peer, m;

				if (peer == SUBNET_NONE)
					continue;
				m = sn->port[peer].node;
				if (comp[m] == SUBNET_NONE) {
					comp[m] = ncomp;
					queue[tail++] = m;
				}
			}
		}
		if (ncomp > 0)
			st->unreached += size;
		ncomp++;
	}
	st->components = ncomp;
	return 0;
}

int topo_stats_compute(const struct subnet *sn, struct topo_stats *st)
{
	struct topo_stats s = { 0 };
	int r;

	for (uint32_t n = 0; n < sn->n_nodes; n++) {
		const struct subnet_node *nd = &sn->node[n];
		uint32_t linked = s.ports_linked;

		switch (nd->type) {
		case NODE_SWITCH:
			s.switches++;
			s.radix[nd->nports]++;
			break;
		case NODE_CA:
			s.cas++;
			break;
		default:
			s.routers++;
			break;
		}
		for (unsigned i = 1; i <= nd->nports; i++)
			count_port(sn, nd->port_base + i, &s);
		if (s.ports_linked == linked)
			s.isolated++;
	}
	r = count_parallel(sn, &s);
	if (r == 0)
		r = count_components(sn, &s);
	if (r < 0)
		return r;
	*st = s;
	return 0;
}
