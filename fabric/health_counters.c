/* SPDX-License-Identifier: MIT */
/*
 * The counters group: each port's PerfMgt error counters (IBA 16.1.3.5)
 * against a threshold, as ibqueryerrors judges them; PortXmitWait (time a
 * port had data and no credits: congestion, not an error) is a warning.
 * A counter at its largest value is saturated: 65535 and the like in
 * PortCounters, never in practice for the 64-bit ones of a port with the
 * additional PortCountersExtended. With --since, one saturated then and now
 * is a warning: what it counted in between is lost, so it cannot be judged.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "fabric/health.h"

void health_thresholds_default(uint32_t t[_PMA_COUNTER_MAX])
{
	for (unsigned c = 0; c < _PMA_COUNTER_MAX; c++)
		t[c] = pma_counter_threshold(c);
}

static void judge_port(const struct health_input *in, struct health_findings *fs, uint32_t p)
{
	const struct health_pma_port *hp = &in->pma[p];
	const struct subnet_port *sp = &in->sn->port[p];
	char m[HEALTH_TEXT], e[HEALTH_TEXT];

	if (hp->status < 0) {
		snprintf(m, sizeof(m), "no PortCounters: %s", strerror(-hp->status));
		health_add(fs, HEALTH_COUNTERS, HEALTH_ERROR, in->sn, sp->node, sp->num, "pma", m,
			   "an answer from its PMA", "the port is up and has a LID");
		return;
	}
	if (hp->ci_status < 0) {
		snprintf(m, sizeof(m), "no ClassPortInfo: %s", strerror(-hp->ci_status));
		health_add(fs, HEALTH_COUNTERS, HEALTH_WARNING, in->sn, sp->node, sp->num,
			   "pma class", m, "an answer from its PMA",
			   "read as PortCounters only, 32-bit data counters");
	} else if (hp->ext_asked && hp->ext_status < 0) {
		snprintf(m, sizeof(m), "no PortCountersExtended: %s", strerror(-hp->ext_status));
		health_add(fs, HEALTH_COUNTERS, HEALTH_WARNING, in->sn, sp->node, sp->num,
			   "pma extended", m, "an answer (ClassPortInfo says it has them)",
			   "read as PortCounters only, 32-bit data counters");
	}
	for (unsigned c = 0; c < _PMA_COUNTER_MAX; c++) {
		uint64_t v = hp->c.v[c], b;
		uint32_t t = in->thresh[c];
		bool sat = pma_saturated(&hp->c, c);
		const char *detail = NULL;
		enum health_severity sev = c == PMA_XMIT_WAIT ? HEALTH_WARNING : HEALTH_ERROR;

		if (in->base && in->base[p].asked) {
			/* What moved since; a counter now lower was reset in between. */
			b = in->base[p].c.v[c];
			if (sat && v == b) {
				/*
				 * Stuck at its largest value then and now: what it
				 * counted since is lost, so it cannot be judged healthy.
				 */
				snprintf(m, sizeof(m), "saturated then and now (%" PRIu64 ")", v);
				detail = "how much it moved since is unknown: clear the counters "
					 "(--reset) to count again";
				sev = HEALTH_WARNING; /* not judged, rather than judged bad */
			} else if ((v >= b ? v - b : v) <= t) {
				continue;
			} else {
				snprintf(m, sizeof(m), "up %" PRIu64 " since (%" PRIu64 ", now %" PRIu64
					 "%s)", v >= b ? v - b : v, b, v, sat ? ", saturated" : "");
			}
		} else if (v <= t) {
			continue;
		} else {
			snprintf(m, sizeof(m), "%" PRIu64 "%s", v, sat ? " (saturated)" : "");
		}
		snprintf(e, sizeof(e), "at most %" PRIu32, t);
		health_add(fs, HEALTH_COUNTERS, sev, in->sn, sp->node, sp->num, pma_counter_name(c),
			   m, e, detail);
	}
}

void health_counters_judge(const struct health_input *in, struct health_findings *fs)
{
	if (!in->pma || !in->thresh)
		return;
	for (uint32_t p = 0; p < in->sn->n_ports; p++)
		if (in->pma[p].asked)
			judge_port(in, fs, p);
}
