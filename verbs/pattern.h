/* SPDX-License-Identifier: MIT */
#ifndef LOOM_VERBS_PATTERN_H
#define LOOM_VERBS_PATTERN_H

#include <stddef.h>
#include <stdint.h>

/*
 * Every message carries bytes that depend on the seed, the message number and the
 * byte's position, so a flipped bit, a misplaced buffer and a stale one (an older
 * message's bytes left where a new one should be) all show as a mismatch.
 */
struct pat_bad {
	size_t off;      /* first bad byte */
	uint8_t want;
	uint8_t got;
	size_t nbad;     /* bad bytes in the message */
};

/* The seed of one test case: the same message number means different bytes in
 * different cases, so a buffer left from an earlier case cannot pass. */
uint64_t pat_case_seed(uint64_t seed, unsigned op, size_t size);
void pat_fill(void *buf, size_t len, uint64_t seed, uint64_t msg);
/* 0 when buf holds message msg; 1 with *bad filled otherwise. */
int pat_check(const void *buf, size_t len, uint64_t seed, uint64_t msg, struct pat_bad *bad);
/* A byte value no pattern relies on, written into buffers before they are filled by the
 * peer, so that "nothing arrived" is seen too. */
#define PAT_POISON 0xa5

#endif
