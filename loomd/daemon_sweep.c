/* SPDX-License-Identifier: MIT */
/*
 * The daemon's sweeps, as the loop runs them: the sweep timer's turn (a
 * standby's poll first, then a light sweep, a heavy one when it saw a
 * change), multicast passes between sweeps, and the lines a sweep logs, tells
 * systemd and keeps for `loom status`. The sweeps themselves are sweep.c's.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <systemd/sd-daemon.h>
#include <systemd/sd-event.h>

#include "lib/log.h"
#include "loomd/daemon.h"
#include "loomd/ha.h"
#include "loomd/smstate.h"

void daemon_log_msgs(const struct diag *d)
{
	for (unsigned i = 0; i < d->n; i++)
		log_warn("%s", d->msg[i]);
	if (d->dropped)
		log_warn("%u more problems not shown", d->dropped);
}

/* A sweep's summary line: as logged, and as `loom sweep` prints it. */
static void sweep_line(const struct loomd *d, const struct sweep_stats *st, char *buf,
		       size_t size)
{
	char lft[128] = "";

	if (st->heavy && d->cfg && d->cfg->file)
		snprintf(lft, sizeof(lft), " (%u LFT blocks, %u P_Key blocks, %u QoS blocks, %u MFT "
			 "blocks)", st->lft_blocks, st->pkey_blocks, st->qos_blocks, st->mft_blocks);
	else if (st->heavy) /* no file: no partitions, the default QoS classes */
		snprintf(lft, sizeof(lft), " (%u LFT blocks, %u QoS blocks, %u MFT blocks)",
			 st->lft_blocks, st->qos_blocks, st->mft_blocks);
	snprintf(buf, size, "sweep %u (%s): %" PRIu32 " nodes, %" PRIu32 " ports, %u changes%s, %"
		 PRIu64 " SMPs, %u ms%s%s",
		 d->sw.heavy + d->sw.light + d->sw.targeted,
		 st->targeted ? "targeted" : st->heavy ? "heavy" : "light", st->nodes, st->ports,
		 st->changes, lft, st->smps, st->ms, st->up ? ", SUBNET UP" : "; not up: ",
		 st->up ? "" : st->why_not);
}

/* A sweep ended: logged when it has something to say, kept for `loom status`. */
static void log_sweep(struct loomd *d, const struct sweep_stats *st, bool say)
{
	char line[384];

	sweep_line(d, st, line, sizeof(line));
	if (say)
		log_info("%s", line);
	ctl_record(d->ctl, &(struct ctl_sweep){ .heavy = st->heavy, .up = st->up,
						.when = (int64_t)time(NULL), .nodes = st->nodes,
						.ports = st->ports, .changes = st->changes,
						.ms = st->ms, .smps = st->smps });
}

/*
 * Where a heavy sweep's time went: at info for the first sweep as master
 * after a takeover (what a failover costs), at debug otherwise.
 */
static void log_phases(const struct sweep_stats *st, bool takeover)
{
	char line[512];
	int n;

	if (!st->heavy)
		return;
	n = snprintf(line, sizeof(line), "discovery %u ms, LIDs and routes %u ms", st->disc_ms,
		     st->plan_ms);
	for (unsigned i = 0; i < PROG_PHASES && n > 0 && (size_t)n < sizeof(line); i++)
		if (st->phase_smps[i] || st->phase_ms[i])
			n += snprintf(line + n, sizeof(line) - (size_t)n, ", %s %u ms (%" PRIu64
				      " SMPs)", prog_phase_name[i], st->phase_ms[i],
				      st->phase_smps[i]);
	if (takeover)
		log_info("takeover sweep: %s%s%s", line, st->qos_deferred ?
			 "; QoS tables: checked by a heavy sweep now" : "", st->lft_deferred ?
			 "; LFTs: as the old master left them (this SM's routes matched them while "
			 "standby), read back by a heavy sweep now" : "");
	else
		log_debug("heavy sweep: %s", line);
	/* A bring-up, or nodes reset: where the first Sets went without a read (prog_qos.c). */
	if (st->qos_unread)
		log_info("QoS tables: %u blocks set without a read on %u node%s that no SM had "
			 "configured (ports Init, LID 0)", st->qos_unread, st->fresh_nodes,
			 st->fresh_nodes == 1 ? "" : "s");
	if (st->qos_no_sl_map)
		log_debug("QoS tables: %u CA ports or switches have no SL-to-VL tables "
			  "(PortInfo:CapabilityMask IsSLMappingSupported clear); none sent there",
			  st->qos_no_sl_map);
}

