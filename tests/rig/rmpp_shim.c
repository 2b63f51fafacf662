/* SPDX-License-Identifier: MIT */
/*
 * librmpp_shim.so, the core: settings, the lock, the table of umad fds, the
 * pump thread of each, and the queue each client reads (see rmpp_libc.c for
 * where the shim sits and why, tests/rig/README for how to use it).
 *
 * Each umad fd the client opens gets a pump thread: it takes every MAD
 * umad2sim receives for the fd (umad2sim's poll and read), hands it to the
 * fd's transfers (rmpp_flow.c), and runs their timers. What the client is to
 * read is queued here; read() and poll() on the fd serve that queue.
 *
 * Environment: RMPP_SHIM_DEBUG=1 logs to stderr (otherwise the shim prints
 * nothing); RMPP_SHIM_WINDOW=N segments granted per ACK (64, the kernel's);
 * RMPP_SHIM_ACK_MS=N longest wait for an ACK (2000, the kernel's);
 * RMPP_SHIM_DROP=N loses every Nth DATA segment sent (fault injection).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rmpp_shim.h"

#define MAX_FDS 64
#define SLICE_MS 20 /* the pump's longest wait, so that timers and stop are seen */

struct shim_conf shim_conf = { .window = 64, .ack_ms = 2000 };
struct shim_next shim_next;
pthread_mutex_t shim_mutex = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t shim_cond;

static struct {
	pthread_once_t once;
	bool atexit_set;
	struct shim_fd *fds[MAX_FDS];
	/*
	 * fd + 1 of each managed fd (0: free), read without the lock. umad2sim
	 * itself calls write, read, poll and close (on its sockets) through the
	 * same symbols, also while this shim holds its lock in a call to
	 * umad2sim: those calls must pass through without taking it.
	 */
	int managed[MAX_FDS];
} g = { .once = PTHREAD_ONCE_INIT };

void shim_log(const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int n;

	n = snprintf(line, sizeof(line), "rmpp_shim[%d]: ", (int)getpid());
	va_start(ap, fmt);
	vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s\n", line);
}

uint64_t shim_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static unsigned env_uint(const char *name, unsigned def, unsigned lo, unsigned hi)
{
	const char *s = getenv(name);
	char *end;
	unsigned long v;

	if (!s || !*s)
		return def;
	v = strtoul(s, &end, 10);
	return *end || v < lo || v > hi ? def : (unsigned)v;
}

static void init(void)
{
	pthread_condattr_t ca;
	const char *d = getenv("RMPP_SHIM_DEBUG");

	shim_next.open = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open");
	shim_next.close = (int (*)(int))dlsym(RTLD_NEXT, "close");
	shim_next.read = (ssize_t(*)(int, void *, size_t))dlsym(RTLD_NEXT, "read");
	shim_next.write = (ssize_t(*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
	shim_next.ioctl = (int (*)(int, unsigned long, ...))dlsym(RTLD_NEXT, "ioctl");
	shim_next.poll = (int (*)(struct pollfd *, nfds_t, int))dlsym(RTLD_NEXT, "poll");
	shim_next.tail_take = (int (*)(uint8_t *, size_t))dlsym(RTLD_DEFAULT, "rmpp_tail_take");
	shim_next.tail_agent = (void (*)(uint8_t, int))dlsym(RTLD_DEFAULT, "rmpp_tail_agent");
	/* From now on the tail drops what no registered agent takes (the kernel's way). */
	if (shim_next.tail_agent)
		shim_next.tail_agent(0, 0);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&shim_cond, &ca);
	pthread_condattr_destroy(&ca);
	shim_conf.debug = d && !strcmp(d, "1");
	shim_conf.window = env_uint("RMPP_SHIM_WINDOW", 64, 1, 1024);
	shim_conf.ack_ms = env_uint("RMPP_SHIM_ACK_MS", 2000, 10, 600000);
	shim_conf.drop_every = env_uint("RMPP_SHIM_DROP", 0, 0, 1000000);
}

void shim_init(void)
{
	pthread_once(&g.once, init);
}

/*
 * The lock is never held across a cancellation point with cancellation on:
 * clients cancel threads that sit in poll() or read() (OpenSM stops its
 * receiver thread so), and a thread cancelled holding the lock would hang
 * every other. Only poll()'s wait is cancellable, with a clean-up handler.
 */
static __thread int lock_cancel_state;

void shim_lock(void)
{
	int cs;

	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cs);
	pthread_mutex_lock(&shim_mutex);
	lock_cancel_state = cs;
}

