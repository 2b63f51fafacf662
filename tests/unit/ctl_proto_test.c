/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for the control protocol (loomd/ctl_proto.c): every request
 * decodes from its line, and nothing else does (unknown words, case, extra
 * spaces, a second request, NUL bytes, over-long lines); reply heads decode
 * to ok or to the error's text and the body's offset, and anything else is
 * a protocol error; the status report carries what it was given.
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

#include "loomd/ctl_proto.h"

static int parse(const char *s, enum ctl_req *r)
{
	return ctl_req_parse(s, strlen(s), r);
}

static void test_requests(void **state)
{
	static const struct { const char *line; enum ctl_req want; } good[] = {
		{ "status\n", CTL_STATUS },
		{ "status", CTL_STATUS }, /* the end of the stream ends the line too */
		{ "status json\n", CTL_STATUS_JSON },
		{ "sweep\n", CTL_SWEEP },
		{ "sweep heavy\n", CTL_SWEEP_HEAVY },
		{ "sweep pause\n", CTL_SWEEP_PAUSE },
		{ "sweep resume", CTL_SWEEP_RESUME },
		{ "reload\n", CTL_RELOAD },
		{ "handover\n", CTL_HANDOVER },
	};
	enum ctl_req r;

	(void)state;
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		r = _CTL_REQ_MAX;
		assert_int_equal(parse(good[i].line, &r), 0);
		assert_int_equal(r, good[i].want);
	}
	/* Every name decodes back to itself. */
	for (unsigned i = 0; i < _CTL_REQ_MAX; i++) {
		char line[CTL_REQ_MAX];

		snprintf(line, sizeof(line), "%s\n", ctl_req_name(i));
		assert_int_equal(parse(line, &r), 0);
		assert_int_equal(r, i);
	}
	assert_null(ctl_req_name(_CTL_REQ_MAX));
}

static void test_bad_requests(void **state)
{
	static const char *const bad[] = {
		"", "\n", "stat\n", "Status\n", "status \n", " status\n", "status  json\n",
		"status\r\n", "sweep heavy\nstatus\n", "status\n\n", "sweep light\n",
		"reload now\n", "sweepheavy\n", "handover now\n", "hand over\n",
	};
	char longline[CTL_REQ_MAX + 8];
	enum ctl_req r = CTL_RELOAD;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(parse(bad[i], &r), -EINVAL);
	/* Untouched on failure. */
	assert_int_equal(r, CTL_RELOAD);
	/* A NUL inside: the length, not the C string, is the input. */
	assert_int_equal(ctl_req_parse("status\0json\n", 12, &r), -EINVAL);
	assert_int_equal(ctl_req_parse("status\n\0", 8, &r), -EINVAL);
	/* Longer than a request may be, even when it starts like one. */
	memset(longline, ' ', sizeof(longline));
	memcpy(longline, "status", 6);
	longline[sizeof(longline) - 1] = '\n';
	assert_int_equal(ctl_req_parse(longline, sizeof(longline), &r), -EINVAL);
}

static void test_reply_head(void **state)
{
	char msg[16];
	bool ok = false;
	size_t body = 0;
	const char *a = "ok\nbody\n", *e = "err reload refused: loom.yaml:3:1: bad\ndetail\n";

	(void)state;
	assert_int_equal(ctl_reply_parse(a, strlen(a), &ok, msg, sizeof(msg), &body), 0);
	assert_true(ok);
	assert_string_equal(msg, "");
	assert_string_equal(a + body, "body\n");

	assert_int_equal(ctl_reply_parse(e, strlen(e), &ok, msg, sizeof(msg), &body), 0);
	assert_false(ok);
	assert_string_equal(msg, "reload refused:"); /* cut to the buffer */
	assert_string_equal(e + body, "detail\n");

	assert_int_equal(ctl_reply_parse("ok", 2, &ok, msg, sizeof(msg), &body), -EPROTO);
	assert_int_equal(ctl_reply_parse("okay\n", 5, &ok, msg, sizeof(msg), &body), -EPROTO);
	assert_int_equal(ctl_reply_parse("err \n", 5, &ok, msg, sizeof(msg), &body), -EPROTO);
	assert_int_equal(ctl_reply_parse("err a\0b\n", 8, &ok, msg, sizeof(msg), &body), -EPROTO);
	assert_int_equal(ctl_reply_parse("", 0, &ok, msg, sizeof(msg), &body), -EPROTO);
	assert_int_equal(ctl_reply_parse("\n", 1, &ok, msg, sizeof(msg), &body), -EPROTO);
}

