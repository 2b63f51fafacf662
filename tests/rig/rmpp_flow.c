/* SPDX-License-Identifier: MIT */
/*
 * The RMPP transfers of one umad fd, run as the kernel's MAD layer runs them
 * for agents registered with rmpp_version 1 (protocol rules in rmpp.c):
 *  - the client writes an RMPP-active MAD of any length -> a send: segments
 *    go out as the receiver's ACKs open the window; after ack_ms without
 *    progress it rewinds to the last ACK, at most the header's `retries`
 *    times, then gives up, and the client reads back the MAD header with
 *    status ETIMEDOUT (the kernel does the same);
 *  - DATA segments come in -> a receive: ACKs go back; once the last one is
 *    in, the client reads the whole message in one read(); the state stays
 *    10 s to ACK repeats again and is abandoned after 40 s (ABORT T2L);
 *  - STOP or ABORT comes in -> the matching send ends; bad ones, and ACKs
 *    that break the rules, are answered with ABORT.
 * Anything else passes through unchanged. Requests written with a timeout
 * also wait for their response (rmpp_wait.c). The caller holds the lock.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include "rig_mad.h"
#include "rmpp_shim.h"

#define RX_TOTAL_MS 40000  /* the kernel's limit for a whole receive */
#define RX_LINGER_MS 10000 /* ... and how long it remembers one it delivered */
#define QP1_QKEY 0x80010000u

static const char *const type_name[] = {
	[RMPP_TYPE_DATA] = "DATA", [RMPP_TYPE_ACK] = "ACK",
	[RMPP_TYPE_STOP] = "STOP", [RMPP_TYPE_ABORT] = "ABORT",
};

/* ACK, STOP and ABORT go back to where FROM came from, on its agent. */
static void reply(struct shim_fd *sf, const struct ib_user_mad_hdr *from,
		  const uint8_t out[RMPP_MAD_SIZE])
{
	struct ib_user_mad_hdr h = *from;

	h.status = 0;
	h.timeout_ms = 0;
	h.retries = 0;
	h.qkey = htonl(QP1_QKEY);
	shim_wire_send(sf, &h, out);
}

static void send_abort(struct shim_fd *sf, const struct ib_user_mad_hdr *from, const uint8_t *mad,
		       uint8_t type, uint8_t status)
{
	uint8_t out[RMPP_MAD_SIZE];

	rmpp_abort_mad(mad, type, status, out);
	reply(sf, from, out);
	shim_dbg("fd %d: %s (status %u) to lid %u, tid 0x%016" PRIx64, sf->fd, type_name[type], status,
		 ntohs(from->lid), rig_mad_tid(mad));
}

/* ---- sends ------------------------------------------------------------------ */

static void send_drop(struct shim_fd *sf, struct shim_send *s)
{
	struct shim_send **pp;

	for (pp = &sf->sends; *pp; pp = &(*pp)->next) {
		if (*pp == s) {
			*pp = s->next;
			break;
		}
	}
	free(s->mad);
	free(s);
}

/* Everything the window allows; RMPP_SHIM_DROP loses some on purpose. */
static void send_window(struct shim_fd *sf, struct shim_send *s)
{
	uint8_t seg[RMPP_MAD_SIZE];
	uint32_t n;

	while ((n = rmpp_tx_next(&s->tx))) {
		rmpp_tx_segment(&s->tx, n, seg);
		sf->nsent++;
		s->segs_sent++;
		if (shim_conf.drop_every && sf->nsent % shim_conf.drop_every == 0) {
			shim_dbg("fd %d: RMPP_SHIM_DROP: losing segment %u of tid 0x%016" PRIx64,
				 sf->fd, n, rig_mad_tid(s->mad));
			continue;
		}
		shim_wire_send(sf, &s->hdr, seg);
	}
	s->deadline = shim_now_ms() + s->ack_ms;
}

