/* SPDX-License-Identifier: MIT */
/*
 * The SA's requests as a whole (sa/sa.c, sa/sa_req.c), on the star fabric
 * (sa_fixture.h): the Get/GetTable statuses (exactly one, none, too many),
 * malformed or unsupported requests answered with the right MAD status and
 * never read past their end, the component-mask match down to sub-byte
 * fields, partitions hiding ports and refusing requesters, and the SM_Key
 * that makes a request trusted.
 */
#include <endian.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <iba/ib_types.h>

#include "tests/unit/sa_fixture.h"

static void test_get_statuses(void **state)
{
	struct sa_fab *f = *state;
	uint8_t mad[MAD_SIZE];
	struct sa_ans a;

	/* By LID: exactly one. */
	sa_fix_req(mad, IB_MAD_METHOD_GET, 0x11, 1);
	sa_fix_set16(mad, 0, 3);
	a = sa_fix_ask(&f->src, mad, sizeof(mad), 2, 0);
	assert_int_equal(a.status, 0);
	assert_int_equal(a.len, MAD_SIZE);
	assert_int_equal(sa_fix_hdr(&a)->method, IB_MAD_METHOD_GET_RESP);
	assert_int_equal(be64toh(((const ib_node_record_t *)(a.out + SA_HDR_SIZE))->node_info.node_guid),
			 0x300);
	assert_int_equal(sa_fix_hdr(&a)->rmpp_flags, 0);
	free(a.out);
	/* No such LID: ERR_NO_RECORDS (IBA 15.2.1.1 status 3). */
	sa_fix_set16(mad, 0, 99);
	a = sa_fix_ask(&f->src, mad, sizeof(mad), 2, 0);
	assert_int_equal(a.status, SA_ST_NO_RECORDS);
	assert_int_equal(be16toh(sa_fix_hdr(&a)->status), 0x0300);
	free(a.out);
	/* No mask: three match, a Get must fail with ERR_TOO_MANY_RECORDS. */
	sa_fix_req(mad, IB_MAD_METHOD_GET, 0x11, 0);
	a = sa_fix_ask(&f->src, mad, sizeof(mad), 2, 0);
	assert_int_equal(a.status, SA_ST_TOO_MANY_RECORDS);
	free(a.out);
	/* GetTable with nothing matching: an empty table, not an error. */
	sa_fix_req(mad, IB_MAD_METHOD_GETTABLE, 0x11, 1);
	sa_fix_set16(mad, 0, 99);
	a = sa_fix_ask(&f->src, mad, sizeof(mad), 2, 0);
	assert_int_equal(a.status, 0);
	assert_int_equal(a.len, SA_HDR_SIZE);
	free(a.out);
}

