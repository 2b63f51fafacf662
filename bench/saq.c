/* SPDX-License-Identifier: MIT */
/*
 * saq: SA query load for bench/sa. Sends COUNT single-record SubnAdmGet
 * queries from the port it runs on, WINDOW of them in flight, and prints
 * how many were answered and how fast. NodeRecord by LID, or PathRecord
 * from this port to a LID, the LIDs taken in turn from LO..HI: the
 * queries an MPI job start or an IPoIB ARP storm puts on the SA. Single
 * records: no RMPP, so it works on the bare simulator against any SA.
 * PathRecord by LIDs (SLID, DLID), or with --by gid as hosts ask (rdma_cm,
 * ibacm): SGID and DGID, P_Key, NumbPath 1, reversible; the GIDs of LO..HI
 * are learnt first, one NodeRecord each, untimed (LIDs without one are
 * left out). ClassPortInfo (no LIDs: the same query every time) costs an
 * SA next to nothing: its rate is what the transport allows, a ceiling.
 *
 *   saq [--ca NAME] [--port N] [--attr node|path|cpi] [--by lid|gid]
 *       [--count N] [--window W] [--timeout MS] LO HI
 *
 * Prints one line: "saq: ATTR: N sent, A answered (S status errors), T timed
 * out, SECS s, QPS queries/s". Exit 0 if every query was answered.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/umad.h>
#include <iba/ib_types.h>

#define SA_QKEY 0x80010000u
#define SAQ_MAX_WINDOW 1024

enum saq_attr { SAQ_NODE, SAQ_PATH, SAQ_CPI };

struct saq {
	int fd, agent;
	umad_port_t port;
	enum saq_attr attr;
	bool by_gid;
	unsigned count, window, timeout_ms;
	unsigned lo, hi, next_lid;
	uint64_t *guid;   /* by_gid: the PortGUID of each LID lo..hi, 0 if none */
	unsigned sent, answered, errors, timeouts;
	uint64_t tid_base;
	void *umad;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void build(struct saq *q, ib_sa_mad_t *m, uint16_t lid)
{
	memset(m, 0, sizeof(*m));
	m->base_ver = 1;
	m->mgmt_class = IB_MCLASS_SUBN_ADM;
	m->class_ver = 2;
	m->method = IB_MAD_METHOD_GET;
	m->trans_id = cl_hton64(q->tid_base + q->sent);
	if (q->attr == SAQ_CPI) {
		m->attr_id = IB_MAD_ATTR_CLASS_PORT_INFO;
	} else if (q->attr == SAQ_PATH) {
		ib_path_rec_t *p = (ib_path_rec_t *)m->data;

		m->attr_id = IB_MAD_ATTR_PATH_RECORD;
		p->num_path = 1;
		if (q->by_gid) {
			/* As rdma_cm asks (cma_query_ib_route), less the ServiceID. */
			p->sgid.unicast.prefix = q->port.gid_prefix;
			p->sgid.unicast.interface_id = q->port.port_guid;
			p->dgid.unicast.prefix = q->port.gid_prefix;
			p->dgid.unicast.interface_id = cl_hton64(q->guid[lid - q->lo]);
			p->pkey = cl_hton16(0xffff);
			p->num_path = 0x80 | 1; /* reversible, one path */
			m->comp_mask = IB_PR_COMPMASK_SGID | IB_PR_COMPMASK_DGID |
				       IB_PR_COMPMASK_PKEY | IB_PR_COMPMASK_NUMBPATH |
				       IB_PR_COMPMASK_REVERSIBLE;
		} else {
			p->slid = cl_hton16((uint16_t)q->port.base_lid);
			p->dlid = cl_hton16(lid);
			m->comp_mask = IB_PR_COMPMASK_SLID | IB_PR_COMPMASK_DLID;
		}
	} else {
		ib_node_record_t *n = (ib_node_record_t *)m->data;

		m->attr_id = IB_MAD_ATTR_NODE_RECORD;
		n->lid = cl_hton16(lid);
		m->comp_mask = IB_NR_COMPMASK_LID;
	}
}

/* The next LID in turn (by GID: the next that has a port GUID). */
static uint16_t next_lid(struct saq *q)
{
	uint16_t lid;

	do {
		lid = (uint16_t)q->next_lid;
		q->next_lid = q->next_lid >= q->hi ? q->lo : q->next_lid + 1;
	} while (q->by_gid && !q->guid[lid - q->lo]);
	return lid;
}

static int send_one(struct saq *q)
{
	ib_sa_mad_t *m = umad_get_mad(q->umad);

	build(q, m, next_lid(q));
	umad_set_addr(q->umad, q->port.sm_lid, 1, 0, SA_QKEY);
	umad_set_pkey(q->umad, 0);
	if (umad_send(q->fd, q->agent, q->umad, sizeof(*m), (int)q->timeout_ms, 0) < 0)
		return -errno;
	q->sent++;
	return 0;
}

/* One answer or timeout; 0, or -1 if nothing came within the timeout. */
static int recv_one(struct saq *q)
{
	ib_sa_mad_t *m = umad_get_mad(q->umad);
	int len = sizeof(*m);

	if (umad_recv(q->fd, q->umad, &len, (int)q->timeout_ms * 2) < 0)
		return -1;
	if (umad_status(q->umad)) {
		q->timeouts++;
		return 0;
	}
	if (m->status)
		q->errors++;
	q->answered++;
	return 0;
}

/*
 * By GID: the PortGUID of every LID lo..hi, one NodeRecord Get at a time
 * (untimed). -1 if no LID has one.
 */
