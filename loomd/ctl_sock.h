/* SPDX-License-Identifier: MIT */
#ifndef LOOM_LOOMD_CTL_SOCK_H
#define LOOM_LOOMD_CTL_SOCK_H

#include <sys/stat.h>

/*
 * The control socket's file (ctl_sock.c), for ctl.c: a non-blocking
 * listening socket at path, mode 0660 from its first moment; its folder
 * made if missing; a stale socket there replaced. -EADDRINUSE: something
 * answers at path (left alone); -EEXIST: path is not a socket. *made is
 * the file made. Returns the fd or -errno.
 */
int ctl_sock_listen(const char *path, int backlog, struct stat *made);
/* Remove path if it is still the file made (another loomd may have put its own there since). */
void ctl_sock_remove(const char *path, const struct stat *made);

#endif
