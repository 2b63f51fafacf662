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
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tests/rig/sa_client.h"

#define USAGE "usage: sasub [--ca NAME] [--port N] [--trap N] [--timeout MS] [--wait MS]\n" \
	      "             [--no-wait | --unsubscribe] [--issm]\n"

struct args {
	struct sa_client_opts co;
	uint16_t trap;
	int wait_ms;
	bool no_wait, unsubscribe, issm;
};

/* Its own options; --ca, --port, --timeout and --help are sa_client_parse's. */
static const struct option opts[] = {
	{ "trap", required_argument, NULL, 'T' }, { "wait", required_argument, NULL, 'w' },
	{ "no-wait", no_argument, NULL, 'n' },	  { "unsubscribe", no_argument, NULL, 'u' },
	{ "issm", no_argument, NULL, 'S' },	  {}
};

/* The InformInfo Set: generic traps a->trap from any issuer, to our QP1. */
static size_t build(const struct args *a, struct sa_client *c)
{
	ib_sa_mad_t *m = sa_client_req(c, IB_MAD_METHOD_SET, IB_MAD_ATTR_INFORM_INFO,
				       sa_client_tid());
	ib_inform_info_t *ii = (ib_inform_info_t *)m->data;

	ii->lid_range_begin = cl_hton16(0xffff); /* every issuer */
	ii->is_generic = 1;
	ii->subscribe = a->unsubscribe ? 0 : 1;
	ii->trap_type = cl_hton16(0xffff);
	ii->g_or_v.generic.trap_num = cl_hton16(a->trap);
	/* QPN 1 in the top 24 bits; RespTimeValue 18 (about 1 s) in the low 5. */
	ii->g_or_v.generic.qpn_resp_time_val = cl_hton32(1u << 8 | 18);
	ii->g_or_v.generic.node_type_msb = 0xff; /* any producer */
	ii->g_or_v.generic.node_type_lsb = cl_hton16(0xffff);
	return sizeof(*m);
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
static void report_resp(struct sa_client *c)
{
	ib_sa_mad_t *m = sa_client_mad(c);
	ib_mad_addr_t *addr = umad_get_mad_addr(c->umad);
	uint16_t lid = cl_ntoh16(addr->lid);

	m->method = IB_MAD_METHOD_REPORT_RESP;
	m->status = 0;
	umad_set_addr(c->umad, lid, 1, addr->sl, SA_CLIENT_QKEY);
	umad_set_pkey(c->umad, c->pki);
	if (umad_send(c->fd, c->agent, c->umad, sizeof(*m), 0, 0) < 0)
		fprintf(stderr, "sasub: ReportResp to LID %u: %s\n", lid, strerror(errno));
}

/* Wait for a Report; everything else that arrives is skipped. 0, or 3 on timeout. */
static int wait_report(const struct args *a, struct sa_client *c)
{
	struct timespec t0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		ib_sa_mad_t *m = sa_client_mad(c);
		long left = a->wait_ms - elapsed_ms(&t0);
		int len = sizeof(*m);

		if (left <= 0)
			return 3;
		if (umad_recv(c->fd, c->umad, &len, (int)left) < 0 || umad_status(c->umad))
			continue;
		if (m->mgmt_class != IB_MCLASS_SUBN_ADM || m->method != IB_MAD_METHOD_REPORT ||
		    m->attr_id != IB_MAD_ATTR_NOTICE)
			continue;
		print_report(m, cl_ntoh16(umad_get_mad_addr(c->umad)->lid));
		report_resp(c);
		return 0;
	}
}

static int opt(int c, void *arg)
{
	struct args *a = arg;

	switch (c) {
	case 'T': a->trap = (uint16_t)strtoul(optarg, NULL, 0); break;
	case 'w': a->wait_ms = atoi(optarg); break;
	case 'n': a->no_wait = true; break;
	case 'u': a->unsubscribe = true; break;
	case 'S': a->issm = true; break;
	}
	return 0;
}

static const struct sa_client_cli cli = { USAGE, opts, opt, 0 };

int main(int argc, char **argv)
{
	struct args a = { .co = { .timeout_ms = 2000 }, .trap = 0xffff, .wait_ms = 30000 };
	long mask[16 / sizeof(long)] = { 0 };
	struct sa_client c;
	int status;

	if (sa_client_parse(&cli, argc, argv, &a.co, &a) < 0)
		return 2;
	/* Unsolicited Reports reach only an agent that registered for the method. */
	mask[IB_MAD_METHOD_REPORT / (8 * sizeof(long))] |=
		1L << (IB_MAD_METHOD_REPORT % (8 * sizeof(long)));
	status = sa_client_open(&c, "sasub", &a.co,
				&(struct sa_client_how){ .issm = a.issm, .methods = mask });
	if (!status)
		status = sa_client_ask(&c, build(&a, &c), IB_MAD_METHOD_GET_RESP, NULL);
	if (status) {
		sa_client_close(&c);
		return status;
	}
	printf("%s trap 0x%04x\n", a.unsubscribe ? "unsubscribed" : "subscribed", a.trap);
	fflush(stdout);
	status = a.unsubscribe || a.no_wait ? 0 : wait_report(&a, &c);
	if (status == 3)
		fprintf(stderr, "sasub: no Report within %d ms\n", a.wait_ms);
	sa_client_close(&c);
	return status;
}