static void test_bad_requests(void **state)
{
	struct sa_fab *f = *state;
	uint8_t mad[MAD_SIZE];
	struct sa_ans a;

	/* ServiceAssociationRecord is not served: unsupported method/attribute. */
	sa_fix_req(mad, IB_MAD_METHOD_GET, 0x3b, 0);
	a = sa_fix_ask(&f->src, mad, sizeof(mad), 2, 0);
	assert_int_equal(a.status, SA_ST_UNSUP_METHOD_ATTR);
	assert_int_equal(sa_fix_hdr(&a)->method, IB_MAD_METHOD_GET_RESP);
	free(a.out);
	/* A Set on a read-only record: the same (IBA 15.4 lists Get/GetTable only), answered as GetResp. */
	sa_fix_req(mad, IB_MAD_METHOD_SET, 0x11, 0);
	a = sa_fix_ask(&f->src, mad, sizeof(mad), 2, 0);
	assert_int_equal(a.status, SA_ST_UNSUP_METHOD_ATTR);
	assert_int_equal(sa_fix_hdr(&a)->method, IB_MAD_METHOD_GET_RESP);
	free(a.out);
	/* A method the SA class does not define. */
	sa_fix_req(mad, 0x07, 0x11, 0);
	a = sa_fix_ask(&f->src, mad, sizeof(mad), 2, 0);
	assert_int_equal(a.status, SA_ST_UNSUP_METHOD);
	free(a.out);
	/* Wrong class version. */
	sa_fix_req(mad, IB_MAD_METHOD_GET, 0x11, 0);
	mad[2] = 1;
	a = sa_fix_ask(&f->src, mad, sizeof(mad), 2, 0);
	assert_int_equal(a.status, SA_ST_BAD_VERSION);
	free(a.out);
	/* Short: answered with "invalid request" from the header alone. */
	sa_fix_req(mad, IB_MAD_METHOD_GET, 0x11, 0);
	a = sa_fix_ask(&f->src, mad, 100, 2, 0);
	assert_int_equal(a.r, 0);
	assert_int_equal(a.status, SA_ST_REQ_INVALID);
	free(a.out);
	/* Shorter than a MAD header, a response, another class: no answer. */
	assert_int_equal(sa_fix_ask(&f->src, mad, 20, 2, 0).r, -EPROTO);
	mad[3] = IB_MAD_METHOD_GET_RESP;
	assert_int_equal(sa_fix_ask(&f->src, mad, sizeof(mad), 2, 0).r, -EPROTO);
	sa_fix_req(mad, IB_MAD_METHOD_GET, 0x11, 0);
	mad[1] = 0x81;
	assert_int_equal(sa_fix_ask(&f->src, mad, sizeof(mad), 2, 0).r, -EPROTO);
	/* A non-zero status in a request is a malformed request. */
	sa_fix_req(mad, IB_MAD_METHOD_GET, 0x11, 0);
	mad[4] = 1;
	a = sa_fix_ask(&f->src, mad, sizeof(mad), 2, 0);
	assert_int_equal(a.status, SA_ST_INVALID_FIELD);
	free(a.out);
	/* Before the first sweep: busy. */
	{
		struct sa_src none = { 0 };

		sa_fix_req(mad, IB_MAD_METHOD_GET, 0x11, 0);
		a = sa_fix_ask(&none, mad, sizeof(mad), 2, 0);
		assert_int_equal(a.status, SA_ST_BUSY);
		free(a.out);
	}
}

static void test_access(void **state)
{
	struct sa_fab *f = *state;
	uint8_t mad[MAD_SIZE];
	struct sa_ans a;
	struct sa_src s = f->src;
	/* h1 (and the switch, the SM's port) in 0x8001 and the default; h2 only in 0x8002. */
	const struct sa_fix_pkeys pk[] = {
		{ sa_fix_port(f, f->sw1, 0), { 0xffff, 0x8001 } },
		{ sa_fix_port(f, f->h1, 1), { 0xffff, 0x8001 } },
		{ sa_fix_port(f, f->h2, 1), { 0x8002 } },
	};

	sa_fix_partitions(f, &s, pk, 3);
	sa_fix_req(mad, IB_MAD_METHOD_GETTABLE, 0x11, 0);
	/* h1 sees itself and the switch, not h2 (no common partition). */
	a = sa_fix_ask(&s, mad, sizeof(mad), 2, 0);
	assert_int_equal(a.status, 0);
	assert_int_equal(a.len, SA_HDR_SIZE + 2 * sizeof(ib_node_record_t));
	free(a.out);
	/* h2 does not hold the P_Key at index 0 of the SA's port: denied. */
	a = sa_fix_ask(&s, mad, sizeof(mad), 3, 0);
	assert_int_equal(a.status, SA_ST_DENIED);
	free(a.out);
	/*
	 * An index past the SA port's table is umad2sim's stale field, read as
	 * index 0 (sa.c): h1 may ask, h2 still not. A LID nobody has: denied.
	 */
	a = sa_fix_ask(&s, mad, sizeof(mad), 2, 7);
	assert_int_equal(a.status, 0);
	free(a.out);
	a = sa_fix_ask(&s, mad, sizeof(mad), 3, 7);
	assert_int_equal(a.status, SA_ST_DENIED);
	free(a.out);
	a = sa_fix_ask(&s, mad, sizeof(mad), 77, 0);
	assert_int_equal(a.status, SA_ST_DENIED);
	free(a.out);
}

