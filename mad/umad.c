/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/umad.h>

#include "mad/umad.h"

/* IBA 13.4 and 14.2.1: the SMP classes, both class version 1. */
#define CLASS_SUBN_LID 0x01
#define CLASS_SUBN_DIR 0x81

struct mad_umad {
	int portid;
	int agent_lid, agent_dir;
	unsigned port;
	char ca[UMAD_CA_NAME_LEN];
	/* umad header + one MAD; libibumad wants them contiguous. */
	uint8_t *buf;
};

static int pick_port(const char *ca, unsigned port, char name[UMAD_CA_NAME_LEN],
		     unsigned *num)
{
	char cas[UMAD_MAX_DEVICES][UMAD_CA_NAME_LEN];
	umad_ca_t info;
	int n, r;

	if (!ca) {
		n = umad_get_cas_names(cas, UMAD_MAX_DEVICES);
		if (n < 0)
			return n;
		if (n == 0)
			return -ENODEV;
		ca = cas[0];
	}
	r = umad_get_ca(ca, &info);
	if (r < 0)
		return -ENODEV;
	r = -ENODEV;
	/*
	 * An SM on a switch talks through its management port 0; that is
	 * what umad2sim shows when the SM is attached at a switch. A CA's
	 * ports start at 1 and its ports[0] is empty.
	 */
	for (int i = 0; i <= info.numports && i < UMAD_CA_MAX_PORTS; i++) {
		if (!info.ports[i] || (port && (unsigned)i != port) ||
		    (i == 0 && info.node_type != 2 /* switch */))
			continue;
		*num = (unsigned)i;
		r = 0;
		break;
	}
	umad_release_ca(&info);
	if (r == 0)
		snprintf(name, UMAD_CA_NAME_LEN, "%s", ca);
	return r;
}

static size_t umad_hdr_size(void)
{
	size_t n = umad_size();

	return n > sizeof(struct ib_user_mad) ? n : sizeof(struct ib_user_mad);
}

int mad_umad_open(const char *ca, unsigned port, struct mad_umad **out)
{
	struct mad_umad *u;
	int r;

	if (umad_init() < 0)
		return -ENODEV;
	u = calloc(1, sizeof(*u));
	if (!u)
		return -ENOMEM;
	u->portid = u->agent_lid = u->agent_dir = -1;
	/*
	 * umad_size() is 56 here, yet umad_get_mad() points 64 bytes in
	 * (struct ib_user_mad's data is 8-aligned): size by the larger.
	 */
	u->buf = calloc(1, umad_hdr_size() + MAD_SIZE);
	if (!u->buf) {
		r = -ENOMEM;
		goto fail;
	}
	r = pick_port(ca, port, u->ca, &u->port);
	if (r < 0)
		goto fail;
	u->portid = umad_open_port(u->ca, (int)u->port);
	if (u->portid < 0) {
		r = u->portid;
		goto fail;
	}
	/* No method mask: we only send requests and take their responses. */
	u->agent_dir = umad_register(u->portid, CLASS_SUBN_DIR, 1, 0, NULL);
	u->agent_lid = umad_register(u->portid, CLASS_SUBN_LID, 1, 0, NULL);
	if (u->agent_dir < 0 || u->agent_lid < 0) {
		r = u->agent_dir < 0 ? u->agent_dir : u->agent_lid;
		goto fail;
	}
	*out = u;
	return 0;
fail:
	mad_umad_close(u);
	return r < 0 ? r : -EIO;
}

void mad_umad_close(struct mad_umad *u)
{
	if (!u)
		return;
	if (u->portid >= 0)
		umad_close_port(u->portid);
	free(u->buf);
	free(u);
}

const char *mad_umad_ca(const struct mad_umad *u)
{
	return u->ca;
}

unsigned mad_umad_port(const struct mad_umad *u)
{
	return u->port;
}

static int umad_t_send(void *t, const uint8_t *mad, size_t len, unsigned timeout_ms)
{
	struct mad_umad *u = t;
	int agent, r;

	if (len != MAD_SIZE)
		return -EINVAL;
	agent = mad[1] == CLASS_SUBN_DIR ? u->agent_dir : u->agent_lid;
	memset(u->buf, 0, umad_hdr_size());
	memcpy(umad_get_mad(u->buf), mad, MAD_SIZE);
	/*
	 * A directed-route SMP goes to the permissive LID (IBA 14.2.2); the
	 * LID-routed ones carry their DLID, which the caller has not told us
	 * yet, so only DR is supported for now. The kernel matches a response
	 * to its request only while the request waits (timeout_ms > 0); we do
	 * our own retries, so the kernel's count is 0.
	 */
	umad_set_addr(u->buf, 0xffff, 0, 0, 0);
	r = umad_send(u->portid, agent, u->buf, MAD_SIZE, (int)timeout_ms, 0);
	return r < 0 ? (errno ? -errno : -EIO) : 0;
}

static int umad_t_recv(void *t, uint8_t *mad, size_t len)
{
	struct mad_umad *u = t;
	int n, r;

	for (;;) {
		n = MAD_SIZE;
		r = umad_recv(u->portid, u->buf, &n, 0);
		if (r < 0)
			return r == -ETIMEDOUT || r == -EWOULDBLOCK ? -EAGAIN : r;
		/*
		 * A non-zero status is the kernel handing back one of our sends
		 * whose response did not come in time; txn.c keeps its own timers,
		 * so this copy carries no news.
		 */
		if (umad_status(u->buf))
			continue;
		if (n < 0)
			return -EPROTO;
		if ((size_t)n > len)
			n = (int)len;
		memcpy(mad, umad_get_mad(u->buf), (size_t)n);
		return n;
	}
}

static int umad_t_fd(void *t)
{
	struct mad_umad *u = t;

	return umad_get_fd(u->portid);
}

const struct mad_transport_ops mad_umad_ops = {
	.send = umad_t_send,
	.recv = umad_t_recv,
	.fd = umad_t_fd,
};
