/* SPDX-License-Identifier: MIT */
/*
 * --pingpong: latency as perftest's ib_write_lat and ib_send_lat measure it, half a round
 * trip. The active side sends message i, the passive side echoes it back as soon as it
 * sees it, and half the time from post to the echo's arrival is one sample. rdma_write:
 * each side spins on the last byte of the slot the other writes (its other bytes are
 * checked afterwards); send_rc: each side polls its receive CQ. One QP, no SRQ.
 * The active side pings from slots 0..n-1 and takes the echoes in slots n..2n-1, so an
 * echo that never came leaves poison there, not the ping's own bytes. Both sides check
 * every byte after the chunk, outside the timed loop.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "verbs/pattern.h"
#include "verbs/verbs.h"

bool pp_applies(const struct vcase *c)
{
	return (c->op == OP_WRITE || c->op == OP_SEND_RC) && c->qps == 1 && !c->srq &&
	       c->slots >= 2;
}

/* Untimed: set slot[base + i]'s last byte to anything but message first+i's last byte,
 * so that byte turning right means the message arrived. */
int pp_poison(struct vend *e, uint64_t first, uint32_t count, uint32_t base)
{
	uint8_t *tmp = malloc(e->c.size);
	uint32_t i;

	if (!tmp)
		return -ENOMEM;
	for (i = 0; i < count; i++) {
		uint8_t *s = end_slot(e, base + i);

		pat_fill(tmp, e->c.size, e->c.seed, first + i);
		memset(s, PAT_POISON, e->c.size);
		s[e->c.size - 1] = (uint8_t)~tmp[e->c.size - 1];
	}
	free(tmp);
	return 0;
}

/* Every how many sends a completion is asked for: a CQE per message costs the device
 * and the reaping inside the timed loop, and perftest's latency tests do not pay it
 * either. The send queue must still hold what is unsignaled. */
static uint32_t pp_sig_every(const struct vend *e)
{
	return e->c.depth >= 32 ? 16 : 1;
}

/* Post one message: slot `from` to the peer's slot `to` (write) or its next receive.
 * Returns 1 when it was signaled. */
static int pp_post(struct vend *e, uint64_t m, uint32_t from, uint32_t to, bool sig,
		   char *err, size_t errlen)
{
	struct ibv_sge sge = { .addr = (uintptr_t)end_slot(e, from), .length = e->c.size,
			       .lkey = e->mr->lkey };
	struct ibv_send_wr wr = { .wr_id = m, .sg_list = &sge, .num_sge = 1,
				  .send_flags = sig ? IBV_SEND_SIGNALED : 0 }, *bad;
	int r;

	if (e->c.inline_ && e->c.size <= e->max_inline)
		wr.send_flags |= IBV_SEND_INLINE;
	if (e->c.op == OP_WRITE) {
		wr.opcode = IBV_WR_RDMA_WRITE;
		wr.wr.rdma.remote_addr = e->peer.addr + (uint64_t)to * e->peer.stride;
		wr.wr.rdma.rkey = e->peer.rkey;
	} else {
		wr.opcode = IBV_WR_SEND;
	}
	r = ibv_post_send(e->qp[0], &wr, &bad);
	if (r)
		snprintf(err, errlen, "%s: ping-pong: ibv_post_send of %s message %" PRIu64
			 " failed: %s", e->dev->name, vop_name[e->c.op], m, strerror(r));
	return r ? -r : sig;
}

