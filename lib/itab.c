/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>

#include "itab.h"

void itab_free(struct itab *t)
{
	free(t->slot);
	*t = (struct itab){ 0 };
}

/* splitmix64's finaliser: GUIDs are sequential, so the low bits need mixing. */
uint64_t itab_hash_u64(uint64_t v)
{
	v ^= v >> 30;
	v *= 0xbf58476d1ce4e5b9ULL;
	v ^= v >> 27;
	v *= 0x94d049bb133111ebULL;
	v ^= v >> 31;
	return v;
}

/* FNV-1a, 64 bit. */
uint64_t itab_hash_str(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ULL;
	}
	return h;
}

static void itab_place(uint32_t *slot, uint32_t mask, uint64_t hash, uint32_t idx)
{
	uint32_t i = (uint32_t)hash & mask;

	while (slot[i] != ITAB_EMPTY)
		i = (i + 1) & mask;
	slot[i] = idx;
}

static int itab_grow(struct itab *t, uint64_t (*rehash)(uint32_t, const void *), const void *ctx)
{
	uint32_t cap = t->slot ? (t->mask + 1) * 2 : 64;
	uint32_t *slot;

	if (cap == 0)
		return -ENOMEM;
	slot = malloc((size_t)cap * sizeof(*slot));
	if (!slot)
		return -ENOMEM;
	for (uint32_t i = 0; i < cap; i++)
		slot[i] = ITAB_EMPTY;
	if (t->slot)
		for (uint32_t i = 0; i <= t->mask; i++)
			if (t->slot[i] != ITAB_EMPTY)
				itab_place(slot, cap - 1, rehash(t->slot[i], ctx), t->slot[i]);
	free(t->slot);
	t->slot = slot;
	t->mask = cap - 1;
	return 0;
}

int itab_insert(struct itab *t, uint64_t hash, uint32_t idx,
		uint64_t (*rehash)(uint32_t idx, const void *ctx), const void *ctx)
{
	int r;

	/* Keep the load at or under one half so probes stay short. */
	if (!t->slot || (t->used + 1) * 2 > t->mask + 1) {
		r = itab_grow(t, rehash, ctx);
		if (r < 0)
			return r;
	}
	itab_place(t->slot, t->mask, hash, idx);
	t->used++;
	return 0;
}

uint32_t itab_find(const struct itab *t, uint64_t hash, const void *key, itab_eq_fn eq,
		   const void *ctx)
{
	uint32_t i;

	if (!t->slot)
		return ITAB_EMPTY;
	for (i = (uint32_t)hash & t->mask; t->slot[i] != ITAB_EMPTY; i = (i + 1) & t->mask)
		if (eq(t->slot[i], key, ctx))
			return t->slot[i];
	return ITAB_EMPTY;
}

void itab_remove(struct itab *t, uint64_t hash, uint32_t idx,
		 uint64_t (*rehash)(uint32_t idx, const void *ctx), const void *ctx)
{
	uint32_t i, j, k;

	if (!t->slot)
		return;
	for (i = (uint32_t)hash & t->mask; t->slot[i] != idx; i = (i + 1) & t->mask)
		if (t->slot[i] == ITAB_EMPTY)
			return;
	/*
	 * Close the gap: move back every later entry of the run whose home slot
	 * k does not lie cyclically in (i, j], so each stays reachable from home.
	 */
	for (j = i;;) {
		j = (j + 1) & t->mask;
		if (t->slot[j] == ITAB_EMPTY)
			break;
		k = (uint32_t)rehash(t->slot[j], ctx) & t->mask;
		if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
			continue;
		t->slot[i] = t->slot[j];
		i = j;
	}
	t->slot[i] = ITAB_EMPTY;
	t->used--;
}
