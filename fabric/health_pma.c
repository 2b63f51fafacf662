/* SPDX-License-Identifier: MIT */
/*
 * loom health's counters: PortCounters (IBA 16.1.3.5) of every port with a
 * LID and every switch port that is up, read LID-routed from each node's
 * PMA (a switch's ports through its port 0 LID, PortSelect naming the port).
 * A small window of Gets in flight with their own timeouts and retries.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fabric/health_read.h"

struct pma_slot {
	uint32_t port;    /* model port, SUBNET_NONE: free */
	uint32_t tid;     /* low 32 bits: the kernel owns the high half */
	unsigned tries;
	uint64_t deadline;
};

struct pma_run {
	const struct mad_transport_ops *ops;
	void *t;
	const struct txn_opts *o;
	const struct subnet *sn;
	const struct disc_live *live;
	struct health_pma_port *out;
	struct pma_slot *slot;
	uint32_t next_tid;
	bool clear; /* this pass clears what the last one read (--reset) */
};

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* The LID a port's PMA answers at: its own, or its switch's (port 0's). */
static uint16_t pma_lid(const struct subnet *sn, const struct disc_live *live, uint32_t p)
{
	uint32_t n = sn->port[p].node;

	if (subnet_is_switch(sn, n))
		return live->port[subnet_port_idx(sn, n, 0)].pi.lid;
	return live->port[p].pi.lid;
}

static bool wanted(const struct subnet *sn, const struct disc_live *live, uint32_t p)
{
	const struct disc_port *dp = &live->port[p];

	if (!dp->have_pi || sn->port[p].num == 0 || dp->pi.state == SMP_PORT_DOWN)
		return false;
	return pma_lid(sn, live, p) != 0;
}

static int send_get(struct pma_run *r, struct pma_slot *s)
{
	struct mad_addr to = { .lid = pma_lid(r->sn, r->live, s->port) };
	uint8_t mad[MAD_SIZE];

	s->tid = ++r->next_tid;
	s->tries++;
	s->deadline = now_ms() + r->o->timeout_ms;
	if (r->clear)
		pma_encode_port_counters_clear(r->sn->port[s->port].num, s->tid, mad);
	else
		pma_encode_port_counters(r->sn->port[s->port].num, s->tid, mad);
	return r->ops->send(r->t, mad, MAD_SIZE, r->o->timeout_ms, &to);
}

static void got(struct pma_run *r, const uint8_t *mad, size_t len)
{
	uint64_t tid = pma_tid(mad, len);

	for (unsigned i = 0; i < r->o->window; i++) {
		struct pma_slot *s = &r->slot[i];

		if (s->port == SUBNET_NONE || s->tid != (uint32_t)tid)
			continue;
		if (r->clear) {
			struct pma_counters zero;

			r->out[s->port].clear_status = pma_decode_port_counters(mad, len,
				r->sn->port[s->port].num, tid, &zero);
		} else {
			r->out[s->port].status = pma_decode_port_counters(mad, len,
				r->sn->port[s->port].num, tid, &r->out[s->port].c);
		}
		s->port = SUBNET_NONE;
		return;
	}
}

/* Where this pass's outcome for port p goes. */
static int *result(struct pma_run *r, uint32_t p)
{
	return r->clear ? &r->out[p].clear_status : &r->out[p].status;
}

/* Fill free slots from *next, retry or give up on expired ones; how many are in flight. */
static unsigned refill(struct pma_run *r, uint32_t *next)
{
	uint64_t now = now_ms();
	unsigned busy = 0;

	for (unsigned i = 0; i < r->o->window; i++) {
		struct pma_slot *s = &r->slot[i];

		if (s->port != SUBNET_NONE && s->deadline <= now) {
			if (s->tries > r->o->retries) {
				*result(r, s->port) = -ETIMEDOUT;
				s->port = SUBNET_NONE;
			} else if (send_get(r, s) < 0) {
				*result(r, s->port) = -EIO;
				s->port = SUBNET_NONE;
			}
		}
		while (s->port == SUBNET_NONE && *next < r->sn->n_ports) {
			uint32_t p = (*next)++;

			/* A clear goes only where the read went through. */
			if (r->clear ? !r->out[p].asked || r->out[p].status : !wanted(r->sn, r->live, p))
				continue;
			if (r->clear)
				r->out[p].cleared = true;
			else
				r->out[p].asked = true;
			*s = (struct pma_slot){ .port = p };
			if (send_get(r, s) < 0) {
				*result(r, p) = -EIO;
				s->port = SUBNET_NONE;
			}
		}
		busy += s->port != SUBNET_NONE;
	}
	return busy;
}

static int run(struct pma_run *r)
{
	uint8_t mad[MAD_SIZE];
	uint32_t next = 0;
	int n;

	while (refill(r, &next)) {
		struct pollfd pfd = { .fd = r->ops->fd(r->t), .events = POLLIN };

		if (poll(&pfd, 1, 10) < 0 && errno != EINTR)
			return -errno;
		while ((n = r->ops->recv(r->t, mad, sizeof(mad), NULL)) > 0)
			got(r, mad, (size_t)n);
		if (n < 0 && n != -EAGAIN)
			return n;
	}
	return 0;
}

int health_read_pma(const struct mad_transport_ops *ops, void *t, const struct txn_opts *o,
		    const struct subnet *sn, const struct disc_live *live, bool clear,
		    struct health_pma_port **out)
{
	struct pma_run r = { .ops = ops, .t = t, .o = o, .sn = sn, .live = live,
			     .next_tid = (uint32_t)getpid() << 16 };
	int rc;

	if (!o->window)
		return -EINVAL;
	r.out = calloc(sn->n_ports ? sn->n_ports : 1, sizeof(*r.out));
	r.slot = calloc(o->window, sizeof(*r.slot));
	if (!r.out || !r.slot) {
		free(r.out);
		free(r.slot);
		return -ENOMEM;
	}
	for (unsigned i = 0; i < o->window; i++)
		r.slot[i].port = SUBNET_NONE;
	rc = run(&r);
	if (rc == 0 && clear) {
		r.clear = true;
		for (unsigned i = 0; i < o->window; i++)
			r.slot[i] = (struct pma_slot){ .port = SUBNET_NONE };
		rc = run(&r);
	}
	free(r.slot);
	if (rc < 0) {
		free(r.out);
		return rc;
	}
	*out = r.out;
	return 0;
}
