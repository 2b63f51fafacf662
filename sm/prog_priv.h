/* SPDX-License-Identifier: MIT */
#ifndef LOOM_SM_PROG_PRIV_H
#define LOOM_SM_PROG_PRIV_H

#include "sm/prog.h"

/* One switch's LFT as we last saw or set it; known[b]: block b is what the switch holds. */
struct prog_lft {
	uint64_t guid;
	uint32_t len; /* entries in lft, a multiple of SMP_LFT_BLOCK */
	uint8_t *lft;
	uint8_t *known;
	bool no_enforce; /* a switch that drops PartitionEnforcement bits (ibsim does) */
};

struct prog_cache {
	struct prog_lft *e;
	uint32_t n, cap;
	struct itab by_guid;
};

struct prog_lft *prog_cache_find(struct prog_cache *c, uint64_t guid);
struct prog_lft *prog_cache_get(struct prog_cache *c, uint64_t guid);
int prog_lft_size(struct prog_lft *e, uint32_t len);

#endif
