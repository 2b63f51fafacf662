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

#include "tests/rig/sa_client.h"

#define USAGE "usage: sampr [--ca NAME] [--port N] [--timeout MS] --src GUID[,GUID...]\n" \
	      "             --dst GUID[,GUID...]\n"

#define MAX_GIDS 255 /* SGIDCount and DGIDCount are 8 bits each */
#define ANSWER_MAX (1 << 20)
/* IBA 15.2.5.20: MultiPathRecord component mask bits of the two counts. */
#define MPR_SGID_COUNT (1ULL << 19)
#define MPR_DGID_COUNT (1ULL << 20)

struct args {
	struct sa_client_opts co;
	uint64_t src[MAX_GIDS], dst[MAX_GIDS];
	unsigned n_src, n_dst;
};

/* Its own options; --ca, --port, --timeout and --help are sa_client_parse's. */
static const struct option opts[] = {
	{ "src", required_argument, NULL, 's' },
	{ "dst", required_argument, NULL, 'd' },
	{ NULL, 0, NULL, 0 },
};

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

static void gid_of(uint64_t guid, ib_gid_t *g)
{
	g->unicast.prefix = cl_hton64(0xfe80000000000000ULL);
	g->unicast.interface_id = cl_hton64(guid);
}

/* The request: SA header, the record's 24-byte head, then the GIDs. Its length. */
static size_t build(const struct args *a, struct sa_client *c)
{
	ib_sa_mad_t *m = sa_client_req(c, IB_MAD_METHOD_GETMULTI, IB_MAD_ATTR_MULTIPATH_RECORD,
				       0x5a3d0000ULL | (uint64_t)(rand() & 0xffff));
	ib_multipath_rec_t *r = (ib_multipath_rec_t *)m->data;
	size_t len = IB_SA_MAD_HDR_SIZE + offsetof(ib_multipath_rec_t, gids) +
		     (a->n_src + a->n_dst) * sizeof(ib_gid_t);
	unsigned i;

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

static int opt(int c, void *arg)
{
	struct args *a = arg;
	int r = 0;

	if (c == 's')
		r = parse_guids(optarg, a->src, &a->n_src);
	else if (c == 'd')
		r = parse_guids(optarg, a->dst, &a->n_dst);
	if (r < 0)
		fprintf(stderr, "sampr: '%s': not a list of hex GUIDs (at most %d)\n", optarg,
			MAX_GIDS);
	return r;
}

static const struct sa_client_cli cli = { USAGE, opts, opt, -1 };

int main(int argc, char **argv)
{
	struct args a = { .co = { .timeout_ms = 5000 } };
	struct sa_client c;
	const ib_sa_mad_t *m;
	int len, status;
	size_t n;
	unsigned paths = 0;

	if (sa_client_parse(&cli, argc, argv, &a.co, &a) < 0)
		return 2;
	if (!a.n_src || !a.n_dst || a.co.timeout_ms <= 0) {
		sa_client_misuse(&cli);
		return 2;
	}
	/* rmpp_version 1: the kernel segments our request and glues the answer. */
	status = sa_client_open(&c, "sampr", &a.co,
				&(struct sa_client_how){ .rmpp_version = 1, .cap = ANSWER_MAX });
	if (!status)
		status = sa_client_ask(&c, build(&a, &c),
				       IB_MAD_METHOD_GETMULTI | IB_MAD_METHOD_RESP_MASK, &len);
	if (status) {
		sa_client_close(&c);
		return status;
	}
	m = sa_client_mad(&c);
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
	sa_client_close(&c);
	return 0;
}
