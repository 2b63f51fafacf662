/* SPDX-License-Identifier: MIT */
/*
 * saq: SA query load for bench/sa. Sends COUNT single-record SubnAdmGet
 * queries from the port it runs on, WINDOW of them in flight, and prints
 * how many were answered and how fast. NodeRecord by LID, or PathRecord
 * from this port to a LID, the LIDs taken in turn from LO..HI: the
 * queries an MPI job start or an IPoIB ARP storm puts on the SA. Single
 * records: no RMPP, so it works on the bare simulator against any SA.
 *
 *   saq [--ca NAME] [--port N] [--attr node|path] [--count N] [--window W]
 *       [--timeout MS] LO HI
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

struct saq {
	int fd, agent;
	umad_port_t port;
	bool path;
	unsigned count, window, timeout_ms;
	unsigned lo, hi, next_lid;
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
	if (q->path) {
		ib_path_rec_t *p = (ib_path_rec_t *)m->data;

		m->attr_id = IB_MAD_ATTR_PATH_RECORD;
		p->slid = cl_hton16((uint16_t)q->port.base_lid);
		p->dlid = cl_hton16(lid);
		p->num_path = 1;
		m->comp_mask = IB_PR_COMPMASK_SLID | IB_PR_COMPMASK_DLID;
	} else {
		ib_node_record_t *n = (ib_node_record_t *)m->data;

		m->attr_id = IB_MAD_ATTR_NODE_RECORD;
		n->lid = cl_hton16(lid);
		m->comp_mask = IB_NR_COMPMASK_LID;
	}
}

static int send_one(struct saq *q)
{
	ib_sa_mad_t *m = umad_get_mad(q->umad);
	uint16_t lid = (uint16_t)q->next_lid;

	q->next_lid = q->next_lid >= q->hi ? q->lo : q->next_lid + 1;
	build(q, m, lid);
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

static int parse(int argc, char **argv, struct saq *q, const char **ca, int *portnum)
{
	static const struct option opts[] = {
		{ "ca", required_argument, NULL, 'C' },	   { "port", required_argument, NULL, 'P' },
		{ "attr", required_argument, NULL, 'a' },  { "count", required_argument, NULL, 'n' },
		{ "window", required_argument, NULL, 'w' }, { "timeout", required_argument, NULL, 't' },
		{}
	};
	int c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'C': *ca = optarg; break;
		case 'P': *portnum = atoi(optarg); break;
		case 'a': q->path = !strcmp(optarg, "path"); break;
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
		fprintf(stderr, "usage: saq [--ca NAME] [--port N] [--attr node|path] [--count N] "
				"[--window W (1-%u)] [--timeout MS] LO HI\n", SAQ_MAX_WINDOW);
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
	       "queries/s\n", q.path ? "PathRecord" : "NodeRecord", q.sent, q.answered, q.errors,
	       q.timeouts, secs, secs > 0 ? q.answered / secs : 0.0);
	umad_release_port(&q.port);
	return q.answered == q.count && !q.errors ? 0 : 1;
}
