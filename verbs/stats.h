/* SPDX-License-Identifier: MIT */
#ifndef LOOM_VERBS_STATS_H
#define LOOM_VERBS_STATS_H

#include <stddef.h>
#include <stdint.h>

struct lat_stats {
	double min_us, med_us, p99_us, max_us;
	size_t n;
};

/* Sorts ns[] in place; percentiles by the nearest-rank method, as perftest. */
void stats_latency(uint64_t *ns, size_t n, struct lat_stats *st);
uint64_t stats_now_ns(void);

#endif
