/* SPDX-License-Identifier: MIT */
/* Work requests for every operation, posting, and polling that never waits forever. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "verbs/verbs.h"

static const enum ibv_wr_opcode wr_opcode[_OP_MAX] = {
	[OP_SEND_RC] = IBV_WR_SEND,           [OP_SEND_UD] = IBV_WR_SEND,
	[OP_WRITE] = IBV_WR_RDMA_WRITE,       [OP_WRITE_IMM] = IBV_WR_RDMA_WRITE_WITH_IMM,
	[OP_READ] = IBV_WR_RDMA_READ,         [OP_FETCH_ADD] = IBV_WR_ATOMIC_FETCH_AND_ADD,
	[OP_CMP_SWAP] = IBV_WR_ATOMIC_CMP_AND_SWP,
};

/* Fill one WR for message m in slot s of QP q. */
static void wr_fill(struct vend *e, struct ibv_send_wr *wr, struct ibv_sge *sge, unsigned q,
		    uint64_t m, uint64_t s)
{
	const struct vcase *c = &e->c;
	uint64_t raddr = e->peer.addr + s * e->peer.stride;

	memset(wr, 0, sizeof(*wr));
	sge->addr = (uintptr_t)end_slot(e, s);
	sge->length = vop_is_atomic(c->op) ? 8 : c->size;
	sge->lkey = e->mr->lkey;
	wr->wr_id = m;
	wr->sg_list = sge;
	wr->num_sge = 1;
	wr->opcode = wr_opcode[c->op];
	switch ((enum vop)c->op) {
	case OP_SEND_UD:
		wr->wr.ud.ah = e->ah;
		wr->wr.ud.remote_qpn = e->peer.qpn[q];
		wr->wr.ud.remote_qkey = UD_QKEY;
		break;
	case OP_WRITE_IMM:
		/* The immediate names the message, so the receiver can tell which arrived. */
		wr->imm_data = htonl((uint32_t)m);
		/* fall through */
	case OP_WRITE:
	case OP_READ:
		wr->wr.rdma.remote_addr = raddr;
		wr->wr.rdma.rkey = e->peer.rkey;
		break;
	case OP_FETCH_ADD:
		wr->wr.atomic.remote_addr = e->peer.addr;
		wr->wr.atomic.rkey = e->peer.rkey;
		wr->wr.atomic.compare_add = 1;
		break;
	case OP_CMP_SWAP:
		/* Message m expects the target to hold counter0 + m: true when the messages
		 * run in order, as on one QP; other QPs racing make some of them miss. */
		wr->wr.atomic.remote_addr = e->peer.addr;
		wr->wr.atomic.rkey = e->peer.rkey;
		wr->wr.atomic.compare_add = c->counter0 + m;
		wr->wr.atomic.swap = c->counter0 + m + 1;
		break;
	default:
		break;
	}
	if (c->inline_ && sge->length <= e->max_inline &&
	    (c->op == OP_SEND_RC || c->op == OP_SEND_UD || c->op == OP_WRITE ||
	     c->op == OP_WRITE_IMM))
		wr->send_flags |= IBV_SEND_INLINE;
}

int post_sends(struct vend *e, unsigned q, uint64_t first, uint32_t k0, unsigned n,
	       uint32_t count_q, unsigned sig_every, char *err, size_t errlen)
{
	struct ibv_send_wr *bad = NULL;
	unsigned i;
	int r;

	for (i = 0; i < n; i++) {
		uint32_t k = k0 + i;
		uint64_t s = q + (uint64_t)k * e->c.qps;

		wr_fill(e, &e->wr[i], &e->sge[i], q, first + s, s);
		if ((k + 1) % sig_every == 0 || k + 1 == count_q)
			e->wr[i].send_flags |= IBV_SEND_SIGNALED;
		e->wr[i].next = i + 1 < n ? &e->wr[i + 1] : NULL;
	}
	r = ibv_post_send(e->qp[q], e->wr, &bad);
	if (r)
		snprintf(err, errlen, "%s: ibv_post_send of %s message %llu on QP 0x%x failed: %s",
			 e->dev->name, vop_name[e->c.op],
			 bad ? (unsigned long long)bad->wr_id : 0ull, e->qp[q]->qp_num, strerror(r));
	return r ? -r : 0;
}

int post_recvs(struct vend *e, uint64_t first, uint32_t count, char *err, size_t errlen)
{
	struct ibv_recv_wr wr, *bad;
	struct ibv_sge sge;
	uint32_t s;
	int r;

	(void)first;
	for (s = 0; s < count; s++) {
		memset(&wr, 0, sizeof(wr));
		sge.addr = (uintptr_t)end_slot(e, s);
		sge.length = (uint32_t)e->stride;
		sge.lkey = e->mr->lkey;
		wr.wr_id = s;
		/* Write with immediate consumes a receive WR but places no data through it. */
		wr.sg_list = e->c.op == OP_WRITE_IMM ? NULL : &sge;
		wr.num_sge = e->c.op == OP_WRITE_IMM ? 0 : 1;
		r = e->srq ? ibv_post_srq_recv(e->srq, &wr, &bad)
			   : ibv_post_recv(e->qp[s % e->c.qps], &wr, &bad);
		if (r) {
			snprintf(err, errlen, "%s: posting receive %u of %u failed: %s",
				 e->dev->name, s, count, strerror(r));
			return -r;
		}
	}
	return 0;
}

int poll_bounded(struct ibv_cq *cq, struct ibv_wc *wc, int max, uint64_t deadline_ns)
{
	unsigned spins = 0;
	int n;

	for (;;) {
		n = ibv_poll_cq(cq, max, wc);
		if (n)
			return n < 0 ? -EIO : n;
		/* Reading the clock on every empty poll would cost more than the poll. */
		if (++spins % 256 == 0 && stats_now_ns() > deadline_ns)
			return -ETIMEDOUT;
	}
}

void wc_error(const struct ibv_wc *wc, const struct vend *e, char *err, size_t errlen)
{
	snprintf(err, errlen, "%s %u bytes: completion error on message %llu (QP 0x%x): %s "
		 "(status %d, vendor error 0x%x)", vop_name[e->c.op], e->c.size,
		 (unsigned long long)wc->wr_id, wc->qp_num, ibv_wc_status_str(wc->status),
		 wc->status, wc->vendor_err);
}
