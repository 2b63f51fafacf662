/* SPDX-License-Identifier: MIT */
/*
 * What loom health reads for the routes group's credit loops on several
 * VLs: the SL each route rides. No SMP shows it: a host learns the SL of a
 * path from the SA's PathRecord (IBA 15.2.5.16) and sends on it, so that is
 * what health asks, as a host would: SubnAdmGet(PathRecord) with SLID and
 * DLID (IBA 15.4.2), LID-routed to the SA (the MasterSMLID the ports hold),
 * QP1 with its Q_Key.
 *
 * Which pairs: the checker's granularity is the SL per (switch where the
 * route enters the fabric, destination LID), route_out.sl's shape, so one
 * host of each switch asks for every destination LID (each LID of an LMC
 * range): hosts x destination LIDs Gets, each a single MAD answer (no RMPP).
 * Another host of the same switch is taken to get the same SL; an SA that
 * gives SLs by source port rather than entry switch is judged by the
 * first host of each switch only (said in the routes group's text).
 * o->window Gets in flight, each tried 1 + o->retries times; when a
 * window's worth fail before any answer (no SA), the rest are not asked.
 */
#include <errno.h>
#include <poll.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <iba/ib_types.h>

#include "fabric/health_read.h"

#define SA_CLASS 0x03
#define SA_CLASS_VERSION 2
#define SA_GET 0x01
#define SA_GET_RESP 0x81
#define SA_ATTR_PATH 0x0035
/* IBA 15.2.1.1: MAD header 24, RMPP 12, SM_Key 8, AttributeOffset 2, reserved 2, ComponentMask 8. */
#define SA_COMP_MASK 48
#define SA_DATA 56
#define PR_DLID (1ull << 4)
#define PR_SLID (1ull << 5)

struct sl_slot {
	bool busy;
	uint32_t row; /* switch number */
	uint16_t slid, dlid;
	uint32_t tid;
	unsigned tries;
	uint64_t deadline;
};

struct sl_run {
	const struct mad_transport_ops *ops;
	void *t;
	const struct txn_opts *o;
	const struct route_out *ro;
	struct health_sl *out;
	uint16_t sa_lid;
	uint32_t next_tid;
	/* the work: (row, slid) per switch with a host, dlids of every destination */
	uint32_t *row_of; /* [n_src] */
	uint16_t *src_lid, *dst_lid;
	uint32_t n_src, n_dst, next;
	uint32_t answered;
};

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static int send_get(struct sl_run *r, struct sl_slot *s)
{
	uint8_t mad[MAD_SIZE] = { 0 };
	struct mad_addr to = { .lid = r->sa_lid, .qpn = 1 };
	uint64_t mask = PR_DLID | PR_SLID;

	s->tid = ++r->next_tid;
	mad[0] = 1; /* BaseVersion */
	mad[1] = SA_CLASS;
	mad[2] = SA_CLASS_VERSION;
	mad[3] = SA_GET;
	for (int i = 0; i < 4; i++)
		mad[12 + i] = (uint8_t)(s->tid >> (24 - 8 * i));
	put16(mad + 16, SA_ATTR_PATH);
	for (int i = 0; i < 8; i++)
		mad[SA_COMP_MASK + i] = (uint8_t)(mask >> (56 - 8 * i));
	put16(mad + SA_DATA + offsetof(ib_path_rec_t, dlid), s->dlid);
	put16(mad + SA_DATA + offsetof(ib_path_rec_t, slid), s->slid);
	s->tries++;
	s->deadline = now_ms() + r->o->timeout_ms;
	return r->ops->send(r->t, mad, MAD_SIZE, r->o->timeout_ms, &to);
}

static void fail_one(struct sl_run *r, struct sl_slot *s, int err)
{
	r->out->failed++;
	if (!r->out->status)
		r->out->status = err;
	s->busy = false;
}

static void got(struct sl_run *r, struct sl_slot *slot, unsigned n, const uint8_t *mad, size_t len)
{
	uint32_t tid;
	uint16_t status;

	if (len < SA_DATA + sizeof(ib_path_rec_t) || mad[1] != SA_CLASS || mad[3] != SA_GET_RESP)
		return;
	tid = (uint32_t)mad[12] << 24 | (uint32_t)mad[13] << 16 | (uint32_t)mad[14] << 8 | mad[15];
	for (unsigned i = 0; i < n; i++) {
		struct sl_slot *s = &slot[i];

		if (!s->busy || s->tid != tid)
			continue;
		status = (uint16_t)(mad[4] << 8 | mad[5]);
		if (status & 0x7fff) {
			fail_one(r, s, -EREMOTEIO);
			return;
		}
		route_sl(r->ro, s->row)[s->dlid] =
			mad[SA_DATA + offsetof(ib_path_rec_t, qos_class_sl) + 1] & 0x0f;
		r->out->sls_used |= (uint16_t)(1u << route_sl(r->ro, s->row)[s->dlid]);
		r->answered++;
		s->busy = false;
		return;
	}
}

