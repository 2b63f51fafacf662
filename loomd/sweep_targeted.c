/* SPDX-License-Identifier: MIT */
/*
 * Targeted sweeps: a trap 128 or a light sweep that saw PortStateChange says
 * which switches saw a port change; only those are read again (disc_part()),
 * and the model built from the last one and what they said is planned and
 * programmed as a heavy sweep's is (only the blocks that differ are sent).
 * Whatever the part cannot explain, and a timer for lost traps, make the
 * sweep a heavy one.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "loomd/sweep.h"

#define LOST_BIT 0x80000000u /* in sweeper.dirty: the switch did not answer */

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

uint64_t sweep_heavy_at_us(const struct sweeper *s)
{
	return s->o.heavy_ms && s->sn ? (s->heavy_at_ms + s->o.heavy_ms) * 1000 : UINT64_MAX;
}

bool sweep_heavy_due(const struct sweeper *s, uint64_t now_us)
{
	return now_us >= sweep_heavy_at_us(s);
}

void sweep_dirty_add(struct sweeper *s, uint32_t node, bool lost)
{
	uint32_t v = node | (lost ? LOST_BIT : 0);

	for (uint32_t i = 0; i < s->n_dirty; i++)
		if (s->dirty[i] == v)
			return;
	if (s->n_dirty == s->cap_dirty) {
		uint32_t cap = s->cap_dirty ? 2 * s->cap_dirty : 16;
		uint32_t *p = realloc(s->dirty, cap * sizeof(*p));

		if (!p) {
			s->dirty_lost = true; /* a heavy sweep then reads it all */
			return;
		}
		s->dirty = p;
		s->cap_dirty = cap;
	}
	s->dirty[s->n_dirty++] = v;
}

void sweep_dirty_clear(struct sweeper *s, uint64_t at_ms)
{
	s->n_dirty = 0;
	s->dirty_lost = false;
	s->agent->n_trap_lids = 0;
	s->agent->trap_lids_lost = false;
	s->heavy_at_ms = at_ms;
}

void sweep_keep_gone(struct sweeper *s, const struct subnet *sn)
{
	bool lost = false;

	for (uint32_t n = 0; s->sn && !lost && n < s->sn->n_nodes; n++)
		lost = subnet_find_guid(sn, s->sn->node[n].guid) == SUBNET_NONE;
	/* Nothing left: what an earlier event cut off is still remembered. */
	if (lost || s->takeover) {
		subnet_free(s->gone_sn);
		disc_live_free(&s->gone_live);
		s->gone_sn = NULL;
		memset(&s->gone_live, 0, sizeof(s->gone_live));
	}
	if (lost && !s->takeover) {
		s->gone_sn = s->sn;
		s->gone_live = s->live;
	} else {
		subnet_free(s->sn);
		disc_live_free(&s->live);
	}
	s->sn = NULL;
	memset(&s->live, 0, sizeof(s->live));
}

/* The switch whose LID (port 0's) is lid, or SUBNET_NONE. */
static uint32_t switch_by_lid(const struct subnet *sn, uint16_t lid)
{
	for (uint32_t n = 0; n < sn->n_nodes; n++)
		if (subnet_is_switch(sn, n) && sn->port[sn->node[n].port_base].lid == lid)
			return n;
	return SUBNET_NONE;
}

struct part {
	uint32_t *read;   /* switches to read again */
	uint32_t n_read;
	uint32_t *lost;   /* switches that did not answer a light sweep */
	uint32_t n_lost;
};

static void part_free(struct part *p)
{
	free(p->read);
	free(p->lost);
}

/*
 * The part to read from what the light sweeps and traps said, then
 * forgotten (a trap during the sweep asks for the next one). 0, or
 * -EAGAIN with why: the whole fabric must be read.
 */
static int take_part(struct sweeper *s, struct part *p, char *why, size_t len)
{
	struct agent *a = s->agent;
	uint32_t max = s->n_dirty + a->n_trap_lids;
	int r = 0;

	p->read = calloc(max ? max : 1, sizeof(*p->read));
	p->lost = calloc(max ? max : 1, sizeof(*p->lost));
	if (!p->read || !p->lost)
		return -ENOMEM;
	for (uint32_t i = 0; i < s->n_dirty; i++) {
		if (s->dirty[i] & LOST_BIT)
			p->lost[p->n_lost++] = s->dirty[i] & ~LOST_BIT;
		else
			p->read[p->n_read++] = s->dirty[i];
	}
	if (s->dirty_lost || a->trap_lids_lost) {
		snprintf(why, len, "more reporters than loomd kept");
		r = -EAGAIN;
	}
	/*
	 * A LID no switch of the last sweep has: a switch that sweep dropped
	 * (its trap came late), or one that is new, which its neighbours' port
	 * changes reveal (their traps, or the light sweep's PortStateChange).
	 */
	for (unsigned i = 0; i < a->n_trap_lids && r == 0; i++) {
		uint32_t n = switch_by_lid(s->sn, a->trap_lid[i]);

		if (n != SUBNET_NONE)
			p->read[p->n_read++] = n;
	}
	/* Only traps from LIDs gone: nothing to read, the plan is made again as it was. */
	if (r == 0 && !p->n_read && (p->n_lost || !a->n_trap_lids)) {
		snprintf(why, len, "%s", p->n_lost ? "a switch did not answer, none reported" : "");
		r = -EAGAIN;
	}
	s->n_dirty = 0;
	s->dirty_lost = false;
	a->n_trap_lids = 0;
	a->trap_lids_lost = false;
	return r;
}

