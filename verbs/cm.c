/* SPDX-License-Identifier: MIT */
/*
 * The set-up exchange over rdma_cm instead of TCP (--rdma-cm). The client resolves the
 * server's IP address and route through rdma_cm and connects; the connect and accept
 * private data carry each side's message buffer (address and rkey), so from then on a
 * request or an answer is one RDMA write with immediate into the peer's buffer, and the
 * immediate (a sequence number) is what wakes the peer. The requests and answers are the
 * same struct vmsg as over TCP, one at a time, so a buffer is never overwritten before
 * it was read.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <rdma/rdma_cma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "verbs/verbs.h"

/* What each side tells the other while connecting: where the peer may write to it. */
struct cm_hello {
	uint32_t magic;          /* VMSG_MAGIC: another build is refused at connect time */
	uint32_t rkey;
	uint64_t addr;
};

struct cmconn {
	struct rdma_event_channel *ech;
	struct rdma_cm_id *listen, *id;
	struct ibv_pd *pd;
	struct ibv_comp_channel *cch;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	struct vmsg *buf;        /* [0] the peer writes here, [1] staged for our writes */
	uint64_t raddr;
	uint32_t rkey;
	uint32_t seq_out, seq_in;
	bool got_in, sent, armed, connected, has_qp, gone;
};

static int set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	return fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0 ? -errno : 0;
}

static int wait_in(int fd, double timeout)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int r;

	do
		r = poll(&p, 1, timeout > 0 ? (int)(timeout * 1000) : 0);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return -errno;
	return r ? 0 : -ETIMEDOUT;
}

/* Wait for one rdma_cm event of type want; the caller acks it. An event of another type
 * is the peer's (or the network's) answer: say which, in words. */
static int cm_event(struct cmconn *c, enum rdma_cm_event_type want, double timeout,
		    const char *what, struct rdma_cm_event **out, char *err, size_t errlen)
{
	struct rdma_cm_event *ev;
	int r;

	for (;;) {
		r = wait_in(c->ech->fd, timeout);
		if (r < 0) {
			snprintf(err, errlen, "%s: no rdma_cm answer within %.0f s", what, timeout);
			return r;
		}
		if (rdma_get_cm_event(c->ech, &ev) == 0)
			break;
		if (errno != EAGAIN && errno != EINTR) {
			snprintf(err, errlen, "%s: reading rdma_cm events failed: %s", what,
				 strerror(errno));
			return -errno;
		}
	}
	if (ev->event == want) {
		*out = ev;
		return 0;
	}
	switch (ev->event) {
	case RDMA_CM_EVENT_REJECTED:
		snprintf(err, errlen, "%s: refused (rdma_cm %s, status %d)", what,
			 rdma_event_str(ev->event), ev->status);
		rdma_ack_cm_event(ev);
		return -ECONNREFUSED;
	case RDMA_CM_EVENT_ADDR_ERROR:
	case RDMA_CM_EVENT_ROUTE_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
		r = -EHOSTUNREACH;
		break;
	default:
		r = -EPROTO;
	}
	snprintf(err, errlen, "%s: rdma_cm said %s (status %d)", what, rdma_event_str(ev->event),
		 ev->status);
	rdma_ack_cm_event(ev);
	return r;
}

static int post_recv(struct cmconn *c, char *err, size_t errlen)
{
	/* A write with immediate consumes a receive but no receive buffer: no SGE. */
	struct ibv_recv_wr wr = { .wr_id = 1 }, *bad;

	if (ibv_post_recv(c->id->qp, &wr, &bad)) {
		snprintf(err, errlen, "rdma_cm connection: posting a receive failed: %s",
			 strerror(errno));
		return -EIO;
	}
	return 0;
}

/* The connection's own PD, CQ (with a completion channel, so waiting for the peer sleeps
 * instead of spinning next to the data path), message buffers and RC QP. */
