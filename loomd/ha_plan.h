/* SPDX-License-Identifier: MIT */
#ifndef LOOM_LOOMD_HA_PLAN_H
#define LOOM_LOOMD_HA_PLAN_H

/*
 * A standby's look at what it would change as master: its own plan for
 * the fabric it discovered (its engines, LMC, roots: sweep_opts), against
 * the LIDs the ports hold and the LFTs the switches hold (a sample of at
 * most HA_PLAN_SAMPLE switches, read back). Two SMs with the same
 * configuration compute the same tables, so a takeover sends nothing; a
 * standby whose configuration differs says so when it starts, not only
 * when it takes over.
 */
#include <stdbool.h>
#include <stdint.h>

#include "loomd/sweep.h"

#define HA_PLAN_SAMPLE 64

struct ha_plan_cmp {
	const char *engine;     /* the engine that would route; NULL: none would */
	unsigned lids_changed;  /* ports whose LID would change */
	uint32_t switches;      /* switches whose LFT was read and compared */
	uint32_t blocks;        /* LFT blocks compared */
	uint32_t blocks_differ; /* of those, blocks this SM would send */
};

/*
 * Plan (sn, live) as sweep_opts o would, LIDs fabric first (as a takeover
 * does), and read back a sample of the LFTs through x. sn is left as it was.
 * stop (may be NULL) is asked after the plan (what the port holds read
 * first, so x's hooks have seen it), between batches of LFT reads and after
 * the last: true cuts the comparison short with -EINTR (a HANDOVER came:
 * the caller must answer it now, not after a fabric's worth of reads).
 * 0 or -errno (-ENOMEM, the transport's, -EHOSTUNREACH: nothing routed, or
 * -EINTR: stopped).
 */
int ha_plan_compare(struct txn *x, struct subnet *sn, const struct disc_live *live,
		    const struct sweep_opts *o, bool (*stop)(void *arg), void *arg,
		    struct ha_plan_cmp *out);

#endif
