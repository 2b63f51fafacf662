/* SPDX-License-Identifier: MIT */
/*
 * The mirror's client side: SubnAdmGetTable of MCMemberRecord,
 * ServiceRecord and InformInfoRecord to the master's SA (IBA 15.2.1:
 * LID-routed to QP1 of the master SM's port, QP1's Q_Key, the SM_Key in
 * the SA header so the answers are the trusted ones: every member's
 * PortGID and JoinState, ServiceKeys). The answers are RMPP messages the
 * kernel (the rig's shim on the simulator) reassembles; the owner's loop
 * hands each one in, short or long. Each request is retried on its own
 * after timeout_ms, as often as the options say.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <iba/ib_types.h>

#include "sa/sa_mirror.h"
#include "sa/sa_priv.h"

static const uint16_t q_attr[_SA_MIRROR_Q_MAX] = {
	[SA_MIRROR_Q_MCM] = SA_MIRROR_ATTR_MCM,
	[SA_MIRROR_Q_SERVICE] = SA_MIRROR_ATTR_SERVICE,
	[SA_MIRROR_Q_INFORM] = SA_MIRROR_ATTR_INFORM_REC,
	[SA_MIRROR_Q_NODE] = SA_MIRROR_ATTR_NODE,
	[SA_MIRROR_Q_LINK] = SA_MIRROR_ATTR_LINK,
};

static void fail(struct sa_mirror_fetch *f, int err)
{
	if (!f->err)
		f->err = err;
}

static int send_q(struct sa_mirror_fetch *f, unsigned i, uint64_t now_ms)
{
	uint8_t mad[MAD_SIZE];
	struct mad_addr to = { .lid = f->o.master_lid, .qpn = 1, .pkey_index = f->o.pkey_index,
			       .agent = MAD_AGENT_SA };
	int r;

	sa_mirror_req(mad, q_attr[i], f->q[i].tid, f->o.sm_key);
	f->q[i].tries++;
	f->q[i].due_ms = now_ms + f->o.timeout_ms;
	f->sent++;
	r = f->ops->send(f->t, mad, MAD_SIZE, f->o.timeout_ms, &to);
	if (r < 0)
		fail(f, r);
	return r;
}

int sa_mirror_fetch_start(struct sa_mirror_fetch *f, const struct sa_mirror_fetch_opts *o,
			  const struct mad_transport_ops *ops, void *t, uint32_t tid_base,
			  uint64_t now_ms)
{
	memset(f, 0, sizeof(*f));
	f->o = *o;
	if (!f->o.timeout_ms)
		f->o.timeout_ms = 1000;
	if (!f->o.want)
		f->o.want = SA_MIRROR_WANT_STATE;
	f->ops = ops;
	f->t = t;
	for (unsigned i = 0; i < _SA_MIRROR_Q_MAX; i++) {
		/* Bit 31 and a sequence: apart from the SM's SMP TIDs, which count up from 1. */
		f->q[i].tid = 0x80000000u | (tid_base & 0x7fffffu) << 8 | i;
		f->q[i].done = !(f->o.want & 1u << i);
		if (!f->q[i].done && send_q(f, i, now_ms) < 0)
			return f->err;
	}
	return 0;
}

bool sa_mirror_fetch_input(struct sa_mirror_fetch *f, const uint8_t *mad, size_t len)
{
	ib_sa_mad_t h;
	uint16_t status;
	unsigned i;
	int r;

	if (!mad || len < SA_HDR_SIZE)
		return false;
	memcpy(&h, mad, SA_HDR_SIZE);
	if (h.mgmt_class != IB_MCLASS_SUBN_ADM || !(h.method & IB_MAD_METHOD_RESP_MASK))
		return false;
	/* The kernel owns the TID's upper 32 bits (the agent); ours are the lower. */
	for (i = 0; i < _SA_MIRROR_Q_MAX; i++)
		if ((uint32_t)be64toh(h.trans_id) == (uint32_t)f->q[i].tid)
			break;
	if (i == _SA_MIRROR_Q_MAX)
		return false;
	if (f->q[i].done || f->err)
		return true; /* a retry's second answer: already have it */
	status = be16toh(h.status);
	if (status == SA_ST_UNSUP_METHOD || status == SA_ST_UNSUP_METHOD_ATTR) {
		/* An SA without that table: the rest is still worth having; the status says so. */
		f->q[i].status = status;
		f->q[i].done = true;
		f->answers++;
		return true;
	}
	if (status && status != SA_ST_NO_RECORDS) {
		/* A refusal may come as GetResp: any response method counts. */
		f->q[i].status = status;
		fail(f, -EREMOTEIO);
		return true;
	}
	if (be16toh(h.attr_id) != q_attr[i]) {
		f->dropped++;
		return true;
	}
	r = sa_mirror_decode(&f->m, mad, len, &status);
	if (r == -EPROTO) {
		f->dropped++; /* malformed: the retry may bring a good one */
		return true;
	}
	if (r < 0) {
		f->q[i].status = status;
		fail(f, r);
		return true;
	}
	f->answers++;
	f->q[i].done = true;
	return true;
}

