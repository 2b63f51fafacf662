/* SPDX-License-Identifier: MIT */
/*
 * Verification of a chunk, always after its timed loop: message buffers against the
 * seeded pattern, receives against the order each QP must deliver them in, atomics
 * against the arithmetic they promise.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "verbs/pattern.h"
#include "verbs/verbs.h"

void check_note(struct vcheck *chk, uint64_t msg, const char *fmt, ...)
{
	va_list ap;

	if (!chk->bad++) {
		chk->msg = msg;
		va_start(ap, fmt);
		vsnprintf(chk->what, sizeof(chk->what), fmt, ap);
		va_end(ap);
	}
}

/* The test-only fault switch: spoil message msg's bytes the way a broken path would. */
void check_fault(const struct vcase *c, uint8_t *buf, size_t len, uint64_t msg)
{
	size_t off;

	if (c->fault.msg != msg || !len)
		return;
	switch (c->fault.kind) {
	case FAULT_CORRUPT:
		off = c->fault.off < 0 ? len / 2 : (size_t)c->fault.off % len;
		buf[off] ^= 0x40;
		break;
	case FAULT_STALE:
		/* What a buffer that was not written this time would hold: an older message. */
		pat_fill(buf, len, c->seed, msg ? msg - 1 : msg + 1);
		break;
	default:
		break;
	}
}

int check_slots(struct vend *e, uint64_t first, uint32_t count, size_t data_off,
		struct vcheck *chk)
{
	struct pat_bad b;
	uint32_t s;

	for (s = 0; s < count; s++) {
		uint8_t *p = end_slot(e, s) + data_off;
		uint64_t m = first + s;

		check_fault(&e->c, p, e->c.size, m);
		if (!pat_check(p, e->c.size, e->c.seed, m, &b))
			continue;
		if (!chk->bad) {
			chk->off = b.off;
			chk->want = b.want;
			chk->got = b.got;
		}
		check_note(chk, m, "%s size %u message %" PRIu64 ": first bad byte at offset %zu: "
			   "expected 0x%02x, received 0x%02x (%zu of %u bytes bad)",
			   vop_name[e->c.op], e->c.size, m, b.off, b.want, b.got, b.nbad, e->c.size);
	}
	return chk->bad ? 1 : 0;
}

static uint64_t result_of(struct vend *e, uint32_t s, uint64_t m)
{
	uint64_t v;

	memcpy(&v, end_slot(e, s), 8);
	if (e->c.fault.kind == FAULT_ATOMIC && e->c.fault.msg == m)
		v += 3;
	return v;
}

/* cur: the target's value when the chunk started; counter: its value after. */
static void check_fetch_add(struct vend *e, uint64_t first, uint32_t count, uint64_t cur,
			    uint64_t counter, struct vcheck *chk)
{
	uint8_t *seen = calloc(count, 1);
	uint32_t s;

	for (s = 0; s < count && seen; s++) {
		uint64_t m = first + s, v = result_of(e, s, m);

		/* One QP executes in order; several may interleave, but every value from cur
		 * to cur + count - 1 must come back exactly once. */
		if (e->c.qps == 1 && v != cur + s)
			check_note(chk, m, "fetch_add message %" PRIu64 ": returned 0x%" PRIx64
				   ", expected 0x%" PRIx64 " (offset 0 of the 8-byte result)", m, v,
				   cur + s);
		else if (v < cur || v - cur >= count || seen[v - cur]++)
			check_note(chk, m, "fetch_add message %" PRIu64 ": returned 0x%" PRIx64
				   ", not a value in [0x%" PRIx64 ", 0x%" PRIx64 ") returned once",
				   m, v, cur, cur + count);
	}
	if (!seen)
		check_note(chk, first, "fetch_add: out of memory while checking");
	if (counter != cur + count)
		check_note(chk, first + count - 1, "fetch_add: target holds 0x%" PRIx64 " after %u "
			   "additions of 1 to 0x%" PRIx64 ", expected 0x%" PRIx64, counter, count,
			   cur, cur + count);
	free(seen);
}

static void check_cmp_swap(struct vend *e, uint64_t first, uint32_t count, uint64_t cur,
			   uint64_t counter, struct vcheck *chk)
{
	uint64_t succ = 0;
	uint32_t s;

	for (s = 0; s < count; s++) {
		uint64_t m = first + s, v = result_of(e, s, m), want = cur + s;

		if (v == want)
			succ++;
		else if (e->c.qps == 1 || v < cur || v > counter)
			check_note(chk, m, "cmp_swap message %" PRIu64 ": returned 0x%" PRIx64
				   ", expected 0x%" PRIx64 " (offset 0 of the 8-byte result)", m, v,
				   want);
	}
	/* Every swap that saw its compare value moved the target by exactly one. */
	if (counter != cur + succ)
		check_note(chk, first + count - 1, "cmp_swap: target holds 0x%" PRIx64 " after "
			   "%" PRIu64 " successful swaps from 0x%" PRIx64 ", expected 0x%" PRIx64,
			   counter, succ, cur, cur + succ);
}

int check_atomics(struct vend *e, uint64_t first, uint32_t count, uint64_t counter,
		  struct vcheck *chk)
{
	uint64_t cur = e->c.counter0 + first;

	if (e->c.op == OP_FETCH_ADD)
		check_fetch_add(e, first, count, cur, counter, chk);
	else
		check_cmp_swap(e, first, count, cur, counter, chk);
	return chk->bad ? 1 : 0;
}