/*
 * Does MAD (from the peer in H) answer send S? Same class and TID, from the
 * LID S went to. A request's TID has its upper 32 bits rewritten on the way
 * (umad2sim puts the agent there, ibsim its client id; the kernel too puts
 * the agent there), so only the lower half is compared; a response carries
 * the TID its request arrived with, and that does not change.
 */
static bool send_match(const struct shim_send *s, const struct ib_user_mad_hdr *h,
		       const uint8_t *mad)
{
	if (s->mad[1] != mad[1] || s->hdr.lid != h->lid)
		return false;
	if (s->mad[3] & 0x80)
		return !memcmp(s->mad + 8, mad + 8, 8);
	return !memcmp(s->mad + 12, mad + 12, 4);
}

static struct shim_send *send_find(struct shim_fd *sf, const struct ib_user_mad_hdr *h,
				   const uint8_t *mad)
{
	struct shim_send *s;

	for (s = sf->sends; s; s = s->next)
		if (send_match(s, h, mad))
			return s;
	return NULL;
}

static int send_start(struct shim_fd *sf, const struct ib_user_mad_hdr *h, const uint8_t *mad,
		      size_t len)
{
	struct shim_send *s = calloc(1, sizeof(*s));
	int r;

	if (!s || !(s->mad = malloc(len))) {
		free(s);
		return -ENOMEM;
	}
	memcpy(s->mad, mad, len);
	s->hdr = *h;
	r = rmpp_tx_init(&s->tx, s->mad, len, sf->agents[h->id].rmpp_version, h->retries);
	if (r < 0) {
		free(s->mad);
		free(s);
		return r;
	}
	/* The kernel waits 2 s for an ACK, less if the client asked for less. */
	s->ack_ms = h->timeout_ms && h->timeout_ms < shim_conf.ack_ms ? h->timeout_ms
								    : shim_conf.ack_ms;
	s->next = sf->sends;
	sf->sends = s;
	shim_dbg("fd %d: agent %u sends %zu bytes in %u segments to lid %u, tid 0x%016" PRIx64,
		 sf->fd, h->id, len, s->tx.nseg, ntohs(h->lid), rig_mad_tid(mad));
	send_window(sf, s);
	return 0;
}

/*
 * A single MAD, sent as the kernel sends it: 256 bytes on the wire, zero
 * after what the client wrote; for a kernel-RMPP agent without Active, a zero
 * RMPP header too (the kernel never copies that part from user space). A
 * longer one goes on as written (umad2sim cuts it).
 */
static ssize_t send_plain(struct shim_fd *sf, const uint8_t *buf, size_t len, bool zero_rmpp)
{
	uint8_t b[SHIM_UMAD_HDR + RMPP_MAD_SIZE] = { 0 };
	ssize_t r;

	if (len > sizeof(b) || len < SHIM_UMAD_HDR + SHIM_MAD_HDR)
		return shim_wire_raw(sf, buf, len);
	memcpy(b, buf, len);
	if (zero_rmpp)
		memset(b + SHIM_UMAD_HDR + SHIM_MAD_HDR, 0, RMPP_HDR_END - SHIM_MAD_HDR);
	r = shim_wire_raw(sf, b, sizeof(b));
	return r == (ssize_t)sizeof(b) ? (ssize_t)len : r;
}

ssize_t flow_send(struct shim_fd *sf, const uint8_t *buf, size_t len)
{
	const uint8_t *mad = buf + SHIM_UMAD_HDR;
	struct ib_user_mad_hdr h;
	int r;

	if (len < SHIM_UMAD_HDR + RMPP_HDR_END)
		return send_plain(sf, buf, len, false);
	memcpy(&h, buf, sizeof(h));
	if (h.id >= SHIM_MAX_AGENTS || !sf->agents[h.id].rmpp || !rmpp_class(mad[1]))
		return send_plain(sf, buf, len, false);
	if (!rmpp_active(mad, len - SHIM_UMAD_HDR))
		return send_plain(sf, buf, len, true);
	r = send_start(sf, &h, mad, len - SHIM_UMAD_HDR);
	if (r < 0) {
		errno = -r;
		return -1;
	}
	return (ssize_t)len;
}

