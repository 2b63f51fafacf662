/* SPDX-License-Identifier: MIT */
/* fabric/mkey.h: the secret file, the derivation, the route and links tables and their files. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "fabric/mkey.h"
#include "lib/sha256.h"

static char dir[64];

static int setup(void **state)
{
	(void)state;
	strcpy(dir, "/tmp/mkey_test.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void test_secret(void **state)
{
	uint8_t a[MKEY_SECRET_LEN], b[MKEY_SECRET_LEN];
	char f[128];
	struct stat st;
	bool created;
	FILE *fp;

	(void)state;
	snprintf(f, sizeof(f), "%s/mkey.secret", dir);
	assert_int_equal(mkey_secret_load(f, a, &created), 0);
	assert_true(created);
	assert_int_equal(stat(f, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(st.st_size, MKEY_SECRET_LEN);
	/* The second start reads the same secret. */
	assert_int_equal(mkey_secret_load(f, b, &created), 0);
	assert_false(created);
	assert_memory_equal(a, b, MKEY_SECRET_LEN);
	/* Readable by the group: refused. */
	assert_int_equal(chmod(f, 0640), 0);
	assert_int_equal(mkey_secret_load(f, b, &created), -EPERM);
	/* Cut short: refused. */
	assert_int_equal(chmod(f, 0600), 0);
	fp = fopen(f, "w");
	assert_non_null(fp);
	fputs("short", fp);
	fclose(fp);
	assert_int_equal(mkey_secret_load(f, b, &created), -EPROTO);
}

static void test_derive(void **state)
{
	uint8_t s[MKEY_SECRET_LEN], d[SHA256_LEN];
	const uint8_t g[8] = { 0x00, 0x02, 0xc9, 0x03, 0x00, 0x01, 0xe3, 0xf0 };
	uint64_t want = 0;

	(void)state;
	for (unsigned i = 0; i < sizeof(s); i++)
		s[i] = (uint8_t)i;
	hmac_sha256(s, sizeof(s), g, sizeof(g), d);
	for (unsigned i = 0; i < 8; i++)
		want = want << 8 | d[i];
	assert_int_equal(mkey_derive(s, 0x0002c9030001e3f0ull), want);
	assert_int_not_equal(mkey_derive(s, 0x0002c9030001e3f0ull),
			     mkey_derive(s, 0x0002c9030001e3f1ull));
}

static void test_routes_file(void **state)
{
	uint8_t s[MKEY_SECRET_LEN] = { 1 };
	uint8_t p0[SMP_MAX_HOPS + 1] = { 0 }, p1[SMP_MAX_HOPS + 1] = { 0, 1 },
		p2[SMP_MAX_HOPS + 1] = { 0, 1, 12 };
	struct smp_req r = { .hops = 2, .path = { 0, 1, 12 } };
	struct mkey a, b;
	char f[128];

	(void)state;
	snprintf(f, sizeof(f), "%s/mkey.paths", dir);
	mkey_init(&a, s, 2, 0);
	assert_int_equal(mkey_remember(&a, 0, p0, 0x10), 0);
	assert_int_equal(mkey_remember(&a, 1, p1, 0x20), 0);
	for (unsigned i = 0; i < 300; i++) { /* grows the table */
		uint8_t p[SMP_MAX_HOPS + 1] = { 0, 2, (uint8_t)(i % 250 + 1), (uint8_t)(i / 250 + 1) };

		assert_int_equal(mkey_remember(&a, 3, p, 0x1000 + i), 0);
	}
	assert_int_equal(mkey_remember(&a, 2, p2, 0x30), 0);
	assert_int_equal(mkey_route_guid(&a, 2, p2), 0x30);
	assert_int_equal(mkey_for_req(&a, &r), mkey_derive(s, 0x30));
	r.path[2] = 13; /* a route never seen: no key */
	assert_int_equal(mkey_for_req(&a, &r), 0);
	assert_int_equal(mkey_paths_save(&a, f), 0);
	mkey_init(&b, s, 2, 0);
	assert_int_equal(mkey_paths_load(&b, f), 0);
	assert_int_equal(b.n, a.n);
	assert_int_equal(mkey_route_guid(&b, 0, p0), 0x10);
	assert_int_equal(mkey_route_guid(&b, 1, p1), 0x20);
	assert_int_equal(mkey_route_guid(&b, 2, p2), 0x30);
	mkey_free(&a);
	mkey_free(&b);
}

