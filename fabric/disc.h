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
	unsigned silent;       /* disc_part: reporters that answered nothing, now unreachable:
				* gone (their requests are not in timeouts) */
	unsigned back;         /* disc_part: CAs back as they left, only their PortInfo read */
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
/*
 * Discovery of the part of the fabric an event can have changed: old and
 * old_live (the last sweep's) taken as read; the switches dirty[0..n_dirty)
 * (indices in old) read again (SwitchInfo, every port's PortInfo), what their
 * ports newly reach walked as disc_run walks, the far ends of their links
 * that are up but not Active read again, and what the local node can no
 * longer reach dropped. Old nodes keep their order, new ones follow. *out,
 * *live and rep as disc_run's; a dirty switch that does not answer counts
 * in rep->timeouts (the caller then sweeps the whole fabric).
 * gone and gone_live (may be NULL): the last model that held nodes old
 * lacks, and its live data. A CA of it that the walk reaches again through
 * a switch port Active now and then, and whose port answers Active with the
 * LID, LMC and MasterSMLID it had, is taken as it was there (its PortInfo
 * the only SMP it costs; disc_back.c says why), counted in rep->back.
 */
int disc_part(struct txn *x, const struct subnet *old, const struct disc_live *old_live,
	      const struct subnet *gone, const struct disc_live *gone_live,
	      const uint32_t *dirty, uint32_t n_dirty, struct subnet **out,
	      struct disc_live *live, struct disc_report *rep);
void disc_report_free(struct disc_report *rep);

#endif
