/* SPDX-License-Identifier: MIT */
/*
 * Inside librmpp_shim.so (see tests/rig/README):
 *   rmpp_libc.c  the interposed libc calls: open close read write ioctl poll
 *   rmpp_shim.c  settings, the lock, the table of umad fds, one pump thread
 *                per fd (umad2sim -> transfers), the client's read queue
 *   rmpp_flow.c  the RMPP transfers of one fd (sends, receives, ACKs)
 *   rmpp_wait.c  the kernel's wait for the response to a request
 *   rmpp.c       the protocol as pure functions (rmpp.h)
 * and librmpp_tail.so (rmpp_tail.c), preloaded behind umad2sim.
 *
 * Everything in a struct shim_fd is guarded by the one lock (shim_lock);
 * the flow_ and wait_ functions expect it held.
 */
#ifndef LOOM_RIG_RMPP_SHIM_H
#define LOOM_RIG_RMPP_SHIM_H

#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <rdma/ib_user_mad.h>

#include "rmpp.h"

/* umad2sim and libibumad use the P_Key-index ABI: a 64-byte header. */
#define SHIM_UMAD_HDR sizeof(struct ib_user_mad_hdr)
#define SHIM_MAX_AGENTS 32 /* agent ids per fd, as the kernel and umad2sim */
#define SHIM_MAD_HDR 24    /* the common MAD header; what a timed-out send hands back */

/* A MAD (or a whole reassembled message) waiting for the client's read(). */
struct shim_pkt {
	struct shim_pkt *next;
	size_t len; /* header + MAD bytes */
	uint8_t b[];
};

struct shim_agent {
	bool used;
	bool rmpp; /* registered with rmpp_version != 0 and without USER_RMPP */
	uint8_t mgmt_class;
	uint8_t rmpp_version;
};

/* One message the client wrote, on its way out in segments. */
struct shim_send {
	struct shim_send *next;
	struct ib_user_mad_hdr hdr; /* as the client wrote it: agent, address */
	uint8_t *mad;               /* the whole message (owned) */
	struct rmpp_tx tx;
	uint64_t deadline;          /* ms: the next ACK is due by then */
	unsigned ack_ms;
	unsigned segs_sent;         /* for the debug log */
};

/* One message arriving in segments from a peer. */
struct shim_recv {
	struct shim_recv *next;
	struct ib_user_mad_hdr hdr;   /* of the first segment: the peer */
	uint8_t first[RMPP_MAD_SIZE]; /* the first segment: key, reply headers */
	struct rmpp_rx rx;
	uint64_t deadline; /* ms: give up (T2L) or, once delivered, forget */
};

/* A request the client sent with a timeout, until its response comes. */
struct shim_wait {
	struct shim_wait *next;
	uint8_t *msg;          /* header + MAD as written (owned): sent again on retry */
	size_t len;
	uint64_t deadline;     /* ms */
	unsigned retries_left;
};

struct shim_fd {
	int fd;
	bool stop;
	pthread_t pump;
	struct shim_agent agents[SHIM_MAX_AGENTS];
	struct shim_pkt *head, *tail; /* for the client, in arrival order */
	struct shim_send *sends;
	struct shim_recv *recvs;
	struct shim_wait *waits;
	unsigned long nsent; /* DATA segments sent (for RMPP_SHIM_DROP) */
};

/* ---- rmpp_shim.c ---------------------------------------------------------- */

struct shim_conf {
	bool debug;          /* RMPP_SHIM_DEBUG=1: log to stderr */
	unsigned window;     /* RMPP_SHIM_WINDOW: segments granted per ACK (64) */
	unsigned drop_every; /* RMPP_SHIM_DROP=N: lose every Nth DATA segment sent */
	unsigned ack_ms;     /* RMPP_SHIM_ACK_MS: longest wait for an ACK (2000) */
};
extern struct shim_conf shim_conf;

/* The same calls one layer down (umad2sim's), and librmpp_tail.so's. */
struct shim_next {
	int (*open)(const char *, int, ...);
	int (*close)(int);
	ssize_t (*read)(int, void *, size_t);
	ssize_t (*write)(int, const void *, size_t);
	int (*ioctl)(int, unsigned long, ...);
	int (*poll)(struct pollfd *, nfds_t, int);
	int (*tail_take)(uint8_t *, size_t);
	void (*tail_agent)(uint8_t, int);
};
extern struct shim_next shim_next;
extern pthread_mutex_t shim_mutex; /* taken raw only by poll's cancellable wait */
extern pthread_cond_t shim_cond;   /* some client queue got something */