static void test_match_bits(void **state)
{
	static const struct sa_field f[] = { { 4, 3 }, { 8, 16 }, { 24, 0 } };
	uint8_t a[4] = { 0x5a, 0x12, 0x34, 0xff }, b[4] = { 0x52, 0x12, 0x34, 0x00 };

	(void)state;
	/* Bits 4..6 of byte 0: 101 vs 001 differ; bits 8..23 agree; a width-0 field never fails. */
	assert_false(sa_match(f, 3, 1, a, b));
	assert_true(sa_match(f, 3, 2 | 4, a, b));
	b[0] = 0x5b; /* bit 7 differs: outside the field */
	assert_true(sa_match(f, 3, 1, a, b));
	/* Mask bits beyond the table select nothing. */
	assert_true(sa_match(f, 3, 1ULL << 40, a, b));
}


/*
 * Trust (IBA 15.2.1.1, C15-0.1.5): a wrong SM_Key is discarded unanswered;
 * the right one opens P_KeyTableRecords and the SM_Key in SMInfoRecord,
 * and never comes back in a response.
 */
static void test_trust(void **state)
{
	struct sa_fab *f = *state;
	uint8_t mad[MAD_SIZE];
	struct sa_ans a;
	struct sa_src s = f->src;

	s.sm.sm_key = 0x5eed;
	sa_fix_req(mad, IB_MAD_METHOD_GETTABLE, 0x33, 0);
	sa_fix_key(mad, 0x1);
	a = sa_fix_ask(&s, mad, sizeof(mad), 2, 0);
	assert_int_equal(a.r, -EACCES);
	assert_null(a.out);
	sa_fix_key(mad, 0);
	a = sa_fix_ask(&s, mad, sizeof(mad), 2, 0);
	assert_int_equal(a.r, 0);
	assert_int_equal(a.status, SA_ST_REQ_INVALID);
	free(a.out);
	sa_fix_key(mad, 0x5eed);
	a = sa_fix_ask(&s, mad, sizeof(mad), 2, 0);
	assert_int_equal(a.status, 0);
	assert_true(a.len > SA_HDR_SIZE);
	assert_int_equal(sa_fix_hdr(&a)->sm_key, 0);
	free(a.out);
	/* SMInfoRecord: the SM_Key only to the trusted. */
	sa_fix_req(mad, IB_MAD_METHOD_GETTABLE, 0x18, 0);
	a = sa_fix_ask(&s, mad, sizeof(mad), 2, 0);
	assert_int_equal(a.status, 0);
	assert_int_equal(((const ib_sminfo_record_t *)(a.out + SA_HDR_SIZE))->sm_info.sm_key, 0);
	free(a.out);
	sa_fix_key(mad, 0x5eed);
	a = sa_fix_ask(&s, mad, sizeof(mad), 2, 0);
	assert_int_equal(be64toh(((const ib_sminfo_record_t *)(a.out + SA_HDR_SIZE))->sm_info.sm_key),
			 0x5eed);
	free(a.out);
	/* With no SM_Key of ours (0), any key is a wrong one. */
	s.sm.sm_key = 0;
	a = sa_fix_ask(&s, mad, sizeof(mad), 2, 0);
	assert_int_equal(a.r, -EACCES);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_get_statuses, sa_fix_star, sa_fix_teardown),
		cmocka_unit_test_setup_teardown(test_bad_requests, sa_fix_star, sa_fix_teardown),
		cmocka_unit_test_setup_teardown(test_access, sa_fix_star, sa_fix_teardown),
		cmocka_unit_test(test_match_bits),
		cmocka_unit_test_setup_teardown(test_trust, sa_fix_star, sa_fix_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
