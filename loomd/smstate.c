/* SPDX-License-Identifier: MIT */
/*
 * The SM state machine (IBA 14.4), one switch on the state and the event.
 * Control packets (SMInfo Set) are checked as IBA 14.4.1 and OpenSM do:
 * ACKNOWLEDGE only from a STANDBY sender, HANDOVER, DISABLE, STANDBY and
 * DISCOVER only from a MASTER, and each only in the states that take it.
 * A HANDOVER goes from a master to the SM it hands mastership to; that SM
 * answers, sends ACKNOWLEDGE (showing STANDBY, the state it received the
 * handover in) and becomes master; the old master shows STANDBY once its
 * HANDOVER is answered, and goes STANDBY on the ACKNOWLEDGE, or after a poll
 * interval without one (OpenSM sends none). A master hands over to a higher
 * STANDBY or MASTER SM only, not to one still DISCOVERING.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "lib/log.h"
#include "loomd/smstate.h"

static const char *const state_name[] = {
	[SMP_SM_NOT_ACTIVE] = "NOTACTIVE", [SMP_SM_DISCOVERING] = "DISCOVERING",
	[SMP_SM_STANDBY] = "STANDBY",      [SMP_SM_MASTER] = "MASTER",
};

static const char *const ctrl_name[] = {
	[SM_CTRL_HANDOVER] = "HANDOVER", [SM_CTRL_ACKNOWLEDGE] = "ACKNOWLEDGE",
	[SM_CTRL_DISABLE] = "DISABLE",   [SM_CTRL_STANDBY] = "STANDBY",
	[SM_CTRL_DISCOVER] = "DISCOVER",
};

static const char *const input_name[_SMI_MAX] = {
	[SMI_START] = "start", [SMI_DISCOVERED] = "discovery done", [SMI_SET] = "SMInfo Set",
	[SMI_POLL] = "poll answered", [SMI_POLL_MISSED] = "poll missed",
	[SMI_PEER] = "another SM seen", [SMI_HANDOVER_ANSWERED] = "handover answered",
	[SMI_HANDOVER_TIMEOUT] = "no acknowledge",
};

const char *smstate_name(uint8_t state)
{
	return state < 4 ? state_name[state] : "?";
}

static const char *ctrl_str(uint32_t c)
{
	return c >= SM_CTRL_HANDOVER && c <= SM_CTRL_DISCOVER ? ctrl_name[c] : "unknown";
}

void smstate_init(struct smstate *s, uint64_t guid, uint8_t priority, uint64_t sm_key,
		  unsigned poll_misses, bool sticky)
{
	memset(s, 0, sizeof(*s));
	s->state = SMP_SM_NOT_ACTIVE;
	s->guid = guid;
	s->priority = priority;
	s->sm_key = sm_key;
	s->poll_misses = poll_misses ? poll_misses : 1;
	s->sticky = sticky;
}

bool smstate_outranks(uint8_t prio_a, uint64_t guid_a, uint8_t prio_b, uint64_t guid_b)
{
	return prio_a != prio_b ? prio_a > prio_b : guid_a < guid_b;
}

bool smstate_key_ok(const struct smstate *s, const struct smp_sm_info *peer)
{
	return !peer->sm_key || !s->sm_key || peer->sm_key == s->sm_key;
}

static bool peer_outranks_me(const struct smstate *s, const struct smp_sm_info *p)
{
	return smstate_outranks(p->priority, p->guid, s->priority, s->guid);
}

static void go(struct smstate *s, uint8_t to, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The one place a state changes: logged with from, to and why. */
static void go(struct smstate *s, uint8_t to, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s->why, sizeof(s->why), fmt, ap);
	va_end(ap);
	log_info("SM state %s -> %s: %s", smstate_name(s->state), smstate_name(to), s->why);
	s->state = to;
	s->transitions++;
	s->missed = s->stale = 0;
	if (to != SMP_SM_MASTER)
		s->handing_over = s->acked = s->handed = false;
	if (to != SMP_SM_DISCOVERING)
		s->lost_master = s->stuck = false;
}

static void unexpected(struct smstate *s, const struct sm_ev *ev)
{
	log_warn("SM: %s in state %s is not expected; ignored", input_name[ev->in],
		 smstate_name(s->state));
}

/* Poll p from now on (a standby watches its master). */
static unsigned watch(struct smstate *s, const struct smp_sm_info *p)
{
	s->peer = *p;
	s->have_peer = true;
	return SMA_POLL;
}

static unsigned become_master(struct smstate *s, const char *why)
{
	unsigned act = SMA_SWEEP;

	if (s->lost_master) {
		act |= SMA_TAKEOVER;
		s->took_over = true;
	}
	go(s, SMP_SM_MASTER, "%s", why);
	s->have_peer = false;
	return act;
}

