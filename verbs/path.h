/* SPDX-License-Identifier: MIT */
#ifndef LOOM_VERBS_PATH_H
#define LOOM_VERBS_PATH_H

#include <stddef.h>
#include <stdint.h>

/* What the SA says about the path from this port to a LID. */
struct path_info {
	uint16_t slid, dlid;
	uint8_t sl;
	uint8_t mtu;             /* IBA encoding, the same as enum ibv_mtu: 1=256 .. 5=4096 */
};

/*
 * Ask the subnet administrator (SA) for a PathRecord from port `port` of CA `ca` to
 * `dlid`, through libibumad. On InfiniBand the SL is how a routing engine keeps its
 * routes on deadlock-free virtual lanes: traffic must use the SL the SA hands out.
 * Returns 0, or -errno with a message in err.
 */
int path_query(const char *ca, int port, uint16_t dlid, double timeout, struct path_info *pi,
	       char *err, size_t errlen);

#endif
