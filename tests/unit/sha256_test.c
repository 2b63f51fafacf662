/* SPDX-License-Identifier: MIT */
/* SHA-256 (FIPS 180-4 examples) and HMAC-SHA256 (RFC 4231 test cases), lib/sha256.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "lib/sha256.h"

static const char *hex(const uint8_t d[SHA256_LEN], char buf[2 * SHA256_LEN + 1])
{
	for (unsigned i = 0; i < SHA256_LEN; i++)
		snprintf(buf + 2 * i, 3, "%02x", d[i]);
	return buf;
}

static void check_sha(const char *msg, const char *want)
{
	uint8_t d[SHA256_LEN];
	char buf[2 * SHA256_LEN + 1];

	sha256(msg, strlen(msg), d);
	assert_string_equal(hex(d, buf), want);
}

static void test_fips(void **state)
{
	(void)state;
	check_sha("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	check_sha("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	check_sha("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
		  "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

static void test_million_a_in_pieces(void **state)
{
	/* One million 'a' in uneven pieces: the buffer's joins and the padding at 55/56/64. */
	struct sha256 s;
	uint8_t d[SHA256_LEN];
	char a[997], buf[2 * SHA256_LEN + 1];
	size_t left = 1000000;

	(void)state;
	memset(a, 'a', sizeof(a));
	sha256_init(&s);
	while (left) {
		size_t k = left < sizeof(a) ? left : sizeof(a);

		sha256_update(&s, a, k);
		left -= k;
	}
	sha256_final(&s, d);
	assert_string_equal(hex(d, buf),
			    "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

static void check_hmac(const uint8_t *key, size_t klen, const char *msg, const char *want)
{
	uint8_t d[SHA256_LEN];
	char buf[2 * SHA256_LEN + 1];

	hmac_sha256(key, klen, msg, strlen(msg), d);
	assert_string_equal(hex(d, buf), want);
}

static void test_rfc4231(void **state)
{
	uint8_t k[131];

	(void)state;
	memset(k, 0x0b, 20); /* test case 1 */
	check_hmac(k, 20, "Hi There",
		   "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
	check_hmac((const uint8_t *)"Jefe", 4, "what do ya want for nothing?", /* case 2 */
		   "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
	memset(k, 0xaa, sizeof(k)); /* case 6: a key longer than a block is hashed first */
	check_hmac(k, sizeof(k), "Test Using Larger Than Block-Size Key - Hash Key First",
		   "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fips),
		cmocka_unit_test(test_million_a_in_pieces),
		cmocka_unit_test(test_rfc4231),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
