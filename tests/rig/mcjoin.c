/* SPDX-License-Identifier: MIT */
/*
 * mcjoin: join or leave a multicast group through the SA, as a host's
 * IPoIB driver or an MPI library would (IBA 15.2.5.17 MCMemberRecord:
 * SubnAdmSet to join or create, SubnAdmDelete to leave), from the port it
 * runs on. A test-rig tool: on the simulator SIM_HOST picks the host, so a
 * test can join from several hosts and read the multicast tables back with
 * dump_mfts. It speaks to whichever SM holds the port's SMLID: OpenSM as
 * the reference, loomd as the subject.
 *
 *   mcjoin [--ca NAME] [--port N] [--state full|non|sendonly] [--leave]
 *          [--create] [--pkey P] [--qkey Q] [--timeout MS] MGID
 *
 * MGID in IPv6 notation (ff12:401b:ffff::ffff:ffff, IPoIB's IPv4
 * broadcast group of the default partition); with --create and MGID ::
 * the SA picks one. Prints the answer's record on one line; exit 0 on
 * success, 1 if the SA answered with an error status (printed), 2 if it
 * did not answer or the port cannot be used.
 */
#include <arpa/inet.h>
#include <getopt.h>
#include <stdbool.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/rig/sa_client.h"

#define USAGE "usage: mcjoin [--ca NAME] [--port N] [--state full|non|sendonly] [--leave]\n" \
	      "              [--create] [--pkey P] [--qkey Q] [--timeout MS] MGID\n"

struct args {
	struct sa_client_opts co;
	const char *mgid;
	uint8_t state;
	bool leave, create;
	uint16_t pkey;
	uint32_t qkey;
};

/* Its own options; --ca, --port, --timeout and --help are sa_client_parse's. */
static const struct option opts[] = {
	{ "state", required_argument, NULL, 's' }, { "leave", no_argument, NULL, 'l' },
	{ "create", no_argument, NULL, 'c' },	  { "pkey", required_argument, NULL, 'k' },
	{ "qkey", required_argument, NULL, 'q' },  {}
};

static int parse_state(const char *s, uint8_t *st)
{
	if (!strcmp(s, "full"))
		*st = 1;
	else if (!strcmp(s, "non"))
		*st = 2;
	else if (!strcmp(s, "sendonly"))
		*st = 4;
	else
		return -1;
	return 0;
}

/* The request: the member record and the components that say what it asks. */
static size_t build(const struct args *a, struct sa_client *c)
{
	ib_sa_mad_t *m = sa_client_req(c, a->leave ? IB_MAD_METHOD_DELETE : IB_MAD_METHOD_SET,
				       IB_MAD_ATTR_MCMEMBER_RECORD, sa_client_tid());
	ib_member_rec_t *r = (ib_member_rec_t *)m->data;
	const umad_port_t *port = &c->port;
	uint64_t mask = IB_MCR_COMPMASK_MGID | IB_MCR_COMPMASK_PORT_GID |
			IB_MCR_COMPMASK_JOIN_STATE;

	inet_pton(AF_INET6, a->mgid, r->mgid.raw);
	r->port_gid.unicast.prefix = port->gid_prefix;
	r->port_gid.unicast.interface_id = port->port_guid;
	r->scope_state = a->state;
	if (a->create) {
		/* IBA 15.2.5.17.1: creating a group takes its Q_Key, P_Key, SL,
		 * FlowLabel and TClass (and HopLimit) from the request. */
		r->qkey = cl_hton32(a->qkey);
		r->pkey = cl_hton16(a->pkey);
		r->sl_flow_hop = ib_member_set_sl_flow_hop(0, 0, 0);
		mask |= IB_MCR_COMPMASK_QKEY | IB_MCR_COMPMASK_PKEY | IB_MCR_COMPMASK_SL |
			IB_MCR_COMPMASK_FLOW | IB_MCR_COMPMASK_TCLASS | IB_MCR_COMPMASK_HOP;
	}
	m->comp_mask = mask;
	return sizeof(*m);
}

static void print_rec(const ib_sa_mad_t *m)
{
	const ib_member_rec_t *r = (const ib_member_rec_t *)m->data;
	char mgid[INET6_ADDRSTRLEN];
	uint8_t sl, hop;
	uint32_t flow;

	inet_ntop(AF_INET6, r->mgid.raw, mgid, sizeof(mgid));
	ib_member_get_sl_flow_hop(r->sl_flow_hop, &sl, &flow, &hop);
	printf("mgid %s mlid 0x%04x join_state 0x%x qkey 0x%08x pkey 0x%04x mtu %u rate %u "
	       "sl %u\n",
	       mgid, cl_ntoh16(r->mlid), r->scope_state & 0xf, cl_ntoh32(r->qkey),
	       cl_ntoh16(r->pkey), r->mtu & 0x3f, r->rate & 0x3f, sl);
}

static int opt(int c, void *arg)
{
	struct args *a = arg;

	switch (c) {
	case 's':
		if (parse_state(optarg, &a->state) < 0) {
			fprintf(stderr, "mcjoin: --state '%s': want full, non or sendonly\n", optarg);
			return -1;
		}
		break;
	case 'l': a->leave = true; break;
	case 'c': a->create = true; break;
	case 'k': a->pkey = (uint16_t)strtoul(optarg, NULL, 0); break;
	case 'q': a->qkey = (uint32_t)strtoul(optarg, NULL, 0); break;
	}
	return 0;
}

static const struct sa_client_cli cli = { USAGE, opts, opt, 1 };

int main(int argc, char **argv)
{
	struct args a = { .co = { .timeout_ms = 2000 }, .state = 1, .pkey = 0xffff, .qkey = 0x0b1b };
	struct sa_client c;
	int r;

	if (sa_client_parse(&cli, argc, argv, &a.co, &a) < 0)
		return 2;
	a.mgid = argv[optind];
	r = sa_client_open(&c, "mcjoin", &a.co, &(struct sa_client_how){ .pkey = a.pkey });
	if (!r)
		r = sa_client_ask(&c, build(&a, &c), 0, NULL);
	if (r) {
		sa_client_close(&c);
		return r;
	}
	print_rec(sa_client_mad(&c));
	sa_client_close(&c);
	return 0;
}
