/* SPDX-License-Identifier: MIT */
/*
 * loomd/hold.c: while a worker routes, SMInfo Gets are told apart from
 * everything else, which is kept in order (sender included) and handed
 * back once; past HOLD_MAX requests are dropped and counted.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "loomd/hold.h"
#include "mad/smp.h"

static void make(uint8_t method, uint16_t attr, uint32_t tid, uint8_t mad[MAD_SIZE])
{
	struct smp_req r = { .method = method, .attr_id = attr };

	assert_int_equal(smp_encode(&r, tid, mad), 0);
}

static void test_sminfo_get(void **st)
{
	uint8_t mad[MAD_SIZE];

	(void)st;
	make(SMP_GET, SMP_ATTR_SM_INFO, 1, mad);
	assert_true(hold_is_sminfo_get(mad, sizeof(mad)));
	mad[1] = 0x01; /* LID routed: an SMP too */
	assert_true(hold_is_sminfo_get(mad, sizeof(mad)));
	mad[1] = 0x03; /* the SA class: not an SMP */
	assert_false(hold_is_sminfo_get(mad, sizeof(mad)));
	make(SMP_SET, SMP_ATTR_SM_INFO, 1, mad); /* a control packet: kept */
	assert_false(hold_is_sminfo_get(mad, sizeof(mad)));
	make(SMP_GET, SMP_ATTR_PORT_INFO, 1, mad);
	assert_false(hold_is_sminfo_get(mad, sizeof(mad)));
	assert_false(hold_is_sminfo_get(mad, 10)); /* short */
}

struct seen {
	uint32_t tid[HOLD_MAX + 8];
	uint16_t lid[HOLD_MAX + 8];
	unsigned n;
};

static void replayed(void *arg, const uint8_t *mad, size_t len, const struct mad_addr *from)
{
	struct seen *s = arg;
	struct smp_hdr h;

	assert_int_equal(smp_peek(mad, len, &h), 0);
	s->tid[s->n] = h.tid;
	s->lid[s->n] = from ? from->lid : 0;
	s->n++;
}

static void test_keep_replay(void **st)
{
	static struct hold h;
	static struct seen s;
	uint8_t mad[MAD_SIZE];

	(void)st;
	memset(&h, 0, sizeof(h));
	for (uint32_t i = 0; i < HOLD_MAX + 3; i++) {
		make(SMP_SET, SMP_ATTR_SM_INFO, 100 + i, mad);
		assert_int_equal(hold_keep(&h, mad, sizeof(mad),
					   i % 2 ? &(struct mad_addr){ .lid = (uint16_t)i } : NULL),
				 i < HOLD_MAX);
	}
	assert_int_equal(h.dropped, 3);
	hold_replay(&h, replayed, &s);
	assert_int_equal(s.n, HOLD_MAX);
	for (unsigned i = 0; i < s.n; i++) {
		assert_int_equal(s.tid[i], 100 + i); /* in the order they came */
		assert_int_equal(s.lid[i], i % 2 ? i : 0);
	}
	/* Handed back once: a second replay has nothing. */
	assert_int_equal(h.n, 0);
	assert_int_equal(h.dropped, 0);
	hold_replay(&h, replayed, &s);
	assert_int_equal(s.n, HOLD_MAX);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sminfo_get),
		cmocka_unit_test(test_keep_replay),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
