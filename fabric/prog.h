/* SPDX-License-Identifier: MIT */
#ifndef LOOM_SM_PROG_H
#define LOOM_SM_PROG_H

/*
 * DOC: fabric/ — what talks to switches through mad/: discovery builds the model,
 * programming brings the fabric to what the model, the routes and plan/ say.
 *   prog.h        this header: prog_run(), its options and report, the LFT cache
 *   prog.c        the programming pass: its phases in order, PortInfo (LIDs, MTU,
 *                 VLs, INIT -> ARMED -> ACTIVE), retries, a message per failure
 *   prog_priv.h   what the prog_*.c phases share: the pass and its requests
 *   prog_lft.c    SwitchInfo's LinearFDBTop and the LFT blocks that differ
 *   prog_pkey.c   the P_KeyTable blocks that differ
 *   prog_qos.c    SLtoVLMappingTable and VLArbitrationTable of each port class
 *   prog_mft.c    the MulticastForwardingTable blocks of the groups' trees
 *   prog_held.c   a cached block as the node holds it: read, sent or left alone
 *   prog_cache.c  the LFTs as last programmed, by switch GUID (the SA reads them);
 *                 the SL-to-VL and VLArb tables as last read or set, by node GUID;
 *                 which nodes look reset, which no SM has configured
 *   disc.c        directed-route discovery (disc.h): NodeInfo, NodeDescription,
 *                 SwitchInfo and PortInfo of every node -> a model and disc_live
 *   disc_dup.c    duplicate GUIDs: probes that tell a redundant link from a
 *                 namesake switch; CAs and CA ports with a known GUID; all left out
 *   disc_part.c   discovery of a part: the last model taken as read, the switches
 *                 that reported read again, what they newly reach walked, the
 *                 unreachable dropped (disc.h: disc_part())
 *   disc_back.c   disc_part's CAs back behind links that stayed up: their PortInfo
 *                 read, the rest as the last model that held them had it
 *   disc_priv.h   what disc.c, disc_dup.c and disc_part.c share: the sweep's state
 *   mkey.c        M_Keys (mkey.h): derived per node, looked up by directed route, the
 *                 route table kept in the state dir
 *   mkey_links.c  M_Keys wherever the SM is: (node, port) -> peer node, the walk, mkey.links
 *   mkey_secret.c the M_Key secret file: created 0600 from getrandom(), checked
 *   health.c      loom health's findings (health.h: the judges' input and output)
 *   health_links.c  judge: port states, trained width/speed, MTU/VLs of link ends
 *   health_sm.c   judge: one master SM, standbys, LIDs, MasterSMLID
 *   health_counters.c  judge: PerfMgt error counters against thresholds
 *   health_thresh.c  ibqueryerrors' threshold file (Name=value lines)
 *   health_since.c  an earlier --json run's counters (--since), a bounded JSON reader
 *   health_read.c SMInfo of every IsSM port, by directed route
 *   health_pma.c  PortCounters of every port that is up, LID-routed to its PMA
 *   health_lft.c  the LFT blocks of every switch up to LinearFDBTop, by directed route
 *   health_sl2vl.c  SL-to-VL tables of switch port pairs onto links with OperationalVLs > 1
 *   health_sl.c   the SL of each route: the SA's PathRecords, one host a switch to every LID
 *   health_routes.c  judge: those LFTs by routing/check.c (per VL on those SLs and
 *                 tables), LinearFDBTop against LIDs
 *   health_drift.c  judge: --expect against the fabric (model/diff.c), cables moved
 *
 * Data flows one way: disc_run() reads the fabric into a model (model/) and
 * what programming needs (model/disc_live.h); routing/ and plan/ say what the
 * fabric should hold; prog_run() sends only the blocks that differ and keeps
 * every answer in disc_live. Nothing here prints: problems go into struct
 * disc_report and struct prog_report for loomd or loom to log.
 */

#include <stdbool.h>
#include <stdint.h>

#include "lib/diag.h"
#include "mad/txn.h"
#include "routing/route.h"
#include "fabric/disc.h"
#include "fabric/mkey.h"
#include "model/subnet.h"
#include "plan/qos.h"

#define PROG_MAX_MSGS 64

struct pkey_plan;
struct config;
struct mcast;

