/* SPDX-License-Identifier: MIT */
/* CQs, SRQ, QPs and the state walk RESET -> INIT -> RTR -> RTS; UD address handles. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "verbs/path.h"
#include "verbs/verbs.h"

#define ACCESS (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | \
		IBV_ACCESS_REMOTE_ATOMIC)

/* Receive WRs one QP must hold: a whole chunk's share, the first QPs get the extra one. */
static uint32_t recv_per_qp(const struct vcase *c)
{
	return (c->slots + c->qps - 1) / c->qps;
}

static struct ibv_qp *qp_new(struct vend *e, char *err, size_t errlen)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = e->scq,
		.recv_cq = e->rcq,
		.srq = e->srq,
		.qp_type = vop_is_ud(e->c.op) ? IBV_QPT_UD : IBV_QPT_RC,
		.cap = {
			.max_send_wr = e->c.depth,
			.max_recv_wr = e->srq ? 0 : recv_per_qp(&e->c),
			.max_send_sge = 1,
			.max_recv_sge = 1,
			.max_inline_data = e->c.inline_ ? 256 : 0,
		},
	};
	struct ibv_qp *qp = ibv_create_qp(e->dev->pd, &ia);

	if (!qp)
		snprintf(err, errlen, "%s: cannot create a %s QP (send %u, recv %u WRs, inline "
			 "%u): %s; try a smaller --depth or --qps", e->dev->name,
			 vop_is_ud(e->c.op) ? "UD" : "RC", ia.cap.max_send_wr, ia.cap.max_recv_wr,
			 ia.cap.max_inline_data, strerror(errno));
	else
		e->max_inline = ia.cap.max_inline_data;
	return qp;
}

int qp_create_all(struct vend *e, char *err, size_t errlen)
{
	struct vdev *d = e->dev;
	unsigned q;

	e->scq = ibv_create_cq(d->ctx, (int)(e->c.depth * e->c.qps + 1), NULL, NULL, 0);
	e->rcq = ibv_create_cq(d->ctx, (int)(e->c.slots + e->c.qps + 1), NULL, NULL, 0);
	if (!e->scq || !e->rcq) {
		snprintf(err, errlen, "%s: cannot create CQs of %u and %u entries: %s", d->name,
			 e->c.depth * e->c.qps + 1, e->c.slots + e->c.qps + 1, strerror(errno));
		return -ENOMEM;
	}
	if (e->c.srq) {
		struct ibv_srq_init_attr sa = { .attr = { .max_wr = e->c.slots, .max_sge = 1 } };

		e->srq = ibv_create_srq(d->pd, &sa);
		if (!e->srq) {
			snprintf(err, errlen, "%s: cannot create an SRQ of %u WRs: %s", d->name,
				 e->c.slots, strerror(errno));
			return -ENOMEM;
		}
	}
	for (q = 0; q < e->c.qps; q++) {
		e->qp[q] = qp_new(e, err, errlen);
		if (!e->qp[q])
			return -ENOMEM;
	}
	return 0;
}

static void ah_attr_fill(const struct vend *e, struct ibv_ah_attr *ah)
{
	const struct vdev *d = e->dev;

	memset(ah, 0, sizeof(*ah));
	ah->dlid = e->peer.lid;
	ah->sl = e->sl;
	ah->port_num = (uint8_t)d->port;
	/* RoCE has no LIDs: the GRH carries the address. */
	if (d->roce) {
		ah->is_global = 1;
		memcpy(ah->grh.dgid.raw, e->peer.gid, 16);
		ah->grh.sgid_index = (uint8_t)d->gid_index;
		ah->grh.hop_limit = 64;
	}
}

static int modify(struct vend *e, struct ibv_qp *qp, struct ibv_qp_attr *a, int mask,
		  const char *state, char *err, size_t errlen)
{
	int r = ibv_modify_qp(qp, a, mask);

	if (r)
		snprintf(err, errlen, "%s: QP 0x%x to %s failed: %s", e->dev->name, qp->qp_num,
			 state, strerror(r));
	return r ? -r : 0;
}

