/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for config/: the units, then table-driven over the golden files
 * in tests/config (each .err's messages exactly, each .out's print exactly,
 * and every valid config equal to its own print read back), then defaults,
 * comparison and the bounds that keep memory and time in check.
 */
#include <errno.h>
#include <stdbool.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <unistd.h>

#include <cmocka.h>
#include <iba/ib_types.h>

#include "config/config.h"
#include "config/config_priv.h"
#include "lib/cleanup.h"
#include "lib/diag.h"

/* ---- helpers ------------------------------------------------------------ */

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t cap = 0, n = 0;

	assert_non_null(f);
	for (;;) {
		if (n + 4096 > cap) {
			cap = cap ? cap * 2 : 8192;
			buf = realloc(buf, cap);
			assert_non_null(buf);
		}
		size_t got = fread(buf + n, 1, cap - n - 1, f);

		n += got;
		if (!got)
			break;
	}
	fclose(f);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

static char *print_to_string(const struct config *c)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	assert_int_equal(config_print(c, f), 0);
	fclose(f);
	return text;
}

static struct config *load_ok(const char *text)
{
	struct diag d = { 0 };
	struct config *c = NULL;
	int r = config_load_mem(text, strlen(text), "t.yaml", &c, &d);

	if (r)
		diag_print(&d, stderr);
	assert_int_equal(r, 0);
	assert_int_equal(diag_count(&d), 0);
	diag_free(&d);
	return c;
}

/* len bytes that must be refused with -EINVAL and exactly the one message want. */
static void load_bad_len(const char *text, size_t len, const char *want)
{
	struct config *c = (struct config *)&c; /* must stay untouched */
	struct diag d = { 0 };
	int r = config_load_mem(text, len, "t.yaml", &c, &d);

	if (d.n != 1 || strcmp(d.msg[0], want)) {
		print_message("want: %s\ngot:\n", want);
		diag_print(&d, stderr);
	}
	assert_int_equal(r, -EINVAL);
	assert_ptr_equal(c, (struct config *)&c);
	assert_int_equal(d.n, 1);
	assert_string_equal(d.msg[0], want);
	diag_free(&d);
}

static void load_bad(const char *text, const char *want)
{
	load_bad_len(text, strlen(text), want);
}

/* ---- units ---------------------------------------------------------------- */

