/* SPDX-License-Identifier: MIT */
/*
 * The passive side of a case: it owns the receives, the target of RDMA writes and reads
 * and the atomic counter, and checks what landed in its memory. In loopback it is called
 * directly; in server mode oob.c feeds it the client's requests.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "verbs/pattern.h"
#include "verbs/verbs.h"

static int qp_index(const struct vend *e, uint32_t qpn)
{
	unsigned q;

	for (q = 0; q < e->c.qps; q++)
		if (e->qp[q]->qp_num == qpn)
			return (int)q;
	return -1;
}

/* One receive completion: which message it must be follows from its QP's order. */
void check_recv(struct vend *e, const struct ibv_wc *wc, uint64_t first, uint32_t *seen,
		       struct vcheck *chk)
{
	const struct vcase *c = &e->c;
	int q = qp_index(e, wc->qp_num);
	uint64_t m, s;
	uint32_t want_len = c->size + (vop_is_ud(c->op) ? UD_GRH : 0);
	struct pat_bad b;
	uint8_t *p;

	if (q < 0) {
		check_note(chk, first, "%s: receive completion from unknown QP 0x%x",
			   vop_name[c->op], wc->qp_num);
		return;
	}
	s = q + (uint64_t)seen[q]++ * c->qps;
	m = first + s;
	if (wc->status != IBV_WC_SUCCESS) {
		check_note(chk, m, "%s size %u message %" PRIu64 ": receive completed with error: "
			   "%s (status %d)", vop_name[c->op], c->size, m,
			   ibv_wc_status_str(wc->status), wc->status);
		return;
	}
	if (c->op == OP_WRITE_IMM) {
		if (ntohl(wc->imm_data) != (uint32_t)m)
			check_note(chk, m, "rdma_write_imm size %u message %" PRIu64 ": immediate "
				   "%u, expected %u", c->size, m, ntohl(wc->imm_data), (uint32_t)m);
		return;         /* the data is checked slot by slot afterwards */
	}
	if (wc->byte_len != want_len) {
		check_note(chk, m, "%s message %" PRIu64 ": received %u bytes, expected %u",
			   vop_name[c->op], m, wc->byte_len, want_len);
		return;
	}
	/* Without an SRQ each QP consumes its own receives in order: another slot means a
	 * misplaced buffer. With an SRQ any buffer may take any message. */
	if (!e->srq && wc->wr_id != s) {
		check_note(chk, m, "%s message %" PRIu64 ": landed in buffer %" PRIu64 ", expected "
			   "buffer %" PRIu64, vop_name[c->op], m, (uint64_t)wc->wr_id, s);
		return;
	}
	p = end_slot(e, wc->wr_id) + (vop_is_ud(c->op) ? UD_GRH : 0);
	check_fault(c, p, c->size, m);
	if (pat_check(p, c->size, c->seed, m, &b)) {
		if (!chk->bad) {
			chk->off = b.off;
			chk->want = b.want;
			chk->got = b.got;
		}
		check_note(chk, m, "%s size %u message %" PRIu64 ": first bad byte at offset %zu: "
			   "expected 0x%02x, received 0x%02x (%zu of %u bytes bad)",
			   vop_name[c->op], c->size, m, b.off, b.want, b.got, b.nbad, c->size);
	}
}

static int collect_recvs(struct vend *e, uint64_t first, uint32_t count, struct vcheck *chk,
			 char *err, size_t errlen)
{
	uint64_t deadline = stats_now_ns() + (uint64_t)(e->timeout * 1e9);
	uint32_t *seen = calloc(e->c.qps, sizeof(*seen));
	struct ibv_wc wc[32];
	uint32_t got = 0;
	int n, i;

	if (!seen)
		return -ENOMEM;
	while (got < count) {
		n = poll_bounded(e->rcq, wc, 32, deadline);
		if (n < 0) {
			snprintf(err, errlen, "%s size %u: %u of %u messages from %" PRIu64 " arrived "
				 "within %.0f s", vop_name[e->c.op], e->c.size, got, count, first,
				 e->timeout);
			check_note(chk, first + got, "%s", err);
			break;
		}
		for (i = 0; i < n; i++)
			check_recv(e, &wc[i], first, seen, chk);
		got += (uint32_t)n;
	}
	free(seen);
	if (e->c.op == OP_WRITE_IMM && got == count)
		check_slots(e, first, count, 0, chk);
	return 0;
}

