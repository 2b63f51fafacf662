/* SPDX-License-Identifier: MIT */
#ifndef LOOM_SM_PKEY_H
#define LOOM_SM_PKEY_H

#include <stdbool.h>
#include <stdint.h>

#include "config/config.h"
#include "lib/diag.h"
#include "model/subnet.h"

/*
 * Partitions as P_Key tables: for every port that takes part, the P_Keys
 * it must hold, membership bit included (0x8000: full). Index 0 is the
 * default partition's entry when the port is in it (IBA 10.9.3: a CA's
 * P_Key index 0 is what QP1 uses). A switch's external port facing a CA
 * port gets the CA's keys and enforce set: with partition enforcement on,
 * the switch drops packets the CA could not take (IBA 10.9.4).
 */
struct pkey_plan {
	uint32_t *off;   /* [n_ports + 1]: keys of port p are key[off[p] .. off[p + 1]) */
	uint16_t *key;
	uint8_t *enforce; /* [n_ports]: switch external port facing members */
};

/*
 * Build the plan for sn from c's partitions; sm_port is the SM's own port
 * (member "self"). Members that match no port are reported in msgs with the
 * file's LINE:COL. 0 or -ENOMEM.
 */
int pkey_plan_build(const struct subnet *sn, const struct config *c, uint32_t sm_port,
		    struct pkey_plan *out, struct diag *msgs);
void pkey_plan_free(struct pkey_plan *p);

static inline uint32_t pkey_count(const struct pkey_plan *p, uint32_t port)
{
	return p->off[port + 1] - p->off[port];
}

#endif
