/* SPDX-License-Identifier: MIT */
/*
 * The channel dependency graph the all-to-all routes build, per (link, VL):
 * is each VL acyclic? Without SLs or an SL-to-VL map every route is on VL 0
 * and check.c sets the bits from the routing tree. With them, the routes of
 * each source switch to a LID are walked here for the VL on every link: a
 * link's VL is what the switch it leaves maps the route's SL to, for the
 * port it came in by and the port it leaves by. That depends on the
 * (link, SL) the route arrived on and nothing before it, so the walks are
 * memoised per (channel, SL) and each LID costs at most one step per
 * (channel, SL) in use. Only the first link depends on which host the
 * route started from (its in port): that is cached per (egress port, SL).
 *
 * The test is an iterative depth-first search (so a fabric of 100,000
 * channels cannot overflow the stack), once per VL over the dependencies
 * that stay on it, and once more over all of them if some cross from one
 * VL to another (a map that changes VL on the way); the first cycle found
 * is named.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cleanup.h"
#include "check_priv.h"

#define VL_END 16   /* memo: the route leaves the switches after this link */
#define VL_DROP 0x20 /* memo: it meets VL 15 after this link */

static uint8_t vl_of(const struct ck *k, uint32_t node, uint8_t in, uint8_t out, uint8_t sl)
{
	uint8_t v;

	if (!k->o->vl_of)
		return sl & 15;
	v = k->o->vl_of(k->o->vl_ctx, node, in, out, sl);
	return v > 15 ? 15 : v;
}

/* Channel c on VL v feeds the next switch's port e on VL w. */
static inline void dep_set(struct ck *k, uint32_t c, uint8_t v, uint32_t e, uint8_t w)
{
	uint8_t **bm = &k->dep_vl[v][w];
	uint32_t bit = k->dep_off[c] + e;

	if (!*bm) {
		*bm = calloc((size_t)k->dep_off[k->n_chan] / 8 + 1, 1);
		if (!*bm) {
			k->oom = true;
			return;
		}
	}
	(*bm)[bit / 8] |= (uint8_t)(1u << (bit % 8));
}

int ck_vl_setup(struct ck *k)
{
	size_t n = (size_t)k->n_chan * 16 + 1;

	k->vl_mode = k->o && (k->o->sl || k->o->vl_of);
	if (!k->vl_mode)
		return 0;
	k->first_vl = calloc((size_t)k->sn->n_ports * 16 + 1, sizeof(*k->first_vl));
	k->memo = calloc(n, sizeof(*k->memo));
	k->dropped = calloc((size_t)k->n_sw + 1, sizeof(*k->dropped));
	k->path = malloc(((size_t)k->n_chan + 2) * sizeof(*k->path));
	if (!k->first_vl || !k->memo || !k->dropped || !k->path)
		return -ENOMEM;
	return 0;
}

void ck_vl_free(struct ck *k)
{
	for (unsigned v = 0; v < CK_VLS; v++)
		for (unsigned w = 0; w < CK_VLS; w++)
			free(k->dep_vl[v][w]);
	free(k->first_vl);
	free(k->memo);
	free(k->dropped);
	free(k->path);
}

/* The VLs the hosts of switch s put on its link out by port e (bits 0-14),
 * and in bits 16-23 how many of them map to VL 15. Cached. */
static uint32_t first_vls(struct ck *k, uint32_t s, uint8_t e, uint8_t sl)
{
	const struct subnet *sn = k->sn;
	uint32_t node = k->out->sw_node[s], *c;

	c = &k->first_vl[(size_t)subnet_port_idx(sn, node, e) * 16 + (sl & 15)];
	if (*c & 1u << 31)
		return *c;
	*c = 1u << 31;
	for (uint32_t i = k->src_off[s]; i < k->src_off[s + 1]; i++) {
		uint8_t in = sn->port[sn->port[k->src[i]].peer].num, v = vl_of(k, node, in, e, sl);

		if (v == 15)
			*c += 1u << 16;
		else
			*c |= 1u << v;
	}
	return *c;
}

/* One step: the link after channel c (its egress at the next switch in *e)
 * and that link's VL, or VL_END. */