static void test_units_numbers(void **state)
{
	uint64_t v;

	(void)state;
	assert_int_equal(units_uint("0", &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(units_uint("0x7FfE", &v), 0);
	assert_int_equal(v, 0x7ffe);
	assert_int_equal(units_uint("18446744073709551615", &v), 0);
	assert_true(v == UINT64_MAX);
	assert_int_equal(units_uint("18446744073709551616", &v), -ERANGE);
	assert_int_equal(units_uint("0x10000000000000000", &v), -ERANGE);
	assert_int_equal(units_uint("99999999999999999999x", &v), -EINVAL);
	assert_int_equal(units_uint("", &v), -EINVAL);
	assert_int_equal(units_uint("0x", &v), -EINVAL);
	assert_int_equal(units_uint("-1", &v), -EINVAL);
	assert_int_equal(units_uint("+1", &v), -EINVAL);
	assert_int_equal(units_uint(" 1", &v), -EINVAL);
	assert_int_equal(units_uint("1f", &v), -EINVAL);

	assert_int_equal(units_guid("0x0002c90300a1b2c3", &v), 0);
	assert_true(v == 0x0002c90300a1b2c3ull);
	assert_int_equal(units_guid("0x1", &v), 0);
	assert_int_equal(units_guid("0x00002c90300a1b2c3", &v), -EINVAL); /* 17 digits */
	assert_int_equal(units_guid("2c90300a1b2c3", &v), -EINVAL);
	assert_int_equal(units_guid("0x", &v), -EINVAL);

	assert_int_equal(units_subnet_prefix("fe80::", &v), 0);
	assert_true(v == 0xfe80000000000000ull);
	assert_int_equal(units_subnet_prefix("fec0:0:0:1::/64", &v), 0);
	assert_true(v == 0xfec0000000000001ull);
	assert_int_equal(units_subnet_prefix("0xfe80000000000000", &v), 0);
	assert_int_equal(units_subnet_prefix("fe80::1", &v), -ERANGE);
	assert_int_equal(units_subnet_prefix("fe80::/48", &v), -EINVAL);
	assert_int_equal(units_subnet_prefix("fe80:", &v), -EINVAL);
}

static void test_units_durations(void **state)
{
	static const struct {
		const char *in;
		uint64_t us;
		const char *out;
	} t[] = {
		{ "0", 0, "0s" },
		{ "0ms", 0, "0s" },
		{ "500us", 500, "500us" },
		{ "1000us", 1000, "1ms" },
		{ "200ms", 200000, "200ms" },
		{ "1500ms", 1500000, "1500ms" },
		{ "90s", 90000000, "90s" },
		{ "120s", 120000000, "2m" },
		{ "1m", 60000000, "1m" },
		{ "60m", 3600000000ull, "1h" },
		{ "24h", 86400000000ull, "24h" },
	};
	char buf[32];
	uint64_t us;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		assert_int_equal(units_duration(t[i].in, &us), 0);
		assert_true(us == t[i].us);
		units_duration_fmt(us, buf, sizeof(buf));
		assert_string_equal(buf, t[i].out);
	}
	assert_int_equal(units_duration("10", &us), -EINVAL);
	assert_int_equal(units_duration("10 s", &us), -EINVAL);
	assert_int_equal(units_duration("1.5s", &us), -EINVAL);
	assert_int_equal(units_duration("s", &us), -EINVAL);
	assert_int_equal(units_duration("10d", &us), -EINVAL);
	assert_int_equal(units_duration("99999999999999999999999h", &us), -ERANGE);
	assert_int_equal(units_duration("9999999999999h", &us), -ERANGE);
}

static void test_units_ib(void **state)
{
	uint8_t x;

	(void)state;
	/* Every rate code the header has: the name maps back to the same code. */
	for (uint8_t code = IB_MIN_RATE; code <= IB_MAX_RATE; code++) {
		const char *name = config_rate_name(code);

		assert_non_null(name);
		assert_int_equal(units_rate(name, &x), 0);
		assert_int_equal(x, code);
		assert_non_null(strstr(units_rate_allowed, name));
	}
	assert_null(config_rate_name(0));
	assert_int_equal(units_rate("200 Gb/s", &x), 0);
	assert_int_equal(x, IB_PATH_RECORD_RATE_200_GBS);
	assert_int_equal(units_rate("2.5Gb/s", &x), 0);
	assert_int_equal(x, IB_PATH_RECORD_RATE_2_5_GBS);
	assert_int_equal(units_rate("200Gbps", &x), -EINVAL);
	assert_int_equal(units_rate("13Gb/s", &x), -EINVAL);
	assert_int_equal(units_rate("Gb/s", &x), -EINVAL);
	assert_int_equal(units_rate("12345Gb/s", &x), -EINVAL);

	for (uint8_t m = IB_MIN_MTU; m <= IB_MAX_MTU; m++) {
		assert_int_equal(units_mtu(config_mtu_name(m), &x), 0);
		assert_int_equal(x, m);
	}
	assert_int_equal(units_mtu("4k", &x), -EINVAL);
	assert_null(config_mtu_name(0));

	/* PortInfo:OperationalVLs and HOQLife codes. */
	assert_int_equal(config_op_vls_code(1), 1);
	assert_int_equal(config_op_vls_code(8), 4);
	assert_int_equal(config_op_vls_code(15), 5);
	assert_int_equal(config_op_vls_code(3), 0);
	assert_int_equal(config_hoq_code(0), 0);
	assert_int_equal(config_hoq_code(4), 0);      /* 4.096us */
	assert_int_equal(config_hoq_code(5), 1);      /* 8.192us */
	assert_int_equal(config_hoq_code(268000), 16); /* 268.4ms */
	assert_int_equal(config_hoq_code(1000000), 18); /* 1.07s */
	assert_int_equal(config_hoq_code(2000000), 19); /* 2.15s */
	assert_int_equal(config_hoq_code(CONFIG_HOQ_INFINITE), 20);
}

/* ---- the golden files ----------------------------------------------------- */

static int golden_filter(const struct dirent *e)
{
	size_t n = strlen(e->d_name);

	return n > 5 && !strcmp(e->d_name + n - 5, ".yaml") && e->d_name[0] >= '0' &&
	       e->d_name[0] <= '9';
}

/* Invalid: -EINVAL, and the messages are the .err's lines but the last (loom's summary). */
static void golden_bad(const char *name, const char *errfile)
{
	_cleanup_free_ char *want = slurp(errfile, NULL);
	struct config *c = NULL;
	struct diag d = { 0 };
	char *line, *save = NULL;
	unsigned n = 0;

	assert_int_equal(config_load_file(name, true, &c, &d), -EINVAL);
	assert_null(c);
	for (line = strtok_r(want, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, "loom config: ", 13))
			continue;
		if (n >= d.n || strcmp(d.msg[n], line))
			print_message("%s: message %u: want\n%s\ngot\n%s\n", name, n, line,
				      n < d.n ? d.msg[n] : "(none)");
		assert_true(n < d.n);
		assert_string_equal(d.msg[n], line);
		n++;
	}
	assert_int_equal(n, d.n);
	diag_free(&d);
}

