/* SPDX-License-Identifier: MIT */
#ifndef LOOM_LOOMD_FLAP_H
#define LOOM_LOOMD_FLAP_H

/*
 * Flap damping: a link whose state changed (down, or up) more than
 * o.flaps times within o.window is kept out of the models loomd routes
 * until it has been up, without a break, for o.hold. Changes are what
 * heavy sweeps see; times are milliseconds of CLOCK_MONOTONIC, passed in
 * (the unit test fakes them). Nothing here prints: what happened goes to a
 * struct diag, one line a link damped or released.
 */
#include <stdbool.h>
#include <stdint.h>

#include "config/config.h"
#include "lib/diag.h"
#include "model/subnet.h"

struct flap_opts {
	unsigned flaps; /* 0: no damping */
	uint64_t window_ms, hold_ms;
};

/* A link by its two ends, the lower (NodeGUID, port) first, as model/diff.h orders them. */
struct flap_key {
	uint64_t guid[2];
	uint8_t port[2];
};

struct flap_link {
	struct flap_key k;
	uint64_t change[CONFIG_FLAPS_MAX + 1]; /* a ring: when the last changes were seen */
	unsigned n_change, head;
	bool last_up; /* the last change recorded: up, or down */
	bool damped;
	bool present; /* damped: linked in the last sweep's discovered model */
	bool cut;     /* damped but routed: without it, nodes are cut off from the SM */
	bool released; /* in this sweep */
	uint64_t up_since; /* damped and present: linked in every sweep since */
};

struct flap {
	struct flap_opts o;
	struct flap_link *l;
	uint32_t n, cap;
};

/* What one sweep did, for its summary and the log. */
struct flap_report {
	unsigned damped, released; /* in this sweep */
	unsigned out;              /* links now kept out of the model */
};

void flap_init(struct flap *f, const struct flap_opts *o);
void flap_free(struct flap *f);
/* From the configuration; flaps 0 releases every damped link at the next sweep. */
void flap_opts_from(struct flap_opts *o, const struct config *c);

/*
 * One heavy sweep: raw is what discovery found at now, prev the model the
 * last sweep routed (NULL on the first sweep: nothing changed). Counts the
 * links that changed, damps and releases links, and unlinks the damped
 * ones from raw so that routes avoid them (unless that cuts nodes off the
 * SM's node, raw's node 0). A line for each link damped or released goes
 * to msgs. 0 or -ENOMEM (then raw may lack some damped links: do not route it).
 */
int flap_sweep(struct flap *f, const struct subnet *prev, struct subnet *raw, uint64_t now,
	       struct flap_report *rep, struct diag *msgs);
/*
 * When a damped link will have been up for hold, if nothing changes before:
 * a heavy sweep at that time releases it. UINT64_MAX: none will.
 */
uint64_t flap_due(const struct flap *f);
/* Is the link damped (kept out of the routes, or would be but for a cut)? */
bool flap_damped(const struct flap *f, const struct flap_key *k);

#endif
