/* SPDX-License-Identifier: MIT */
#ifndef LOOM_MAD_H
#define LOOM_MAD_H

/*
 * DOC: mad/ — management datagrams: bytes on the wire in, host-order structs out.
 *   mad.h    this header: the transport ops every sender goes through
 *   umad.c   transport over libibumad: open a CA port, register the SMI classes
 *   smp.c    SMP codec: encode directed-route Get/Set, decode and check responses
 *            into host-order NodeInfo, NodeDescription, PortInfo, SwitchInfo
 *   txn.c    transactions: window of outstanding MADs, TIDs, timeouts, retries,
 *            one drop path for replies nobody waits for
 *
 * Data flows up: umad.c moves raw 256-byte MADs, txn.c matches them to
 * requests, smp.c turns them into structs for sm/. Network byte order exists
 * only in this folder; nothing here prints.
 */

#include <stddef.h>
#include <stdint.h>

/* IBA 13.4: every MAD (SMPs included) is 256 bytes on the wire. */
#define MAD_SIZE 256

/*
 * Where a MAD came from, or goes: a LID and a QP. A directed-route SMP needs
 * no address (it travels to the permissive LID); answers to LID-routed
 * requests go back to the requester's LID.
 */
struct mad_addr {
	uint16_t lid;
	uint32_t qpn;
};

/*
 * A transport moves whole MADs. send and recv return >= 0 or -errno; recv
 * never blocks: -EAGAIN when nothing is queued. send's to is NULL for a
 * directed-route SMP; recv fills *from when it is not NULL. fd is readable
 * when recv has something (for poll() or sd-event). Unit tests plug in a fake.
 */
struct mad_transport_ops {
	int (*send)(void *t, const uint8_t *mad, size_t len, unsigned timeout_ms,
		    const struct mad_addr *to);
	int (*recv)(void *t, uint8_t *mad, size_t len, struct mad_addr *from);
	int (*fd)(void *t);
};

#endif