/* Valid: prints exactly the .out, and the print reads back equal. */
static void golden_good(const char *name, const char *outfile)
{
	_cleanup_free_ char *want = slurp(outfile, NULL);
	_cleanup_free_ char *text = NULL;
	_cleanup_(config_freep) struct config *c = NULL;
	_cleanup_(config_freep) struct config *again = NULL;
	struct diag d = { 0 };

	assert_int_equal(config_load_file(name, true, &c, &d), 0);
	assert_int_equal(diag_count(&d), 0);
	text = print_to_string(c);
	assert_string_equal(text, want);
	again = load_ok(text);
	assert_true(config_equal(c, again));
	assert_true(config_equal(again, c));
	assert_string_equal(c->file, name);
}

static void test_golden(void **state)
{
	const char *srcdir = getenv("srcdir");
	_cleanup_free_ char *dir = NULL;
	struct dirent **list;
	char cwd[4096];
	int n, good = 0, bad = 0;

	(void)state;
	assert_true(asprintf(&dir, "%s/tests/config", srcdir ? srcdir : ".") > 0);
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir(dir), 0);
	n = scandir(".", &list, golden_filter, alphasort);
	assert_true(n > 0);
	for (int i = 0; i < n; i++) {
		char base[256], file[300];

		snprintf(base, sizeof(base), "%.*s", (int)strlen(list[i]->d_name) - 5,
			 list[i]->d_name);
		snprintf(file, sizeof(file), "%s.err", base);
		if (!access(file, R_OK)) {
			golden_bad(list[i]->d_name, file);
			bad++;
		} else {
			snprintf(file, sizeof(file), "%s.out", base);
			golden_good(list[i]->d_name, file);
			good++;
		}
		free(list[i]);
	}
	free(list);
	assert_int_equal(chdir(cwd), 0);
	assert_true(good >= 8);
	assert_true(bad >= 40);
}

static void test_example(void **state)
{
	const char *srcdir = getenv("srcdir");
	_cleanup_free_ char *path = NULL, *text = NULL;
	_cleanup_(config_freep) struct config *c = NULL;
	_cleanup_(config_freep) struct config *again = NULL;
	struct diag d = { 0 };

	(void)state;
	assert_true(asprintf(&path, "%s/contrib/loom.yaml", srcdir ? srcdir : ".") > 0);
	assert_int_equal(config_load_file(path, true, &c, &d), 0);
	/* What the example promises in its comments. */
	assert_int_equal(c->n_parts, 4);
	assert_ptr_equal(config_default_partition(c), &c->part[0]);
	assert_string_equal(c->part[0].name, "default");
	assert_int_equal(c->part[0].pkey, 0x7fff);
	assert_false(c->part[0].member[2].full);
	assert_true(c->part[2].pkey_auto);
	assert_int_equal(c->qos[CONFIG_CLASS_CA].operational_vls, 4);
	assert_int_equal(config_hoq_code(c->qos[CONFIG_CLASS_SWITCH_EXTERNAL].hoq_us), 16);
	text = print_to_string(c);
	again = load_ok(text);
	assert_true(config_equal(c, again));
}

