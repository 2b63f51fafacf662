/* SPDX-License-Identifier: MIT */
/*
 * The fat tree's shape, for routing/ftree.c: every switch's level (0 for the
 * switches with CAs, the leaves; then hops from the nearest leaf), the order
 * the engine breaks ties in (level, then GUID: a rediscovery in another order
 * changes nothing), and the switch-to-switch edges split into down and up.
 *
 * A fabric is a fat tree here when every switch-to-switch cable joins two
 * adjacent levels. A torus, a dragonfly or a random graph with CAs on every
 * switch has cables between two leaves, and is refused with the first such
 * cable named: up-down routing over those levels would be wrong, and the
 * engine never quietly routes something else.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cleanup.h"
#include "ftree_priv.h"

void ft_free(struct ft *f)
{
	free(f->rank);
	free(f->ord);
	free(f->pos);
	free(f->hosts);
	free(f->off);
	free(f->up);
	free(f->to);
	free(f->rev);
	free(f->port);
	free(f->ecan);
	free(f->ecan_inv);
	free(f->load);
	free(f->stamp);
	free(f->chains);
	free(f->bases);
	free(f->dd);
	free(f->ud);
	free(f->bd);
	free(f->queue);
	free(f->via);
	free(f->chain_to);
	free(f->chain_gen);
	free(f->cgen);
	free(f->cedge);
	free(f->ckey);
	free(f->fgen);
	free(f->dn_off);
	free(f->dn_end);
	free(f->dn);
	free(f->flow);
	free(f->above);
	free(f->pmax);
	free(f->pgen);
	free(f->is_up);
	free(f->turn_head);
	free(f->turn_in);
	free(f->turn_out);
	free(f->turn_next);
	free(f->seen);
	free(f->equeue);
	free(f->dgen);
	free(f->dist);
	free(f->prev);
	free(f->heap);
	free(f->round);
	free(f->wbuf);
	free(f->glog);
	free(f->sib_mark);
}

/* Sources on each switch, and the leaves (switches with a CA or router linked). */
static uint32_t count_hosts(struct ft *f, uint32_t *queue)
{
	const struct subnet *sn = f->sn;
	uint32_t n = 0;

	for (uint32_t s = 0; s < f->n_sw; s++) {
		uint32_t node = f->out->sw_node[s];
		bool leaf = false;

		f->rank[s] = FT_NONE;
		for (unsigned p = 1; p <= sn->node[node].nports; p++) {
			uint32_t peer = sn->port[subnet_port_idx(sn, node, p)].peer;
			const struct subnet_port *pp;

			if (peer == SUBNET_NONE || subnet_is_switch(sn, sn->port[peer].node))
				continue;
			pp = &sn->port[peer];
			leaf = true;
			f->hosts[s] += pp->lid != 0;
		}
		if (leaf) {
			f->rank[s] = 0;
			queue[n++] = s;
		}
	}
	return n;
}

/* Levels: hops from the nearest leaf (a BFS from all of them). */
static void rank_bfs(struct ft *f, uint32_t *queue, uint32_t tail)
{
	uint32_t head = 0;

	while (head < tail) {
		uint32_t s = queue[head++], node = f->out->sw_node[s];

		for (unsigned p = 1; p <= f->sn->node[node].nports; p++) {
			uint32_t t = route_sw_peer(f->sn, f->out, node, p, NULL);

			if (t == SUBNET_NONE || f->rank[t] != FT_NONE)
				continue;
			f->rank[t] = f->rank[s] + 1;
			if (f->rank[t] + 1 > f->levels)
				f->levels = f->rank[t] + 1;
			queue[tail++] = t;
		}
	}
}

static int cmp_ord(const void *a, const void *b, void *ctx)
{
	const struct ft *f = ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	uint64_t gx = f->sn->node[f->out->sw_node[x]].guid;
	uint64_t gy = f->sn->node[f->out->sw_node[y]].guid;

	if (f->rank[x] != f->rank[y])
		return f->rank[x] < f->rank[y] ? -1 : 1;
	if (gx != gy)
		return gx < gy ? -1 : 1;
	return x < y ? -1 : x > y; /* two switches with one GUID: node order */
}

static const char *sw_name(const struct ft *f, uint32_t s)
{
	return subnet_str(f->sn, f->sn->node[f->out->sw_node[s]].name);
}

/* The first cable (in ord order) joining two switches of one level: -EINVAL. */
static int check_levels(const struct ft *f, struct route_why *why)
{
	for (uint32_t i = 0; i < f->n_ranked; i++) {
		uint32_t s = f->ord[i], node = f->out->sw_node[s];

		for (unsigned p = 1; p <= f->sn->node[node].nports; p++) {
			uint32_t pp = 0, t = route_sw_peer(f->sn, f->out, node, p, &pp);

			if (t == SUBNET_NONE || f->rank[t] != f->rank[s])
				continue;
			route_why_set(why,
				      "not a fat tree: \"%s\" port %u and \"%s\" port %u link two "
				      "switches of level %u (level 0 has the CAs; a fat tree links "
				      "only adjacent levels); route it with minhop or updn",
				      sw_name(f, s), p, sw_name(f, t), f->sn->port[pp].num,
				      f->rank[s]);
			return -EINVAL;
		}
	}
	return 0;
}

