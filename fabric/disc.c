/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cleanup.h"
#include "lib/itab.h"
#include "fabric/disc_priv.h"

static const char *const req_name[] = {
	[REQ_NODE_INFO] = "NodeInfo",
	[REQ_NODE_DESC] = "NodeDescription",
	[REQ_PORT_INFO] = "PortInfo",
	[REQ_SWITCH_INFO] = "SwitchInfo",
	[REQ_PROBE] = "NodeInfo (duplicate GUID check)",
	[REQ_BACK_PORT_INFO] = "PortInfo (a CA back)",
};

void disc_report_free(struct disc_report *rep)
{
	diag_free(&rep->msgs);
}

/* "0,1,3": the DR path as ibnetdiscover and smpquery -D write it. */
const char *disc_path_str(const uint8_t *path, uint8_t hops, char *buf, size_t len)
{
	size_t off = (size_t)snprintf(buf, len, "0");

	for (unsigned i = 1; i <= hops && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, ",%u", path[i]);
	return buf;
}

static uint64_t dnode_hash(uint32_t idx, const void *ctx)
{
	const struct disc *d = ctx;

	return itab_hash_u64(d->node[idx].ni.node_guid);
}

static bool dnode_eq(uint32_t idx, const void *key, const void *ctx)
{
	const struct disc *d = ctx;

	return d->node[idx].ni.node_guid == *(const uint64_t *)key;
}

uint32_t disc_find_node(const struct disc *d, uint64_t guid)
{
	return itab_find(&d->by_guid, itab_hash_u64(guid), &guid, dnode_eq, d);
}

static void on_reply(void *arg, int status, const uint8_t *resp, size_t len);

static void fill_req(const struct req *q, struct smp_req *sr)
{
	static const uint16_t attr[] = {
		[REQ_NODE_INFO] = SMP_ATTR_NODE_INFO,
		[REQ_NODE_DESC] = SMP_ATTR_NODE_DESC,
		[REQ_SWITCH_INFO] = SMP_ATTR_SWITCH_INFO,
		[REQ_PORT_INFO] = SMP_ATTR_PORT_INFO,
		[REQ_PROBE] = SMP_ATTR_NODE_INFO,
		[REQ_BACK_PORT_INFO] = SMP_ATTR_PORT_INFO,
	};

	*sr = (struct smp_req){ .method = SMP_GET, .attr_id = attr[q->kind], .hops = q->hops };
	/* IBA 14.2.5.6: PortInfo's AttributeModifier is the port number. */
	if (q->kind == REQ_PORT_INFO || q->kind == REQ_BACK_PORT_INFO)
		sr->attr_mod = q->port;
	memcpy(sr->path, q->path, (size_t)q->hops + 1);
}

void disc_ask(struct disc *d, enum req_kind kind, uint32_t node, uint8_t port,
	      const uint8_t *path, uint8_t hops)
{
	struct smp_req sr = { .method = SMP_GET, .hops = hops };
	struct req *q;
	int r;

	if (d->err)
		return;
	q = calloc(1, sizeof(*q));
	if (!q) {
		d->err = -ENOMEM;
		return;
	}
	*q = (struct req){ .d = d, .kind = kind, .round = d->first_round, .node = node,
			   .port = port, .hops = hops };
	memcpy(q->path, path, (size_t)hops + 1);
	fill_req(q, &sr);
	r = txn_submit(d->x, &sr, on_reply, q);
	if (r < 0) {
		free(q);
		d->err = r;
	}
}

static void ask_node(struct disc *d, enum req_kind kind, uint32_t n, uint8_t port)
{
	disc_ask(d, kind, n, port, d->node[n].path, d->node[n].hops);
}

