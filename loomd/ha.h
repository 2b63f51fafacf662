/* SPDX-License-Identifier: MIT */
#ifndef LOOM_LOOMD_HA_H
#define LOOM_LOOMD_HA_H

/*
 * The daemon's side of HA (IBA 14.4): the MADs the state machine
 * (smstate.c) asks for. Discovery without programming, the SMInfo of the
 * other SMs (fabric/health_read.c reads them), the standby's poll of its
 * master, and the control packets (SMInfo Set HANDOVER, ACKNOWLEDGE). Each
 * call runs its MADs to completion through the loop's transport, as a
 * sweep does, and returns the state machine's actions (enum sm_action).
 */
#include <stdint.h>

#include "fabric/mkey.h"
#include "loomd/smstate.h"
#include "mad/txn.h"
#include "model/disc_live.h"
#include "model/subnet.h"

#define HA_OTHERS 16

struct ha {
	struct smstate sm;
	struct txn *x;
	/* Our own discovery while not master: for the paths to the other SMs. */
	struct subnet *sn;
	struct disc_live live;
	uint32_t me;            /* our port in sn */
	bool clean;             /* sn: every node answered, discovery had nothing to report */
	uint64_t disc_smps;     /* the last ha_discover's SMPs and time */
	unsigned disc_ms;
	uint64_t poll_us;       /* sm.poll-interval */
	unsigned pending;       /* actions asked for from the agent's hook, for the loop */
	uint64_t ack_due_us;    /* master handing over: the ACKNOWLEDGE is due by then */
	uint64_t lost_us;       /* when the last poll before a takeover was missed */
	uint64_t polls, poll_missed;
	/* The master answered a poll after its try ran out (ha_late_answer): with what. */
	bool late;
	struct smp_sm_info late_smi;
	uint64_t trap144_sent;  /* traps 144 sent to a master we outrank */
	/* The other SMs as a master's last look read them (SMInfoRecords list them). */
	struct smp_sm_info others[HA_OTHERS];
	unsigned n_others;
	uint64_t known[HA_OTHERS]; /* port GUIDs that answered SMInfo at the last whole look */
	unsigned n_known;
	/*
	 * M_Keys (NULL: off): every discovery of ours teaches them its routes
	 * and links (saved to mkey_links), so that polls, reads and a takeover
	 * use the right keys; mkey_created: the secret is new (this start).
	 */
	struct mkey *mkey;
	const char *mkey_links;
	bool mkey_created;
	bool mkey_said; /* the failure that M_Keys explain is logged once */
	bool mkey_block_said; /* and that it keeps this SM from electing */
	uint16_t links_from; /* our port's MasterSMLID: whose SA to ask for the links */
	bool links_asked;    /* before the first discovery (links_first) */
	bool links_busy;     /* the loop's fetch of the links is under way */
	unsigned local_port; /* the port we opened: our PortInfo's AttributeModifier */
};

void ha_init(struct ha *h, struct txn *x, uint8_t priority, uint64_t sm_key, uint64_t poll_us,
	     unsigned poll_misses, bool sticky);
void ha_free(struct ha *h);
/* Discover (no Set sent), read the other SMs' SMInfo, elect. */
unsigned ha_discover(struct ha *h);
/*
 * The last discovery's model, if whole, for the heavy sweep that follows an
 * election (so that it does not discover again): true and *sn, *live
 * (now the caller's), and its SMPs and time; false if there is none.
 */
bool ha_take_model(struct ha *h, struct subnet **sn, struct disc_live *live, uint64_t *smps,
		   unsigned *ms);
