/* SPDX-License-Identifier: MIT */
/* loom-verbs: modes loopback, server and client; the list of cases; exit codes. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "verbs/path.h"
#include "verbs/pattern.h"
#include "verbs/verbs.h"

/* Buffer slots per side are bounded by memory (64 MiB) and by what one receive queue
 * holds comfortably; a chunk is that many messages. */
#define SLOT_BYTES (64u << 20)
#define SLOT_MAX 512u

static size_t mtu_bytes(enum ibv_mtu m)
{
	return (size_t)128 << m;
}

struct vcase case_make(const struct vopts *o, const struct vdev *d, enum vop op, size_t size)
{
	struct vcase c = {
		.op = op, .size = (uint32_t)(vop_is_atomic(op) ? 8 : size), .qps = o->qps,
		.depth = o->depth, .signal_every = o->signal_every, .batch = o->batch,
		.inline_ = o->inline_, .srq = o->srq, .fault = o->fault,
	};
	size_t stride = c.size + UD_GRH;
	uint64_t slots = SLOT_BYTES / stride;

	(void)d;
	if (slots > SLOT_MAX)
		slots = SLOT_MAX;
	if (!o->duration && slots > o->iters)
		slots = o->iters;
	c.slots = (uint32_t)(slots ? slots : 1);
	c.seed = pat_case_seed(o->seed, op, c.size);
	/* Start atomics where a carry crosses bytes soon, not at a tidy zero. */
	c.counter0 = 0x00000000fffffff0ull ^ (c.seed & 0xffff0000ull);
	return c;
}

struct cases {
	struct vresult *r;
	unsigned n, cap;
};

static struct vresult *cases_add(struct cases *cs)
{
	if (cs->n == cs->cap) {
		unsigned cap = cs->cap ? cs->cap * 2 : 32;
		struct vresult *nr = realloc(cs->r, cap * sizeof(*nr));

		if (!nr)
			return NULL;
		cs->r = nr;
		cs->cap = cap;
	}
	memset(&cs->r[cs->n], 0, sizeof(cs->r[0]));
	return &cs->r[cs->n++];
}

/* Every op at every size; returns 0, or -errno when a case could not run at all. */
static int run_all(struct vdev *d, struct vpeer *peer, const struct vopts *o, struct cases *cs)
{
	unsigned op, i;
	int r;

	for (op = 0; op < _OP_MAX; op++) {
		if (!(o->tests & (1u << op)))
			continue;
		for (i = 0; i < o->nsizes; i++) {
			struct vresult *res = cases_add(cs);
			struct vcase c = case_make(o, d, op, o->sizes[i]);

			if (!res)
				return -ENOMEM;
			if (op == OP_SEND_UD && o->sizes[i] > mtu_bytes(d->pattr.active_mtu)) {
				*res = (struct vresult){ .op = op, .size = o->sizes[i], .c = c,
							 .skipped = true, .verified = true };
				snprintf(res->transport, sizeof(res->transport), "UD");
				snprintf(res->err, sizeof(res->err), "a UD message is at most the "
					 "path MTU, %zu bytes", mtu_bytes(d->pattr.active_mtu));
			} else {
				r = run_case(d, peer, o, &c, res);
				if (r < 0)
					return r;
			}
			if (!o->quiet)
				out_progress(res);
			if (vop_is_atomic(op))
				break;  /* atomics have one size */
		}
	}
	return 0;
}

static int run_active(struct vdev *d, struct vpeer *peer, const struct vopts *o)
{
	struct cases cs = { 0 };
	unsigned i;
	int r, code = VX_OK;

	if (o->compare)
		r = compare_run(d, peer, o, stdout);
	else
		r = run_all(d, peer, o, &cs);
	if (r < 0 && o->compare)
		return VX_CANNOT;       /* compare_run said what failed */
	if (r < 0) {
		struct vresult *last = cs.n ? &cs.r[cs.n - 1] : NULL;

		fprintf(stderr, "loom-verbs: %s\n", last ? last->err : strerror(-r));
		free(cs.r);
		return VX_CANNOT;
	}
	if (!o->compare) {
		if (o->json)
			out_json(stdout, cs.r, cs.n, d, o);
		else
			out_text(stdout, cs.r, cs.n, d);
	}
	for (i = 0; i < cs.n; i++)
		if (!cs.r[i].verified)
			code = VX_FAIL;
	if (r > 0)
		code = VX_FAIL;
	free(cs.r);
	return code;
}

/* Server or client: open the channel (TCP, or rdma_cm with --rdma-cm), then serve or
 * drive the cases over it. */
static int run_remote(struct vdev *d, const struct vopts *o)
{
	struct vpeer peer = { .fd = -1, .timeout = o->timeout };
	const char *who = o->mode == MODE_SERVER ? "server" : "client";
	struct vmsg m = { .type = VM_BYE };
	char err[320];
	int r, code;

	if (o->mode == MODE_SERVER)
		r = o->rdma_cm ? cm_listen_accept(o->oob_port, o->timeout, &peer.cm, err, sizeof(err))
			       : oob_listen_accept(o->oob_port, o->timeout, err, sizeof(err));
	else
		r = o->rdma_cm ? cm_connect(o->host, o->oob_port, o->timeout, &peer.cm, err,
					    sizeof(err))
			       : oob_connect(o->host, o->oob_port, o->timeout, err, sizeof(err));
	if (r < 0) {
		fprintf(stderr, "loom-verbs %s: %s\n", who, err);
		return VX_CANNOT;
	}
	if (!o->rdma_cm)
		peer.fd = r;
	if (o->mode == MODE_SERVER) {
		code = server_loop(d, &peer, o->quiet);
	} else {
		code = run_active(d, &peer, o);
		if (code != VX_CANNOT && peer_call(&peer, &m, err, sizeof(err)) < 0) {
			fprintf(stderr, "loom-verbs client: %s\n", err);
			code = VX_CANNOT;
		}
	}
	if (peer.fd >= 0)
		close(peer.fd);
	cm_close(peer.cm);
	return code;
}

int main(int argc, char **argv)
{
	struct vopts o;
	struct vdev d;
	char err[320];
	int r, code;

	r = opts_parse(&o, argc, argv, stderr);
	if (r == 1) {
		opts_usage(stdout);
		return VX_OK;
	}
	if (r < 0)
		return VX_CANNOT;
	if (o.path_to) {
		struct path_info pi;

		if (path_query(o.dev, o.ib_port, o.path_to, o.timeout, &pi, err, sizeof(err)) < 0) {
			fprintf(stderr, "loom-verbs: %s\n", err);
			return VX_CANNOT;
		}
		printf("slid %u dlid %u sl %u mtu %zu\n", pi.slid, pi.dlid, pi.sl,
		       mtu_bytes((enum ibv_mtu)pi.mtu));
		return VX_OK;
	}
	if (dev_open(&o, &d, err, sizeof(err)) < 0) {
		fprintf(stderr, "loom-verbs: %s\n", err);
		return VX_CANNOT;
	}
	if (o.mode == MODE_LOOPBACK) {
		struct passive p = { .dev = &d, .timeout = o.timeout };
		struct vpeer peer = { .fd = -1, .local = &p, .timeout = o.timeout };

		code = run_active(&d, &peer, &o);
		passive_free(&p);
	} else {
		code = run_remote(&d, &o);
	}
	dev_close(&d);
	return code;
}
