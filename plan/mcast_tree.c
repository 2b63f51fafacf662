/* SPDX-License-Identifier: MIT */
/*
 * One multicast group's spanning tree over the switches (IBA 18.2.4.3.3:
 * an MLID's MFT entries must form a tree, or packets loop).
 *
 * The member switches are those with a member port on them (a CA's peer
 * switch, or a switch that joins itself through port 0). The root is the
 * member switch whose farthest member switch is nearest (the tree's depth,
 * hence the worst delivery latency, is then least; ties go to the lowest
 * node index so the answer does not depend on hashing or timing). OpenSM
 * picks a root the same way by default (minimal average/maximal hops to
 * members); we use the maximum because it is the bound that matters for
 * the slowest receiver. Every member switch joins by one shortest path to
 * the root (a BFS tree, neighbours visited in port order: of parallel
 * links the lowest-numbered one carries the group).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cleanup.h"
#include "plan/mcast.h"

#define FAR UINT32_MAX

struct bfs {
	uint32_t *dist, *queue, *up; /* up: parent switch node */
	uint8_t *up_port, *down_port; /* on the child: port to parent; on the parent: to child */
};

static void bfs_free(struct bfs *b)
{
	free(b->dist);
	free(b->queue);
	free(b->up);
	free(b->up_port);
	free(b->down_port);
}

static int bfs_alloc(struct bfs *b, uint32_t n)
{
	b->dist = malloc(n * sizeof(*b->dist));
	b->queue = malloc(n * sizeof(*b->queue));
	b->up = malloc(n * sizeof(*b->up));
	b->up_port = malloc(n);
	b->down_port = malloc(n);
	return b->dist && b->queue && b->up && b->up_port && b->down_port ? 0 : -ENOMEM;
}

/* Hop counts from root over switch-to-switch links, with parents. */
static void bfs_run(const struct subnet *sn, uint32_t root, struct bfs *b)
{
	uint32_t head = 0, tail = 0;

	for (uint32_t i = 0; i < sn->n_nodes; i++)
		b->dist[i] = FAR;
	b->dist[root] = 0;
	b->up[root] = SUBNET_NONE;
	b->queue[tail++] = root;
	while (head < tail) {
		uint32_t u = b->queue[head++];
		const struct subnet_node *nu = &sn->node[u];

		for (unsigned num = 1; num <= nu->nports; num++) {
			const struct subnet_port *p = &sn->port[nu->port_base + num];
			uint32_t v;

			if (p->peer == SUBNET_NONE)
				continue;
			v = sn->port[p->peer].node;
			if (!subnet_is_switch(sn, v) || b->dist[v] != FAR)
				continue;
			b->dist[v] = b->dist[u] + 1;
			b->up[v] = u;
			b->up_port[v] = sn->port[p->peer].num;
			b->down_port[v] = (uint8_t)num;
			b->queue[tail++] = v;
		}
	}
}

/* The switch a member's packets enter by, and its port there; false if none. */
static bool member_at(const struct subnet *sn, uint64_t guid, uint32_t *sw, uint8_t *port)
{
	uint32_t pi = subnet_find_port_guid(sn, guid);
	const struct subnet_port *p;

	if (pi == SUBNET_NONE)
		return false;
	p = &sn->port[pi];
	if (subnet_is_switch(sn, p->node)) {
		*sw = p->node;
		*port = 0;
		return true;
	}
	if (p->peer == SUBNET_NONE || !subnet_is_switch(sn, sn->port[p->peer].node))
		return false;
	*sw = sn->port[p->peer].node;
	*port = sn->port[p->peer].num;
	return true;
}

/* The member switch whose farthest member switch is nearest; unreachable ones count most. */
static uint32_t pick_root(const struct subnet *sn, const uint32_t *msw, uint32_t n, struct bfs *b)
{
	uint32_t best = SUBNET_NONE, best_miss = FAR, best_far = FAR;

	for (uint32_t i = 0; i < n; i++) {
		uint32_t miss = 0, far = 0;

		bfs_run(sn, msw[i], b);
		for (uint32_t j = 0; j < n; j++) {
			if (b->dist[msw[j]] == FAR)
				miss++;
			else if (b->dist[msw[j]] > far)
				far = b->dist[msw[j]];
		}
		if (miss < best_miss || (miss == best_miss && far < best_far) ||
		    (miss == best_miss && far == best_far && msw[i] < best)) {
			best = msw[i];
			best_miss = miss;
			best_far = far;
		}
	}
	return best;
}

int mcast_tree(const struct subnet *sn, const struct mcast_group *g, struct mcast_ports *ports,
	       uint32_t *root)
{
	_cleanup_free_ uint32_t *msw = NULL;
	_cleanup_free_ uint8_t *in = NULL; /* [node]: 1 member switch, 2 in the tree */
	struct bfs b = { 0 };
	uint32_t n = 0;
	int r = -ENOMEM;

	*root = SUBNET_NONE;
	msw = malloc((g->n_m + 1) * sizeof(*msw));
	in = calloc(sn->n_nodes + 1, 1);
	if (!msw || !in)
		return -ENOMEM;
	for (uint32_t i = 0; i < g->n_m; i++) {
		uint32_t sw;
		uint8_t port;

		if (!member_at(sn, g->m[i].guid, &sw, &port))
			continue; /* not in this sweep's model: no tree branch for it */
		if (g->m[i].state & (MCAST_FULL | MCAST_NON))
			mcast_ports_set(&ports[sw], port);
		if (!in[sw]) {
			in[sw] = 1;
			msw[n++] = sw;
		}
	}
	if (!n)
		return 0;
	if (bfs_alloc(&b, sn->n_nodes) < 0)
		goto out;
	*root = pick_root(sn, msw, n, &b);
	bfs_run(sn, *root, &b);
	in[*root] = 2;
	for (uint32_t i = 0; i < n; i++) {
		/* Up to the root, or to where an earlier branch joined the tree. */
		for (uint32_t v = msw[i]; b.dist[v] != FAR && in[v] != 2; v = b.up[v]) {
			in[v] = 2;
			mcast_ports_set(&ports[v], b.up_port[v]);
			mcast_ports_set(&ports[b.up[v]], b.down_port[v]);
		}
	}
	r = 0;
out:
	bfs_free(&b);
	return r;
}
