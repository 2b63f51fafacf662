/* SPDX-License-Identifier: MIT */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/umad.h>

#include "mad/umad.h"

/* IBA 13.4 and 14.2.1: the SMP classes, both class version 1. */
#define CLASS_SUBN_LID 0x01
#define CLASS_SUBN_DIR 0x81
/* IBA 15.2.1: Subnet Administration, class version 2; its QKey (IBA 10.2.4.4: QP1's). */
#define CLASS_SA 0x03
#define SA_CLASS_VERSION 2
#define QP1_QKEY 0x80010000
/* IBA 16.1.1: Performance Management, class version 1, on QP1 too. */
#define CLASS_PERF 0x04
/* Tries of an RMPP answer whose ACKs stop coming, after the first (the kernel's rewind). */
#define SA_SEND_RETRIES 3
/* How long a request we send on the SA's agent (a Report) waits for its response. */
#define SA_REQUEST_WAIT_MS 1000
/* IBA 15.2.1.1: the SA header; an empty GetTableResp is just that. */
#define SA_HDR_SIZE 56

struct mad_umad {
	int portid;
	int issm_fd; /* open while we are the SM: sets PortInfo:IsSM (IBA 14.4.2) */
	int agent_lid, agent_dir;
	int agent_sa; /* -1 unless opened with MAD_UMAD_SA */
	int agent_perf; /* -1 unless opened with MAD_UMAD_PERF */
	int agent_saq;  /* -1 unless opened with MAD_UMAD_SA_QUERY */
	unsigned long dropped_long;
	mad_umad_long_fn long_hook; /* long SA requests go here; NULL: dropped */
	void *long_arg;
	unsigned port;
	uint64_t node_guid; /* the CA's, host order, as libibumad read it (no MAD) */
	uint64_t port_guid; /* the port's, the same way */
	char ca[UMAD_CA_NAME_LEN];
	/* umad header + one MAD; libibumad wants them contiguous. */
	uint8_t *buf;
};