void shim_unlock(void)
{
	int cs = lock_cancel_state;

	pthread_mutex_unlock(&shim_mutex);
	pthread_setcancelstate(cs, NULL);
}

bool shim_is_managed(int fd)
{
	int i;

	for (i = 0; i < MAX_FDS; i++)
		if (__atomic_load_n(&g.managed[i], __ATOMIC_ACQUIRE) == fd + 1)
			return true;
	return false;
}

struct shim_fd *shim_lookup(int fd)
{
	int i;

	for (i = 0; i < MAX_FDS; i++)
		if (g.fds[i] && g.fds[i]->fd == fd)
			return g.fds[i];
	return NULL;
}

/* ---- what the transfers use ---------------------------------------------------- */

ssize_t shim_wire_raw(struct shim_fd *sf, const void *buf, size_t len)
{
	return shim_next.write(sf->fd, buf, len);
}

int shim_wire_send(struct shim_fd *sf, const struct ib_user_mad_hdr *hdr,
		   const uint8_t mad[RMPP_MAD_SIZE])
{
	uint8_t b[SHIM_UMAD_HDR + RMPP_MAD_SIZE];
	struct ib_user_mad_hdr h = *hdr;

	h.length = (uint32_t)sizeof(b);
	memcpy(b, &h, sizeof(h));
	memcpy(b + SHIM_UMAD_HDR, mad, RMPP_MAD_SIZE);
	if (shim_next.write(sf->fd, b, sizeof(b)) != (ssize_t)sizeof(b)) {
		shim_dbg("fd %d: umad2sim did not take a MAD (%s): lost", sf->fd, strerror(errno));
		return -EIO;
	}
	return 0;
}

int shim_deliver(struct shim_fd *sf, const struct ib_user_mad_hdr *hdr, const uint8_t *mad,
		 size_t len)
{
	struct shim_pkt *p = malloc(sizeof(*p) + SHIM_UMAD_HDR + len);
	struct ib_user_mad_hdr h = *hdr;

	if (!p) {
		shim_dbg("fd %d: out of memory: a MAD for agent %u dropped", sf->fd, hdr->id);
		return -ENOMEM;
	}
	h.length = (uint32_t)(SHIM_UMAD_HDR + len);
	p->next = NULL;
	p->len = SHIM_UMAD_HDR + len;
	memcpy(p->b, &h, sizeof(h));
	memcpy(p->b + SHIM_UMAD_HDR, mad, len);
	if (sf->tail)
		sf->tail->next = p;
	else
		sf->head = p;
	sf->tail = p;
	pthread_cond_broadcast(&shim_cond);
	return 0;
}

/* As the kernel's send handler: the send's header with status ETIMEDOUT and
 * the first 24 bytes of its MAD. */
void shim_deliver_timeout(struct shim_fd *sf, const struct ib_user_mad_hdr *hdr,
			  const uint8_t *mad)
{
	struct ib_user_mad_hdr h = *hdr;

	h.status = ETIMEDOUT;
	shim_deliver(sf, &h, mad, SHIM_MAD_HDR);
}

/* ---- the pump ------------------------------------------------------------------ */

/* umad2sim's copy of MAD (LEN bytes) ends at byte 224 (see rmpp_tail.c):
 * the rest from librmpp_tail.so, which saw the whole MAD arrive. */
static void mend_tail(struct shim_fd *sf, uint8_t *mad, size_t len)
{
	if (shim_next.tail_take && shim_next.tail_take(mad, len) < 0)
		shim_dbg("fd %d: no true tail for a MAD of class 0x%02x method 0x%02x: bytes "
			 "224..255 as umad2sim gave them", sf->fd, mad[1], mad[3]);
}

