/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: PerfMgt answers as they come off the wire (mad/pma.c):
 * PortCounters, ClassPortInfo and PortCountersExtended. Any bytes, of any length, are decoded or refused without
 * reading past them. The first bytes pick the port and TID the answer is
 * checked against, so a matching answer is reachable.
 */
#include <stddef.h>
#include <stdint.h>

#include "mad/pma.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pma_counters c = { 0 };
	struct pma_class_info ci;
	uint8_t port = size > 65 ? data[65] : 1;
	uint64_t tid = pma_tid(data, size);

	(void)pma_decode_port_counters(data, size, port, tid, &c);
	(void)pma_decode_port_counters(data, size, 1, 1, &c);
	if (pma_decode_class_port_info(data, size, tid, &ci) == 0)
		(void)pma_has_ext_errors(&ci);
	(void)pma_decode_port_counters_ext(data, size, port, tid, false, &c);
	(void)pma_decode_port_counters_ext(data, size, port, tid, true, &c);
	(void)pma_saturated(&c, PMA_XMIT_WAIT);
	return 0;
}
