/* SPDX-License-Identifier: MIT */
/*
 * librmpp_shim.so, the interposed libc calls. The shim gives libibumad
 * clients on the simulator what the kernel's MAD layer gives them on
 * hardware for agents registered with rmpp_version 1: RMPP (IBA 13.6), and
 * with it the kernel's wait for responses. Preloaded in front of umad2sim:
 *
 *   LD_PRELOAD=librmpp_shim.so:libumad2sim.so:librmpp_tail.so saquery NR
 *
 * Where it sits. On hardware, RMPP is done by the kernel, below the
 * /dev/infiniband/umadN character device: user space writes whole messages
 * and reads whole messages. umad2sim replaces that device by interposing the
 * libc calls libibumad makes on it (open, close, read, write, ioctl, poll),
 * and knows nothing of RMPP. The shim interposes the same six calls one layer
 * above umad2sim, so it sees exactly what the kernel sees: REGISTER_AGENT with
 * its rmpp_version, write() of a message of any length, read() with the
 * kernel's length rules. Doing it here rather than on libibumad's API
 * (umad_send, umad_recv, umad_register...) covers every entry point at once
 * (umad_register, umad_register_oui, the register2 fallback, umad_get_fd plus
 * the client's own poll) and does not depend on which calls inside libibumad
 * can be interposed. The next layer is reached with dlsym(RTLD_NEXT).
 *
 * Calls on any other fd pass straight through, without the shim's lock.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#undef _FORTIFY_SOURCE /* this file defines read, write, open, poll */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>

#include "rmpp_shim.h"

#define UMAD_PATH "/dev/infiniband/umad"
#define POLL_SLICE_MS 20 /* how often other fds in a poll set are asked */

static bool is_umad_path(const char *path)
{
	size_t n = strlen(UMAD_PATH);

	return path && !strncmp(path, UMAD_PATH, n) && isdigit((unsigned char)path[n]);
}

int open(const char *path, int flags, ...)
{
	mode_t mode = 0;
	va_list ap;
	int fd;

	shim_init();
	if (flags & (O_CREAT | O_TMPFILE)) {
		va_start(ap, flags);
		mode = (mode_t)va_arg(ap, int);
		va_end(ap);
	}
	fd = shim_next.open(path, flags, mode);
	if (fd >= 0 && is_umad_path(path))
		shim_track(fd);
	return fd;
}

int close(int fd)
{
	shim_init();
	if (shim_is_managed(fd))
		shim_untrack(fd);
	return shim_next.close(fd);
}

/*
 * The kernel's rules: a message longer than the buffer but with room for
 * the first segment fails with ENOSPC, its header (with the full length) and
 * first segment copied, and stays queued. A single MAD that does not fit is
 * cut short, as umad2sim does; an empty queue gives -EWOULDBLOCK, as
 * umad2sim does (libibumad's umad_recv expects that value).
 */
static ssize_t read_queued(struct shim_fd *sf, void *buf, size_t count)
{
	struct shim_pkt *p = sf->head;

	if (!p) {
		errno = EWOULDBLOCK;
		return -EWOULDBLOCK;
	}
	if (count < p->len && p->len - SHIM_UMAD_HDR > RMPP_MAD_SIZE) {
		if (count < SHIM_UMAD_HDR + RMPP_MAD_SIZE) {
			errno = EINVAL;
			return -1;
		}
		memcpy(buf, p->b, SHIM_UMAD_HDR + RMPP_MAD_SIZE);
		errno = ENOSPC;
		return -1;
	}
	if (count > p->len)
		count = p->len;
	memcpy(buf, p->b, count);
	sf->head = p->next;
	if (!sf->head)
		sf->tail = NULL;
	free(p);
	return (ssize_t)count;
}

ssize_t read(int fd, void *buf, size_t count)
{
	struct shim_fd *sf;
	ssize_t r;

	shim_init();
	if (!shim_is_managed(fd))
		return shim_next.read(fd, buf, count);
	shim_lock();
	sf = shim_lookup(fd);
	r = sf ? read_queued(sf, buf, count) : shim_next.read(fd, buf, count);
	shim_unlock();
	return r;
}

ssize_t write(int fd, const void *buf, size_t count)
{
	struct shim_fd *sf;
	ssize_t r;

	shim_init();
	if (!shim_is_managed(fd))
		return shim_next.write(fd, buf, count);
	shim_lock();
	sf = shim_lookup(fd);
	r = sf ? flow_client_write(sf, buf, count) : shim_next.write(fd, buf, count);
	shim_unlock();
	return r;
}

/* Registration as umad2sim answered it, remembered for the fd's transfers. */
static void note_ioctl(struct shim_fd *sf, unsigned long request, void *arg)
{
	const struct ib_user_mad_reg_req *q = arg;
	const struct ib_user_mad_reg_req2 *q2 = arg;
	struct shim_agent a = { .used = true };
	uint32_t id;

	if (request == IB_USER_MAD_REGISTER_AGENT) {
		id = q->id;
		a.mgmt_class = q->mgmt_class;
		a.rmpp_version = q->rmpp_version;
		a.rmpp = q->rmpp_version != 0;
	} else if (request == IB_USER_MAD_REGISTER_AGENT2) {
		id = q2->id;
		a.mgmt_class = q2->mgmt_class;
		a.rmpp_version = q2->rmpp_version;
		a.rmpp = q2->rmpp_version && !(q2->flags & IB_USER_MAD_USER_RMPP);
	} else if (request == IB_USER_MAD_UNREGISTER_AGENT) {
		id = *(const uint32_t *)arg;
		if (id < SHIM_MAX_AGENTS) {
			flow_drop_agent(sf, id);
			wait_drop_agent(sf, id);
			if (sf->agents[id].used && shim_next.tail_agent)
				shim_next.tail_agent(sf->agents[id].mgmt_class, -1);
			sf->agents[id] = (struct shim_agent){ 0 };
		}
		return;
	} else {
		return;
	}
	if (id >= SHIM_MAX_AGENTS)
		return;
	if (sf->agents[id].used && shim_next.tail_agent)
		shim_next.tail_agent(sf->agents[id].mgmt_class, -1);
	sf->agents[id] = a;
	if (shim_next.tail_agent)
		shim_next.tail_agent(a.mgmt_class, 1);
	shim_dbg("fd %d: agent %u: class 0x%02x, rmpp_version %u%s", sf->fd, id, a.mgmt_class,
		 a.rmpp_version, a.rmpp ? ": RMPP by the shim" : "");
}