/* Discovery done (DISCOVERING): stand by for a master or a higher SM, or be master. */
static unsigned discovered(struct smstate *s, const struct sm_ev *ev)
{
	const struct smp_sm_info *master = NULL, *higher = NULL;

	for (unsigned i = 0; i < ev->n_peers; i++) {
		const struct smp_sm_info *p = &ev->peers[i];

		if (p->guid == s->guid || !smstate_key_ok(s, p))
			continue;
		/*
		 * The master we lost because its ActCount stood still, answering
		 * with the same count: its agent lives, its loop does not. Standing
		 * by for it again would wait on it forever. (A master lost to
		 * missed polls that answers now, its count moved, is stood by
		 * for: it was slow, not gone.)
		 */
		if (s->lost_master && s->stuck && p->guid == s->peer.guid &&
		    p->act_count == s->peer.act_count) {
			log_info("SM: SM 0x%016" PRIx64 " still shows MASTER with ActCount %" PRIu32
				 ", as at our last polls: taken as stuck", p->guid, p->act_count);
			continue;
		}
		if (p->state == SMP_SM_MASTER &&
		    (!master || smstate_outranks(p->priority, p->guid, master->priority,
						 master->guid)))
			master = p;
		else if ((p->state == SMP_SM_DISCOVERING || p->state == SMP_SM_STANDBY) &&
			 peer_outranks_me(s, p) &&
			 (!higher || smstate_outranks(p->priority, p->guid, higher->priority,
						      higher->guid)))
			higher = p;
	}
	if (master) {
		/* IBA 14.4.1.1: a master hands over; until it does, we stand by and poll it. */
		go(s, SMP_SM_STANDBY, "master SM 0x%016" PRIx64 " (priority %u) found%s",
		   master->guid, master->priority,
		   peer_outranks_me(s, master) ? "" : "; we outrank it: waiting for its HANDOVER");
		return watch(s, master);
	}
	if (higher) {
		go(s, SMP_SM_STANDBY, "SM 0x%016" PRIx64 " (priority %u, %s) outranks us",
		   higher->guid, higher->priority, smstate_name(higher->state));
		return watch(s, higher);
	}
	return become_master(s, s->lost_master ? "the master is gone; taking over"
					       : "no master and no higher SM on the subnet");
}

/* IBA 14.4.1: who may send which control packet. */
static bool sender_ok(const struct sm_ev *ev)
{
	if (ev->ctrl == SM_CTRL_ACKNOWLEDGE)
		return ev->peer.state == SMP_SM_STANDBY;
	if (ev->ctrl >= SM_CTRL_HANDOVER && ev->ctrl <= SM_CTRL_DISCOVER)
		return ev->peer.state == SMP_SM_MASTER;
	return false;
}

static unsigned refuse(struct smstate *s, const struct sm_ev *ev, const char *why)
{
	s->refused++;
	log_warn("SM: refused SMInfo Set %s (%u) from SM 0x%016" PRIx64 " (%s) in state %s: %s",
		 ctrl_str(ev->ctrl), ev->ctrl, ev->peer.guid, smstate_name(ev->peer.state),
		 smstate_name(s->state), why);
	return SMA_REFUSE;
}

static unsigned handover_to_me(struct smstate *s, const struct sm_ev *ev)
{
	unsigned act;

	s->lost_master = true; /* mastership comes from another SM: its SA state with it */
	act = become_master(s, "HANDOVER received");
	s->peer = ev->peer;
	s->have_peer = true;
	return act | SMA_SEND_ACK;
}

