/* SPDX-License-Identifier: MIT */
/* Unit tests for numbers in text (lib/strnum.h). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "lib/strnum.h"

static void test_digit(void **state)
{
	(void)state;
	assert_int_equal(strnum_digit('0'), 0);
	assert_int_equal(strnum_digit('9'), 9);
	assert_int_equal(strnum_digit('a'), 10);
	assert_int_equal(strnum_digit('F'), 15);
	/* Neighbours of the ranges, and bytes a signed char makes negative. */
	assert_int_equal(strnum_digit('/'), 16);
	assert_int_equal(strnum_digit(':'), 16);
	assert_int_equal(strnum_digit('g'), 16);
	assert_int_equal(strnum_digit('G'), 16);
	assert_int_equal(strnum_digit('x'), 16);
	assert_int_equal(strnum_digit('\0'), 16);
	assert_int_equal(strnum_digit((char)0xe9), 16);
	assert_true(strnum_digit('7') < 8);
	assert_false(strnum_digit('8') < 8);
}

static void test_u64(void **state)
{
	uint64_t v = 42;

	(void)state;
	assert_int_equal(strnum_u64("17", 10, 0, 100, &v), 0);
	assert_int_equal(v, 17);
	assert_int_equal(strnum_u64("0x1f", 0, 0, 100, &v), 0);
	assert_int_equal(v, 31);
	assert_int_equal(strnum_u64("010", 0, 0, 100, &v), 0);
	assert_int_equal(v, 8);
	assert_int_equal(strnum_u64("010", 10, 0, 100, &v), 0);
	assert_int_equal(v, 10);
	assert_int_equal(strnum_u64(" +5", 10, 0, 100, &v), 0);
	assert_int_equal(v, 5);
	assert_int_equal(strnum_u64("18446744073709551615", 10, 0, UINT64_MAX, &v), 0);
	assert_true(v == UINT64_MAX);

	v = 42; /* untouched by every failure below */
	assert_int_equal(strnum_u64("", 10, 0, 100, &v), -EINVAL);
	assert_int_equal(strnum_u64("  ", 10, 0, 100, &v), -EINVAL);
	assert_int_equal(strnum_u64("5x", 10, 0, 100, &v), -EINVAL);
	assert_int_equal(strnum_u64("0x1f", 10, 0, 100, &v), -EINVAL);
	assert_int_equal(strnum_u64("-0", 10, 0, 100, &v), -EINVAL);
	assert_int_equal(strnum_u64(" -5", 0, 0, UINT64_MAX, &v), -EINVAL);
	assert_int_equal(strnum_u64("101", 10, 0, 100, &v), -ERANGE);
	assert_int_equal(strnum_u64("0", 10, 1, 100, &v), -ERANGE);
	assert_int_equal(strnum_u64("18446744073709551616", 10, 0, UINT64_MAX, &v), -ERANGE);
	assert_int_equal(v, 42);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_digit),
		cmocka_unit_test(test_u64),
	};

	return cmocka_run_group_tests_name("strnum", tests, NULL, NULL);
}