ssize_t flow_client_write(struct shim_fd *sf, const uint8_t *buf, size_t len)
{
	ssize_t r = flow_send(sf, buf, len);
	struct ib_user_mad_hdr h;

	if (r != (ssize_t)len || len < SHIM_UMAD_HDR + SHIM_MAD_HDR)
		return r;
	memcpy(&h, buf, sizeof(h));
	if (h.timeout_ms && !wait_is_response(buf + SHIM_UMAD_HDR))
		wait_start(sf, buf, len);
	return r;
}

bool flow_busy(struct shim_fd *sf, uint32_t id, const uint8_t *mad)
{
	struct shim_send *s;

	for (s = sf->sends; s; s = s->next)
		if (s->hdr.id == id && wait_same_tid(s->mad, mad))
			return true;
	return false;
}

/* ---- receives --------------------------------------------------------------- */

static void recv_drop(struct shim_fd *sf, struct shim_recv *rv)
{
	struct shim_recv **pp;

	for (pp = &sf->recvs; *pp; pp = &(*pp)->next) {
		if (*pp == rv) {
			*pp = rv->next;
			break;
		}
	}
	rmpp_rx_free(&rv->rx);
	free(rv);
}

/* The message a segment belongs to: TID, class, version and method, peer. */
static struct shim_recv *recv_find(struct shim_fd *sf, const struct ib_user_mad_hdr *h,
				   const uint8_t *mad)
{
	struct shim_recv *rv;

	for (rv = sf->recvs; rv; rv = rv->next)
		if (!memcmp(rv->first + 8, mad + 8, 8) && !memcmp(rv->first + 1, mad + 1, 3) &&
		    rv->hdr.qpn == h->qpn && rv->hdr.lid == h->lid)
			return rv;
	return NULL;
}

static struct shim_recv *recv_new(struct shim_fd *sf, const struct ib_user_mad_hdr *h,
				  const uint8_t *mad)
{
	struct shim_recv *rv = calloc(1, sizeof(*rv));

	if (!rv)
		return NULL;
	rv->hdr = *h;
	memcpy(rv->first, mad, RMPP_MAD_SIZE);
	rv->deadline = shim_now_ms() + RX_TOTAL_MS;
	rv->next = sf->recvs;
	sf->recvs = rv;
	return rv;
}

static void recv_result(struct shim_fd *sf, struct shim_recv *rv, const struct ib_user_mad_hdr *h,
			const uint8_t *mad, enum rmpp_rx_result res, uint8_t st)
{
	uint8_t out[RMPP_MAD_SIZE];

	switch (res) {
	case RMPP_RX_DROP:
	case RMPP_RX_KEEP:
		break;
	case RMPP_RX_ACK:
	case RMPP_RX_DONE:
		rmpp_rx_ack_mad(&rv->rx, mad, out);
		reply(sf, h, out);
		if (res == RMPP_RX_ACK)
			break;
		shim_dbg("fd %d: agent %u received %zu bytes in %u segments from lid %u, "
			 "tid 0x%016" PRIx64, sf->fd, rv->hdr.id, rv->rx.len, rv->rx.seg_num,
			 ntohs(h->lid), rig_mad_tid(mad));
		if (shim_deliver(sf, &rv->hdr, rv->rx.buf, rv->rx.len) < 0)
			shim_dbg("fd %d: out of memory: message dropped", sf->fd);
		/* Only the window state is needed from now on, to ACK repeats. */
		rmpp_rx_free(&rv->rx);
		rv->deadline = shim_now_ms() + RX_LINGER_MS;
		break;
	case RMPP_RX_ABORT:
		send_abort(sf, h, mad, st == RMPP_ST_RESX ? RMPP_TYPE_STOP : RMPP_TYPE_ABORT, st);
		recv_drop(sf, rv);
		break;
	}
}

