/* SPDX-License-Identifier: MIT */
/*
 * What loom health reads after the sweep: SMInfo (IBA 14.2.5.13) of every
 * port whose CapabilityMask says IsSM, by directed route; the master's a
 * second time, for its ActCount.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/health_read.h"

static void on_sm_info(void *arg, int status, const uint8_t *resp, size_t len)
{
	struct health_sm_port *s = arg;

	if (status == 0)
		status = smp_decode_sm_info(resp, len, &s->smi);
	s->status = status;
}

static void on_sm_info2(void *arg, int status, const uint8_t *resp, size_t len)
{
	struct health_sm_port *s = arg;

	if (status == 0)
		status = smp_decode_sm_info(resp, len, &s->smi2);
	s->status2 = status;
}

/*
 * A directed route that enters the node at port p: the node's own path when
 * that is how the sweep reached it (or p is a switch's port 0, which every
 * path to a switch reaches), else the peer's path plus the peer's port. The
 * local node's port the transport is bound to is the empty path.
 */
int health_sm_path(const struct subnet *sn, const struct disc_live *live, uint32_t p,
		   struct smp_req *r)
{
	const struct subnet_port *sp = &sn->port[p];
	const struct disc_node *nd = &live->node[sp->node];
	const struct subnet_port *peer;
	const struct disc_node *pn;

	if (subnet_is_switch(sn, sp->node) || (sp->node == 0 && sp->num == live->local_port)) {
		r->hops = nd->hops;
		memcpy(r->path, nd->path, sizeof(r->path));
		return 0;
	}
	if (sp->peer == SUBNET_NONE)
		return -ENOLINK;
	peer = &sn->port[sp->peer];
	pn = &live->node[peer->node];
	/* Only switches forward DR SMPs; a CA's peer path is good from node 0 only. */
	if (!subnet_is_switch(sn, peer->node) && peer->node != 0)
		return -ENOLINK;
	if (pn->hops + 1 > SMP_MAX_HOPS)
		return -E2BIG;
	memcpy(r->path, pn->path, sizeof(r->path));
	r->hops = (uint8_t)(pn->hops + 1);
	r->path[r->hops] = peer->num;
	return 0;
}

int health_read_sm(struct txn *x, const struct subnet *sn, const struct disc_live *live,
		   struct health_sm_port **out)
{
	return health_read_sm_some(x, sn, live, NULL, NULL, out);
}

int health_read_sm_some(struct txn *x, const struct subnet *sn, const struct disc_live *live,
			bool (*want)(void *arg, uint32_t port), void *arg,
			struct health_sm_port **out)
{
	struct health_sm_port *sm = calloc(sn->n_ports ? sn->n_ports : 1, sizeof(*sm));
	int r = 0;

	if (!sm)
		return -ENOMEM;
	for (uint32_t p = 0; p < sn->n_ports && r == 0; p++) {
		struct smp_req q = { .method = SMP_GET, .attr_id = SMP_ATTR_SM_INFO };
		const struct disc_port *dp = &live->port[p];

		if (!dp->have_pi || !(dp->pi.cap_mask & HEALTH_CAP_IS_SM))
			continue;
		/* An SM on a switch sits behind its port 0 (IBA 14.2.5.6, 17.2.1). */
		if (subnet_is_switch(sn, sn->port[p].node) && sn->port[p].num)
			continue;
		if (want && !want(arg, p))
			continue;
		sm[p].asked = true;
		sm[p].status = health_sm_path(sn, live, p, &q);
		if (sm[p].status == 0) {
			sm[p].status = -ETIMEDOUT; /* until an answer says otherwise */
			r = txn_submit(x, &q, on_sm_info, &sm[p]);
		}
	}
	if (r == 0)
		r = txn_run(x, -1);
	if (r < 0) {
		free(sm);
		return r;
	}
	*out = sm;
	return 0;
}

int health_read_sm_again(struct txn *x, const struct subnet *sn, const struct disc_live *live,
			 struct health_sm_port *sm, uint32_t waited_ms)
{
	int r = 0;

	for (uint32_t p = 0; p < sn->n_ports && r == 0; p++) {
		struct smp_req q = { .method = SMP_GET, .attr_id = SMP_ATTR_SM_INFO };

		if (!sm[p].asked || sm[p].status || sm[p].smi.state != SMP_SM_MASTER)
			continue;
		sm[p].again = true;
		sm[p].waited_ms = waited_ms;
		sm[p].status2 = health_sm_path(sn, live, p, &q);
		if (sm[p].status2 == 0) {
			sm[p].status2 = -ETIMEDOUT;
			r = txn_submit(x, &q, on_sm_info2, &sm[p]);
		}
	}
	if (r == 0)
		r = txn_run(x, -1);
	return r;
}