static unsigned set_received(struct smstate *s, const struct sm_ev *ev)
{
	const struct smp_sm_info *p = &ev->peer;

	if (!smstate_key_ok(s, p)) {
		s->ignored_keys++;
		return refuse(s, ev, "its SM_Key is not ours (sm.sm-key)");
	}
	if (!sender_ok(ev))
		return refuse(s, ev, ev->ctrl == SM_CTRL_ACKNOWLEDGE ?
				     "only a STANDBY SM may acknowledge" :
				     "only a MASTER SM may send this control");
	switch (s->state) {
	case SMP_SM_NOT_ACTIVE:
		if (ev->ctrl == SM_CTRL_STANDBY) {
			go(s, SMP_SM_STANDBY, "STANDBY from master 0x%016" PRIx64, p->guid);
			return watch(s, p);
		}
		if (ev->ctrl == SM_CTRL_DISCOVER) {
			go(s, SMP_SM_DISCOVERING, "DISCOVER from master 0x%016" PRIx64, p->guid);
			return SMA_DISCOVER;
		}
		break;
	case SMP_SM_DISCOVERING:
		if (ev->ctrl == SM_CTRL_HANDOVER)
			return handover_to_me(s, ev);
		if (ev->ctrl == SM_CTRL_DISCOVER)
			return 0; /* already */
		if (ev->ctrl == SM_CTRL_DISABLE) {
			go(s, SMP_SM_NOT_ACTIVE, "DISABLE from master 0x%016" PRIx64, p->guid);
			return 0;
		}
		break;
	case SMP_SM_STANDBY:
		switch (ev->ctrl) {
		case SM_CTRL_HANDOVER:
			return handover_to_me(s, ev);
		case SM_CTRL_ACKNOWLEDGE: /* a late one for a handover of ours: we are standby already */
		case SM_CTRL_STANDBY:
			return 0;
		case SM_CTRL_DISABLE:
			go(s, SMP_SM_NOT_ACTIVE, "DISABLE from master 0x%016" PRIx64, p->guid);
			s->have_peer = false;
			return 0;
		case SM_CTRL_DISCOVER:
			go(s, SMP_SM_DISCOVERING, "DISCOVER from master 0x%016" PRIx64, p->guid);
			return SMA_DISCOVER;
		}
		break;
	case SMP_SM_MASTER:
		switch (ev->ctrl) {
		case SM_CTRL_HANDOVER:
			/* Another master hands us its part: sweep it in (OpenSM does the same). */
			log_info("SM: HANDOVER from master 0x%016" PRIx64 " while MASTER: sweeping",
				 p->guid);
			s->peer = *p;
			s->have_peer = true;
			return SMA_SWEEP | SMA_SEND_ACK;
		case SM_CTRL_ACKNOWLEDGE:
			if (!s->handing_over || p->guid != s->peer.guid)
				return 0; /* legal, and nothing to do */
			s->acked = true;
			go(s, SMP_SM_STANDBY, "SM 0x%016" PRIx64 " acknowledged our HANDOVER",
			   p->guid);
			return watch(s, &s->peer) | SMA_STOP;
		case SM_CTRL_DISCOVER:
			go(s, SMP_SM_DISCOVERING, "DISCOVER from master 0x%016" PRIx64, p->guid);
			return SMA_DISCOVER | SMA_STOP;
		}
		break;
	}
	return refuse(s, ev, "not a transition IBA 14.4 allows in this state");
}

/* Standby: the SM we poll answered. */
static unsigned polled(struct smstate *s, const struct sm_ev *ev)
{
	const struct smp_sm_info *p = &ev->peer;

	if (s->state != SMP_SM_STANDBY || !s->have_peer || p->guid != s->peer.guid)
		return 0;
	if (p->state != SMP_SM_MASTER && !(p->state != SMP_SM_NOT_ACTIVE && peer_outranks_me(s, p))) {
		s->lost_master = true;
		go(s, SMP_SM_DISCOVERING, "SM 0x%016" PRIx64 " we poll is %s now", p->guid,
		   smstate_name(p->state));
		return SMA_DISCOVER;
	}
	s->missed = 0;
	/* A live master answers from its loop, and counts the answer: its ActCount moves. */
	s->stale = p->act_count == s->peer.act_count ? s->stale + 1 : 0;
	s->peer = *p;
	if (s->stale < s->poll_misses)
		return 0;
	s->lost_master = s->stuck = true;
	go(s, SMP_SM_DISCOVERING, "master 0x%016" PRIx64 " answers but its ActCount %" PRIu32
	   " has not moved in %u polls", p->guid, p->act_count, s->stale);
	return SMA_DISCOVER;
}

static unsigned poll_missed(struct smstate *s)
{
	if (s->state != SMP_SM_STANDBY || !s->have_peer)
		return 0;
	if (++s->missed < s->poll_misses)
		return 0;
	s->lost_master = true;
	go(s, SMP_SM_DISCOVERING, "master 0x%016" PRIx64 " did not answer %u polls in a row",
	   s->peer.guid, s->missed);
	return SMA_DISCOVER;
}

