/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: loom health --since files (fabric/health_since.c), an
 * earlier --json run that may have been edited, cut short or be anything at
 * all. Read or refused with FILE:LINE, never past its end, never too deep.
 */
#include <stddef.h>
#include <stdint.h>

#include "fabric/health.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct health_since s = { 0 };
	struct diag d = { .limit = 10 };

	if (health_since_read_mem((const char *)data, size, "fuzz", &s, &d) == 0)
		health_since_free(&s);
	diag_free(&d);
	return 0;
}
