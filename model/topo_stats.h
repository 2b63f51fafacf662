/* SPDX-License-Identifier: MIT */
#ifndef LOOM_TOPO_STATS_H
#define LOOM_TOPO_STATS_H

#include <stdint.h>

#include "model/subnet.h"

/*
 * Counts and structural checks over a subnet model: what `loom topo` prints
 * and what later checks (route, health) start from. Reads the model only.
 */
struct topo_stats {
	uint32_t switches, cas, routers;
	uint32_t ports;           /* physical ports (switch port 0 not counted) */
	uint32_t ports_linked;
	uint32_t links;           /* each cable once */
	uint32_t links_sw_sw;     /* switch to switch */
	uint32_t links_sw_end;    /* switch to CA or router */
	uint32_t links_end_end;   /* CA to CA or router, no switch between */
	uint32_t parallel_pairs;  /* node pairs joined by more than one link */
	uint32_t parallel_extra;  /* links beyond the first between such pairs */
	uint32_t self_links;      /* a port cabled to another port of its own node */
	uint32_t isolated;        /* nodes with no link at all */
	uint32_t components;      /* connected pieces, isolated nodes included */
	uint32_t unreached;       /* nodes not reachable from the first node */
	uint32_t radix[SUBNET_MAX_PORTS + 1]; /* switches by port count */
};

int topo_stats_compute(const struct subnet *sn, struct topo_stats *st);

#endif
