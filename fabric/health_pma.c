/* SPDX-License-Identifier: MIT */
/*
 * loom health's counters: PortCounters (IBA 16.1.3.5) of every port with a
 * LID and every switch port that is up, read LID-routed from each node's
 * PMA (a switch's ports through its port 0 LID, PortSelect naming the port).
 * First each PMA's ClassPortInfo, whose CapabilityMask says whether it has
 * PortCountersExtended (IBA 16.1.4.11): where it does, that is read too,
 * for 64-bit data counters (and error counters, with the additional ones).
 * A small window of Gets in flight with their own timeouts and retries.
 *
 * When only a verdict is wanted (o->summary), it reads as ibqueryerrors
 * does: a switch whose PMA has AllPortSelect first gives the sum of its
 * ports (PortSelect 0xFF, IBA 16.1.3.5); its ports are read one by one only
 * if a sum is over that counter's threshold (a sum under it means every port
 * is). PortCountersExtended and a CA's ClassPortInfo are read only when the
 * data counters are wanted (o->data) or hold the error counters.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fabric/health_read.h"

/* The passes, in order; --reset adds the last two. */
enum pma_pass { PASS_CPI, PASS_SUM, PASS_PC, PASS_EXT, PASS_CLEAR, PASS_CLEAR_EXT, _PASS_MAX };

static const char *const pass_name[_PASS_MAX] = {
	[PASS_CPI] = "ClassPortInfo", [PASS_SUM] = "PortCounters of whole switches",
	[PASS_PC] = "PortCounters",
	[PASS_EXT] = "PortCountersExtended", [PASS_CLEAR] = "PortCounters clear",
	[PASS_CLEAR_EXT] = "PortCountersExtended clear",
};

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
	const struct health_pma_opts *po;
	const struct subnet *sn;
	const struct disc_live *live;
	struct health_pma_port *out;
	struct pma_slot *slot;
	bool *node_asked; /* PASS_CPI, PASS_SUM: one a node */
	/* PASS_SUM: a switch's sum read and every counter of it within its threshold */
	bool *node_fine;
	struct pma_counters sum;
	uint32_t next_tid;
	enum pma_pass pass;
	uint64_t done;
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

/* Whether this pass sends to port p, marking it asked if so. */
static bool take(struct pma_run *r, uint32_t p)
{
	struct health_pma_port *o = &r->out[p];

	uint32_t n = r->sn->port[p].node;
	bool sw = subnet_is_switch(r->sn, n);

	switch (r->pass) {
	case PASS_CPI:
		/* Needed for AllPortSelect (switches) and PortCountersExtended. */
		if (!wanted(r->sn, r->live, p) || r->node_asked[n] ||
		    (!sw && r->po->summary && !r->po->data))
			return false;
		r->node_asked[n] = true;
		return true;
	case PASS_SUM:
		if (!wanted(r->sn, r->live, p) || r->node_asked[n] || !sw || o->ci_status ||
		    !(o->ci.cap & PMA_CAP_ALL_PORT_SELECT) || pma_has_ext_errors(&o->ci))
			return false;
		r->node_asked[n] = true;
		return true;
	case PASS_PC:
		return (o->asked = wanted(r->sn, r->live, p) && !r->node_fine[n]);
	case PASS_EXT:
		return (o->ext_asked = o->asked && !o->status && !o->ci_status &&
				       pma_has_ext(&o->ci) &&
				       (r->po->data || pma_has_ext_errors(&o->ci)));
	case PASS_CLEAR: /* a clear goes only where the read went through */
		return (o->cleared = o->asked && !o->status);
	case PASS_CLEAR_EXT:
		return o->cleared && !o->clear_status && o->ext_asked && !o->ext_status;
	default:
		return false;
	}
}

/* Every counter of c at or under its threshold. */
static bool within(const struct pma_counters *c, const uint32_t *thresh)
{
	for (unsigned i = 0; i < _PMA_COUNTER_MAX; i++)
		if (c->v[i] > thresh[i])
			return false;
	return true;
}

/* Where this pass's outcome for port p goes. */
static int *result(struct pma_run *r, uint32_t p)
{
	struct health_pma_port *o = &r->out[p];

	switch (r->pass) {
	case PASS_CPI: return &o->ci_status;
	case PASS_SUM: return &o->sum_status;
	case PASS_PC: return &o->status;
	case PASS_EXT: return &o->ext_status;
	default: return &o->clear_status;
	}
}

static int send_get(struct pma_run *r, struct pma_slot *s)
{
	struct mad_addr to = { .lid = pma_lid(r->sn, r->live, s->port) };
	uint8_t num = r->sn->port[s->port].num;
	uint8_t mad[MAD_SIZE];

	s->tid = ++r->next_tid;
	s->tries++;
	s->deadline = now_ms() + r->o->timeout_ms;
	switch (r->pass) {
	case PASS_CPI: pma_encode_class_port_info(s->tid, mad); break;
	case PASS_SUM: pma_encode_port_counters(0xff, s->tid, mad); break;
	case PASS_PC: pma_encode_port_counters(num, s->tid, mad); break;
	case PASS_EXT: pma_encode_port_counters_ext(num, s->tid, false, mad); break;
	case PASS_CLEAR: pma_encode_port_counters_clear(num, s->tid, mad); break;
	default: pma_encode_port_counters_ext(num, s->tid, true, mad); break;
	}
	return r->ops->send(r->t, mad, MAD_SIZE, r->o->timeout_ms, &to);
}

