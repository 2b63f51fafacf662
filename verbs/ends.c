/* SPDX-License-Identifier: MIT */
/* One side of a test case: QPs, the buffer region of its message slots, its MR. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "verbs/pattern.h"
#include "verbs/verbs.h"

static size_t slot_stride(const struct vcase *c, bool passive)
{
	if (vop_is_atomic(c->op))
		return 8;
	/* A UD receive buffer starts with the 40-byte GRH slot the HCA always fills. */
	return c->size + (passive && vop_is_ud(c->op) ? UD_GRH : 0);
}

int end_setup(struct vend *e, struct vdev *d, const struct vcase *c, bool passive,
	      double timeout, struct vinfo *mine, char *err, size_t errlen)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	uint64_t t0;
	unsigned q;
	int r;

	memset(e, 0, sizeof(*e));
	e->dev = d;
	e->c = *c;
	e->timeout = timeout;
	e->psn = (uint32_t)(c->seed ^ (passive ? 0x5a5a5a : 0x3c3c3c)) & 0xffffff;
	r = qp_create_all(e, err, errlen);
	if (r < 0)
		return r;
	e->stride = slot_stride(c, passive);
	e->buflen = (e->stride * c->slots + page - 1) / page * page;
	if (posix_memalign((void **)&e->buf, page, e->buflen)) {
		snprintf(err, errlen, "cannot allocate %zu bytes for %u message slots", e->buflen,
			 c->slots);
		return -ENOMEM;
	}
	memset(e->buf, PAT_POISON, e->buflen);
	e->wr = calloc(c->batch, sizeof(*e->wr));
	e->sge = calloc(c->batch, sizeof(*e->sge));
	if (!e->wr || !e->sge) {
		snprintf(err, errlen, "cannot allocate %u work requests", c->batch);
		return -ENOMEM;
	}
	/* Registration pins and maps the pages: its cost is reported per case. */
	t0 = stats_now_ns();
	e->mr = ibv_reg_mr(d->pd, e->buf, e->buflen, IBV_ACCESS_LOCAL_WRITE |
			   IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			   IBV_ACCESS_REMOTE_ATOMIC);
	e->mr_reg_ns = stats_now_ns() - t0;
	if (!e->mr) {
		snprintf(err, errlen, "%s: cannot register %zu bytes of memory: %s; raise the "
			 "locked-memory limit (ulimit -l)", d->name, e->buflen, strerror(errno));
		return -errno;
	}
	if (vop_is_atomic(c->op) && passive)
		memcpy(e->buf, &c->counter0, 8);
	memset(mine, 0, sizeof(*mine));
	for (q = 0; q < c->qps; q++)
		mine->qpn[q] = e->qp[q]->qp_num;
	mine->psn = e->psn;
	mine->lid = d->pattr.lid;
	memcpy(mine->gid, d->gid.raw, 16);
	mine->addr = (uintptr_t)e->buf;
	mine->rkey = e->mr->rkey;
	mine->stride = (uint32_t)e->stride;
	return 0;
}

void end_free(struct vend *e)
{
	qp_destroy_all(e);
	if (e->mr)
		ibv_dereg_mr(e->mr);
	free(e->buf);
	free(e->wr);
	free(e->sge);
	e->wr = NULL;
	e->sge = NULL;
	e->mr = NULL;
	e->buf = NULL;
}
