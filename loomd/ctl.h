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

struct ctl_ops {
	/* Fill what `loom status` shows (sweeps and pause are filled by ctl). */
	void (*status)(void *arg, struct ctl_status *out);
	/* Sweep as soon as the loop can (heavy: a heavy sweep); ctl_answer() ends it. */
	void (*sweep)(void *arg, bool heavy);
	/*
	 * Read the configuration file again, as SIGHUP does. Returns 0 when it
	 * was taken, -errno when it was refused; what it has to say (each error
	 * of a refused file) goes to out, one line each.
	 */
	int (*reload)(void *arg, FILE *out);
};

/*
 * Listen on path (mode 0660; a stale socket there is removed, a live one
 * is left alone: -EADDRINUSE) and serve requests from ev. Who may ask:
 * root, loomd's own user, and members of the socket's group.
 */
int ctl_open(sd_event *ev, const char *path, const struct ctl_ops *ops, void *arg,
	     struct ctl **out);
/*
 * The socket's group: name (the configuration's sm.control-group), or
 * loomd's own for NULL. Its members may ask. A name the host does not
 * know is logged and the group stays as it was: -ENOENT.
 */
int ctl_set_group(struct ctl *c, const char *name);
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