static int res_setup(struct cmconn *c, struct rdma_cm_id *id, char *err, size_t errlen)
{
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 2, .max_recv_wr = 2, .max_send_sge = 1, .max_recv_sge = 1 },
	};
	const char *dev = ibv_get_device_name(id->verbs->device);

	c->pd = ibv_alloc_pd(id->verbs);
	c->cch = c->pd ? ibv_create_comp_channel(id->verbs) : NULL;
	c->cq = c->cch ? ibv_create_cq(id->verbs, 8, NULL, c->cch, 0) : NULL;
	if (!c->cq || set_nonblock(c->cch->fd) < 0) {
		snprintf(err, errlen, "rdma_cm connection on %s: cannot create its PD or CQ: %s",
			 dev, strerror(errno));
		return -ENOMEM;
	}
	if (posix_memalign((void **)&c->buf, 64, 2 * sizeof(struct vmsg)))
		c->buf = NULL;
	c->mr = c->buf ? ibv_reg_mr(c->pd, c->buf, 2 * sizeof(struct vmsg),
				    IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE) : NULL;
	if (!c->mr) {
		snprintf(err, errlen, "rdma_cm connection on %s: cannot register its %zu-byte "
			 "message buffer: %s", dev, 2 * sizeof(struct vmsg), strerror(errno));
		return -ENOMEM;
	}
	qa.send_cq = qa.recv_cq = c->cq;
	if (rdma_create_qp(id, c->pd, &qa)) {
		snprintf(err, errlen, "rdma_cm connection on %s: cannot create its QP: %s", dev,
			 strerror(errno));
		return -EIO;
	}
	c->has_qp = true;
	return post_recv(c, err, errlen);
}

static struct rdma_conn_param conn_param(const struct cm_hello *h)
{
	return (struct rdma_conn_param){
		.private_data = h, .private_data_len = sizeof(*h),
		.responder_resources = 1, .initiator_depth = 1,
		.retry_count = 7, .rnr_retry_count = 7,
	};
}

/* Private data may come padded to the transport's size: read only our part. */
static int take_hello(struct cmconn *c, const struct rdma_conn_param *p, const char *who,
		      char *err, size_t errlen)
{
	struct cm_hello h;

	if (!p->private_data || p->private_data_len < sizeof(h)) {
		snprintf(err, errlen, "the %s sent %u bytes of rdma_cm private data, want %zu: is "
			 "it loom-verbs --rdma-cm?", who, p->private_data_len, sizeof(h));
		return -EPROTO;
	}
	memcpy(&h, p->private_data, sizeof(h));
	if (h.magic != VMSG_MAGIC) {
		snprintf(err, errlen, "the %s speaks another loom-verbs protocol (magic 0x%08x, "
			 "want 0x%08x): run the same loom-verbs build on both sides", who, h.magic,
			 VMSG_MAGIC);
		return -EPROTO;
	}
	c->raddr = h.addr;
	c->rkey = h.rkey;
	return 0;
}

static struct cmconn *cm_new(char *err, size_t errlen)
{
	struct cmconn *c = calloc(1, sizeof(*c));

	if (!c) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	c->ech = rdma_create_event_channel();
	if (!c->ech || set_nonblock(c->ech->fd) < 0) {
		snprintf(err, errlen, "cannot open rdma_cm (/dev/infiniband/rdma_cm): %s; load the "
			 "rdma_ucm kernel module, or leave out --rdma-cm", strerror(errno));
		cm_close(c);
		return NULL;
	}
	return c;
}

