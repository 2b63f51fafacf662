/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for loom-verbs' device-free parts: the message pattern and its checker
 * (every byte position, stale and misplaced buffers, tails), option parsing (sizes,
 * tests, durations, faults, modes, misuse) and latency percentiles.
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

#include "verbs/opts.h"
#include "verbs/pattern.h"
#include "verbs/stats.h"

static void pattern_round_trip(void **state)
{
	static const size_t sizes[] = { 1, 2, 7, 8, 9, 15, 16, 17, 63, 4096, 65536 + 3 };
	uint8_t *buf = malloc(65536 + 3);
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		pat_fill(buf, sizes[i], 42, 7);
		assert_int_equal(pat_check(buf, sizes[i], 42, 7, NULL), 0);
	}
	free(buf);
}

/* A flipped byte anywhere is found at its offset, with both values. */
static void pattern_every_offset(void **state)
{
	uint8_t buf[75];
	struct pat_bad b;
	size_t off;

	(void)state;
	for (off = 0; off < sizeof(buf); off++) {
		pat_fill(buf, sizeof(buf), 1, 99);
		uint8_t want = buf[off];

		buf[off] ^= 0x01;
		assert_int_equal(pat_check(buf, sizeof(buf), 1, 99, &b), 1);
		assert_int_equal(b.off, off);
		assert_int_equal(b.want, want);
		assert_int_equal(b.got, want ^ 0x01);
		assert_int_equal(b.nbad, 1);
	}
}

/* An older message's bytes (stale buffer), another case's (seed) or a poisoned buffer
 * never pass as the message expected. */
static void pattern_stale_and_poison(void **state)
{
	uint8_t buf[256];
	struct pat_bad b;

	(void)state;
	pat_fill(buf, sizeof(buf), 5, 10);
	assert_int_equal(pat_check(buf, sizeof(buf), 5, 11, &b), 1);
	assert_true(b.nbad > 200);
	assert_int_equal(pat_check(buf, sizeof(buf), 6, 10, NULL), 1);
	memset(buf, PAT_POISON, sizeof(buf));
	assert_int_equal(pat_check(buf, sizeof(buf), 5, 10, &b), 1);
	assert_int_equal(b.got, PAT_POISON);
	/* Case seeds differ by op and by size. */
	assert_true(pat_case_seed(1, 0, 64) != pat_case_seed(1, 1, 64));
	assert_true(pat_case_seed(1, 0, 64) != pat_case_seed(1, 0, 65));
}

/* Bytes past the message are not the checker's business; the tail word is masked. */
static void pattern_tail_only(void **state)
{
	uint8_t buf[16];

	(void)state;
	memset(buf, 0xee, sizeof(buf));
	pat_fill(buf, 5, 3, 4);
	assert_int_equal(buf[5], 0xee);
	assert_int_equal(pat_check(buf, 5, 3, 4, NULL), 0);
	buf[4] ^= 0x80;
	assert_int_equal(pat_check(buf, 5, 3, 4, NULL), 1);
}

static void opts_sizes(void **state)
{
	size_t s[VOPTS_MAX_SIZES];
	unsigned n;
	char why[192];

	(void)state;
	assert_int_equal(opts_parse_sizes("1,64,4k,1M,2K", s, &n, why), 0);
	assert_int_equal(n, 5);
	assert_int_equal(s[0], 1);
	assert_int_equal(s[2], 4096);
	assert_int_equal(s[3], 1 << 20);
	assert_int_equal(s[4], 2048);
	assert_int_equal(opts_parse_sizes("0", s, &n, why), -EINVAL);
	assert_non_null(strstr(why, "\"0\""));
	assert_int_equal(opts_parse_sizes("64,x", s, &n, why), -EINVAL);
	assert_int_equal(opts_parse_sizes("2G", s, &n, why), -EINVAL);
	assert_int_equal(opts_parse_sizes("-1", s, &n, why), -EINVAL);
	assert_int_equal(opts_parse_sizes("", s, &n, why), -EINVAL);
}

static void opts_tests_list(void **state)
{
	unsigned m;
	char why[192];

	(void)state;
	assert_int_equal(opts_parse_tests("all", &m, why), 0);
	assert_int_equal(m, (1u << _OP_MAX) - 1);
	assert_int_equal(opts_parse_tests("send_rc,rdma_read", &m, why), 0);
	assert_int_equal(m, (1u << OP_SEND_RC) | (1u << OP_READ));
	assert_int_equal(opts_parse_tests("send_rc,bogus", &m, why), -EINVAL);
	assert_non_null(strstr(why, "\"bogus\""));
	assert_non_null(strstr(why, "cmp_swap"));
}

