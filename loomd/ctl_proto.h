/* SPDX-License-Identifier: MIT */
#ifndef LOOM_LOOMD_CTL_PROTO_H
#define LOOM_LOOMD_CTL_PROTO_H

/*
 * The control socket's wire contract, shared by loomd (loomd/ctl.c) and the
 * loom command (tools/cmd_status.c), as ospfctl shares ospfd.h.
 *
 * One request per connection. The client connects to the Unix stream
 * socket (default CTL_DEFAULT_PATH), writes one request line and may shut
 * down its write side:
 *
 *   status | status json | sweep | sweep heavy | sweep pause | sweep resume | reload
 *
 * at most CTL_REQ_MAX bytes, the line ending in "\n" (a lone end of stream
 * ends it too). loomd answers, then closes the connection:
 *
 *   ok\n             the request was carried out; the body follows
 *   err TEXT\n       it was not, and why (the body may list details)
 *
 * The body is text for people, or JSON for "status json". A sweep request
 * is answered when the sweep it asked for has ended: the body is that
 * sweep's summary line, as loomd logs it.
 *
 * This file is pure: encoders and decoders, no I/O.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define CTL_DEFAULT_PATH "/run/loom/control"
#define CTL_REQ_MAX 64 /* a request line, "\n" included */

enum ctl_req {
	CTL_STATUS,
	CTL_STATUS_JSON,
	CTL_SWEEP,
	CTL_SWEEP_HEAVY,
	CTL_SWEEP_PAUSE,
	CTL_SWEEP_RESUME,
	CTL_RELOAD,
	CTL_HANDOVER,
	_CTL_REQ_MAX,
};

/* The request's line without its "\n" ("sweep heavy"); NULL if req is out of range. */
const char *ctl_req_name(enum ctl_req req);
/*
 * Decode a whole request (the reader waits for "\n" or the end of the
 * stream: "status" may yet become "status json"): len bytes, a known
 * request followed by "\n" or by nothing. -EINVAL: not a request
 * (unknown, bytes after the line, a NUL, longer than CTL_REQ_MAX).
 */
int ctl_req_parse(const char *buf, size_t len, enum ctl_req *out);

/*
 * Decode a reply's head line. *ok: "ok"; else *msg (NUL-terminated, at most
 * msg_size bytes, cut if longer) is the text of "err TEXT". *body is the
 * offset of what follows the head. -EPROTO: no head line, or neither form.
 */
int ctl_reply_parse(const char *buf, size_t len, bool *ok, char *msg, size_t msg_size,
		    size_t *body);

#define CTL_SWEEPS 8 /* the last sweeps status shows */
#define CTL_SMS 16   /* the other SMs status lists */

/* One sweep as status shows it (a subset of loomd's struct sweep_stats). */
struct ctl_sweep {
	bool heavy, up;
	int64_t when;     /* end, seconds since the epoch */
	uint32_t nodes, ports;
	unsigned changes, ms;
	uint64_t smps;
};

/* What `loom status` shows: loomd fills it, ctl_status_print() writes it. */
struct ctl_status {
	const char *version;
	uint64_t uptime_s;
	uint64_t guid;            /* the SM's port GUID */
	uint8_t sm_state;         /* enum smp_sm_state */
	uint8_t priority;
	bool up;                  /* SUBNET UP at the last heavy sweep */
	char why_not[160];        /* why not, when !up */
	const char *engine;       /* the routing engine in use; NULL: none has routed */
	char refused[1024];       /* the engines that refused the fabric, and why (auto's
				   * ftree and vlayered both refusing: about 400 chars) */
	const char *config;       /* the configuration file in force; NULL: defaults */
	bool paused;
	int64_t paused_since;     /* seconds since the epoch */
	unsigned heavy, light;    /* sweeps done */
	unsigned n_sweeps;        /* in sweeps[], oldest first */
	struct ctl_sweep sweeps[CTL_SWEEPS];
	/* counters since start */
	uint64_t smps, smp_timeouts, smp_retries, smp_failed;
	uint64_t dropped_malformed, dropped_unexpected, dropped_late; /* answers dropped, why */
	uint64_t traps, sminfo_gets;
	/* M_Key (IBA 14.2.4): on, the protect bits set, traps 256, nodes with another SM's key */
	bool mkey_on;
	uint8_t mkey_protect;
	uint64_t trap256;
	unsigned mkey_foreign;
	uint64_t sa_requests, sa_answered, sa_refused, sa_dropped;
	/*
	 * The other SMs this SM knows of (IBA 14.4): a master's last look at
	 * every IsSM port, or a standby's master.
	 */
	unsigned n_others;
	struct ctl_sm {
		uint64_t guid;
		uint8_t priority, state;
	} others[CTL_SMS];
};

/* SMInfo state names (IBA 14.4.1): "master", "standby", ...; "unknown" out of range. */
const char *ctl_sm_state_name(uint8_t state);
/* s as text for people, or as one JSON object; -errno of the stream on failure. */
int ctl_status_print(FILE *f, const struct ctl_status *s, bool json);

#endif