int cm_connect(const char *host, unsigned port, double timeout, struct cmconn **out,
	       char *err, size_t errlen)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM }, *ai;
	struct cmconn *c = cm_new(err, errlen);
	struct rdma_cm_event *ev;
	struct rdma_conn_param cp;
	struct cm_hello h;
	char ps[8], what[160];
	int r, ms = (int)(timeout * 1000);

	if (!c)
		return -ENODEV;
	snprintf(ps, sizeof(ps), "%u", port);
	snprintf(what, sizeof(what), "rdma_cm connection to %s port %u", host, port);
	r = getaddrinfo(host, ps, &hints, &ai);
	if (r) {
		snprintf(err, errlen, "cannot resolve \"%s\": %s", host, gai_strerror(r));
		cm_close(c);
		return -EHOSTUNREACH;
	}
	r = rdma_create_id(c->ech, &c->id, c, RDMA_PS_TCP) ? -errno
	    : rdma_resolve_addr(c->id, NULL, ai->ai_addr, ms) ? -errno : 0;
	freeaddrinfo(ai);
	if (r < 0) {
		snprintf(err, errlen, "%s: cannot start address resolution: %s", what, strerror(-r));
		goto fail;
	}
	r = cm_event(c, RDMA_CM_EVENT_ADDR_RESOLVED, timeout, what, &ev, err, errlen);
	if (r < 0)
		goto unreachable;
	rdma_ack_cm_event(ev);
	if (rdma_resolve_route(c->id, ms)) {
		r = -errno;
		snprintf(err, errlen, "%s: cannot resolve the route: %s", what, strerror(errno));
		goto unreachable;
	}
	r = cm_event(c, RDMA_CM_EVENT_ROUTE_RESOLVED, timeout, what, &ev, err, errlen);
	if (r < 0)
		goto unreachable;
	rdma_ack_cm_event(ev);
	r = res_setup(c, c->id, err, errlen);
	if (r < 0)
		goto fail;
	h = (struct cm_hello){ .magic = VMSG_MAGIC, .rkey = c->mr->rkey,
			       .addr = (uintptr_t)&c->buf[0] };
	cp = conn_param(&h);
	if (rdma_connect(c->id, &cp)) {
		r = -errno;
		snprintf(err, errlen, "%s: rdma_connect failed: %s", what, strerror(errno));
		goto fail;
	}
	r = cm_event(c, RDMA_CM_EVENT_ESTABLISHED, timeout, what, &ev, err, errlen);
	if (r < 0)
		goto unreachable;
	r = take_hello(c, &ev->param.conn, "server", err, errlen);
	rdma_ack_cm_event(ev);
	if (r < 0)
		goto fail;
	c->connected = true;
	*out = c;
	return 0;
unreachable:
	/* Refused, unreachable or silent: all mean "no server to talk to" (exit 2). */
	snprintf(err + strlen(err), errlen - strlen(err), "; is loom-verbs server --rdma-cm "
		 "running there (same --oob-port) and is %s an address of an RDMA port?", host);
fail:
	cm_close(c);
	return r < 0 ? r : -EHOSTUNREACH;
}

static int cm_bind_any(struct cmconn *c, unsigned port, char *err, size_t errlen)
{
	/* Dual stack where rdma_cm allows it; IPv4 alone otherwise. */
	struct sockaddr_in6 s6 = { .sin6_family = AF_INET6, .sin6_port = htons((uint16_t)port),
				   .sin6_addr = IN6ADDR_ANY_INIT };
	struct sockaddr_in s4 = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };

	if (rdma_bind_addr(c->listen, (struct sockaddr *)&s6) &&
	    rdma_bind_addr(c->listen, (struct sockaddr *)&s4)) {
		snprintf(err, errlen, "cannot bind rdma_cm port %u: %s; pick another with "
			 "--oob-port", port, strerror(errno));
		return -errno;
	}
	if (rdma_listen(c->listen, 1)) {
		snprintf(err, errlen, "cannot listen on rdma_cm port %u: %s", port, strerror(errno));
		return -errno;
	}
	return 0;
}

