/* SPDX-License-Identifier: MIT */
/*
 * saservice: register or deregister a service through the SA, as an
 * application announcing itself would (IBA 15.2.5.14 ServiceRecord,
 * SubnAdmSet / SubnAdmDelete). A test-rig tool like sasub: on the
 * simulator SIM_HOST picks the host; it speaks to whichever SM holds the
 * port's SMLID, OpenSM as the reference, loomd as the subject.
 *
 *   saservice [--ca NAME] [--port N] [--timeout MS] --id ID --name NAME
 *             [--lease S] [--pkey P] [--guid G] [--key BYTE] [--delete]
 *
 * The service's GID is this port's (--guid G: that port GUID under this
 * port's subnet prefix). --lease S: ServiceLease in seconds (default
 * 0xFFFFFFFF, indefinite). --pkey P: give ServiceP_Key (else the mask
 * leaves it out). --key BYTE: ServiceKey[0]. --delete: deregister the
 * record with that ServiceID, GID and P_Key (its RID).
 * Prints one line with what the SA answered ("registered ..." or
 * "deleted ...": ServiceID, name, lease, P_Key). Exit 0 on success, 1 if
 * the SA refused (status printed), 2 if it did not answer or the port
 * cannot be used.
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
#define SA_CLASS_VERSION 2

struct args {
	const char *ca, *name;
	int port, timeout_ms;
	uint64_t id, guid;
	uint32_t lease;
	int pkey; /* -1: not given */
	uint8_t key;
	bool have_id, del;
};

static void usage(FILE *f)
{
	fprintf(f, "usage: saservice [--ca NAME] [--port N] [--timeout MS] --id ID --name NAME\n"
		   "                 [--lease S] [--pkey P] [--guid G] [--key BYTE] [--delete]\n");
}

static int parse_args(int argc, char **argv, struct args *a)
{
	static const struct option opts[] = {
		{ "ca", required_argument, NULL, 'C' },	   { "port", required_argument, NULL, 'P' },
		{ "timeout", required_argument, NULL, 't' }, { "id", required_argument, NULL, 'i' },
		{ "name", required_argument, NULL, 'n' },  { "lease", required_argument, NULL, 'l' },
		{ "pkey", required_argument, NULL, 'k' },  { "guid", required_argument, NULL, 'g' },
		{ "key", required_argument, NULL, 'K' },   { "delete", no_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	int c;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'C': a->ca = optarg; break;
		case 'P': a->port = atoi(optarg); break;
		case 't': a->timeout_ms = atoi(optarg); break;
		case 'i': a->id = strtoull(optarg, NULL, 0); a->have_id = true; break;
		case 'n': a->name = optarg; break;
		case 'l': a->lease = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'k': a->pkey = (int)(strtoul(optarg, NULL, 0) & 0xffff); break;
		case 'g': a->guid = strtoull(optarg, NULL, 0); break;
		case 'K': a->key = (uint8_t)strtoul(optarg, NULL, 0); break;
		case 'd': a->del = true; break;
		case 'h': usage(stdout); exit(0);
		default: usage(stderr); return -1;
		}
	}
	if (optind != argc || !a->have_id || !a->name || strlen(a->name) >= 64) {
		usage(stderr);
		return -1;
	}
	return 0;
}

/* The Set or Delete: ServiceID, GID, lease, key and name given; the P_Key if asked. */
static void build(const struct args *a, const umad_port_t *port, ib_sa_mad_t *m)
{
	ib_service_record_t *r = (ib_service_record_t *)m->data;
	uint64_t mask = IB_SR_COMPMASK_SID | IB_SR_COMPMASK_SGID | IB_SR_COMPMASK_SLEASE |
			IB_SR_COMPMASK_SKEY | IB_SR_COMPMASK_SNAME;

	memset(m, 0, sizeof(*m));
	m->base_ver = 1;
	m->mgmt_class = IB_MCLASS_SUBN_ADM;
	m->class_ver = SA_CLASS_VERSION;
	m->method = a->del ? IB_MAD_METHOD_DELETE : IB_MAD_METHOD_SET;
	m->trans_id = cl_hton64(((uint64_t)getpid() << 32) | (uint32_t)time(NULL));
	m->attr_id = IB_MAD_ATTR_SERVICE_RECORD;
	r->service_id = cl_hton64(a->id);
	r->service_gid.unicast.prefix = port->gid_prefix;
	r->service_gid.unicast.interface_id = a->guid ? cl_hton64(a->guid) : port->port_guid;
	r->service_lease = cl_hton32(a->lease);
	r->service_key[0] = a->key;
	memcpy(r->service_name, a->name, strlen(a->name));
	if (a->pkey >= 0) {
		r->service_pkey = cl_hton16((uint16_t)a->pkey);
		mask |= IB_SR_COMPMASK_SPKEY;
	}
	m->comp_mask = mask; /* the IB_SR_COMPMASK_* are network order already */
}

int main(int argc, char **argv)
{
	struct args a = { .timeout_ms = 2000, .lease = 0xffffffff, .pkey = -1 };
	umad_port_t port;
	void *umad;
	ib_sa_mad_t *m;
	const ib_service_record_t *r;
	int fd, agent, len, status, pki = 0;

	if (parse_args(argc, argv, &a) < 0)
		return 2;
	if (umad_init() < 0 || umad_get_port(a.ca, a.port, &port) < 0) {
		fprintf(stderr, "saservice: cannot open %s port %d: is the CA there?\n",
			a.ca ? a.ca : "(first CA)", a.port);
		return 2;
	}
	for (int i = 0; i < (int)port.pkeys_size; i++)
		if ((port.pkeys[i] & 0x7fff) == 0x7fff) {
			pki = i;
			break;
		}
	fd = umad_open_port(port.ca_name, port.portnum);
	agent = fd < 0 ? -1 : umad_register(fd, IB_MCLASS_SUBN_ADM, SA_CLASS_VERSION, 0, NULL);
	umad = umad_alloc(1, umad_size() + sizeof(ib_sa_mad_t));
	if (fd < 0 || agent < 0 || !umad) {
		fprintf(stderr, "saservice: %s port %d: cannot register an SA client\n", port.ca_name,
			port.portnum);
		return 2;
	}
	m = umad_get_mad(umad);
	build(&a, &port, m);
	umad_set_addr(umad, port.sm_lid, 1, 0, SA_QKEY);
	umad_set_pkey(umad, pki);
	if (umad_send(fd, agent, umad, sizeof(*m), a.timeout_ms, 2) < 0) {
		fprintf(stderr, "saservice: send to the SA (LID %u): %s\n", port.sm_lid,
			strerror(errno));
		return 2;
	}
	for (;;) {
		len = sizeof(*m);
		if (umad_recv(fd, umad, &len, a.timeout_ms * 3) < 0 || umad_status(umad)) {
			fprintf(stderr, "saservice: no answer from the SA at LID %u\n", port.sm_lid);
			return 2;
		}
		if (m->method & IB_MAD_METHOD_RESP_MASK)
			break;
	}
	status = cl_ntoh16(m->status);
	if (status) {
		fprintf(stderr, "saservice: the SA answered status 0x%04x\n", status);
		return 1;
	}
	r = (const ib_service_record_t *)m->data;
	printf("%s id 0x%016" PRIx64 " name %.64s lease %u pkey 0x%04x\n",
	       a.del ? "deleted" : "registered", cl_ntoh64(r->service_id),
	       (const char *)r->service_name, cl_ntoh32(r->service_lease),
	       cl_ntoh16(r->service_pkey));
	umad_release_port(&port);
	return 0;
}
