/* SPDX-License-Identifier: MIT */
#ifndef LOOM_FABRIC_HEALTH_READ_H
#define LOOM_FABRIC_HEALTH_READ_H

#include "fabric/health.h"
#include "mad/mad.h"
#include "mad/txn.h"

/*
 * Read the SMInfo of every port a sweep (sn, live) found with IsSM set,
 * through x (idle; it is run until idle again). On success *out is a new
 * array indexed like sn's ports (free() it); a port that did not answer has
 * asked set and a negative status. -ENOMEM, or the transport's -errno.
 */
int health_read_sm(struct txn *x, const struct subnet *sn, const struct disc_live *live,
		   struct health_sm_port **out);

/*
 * The directed route of an SMP to port p of a sweep (sn, live), as
 * health_read_sm asks it (an SM on a switch: its port 0): r->hops and
 * r->path. -ENOLINK when no route enters there, -E2BIG past 63 hops.
 */
int health_sm_path(const struct subnet *sn, const struct disc_live *live, uint32_t p,
		   struct smp_req *r);

/*
 * Read PortCounters from the PMA of every port that is up and has a LID (a
 * switch port: its switch's), through a transport opened with
 * MAD_UMAD_PERF, o->window Gets in flight, each tried 1 + o->retries times
 * for o->timeout_ms. *out is a new array indexed like sn's ports (free() it):
 * asked set for each port read, status 0 or -errno (-ETIMEDOUT: no answer,
 * -EREMOTEIO: refused). With clear (--reset), each port read is then
 * cleared (a PortCounters Set of zeros): cleared set, clear_status 0 or
 * -errno. -ENOMEM, or the transport's -errno.
 */
int health_read_pma(const struct mad_transport_ops *ops, void *t, const struct txn_opts *o,
		    const struct subnet *sn, const struct disc_live *live, bool clear,
		    struct health_pma_port **out);

/*
 * Read the LFT of every switch a sweep (sn, live) found, by directed route:
 * blocks up to its LinearFDBTop (from the sweep's SwitchInfo) and the
 * highest LID in use, through x (idle; run until idle again). out->ro is
 * numbered as route_out_number numbers switches, rows up to the highest LID
 * in use, entries not read ROUTE_DROP; out->status[s] is 0 or the -errno of
 * switch s's first failed block. Free with health_lft_free(). -ENOMEM, or the
 * transport's -errno.
 */
int health_read_lft(struct txn *x, const struct subnet *sn, const struct disc_live *live,
		    struct health_lft *out);

#endif
