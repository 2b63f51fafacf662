/* SPDX-License-Identifier: MIT */
/*
 * Duplicate switch GUIDs. A NodeInfo answer that names a switch the sweep
 * already knows, through a port of it not linked yet, is either a redundant
 * link to the same switch or another switch with the same GUID. The sweep
 * cannot tell from the answer, so it keeps a claim and, once the sweep is
 * done, probes: through the new route into the switch and out again by a
 * port whose far end is known (the link it was first found by). The same
 * switch answers from there with that known neighbour, port and all; a
 * namesake answers with its own neighbour, or not at all. Genuine links are
 * then linked; a namesake is left out with what is reachable only through
 * it, and the port facing it is reported and left alone. The switch found
 * first (nearest the SM in the breadth-first sweep) keeps the GUID. This
 * costs one SMP per redundant link between known switches, a few percent of
 * a sweep.
 *
 * Duplicate CA GUIDs need no probe: a CA port has one link, so a CA that
 * gives a known NodeGUID through a port already linked elsewhere, or a known
 * CA PortGUID on another port, is another CA. It is left out the same way,
 * and so is a node whose GUID a node of the other type has. These are
 * reported once the sweep is done, when every description is known.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/array.h"
#include "fabric/disc_priv.h"

int disc_claim(struct disc *d, const struct req *q, uint32_t n, uint8_t port)
{
	struct disc_claim *c;

	if (array_grow((void **)&d->claim, &d->cap_claims, d->n_claims + 1, sizeof(*c)) < 0)
		return -ENOMEM;
	c = &d->claim[d->n_claims++];
	*c = (struct disc_claim){ .node = n, .port = port, .from_node = q->node,
				  .from_port = q->port, .hops = q->hops };
	memcpy(c->path, q->path, (size_t)q->hops + 1);
	/*
	 * Its far end is what the claim is about: walking it too would ask
	 * the question again from the other side.
	 */
	d->node[n].port[port].claimed = true;
	d->node[n].port[port].claim = d->n_claims; /* index + 1 */
	return 0;
}

/* A port of n, other than skip, whose far end the sweep found by walking; 0 if none. */
static uint8_t known_port(const struct disc *d, uint32_t n, uint8_t skip)
{
	const struct dnode *nd = &d->node[n];

	if (nd->hops && nd->entry_port != skip &&
	    nd->port[nd->entry_port].peer_node != SUBNET_NONE)
		return nd->entry_port;
	for (unsigned p = 1; p <= nd->ni.num_ports; p++)
		if (p != skip && nd->port[p].peer_node != SUBNET_NONE)
			return (uint8_t)p;
	return 0;
}

static void report_dup(struct disc *d, const struct disc_claim *c, const char *why)
{
	char a[4 * SMP_MAX_HOPS], b[4 * SMP_MAX_HOPS];
	const struct dnode *nd = &d->node[c->node];

	d->rep->dups++;
	d->node[c->from_node].port[c->from_port].faces_dup = true;
	diag_msg(&d->rep->msgs, "duplicate GUID 0x%016" PRIx64 ": path %s reaches a switch with "
		 "the GUID of the one at path %s, and it is another switch (%s); it is left out, "
		 "with what is only reachable through it, and node 0x%016" PRIx64 " port %u "
		 "that faces it is not brought up", nd->ni.node_guid,
		 disc_path_str(c->path, c->hops, a, sizeof(a)),
		 disc_path_str(nd->path, nd->hops, b, sizeof(b)), why,
		 d->node[c->from_node].ni.node_guid, c->from_port);
}

