/* SPDX-License-Identifier: MIT */
/*
 * The kernel's wait for a response (drivers/infiniband/core/mad.c): a
 * request written with timeout_ms > 0 is held until a response with its TID
 * comes back to its agent; when none comes within timeout_ms it is sent
 * again, up to `retries` times, and then the client reads back its header
 * with status ETIMEDOUT and the first 24 bytes of its MAD. umad2sim has no
 * such wait, and OpenSM's vendor layer (osmtest, any libosmvendor client)
 * counts on it: without it, a query the SA drops waits forever.
 *
 * Unlike the kernel, a response that matches no wait is still delivered, as
 * umad2sim delivers it: clients written against umad2sim keep working.
 */
#include <stdlib.h>
#include <string.h>

#include "rmpp_shim.h"

bool wait_is_response(const uint8_t *mad)
{
	return (mad[3] & 0x80) ||                    /* the R bit of Method */
	       mad[3] == 0x07 ||                     /* TrapRepress */
	       (mad[1] == 0x05 && (mad[23] & 0x01)); /* BM: AttributeModifier says so */
}

bool wait_same_tid(const uint8_t *a, const uint8_t *b)
{
	return a[1] == b[1] && !memcmp(a + 12, b + 12, 4);
}

static struct ib_user_mad_hdr wait_hdr(const struct shim_wait *w)
{
	struct ib_user_mad_hdr h;

	memcpy(&h, w->msg, sizeof(h));
	return h;
}

static void wait_drop(struct shim_fd *sf, struct shim_wait *w)
{
	struct shim_wait **pp;

	for (pp = &sf->waits; *pp; pp = &(*pp)->next) {
		if (*pp == w) {
			*pp = w->next;
			break;
		}
	}
	free(w->msg);
	free(w);
}

void wait_start(struct shim_fd *sf, const uint8_t *buf, size_t len)
{
	struct shim_wait *w = calloc(1, sizeof(*w));
	struct ib_user_mad_hdr h;

	if (!w || !(w->msg = malloc(len))) {
		free(w);
		shim_dbg("fd %d: out of memory: no timeout for a request", sf->fd);
		return;
	}
	memcpy(w->msg, buf, len);
	w->len = len;
	h = wait_hdr(w);
	w->deadline = shim_now_ms() + h.timeout_ms;
	w->retries_left = h.retries;
	w->next = sf->waits;
	sf->waits = w;
}

void wait_end(struct shim_fd *sf, uint32_t id, const uint8_t *mad)
{
	struct shim_wait *w;

	for (w = sf->waits; w; w = w->next) {
		if (wait_hdr(w).id == id && wait_same_tid(w->msg + SHIM_UMAD_HDR, mad)) {
			wait_drop(sf, w);
			return;
		}
	}
}

static void wait_expired(struct shim_fd *sf, struct shim_wait *w, uint64_t now)
{
	struct ib_user_mad_hdr h = wait_hdr(w);
	const uint8_t *mad = w->msg + SHIM_UMAD_HDR;

	/* An RMPP request is still going out: the kernel's clock has not started. */
	if (flow_busy(sf, h.id, mad)) {
		w->deadline = now + h.timeout_ms;
		return;
	}
	if (w->retries_left) {
		w->retries_left--;
		shim_dbg("fd %d: agent %u: no response to class 0x%02x method 0x%02x attr "
			 "0x%02x%02x in %u ms: sending again", sf->fd, h.id, mad[1], mad[3],
			 mad[16], mad[17], h.timeout_ms);
		w->deadline = now + h.timeout_ms;
		flow_send(sf, w->msg, w->len);
		return;
	}
	shim_dbg("fd %d: agent %u: no response to class 0x%02x method 0x%02x attr 0x%02x%02x: "
		 "ETIMEDOUT", sf->fd, h.id, mad[1], mad[3], mad[16], mad[17]);
	shim_deliver_timeout(sf, &h, mad);
	wait_drop(sf, w);
}

void wait_timers(struct shim_fd *sf, uint64_t now)
{
	struct shim_wait *w, *wn;

	for (w = sf->waits; w; w = wn) {
		wn = w->next;
		if (now >= w->deadline)
			wait_expired(sf, w, now);
	}
}

void wait_drop_agent(struct shim_fd *sf, uint32_t id)
{
	struct shim_wait *w, *wn;

	for (w = sf->waits; w; w = wn) {
		wn = w->next;
		if (wait_hdr(w).id == id)
			wait_drop(sf, w);
	}
}

void wait_free(struct shim_fd *sf)
{
	while (sf->waits)
		wait_drop(sf, sf->waits);
}
