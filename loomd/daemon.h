/* SPDX-License-Identifier: MIT */
#ifndef LOOM_LOOMD_DAEMON_H
#define LOOM_LOOMD_DAEMON_H

/*
 * The daemon's one state, passed down (STYLE.md: no globals): loomd.c owns
 * it; reload.c re-reads its configuration. Nothing outside loomd/ sees it.
 */
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <systemd/sd-event.h>

#include "config/config.h"
#include "loomd/agent.h"
#include "loomd/ctl.h"
#include "loomd/ha_mirror.h"
#include "loomd/ha.h"
#include "loomd/hold.h"
#include "loomd/loomd.h"
#include "loomd/sweep.h"
#include "fabric/mkey.h"
#include "mad/txn.h"
#include "mad/umad.h"
#include "sa/sa.h"

struct loomd {
	struct loomd_opts o;
	struct mad_umad *u;
	struct txn *x;
	struct agent agent;
	struct ha ha;  /* the SM state machine and its MADs */
	bool ha_on;    /* the daemon elects (not --once) */
	struct ha_mirror mirror; /* standby: the master's SA state, installed on takeover */
	struct ha_mirror links;  /* M_Keys, not master: the fabric's links from the master's SA */
	uint64_t links_taken_ms; /* links.when_ms of the fetch last put into the M_Keys */
	bool standby_compared;   /* this standby period compared its routing (ha_plan.h) */
	/* Switches whose LFTs a takeover left unread: the heavy sweep after says what it found. */
	unsigned lft_check;
	struct sweeper sw;
	struct hold hold; /* requests kept while a worker routes (sweep.h: hold) */
	struct mkey mkey; /* M_Keys, when the configuration has an mkey: section */
	bool mkey_on;
	char mkey_paths[PATH_MAX];
	char mkey_links[PATH_MAX];
	bool mkey_created; /* the secret was created at this start */
	struct sa sa;
	bool sa_on; /* the SA agent is registered on the port */
	sd_event *ev;
	sd_event_source *sweep_timer;
	struct ctl *ctl; /* the control socket; NULL: none */
	struct config *cfg; /* in force; replaced only by a valid file on SIGHUP */
	/*
	 * The configuration the last sweep's plan was built from, when SIGHUP
	 * replaced it since: the plan (and the SA answering from it) points into
	 * it until the next heavy sweep plans again.
	 */
	struct config *cfg_planned;
	bool announced; /* READY=1 sent */
	uint64_t next_sweep; /* when the sweep timer is due, between multicast passes */
	char guid2lid[PATH_MAX];
	char why_not[160]; /* the last heavy sweep's, for `loom status` */
};

/*
 * SIGHUP or `loom reload` (reload.c): read the file again; a valid one
 * replaces the configuration and asks for a heavy sweep. who names the asker
 * in the log; out (NULL: none) gets what a client is told. 0 or -errno.
 */
int loomd_reload(struct loomd *d, const char *who, FILE *out);

/*
 * Port changes come in bursts: a leaf's uplinks going down send a trap from
 * each spine within a few milliseconds, and a light sweep may see the first
 * spine's PortStateChange before the others'. A targeted sweep started at
 * the first sees one reporter, probes the leaf through links not yet known
 * to be down (a timeout, 0.8 s), and a second one reads the others' ports;
 * started this long after the first trap or light sweep that saw a change,
 * one sweep sees them all.
 */
#define DAEMON_GATHER_MS 20

/* daemon_sweep.c: the sweep timer's turn and what the sweeps log. */
void daemon_log_msgs(const struct diag *d);
/* One heavy sweep, logged, its view handed to the SA. 0 or -errno. */
int daemon_heavy(struct loomd *d, struct sweep_stats *st);
/* struct mcast's listener: the SA changed a group; the timer programs it. */
void daemon_mcast_changed(void *arg);
int daemon_sweep_timer(sd_event_source *s, uint64_t usec, void *arg);

/* daemon_ha.c: what the state machine asks for, done on the loop. */
uint64_t daemon_mono_ms(const struct loomd *d);
/* The sweep timer due at usec, unless it is due sooner already. */
void daemon_timer_at(struct loomd *d, uint64_t usec);
void daemon_ha_do(struct loomd *d, unsigned act);
/* HA's part of a timer turn; true when it is done (not master: no sweep). */
bool daemon_ha_turn(struct loomd *d, uint64_t usec);
/* agent.h's on_set: an SMInfo Set reached the agent. */
unsigned daemon_on_sm_set(void *arg, uint32_t ctrl, const struct smp_sm_info *sender);
/* txn's response hook: the SA mirror's GetTable answers. */
bool daemon_on_response(void *arg, const uint8_t *mad, size_t len, const struct mad_addr *from);

#endif
