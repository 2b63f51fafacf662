/* SPDX-License-Identifier: MIT */
/*
 * loomd's control socket (ctl.h). Every step is driven by sd-event and
 * none waits: the listening socket and each connection are non-blocking,
 * a request must arrive within CTL_READ_MS and fit in CTL_REQ_MAX bytes,
 * and a reply is one send of a few kilobytes into a socket buffer far
 * larger. A sweep request keeps its connection until the loop says the
 * sweep ended (ctl_answer).
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "lib/cleanup.h"
#include "lib/log.h"
#include "loomd/ctl.h"
#include "loomd/ctl_sock.h"

#define CTL_CONNS 16     /* connections at once; more are turned away */
#define CTL_READ_MS 2000 /* for the request line to arrive */
#define CTL_WARN_BURST 10 /* warnings clients may cause a minute; more are counted */

struct ctl_conn {
	struct ctl *c;
	int fd;
	sd_event_source *io, *timer;
	struct ucred cred;
	size_t n;
	char buf[CTL_REQ_MAX + 1];
	bool waiting; /* for the end of a sweep */
	bool refused; /* may not ask: read the request, then say no */
};

struct ctl {
	sd_event *ev;
	struct ctl_view view;
	const struct ctl_ops *ops;
	void *arg;
	int fd;
	sd_event_source *listen;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	struct stat made; /* the socket file: removed at exit only if still this one */
	gid_t group;
	uint64_t started; /* CLOCK_MONOTONIC, µs */
	bool paused;
	int64_t paused_since;
	unsigned n_sweeps, next_sweep; /* sweeps[] is a ring; next_sweep is the oldest when full */
	struct ctl_sweep sweeps[CTL_SWEEPS];
	struct ctl_conn *conn[CTL_CONNS];
	uint64_t warn_start; /* the minute peer_warn() counts in, µs */
	unsigned warn_n, warn_dropped;
};

/*
 * Warnings a client causes (refused, garbage, silent, too many): at most
 * CTL_WARN_BURST a minute, so that a loop of bad clients cannot flood the
 * journal; the rest are counted, and the count said when the minute ends.
 */
static bool peer_warn(struct ctl *c)
{
	uint64_t now = 0;

	sd_event_now(c->ev, CLOCK_MONOTONIC, &now);
	if (now - c->warn_start >= 60000000ULL) {
		if (c->warn_dropped)
			log_warn("control socket %s: %u more warnings about clients in the last "
				 "minute not shown", c->path, c->warn_dropped);
		c->warn_start = now;
		c->warn_n = c->warn_dropped = 0;
	}
	if (c->warn_n < CTL_WARN_BURST) {
		c->warn_n++;
		return true;
	}
	c->warn_dropped++;
	return false;
}

static void conn_free(struct ctl_conn *k)
{
	struct ctl *c = k->c;

	for (unsigned i = 0; i < CTL_CONNS; i++)
		if (c->conn[i] == k)
			c->conn[i] = NULL;
	sd_event_source_disable_unref(k->io);
	sd_event_source_disable_unref(k->timer);
	close(k->fd);
	free(k);
}

/*
 * Send the reply and close. MSG_DONTWAIT: a client that does not read
 * cannot hold the loop; a reply this small fits in the socket buffer of
 * any client that does. MSG_NOSIGNAL: a client gone is not a SIGPIPE.
 */
static void conn_reply(struct ctl_conn *k, const char *text, size_t len)
{
	ssize_t r = send(k->fd, text, len, MSG_DONTWAIT | MSG_NOSIGNAL);

	if (r < 0 || (size_t)r != len)
		log_debug("control socket: reply to pid %d cut short (%zd of %zu bytes: %s); "
			  "closing", (int)k->cred.pid, r, len,
			  r < 0 ? strerror(errno) : "buffer full");
	conn_free(k);
}