static int learn_guids(struct saq *q)
{
	ib_sa_mad_t *m = umad_get_mad(q->umad);
	const ib_node_record_t *n = (const ib_node_record_t *)m->data;
	unsigned found = 0;

	q->guid = calloc(q->hi - q->lo + 1, sizeof(*q->guid));
	if (!q->guid)
		return -1;
	q->attr = SAQ_NODE;
	for (unsigned lid = q->lo; lid <= q->hi; lid++) {
		int len = sizeof(*m);

		build(q, m, (uint16_t)lid);
		umad_set_addr(q->umad, q->port.sm_lid, 1, 0, SA_QKEY);
		umad_set_pkey(q->umad, 0);
		if (umad_send(q->fd, q->agent, q->umad, sizeof(*m), (int)q->timeout_ms, 0) < 0 ||
		    umad_recv(q->fd, q->umad, &len, (int)q->timeout_ms * 2) < 0)
			return -1;
		q->sent++;
		if (umad_status(q->umad) || m->status || m->attr_id != IB_MAD_ATTR_NODE_RECORD)
			continue;
		q->guid[lid - q->lo] = cl_ntoh64(n->node_info.port_guid);
		found += q->guid[lid - q->lo] != 0;
	}
	q->attr = SAQ_PATH;
	return found ? 0 : -1;
}

static int parse(int argc, char **argv, struct saq *q, const char **ca, int *portnum)
{
	static const struct option opts[] = {
		{ "ca", required_argument, NULL, 'C' },	   { "port", required_argument, NULL, 'P' },
		{ "attr", required_argument, NULL, 'a' },  { "count", required_argument, NULL, 'n' },
		{ "window", required_argument, NULL, 'w' }, { "timeout", required_argument, NULL, 't' },
		{ "by", required_argument, NULL, 'b' },	   {}
	};
	int c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'C': *ca = optarg; break;
		case 'P': *portnum = atoi(optarg); break;
		case 'a':
			q->attr = !strcmp(optarg, "path") ? SAQ_PATH :
				  !strcmp(optarg, "cpi") ? SAQ_CPI : SAQ_NODE;
			break;
		case 'b': q->by_gid = !strcmp(optarg, "gid"); break;
		case 'n': q->count = (unsigned)atoi(optarg); break;
		case 'w': q->window = (unsigned)atoi(optarg); break;
		case 't': q->timeout_ms = (unsigned)atoi(optarg); break;
		default: return -1;
		}
	}
	if (optind != argc - 2)
		return -1;
	q->lo = (unsigned)strtoul(argv[optind], NULL, 0);
	q->hi = (unsigned)strtoul(argv[optind + 1], NULL, 0);
	if (!q->lo || q->hi < q->lo || q->hi > 0xbfff || !q->window ||
	    q->window > SAQ_MAX_WINDOW)
		return -1;
	return 0;
}

int main(int argc, char **argv)
{
	struct saq q = { .count = 10000, .window = 16, .timeout_ms = 1000 };
	const char *ca = NULL;
	int portnum = 0;
	unsigned inflight = 0;
	double t0, secs;

	if (parse(argc, argv, &q, &ca, &portnum) < 0) {
		fprintf(stderr, "usage: saq [--ca NAME] [--port N] [--attr node|path|cpi] "
				"[--by lid|gid] [--count N] [--window W (1-%u)] [--timeout MS] "
				"LO HI\n", SAQ_MAX_WINDOW);
		return 2;
	}
	if (umad_init() < 0 || umad_get_port(ca, portnum, &q.port) < 0) {
		fprintf(stderr, "saq: cannot open %s port %d\n", ca ? ca : "(first CA)", portnum);
		return 2;
	}
	q.fd = umad_open_port(q.port.ca_name, q.port.portnum);
	q.agent = q.fd < 0 ? -1 : umad_register(q.fd, IB_MCLASS_SUBN_ADM, 2, 0, NULL);
	q.umad = umad_alloc(1, umad_size() + sizeof(ib_sa_mad_t));
	if (q.fd < 0 || q.agent < 0 || !q.umad) {
		fprintf(stderr, "saq: %s port %d: cannot register an SA client\n", q.port.ca_name,
			q.port.portnum);
		return 2;
	}
	q.next_lid = q.lo;
	q.tid_base = (uint64_t)getpid() << 32;
	q.by_gid = q.by_gid && q.attr == SAQ_PATH;
	if (q.by_gid && learn_guids(&q) < 0) {
		fprintf(stderr, "saq: no NodeRecord for LIDs %u-%u: no GIDs to ask paths to\n", q.lo,
			q.hi);
		return 2;
	}
	q.tid_base += q.sent;
	q.sent = 0;
	t0 = now_s();
	while (q.answered + q.timeouts < q.count) {
		while (inflight < q.window && q.sent < q.count) {
			if (send_one(&q) < 0) {
				fprintf(stderr, "saq: send: %s\n", strerror(errno));
				return 2;
			}
			inflight++;
		}
		if (recv_one(&q) < 0) {
			q.timeouts += inflight; /* the SA went silent: count the rest lost */
			break;
		}
		inflight--;
	}
	secs = now_s() - t0;
	printf("saq: %s: %u sent, %u answered (%u status errors), %u timed out, %.3f s, %.0f "
	       "queries/s\n", q.attr == SAQ_CPI ? "ClassPortInfo" : q.attr == SAQ_NODE ?
	       "NodeRecord" : q.by_gid ? "PathRecord by GID" : "PathRecord by LID", q.sent,
	       q.answered, q.errors, q.timeouts, secs, secs > 0 ? q.answered / secs : 0.0);
	free(q.guid);
	umad_release_port(&q.port);
	return q.answered == q.count && !q.errors ? 0 : 1;
}