struct prog_opts {
	uint16_t sm_lid;        /* MasterSMLID for every port */
	uint64_t subnet_prefix; /* GID prefix for every port */
	const struct pkey_plan *pkeys; /* P_Key tables to hold; NULL: leave them as they are */
	const struct config *qos;      /* QoS classes to program (the plan's); NULL: leave VL settings */
	/*
	 * The classes' VLHighLimit, HOQLife and VLStallCount too: true for
	 * loom.yaml's classes, false for the defaults that only carry a routing
	 * engine's SL-to-VL map (without a file, the ports keep their own).
	 */
	bool qos_knobs;
	struct mcast *mcast;           /* groups whose MFTs to program (prog_mft.c); NULL: none */
	/*
	 * Ports (indexed like the model) whose P_Key and QoS tables are read
	 * and set (on a switch: the SL-to-VL pairs that have one of them);
	 * NULL: every port. After a targeted sweep, the others' tables are as
	 * the last pass left them: their links did not change.
	 */
	const bool *only;
	const struct mkey *mkey;       /* M_Keys to set (fabric/mkey.h); NULL: M_Key 0 */
	/*
	 * ClientReregister in the PortInfo Set of every CA port (one is sent
	 * to each): its hosts join, register and subscribe again (a new master
	 * that does not hold the old one's SA state).
	 */
	bool client_rereg;
	/*
	 * qos set, but its SL-to-VL and VL arbitration tables neither read nor
	 * sent in this pass (OperationalVLs still follows qos): a takeover's
	 * first pass, whose tables the next pass checks.
	 */
	bool qos_tables_later;
	/*
	 * A takeover's first pass, on a fabric whose LFTs this SM found equal to
	 * its own routes while standby (loomd/ha_plan.h): a switch whose
	 * LinearFDBTop already is the routes' top and whose blocks are not cached
	 * is taken to hold the routes. Its blocks are neither read nor sent, and
	 * cached as the routes but not known, so that the next pass reads every
	 * one back and sends those that differ. Nothing is written that the old
	 * master did not leave: the cost of a wrong guess is one pass's delay.
	 */
	bool lft_later;
};

/* prog_run()'s phases, in order. */
enum prog_phase {
	PROG_PH_PORTS,    /* PortInfo: LIDs, MasterSMLID, MTU, VLs, arming */
	PROG_PH_LFT,      /* SwitchInfo and LFT blocks (read back where not cached) */
	PROG_PH_PKEY,
	PROG_PH_QOS,
	PROG_PH_MFT,
	PROG_PH_ACTIVE,   /* ARMED -> ACTIVE */
	PROG_PHASES
};
extern const char *const prog_phase_name[PROG_PHASES];

/* What one programming pass sent, and what did not take. */
struct prog_report {
	unsigned port_sets;  /* PortInfo Sets: LID, LMC, SM LID, MTU, VLs (arming included) */
	unsigned armed;      /* ports moved INIT -> ARMED */
	unsigned activated;  /* ports moved ARMED -> ACTIVE */
	unsigned active;     /* linked ports ACTIVE at the end (switch port 0 not counted) */
	unsigned not_active; /* linked ports that are not */
	unsigned si_sets;    /* SwitchInfo Sets */
	unsigned lft_reads;  /* LFT blocks read to learn a switch's table */
	unsigned lft_blocks; /* LFT blocks sent */
	unsigned lft_later_sw;     /* switches whose LFT was left unread (prog_opts.lft_later) */
	unsigned lft_later_blocks; /* their blocks */
	/*
	 * Destination LIDs whose entry a block sent changes on some switch (an
	 * entry not known before, read or written, counts when it forwards),
	 * or that a lowered LinearFDBTop stops forwarding.
	 */
	unsigned lids_rerouted;
	unsigned pkey_reads; /* P_Key blocks read to compare */
	unsigned pkey_blocks; /* P_Key blocks sent */
	unsigned qos_reads;  /* SL2VL and VLArb blocks read to compare */
	unsigned qos_blocks; /* SL2VL and VLArb blocks sent */
	/*
	 * Of qos_blocks: sent without a read, to nodes no SM had configured
	 * (fresh_nodes of them; their tables hold what a reset left).
	 */
	unsigned qos_unread;
	unsigned fresh_nodes;
	/* CA/router ports and switches without SL-to-VL tables (plan/qos.h qos_has_sl2vl) */
	unsigned qos_no_sl_map;
	/* Of qos_blocks: optimized SL2VL Sets, each for many tables (prog_qos.c) */
	unsigned qos_opt_sets;
	unsigned mft_reads;  /* MFT blocks read to compare */
	unsigned mft_blocks; /* MFT blocks sent */
	unsigned failed;     /* requests refused or unanswered */
	unsigned mkey_foreign; /* nodes holding another SM's M_Key: left alone */
	/* Each phase's time and SMPs (retries included), for where a pass spends it. */
	unsigned phase_ms[PROG_PHASES];
	uint64_t phase_smps[PROG_PHASES];
	struct diag msgs;    /* start it with .limit = PROG_MAX_MSGS */
};

