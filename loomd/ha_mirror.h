/* SPDX-License-Identifier: MIT */
#ifndef LOOM_LOOMD_HA_MIRROR_H
#define LOOM_LOOMD_HA_MIRROR_H

/*
 * A standby's copy of the master's SA state (sa/sa_mirror.h does the
 * queries, the decoding and the install): fetched after every poll the
 * master answered, one fetch in flight at a time, the last complete one
 * kept; installed once when this SM becomes master in the master's place,
 * so that groups (at their MLIDs), services and subscriptions survive.
 * The fetch runs beside the loop's other work: its answers arrive through
 * the transaction layer's response hook (one MAD) and the long hook (an
 * RMPP answer), its retries from the loop's tick.
 */
#include <stdbool.h>
#include <stdint.h>

#include "mad/mad.h"
#include "model/subnet.h"
#include "sa/sa_mirror.h"

struct ha_mirror {
	unsigned want;          /* the tables (SA_MIRROR_WANT_*); 0: the SA state */
	struct sa_mirror_fetch f;
	bool busy;              /* f in flight */
	uint32_t seq;           /* fetches started: each its own TIDs */
	struct sa_mirror m;     /* the last complete fetch */
	bool have;
	uint64_t when_ms;       /* when m was complete (the loop's CLOCK_MONOTONIC) */
	uint64_t fetched, failed;
	int last_err;           /* the last failure, logged once until a fetch succeeds */
};

void ha_mirror_free(struct ha_mirror *hm);
/*
 * Start a fetch from the SA of the master at port guid (its LID from sn),
 * unless one is in flight or the last one is younger than min_age_ms. A
 * master not in sn, or without a LID, is skipped (logged once).
 */
void ha_mirror_start(struct ha_mirror *hm, const struct mad_transport_ops *ops, void *t,
		     const struct subnet *sn, uint64_t guid, uint64_t sm_key, uint64_t now_ms,
		     uint64_t min_age_ms);
/*
 * The same from the SA at lid, for the tables hm->want: a standby that
 * cannot read the fabric (M_Keys) asks the master its links this way.
 */
void ha_mirror_start_lid(struct ha_mirror *hm, const struct mad_transport_ops *ops, void *t,
			 uint16_t lid, uint64_t sm_key, uint64_t now_ms, uint64_t min_age_ms);
/* A response that arrived: true if it was one of the fetch's (taken). */
bool ha_mirror_input(struct ha_mirror *hm, const uint8_t *mad, size_t len, uint64_t now_ms);
/* Retries due by now_ms; the ms until the next one, or -1: none waits. */
int ha_mirror_tick(struct ha_mirror *hm, uint64_t now_ms);
/* Stop a fetch in flight (this SM is master now, or no longer standby). */
void ha_mirror_cancel(struct ha_mirror *hm);

#endif
