/* SPDX-License-Identifier: MIT */
/*
 * Flap damping (flap.h). Only links that changed within the window, or are
 * damped, are tracked: a handful on a sick fabric, none on a healthy one,
 * so they live in a plain array searched in order.
 *
 * Why changes and not down-and-up pairs: a heavy sweep sees a state, not
 * the bounces between two sweeps, so a whole bounce may go unseen, or only
 * its down. Each change a sweep sees is counted once: the same change
 * named again (a sweep that failed after counting it never became the
 * model the next one compares with) is not another.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cleanup.h"
#include "model/diff.h"
#include "loomd/flap.h"

void flap_init(struct flap *f, const struct flap_opts *o)
{
	memset(f, 0, sizeof(*f));
	f->o = *o;
}

void flap_free(struct flap *f)
{
	free(f->l);
	f->l = NULL;
	f->n = f->cap = 0;
}

void flap_opts_from(struct flap_opts *o, const struct config *c)
{
	*o = (struct flap_opts){ 0 };
	if (!c)
		return; /* no configuration at all: nothing to damp by */
	*o = (struct flap_opts){ .flaps = c->sm.flap.flaps, .window_ms = c->sm.flap.window_us / 1000,
				 .hold_ms = c->sm.flap.hold_us / 1000 };
}

static bool key_eq(const struct flap_key *a, const struct flap_key *b)
{
	return a->guid[0] == b->guid[0] && a->guid[1] == b->guid[1] &&
	       a->port[0] == b->port[0] && a->port[1] == b->port[1];
}

static struct flap_link *flap_find(const struct flap *f, const struct flap_key *k)
{
	for (uint32_t i = 0; i < f->n; i++)
		if (key_eq(&f->l[i].k, k))
			return &f->l[i];
	return NULL;
}

bool flap_damped(const struct flap *f, const struct flap_key *k)
{
	const struct flap_link *l = flap_find(f, k);

	return l && l->damped;
}

static struct flap_link *flap_add(struct flap *f, const struct flap_key *k)
{
	if (f->n == f->cap) {
		uint32_t cap = f->cap ? 2 * f->cap : 8;
		struct flap_link *l = realloc(f->l, cap * sizeof(*l));

		if (!l)
			return NULL;
		f->l = l;
		f->cap = cap;
	}
	f->l[f->n] = (struct flap_link){ .k = *k };
	return &f->l[f->n++];
}

/* The link between ports a and b of sn, lower (NodeGUID, port) first. */
static struct flap_key flap_key_of(const struct subnet *sn, uint32_t a, uint32_t b)
{
	uint64_t ga = sn->node[sn->port[a].node].guid, gb = sn->node[sn->port[b].node].guid;
	uint8_t na = sn->port[a].num, nb = sn->port[b].num;

	if (ga > gb || (ga == gb && na > nb))
		return (struct flap_key){ { gb, ga }, { nb, na } };
	return (struct flap_key){ { ga, gb }, { na, nb } };
}

/* The port index of the link's first end when sn has the link, else SUBNET_NONE. */
static uint32_t flap_linked(const struct subnet *sn, const struct flap_key *k)
{
	uint32_t n = subnet_find_guid(sn, k->guid[0]), pi, q;

	if (n == SUBNET_NONE || k->port[0] > sn->node[n].nports)
		return SUBNET_NONE;
	pi = subnet_port_idx(sn, n, k->port[0]);
	q = sn->port[pi].peer;
	if (q == SUBNET_NONE || sn->port[q].num != k->port[1] ||
	    sn->node[sn->port[q].node].guid != k->guid[1])
		return SUBNET_NONE;
	return pi;
}

static void flap_record(struct flap_link *l, uint64_t now, bool up)
{
	if (l->n_change && l->last_up == up)
		return;
	l->last_up = up;
	l->change[l->head] = now;
	l->head = (l->head + 1) % (CONFIG_FLAPS_MAX + 1);
	if (l->n_change < CONFIG_FLAPS_MAX + 1)
		l->n_change++;
}

