/* SPDX-License-Identifier: MIT */
/*
 * sampr: ask the SA for the paths between sets of ports with one
 * MultiPathRecord (IBA 15.2.5.20, SubnAdmGetMulti), as an MPI launcher
 * might: every source GID to every destination GID. With more GIDs than
 * fit one MAD (11) the request itself is an RMPP message: the kernel (the
 * rig's shim on the simulator) cuts it into segments, and the SA gets it
 * back whole. A test-rig tool like sasub and mcjoin.
 *
 *   sampr [--ca NAME] [--port N] [--timeout MS] --src GUID[,GUID...]
 *         --dst GUID[,GUID...]
 *
 * GUIDs are port GUIDs (hex); the GIDs use the default subnet prefix.
 * Prints one line per PathRecord answered, "path SGID DGID slid N dlid N
 * sl N mtu N", then "paths N". Exit 0 on an answer, 1 if the SA refused
 * (status printed), 2 if it did not answer or the port cannot be used.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/umad.h>
#include <iba/ib_types.h>

#define SA_QKEY 0x80010000u
#define SA_CLASS_VERSION 2
#define MAX_GIDS 255 /* SGIDCount and DGIDCount are 8 bits each */
#define ANSWER_MAX (1 << 20)
/* IBA 15.2.5.20: MultiPathRecord component mask bits of the two counts. */
#define MPR_SGID_COUNT (1ULL << 19)
#define MPR_DGID_COUNT (1ULL << 20)

struct args {
	const char *ca;
	int port, timeout_ms;
	uint64_t src[MAX_GIDS], dst[MAX_GIDS];
	unsigned n_src, n_dst;
};

static void usage(FILE *f)
{
	fprintf(f, "usage: sampr [--ca NAME] [--port N] [--timeout MS] --src GUID[,GUID...]\n"
		   "             --dst GUID[,GUID...]\n");
}

static int parse_guids(const char *s, uint64_t *out, unsigned *n)
{
	char *end;

	for (;;) {
		if (*n == MAX_GIDS)
			return -1;
		errno = 0;
		out[(*n)++] = strtoull(s, &end, 16);
		if (errno || end == s)
			return -1;
		if (!*end)
			return 0;
		if (*end != ',')
			return -1;
		s = end + 1;
	}
}

static int parse_args(int argc, char **argv, struct args *a)
{
	static const struct option lo[] = {
		{ "ca", required_argument, NULL, 'C' },	     { "port", required_argument, NULL, 'P' },
		{ "timeout", required_argument, NULL, 't' }, { "src", required_argument, NULL, 's' },
		{ "dst", required_argument, NULL, 'd' },     { "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'C': a->ca = optarg; break;
		case 'P': a->port = atoi(optarg); break;
		case 't': a->timeout_ms = atoi(optarg); break;
		case 's':
			if (parse_guids(optarg, a->src, &a->n_src) < 0)
				goto bad;
			break;
		case 'd':
			if (parse_guids(optarg, a->dst, &a->n_dst) < 0)
				goto bad;
			break;
		case 'h': usage(stdout); exit(0);
		default: usage(stderr); return -1;
		}
	}
	if (!a->n_src || !a->n_dst || a->timeout_ms <= 0) {
		usage(stderr);
		return -1;
	}
	return 0;
bad:
	fprintf(stderr, "sampr: '%s': not a list of hex GUIDs (at most %d)\n", optarg, MAX_GIDS);
	return -1;
}

static void gid_of(uint64_t guid, ib_gid_t *g)
{
	g->unicast.prefix = cl_hton64(0xfe80000000000000ULL);
	g->unicast.interface_id = cl_hton64(guid);
}