static int rc_connect(struct vend *e, unsigned q, char *err, size_t errlen)
{
	struct ibv_qp *qp = e->qp[q];
	/* Reads and atomics in flight per QP: as many as the device takes, as perftest does
	 * (capped at 16, rdma_read and fetch_add ran at 0.65-0.75x of ib_read_bw and
	 * ib_atomic_bw on rxe, which takes 128). */
	int rd_out = e->dev->dattr.max_qp_init_rd_atom < 255 ? e->dev->dattr.max_qp_init_rd_atom
							      : 255;
	int rd_in = e->dev->dattr.max_qp_rd_atom < 255 ? e->dev->dattr.max_qp_rd_atom : 255;
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .pkey_index = 0,
				 .port_num = (uint8_t)e->dev->port, .qp_access_flags = ACCESS };
	int r;

	r = modify(e, qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
		   IBV_QP_ACCESS_FLAGS, "INIT", err, errlen);
	if (r < 0)
		return r;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = e->mtu;
	a.dest_qp_num = e->peer.qpn[q];
	a.rq_psn = e->peer.psn;
	a.max_dest_rd_atomic = (uint8_t)(rd_in ? rd_in : 1);
	a.min_rnr_timer = 12;
	ah_attr_fill(e, &a.ah_attr);
	r = modify(e, qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
		   IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER, "RTR",
		   err, errlen);
	if (r < 0)
		return r;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	/* 4.096 us * 2^17 = 0.5 s per try: soft-RoCE under emulation answers slowly, and
	 * a dead peer still fails within retry_cnt tries, well inside --timeout. */
	a.timeout = 17;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.sq_psn = e->psn;
	a.max_rd_atomic = (uint8_t)(rd_out ? rd_out : 1);
	return modify(e, qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
		      IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC, "RTS", err,
		      errlen);
}

static int ud_connect(struct vend *e, unsigned q, char *err, size_t errlen)
{
	struct ibv_qp *qp = e->qp[q];
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .pkey_index = 0,
				 .port_num = (uint8_t)e->dev->port, .qkey = UD_QKEY };
	int r;

	r = modify(e, qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY,
		   "INIT", err, errlen);
	if (r < 0)
		return r;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	r = modify(e, qp, &a, IBV_QP_STATE, "RTR", err, errlen);
	if (r < 0)
		return r;
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = e->psn;
	return modify(e, qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN, "RTS", err, errlen);
}

/* On InfiniBand the SM's routing chose an SL per path (a deadlock-free engine layers
 * routes over SLs): take SL and MTU from the SA's PathRecord, not from a guess. */
static int path_from_sa(struct vend *e, char *err, size_t errlen)
{
	struct vdev *d = e->dev;
	struct path_info pi;
	int r;

	e->sl = (uint8_t)d->sl;
	e->mtu = d->pattr.active_mtu;
	if (!d->sl_from_sa)
		return 0;
	r = path_query(d->name, d->port, e->peer.lid, d->timeout, &pi, err, errlen);
	if (r < 0)
		return r;
	e->sl = pi.sl;
	if (pi.mtu && pi.mtu < e->mtu)
		e->mtu = (enum ibv_mtu)pi.mtu;
	return 0;
}

int qp_connect_all(struct vend *e, char *err, size_t errlen)
{
	unsigned q;
	int r;

	r = path_from_sa(e, err, errlen);
	if (r < 0)
		return r;

	for (q = 0; q < e->c.qps; q++) {
		r = vop_is_ud(e->c.op) ? ud_connect(e, q, err, errlen) : rc_connect(e, q, err,
										      errlen);
		if (r < 0)
			return r;
	}
	if (vop_is_ud(e->c.op)) {
		struct ibv_ah_attr ah;

		ah_attr_fill(e, &ah);
		e->ah = ibv_create_ah(e->dev->pd, &ah);
		if (!e->ah) {
			snprintf(err, errlen, "%s: cannot create an address handle for the peer: "
				 "%s", e->dev->name, strerror(errno));
			return -errno;
		}
	}
	return 0;
}

void qp_destroy_all(struct vend *e)
{
	unsigned q;

	if (e->ah)
		ibv_destroy_ah(e->ah);
	for (q = 0; q < VOPTS_MAX_QPS; q++)
		if (e->qp[q])
			ibv_destroy_qp(e->qp[q]);
	if (e->srq)
		ibv_destroy_srq(e->srq);
	if (e->scq)
		ibv_destroy_cq(e->scq);
	if (e->rcq)
		ibv_destroy_cq(e->rcq);
	e->ah = NULL;
	memset(e->qp, 0, sizeof(e->qp));
	e->srq = NULL;
	e->scq = e->rcq = NULL;
}
