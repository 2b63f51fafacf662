/* SPDX-License-Identifier: MIT */
/*
 * sasub: subscribe to events through the SA and wait for one Report, as a
 * host's management daemon would (IBA 13.4.8.3 InformInfo SubnAdmSet;
 * the SA then sends Report(Notice), answered with ReportResp). A test-rig
 * tool like mcjoin: on the simulator SIM_HOST picks the host; it speaks to
 * whichever SM holds the port's SMLID, OpenSM as the reference, loomd as
 * the subject.
 *
 *   sasub [--ca NAME] [--port N] [--trap N] [--timeout MS] [--wait MS]
 *         [--no-wait | --unsubscribe] [--issm]
 *
 * --issm: hold the port's issm device while waiting. Only for the
 * simulator: ibsim hands a request arriving on QP0/QP1 (a Report) only to
 * a client that holds issm, where a kernel gives it to every agent that
 * registered for the method.
 * --trap N: the generic trap number to subscribe to (default 0xFFFF, all).
 * Prints "subscribed" and, when a Report comes, one line about it; then
 * answers it with ReportResp. Exit 0 on success, 1 if the SA refused
 * (status printed), 2 if it did not answer or the port cannot be used,
 * 3 if no Report came within --wait (default 30000 ms).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
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
#define SA_CLASS_VERSION 2

struct args {
	const char *ca;
	int port;
	uint16_t trap;
	int timeout_ms, wait_ms;
	bool no_wait, unsubscribe, issm;
};

static void usage(FILE *f)
{
	fprintf(f, "usage: sasub [--ca NAME] [--port N] [--trap N] [--timeout MS] [--wait MS]\n"
		   "             [--no-wait | --unsubscribe] [--issm]\n");
}

static int parse_args(int argc, char **argv, struct args *a)
{
	static const struct option opts[] = {
		{ "ca", required_argument, NULL, 'C' },	     { "port", required_argument, NULL, 'P' },
		{ "trap", required_argument, NULL, 'T' },    { "timeout", required_argument, NULL, 't' },
		{ "wait", required_argument, NULL, 'w' },    { "no-wait", no_argument, NULL, 'n' },
		{ "unsubscribe", no_argument, NULL, 'u' },   { "issm", no_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	int c;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'C': a->ca = optarg; break;
		case 'P': a->port = atoi(optarg); break;
		case 'T': a->trap = (uint16_t)strtoul(optarg, NULL, 0); break;
		case 't': a->timeout_ms = atoi(optarg); break;
		case 'w': a->wait_ms = atoi(optarg); break;
		case 'n': a->no_wait = true; break;
		case 'u': a->unsubscribe = true; break;
		case 'S': a->issm = true; break;
		case 'h': usage(stdout); exit(0);
		default: usage(stderr); return -1;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return -1;
	}
	return 0;
}

/* The InformInfo Set: generic traps a->trap from any issuer, to our QP1. */
static void build(const struct args *a, ib_sa_mad_t *m)
{
	ib_inform_info_t *ii = (ib_inform_info_t *)m->data;

	memset(m, 0, sizeof(*m));
	m->base_ver = 1;
	m->mgmt_class = IB_MCLASS_SUBN_ADM;
	m->class_ver = SA_CLASS_VERSION;
	m->method = IB_MAD_METHOD_SET;
	m->trans_id = cl_hton64(((uint64_t)getpid() << 32) | (uint32_t)time(NULL));
	m->attr_id = IB_MAD_ATTR_INFORM_INFO;
	ii->lid_range_begin = cl_hton16(0xffff); /* every issuer */
	ii->is_generic = 1;
	ii->subscribe = a->unsubscribe ? 0 : 1;
	ii->trap_type = cl_hton16(0xffff);
	ii->g_or_v.generic.trap_num = cl_hton16(a->trap);
	/* QPN 1 in the top 24 bits; RespTimeValue 18 (about 1 s) in the low 5. */
	ii->g_or_v.generic.qpn_resp_time_val = cl_hton32(1u << 8 | 18);
	ii->g_or_v.generic.node_type_msb = 0xff; /* any producer */
	ii->g_or_v.generic.node_type_lsb = cl_hton16(0xffff);
}

static long elapsed_ms(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000 + (t.tv_nsec - t0->tv_nsec) / 1000000;
}

static void print_report(const ib_sa_mad_t *m, uint16_t slid)
{
	const ib_mad_notice_attr_t *n = (const ib_mad_notice_attr_t *)m->data;
	char gid[INET6_ADDRSTRLEN], issuer[INET6_ADDRSTRLEN];
	uint32_t prod = (uint32_t)n->g_or_v.generic.prod_type_msb << 16 |
			cl_ntoh16(n->g_or_v.generic.prod_type_lsb);

	inet_ntop(AF_INET6, n->data_details.ntc_64_67.gid.raw, gid, sizeof(gid));
	inet_ntop(AF_INET6, n->issuer_gid.raw, issuer, sizeof(issuer));
	printf("report trap %u generic %u type %u producer %u issuer_lid %u issuer_gid %s "
	       "gid %s guid 0x%016" PRIx64 " from_lid %u\n",
	       cl_ntoh16(n->g_or_v.generic.trap_num), n->generic_type >> 7,
	       n->generic_type & 0x7f, prod, cl_ntoh16(n->issuer_lid), issuer, gid,
	       cl_ntoh64(n->data_details.ntc_64_67.gid.unicast.interface_id), slid);
	fflush(stdout);
}

