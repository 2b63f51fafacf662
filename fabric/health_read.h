/* SPDX-License-Identifier: MIT */
#ifndef LOOM_FABRIC_HEALTH_READ_H
#define LOOM_FABRIC_HEALTH_READ_H

#include "fabric/health.h"
#include "mad/txn.h"

/*
 * Read the SMInfo of every port a sweep (sn, live) found with IsSM set,
 * through x (idle; it is run until idle again). On success *out is a new
 * array indexed like sn's ports (free() it); a port that did not answer has
 * asked set and a negative status. -ENOMEM, or the transport's -errno.
 */
int health_read_sm(struct txn *x, const struct subnet *sn, const struct disc_live *live,
		   struct health_sm_port **out);

#endif
