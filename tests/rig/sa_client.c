/* SPDX-License-Identifier: MIT */
/*
 * One SA request from a host's port, the way the rig's clients make it
 * (see sa_client.h): libibumad only, so that the same binary runs on
 * hardware and under umad2sim.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tests/rig/sa_client.h"

int sa_client_misuse(const struct sa_client_cli *cli)
{
	fputs(cli->usage, stderr);
	return -1;
}

int sa_client_parse(const struct sa_client_cli *cli, int argc, char **argv,
		    struct sa_client_opts *co, void *arg)
{
	static const struct option common[] = {
		{ "ca", required_argument, NULL, 'C' },
		{ "port", required_argument, NULL, 'P' },
		{ "timeout", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
	};
	struct option all[32] = { { 0 } };
	size_t n = sizeof(common) / sizeof(common[0]);
	int c;

	memcpy(all, common, sizeof(common));
	for (size_t i = 0; cli->opts[i].name; i++) {
		if (n + 1 >= sizeof(all) / sizeof(all[0]))
			return -1;
		all[n++] = cli->opts[i];
	}
	while ((c = getopt_long(argc, argv, "h", all, NULL)) != -1) {
		switch (c) {
		case 'C': co->ca = optarg; break;
		case 'P': co->port = atoi(optarg); break;
		case 't': co->timeout_ms = atoi(optarg); break;
		case 'h': fputs(cli->usage, stdout); exit(0);
		case '?': return sa_client_misuse(cli);
		default:
			if (cli->opt(c, arg) < 0)
				return -1;
		}
	}
	if (cli->n_args >= 0 && argc - optind != cli->n_args)
		return sa_client_misuse(cli);
	return 0;
}

/* The index of P_Key pkey (full or limited) in the port's table, or -1. */
static int sa_client_pkey_index(const struct sa_client *c, uint16_t pkey)
{
	for (int i = 0; i < (int)c->port.pkeys_size; i++)
		if ((c->port.pkeys[i] & 0x7fff) == (pkey & 0x7fff))
			return i;
	return -1;
}

/* Hold issm for good: the descriptor stays open until the process exits. */
static int sa_client_issm(const struct sa_client *c)
{
	char path[256];

	if (umad_get_issm_path(c->port.ca_name, c->port.portnum, path, sizeof(path)) < 0 ||
	    open(path, O_RDWR) < 0) {
		fprintf(stderr, "%s: %s port %d: cannot hold issm\n", c->prog, c->port.ca_name,
			c->port.portnum);
		return -1;
	}
	return 0;
}

/*
 * Holding issm makes the port an SM's (CapabilityMask IsSM): an SM may
 * send it SMInfo, and umad2sim crashes on a MAD no agent takes. Agents
 * for both SMP classes take them; they are read and ignored.
 */
static int sa_client_smp_agents(const struct sa_client *c)
{
	if (c->fd >= 0 && (umad_register(c->fd, IB_MCLASS_SUBN_LID, 1, 0, NULL) < 0 ||
			   umad_register(c->fd, IB_MCLASS_SUBN_DIR, 1, 0, NULL) < 0)) {
		fprintf(stderr, "%s: %s port %d: cannot register SMP agents\n", c->prog,
			c->port.ca_name, c->port.portnum);
		return -1;
	}
	return 0;
}

/* The P_Key index requests go with. */
static int sa_client_pki(struct sa_client *c, uint16_t pkey)
{
	c->pki = sa_client_pkey_index(c, pkey ? pkey : 0xffff);
	if (c->pki >= 0)
		return 0;
	if (!pkey) {
		c->pki = 0;
		return 0;
	}
	fprintf(stderr, "%s: P_Key 0x%04x is not in the port's table\n", c->prog, pkey);
	return -1;
}

