/* SPDX-License-Identifier: MIT */
/*
 * Discovery of the part of the fabric an event can have changed (a trap 128,
 * or a light sweep that saw SwitchInfo:PortStateChange). The last model is
 * taken as read; only the switches that reported are read again, what their
 * ports newly reach is walked as disc_run walks, and what can no longer be
 * reached from the local node is dropped. A heavy sweep costs every node's
 * NodeInfo and every switch port's PortInfo; this costs the reporters' ports.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cleanup.h"
#include "fabric/disc_priv.h"

/* IBA 14.2.5.6 PortInfo:PortState. */
#define PORT_STATE_ACTIVE 4

/* The old model's node i, as a sweep that had just read it would hold it. */
static int seed_node(struct disc *d, const struct subnet *sn, const struct disc_live *lv,
		     uint32_t i)
{
	const struct subnet_node *m = &sn->node[i];
	const struct disc_node *ln = &lv->node[i];
	struct smp_node_info ni = { .node_type = m->type, .num_ports = m->nports,
				    .node_guid = m->guid, .sys_guid = m->sysguid,
				    .vendor_id = m->vendor_id, .device_id = m->device_id,
				    .partition_cap = ln->partition_cap, .revision = ln->revision,
				    .local_port = i == 0 ? lv->local_port : 0 };
	struct req q = { .hops = ln->hops };
	struct dnode *nd;
	uint32_t idx;
	int r;

	if (m->type == NODE_SWITCH)
		ni.port_guid = m->port0_guid;
	memcpy(q.path, ln->path, sizeof(q.path));
	r = disc_add_node(d, &ni, &q, &idx);
	if (r < 0)
		return r;
	nd = &d->node[idx];
	snprintf(nd->desc, sizeof(nd->desc), "%s", subnet_str(sn, m->desc));
	nd->si = ln->si;
	memcpy(nd->si_raw, ln->si_raw, sizeof(nd->si_raw));
	for (unsigned p = 0; p <= m->nports; p++) {
		const struct subnet_port *sp = &sn->port[m->port_base + p];
		const struct disc_port *lp = &lv->port[m->port_base + p];
		struct dport *dp = &nd->port[p];
		uint64_t guid = m->type == NODE_SWITCH ? (p == 0 ? m->port0_guid : 0) : sp->guid;

		if (guid && disc_set_port_guid(d, idx, (uint8_t)p, guid) < 0)
			return -ENOMEM;
		dp->have_pi = dp->pi_asked = lp->have_pi;
		dp->pi = lp->pi;
		memcpy(dp->raw, lp->raw, sizeof(dp->raw));
		if (sp->peer != SUBNET_NONE) {
			dp->peer_node = sn->port[sp->peer].node;
			dp->peer_port = sn->port[sp->peer].num;
		}
	}
	return 0;
}

/*
 * A route to every node reachable from the local node over the links the
 * sweep holds (only switches forward, IBA 14.2.2): hops, path, entry port.
 * Nodes in late (may be NULL) are passed through only when nothing else
 * reaches past them: a switch that reported may be the one whose link went.
 * seen[i] says who was reached, behind[i] (if not NULL) whether its route
 * passes a node in late; returns how many.
 */
static uint32_t route_all(struct disc *d, const bool *late, bool *seen, bool *behind)
{
	_cleanup_free_ uint32_t *q = malloc(2 * (size_t)d->n * sizeof(*q));
	uint32_t head = 0, tail = 0, lhead = d->n, ltail = d->n, got = 1;

	if (!q || !d->n)
		return 0;
	memset(seen, 0, d->n * sizeof(*seen));
	if (behind)
		memset(behind, 0, d->n * sizeof(*behind));
	seen[0] = true;
	d->node[0].hops = 0;
	d->node[0].entry_port = 0;
	q[tail++] = 0;
	while (head < tail || lhead < ltail) {
		uint32_t u = head < tail ? q[head++] : q[lhead++];
		struct dnode *nu = &d->node[u];
		bool sw = nu->ni.node_type == NODE_SWITCH;

		if ((!sw && u != 0) || nu->hops >= SMP_MAX_HOPS)
			continue;
		for (unsigned p = 1; p <= nu->ni.num_ports; p++) {
			uint32_t v = nu->port[p].peer_node;
			struct dnode *nv;

			if (v == SUBNET_NONE || seen[v] || (!sw && p != nu->ni.local_port))
				continue;
			seen[v] = true;
			got++;
			nv = &d->node[v];
			nv->hops = (uint8_t)(nu->hops + 1);
			memcpy(nv->path, nu->path, (size_t)nu->hops + 1);
			nv->path[nv->hops] = (uint8_t)p;
			nv->entry_port = nu->port[p].peer_port;
			if (behind)
				behind[v] = behind[u] || (u != 0 && late && late[u]);
			if (late && late[v])
				q[ltail++] = v;
			else
				q[tail++] = v;
		}
	}
	return got;
}

