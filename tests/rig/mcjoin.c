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
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <inttypes.h>
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
	const char *ca, *mgid;
	int port;
	uint8_t state;
	bool leave, create;
	uint16_t pkey;
	uint32_t qkey;
	int timeout_ms;
};

static void usage(FILE *f)
{
	fprintf(f, "usage: mcjoin [--ca NAME] [--port N] [--state full|non|sendonly] [--leave]\n"
		   "              [--create] [--pkey P] [--qkey Q] [--timeout MS] MGID\n");
}

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

static int parse_args(int argc, char **argv, struct args *a)
{
	static const struct option opts[] = {
		{ "ca", required_argument, NULL, 'C' },	  { "port", required_argument, NULL, 'P' },
		{ "state", required_argument, NULL, 's' }, { "leave", no_argument, NULL, 'l' },
		{ "create", no_argument, NULL, 'c' },	  { "pkey", required_argument, NULL, 'k' },
		{ "qkey", required_argument, NULL, 'q' },  { "timeout", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },	  {}
	};
	int c;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'C': a->ca = optarg; break;
		case 'P': a->port = atoi(optarg); break;
		case 's':
			if (parse_state(optarg, &a->state) < 0) {
				fprintf(stderr, "mcjoin: --state '%s': want full, non or sendonly\n",
					optarg);
				return -1;
			}
			break;
		case 'l': a->leave = true; break;
		case 'c': a->create = true; break;
		case 'k': a->pkey = (uint16_t)strtoul(optarg, NULL, 0); break;
		case 'q': a->qkey = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 't': a->timeout_ms = atoi(optarg); break;
		case 'h': usage(stdout); exit(0);
		default: usage(stderr); return -1;
		}
	}
	if (optind != argc - 1) {
		usage(stderr);
		return -1;
	}
	a->mgid = argv[optind];
	return 0;
}

/* The request: the member record and the components that say what it asks. */
static void build(const struct args *a, const umad_port_t *port, ib_sa_mad_t *m)
{
	ib_member_rec_t *r = (ib_member_rec_t *)m->data;
	uint64_t mask = IB_MCR_COMPMASK_MGID | IB_MCR_COMPMASK_PORT_GID |
			IB_MCR_COMPMASK_JOIN_STATE;

	memset(m, 0, sizeof(*m));
	m->base_ver = 1;
	m->mgmt_class = IB_MCLASS_SUBN_ADM;
	m->class_ver = SA_CLASS_VERSION;
	m->method = a->leave ? IB_MAD_METHOD_DELETE : IB_MAD_METHOD_SET;
	m->trans_id = cl_hton64(((uint64_t)getpid() << 32) | (uint32_t)time(NULL));
	m->attr_id = IB_MAD_ATTR_MCMEMBER_RECORD;
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

/* The index of P_Key pkey (full or limited) in the port's table, or -1. */
static int pkey_index(const umad_port_t *port, uint16_t pkey)
{
	for (int i = 0; i < (int)port->pkeys_size; i++)
		if ((port->pkeys[i] & 0x7fff) == (pkey & 0x7fff))
			return i;
	return -1;
}

int main(int argc, char **argv)
{
	struct args a = { .port = 0, .state = 1, .pkey = 0xffff, .qkey = 0x0b1b,
			  .timeout_ms = 2000 };
	umad_port_t port;
	void *umad;
	ib_sa_mad_t *m;
	int fd, agent, len, pki, status;

	if (parse_args(argc, argv, &a) < 0)
		return 2;
	if (umad_init() < 0 || umad_get_port(a.ca, a.port, &port) < 0) {
		fprintf(stderr, "mcjoin: cannot open %s port %d: is the CA there?\n",
			a.ca ? a.ca : "(first CA)", a.port);
		return 2;
	}
	pki = pkey_index(&port, a.pkey);
	if (pki < 0) {
		fprintf(stderr, "mcjoin: P_Key 0x%04x is not in the port's table\n", a.pkey);
		return 2;
	}
	fd = umad_open_port(port.ca_name, port.portnum);
	agent = fd < 0 ? -1 : umad_register(fd, IB_MCLASS_SUBN_ADM, SA_CLASS_VERSION, 0, NULL);
	umad = umad_alloc(1, umad_size() + sizeof(ib_sa_mad_t));
	if (fd < 0 || agent < 0 || !umad) {
		fprintf(stderr, "mcjoin: %s port %d: cannot register an SA client\n", port.ca_name,
			port.portnum);
		return 2;
	}
	m = umad_get_mad(umad);
	build(&a, &port, m);
	umad_set_addr(umad, port.sm_lid, 1, 0, SA_QKEY);
	umad_set_pkey(umad, pki);
	if (umad_send(fd, agent, umad, sizeof(*m), a.timeout_ms, 2) < 0) {
		fprintf(stderr, "mcjoin: send to the SA (LID %u): %s\n", port.sm_lid,
			strerror(errno));
		return 2;
	}
	len = sizeof(*m);
	if (umad_recv(fd, umad, &len, a.timeout_ms * 3) < 0 || umad_status(umad)) {
		fprintf(stderr, "mcjoin: no answer from the SA at LID %u\n", port.sm_lid);
		return 2;
	}
	status = cl_ntoh16(m->status);
	if (status) {
		fprintf(stderr, "mcjoin: the SA answered status 0x%04x\n", status);
		return 1;
	}
	print_rec(m);
	umad_release_port(&port);
	return 0;
}