int cm_listen_accept(unsigned port, double timeout, struct cmconn **out, char *err,
		     size_t errlen)
{
	struct cmconn *c = cm_new(err, errlen);
	struct rdma_cm_event *ev;
	struct rdma_conn_param cp;
	struct cm_hello h;
	char what[64];
	int r;

	if (!c)
		return -ENODEV;
	snprintf(what, sizeof(what), "rdma_cm port %u", port);
	if (rdma_create_id(c->ech, &c->listen, c, RDMA_PS_TCP)) {
		r = -errno;
		snprintf(err, errlen, "cannot create an rdma_cm id: %s", strerror(errno));
		goto fail;
	}
	r = cm_bind_any(c, port, err, errlen);
	if (r < 0)
		goto fail;
	r = cm_event(c, RDMA_CM_EVENT_CONNECT_REQUEST, timeout, what, &ev, err, errlen);
	if (r == -ETIMEDOUT)
		snprintf(err, errlen, "no client connected to rdma_cm port %u within %.0f s", port,
			 timeout);
	if (r < 0)
		goto fail;
	c->id = ev->id;
	r = take_hello(c, &ev->param.conn, "client", err, errlen);
	rdma_ack_cm_event(ev);
	if (r < 0) {
		rdma_reject(c->id, NULL, 0);
		goto fail;
	}
	r = res_setup(c, c->id, err, errlen);
	if (r < 0) {
		rdma_reject(c->id, NULL, 0);
		goto fail;
	}
	h = (struct cm_hello){ .magic = VMSG_MAGIC, .rkey = c->mr->rkey,
			       .addr = (uintptr_t)&c->buf[0] };
	cp = conn_param(&h);
	if (rdma_accept(c->id, &cp)) {
		r = -errno;
		snprintf(err, errlen, "%s: rdma_accept failed: %s", what, strerror(errno));
		goto fail;
	}
	r = cm_event(c, RDMA_CM_EVENT_ESTABLISHED, timeout, what, &ev, err, errlen);
	if (r < 0)
		goto fail;
	rdma_ack_cm_event(ev);
	c->connected = true;
	*out = c;
	return 0;
fail:
	cm_close(c);
	return r;
}

/* One completion: a write of ours done, or the peer's write with immediate arrived. */
static int cm_take_wc(struct cmconn *c, const struct ibv_wc *wc, char *err, size_t errlen)
{
	if (wc->status == IBV_WC_WR_FLUSH_ERR) {
		snprintf(err, errlen, "the peer closed the rdma_cm connection");
		return -EPIPE;
	}
	if (wc->status != IBV_WC_SUCCESS) {
		snprintf(err, errlen, "rdma_cm connection: %s completed with error: %s (status %d); "
			 "did the peer exit?", wc->wr_id ? "a receive" : "a write",
			 ibv_wc_status_str(wc->status), wc->status);
		return -EIO;
	}
	if (wc->opcode == IBV_WC_RECV_RDMA_WITH_IMM) {
		if (ntohl(wc->imm_data) != c->seq_in + 1) {
			snprintf(err, errlen, "rdma_cm connection: message %u arrived, expected %u",
				 ntohl(wc->imm_data), c->seq_in + 1);
			return -EPROTO;
		}
		c->seq_in++;
		c->got_in = true;
	} else {
		c->sent = true;
	}
	return 0;
}

/* Until *flag is set: poll the CQ, then sleep on its channel and on rdma_cm's (so a
 * peer that disconnects is noticed at once, not after the timeout). */
