/* SPDX-License-Identifier: MIT */
/*
 * libcapmask_shim.so: a port whose PortInfo:CapabilityMask lacks bits, which
 * ibsim cannot make (every CA port and switch port 0 of it says
 * IsSLMappingSupported, and its console changes no CapabilityMask). Preloaded
 * in front of umad2sim (sim.sh: SIM_PRELOAD_FRONT) into one client, an SM:
 *
 *   CAPMASK_SHIM_PATH=0,1,2    the directed route of the node (as smpquery -D)
 *   CAPMASK_SHIM_CLEAR=0x40    the bits its PortInfo answers lose (hex)
 *   CAPMASK_SHIM_LOG=FILE      what the client sent there, one line a MAD
 *
 * Every directed-route PortInfo GetResp from that route reads with those
 * bits clear, as a node without the capability answers. Every
 * directed-route SLtoVLMappingTable request the client writes, to any node,
 * is logged as "sl2vl get|set PATH mod 0xMOD" (PATH: its hops joined by
 * commas, 0 first), so a test sees what went where on the wire without
 * trusting the SM's own counts. What the client reads is otherwise as
 * umad2sim (or the RMPP shim) hands it over.
 *
 * Where: libibumad reads and writes a umad fd with one 64-byte struct
 * ib_user_mad header then the MAD; this library interposes read and write,
 * reaches the next ones with dlsym(RTLD_NEXT) and looks only at buffers of
 * that shape carrying a directed-route SMP (management class 0x81).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rig_mad.h"

#define PI_CAPMASK 20 /* IBA 14.2.5.6: PortInfo:CapabilityMask, in the data */

static ssize_t (*next_read)(int, void *, size_t);
static ssize_t (*next_write)(int, const void *, size_t);
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static uint8_t want_path[64];
static unsigned want_hops;
static int have_path;
static uint32_t clear_bits;
static FILE *log_file;

__attribute__((constructor)) static void shim_init(void)
{
	const char *p = getenv("CAPMASK_SHIM_PATH"), *c = getenv("CAPMASK_SHIM_CLEAR");
	const char *l = getenv("CAPMASK_SHIM_LOG");
	char *end;

	next_read = (ssize_t(*)(int, void *, size_t))dlsym(RTLD_NEXT, "read");
	next_write = (ssize_t(*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
	if (p && *p) {
		/* "0,1,2": the leading 0 is the route's start, then one port a hop. */
		unsigned long v = strtoul(p, &end, 10);

		have_path = v == 0;
		while (have_path && *end == ',' && want_hops < 63) {
			v = strtoul(end + 1, &end, 10);
			want_path[++want_hops] = (uint8_t)v;
		}
		have_path = have_path && !*end;
	}
	if (c && *c)
		clear_bits = (uint32_t)strtoul(c, NULL, 16);
	if (l && *l)
		log_file = fopen(l, "a");
	if (log_file)
		setvbuf(log_file, NULL, _IOLBF, 0);
}

static int on_path(const uint8_t *mad)
{
	unsigned hops = mad[RIG_DR_HOPS];

	return have_path && hops == want_hops &&
	       !memcmp(mad + RIG_DR_INITIAL_PATH + 1, want_path + 1, hops);
}

ssize_t read(int fd, void *buf, size_t count)
{
	ssize_t n = next_read(fd, buf, count);
	uint8_t *mad = rig_mad_dr_smp(buf, n);
	uint8_t *cap;

	if (!mad || !clear_bits || mad[3] != RIG_METHOD_GETRESP ||
	    rig_mad_be16(mad + 16) != RIG_ATTR_PORT_INFO || !on_path(mad))
		return n;
	cap = mad + RIG_SMP_DATA + PI_CAPMASK;
	rig_mad_put_be32(cap, rig_mad_be32(cap) & ~clear_bits);
	return n;
}

ssize_t write(int fd, const void *buf, size_t count)
{
	const uint8_t *mad = rig_mad_dr_smp(buf, (ssize_t)count);

	if (mad && log_file && rig_mad_be16(mad + 16) == RIG_ATTR_SL2VL &&
	    (mad[3] == RIG_METHOD_GET || mad[3] == RIG_METHOD_SET)) {
		pthread_mutex_lock(&lock);
		rig_mad_sl2vl_log(log_file, mad);
		pthread_mutex_unlock(&lock);
	}
	return next_write(fd, buf, count);
}