/*
 * The LFTs as last programmed, by switch GUID, and the SL-to-VL and VL
 * arbitration tables (and, for targeted sweeps, the ports' first P_Key
 * blocks) as last read or set, by node GUID, kept from sweep to sweep so
 * that a sweep diffs against memory instead of reading every block back.
 */
struct prog_cache;
int prog_cache_new(struct prog_cache **out);
void prog_cache_free(struct prog_cache *c);
/*
 * Nothing known about the node's tables any more (the next sweep reads them
 * again): for a node that may have lost them.
 */
void prog_cache_forget(struct prog_cache *c, uint64_t guid);
/*
 * prog_cache_forget() for every node of sn that looks reset since the last
 * model (old_sn, old_live), or since it left a model if it is back: new, its
 * port count changed, a CA's Active port down, a switch's LinearFDBTop
 * changed, or every Active external port of a switch down while its port
 * 0 does not vouch for it (read both times, the same nonzero LID and
 * MasterSMLID), or a LID or MasterSMLID not as that model (or, back, as it
 * left) had it (prog_cache.c says why). A node back that keeps its tables is read again
 * by the next prog_cache_recheck(). old_sn NULL: every node (a takeover).
 */
void prog_cache_forget_reset(struct prog_cache *c, const struct subnet *old_sn,
			     const struct disc_live *old_live, const struct subnet *sn,
			     const struct disc_live *live);
/* A whole heavy sweep: the nodes back that kept their tables are read again now. */
void prog_cache_recheck(struct prog_cache *c);
static inline void prog_cache_freep(struct prog_cache **c)
{
	prog_cache_free(*c);
}
/*
 * A switch's LFT as last programmed (for the SA): entries 0..*len-1, a
 * multiple of 64; -ENOENT if nothing is known about that switch.
 */
int prog_cache_lft(const struct prog_cache *c, uint64_t guid, const uint8_t **lft,
		   uint32_t *len);

/*
 * Bring the fabric to what sn (LIDs assigned) and ro (routed) say, over x:
 *   1. PortInfo of every LID-bearing port and linked switch port: LID, LMC,
 *      MasterSMLID, prefix, NeighborMTU and OperationalVLs agreed with the
 *      peer; ports in INIT are armed in the same Set;
 *   2. (prog_lft.c) SwitchInfo (LinearFDBTop) and the LFT blocks that differ from what
 *      the switch holds (cache, or read back; a switch whose LinearFDBTop is
 *      0 has never been programmed and is written whole);
 *   3. P_Key tables (o->pkeys): each block read, sent only if it differs,
 *      but on a node no SM had configured (ports Init, LID 0, a switch's
 *      LinearFDBTop 0: prog_cache.c) sent without a read;
 *   4. SL-to-VL and VL arbitration tables of each port class (o->qos), the
 *      same way (known blocks diffed against the cache);
 *      OperationalVLs goes with step 1;
 *   4b. MulticastForwardingTable blocks of o->mcast's groups' trees
 *      (prog_mft.c), the same way, blocks of deleted groups cleared;
 *   5. every ARMED port to ACTIVE, once both ends of every link are armed.
 * Only what differs is sent: on a fabric already so programmed, nothing is.
 * live is updated with every answer. Returns 0 (rep says what failed) or -errno.
 */
int prog_run(struct txn *x, const struct subnet *sn, struct disc_live *live,
	     const struct route_out *ro, const struct prog_opts *o, struct prog_cache *cache,
	     struct prog_report *rep);
void prog_report_free(struct prog_report *rep);

/*
 * Step 4b of prog_run alone, for a multicast change between sweeps: the
 * MFT blocks of every switch of sn that differ from o->mcast's trees (each
 * block read once, then diffed against what was sent). ro is the routing
 * the last sweep programmed (for messages). 0 or -errno; rep says what failed.
 */
int prog_mft_run(struct txn *x, const struct subnet *sn, struct disc_live *live,
		 const struct route_out *ro, struct mcast *mc, struct prog_report *rep);

#endif
