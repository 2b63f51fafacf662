/* SPDX-License-Identifier: MIT */
/*
 * What loom health reads for the routes group's credit loops: the
 * SLtoVLMappingTable (IBA 14.2.5.8) of every switch (input port, output
 * port) pair a route can take onto a link where VLs matter: the output port
 * is linked to another switch and runs more than VL0 (PortInfo
 * OperationalVLs > 1, from the sweep), the input port is any other linked
 * port. Every such table is read, not one a switch: a single port pair
 * mapped wrong is a credit loop, and the cost is small (on a 4x4 torus with
 * one host a switch, 16 switches x 4 links x 4 other ports = 256 Gets). A
 * link on VL0 alone carries every SL on VL0, so its tables are not read.
 * By directed route to the switch's port 0, AttributeModifier = input port
 * << 8 | output port.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/health_read.h"
#include "plan/qos.h"

struct sl2vl_req {
	struct health_sl2vl *h;
	uint32_t sw;
	uint8_t in, out;
};

static void on_sl2vl(void *arg, int status, const uint8_t *resp, size_t len)
{
	struct sl2vl_req *q = arg;
	struct health_sl2vl *h = q->h;
	uint8_t *t = health_sl2vl_table(h, q->sw, q->in, q->out);

	if (status == 0)
		status = smp_decode_sl2vl(resp, len, t);
	if (status < 0) {
		memset(t, 0, SMP_NUM_SL); /* not read: judged as VL0, the one every port runs */
		if (!h->status[q->sw])
			h->status[q->sw] = status;
		h->failed++;
	}
}

/*
 * Whether switch node's port out leads to another switch on more than VL0,
 * through tables that exist (a switch without IsSLMappingSupported refuses
 * their Get, plan/qos.h qos_has_sl2vl; its SLs all stay on VL0).
 */
static bool out_matters(const struct subnet *sn, const struct disc_live *live, uint32_t p)
{
	const struct subnet_port *sp = &sn->port[p];

	return sp->peer != SUBNET_NONE && subnet_is_switch(sn, sn->port[sp->peer].node) &&
	       live->port[p].have_pi && live->port[p].pi.op_vls > 1 &&
	       qos_has_sl2vl(sn, live, p);
}

int health_read_sl2vl(struct txn *x, const struct subnet *sn, const struct disc_live *live,
		      const struct route_out *ro, struct health_sl2vl *out)
{
	struct health_sl2vl h = { .n_sw = ro->n_sw, .sw_index = ro->sw_index };
	struct sl2vl_req *reqs = NULL;
	size_t n = 0, nq = 0;
	int r = -ENOMEM;

	h.stride = calloc(h.n_sw ? h.n_sw : 1, sizeof(*h.stride));
	h.base = calloc(h.n_sw ? h.n_sw : 1, sizeof(*h.base));
	h.status = calloc(h.n_sw ? h.n_sw : 1, sizeof(*h.status));
	if (!h.stride || !h.base || !h.status)
		goto fail;
	for (uint32_t s = 0; s < h.n_sw; s++) {
		const struct subnet_node *nd = &sn->node[ro->sw_node[s]];

		h.stride[s] = (uint32_t)nd->nports + 1;
		h.base[s] = n;
		n += (size_t)h.stride[s] * h.stride[s] * SMP_NUM_SL;
		for (unsigned o = 1; o <= nd->nports; o++)
			if (out_matters(sn, live, nd->port_base + o))
				nq += nd->nports;
	}
	h.vl = calloc(n ? n : 1, 1); /* unread pairs: every SL on VL0 */
	reqs = calloc(nq ? nq : 1, sizeof(*reqs));
	if (!h.vl || !reqs)
		goto fail;
	nq = 0;
	r = 0;
	for (uint32_t s = 0; s < h.n_sw && r == 0; s++) {
		uint32_t node = ro->sw_node[s];
		const struct subnet_node *nd = &sn->node[node];

		for (unsigned o = 1; o <= nd->nports && r == 0; o++) {
			if (!out_matters(sn, live, nd->port_base + o))
				continue;
			for (unsigned i = 1; i <= nd->nports && r == 0; i++) {
				struct smp_req q = { .method = SMP_GET, .attr_id = SMP_ATTR_SL2VL };
				struct sl2vl_req *sq = &reqs[nq++];

				if (i == o || sn->port[nd->port_base + i].peer == SUBNET_NONE)
					continue;
				q.attr_mod = smp_sl2vl_mod((uint8_t)i, (uint8_t)o);
				q.hops = live->node[node].hops;
				memcpy(q.path, live->node[node].path, sizeof(q.path));
				*sq = (struct sl2vl_req){ .h = &h, .sw = s, .in = (uint8_t)i,
							  .out = (uint8_t)o };
				h.asked++;
				r = txn_submit(x, &q, on_sl2vl, sq);
			}
		}
	}
	if (r == 0)
		r = txn_run(x, -1);
	if (r < 0)
		goto fail;
	free(reqs);
	*out = h;
	return 0;
fail:
	free(reqs);
	health_sl2vl_free(&h);
	return r;
}

void health_sl2vl_free(struct health_sl2vl *h)
{
	free(h->stride);
	free(h->base);
	free(h->status);
	free(h->vl);
	memset(h, 0, sizeof(*h));
}