static int cmp_edge(const void *a, const void *b, void *ctx)
{
	const struct ft *f = ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	bool ux = f->rank[f->to[x]] != FT_NONE && f->rank[f->to[x]] > f->rank[f->to[f->rev[x]]];
	bool uy = f->rank[f->to[y]] != FT_NONE && f->rank[f->to[y]] > f->rank[f->to[f->rev[y]]];

	if (ux != uy)
		return ux ? 1 : -1;
	if (f->pos[f->to[x]] != f->pos[f->to[y]])
		return f->pos[f->to[x]] < f->pos[f->to[y]] ? -1 : 1;
	return f->port[x] < f->port[y] ? -1 : f->port[x] > f->port[y];
}

/*
 * Edges in port order first (so a cable's two ends can find each other
 * through eport[]), then each switch's run sorted: down before up, far
 * switch by ord place, then port.
 */
static int build_edges(struct ft *f)
{
	const struct subnet *sn = f->sn;
	_cleanup_free_ uint32_t *eport = malloc(((size_t)sn->n_ports + 1) * sizeof(*eport));
	_cleanup_free_ uint32_t *peerp = NULL, *perm = NULL, *inv = NULL, *tmp = NULL;
	uint32_t e = 0, n;

	f->off = calloc((size_t)f->n_sw + 1, sizeof(*f->off));
	f->up = calloc((size_t)f->n_sw + 1, sizeof(*f->up));
	if (!eport || !f->off || !f->up)
		return -ENOMEM;
	for (uint32_t s = 0; s < f->n_sw; s++) {
		uint32_t node = f->out->sw_node[s];

		for (unsigned p = 1; p <= sn->node[node].nports; p++)
			e += route_sw_peer(sn, f->out, node, p, NULL) != SUBNET_NONE;
	}
	n = f->n_edges = e;
	f->to = malloc(((size_t)n + 1) * sizeof(*f->to));
	f->rev = malloc(((size_t)n + 1) * sizeof(*f->rev));
	f->port = malloc((size_t)n + 1);
	peerp = malloc(((size_t)n + 1) * sizeof(*peerp));
	perm = malloc(((size_t)n + 1) * sizeof(*perm));
	inv = malloc(((size_t)n + 1) * sizeof(*inv));
	tmp = malloc(((size_t)n + 1) * sizeof(*tmp));
	if (!f->to || !f->rev || !f->port || !peerp || !perm || !inv || !tmp)
		return -ENOMEM;
	e = 0;
	for (uint32_t s = 0; s < f->n_sw; s++) {
		uint32_t node = f->out->sw_node[s];

		f->off[s] = e;
		for (unsigned p = 1; p <= sn->node[node].nports; p++) {
			uint32_t pp = 0, t = route_sw_peer(sn, f->out, node, p, &pp);

			if (t == SUBNET_NONE)
				continue;
			eport[subnet_port_idx(sn, node, p)] = e;
			peerp[e] = pp;
			f->to[e] = t;
			f->port[e++] = (uint8_t)p;
		}
	}
	f->off[f->n_sw] = e;
	for (uint32_t i = 0; i < n; i++)
		f->rev[i] = eport[peerp[i]];
	/* Sort each switch's run; perm[new] = old. rev[] is in old numbers here. */
	for (uint32_t s = 0; s < f->n_sw; s++) {
		uint32_t a = f->off[s], b = f->off[s + 1];

		for (uint32_t i = a; i < b; i++)
			perm[i] = i;
		qsort_r(perm + a, b - a, sizeof(*perm), cmp_edge, f);
		f->up[s] = b;
		for (uint32_t i = a; i < b; i++)
			if (f->up[s] == b && f->rank[s] != FT_NONE &&
			    f->rank[f->to[perm[i]]] > f->rank[s])
				f->up[s] = i;
	}
	for (uint32_t i = 0; i < n; i++)
		inv[perm[i]] = i;
	for (uint32_t i = 0; i < n; i++)
		tmp[i] = f->to[perm[i]];
	memcpy(f->to, tmp, (size_t)n * sizeof(*tmp));
	for (uint32_t i = 0; i < n; i++)
		tmp[i] = inv[f->rev[perm[i]]];
	memcpy(f->rev, tmp, (size_t)n * sizeof(*tmp));
	for (uint32_t i = 0; i < n; i++)
		tmp[i] = f->port[perm[i]];
	for (uint32_t i = 0; i < n; i++)
		f->port[i] = (uint8_t)tmp[i];
	return 0;
}

