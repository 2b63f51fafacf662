/* SPDX-License-Identifier: MIT */
#ifndef LOOM_ITAB_H
#define LOOM_ITAB_H

#include <stdbool.h>
#include <stdint.h>

/*
 * An index table: an open-addressing hash set of uint32 indices into some
 * array the caller owns. The table never stores keys; the caller passes the
 * key's hash and an equality test that looks the index up in its own array.
 * That keeps one table type for GUID and name lookups alike, and keeps the
 * subnet model as plain arrays (a table holds 4 bytes a slot).
 */
#define ITAB_EMPTY UINT32_MAX

struct itab {
	uint32_t *slot;
	uint32_t mask; /* capacity - 1; capacity is a power of two */
	uint32_t used;
};

typedef bool (*itab_eq_fn)(uint32_t idx, const void *key, const void *ctx);

void itab_free(struct itab *t);
/* Insert idx under hash. Grows as needed; rehash needs every entry's hash. */
int itab_insert(struct itab *t, uint64_t hash, uint32_t idx,
		uint64_t (*rehash)(uint32_t idx, const void *ctx), const void *ctx);
/* Remove idx, stored under hash. Backward-shift deletion: no tombstones. */
void itab_remove(struct itab *t, uint64_t hash, uint32_t idx,
		 uint64_t (*rehash)(uint32_t idx, const void *ctx), const void *ctx);
/* Returns the index equal to key, or ITAB_EMPTY. */
uint32_t itab_find(const struct itab *t, uint64_t hash, const void *key, itab_eq_fn eq,
		   const void *ctx);

uint64_t itab_hash_u64(uint64_t v);
uint64_t itab_hash_str(const char *s);

#endif
