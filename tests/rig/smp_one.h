/* SPDX-License-Identifier: MIT */
#ifndef LOOM_TESTS_RIG_SMP_ONE_H
#define LOOM_TESTS_RIG_SMP_ONE_H

/*
 * What the rig's SMP tools (lftset, sl2vlset) share: a directed route as
 * ibroute -D takes it, and one SMP sent and waited for.
 */
#include <stdint.h>

#include "mad/smp.h"
#include "mad/txn.h"

struct answer {
	int status;
	uint8_t data[SMP_DATA_SIZE];
};

/* "0,1,3" -> hops 2, path {0, 1, 3}; -EINVAL if not such a path (the first port 0). */
int parse_path(const char *s, struct smp_req *r);
/* Send r through x and wait: the answer's status (0, -errno), its data in a. */
int one(struct txn *x, struct smp_req *r, struct answer *a);

#endif
