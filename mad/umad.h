/* SPDX-License-Identifier: MIT */
#ifndef LOOM_MAD_UMAD_H
#define LOOM_MAD_UMAD_H

#include "mad/mad.h"

struct mad_umad;

/* Open as the subnet manager: take requests (SMInfo, Traps) and hold issm. */
#define MAD_UMAD_SM 0x1
/*
 * Also take SA requests (class 0x03, version 2) on the GSI, with the
 * kernel's RMPP (rmpp_version 1): long answers are written whole.
 */
#define MAD_UMAD_SA 0x2
/* Also read PerfMgt attributes (class 0x04) from ports' PMAs: loom health. */
#define MAD_UMAD_PERF 0x4
/* Also ask the SA (class 0x03) as a client, single-MAD answers: loom health. */
#define MAD_UMAD_SA_QUERY 0x8

/*
 * Open a CA port for SMPs. ca NULL: the first CA umad knows; port 0: the
 * first port of that CA. Registers agents for the directed-route (0x81) and
 * LID-routed (0x01) SMP classes. -ENODEV when there is no such CA or port,
 * other -errno from libibumad.
 */
int mad_umad_open(const char *ca, unsigned port, unsigned flags, struct mad_umad **out);
void mad_umad_close(struct mad_umad *u);
static inline void mad_umad_closep(struct mad_umad **u)
{
	mad_umad_close(*u);
}
/* MADs read and thrown away because they were longer than recv's buffer. */
unsigned long mad_umad_dropped_long(const struct mad_umad *u);
/*
 * Requests to the SA longer than one MAD (RMPP requests the kernel put
 * together: a MultiPathRecord with many GIDs) go to fn, whole, while
 * recv reads; without a hook they are dropped and counted.
 */
typedef void (*mad_umad_long_fn)(void *arg, const uint8_t *mad, size_t len,
				 const struct mad_addr *from);
void mad_umad_set_long_hook(struct mad_umad *u, mad_umad_long_fn fn, void *arg);
/* The CA name and port number actually opened. */
const char *mad_umad_ca(const struct mad_umad *u);
unsigned mad_umad_port(const struct mad_umad *u);
/* The node GUID of the CA opened (host order), as the kernel shows it: no MAD asked. */
uint64_t mad_umad_node_guid(const struct mad_umad *u);
/* The GUID of the port opened (host order; a switch's port 0: the switch's), the same way. */
uint64_t mad_umad_port_guid(const struct mad_umad *u);

extern const struct mad_transport_ops mad_umad_ops;

#endif
