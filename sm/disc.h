/* SPDX-License-Identifier: MIT */
#ifndef LOOM_SM_DISC_H
#define LOOM_SM_DISC_H

#include <stdint.h>

#include "lib/diag.h"
#include "mad/txn.h"
#include "sm/subnet.h"

#define DISC_MAX_MSGS 64

/*
 * What went wrong in a sweep that still produced a model: requests that
 * timed out or were refused, links that contradict each other. Messages
 * name the DR path and object; the caller prints them.
 */
struct disc_report {
	unsigned timeouts;     /* requests given up on after all retries */
	unsigned errors;       /* refused (MAD status), undecodable, or inconsistent */
	unsigned dups;         /* switches left out: their GUID belongs to one found first */
	struct diag msgs;      /* start it with .limit = DISC_MAX_MSGS */
};

/* A port as the sweep read it: what a later PortInfo Set starts from. */
struct disc_port {
	bool have_pi;
	struct smp_port_info pi;
	uint8_t raw[SMP_DATA_SIZE]; /* PortInfo, wire format */
};

/* A node as the sweep reached it. */
struct disc_node {
	uint8_t hops;
	uint8_t path[SMP_MAX_HOPS + 1]; /* the first route that reached it */
	uint16_t partition_cap;         /* NodeInfo:PartitionCap: P_Keys a CA port holds */
	uint32_t revision;              /* NodeInfo:Revision, for the SA's NodeRecord */
	struct smp_switch_info si;      /* switches only */
	uint8_t si_raw[SMP_DATA_SIZE];
};

/*
 * What the live fabric told the sweep that the model does not hold, indexed
 * like the model: node[i] is model node i, port[j] model port j. Only
 * discovery makes one; programming reads it and keeps raw up to date with
 * the answers to its Sets.
 */
struct disc_live {
	struct disc_node *node;
	struct disc_port *port;
	uint8_t local_port; /* the port of node 0 the SM sends through */
};

void disc_live_free(struct disc_live *l);

/*
 * Directed-route sweep from the port x's transport is bound to (IBA 14.2.2):
 * NodeInfo and NodeDescription of every node, SwitchInfo and PortInfo of
 * every switch port, PortInfo of every linked CA port; every port that is not
 * Down is followed. x must be idle; many SMPs are in flight at once through
 * it. On success *out is a new model (nodes in the order they were found,
 * the local node first) and rep lists what could not be read (rep may list
 * problems on success), and *live (if not NULL) what programming needs. -EIO if not even the local node answers, -ENOMEM,
 * or the transport's -errno.
 */
int disc_run(struct txn *x, struct subnet **out, struct disc_live *live, struct disc_report *rep);
void disc_report_free(struct disc_report *rep);

#endif
