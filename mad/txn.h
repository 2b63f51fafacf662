/* SPDX-License-Identifier: MIT */
#ifndef LOOM_MAD_TXN_H
#define LOOM_MAD_TXN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mad/mad.h"
#include "mad/smp.h"

struct txn;

struct txn_opts {
	unsigned window;     /* SMPs in flight at once */
	unsigned timeout_ms; /* per try */
	unsigned retries;    /* tries after the first */
	unsigned per_node;   /* in flight to one node (one DR path) at most; 0: no limit */
};
/*
 * per_node 4: a node's SMA answers one SMP at a time, so a window filled by
 * one switch's 66 LFT blocks would leave every other switch idle; four keep
 * a node busy while its answer is on the way back.
 */
#define TXN_OPTS_DEFAULT \
	((struct txn_opts){ .window = 16, .timeout_ms = 200, .retries = 3, .per_node = 4 })

enum txn_drop {
	TXN_DROP_MALFORMED,  /* too short, or a TID we wait for with the wrong contents */
	TXN_DROP_UNEXPECTED, /* a TID nobody is waiting for */
	TXN_DROP_LATE,       /* the answer to a request that already timed out */
	_TXN_DROP_MAX,
};

struct txn_stats {
	uint64_t sent;      /* every send, retries included */
	uint64_t retries;
	uint64_t completed; /* answered with status 0 */
	uint64_t failed;    /* answered with a non-zero status, or not sent */
	uint64_t timeouts;  /* gave up after all retries */
	uint64_t requests;  /* requests received (not answers): SMInfo, Traps */
	uint64_t dropped[_TXN_DROP_MAX];
};

/*
 * Called once per request: status 0 with the response, -EPROTO when the node
 * answered with a non-zero MAD status (resp is the answer), -ETIMEDOUT when
 * no answer came after all retries (resp NULL), or the transport's -errno.
 * May call txn_submit.
 */
typedef void (*txn_done_fn)(void *arg, int status, const uint8_t *resp, size_t len);
/* Told about every dropped MAD (h NULL if even the header was short), e.g. to log it. */
typedef void (*txn_drop_fn)(void *arg, enum txn_drop why, const struct smp_hdr *h);

/*
 * Told about every request that arrives (a MAD that is not a response): the
 * SM's own agent answers SMInfo and takes Traps. from is the sender.
 */
typedef void (*txn_request_fn)(void *arg, const uint8_t *mad, size_t len,
			       const struct mad_addr *from);

/*
 * Told about every response that no transaction waits for (its TID is none
 * of ours), whole, before it is dropped: true if fn took it. The SA's own
 * client requests (the SA mirror's GetTable, sa/sa_mirror.h) are answered
 * through the same port; their answers go there.
 */
typedef bool (*txn_response_fn)(void *arg, const uint8_t *mad, size_t len,
				const struct mad_addr *from);

int txn_new(const struct mad_transport_ops *ops, void *t, const struct txn_opts *o,
	    struct txn **out);
/* Outstanding requests are dropped without their callbacks. */
void txn_free(struct txn *x);
static inline void txn_freep(struct txn **x)
{
	txn_free(*x);
}
void txn_set_drop_hook(struct txn *x, txn_drop_fn fn, void *arg);
/* Without a hook, requests are dropped as unexpected. */
void txn_set_request_hook(struct txn *x, txn_request_fn fn, void *arg);
/* Without a hook, responses nobody waits for are dropped as unexpected (or late). */
void txn_set_response_hook(struct txn *x, txn_response_fn fn, void *arg);
/*
 * IBA 14.2.4: the M_Key each SMP carries. With a hook, a request submitted
 * with m_key 0 goes out with the key fn gives for its route (0: none).
 */
typedef uint64_t (*txn_mkey_fn)(void *arg, const struct smp_req *r);
void txn_set_mkey_hook(struct txn *x, txn_mkey_fn fn, void *arg);
/* Send one MAD outside the window (an answer to a request); counted in sent. */
int txn_send_raw(struct txn *x, const uint8_t *mad, size_t len, const struct mad_addr *to);
/* Replace the monotonic clock (milliseconds), for tests. */
void txn_set_clock(struct txn *x, uint64_t (*now_ms)(void *arg), void *arg);

/* Queue a request; it is sent when the window has room (at once, if it has). */
int txn_submit(struct txn *x, const struct smp_req *r, txn_done_fn done, void *arg);

/*
 * The event-loop integration points: txn_input() for each MAD read from the
 * transport; txn_tick() when txn_next_timeout() expires. txn_run() is a
 * plain poll() loop over these.
 */
void txn_input(struct txn *x, const uint8_t *mad, size_t len, const struct mad_addr *from);
/* Read everything the transport has queued into txn_input; 0 or -errno. */
int txn_drain(struct txn *x);
void txn_tick(struct txn *x);
/* Milliseconds until the next deadline, -1 if nothing is in flight. */
int txn_next_timeout(struct txn *x);
bool txn_idle(const struct txn *x);
/*
 * Wait up to timeout_ms for the transport and take what it has (the hooks
 * see it; retries due are sent): the loop of a caller waiting on something
 * else, such as a worker thread. 0 or -errno.
 */
int txn_wait(struct txn *x, int timeout_ms);
/* Run until idle (0), or timeout_ms passed (-ETIMEDOUT; < 0: no limit), or -errno. */
int txn_run(struct txn *x, int timeout_ms);

const struct txn_stats *txn_stats(const struct txn *x);
/*
 * The per-try timeout and the retries of requests sent from now on (the
 * window stays): for a request that must give up sooner than a sweep's,
 * such as a standby's poll. *old (if not NULL) gets the options before.
 */
void txn_set_timeout(struct txn *x, unsigned timeout_ms, unsigned retries, struct txn_opts *old);
unsigned txn_in_flight(const struct txn *x);
/*
 * A node (a directed route) that left a Set unanswered after all its
 * retries is taken as gone: Sets queued for it afterwards fail at once
 * with -ETIMEDOUT, unsent, for 10 s or until this is called (a sweep calls
 * it when it starts: what it asks, it asks everyone again). Gets are always
 * sent: discovery asks again in rounds of its own.
 */
void txn_forget_gone(struct txn *x);

#endif
