/* SPDX-License-Identifier: MIT */
#ifndef LOOM_LOOMD_HOLD_H
#define LOOM_LOOMD_HOLD_H

/*
 * Requests held while a worker routes (sweep.h: hold): the loop keeps
 * reading the port and answers SMInfo Gets, so that a standby's poll finds
 * a live master however long routing takes; every other request (SA
 * queries, traps, SMInfo Sets) would read or change what the worker
 * writes, so it is kept, in order, and handed back afterwards.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mad/mad.h"

#define HOLD_MAX 256 /* requests kept; past them, dropped (the requester retries) */

struct hold_mad {
	uint8_t *mad;
	size_t len;
	struct mad_addr from;
	bool have_from;
};

struct hold {
	bool on;
	struct hold_mad q[HOLD_MAX];
	unsigned n;
	unsigned dropped; /* since the last replay */
};

/* An SMInfo Get (SMP class): what is answered while holding. */
bool hold_is_sminfo_get(const uint8_t *mad, size_t len);
/* Keep a copy of the request; false (dropped) when full or out of memory. */
bool hold_keep(struct hold *h, const uint8_t *mad, size_t len, const struct mad_addr *from);
typedef void (*hold_fn)(void *arg, const uint8_t *mad, size_t len, const struct mad_addr *from);
/* Hand every request kept to fn, in order, and forget them. */
void hold_replay(struct hold *h, hold_fn fn, void *arg);

#endif