void disc_probe_result(struct disc *d, uint32_t i, int status, const struct smp_node_info *ni)
{
	const struct disc_claim *c = &d->claim[i];
	const struct dnode *nd = &d->node[c->node];
	const struct dport *at = &nd->port[c->port];

	if (status == 0 && ni->node_guid == c->exp_guid && ni->local_port == c->exp_port) {
		disc_link_ports(d, c->node, c->port, c->from_node, c->from_port);
		return;
	}
	report_dup(d, c, status == 0 ? "its port leads elsewhere" : "its port does not answer");
	/* The first switch's own port was not walked for the claim's sake: walk it now. */
	if (at->have_pi && at->pi.state != 1 /* Down */ && at->peer_node == SUBNET_NONE &&
	    !at->faces_dup &&
	    nd->hops < SMP_MAX_HOPS) {
		uint8_t path[SMP_MAX_HOPS + 1];

		memcpy(path, nd->path, (size_t)nd->hops + 1);
		path[nd->hops + 1] = c->port;
		disc_ask(d, REQ_NODE_INFO, c->node, c->port, path, (uint8_t)(nd->hops + 1));
	}
}

/* Two claims for one link (one seen from each end): the later one has nothing to prove. */
static bool mirrored(const struct disc_claim *a, const struct disc_claim *b)
{
	return a->node == b->from_node && a->port == b->from_port && a->from_node == b->node &&
	       a->from_port == b->port;
}

/*
 * Each end of a link claimed the other: both switches were walked by their
 * own routes and each saw the other behind that port. A namesake is never
 * walked (it is taken for the first switch), so it cannot claim anything
 * back: the link is genuine and needs no probe.
 */
static bool has_mirror(const struct disc *d, uint32_t i)
{
	const struct disc_claim *c = &d->claim[i];
	uint32_t j = d->node[c->from_node].port[c->from_port].claim;

	return j && mirrored(&d->claim[j - 1], c);
}

static void verify_new_claims(struct disc *d)
{
	for (uint32_t i = d->claims_done; i < d->n_claims && !d->err; i++) {
		struct disc_claim *c = &d->claim[i];
		const struct dnode *nd = &d->node[c->node];
		const struct dport *at = &nd->port[c->port];
		uint8_t path[SMP_MAX_HOPS + 1];

		if (at->peer_node == c->from_node && at->peer_port == c->from_port)
			continue; /* linked meanwhile, from the other end */
		if (at->peer_node != SUBNET_NONE) {
			report_dup(d, c, "the port it was entered by is linked elsewhere");
			continue;
		}
		c->probe_port = known_port(d, c->node, c->port);
		if (has_mirror(d, i) || !c->probe_port || c->hops >= SMP_MAX_HOPS) {
			/* Seen from both ends, or nothing to check against: the same switch. */
			disc_link_ports(d, c->node, c->port, c->from_node, c->from_port);
			continue;
		}
		c->exp_guid = d->node[nd->port[c->probe_port].peer_node].ni.node_guid;
		c->exp_port = nd->port[c->probe_port].peer_port;
		memcpy(path, c->path, (size_t)c->hops + 1);
		path[c->hops + 1] = c->probe_port;
		disc_ask(d, REQ_PROBE, i, c->probe_port, path, (uint8_t)(c->hops + 1));
	}
	d->claims_done = d->n_claims;
}

/* Walking a port a namesake had claimed can find more: repeat until nothing is new. */
int disc_verify_claims(struct disc *d)
{
	int r = 0;

	while (r == 0 && !d->err && d->claims_done < d->n_claims) {
		verify_new_claims(d);
		r = txn_run(d->x, -1);
	}
	return d->err ? d->err : r;
}

static bool note_namesake(struct disc *d, const struct req *q, const struct smp_node_info *ni,
			  uint64_t guid, uint32_t first, enum disc_dup_kind kind)
{
	struct disc_namesake *ns;

	d->rep->dups++;
	d->node[q->node].port[q->port].faces_dup = true;
	if (array_grow((void **)&d->dup, &d->cap_dup, d->n_dup + 1, sizeof(*ns)) < 0) {
		d->err = -ENOMEM;
		return true;
	}
	ns = &d->dup[d->n_dup++];
	*ns = (struct disc_namesake){ .guid = guid, .first = first, .from_node = q->node,
				      .from_port = q->port, .kind = (uint8_t)kind,
				      .type = ni->node_type, .entry_port = ni->local_port,
				      .hops = q->hops };
	memcpy(ns->path, q->path, (size_t)q->hops + 1);
	return true;
}

