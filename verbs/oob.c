/* SPDX-License-Identifier: MIT */
/*
 * The out-of-band exchange: before RDMA can move a byte, each side must learn the other's
 * QP numbers, address and keys. Over TCP (as perftest, default port 18515), one fixed-size
 * request and answer at a time; over rdma_cm the same messages (cm.c); in loopback the
 * same requests are plain calls.
 */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "verbs/verbs.h"

static int wait_fd(int fd, short ev, double timeout)
{
	struct pollfd p = { .fd = fd, .events = ev };
	int r;

	do
		r = poll(&p, 1, (int)(timeout * 1000));
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return -errno;
	return r ? 0 : -ETIMEDOUT;
}

int oob_send(int fd, const struct vmsg *m, char *err, size_t errlen)
{
	struct vmsg out = *m;
	const char *p = (const char *)&out;
	size_t left = sizeof(out);
	ssize_t n;

	out.magic = VMSG_MAGIC;
	while (left) {
		n = send(fd, p, left, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			snprintf(err, errlen, "sending to the peer failed: %s; did it exit?",
				 strerror(errno));
			return -EPIPE;
		}
		p += n;
		left -= (size_t)n;
	}
	return 0;
}

int oob_recv(int fd, struct vmsg *m, double timeout, char *err, size_t errlen)
{
	char *p = (char *)m;
	size_t left = sizeof(*m);
	ssize_t n;
	int r;

	while (left) {
		r = wait_fd(fd, POLLIN, timeout);
		if (r < 0) {
			snprintf(err, errlen, "no answer from the peer within %.0f s%s", timeout,
				 r == -ETIMEDOUT ? "; is it alive?" : "");
			return r;
		}
		n = recv(fd, p, left, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			snprintf(err, errlen, "the peer closed the connection%s%s",
				 n < 0 ? ": " : "", n < 0 ? strerror(errno) : "");
			return -EPIPE;
		}
		p += n;
		left -= (size_t)n;
	}
	if (m->magic != VMSG_MAGIC) {
		snprintf(err, errlen, "the peer speaks another loom-verbs protocol (magic 0x%08x, "
			 "want 0x%08x): run the same loom-verbs build on both sides", m->magic,
			 VMSG_MAGIC);
		return -EPROTO;
	}
	return 0;
}

/* One message each way over whichever channel the peer has: TCP or rdma_cm. */
int peer_send(struct vpeer *p, const struct vmsg *m, char *err, size_t errlen)
{
	return p->cm ? cm_send(p->cm, m, err, errlen) : oob_send(p->fd, m, err, errlen);
}

int peer_recv(struct vpeer *p, struct vmsg *m, char *err, size_t errlen)
{
	/* The peer may spend a whole --timeout waiting for a chunk's receives. */
	double t = p->timeout * 2 + 5;

	return p->cm ? cm_recv(p->cm, m, t, err, errlen) : oob_recv(p->fd, m, t, err, errlen);
}

int peer_call(struct vpeer *p, struct vmsg *m, char *err, size_t errlen)
{
	int r;

	if (p->local) {
		passive_handle(p->local, m);
	} else {
		r = peer_send(p, m, err, errlen);
		if (r < 0)
			return r;
		r = peer_recv(p, m, err, errlen);
		if (r < 0)
			return r;
	}
	if (m->status < 0) {
		snprintf(err, errlen, "%s: %s", p->local ? "receiver" : "server", m->err);
		return m->status;
	}
	return 0;
}

int oob_connect(const char *host, unsigned port, double timeout, char *err, size_t errlen)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM }, *ai, *a;
	char ps[8];
	int fd = -1, r, one = 1, e = 0;
	socklen_t el = sizeof(e);

	snprintf(ps, sizeof(ps), "%u", port);
	r = getaddrinfo(host, ps, &hints, &ai);
	if (r) {
		snprintf(err, errlen, "cannot resolve \"%s\": %s", host, gai_strerror(r));
		return -EHOSTUNREACH;
	}
	for (a = ai; a; a = a->ai_next) {
		fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (fd < 0)
			continue;
		if (connect(fd, a->ai_addr, a->ai_addrlen) < 0 && errno != EINPROGRESS)
			e = errno;
		else if ((r = wait_fd(fd, POLLOUT, timeout)) < 0)
			e = -r;
		else if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &el) < 0)
			e = errno;
		if (!e)
			break;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(ai);
	if (fd < 0) {
		snprintf(err, errlen, "cannot reach the server %s port %u: %s; is loom-verbs server "
			 "running there (same --oob-port)?", host, port, strerror(e ? e : EIO));
		return -EHOSTUNREACH;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

int oob_listen_accept(unsigned port, double timeout, char *err, size_t errlen)
{
	struct sockaddr_in6 sa = { .sin6_family = AF_INET6, .sin6_port = htons((uint16_t)port),
				   .sin6_addr = IN6ADDR_ANY_INIT };
	int lfd, fd, one = 1, zero = 0, r;

	lfd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lfd < 0) {
		snprintf(err, errlen, "cannot open a TCP socket: %s", strerror(errno));
		return -errno;
	}
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	/* Dual stack: an IPv4 client reaches us too. */
	setsockopt(lfd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
	if (bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(lfd, 1) < 0) {
		r = -errno;
		snprintf(err, errlen, "cannot listen on TCP port %u: %s; pick another with "
			 "--oob-port", port, strerror(errno));
		close(lfd);
		return r;
	}
	r = wait_fd(lfd, POLLIN, timeout);
	if (r < 0) {
		snprintf(err, errlen, "no client connected to TCP port %u within %.0f s", port,
			 timeout);
		close(lfd);
		return r;
	}
	fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	r = -errno;
	close(lfd);
	if (fd < 0) {
		snprintf(err, errlen, "accepting the client on TCP port %u failed: %s", port,
			 strerror(-r));
		return r;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

/* Serve one client until it says goodbye. Exit code: 0 every check passed, 1 one
 * failed, 2 the client vanished or the device failed. */
int server_loop(struct vdev *d, struct vpeer *ch, bool quiet)
{
	struct passive p = { .dev = d, .timeout = ch->timeout };
	struct vmsg m;
	char err[320];
	int code = VX_OK, r;

	for (;;) {
		r = peer_recv(ch, &m, err, sizeof(err));
		if (r < 0) {
			fprintf(stderr, "loom-verbs server: %s\n", err);
			code = VX_CANNOT;
			break;
		}
		passive_handle(&p, &m);
		if (m.type == VM_FIN && m.chk.bad) {
			code = VX_FAIL;
			if (!quiet)
				fprintf(stderr, "loom-verbs server: %s\n", m.chk.what);
		}
		if (m.status < 0 && !quiet)
			fprintf(stderr, "loom-verbs server: %s\n", m.err);
		if (peer_send(ch, &m, err, sizeof(err)) < 0) {
			fprintf(stderr, "loom-verbs server: %s\n", err);
			code = VX_CANNOT;
			break;
		}
		if (m.type == VM_BYE)
			break;
	}
	passive_free(&p);
	return code;
}