static void decode(struct pma_run *r, uint32_t p, const uint8_t *mad, size_t len, uint64_t tid)
{
	struct health_pma_port *o = &r->out[p];
	uint8_t num = r->sn->port[p].num;
	struct pma_counters scratch = { 0 };

	switch (r->pass) {
	case PASS_CPI:
		o->ci_status = pma_decode_class_port_info(mad, len, tid, &o->ci);
		break;
	case PASS_SUM:
		o->sum_status = pma_decode_port_counters(mad, len, 0xff, tid, &scratch);
		if (o->sum_status == 0)
			r->node_fine[r->sn->port[p].node] = within(&scratch, r->po->summary);
		break;
	case PASS_PC:
		o->status = pma_decode_port_counters(mad, len, num, tid, &o->c);
		break;
	case PASS_EXT:
		o->ext_status = pma_decode_port_counters_ext(mad, len, num, tid,
							     pma_has_ext_errors(&o->ci), &o->c);
		break;
	case PASS_CLEAR:
		o->clear_status = pma_decode_port_counters(mad, len, num, tid, &scratch);
		break;
	default:
		o->clear_status = pma_decode_port_counters_ext(mad, len, num, tid, false, &scratch);
		break;
	}
}

static void got(struct pma_run *r, const uint8_t *mad, size_t len)
{
	uint64_t tid = pma_tid(mad, len);

	for (unsigned i = 0; i < r->o->window; i++) {
		struct pma_slot *s = &r->slot[i];

		if (s->port == SUBNET_NONE || s->tid != (uint32_t)tid)
			continue;
		decode(r, s->port, mad, len, tid);
		s->port = SUBNET_NONE;
		r->done++;
		return;
	}
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
				r->done++;
			} else if (send_get(r, s) < 0) {
				*result(r, s->port) = -EIO;
				s->port = SUBNET_NONE;
				r->done++;
			}
		}
		while (s->port == SUBNET_NONE && *next < r->sn->n_ports) {
			uint32_t p = (*next)++;

			if (!take(r, p))
				continue;
			*s = (struct pma_slot){ .port = p };
			if (send_get(r, s) < 0) {
				*result(r, p) = -EIO;
				s->port = SUBNET_NONE;
				r->done++;
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

	r->done = 0;
	for (unsigned i = 0; i < r->o->window; i++)
		r->slot[i] = (struct pma_slot){ .port = SUBNET_NONE };
	while (refill(r, &next)) {
		struct pollfd pfd = { .fd = r->ops->fd(r->t), .events = POLLIN };

		if (poll(&pfd, 1, 10) < 0 && errno != EINTR)
			return -errno;
		while ((n = r->ops->recv(r->t, mad, sizeof(mad), NULL)) > 0)
			got(r, mad, (size_t)n);
		if (n < 0 && n != -EAGAIN)
			return n;
		if (r->po->pg && r->po->pg->fn)
			r->po->pg->fn(r->po->pg->arg, pass_name[r->pass], next, r->sn->n_ports);
	}
	return 0;
}

/* Every port of a node shares its PMA's ClassPortInfo (the port that asked holds it). */
static void share_class_info(struct pma_run *r)
{
	for (uint32_t n = 0; n < r->sn->n_nodes; n++) {
		uint32_t first = subnet_port_idx(r->sn, n, 0), asker = SUBNET_NONE;

		for (uint32_t k = 0; k <= r->sn->node[n].nports; k++)
			if (wanted(r->sn, r->live, first + k)) {
				asker = first + k;
				break;
			}
		for (uint32_t k = 0; asker != SUBNET_NONE && k <= r->sn->node[n].nports; k++) {
			r->out[first + k].ci_status = r->out[asker].ci_status;
			r->out[first + k].ci = r->out[asker].ci;
		}
	}
}

int health_read_pma(const struct mad_transport_ops *ops, void *t, const struct txn_opts *o,
		    const struct subnet *sn, const struct disc_live *live,
		    const struct health_pma_opts *po, struct health_pma_port **out)
{
	struct pma_run r = { .ops = ops, .t = t, .o = o, .po = po, .sn = sn, .live = live,
			     .next_tid = (uint32_t)getpid() << 16 };
	size_t nn = sn->n_nodes ? sn->n_nodes : 1;
	int rc = 0;

	if (!o->window)
		return -EINVAL;
	r.out = calloc(sn->n_ports ? sn->n_ports : 1, sizeof(*r.out));
	r.slot = calloc(o->window, sizeof(*r.slot));
	r.node_asked = calloc(nn, sizeof(*r.node_asked));
	r.node_fine = calloc(nn, sizeof(*r.node_fine));
	if (!r.out || !r.slot || !r.node_asked || !r.node_fine) {
		rc = -ENOMEM;
		goto out;
	}
	for (r.pass = PASS_CPI; rc == 0 && r.pass <= (po->clear ? PASS_CLEAR_EXT : PASS_EXT);
	     r.pass++) {
		if (r.pass == PASS_SUM && (!po->summary || po->clear))
			continue;
		memset(r.node_asked, 0, nn * sizeof(*r.node_asked));
		rc = run(&r);
		if (r.pass == PASS_CPI)
			share_class_info(&r);
	}
out:
	free(r.slot);
	free(r.node_asked);
	free(r.node_fine);
	if (rc < 0) {
		free(r.out);
		return rc;
	}
	*out = r.out;
	return 0;
}
