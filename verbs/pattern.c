/* SPDX-License-Identifier: MIT */
/* Seeded message pattern: fill and check, a 64-bit word at a time. */
#include <string.h>

#include "verbs/pattern.h"

/* splitmix64's finaliser: every input bit changes about half of the output bits. */
static inline uint64_t mix(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	x ^= x >> 31;
	return x;
}

uint64_t pat_case_seed(uint64_t seed, unsigned op, size_t size)
{
	return mix(seed ^ mix(((uint64_t)op << 48) ^ (uint64_t)size));
}

static inline uint64_t word(uint64_t mseed, size_t i)
{
	return mix(mseed + i * 0x9e3779b97f4a7c15ull);
}

static inline uint64_t msg_seed(uint64_t seed, uint64_t msg)
{
	return mix(seed ^ (msg * 0xd6e8feb86659fd93ull + 1));
}

void pat_fill(void *buf, size_t len, uint64_t seed, uint64_t msg)
{
	uint8_t *p = buf;
	uint64_t ms = msg_seed(seed, msg), w;
	size_t i, n = len / 8;

	for (i = 0; i < n; i++) {
		w = word(ms, i);
		memcpy(p + i * 8, &w, 8);
	}
	if (len % 8) {
		w = word(ms, n);
		memcpy(p + n * 8, &w, len % 8);
	}
}

static size_t bad_bytes(const uint8_t *got, const uint8_t *want, size_t n, size_t *first)
{
	size_t i, bad = 0;

	for (i = 0; i < n; i++)
		if (got[i] != want[i]) {
			if (!bad)
				*first = i;
			bad++;
		}
	return bad;
}

int pat_check(const void *buf, size_t len, uint64_t seed, uint64_t msg, struct pat_bad *bad)
{
	const uint8_t *p = buf;
	uint64_t ms = msg_seed(seed, msg), w, g;
	size_t i, n = (len + 7) / 8, first = 0, k, tail;
	struct pat_bad b = { 0 };

	for (i = 0; i < n; i++) {
		w = word(ms, i);
		tail = i * 8 + 8 <= len ? 8 : len % 8;
		g = 0;
		memcpy(&g, p + i * 8, tail);
		if (tail < 8)
			w &= (1ull << (tail * 8)) - 1;
		if (g == w)
			continue;
		k = bad_bytes((const uint8_t *)&g, (const uint8_t *)&w, tail, &first);
		if (!b.nbad) {
			b.off = i * 8 + first;
			b.want = ((const uint8_t *)&w)[first];
			b.got = p[b.off];
		}
		b.nbad += k;
	}
	if (!b.nbad)
		return 0;
	if (bad)
		*bad = b;
	return 1;
}
