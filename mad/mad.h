/* SPDX-License-Identifier: MIT */
#ifndef LOOM_MAD_H
#define LOOM_MAD_H

/*
 * DOC: mad/ — management datagrams: bytes on the wire in, host-order structs out.
 *   mad.h         this header: the transport ops every sender goes through
 *   umad.c        transport over libibumad (umad.h): open a CA port, register the
 *                 SMI classes (and, for the SM, the SA class on the GSI with kernel RMPP)
 *   smp.c         SMP codec (smp.h): encode directed-route Get/Set, decode and check
 *                 responses into host-order NodeInfo, NodeDescription, PortInfo,
 *                 SwitchInfo
 *   smp_set.c     Set payloads: what the node answered, changed only where the SM decides
 *   smp_agent.c   the SM's own side: SMInfo, Traps (Notices) and the answers to them
 *   smp_tables.c  P_KeyTable, SLtoVLMappingTable, VLArbitrationTable and MFT blocks:
 *                 codecs and the attribute modifiers that address them
 *   pma.c         PerfMgt codec (pma.h): ClassPortInfo, PortCounters and
 *                 PortCountersExtended Gets (and Sets that clear), answers decoded
 *   txn.c         transactions (txn.h): window of outstanding MADs, TIDs, timeouts,
 *                 retries, one drop path for replies nobody waits for
 *   txn_flight.c  how many requests are in flight to each node (txn_priv.h): a hash
 *                 table, so that the per-node limit costs O(1) a queued candidate
 *   txn_gone.c    the nodes that left two Sets unanswered (txn_priv.h), so that the
 *                 Sets still queued for a node cut off fail at once, unsent
 *   rate.c        IBA rate codes in speed order (rate.h), for the SA's records
 *
 * Data flows up: umad.c moves raw 256-byte MADs, txn.c matches them to
 * requests, smp.c turns them into structs for the layers above. Network byte order exists
 * only in this folder; nothing here prints.
 */

#include <stddef.h>
#include <stdint.h>

/* IBA 13.4: every MAD (SMPs included) is 256 bytes on the wire. */
#define MAD_SIZE 256
/*
 * IBA 13.6: an RMPP message (an SA GetTable answer) goes to the kernel whole
 * and leaves as segments; this bounds one such message.
 */
#define MAD_RMPP_MAX (16u << 20)

/* Which of our agents a received MAD came for. */
enum mad_agent {
	MAD_AGENT_SMI, /* the SMP classes 0x01 and 0x81 (QP0) */
	MAD_AGENT_SA,  /* Subnet Administration, class 0x03 (QP1, the GSI) */
	MAD_AGENT_PERF, /* Performance Management answers, class 0x04 (QP1) */
};

/*
 * Where a MAD came from, or goes: a LID and a QP. A directed-route SMP needs
 * no address (it travels to the permissive LID); answers to LID-routed
 * requests go back to the requester's LID.
 */
struct mad_addr {
	uint16_t lid;
	uint32_t qpn;
	/*
	 * GSI only, zero for SMPs: the requester's SL and the index of the
	 * P_Key (in our port's table) its request came with; an answer goes
	 * back with both (IBA 13.5.4.2).
	 */
	uint8_t sl;
	uint16_t pkey_index;
	uint8_t agent; /* enum mad_agent; set by recv */
};

/*
 * A transport moves whole MADs. send and recv return >= 0 or -errno; recv
 * never blocks: -EAGAIN when nothing is queued. send's to is NULL for a
 * directed-route SMP; recv fills *from when it is not NULL. An SA (class
 * 0x03) MAD with RMPP Active may be longer than MAD_SIZE (up to
 * MAD_RMPP_MAX): the kernel segments it; one received (a reassembled
 * GetTableResp) comes whole from recv when len has room for it. fd is readable
 * when recv has something (for poll() or sd-event). Unit tests plug in a fake.
 */
struct mad_transport_ops {
	int (*send)(void *t, const uint8_t *mad, size_t len, unsigned timeout_ms,
		    const struct mad_addr *to);
	int (*recv)(void *t, uint8_t *mad, size_t len, struct mad_addr *from);
	int (*fd)(void *t);
};

#endif