/* Changes seen less than window ago. */
static unsigned flap_recent(const struct flap_link *l, uint64_t now, uint64_t window)
{
	unsigned n = 0;

	for (unsigned i = 0; i < l->n_change; i++)
		if (now - l->change[i] < window)
			n++;
	return n;
}

/* 'switch 0x... "desc" port 3': a node of sn if it still has it, else the GUID alone. */
static int end_str(const struct subnet *sn, uint64_t guid, unsigned port, char *buf, size_t len)
{
	uint32_t n = subnet_find_guid(sn, guid);

	if (n == SUBNET_NONE)
		return snprintf(buf, len, "node 0x%016" PRIx64 " port %u", guid, port);
	return snprintf(buf, len, "%s 0x%016" PRIx64 " \"%s\" port %u",
			subnet_type_name(sn->node[n].type), guid, subnet_str(sn, sn->node[n].desc),
			port);
}

static const char *flap_link_str(const struct subnet *sn, const struct flap_key *k, char *buf,
				 size_t len)
{
	int off = end_str(sn, k->guid[0], k->port[0], buf, len);

	if (off >= 0 && (size_t)off < len)
		off += snprintf(buf + off, len - (size_t)off, " <-> ");
	if (off >= 0 && (size_t)off < len)
		end_str(sn, k->guid[1], k->port[1], buf + off, len - (size_t)off);
	return buf;
}

/* "20s" or "1500ms": as the configuration would say it. */
static const char *ms_str(uint64_t ms, char *buf, size_t len)
{
	if (ms % 1000)
		snprintf(buf, len, "%" PRIu64 "ms", ms);
	else
		snprintf(buf, len, "%" PRIu64 "s", ms / 1000);
	return buf;
}

/* Damped links: are they there, and has one been up long enough to go back? */
static void flap_watch(struct flap *f, const struct subnet *raw, uint64_t now,
		       struct flap_report *rep, struct diag *msgs)
{
	char name[320], hold[32];

	for (uint32_t i = 0; i < f->n; i++) {
		struct flap_link *l = &f->l[i];
		bool present;

		if (!l->damped)
			continue;
		present = flap_linked(raw, &l->k) != SUBNET_NONE;
		if (present != l->present) {
			flap_record(l, now, present);
			l->present = present;
			l->up_since = now;
		}
		if (f->o.flaps && !(present && now - l->up_since >= f->o.hold_ms))
			continue;
		l->damped = l->cut = false;
		rep->released++;
		if (f->o.flaps)
			diag_msg(msgs, "link released: %s: up for %s; routed again",
				 flap_link_str(raw, &l->k, name, sizeof(name)),
				 ms_str(f->o.hold_ms, hold, sizeof(hold)));
		else
			diag_msg(msgs, "link released: %s: flap damping is off; routed again%s",
				 flap_link_str(raw, &l->k, name, sizeof(name)),
				 present ? "" : " when it comes up");
		/* Back in the model, it shows as a link up: that is the release, not a flap. */
		l->released = true;
	}
}

struct flap_ctx {
	struct flap *f;
	const struct subnet *prev, *raw;
	uint64_t now;
	struct flap_report *rep;
	struct diag *msgs;
	int err;
};

/* A link down or up since the last sweep: count it, and damp it past o.flaps. */
static void flap_on_change(void *arg, const struct diff_event *ev)
{
	struct flap_ctx *c = arg;
	const struct subnet *sn = ev->kind == DIFF_LINK_DOWN ? c->prev : c->raw;
	struct flap_key k;
	struct flap_link *l;
	char name[320], hold[32], win[32];
	unsigned n;

	if (!c->f->o.flaps || (ev->kind != DIFF_LINK_DOWN && ev->kind != DIFF_LINK_UP))
		return; /* off: nothing to count for */
	k = flap_key_of(sn, ev->a, ev->b);
	l = flap_find(c->f, &k);
	if (!l)
		l = flap_add(c->f, &k);
	if (!l) {
		c->err = -ENOMEM;
		return;
	}
	/* A damped link's changes are flap_watch's; the prev model never had it. */
	if (l->damped || l->released)
		return;
	flap_record(l, c->now, ev->kind == DIFF_LINK_UP);
	n = flap_recent(l, c->now, c->f->o.window_ms);
	if (n <= c->f->o.flaps)
		return;
	l->damped = true;
	l->present = ev->kind == DIFF_LINK_UP;
	l->up_since = c->now;
	c->rep->damped++;
	diag_msg(c->msgs, "link damped: %s: %u changes in %s; kept out of the routes until it "
		 "has been up for %s", flap_link_str(sn, &k, name, sizeof(name)), n,
		 ms_str(c->f->o.window_ms, win, sizeof(win)),
		 ms_str(c->f->o.hold_ms, hold, sizeof(hold)));
}