void shim_init(void);
void shim_lock(void);
void shim_unlock(void);
void shim_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#define shim_dbg(...)                         \
	do {                                  \
		if (shim_conf.debug)          \
			shim_log(__VA_ARGS__); \
	} while (0)
uint64_t shim_now_ms(void);
/* Without the lock: is FD one of ours (an open /dev/infiniband/umadN)? */
bool shim_is_managed(int fd);
/* Under the lock: FD's state, or NULL. */
struct shim_fd *shim_lookup(int fd);
/* FD was opened on /dev/infiniband/umadN: manage it (start its pump). */
void shim_track(int fd);
/* FD is closing: stop its pump, free its state. */
void shim_untrack(int fd);
/* Sends one 256-byte MAD with HDR's agent and address (umad2sim's write). */
int shim_wire_send(struct shim_fd *sf, const struct ib_user_mad_hdr *hdr,
		   const uint8_t mad[RMPP_MAD_SIZE]);
/* Passes bytes the client wrote on unchanged. */
ssize_t shim_wire_raw(struct shim_fd *sf, const void *buf, size_t len);
/* Queues HDR + MAD (len bytes) for the client; -ENOMEM. */
int shim_deliver(struct shim_fd *sf, const struct ib_user_mad_hdr *hdr, const uint8_t *mad,
		 size_t len);
/* Queues the kernel's notice that the send in HDR/MAD got no answer. */
void shim_deliver_timeout(struct shim_fd *sf, const struct ib_user_mad_hdr *hdr,
			  const uint8_t *mad);

/* ---- rmpp_tail.c (librmpp_tail.so, preloaded after umad2sim) -------------- */

/* umad2sim hands out only MAD bytes 0..223 intact: this puts back bytes
 * 224..LEN-1 of the MAD (LEN bytes, at most 256) that arrived with the same
 * first 224 bytes and length (0), or -ENOENT. */
#define SHIM_TAIL_FROM 224
int rmpp_tail_take(uint8_t *mad, size_t len);
/* An agent of mgmt_class registered (+1) or gone (-1): the tail drops MADs no agent takes. */
void rmpp_tail_agent(uint8_t mgmt_class, int delta);

/* ---- rmpp_flow.c ------------------------------------------------------------ */

/* The client wrote BUF (header + MAD, LEN bytes): returns LEN, or -1 and errno. */
ssize_t flow_client_write(struct shim_fd *sf, const uint8_t *buf, size_t len);
/* Sends BUF as the kernel would (RMPP for RMPP agents), without a wait. */
ssize_t flow_send(struct shim_fd *sf, const uint8_t *buf, size_t len);
/* Is a message of agent ID with MAD's class and TID still going out? */
bool flow_busy(struct shim_fd *sf, uint32_t id, const uint8_t *mad);
/* umad2sim handed over BUF (header + MAD, LEN bytes) from the wire. */
void flow_wire_in(struct shim_fd *sf, const uint8_t *buf, size_t len);
/* Retransmits, gives up, forgets; NOW in ms. */
void flow_timers(struct shim_fd *sf, uint64_t now);
/* Agent ID went away: its transfers go with it. */
void flow_drop_agent(struct shim_fd *sf, uint32_t id);
/* Frees every transfer of SF (closing). */
void flow_free(struct shim_fd *sf);

/* ---- rmpp_wait.c ------------------------------------------------------------ */

/* The kernel's ib_response_mad(): a response, TrapRepress, or a BM response. */
bool wait_is_response(const uint8_t *mad);
/* Same agent, class and TID (lower half: the upper is rewritten on the way). */
bool wait_same_tid(const uint8_t *a, const uint8_t *b);
/* The client wrote request BUF (LEN bytes) with a timeout: wait for its answer. */
void wait_start(struct shim_fd *sf, const uint8_t *buf, size_t len);
/* The wait of agent ID for a request with MAD's class and TID ends: its
 * response (MAD) came, or its send failed and the client was told. */
void wait_end(struct shim_fd *sf, uint32_t id, const uint8_t *mad);
/* Resends requests whose answer is late; gives up on those out of retries. */
void wait_timers(struct shim_fd *sf, uint64_t now);
void wait_drop_agent(struct shim_fd *sf, uint32_t id);
void wait_free(struct shim_fd *sf);

#endif
