/* SPDX-License-Identifier: MIT */
#ifndef LOOM_LOOMD_SMSTATE_H
#define LOOM_LOOMD_SMSTATE_H

/*
 * The SM state machine of IBA 14.4: NOT-ACTIVE, DISCOVERING, STANDBY and
 * MASTER, and the election between SMs (priority, then the lower port
 * GUID). Pure logic: events in (what discovery found, an SMInfo Set
 * received, a poll answered or missed, a light sweep's look at the other
 * SMs), actions out (sweep, poll, send a control packet); loomd.c does the
 * actions. Every transition is logged at info with from, to and why.
 */
#include <stdbool.h>
#include <stdint.h>

#include "mad/smp.h"

/* IBA 14.2.5.13: the AttributeModifier of an SMInfo Set (a control packet). */
enum sm_ctrl {
	SM_CTRL_HANDOVER = 1,
	SM_CTRL_ACKNOWLEDGE = 2,
	SM_CTRL_DISABLE = 3,
	SM_CTRL_STANDBY = 4,
	SM_CTRL_DISCOVER = 5,
};

enum sm_input {
	SMI_START,             /* loomd starts (NOT-ACTIVE) */
	SMI_DISCOVERED,        /* discovery done: the other SMs' SMInfo in peers */
	SMI_SET,               /* an SMInfo Set: ctrl, and the sender's SMInfo in peer */
	SMI_POLL,              /* the SM we poll answered: its SMInfo in peer */
	SMI_POLL_MISSED,       /* ... did not answer */
	SMI_PEER,              /* a master's light sweep read another SM: peer */
	SMI_HANDOVER_ANSWERED, /* our HANDOVER was answered (status 0) or not (-errno) */
	SMI_HANDOVER_TIMEOUT,  /* no ACKNOWLEDGE came after our HANDOVER */
	_SMI_MAX
};

struct sm_ev {
	enum sm_input in;
	uint32_t ctrl;           /* SMI_SET: enum sm_ctrl (anything else is refused) */
	struct smp_sm_info peer; /* SMI_SET, SMI_POLL, SMI_PEER */
	const struct smp_sm_info *peers; /* SMI_DISCOVERED: the SMs that answered */
	unsigned n_peers;
	int status;              /* SMI_HANDOVER_ANSWERED */
};

/* What the daemon does after an event (bits). */
enum sm_action {
	SMA_REFUSE = 1 << 0,        /* answer the Set with MAD status "invalid value" */
	SMA_DISCOVER = 1 << 1,      /* discover without programming, then SMI_DISCOVERED */
	SMA_SWEEP = 1 << 2,         /* heavy sweep as master, now */
	SMA_POLL = 1 << 3,          /* poll sm->peer from now on (every poll interval) */
	SMA_SEND_ACK = 1 << 4,      /* SMInfo Set ACKNOWLEDGE to sm->peer */
	SMA_SEND_HANDOVER = 1 << 5, /* SMInfo Set HANDOVER to sm->peer, then SMI_HANDOVER_* */
	SMA_TAKEOVER = 1 << 6,      /* became master in place of another: install its SA state */
	SMA_STOP = 1 << 7,          /* no longer master: stop sweeping and answering the SA */
};

struct smstate {
	uint8_t state; /* enum smp_sm_state */
	uint64_t guid, sm_key;
	uint8_t priority;
	unsigned poll_misses; /* polls missed (or stale) in a row before a takeover */
	bool sticky;          /* a master that took over keeps the role */
	/* Standby: the SM polled. Master handing over: the SM handed to. */
	struct smp_sm_info peer;
	bool have_peer;
	unsigned missed, stale; /* polls in a row: unanswered; answered, ActCount unchanged */
	bool handing_over, acked;
	/*
	 * Handing over, and the HANDOVER was answered with status 0: mastership
	 * has passed; we show STANDBY and sweep no more while the ACKNOWLEDGE
	 * (or its timeout) completes the transition.
	 */
	bool handed;
	bool lost_master; /* DISCOVERING because the master failed: MASTER is a takeover */
	bool stuck;       /* ... because its ActCount stood still (peer: its last answer) */
	bool took_over;   /* master in place of a failed master (sticky keeps it) */
	uint64_t transitions, refused, ignored_keys;
	char why[160];    /* the last transition's reason, for `loom status` */
};

const char *smstate_name(uint8_t state);
void smstate_init(struct smstate *s, uint64_t guid, uint8_t priority, uint64_t sm_key,
		  unsigned poll_misses, bool sticky);
/* IBA 14.4.1.1: the higher priority wins, then the lower port GUID. */
bool smstate_outranks(uint8_t prio_a, uint64_t guid_a, uint8_t prio_b, uint64_t guid_b);
/* An SM whose SMInfo shows another non-zero SM_Key is not one of ours. */
bool smstate_key_ok(const struct smstate *s, const struct smp_sm_info *peer);
/* One event; the actions (enum sm_action bits) the daemon must take. */
unsigned smstate_input(struct smstate *s, const struct sm_ev *ev);
/* The state our SMInfo shows others: STANDBY once a HANDOVER of ours was taken. */
uint8_t smstate_shown(const struct smstate *s);
/*
 * loom handover: a master that sm.sticky keeps (it took over from a failed
 * master) gives the role back; the next look at the other SMs hands over to
 * a higher one, as IBA 14.4 has it. -EPERM: not master; -EALREADY: nothing
 * holds the role (not sticky, or master from the start: it hands over
 * unasked).
 */
int smstate_release(struct smstate *s);

#endif