/* Reap send completions; block only while `keep` or more are still in flight. */
static int pp_reap(struct vend *e, uint32_t *inflight, uint32_t keep, uint64_t deadline,
		   char *err, size_t errlen)
{
	struct ibv_wc wc[16];
	int n, i;

	for (;;) {
		n = *inflight >= keep ? poll_bounded(e->scq, wc, 16, deadline)
				      : ibv_poll_cq(e->scq, 16, wc);
		if (n < 0) {
			snprintf(err, errlen, "%s size %u: ping-pong: a send did not complete "
				 "within %.0f s; is the peer alive?", vop_name[e->c.op], e->c.size,
				 e->timeout);
			return -EIO;
		}
		for (i = 0; i < n; i++)
			if (wc[i].status != IBV_WC_SUCCESS) {
				wc_error(&wc[i], e, err, errlen);
				return -EIO;
			}
		*inflight -= (uint32_t)n;
		if (*inflight < keep || !n)
			return 0;
	}
}

/* Wait for message `m`: its last byte in slot `s` (write) or one receive completion. */
static int pp_wait(struct vend *e, uint32_t s, uint8_t want, struct ibv_wc *wc,
		   uint64_t deadline, char *err, size_t errlen)
{
	const volatile uint8_t *last = end_slot(e, s) + e->c.size - 1;
	unsigned spins = 0;

	if (e->c.op == OP_SEND_RC) {
		if (poll_bounded(e->rcq, wc, 1, deadline) == 1)
			return 0;
	} else {
		while (*last != want)
			if (++spins % 4096 == 0 && stats_now_ns() > deadline)
				goto late;
		return 0;
	}
late:
	snprintf(err, errlen, "%s size %u: ping-pong: no echo within %.0f s; is the peer "
		 "alive?", vop_name[e->c.op], e->c.size, e->timeout);
	return -ETIMEDOUT;
}

/* The last byte each of messages first..first+count-1 ends with. */
static uint8_t *pp_lasts(const struct vend *e, uint64_t first, uint32_t count)
{
	uint8_t *tmp = malloc(e->c.size), *l = malloc(count);
	uint32_t i;

	for (i = 0; tmp && l && i < count; i++) {
		pat_fill(tmp, e->c.size, e->c.seed, first + i);
		l[i] = tmp[e->c.size - 1];
	}
	free(tmp);
	if (!tmp) {
		free(l);
		return NULL;
	}
	return l;
}

/* Passive: echo every message as it lands; wcs[] keeps the receives for the check. */
int pp_pong(struct vend *e, uint64_t first, uint32_t count, struct ibv_wc *wcs, char *err,
	    size_t errlen)
{
	uint64_t deadline = stats_now_ns() + (uint64_t)(e->timeout * 1e9);
	uint8_t *last = pp_lasts(e, first, count);
	uint32_t i, inflight = 0, sig = pp_sig_every(e);
	int r = 0;

	if (!last)
		return -ENOMEM;
	for (i = 0; i < count && !r; i++) {
		r = pp_wait(e, i, last[i], &wcs[i], deadline, err, errlen);
		if (!r && e->c.op == OP_SEND_RC && wcs[i].status != IBV_WC_SUCCESS) {
			wc_error(&wcs[i], e, err, errlen);
			r = -EIO;
		}
		if (!r)
			r = pp_post(e, first + i, i, count + i, (i + 1) % sig == 0 || i + 1 == count,
				    err, errlen);
		if (r == 1 && ++inflight)
			r = pp_reap(e, &inflight, e->c.depth / sig, deadline, err, errlen);
	}
	if (!r)
		r = pp_reap(e, &inflight, 1, deadline, err, errlen);
	free(last);
	return r;
}

