/* SPDX-License-Identifier: MIT */
#ifndef LOOM_SM_DISC_H
#define LOOM_SM_DISC_H

#include <stdint.h>

#include "lib/diag.h"
#include "mad/txn.h"
#include "model/disc_live.h"
#include "model/subnet.h"

#define DISC_MAX_MSGS 64

/*
 * What went wrong in a sweep that still produced a model: requests that
 * timed out or were refused, links that contradict each other. Messages
 * name the DR path and object; the caller prints them.
 */
struct disc_report {
	unsigned timeouts;     /* requests given up on after all retries */
	unsigned errors;       /* refused (MAD status) or undecodable answers */
	unsigned conflicts;    /* answers that contradict the sweep (links, ports, hops) */
	unsigned dups;         /* nodes or CA ports left out: their GUID belongs to one found
				* first; the rest of the fabric is whole without them */
	struct diag msgs;      /* start it with .limit = DISC_MAX_MSGS */
	/* Set by the caller, may be NULL: told the nodes found so far, about once a second. */
	void (*progress)(void *arg, uint32_t nodes);
	void *progress_arg;
};


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
