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
#include <endian.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define UMAD_HDR 64
#define MAD_LEN 256
#define CLASS_SMI_DR 0x81
#define ATTR_PORT_INFO 0x0015
#define ATTR_SL2VL 0x0017
#define METHOD_GET 0x01
#define METHOD_SET 0x02
#define METHOD_GETRESP 0x81
#define DR_INITIAL_PATH 128 /* IBA 14.2.1.2: the DR SMP's InitialPath */
#define PI_CAPMASK 20       /* IBA 14.2.5.6: PortInfo:CapabilityMask, in the data */
#define SMP_DATA 64

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

static const uint8_t *dr_smp(const void *buf, ssize_t n)
{
	const uint8_t *mad = (const uint8_t *)buf + UMAD_HDR;

	if (n < UMAD_HDR + MAD_LEN || mad[0] != 1 || mad[1] != CLASS_SMI_DR)
		return NULL;
	return mad;
}

static uint16_t mad16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static int on_path(const uint8_t *mad)
{
	unsigned hops = mad[7];

	return have_path && hops == want_hops &&
	       !memcmp(mad + DR_INITIAL_PATH + 1, want_path + 1, hops);
}

ssize_t read(int fd, void *buf, size_t count)
{
	ssize_t n = next_read(fd, buf, count);
	uint8_t *mad = (uint8_t *)dr_smp(buf, n);
	uint32_t cap;

	if (!mad || !clear_bits || mad[3] != METHOD_GETRESP ||
	    mad16(mad + 16) != ATTR_PORT_INFO || !on_path(mad))
		return n;
	memcpy(&cap, mad + SMP_DATA + PI_CAPMASK, 4);
	cap = htobe32(be32toh(cap) & ~clear_bits);
	memcpy(mad + SMP_DATA + PI_CAPMASK, &cap, 4);
	return n;
}

ssize_t write(int fd, const void *buf, size_t count)
{
	const uint8_t *mad = dr_smp(buf, (ssize_t)count);

	if (mad && log_file && mad16(mad + 16) == ATTR_SL2VL &&
	    (mad[3] == METHOD_GET || mad[3] == METHOD_SET)) {
		char path[4 * 64 + 2] = "0";
		size_t k = 1;

		for (unsigned h = 1; h <= mad[7] && h < 64; h++)
			k += (size_t)snprintf(path + k, sizeof(path) - k, ",%u",
					      mad[DR_INITIAL_PATH + h]);
		pthread_mutex_lock(&lock);
		fprintf(log_file, "sl2vl %s %s mod 0x%08x\n", mad[3] == METHOD_GET ? "get" : "set",
			path, (unsigned)mad16(mad + 20) << 16 | mad16(mad + 22));
		pthread_mutex_unlock(&lock);
	}
	return next_write(fd, buf, count);
}
