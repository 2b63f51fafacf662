/* SPDX-License-Identifier: MIT */
#ifndef LOOM_SM_SWEEP_H
#define LOOM_SM_SWEEP_H

#include <stdbool.h>
#include <stdint.h>

#include "config/config.h"
#include "lib/diag.h"
#include "mad/txn.h"
#include "routing/route.h"
#include "loomd/agent.h"
#include "loomd/flap.h"
#include "fabric/disc.h"
#include "plan/lid.h"
#include "plan/mcast.h"
#include "plan/plan.h"
#include "fabric/prog.h"
#include "model/diff.h"
#include "model/subnet.h"

#define SWEEP_MAX_EVENTS 64 /* lines kept; past them, a count */

struct sweep_opts {
	struct route_chain engines; /* tried in order until one routes the fabric */
	struct route_opts route;
	const char *guid2lid;   /* the persistent guid-to-LID map; NULL: none */
	uint64_t subnet_prefix; /* 0: keep what the SM's port has, else fe80::/64 */
	const struct config *config; /* partitions to program; NULL: P_Keys left alone */
	struct flap_opts flap;
	/* A heavy sweep at least this often (lost traps); 0: only when needed. */
	unsigned heavy_ms;
	unsigned sm_lid_checks; /* ports a light sweep checks for MasterSMLID (sm.master-lid-checks) */
	/* M_Keys to use and set (fabric/mkey.h); NULL: none. The route table goes to
	 * mkey_paths, the links table to mkey_links. */
	struct mkey *mkey;
	const char *mkey_paths;
	const char *mkey_links; /* the links table (any SM's, mkey_links.c) */
};

/*
 * The SM's sweeps, from one heavy sweep to the next: the model of the last
 * one (and what the fabric said that the model does not hold), the LID
 * map, and the LFTs as programmed.
 */
struct sweeper {
	struct txn *x;
	struct agent *agent;
	struct sweep_opts o;
	struct lid_map *lids;
	struct prog_cache *cache;
	/* The model routed: as discovered, less the damped links (flap). */
	struct subnet *sn;
	struct disc_live live;
	/*
	 * What the fabric should hold, for sn: the routes the LFTs were
	 * programmed from (empty when the last heavy sweep could not route),
	 * the P_Keys and QoS classes. The SA answers from it.
	 */
	struct plan plan;
	struct mcast *mcast;   /* multicast groups (the SA changes them) and the MFTs programmed */
	/* What the last heavy sweep found changed since the one before: one line an event. */
	struct diag events;
	struct flap flap; /* links that change too often, kept out of sn */
	/*
	 * A whole discovery made just before (the SM election's, ha.c), which
	 * the next heavy sweep starts from instead of discovering again; its
	 * SMPs and time count in that sweep's.
	 */
	struct subnet *pre_sn;
	struct disc_live pre_live;
	/*
	 * The last model that held nodes the one after it lacks (cut off by an
	 * event), and its live data: a targeted sweep takes the CAs that come
	 * back as they were there (fabric/disc_back.c). NULL: none.
	 */
	struct subnet *gone_sn;
	struct disc_live gone_live;
	uint64_t pre_smps;
	unsigned pre_ms;
	unsigned heavy, light; /* sweeps done */
	unsigned targeted;     /* sweeps of a part done (sweep_targeted.c) */
	/*
	 * Since the last heavy sweep: the switches (indices in sn) a light
	 * sweep saw PortStateChange on, and whether one did not answer.
	 */
	uint32_t *dirty;
	uint32_t n_dirty, cap_dirty;
	bool dirty_lost;
	uint64_t heavy_at_ms; /* when the last heavy sweep ended (CLOCK_MONOTONIC) */
	bool force_heavy;     /* the next sweep reads it all (loom sweep --heavy, a reload) */
	bool route_afresh;    /* the next plan keeps no route from the last (a reload) */
	/*
	 * During a targeted sweep: the nodes of the new model whose links
	 * changed (or that are new), whose P_Key and QoS tables are programmed;
	 * NULL: all of them (a heavy sweep).
	 */
	const bool *only;
	bool up;               /* the last heavy sweep reached SUBNET UP */
	/* It did not, only because some Sets went unanswered or ports are not Active yet (a
	 * switch cut off during it, say): traps that explain it may still be handled in part. */
	bool short_prog;
	/*
	 * This SM took over a running subnet: until a heavy sweep reaches SUBNET
	 * UP, the LIDs the ports hold (the old master's) win over the map's.
	 */
	bool takeover;
	/*
	 * ... and its mirror of the old master's SA state was missing or too
	 * old (daemon_ha.c): until a heavy sweep reaches SUBNET UP, every CA
	 * port's PortInfo Set carries ClientReregister.
	 */
	bool rereg;
	/*
	 * While standby, this SM's routes matched the LFTs the master left
	 * (loomd/ha_plan.h, set by daemon_ha.c): the first sweep of a takeover
	 * leaves those LFTs unread (prog_opts.lft_later), the heavy sweep right
	 * after reads them back. Used once.
	 */
	bool lft_trust;
	uint32_t sample_next; /* the next port a light sweep checks for MasterSMLID */
	/*
	 * LIDs and routes are computed on a worker thread while this thread
	 * keeps reading the port: hold(arg, true) before, (arg, false) after.
	 * The owner answers SMInfo Gets in between (a standby's poll must not
	 * find a live master silent for a long routing run) and keeps every
	 * other request until then (they would read what the worker writes).
	 * NULL: routing on this thread, nothing read meanwhile.
	 */
	void (*hold)(void *arg, bool on);
	void *hold_arg;
	unsigned mkey_foreign; /* the last heavy sweep: nodes with another SM's M_Key */
};

