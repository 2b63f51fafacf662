/* SPDX-License-Identifier: MIT */
/*
 * SA PathRecord query through libibumad: one Get, one GetResp. The MAD is built with the
 * IBA structures of iba/ib_types.h; byte order is handled here only, and what leaves is
 * host-order struct path_info.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <infiniband/umad.h>
#include <iba/ib_types.h>

#include "verbs/path.h"

#define SA_CLASS_VERSION 2

static void build_get(ib_sa_mad_t *m, uint64_t tid, uint16_t slid, uint16_t dlid)
{
	ib_path_rec_t *pr = (ib_path_rec_t *)m->data;

	memset(m, 0, MAD_BLOCK_SIZE);
	m->base_ver = 1;
	m->mgmt_class = IB_MCLASS_SUBN_ADM;
	m->class_ver = SA_CLASS_VERSION;
	m->method = IB_MAD_METHOD_GET;
	m->trans_id = cl_hton64(tid);
	m->attr_id = IB_MAD_ATTR_PATH_RECORD;
	m->comp_mask = IB_PR_COMPMASK_SLID | IB_PR_COMPMASK_DLID;
	pr->slid = cl_hton16(slid);
	pr->dlid = cl_hton16(dlid);
}

static int recv_answer(int fd, void *umad, uint64_t tid, int ms, struct path_info *pi,
		       char *err, size_t errlen)
{
	ib_sa_mad_t *m = umad_get_mad(umad);
	const ib_path_rec_t *pr = (const ib_path_rec_t *)m->data;
	int len, r;

	for (;;) {
		len = MAD_BLOCK_SIZE;
		r = umad_recv(fd, umad, &len, ms);
		if (r < 0 || umad_status(umad)) {
			snprintf(err, errlen, "no PathRecord answer from the SA within %d ms: is a "
				 "subnet manager running?", ms);
			return -ETIMEDOUT;
		}
		/* A late answer to an earlier try has another TID: skip it. Only the low 32
		 * bits are ours: the kernel's MAD layer puts its agent's in the high ones. */
		if (m->method == IB_MAD_METHOD_GET_RESP &&
		    (uint32_t)cl_ntoh64(m->trans_id) == (uint32_t)tid)
			break;
	}
	if (m->status) {
		snprintf(err, errlen, "the SA refused PathRecord %u -> %u: MAD status 0x%04x "
			 "(no path between these ports?)", pi->slid, pi->dlid, cl_ntoh16(m->status));
		return -EHOSTUNREACH;
	}
	pi->sl = ib_path_rec_sl(pr);
	pi->mtu = ib_path_rec_mtu(pr);
	return 0;
}

int path_query(const char *ca, int port, uint16_t dlid, double timeout, struct path_info *pi,
	       char *err, size_t errlen)
{
	umad_port_t up;
	void *umad = NULL;
	int fd = -1, agent, r, ms = (int)(timeout * 1000 / 4);
	uint64_t tid = (uint64_t)time(NULL) << 20 | (uint64_t)rand() % (1u << 20);

	if (umad_init() < 0 || umad_get_port(ca, port, &up) < 0) {
		snprintf(err, errlen, "umad cannot see %s port %d: is ib_umad loaded and "
			 "/dev/infiniband/umad* readable?", ca ? ca : "(first CA)", port);
		return -ENODEV;
	}
	pi->slid = (uint16_t)up.base_lid;
	pi->dlid = dlid;
	if (!up.sm_lid) {
		snprintf(err, errlen, "%s port %d knows no SM LID: no subnet manager has "
			 "configured it", up.ca_name, port);
		r = -ENOENT;
		goto out;
	}
	fd = umad_open_port(up.ca_name, port);
	agent = fd < 0 ? -1 : umad_register(fd, IB_MCLASS_SUBN_ADM, SA_CLASS_VERSION, 1, NULL);
	umad = calloc(1, umad_size() + MAD_BLOCK_SIZE);
	if (fd < 0 || agent < 0 || !umad) {
		snprintf(err, errlen, "cannot open an SA agent on %s port %d through umad",
			 up.ca_name, port);
		r = -EIO;
		goto out;
	}
	build_get(umad_get_mad(umad), tid, pi->slid, dlid);
	umad_set_addr(umad, up.sm_lid, 1, up.sm_sl, 0x80010000);  /* the well-known QP1 Q_Key, host order here */
	/* umad retries the send itself; the answer is matched by TID. */
	if (umad_send(fd, agent, umad, MAD_BLOCK_SIZE, ms, 3) < 0) {
		snprintf(err, errlen, "sending the PathRecord query to SM LID %u failed",
			 up.sm_lid);
		r = -EIO;
		goto out;
	}
	r = recv_answer(fd, umad, tid, ms * 4, pi, err, errlen);
out:
	free(umad);
	if (fd >= 0)
		umad_close_port(fd);
	umad_release_port(&up);
	return r;
}
