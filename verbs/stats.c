/* SPDX-License-Identifier: MIT */
/* Latency percentiles from per-message samples. */
#include <stdlib.h>
#include <time.h>

#include "verbs/stats.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Nearest rank: the smallest sample with at least p of all samples at or below it. */
static uint64_t rank(const uint64_t *s, size_t n, unsigned pct)
{
	size_t r = (n * pct + 99) / 100;

	return s[r ? r - 1 : 0];
}

void stats_latency(uint64_t *ns, size_t n, struct lat_stats *st)
{
	*st = (struct lat_stats){ .n = n };
	if (!n)
		return;
	qsort(ns, n, sizeof(*ns), cmp_u64);
	st->min_us = ns[0] / 1e3;
	st->med_us = rank(ns, n, 50) / 1e3;
	st->p99_us = rank(ns, n, 99) / 1e3;
	st->max_us = ns[n - 1] / 1e3;
}

uint64_t stats_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
