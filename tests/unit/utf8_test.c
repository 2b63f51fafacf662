/* SPDX-License-Identifier: MIT */
/* Unit tests for lib/utf8.c: decoding with every check, and the printable rule. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "lib/utf8.h"

static unsigned dec(const char *s, size_t len, uint32_t *cp)
{
	*cp = 0xdeadbeef;
	return utf8_next((const unsigned char *)s, len, 0, cp);
}

static void test_valid(void **state)
{
	uint32_t cp;

	(void)state;
	assert_int_equal(dec("A", 1, &cp), 1);
	assert_int_equal(cp, 0x41);
	assert_int_equal(dec("\xc3\xa9", 2, &cp), 2); /* é */
	assert_int_equal(cp, 0xe9);
	assert_int_equal(dec("\xe2\x82\xac", 3, &cp), 3); /* € */
	assert_int_equal(cp, 0x20ac);
	assert_int_equal(dec("\xf0\x9f\x98\x80", 4, &cp), 4); /* U+1F600 */
	assert_int_equal(cp, 0x1f600);
	assert_int_equal(dec("\xf4\x8f\xbf\xbf", 4, &cp), 4); /* the last code point */
	assert_int_equal(cp, 0x10ffff);
}

/* What raw bytes from a broken file look like: each one refused, nothing read past len. */
static void test_invalid(void **state)
{
	uint32_t cp;

	(void)state;
	assert_int_equal(dec("\x80", 1, &cp), 0);            /* a stray continuation */
	assert_int_equal(dec("\xc3", 1, &cp), 0);            /* cut short */
	assert_int_equal(dec("\xe2\x82", 2, &cp), 0);        /* cut short */
	assert_int_equal(dec("\xc3\x41", 2, &cp), 0);        /* no continuation */
	assert_int_equal(dec("\xc0\x80", 2, &cp), 0);        /* overlong NUL */
	assert_int_equal(dec("\xe0\x80\xaf", 3, &cp), 0);    /* overlong '/' */
	assert_int_equal(dec("\xed\xa0\x80", 3, &cp), 0);    /* a surrogate */
	assert_int_equal(dec("\xf4\x90\x80\x80", 4, &cp), 0); /* past U+10FFFF */
	assert_int_equal(dec("\xf8\x88\x80\x80\x80", 5, &cp), 0);
	assert_int_equal(dec("\xff", 1, &cp), 0);
	/* The length bounds the read, not the lead byte. */
	assert_int_equal(utf8_next((const unsigned char *)"x\xe2\x82\xac", 3, 1, &cp), 0);
	assert_int_equal(utf8_next((const unsigned char *)"x\xe2\x82\xac", 4, 1, &cp), 3);
}

static void test_printable(void **state)
{
	(void)state;
	assert_true(utf8_printable('a'));
	assert_true(utf8_printable(' '));
	assert_true(utf8_printable(0xe9));
	assert_true(utf8_printable(0x1f600));
	assert_false(utf8_printable('\t'));
	assert_false(utf8_printable('\n'));
	assert_false(utf8_printable(0x7f));
	assert_false(utf8_printable(0x85));   /* C1: NEL */
	assert_false(utf8_printable(0x2028)); /* line separator */
	assert_false(utf8_printable(0xfeff)); /* BOM */
	assert_false(utf8_printable(0xfffe));
	assert_false(utf8_printable(0x1ffff)); /* non-characters in every plane */
	assert_false(utf8_printable(0xfdd0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid),
		cmocka_unit_test(test_invalid),
		cmocka_unit_test(test_printable),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
