/* SPDX-License-Identifier: MIT */
#ifndef LOOM_SM_AGENT_H
#define LOOM_SM_AGENT_H

#include <stdbool.h>
#include <stdint.h>

#include "loomd/smstate.h"
#include "mad/txn.h"

/*
 * The SM's own agent: answers the SMPs addressed to the SM rather than to a
 * node (IBA 14.4): SMInfo Get/Set from sminfo, saquery and other SMs, and
 * Traps from switches and CAs (answered with TrapRepress). Plugged into the
 * transaction layer as its request hook, so it answers even mid-sweep.
 */
#define AGENT_TRAP_LIDS 64

struct agent {
	struct txn *x;
	uint64_t guid;   /* the SM's port GUID */
	uint64_t sm_key;
	uint8_t priority;
	uint8_t state;   /* enum smp_sm_state */
	bool resweep;    /* a trap said the topology changed; the loop clears it */
	/*
	 * An SMInfo Set (a control packet from another SM): its AttributeModifier
	 * and the sender's SMInfo; returns enum sm_action bits (SMA_REFUSE: the
	 * answer carries an error status). Called before the answer is sent.
	 */
	unsigned (*on_set)(void *arg, uint32_t ctrl, const struct smp_sm_info *sender);
	void *on_set_arg;
	/*
	 * Who sent the traps 128 since the last sweep read them (issuer LIDs,
	 * loomd/sweep_targeted.c); trap_lids_lost: more than fit.
	 */
	uint16_t trap_lid[AGENT_TRAP_LIDS];
	unsigned n_trap_lids;
	bool trap_lids_lost;
	/* A trap 144 (a port's CapabilityMask changed: an SM there?): the next sweep is heavy. */
	bool heavy_asked;
	uint64_t traps, trap128, sminfo_gets, sminfo_sets, refused;
	uint64_t represses; /* TrapRepresses received: a master answered our trap 144 */
	/*
	 * Trap 256 (Bad M_Key, IBA 14.2.4): counted; the issuers' LIDs are
	 * logged once each until the next heavy sweep clears the list.
	 */
	uint64_t trap256;
	uint16_t bad_mkey_lid[32];
	unsigned n_bad_mkey;
};

void agent_init(struct agent *a, struct txn *x, uint64_t guid, uint8_t priority);
/* The txn request hook (txn_set_request_hook(x, agent_request, a)). */
void agent_request(void *arg, const uint8_t *mad, size_t len, const struct mad_addr *from);

#endif