/* The request: SA header, the record's 24-byte head, then the GIDs. Its length. */
static size_t build(const struct args *a, uint8_t *buf)
{
	ib_sa_mad_t *m = (ib_sa_mad_t *)buf;
	ib_multipath_rec_t *r = (ib_multipath_rec_t *)m->data;
	size_t len = IB_SA_MAD_HDR_SIZE + offsetof(ib_multipath_rec_t, gids) +
		     (a->n_src + a->n_dst) * sizeof(ib_gid_t);
	unsigned i;

	m->base_ver = 1;
	m->mgmt_class = IB_MCLASS_SUBN_ADM;
	m->class_ver = SA_CLASS_VERSION;
	m->method = IB_MAD_METHOD_GETMULTI;
	m->trans_id = cl_hton64(0x5a3d0000ULL | (uint64_t)(rand() & 0xffff));
	m->attr_id = IB_MAD_ATTR_MULTIPATH_RECORD;
	m->comp_mask = cl_hton64(MPR_SGID_COUNT | MPR_DGID_COUNT);
	r->sgid_count = (uint8_t)a->n_src;
	r->dgid_count = (uint8_t)a->n_dst;
	for (i = 0; i < a->n_src; i++)
		gid_of(a->src[i], (ib_gid_t *)((uint8_t *)r->gids + i * sizeof(ib_gid_t)));
	for (i = 0; i < a->n_dst; i++)
		gid_of(a->dst[i], (ib_gid_t *)((uint8_t *)r->gids + (a->n_src + i) * sizeof(ib_gid_t)));
	/*
	 * GetMulti is an RMPP request even when it fits one MAD (IBA 15.2.5.20;
	 * OpenSM refuses it otherwise): the layer below segments it (IBA 13.6).
	 */
	m->rmpp_version = 1;
	m->rmpp_type = IB_RMPP_TYPE_DATA;
	m->rmpp_flags = IB_RMPP_FLAG_ACTIVE;
	return len < MAD_BLOCK_SIZE ? MAD_BLOCK_SIZE : len;
}

int main(int argc, char **argv)
{
	struct args a = { .timeout_ms = 5000 };
	umad_port_t port;
	uint8_t *umad;
	ib_sa_mad_t *m;
	int fd, agent, len, status, pki = 0;
	size_t req_len, n;
	unsigned paths = 0;

	if (parse_args(argc, argv, &a) < 0)
		return 2;
	if (umad_init() < 0 || umad_get_port(a.ca, a.port, &port) < 0) {
		fprintf(stderr, "sampr: cannot open %s port %d: is the CA there?\n",
			a.ca ? a.ca : "(first CA)", a.port);
		return 2;
	}
	for (int i = 0; i < (int)port.pkeys_size; i++)
		if ((port.pkeys[i] & 0x7fff) == 0x7fff) {
			pki = i;
			break;
		}
	fd = umad_open_port(port.ca_name, port.portnum);
	/* rmpp_version 1: the kernel segments our request and glues the answer. */
	agent = fd < 0 ? -1 : umad_register(fd, IB_MCLASS_SUBN_ADM, SA_CLASS_VERSION, 1, NULL);
	umad = umad_alloc(1, umad_size() + ANSWER_MAX);
	if (fd < 0 || agent < 0 || !umad) {
		fprintf(stderr, "sampr: %s port %d: cannot register an SA client\n", port.ca_name,
			port.portnum);
		return 2;
	}
	memset(umad, 0, umad_size() + ANSWER_MAX);
	m = umad_get_mad(umad);
	req_len = build(&a, (uint8_t *)m);
	umad_set_addr(umad, port.sm_lid, 1, 0, SA_QKEY);
	umad_set_pkey(umad, pki);
	if (umad_send(fd, agent, umad, (int)req_len, a.timeout_ms, 2) < 0) {
		fprintf(stderr, "sampr: send to the SA (LID %u): %s\n", port.sm_lid, strerror(errno));
		return 2;
	}
	for (;;) {
		len = ANSWER_MAX;
		if (umad_recv(fd, umad, &len, a.timeout_ms * 3) < 0 || umad_status(umad)) {
			fprintf(stderr, "sampr: no answer from the SA at LID %u\n", port.sm_lid);
			return 2;
		}
		if (m->method == (IB_MAD_METHOD_GETMULTI | IB_MAD_METHOD_RESP_MASK))
			break;
	}
	status = cl_ntoh16(m->status);
	if (status) {
		fprintf(stderr, "sampr: the SA answered status 0x%04x\n", status);
		return 1;
	}
	n = len > (int)IB_SA_MAD_HDR_SIZE ? ((size_t)len - IB_SA_MAD_HDR_SIZE) / sizeof(ib_path_rec_t) : 0;
	for (size_t i = 0; i < n; i++) {
		const ib_path_rec_t *p = (const ib_path_rec_t *)(m->data + i * sizeof(*p));
		char s[INET6_ADDRSTRLEN], d[INET6_ADDRSTRLEN];

		if (!p->slid)
			continue; /* the last segment's padding */
		inet_ntop(AF_INET6, p->sgid.raw, s, sizeof(s));
		inet_ntop(AF_INET6, p->dgid.raw, d, sizeof(d));
		printf("path %s %s slid %u dlid %u sl %u mtu %u\n", s, d, cl_ntoh16(p->slid),
		       cl_ntoh16(p->dlid), ib_path_rec_sl(p), p->mtu & 0x3f);
		paths++;
	}
	printf("paths %u\n", paths);
	umad_release_port(&port);
	return 0;
}
