/* SPDX-License-Identifier: MIT */
/* loom-verbs internals that need libibverbs; see opts.h for the folder's DOC. */
#ifndef LOOM_VERBS_VERBS_H
#define LOOM_VERBS_VERBS_H

#include <infiniband/verbs.h>

#include "verbs/opts.h"
#include "verbs/stats.h"

struct vdev {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	char name[64];
	int port;
	struct ibv_port_attr pattr;
	struct ibv_device_attr dattr;
	int gid_index;
	union ibv_gid gid;
	bool roce;
	int sl;
	bool sl_from_sa;         /* InfiniBand without --sl: ask the SA per peer */
	double timeout;
};

/* The case both sides agree on; sent as is over TCP (both ends run the same build;
 * oob.c checks a magic that carries the struct sizes). */
struct vcase {
	uint32_t op;             /* enum vop */
	uint32_t size;           /* bytes per message */
	uint32_t qps;
	uint32_t depth;
	uint32_t signal_every;
	uint32_t batch;
	uint32_t slots;          /* messages per chunk: buffer slots on each side */
	uint8_t inline_;
	uint8_t srq;
	uint8_t pad[2];
	uint64_t seed;           /* pattern seed of this case */
	uint64_t counter0;       /* atomics: the target's initial value */
	struct vfault fault;
};

/* What one side tells the other: where its QPs and its buffer region are. */
struct vinfo {
	uint32_t qpn[VOPTS_MAX_QPS];
	uint32_t psn;
	uint16_t lid;
	uint8_t pad[2];
	uint8_t gid[16];
	uint64_t addr;
	uint32_t rkey;
	uint32_t stride;
};

/* The result of checking one chunk. */
struct vcheck {
	uint32_t bad;            /* messages that failed */
	uint32_t pad;
	uint64_t msg;            /* the first that failed */
	uint64_t off;
	uint32_t want, got;      /* bytes, or low bits of atomic values (what[] has them all) */
	uint64_t counter;        /* atomics: the target's value after the chunk */
	char what[240];          /* the first failure in words */
};

/* One side of a test case: its QPs, CQs and buffer region. */
struct vend {
	struct vdev *dev;
	struct vcase c;
	struct ibv_cq *scq, *rcq;
	struct ibv_srq *srq;
	struct ibv_qp *qp[VOPTS_MAX_QPS];
	struct ibv_ah *ah;
	uint8_t *buf;
	size_t stride;           /* bytes between slots */
	size_t buflen;
	struct ibv_mr *mr;
	uint64_t mr_reg_ns;
	uint32_t max_inline;
	uint32_t psn;
	struct ibv_send_wr *wr;  /* c.batch of them, chained per post */
	struct ibv_sge *sge;
	struct vinfo peer;
	double timeout;
	uint8_t sl;              /* of the path to the peer */
	enum ibv_mtu mtu;
};

#define UD_GRH 40
#define UD_QKEY 0x11111111u

/* dev.c */
int dev_open(const struct vopts *o, struct vdev *d, char *err, size_t errlen);
void dev_close(struct vdev *d);

/* qp.c */
int qp_create_all(struct vend *e, char *err, size_t errlen);
int qp_connect_all(struct vend *e, char *err, size_t errlen);
void qp_destroy_all(struct vend *e);

/* ends.c */
int end_setup(struct vend *e, struct vdev *d, const struct vcase *c, bool passive,
	      double timeout, struct vinfo *mine, char *err, size_t errlen);
void end_free(struct vend *e);
static inline uint8_t *end_slot(const struct vend *e, uint64_t slot)
{
	return e->buf + slot * e->stride;
}

/* post.c */
static inline bool vop_is_ud(enum vop op)
{
	return op == OP_SEND_UD;
}
static inline bool vop_uses_recv(enum vop op)
{
	return op == OP_SEND_RC || op == OP_SEND_UD || op == OP_WRITE_IMM;
}
/* Post n chained WRs on QP q: that QP's messages k0..k0+n-1 of the chunk at first (QP q
 * carries messages first + q, first + q + qps, ...). WR k is signaled when (k + 1) is a
 * multiple of sig_every or k is the QP's last in the chunk. */
int post_sends(struct vend *e, unsigned q, uint64_t first, uint32_t k0, unsigned n,
	       uint32_t count_q, unsigned sig_every, char *err, size_t errlen);
int post_recvs(struct vend *e, uint64_t first, uint32_t count, char *err, size_t errlen);
int poll_bounded(struct ibv_cq *cq, struct ibv_wc *wc, int max, uint64_t deadline_ns);
void wc_error(const struct ibv_wc *wc, const struct vend *e, char *err, size_t errlen);