static uint8_t step(const struct ck *k, uint32_t c, uint8_t sl, uint32_t *nc, uint8_t *e)
{
	uint32_t t = k->chan_to[c];

	*e = k->col[t]; /* a delivered route's: within the switch's ports */
	*nc = k->adj[(size_t)t * k->stride + *e].chan;
	if (*nc == SUBNET_NONE)
		return VL_END; /* delivered there (the walk said so) */
	return vl_of(k, k->out->sw_node[t], k->chan_in[c], *e, sl);
}

/*
 * Walk from channel c to the end for SL sl, memoising each (channel, SL):
 * the next link's VL (or VL_END, or 15) and VL_DROP if 15 comes after, and
 * the port the route leaves the next switch by. Dependencies of
 * the walked stretch are set unless it ends in a drop. Returns c's memo.
 */
static uint8_t walk_vl(struct ck *k, uint32_t c, uint8_t sl)
{
	uint32_t n = 0, nc, c0 = c;
	uint8_t e;

	while (k->memo[(size_t)c * 16 + sl].tag != k->tag) {
		uint8_t v = step(k, c, sl, &nc, &e);

		k->memo[(size_t)c * 16 + sl] = (struct ck_memo){
			.tag = k->tag, .m = v == 15 ? 15 | VL_DROP : v, .e = e };
		k->path[n++] = c;
		if (v == 15 || v == VL_END)
			break;
		c = nc;
	}
	if (n && k->path[n - 1] != c) /* stopped at a link walked before: its memo is final */
		k->path[n++] = c;
	/* Back from the end: each link's drop flag and its dependency. */
	while (n-- > 1) {
		uint32_t b = k->path[n];
		uint8_t *ma = &k->memo[(size_t)k->path[n - 1] * 16 + sl].m;
		const struct ck_memo *mb = &k->memo[(size_t)b * 16 + sl];

		if ((*ma & VL_DROP) || (mb->m & VL_DROP)) {
			*ma |= VL_DROP;
			continue;
		}
		k->rep->vls_used |= (uint16_t)(1u << *ma);
		if ((mb->m & 0x1f) != VL_END)
			dep_set(k, b, *ma, mb->e, mb->m & 0x1f);
	}
	return k->memo[(size_t)c0 * 16 + sl].m;
}

/* Source switch s's routes to the LID (delivered, over at least one link). */
static void source_vl(struct ck *k, uint32_t s)
{
	uint32_t c, fm, vs;
	uint8_t e = k->col[s], sl = 0, m, e2;

	if (k->slcol)
		sl = k->slcol[s] & 15;
	fm = first_vls(k, s, e, sl);
	c = k->adj[(size_t)s * k->stride + e].chan;
	m = walk_vl(k, c, sl);
	if (m & VL_DROP) {
		k->dropped[s] = k->src_off[s + 1] - k->src_off[s];
		return;
	}
	k->dropped[s] = fm >> 16 & 0xff;
	k->rep->vls_used |= (uint16_t)(fm & 0x7fff);
	if ((m & 0x1f) == VL_END)
		return;
	e2 = k->memo[(size_t)c * 16 + sl].e;
	for (vs = fm & 0x7fff; vs; vs &= vs - 1)
		dep_set(k, c, (uint8_t)__builtin_ctz(vs), e2, m & 0x1f);
}

void ck_vl_lid(struct ck *k)
{
	if (++k->tag == 0) {
		memset(k->memo, 0, ((size_t)k->n_chan * 16 + 1) * sizeof(*k->memo));
		k->tag = 1;
	}
	for (uint32_t s = 0; s < k->n_sw; s++) {
		k->dropped[s] = 0;
		if (k->state[s] == CK_OK && k->hops[s] && k->src_off[s + 1] > k->src_off[s])
			source_vl(k, s);
	}
}

static bool dep_bit(const uint8_t *bm, uint32_t b)
{
	return bm[b / 8] & (1u << (b % 8));
}

/* The channel that channel c feeds when the next switch sends by port e. */
static uint32_t dep_target(const struct ck *k, uint32_t c, uint32_t e)
{
	const struct subnet *sn = k->sn;
	uint32_t y = sn->port[sn->port[k->chan_port[c]].peer].node;

	return k->port_chan[subnet_port_idx(sn, y, e)];
}

/* Depth-first search over nodes channel * nv + VL. */
struct cdg_dfs {
	uint32_t nv;
	int only;        /* a VL: only the dependencies that stay on it; -1 all */
	uint8_t *color;  /* 0 new, 1 open, 2 done */
	uint32_t *stk, *pos;
};

