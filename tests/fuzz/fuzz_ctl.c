/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the control protocol (loomd/ctl_proto.c): any bytes
 * are a request for loomd's reader and a reply for loom's. A request that
 * decodes must be exactly its name, with or without "\n"; a reply head that
 * decodes must leave its body inside the input and its message
 * NUL-terminated inside the buffer. No crash, no read past the input.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "loomd/ctl_proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* A copy of exactly size bytes, so ASan sees any read past the end. */
	char *buf = malloc(size ? size : 1);
	enum ctl_req req;
	char msg[32];
	size_t body;
	bool ok;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	if (ctl_req_parse(buf, size, &req) == 0) {
		const char *name = ctl_req_name(req);
		size_t n = name ? strlen(name) : 0;

		if (!name || (size != n && size != n + 1) || memcmp(buf, name, n) ||
		    (size == n + 1 && buf[n] != '\n'))
			abort();
	}
	if (ctl_reply_parse(buf, size, &ok, msg, sizeof(msg), &body) == 0) {
		if (body > size || buf[body - 1] != '\n' || strlen(msg) >= sizeof(msg) ||
		    (ok && msg[0]))
			abort();
	}
	free(buf);
	return 0;
}