/*
 * The links table: a route walked from this SM's own node, wherever that
 * is; it wins over the route table (another SM's position); the file.
 */
static void test_links(void **state)
{
	uint8_t s[MKEY_SECRET_LEN] = { 2 };
	/* host 0x10 port 1 - switch 0x20 port 3; switch 0x20 port 5 - switch 0x30 port 1;
	 * switch 0x30 port 2 - host 0x40 port 1 */
	static const struct { uint64_t a; uint8_t pa; uint64_t b; uint8_t pb; } l[] = {
		{ 0x10, 1, 0x20, 3 }, { 0x20, 5, 0x30, 1 }, { 0x30, 2, 0x40, 1 },
	};
	uint8_t p2[SMP_MAX_HOPS + 1] = { 0, 1, 5 }, p3[SMP_MAX_HOPS + 1] = { 0, 1, 1, 3 };
	struct smp_req r = { .hops = 3, .path = { 0, 1, 5, 2 } };
	struct mkey a, b;
	char f[128];

	(void)state;
	snprintf(f, sizeof(f), "%s/mkey.links", dir);
	mkey_init(&a, s, 2, 0);
	for (unsigned i = 0; i < 3; i++) {
		assert_int_equal(mkey_link_remember(&a, l[i].a, l[i].pa, l[i].b), 0);
		assert_int_equal(mkey_link_remember(&a, l[i].b, l[i].pb, l[i].a), 0);
	}
	for (unsigned i = 0; i < 200; i++) /* grows the table */
		assert_int_equal(mkey_link_remember(&a, 0x1000 + i, 1, 0x2000 + i), 0);
	assert_int_equal(a.n_links, 206);
	assert_true(a.links_dirty);
	/* Without our own node nothing is walked. */
	assert_int_equal(mkey_links_walk(&a, 2, p2), 0);
	assert_int_equal(mkey_for_req(&a, &r), 0);
	mkey_set_self(&a, 0x10);
	assert_int_equal(mkey_links_walk(&a, 0, p2), 0x10);
	assert_int_equal(mkey_links_walk(&a, 2, p2), 0x30);
	assert_int_equal(mkey_for_req(&a, &r), mkey_derive(s, 0x40));
	r.path[3] = 9; /* a port not in the table: no key */
	assert_int_equal(mkey_for_req(&a, &r), 0);
	/* From the other end (an SM at 0x40): its own walk. */
	mkey_set_self(&a, 0x40);
	assert_int_equal(mkey_links_walk(&a, 3, p3), 0x10);
	/* A route table entry (learned elsewhere) does not override the walk. */
	assert_int_equal(mkey_remember(&a, 3, p3, 0x99), 0);
	assert_int_equal(mkey_route_guid(&a, 3, p3), 0x10);
	assert_int_equal(mkey_links_save(&a, f), 0);
	assert_false(a.links_dirty);
	mkey_init(&b, s, 2, 0);
	assert_int_equal(mkey_links_load(&b, f), 0);
	assert_int_equal(b.n_links, a.n_links);
	assert_int_equal(mkey_link_peer(&b, 0x30, 2), 0x40);
	assert_int_equal(mkey_link_peer(&b, 0x1000 + 199, 1), 0x2000 + 199);
	assert_int_equal(mkey_link_peer(&b, 0x30, 3), 0);
	mkey_free(&b);
	/* A malformed line: -EPROTO. */
	FILE *w = fopen(f, "w");

	assert_non_null(w);
	fputs("0x10 1 0x20\n0x20 x 0x30\n", w);
	fclose(w);
	mkey_init(&b, s, 2, 0);
	assert_int_equal(mkey_links_load(&b, f), -EPROTO);
	mkey_free(&b);
	mkey_free(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_secret),
		cmocka_unit_test(test_derive),
		cmocka_unit_test(test_routes_file),
		cmocka_unit_test(test_links),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