/* Master: a light sweep read another SM's SMInfo. */
static unsigned peer_seen(struct smstate *s, const struct sm_ev *ev)
{
	const struct smp_sm_info *p = &ev->peer;

	if (s->state != SMP_SM_MASTER || s->handing_over || p->guid == s->guid)
		return 0;
	if (!smstate_key_ok(s, p)) {
		s->ignored_keys++;
		log_warn("SM: SM 0x%016" PRIx64 " shows SM_Key 0x%016" PRIx64 ", not ours: ignored",
			 p->guid, p->sm_key);
		return 0;
	}
	if (p->state == SMP_SM_NOT_ACTIVE || !peer_outranks_me(s, p))
		return 0; /* a lower master must hand over to us: nothing to do here */
	/*
	 * IBA 14.4.1: a master hands over to a higher STANDBY (or MASTER) SM.
	 * One still DISCOVERING finds us master when its discovery ends, stands
	 * by and says so (trap 144; our next look sees it STANDBY). A HANDOVER
	 * now would come too early: OpenSM takes one in DISCOVERING as "sweep
	 * again", finds us still MASTER (we wait for its ACKNOWLEDGE), stands
	 * by, and both SMs stand by until its polls of us time out.
	 */
	if (p->state == SMP_SM_DISCOVERING) {
		log_debug("SM: SM 0x%016" PRIx64 " (priority %u) outranks us and is still "
			  "DISCOVERING: handing over once it stands by", p->guid, p->priority);
		return 0;
	}
	if (s->sticky && s->took_over) {
		log_debug("SM: SM 0x%016" PRIx64 " (priority %u) outranks us; sm.sticky: staying "
			  "master", p->guid, p->priority);
		return 0;
	}
	log_info("SM: SM 0x%016" PRIx64 " (priority %u, %s) outranks us: sending it HANDOVER",
		 p->guid, p->priority, smstate_name(p->state));
	s->peer = *p;
	s->have_peer = true;
	s->handing_over = true;
	s->acked = s->handed = false;
	return SMA_SEND_HANDOVER;
}

static unsigned handover_answered(struct smstate *s, const struct sm_ev *ev)
{
	if (s->state != SMP_SM_MASTER || !s->handing_over)
		return 0;
	if (ev->status < 0) {
		s->handing_over = false;
		log_warn("SM: HANDOVER to SM 0x%016" PRIx64 " not taken (error %d); staying master",
			 s->peer.guid, ev->status);
		return 0;
	}
	/*
	 * Taken: it is master now. Wait for its ACKNOWLEDGE (or the timeout)
	 * to stand by, but show STANDBY from now on and sweep no more: an SM
	 * that reads us MASTER in its first sweep as master (OpenSM, which
	 * sends no ACKNOWLEDGE) waits for a HANDOVER of its own instead of
	 * configuring the subnet, until its polls of us time out (tens of
	 * seconds at its defaults). OpenSM's own old master stands by as it
	 * sends HANDOVER.
	 */
	s->handed = true;
	return 0;
}

uint8_t smstate_shown(const struct smstate *s)
{
	return s->state == SMP_SM_MASTER && s->handing_over && s->handed ? SMP_SM_STANDBY :
									   s->state;
}

unsigned smstate_input(struct smstate *s, const struct sm_ev *ev)
{
	switch (ev->in) {
	case SMI_START:
		if (s->state != SMP_SM_NOT_ACTIVE)
			break;
		go(s, SMP_SM_DISCOVERING, "starting");
		return SMA_DISCOVER;
	case SMI_DISCOVERED:
		if (s->state == SMP_SM_DISCOVERING)
			return discovered(s, ev);
		/*
		 * The discovery ran in DISCOVERING (only then is it asked for);
		 * a control packet taken while its MADs ran (a HANDOVER: OpenSM
		 * hands over to a higher SM that is still discovering; a
		 * DISABLE) decided instead, and stands.
		 */
		if (s->state == SMP_SM_MASTER || s->state == SMP_SM_NOT_ACTIVE) {
			log_info("SM: discovery done, but an SMInfo Set made this SM %s meanwhile: "
				 "no election", smstate_name(s->state));
			return 0;
		}
		break;
	case SMI_SET:
		return set_received(s, ev);
	case SMI_POLL:
		return polled(s, ev);
	case SMI_POLL_MISSED:
		return poll_missed(s);
	case SMI_PEER:
		return peer_seen(s, ev);
	case SMI_HANDOVER_ANSWERED:
		return handover_answered(s, ev);
	case SMI_HANDOVER_TIMEOUT:
		if (s->state != SMP_SM_MASTER || !s->handing_over)
			return 0;
		go(s, SMP_SM_STANDBY, "HANDOVER to SM 0x%016" PRIx64 " answered, no ACKNOWLEDGE "
		   "came; standing by as IBA 14.4 expects", s->peer.guid);
		return watch(s, &s->peer) | SMA_STOP;
	default:
		break;
	}
	unexpected(s, ev);
	return 0;
}

int smstate_release(struct smstate *s)
{
	if (s->state != SMP_SM_MASTER || s->handed)
		return -EPERM;
	if (!s->sticky || !s->took_over)
		return -EALREADY;
	s->took_over = false;
	log_info("SM: sm.sticky no longer holds mastership (loom handover): a higher SM gets "
		 "HANDOVER at the next look");
	return 0;
}
