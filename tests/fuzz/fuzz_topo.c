/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the topology reader: any bytes go to topo_read_mem,
 * which must return a model or a diagnosis, never crash, leak or read past
 * the buffer. The input is copied to a buffer of its exact size so ASan
 * catches a read one byte past the end.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/diag.h"
#include "model/subnet.h"
#include "model/topo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct diag d = { 0 };
	struct subnet *sn = NULL;
	char *buf = malloc(size ? size : 1);
	int r;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	r = topo_read_mem(buf, size, "fuzz", &sn, &d);
	/* Either a model and no messages, or no model and at least one. */
	if ((r == 0) != (sn != NULL) || (r == 0) != (diag_count(&d) == 0) ||
	    (r < 0 && r != -EINVAL && r != -ENOMEM))
		abort();
	if (sn) {
		/* Every link is symmetric and stays inside the port array. */
		for (uint32_t p = 0; p < sn->n_ports; p++) {
			uint32_t q = sn->port[p].peer;

			if (q != SUBNET_NONE && (q >= sn->n_ports || sn->port[q].peer != p))
				abort();
		}
	}
	subnet_free(sn);
	diag_free(&d);
	free(buf);
	return 0;
}