/* What the sweep did about the events it named: one line for all of them. */
static void log_handled(const struct loomd *d, const struct sweep_stats *st)
{
	const struct diag *ev = &d->sw.events;
	unsigned more = ev->n + ev->dropped - 1;
	char also[48] = "";

	if (!ev->n)
		return;
	if (more)
		snprintf(also, sizeof(also), " (and %u more)", more);
	log_info("event handled: %s%s: %u LIDs rerouted, %u LFT blocks, %" PRIu64 " SMPs, %u ms",
		 ev->msg[0], also, st->lids_rerouted, st->lft_blocks, st->smps, st->ms);
}

/* systemctl status: up or not, and which engine routes (and which refused, why). */
static void notify_status(const struct loomd *d)
{
	const struct plan *p = &d->sw.plan;
	char refused[1024] = "";

	if (p->n_refused) {
		strcpy(refused, "; refused by ");
		plan_refused_str(p, refused + strlen(refused), sizeof(refused) - strlen(refused));
	}
	sd_notifyf(0, "STATUS=%s%s%s%s", d->sw.up ? "SUBNET UP" : "bringing the subnet up",
		   p->engine ? "; routed with " : "", p->engine ? p->engine->name : "", refused);
}

int daemon_heavy(struct loomd *d, struct sweep_stats *st)
{
	struct diag msgs = { .limit = 200 };
	bool takeover;
	int r;

	d->agent.resweep = false;
	/* A trap 144 (an SM rose, say): only a whole discovery reads every PortInfo again. */
	if (d->agent.heavy_asked)
		d->sw.force_heavy = true;
	d->agent.heavy_asked = false;
	takeover = d->sw.takeover;
	r = sweep_event(&d->sw, st, &msgs);
	daemon_log_msgs(&msgs);
	diag_free(&msgs);
	if (r < 0) {
		log_err("sweep failed: %s; the local port may be down", strerror(-r));
		return r;
	}
	if (st->up && !d->ha_on)
		d->agent.state = SMP_SM_MASTER; /* --once: no election */
	for (unsigned i = 0; i < d->sw.events.n; i++)
		log_info("event: %s", d->sw.events.msg[i]);
	if (d->sw.events.dropped)
		log_info("event: %u more not shown", d->sw.events.dropped);
	if (st->routes[0])
		log_info("routes: %s", st->routes);
	log_handled(d, st);
	log_sweep(d, st, true);
	log_phases(st, takeover);
	/* The check of what a takeover left unread: said whatever it found. */
	if (d->lft_check && st->up) {
		log_info("takeover check: the LFTs of %u switches left as the old master set them: "
			 "%u blocks read back, %u sent (%s)", d->lft_check, st->lft_reads,
			 st->lft_blocks, st->lft_blocks ? "they differed from this SM's routes" :
			 "they held this SM's routes");
		d->lft_check = 0;
	}
	if (st->lft_deferred)
		d->lft_check = st->lft_deferred;
	if (st->qos_deferred || st->lft_deferred) { /* the rest of the takeover, at the next turn */
		d->agent.resweep = true;
		d->sw.force_heavy = true;
	}
	snprintf(d->why_not, sizeof(d->why_not), "%s", st->up ? "" : st->why_not);
	sa_set_view(&d->sa, &(struct sa_view){ .sn = d->sw.sn, .live = &d->sw.live,
					       .plan = &d->sw.plan, .lfts = d->sw.cache,
					       .mcast = d->sw.mcast });
	if (d->cfg_planned != d->sw.plan.config) {
		config_free(d->cfg_planned);
		d->cfg_planned = NULL;
	}
	/*
	 * IBA 14.4: a master looks at the other SMs (a higher one gets a
	 * HANDOVER). Before the Reports below go out: a subscriber that holds
	 * issm (the simulator's way to get Reports) is asked SMInfo here, not
	 * while it answers its Report and leaves, which umad2sim does not
	 * survive.
	 */
	if (d->ha_on)
		daemon_ha_do(d, ha_look(&d->ha, d->sw.sn, &d->sw.live, !st->targeted));
	/* Ports in or out of service (traps 64/65) against the last whole model only. */
	if (st->up && d->sa_on)
		sa_swept(&d->sa);
	return 0;
}

/*
 * When the next timed sweep is due, from usec: a light sweep every
 * sm.sweep-interval. With the interval 0 (no timed light sweeps: traps and
 * `loom sweep` start them) the timer still wakes for the heavy sweep's
 * period, once a day at the latest, and every 10 s while the subnet is not
 * up, so that a failed bring-up is retried.
 */
static uint64_t next_timed(const struct loomd *d, uint64_t usec)
{
	uint64_t heavy = sweep_heavy_at_us(&d->sw);
	uint64_t t;

	if (d->o.sweep_ms)
		return usec + (uint64_t)d->o.sweep_ms * 1000;
	t = usec + (d->sw.up ? CONFIG_SWEEP_US_MAX : 10000000ull);
	return heavy > usec && heavy < t ? heavy : t;
}

