/* SPDX-License-Identifier: MIT */
/*
 * libsmplog_shim.so: every SMP one client (an SM) writes, one line each, so
 * a test counts what went where on the wire without trusting the SM's own
 * counts. Preloaded in front of umad2sim (sim.sh: SIM_PRELOAD_FRONT):
 *
 *   SMPLOG_SHIM_LOG=FILE   appended to, one line a SubnGet or SubnSet:
 *                          "get|set ATTR TO mod 0xMOD"
 *
 * ATTR: nodeinfo, nodedesc, portinfo, switchinfo, pkey, sl2vl, vlarb, lft,
 * mft, sminfo, notice, guidinfo, or the attribute ID in hex; TO: a
 * directed route's hops joined by commas, 0 first (as smpquery -D takes
 * it), or "lid:N" for a LID-routed SMP. Nothing the client reads is
 * changed, nor what it writes.
 *
 * Where: libibumad writes a umad fd with one 64-byte struct ib_user_mad
 * header then the MAD; this library interposes write, reaches the next one
 * with dlsym(RTLD_NEXT) and looks only at buffers of that shape carrying an
 * SMP (management class 0x01 or 0x81).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define UMAD_HDR 64
#define MAD_LEN 256
#define CLASS_SMI_LID 0x01
#define CLASS_SMI_DR 0x81
#define METHOD_GET 0x01
#define METHOD_SET 0x02
#define DR_INITIAL_PATH 128 /* IBA 14.2.1.2: the DR SMP's InitialPath */
#define UMAD_LID 28         /* struct ib_user_mad: addr.lid, network order */

static ssize_t (*next_write)(int, const void *, size_t);
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static FILE *log_file;

__attribute__((constructor)) static void shim_init(void)
{
	const char *l = getenv("SMPLOG_SHIM_LOG");

	next_write = (ssize_t(*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
	if (l && *l)
		log_file = fopen(l, "a");
	if (log_file)
		setvbuf(log_file, NULL, _IOLBF, 0);
}

static uint16_t be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* IBA 14.2.5: the SMP attributes an SM sends. */
static const char *attr_name(uint16_t id)
{
	switch (id) {
	case 0x0002: return "notice";
	case 0x0010: return "nodedesc";
	case 0x0011: return "nodeinfo";
	case 0x0012: return "switchinfo";
	case 0x0014: return "guidinfo";
	case 0x0015: return "portinfo";
	case 0x0016: return "pkey";
	case 0x0017: return "sl2vl";
	case 0x0018: return "vlarb";
	case 0x0019: return "lft";
	case 0x001b: return "mft";
	case 0x0020: return "sminfo";
	default: return NULL;
	}
}

ssize_t write(int fd, const void *buf, size_t count)
{
	const uint8_t *hdr = buf, *mad = hdr + UMAD_HDR;
	char to[4 * 64 + 8] = "0", id[8];
	const char *name;
	size_t k = 1;

	if (!log_file || count < UMAD_HDR + MAD_LEN || mad[0] != 1 ||
	    (mad[1] != CLASS_SMI_LID && mad[1] != CLASS_SMI_DR) ||
	    (mad[3] != METHOD_GET && mad[3] != METHOD_SET))
		return next_write(fd, buf, count);
	if (mad[1] == CLASS_SMI_LID)
		snprintf(to, sizeof(to), "lid:%u", (unsigned)be16(hdr + UMAD_LID));
	for (unsigned h = 1; mad[1] == CLASS_SMI_DR && h <= mad[7] && h < 64; h++)
		k += (size_t)snprintf(to + k, sizeof(to) - k, ",%u", mad[DR_INITIAL_PATH + h]);
	name = attr_name(be16(mad + 16));
	if (!name) {
		snprintf(id, sizeof(id), "0x%04x", (unsigned)be16(mad + 16));
		name = id;
	}
	pthread_mutex_lock(&lock);
	fprintf(log_file, "%s %s %s mod 0x%08x\n", mad[3] == METHOD_GET ? "get" : "set", name, to,
		(unsigned)be16(mad + 20) << 16 | be16(mad + 22));
	pthread_mutex_unlock(&lock);
	return next_write(fd, buf, count);
}
