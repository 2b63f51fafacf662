/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: ibqueryerrors threshold files (fabric/health_thresh.c),
 * which loom health --threshold-file reads from wherever an operator points
 * it. Any bytes are read or refused with FILE:LINE messages, never past them.
 */
#include <stddef.h>
#include <stdint.h>

#include "fabric/health.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint32_t t[_PMA_COUNTER_MAX] = { 0 };
	struct diag d = { .limit = 50 };

	(void)health_thresholds_read_mem((const char *)data, size, "fuzz", t, &d);
	diag_free(&d);
	return 0;
}
