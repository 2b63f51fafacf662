/* SPDX-License-Identifier: MIT */
/*
 * The control protocol's encoders and decoders (ctl_proto.h): requests,
 * the reply's head line, and the status report as text or JSON. Both ends
 * link this file; nothing here touches a socket.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <time.h>

#include "lib/cleanup.h"
#include "lib/json.h"
#include "loomd/ctl_proto.h"

static const char *const req_name[_CTL_REQ_MAX] = {
	[CTL_STATUS] = "status",
	[CTL_STATUS_JSON] = "status json",
	[CTL_SWEEP] = "sweep",
	[CTL_SWEEP_HEAVY] = "sweep heavy",
	[CTL_SWEEP_PAUSE] = "sweep pause",
	[CTL_SWEEP_RESUME] = "sweep resume",
	[CTL_RELOAD] = "reload",
	[CTL_HANDOVER] = "handover",
};

const char *ctl_req_name(enum ctl_req req)
{
	return (unsigned)req < _CTL_REQ_MAX ? req_name[req] : NULL;
}

int ctl_req_parse(const char *buf, size_t len, enum ctl_req *out)
{
	const char *nl = memchr(buf, '\n', len);
	size_t n = nl ? (size_t)(nl - buf) : len;

	/* Bytes after the line would be a second request: one per connection. */
	if (len > CTL_REQ_MAX || (nl && n + 1 != len) || memchr(buf, '\0', n))
		return -EINVAL;
	for (unsigned i = 0; i < _CTL_REQ_MAX; i++) {
		size_t k = strlen(req_name[i]);

		if (n == k && !memcmp(buf, req_name[i], k)) {
			*out = (enum ctl_req)i;
			return 0;
		}
	}
	return -EINVAL;
}

int ctl_reply_parse(const char *buf, size_t len, bool *ok, char *msg, size_t msg_size,
		    size_t *body)
{
	const char *nl = memchr(buf, '\n', len);
	size_t n, m;

	if (!nl || !msg_size)
		return -EPROTO;
	n = (size_t)(nl - buf);
	if (n == 2 && !memcmp(buf, "ok", 2)) {
		*ok = true;
		msg[0] = '\0';
	} else if (n > 4 && !memcmp(buf, "err ", 4) && !memchr(buf, '\0', n)) {
		*ok = false;
		m = n - 4 < msg_size - 1 ? n - 4 : msg_size - 1;
		memcpy(msg, buf + 4, m);
		msg[m] = '\0';
	} else {
		return -EPROTO;
	}
	*body = n + 1;
	return 0;
}

const char *ctl_sm_state_name(uint8_t state)
{
	/* IBA 14.4.1, SMInfo:SMState */
	static const char *const name[] = { "not-active", "discovering", "standby", "master" };

	return state < ARRAY_SIZE(name) ? name[state] : "unknown";
}

/* An instant as ISO 8601 in UTC: the same on every host that reads it. */
static const char *iso_time(int64_t t, char *buf, size_t size)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (!gmtime_r(&tt, &tm) || !strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(buf, size, "?");
	return buf;
}

static void print_text(FILE *f, const struct ctl_status *s)
{
	char t[32];

	fprintf(f, "loomd %s, up %" PRIu64 " s\n", s->version, s->uptime_s);
	fprintf(f, "SM: %s, priority %u, port GUID 0x%016" PRIx64 "\n",
		ctl_sm_state_name(s->sm_state), s->priority, s->guid);
	if (s->up)
		fprintf(f, "subnet: UP\n");
	else
		fprintf(f, "subnet: not up: %s\n",
			s->why_not[0] ? s->why_not : "no sweep has ended");
	fprintf(f, "other SMs:%s", s->n_others ? "" : " none seen");
	for (unsigned i = 0; i < s->n_others && i < CTL_SMS; i++)
		fprintf(f, "%s 0x%016" PRIx64 " priority %u %s", i ? ";" : "", s->others[i].guid,
			s->others[i].priority, ctl_sm_state_name(s->others[i].state));
	fputc('\n', f);
	fprintf(f, "routing: %s%s%s\n", s->engine ? s->engine : "none has routed the fabric",
		s->refused[0] ? "; refused by " : "", s->refused);
	fprintf(f, "configuration: %s\n", s->config ? s->config : "(defaults)");
	if (s->paused)
		fprintf(f, "sweeps: paused since %s\n", iso_time(s->paused_since, t, sizeof(t)));
	else
		fprintf(f, "sweeps: running\n");
	fprintf(f, "sweeps done: %u heavy, %u light; the last %u:\n", s->heavy, s->light,
		s->n_sweeps);
	for (unsigned i = 0; i < s->n_sweeps && i < CTL_SWEEPS; i++) {
		const struct ctl_sweep *w = &s->sweeps[i];

		fprintf(f, "  %s %-5s %" PRIu32 " nodes, %" PRIu32 " ports, %u changes, %" PRIu64
			" SMPs, %u ms%s\n", iso_time(w->when, t, sizeof(t)),
			w->heavy ? "heavy" : "light", w->nodes, w->ports, w->changes, w->smps,
			w->ms, w->up ? "" : ", not up");
	}
	fprintf(f, "SMPs: %" PRIu64 " sent, %" PRIu64 " retries, %" PRIu64 " timeouts, %" PRIu64
		" failed\n", s->smps, s->smp_retries, s->smp_timeouts, s->smp_failed);
	fprintf(f, "answers dropped: %" PRIu64 " malformed, %" PRIu64 " unexpected, %" PRIu64
		" late\n", s->dropped_malformed, s->dropped_unexpected, s->dropped_late);
	fprintf(f, "SM agent: %" PRIu64 " traps, %" PRIu64 " SMInfo gets\n", s->traps,
		s->sminfo_gets);
	if (s->mkey_on)
		fprintf(f, "M_Key: protect %u, %" PRIu64 " traps 256 (Bad M_Key), %u nodes with "
			"another SM's key (left alone)\n", s->mkey_protect, s->trap256,
			s->mkey_foreign);
	fprintf(f, "SA: %" PRIu64 " requests, %" PRIu64 " answered, %" PRIu64 " refused, %" PRIu64
		" dropped\n", s->sa_requests, s->sa_answered, s->sa_refused, s->sa_dropped);
}