/* Nodes of sn reached from node 0 (the SM's) over links. */
static int flap_reached(const struct subnet *sn, uint32_t *count)
{
	_cleanup_free_ uint32_t *q = malloc(sn->n_nodes * sizeof(*q) + 1);
	_cleanup_free_ bool *seen = calloc(sn->n_nodes + 1, sizeof(*seen));
	uint32_t head = 0, tail = 0;

	if (!q || !seen)
		return -ENOMEM;
	if (sn->n_nodes) {
		q[tail++] = 0;
		seen[0] = true;
	}
	while (head < tail) {
		const struct subnet_node *nd = &sn->node[q[head++]];

		for (unsigned num = 0; num <= nd->nports; num++) {
			uint32_t peer = sn->port[nd->port_base + num].peer, m;

			if (peer == SUBNET_NONE)
				continue;
			m = sn->port[peer].node;
			if (!seen[m]) {
				seen[m] = true;
				q[tail++] = m;
			}
		}
	}
	*count = tail;
	return 0;
}

/* Damped links out of raw, one at a time, each only if every node is still reached. */
static int flap_apply(struct flap *f, struct subnet *raw, struct flap_report *rep,
		      struct diag *msgs)
{
	char name[320];
	uint32_t all, now_reached;
	int r = flap_reached(raw, &all);

	for (uint32_t i = 0; i < f->n && r == 0; i++) {
		struct flap_link *l = &f->l[i];
		uint32_t a = l->damped ? flap_linked(raw, &l->k) : SUBNET_NONE, b;

		if (a == SUBNET_NONE)
			continue;
		b = raw->port[a].peer;
		subnet_unlink(raw, a);
		r = flap_reached(raw, &now_reached);
		if (r == 0 && now_reached == all) {
			rep->out++;
			l->cut = false;
			continue;
		}
		subnet_link(raw, a, b);
		if (r == 0 && !l->cut)
			diag_msg(msgs, "link damped but still routed: %s: without it %u nodes are "
				 "cut off from the SM", flap_link_str(raw, &l->k, name, sizeof(name)),
				 all - now_reached);
		l->cut = true;
	}
	return r;
}

/* Forget links that are routed and have not changed within the window. */
static void flap_prune(struct flap *f, uint64_t now)
{
	for (uint32_t i = 0; i < f->n;) {
		struct flap_link *l = &f->l[i];

		l->released = false;
		if (l->damped || flap_recent(l, now, f->o.window_ms)) {
			i++;
			continue;
		}
		f->l[i] = f->l[--f->n];
	}
}

int flap_sweep(struct flap *f, const struct subnet *prev, struct subnet *raw, uint64_t now,
	       struct flap_report *rep, struct diag *msgs)
{
	struct flap_ctx c = { f, prev, raw, now, rep, msgs, 0 };
	int r;

	*rep = (struct flap_report){ 0 };
	flap_watch(f, raw, now, rep, msgs);
	/* The first sweep finds every link new: none of them has changed. */
	if (prev)
		diff_models(prev, raw, flap_on_change, &c);
	r = c.err ? c.err : flap_apply(f, raw, rep, msgs);
	flap_prune(f, now);
	return r;
}

uint64_t flap_due(const struct flap *f)
{
	uint64_t due = UINT64_MAX;

	for (uint32_t i = 0; i < f->n; i++) {
		const struct flap_link *l = &f->l[i];

		if (!l->damped)
			continue;
		if (!f->o.flaps)
			return 0;
		if (l->present && l->up_since + f->o.hold_ms < due)
			due = l->up_since + f->o.hold_ms;
	}
	return due;
}