/* Keep every slot busy while work is left; the number busy. */
static unsigned refill(struct sl_run *r, struct sl_slot *slot, unsigned n)
{
	uint64_t now = now_ms();
	unsigned busy = 0;

	for (unsigned i = 0; i < n; i++) {
		struct sl_slot *s = &slot[i];

		if (!s->busy || s->deadline > now)
			continue;
		if (s->tries > r->o->retries)
			fail_one(r, s, -ETIMEDOUT);
		else if (send_get(r, s) < 0)
			fail_one(r, s, -EIO);
	}
	/* A window's worth failed before any answer: no SA to ask; stop. */
	if (!r->answered && r->out->failed >= n)
		r->next = r->n_src * r->n_dst;
	for (unsigned i = 0; i < n; i++) {
		struct sl_slot *s = &slot[i];

		while (!s->busy && r->next < r->n_src * r->n_dst) {
			uint32_t a = r->next / r->n_dst, b = r->next % r->n_dst;

			r->next++;
			if (r->src_lid[a] == r->dst_lid[b])
				continue;
			*s = (struct sl_slot){ .busy = true, .row = r->row_of[a],
					       .slid = r->src_lid[a], .dlid = r->dst_lid[b] };
			r->out->asked++;
			if (send_get(r, s) < 0)
				fail_one(r, s, -EIO);
		}
		busy += s->busy;
	}
	return busy;
}

/* The SA's LID: the MasterSMLID a CA port was given (IBA 14.2.5.6). */
static uint16_t sa_lid_of(const struct subnet *sn, const struct disc_live *live)
{
	for (uint32_t p = 0; p < sn->n_ports; p++)
		if (!subnet_is_switch(sn, sn->port[p].node) && live->port[p].have_pi &&
		    live->port[p].pi.sm_lid && sn->port[p].lid)
			return live->port[p].pi.sm_lid;
	return 0;
}

int health_read_sl(const struct mad_transport_ops *ops, void *t, const struct txn_opts *o,
		   const struct subnet *sn, const struct disc_live *live,
		   const struct route_out *ro, struct health_sl *out)
{
	struct sl_run r = { .ops = ops, .t = t, .o = o, .ro = ro, .out = out };
	struct route_out view = *ro;
	struct sl_slot *slot = NULL;
	unsigned window = o->window ? o->window : 1;
	uint8_t mad[MAD_SIZE];
	size_t rows = (size_t)(ro->n_sw ? ro->n_sw : 1) * ((size_t)ro->max_lid + 1);
	int n, e = 0;

	memset(out, 0, sizeof(*out));
	r.sa_lid = sa_lid_of(sn, live);
	if (!r.sa_lid)
		return -ENOENT;
	out->sl = calloc(rows, 1);
	r.row_of = calloc(ro->n_sw ? ro->n_sw : 1, sizeof(*r.row_of));
	r.src_lid = calloc(ro->n_sw ? ro->n_sw : 1, sizeof(*r.src_lid));
	r.dst_lid = calloc((size_t)ro->max_lid + 1, sizeof(*r.dst_lid));
	slot = calloc(window, sizeof(*slot));
	if (!out->sl || !r.row_of || !r.src_lid || !r.dst_lid || !slot) {
		e = -ENOMEM;
		goto out;
	}
	view.sl = out->sl;
	r.ro = &view;
	for (uint32_t p = 0; p < sn->n_ports; p++) {
		const struct subnet_port *sp = &sn->port[p];
		uint32_t top = (uint32_t)sp->lid + (1u << (sp->lmc & 7)) - 1;

		if (subnet_is_switch(sn, sp->node) || !sp->lid)
			continue;
		for (uint32_t l = sp->lid; l <= top && l <= ro->max_lid; l++)
			r.dst_lid[r.n_dst++] = (uint16_t)l;
		if (sp->peer == SUBNET_NONE || !subnet_is_switch(sn, sn->port[sp->peer].node))
			continue;
		uint32_t sw = ro->sw_index[sn->port[sp->peer].node];
		bool have = false;

		for (uint32_t i = 0; i < r.n_src; i++)
			have |= r.row_of[i] == sw;
		if (!have && sw != SUBNET_NONE) {
			r.row_of[r.n_src] = sw;
			r.src_lid[r.n_src++] = sp->lid;
		}
	}
	while (refill(&r, slot, window)) {
		struct pollfd pfd = { .fd = ops->fd(t), .events = POLLIN };

		if (poll(&pfd, 1, 10) < 0 && errno != EINTR) {
			e = -errno;
			goto out;
		}
		while ((n = ops->recv(t, mad, sizeof(mad), NULL)) > 0)
			got(&r, slot, window, mad, (size_t)n);
		if (n < 0 && n != -EAGAIN) {
			e = n;
			goto out;
		}
	}
	if (!r.answered) { /* no SLs at all: the judge falls back to one VL */
		free(out->sl);
		out->sl = NULL;
		if (!out->status)
			out->status = -ENODATA;
	}
out:
	free(slot);
	free(r.row_of);
	free(r.src_lid);
	free(r.dst_lid);
	if (e < 0)
		health_sl_free(out);
	return e;
}

void health_sl_free(struct health_sl *h)
{
	free(h->sl);
	h->sl = NULL;
}
