/* SPDX-License-Identifier: MIT */
/*
 * CAs back behind a link that stayed up (disc_part, after a leaf's uplinks
 * come back): their PortInfo alone is read, the rest taken as the last model
 * that held them had it.
 *
 * When a leaf's uplinks all go down, the leaf and its hosts leave the model;
 * when they come back, the walk reaches every host anew, and each cost a
 * NodeInfo, a NodeDescription and a PortInfo, though nothing about them
 * changed. What can change behind a port that the walk finds Active:
 *   - the link went down meanwhile (a cable pulled, a host replaced, reset or
 *     power cycled): IBA 7.2, it comes back in Initialize, and only an SM
 *     makes a port Active again. The switch's port is then not Active; and
 *     if it is, it must have been Active when the host left too;
 *   - another SM (on the island the leaf was cut off into) or a tool set the
 *     host's port up anew: it would not hold the LID, LMC and MasterSMLID
 *     this SM gave it, which its PortInfo, read here, tells;
 *   - a host's NodeDescription (a driver restart renames it, or a hostname
 *     change) or a table a tool wrote by hand: the ports tell none of it, as
 *     for a host that stayed; the next whole heavy sweep reads every node.
 * So a CA whose port answers Active with the LID, LMC and MasterSMLID it had
 * when it left, behind a switch port that was Active then and is Active now,
 * is the CA that left: seeded from the memory (NodeInfo's fields, its
 * NodeDescription, its ports' GUIDs), its PortInfo the one just read. Any
 * other answer, and a CA the memory does not hold, is walked as disc_run
 * walks a new node (NodeInfo first).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "fabric/disc_priv.h"

/*
 * The port of the gone model's CA behind port sp of switch guid, if that link
 * was up at both ends when they left: its index in gone, else SUBNET_NONE.
 */
static uint32_t gone_peer(const struct disc *d, uint64_t guid, uint8_t sp)
{
	const struct subnet *g = d->gone;
	uint32_t n = g ? subnet_find_guid(g, guid) : SUBNET_NONE, pi, peer;

	if (n == SUBNET_NONE || g->node[n].type != NODE_SWITCH || sp > g->node[n].nports)
		return SUBNET_NONE;
	pi = subnet_port_idx(g, n, sp);
	peer = g->port[pi].peer;
	if (peer == SUBNET_NONE || g->node[g->port[peer].node].type == NODE_SWITCH)
		return SUBNET_NONE;
	if (!d->gone_live->port[pi].have_pi || d->gone_live->port[pi].pi.state != SMP_PORT_ACTIVE ||
	    !d->gone_live->port[peer].have_pi ||
	    d->gone_live->port[peer].pi.state != SMP_PORT_ACTIVE)
		return SUBNET_NONE;
	/* Back already, or found elsewhere in this sweep: walked as it is. */
	if (disc_find_node(d, g->node[g->port[peer].node].guid) != ITAB_EMPTY)
		return SUBNET_NONE;
	return peer;
}

bool disc_back_ask(struct disc *d, uint32_t sw, uint8_t sp, const struct smp_port_info *pi,
		   const uint8_t *path, uint8_t hops)
{
	uint32_t peer;

	if (pi->state != SMP_PORT_ACTIVE)
		return false;
	peer = gone_peer(d, d->node[sw].ni.node_guid, sp);
	if (peer == SUBNET_NONE)
		return false;
	disc_ask(d, REQ_BACK_PORT_INFO, sw, d->gone->port[peer].num, path, hops);
	return true;
}

/* The gone model's CA n as disc_run would have found it through q, port ca_port read now. */
static int seed_back(struct disc *d, const struct req *q, uint32_t n, uint8_t ca_port,
		     const struct smp_port_info *pi, const uint8_t *raw, uint32_t *idx)
{
	const struct subnet *g = d->gone;
	const struct subnet_node *m = &g->node[n];
	const struct disc_node *ln = &d->gone_live->node[n];
	struct smp_node_info ni = { .node_type = m->type, .num_ports = m->nports,
				    .node_guid = m->guid, .sys_guid = m->sysguid,
				    .vendor_id = m->vendor_id, .device_id = m->device_id,
				    .partition_cap = ln->partition_cap, .revision = ln->revision,
				    .local_port = ca_port,
				    .port_guid = g->port[m->port_base + ca_port].guid };
	struct dport *dp;
	int r;

	r = disc_add_node(d, &ni, q, idx);
	if (r < 0)
		return r;
	snprintf(d->node[*idx].desc, sizeof(d->node[*idx].desc), "%s", subnet_str(g, m->desc));
	for (unsigned p = 1; p <= m->nports; p++) {
		uint64_t guid = g->port[m->port_base + p].guid;

		if (guid && disc_set_port_guid(d, *idx, (uint8_t)p, guid) < 0)
			return -ENOMEM;
	}
	dp = &d->node[*idx].port[ca_port];
	dp->pi = *pi;
	dp->have_pi = dp->pi_asked = true;
	memcpy(dp->raw, raw, sizeof(dp->raw));
	return 0;
}

void disc_back_got(struct disc *d, const struct req *q, const struct smp_port_info *pi,
		   const uint8_t *raw)
{
	uint8_t sp = q->path[q->hops];
	uint32_t peer = gone_peer(d, d->node[q->node].ni.node_guid, sp), idx;
	const struct smp_port_info *was;
	int r;

	was = peer == SUBNET_NONE ? NULL : &d->gone_live->port[peer].pi;
	if (!was || d->gone->port[peer].num != q->port || pi->state != SMP_PORT_ACTIVE ||
	    pi->lid != was->lid || pi->lmc != was->lmc || pi->sm_lid != was->sm_lid ||
	    (d->gone->port[peer].guid &&
	     disc_find_port_guid(d, d->gone->port[peer].guid) != ITAB_EMPTY)) {
		/* Not as it left: walked as a new node is. */
		disc_ask(d, REQ_NODE_INFO, q->node, sp, q->path, q->hops);
		return;
	}
	r = seed_back(d, q, d->gone->port[peer].node, q->port, pi, raw, &idx);
	if (r < 0) {
		d->err = r;
		return;
	}
	disc_link_ports(d, q->node, sp, idx, q->port);
	d->rep->back++;
}
