/* SPDX-License-Identifier: MIT */
#ifndef LOOM_MAD_PMA_H
#define LOOM_MAD_PMA_H

/*
 * Performance Management (IBA 16.1): the PortCounters attribute a port's
 * PMA answers, read with LID-routed GMPs on QP1, and PortCountersExtended
 * (64-bit counters) where the PMA's ClassPortInfo says it has them. Encode
 * a Get, decode and check its answer into host order.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mad/mad.h"

/* IBA 16.1.1: the PerfMgt class, version 1; PortCounters (IBA 16.1.3.5). */
#define PMA_CLASS 0x04
#define PMA_CLASS_VERSION 1
#define PMA_ATTR_PORT_COUNTERS 0x0012
#define PMA_ATTR_CLASS_PORT_INFO 0x0001
#define PMA_ATTR_PORT_COUNTERS_EXT 0x001D

/*
 * PerfMgt ClassPortInfo:CapabilityMask (IBA 16.1.2, its 1.2.1 errata): bit 9
 * PortCountersExtended with all eight 64-bit counters, bit 10 with the four
 * data counters only (NoIETF), bit 12 PortXmitWait in PortCounters.
 * CapabilityMask2 bit 1 (IBA 1.3): PortCountersExtended carries every error
 * counter too, 64 bits wide (IsAdditionalPortCountersExtendedSupported).
 */
#define PMA_CAP_ALL_PORT_SELECT 0x0100u
#define PMA_CAP_EXT_WIDTH 0x0200u
#define PMA_CAP_EXT_WIDTH_NOIETF 0x0400u
#define PMA_CAP_XMIT_WAIT 0x1000u
#define PMA_CAP2_ADDL_PORT_COUNTERS_EXT 0x0002u

struct pma_class_info {
	uint16_t cap;  /* CapabilityMask */
	uint32_t cap2; /* CapabilityMask2, 27 bits */
};

/* The PMA has PortCountersExtended (for its data counters at least). */
static inline bool pma_has_ext(const struct pma_class_info *ci)
{
	return ci->cap & (PMA_CAP_EXT_WIDTH | PMA_CAP_EXT_WIDTH_NOIETF);
}

/* ... and its error counters there too, 64 bits wide. */
static inline bool pma_has_ext_errors(const struct pma_class_info *ci)
{
	return pma_has_ext(ci) && (ci->cap2 & PMA_CAP2_ADDL_PORT_COUNTERS_EXT);
}

/* The error counters of PortCounters, in the order of the attribute. */
enum pma_counter {
	PMA_SYMBOL_ERRORS,
	PMA_LINK_ERROR_RECOVERY,
	PMA_LINK_DOWNED,
	PMA_RCV_ERRORS,
	PMA_RCV_REMOTE_PHYS_ERRORS,
	PMA_RCV_SWITCH_RELAY_ERRORS,
	PMA_XMIT_DISCARDS,
	PMA_XMIT_CONSTRAINT_ERRORS,
	PMA_RCV_CONSTRAINT_ERRORS,
	PMA_LOCAL_LINK_INTEGRITY_ERRORS,
	PMA_EXCESSIVE_BUFFER_OVERRUN_ERRORS,
	PMA_VL15_DROPPED,
	PMA_XMIT_WAIT,
	_PMA_COUNTER_MAX,
};

/* The data counters (PortXmitData and PortRcvData in units of 4 octets). */
enum pma_data {
	PMA_XMIT_DATA,
	PMA_RCV_DATA,
	PMA_XMIT_PKTS,
	PMA_RCV_PKTS,
	_PMA_DATA_MAX,
};

struct pma_counters {
	uint64_t v[_PMA_COUNTER_MAX];
	uint64_t data[_PMA_DATA_MAX];
	bool wide_data;   /* data from PortCountersExtended: 64 bits, else PortCounters' 32 */
	bool wide_errors; /* v from PortCountersExtended: 64 bits, else PortCounters' widths */
};

