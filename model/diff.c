/* SPDX-License-Identifier: MIT */
/*
 * Two models of one fabric, from two sweeps: what changed, as events an
 * operator can act on ("link down: leaf07 port 12 <-> spine02 port 3").
 * Nodes are the same node when their NodeGUIDs are; a port is its node and
 * number. Model indices differ from sweep to sweep and mean nothing here.
 */
#include <inttypes.h>
#include <stdio.h>

#include "model/diff.h"

static const char *const kind_name[_DIFF_MAX] = {
	[DIFF_NODE_GONE] = "node gone",
	[DIFF_NODE_NEW] = "node new",
	[DIFF_LINK_DOWN] = "link down",
	[DIFF_LINK_UP] = "link up",
};

const char *diff_kind_name(enum diff_kind k)
{
	return (unsigned)k < _DIFF_MAX ? kind_name[k] : "?";
}

/* The port of `other` that is port pi of `sn` (same node GUID, same number), or SUBNET_NONE. */
static uint32_t same_port(const struct subnet *sn, uint32_t pi, const struct subnet *other)
{
	const struct subnet_port *p = &sn->port[pi];
	uint32_t n;

	if (!other)
		return SUBNET_NONE;
	n = subnet_find_guid(other, sn->node[p->node].guid);
	if (n == SUBNET_NONE || p->num > other->node[n].nports)
		return SUBNET_NONE;
	return subnet_port_idx(other, n, p->num);
}

/* Is port pi's link in sn (to its peer) also in other? */
static bool link_in(const struct subnet *sn, uint32_t pi, const struct subnet *other)
{
	uint32_t a = same_port(sn, pi, other), b = same_port(sn, sn->port[pi].peer, other);

	return a != SUBNET_NONE && b != SUBNET_NONE && other->port[a].peer == b;
}

/* The link's ends, the lower (NodeGUID, port) first; false for the end that is not it. */
static bool first_end(const struct subnet *sn, uint32_t pi)
{
	const struct subnet_port *p = &sn->port[pi], *q = &sn->port[p->peer];
	uint64_t gp = sn->node[p->node].guid, gq = sn->node[q->node].guid;

	return gp < gq || (gp == gq && p->num < q->num);
}

static unsigned nodes_missing(const struct subnet *sn, const struct subnet *other,
			      enum diff_kind kind, diff_fn fn, void *arg)
{
	unsigned n = 0;

	for (uint32_t i = 0; sn && i < sn->n_nodes; i++) {
		if (other && subnet_find_guid(other, sn->node[i].guid) != SUBNET_NONE)
			continue;
		fn(arg, &(struct diff_event){ kind, i, SUBNET_NONE });
		n++;
	}
	return n;
}

static unsigned links_missing(const struct subnet *sn, const struct subnet *other,
			      enum diff_kind kind, diff_fn fn, void *arg)
{
	unsigned n = 0;

	for (uint32_t pi = 0; sn && pi < sn->n_ports; pi++) {
		const struct subnet_port *p = &sn->port[pi];

		if (p->peer == SUBNET_NONE || !first_end(sn, pi) || link_in(sn, pi, other))
			continue;
		fn(arg, &(struct diff_event){ kind, pi, p->peer });
		n++;
	}
	return n;
}

unsigned diff_models(const struct subnet *old, const struct subnet *cur, diff_fn fn, void *arg)
{
	return nodes_missing(old, cur, DIFF_NODE_GONE, fn, arg) +
	       nodes_missing(cur, old, DIFF_NODE_NEW, fn, arg) +
	       links_missing(old, cur, DIFF_LINK_DOWN, fn, arg) +
	       links_missing(cur, old, DIFF_LINK_UP, fn, arg);
}

static int node_str(const struct subnet *sn, uint32_t n, char *buf, size_t len)
{
	const struct subnet_node *nd = &sn->node[n];

	return snprintf(buf, len, "%s 0x%016" PRIx64 " \"%s\"", subnet_type_name(nd->type), nd->guid,
			subnet_str(sn, nd->desc));
}

const char *diff_event_str(const struct subnet *old, const struct subnet *cur,
			   const struct diff_event *ev, char *buf, size_t len)
{
	const struct subnet *sn = ev->kind == DIFF_NODE_GONE || ev->kind == DIFF_LINK_DOWN ? old : cur;
	int off = snprintf(buf, len, "%s: ", diff_kind_name(ev->kind));

	if (off < 0 || (size_t)off >= len)
		return buf;
	if (ev->kind == DIFF_NODE_GONE || ev->kind == DIFF_NODE_NEW) {
		node_str(sn, ev->a, buf + off, len - (size_t)off);
		return buf;
	}
	off += node_str(sn, sn->port[ev->a].node, buf + off, len - (size_t)off);
	if ((size_t)off < len)
		off += snprintf(buf + off, len - (size_t)off, " port %u <-> ", sn->port[ev->a].num);
	if ((size_t)off < len)
		off += node_str(sn, sn->port[ev->b].node, buf + off, len - (size_t)off);
	if ((size_t)off < len)
		snprintf(buf + off, len - (size_t)off, " port %u", sn->port[ev->b].num);
	return buf;
}