/*
 * A CA port has one link (IBA 5.2.2: a port is one end of one link), so a
 * CA that answers with a known NodeGUID through a port already linked to
 * another neighbour is another CA. A multi-port namesake entered by a port
 * not linked yet cannot be told from the same CA reached by its other
 * port, unless its PortGUID gives it away. A new node whose PortGUID a CA
 * port or a switch's port 0 has is left out too: ports are known by their
 * GUIDs (guid2lid, the SA's records), so one of the two must go.
 */
bool disc_namesake(struct disc *d, const struct req *q, const struct smp_node_info *ni,
		   uint32_t n)
{
	uint32_t at;
	uint8_t own;

	if (n != ITAB_EMPTY) {
		const struct dnode *nd = &d->node[n];
		const struct dport *dp;

		if (nd->ni.node_type != ni->node_type || nd->ni.num_ports != ni->num_ports)
			return note_namesake(d, q, ni, ni->node_guid, n, DUP_OTHER_TYPE);
		if (ni->node_type == NODE_SWITCH)
			return false; /* a claim, verified once the sweep is done */
		dp = &nd->port[ni->local_port];
		/* Or it is the local CA seen back through its own port: a namesake cabled to it. */
		if ((dp->peer_node != SUBNET_NONE &&
		     !(dp->peer_node == q->node && dp->peer_port == q->port)) ||
		    (n == q->node && ni->local_port == q->port))
			return note_namesake(d, q, ni, ni->node_guid, n, DUP_CA);
	}
	/* IBA 14.2.5.3: a switch's PortGUID is port 0's, whatever port the SMP came in by. */
	own = ni->node_type == NODE_SWITCH ? 0 : ni->local_port;
	at = disc_find_port_guid(d, ni->port_guid);
	if (at != ITAB_EMPTY && at != DISC_PORT_KEY(n, own))
		return note_namesake(d, q, ni, ni->port_guid, at >> 8, DUP_PORT);
	return false;
}

static const char *type_name(uint8_t type)
{
	return type == NODE_SWITCH ? "switch" : type == NODE_CA ? "CA" : "router";
}

/* "leaf004" (0x0002c90300000006): a node as the messages name it. */
static const char *node_str(const struct dnode *nd, char *buf, size_t len)
{
	snprintf(buf, len, "\"%s\" (0x%016" PRIx64 ")", nd->desc, nd->ni.node_guid);
	return buf;
}

void disc_namesakes_report(struct disc *d)
{
	static const char *const what[] = {
		[DUP_CA] = "NodeGUID", [DUP_PORT] = "PortGUID", [DUP_OTHER_TYPE] = "NodeGUID",
	};

	for (uint32_t i = 0; i < d->n_dup; i++) {
		const struct disc_namesake *ns = &d->dup[i];
		const struct dnode *first = &d->node[ns->first], *from = &d->node[ns->from_node];
		char a[4 * SMP_MAX_HOPS], b[4 * SMP_MAX_HOPS], fa[SMP_DATA_SIZE + 24];
		char fb[SMP_DATA_SIZE + 24];

		diag_msg(&d->rep->msgs, "duplicate GUID 0x%016" PRIx64 ": path %s reaches a %s "
			 "(entered by port %u) with the %s of %s %s at path %s; it is left out%s, and "
			 "port %u of %s %s that faces it is left as it is (not brought up); checked "
			 "again at the next heavy sweep", ns->guid, disc_path_str(ns->path, ns->hops, a, sizeof(a)),
			 type_name(ns->type), ns->entry_port, what[ns->kind],
			 type_name(first->ni.node_type), node_str(first, fa, sizeof(fa)),
			 disc_path_str(first->path, first->hops, b, sizeof(b)),
			 ns->type == NODE_SWITCH ? " with what is only reachable through it" : "",
			 ns->from_port,
			 type_name(from->ni.node_type), node_str(from, fb, sizeof(fb)));
	}
}
