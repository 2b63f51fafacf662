/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdbool.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mad/txn.h"
#include "mad/txn_priv.h"

/* TIDs of requests that timed out, remembered to tell "late" from "unexpected". */
#define LATE_RING 256

struct txn_item {
	uint8_t mad[MAD_SIZE];
	txn_done_fn done;
	void *arg;
	uint32_t tid;
	unsigned tries;
	uint64_t deadline;
	uint32_t node;  /* hash of the DR path: what per-node fairness counts */
	bool dr;        /* a Set by directed route (hops > 0): its node can be taken as gone */
	struct txn_item *next;
};

/* How far down the queue fill() looks for a request to a node below its share. */
#define FAIR_SCAN 64

struct txn {
	const struct mad_transport_ops *ops;
	void *t;
	struct txn_opts o;
	struct txn_item **slot; /* o.window of them; NULL = free */
	unsigned n_out;
	struct txn_flight fl; /* in flight per node, for per_node (txn_flight.c) */
	struct txn_item *head, *tail; /* waiting for room in the window */
	unsigned n_queued;
	uint32_t next_tid;
	uint32_t late[LATE_RING];
	unsigned late_pos;
	struct txn_gone gone; /* nodes whose queued Sets fail at once (txn_gone.c) */
	struct txn_stats st;
	txn_drop_fn drop_fn;
	void *drop_arg;
	txn_request_fn req_fn;
	void *req_arg;
	txn_response_fn resp_fn;
	void *resp_arg;
	txn_mkey_fn mkey_fn;
	void *mkey_arg;
	uint64_t (*now_fn)(void *arg);
	void *now_arg;
};