/* A join or leave through the SA: the MFT blocks that differ, now. */
static void mcast_pass(struct loomd *d)
{
	struct diag msgs = { .limit = 50 };
	struct sweep_stats st;
	int r;

	r = sweep_mcast(&d->sw, &st, &msgs);
	daemon_log_msgs(&msgs);
	diag_free(&msgs);
	if (r < 0)
		log_warn("multicast: programming MFTs failed: %s; the next sweep tries again",
			 strerror(-r));
	else if (st.nodes)
		log_info("multicast: %u MFT blocks, %" PRIu64 " SMPs, %u ms", st.mft_blocks,
			 st.smps, st.ms);
}

/* struct mcast's listener: the SA changed a group; the timer runs mcast_pass. */
void daemon_mcast_changed(void *arg)
{
	struct loomd *d = arg;
	uint64_t now;

	if (d->sa_on)
		sa_mcast_changed(&d->sa); /* groups created or deleted: traps 66/67 */
	if (!d->ev || !d->sweep_timer)
		return; /* --once: no loop to schedule on */
	sd_event_now(d->ev, CLOCK_MONOTONIC, &now);
	sd_event_source_set_time(d->sweep_timer, now);
}

int daemon_sweep_timer(sd_event_source *s, uint64_t usec, void *arg)
{
	struct loomd *d = arg;
	struct sweep_stats st;
	bool changed = false, asked = ctl_waiting(d->ctl);
	char line[384] = "";
	int r = 0;

	if (d->ha_on && daemon_ha_turn(d, usec)) {
		if (asked)
			ctl_answer(d->ctl, -EAGAIN, "not master: this SM does not sweep");
		return 0;
	}
	/* Early for multicast only: program MFTs, keep the sweep where it was due. */
	if (d->sw.mcast->dirty && d->sw.up && !d->agent.resweep && !asked && usec < d->next_sweep) {
		mcast_pass(d);
		sd_event_source_set_time(s, d->next_sweep);
		return 0;
	}
	/* Paused (loom sweep --pause): timer and trap sweeps wait; a sweep asked for runs. */
	if (ctl_paused(d->ctl) && !asked) {
		if (d->sw.mcast->dirty && d->sw.up)
			mcast_pass(d);
		d->next_sweep = next_timed(d, usec);
		sd_event_source_set_time(s, d->next_sweep);
		return 0;
	}
	/* A damped link has been up for its hold: only a heavy sweep puts it back. */
	if (sweep_flap_due(&d->sw, usec) || sweep_heavy_due(&d->sw, usec))
		d->agent.resweep = true;
	if (d->sw.up && !d->agent.resweep) {
		r = sweep_light(&d->sw, &changed, &st);
		if (r == 0 && st.sm_lid_wrong)
			log_warn("light sweep: %u of the ports checked point at MasterSMLID %u, not this "
				 "SM's %u (the first: %s port %u); a heavy sweep sets every port's",
				 st.sm_lid_wrong, st.sm_lid_seen, d->sw.plan.sm_lid,
				 subnet_str(d->sw.sn, d->sw.sn->node[d->sw.sn->port[st.sm_lid_port].node].desc),
				 d->sw.sn->port[st.sm_lid_port].num);
		if (r == 0)
			log_sweep(d, &st, changed || !st.up);
	}
	/* A change the light sweep saw may be the first of a burst (daemon.h): its sweep soon. */
	if (r == 0 && changed && !asked && !d->agent.resweep) {
		d->agent.resweep = true;
		sd_event_source_set_time(s, usec + DAEMON_GATHER_MS * 1000ULL);
		return 0;
	}
	if (r < 0 || changed || !d->sw.up || d->agent.resweep)
		r = daemon_heavy(d, &st);
	/* After a light sweep, the SMs the master knows (heavy(): after a heavy one). */
	if (d->ha_on && r == 0 && !st.heavy)
		daemon_ha_do(d, ha_look(&d->ha, d->sw.sn, &d->sw.live, false));
	if (asked) {
		if (r == 0)
			sweep_line(d, &st, line, sizeof(line));
		ctl_answer(d->ctl, r, line);
	}
	if (d->sw.up && !d->announced) {
		sd_notify(0, "READY=1");
		d->announced = true;
	}
	if (d->sw.mcast->dirty && d->sw.up)
		mcast_pass(d);
	notify_status(d);
	d->next_sweep = next_timed(d, usec);
	/* Traps that came during the sweep are for the next one: now, not at the interval. */
	sd_event_source_set_time(s, d->agent.resweep ? usec :
				 sweep_next_us(&d->sw, usec, d->next_sweep));
	if ((d->ha_on && d->ha.sm.state != SMP_SM_MASTER) || (st.heavy && (st.qos_deferred || st.lft_deferred)))
		sd_event_source_set_time(s, usec); /* handed over, or a takeover's rest: now */
	else if (d->ha_on && d->ha.sm.handing_over)
		daemon_timer_at(d, d->ha.ack_due_us);
	return 0;
}