/* Answer a Report: ReportResp, same TID and Notice, back to the sender's QP1. */
static void report_resp(int fd, int agent, void *umad, int pki)
{
	ib_sa_mad_t *m = umad_get_mad(umad);
	ib_mad_addr_t *addr = umad_get_mad_addr(umad);
	uint16_t lid = cl_ntoh16(addr->lid);

	m->method = IB_MAD_METHOD_REPORT_RESP;
	m->status = 0;
	umad_set_addr(umad, lid, 1, addr->sl, SA_QKEY);
	umad_set_pkey(umad, pki);
	if (umad_send(fd, agent, umad, sizeof(*m), 0, 0) < 0)
		fprintf(stderr, "sasub: ReportResp to LID %u: %s\n", lid, strerror(errno));
}

/* Wait for a Report; everything else that arrives is skipped. 0, or 3 on timeout. */
static int wait_report(const struct args *a, int fd, int agent, void *umad, int pki)
{
	struct timespec t0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		ib_sa_mad_t *m = umad_get_mad(umad);
		long left = a->wait_ms - elapsed_ms(&t0);
		int len = sizeof(*m);

		if (left <= 0)
			return 3;
		if (umad_recv(fd, umad, &len, (int)left) < 0 || umad_status(umad))
			continue;
		if (m->mgmt_class != IB_MCLASS_SUBN_ADM || m->method != IB_MAD_METHOD_REPORT ||
		    m->attr_id != IB_MAD_ATTR_NOTICE)
			continue;
		print_report(m, cl_ntoh16(umad_get_mad_addr(umad)->lid));
		report_resp(fd, agent, umad, pki);
		return 0;
	}
}

int main(int argc, char **argv)
{
	struct args a = { .port = 0, .trap = 0xffff, .timeout_ms = 2000, .wait_ms = 30000 };
	long mask[16 / sizeof(long)] = { 0 };
	umad_port_t port;
	void *umad;
	ib_sa_mad_t *m;
	int fd, agent, len, status, pki = 0;

	if (parse_args(argc, argv, &a) < 0)
		return 2;
	if (umad_init() < 0 || umad_get_port(a.ca, a.port, &port) < 0) {
		fprintf(stderr, "sasub: cannot open %s port %d: is the CA there?\n",
			a.ca ? a.ca : "(first CA)", a.port);
		return 2;
	}
	for (int i = 0; i < (int)port.pkeys_size; i++)
		if ((port.pkeys[i] & 0x7fff) == 0x7fff) {
			pki = i;
			break;
		}
	/* Unsolicited Reports reach only an agent that registered for the method. */
	mask[IB_MAD_METHOD_REPORT / (8 * sizeof(long))] |=
		1L << (IB_MAD_METHOD_REPORT % (8 * sizeof(long)));
	if (a.issm) {
		char path[256];

		if (umad_get_issm_path(port.ca_name, port.portnum, path, sizeof(path)) < 0 ||
		    open(path, O_RDWR) < 0) {
			fprintf(stderr, "sasub: %s port %d: cannot hold issm\n", port.ca_name,
				port.portnum);
			return 2;
		}
	}
	fd = umad_open_port(port.ca_name, port.portnum);
	/*
	 * Holding issm makes the port an SM's (CapabilityMask IsSM): an SM may
	 * send it SMInfo, and umad2sim crashes on a MAD no agent takes. Agents
	 * for both SMP classes take them; they are read and ignored.
	 */
	if (a.issm && fd >= 0 && (umad_register(fd, IB_MCLASS_SUBN_LID, 1, 0, NULL) < 0 ||
				  umad_register(fd, IB_MCLASS_SUBN_DIR, 1, 0, NULL) < 0)) {
		fprintf(stderr, "sasub: %s port %d: cannot register SMP agents\n", port.ca_name,
			port.portnum);
		return 2;
	}
	agent = fd < 0 ? -1 : umad_register(fd, IB_MCLASS_SUBN_ADM, SA_CLASS_VERSION, 0, mask);
	umad = umad_alloc(1, umad_size() + sizeof(ib_sa_mad_t));
	if (fd < 0 || agent < 0 || !umad) {
		fprintf(stderr, "sasub: %s port %d: cannot register an SA client\n", port.ca_name,
			port.portnum);
		return 2;
	}
	m = umad_get_mad(umad);
	build(&a, m);
	umad_set_addr(umad, port.sm_lid, 1, 0, SA_QKEY);
	umad_set_pkey(umad, pki);
	if (umad_send(fd, agent, umad, sizeof(*m), a.timeout_ms, 2) < 0) {
		fprintf(stderr, "sasub: send to the SA (LID %u): %s\n", port.sm_lid, strerror(errno));
		return 2;
	}
	for (;;) {
		len = sizeof(*m);
		if (umad_recv(fd, umad, &len, a.timeout_ms * 3) < 0 || umad_status(umad)) {
			fprintf(stderr, "sasub: no answer from the SA at LID %u\n", port.sm_lid);
			return 2;
		}
		if (m->method == IB_MAD_METHOD_GET_RESP)
			break; /* a Report before the answer is possible but not wanted here */
	}
	status = cl_ntoh16(m->status);
	if (status) {
		fprintf(stderr, "sasub: the SA answered status 0x%04x\n", status);
		return 1;
	}
	printf("%s trap 0x%04x\n", a.unsubscribe ? "unsubscribed" : "subscribed", a.trap);
	fflush(stdout);
	status = a.unsubscribe || a.no_wait ? 0 : wait_report(&a, fd, agent, umad, pki);
	if (status == 3)
		fprintf(stderr, "sasub: no Report within %d ms\n", a.wait_ms);
	umad_release_port(&port);
	return status;
}
