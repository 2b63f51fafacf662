/* SPDX-License-Identifier: MIT */
/*
 * The active side of a case. Messages go in chunks as large as the buffer slots: prepare
 * (untimed), run the chunk (timed: posting and polling only), let both sides check it
 * (untimed), next chunk. A latency phase runs one message at a time, then a bandwidth
 * phase keeps --depth WRs in flight per QP, batched and selectively signaled as asked.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "verbs/pattern.h"
#include "verbs/verbs.h"

struct run {
	struct vend e;
	struct vpeer *peer;
	const struct vopts *o;
	struct vresult *res;
	uint64_t cur;            /* atomics: the target's value now */
	uint64_t *lat;
	size_t nlat, caplat;
	struct vmsg m;
};

static uint32_t count_of_qp(uint32_t count, unsigned qps, unsigned q)
{
	return (count + qps - 1 - q) / qps;
}

/* Untimed: what the active side's slots must hold before the chunk runs. */
static void prep_local(struct vend *e, uint64_t first, uint32_t count)
{
	uint32_t s;

	if (e->c.op == OP_READ || vop_is_atomic(e->c.op)) {
		memset(e->buf, PAT_POISON, e->stride * count);
		return;
	}
	for (s = 0; s < count; s++)
		pat_fill(end_slot(e, s), e->c.size, e->c.seed, first + s);
}

static int wait_one(struct run *R, uint64_t deadline, struct ibv_wc *wc)
{
	int n = poll_bounded(R->e.scq, wc, 1, deadline);

	if (n == -ETIMEDOUT)
		snprintf(R->res->err, sizeof(R->res->err), "%s size %u: no completion within "
			 "%.0f s; is the peer alive?", vop_name[R->e.c.op], R->e.c.size,
			 R->o->timeout);
	else if (n > 0 && wc->status != IBV_WC_SUCCESS)
		wc_error(wc, &R->e, R->res->err, sizeof(R->res->err));
	else if (n > 0)
		return 0;
	return -EIO;
}

/* Timed: one message at a time, each sample from post to completion. */
static int chunk_latency(struct run *R, uint64_t first, uint32_t count, uint64_t *ns)
{
	uint64_t deadline = stats_now_ns() + (uint64_t)(R->o->timeout * 1e9), t0;
	unsigned qps = R->e.c.qps;
	struct ibv_wc wc;
	uint32_t s;
	int r;

	for (s = 0; s < count; s++) {
		t0 = stats_now_ns();
		r = post_sends(&R->e, s % qps, first, s / qps, 1, s / qps + 1, 1, R->res->err,
			       sizeof(R->res->err));
		if (r < 0 || wait_one(R, deadline, &wc) < 0)
			return -EIO;
		R->lat[R->nlat++] = stats_now_ns() - t0;
	}
	*ns = 0;
	for (s = 0; s < count; s++)
		*ns += R->lat[R->nlat - count + s];
	return 0;
}

/* Post what QP q may: a full batch when the queue has room for it, a partial one only
 * when nothing signaled is in flight (or no completion would ever come to make room). */
static int fill_qp(struct run *R, unsigned q, uint64_t first, uint32_t cnt, uint32_t *posted,
		   uint32_t done)
{
	const struct vcase *c = &R->e.c;
	uint32_t room = c->depth - (*posted - done), left = cnt - *posted, full, n;

	while (left) {
		full = left < c->batch ? left : c->batch;
		n = full <= room ? full : (*posted - done < c->signal_every ? room : 0);
		if (!n)
			break;
		if (post_sends(&R->e, q, first, *posted, n, cnt, c->signal_every, R->res->err,
			       sizeof(R->res->err)) < 0)
			return -EIO;
		*posted += n;
		room -= n;
		left -= n;
	}
	return 0;
}

/* Timed: keep the send queues full. */
static int chunk_bandwidth(struct run *R, uint64_t first, uint32_t count, uint64_t *ns)
{
	uint64_t t0 = stats_now_ns(), deadline = t0 + (uint64_t)(R->o->timeout * 1e9);
	unsigned qps = R->e.c.qps, q;
	uint32_t posted[VOPTS_MAX_QPS] = { 0 }, done[VOPTS_MAX_QPS] = { 0 }, total = 0, k;
	struct ibv_wc wc[32];
	int n, i;

	while (total < count) {
		for (q = 0; q < qps; q++)
			if (fill_qp(R, q, first, count_of_qp(count, qps, q), &posted[q], done[q]) < 0)
				return -EIO;
		n = poll_bounded(R->e.scq, wc, 32, deadline);
		if (n < 0) {
			snprintf(R->res->err, sizeof(R->res->err), "%s size %u: %u of %u messages "
				 "completed within %.0f s; is the peer alive?", vop_name[R->e.c.op],
				 R->e.c.size, total, count, R->o->timeout);
			return -EIO;
		}
		for (i = 0; i < n; i++) {
			if (wc[i].status != IBV_WC_SUCCESS) {
				wc_error(&wc[i], &R->e, R->res->err, sizeof(R->res->err));
				return -EIO;
			}
			/* A signaled completion retires every earlier WR of its QP. */
			q = (unsigned)((wc[i].wr_id - first) % qps);
			k = (uint32_t)((wc[i].wr_id - first) / qps) + 1;
			total += k - done[q];
			done[q] = k;
		}
	}
	*ns = stats_now_ns() - t0;
	return 0;
}

static int call(struct run *R, uint32_t type, uint64_t first, uint32_t count)
{
	R->m.type = type;
	R->m.first = first;
	R->m.count = count;
	return peer_call(R->peer, &R->m, R->res->err, sizeof(R->res->err));
}