/* Edge numbers follow the model's node order; ties that cross switches use these. */
static int number_edges(struct ft *f)
{
	uint32_t e = 0;

	f->ecan = malloc(((size_t)f->n_edges + 1) * sizeof(*f->ecan));
	f->ecan_inv = malloc(((size_t)f->n_edges + 1) * sizeof(*f->ecan_inv));
	if (!f->ecan || !f->ecan_inv)
		return -ENOMEM;
	for (uint32_t i = 0; i < f->n_sw; i++) {
		uint32_t s = f->ord[i];

		for (uint32_t k = f->off[s]; k < f->off[s + 1]; k++) {
			f->ecan[k] = e;
			f->ecan_inv[e++] = k;
		}
	}
	return 0;
}

static int alloc_state(struct ft *f)
{
	size_t n = (size_t)f->n_sw + 1, e = (size_t)f->n_edges + 1;

	f->load = calloc(e, sizeof(*f->load));
	f->stamp = calloc(e, sizeof(*f->stamp));
	f->chains = calloc(n, sizeof(*f->chains));
	f->bases = calloc(e, sizeof(*f->bases));
	f->dd = malloc(n * sizeof(*f->dd));
	f->ud = malloc(n * sizeof(*f->ud));
	f->bd = malloc(n * sizeof(*f->bd));
	f->via = malloc(n * sizeof(*f->via));
	f->chain_to = malloc(n * sizeof(*f->chain_to));
	f->chain_gen = calloc(n, sizeof(*f->chain_gen));
	f->cgen = calloc(n, sizeof(*f->cgen));
	f->cedge = malloc(n * sizeof(*f->cedge));
	f->ckey = malloc(n * sizeof(*f->ckey));
	f->fgen = calloc(n, sizeof(*f->fgen));
	f->dn_off = malloc(n * sizeof(*f->dn_off));
	f->dn_end = malloc(n * sizeof(*f->dn_end));
	f->dn = malloc(e * sizeof(*f->dn));
	f->flow = malloc(n * sizeof(*f->flow));
	f->above = malloc(n * sizeof(*f->above));
	f->pmax = malloc(n * sizeof(*f->pmax));
	f->pgen = calloc(n, sizeof(*f->pgen));
	f->is_up = calloc(e, 1);
	f->turn_head = malloc(e * sizeof(*f->turn_head));
	f->seen = calloc(e, sizeof(*f->seen));
	f->equeue = malloc(e * sizeof(*f->equeue));
	f->dgen = calloc(e, sizeof(*f->dgen));
	f->dist = malloc(e * sizeof(*f->dist));
	f->prev = malloc(e * sizeof(*f->prev));
	f->round = malloc(n * sizeof(*f->round));
	f->sib_mark = calloc(e, sizeof(*f->sib_mark));
	if (!f->load || !f->stamp || !f->chains || !f->bases || !f->dd || !f->ud || !f->bd || !f->via ||
	    !f->chain_to || !f->chain_gen || !f->cgen || !f->cedge || !f->ckey || !f->fgen || !f->dn_off ||
	    !f->dn_end || !f->dn || !f->flow || !f->above || !f->pmax || !f->pgen || !f->is_up ||
	    !f->turn_head || !f->seen || !f->equeue || !f->dgen || !f->dist || !f->prev ||
	    !f->round || !f->sib_mark)
		return -ENOMEM;
	memset(f->turn_head, 0xff, e * sizeof(*f->turn_head)); /* FT_NONE */
	for (uint32_t s = 0; s < f->n_sw; s++)
		for (uint32_t i = f->up[s]; i < f->off[s + 1]; i++)
			f->is_up[i] = 1;
	return 0;
}

int ft_build(struct ft *f, struct route_why *why)
{
	size_t n = (size_t)f->n_sw + 1;
	uint32_t leaves;
	int r;

	f->rank = malloc(n * sizeof(*f->rank));
	f->ord = malloc(n * sizeof(*f->ord));
	f->pos = malloc(n * sizeof(*f->pos));
	f->hosts = calloc(n, sizeof(*f->hosts));
	f->queue = malloc(n * sizeof(*f->queue));
	if (!f->rank || !f->ord || !f->pos || !f->hosts || !f->queue)
		return -ENOMEM;
	leaves = count_hosts(f, f->queue);
	if (f->n_sw && !leaves) {
		route_why_set(why, "not a fat tree: no switch has a CA linked to it, so there "
			      "are no leaves to count levels from");
		return -EINVAL;
	}
	f->levels = leaves ? 1 : 0;
	rank_bfs(f, f->queue, leaves);
	for (uint32_t s = 0; s < f->n_sw; s++)
		f->ord[s] = s;
	qsort_r(f->ord, f->n_sw, sizeof(*f->ord), cmp_ord, f);
	for (uint32_t i = 0; i < f->n_sw; i++) {
		f->pos[f->ord[i]] = i;
		if (f->rank[f->ord[i]] != FT_NONE)
			f->n_ranked = i + 1;
	}
	r = check_levels(f, why);
	if (r < 0)
		return r;
	if (f->levels > FT_INF / 2) {
		route_why_set(why, "not a fat tree: %u levels", f->levels);
		return -EINVAL;
	}
	r = build_edges(f);
	if (r == 0)
		r = number_edges(f);
	if (r < 0)
		return r;
	return alloc_state(f);
}
