/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the configuration parser: any bytes go to
 * config_load_mem, which must return a config or a diagnosis, never crash,
 * leak or read past the buffer. A config that loads must print as YAML that
 * loads back to an equal config (the normalised print is a fixed point).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "lib/diag.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void round_trip(const struct config *c)
{
	struct config *again = NULL;
	struct diag d = { 0 };
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return;
	if (config_print(c, f) < 0)
		abort();
	fclose(f);
	if (config_load_mem(text, len, "printed", &again, &d) != 0 || !config_equal(c, again)) {
		diag_print(&d, stderr);
		fprintf(stderr, "printed config does not load back equal:\n%s", text);
		abort();
	}
	config_free(again);
	diag_free(&d);
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct diag d = { 0 };
	struct config *c = NULL;
	char *buf = malloc(size ? size : 1);
	int r;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	r = config_load_mem(buf, size, "fuzz", &c, &d);
	/* Either a config and no messages, or no config and at least one. */
	if ((r == 0) != (c != NULL) || (r == 0) != (diag_count(&d) == 0) ||
	    (r < 0 && r != -EINVAL && r != -ENOMEM && r != -EFBIG))
		abort();
	if (c)
		round_trip(c);
	config_free(c);
	diag_free(&d);
	free(buf);
	return 0;
}