/*
 * How long a master must stay silent before a standby declares it lost:
 * from the send of the first poll it missed to the end of the last of
 * sm.poll-misses polls in a row, each one try of ha_try_ms(), the next sent
 * as soon as one is missed. Two fifths of a poll interval, 800 ms at least:
 * at the default 2 s polls, the floor. That is twice the longest silence
 * seen of a live master (an OpenSM master busy with a sweep on the
 * simulator missed a 400 ms window), and an answer that comes after its try
 * ran out still counts (ha_late_answer()), so only silence over the whole
 * window takes over. It was half an interval (1 s at 2 s polls): the
 * window is most of a failover's time that does not depend on where the
 * kill fell in the poll interval (bench/failover's tail: 700 -> 500 ms at
 * 648 hosts), and a longer poll interval still buys a longer window.
 *
 * Why that is safe for a live master: loomd answers SMInfo from its loop, and
 * the loop reads its port all the time: between MADs in a sweep (txn), and
 * while LIDs and routes are computed (a vlayered 16^3 torus routes for 2 s,
 * longer than the window), beside the worker that computes them (sweep.h:
 * hold). Measured on a 14^3 torus (vlayered, 1 s of routing a heavy sweep), a
 * standby polling every 200 ms: before the worker, each heavy sweep of the
 * master cost 3 misses in a row and a false "lost"; with it, none in two heavy
 * sweeps (on an overloaded machine, where the same sweep took 19 s, polls
 * still waited in the simulator's queue past the window; the discovery after
 * the "lost" found the master and stood by again). What it does on its loop alone (one SA answer, one file written)
 * takes milliseconds: a poll waiting in its queue meanwhile is answered late,
 * but within its try. A master silent for the whole window is dead, hung or
 * cut off; a takeover of a merely stopped one is still harmless: once it runs
 * again the two see each other's MASTER state and the lower one hands over
 * (IBA 14.4).
 */
static inline uint64_t ha_window_us(const struct ha *h)
{
	return h->poll_us * 2 / 5 > 800000 ? h->poll_us * 2 / 5 : 800000;
}
/* One poll's one try: the window over poll-misses, 50 ms at least. */
static inline unsigned ha_try_ms(const struct ha *h)
{
	uint64_t t = ha_window_us(h) / 1000 / (h->sm.poll_misses ? h->sm.poll_misses : 1);

	return t > 50 ? (unsigned)t : 50;
}
/*
 * The oldest mirror of the master's SA state (ha_mirror.h) a takeover
 * trusts alone. A fetch follows every poll the master answers, so the
 * mirror a takeover installs is at most one poll interval, the window and
 * a fetch old (2.8 s at the defaults) when the master really failed. Twice
 * that (5.6 s) means at least one more fetch failed: the master's SA did not
 * answer us, and whatever joined, registered or subscribed since is not in
 * the mirror. Older (or no mirror at all): the first sweep sets
 * ClientReregister on every CA port, so that the hosts register again
 * (IBA 14.4.11), as OpenSM does at every failover.
 */
static inline uint64_t ha_mirror_max_age_ms(const struct ha *h)
{
	return 2 * (h->poll_us + ha_window_us(h)) / 1000;
}
/*
 * Standby that outranks its master: trap 144 (SM priority changed) to the
 * master's LID, as a port's SM does when it rises (IBA 14.4.1), so that
 * the master's next sweep finds this SM and hands over. 0 or -errno.
 */
int ha_send_trap144(struct ha *h);
/* Standby: read the SMInfo of the SM we poll. */
unsigned ha_poll(struct ha *h);
/*
 * A response no transaction waits for (the loop's hook for them): true,
 * and taken, when it is the SMInfo of the master this standby polls, the
 * answer to a poll whose try ran out. A slow master is not a dead one: the
 * next ha_poll() that misses counts it as answered, so the confirmation
 * window tolerates a master that answers every poll later than one try
 * (before, three late answers in a row were three misses).
 */
bool ha_late_answer(struct ha *h, const uint8_t *mad, size_t len);
/*
 * Master, after a sweep of (sn, live): read the other SMs' SMInfo, elect.
 * all (after a heavy sweep): every port that says IsSM; else only those
 * that answered at the last such look (IBA 14.4.1: the master polls the SMs
 * it knows; a new SM says it is there with trap 144, which asks for a
 * heavy sweep). A port that says IsSM but never answers is not asked again
 * at every light sweep (each ask would wait out its retries).
 */
unsigned ha_look(struct ha *h, const struct subnet *sn, const struct disc_live *live, bool all);
/*
 * Send the SMInfo Set ctrl (SM_CTRL_HANDOVER, _ACKNOWLEDGE) to the SM in
 * h->sm.peer, by directed route through (sn, live) or our own discovery.
 * 0 when it answered with status 0, else -errno.
 */
int ha_send_ctrl(struct ha *h, const struct subnet *sn, const struct disc_live *live,
		 uint32_t ctrl);
/* An SMInfo Set received (the agent's hook): the actions; SMA_REFUSE: answer with an error. */
unsigned ha_set_received(struct ha *h, uint32_t ctrl, const struct smp_sm_info *sender);

#endif
