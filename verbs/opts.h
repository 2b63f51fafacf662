/* SPDX-License-Identifier: MIT */
/*
 * DOC: verbs/ — loom-verbs, the libibverbs data-path validator. Only this folder links
 * libibverbs. Data flows: options -> device -> per-case resources -> timed run ->
 * verification (never timed) -> output.
 *   opts.h     this header: options, operations, modes, exit codes (no libibverbs)
 *   verbs.h    what the files that need libibverbs share (devices, QPs, cases)
 *   opts.c     command line: options, size/test lists, --help (no libibverbs)
 *   pattern.c  per-message seeded byte pattern, fill and check (pattern.h; no libibverbs)
 *   stats.c    latency percentiles, bandwidth (stats.h; no libibverbs)
 *   dev.c      device, port and GID selection, PD
 *   qp.c       CQ, SRQ, QPs and the RESET->INIT->RTR->RTS walk, address handles
 *   ends.c     one side of a test case: QPs, buffer region, MR (registration timed)
 *   post.c     work requests for every operation, posting and bounded polling
 *   run.c      the active side: chunks of messages, latency and bandwidth phases
 *   passive.c  the passive side: receives, targets of RDMA and atomics, its checks
 *   check.c    verification of a chunk: buffers, receive order, atomic arithmetic
 *   oob.c      the out-of-band TCP exchange between server and client
 *   cm.c       the same exchange over an rdma_cm connection (--rdma-cm)
 *   pingpong.c --pingpong: echoed messages, half round trips as perftest's *_lat
 *   out.c      text table and JSON
 *   compare.c  --compare-opts: what inline, signaling, batching and SRQ buy
 *   path.c     SA PathRecord (SL, MTU) through libibumad, for InfiniBand links (path.h)
 *   main.c     modes loopback, server, client; exit codes
 */
#ifndef LOOM_VERBS_OPTS_H
#define LOOM_VERBS_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Exit codes, as documented in loom-verbs(8). */
enum { VX_OK = 0, VX_FAIL = 1, VX_CANNOT = 2 };

enum vop {
	OP_SEND_RC,
	OP_SEND_UD,
	OP_WRITE,
	OP_WRITE_IMM,
	OP_READ,
	OP_FETCH_ADD,
	OP_CMP_SWAP,
	_OP_MAX
};

enum vmode { MODE_LOOPBACK, MODE_SERVER, MODE_CLIENT };

/* Test-only fault injection (--fault): proves the checker can fail. */
enum vfault_kind { FAULT_NONE, FAULT_CORRUPT, FAULT_STALE, FAULT_ATOMIC };

struct vfault {
	uint32_t kind;   /* enum vfault_kind */
	uint32_t pad;
	uint64_t msg;    /* message number to spoil */
	int64_t off;     /* byte offset for corrupt; -1: the middle of the message */
};

#define VOPTS_MAX_SIZES 32
#define VOPTS_MAX_QPS 256
#define VOPTS_MAX_SIZE (1u << 30)

struct vopts {
	enum vmode mode;
	const char *host;        /* client: the server's address */
	const char *dev;         /* NULL: first device with an active port */
	int ib_port;
	int gid_index;           /* -1: pick a RoCE v2 IPv4 GID, else 0 */
	int sl;                  /* -1: from the SA PathRecord on IB, else 0 */
	unsigned tests;          /* bit mask of enum vop */
	size_t sizes[VOPTS_MAX_SIZES];
	unsigned nsizes;
	uint64_t iters;
	double duration;         /* seconds; 0: use iters */
	double timeout;          /* seconds, every wait */
	unsigned oob_port;
	unsigned qps;
	unsigned depth;          /* outstanding send WRs per QP */
	unsigned signal_every;
	unsigned batch;
	bool inline_;
	bool srq;
	bool rdma_cm;            /* server/client: set up over rdma_cm instead of TCP */
	bool pingpong;           /* also half round trips, as perftest's *_lat */
	bool json;
	bool compare;
	bool quiet;
	uint16_t path_to;        /* test only: ask the SA for the path to this LID, exit */
	uint64_t seed;
	struct vfault fault;
};

extern const char *const vop_name[_OP_MAX];

/* Fill o from argv. Returns 0 to run, 1 when --help was printed (exit 0), -EINVAL on
 * misuse with one line per problem written to err. With path_to set no mode is needed. */
int opts_parse(struct vopts *o, int argc, char **argv, FILE *err);
void opts_usage(FILE *f);

/* "2,64,4k,1M" -> sizes; -EINVAL with a message in why (192 bytes) on a bad item. */
int opts_parse_sizes(const char *s, size_t *sizes, unsigned *n, char *why);
/* "send_rc,rdma_read" or "all" -> bit mask of enum vop. */
int opts_parse_tests(const char *s, unsigned *mask, char *why);
/* "5s", "500ms", "2m", "1.5" (seconds) -> seconds. */
int opts_parse_duration(const char *s, double *sec);
/* "corrupt:MSG[:OFF]", "stale:MSG", "atomic:MSG". */
int opts_parse_fault(const char *s, struct vfault *f);

static inline bool vop_is_atomic(enum vop op)
{
	return op == OP_FETCH_ADD || op == OP_CMP_SWAP;
}

#endif
