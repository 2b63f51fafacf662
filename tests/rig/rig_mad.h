/* SPDX-License-Identifier: MIT */
/*
 * What the rig's LD_PRELOAD shims (capmask_shim.c, optslvl_shim.c,
 * repress.c, the RMPP shim and its tail) share about the MADs they look at:
 * the shape of a umad buffer (libibumad's 64-byte struct ib_user_mad header,
 * then the 256-byte MAD), ibsim's packet, the fields of the MAD header
 * (IBA 13.4.2) and of a directed-route SMP (14.2.1.2) they read and write,
 * in network order by hand, and the "sl2vl get|set PATH mod 0xMOD" line the
 * tests read from a shim's log.
 *
 * Test code, not a loom layer: the shims are built without loom's
 * libraries (they go into OpenSM and infiniband-diags too). Its functions
 * are hidden in each shared object: two shims in one process each keep
 * their own copy instead of interposing one another's.
 */
#ifndef LOOM_RIG_MAD_H
#define LOOM_RIG_MAD_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#define RIG_UMAD_HDR 64 /* struct ib_user_mad, before the MAD in a umad buffer */
#define RIG_MAD_LEN 256
#define RIG_CLASS_SMI_DR 0x81
#define RIG_ATTR_NODE_INFO 0x0011
#define RIG_ATTR_SWITCH_INFO 0x0012
#define RIG_ATTR_PORT_INFO 0x0015
#define RIG_ATTR_SL2VL 0x0017
#define RIG_METHOD_GET 0x01
#define RIG_METHOD_SET 0x02
#define RIG_METHOD_GETRESP 0x81
/* IBA 14.2.1.2: a DR SMP's hop count (byte 7), its data and its InitialPath. */
#define RIG_DR_HOPS 7
#define RIG_SMP_DATA 64
#define RIG_DR_INITIAL_PATH 128

/* ibsim's packet (include/ibsim.h, struct sim_request): 288 bytes. */
struct rig_mad_simreq {
	uint32_t dlid, slid, dqp, sqp, status; /* LIDs: network order in the low 16 bits */
	uint64_t length;
	uint8_t mad[RIG_MAD_LEN];
};

#pragma GCC visibility push(hidden)

uint16_t rig_mad_be16(const uint8_t *p);
uint32_t rig_mad_be32(const uint8_t *p);
void rig_mad_put_be32(uint8_t *p, uint32_t v);
/* The MAD header's TransactionID and AttributeModifier. */
uint64_t rig_mad_tid(const uint8_t *mad);
void rig_mad_set_tid(uint8_t *mad, uint64_t tid);
uint32_t rig_mad_mod(const uint8_t *mad);
void rig_mad_set_mod(uint8_t *mad, uint32_t mod);
/* The MAD of a umad buffer of n bytes if it is a whole directed-route SMP, else NULL. */
uint8_t *rig_mad_dr_smp(const void *buf, ssize_t n);
/* One line "sl2vl get|set PATH mod 0xMOD" for an SL2VL Get or Set (PATH: 0,hop,...). */
void rig_mad_sl2vl_log(FILE *f, const uint8_t *mad);

#pragma GCC visibility pop

#endif