void sa_mirror_fetch_tick(struct sa_mirror_fetch *f, uint64_t now_ms)
{
	for (unsigned i = 0; i < _SA_MIRROR_Q_MAX && !f->err; i++) {
		if (f->q[i].done || now_ms < f->q[i].due_ms)
			continue;
		if (f->q[i].tries > f->o.retries) {
			fail(f, -ETIMEDOUT);
			return;
		}
		send_q(f, i, now_ms);
	}
}

int sa_mirror_fetch_next_ms(const struct sa_mirror_fetch *f, uint64_t now_ms)
{
	uint64_t min = UINT64_MAX;

	if (f->err)
		return -1;
	for (unsigned i = 0; i < _SA_MIRROR_Q_MAX; i++)
		if (!f->q[i].done && f->q[i].due_ms < min)
			min = f->q[i].due_ms;
	if (min == UINT64_MAX)
		return -1;
	return min <= now_ms ? 0 : (int)(min - now_ms);
}

int sa_mirror_fetch_state(const struct sa_mirror_fetch *f)
{
	if (f->err)
		return f->err;
	for (unsigned i = 0; i < _SA_MIRROR_Q_MAX; i++)
		if (!f->q[i].done)
			return 0;
	return 1;
}

void sa_mirror_fetch_take(struct sa_mirror_fetch *f, struct sa_mirror *out)
{
	*out = f->m;
	memset(&f->m, 0, sizeof(f->m));
}

void sa_mirror_fetch_free(struct sa_mirror_fetch *f)
{
	sa_mirror_free(&f->m);
}

static uint64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Wait for the transport, read what it has into the fetch; 0 or -errno. */
static int pump(struct sa_mirror_fetch *f, uint8_t *buf, int wait_ms)
{
	struct pollfd pfd = { .fd = f->ops->fd(f->t), .events = POLLIN };
	struct mad_addr from;
	int r = poll(&pfd, 1, wait_ms);

	if (r < 0)
		return errno == EINTR ? 0 : -errno;
	if (r > 0 && (pfd.revents & (POLLERR | POLLNVAL)))
		return -EIO;
	while (r > 0) {
		r = f->ops->recv(f->t, buf, MAD_RMPP_MAX, &from);
		if (r == -EAGAIN || r == -EINTR)
			return 0;
		if (r < 0)
			return r;
		sa_mirror_fetch_input(f, buf, (size_t)r); /* what is not ours is dropped */
		r = 1;
	}
	return 0;
}

int sa_mirror_fetch_run(const struct mad_transport_ops *ops, void *t,
			const struct sa_mirror_fetch_opts *o, int timeout_ms, struct sa_mirror *out,
			uint16_t *fail_status)
{
	struct sa_mirror_fetch f;
	uint64_t end = mono_ms() + (uint64_t)(timeout_ms < 0 ? 0 : timeout_ms);
	uint8_t *buf = malloc(MAD_RMPP_MAX);
	int r;

	*fail_status = 0;
	if (!buf)
		return -ENOMEM;
	r = sa_mirror_fetch_start(&f, o, ops, t, (uint32_t)mono_ms(), mono_ms());
	while (r >= 0 && (r = sa_mirror_fetch_state(&f)) == 0) {
		uint64_t now = mono_ms();
		int wait = sa_mirror_fetch_next_ms(&f, now);

		if (now >= end) {
			r = -ETIMEDOUT;
			break;
		}
		if (wait < 0 || (uint64_t)wait > end - now)
			wait = (int)(end - now);
		r = pump(&f, buf, wait);
		if (r >= 0)
			sa_mirror_fetch_tick(&f, mono_ms());
	}
	free(buf);
	if (r == 1) {
		sa_mirror_fetch_take(&f, out);
		r = 0;
	}
	for (unsigned i = 0; i < _SA_MIRROR_Q_MAX; i++)
		if (f.q[i].status && !*fail_status)
			*fail_status = f.q[i].status;
	sa_mirror_fetch_free(&f);
	return r;
}
