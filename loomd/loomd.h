/* SPDX-License-Identifier: MIT */
#ifndef LOOM_SM_LOOMD_H
#define LOOM_SM_LOOMD_H

/*
 * DOC: loomd/ — the daemon, an edge: it owns one fabric, and it is where things
 * are logged. Not a library.
 *   loomd.h       this header: loomd's options, from the command line and the
 *                 configuration file (loomd_opts.c), for the daemon (loomd.c)
 *   loomd.c       setup, the sd-event loop (umad fd, signals), the SA's and
 *                 the agent's hooks, systemd notify and watchdog, --once
 *   daemon_sweep.c  the sweep timer's turn (light, heavy, multicast passes)
 *                 and the lines a sweep logs and tells systemd (daemon.h)
 *   daemon_ha.c   the state machine's actions done on the loop: HANDOVER,
 *                 ACKNOWLEDGE, takeover with the SA mirror, a standby's poll
 *   loomd_opts.c  the command line, then the configuration file under it
 *   startguard.c  SIGTERM and SIGINT while setup() runs (a hung open included),
 *                 and the deadline of opening the port (startguard.h)
 *   reload.c      SIGHUP and `loom reload`: the file read again (daemon.h:
 *                 struct loomd, the daemon's one state)
 *   check.c       --check-config: the file under the options, checked and printed
 *   sweep.c       heavy and light sweeps: discover, plan_build() (on a worker), program
 *                 (sweep.h)
 *   hold.c        requests kept while the worker routes, SMInfo Gets answered (hold.h)
 *   sweep_targeted.c  after a trap 128 or a light sweep's change: only the part the
 *                 event can have changed read (fabric/disc_part.c), else a heavy one
 *   agent.c       the SM's own agent: SMInfo and Traps answered, mid-sweep too
 *                 (agent.h)
 *   smstate.c     the SM state machine of IBA 14.4 and the election: events in,
 *                 actions out, every transition logged (smstate.h)
 *   ha.c          HA's MADs: discovery without programming, the other SMs'
 *                 SMInfo, a standby's poll, HANDOVER and ACKNOWLEDGE (ha.h)
 *   ha_plan.c     a standby's plan against what the switches hold: would a
 *                 takeover change anything? (ha_plan.h)
 *   ha_mirror.c   a standby's copy of the master's SA state (sa/sa_mirror.h),
 *                 fetched beside the loop, installed on takeover (ha_mirror.h)
 *   ctl.c         the control socket: connections, peer credentials, requests,
 *                 pause and the last sweeps (ctl.h)
 *   ctl_sock.c    the socket's file: made mode 0660, a stale one replaced,
 *                 removed at exit (ctl_sock.h)
 *   ctl_status.c  what `loom status` shows, gathered from the daemon's parts
 *   ctl_proto.c   the control protocol's wire contract and codec, which
 *                 tools/cmd_status.c shares (ctl_proto.h)
 *   cfgdiff.c     what a reload changes, as `loom reload` prints it (cfgdiff.h)
 *   flap.c        flap damping: links that change too often kept out of the
 *                 model routed until stable (flap.h)
 *
 * Data flows one way: loomd.c's loop runs daemon_sweep.c, which runs sweep.c,
 * which calls fabric/ discovery, plan_build() (plan/, which runs routing/)
 * and fabric/ programming in that order; daemon_sweep.c hands the SA (sa/) a
 * view of each heavy sweep; requests to the SM reach agent.c and the SA
 * through the transaction layer's request hook.
 */
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "lib/log.h"
#include "mad/txn.h"

struct config;

#define DEFAULT_STATE_DIR "/var/lib/loom"

/* Options given on the command line: they win over the configuration file. */
enum {
	SET_STATE = 1 << 0, SET_ENGINE = 1 << 1, SET_LMC = 1 << 2, SET_SWEEP = 1 << 3,
	SET_PRIO = 1 << 4, SET_WIN = 1 << 5, SET_TMO = 1 << 6, SET_RETRY = 1 << 7,
	SET_ROOTS = 1 << 8, SET_VLS = 1 << 9, SET_LFTS = 1 << 10, SET_FALLBACK = 1 << 11,
};

struct loomd_opts {
	const char *config; /* NULL: CONFIG_DEFAULT_PATH, which may be absent */
	bool check_config;
	unsigned set;       /* SET_*: what the command line gave */
	const char *ca, *state_dir;
	const char *engine; /* engines to try in order, "ftree,vlayered" or "auto" */
	bool no_fallback;   /* --fallback none: only those; else auto's engines after them */
	char engine_buf[128]; /* engine from the configuration, which SIGHUP may free */
	const char *control; /* the control socket; NULL: CTL_DEFAULT_PATH */
	unsigned port;
	unsigned lmc;
	uint64_t roots[256]; /* --root, or the configuration's sm.routing.roots */
	uint32_t n_roots;
	unsigned vls;        /* vlayered's VL budget, 1-8 */
	const char *lfts;    /* the file engine's dump_lfts text */
	char lfts_buf[PATH_MAX]; /* lfts from the configuration, which SIGHUP may free */
	unsigned sweep_ms;
	unsigned priority;
	unsigned open_timeout_s; /* how long opening the port may take (startguard.c) */
	bool once;
	struct txn_opts txn;
};

/* The command line into o (and the log level into *lvl); -EINVAL: wrong (said on stderr). */
int loomd_parse_args(int argc, char **argv, struct loomd_opts *o, enum log_level *lvl);
/*
 * The configuration file under the command line: what the command line
 * did not set comes from the file; *keep is the configuration in force.
 */
int loomd_apply_config(struct loomd_opts *o, struct config **keep);
/*
 * --check-config (check.c): the file under the options, checked and printed as
 * loomd would run with it. The exit status: 0 valid, 1 invalid, 2 unreadable.
 */
int loomd_check_config(const struct loomd_opts *o);

#endif