/*
 * A port of a reporter that is up but not Active: the link came up (or
 * bounced) and its far end must be armed and activated too, so programming
 * needs that end's PortInfo as it is now, not as the last sweep read it.
 */
static void reread_far_ends(struct disc *d, const bool *dirty, uint32_t n_old)
{
	/* Read in this sweep: a reporter, or a node the walk found (after the old ones). */
#define FRESH(i) ((i) >= n_old || dirty[i])
	for (uint32_t n = 0; n < d->n; n++) {
		const struct dnode *nd = &d->node[n];

		if (!FRESH(n))
			continue;
		for (unsigned p = 1; p <= nd->ni.num_ports; p++) {
			const struct dport *dp = &nd->port[p];
			uint8_t path[SMP_MAX_HOPS + 1];
			const struct dnode *far;

			if (dp->peer_node == SUBNET_NONE || FRESH(dp->peer_node) || !dp->have_pi ||
			    dp->pi.state == PORT_STATE_ACTIVE || nd->hops >= SMP_MAX_HOPS)
				continue;
			far = &d->node[dp->peer_node];
			if (far->ni.node_type == NODE_SWITCH) {
				disc_ask(d, REQ_PORT_INFO, dp->peer_node, dp->peer_port, far->path,
					 far->hops);
				continue;
			}
			if (far->port[dp->peer_port].pi_asked)
				continue;
			/* A CA's PortInfo is read through the link to it. */
			memcpy(path, nd->path, (size_t)nd->hops + 1);
			path[nd->hops + 1] = (uint8_t)p;
			disc_ask(d, REQ_PORT_INFO, dp->peer_node, dp->peer_port, path,
				 (uint8_t)(nd->hops + 1));
		}
	}
#undef FRESH
}

/* Keep the nodes seen[], in their order; links to the others are cut. */
static void keep_reached(struct disc *d, const bool *seen, uint32_t *map)
{
	uint32_t k = 0;

	for (uint32_t i = 0; i < d->n; i++) {
		if (!seen[i]) {
			free(d->node[i].port);
			map[i] = SUBNET_NONE;
			continue;
		}
		map[i] = k;
		if (k != i)
			d->node[k] = d->node[i];
		k++;
	}
	for (uint32_t i = 0; i < k; i++)
		for (unsigned p = 0; p <= d->node[i].ni.num_ports; p++) {
			struct dport *dp = &d->node[i].port[p];

			if (dp->peer_node != SUBNET_NONE)
				dp->peer_node = map[dp->peer_node];
		}
	d->n = k;
}

static int seed(struct disc *d, const struct subnet *old, const struct disc_live *old_live,
		const uint32_t *dirty, uint32_t n_dirty, bool *is_dirty)
{
	for (uint32_t i = 0; i < old->n_nodes; i++) {
		int r = seed_node(d, old, old_live, i);

		if (r < 0)
			return r;
	}
	for (uint32_t k = 0; k < n_dirty; k++)
		if (dirty[k] < d->n && d->node[dirty[k]].ni.node_type == NODE_SWITCH)
			is_dirty[dirty[k]] = true;
	return 0;
}

/*
 * Ask the reporters in ask again: SwitchInfo (PortStateChange) first, then
 * every port's PortInfo of those that answered it. A reporter cut off (a
 * switch removed can have trapped or shown PortStateChange before it went)
 * then costs one request's retries, not those of all its ports; its links
 * are cut, and judge_silent() decides.
 */