static void json_field_str(FILE *f, const char *key, const char *v)
{
	fprintf(f, "\"%s\": ", key);
	if (v)
		json_str(f, v);
	else
		fputs("null", f);
}

static void print_json(FILE *f, const struct ctl_status *s)
{
	char t[32];

	fputs("{", f);
	json_field_str(f, "version", s->version);
	fprintf(f, ", \"uptime_s\": %" PRIu64 ", \"sm\": {\"state\": \"%s\", \"priority\": %u, "
		"\"guid\": \"0x%016" PRIx64 "\"}", s->uptime_s, ctl_sm_state_name(s->sm_state),
		s->priority, s->guid);
	fprintf(f, ", \"subnet\": {\"up\": %s, ", s->up ? "true" : "false");
	json_field_str(f, "why_not", s->up ? NULL : s->why_not);
	fputs("}, \"other_sms\": [", f);
	for (unsigned i = 0; i < s->n_others && i < CTL_SMS; i++)
		fprintf(f, "%s{\"guid\": \"0x%016" PRIx64 "\", \"priority\": %u, \"state\": \"%s\"}",
			i ? ", " : "", s->others[i].guid, s->others[i].priority,
			ctl_sm_state_name(s->others[i].state));
	fputs("], ", f);
	json_field_str(f, "engine", s->engine);
	fputs(", ", f);
	json_field_str(f, "refused", s->refused[0] ? s->refused : NULL);
	fputs(", ", f);
	json_field_str(f, "config", s->config);
	fprintf(f, ", \"paused\": %s, ", s->paused ? "true" : "false");
	json_field_str(f, "paused_since",
		       s->paused ? iso_time(s->paused_since, t, sizeof(t)) : NULL);
	fprintf(f, ", \"sweeps_heavy\": %u, \"sweeps_light\": %u, \"sweeps\": [", s->heavy,
		s->light);
	for (unsigned i = 0; i < s->n_sweeps && i < CTL_SWEEPS; i++) {
		const struct ctl_sweep *w = &s->sweeps[i];

		fprintf(f, "%s{\"kind\": \"%s\", \"time\": \"%s\", \"nodes\": %" PRIu32
			", \"ports\": %" PRIu32 ", \"changes\": %u, \"smps\": %" PRIu64
			", \"ms\": %u, \"up\": %s}", i ? ", " : "", w->heavy ? "heavy" : "light",
			iso_time(w->when, t, sizeof(t)), w->nodes, w->ports, w->changes, w->smps,
			w->ms, w->up ? "true" : "false");
	}
	fprintf(f, "], \"counters\": {\"smps_sent\": %" PRIu64 ", \"smp_retries\": %" PRIu64
		", \"smp_timeouts\": %" PRIu64 ", \"smp_failed\": %" PRIu64
		", \"dropped_malformed\": %" PRIu64 ", \"dropped_unexpected\": %" PRIu64
		", \"dropped_late\": %" PRIu64 ", \"traps\": %" PRIu64 ", \"sminfo_gets\": %" PRIu64
		", \"sa_requests\": %" PRIu64 ", \"sa_answered\": %" PRIu64
		", \"sa_refused\": %" PRIu64 ", \"sa_dropped\": %" PRIu64
		", \"trap256\": %" PRIu64 "}, \"mkey\": {\"on\": %s, \"protect\": %u"
		", \"foreign_nodes\": %u}}\n",
		s->smps, s->smp_retries, s->smp_timeouts, s->smp_failed, s->dropped_malformed,
		s->dropped_unexpected, s->dropped_late, s->traps, s->sminfo_gets, s->sa_requests,
		s->sa_answered, s->sa_refused, s->sa_dropped, s->trap256,
		s->mkey_on ? "true" : "false", s->mkey_protect, s->mkey_foreign);
}

int ctl_status_print(FILE *f, const struct ctl_status *s, bool json)
{
	if (json)
		print_json(f, s);
	else
		print_text(f, s);
	return ferror(f) ? -EIO : 0;
}