static void on_data(struct shim_fd *sf, const struct ib_user_mad_hdr *h, const uint8_t *mad,
		    const struct rmpp_hdr *r)
{
	struct shim_recv *rv = recv_find(sf, h, mad);
	enum rmpp_rx_result res;
	uint8_t st = rmpp_data_check(r);

	if (st != RMPP_ST_OK) {
		if (rv)
			recv_drop(sf, rv);
		send_abort(sf, h, mad, RMPP_TYPE_ABORT, st);
		return;
	}
	if (rv) {
		res = rmpp_rx_add(&rv->rx, mad, RMPP_MAD_SIZE, &st);
	} else if (r->seg_num == 1) {
		rv = recv_new(sf, h, mad);
		if (!rv) {
			send_abort(sf, h, mad, RMPP_TYPE_STOP, RMPP_ST_RESX);
			return;
		}
		res = rmpp_rx_start(&rv->rx, mad, RMPP_MAD_SIZE, shim_conf.window, &st);
	} else {
		shim_dbg("fd %d: segment %u of an unknown message from lid %u: dropped", sf->fd,
			 r->seg_num, ntohs(h->lid));
		return;
	}
	recv_result(sf, rv, h, mad, res, st);
}

/* ---- ACK, STOP, ABORT ----------------------------------------------------- */

/* A protocol error in MAD: its send (if any) ends, the peer hears ABORT. */
static void abort_matching(struct shim_fd *sf, const struct ib_user_mad_hdr *h,
			   const uint8_t *mad, uint8_t status)
{
	struct shim_send *s = send_find(sf, h, mad);

	if (s)
		send_drop(sf, s);
	send_abort(sf, h, mad, RMPP_TYPE_ABORT, status);
}

static void on_ack(struct shim_fd *sf, const struct ib_user_mad_hdr *h, const uint8_t *mad,
		   const struct rmpp_hdr *r)
{
	struct shim_send *s = send_find(sf, h, mad);
	uint8_t st = RMPP_ST_OK;

	if (!s) {
		shim_dbg("fd %d: ACK %u from lid %u matches no send (tid 0x%016" PRIx64 ")", sf->fd,
			 r->seg_num, ntohs(h->lid), rig_mad_tid(mad));
		return;
	}
	switch (rmpp_tx_ack(&s->tx, r->seg_num, r->paylen_newwin, r->status, &st)) {
	case RMPP_ACK_OLD:
		break;
	case RMPP_ACK_MORE:
		send_window(sf, s);
		break;
	case RMPP_ACK_DONE:
		shim_dbg("fd %d: tid 0x%016" PRIx64 ": all %u segments acknowledged (%u sent)", sf->fd,
			 rig_mad_tid(s->mad), s->tx.nseg, s->segs_sent);
		send_drop(sf, s);
		break;
	case RMPP_ACK_ABORT:
		send_drop(sf, s);
		send_abort(sf, h, mad, RMPP_TYPE_ABORT, st);
		break;
	}
}

static void on_stop(struct shim_fd *sf, const struct ib_user_mad_hdr *h, const uint8_t *mad,
		    const struct rmpp_hdr *r)
{
	struct shim_send *s = send_find(sf, h, mad);
	bool bad = r->type == RMPP_TYPE_STOP ? r->status != RMPP_ST_RESX
					     : r->status < RMPP_ST_ABORT_MIN ||
						       r->status > RMPP_ST_ABORT_MAX;

	shim_dbg("fd %d: %s (status %u) from lid %u, tid 0x%016" PRIx64 "%s", sf->fd,
		 type_name[r->type], r->status, ntohs(h->lid), rig_mad_tid(mad),
		 s ? ": send ends" : "");
	if (s)
		send_drop(sf, s);
	if (bad)
		send_abort(sf, h, mad, RMPP_TYPE_ABORT, RMPP_ST_BAD_STATUS);
}