/* The next dependency of node u from cursor *i on: its target node, or SUBNET_NONE. */
static uint32_t next_dep(const struct ck *k, const struct cdg_dfs *g, uint32_t u, uint32_t *i)
{
	uint32_t c = u / g->nv, v = u % g->nv, deg = k->dep_off[c + 1] - k->dep_off[c];

	for (; *i < deg * g->nv; (*i)++) {
		uint32_t w = *i / deg, e = *i % deg, t;
		const uint8_t *bm = k->dep_vl[v][w];

		if (g->only >= 0 && w != (uint32_t)g->only) {
			*i = (w + 1) * deg - 1; /* skip this VL's block */
			continue;
		}
		if (!bm || !dep_bit(bm, k->dep_off[c] + e))
			continue;
		t = dep_target(k, c, e);
		(*i)++;
		if (t != SUBNET_NONE)
			return t * g->nv + w;
	}
	return SUBNET_NONE;
}

/* A cycle reachable from root: its nodes from stk[*at], how many; 0 if none. */
static uint32_t dfs_from(const struct ck *k, struct cdg_dfs *g, uint32_t root, uint32_t *at)
{
	uint32_t top = 0;

	g->color[root] = 1;
	g->stk[top] = root;
	g->pos[top++] = 0;
	while (top > 0) {
		uint32_t u = g->stk[top - 1], t = next_dep(k, g, u, &g->pos[top - 1]);

		if (t == SUBNET_NONE) {
			g->color[u] = 2;
			top--;
			continue;
		}
		if (g->color[t] == 2)
			continue;
		if (g->color[t] == 1) {
			uint32_t i = top - 1;

			while (i > 0 && g->stk[i] != t)
				i--;
			*at = i;
			return top - i;
		}
		g->color[t] = 1;
		g->stk[top] = t;
		g->pos[top++] = 0;
	}
	return 0;
}

/* Search g (only: a VL, or -1); name the first cycle and mark its VLs. */
static void find_cycle(struct ck *k, struct cdg_dfs *g, uint32_t nodes)
{
	memset(g->color, 0, nodes);
	for (uint32_t c = 0; c < k->n_chan; c++)
		for (uint32_t v = 0; v < g->nv; v++) {
			uint32_t u = c * g->nv + v, at = 0, n;

			if ((g->only >= 0 && v != (uint32_t)g->only) || g->color[u])
				continue;
			n = dfs_from(k, g, u, &at);
			if (!n)
				continue;
			if (k->rep->cdg_acyclic)
				ck_msg_cycle(k, g->stk + at, n, g->nv);
			k->rep->cdg_acyclic = false;
			for (uint32_t i = at; i < at + n; i++)
				k->rep->vls_cyclic |= (uint16_t)(1u << (g->stk[i] % g->nv));
			return;
		}
}

int ck_cdg(struct ck *k)
{
	uint32_t bits = k->dep_off[k->n_chan], nv = 1, nodes;
	bool cross = false;

	if (k->oom)
		return -ENOMEM;
	k->rep->cdg_deps = 0;
	k->rep->cdg_acyclic = true;
	k->rep->vls_cyclic = 0;
	for (uint32_t v = 0; v < CK_VLS; v++)
		for (uint32_t w = 0; w < CK_VLS; w++) {
			if (!k->dep_vl[v][w])
				continue;
			for (uint32_t b = 0; b < bits; b++)
				k->rep->cdg_deps += dep_bit(k->dep_vl[v][w], b);
			nv = v + 1 > nv ? v + 1 : nv;
			nv = w + 1 > nv ? w + 1 : nv;
			cross |= v != w;
		}
	nodes = k->n_chan * nv;
	{
		_cleanup_free_ uint8_t *color = malloc((size_t)nodes + 1);
		_cleanup_free_ uint32_t *stk = malloc(((size_t)nodes + 1) * sizeof(*stk));
		_cleanup_free_ uint32_t *pos = malloc(((size_t)nodes + 1) * sizeof(*pos));
		struct cdg_dfs g = { .nv = nv, .color = color, .stk = stk, .pos = pos };

		if (!color || !stk || !pos)
			return -ENOMEM;
		for (uint32_t v = 0; v < nv; v++) {
			g.only = (int)v;
			if (k->dep_vl[v][v])
				find_cycle(k, &g, nodes);
		}
		g.only = -1;
		if (cross && k->rep->cdg_acyclic)
			find_cycle(k, &g, nodes);
	}
	return 0;
}
