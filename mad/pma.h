/* SPDX-License-Identifier: MIT */
#ifndef LOOM_MAD_PMA_H
#define LOOM_MAD_PMA_H

/*
 * Performance Management (IBA 16.1): the PortCounters attribute a port's
 * PMA answers, read with LID-routed GMPs on QP1. Encode a Get, decode and
 * check its answer into host order.
 */

#include <stddef.h>
#include <stdint.h>

#include "mad/mad.h"

/* IBA 16.1.1: the PerfMgt class, version 1; PortCounters (IBA 16.1.3.5). */
#define PMA_CLASS 0x04
#define PMA_CLASS_VERSION 1
#define PMA_ATTR_PORT_COUNTERS 0x0012

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

struct pma_counters {
	uint32_t v[_PMA_COUNTER_MAX];
};

/* The names infiniband-diags uses (perfquery, ibqueryerrors' threshold file). */
const char *pma_counter_name(enum pma_counter c);
/* A counter's largest value: it stops there (IBA 16.1.3.5: counters saturate). */
uint32_t pma_counter_max(enum pma_counter c);
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
/* The TID of a received MAD (0 if it is too short to hold one). */
uint64_t pma_tid(const uint8_t *mad, size_t len);

#endif
