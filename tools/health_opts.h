/* SPDX-License-Identifier: MIT */
#ifndef LOOM_TOOLS_HEALTH_OPTS_H
#define LOOM_TOOLS_HEALTH_OPTS_H

#include <stdbool.h>
#include <stdint.h>

#include "fabric/health.h"
#include "mad/txn.h"

/* loom health's options, the thresholds and waits already resolved. */
struct health_args {
	const char *ca, *expect, *prom, *since, *config;
	unsigned port, groups;
	bool json, strict, reset, progress;
	unsigned act_wait_ms; /* sm group: ActCount read twice this far apart; 0: once */
	struct txn_opts o;
	uint32_t thresh[_PMA_COUNTER_MAX];
};

/*
 * Parse loom health's command line into a and read what it names for the
 * thresholds: the built-in defaults, then loom.yaml's health section
 * (--config FILE, else /etc/loom/loom.yaml if it exists), then
 * --threshold-file, then each --threshold. 1: run; 0: --help was printed;
 * -EINVAL: misuse (said, usage printed); -ENOENT: a file it names cannot be
 * used (said).
 */
int health_opts_parse(int argc, char **argv, struct health_args *a);

#endif
