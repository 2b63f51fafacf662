/* SPDX-License-Identifier: MIT */
/*
 * samirror: fetch the SA mirror a standby loomd keeps (sa/sa_mirror.h)
 * from the master's SA and print it, through the same code loomd runs:
 * mad/umad.c's SA agent (kernel RMPP; the rig's shim on the simulator) and
 * sa_mirror_fetch_run(). Usage:
 *
 *     samirror [-C CA] [-P PORT] [-l LID] [-k SM_KEY] [-t MS]
 *
 * LID: the master's (default: the port's SMLID); SM_KEY: the key the
 * requests carry (default 1, OpenSM's sa_key; loomd's sm-key). One line a
 * record, sorted, for the e2e tests to compare with saquery:
 *
 *     group MGID mlid 0xC000 qkey 0x... pkey 0x... mtu N rate N sl N life N scope N
 *     member MGID PORTGID state 0xN
 *     service ID GID pkey 0x... lease N name NAME
 *     sub SUBSCRIBERGID generic N trap N type N qpn N lid_begin N lid_end N producer 0x...
 *
 * then a summary line. Exit 0; 1 if the master refused (its status
 * printed); 2 if the port or the SA cannot be reached.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/umad.h>
#include <iba/ib_types.h>

#include "mad/umad.h"
#include "sa/sa_mirror.h"

static const char usage[] =
	"usage: samirror [-C CA] [-P PORT] [-l MASTER_LID] [-k SM_KEY] [-t TIMEOUT_MS]\n";

static void gid_str(const uint8_t g[16], char out[INET6_ADDRSTRLEN])
{
	inet_ntop(AF_INET6, g, out, INET6_ADDRSTRLEN);
}

/* A port's GID as saquery prints it: the subnet prefix the records showed, the GUID. */
static void port_gid(uint64_t prefix, uint64_t guid, char out[INET6_ADDRSTRLEN])
{
	uint64_t w[2] = { htobe64(prefix), htobe64(guid) };

	gid_str((const uint8_t *)w, out);
}

static void print_groups(const struct sa_mirror *m)
{
	char s[INET6_ADDRSTRLEN], p[INET6_ADDRSTRLEN];

	for (uint32_t i = 0; i < m->n_g; i++) {
		const struct mcast_group *g = &m->g[i];

		gid_str(g->mgid, s);
		printf("group %s mlid 0x%04X qkey 0x%08x pkey 0x%04x mtu %u rate %u sl %u life %u "
		       "scope %u members %u\n", s, g->mlid, g->qkey, g->pkey, g->mtu, g->rate, g->sl,
		       g->pkt_life, g->scope, g->n_m);
		for (uint32_t j = 0; j < g->n_m; j++) {
			port_gid(m->prefix, g->m[j].guid, p);
			printf("member %s %s state 0x%x\n", s, p, g->m[j].state);
		}
	}
}

static void print_services(const struct sa_mirror *m)
{
	char s[INET6_ADDRSTRLEN], name[65];

	for (uint32_t i = 0; i < m->n_svc; i++) {
		ib_service_record_t r;

		memcpy(&r, m->svc[i].wire, sizeof(r));
		gid_str(r.service_gid.raw, s);
		memcpy(name, r.service_name, 64);
		name[64] = 0;
		printf("service 0x%016" PRIx64 " %s pkey 0x%04x lease %u name %s\n",
		       be64toh(r.service_id), s, be16toh(r.service_pkey), be32toh(r.service_lease),
		       name);
	}
}

static void print_subs(const struct sa_mirror *m)
{
	char p[INET6_ADDRSTRLEN];

	for (uint32_t i = 0; i < m->n_sub; i++) {
		const struct sa_inform *f = &m->sub[i].inf;

		port_gid(m->prefix, m->sub[i].guid, p);
		printf("sub %s generic %u trap %u type %u qpn %u lid_begin %u lid_end %u "
		       "producer 0x%06x\n", p, f->is_generic, f->trap_num, f->type, f->qpn,
		       f->lid_begin, f->lid_end, f->producer);
	}
}

int main(int argc, char **argv)
{
	struct sa_mirror_fetch_opts o = SA_MIRROR_FETCH_DEFAULT;
	const char *ca = NULL;
	unsigned port = 0;
	int timeout_ms = 10000, c, r;
	long lid = -1;
	struct mad_umad *u;
	struct sa_mirror m = { 0 };
	uint16_t st;
	umad_port_t up;
	uint32_t members = 0;

	o.sm_key = 1;
	while ((c = getopt(argc, argv, "C:P:l:k:t:h")) != -1) {
		switch (c) {
		case 'C': ca = optarg; break;
		case 'P': port = (unsigned)atoi(optarg); break;
		case 'l': lid = strtol(optarg, NULL, 0); break;
		case 'k': o.sm_key = strtoull(optarg, NULL, 0); break;
		case 't': timeout_ms = atoi(optarg); break;
		case 'h': fputs(usage, stdout); return 0;
		default: fputs(usage, stderr); return 2;
		}
	}
	if (optind != argc) {
		fputs(usage, stderr);
		return 2;
	}
	r = mad_umad_open(ca, port, MAD_UMAD_SA, &u);
	if (r < 0) {
		fprintf(stderr, "samirror: cannot open the port: %s\n", strerror(-r));
		return 2;
	}
	if (lid < 0) {
		if (umad_get_port(mad_umad_ca(u), (int)mad_umad_port(u), &up) < 0) {
			fprintf(stderr, "samirror: cannot read the port's SMLID; give -l\n");
			mad_umad_close(u);
			return 2;
		}
		lid = up.sm_lid;
		umad_release_port(&up);
	}
	o.master_lid = (uint16_t)lid;
	r = sa_mirror_fetch_run(&mad_umad_ops, u, &o, timeout_ms, &m, &st);
	mad_umad_close(u);
	if (r == -EREMOTEIO) {
		fprintf(stderr, "samirror: the SA at LID %ld refused: status 0x%04x\n", lid, st);
		return 1;
	}
	if (r < 0) {
		fprintf(stderr, "samirror: fetch from the SA at LID %ld failed: %s\n", lid,
			strerror(-r));
		return 2;
	}
	if (st)
		fprintf(stderr, "samirror: the SA at LID %ld does not serve one of the tables "
			"(status 0x%04x): taken as empty\n", lid, st);
	print_groups(&m);
	print_services(&m);
	print_subs(&m);
	for (uint32_t i = 0; i < m.n_g; i++)
		members += m.g[i].n_m;
	printf("mirror: %u groups, %u members, %u services, %u subscriptions, %u skipped, "
	       "%u inconsistent\n", m.n_g, members, m.n_svc, m.n_sub, m.skipped, m.inconsistent);
	sa_mirror_free(&m);
	return 0;
}