/* One sweep, as the summary line tells it. */
struct sweep_stats {
	bool heavy;
	bool targeted;    /* heavy too: a part of the fabric read, the rest planned as a heavy one */
	uint32_t nodes, ports;
	unsigned changes; /* heavy: Sets sent; light: switches reporting a change */
	unsigned events;  /* heavy: nodes gone or new, links down, up, damped or released */
	unsigned lft_blocks; /* of the changes: LFT blocks sent */
	unsigned lids_rerouted; /* destination LIDs whose LFT entry changed on some switch */
	unsigned pkey_blocks; /* of the changes: P_Key blocks sent */
	unsigned qos_blocks;  /* of the changes: SL2VL and VLArb blocks sent */
	unsigned qos_unread;  /* of those: sent unread to fresh_nodes no SM had configured */
	unsigned fresh_nodes;
	unsigned qos_no_sl_map; /* CA ports and switches without SL-to-VL tables: left alone */
	unsigned mft_blocks;  /* of the changes: MFT blocks sent */
	uint64_t smps;    /* SMPs sent by this sweep, retries included */
	unsigned ms;
	/* heavy: where the time went (discovery's SMPs are smps less the phases') */
	unsigned disc_ms, plan_ms;
	bool qos_deferred; /* a takeover's sweep: QoS tables left to a heavy sweep at once */
	unsigned lft_deferred; /* ... and the LFTs of this many switches (prog_opts.lft_later) */
	unsigned lft_deferred_blocks;
	unsigned lft_reads;    /* LFT blocks read back */
	unsigned phase_ms[PROG_PHASES];
	uint64_t phase_smps[PROG_PHASES];
	bool up;
	bool short_prog;   /* not up, and the first reason is programming's (sweeper.short_prog) */
	char why_not[160]; /* why the sweep did not reach SUBNET UP */
	char routes[256];  /* whether the routes before were kept (plan/keep.h), "": not tried */
	/* light: sampled ports whose MasterSMLID is not ours; the first, and what it had */
	unsigned sm_lid_wrong;
	uint32_t sm_lid_port;
	uint16_t sm_lid_seen;
};

/* Load the LID map (its bad lines go to msgs). -errno on I/O errors. */
int sweeper_init(struct sweeper *s, struct txn *x, struct agent *a, const struct sweep_opts *o,
		 struct diag *msgs);
void sweeper_free(struct sweeper *s);

/*
 * Discover, assign LIDs, route and program what differs. Problems go to
 * msgs (the caller logs them). -errno only when the sweep could not run at
 * all (the local port does not answer, out of memory).
 */
int sweep_heavy(struct sweeper *s, struct sweep_stats *st, struct diag *msgs);
/*
 * The rest of a heavy sweep, on a model just read (sn and live are taken,
 * freed on failure): damped links out, plan_build(), program what differs;
 * sn becomes s->sn. Problems go to msgs; -errno when it could not run.
 */
int sweep_apply(struct sweeper *s, struct subnet *sn, struct disc_live *live,
		struct sweep_stats *st, struct diag *msgs);
/*
 * sweep_targeted.c: s->sn and s->live are replaced by sn: kept as
 * s->gone_sn if sn lacks some of their nodes, else freed. After a takeover
 * (another master had the fabric) nothing is kept.
 */
void sweep_keep_gone(struct sweeper *s, const struct subnet *sn);
/*
 * sweep_targeted.c: after a trap 128 or a light sweep that saw a change,
 * read only what those can have changed (disc_part()) and go on as a heavy
 * sweep does; a heavy sweep instead when the part cannot be told (a trap
 * from a LID the model does not know, no reporter, a reporter that does not
 * answer, a switch that did not answer and is still reachable) or when
 * the last heavy sweep is older than heavy_ms. st->targeted says which ran.
 */
int sweep_event(struct sweeper *s, struct sweep_stats *st, struct diag *msgs);
/* The safety net's heavy sweep is due at now_us (CLOCK_MONOTONIC). */
bool sweep_heavy_due(const struct sweeper *s, uint64_t now_us);
/* When it will be (CLOCK_MONOTONIC us); UINT64_MAX: never (heavy_ms 0, or no model yet). */
uint64_t sweep_heavy_at_us(const struct sweeper *s);
/* A light sweep's reporter (lost: it did not answer); -ENOMEM is remembered as lost. */
void sweep_dirty_add(struct sweeper *s, uint32_t node, bool lost);
/* A heavy sweep read everything at now_ms: the reporters are forgotten. */
void sweep_dirty_clear(struct sweeper *s, uint64_t now_ms);
/*
 * A damped link's hold is over at now_us (CLOCK_MONOTONIC): the next sweep
 * must be heavy to put it back in the routes.
 */
bool sweep_flap_due(const struct sweeper *s, uint64_t now_us);
/*
 * The sweep timer's next time after a sweep at now_us: next_us, or earlier
 * when a damped link's hold ends (a second after now_us at the earliest).
 */
uint64_t sweep_next_us(const struct sweeper *s, uint64_t now_us, uint64_t next_us);
/*
 * Ask every switch of the last model whether a port changed state
 * (SwitchInfo:PortStateChange); *changed when one did or did not answer.
 */
int sweep_light(struct sweeper *s, bool *changed, struct sweep_stats *st);
/*
 * Multicast changed between sweeps (a join or leave through the SA): the
 * MFT blocks that differ from the groups' trees, on the last sweep's
 * model. Nothing to do before the first SUBNET UP (the heavy sweep does it).
 */
int sweep_mcast(struct sweeper *s, struct sweep_stats *st, struct diag *msgs);

#endif