static void opts_durations_faults(void **state)
{
	struct vfault f;
	double d;

	(void)state;
	assert_int_equal(opts_parse_duration("5s", &d), 0);
	assert_true(d == 5);
	assert_int_equal(opts_parse_duration("500ms", &d), 0);
	assert_true(d == 0.5);
	assert_int_equal(opts_parse_duration("2m", &d), 0);
	assert_true(d == 120);
	assert_int_equal(opts_parse_duration("1.5", &d), 0);
	assert_int_equal(opts_parse_duration("5h", &d), -EINVAL);
	assert_int_equal(opts_parse_duration("0", &d), -EINVAL);
	assert_int_equal(opts_parse_fault("corrupt:12:100", &f), 0);
	assert_int_equal(f.kind, FAULT_CORRUPT);
	assert_int_equal(f.msg, 12);
	assert_int_equal(f.off, 100);
	assert_int_equal(opts_parse_fault("stale:3", &f), 0);
	assert_int_equal(f.kind, FAULT_STALE);
	assert_int_equal(f.off, -1);
	assert_int_equal(opts_parse_fault("atomic:0", &f), 0);
	assert_int_equal(opts_parse_fault("stale:3:4", &f), -EINVAL);
	assert_int_equal(opts_parse_fault("melt:3", &f), -EINVAL);
	assert_int_equal(opts_parse_fault("corrupt", &f), -EINVAL);
}

static int parse(struct vopts *o, FILE *err, ...)
{
	char *argv[32];
	int argc = 0;
	va_list ap;

	argv[argc++] = "loom-verbs";
	va_start(ap, err);
	while ((argv[argc] = va_arg(ap, char *)))
		argc++;
	va_end(ap);
	return opts_parse(o, argc, argv, err);
}

static void opts_full(void **state)
{
	FILE *err = fopen("/dev/null", "w");
	struct vopts o;

	(void)state;
	assert_int_equal(parse(&o, err, "loopback", NULL), 0);
	assert_int_equal(o.mode, MODE_LOOPBACK);
	assert_int_equal(o.iters, 1000);
	assert_int_equal(o.oob_port, 18515);
	assert_int_equal(o.nsizes, 5);
	assert_true(o.timeout == 30);
	assert_int_equal(parse(&o, err, "-d", "rxe0", "-g", "1", "--iters", "10", "--inline",
			       "--signal-every", "16", "--batch", "32", "--srq", "--qps", "64",
			       "--json", "--timeout", "5s", "client", "host1", NULL), 0);
	assert_int_equal(o.mode, MODE_CLIENT);
	assert_string_equal(o.host, "host1");
	assert_string_equal(o.dev, "rxe0");
	assert_int_equal(o.gid_index, 1);
	assert_int_equal(o.signal_every, 16);
	assert_int_equal(o.batch, 32);
	assert_int_equal(o.qps, 64);
	assert_true(o.inline_ && o.srq && o.json);
	assert_int_equal(parse(&o, err, "--help", NULL), 1);
	assert_int_equal(parse(&o, err, NULL), -EINVAL);
	assert_int_equal(parse(&o, err, "client", NULL), -EINVAL);
	assert_int_equal(parse(&o, err, "server", "extra", NULL), -EINVAL);
	assert_int_equal(parse(&o, err, "--qps", "0", "loopback", NULL), -EINVAL);
	assert_int_equal(parse(&o, err, "--qps", "257", "loopback", NULL), -EINVAL);
	assert_int_equal(parse(&o, err, "--signal-every", "200", "loopback", NULL), -EINVAL);
	assert_int_equal(parse(&o, err, "--bogus", "loopback", NULL), -EINVAL);
	assert_int_equal(parse(&o, err, "--iters", "loopback", NULL), -EINVAL);
	fclose(err);
}

static void stats_percentiles(void **state)
{
	uint64_t ns[100];
	struct lat_stats st;
	int i;

	(void)state;
	for (i = 0; i < 100; i++)
		ns[i] = (uint64_t)(100 - i) * 1000;  /* 100 us down to 1 us, unsorted */
	stats_latency(ns, 100, &st);
	assert_true(st.min_us == 1);
	assert_true(st.med_us == 50);
	assert_true(st.p99_us == 99);
	assert_true(st.max_us == 100);
	stats_latency(ns, 0, &st);
	assert_int_equal(st.n, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(pattern_round_trip),
		cmocka_unit_test(pattern_every_offset),
		cmocka_unit_test(pattern_stale_and_poison),
		cmocka_unit_test(pattern_tail_only),
		cmocka_unit_test(opts_sizes),
		cmocka_unit_test(opts_tests_list),
		cmocka_unit_test(opts_durations_faults),
		cmocka_unit_test(opts_full),
		cmocka_unit_test(stats_percentiles),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
