/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>

#include "tests/rig/smp_one.h"

static void on_answer(void *arg, int status, const uint8_t *resp, size_t len)
{
	struct answer *a = arg;

	if (status == 0)
		status = smp_data(resp, len, a->data);
	a->status = status;
}

int parse_path(const char *s, struct smp_req *r)
{
	char *end;
	unsigned long v;
	unsigned n = 0;

	for (;;) {
		v = strtoul(s, &end, 10);
		if (end == s || v > 254 || n > SMP_MAX_HOPS)
			return -EINVAL;
		r->path[n++] = (uint8_t)v;
		if (!*end)
			break;
		if (*end != ',')
			return -EINVAL;
		s = end + 1;
	}
	if (r->path[0] != 0)
		return -EINVAL;
	r->hops = (uint8_t)(n - 1);
	return 0;
}

int one(struct txn *x, struct smp_req *r, struct answer *a)
{
	int e;

	a->status = -ETIMEDOUT;
	e = txn_submit(x, r, on_answer, a);
	if (e == 0)
		e = txn_run(x, -1);
	return e < 0 ? e : a->status;
}
