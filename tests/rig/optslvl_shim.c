/* SPDX-License-Identifier: MIT */
/*
 * liboptslvl_shim.so: OptimizedSLtoVLMappingProgramming (IBA 1.2.1
 * 14.2.5.4 SwitchInfo, 14.2.5.8 SLtoVLMappingTable) for a simulator that has
 * none. ibsim answers an SL2VL Set for one (input, output) pair of a switch
 * only; a switch with the capability also takes one Set for many:
 * AttributeModifier bit 17 set: every input port (the input port field is
 * ignored), bit 16 set: every output port (the output port field ignored).
 * Preloaded in front of umad2sim (sim.sh: SIM_PRELOAD_FRONT) into one
 * client, an SM:
 *
 *   OPTSLVL_SHIM_LOG=FILE   every SL2VL Get or Set the client writes, one
 *                           line: "sl2vl get|set PATH mod 0xMOD"
 *
 * What it does, for directed-route SMPs:
 *  - a switch's SwitchInfo GetResp reads with OptimizedSLtoVLMappingProgramming
 *    set (LifeTimeValue/PortStateChange byte, bit 0, as iba/ib_types.h has it);
 *  - a switch's NodeInfo GetResp tells it the switch's NumPorts (by route);
 *  - an SL2VL Set with bit 16 or 17 to a switch it knows goes to ibsim as one
 *    Set per (input, output) pair it covers (ports 0..NumPorts), all with the
 *    client's TID, from a thread of the shim's (see expand); the client gets
 *    one GetResp, the last (ibsim answers in order), with the modifier it
 *    sent: the table as set, status 0. The others are dropped on their way in.
 * A Set with those bits to a node it has no NumPorts of goes to ibsim as it
 * is (ibsim then answers for the pair its low 16 bits name). A retry (same
 * TID) of a Set whose expansion is still under way is not sent again: the
 * answer on its way answers it.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rig_mad.h"

#define SI_LIFE_STATE 11 /* SwitchInfo byte: LifeTimeValue, PortStateChange, OptimizedSL2VL */
#define SI_OPT_SL2VL 0x01
#define MOD_ALL_OUT 0x10000u
#define MOD_ALL_IN 0x20000u
#define MAX_SW 8192
#define MAX_PEND 4096

static ssize_t (*next_read)(int, void *, size_t);
static ssize_t (*next_write)(int, const void *, size_t);
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static FILE *log_file;

/* Switches by route: the hop count and the first 16 hops, hashed. */
static struct sw {
	uint8_t used, hops, path[16], nports;
} sw_tab[MAX_SW];

/* Expanded Sets whose answers are on their way: TID, how many to drop, the modifier sent. */
static struct pend {
	uint64_t tid;
	unsigned drop;
	uint32_t mod;
	uint8_t used;
} pend[MAX_PEND];