static int do_prep(struct passive *p, struct vmsg *m)
{
	struct vend *e = &p->end;
	uint32_t s;

	if (vop_uses_recv(e->c.op) || e->c.op == OP_WRITE) {
		/* Poison first, so a message that never lands cannot pass as an old one. */
		memset(e->buf, PAT_POISON, e->buflen);
		if (vop_uses_recv(e->c.op))
			return post_recvs(e, m->first, m->count, m->err, sizeof(m->err));
	} else if (e->c.op == OP_READ) {
		for (s = 0; s < m->count; s++)
			pat_fill(end_slot(e, s), e->c.size, e->c.seed, m->first + s);
	}
	return 0;
}

static int do_fin(struct passive *p, struct vmsg *m)
{
	struct vend *e = &p->end;

	memset(&m->chk, 0, sizeof(m->chk));
	if (vop_uses_recv(e->c.op))
		return collect_recvs(e, m->first, m->count, &m->chk, m->err, sizeof(m->err));
	if (e->c.op == OP_WRITE)
		check_slots(e, m->first, m->count, 0, &m->chk);
	else if (vop_is_atomic(e->c.op))
		memcpy(&m->chk.counter, e->buf, 8);
	return 0;
}

/* --pingpong: receives posted (send_rc) or last bytes armed (rdma_write), untimed. */
static int do_pong_prep(struct passive *p, struct vmsg *m)
{
	int r = do_prep(p, m);

	if (!r && p->end.c.op == OP_WRITE)
		r = pp_poison(&p->end, m->first, m->count, 0);
	return r;
}

/* --pingpong: echo the chunk as it lands, then check every byte of it. */
static int do_pong(struct passive *p, struct vmsg *m)
{
	struct vend *e = &p->end;
	struct ibv_wc *wcs = calloc(m->count, sizeof(*wcs));
	uint32_t seen = 0, i;
	int r;

	if (!wcs)
		return -ENOMEM;
	memset(&m->chk, 0, sizeof(m->chk));
	r = pp_pong(e, m->first, m->count, wcs, m->err, sizeof(m->err));
	if (!r && e->c.op == OP_SEND_RC)
		for (i = 0; i < m->count; i++)
			check_recv(e, &wcs[i], m->first, &seen, &m->chk);
	else if (!r)
		check_slots(e, m->first, m->count, 0, &m->chk);
	free(wcs);
	return r;
}

static int do_case(struct passive *p, struct vmsg *m)
{
	struct vinfo mine;
	int r;

	if (p->have_end)
		end_free(&p->end);
	p->have_end = true;
	r = end_setup(&p->end, p->dev, &m->c, true, p->timeout, &mine, m->err, sizeof(m->err));
	if (r < 0)
		return r;
	p->end.peer = m->info;
	r = qp_connect_all(&p->end, m->err, sizeof(m->err));
	if (r < 0)
		return r;
	m->info = mine;
	m->mr_reg_ns = p->end.mr_reg_ns;
	/* Receive memory is what an SRQ saves: buffers posted for one chunk. */
	m->rx_mem = vop_uses_recv(m->c.op) ? p->end.stride * m->c.slots : 0;
	return 0;
}

void passive_handle(struct passive *p, struct vmsg *m)
{
	int r = 0;

	m->err[0] = 0;
	if (m->type != VM_CASE && m->type != VM_BYE && !p->have_end) {
		snprintf(m->err, sizeof(m->err), "request %u before any case", m->type);
		m->status = -EPROTO;
		return;
	}
	switch (m->type) {
	case VM_CASE: r = do_case(p, m); break;
	case VM_PREP: r = do_prep(p, m); break;
	case VM_FIN: r = do_fin(p, m); break;
	case VM_PONG_PREP: r = do_pong_prep(p, m); break;
	case VM_PONG: r = do_pong(p, m); break;
	case VM_END: passive_free(p); break;
	case VM_BYE: break;
	default:
		snprintf(m->err, sizeof(m->err), "unknown request %u", m->type);
		r = -EPROTO;
	}
	m->status = r;
}

void passive_free(struct passive *p)
{
	if (p->have_end)
		end_free(&p->end);
	p->have_end = false;
}