static int ask_dirty(struct disc *d, const bool *ask)
{
	int r;

	for (uint32_t n = 0; n < d->n; n++)
		if (ask[n])
			disc_ask(d, REQ_SWITCH_INFO, n, 0, d->node[n].path, d->node[n].hops);
	r = d->err ? d->err : txn_run(d->x, -1);
	if (r < 0)
		return r;
	for (uint32_t n = 0; n < d->n; n++) {
		struct dnode *nd = &d->node[n];

		if (!ask[n])
			continue;
		for (unsigned p = 1; p <= nd->ni.num_ports; p++)
			nd->port[p].lost_peer = SUBNET_NONE;
		if (!nd->si_read) {
			for (unsigned p = 1; p <= nd->ni.num_ports; p++)
				disc_unlink(d, n, p);
			continue;
		}
		/* Linked ports stay linked if still Active (got_port_info), else are walked again. */
		for (unsigned p = 1; p <= nd->ni.num_ports; p++)
			nd->port[p].recheck = nd->port[p].peer_node != SUBNET_NONE;
		for (unsigned p = 1; p <= nd->ni.num_ports; p++)
			disc_ask(d, REQ_PORT_INFO, n, (uint8_t)p, nd->path, nd->hops);
	}
	return d->err ? d->err : txn_run(d->x, -1);
}

/*
 * A reporter that answered nothing was cut off (a switch removed reports
 * as its links go): its requests' timeouts are not failures if it is now
 * unreachable; if something still reaches it, that is a contradiction.
 */
static void judge_silent(struct disc *d, const bool *is_dirty, const bool *seen)
{
	for (uint32_t n = 0; n < d->n; n++) {
		const struct dnode *nd = &d->node[n];
		char buf[4 * SMP_MAX_HOPS];

		if (!is_dirty[n] || nd->si_read)
			continue;
		if (seen[n]) {
			d->rep->conflicts++;
			diag_msg(&d->rep->msgs, "switch 0x%016" PRIx64 " at path %s answers nothing "
				 "but is still linked to the rest of the fabric", nd->ni.node_guid,
				 disc_path_str(nd->path, nd->hops, buf, sizeof(buf)));
			continue;
		}
		d->rep->silent++;
		/* Its SwitchInfo and every port's PortInfo timed out (or were never sent). */
		d->rep->timeouts -= d->rep->timeouts < nd->ni.num_ports + 1u ?
				    d->rep->timeouts : nd->ni.num_ports + 1u;
	}
}

/* The ports of the reporters asked whose PortInfo did not come: their links are not known. */
static void unlink_unanswered(struct disc *d, const bool *ask, uint32_t n0)
{
	for (uint32_t n = 0; n < n0; n++)
		for (unsigned p = 1; ask[n] && p <= d->node[n].ni.num_ports; p++)
			if (d->node[n].port[p].recheck) {
				d->node[n].port[p].recheck = false;
				disc_unlink(d, n, p);
			}
}

/* Grow *a (bool[from]) to to entries, the new ones false. */
static int grow(bool **a, uint32_t from, uint32_t to)
{
	bool *p = realloc(*a, to ? to : 1);

	if (!p)
		return -ENOMEM;
	memset(p + from, 0, to - from);
	*a = p;
	return 0;
}

/*
 * The switches at the far end of links the reporters asked found gone: their
 * ports changed too (SwitchInfo:PortStateChange, a trap on its way), so
 * they are asked in the next round, not in a sweep of their own. (A link
 * up is not done so: activating it changes both ends' state again.)
 */
static void far_ends(struct disc *d, const bool *ask, uint32_t n0, bool *is_dirty, bool *left)
{
	for (uint32_t n = 0; n < n0; n++)
		for (unsigned p = 1; ask[n] && p <= d->node[n].ni.num_ports; p++) {
			uint32_t f = d->node[n].port[p].lost_peer;

			if (f < n0 && !is_dirty[f])
				is_dirty[f] = left[f] = true;
		}
}

/*
 * Ask the reporters, those reached through no other reporter first: what
 * those say may cut the others off (a switch removed: its neighbours report
 * their ports down, and it may have reported too), and a reporter that no
 * route reaches any more is not asked at all, so nothing waits on it. A
 * round with only reporters behind reporters asks them all; the far ends of
 * links found down join the next round (is_dirty grows with them).
 */
