/* SPDX-License-Identifier: MIT */
/*
 * The daemon's side of HA: what the state machine (smstate.c) asks for,
 * done on the loop (HANDOVER, ACKNOWLEDGE, a takeover with the SA mirror
 * installed), a standby's timer turn (poll, mirror refresh, the one plan
 * comparison a standby period), and SMInfo Sets from the agent.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <systemd/sd-event.h>

#include "lib/log.h"
#include "loomd/daemon.h"
#include "loomd/ha.h"
#include "loomd/ha_mirror.h"
#include "loomd/ha_plan.h"
#include "loomd/smstate.h"

/* The loop's clock in ms (the SA's and the mirror's); before the loop exists, 0. */
uint64_t daemon_mono_ms(const struct loomd *d)
{
	uint64_t now = 0;

	if (d->ev)
		sd_event_now(d->ev, CLOCK_MONOTONIC, &now);
	return now / 1000;
}

bool daemon_on_response(void *arg, const uint8_t *mad, size_t len, const struct mad_addr *from)
{
	(void)from;
	struct loomd *d = arg;

	return ha_late_answer(&d->ha, mad, len) ||
	       ha_mirror_input(&d->mirror, mad, len, daemon_mono_ms(d)) ||
	       ha_mirror_input(&d->links, mad, len, daemon_mono_ms(d));
}

/*
 * The SA mirror's place: called once when loomd becomes master in place of
 * another SM (a takeover after the master failed, or a HANDOVER), before
 * its first sweep as master. The SA state mirrored while standby
 * (multicast groups, services, subscriptions) is installed here.
 */
static void ha_took_over(struct loomd *d)
{
	struct ha_mirror *hm = &d->mirror;
	struct sa_mirror_stats st = { 0 };
	const struct subnet *sn = d->ha.sn ? d->ha.sn : d->sw.sn;
	uint64_t now = daemon_mono_ms(d);
	int r;

	ha_mirror_cancel(hm);
	d->sw.takeover = true; /* the ports' LIDs, the old master's, before the map's */
	if (!hm->have) {
		d->sw.rereg = true;
		log_info("SM: master in place of SM 0x%016" PRIx64 "; no mirror of its SA state "
			 "(no fetch completed while standby): groups, services and subscriptions "
			 "start empty, and every CA port is asked to reregister (ClientReregister)",
			 d->ha.sm.peer.guid);
		return;
	}
	if (now - hm->when_ms > ha_mirror_max_age_ms(&d->ha)) {
		d->sw.rereg = true;
		log_warn("SM: the mirror of SM 0x%016" PRIx64 "'s SA state is %" PRIu64 " ms old, "
			 "more than %" PRIu64 " ms (twice a poll interval and the confirmation "
			 "window): its last fetches failed, so joins and registrations since are "
			 "unknown; installing it, and asking every CA port to reregister "
			 "(ClientReregister)", d->ha.sm.peer.guid, now - hm->when_ms,
			 ha_mirror_max_age_ms(&d->ha));
	}
	r = sa_mirror_install(&hm->m, d->sw.mcast, &d->sa.svc, &d->sa.ev, sn, now, &st);
	log_info("SM: master in place of SM 0x%016" PRIx64 "; installed its SA state as mirrored "
		 "%" PRIu64 " ms ago: %" PRIu32 " groups (%" PRIu32 " new, %" PRIu32 " merged, %"
		 PRIu32 " moved, %" PRIu32 " refused), %" PRIu32 " members, %" PRIu32 " services, %"
		 PRIu32 " subscriptions (%" PRIu32 " of ports not in the fabric)%s%s",
		 d->ha.sm.peer.guid, now - hm->when_ms, hm->m.n_g, st.groups_new,
		 st.groups_merged, st.groups_moved, st.groups_refused, st.members, st.services,
		 st.subs, st.subs_unknown, r < 0 ? "; stopped early: " : "",
		 r < 0 ? strerror(-r) : "");
	sa_mirror_free(&hm->m);
	hm->have = false;
}