static uint64_t mono_ms(void *arg)
{
	struct timespec ts;

	(void)arg;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

int txn_new(const struct mad_transport_ops *ops, void *t, const struct txn_opts *o,
	    struct txn **out)
{
	struct txn *x;

	if (!o->window || o->window > 4096 || !o->timeout_ms)
		return -EINVAL;
	x = calloc(1, sizeof(*x));
	if (!x)
		return -ENOMEM;
	x->slot = calloc(o->window, sizeof(*x->slot));
	if (!x->slot || txn_flight_init(&x->fl, o->window) < 0) {
		free(x->slot);
		txn_flight_free(&x->fl);
		free(x);
		return -ENOMEM;
	}
	x->ops = ops;
	x->t = t;
	x->o = *o;
	/* Any start will do; not 0, so that a zeroed MAD never matches. */
	x->next_tid = 0x10000;
	x->now_fn = mono_ms;
	*out = x;
	return 0;
}

void txn_free(struct txn *x)
{
	struct txn_item *it, *nx;

	if (!x)
		return;
	for (unsigned i = 0; x->slot && i < x->o.window; i++)
		free(x->slot[i]);
	for (it = x->head; it; it = nx) {
		nx = it->next;
		free(it);
	}
	free(x->slot);
	txn_flight_free(&x->fl);
	free(x);
}

void txn_set_drop_hook(struct txn *x, txn_drop_fn fn, void *arg)
{
	x->drop_fn = fn;
	x->drop_arg = arg;
}

void txn_set_mkey_hook(struct txn *x, txn_mkey_fn fn, void *arg)
{
	x->mkey_fn = fn;
	x->mkey_arg = arg;
}

void txn_set_clock(struct txn *x, uint64_t (*now_ms)(void *arg), void *arg)
{
	x->now_fn = now_ms;
	x->now_arg = arg;
}

static void fill(struct txn *x);

static uint32_t path_hash(const struct smp_req *r)
{
	uint32_t h = 2166136261u ^ r->hops; /* FNV-1a */

	for (unsigned i = 1; i <= r->hops; i++)
		h = (h ^ r->path[i]) * 16777619u;
	return h;
}

int txn_submit(struct txn *x, const struct smp_req *r, txn_done_fn done, void *arg)
{
	struct txn_item *it = calloc(1, sizeof(*it));
	int e;

	if (!it)
		return -ENOMEM;
	/* The M_Key of the node the route reaches, when the caller set none. */
	if (x->mkey_fn && !r->m_key) {
		struct smp_req k = *r;

		k.m_key = x->mkey_fn(x->mkey_arg, r);
		e = smp_encode(&k, 0, it->mad);
	} else {
		e = smp_encode(r, 0, it->mad);
	}
	/* The TID is patched in when the request goes out. */
	if (e < 0) {
		free(it);
		return e;
	}
	it->done = done;
	it->arg = arg;
	it->node = path_hash(r);
	/* Gets are left to their callers' own rounds (discovery asks again). */
	it->dr = r->hops > 0 && r->method == SMP_SET;
	if (x->tail)
		x->tail->next = it;
	else
		x->head = it;
	x->tail = it;
	x->n_queued++;
	/* Only fill, no expiry: a caller's callback is not re-entered from here. */
	fill(x);
	return 0;
}

/* The one drop path: count it and tell the hook. */
static void drop(struct txn *x, enum txn_drop why, const struct smp_hdr *h)
{
	x->st.dropped[why]++;
	if (x->drop_fn)
		x->drop_fn(x->drop_arg, why, h);
}

/*
 * A Set whose node is taken as gone (txn_gone.c); the clock is read only
 * for a node with its strikes, as this runs for every queued candidate.
 */
static bool is_gone(const struct txn *x, const struct txn_item *it)
{
	uint64_t until;

	return it->dr && txn_gone_struck(&x->gone, it->node, &until) &&
	       x->now_fn(x->now_arg) < until;
}

void txn_forget_gone(struct txn *x)
{
	txn_gone_forget(&x->gone);
}

/* Take the item out of the window, then call back: the callback may submit. */
static void complete(struct txn *x, unsigned i, int status, const uint8_t *resp, size_t len)
{
	struct txn_item *it = x->slot[i];

	x->slot[i] = NULL;
	x->n_out--;
	txn_flight_del(&x->fl, it->node);
	if (status != -ETIMEDOUT && txn_gone_any(&x->gone) && it->dr)
		txn_gone_note(&x->gone, it->node, true, 0);
	if (status == 0)
		x->st.completed++;
	else if (status == -ETIMEDOUT)
		x->st.timeouts++;
	else
		x->st.failed++;
	it->done(it->arg, status, resp, len);
	free(it);
}

static int send_item(struct txn *x, struct txn_item *it)
{
	uint32_t tid = it->tid;

	/* MAD header (IBA 13.4): TransactionID is bytes 8..15; the low half is ours. */
	it->mad[12] = (uint8_t)(tid >> 24);
	it->mad[13] = (uint8_t)(tid >> 16);
	it->mad[14] = (uint8_t)(tid >> 8);
	it->mad[15] = (uint8_t)tid;
	it->tries++;
	it->deadline = x->now_fn(x->now_arg) + x->o.timeout_ms;
	x->st.sent++;
	return x->ops->send(x->t, it->mad, MAD_SIZE, x->o.timeout_ms, NULL);
}

static void expire(struct txn *x, uint64_t now)
{
	for (unsigned i = 0; i < x->o.window; i++) {
		struct txn_item *it = x->slot[i];
		int r;

		if (!it || it->deadline > now)
			continue;
		if (it->tries <= x->o.retries) {
			/*
			 * Same TID on a retry: an answer to an earlier try that
			 * was merely slow is as good as the answer to this one.
			 */
			x->st.retries++;
			r = send_item(x, it);
			if (r < 0)
				complete(x, i, r, NULL, 0);
			continue;
		}
		x->late[x->late_pos++ % LATE_RING] = it->tid;
		if (it->dr)
			txn_gone_note(&x->gone, it->node, false, now);
		complete(x, i, -ETIMEDOUT, NULL, 0);
	}
}

/*
 * The first queued request whose node has fewer than per_node in flight,
 * looking FAIR_SCAN deep; NULL if none has. A slot then stays free until an
 * answer comes: more to a node whose SMA answers one at a time would only
 * wait there, while its answers arrive no sooner. The scan stops at the
 * first fit.
 */
static struct txn_item *take_next(struct txn *x)
{
	struct txn_item **pp = &x->head, *it = NULL, *prev = NULL;

	/* A Set for a gone node waits in the queue for fail_gone(). */
	for (unsigned k = 0; *pp && k < FAIR_SCAN; k++, prev = *pp, pp = &(*pp)->next)
		if (!is_gone(x, *pp) &&
		    (!x->o.per_node || txn_flight_count(&x->fl, (*pp)->node) < x->o.per_node))
			break;
	if (!*pp || is_gone(x, *pp) ||
	    (x->o.per_node && txn_flight_count(&x->fl, (*pp)->node) >= x->o.per_node))
		return NULL;
	it = *pp;
	*pp = it->next;
	if (x->tail == it)
		x->tail = prev;
	x->n_queued--;
	it->next = NULL;
	return it;
}

static void fill(struct txn *x)
{
	for (unsigned i = 0; i < x->o.window && x->head; i++) {
		struct txn_item *it;
		int r;

		if (x->slot[i])
			continue;
		it = take_next(x);
		if (!it)
			return;
		it->tid = x->next_tid++;
		if (!x->next_tid)
			x->next_tid = 1;
		x->slot[i] = it;
		x->n_out++;
		txn_flight_add(&x->fl, it->node);
		r = send_item(x, it);
		if (r < 0)
			complete(x, i, r, NULL, 0);
	}
}

/*
 * The queued Sets for gone nodes fail, unsent: all out of the queue first,
 * then their callbacks (which may queue more; the next tick fails those).
 */
static void fail_gone(struct txn *x)
{
	struct txn_item **pp = &x->head, *prev = NULL, *list = NULL, **lt = &list, *it;

	while (*pp) {
		it = *pp;
		if (!is_gone(x, it)) {
			prev = it;
			pp = &it->next;
			continue;
		}
		*pp = it->next;
		if (x->tail == it)
			x->tail = prev;
		x->n_queued--;
		it->next = NULL;
		*lt = it;
		lt = &it->next;
	}
	while (list) {
		it = list;
		list = it->next;
		x->st.timeouts++;
		it->done(it->arg, -ETIMEDOUT, NULL, 0);
		free(it);
	}
}

void txn_tick(struct txn *x)
{
	expire(x, x->now_fn(x->now_arg));
	if (txn_gone_any(&x->gone))
		fail_gone(x);
	/* Callbacks above may have queued more; a completion may free a slot. */
	while (x->head && x->n_out < x->o.window) {
		unsigned before = x->n_queued;

		fill(x);
		if (x->n_queued == before)
			break;
	}
}

static bool was_late(const struct txn *x, uint32_t tid)
{
	unsigned n = x->late_pos < LATE_RING ? x->late_pos : LATE_RING;

	for (unsigned i = 0; i < n; i++)
		if (x->late[i] == tid)
			return true;
	return false;
}

void txn_set_request_hook(struct txn *x, txn_request_fn fn, void *arg)
{
	x->req_fn = fn;
	x->req_arg = arg;
}

void txn_set_response_hook(struct txn *x, txn_response_fn fn, void *arg)
{
	x->resp_fn = fn;
	x->resp_arg = arg;
}

int txn_send_raw(struct txn *x, const uint8_t *mad, size_t len, const struct mad_addr *to)
{
	x->st.sent++;
	return x->ops->send(x->t, mad, len, 0, to);
}

void txn_input(struct txn *x, const uint8_t *mad, size_t len, const struct mad_addr *from)
{
	struct smp_hdr h;
	int r;

	if (smp_peek(mad, len, &h) < 0) {
		drop(x, TXN_DROP_MALFORMED, NULL);
		return;
	}
	/* IBA 13.4.5: the high bit of Method (R) marks a response. */
	if (!(h.method & 0x80)) {
		x->st.requests++;
		if (x->req_fn)
			x->req_fn(x->req_arg, mad, len, from);
		else
			drop(x, TXN_DROP_UNEXPECTED, &h);
		return;
	}
	for (unsigned i = 0; i < x->o.window; i++) {
		struct txn_item *it = x->slot[i];

		if (!it || it->tid != h.tid)
			continue;
		r = smp_check_resp(mad, len, it->mad);
		if (r == -EPROTO) {
			/* Keep waiting: the real answer may still come. */
			drop(x, TXN_DROP_MALFORMED, &h);
			return;
		}
		complete(x, i, r == 0 ? 0 : -EPROTO, mad, len);
		txn_tick(x);
		return;
	}
	if (x->resp_fn && x->resp_fn(x->resp_arg, mad, len, from))
		return;
	drop(x, was_late(x, h.tid) ? TXN_DROP_LATE : TXN_DROP_UNEXPECTED, &h);
}

int txn_next_timeout(struct txn *x)
{
	uint64_t now = x->now_fn(x->now_arg), min = UINT64_MAX;

	for (unsigned i = 0; i < x->o.window; i++)
		if (x->slot[i] && x->slot[i]->deadline < min)
			min = x->slot[i]->deadline;
	/* Nothing in flight but some queued: Sets for gone nodes, for the next tick to fail. */
	if (min == UINT64_MAX)
		return x->head ? 0 : -1;
	return min <= now ? 0 : (int)(min - now);
}

bool txn_idle(const struct txn *x)
{
	return !x->n_out && !x->head;
}

unsigned txn_in_flight(const struct txn *x)
{
	return x->n_out;
}

void txn_set_timeout(struct txn *x, unsigned timeout_ms, unsigned retries, struct txn_opts *old)
{
	if (old)
		*old = x->o;
	x->o.timeout_ms = timeout_ms ? timeout_ms : 1;
	x->o.retries = retries;
}

const struct txn_stats *txn_stats(const struct txn *x)
{
	return &x->st;
}

int txn_drain(struct txn *x)
{
	uint8_t mad[MAD_SIZE];
	struct mad_addr from;
	int n;

	for (;;) {
		n = x->ops->recv(x->t, mad, sizeof(mad), &from);
		if (n == -EAGAIN || n == -EINTR)
			return 0;
		if (n < 0)
			return n;
		txn_input(x, mad, (size_t)n, &from);
	}
}

/* One poll of the port for at most wait ms (-1: no bound), and what came, read. */
static int poll_drain(struct txn *x, int wait)
{
	struct pollfd pfd = { .fd = x->ops->fd(x->t), .events = POLLIN };
	int r = poll(&pfd, 1, wait);

	if (r < 0 && errno != EINTR)
		return -errno;
	if (r > 0 && (pfd.revents & (POLLERR | POLLNVAL)))
		return -EIO;
	return r > 0 ? txn_drain(x) : 0;
}

int txn_wait(struct txn *x, int timeout_ms)
{
	int r, wait = txn_next_timeout(x);

	if (wait < 0 || wait > timeout_ms)
		wait = timeout_ms;
	r = poll_drain(x, wait);
	if (r < 0)
		return r;
	txn_tick(x);
	return 0;
}

int txn_run(struct txn *x, int timeout_ms)
{
	uint64_t end = timeout_ms < 0 ? UINT64_MAX : mono_ms(NULL) + (uint64_t)timeout_ms;
	int r, wait;

	for (;;) {
		txn_tick(x);
		if (txn_idle(x))
			return 0;
		wait = txn_next_timeout(x);
		if (end != UINT64_MAX) {
			uint64_t now = mono_ms(NULL);

			if (now >= end)
				return -ETIMEDOUT;
			if (wait < 0 || (uint64_t)wait > end - now)
				wait = (int)(end - now);
		}
		r = poll_drain(x, wait);
		if (r < 0)
			return r;
	}
}
