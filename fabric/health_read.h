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
/* The same for the IsSM ports want(arg, port) is true of (want NULL: all). */
int health_read_sm_some(struct txn *x, const struct subnet *sn, const struct disc_live *live,
			bool (*want)(void *arg, uint32_t port), void *arg,
			struct health_sm_port **out);
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
 * Read again the SMInfo of every port whose first read (health_read_sm)
 * answered MASTER, waited_ms after it (the caller's wait; IBA 14.4.1: a
 * standby polls the master and watches its ActCount move): again set,
 * status2 and smi2. -errno of the transport.
 */
int health_read_sm_again(struct txn *x, const struct subnet *sn, const struct disc_live *live,
			 struct health_sm_port *sm, uint32_t waited_ms);

/* What health_read_pma() reads beyond every port's PortCounters. */
struct health_pma_opts {
	bool clear; /* --reset: clear each port read (a Set of zeros), after reading */
	bool data;  /* the data counters are wanted: PortCountersExtended where there is one */
	/*
	 * Not NULL (only a verdict is wanted; not with clear): these thresholds,
	 * and a switch with AllPortSelect is read as one sum first, its ports
	 * one by one only if a counter's sum is over its threshold.
	 */
	const uint32_t *summary;
	const struct health_progress *pg; /* may be NULL: hears how far it got */
};

/*
 * Read PortCounters from the PMA of every port that is up and has a LID (a
 * switch port: its switch's), through a transport opened with
 * MAD_UMAD_PERF, o->window Gets in flight, each tried 1 + o->retries times
 * for o->timeout_ms. *out is a new array indexed like sn's ports (free() it):
 * asked set for each port read, status 0 or -errno (-ETIMEDOUT: no answer,
 * -EREMOTEIO: refused); with po->summary, the ports of a switch whose sum was
 * within the thresholds are not asked. Each PMA's ClassPortInfo is read
 * first (ci_status, ci, on every port of its node; a CA's only with
 * po->data); where it has PortCountersExtended and po->data (or they hold
 * the error counters), that is read as well (ext_asked, ext_status) and c's
 * counters are its 64-bit ones. With po->clear (--reset), each port read is
 * then cleared (a PortCounters Set of zeros, and a PortCountersExtended one
 * where it was read): cleared set, clear_status 0 or -errno. -ENOMEM, or
 * the transport's -errno.
 */
int health_read_pma(const struct mad_transport_ops *ops, void *t, const struct txn_opts *o,
		    const struct subnet *sn, const struct disc_live *live,
		    const struct health_pma_opts *po, struct health_pma_port **out);

/*
 * Read the LFT of every switch a sweep (sn, live) found, by directed route:
 * blocks up to its LinearFDBTop (from the sweep's SwitchInfo) and the
 * highest LID in use, through x (idle; run until idle again). out->ro is
 * numbered as route_out_number numbers switches, rows up to the highest LID
 * in use, entries not read ROUTE_DROP; out->status[s] is 0 or the -errno of
 * switch s's first failed block. pg (may be NULL) hears how far it got. Free
 * with health_lft_free(). -ENOMEM, or the transport's -errno.
 */
int health_read_lft(struct txn *x, const struct subnet *sn, const struct disc_live *live,
		    const struct health_progress *pg, struct health_lft *out);
/*
 * The same for every every-th switch only (a sample); the others' status is
 * -ESRCH. With pg->stop, the blocks go HEALTH_LFT_BATCH at a time (each
 * switch's, the sample's) and pg->stop is asked before each batch: -EINTR
 * when it says stop.
 */
#define HEALTH_LFT_BATCH 8
int health_read_lft_some(struct txn *x, const struct subnet *sn, const struct disc_live *live,
			 const struct health_progress *pg, uint32_t every, struct health_lft *out);

/*
 * Read the SLtoVLMappingTables that matter for credit loops (health_sl2vl.c):
 * every (input, output) port pair of every switch of ro (the LFTs read) whose
 * output is linked to a switch with OperationalVLs > 1, by directed route,
 * through x (idle; run until idle again). out->sw_index points into ro.
 * Free with health_sl2vl_free(). -ENOMEM, or the transport's -errno.
 */
int health_read_sl2vl(struct txn *x, const struct subnet *sn, const struct disc_live *live,
		      const struct route_out *ro, struct health_sl2vl *out);

/*
 * Read the SL of each route from the SA (health_sl.c): a PathRecord Get
 * from one host of each switch to every destination LID, through a
 * transport opened with MAD_UMAD_SA_QUERY, o->window in flight, each tried
 * 1 + o->retries times for o->timeout_ms. out->sl is shaped as ro's
 * route_out.sl (NULL if no Get was answered); asked, failed and status say
 * how it went (a window's worth failing first stops it). -ENOENT when no
 * port knows the SA's LID, -ENOMEM, or the transport's -errno.
 */
int health_read_sl(const struct mad_transport_ops *ops, void *t, const struct txn_opts *o,
		   const struct subnet *sn, const struct disc_live *live,
		   const struct route_out *ro, struct health_sl *out);

#endif