int ioctl(int fd, unsigned long request, ...)
{
	struct shim_fd *sf;
	va_list ap;
	void *arg;
	int r;

	shim_init();
	va_start(ap, request);
	arg = va_arg(ap, void *);
	va_end(ap);
	r = shim_next.ioctl(fd, request, arg);
	if (r == 0 && arg && shim_is_managed(fd)) {
		shim_lock();
		sf = shim_lookup(fd);
		if (sf)
			note_ioctl(sf, request, arg);
		shim_unlock();
	}
	return r;
}

/* ---- poll ---------------------------------------------------------------------- */

/* One poll() call: which of its fds are ours (umad fds this shim serves). */
struct poll_set {
	struct pollfd *fds;
	nfds_t n;
	bool *ours;          /* per fd */
	struct pollfd *tmp;  /* the others, for umad2sim's poll; NULL if none */
	nfds_t nothers;
};

/* Under the lock: readiness of our fds. One closed meanwhile is POLLNVAL. */
static int poll_ours(struct poll_set *ps)
{
	struct shim_fd *sf;
	int ready = 0;
	nfds_t i;

	for (i = 0; i < ps->n; i++) {
		if (!ps->ours[i])
			continue;
		sf = shim_lookup(ps->fds[i].fd);
		/* As the kernel: a MAD can always be written. */
		ps->fds[i].revents = sf ? (short)(ps->fds[i].events & (POLLOUT | POLLWRNORM))
					: POLLNVAL;
		if (sf && sf->head)
			ps->fds[i].revents |= (short)(ps->fds[i].events & (POLLIN | POLLRDNORM));
		if (ps->fds[i].revents)
			ready++;
	}
	return ready;
}

/* The other fds, asked without waiting (through umad2sim). */
static int poll_others(struct poll_set *ps)
{
	nfds_t i, m = 0;
	int r;

	if (!ps->nothers)
		return 0;
	for (i = 0; i < ps->n; i++)
		if (!ps->ours[i])
			ps->tmp[m++] = ps->fds[i];
	r = shim_next.poll(ps->tmp, m, 0);
	if (r < 0)
		return r;
	for (i = 0, m = 0; i < ps->n; i++)
		if (!ps->ours[i])
			ps->fds[i].revents = ps->tmp[m++].revents;
	return r;
}

static void unlock_raw(void *arg)
{
	(void)arg;
	pthread_mutex_unlock(&shim_mutex);
}

/* Waits (a cancellation point, as poll is) until one of ours has something
 * or UNTIL (ms) comes; the readiness of ours then. */
static int poll_wait(struct poll_set *ps, uint64_t until)
{
	struct timespec ts = { .tv_sec = (time_t)(until / 1000),
			       .tv_nsec = (long)(until % 1000) * 1000000 };
	int ready;

	pthread_mutex_lock(&shim_mutex);
	pthread_cleanup_push(unlock_raw, NULL);
	ready = poll_ours(ps);
	if (!ready)
		pthread_cond_timedwait(&shim_cond, &shim_mutex, &ts);
	ready = poll_ours(ps);
	pthread_cleanup_pop(1);
	return ready;
}

/* Sorts FDS into ours and the others; -1 and errno if out of memory. */
static int poll_set_init(struct poll_set *ps, struct pollfd *fds, nfds_t n)
{
	nfds_t i;

	*ps = (struct poll_set){ .fds = fds, .n = n, .ours = calloc(n, sizeof(bool)) };
	if (!ps->ours)
		goto nomem;
	for (i = 0; i < n; i++) {
		ps->ours[i] = shim_is_managed(fds[i].fd);
		ps->nothers += !ps->ours[i];
	}
	if (ps->nothers && !(ps->tmp = calloc(ps->nothers, sizeof(*ps->tmp))))
		goto nomem;
	return 0;
nomem:
	free(ps->ours);
	errno = ENOMEM;
	return -1;
}

int poll(struct pollfd *fds, nfds_t n, int timeout)
{
	struct poll_set ps;
	uint64_t end, now, until;
	int ready, others;
	nfds_t i;

	shim_init();
	for (i = 0; i < n && !shim_is_managed(fds[i].fd); i++)
		;
	if (i == n)
		return shim_next.poll(fds, n, timeout);
	if (poll_set_init(&ps, fds, n) < 0)
		return -1;
	shim_lock();
	ready = poll_ours(&ps);
	shim_unlock();
	end = timeout < 0 ? UINT64_MAX : shim_now_ms() + (uint64_t)timeout;
	for (;;) {
		others = poll_others(&ps);
		if (others < 0) {
			ready = -1;
			break;
		}
		ready += others;
		now = shim_now_ms();
		if (ready || now >= end)
			break;
		/* Ours wake the wait at once; the others are asked every slice. */
		until = now + (ps.nothers ? POLL_SLICE_MS : 1000);
		ready = poll_wait(&ps, until < end ? until : end);
	}
	free(ps.tmp);
	free(ps.ours);
	return ready;
}
