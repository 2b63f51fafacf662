/* SPDX-License-Identifier: MIT */
/* The MAD fields the rig's shims share (rig_mad.h). */
#include <string.h>

#include "rig_mad.h"

uint16_t rig_mad_be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

uint32_t rig_mad_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

void rig_mad_put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

uint64_t rig_mad_tid(const uint8_t *mad)
{
	return (uint64_t)rig_mad_be32(mad + 8) << 32 | rig_mad_be32(mad + 12);
}

void rig_mad_set_tid(uint8_t *mad, uint64_t tid)
{
	rig_mad_put_be32(mad + 8, (uint32_t)(tid >> 32));
	rig_mad_put_be32(mad + 12, (uint32_t)tid);
}

uint32_t rig_mad_mod(const uint8_t *mad)
{
	return rig_mad_be32(mad + 20);
}

void rig_mad_set_mod(uint8_t *mad, uint32_t mod)
{
	rig_mad_put_be32(mad + 20, mod);
}

uint8_t *rig_mad_dr_smp(const void *buf, ssize_t n)
{
	uint8_t *mad = (uint8_t *)buf + RIG_UMAD_HDR;

	if (n < RIG_UMAD_HDR + RIG_MAD_LEN || mad[0] != 1 || mad[1] != RIG_CLASS_SMI_DR)
		return NULL;
	return mad;
}

void rig_mad_sl2vl_log(FILE *f, const uint8_t *mad)
{
	/* 63 hops at most (the InitialPath's 64 bytes, 0 first), 4 characters each. */
	char path[4 * 64 + 2] = "0";
	size_t k = 1;

	for (unsigned h = 1; h <= mad[RIG_DR_HOPS] && h < 64; h++)
		k += (size_t)snprintf(path + k, sizeof(path) - k, ",%u",
				      mad[RIG_DR_INITIAL_PATH + h]);
	fprintf(f, "sl2vl %s %s mod 0x%08x\n", mad[3] == RIG_METHOD_GET ? "get" : "set", path,
		rig_mad_mod(mad));
}