/* The names infiniband-diags uses (perfquery, ibqueryerrors' threshold file). */
const char *pma_counter_name(enum pma_counter c);
/* A counter's largest value in PortCounters: it stops there (IBA 16.1.3.5: counters saturate). */
uint32_t pma_counter_max(enum pma_counter c);
/*
 * c's counter i stopped at its largest value: a PortCounters one at
 * pma_counter_max(), a 64-bit one (wide_errors) at UINT64_MAX.
 */
bool pma_saturated(const struct pma_counters *c, enum pma_counter i);
/* The same for data counter d (32 bits in PortCounters, 64 in PortCountersExtended). */
bool pma_data_saturated(const struct pma_counters *c, enum pma_data d);
/* perfquery's names: "PortXmitData", "PortRcvData", "PortXmitPkts", "PortRcvPkts". */
const char *pma_data_name(enum pma_data d);
/*
 * The threshold infiniband-diags suggests for it (its error_thresholds file:
 * 10 for link errors, 100 for discards, relay and constraint errors, 1000
 * for PortXmitWait); loom health's default and loom.yaml's.
 */
uint32_t pma_counter_threshold(enum pma_counter c);
/* The counter perfquery names name (len bytes, not NUL-terminated), or -EINVAL. */
int pma_counter_by_name(const char *name, size_t len);

/* A PortCounters Get for port_select (0xff: all ports of a switch) with TID tid. */
void pma_encode_port_counters(uint8_t port_select, uint64_t tid, uint8_t mad[MAD_SIZE]);
/*
 * A PortCounters Set that clears every counter of port_select (IBA 16.1.3.5:
 * the selected counters take the values given, zeros). Its GetResp decodes
 * with pma_decode_port_counters, which checks the status.
 */
void pma_encode_port_counters_clear(uint8_t port_select, uint64_t tid, uint8_t mad[MAD_SIZE]);
/*
 * Decode an answer to pma_encode_port_counters(port_select, tid): -EPROTO if
 * it is short or not a GetResp of PortCounters with that TID and port,
 * -EREMOTEIO on a non-zero MAD status.
 */
int pma_decode_port_counters(const uint8_t *mad, size_t len, uint8_t port_select, uint64_t tid,
			     struct pma_counters *c);
/*
 * A PortCounters answer fills c's error counters and its 32-bit data
 * counters (wide_data, wide_errors false).
 */

/* A ClassPortInfo Get of the PMA (IBA 13.4.8.1) with TID tid. */
void pma_encode_class_port_info(uint64_t tid, uint8_t mad[MAD_SIZE]);
/* Decode its answer: -EPROTO short or not ClassPortInfo's GetResp for tid, -EREMOTEIO status. */
int pma_decode_class_port_info(const uint8_t *mad, size_t len, uint64_t tid,
			       struct pma_class_info *ci);
/* A PortCountersExtended Get (IBA 16.1.4.11) for port_select; clear: a Set of zeros. */
void pma_encode_port_counters_ext(uint8_t port_select, uint64_t tid, bool clear,
				  uint8_t mad[MAD_SIZE]);
/*
 * Decode an answer to pma_encode_port_counters_ext(port_select, tid) into c,
 * which holds that port's PortCounters already: its data counters become the
 * 64-bit ones (wide_data), and with errors (the PMA has the additional
 * counters, pma_has_ext_errors()) its error counters too (wide_errors).
 * -EPROTO, -EREMOTEIO as pma_decode_port_counters(); c untouched then.
 */
int pma_decode_port_counters_ext(const uint8_t *mad, size_t len, uint8_t port_select,
				 uint64_t tid, bool errors, struct pma_counters *c);
/* The TID of a received MAD (0 if it is too short to hold one). */
uint64_t pma_tid(const uint8_t *mad, size_t len);

#endif