static void *pump(void *arg)
{
	struct shim_fd *sf = arg;
	uint8_t buf[SHIM_UMAD_HDR + RMPP_MAD_SIZE];
	struct pollfd p = { .fd = sf->fd, .events = POLLIN };
	ssize_t n;
	bool stop;

	for (;;) {
		shim_lock();
		flow_timers(sf, shim_now_ms());
		stop = sf->stop;
		shim_unlock();
		if (stop)
			break;
		/* umad2sim's poll and read: its queue of what ibsim sent us. */
		if (shim_next.poll(&p, 1, SLICE_MS) <= 0)
			continue;
		n = shim_next.read(sf->fd, buf, sizeof(buf));
		if (n <= 0)
			continue;
		if (n > (ssize_t)(SHIM_UMAD_HDR + SHIM_TAIL_FROM))
			mend_tail(sf, buf + SHIM_UMAD_HDR, (size_t)n - SHIM_UMAD_HDR);
		shim_lock();
		flow_wire_in(sf, buf, (size_t)n);
		shim_unlock();
	}
	return NULL;
}

static void fd_stop(struct shim_fd *sf)
{
	struct shim_pkt *p;
	int cs;

	shim_lock();
	sf->stop = true;
	shim_unlock();
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cs);
	pthread_join(sf->pump, NULL);
	pthread_setcancelstate(cs, NULL);
	flow_free(sf);
	while ((p = sf->head)) {
		sf->head = p->next;
		free(p);
	}
	free(sf);
}

/* Takes slot I out of the table; its state, or NULL. */
static struct shim_fd *untrack_slot(int i)
{
	struct shim_fd *sf;

	shim_lock();
	sf = g.fds[i];
	g.fds[i] = NULL;
	__atomic_store_n(&g.managed[i], 0, __ATOMIC_RELEASE);
	shim_unlock();
	return sf;
}

/* At exit, before umad2sim's own clean-up frees what the pumps wait on: it
 * is registered after umad2sim's (umad2sim starts before any umad fd is
 * opened), so it runs first. */
static void shim_exit(void)
{
	struct shim_fd *sf;
	int i;

	for (i = 0; i < MAX_FDS; i++)
		if ((sf = untrack_slot(i)))
			fd_stop(sf);
}

void shim_untrack(int fd)
{
	struct shim_fd *sf;
	int i;

	for (i = 0; i < MAX_FDS; i++)
		if (__atomic_load_n(&g.managed[i], __ATOMIC_ACQUIRE) == fd + 1 &&
		    (sf = untrack_slot(i)))
			fd_stop(sf);
}

/* Under the lock: a free slot with a running pump for SF, or -1. */
static int start_pump(struct shim_fd *sf)
{
	sigset_t all, old;
	int i, r;

	for (i = 0; i < MAX_FDS && g.fds[i]; i++)
		;
	if (i == MAX_FDS)
		return -1;
	/* The pump takes no signals: the client's threads handle them. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	r = pthread_create(&sf->pump, NULL, pump, sf);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r)
		return -1;
	g.fds[i] = sf;
	__atomic_store_n(&g.managed[i], sf->fd + 1, __ATOMIC_RELEASE);
	return i;
}

void shim_track(int fd)
{
	struct shim_fd *sf = calloc(1, sizeof(*sf));
	int slot = -1;

	if (sf) {
		sf->fd = fd;
		shim_lock();
		slot = start_pump(sf);
		if (slot >= 0 && !g.atexit_set)
			g.atexit_set = atexit(shim_exit) == 0;
		shim_unlock();
	}
	if (slot < 0) {
		shim_dbg("fd %d: cannot manage it: no RMPP, umad2sim alone", fd);
		free(sf);
		return;
	}
	shim_dbg("fd %d: managed%s", fd, shim_next.tail_take ? "" : "; librmpp_tail.so is not "
		 "preloaded after umad2sim: MAD bytes 224..255 come as umad2sim gives them");
}