/* Both sides check the chunk; returns 1 on a mismatch (reported in res->err). */
static int check_chunk(struct run *R, uint64_t first, uint32_t count)
{
	struct vcheck chk = R->m.chk;

	if (R->e.c.op == OP_READ)
		check_slots(&R->e, first, count, 0, &chk);
	else if (vop_is_atomic(R->e.c.op)) {
		check_atomics(&R->e, first, count, chk.counter, &chk);
		R->cur = chk.counter;
	}
	if (!chk.bad)
		return 0;
	snprintf(R->res->err, sizeof(R->res->err), "%s%s", chk.what,
		 chk.bad > 1 ? " (and more)" : "");
	return 1;
}

/* One phase; returns 0, 1 on a failed check, -EIO on a failure of the data path, -EPIPE
 * when the peer cannot be reached. */
static int phase(struct run *R, bool lat, uint64_t *msg, struct vphase *ph)
{
	const struct vopts *o = R->o;
	uint64_t ns, want = o->duration > 0 ? UINT64_MAX : o->iters, done = 0;
	uint32_t count;
	int r;

	while (done < want && !(o->duration > 0 && ph->ns >= o->duration * 1e9)) {
		count = want - done < R->e.c.slots ? (uint32_t)(want - done) : R->e.c.slots;
		if (lat && R->nlat + count > R->caplat) {
			size_t cap = R->caplat * 2 + count;
			uint64_t *nl = realloc(R->lat, cap * sizeof(*nl));

			if (!nl)
				return -ENOMEM;
			R->lat = nl;
			R->caplat = cap;
		}
		prep_local(&R->e, *msg, count);
		R->e.c.counter0 = R->cur - *msg;
		if (call(R, VM_PREP, *msg, count) < 0)
			return -EPIPE;
		r = lat ? chunk_latency(R, *msg, count, &ns) : chunk_bandwidth(R, *msg, count, &ns);
		if (r < 0)
			return r;
		ph->ns += ns;
		if (call(R, VM_FIN, *msg, count) < 0)
			return -EPIPE;
		if (check_chunk(R, *msg, count))
			return 1;
		*msg += count;
		done += count;
		ph->msgs += count;
	}
	return 0;
}

/* --pingpong: chunks of echoed messages, half of each round trip a sample. Returns like
 * phase(). */
static int phase_pingpong(struct run *R, uint64_t *msg)
{
	uint64_t want = R->o->duration > 0 ? R->e.c.slots / 2 : R->o->iters, done = 0;
	uint64_t *ns = calloc(want, sizeof(*ns));
	struct vcheck chk;
	uint32_t count;
	int r = 0;

	if (!ns)
		return -ENOMEM;
	while (done < want && !r) {
		count = want - done < R->e.c.slots / 2 ? (uint32_t)(want - done) : R->e.c.slots / 2;
		memset(&chk, 0, sizeof(chk));
		r = pp_chunk(&R->e, R->peer, &R->m, *msg, count, ns + done, &chk, R->res->err,
			     sizeof(R->res->err));
		if (r == 1)
			snprintf(R->res->err, sizeof(R->res->err), "ping-pong: %s%s", chk.what,
				 chk.bad > 1 ? " (and more)" : "");
		else if (r < 0 && r != -EPIPE)
			r = -EIO;
		*msg += count;
		done += count;
	}
	R->res->msgs += done;
	stats_latency(ns, done, &R->res->pp);
	R->res->pp_ran = true;
	free(ns);
	return r;
}

static void result_fill(struct run *R, const struct vphase *bw)
{
	struct vresult *res = R->res;
	double sec = bw->ns / 1e9;

	stats_latency(R->lat, R->nlat, &res->lat);
	if (sec > 0) {
		res->mib_s = (double)bw->msgs * res->size / sec / (1 << 20);
		res->mpps = bw->msgs / sec / 1e6;
	}
}

int run_case(struct vdev *d, struct vpeer *peer, const struct vopts *o, const struct vcase *c,
	     struct vresult *res)
{
	struct run *R = calloc(1, sizeof(*R));
	struct vphase lat = { 0 }, bw = { 0 };
	struct vinfo mine;
	uint64_t msg = 0;
	int r;

	if (!R)
		return -ENOMEM;
	R->peer = peer;
	R->o = o;
	R->res = res;
	R->cur = c->counter0;
	res->c = *c;
	res->op = c->op;
	res->size = vop_is_atomic(c->op) ? 8 : c->size;
	snprintf(res->transport, sizeof(res->transport), "%s", vop_is_ud(c->op) ? "UD" : "RC");
	r = end_setup(&R->e, d, c, false, o->timeout, &mine, res->err, sizeof(res->err));
	if (r < 0)
		goto out;
	R->m.c = *c;
	R->m.info = mine;
	r = call(R, VM_CASE, 0, 0);
	if (r < 0) {
		r = -EPIPE;
		goto out;
	}
	R->e.peer = R->m.info;
	res->mr_reg_us = R->e.mr_reg_ns / 1e3;
	res->rx_mem = R->m.rx_mem;
	r = qp_connect_all(&R->e, res->err, sizeof(res->err));
	if (r < 0)
		goto end;
	res->ran = true;
	r = phase(R, true, &msg, &lat);
	if (!r)
		r = phase(R, false, &msg, &bw);
	res->msgs = lat.msgs + bw.msgs;
	if (!r && o->pingpong && pp_applies(c))
		r = phase_pingpong(R, &msg);
	res->verified = r == 0;
	result_fill(R, &bw);
	if (r > 0 || r == -EIO)
		r = 0;          /* ran, and failed: res says how */
end:
	if (r != -EPIPE && call(R, VM_END, 0, 0) < 0)
		r = -EPIPE;
out:
	end_free(&R->e);
	free(R->lat);
	free(R);
	return r;
}
