/* SPDX-License-Identifier: MIT */
/*
 * librmpp_tail.so: keeps the last 32 bytes of every MAD umad2sim receives,
 * which umad2sim itself loses. Preloaded *after* umad2sim:
 *
 *   LD_PRELOAD=librmpp_shim.so:libumad2sim.so:librmpp_tail.so
 *
 * Why. umad2sim's receiver thread reads each packet from ibsim (a 288-byte
 * request: addresses, length, the 256-byte MAD) into a buffer of that same
 * size, but the buffer must also hold the 64-byte umad header: it copies only
 * MAD bytes 0..223, and read() later hands out bytes 224..255 from past the
 * end of that buffer (heap garbage). A single SA record rarely reaches byte
 * 224, so nobody noticed; every full RMPP segment does.
 *
 * How. umad2sim reads ibsim's socket through the next "read" after itself,
 * which is this one: each whole request read from a socket is kept in a
 * ring. The shim's pump, given a MAD by umad2sim, takes the kept MAD whose
 * first 224 bytes are the same (rmpp_tail_take) and puts its true tail back.
 *
 * Also: a MAD of a class no agent of the process registered is dropped here,
 * as the kernel drops it. umad2sim's receiver would look up the agent's fd
 * data, find none and lock a mutex through a NULL pointer: the client dies
 * of SIGSEGV before it has printed anything. It happens when a MAD meant for
 * a process that has just exited reaches the next client that takes its
 * slot in ibsim, before that one has registered (seen: saquery, about 1 run
 * in 300, back to back on a busy machine). The shim tells the tail what is
 * registered (rmpp_tail_agent); until it has told anything (no shim), all
 * passes as before.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#undef _FORTIFY_SOURCE /* this file defines read */
#include <dlfcn.h>
#include <endian.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "rig_mad.h"
#include "rmpp_shim.h"

#define RING 1024 /* MADs received but not yet taken by a pump */

static struct {
	pthread_once_t once;
	pthread_mutex_t lock;
	ssize_t (*read)(int, void *, size_t);
	unsigned next; /* the oldest slot, and the next to fill */
	uint16_t len[RING]; /* 0: free */
	uint8_t mad[RING][RMPP_MAD_SIZE];
	bool told;           /* the shim reports registrations */
	int agents[256];     /* registered agents per management class */
	unsigned long unclaimed; /* MADs dropped: no agent of their class */
} t = { .once = PTHREAD_ONCE_INIT, .lock = PTHREAD_MUTEX_INITIALIZER };

void rmpp_tail_agent(uint8_t mgmt_class, int delta)
{
	pthread_mutex_lock(&t.lock);
	t.told = true;
	t.agents[mgmt_class] += delta;
	pthread_mutex_unlock(&t.lock);
}

/* Does an agent take this MAD? Always, when nobody says what is registered. */
static bool claimed(const struct rig_mad_simreq *q)
{
	bool yes;

	pthread_mutex_lock(&t.lock);
	yes = !t.told || t.agents[q->mad[1]] > 0;
	if (!yes)
		t.unclaimed++;
	pthread_mutex_unlock(&t.lock);
	return yes;
}

static void init(void)
{
	t.read = (ssize_t(*)(int, void *, size_t))dlsym(RTLD_NEXT, "read");
}

static void keep(const struct rig_mad_simreq *q)
{
	uint64_t len = be64toh(q->length);

	if (len <= SHIM_TAIL_FROM || len > RMPP_MAD_SIZE)
		return;
	pthread_mutex_lock(&t.lock);
	memcpy(t.mad[t.next], q->mad, len);
	t.len[t.next] = (uint16_t)len;
	t.next = (t.next + 1) % RING;
	pthread_mutex_unlock(&t.lock);
}

ssize_t read(int fd, void *buf, size_t count)
{
	struct stat st;
	ssize_t r;

	pthread_once(&t.once, init);
	for (;;) {
		r = t.read(fd, buf, count);
		/* Only umad2sim's receiver reads whole requests, and from a socket. */
		if (count != sizeof(struct rig_mad_simreq) || r != (ssize_t)count || fstat(fd, &st) ||
		    !S_ISSOCK(st.st_mode))
			return r;
		if (claimed(buf))
			break;
		/* Unclaimed: read the next one (the receiver thread only waits here). */
	}
	keep(buf);
	return r;
}

int rmpp_tail_take(uint8_t *mad, size_t len)
{
	unsigned k, i;

	pthread_mutex_lock(&t.lock);
	for (k = 0; k < RING; k++) {
		i = (t.next + k) % RING; /* oldest first */
		if (t.len[i] == len && !memcmp(t.mad[i], mad, SHIM_TAIL_FROM)) {
			memcpy(mad + SHIM_TAIL_FROM, t.mad[i] + SHIM_TAIL_FROM,
			       len - SHIM_TAIL_FROM);
			t.len[i] = 0;
			pthread_mutex_unlock(&t.lock);
			return 0;
		}
	}
	pthread_mutex_unlock(&t.lock);
	return -ENOENT;
}