static void conn_replyf(struct ctl_conn *k, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void conn_replyf(struct ctl_conn *k, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	if ((size_t)n >= sizeof(buf)) {
		/* Cut, but still a line: the client's head decoder needs its end. */
		n = sizeof(buf) - 1;
		buf[n - 1] = '\n';
	}
	conn_reply(k, buf, (size_t)n);
}

static void status(struct ctl_conn *k, bool json)
{
	struct ctl *c = k->c;
	struct ctl_status s = { 0 };
	_cleanup_free_ char *buf = NULL;
	size_t size = 0;
	uint64_t now = 0;
	FILE *f;
	int r;

	ctl_status_fill(&c->view, &s);
	sd_event_now(c->ev, CLOCK_MONOTONIC, &now);
	s.uptime_s = (now - c->started) / 1000000;
	s.paused = c->paused;
	s.paused_since = c->paused_since;
	s.n_sweeps = c->n_sweeps;
	for (unsigned i = 0; i < c->n_sweeps; i++)
		s.sweeps[i] = c->sweeps[(c->next_sweep + i) % CTL_SWEEPS];
	f = open_memstream(&buf, &size);
	if (!f) {
		conn_replyf(k, "err out of memory\n");
		return;
	}
	fputs("ok\n", f);
	r = ctl_status_print(f, &s, json);
	if (fclose(f) != 0 || r < 0) {
		conn_replyf(k, "err out of memory\n");
		return;
	}
	conn_reply(k, buf, size);
}

static void pause_sweeps(struct ctl_conn *k, bool pause)
{
	struct ctl *c = k->c;

	if (pause == c->paused) {
		conn_replyf(k, "ok\nsweeps were already %s\n", pause ? "paused" : "running");
		return;
	}
	c->paused = pause;
	if (pause) {
		c->paused_since = (int64_t)time(NULL);
		log_info("sweeps paused by uid %u (pid %d) through the control socket: no timer or "
			 "trap sweep until 'loom sweep --resume'", k->cred.uid, (int)k->cred.pid);
		conn_replyf(k, "ok\nsweeps paused; 'loom sweep' still sweeps when asked\n");
		return;
	}
	log_info("sweeps resumed by uid %u (pid %d) through the control socket; sweeping now",
		 k->cred.uid, (int)k->cred.pid);
	/* What was held (a trap's heavy sweep) is due now. */
	c->ops->sweep(c->arg, false);
	conn_replyf(k, "ok\nsweeps resumed\n");
}

/*
 * reload's and handover's answers: the op's own words are the body; refused,
 * their first line is the err head's text.
 */
static void op_reply(struct ctl_conn *k, int (*op)(void *, FILE *))
{
	struct ctl *c = k->c;
	_cleanup_free_ char *body = NULL, *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&body, &size);
	int r;

	if (!f) {
		conn_replyf(k, "err out of memory\n");
		return;
	}
	r = op(c->arg, f);
	buf = fclose(f) == 0 ? malloc(size + 4) : NULL;
	if (!buf) {
		conn_replyf(k, "err out of memory\n");
		return;
	}
	memcpy(buf, r < 0 ? "err " : "ok\n", r < 0 ? 4 : 3);
	memcpy(buf + (r < 0 ? 4 : 3), body, size);
	conn_reply(k, buf, size + (r < 0 ? 4 : 3));
}

static void dispatch(struct ctl_conn *k)
{
	struct ctl *c = k->c;
	enum ctl_req req;

	if (k->refused) {
		if (peer_warn(c))
			log_warn("control socket %s: refused uid %u gid %u (pid %d): neither root "
				 "nor in the socket's group %u; connection closed", c->path,
				 k->cred.uid, k->cred.gid, (int)k->cred.pid, c->group);
		conn_replyf(k, "err permission denied: uid %u is neither root nor in group %u\n",
			    k->cred.uid, c->group);
		return;
	}
	/* Nothing at all: a probe (another loomd checking for a live socket), not a client. */
	if (k->n == 0) {
		log_debug("control socket: pid %d closed without a request", (int)k->cred.pid);
		conn_free(k);
		return;
	}
	if (ctl_req_parse(k->buf, k->n, &req) < 0) {
		if (peer_warn(c))
			log_warn("control socket: pid %d sent no request loomd knows (%zu bytes); "
				 "closed", (int)k->cred.pid, k->n);
		conn_replyf(k, "err not a request (status, status json, sweep, sweep heavy, "
			    "sweep pause, sweep resume, reload, handover)\n");
		return;
	}
	log_debug("control socket: '%s' from uid %u (pid %d)", ctl_req_name(req), k->cred.uid,
		  (int)k->cred.pid);
	switch (req) {
	case CTL_STATUS:
	case CTL_STATUS_JSON:
		status(k, req == CTL_STATUS_JSON);
		break;
	case CTL_SWEEP:
	case CTL_SWEEP_HEAVY:
		/* Answered by ctl_answer(); no more input is read, so none can spin the loop. */
		sd_event_source_set_enabled(k->io, SD_EVENT_OFF);
		sd_event_source_set_enabled(k->timer, SD_EVENT_OFF);
		k->waiting = true;
		c->ops->sweep(c->arg, req == CTL_SWEEP_HEAVY);
		break;
	case CTL_SWEEP_PAUSE:
	case CTL_SWEEP_RESUME:
		pause_sweeps(k, req == CTL_SWEEP_PAUSE);
		break;
	case CTL_RELOAD:
		op_reply(k, c->ops->reload);
		break;
	case CTL_HANDOVER:
		op_reply(k, c->ops->handover);
		break;
	default:
		conn_replyf(k, "err not a request\n");
	}
}