void flow_wire_in(struct shim_fd *sf, const uint8_t *buf, size_t len)
{
	uint8_t mad[RMPP_MAD_SIZE] = { 0 };
	struct ib_user_mad_hdr h;
	const uint8_t *m = buf + SHIM_UMAD_HDR;
	struct rmpp_hdr r;
	size_t mlen;

	if (len < SHIM_UMAD_HDR)
		return;
	memcpy(&h, buf, sizeof(h));
	mlen = len - SHIM_UMAD_HDR;
	memcpy(mad, m, mlen < RMPP_MAD_SIZE ? mlen : RMPP_MAD_SIZE);
	rmpp_hdr_get(mad, RMPP_MAD_SIZE, &r);
	if (h.status || h.id >= SHIM_MAX_AGENTS || !sf->agents[h.id].rmpp ||
	    mlen < RMPP_HDR_END || !rmpp_class(m[1]) || !rmpp_active(m, mlen)) {
		if (!h.status && mlen >= SHIM_MAD_HDR && wait_is_response(m))
			wait_end(sf, h.id, m);
		shim_deliver(sf, &h, m, mlen);
		return;
	}
	/* The first segment of a response answers the request. */
	if (r.type == RMPP_TYPE_DATA && r.seg_num == 1 && wait_is_response(mad))
		wait_end(sf, h.id, mad);
	if (r.version != RMPP_VERSION) {
		abort_matching(sf, &h, mad, RMPP_ST_UNV);
		return;
	}
	switch (r.type) {
	case RMPP_TYPE_DATA:
		on_data(sf, &h, mad, &r);
		break;
	case RMPP_TYPE_ACK:
		on_ack(sf, &h, mad, &r);
		break;
	case RMPP_TYPE_STOP:
	case RMPP_TYPE_ABORT:
		on_stop(sf, &h, mad, &r);
		break;
	default:
		abort_matching(sf, &h, mad, RMPP_ST_BADT);
		break;
	}
}

/* ---- timers and teardown ---------------------------------------------------- */

static void send_expired(struct shim_fd *sf, struct shim_send *s)
{
	struct ib_user_mad_hdr h = s->hdr;

	if (rmpp_tx_timeout(&s->tx) == 0) {
		shim_dbg("fd %d: tid 0x%016" PRIx64 ": no ACK beyond segment %u in %u ms: resending "
			 "(%u retries left)", sf->fd, rig_mad_tid(s->mad), s->tx.last_ack, s->ack_ms,
			 s->tx.retries_left);
		send_window(sf, s);
		return;
	}
	shim_dbg("fd %d: tid 0x%016" PRIx64 ": no ACK beyond segment %u of %u after %u retries: "
		 "send failed (ETIMEDOUT)", sf->fd, rig_mad_tid(s->mad), s->tx.last_ack, s->tx.nseg,
		 s->tx.retries);
	shim_deliver_timeout(sf, &h, s->mad);
	wait_end(sf, h.id, s->mad);
	send_drop(sf, s);
}

void flow_timers(struct shim_fd *sf, uint64_t now)
{
	struct shim_send *s, *sn;
	struct shim_recv *rv, *rn;

	for (s = sf->sends; s; s = sn) {
		sn = s->next;
		if (now >= s->deadline)
			send_expired(sf, s);
	}
	for (rv = sf->recvs; rv; rv = rn) {
		rn = rv->next;
		if (now < rv->deadline)
			continue;
		if (!rv->rx.done)
			send_abort(sf, &rv->hdr, rv->first, RMPP_TYPE_ABORT, RMPP_ST_T2L);
		recv_drop(sf, rv);
	}
	wait_timers(sf, now);
}

void flow_drop_agent(struct shim_fd *sf, uint32_t id)
{
	struct shim_send *s, *sn;
	struct shim_recv *rv, *rn;

	for (s = sf->sends; s; s = sn) {
		sn = s->next;
		if (s->hdr.id == id)
			send_drop(sf, s);
	}
	for (rv = sf->recvs; rv; rv = rn) {
		rn = rv->next;
		if (rv->hdr.id == id)
			recv_drop(sf, rv);
	}
}

void flow_free(struct shim_fd *sf)
{
	while (sf->sends)
		send_drop(sf, sf->sends);
	while (sf->recvs)
		recv_drop(sf, sf->recvs);
	wait_free(sf);
}
