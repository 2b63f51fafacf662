/* SPDX-License-Identifier: MIT */
/*
 * The counters group: each port's PerfMgt error counters (IBA 16.1.3.5)
 * against a threshold, as ibqueryerrors judges them; PortXmitWait (time a
 * port had data and no credits: congestion, not an error) is a warning.
 */
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
	for (unsigned c = 0; c < _PMA_COUNTER_MAX; c++) {
		uint32_t v = hp->c.v[c], t = in->thresh[c], b;
		bool sat = v == pma_counter_max(c);

		if (in->base && in->base[p].asked) {
			/* What moved since; a counter now lower was reset in between. */
			b = in->base[p].c.v[c];
			if ((v >= b ? v - b : v) <= t)
				continue;
			snprintf(m, sizeof(m), "up %u since (%u, now %u%s)", v >= b ? v - b : v,
				 b, v, sat ? ", saturated" : "");
		} else if (v <= t) {
			continue;
		} else {
			snprintf(m, sizeof(m), "%u%s", v, sat ? " (saturated)" : "");
		}
		snprintf(e, sizeof(e), "at most %u", t);
		health_add(fs, HEALTH_COUNTERS, c == PMA_XMIT_WAIT ? HEALTH_WARNING : HEALTH_ERROR,
			   in->sn, sp->node, sp->num, pma_counter_name(c), m, e, NULL);
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