/* Active, timed: ping message i from slot i, wait for its echo in slot count+i. */
static int pp_ping(struct vend *e, uint64_t first, uint32_t count, uint64_t *half_ns,
		   char *err, size_t errlen)
{
	uint64_t deadline = stats_now_ns() + (uint64_t)(e->timeout * 1e9), t0;
	uint8_t *last = pp_lasts(e, first, count);
	uint32_t i, inflight = 0, sig = pp_sig_every(e);
	struct ibv_wc wc;
	int r = 0, signaled = 0;

	if (!last)
		return -ENOMEM;
	for (i = 0; i < count && !r; i++) {
		t0 = stats_now_ns();
		r = pp_post(e, first + i, i, i, (i + 1) % sig == 0 || i + 1 == count, err, errlen);
		if (r >= 0)
			signaled = r, r = pp_wait(e, count + i, last[i], &wc, deadline, err, errlen);
		if (!r && e->c.op == OP_SEND_RC && wc.status != IBV_WC_SUCCESS) {
			wc_error(&wc, e, err, errlen);
			r = -EIO;
		}
		half_ns[i] = (stats_now_ns() - t0) / 2;
		if (!r && signaled && ++inflight)
			r = pp_reap(e, &inflight, e->c.depth / sig, deadline, err, errlen);
	}
	if (!r)
		r = pp_reap(e, &inflight, 1, deadline, err, errlen);
	free(last);
	return r;
}

/* Untimed: receives for the echoes, in slots count..2count-1. */
static int pp_post_recvs(struct vend *e, uint32_t count, char *err, size_t errlen)
{
	struct ibv_recv_wr wr = { .num_sge = 1 }, *bad;
	struct ibv_sge sge = { .length = e->c.size, .lkey = e->mr->lkey };
	uint32_t i;

	wr.sg_list = &sge;
	for (i = 0; i < count; i++) {
		wr.wr_id = count + i;
		sge.addr = (uintptr_t)end_slot(e, count + i);
		if (ibv_post_recv(e->qp[0], &wr, &bad)) {
			snprintf(err, errlen, "%s: ping-pong: posting receive %u failed: %s",
				 e->dev->name, i, strerror(errno));
			return -EIO;
		}
	}
	return 0;
}

struct pp_local {
	struct passive *p;
	struct vmsg m;
};

static void *pp_local_pong(void *arg)
{
	struct pp_local *l = arg;

	passive_handle(l->p, &l->m);
	return NULL;
}

/* One chunk of the ping-pong phase: the peer gets VM_PONG and echoes while this side
 * pings; its answer carries its check of what it received. Returns 0, 1 on a failed
 * check (in chk), or -errno (in err). */
int pp_chunk(struct vend *e, struct vpeer *peer, struct vmsg *m, uint64_t first,
	     uint32_t count, uint64_t *half_ns, struct vcheck *chk, char *err, size_t errlen)
{
	struct pp_local loc;
	pthread_t t;
	uint32_t i;
	int r;

	for (i = 0; i < count; i++)
		pat_fill(end_slot(e, i), e->c.size, e->c.seed, first + i);
	r = pp_poison(e, first, count, count);
	if (!r && e->c.op == OP_SEND_RC)
		r = pp_post_recvs(e, count, err, errlen);
	if (r < 0)
		return r;
	m->type = VM_PONG_PREP;
	m->first = first;
	m->count = count;
	r = peer_call(peer, m, err, errlen);
	if (r < 0)
		return r;
	m->type = VM_PONG;
	if (peer->local) {
		/* Loopback: the echoing side needs a thread of its own. */
		loc = (struct pp_local){ .p = peer->local, .m = *m };
		if ((r = pthread_create(&t, NULL, pp_local_pong, &loc))) {
			snprintf(err, errlen, "ping-pong: cannot start the echo thread: %s",
				 strerror(r));
			return -r;
		}
		r = pp_ping(e, first, count, half_ns, err, errlen);
		pthread_join(t, NULL);
		*m = loc.m;
	} else {
		r = peer_send(peer, m, err, errlen);
		if (r < 0)
			return r;
		r = pp_ping(e, first, count, half_ns, err, errlen);
		if (peer_recv(peer, m, err, errlen) < 0)
			return -EPIPE;
	}
	if (r < 0)
		return r;
	if (m->status < 0) {
		snprintf(err, errlen, "%s: %s", peer->local ? "receiver" : "server", m->err);
		return m->status;
	}
	*chk = m->chk;
	check_slots(e, first, count, (size_t)count * e->stride, chk);
	return chk->bad ? 1 : 0;
}