/* run.c: the active side */
struct vphase {
	uint64_t msgs;
	uint64_t ns;             /* timed nanoseconds, summed over chunks */
	uint64_t *lat_ns;        /* latency phase: one sample per message */
};
struct vpeer;
struct vresult {
	unsigned op;
	size_t size;
	char transport[4];
	struct vcase c;
	bool ran, verified, skipped;
	uint64_t msgs;
	struct lat_stats lat;
	struct lat_stats pp;     /* --pingpong: half round trips */
	bool pp_ran;
	double mib_s, mpps;
	double mr_reg_us;
	size_t rx_mem;           /* bytes posted for receives on the passive side */
	char err[320];
};
int run_case(struct vdev *d, struct vpeer *peer, const struct vopts *o, const struct vcase *c,
	     struct vresult *res);

/* check.c */
void check_fault(const struct vcase *c, uint8_t *buf, size_t len, uint64_t msg);
int check_slots(struct vend *e, uint64_t first, uint32_t count, size_t data_off,
		struct vcheck *chk);
int check_atomics(struct vend *e, uint64_t first, uint32_t count, uint64_t counter,
		  struct vcheck *chk);
void check_note(struct vcheck *chk, uint64_t msg, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* passive.c and oob.c: the request/answer exchange between the sides */
enum vmsg_type { VM_CASE = 1, VM_PREP, VM_FIN, VM_END, VM_BYE, VM_PONG_PREP, VM_PONG };
struct vmsg {
	uint32_t magic;
	uint32_t type;
	int32_t status;          /* answer: 0 or -errno */
	uint32_t count;
	uint64_t first;
	struct vcase c;
	struct vinfo info;
	struct vcheck chk;
	uint64_t mr_reg_ns;
	uint64_t rx_mem;
	char err[320];
};
struct passive {
	struct vdev *dev;
	struct vend end;
	bool have_end;
	double timeout;
};
void passive_handle(struct passive *p, struct vmsg *m);
void passive_free(struct passive *p);

/* The magic carries the message size: two different builds refuse each other at once
 * instead of misreading fields. */
#define VMSG_MAGIC (0x4c4d0000u ^ (uint32_t)sizeof(struct vmsg))

struct cmconn;
struct vpeer {
	int fd;                  /* server/client over TCP: the socket; else -1 */
	struct cmconn *cm;       /* server/client over rdma_cm (--rdma-cm) */
	struct passive *local;   /* loopback: the other side in this process */
	double timeout;
};
int peer_call(struct vpeer *p, struct vmsg *m, char *err, size_t errlen);
/* The two halves of peer_call, for a request whose answer comes after work of our own. */
int peer_send(struct vpeer *p, const struct vmsg *m, char *err, size_t errlen);
int peer_recv(struct vpeer *p, struct vmsg *m, char *err, size_t errlen);
int oob_listen_accept(unsigned port, double timeout, char *err, size_t errlen);
int oob_connect(const char *host, unsigned port, double timeout, char *err, size_t errlen);
int oob_send(int fd, const struct vmsg *m, char *err, size_t errlen);
int oob_recv(int fd, struct vmsg *m, double timeout, char *err, size_t errlen);
int server_loop(struct vdev *d, struct vpeer *ch, bool quiet);

/* cm.c: the same requests and answers over an rdma_cm connection */
int cm_connect(const char *host, unsigned port, double timeout, struct cmconn **out,
	       char *err, size_t errlen);
int cm_listen_accept(unsigned port, double timeout, struct cmconn **out, char *err,
		     size_t errlen);
int cm_send(struct cmconn *c, const struct vmsg *m, char *err, size_t errlen);
int cm_recv(struct cmconn *c, struct vmsg *m, double timeout, char *err, size_t errlen);
void cm_close(struct cmconn *c);

/* pingpong.c: --pingpong, half round trips as perftest's *_lat */
bool pp_applies(const struct vcase *c);
int pp_poison(struct vend *e, uint64_t first, uint32_t count, uint32_t base);
int pp_pong(struct vend *e, uint64_t first, uint32_t count, struct ibv_wc *wcs, char *err,
	    size_t errlen);
int pp_chunk(struct vend *e, struct vpeer *peer, struct vmsg *m, uint64_t first,
	     uint32_t count, uint64_t *half_ns, struct vcheck *chk, char *err, size_t errlen);
void check_recv(struct vend *e, const struct ibv_wc *wc, uint64_t first, uint32_t *seen,
		struct vcheck *chk);

/* out.c */
void out_text(FILE *f, const struct vresult *r, unsigned n, const struct vdev *d);
void out_json(FILE *f, const struct vresult *r, unsigned n, const struct vdev *d,
	      const struct vopts *o);
void out_progress(const struct vresult *r);

/* main.c: the case for op and size under the options (slots from the memory budget) */
struct vcase case_make(const struct vopts *o, const struct vdev *d, enum vop op, size_t size);

/* compare.c */
int compare_run(struct vdev *d, struct vpeer *peer, const struct vopts *o, FILE *f);

#endif