__attribute__((constructor)) static void shim_init(void)
{
	const char *l = getenv("OPTSLVL_SHIM_LOG");

	next_read = (ssize_t(*)(int, void *, size_t))dlsym(RTLD_NEXT, "read");
	next_write = (ssize_t(*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
	if (l && *l)
		log_file = fopen(l, "a");
	if (log_file)
		setvbuf(log_file, NULL, _IOLBF, 0);
}

/* A directed-route SMP of 16 hops at most (the switch table keeps 16). */
static uint8_t *dr_smp(const void *buf, ssize_t n)
{
	uint8_t *mad = rig_mad_dr_smp(buf, n);

	return mad && mad[RIG_DR_HOPS] <= 16 ? mad : NULL;
}

/* The table slot of the switch at mad's route (NULL: full). Under lock. */
static struct sw *sw_slot(const uint8_t *mad, int add)
{
	unsigned hops = mad[RIG_DR_HOPS], h = hops;

	for (unsigned i = 1; i <= hops; i++)
		h = h * 131 + mad[RIG_DR_INITIAL_PATH + i];
	for (unsigned k = 0; k < MAX_SW; k++) {
		struct sw *s = &sw_tab[(h + k) % MAX_SW];

		if (!s->used) {
			if (!add)
				return NULL;
			s->used = 1;
			s->hops = (uint8_t)hops;
			memcpy(s->path, mad + RIG_DR_INITIAL_PATH + 1, hops);
			return s;
		}
		if (s->hops == hops && !memcmp(s->path, mad + RIG_DR_INITIAL_PATH + 1, hops))
			return s;
	}
	return NULL;
}

/* An answer to drop (an expanded Set's but the last)? The last gets its modifier back. */
static int take_answer(uint8_t *mad)
{
	uint64_t tid = rig_mad_tid(mad);

	for (unsigned k = 0; k < MAX_PEND; k++) {
		struct pend *p = &pend[k];

		if (!p->used || p->tid != tid)
			continue;
		if (p->drop) {
			p->drop--;
			return 1;
		}
		rig_mad_set_mod(mad, p->mod);
		p->used = 0;
		return 0;
	}
	return 0;
}

ssize_t read(int fd, void *buf, size_t count)
{
	for (;;) {
		ssize_t n = next_read(fd, buf, count);
		uint8_t *mad = dr_smp(buf, n);
		uint16_t attr;
		int drop = 0;

		if (!mad || mad[3] != RIG_METHOD_GETRESP)
			return n;
		attr = rig_mad_be16(mad + 16);
		pthread_mutex_lock(&lock);
		if (attr == RIG_ATTR_NODE_INFO && mad[RIG_SMP_DATA + 2] == 2) {
			struct sw *s = sw_slot(mad, 1);

			if (s)
				s->nports = mad[RIG_SMP_DATA + 3];
		} else if (attr == RIG_ATTR_SWITCH_INFO) {
			mad[RIG_SMP_DATA + SI_LIFE_STATE] |= SI_OPT_SL2VL;
		} else if (attr == RIG_ATTR_SL2VL) {
			drop = take_answer(mad);
		}
		pthread_mutex_unlock(&lock);
		if (!drop)
			return n;
	}
}

/*
 * The expanded Sets go out from a thread of the shim's: the client's write
 * returns at once. Written from the client's thread, thousands of them
 * would block it in write() while ibsim, whose answers nobody reads then,
 * spins on the client's full queue: both would wait for ever.
 */
struct job {
	struct job *next;
	int fd;
	size_t count;
	unsigned in_lo, in_hi, out_lo, out_hi;
	uint8_t buf[];
};
static struct job *jobs, **jobs_tail = &jobs;
static pthread_cond_t jobs_cond = PTHREAD_COND_INITIALIZER;
static pthread_t writer;
static int writer_up;

static void *writer_main(void *arg)
{
	(void)arg;
	for (;;) {
		struct job *j;

		pthread_mutex_lock(&lock);
		while (!jobs)
			pthread_cond_wait(&jobs_cond, &lock);
		j = jobs;
		jobs = j->next;
		if (!jobs)
			jobs_tail = &jobs;
		pthread_mutex_unlock(&lock);
		for (unsigned i = j->in_lo; i <= j->in_hi; i++)
			for (unsigned o = j->out_lo; o <= j->out_hi; o++) {
				rig_mad_set_mod(j->buf + RIG_UMAD_HDR, i << 8 | o);
				/* Paced: ibsim takes a burst of thousands badly (seen at k=12). */
				usleep(50);
				/* A failure: the client's wait times out, as on a lost MAD. */
				if (next_write(j->fd, j->buf, j->count) < 0)
					i = j->in_hi, o = j->out_hi;
			}
		free(j);
	}
	return NULL;
}

/* An optimized Set: one Set a pair it covers, the client's TID on all. */
static ssize_t expand(int fd, const void *buf, size_t count, const uint8_t *mad, unsigned nports)
{
	uint32_t mod = rig_mad_mod(mad);
	unsigned in0 = (mod >> 8) & 0xff, out0 = mod & 0xff;
	struct job *j = malloc(sizeof(*j) + count);
	struct pend *p = NULL;

	if (!j)
		return next_write(fd, buf, count);
	*j = (struct job){ .fd = fd, .count = count,
			   .in_lo = mod & MOD_ALL_IN ? 0 : in0, .in_hi = mod & MOD_ALL_IN ? nports : in0,
			   .out_lo = mod & MOD_ALL_OUT ? 0 : out0,
			   .out_hi = mod & MOD_ALL_OUT ? nports : out0 };
	memcpy(j->buf, buf, count);
	pthread_mutex_lock(&lock);
	/*
	 * The client's retry of a Set still being expanded (its TID pending):
	 * the answer on its way answers it too. Expanding it again would only
	 * lengthen the queue that made the client retry.
	 */
	for (unsigned k = 0; k < MAX_PEND; k++)
		if (pend[k].used && pend[k].tid == rig_mad_tid(mad)) {
			pthread_mutex_unlock(&lock);
			free(j);
			return (ssize_t)count;
		}
	for (unsigned k = 0; k < MAX_PEND && !p; k++)
		if (!pend[k].used)
			p = &pend[k];
	if (p && !writer_up && pthread_create(&writer, NULL, writer_main, NULL) == 0)
		writer_up = 1;
	if (!p || !writer_up) {
		pthread_mutex_unlock(&lock);
		free(j);
		return next_write(fd, buf, count);
	}
	*p = (struct pend){ .tid = rig_mad_tid(mad), .used = 1, .mod = mod,
			    .drop = (j->in_hi - j->in_lo + 1) * (j->out_hi - j->out_lo + 1) - 1 };
	*jobs_tail = j;
	jobs_tail = &j->next;
	pthread_cond_signal(&jobs_cond);
	pthread_mutex_unlock(&lock);
	return (ssize_t)count;
}

ssize_t write(int fd, const void *buf, size_t count)
{
	const uint8_t *mad = dr_smp(buf, (ssize_t)count);
	struct sw *s;
	unsigned nports = 0;

	if (!mad || rig_mad_be16(mad + 16) != RIG_ATTR_SL2VL ||
	    (mad[3] != RIG_METHOD_GET && mad[3] != RIG_METHOD_SET))
		return next_write(fd, buf, count);
	pthread_mutex_lock(&lock);
	if (log_file)
		rig_mad_sl2vl_log(log_file, mad);
	if (mad[3] == RIG_METHOD_SET && (rig_mad_mod(mad) & (MOD_ALL_IN | MOD_ALL_OUT)) &&
	    (s = sw_slot(mad, 0)))
		nports = s->nports;
	pthread_mutex_unlock(&lock);
	if (nports)
		return expand(fd, buf, count, mad, nports);
	return next_write(fd, buf, count);
}
