/* SPDX-License-Identifier: MIT */
#ifndef LOOM_SM_LOOMD_H
#define LOOM_SM_LOOMD_H

/*
 * loomd's own pieces (not a library): its options, from the command line
 * and the configuration file (loomd_opts.c), for the daemon (loomd.c).
 * The control socket: ctl.c serves it, ctl_sock.c makes and removes its
 * file, ctl_status.c gathers what status
 * shows, ctl_proto.c is the wire contract that tools/cmd_status.c shares;
 * cfgdiff.c is the diff `loom reload` prints.
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
	SET_ROOTS = 1 << 8, SET_VLS = 1 << 9, SET_LFTS = 1 << 10,
};

struct loomd_opts {
	const char *config; /* NULL: CONFIG_DEFAULT_PATH, which may be absent */
	bool check_config;
	unsigned set;       /* SET_*: what the command line gave */
	const char *ca, *state_dir, *engine;
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

#endif