static int on_conn_input(sd_event_source *s, int fd, uint32_t revents, void *arg)
{
	struct ctl_conn *k = arg;
	ssize_t r;

	(void)s, (void)revents;
	r = read(fd, k->buf + k->n, sizeof(k->buf) - k->n);
	if (r < 0 && (errno == EAGAIN || errno == EINTR))
		return 0;
	if (r < 0) {
		conn_free(k);
		return 0;
	}
	k->n += (size_t)r;
	/* A line, the end of the stream, or more than a request may be: decide now. */
	if (r == 0 || memchr(k->buf, '\n', k->n) || k->n == sizeof(k->buf))
		dispatch(k);
	return 0;
}

static int on_conn_timeout(sd_event_source *s, uint64_t usec, void *arg)
{
	struct ctl_conn *k = arg;

	(void)s, (void)usec;
	/* A peer that may not ask is told so, whatever it did not send. */
	if (k->refused) {
		dispatch(k);
		return 0;
	}
	if (peer_warn(k->c))
		log_warn("control socket: pid %d sent no whole request within %d ms; closed",
			 (int)k->cred.pid, CTL_READ_MS);
	conn_replyf(k, "err no request within %d ms\n", CTL_READ_MS);
	return 0;
}

/* Root, loomd's own user, and the socket's group (primary or supplementary) may ask. */
static bool may_ask(const struct ctl *c, int fd, const struct ucred *cr)
{
	gid_t groups[256];
	socklen_t len = sizeof(groups);

	if (cr->uid == 0 || cr->uid == geteuid() || cr->gid == c->group)
		return true;
	/* SO_PEERGROUPS: Linux 4.13; older kernels answer ENOPROTOOPT and only gid counts. */
	if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &len) < 0)
		return false;
	for (size_t i = 0; i < len / sizeof(gid_t); i++)
		if (groups[i] == c->group)
			return true;
	return false;
}

static int conn_new(struct ctl *c, int fd)
{
	struct ctl_conn *k;
	socklen_t len = sizeof(k->cred);
	uint64_t now;
	unsigned slot;
	int r;

	for (slot = 0; slot < CTL_CONNS && c->conn[slot]; slot++)
		;
	k = calloc(1, sizeof(*k));
	if (!k) {
		close(fd);
		return -ENOMEM;
	}
	k->c = c;
	k->fd = fd;
	k->cred.pid = -1;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &k->cred, &len) < 0) {
		r = -errno;
		log_warn("control socket: no peer credentials (%s); connection closed",
			 strerror(-r));
		conn_free(k);
		return r;
	}
	/*
	 * Refused after its request is read: closing on unread bytes would
	 * reset the connection, and the client would never see why.
	 */
	k->refused = !may_ask(c, fd, &k->cred);
	if (slot == CTL_CONNS) {
		if (peer_warn(c))
			log_warn("control socket: %u connections open already; pid %d turned away",
				 CTL_CONNS, (int)k->cred.pid);
		conn_replyf(k, "err busy: %u requests in progress; try again\n", CTL_CONNS);
		return -EBUSY;
	}
	c->conn[slot] = k;
	sd_event_now(c->ev, CLOCK_MONOTONIC, &now);
	r = sd_event_add_io(c->ev, &k->io, fd, EPOLLIN, on_conn_input, k);
	if (r >= 0)
		r = sd_event_add_time(c->ev, &k->timer, CLOCK_MONOTONIC,
				      now + CTL_READ_MS * 1000ULL, 0, on_conn_timeout, k);
	if (r < 0) {
		log_warn("control socket: cannot watch a connection: %s; closed", strerror(-r));
		conn_free(k);
	}
	return r;
}

static int on_listen(sd_event_source *s, int fd, uint32_t revents, void *arg)
{
	struct ctl *c = arg;

	(void)s, (void)revents;
	/* Every pending connection; each one's work waits for its own events. */
	for (;;) {
		int k = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (k < 0) {
			if (errno != EAGAIN && errno != EINTR && errno != ECONNABORTED)
				log_warn("control socket %s: accept: %s; still listening", c->path,
					 strerror(errno));
			return 0;
		}
		conn_new(c, k);
	}
}