/* A switch that did not answer the light sweep must be gone from the part's model. */
static bool lost_explained(const struct sweeper *s, const struct part *p,
			   const struct subnet *sn, char *why, size_t len)
{
	for (uint32_t i = 0; i < p->n_lost; i++) {
		uint32_t n = p->lost[i];

		if (n < s->sn->n_nodes && subnet_find_guid(sn, s->sn->node[n].guid) != SUBNET_NONE) {
			snprintf(why, len, "switch 0x%016" PRIx64 " did not answer but is still "
				 "reachable", s->sn->node[n].guid);
			return false;
		}
	}
	return true;
}

/* The far end of port p of node n: its node's GUID and its number (0: none). */
static uint64_t peer_of(const struct subnet *sn, uint32_t n, unsigned p, uint8_t *num)
{
	uint32_t peer = sn->port[subnet_port_idx(sn, n, p)].peer;

	*num = peer == SUBNET_NONE ? 0 : sn->port[peer].num;
	return peer == SUBNET_NONE ? 0 : sn->node[sn->port[peer].node].guid;
}

/* Ports of sn on nodes old lacks, or whose links differ: their tables are programmed. */
static bool *touched(const struct subnet *old, const struct subnet *sn)
{
	bool *t = calloc(sn->n_ports ? sn->n_ports : 1, sizeof(*t));

	for (uint32_t n = 0; t && n < sn->n_nodes; n++) {
		uint32_t o = subnet_find_guid(old, sn->node[n].guid);
		bool new = o == SUBNET_NONE || old->node[o].nports != sn->node[n].nports;

		for (unsigned p = 0; p <= sn->node[n].nports; p++) {
			uint8_t a = 0, b = 0;

			t[subnet_port_idx(sn, n, p)] = new ||
				(p && (peer_of(old, o, p, &a) != peer_of(sn, n, p, &b) || a != b));
		}
	}
	return t;
}

/* disc_part() and the rest as a heavy sweep: 0, -EAGAIN (why: read it all), -errno. */
static int targeted(struct sweeper *s, const struct part *p, struct sweep_stats *st,
		    struct diag *msgs, char *why, size_t len)
{
	struct disc_report drep = { .msgs.limit = DISC_MAX_MSGS };
	struct disc_live live = { 0 };
	struct subnet *sn = NULL;
	int r;

	r = disc_part(s->x, s->sn, &s->live, s->gone_sn, s->gone_sn ? &s->gone_live : NULL,
		      p->read, p->n_read, &sn, &live, &drep);
	if (r == 0 && drep.timeouts + drep.errors + drep.conflicts + drep.dups) {
		snprintf(why, len, "%u requests unanswered, %u refused, %u contradictions, "
			 "%u duplicate GUIDs", drep.timeouts, drep.errors, drep.conflicts, drep.dups);
		r = -EAGAIN;
	} else if (r < 0 && r != -ENOMEM) {
		snprintf(why, len, "%s", strerror(-r));
		r = -EAGAIN;
	}
	if (r == 0 && !lost_explained(s, p, sn, why, len))
		r = -EAGAIN;
	for (unsigned i = 0; r == -EAGAIN && i < drep.msgs.n; i++)
		diag_msg(msgs, "targeted sweep: %s", drep.msgs.msg[i]);
	disc_report_free(&drep);
	if (r < 0) {
		subnet_free(sn);
		disc_live_free(&live);
		return r;
	}
	bool *only = touched(s->sn, sn);

	if (!only) {
		subnet_free(sn);
		disc_live_free(&live);
		return -ENOMEM;
	}
	s->only = only;
	r = sweep_apply(s, sn, &live, st, msgs);
	s->only = NULL;
	free(only);
	return r;
}

int sweep_event(struct sweeper *s, struct sweep_stats *st, struct diag *msgs)
{
	uint64_t t0 = now_ms(), sent0 = txn_stats(s->x)->sent;
	struct part p = { 0 };
	char why[160] = "";
	int r;

	txn_forget_gone(s->x); /* a node gone in the last sweep may be back */
	/*
	 * A sweep that fell short only in programming (a switch cut off while
	 * it was being programmed) is followed by a targeted one: the traps
	 * of what cut it off say where to read.
	 */
	if (!s->sn || (!s->up && !s->short_prog) || s->force_heavy ||
	    sweep_heavy_due(s, t0 * 1000)) {
		s->force_heavy = false;
		return sweep_heavy(s, st, msgs);
	}
	memset(st, 0, sizeof(*st));
	st->heavy = st->targeted = true;
	r = take_part(s, &p, why, sizeof(why));
	if (r == 0)
		r = targeted(s, &p, st, msgs, why, sizeof(why));
	part_free(&p);
	if (r == -EAGAIN) {
		if (why[0])
			diag_msg(msgs, "targeted sweep: %s; sweeping the whole fabric", why);
		/* As loomd.c does before a sweep: a trap during this one asks for the next. */
		s->agent->resweep = false;
		r = sweep_heavy(s, st, msgs);
		/* Its SMPs and time are the event's: the part's are counted in. */
		st->smps = txn_stats(s->x)->sent - sent0;
		st->ms = (unsigned)(now_ms() - t0);
		return r;
	}
	if (r < 0)
		return r;
	s->targeted++;
	st->smps = txn_stats(s->x)->sent - sent0;
	st->ms = (unsigned)(now_ms() - t0);
	return 0;
}