static void ha_sync(struct loomd *d)
{
	d->agent.state = smstate_shown(&d->ha.sm);
	if (d->ha.sm.state != SMP_SM_STANDBY)
		d->standby_compared = false; /* the next standby period compares again */
	else if (!d->standby_compared)
		d->sw.lft_trust = false; /* until this period's comparison says so */
	/* `loom status` says why this SM does not bring the subnet up. */
	if (d->ha.sm.state != SMP_SM_MASTER && !d->sw.up)
		snprintf(d->why_not, sizeof(d->why_not), "this SM is %s (%.120s)",
			 smstate_name(d->ha.sm.state), d->ha.sm.why);
	if (d->ha.sm.guid && d->ha.sm.state != SMP_SM_MASTER)
		d->agent.guid = d->ha.sm.guid;
	else if (d->agent.guid)
		d->ha.sm.guid = d->agent.guid;
}

void daemon_timer_at(struct loomd *d, uint64_t usec)
{
	uint64_t next;

	if (sd_event_source_get_time(d->sweep_timer, &next) < 0 || usec < next ||
	    sd_event_source_get_enabled(d->sweep_timer, NULL) <= 0)
		sd_event_source_set_time(d->sweep_timer, usec);
}

/* What the state machine asked for (enum sm_action), done. */
void daemon_ha_do(struct loomd *d, unsigned act)
{
	struct ha *h = &d->ha;
	uint64_t now = 0;

	if (d->ev)
		sd_event_now(d->ev, CLOCK_MONOTONIC, &now);
	if (act & SMA_SEND_ACK)
		(void)ha_send_ctrl(h, d->sw.sn, &d->sw.live, SM_CTRL_ACKNOWLEDGE);
	if (act & SMA_TAKEOVER)
		ha_took_over(d);
	if (act & SMA_SWEEP)
		d->agent.resweep = true;
	if (act & SMA_STOP)
		log_info("SM: no longer master: no sweeps and no SA answers until this SM is "
			 "master again");
	if (act & SMA_SEND_HANDOVER) {
		int r = ha_send_ctrl(h, d->sw.sn, &d->sw.live, SM_CTRL_HANDOVER);
		struct timespec ts;

		/*
		 * The ACKNOWLEDGE is due a poll interval after the answer, by the
		 * clock: now is when this loop turn woke up (sd_event_now), before
		 * the sweep that found the higher SM, which may have taken longer
		 * than a poll interval; from there it was due before it was sent.
		 */
		clock_gettime(CLOCK_MONOTONIC, &ts);
		h->ack_due_us = (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000 +
				h->poll_us;
		ha_sync(d);
		daemon_ha_do(d, smstate_input(&h->sm, &(struct sm_ev){ .in = SMI_HANDOVER_ANSWERED,
								.status = r }));
		if (h->sm.handing_over && d->sweep_timer)
			daemon_timer_at(d, h->ack_due_us);
	}
	ha_sync(d);
	if ((act & (SMA_SWEEP | SMA_DISCOVER | SMA_POLL)) && d->sweep_timer)
		daemon_timer_at(d, now);
}

/* An SMInfo Set reached the agent: the state machine decides; the loop acts. */
unsigned daemon_on_sm_set(void *arg, uint32_t ctrl, const struct smp_sm_info *sender)
{
	struct loomd *d = arg;
	unsigned act = ha_set_received(&d->ha, ctrl, sender);
	uint64_t now;

	d->ha.pending |= act & ~SMA_REFUSE;
	ha_sync(d);
	if (d->ev && d->sweep_timer && sd_event_now(d->ev, CLOCK_MONOTONIC, &now) >= 0)
		daemon_timer_at(d, now);
	return act;
}

/*
 * Once a standby period (and after a reload): would this SM, as master,
 * program what the master did? Said at info when it would change nothing,
 * as a warning when it would (its configuration is not the master's).
 */
static bool standby_stop(void *arg)
{
	const struct loomd *d = arg;

	/* What the agent left (a HANDOVER: ACKNOWLEDGE, takeover) waits for the comparison. */
	return d->ha.pending || d->ha.sm.state != SMP_SM_STANDBY;
}

static void standby_compare(struct loomd *d)
{
	struct ha_plan_cmp c;
	int r;

	d->standby_compared = true;
	log_info("SM: standby comparison starts: this SM's routing against the LFTs the master "
		 "programmed");
	r = ha_plan_compare(d->x, d->ha.sn, &d->ha.live, &d->sw.o, standby_stop, d, &c);
	/* A takeover's first sweep may then leave the LFTs to the next (sweep.h: lft_trust). */
	d->sw.lft_trust = r == 0 && c.switches && !c.blocks_differ && !c.lids_changed;
	if (r == -EINTR) {
		/* Still standby (a Set that changed nothing): the next poll compares again. */
		if (d->ha.sm.state == SMP_SM_STANDBY)
			d->standby_compared = false;
		log_info("SM: standby: comparison cut short: %s; answering it first (a "
			 "takeover reads the LFTs back as it programs)", d->ha.sm.state == SMP_SM_STANDBY ?
			 "an SMInfo Set came" : "this SM is no longer standby");
	} else if (r < 0)
		log_warn("SM: standby: could not compare this SM's routing with the fabric's: %s; "
			 "a takeover logs the blocks it sends", strerror(-r));
	else if (c.blocks_differ || c.lids_changed)
		log_warn("SM: standby: this SM's configuration differs from what the master "
			 "programmed: as master it would route with %s and send %" PRIu32 " of %" PRIu32
			 " LFT blocks read back from %" PRIu32 " switches, and change %u LIDs; check "
			 "sm.routing (engine, roots) and sm.routing.lmc against the master's "
			 "configuration", c.engine, c.blocks_differ, c.blocks, c.switches,
			 c.lids_changed);
	else
		log_info("SM: standby: as master this SM would route with %s and change nothing "
			 "(0 of %" PRIu32 " LFT blocks read back from %" PRIu32 " switches, 0 LIDs)",
			 c.engine, c.blocks, c.switches);
}

/*
 * M_Keys, not master: the links the master's SA answered (NodeRecords give
 * each port LID's node, LinkRecords the links) into the links table, so
 * that our walks reach what our own discovery could not read.
 */
static int node_cmp(const void *a, const void *b)
{
	const struct sa_mirror_node *x = a, *y = b;

	return (x->lid > y->lid) - (x->lid < y->lid);
}

static uint64_t node_of(const struct sa_mirror *m, uint16_t lid)
{
	struct sa_mirror_node k = { .lid = lid };
	const struct sa_mirror_node *n = bsearch(&k, m->node, m->n_node, sizeof(k), node_cmp);

	return n ? n->guid : 0;
}

static void links_take(struct loomd *d)
{
	struct sa_mirror *m = &d->links.m;
	uint32_t before = d->mkey.n_links;

	d->links_taken_ms = d->links.when_ms;
	if (m->n_node)
		qsort(m->node, m->n_node, sizeof(*m->node), node_cmp);
	for (uint32_t i = 0; i < m->n_link; i++)
		if (mkey_link_remember(&d->mkey, node_of(m, m->link[i].from_lid),
				       m->link[i].from_port, node_of(m, m->link[i].to_lid)) < 0)
			break;
	log_info("SM: M_Key: %" PRIu32 " links learned from the master's SA (%" PRIu32 " known)",
		 d->mkey.n_links - before, d->mkey.n_links);
	if (d->mkey.links_dirty) {
		int r = mkey_links_save(&d->mkey, d->mkey_links);

		if (r < 0)
			log_warn("SM: %s: %s", d->mkey_links, strerror(-r));
	}
	sa_mirror_free(m); /* have stays: the next fetch waits its 30 polls */
}

/* Ask the master's SA (at lid) for the fabric's links, every few polls at most. */
static void links_ask(struct loomd *d, uint16_t lid, uint64_t now_ms)
{
	if (!d->mkey_on || !lid)
		return;
	d->links.want = SA_MIRROR_WANT_LINKS;
	ha_mirror_start_lid(&d->links, &mad_umad_ops, d->u, lid, d->ha.sm.sm_key, now_ms,
			    30 * d->ha.poll_us / 1000);
}

/*
 * What the agent's hook left for the loop (daemon_on_sm_set), done now.
 * The hook runs whenever the port is read: between turns, but also inside
 * this turn's own MADs (a poll, the standby's comparison, a discovery),
 * where an SMInfo Set HANDOVER makes this SM master at once. Its actions
 * (ACKNOWLEDGE, the takeover) must be done before the turn goes on to a
 * sweep, not at the turn after it: left there, the ACKNOWLEDGE went out
 * after the whole first sweep as master, and that sweep ran without the old
 * master's SA state. Sending may let another Set in: until none is left.
 */
static void ha_pending_do(struct loomd *d)
{
	unsigned act;

	while ((act = d->ha.pending)) {
		d->ha.pending = 0;
		daemon_ha_do(d, act);
	}
}

/*
 * HA's part of a timer turn, before any sweep: a standby polls, a
 * discovering SM elects. true when the turn is done (not master: no sweep).
 */
bool daemon_ha_turn(struct loomd *d, uint64_t usec)
{
	struct ha *h = &d->ha;

	if (d->links.have && d->links.when_ms != d->links_taken_ms)
		links_take(d);
	ha_pending_do(d);
	if (h->sm.state == SMP_SM_MASTER && h->sm.handing_over && usec >= h->ack_due_us)
		daemon_ha_do(d, smstate_input(&h->sm, &(struct sm_ev){ .in = SMI_HANDOVER_TIMEOUT }));
	/* Our HANDOVER was taken: the new master sweeps; we wait for its ACKNOWLEDGE. */
	if (h->sm.state == SMP_SM_MASTER && h->sm.handing_over && h->sm.handed) {
		d->agent.resweep = false;
		sd_event_source_set_time(d->sweep_timer, h->ack_due_us);
		return true;
	}
	if (h->sm.state == SMP_SM_MASTER)
		return false;
	d->agent.resweep = false; /* traps are the master's business */
	if (h->sm.state == SMP_SM_STANDBY) {
		uint64_t missed = h->poll_missed;

		/* We outrank the master: tell it, at the first poll and every tenth after. */
		if (h->sm.have_peer && h->polls % 10 == 0 &&
		    smstate_outranks(h->sm.priority, h->sm.guid, h->sm.peer.priority,
				     h->sm.peer.guid))
			(void)ha_send_trap144(h);

		daemon_ha_do(d, ha_poll(h));
		/* The master answered: refresh the mirror of its SA state. */
		if (h->sm.state == SMP_SM_STANDBY && h->poll_missed == missed) {
			ha_mirror_start(&d->mirror, &mad_umad_ops, d->u, h->sn, h->sm.peer.guid,
					h->sm.sm_key, usec / 1000, 0);
			/* New nodes the master keyed since: their links, every 30 polls. */
			uint32_t mp = subnet_find_port_guid(h->sn, h->sm.peer.guid);

			if (mp != SUBNET_NONE)
				links_ask(d, h->sn->port[mp].lid, usec / 1000);
			if (!d->standby_compared && h->sn)
				standby_compare(d);
		}
	}
	ha_pending_do(d); /* a HANDOVER during the poll or the comparison */
	/* Starting, or the master just failed: elect now, not a poll interval later. */
	if (h->sm.state == SMP_SM_DISCOVERING) {
		h->links_busy = d->links.busy;
		daemon_ha_do(d, ha_discover(h));
		ha_pending_do(d); /* a HANDOVER during the discovery (OpenSM sends one there) */
		/* Our discovery could not read past nodes it has no key for: ask the master. */
		if (h->links_from)
			links_ask(d, h->links_from, usec / 1000);
		/* Elected: the heavy sweep starts from this discovery, not a second one. */
		if (h->sm.state == SMP_SM_MASTER && !d->sw.pre_sn)
			(void)ha_take_model(h, &d->sw.pre_sn, &d->sw.pre_live, &d->sw.pre_smps,
					    &d->sw.pre_ms);
	}
	if (h->sm.state == SMP_SM_MASTER)
		return false; /* elected: the heavy sweep, now */
	/*
	 * After a miss the next poll goes at once: the master must miss
	 * sm.poll-misses in a row, over ha_window_us(), before it is lost.
	 */
	if (h->sm.state == SMP_SM_STANDBY && h->sm.missed)
		sd_event_now(d->ev, CLOCK_MONOTONIC, &usec);
	else
		usec += h->poll_us;
	sd_event_source_set_time(d->sweep_timer, usec);
	return true;
}