static int cm_wait(struct cmconn *c, bool *flag, double timeout, char *err, size_t errlen)
{
	uint64_t deadline = stats_now_ns() + (uint64_t)(timeout * 1e9), now;
	struct pollfd p[2] = { { .fd = c->cch->fd, .events = POLLIN },
			       { .fd = c->ech->fd, .events = POLLIN } };
	struct rdma_cm_event *ev;
	struct ibv_cq *cq;
	struct ibv_wc wc;
	void *ctx;
	int n, r;

	for (;;) {
		while ((n = ibv_poll_cq(c->cq, 1, &wc)) > 0)
			if ((r = cm_take_wc(c, &wc, err, errlen)) < 0)
				return r;
		if (n < 0) {
			snprintf(err, errlen, "rdma_cm connection: polling its CQ failed");
			return -EIO;
		}
		if (*flag) {
			*flag = false;
			return 0;
		}
		/* Only now: the peer's last answer may have landed just before it hung up. */
		if (c->gone) {
			snprintf(err, errlen, "the peer closed the rdma_cm connection");
			return -EPIPE;
		}
		if (!c->armed) {
			/* Arm, then poll once more: a completion may have slipped in between. */
			if (ibv_req_notify_cq(c->cq, 0)) {
				snprintf(err, errlen, "rdma_cm connection: arming its CQ failed");
				return -EIO;
			}
			c->armed = true;
			continue;
		}
		now = stats_now_ns();
		if (now >= deadline)
			goto timeout;
		r = poll(p, 2, (int)((deadline - now) / 1000000) + 1);
		if (r < 0 && errno != EINTR) {
			snprintf(err, errlen, "rdma_cm connection: poll failed: %s", strerror(errno));
			return -errno;
		}
		if (r > 0 && (p[1].revents & POLLIN) && rdma_get_cm_event(c->ech, &ev) == 0) {
			enum rdma_cm_event_type t = ev->event;

			rdma_ack_cm_event(ev);
			if (t == RDMA_CM_EVENT_DISCONNECTED || t == RDMA_CM_EVENT_DEVICE_REMOVAL) {
				c->connected = false;
				c->gone = true;         /* said once the CQ is drained */
			}
		}
		if (r > 0 && (p[0].revents & POLLIN) && ibv_get_cq_event(c->cch, &cq, &ctx) == 0) {
			ibv_ack_cq_events(cq, 1);
			c->armed = false;
		}
	}
timeout:
	snprintf(err, errlen, "no answer from the peer within %.0f s; is it alive?", timeout);
	return -ETIMEDOUT;
}

int cm_send(struct cmconn *c, const struct vmsg *m, char *err, size_t errlen)
{
	struct ibv_sge sge = { .addr = (uintptr_t)&c->buf[1], .length = sizeof(*m),
			       .lkey = c->mr->lkey };
	struct ibv_send_wr wr = {
		.opcode = IBV_WR_RDMA_WRITE_WITH_IMM, .sg_list = &sge, .num_sge = 1,
		.send_flags = IBV_SEND_SIGNALED, .imm_data = htonl(c->seq_out + 1),
		.wr.rdma = { .remote_addr = c->raddr, .rkey = c->rkey },
	}, *bad;

	c->buf[1] = *m;
	c->buf[1].magic = VMSG_MAGIC;
	if (ibv_post_send(c->id->qp, &wr, &bad)) {
		snprintf(err, errlen, "sending to the peer over rdma_cm failed: %s",
			 strerror(errno));
		return -EPIPE;
	}
	c->seq_out++;
	return cm_wait(c, &c->sent, 30, err, errlen);
}

int cm_recv(struct cmconn *c, struct vmsg *m, double timeout, char *err, size_t errlen)
{
	int r = cm_wait(c, &c->got_in, timeout, err, errlen);

	if (r < 0)
		return r;
	*m = c->buf[0];
	/* Re-arm the receive before we answer: the peer's next write comes after that. */
	r = post_recv(c, err, errlen);
	if (r < 0)
		return r;
	if (m->magic != VMSG_MAGIC) {
		snprintf(err, errlen, "the peer speaks another loom-verbs protocol (magic 0x%08x, "
			 "want 0x%08x): run the same loom-verbs build on both sides", m->magic,
			 VMSG_MAGIC);
		return -EPROTO;
	}
	return 0;
}

void cm_close(struct cmconn *c)
{
	if (!c)
		return;
	if (c->connected)
		rdma_disconnect(c->id);
	if (c->has_qp)
		rdma_destroy_qp(c->id);
	if (c->cq)
		ibv_destroy_cq(c->cq);
	if (c->cch)
		ibv_destroy_comp_channel(c->cch);
	if (c->mr)
		ibv_dereg_mr(c->mr);
	if (c->pd)
		ibv_dealloc_pd(c->pd);
	free(c->buf);
	if (c->id)
		rdma_destroy_id(c->id);
	if (c->listen)
		rdma_destroy_id(c->listen);
	if (c->ech)
		rdma_destroy_event_channel(c->ech);
	free(c);
}