static int ask_rounds(struct disc *d, bool *is_dirty, bool **seen)
{
	_cleanup_free_ bool *left = calloc(d->n ? d->n : 1, 1);
	_cleanup_free_ bool *behind = calloc(d->n ? d->n : 1, 1);
	_cleanup_free_ bool *ask = calloc(d->n ? d->n : 1, 1);
	uint32_t n0 = d->n, size = d->n;
	int r = 0;

	if (!left || !behind || !ask)
		return -ENOMEM;
	memcpy(left, is_dirty, n0);
	for (;;) {
		bool any = false, front = false;

		/* Nodes the last answers found come after the others: the arrays grow with them. */
		if (d->n > size) {
			if (grow(&left, size, d->n) || grow(&behind, size, d->n) ||
			    grow(&ask, size, d->n) || grow(seen, size, d->n))
				return -ENOMEM;
			size = d->n;
		}
		route_all(d, left, *seen, behind);
		for (uint32_t n = 0; n < n0; n++) {
			left[n] = left[n] && (*seen)[n];
			front |= left[n] && !behind[n];
		}
		for (uint32_t n = 0; n < n0; n++) {
			ask[n] = left[n] && (!behind[n] || !front);
			any |= ask[n];
			left[n] = left[n] && !ask[n];
		}
		if (!any)
			return 0;
		/* Asked once each: a reporter cut off costs one request's retries, not three. */
		d->first_round = DISC_ROUNDS - 1;
		r = ask_dirty(d, ask);
		d->first_round = 0;
		if (r == 0)
			unlink_unanswered(d, ask, n0);
		/* The links the answers claim are made (or refused) before the next round's routes. */
		if (r == 0 && !d->err)
			r = disc_verify_claims(d);
		if (r == 0 && !d->err)
			far_ends(d, ask, n0, is_dirty, left);
		if (r < 0)
			return r;
		if (d->err)
			return d->err;
	}
}

int disc_part(struct txn *x, const struct subnet *old, const struct disc_live *old_live,
	      const struct subnet *gone, const struct disc_live *gone_live,
	      const uint32_t *dirty, uint32_t n_dirty, struct subnet **out,
	      struct disc_live *live, struct disc_report *rep)
{
	struct disc d = { .x = x, .rep = rep, .gone = gone_live ? gone : NULL,
			  .gone_live = gone_live };
	_cleanup_free_ bool *is_dirty = NULL, *seen = NULL;
	_cleanup_free_ uint32_t *map = NULL;
	struct subnet *sn = NULL;
	uint32_t cap;
	int r;

	if (!old->n_nodes)
		return -EINVAL;
	/* New nodes come after the old ones; the arrays grow with them below. */
	cap = old->n_nodes;
	is_dirty = calloc(cap, sizeof(*is_dirty));
	if (!is_dirty)
		return -ENOMEM;
	r = seed(&d, old, old_live, dirty, n_dirty, is_dirty);
	seen = calloc(d.n ? d.n : 1, sizeof(*seen));
	if (r == 0 && !seen)
		r = -ENOMEM;
	if (r == 0)
		r = ask_rounds(&d, is_dirty, &seen);
	if (r == 0 && d.err)
		r = d.err;
	if (r == 0)
		r = disc_verify_claims(&d);
	disc_namesakes_report(&d);
	if (r == 0) {
		bool *s = realloc(seen, d.n * sizeof(*seen));
		bool *dd = realloc(is_dirty, d.n * sizeof(*is_dirty));

		if (s)
			seen = s;
		if (dd) {
			is_dirty = dd;
			memset(is_dirty + cap, 0, (d.n - cap) * sizeof(*is_dirty));
		}
		r = s && dd ? 0 : -ENOMEM;
	}
	if (r == 0) {
		route_all(&d, NULL, seen, NULL);
		judge_silent(&d, is_dirty, seen);
		reread_far_ends(&d, is_dirty, cap);
		r = d.err ? d.err : txn_run(x, -1);
	}
	if (r == 0 && d.err)
		r = d.err;
	map = r == 0 ? malloc(d.n * sizeof(*map)) : NULL;
	if (r == 0 && !map)
		r = -ENOMEM;
	if (r == 0) {
		keep_reached(&d, seen, map);
		r = disc_build(&d, &sn);
	}
	if (r == 0 && live)
		r = disc_build_live(&d, sn, live);
	if (r == 0)
		*out = sn;
	else
		subnet_free(sn);
	disc_free(&d);
	return r;
}
