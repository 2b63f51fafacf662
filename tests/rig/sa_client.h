/* SPDX-License-Identifier: MIT */
#ifndef LOOM_TESTS_RIG_SA_CLIENT_H
#define LOOM_TESTS_RIG_SA_CLIENT_H

/*
 * DOC: tests/rig/sa_client.c — what the rig's SA clients (mcjoin, sasub,
 * saservice, sampr) share: a umad port, an SA agent on it, one request to
 * the SA at the port's SMLID, the answer awaited with a timeout. Each
 * client keeps only its own request and output.
 * Each step prints what went wrong on stderr, prefixed with the client's
 * name, and returns the exit code the clients document: 2 when the port
 * cannot be used or the SA does not answer, 1 when it answers with an
 * error status; 0 when all is well.
 */

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <infiniband/umad.h>
#include <iba/ib_types.h>

/* IBA 15.2.1: the SA is at QP1 of the SM's port, with the well-known GSI Q_Key. */
#define SA_CLIENT_QKEY 0x80010000u
#define SA_CLIENT_CLASS_VERSION 2

/* The options every client takes: --ca NAME, --port N, --timeout MS (and --help). */
struct sa_client_opts {
	const char *ca;
	int port, timeout_ms;
};

/* A client's command line. */
struct sa_client_cli {
	const char *usage;         /* printed on stdout for --help, on stderr for misuse */
	const struct option *opts; /* its own options, ended by zeros; never 'C', 'P', 't', 'h' */
	int (*opt)(int c, void *arg); /* one of them (optarg set); < 0 after saying what is wrong */
	int n_args;                /* operands after the options; -1: any number */
};

/*
 * getopt_long over argv: the common options into *co, the client's own
 * to cli->opt(value, arg). --help prints the usage and exits 0. 0, with
 * optind at the operands, or -1.
 */
int sa_client_parse(const struct sa_client_cli *cli, int argc, char **argv,
		    struct sa_client_opts *co, void *arg);
/* The usage on stderr; -1. */
int sa_client_misuse(const struct sa_client_cli *cli);

/* What a client needs of its port and agent. */
struct sa_client_how {
	uint16_t pkey;        /* the P_Key requests go with; 0: the default, at index 0 if absent */
	bool issm;            /* hold issm (below) */
	uint8_t rmpp_version; /* 1: the kernel segments requests and glues answers */
	long *methods;        /* unsolicited methods the agent takes (NULL: only answers) */
	size_t cap;           /* MAD bytes an answer may have; 0: one MAD */
};

struct sa_client {
	const char *prog; /* prefix of every message */
	umad_port_t port;
	int fd, agent;
	int pki;          /* P_Key index requests go out with (default: the default P_Key's) */
	int timeout_ms;   /* the request's; an answer is awaited three times as long */
	void *umad;
	size_t cap;       /* MAD bytes the umad buffer holds */
};

/*
 * Open co's port of co's CA (NULL, 0: the first) for prog and register
 * an SA agent on it, as how says. issm: hold the port's issm device (on
 * the simulator ibsim hands a request on QP0/QP1, a Report, only to a
 * client holding it) and take the SMPs that then come with agents of
 * both SMP classes.
 */
int sa_client_open(struct sa_client *c, const char *prog, const struct sa_client_opts *co,
		   const struct sa_client_how *how);
/* The MAD in the umad buffer. */
ib_sa_mad_t *sa_client_mad(const struct sa_client *c);
/* A TID of this process and this second. */
uint64_t sa_client_tid(void);
/* A request in the buffer: SA header (TID tid, host order), everything else zeroed. */
ib_sa_mad_t *sa_client_req(struct sa_client *c, uint8_t method, ib_net16_t attr_id, uint64_t tid);
/*
 * Send len bytes of the buffer to the SA (two retries), then receive
 * until an answer with method (0: any response) arrives, skipping what
 * else comes. *answer_len (may be NULL): the bytes received. 1 if the
 * answer's MAD status is not 0.
 */
int sa_client_ask(struct sa_client *c, size_t len, uint8_t method, int *answer_len);
/* Free what sa_client_open got, also when it failed half-way. */
void sa_client_close(struct sa_client *c);

#endif
