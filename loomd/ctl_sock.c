/* SPDX-License-Identifier: MIT */
/*
 * The control socket's file (ctl_sock.h): made, with its mode, in place of
 * a stale one, and removed at exit, never one that is not ours.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "loomd/ctl_sock.h"

/*
 * A socket file already at path: another loomd's (it answers a connect:
 * leave it, -EADDRINUSE) or a stale one from a loomd that died (refused:
 * remove it). Anything that is not a socket is not ours to remove: -EEXIST.
 */
static int clear_stale(const struct sockaddr_un *sa)
{
	struct stat st;
	int fd, r;

	if (lstat(sa->sun_path, &st) < 0)
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISSOCK(st.st_mode))
		return -EEXIST;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	r = connect(fd, (const struct sockaddr *)sa, sizeof(*sa)) == 0 ? -EADDRINUSE :
	    errno == ECONNREFUSED ? 0 : errno == EAGAIN ? -EADDRINUSE : -errno;
	close(fd);
	if (r == 0 && unlink(sa->sun_path) < 0 && errno != ENOENT)
		r = -errno;
	return r;
}

/* The folder path is in ("." for a bare name). */
static void dir_of(const char *path, char *dir, size_t size)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		snprintf(dir, size, ".");
	else if (slash == path)
		snprintf(dir, size, "/");
	else
		snprintf(dir, size, "%.*s", (int)(slash - path), path);
}

static int bind_listen(int fd, const struct sockaddr_un *sa, int backlog, struct stat *made)
{
	mode_t old;
	int r;

	/* The mode from the start: no moment when others could connect. */
	old = umask(0117);
	r = bind(fd, (const struct sockaddr *)sa, sizeof(*sa));
	umask(old);
	if (r < 0)
		return -errno;
	if (stat(sa->sun_path, made) < 0 || listen(fd, backlog) < 0) {
		r = -errno;
		unlink(sa->sun_path);
		return r;
	}
	return 0;
}

int ctl_sock_listen(const char *path, int backlog, struct stat *made)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char dir[sizeof(sa.sun_path)];
	int fd, r;

	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	memcpy(sa.sun_path, path, strlen(path));
	/* /run/loom is systemd's RuntimeDirectory; started by hand, loomd makes it. */
	dir_of(path, dir, sizeof(dir));
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return -errno;
	r = clear_stale(&sa);
	if (r < 0)
		return r;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	r = bind_listen(fd, &sa, backlog, made);
	if (r < 0) {
		close(fd);
		return r;
	}
	return fd;
}

void ctl_sock_remove(const char *path, const struct stat *made)
{
	struct stat st;

	if (stat(path, &st) == 0 && st.st_dev == made->st_dev && st.st_ino == made->st_ino)
		unlink(path);
}
