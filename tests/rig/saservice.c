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
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/rig/sa_client.h"

#define USAGE "usage: saservice [--ca NAME] [--port N] [--timeout MS] --id ID --name NAME\n" \
	      "                 [--lease S] [--pkey P] [--guid G] [--key BYTE] [--delete]\n"

struct args {
	struct sa_client_opts co;
	const char *name;
	uint64_t id, guid;
	uint32_t lease;
	int pkey; /* -1: not given */
	uint8_t key;
	bool have_id, del;
};

/* Its own options; --ca, --port, --timeout and --help are sa_client_parse's. */
static const struct option opts[] = {
	{ "id", required_argument, NULL, 'i' },	  { "name", required_argument, NULL, 'n' },
	{ "lease", required_argument, NULL, 'l' }, { "pkey", required_argument, NULL, 'k' },
	{ "guid", required_argument, NULL, 'g' },  { "key", required_argument, NULL, 'K' },
	{ "delete", no_argument, NULL, 'd' },	  {}
};

/* The Set or Delete: ServiceID, GID, lease, key and name given; the P_Key if asked. */
static size_t build(const struct args *a, struct sa_client *c)
{
	ib_sa_mad_t *m = sa_client_req(c, a->del ? IB_MAD_METHOD_DELETE : IB_MAD_METHOD_SET,
				       IB_MAD_ATTR_SERVICE_RECORD, sa_client_tid());
	ib_service_record_t *r = (ib_service_record_t *)m->data;
	const umad_port_t *port = &c->port;
	uint64_t mask = IB_SR_COMPMASK_SID | IB_SR_COMPMASK_SGID | IB_SR_COMPMASK_SLEASE |
			IB_SR_COMPMASK_SKEY | IB_SR_COMPMASK_SNAME;

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
	return sizeof(*m);
}

static int opt(int c, void *arg)
{
	struct args *a = arg;

	switch (c) {
	case 'i': a->id = strtoull(optarg, NULL, 0); a->have_id = true; break;
	case 'n': a->name = optarg; break;
	case 'l': a->lease = (uint32_t)strtoul(optarg, NULL, 0); break;
	case 'k': a->pkey = (int)(strtoul(optarg, NULL, 0) & 0xffff); break;
	case 'g': a->guid = strtoull(optarg, NULL, 0); break;
	case 'K': a->key = (uint8_t)strtoul(optarg, NULL, 0); break;
	case 'd': a->del = true; break;
	}
	return 0;
}

static const struct sa_client_cli cli = { USAGE, opts, opt, 0 };

int main(int argc, char **argv)
{
	struct args a = { .co = { .timeout_ms = 2000 }, .lease = 0xffffffff, .pkey = -1 };
	struct sa_client c;
	const ib_service_record_t *r;
	int status;

	if (sa_client_parse(&cli, argc, argv, &a.co, &a) < 0)
		return 2;
	if (!a.have_id || !a.name || strlen(a.name) >= 64) {
		sa_client_misuse(&cli);
		return 2;
	}
	status = sa_client_open(&c, "saservice", &a.co, &(struct sa_client_how){ 0 });
	if (!status)
		status = sa_client_ask(&c, build(&a, &c), 0, NULL);
	if (status) {
		sa_client_close(&c);
		return status;
	}
	r = (const ib_service_record_t *)sa_client_mad(&c)->data;
	printf("%s id 0x%016" PRIx64 " name %.64s lease %u pkey 0x%04x\n",
	       a.del ? "deleted" : "registered", cl_ntoh64(r->service_id),
	       (const char *)r->service_name, cl_ntoh32(r->service_lease),
	       cl_ntoh16(r->service_pkey));
	sa_client_close(&c);
	return 0;
}