/* Record both ends of a link; a contradiction is reported, the first view kept. */
void disc_link_ports(struct disc *d, uint32_t a, uint8_t pa, uint32_t b, uint8_t pb)
{
	struct dport *x = &d->node[a].port[pa], *y = &d->node[b].port[pb];

	if ((x->peer_node == b && x->peer_port == pb) && (y->peer_node == a && y->peer_port == pa))
		return;
	if (x->peer_node != SUBNET_NONE || y->peer_node != SUBNET_NONE) {
		d->rep->conflicts++;
		diag_msg(&d->rep->msgs, "node 0x%016" PRIx64 " port %u and node 0x%016" PRIx64 " port %u "
		       "both claim a link the sweep has already seen elsewhere "
		       "(duplicate GUIDs?); kept the first one found",
		       d->node[a].ni.node_guid, pa, d->node[b].ni.node_guid, pb);
		return;
	}
	x->peer_node = b;
	x->peer_port = pb;
	y->peer_node = a;
	y->peer_port = pa;
}

int disc_add_node(struct disc *d, const struct smp_node_info *ni, const struct req *q,
		  uint32_t *idx)
{
	struct dnode *nd;
	uint32_t n = d->n;

	if (n >= (1u << 24) - 1)
		return -E2BIG; /* DISC_PORT_KEY's node bits; 48K LIDs come far sooner */
	if (n == d->cap) {
		uint32_t cap = d->cap ? d->cap * 2 : 64;
		struct dnode *p = realloc(d->node, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		d->node = p;
		d->cap = cap;
	}
	nd = &d->node[n];
	memset(nd, 0, sizeof(*nd));
	nd->ni = *ni;
	nd->hops = q->hops;
	memcpy(nd->path, q->path, (size_t)q->hops + 1);
	nd->entry_port = q->hops ? ni->local_port : 0;
	nd->port = calloc((size_t)ni->num_ports + 1, sizeof(*nd->port));
	if (!nd->port)
		return -ENOMEM;
	for (unsigned i = 0; i <= ni->num_ports; i++)
		nd->port[i].peer_node = SUBNET_NONE;
	d->n++;
	if (itab_insert(&d->by_guid, itab_hash_u64(ni->node_guid), n, dnode_hash, d) < 0)
		return -ENOMEM;
	*idx = n;
	return 0;
}

static uint64_t dport_hash(uint32_t key, const void *ctx)
{
	const struct disc *d = ctx;

	return itab_hash_u64(d->node[key >> 8].port[key & 0xff].guid);
}

static bool dport_eq(uint32_t key, const void *guid, const void *ctx)
{
	const struct disc *d = ctx;

	return d->node[key >> 8].port[key & 0xff].guid == *(const uint64_t *)guid;
}

/* The CA port that carries PortGUID guid, as DISC_PORT_KEY(node, port), or ITAB_EMPTY. */
uint32_t disc_find_port_guid(const struct disc *d, uint64_t guid)
{
	return itab_find(&d->by_port_guid, itab_hash_u64(guid), &guid, dport_eq, d);
}

/* A CA port's GUID, from the NodeInfo that reached the node through it. */
int disc_set_port_guid(struct disc *d, uint32_t n, uint8_t port, uint64_t guid)
{
	struct dport *dp = &d->node[n].port[port];

	if (dp->guid == guid)
		return 0;
	if (dp->guid)
		itab_remove(&d->by_port_guid, itab_hash_u64(dp->guid), DISC_PORT_KEY(n, port),
			    dport_hash, d);
	dp->guid = guid;
	if (!guid)
		return 0;
	return itab_insert(&d->by_port_guid, itab_hash_u64(guid), DISC_PORT_KEY(n, port),
			   dport_hash, d);
}

/*
 * A NodeInfo answer: a new node is walked, a known one only linked. A node
 * that gives a GUID the sweep knows from another node is left out: a CA or
 * a CA port whose port is already linked elsewhere, or whose type differs,
 * here (disc_namesake); a switch after the sweep (claims, disc_dup.c).
 */
static void got_node_info(struct disc *d, const struct req *q, const struct smp_node_info *ni)
{
	uint32_t n = disc_find_node(d, ni->node_guid);
	struct dnode *nd;

	if (ni->local_port > ni->num_ports) {
		d->rep->conflicts++;
		diag_msg(&d->rep->msgs, "node 0x%016" PRIx64 ": NodeInfo says it was entered by port %u of %u; "
		       "ignored", ni->node_guid, ni->local_port, ni->num_ports);
		return;
	}
	bool known = n != ITAB_EMPTY;

	if (q->node != SUBNET_NONE && disc_namesake(d, q, ni, n))
		return;
	if (!known) {
		int r = disc_add_node(d, ni, q, &n);

		if (r < 0) {
			d->err = r;
			return;
		}
		ask_node(d, REQ_NODE_DESC, n, 0);
		if (ni->node_type == NODE_SWITCH) {
			/* Its PortGUID is port 0's: no CA port may have it (disc_namesake). */
			if (disc_set_port_guid(d, n, 0, ni->port_guid) < 0) {
				d->err = -ENOMEM;
				return;
			}
			ask_node(d, REQ_SWITCH_INFO, n, 0);
			for (unsigned p = 0; p <= ni->num_ports; p++)
				ask_node(d, REQ_PORT_INFO, n, (uint8_t)p);
		}
	}
	nd = &d->node[n];
	if (ni->node_type != NODE_SWITCH) {
		struct dport *dp = &nd->port[ni->local_port];

		if (disc_set_port_guid(d, n, ni->local_port, ni->port_guid) < 0) {
			d->err = -ENOMEM;
			return;
		}
		/* A CA's PortInfo is read through the port that reached it. */
		if (!dp->pi_asked) {
			dp->pi_asked = true;
			disc_ask(d, REQ_PORT_INFO, n, ni->local_port, q->path, q->hops);
		}
	}
	if (q->node == SUBNET_NONE)
		return;
	if (!known || ni->node_type != NODE_SWITCH) {
		disc_link_ports(d, q->node, q->port, n, ni->local_port);
		return;
	}
	/* A switch seen before: the same one again, or another with its GUID. */
	struct dport *dp = &nd->port[ni->local_port];

	if (dp->peer_node == q->node && dp->peer_port == q->port)
		return;
	if (dp->peer_node == SUBNET_NONE) {
		if (disc_claim(d, q, n, ni->local_port) < 0)
			d->err = -ENOMEM;
		return;
	}
	char buf[4 * SMP_MAX_HOPS];

	d->rep->dups++;
	d->node[q->node].port[q->port].faces_dup = true;
	diag_msg(&d->rep->msgs, "duplicate GUID 0x%016" PRIx64 ": path %s reaches a switch with the "
		 "GUID of the one at path %s, whose port %u is linked elsewhere; it is left out, "
		 "with what is only reachable through it", ni->node_guid,
		 disc_path_str(q->path, q->hops, buf, sizeof(buf)),
		 disc_path_str(nd->path, nd->hops, buf + sizeof(buf) / 2, sizeof(buf) / 2),
		 ni->local_port);
}

void disc_unlink(struct disc *d, uint32_t n, unsigned p)
{
	struct dport *dp = &d->node[n].port[p];

	if (dp->peer_node != SUBNET_NONE) {
		struct dport *far = &d->node[dp->peer_node].port[dp->peer_port];

		far->peer_node = SUBNET_NONE;
		/* A CA behind a link that changed is read again through it. */
		if (d->node[dp->peer_node].ni.node_type != NODE_SWITCH)
			far->pi_asked = false;
	}
	dp->peer_node = SUBNET_NONE;
	dp->claimed = false;
	dp->claim = 0;
}

static void got_port_info(struct disc *d, const struct req *q, const struct smp_port_info *pi)
{
	struct dnode *nd = &d->node[q->node];
	struct dport *dp = &nd->port[q->port];
	uint8_t path[SMP_MAX_HOPS + 1];
	bool sw = nd->ni.node_type == NODE_SWITCH;
	char buf[4 * SMP_MAX_HOPS];

	dp->pi = *pi;
	dp->have_pi = true;
	if (dp->recheck) {
		dp->recheck = false;
		/*
		 * IBA 7.2: a link that went down comes back in Initialize and only
		 * an SM makes it Active, so a port still Active has kept the link
		 * the last sweep saw. Any other state: it is walked again.
		 */
		if (pi->state == SMP_PORT_ACTIVE)
			return;
		if (dp->peer_node != SUBNET_NONE &&
		    d->node[dp->peer_node].ni.node_type == NODE_SWITCH)
			dp->lost_peer = dp->peer_node;
		disc_unlink(d, q->node, q->port);
	}
	if (q->port == 0 || pi->state == PORT_STATE_DOWN || dp->peer_node != SUBNET_NONE ||
	    dp->claimed)
		return;
	/*
	 * Only switches forward DR SMPs (IBA 14.2.2); a CA's port leads out
	 * only from the local node, where the path starts.
	 */
	if (!sw && !(nd->hops == 0 && q->port == nd->ni.local_port))
		return;
	if (q->hops >= SMP_MAX_HOPS) {
		d->rep->conflicts++;
		diag_msg(&d->rep->msgs, "path %s port %u: more than %u hops; not followed",
		       disc_path_str(q->path, q->hops, buf, sizeof(buf)), q->port, SMP_MAX_HOPS);
		return;
	}
	memcpy(path, nd->path, (size_t)nd->hops + 1);
	path[nd->hops + 1] = q->port;
	if (sw && disc_back_ask(d, q->node, q->port, pi, path, (uint8_t)(nd->hops + 1)))
		return;
	disc_ask(d, REQ_NODE_INFO, q->node, q->port, path, (uint8_t)(nd->hops + 1));
}

static int decode(struct disc *d, const struct req *q, const uint8_t *resp, size_t len)
{
	struct smp_node_info ni;
	struct smp_port_info pi;
	int r = 0;

	switch (q->kind) {
	case REQ_NODE_INFO:
		r = smp_decode_node_info(resp, len, &ni);
		if (r == 0)
			got_node_info(d, q, &ni);
		break;
	case REQ_NODE_DESC:
		r = smp_decode_node_desc(resp, len, d->node[q->node].desc);
		break;
	case REQ_PROBE:
		r = smp_decode_node_info(resp, len, &ni);
		if (r == 0)
			disc_probe_result(d, q->node, 0, &ni);
		break;
	case REQ_SWITCH_INFO:
		r = smp_decode_switch_info(resp, len, &d->node[q->node].si);
		if (r == 0)
			r = smp_data(resp, len, d->node[q->node].si_raw);
		if (r == 0)
			d->node[q->node].si_read = true;
		break;
	case REQ_PORT_INFO:
		r = smp_decode_port_info(resp, len, &pi);
		if (r == 0)
			r = smp_data(resp, len, d->node[q->node].port[q->port].raw);
		if (r == 0)
			got_port_info(d, q, &pi);
		break;
	case REQ_BACK_PORT_INFO: {
		uint8_t raw[SMP_DATA_SIZE];

		r = smp_decode_port_info(resp, len, &pi);
		if (r == 0)
			r = smp_data(resp, len, raw);
		if (r == 0)
			disc_back_got(d, q, &pi, raw);
		break;
	}
	}
	return r;
}

static void on_reply(void *arg, int status, const uint8_t *resp, size_t len)
{
	_cleanup_free_ struct req *q = arg;
	struct disc *d = q->d;
	char buf[4 * SMP_MAX_HOPS], what[32];

	if (status == -ETIMEDOUT && q->round + 1 < DISC_ROUNDS && !d->err) {
		struct smp_req sr;
		int r;

		q->round++;
		fill_req(q, &sr);
		r = txn_submit(d->x, &sr, on_reply, q);
		if (r == 0) {
			q = NULL; /* resubmitted: the next answer owns it */
			return;
		}
	}
	if (status == 0)
		status = decode(d, q, resp, len);
	if (status == 0)
		return;
	if (q->kind == REQ_PROBE) {
		disc_probe_result(d, q->node, status, NULL);
		return;
	}
	if (status == -ETIMEDOUT)
		d->rep->timeouts++;
	else
		d->rep->errors++;
	if (q->kind == REQ_PORT_INFO)
		snprintf(what, sizeof(what), "PortInfo of port %u", q->port);
	else
		snprintf(what, sizeof(what), "%s", req_name[q->kind]);
	diag_msg(&d->rep->msgs, "path %s: %s: %s; skipped", disc_path_str(q->path, q->hops, buf, sizeof(buf)), what,
	       status == -ETIMEDOUT ? "no answer after all retries" :
	       status == -EPROTO ? "refused or malformed answer" : strerror(-status));
}

/* The model's names are unique: the description, or it with the GUID added. */
static int node_name(const struct subnet *sn, const struct dnode *nd, char *buf, size_t len)
{
	if (nd->desc[0] && subnet_find_name(sn, nd->desc) == SUBNET_NONE)
		snprintf(buf, len, "%s", nd->desc);
	else if (nd->desc[0])
		snprintf(buf, len, "%s 0x%016" PRIx64, nd->desc, nd->ni.node_guid);
	else
		snprintf(buf, len, "0x%016" PRIx64, nd->ni.node_guid);
	return subnet_find_name(sn, buf) == SUBNET_NONE ? 0 : -EEXIST;
}

static int build_node(struct disc *d, struct subnet *sn, uint32_t i)
{
	const struct dnode *nd = &d->node[i];
	char name[SMP_DATA_SIZE + 24];
	struct subnet_node *m;
	uint32_t idx;
	int r;

	r = node_name(sn, nd, name, sizeof(name));
	if (r < 0)
		return r;
	r = subnet_add_node(sn, nd->ni.node_type, nd->ni.num_ports, nd->ni.node_guid, name,
			    nd->desc, &idx);
	if (r < 0)
		return r;
	m = &sn->node[idx];
	m->sysguid = nd->ni.sys_guid;
	m->vendor_id = nd->ni.vendor_id;
	m->device_id = nd->ni.device_id;
	if (nd->ni.node_type == NODE_SWITCH) {
		m->port0_guid = nd->ni.port_guid;
		if (nd->si.flags & SMP_SI_ENHANCED_PORT0)
			sn->port[m->port_base].flags |= SUBNET_PORT_ENHANCED0;
	}
	for (unsigned p = 0; p <= nd->ni.num_ports; p++) {
		const struct dport *dp = &nd->port[p];
		struct subnet_port *sp = &sn->port[m->port_base + p];

		if (dp->guid && nd->ni.node_type != NODE_SWITCH &&
		    subnet_set_port_guid(sn, m->port_base + p, dp->guid) < 0) {
			d->rep->conflicts++;
			diag_msg(&d->rep->msgs, "node 0x%016" PRIx64 " port %u: PortGUID 0x%016" PRIx64
			       " is used by another port too", nd->ni.node_guid, p, dp->guid);
		}
		if (!dp->have_pi)
			continue;
		/* IBA 14.2.5.6: a switch's LID is port 0's; its other ports have none. */
		if (nd->ni.node_type != NODE_SWITCH || p == 0) {
			sp->lid = dp->pi.lid;
			sp->lmc = dp->pi.lmc;
		}
		if (p > 0 || nd->ni.node_type != NODE_SWITCH) {
			sp->width = dp->pi.width_active;
			sp->speed = disc_live_speed(&dp->pi);
		}
	}
	return 0;
}

/* Nodes go in discovery order, so index i in the sweep is index i in the model. */
int disc_build(struct disc *d, struct subnet **out)
{
	_cleanup_(subnet_freep) struct subnet *sn = NULL;
	int r;

	r = subnet_new(&sn);
	if (r < 0)
		return r;
	for (uint32_t i = 0; i < d->n; i++) {
		r = build_node(d, sn, i);
		if (r < 0)
			return r;
	}
	for (uint32_t i = 0; i < d->n; i++)
		for (unsigned p = 1; p <= d->node[i].ni.num_ports; p++) {
			const struct dport *dp = &d->node[i].port[p];
			uint32_t a = subnet_port_idx(sn, i, p), b;

			if (dp->peer_node == SUBNET_NONE || dp->peer_node < i ||
			    (dp->peer_node == i && dp->peer_port < p))
				continue;
			b = subnet_port_idx(sn, dp->peer_node, dp->peer_port);
			r = subnet_link(sn, a, b);
			if (r < 0)
				return r;
		}
	for (uint32_t i = 0; i < d->n; i++)
		if (d->node[i].port[0].have_pi && d->node[i].port[0].pi.subnet_prefix) {
			sn->subnet_prefix = d->node[i].port[0].pi.subnet_prefix;
			break;
		}
	*out = TAKE_PTR(sn);
	return 0;
}

int disc_build_live(const struct disc *d, const struct subnet *sn, struct disc_live *live)
{
	live->node = calloc(sn->n_nodes ? sn->n_nodes : 1, sizeof(*live->node));
	live->port = calloc(sn->n_ports ? sn->n_ports : 1, sizeof(*live->port));
	if (!live->node || !live->port) {
		disc_live_free(live);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < d->n; i++) {
		const struct dnode *nd = &d->node[i];
		struct disc_node *ln = &live->node[i];

		ln->hops = nd->hops;
		memcpy(ln->path, nd->path, sizeof(ln->path));
		ln->si = nd->si;
		ln->partition_cap = nd->ni.partition_cap;
		ln->revision = nd->ni.revision;
		memcpy(ln->si_raw, nd->si_raw, sizeof(ln->si_raw));
		for (unsigned p = 0; p <= nd->ni.num_ports; p++) {
			struct disc_port *lp = &live->port[subnet_port_idx(sn, i, p)];

			lp->have_pi = nd->port[p].have_pi;
			lp->pi = nd->port[p].pi;
			memcpy(lp->raw, nd->port[p].raw, sizeof(lp->raw));
		}
	}
	live->local_port = d->node[0].ni.local_port;
	return 0;
}

void disc_free(struct disc *d)
{
	for (uint32_t i = 0; i < d->n; i++)
		free(d->node[i].port);
	free(d->node);
	free(d->claim);
	free(d->dup);
	itab_free(&d->by_guid);
	itab_free(&d->by_port_guid);
}

/* txn_run() until idle, telling rep->progress (if set) how far it got each second. */
static int run_told(struct disc *d)
{
	int r;

	if (!d->rep->progress)
		return txn_run(d->x, -1);
	while ((r = txn_run(d->x, 1000)) == -ETIMEDOUT)
		d->rep->progress(d->rep->progress_arg, d->n);
	return r;
}

int disc_run(struct txn *x, struct subnet **out, struct disc_live *live, struct disc_report *rep)
{
	struct disc d = { .x = x, .rep = rep };
	uint8_t path[SMP_MAX_HOPS + 1] = { 0 };
	struct subnet *sn = NULL;
	int r;

	/* IBA 14.2.2: the empty path (hop count 0) reaches the local node. */
	disc_ask(&d, REQ_NODE_INFO, SUBNET_NONE, 0, path, 0);
	r = d.err ? d.err : run_told(&d);
	if (r == 0 && d.err)
		r = d.err;
	if (r == 0)
		r = disc_verify_claims(&d);
	disc_namesakes_report(&d);
	if (r == 0 && d.n == 0)
		r = -EIO;
	if (r == 0)
		r = disc_build(&d, &sn);
	if (r == 0 && live)
		r = disc_build_live(&d, sn, live);
	if (r == 0)
		*out = sn;
	else
		subnet_free(sn);
	disc_free(&d);
	return r;
}