/* ---- defaults, comparing ------------------------------------------------- */

static void test_defaults(void **state)
{
	_cleanup_(config_freep) struct config *def = NULL;
	_cleanup_(config_freep) struct config *empty = NULL;
	_cleanup_(config_freep) struct config *absent = NULL;
	struct config *c = NULL;
	struct diag d = { 0 };

	(void)state;
	assert_int_equal(config_defaults(&def), 0);
	assert_null(def->file);
	assert_int_equal(def->n_parts, 1);
	assert_ptr_equal(config_default_partition(def), &def->part[0]);
	assert_int_equal(def->part[0].pkey, CONFIG_PKEY_DEFAULT);
	assert_int_equal(def->part[0].member[0].kind, CONFIG_MEMBER_ALL);
	assert_true(def->part[0].ipoib);
	assert_string_equal(def->sm.state_dir, "/var/lib/loom");
	/* Damping is on unless the file turns it off: 3 flaps in 10s, held 30s. */
	assert_int_equal(def->sm.flap.flaps, 3);
	assert_int_equal(def->sm.flap.window_us, 10000000);
	assert_int_equal(def->sm.flap.hold_us, 30000000);
	empty = load_ok("");
	assert_true(config_equal(def, empty));
	/* An absent default file is the defaults; an absent named file is an error. */
	assert_int_equal(config_load_file("/nonexistent/loom.yaml", false, &absent, &d), 0);
	assert_int_equal(diag_count(&d), 0);
	assert_true(config_equal(def, absent));
	assert_int_equal(config_load_file("/nonexistent/loom.yaml", true, &c, &d), -ENOENT);
	assert_null(c);
	assert_int_equal(d.n, 1);
	assert_string_equal(d.msg[0],
			    "/nonexistent/loom.yaml: cannot open: No such file or directory");
	diag_free(&d);
	config_free(NULL);
}

static void test_equal(void **state)
{
	_cleanup_(config_freep) struct config *a =
		load_ok("partitions: [{name: p, members: [self]}]");
	struct config *b;

	(void)state;
	/* Each change below must make the two differ. */
	for (int i = 0; i < 11; i++) {
		b = load_ok("partitions: [{name: p, members: [self]}]");
		assert_true(config_equal(a, b));
		switch (i) {
		case 0:
			b->sm.priority = 1;
			break;
		case 1:
			b->sm.state_dir[0] = 'x';
			break;
		case 2:
			b->part[1].pkey++;
			break;
		case 3:
			b->part[1].member[0].full = false;
			break;
		case 4:
			b->qos[CONFIG_CLASS_ROUTER].sl2vl[15] = 0;
			break;
		case 5:
			b->qos[CONFIG_CLASS_CA].low[7].weight = 1;
			break;
		case 6:
			b->n_parts = 1;
			break;
		case 7:
			b->qos[CONFIG_CLASS_SWITCH_PORT0].hoq_us = CONFIG_HOQ_INFINITE;
			break;
		case 8:
			b->sm.flap.flaps = 0;
			break;
		case 9:
			b->sm.flap.window_us++;
			break;
		case 10:
			b->sm.flap.hold_us++;
			break;
		}
		assert_false(config_equal(a, b));
		if (i == 6)
			b->n_parts = 2;
		config_free(b);
	}
}

static void test_pkey_stable(void **state)
{
	_cleanup_(config_freep) struct config *a =
		load_ok("partitions: [{name: storage, members: [self]}]");
	_cleanup_(config_freep) struct config *b = load_ok(
		"partitions: [{name: jobs, members: [self]}, {name: storage, members: [self]}]");

	(void)state;
	/* Adding a partition does not move another's allocated P_Key. */
	assert_true(a->part[1].pkey_auto);
	assert_int_equal(a->part[1].pkey, b->part[2].pkey);
	assert_int_not_equal(b->part[1].pkey, b->part[2].pkey);
}

