/* SPDX-License-Identifier: MIT */
/*
 * mkey_sim.h: ibsim's socket protocol (ibsim 0.10 include/ibsim.h) as the
 * M_Key proxy speaks it on both sides, and the proxy's shared state.
 *
 * ibsim binds datagram sockets in the abstract namespace: NAME:ctl (control)
 * and NAME:out0..9 (one a client slot). A client binds NAME:ctlPID and
 * NAME:inPID, sends SIM_CTL_CONNECT (its PID, node, issm) to NAME:ctl, gets
 * its slot number back, then exchanges struct sim_request packets between
 * NAME:inPID and NAME:outSLOT. The proxy binds the client side of that under
 * its own name and is a client of ibsim under ibsim's name.
 */
#ifndef LOOM_RIG_MKEY_SIM_H
#define LOOM_RIG_MKEY_SIM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "mkey.h"

#define SIM_MAX_CLIENTS 10 /* IBSIM_MAX_CLIENTS */
#define SIM_MAGIC 0xdeadbeef
#define SIM_STATUS_DROPPED 110 /* ibsim's "no answer" (ETIMEDOUT) */

enum sim_ctl_type {
	SIM_CTL_ERROR,
	SIM_CTL_CONNECT,
	SIM_CTL_DISCONNECT,
	SIM_CTL_GET_PORT,
};

struct sim_ctl {
	uint32_t magic;
	uint32_t clientid;
	uint32_t type;
	uint32_t len;
	char data[64];
};

struct sim_client_info {
	uint32_t id; /* the client's PID in, the slot out */
	uint32_t qp;
	uint32_t issm;
	char nodeid[32];
};

struct sim_request {
	uint32_t dlid; /* network order, as are slid and status */
	uint32_t slid;
	uint32_t dqp;
	uint32_t sqp;
	uint32_t status;
	uint64_t length;
	uint8_t mad[256];
};

/* An SMP let through whose answer must be shown the port's M_Key state. */
struct pend {
	uint64_t tid;       /* low 48 bits of the TID */
	uint64_t guid;      /* mkey_port it reached */
	int64_t since;      /* ms, to forget answers that never come */
	bool is_switch, hidden, store;
	uint8_t pi[64];     /* the PortInfo a Set writes */
};

#define PEND_MAX 64

struct slot {
	bool used;
	uint32_t pid;
	int up; /* bound to SIM:inPID, connected to SIM:outSLOT */
	struct pend pend[PEND_MAX];
};

struct proxy {
	const char *sim_name, *name;
	pid_t sim_pid;
	int dn_ctl;                   /* NAME:ctl */
	int up_ctl;                   /* SIM:mkctlOURPID, connected to SIM:ctl */
	int dn_out[SIM_MAX_CLIENTS];  /* NAME:outSLOT */
	struct slot slot[SIM_MAX_CLIENTS];
	struct mkey_table tab;
	uint32_t next_tid;
	unsigned long probes, passed, hidden, violations, traps;
};

/* mkey_sim.c: sockets and the control channel. */
int sim_bind(const char *base, const char *kind, unsigned n);
int sim_connect_to(int fd, const char *base, const char *kind, unsigned n);
int sim_unconnect(int fd);
int64_t sim_now_ms(void);
void sim_ctl_relay(struct proxy *px);
int sim_ctl_ask(struct proxy *px, struct sim_ctl *ctl);
void sim_slot_close(struct proxy *px, unsigned i);
int sim_up_send(struct proxy *px, unsigned i, const void *buf, size_t n);
void sim_dn_send(struct proxy *px, unsigned i, const void *buf, size_t n);
void sim_drain_up(struct proxy *px, int skip);

/* mkey_proxy.c: what crosses between the two sides. */
void proxy_from_client(struct proxy *px, unsigned i, uint8_t *buf, size_t n);
void proxy_from_sim(struct proxy *px, unsigned i, uint8_t *buf, size_t n);

#define plog(...) (fprintf(stderr, "mkeyproxy: " __VA_ARGS__), fflush(stderr))

#endif