static int pick_port(const char *ca, unsigned port, char name[UMAD_CA_NAME_LEN],
		     unsigned *num, uint64_t *node_guid, uint64_t *port_guid)
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
	 * ports start at 1 and its ports[0] is empty. Without --port, the
	 * first port whose link is up (PortPhysicalState LinkUp: the SM finds
	 * it in Init, not Active, on a fabric nobody brought up yet), else the
	 * first port.
	 */
	for (int pass = 0; pass < 2 && r < 0; pass++)
		for (int i = 0; i <= info.numports && i < UMAD_CA_MAX_PORTS; i++) {
			if (!info.ports[i] || (port && (unsigned)i != port) ||
			    (i == 0 && info.node_type != 2 /* switch */))
				continue;
			if (!port && pass == 0 && info.ports[i]->phys_state != 5 /* LinkUp */)
				continue;
			*num = (unsigned)i;
			r = 0;
			break;
		}
	if (r == 0) {
		*node_guid = be64toh(info.node_guid);
		*port_guid = be64toh(info.ports[*num]->port_guid);
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

/*
 * An SM takes the requests addressed to it (IBA 14.4: SMInfo Get/Set, and
 * Traps from the fabric); a plain client takes only answers to its own.
 */
static int register_agents(struct mad_umad *u, bool sm)
{
	long mask[16 / sizeof(long)];

	/* Methods 0x01 Get, 0x02 Set, 0x05 Trap: all in the first long. */
	memset(mask, 0, sizeof(mask));
	mask[0] = 1L << 0x01 | 1L << 0x02 | 1L << 0x05;
	u->agent_dir = umad_register(u->portid, CLASS_SUBN_DIR, 1, 0, sm ? mask : NULL);
	u->agent_lid = umad_register(u->portid, CLASS_SUBN_LID, 1, 0, sm ? mask : NULL);
	if (u->agent_dir < 0 || u->agent_lid < 0)
		return u->agent_dir < 0 ? u->agent_dir : u->agent_lid;
	return 0;
}

/*
 * The SA's agent: every request method the SA defines (IBA 15.4: Get, Set,
 * GetTable, GetTraceTable, GetMulti, Delete), so that the ones it does not
 * serve yet are answered with a status instead of dropped by the kernel.
 * rmpp_version 1: the kernel (the RMPP shim on the simulator) segments what
 * we write and reassembles what comes in.
 */
static int register_sa(struct mad_umad *u)
{
	static const uint8_t methods[] = { 0x01, 0x02, 0x12, 0x13, 0x14, 0x15 };
	long mask[16 / sizeof(long)];

	memset(mask, 0, sizeof(mask));
	for (size_t i = 0; i < sizeof(methods); i++)
		mask[methods[i] / (8 * sizeof(long))] |= 1L << (methods[i] % (8 * sizeof(long)));
	u->agent_sa = umad_register(u->portid, CLASS_SA, SA_CLASS_VERSION, 1, mask);
	return u->agent_sa < 0 ? u->agent_sa : 0;
}

/*
 * Opening the issm device is how a process tells the kernel (and umad2sim
 * the simulator) that it is the SM: the port's IsSM capability bit is set
 * for as long as the file stays open.
 */
static int open_issm(struct mad_umad *u)
{
	char path[256];

	if (umad_get_issm_path(u->ca, (int)u->port, path, sizeof(path)) < 0)
		return -ENODEV;
	u->issm_fd = open(path, O_RDWR | O_CLOEXEC);
	return u->issm_fd < 0 ? -errno : 0;
}

int mad_umad_open(const char *ca, unsigned port, unsigned flags, struct mad_umad **out)
{
	struct mad_umad *u;
	int r;

	if (umad_init() < 0)
		return -ENODEV;
	u = calloc(1, sizeof(*u));
	if (!u)
		return -ENOMEM;
	u->portid = u->agent_lid = u->agent_dir = u->agent_sa = u->issm_fd = -1;
	u->agent_perf = u->agent_saq = -1;
	/*
	 * umad_size() is 56 here, yet umad_get_mad() points 64 bytes in
	 * (struct ib_user_mad's data is 8-aligned): size by the larger.
	 */
	u->buf = calloc(1, umad_hdr_size() + MAD_SIZE);
	if (!u->buf) {
		r = -ENOMEM;
		goto fail;
	}
	r = pick_port(ca, port, u->ca, &u->port, &u->node_guid, &u->port_guid);
	if (r < 0)
		goto fail;
	u->portid = umad_open_port(u->ca, (int)u->port);
	if (u->portid < 0) {
		r = u->portid;
		goto fail;
	}
	r = register_agents(u, flags & MAD_UMAD_SM);
	if (r == 0 && (flags & MAD_UMAD_SA))
		r = register_sa(u);
	if (r == 0 && (flags & MAD_UMAD_PERF)) {
		/* A PerfMgt client: answers to our own Gets only (no methods, no RMPP). */
		u->agent_perf = umad_register(u->portid, CLASS_PERF, 1, 0, NULL);
		r = u->agent_perf < 0 ? u->agent_perf : 0;
	}
	if (r == 0 && (flags & MAD_UMAD_SA_QUERY) && !(flags & MAD_UMAD_SA)) {
		/* An SA client: answers to our own Gets only (no methods, no RMPP). */
		u->agent_saq = umad_register(u->portid, CLASS_SA, SA_CLASS_VERSION, 0, NULL);
		r = u->agent_saq < 0 ? u->agent_saq : 0;
	}
	if (r < 0)
		goto fail;
	if (flags & MAD_UMAD_SM) {
		r = open_issm(u);
		if (r < 0)
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
	if (u->issm_fd >= 0)
		close(u->issm_fd);
	if (u->portid >= 0)
		umad_close_port(u->portid);
	free(u->buf);
	free(u);
}

unsigned long mad_umad_dropped_long(const struct mad_umad *u)
{
	return u->dropped_long;
}

const char *mad_umad_ca(const struct mad_umad *u)
{
	return u->ca;
}

unsigned mad_umad_port(const struct mad_umad *u)
{
	return u->port;
}

uint64_t mad_umad_node_guid(const struct mad_umad *u)
{
	return u->node_guid;
}

uint64_t mad_umad_port_guid(const struct mad_umad *u)
{
	return u->port_guid;
}

/*
 * An SA MAD goes to the requester's QP with QP1's QKey, on its SL and
 * P_Key (IBA 13.5.4.2: an answer uses the request's). With RMPP Active it
 * may be long: the kernel segments it, retrying a silent receiver.
 */
static int send_sa(struct mad_umad *u, const uint8_t *mad, size_t len, unsigned timeout_ms,
		   const struct mad_addr *to)
{
	uint8_t *buf = u->buf;
	int agent = u->agent_sa >= 0 ? u->agent_sa : u->agent_saq;
	int r;

	if (agent < 0 || !to || len < SA_HDR_SIZE || len > MAD_RMPP_MAX)
		return -EINVAL;
	if (len > MAD_SIZE) {
		buf = calloc(1, umad_hdr_size() + len);
		if (!buf)
			return -ENOMEM;
	} else {
		memset(buf, 0, umad_hdr_size() + MAD_SIZE);
	}
	memcpy(umad_get_mad(buf), mad, len);
	umad_set_addr(buf, to->lid, (int)to->qpn, to->sl, QP1_QKEY);
	umad_set_pkey(buf, to->pkey_index);
	/*
	 * A request we send (a Report) waits in the kernel for its response:
	 * the kernel hands a response only to the agent whose send still waits
	 * for it (ib_mad's find_send_wr) and drops it otherwise, so a Report
	 * sent without a timeout never sees its ReportResp and goes out again.
	 * We retry ourselves (sa_tick), so the kernel's count is 0.
	 */
	if (!(mad[3] & 0x80 /* IBA 13.4.5: the response bit */))
		r = umad_send(u->portid, agent, buf, (int)len,
			      (int)(timeout_ms ? timeout_ms : SA_REQUEST_WAIT_MS), 0);
	else
		r = umad_send(u->portid, agent, buf, (int)len, 0, SA_SEND_RETRIES);
	r = r < 0 ? (errno ? -errno : -EIO) : 0;
	if (buf != u->buf)
		free(buf);
	return r;
}

/*
 * A PerfMgt Get goes LID-routed to the port's QP1 with QP1's QKey (IBA
 * 16.1.1), on P_Key index 0 (the default partition). The kernel hands us
 * the response only while the send waits for it: timeout_ms must be > 0.
 */
static int send_perf(struct mad_umad *u, const uint8_t *mad, size_t len, unsigned timeout_ms,
		     const struct mad_addr *to)
{
	int r;

	if (u->agent_perf < 0 || !to || len != MAD_SIZE || !timeout_ms)
		return -EINVAL;
	memset(u->buf, 0, umad_hdr_size() + MAD_SIZE);
	memcpy(umad_get_mad(u->buf), mad, MAD_SIZE);
	umad_set_addr(u->buf, to->lid, 1, to->sl, QP1_QKEY);
	umad_set_pkey(u->buf, to->pkey_index);
	r = umad_send(u->portid, u->agent_perf, u->buf, MAD_SIZE, (int)timeout_ms, 0);
	return r < 0 ? (errno ? -errno : -EIO) : 0;
}

static int umad_t_send(void *t, const uint8_t *mad, size_t len, unsigned timeout_ms,
		       const struct mad_addr *to)
{
	struct mad_umad *u = t;
	int agent, r;

	if (len >= 2 && mad[1] == CLASS_SA)
		return send_sa(u, mad, len, timeout_ms, to);
	if (len >= 2 && mad[1] == CLASS_PERF)
		return send_perf(u, mad, len, timeout_ms, to);
	if (len != MAD_SIZE)
		return -EINVAL;
	agent = mad[1] == CLASS_SUBN_DIR ? u->agent_dir : u->agent_lid;
	memset(u->buf, 0, umad_hdr_size());
	memcpy(umad_get_mad(u->buf), mad, MAD_SIZE);
	/*
	 * A directed-route SMP goes to the permissive LID (IBA 14.2.2); a
	 * LID-routed one to its DLID, QP0 (QKey 0: QP0 ignores it). The kernel
	 * matches a response to its request only while the request waits
	 * (timeout_ms > 0); we do our own retries, so the kernel's count is 0.
	 */
	umad_set_addr(u->buf, to ? to->lid : 0xffff, to ? (int)to->qpn : 0, 0, 0);
	r = umad_send(u->portid, agent, u->buf, MAD_SIZE, (int)timeout_ms, 0);
	return r < 0 ? (errno ? -errno : -EIO) : 0;
}

static void addr_of(const struct mad_umad *u, const uint8_t *buf, struct mad_addr *from)
{
	const struct ib_user_mad *um = (const struct ib_user_mad *)buf;

	memset(from, 0, sizeof(*from));
	from->lid = be16toh(um->addr.lid);
	from->qpn = be32toh(um->addr.qpn);
	from->sl = um->addr.sl;
	from->pkey_index = (uint16_t)umad_get_pkey((void *)buf);
	from->agent = u->agent_sa >= 0 && um->agent_id == (uint32_t)u->agent_sa ? MAD_AGENT_SA
										 : MAD_AGENT_SMI;
	if (u->agent_perf >= 0 && um->agent_id == (uint32_t)u->agent_perf)
		from->agent = MAD_AGENT_PERF;
	if (u->agent_saq >= 0 && um->agent_id == (uint32_t)u->agent_saq)
		from->agent = MAD_AGENT_SA;
}

/*
 * A message longer than one MAD: an RMPP request the kernel reassembled
 * (a MultiPathRecord query with many GIDs, say). It stays queued until
 * read whole: read it into a buffer of its size and hand it to the long
 * hook when it is a request to the SA; anything else is thrown away,
 * counted, rather than seen again and again.
 */
static int read_long(struct mad_umad *u, int need)
{
	uint8_t *big;
	int n = need, r;
	struct mad_addr from;

	if (need <= 0 || (size_t)need > MAD_RMPP_MAX)
		return -EPROTO;
	big = calloc(1, umad_hdr_size() + (size_t)need);
	if (!big)
		return -ENOMEM;
	r = umad_recv(u->portid, big, &n, 0);
	if (r >= 0 && !umad_status(big) && n > 0 && u->long_hook) {
		addr_of(u, big, &from);
		if (from.agent == MAD_AGENT_SA) {
			u->long_hook(u->long_arg, umad_get_mad(big), (size_t)n, &from);
			free(big);
			return 0;
		}
	}
	free(big);
	u->dropped_long++;
	return r < 0 ? r : 0;
}

/*
 * A message longer than one MAD that fits the caller's buffer (an SA
 * client's GetTableResp, reassembled): read it whole and hand it over,
 * as recv hands over one MAD.
 */
static int recv_whole(struct mad_umad *u, int need, uint8_t *mad, struct mad_addr *from)
{
	uint8_t *big = calloc(1, umad_hdr_size() + (size_t)need);
	int n = need, r;

	if (!big)
		return -ENOMEM;
	r = umad_recv(u->portid, big, &n, 0);
	if (r >= 0 && umad_status(big))
		r = -EAGAIN; /* one of our sends handed back: no news (see umad_t_recv) */
	else if (r >= 0 && (n <= 0 || n > need))
		r = -EPROTO;
	if (r >= 0) {
		memcpy(mad, umad_get_mad(big), (size_t)n);
		if (from)
			addr_of(u, big, from);
		r = n;
	}
	free(big);
	return r == -ETIMEDOUT || r == -EWOULDBLOCK ? -EAGAIN : r;
}

void mad_umad_set_long_hook(struct mad_umad *u, mad_umad_long_fn fn, void *arg)
{
	u->long_hook = fn;
	u->long_arg = arg;
}

static int umad_t_recv(void *t, uint8_t *mad, size_t len, struct mad_addr *from)
{
	struct mad_umad *u = t;
	int n, r;

	for (;;) {
		n = MAD_SIZE;
		r = umad_recv(u->portid, u->buf, &n, 0);
		if (r == -ENOSPC && n > MAD_SIZE && (size_t)n <= len)
			return recv_whole(u, n, mad, from);
		if (r == -ENOSPC) {
			r = read_long(u, n);
			if (r < 0)
				return r == -ETIMEDOUT || r == -EWOULDBLOCK ? -EAGAIN : r;
			continue;
		}
		if (r < 0)
			return r == -ETIMEDOUT || r == -EWOULDBLOCK ? -EAGAIN : r;
		/*
		 * A non-zero status is the kernel handing back one of our sends
		 * whose response did not come in time (or an RMPP answer whose
		 * receiver stopped ACKing); txn.c keeps its own timers, and an
		 * SA answer is not retried by us, so this copy carries no news.
		 */
		if (umad_status(u->buf))
			continue;
		if (n < 0)
			return -EPROTO;
		if ((size_t)n > len)
			n = (int)len;
		memcpy(mad, umad_get_mad(u->buf), (size_t)n);
		if (from)
			addr_of(u, u->buf, from);
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