/* ---- bounds ---------------------------------------------------------------- */

static void test_bounds(void **state)
{
	struct config *c = NULL;
	struct diag d = { 0 };
	char *big;
	size_t n = CONFIG_MAX_BYTES + 1;

	(void)state;
	big = malloc(n);
	assert_non_null(big);
	memset(big, '#', n);
	assert_int_equal(config_load_mem(big, n, "big.yaml", &c, &d), -EFBIG);
	assert_string_equal(
		d.msg[0], "big.yaml: 1048577 bytes is larger than a configuration may be (1 MiB)");
	diag_free(&d);
	free(big);

	load_bad_len("\0", 1, "t.yaml:1:1: YAML: control characters are not allowed "
			       "(byte 0x00 at offset 0)");
	load_bad_len("sm:\n  priority: 1\0", 18, "t.yaml:2:14: YAML: control characters are "
						 "not allowed (byte 0x00 at offset 17)");
}

/* head, then n entries "pre[index]post" separated by commas, then tail. */
static char *repeat(const char *head, const char *pre, bool index, const char *post, unsigned n,
		    const char *tail)
{
	size_t cap =
		strlen(head) + (size_t)n * (strlen(pre) + strlen(post) + 12) + strlen(tail) + 1;
	char *s = malloc(cap);
	size_t o;

	assert_non_null(s);
	o = (size_t)snprintf(s, cap, "%s", head);
	for (unsigned i = 0; i < n; i++) {
		if (index)
			o += (size_t)snprintf(s + o, cap - o, "%s%s%u%s", i ? "," : "", pre, i,
					      post);
		else
			o += (size_t)snprintf(s + o, cap - o, "%s%s%s", i ? "," : "", pre, post);
	}
	snprintf(s + o, cap - o, "%s", tail);
	return s;
}

static void test_limits(void **state)
{
	_cleanup_free_ char *roots =
		repeat("sm: {routing: {engine: updn, roots: [", "0x", true, "", 4097, "]}}\n");
	_cleanup_free_ char *parts = repeat("partitions: [", "~", false, "", 32768, "]\n");
	_cleanup_free_ char *many = repeat("partitions: [", "{name: a", true, ", members: [all]}",
					   32767, "]\n");
	_cleanup_free_ char *errs = repeat("qos: {ca: {sl2vl: {", "", true, ": 99", 3000, "}}}\n");
	struct config *c = NULL;
	struct diag d = { 0 };

	(void)state;
	load_bad(roots, "t.yaml:1:37: sm.routing.roots: 4097 roots is too many (allowed: up to "
			"4096 switches)");
	load_bad(parts, "t.yaml:1:13: partitions: 32768 partitions is more than there are P_Keys "
			"(allowed: up to 32767)");
	/* 32767 partitions whose P_Keys are all allocated: the last finds none left. */
	assert_true(strlen(many) < CONFIG_MAX_BYTES);
	assert_int_equal(config_load_mem(many, strlen(many), "t.yaml", &c, &d), -EINVAL);
	assert_int_equal(d.n, 1);
	assert_non_null(strstr(d.msg[0], "partitions[32766].pkey: no P_Key is left to allocate"));
	diag_free(&d);
	/* Thousands of problems: the list is bounded, the rest counted. */
	assert_int_equal(config_load_mem(errs, strlen(errs), "t.yaml", &c, &d), -EINVAL);
	assert_int_equal(d.n, DIAG_MAX);
	assert_true(diag_count(&d) > DIAG_MAX);
	diag_free(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_units_numbers), cmocka_unit_test(test_units_durations),
		cmocka_unit_test(test_units_ib),      cmocka_unit_test(test_golden),
		cmocka_unit_test(test_example),       cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_equal),         cmocka_unit_test(test_pkey_stable),
		cmocka_unit_test(test_bounds),        cmocka_unit_test(test_limits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
