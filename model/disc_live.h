/* SPDX-License-Identifier: MIT */
#ifndef LOOM_MODEL_DISC_LIVE_H
#define LOOM_MODEL_DISC_LIVE_H

#include <stdbool.h>
#include <stdint.h>

#include "mad/smp.h"

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
 * IBA 14.2.5.6: the speed a port runs, as the model names it: LinkSpeedActive,
 * or LinkSpeedExtActive when the port has extended speeds (enum link_speed).
 */
uint8_t disc_live_speed(const struct smp_port_info *pi);

#endif