static char *print(const struct ctl_status *s, bool json)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);

	assert_non_null(f);
	assert_int_equal(ctl_status_print(f, s, json), 0);
	fclose(f);
	return buf;
}

static void test_status(void **state)
{
	struct ctl_status s = {
		.version = "9.9", .uptime_s = 42, .guid = 0x0002c90300000001, .sm_state = 3,
		.priority = 7, .up = false, .engine = "updn", .config = "/etc/\"x\".yaml",
		.paused = true, .paused_since = 0, .heavy = 2, .light = 5, .n_sweeps = 1,
		.sweeps = { { .heavy = true, .up = true, .when = 86400, .nodes = 10, .ports = 40,
			      .changes = 3, .ms = 12, .smps = 77 } },
		.smps = 1000, .smp_timeouts = 4, .sa_refused = 6, .dropped_late = 9,
	};
	char *t;

	(void)state;
	snprintf(s.why_not, sizeof(s.why_not), "switch \"leaf\" does not answer");
	snprintf(s.refused, sizeof(s.refused), "ftree: not a fat tree");
	t = print(&s, false);
	assert_non_null(strstr(t, "SM: master, priority 7, port GUID 0x0002c90300000001\n"));
	assert_non_null(strstr(t, "subnet: not up: switch \"leaf\" does not answer\n"));
	assert_non_null(strstr(t, "sweeps: paused since 1970-01-01T00:00:00Z\n"));
	assert_non_null(strstr(t, "1970-01-02T00:00:00Z heavy 10 nodes, 40 ports, 3 changes, "
				  "77 SMPs, 12 ms\n"));
	assert_non_null(strstr(t, "SMPs: 1000 sent, 0 retries, 4 timeouts"));
	assert_non_null(strstr(t, "routing: updn; refused by ftree: not a fat tree\n"));
	assert_non_null(strstr(t, "answers dropped: 0 malformed, 0 unexpected, 9 late\n"));
	free(t);
	t = print(&s, true);
	/* Quotes in user text are escaped: the object stays one JSON object. */
	assert_non_null(strstr(t, "\"config\": \"/etc/\\\"x\\\".yaml\""));
	assert_non_null(strstr(t, "\"why_not\": \"switch \\\"leaf\\\" does not answer\""));
	assert_non_null(strstr(t, "\"sm\": {\"state\": \"master\", \"priority\": 7"));
	assert_non_null(strstr(t, "\"sa_refused\": 6"));
	assert_non_null(strstr(t, "\"dropped_late\": 9"));
	assert_non_null(strstr(t, "\"engine\": \"updn\", \"refused\": \"ftree: not a fat tree\""));
	assert_non_null(strstr(t, "{\"kind\": \"heavy\", \"time\": \"1970-01-02T00:00:00Z\""));
	free(t);
	s.up = true;
	s.paused = false;
	s.config = NULL;
	t = print(&s, true);
	assert_non_null(strstr(t, "\"up\": true, \"why_not\": null"));
	assert_non_null(strstr(t, "\"config\": null, \"paused\": false, \"paused_since\": null"));
	free(t);
	assert_string_equal(ctl_sm_state_name(2), "standby");
	assert_string_equal(ctl_sm_state_name(9), "unknown");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_requests),
		cmocka_unit_test(test_bad_requests),
		cmocka_unit_test(test_reply_head),
		cmocka_unit_test(test_status),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