static int listen_on(struct ctl *c)
{
	c->fd = ctl_sock_listen(c->path, CTL_CONNS, &c->made);
	if (c->fd < 0)
		return c->fd;
	c->group = c->made.st_gid;
	return sd_event_add_io(c->ev, &c->listen, c->fd, EPOLLIN, on_listen, c);
}

static int ctl_new(sd_event *ev, const struct ctl_conf *conf, struct ctl **out)
{
	struct ctl *c;
	int r;

	if (strlen(conf->path) >= sizeof(c->path))
		return -ENAMETOOLONG;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->ev = ev;
	c->view = conf->view;
	c->ops = conf->ops;
	c->arg = conf->arg;
	c->fd = -1;
	snprintf(c->path, sizeof(c->path), "%s", conf->path);
	sd_event_now(ev, CLOCK_MONOTONIC, &c->started);
	r = listen_on(c);
	if (r < 0) {
		ctl_close(c);
		return r;
	}
	*out = c;
	return 0;
}

int ctl_open(sd_event *ev, const struct ctl_conf *conf, struct ctl **out)
{
	int r = ctl_new(ev, conf, out);

	if (r == -EADDRINUSE)
		log_warn("control socket %s: another loomd answers there; running without one "
			 "(give this loomd its own with --control)", conf->path);
	else if (r == -EEXIST)
		log_warn("control socket %s: something that is not a socket is there, which loomd "
			 "leaves alone; running without one (remove it, or give loomd another "
			 "path with --control)", conf->path);
	else if (r < 0)
		log_warn("control socket %s: %s; running without one (loom status cannot reach "
			 "this loomd; give --control a path of at most %zu bytes whose folder "
			 "exists or can be made)", conf->path, strerror(-r),
			 sizeof(((struct sockaddr_un *)0)->sun_path) - 1);
	else
		log_info("control socket %s: listening", conf->path);
	if (r == 0)
		ctl_set_group(*out, conf->group);
	return r;
}

void ctl_close(struct ctl *c)
{
	if (!c)
		return;
	for (unsigned i = 0; i < CTL_CONNS; i++)
		if (c->conn[i]) {
			if (c->conn[i]->waiting)
				conn_replyf(c->conn[i], "err loomd is stopping; no sweep\n");
			else
				conn_free(c->conn[i]);
		}
	sd_event_source_disable_unref(c->listen);
	if (c->fd >= 0) {
		ctl_sock_remove(c->path, &c->made);
		close(c->fd);
	}
	free(c);
}

int ctl_set_group(struct ctl *c, const char *name)
{
	struct group gr, *res = NULL;
	char buf[4096];
	gid_t gid = getegid();
	int r;

	if (!c)
		return 0;
	if (name) {
		r = getgrnam_r(name, &gr, buf, sizeof(buf), &res);
		if (r || !res) {
			r = r ? -r : -ENOENT;
			log_warn("control socket %s: control-group '%s': %s; the socket keeps "
				 "group %u", c->path, name,
				 r == -ENOENT ? "no such group on this host" : strerror(-r),
				 c->group);
			return r;
		}
		gid = gr.gr_gid;
	}
	if (gid == c->group)
		return 0;
	if (chown(c->path, (uid_t)-1, gid) < 0) {
		r = -errno;
		log_warn("control socket %s: giving it group %u: %s; it keeps group %u", c->path,
			 gid, strerror(-r), c->group);
		return r;
	}
	c->group = gid;
	log_info("control socket %s: group %s (%u) may ask", c->path, name ? name : "loomd's own",
		 gid);
	return 0;
}

bool ctl_paused(const struct ctl *c)
{
	return c && c->paused;
}

bool ctl_waiting(const struct ctl *c)
{
	if (!c)
		return false;
	for (unsigned i = 0; i < CTL_CONNS; i++)
		if (c->conn[i] && c->conn[i]->waiting)
			return true;
	return false;
}

void ctl_record(struct ctl *c, const struct ctl_sweep *w)
{
	if (!c)
		return;
	if (c->n_sweeps < CTL_SWEEPS) {
		c->sweeps[c->n_sweeps++] = *w;
		return;
	}
	c->sweeps[c->next_sweep] = *w;
	c->next_sweep = (c->next_sweep + 1) % CTL_SWEEPS;
}

void ctl_answer(struct ctl *c, int err, const char *line)
{
	if (!c)
		return;
	for (unsigned i = 0; i < CTL_CONNS; i++) {
		struct ctl_conn *k = c->conn[i];

		if (!k || !k->waiting)
			continue;
		if (err < 0)
			conn_replyf(k, "err the sweep failed: %s; loomd tries again at the next "
				    "sweep\n", strerror(-err));
		else
			conn_replyf(k, "ok\n%s\n", line);
	}
}
