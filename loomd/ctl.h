/* SPDX-License-Identifier: MIT */
#ifndef LOOM_LOOMD_CTL_H
#define LOOM_LOOMD_CTL_H

/*
 * loomd's control socket (the protocol: ctl_proto.h). A Unix stream socket
 * served from loomd's sd-event loop: accepts without blocking, reads one
 * request line with a size limit and a timeout, checks the peer's
 * credentials, and answers. The daemon's state is reached through ctl_ops;
 * pausing sweeps and the last sweeps' summaries are kept here.
 */
#include <stdbool.h>
#include <sys/types.h>

#include <systemd/sd-event.h>

#include "loomd/ctl_proto.h"

struct ctl;
struct agent;
struct config;
struct ha;
struct sa;
struct sweeper;
struct txn;

/* What `loom status` reads, borrowed from the daemon for the socket's lifetime. */
struct ctl_view {
	const struct agent *agent;
	const struct txn *x;
	const struct sa *sa;
	const struct sweeper *sw;
	struct config *const *cfg; /* the configuration in force (a reload replaces it) */
	const char *why_not;       /* the last heavy sweep's, "" when up */
	const struct ha *ha;       /* the election: the other SMs; NULL: none (--once) */
};

struct ctl_ops {
	/* Sweep as soon as the loop can (heavy: a heavy sweep); ctl_answer() ends it. */
	void (*sweep)(void *arg, bool heavy);
	/*
	 * Read the configuration file again, as SIGHUP does. Returns 0 when it
	 * was taken, -errno when it was refused; what it has to say (the first
	 * line a summary, then the diff or each error) goes to out.
	 */
	int (*reload)(void *arg, FILE *out);
	/*
	 * Give up a mastership that sm.sticky holds (loom handover): the next
	 * look at the other SMs hands over to a higher one. 0 released, -errno
	 * when there is nothing to give up; what to say goes to out.
	 */
	int (*handover)(void *arg, FILE *out);
};

struct ctl_conf {
	const char *path;
	const char *group; /* the configuration's sm.control-group; NULL: loomd's own */
	struct ctl_view view;
	const struct ctl_ops *ops;
	void *arg;
};

/*
 * Listen on conf->path (mode 0660, its group set with ctl_set_group; a
 * stale socket there is removed, a live one is left alone: -EADDRINUSE)
 * and serve requests from ev. Who may ask: root, loomd's own user, and
 * members of the socket's group. Logs what it did: without a socket loomd
 * runs on, and the log says why.
 */
int ctl_open(sd_event *ev, const struct ctl_conf *conf, struct ctl **out);
/*
 * The socket's group: name (the configuration's sm.control-group), or
 * loomd's own for NULL. Its members may ask. A name the host does not
 * know is logged and the group stays as it was: -ENOENT.
 */
int ctl_set_group(struct ctl *c, const char *name);
/* status's report from the view, but for what ctl keeps (sweeps, pause, uptime). */
void ctl_status_fill(const struct ctl_view *v, struct ctl_status *out);
/* Stop listening, drop every connection, remove the socket (if still ours). NULL is fine. */
void ctl_close(struct ctl *c);

/* Timer and trap sweeps are held (loom sweep --pause); false for NULL. */
bool ctl_paused(const struct ctl *c);
/* A client waits for a sweep it asked for; false for NULL. */
bool ctl_waiting(const struct ctl *c);
/* One sweep ended: kept for status. NULL is fine. */
void ctl_record(struct ctl *c, const struct ctl_sweep *w);
/*
 * The sweeps the loop ran for a tick have ended: every client waiting for
 * one gets line (the last summary), or the error when err < 0.
 */
void ctl_answer(struct ctl *c, int err, const char *line);

#endif
