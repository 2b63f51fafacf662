/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: PerfMgt PortCounters answers as they come off the wire
 * (mad/pma.c). Any bytes, of any length, are decoded or refused without
 * reading past them. The first bytes pick the port and TID the answer is
 * checked against, so a matching answer is reachable.
 */
#include <stddef.h>
#include <stdint.h>

#include "mad/pma.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pma_counters c;
	uint8_t port = size > 65 ? data[65] : 1;

	(void)pma_decode_port_counters(data, size, port, pma_tid(data, size), &c);
	(void)pma_decode_port_counters(data, size, 1, 1, &c);
	return 0;
}
