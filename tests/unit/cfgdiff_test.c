/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for loomd/cfgdiff.c, the diff `loom reload` prints: two
 * configurations from YAML text, the diff compared as text. The same
 * values written differently are no change; a changed value is one line
 * out and one in, under the lines that hold it; a member added to a
 * partition shows under that partition.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "loomd/cfgdiff.h"

static struct config *load(const char *yaml)
{
	struct config *c = NULL;
	struct diag d = { 0 };

	assert_int_equal(config_load_mem(yaml, strlen(yaml), "t.yaml", &c, &d), 0);
	diag_free(&d);
	return c;
}

/* The diff of a to b; *n the lines changed. */
static char *diff(const char *a, const char *b, int *n)
{
	struct config *ca = load(a), *cb = load(b);
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);

	assert_non_null(f);
	*n = cfgdiff_print(ca, cb, f);
	fclose(f);
	config_free(ca);
	config_free(cb);
	return buf;
}

static void test_same(void **state)
{
	int n;
	char *t = diff("sm:\n  sweep-interval: 60s\n", "sm: { sweep-interval: 1m }\n", &n);

	(void)state;
	assert_int_equal(n, 0);
	assert_string_equal(t, "");
	free(t);
}

static void test_value(void **state)
{
	int n;
	char *t = diff("sm:\n  priority: 1\n", "sm:\n  priority: 5\n", &n);

	(void)state;
	assert_int_equal(n, 2);
	assert_string_equal(t, " sm:\n-  priority: 1\n+  priority: 5\n");
	free(t);
	/* Nested: the lines that hold it, each level once. */
	t = diff("sm:\n  mad:\n    retries: 1\n", "sm:\n  mad:\n    retries: 2\n", &n);
	assert_int_equal(n, 2);
	assert_string_equal(t, " sm:\n   mad:\n-    retries: 1\n+    retries: 2\n");
	free(t);
}

static void test_member_added(void **state)
{
	static const char a[] = "partitions:\n"
				"  - { name: compute, pkey: 0x10, members: [ { node: h1 } ] }\n"
				"  - { name: storage, pkey: 0x20, members: [ { node: h3 } ] }\n";
	static const char b[] = "partitions:\n"
				"  - { name: compute, pkey: 0x10, members: [ { node: h1 } ] }\n"
				"  - { name: storage, pkey: 0x20, members: [ { node: h3 }, "
				"{ node: h6 } ] }\n";
	int n;
	char *t = diff(a, b, &n);

	(void)state;
	assert_int_equal(n, 1);
	/* Under storage's members, not compute's. */
	assert_string_equal(t, " partitions:\n"
			       "   - name: \"storage\"\n"
			       "     members:\n"
			       "+      - { node: \"h6\", membership: full }\n");
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same),
		cmocka_unit_test(test_value),
		cmocka_unit_test(test_member_added),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