int sa_client_open(struct sa_client *c, const char *prog, const struct sa_client_opts *co,
		   const struct sa_client_how *how)
{
	*c = (struct sa_client){ .prog = prog, .fd = -1, .agent = -1, .timeout_ms = co->timeout_ms,
				 .cap = how->cap ? how->cap : sizeof(ib_sa_mad_t) };
	if (umad_init() < 0 || umad_get_port(co->ca, co->port, &c->port) < 0) {
		fprintf(stderr, "%s: cannot open %s port %d: is the CA there?\n", prog,
			co->ca ? co->ca : "(first CA)", co->port);
		return 2;
	}
	if (sa_client_pki(c, how->pkey) < 0)
		return 2;
	if (how->issm && sa_client_issm(c) < 0)
		return 2;
	c->fd = umad_open_port(c->port.ca_name, c->port.portnum);
	if (how->issm && sa_client_smp_agents(c) < 0)
		return 2;
	c->agent = c->fd < 0 ? -1 : umad_register(c->fd, IB_MCLASS_SUBN_ADM,
						  SA_CLIENT_CLASS_VERSION, how->rmpp_version,
						  how->methods);
	c->umad = umad_alloc(1, umad_size() + c->cap); /* zeroed */
	if (c->fd < 0 || c->agent < 0 || !c->umad) {
		fprintf(stderr, "%s: %s port %d: cannot register an SA client\n", prog,
			c->port.ca_name, c->port.portnum);
		return 2;
	}
	return 0;
}

ib_sa_mad_t *sa_client_mad(const struct sa_client *c)
{
	return umad_get_mad(c->umad);
}

uint64_t sa_client_tid(void)
{
	return ((uint64_t)getpid() << 32) | (uint32_t)time(NULL);
}

ib_sa_mad_t *sa_client_req(struct sa_client *c, uint8_t method, ib_net16_t attr_id, uint64_t tid)
{
	ib_sa_mad_t *m = sa_client_mad(c);

	memset(m, 0, sizeof(*m));
	m->base_ver = 1;
	m->mgmt_class = IB_MCLASS_SUBN_ADM;
	m->class_ver = SA_CLIENT_CLASS_VERSION;
	m->method = method;
	m->trans_id = cl_hton64(tid);
	m->attr_id = attr_id;
	return m;
}

static int sa_client_send(struct sa_client *c, size_t len)
{
	umad_set_addr(c->umad, c->port.sm_lid, 1, 0, SA_CLIENT_QKEY);
	umad_set_pkey(c->umad, c->pki);
	if (umad_send(c->fd, c->agent, c->umad, (int)len, c->timeout_ms, 2) < 0) {
		fprintf(stderr, "%s: send to the SA (LID %u): %s\n", c->prog, c->port.sm_lid,
			strerror(errno));
		return 2;
	}
	return 0;
}

static int sa_client_recv(struct sa_client *c, uint8_t method, int *len)
{
	const ib_sa_mad_t *m = sa_client_mad(c);

	for (;;) {
		*len = (int)c->cap;
		if (umad_recv(c->fd, c->umad, len, c->timeout_ms * 3) < 0 || umad_status(c->umad)) {
			fprintf(stderr, "%s: no answer from the SA at LID %u\n", c->prog,
				c->port.sm_lid);
			return 2;
		}
		/* A Report (sasub) may come before the answer: not what is awaited here. */
		if (method ? m->method == method : (m->method & IB_MAD_METHOD_RESP_MASK) != 0)
			return 0;
	}
}

int sa_client_ask(struct sa_client *c, size_t len, uint8_t method, int *answer_len)
{
	int status, n, r;

	r = sa_client_send(c, len);
	if (!r)
		r = sa_client_recv(c, method, &n);
	if (r)
		return r;
	if (answer_len)
		*answer_len = n;
	status = cl_ntoh16(sa_client_mad(c)->status);
	if (status) {
		fprintf(stderr, "%s: the SA answered status 0x%04x\n", c->prog, status);
		return 1;
	}
	return 0;
}

/*
 * The port's strings go; the descriptor stays open until exit, as it
 * always did: under umad2sim a close is a message to the simulator.
 */
void sa_client_close(struct sa_client *c)
{
	if (c->umad)
		umad_free(c->umad);
	if (c->agent >= 0)
		umad_unregister(c->fd, c->agent);
	if (c->fd >= 0)
		umad_close_port(c->fd);
	umad_release_port(&c->port);
	*c = (struct sa_client){ .fd = -1, .agent = -1 };
}
