/* SPDX-License-Identifier: MIT */
/*
 * The drift group: the live fabric against --expect (a topology file), by
 * model/diff.c's diff_models() from the file's model to the swept one (nodes
 * by NodeGUID, ports by number). A cable moved to another port shows there
 * as a link down and a link up with one end in common: paired, it is one
 * "moved" finding on that end. A link down between two nodes both present
 * is the links group's "missing link" (it knows the port's state), not
 * repeated here; a link to a node missing or extra is that node's finding.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/health.h"
#include "model/diff.h"

struct drift {
	const struct subnet *ex, *sn;
	struct diff_event *ev;
	unsigned n, cap;
	int err;
};

static void on_event(void *arg, const struct diff_event *ev)
{
	struct drift *d = arg;

	if (d->n == d->cap) {
		unsigned cap = d->cap ? 2 * d->cap : 16;
		struct diff_event *p = realloc(d->ev, cap * sizeof(*p));

		if (!p) {
			d->err = -ENOMEM;
			return;
		}
		d->ev = p;
		d->cap = cap;
	}
	d->ev[d->n++] = *ev;
}

/* The node of sn with the NodeGUID of port p's node in from (SUBNET_NONE if none). */
static uint32_t other_node(const struct subnet *from, uint32_t p, const struct subnet *sn)
{
	return subnet_find_guid(sn, from->node[from->port[p].node].guid);
}

/* Both ends of link event ev (ports of m) are nodes of other too. */
static bool ends_in(const struct subnet *m, const struct diff_event *ev, const struct subnet *other)
{
	return other_node(m, ev->a, other) != SUBNET_NONE &&
	       other_node(m, ev->b, other) != SUBNET_NONE;
}

/* Same port: same NodeGUID and port number, x a port of mx, y of my. */
static bool same_port(const struct subnet *mx, uint32_t x, const struct subnet *my, uint32_t y)
{
	return mx->node[mx->port[x].node].guid == my->node[my->port[y].node].guid &&
	       mx->port[x].num == my->port[y].num;
}

/* '"spine001" 0x0002c90300000001 port 1' */
static void port_str(const struct subnet *m, uint32_t p, char *buf, size_t len)
{
	const struct subnet_node *n = &m->node[m->port[p].node];

	snprintf(buf, len, "\"%s\" 0x%016" PRIx64 " port %u", subnet_str(m, n->desc), n->guid,
		 m->port[p].num);
}

/*
 * Down (of the file) and up (of the fabric) share an end: the cable at that
 * end was moved from the down's far end to the up's. Named on the common end.
 */
static bool try_moved(const struct drift *d, const struct diff_event *dn,
		      const struct diff_event *up, struct health_findings *fs)
{
	const uint32_t de[2] = { dn->a, dn->b }, ue[2] = { up->a, up->b };
	char m[HEALTH_TEXT], e[HEALTH_TEXT], x[3 * HEALTH_TEXT], y[3 * HEALTH_TEXT];
	char det[6 * HEALTH_TEXT];

	for (unsigned i = 0; i < 2; i++)
		for (unsigned j = 0; j < 2; j++) {
			uint32_t c = ue[j]; /* the common end, in the fabric */

			if (!same_port(d->ex, de[i], d->sn, c))
				continue;
			port_str(d->sn, ue[1 - j], m, sizeof(m));
			port_str(d->ex, de[1 - i], e, sizeof(e));
			diff_event_str(d->ex, d->sn, dn, x, sizeof(x));
			diff_event_str(d->ex, d->sn, up, y, sizeof(y));
			snprintf(det, sizeof(det), "expected %s; found %s", x + strlen("link down: "),
				 y + strlen("link up: "));
			health_add(fs, HEALTH_DRIFT, HEALTH_ERROR, d->sn, d->sn->port[c].node,
				   d->sn->port[c].num, "moved cable", m, e, det);
			return true;
		}
	return false;
}

/* A node of the file the fabric does not have: named from the file. */
static void node_gone(const struct drift *d, uint32_t node, struct health_findings *fs)
{
	const struct subnet_node *n = &d->ex->node[node];
	char e[HEALTH_TEXT];
	uint32_t had = fs->n;

	snprintf(e, sizeof(e), "\"%s\" 0x%016" PRIx64, subnet_str(d->ex, n->desc), n->guid);
	health_add(fs, HEALTH_DRIFT, HEALTH_ERROR, d->sn, SUBNET_NONE, 0, "missing node",
		   "not in the fabric", e, "a node of the expected topology (NodeGUID not found)");
	if (fs->n > had)
		fs->f[had].guid = n->guid; /* the file's GUID: the fabric has no such node */
}

/* Links up that no link down pairs with, between nodes the file has: extra cables. */
static void extra_links(const struct drift *d, const bool *paired, struct health_findings *fs)
{
	char m[HEALTH_TEXT];

	for (unsigned i = 0; i < d->n; i++) {
		const struct diff_event *ev = &d->ev[i];

		if (ev->kind != DIFF_LINK_UP || paired[i] || !ends_in(d->sn, ev, d->ex))
			continue;
		port_str(d->sn, ev->b, m, sizeof(m));
		health_add(fs, HEALTH_DRIFT, HEALTH_WARNING, d->sn, d->sn->port[ev->a].node,
			   d->sn->port[ev->a].num, "extra link", m,
			   "not linked, as the expected topology says", NULL);
	}
}

static void judge_events(const struct drift *d, bool *paired, struct health_findings *fs)
{
	for (unsigned i = 0; i < d->n; i++) {
		const struct diff_event *ev = &d->ev[i];

		switch (ev->kind) {
		case DIFF_NODE_GONE:
			node_gone(d, ev->a, fs);
			break;
		case DIFF_NODE_NEW:
			health_add(fs, HEALTH_DRIFT, HEALTH_WARNING, d->sn, ev->a, 0, "extra node",
				   "in the fabric", "not in the expected topology", NULL);
			break;
		case DIFF_LINK_DOWN:
			if (!ends_in(d->ex, ev, d->sn))
				break; /* the missing node's finding says it */
			for (unsigned j = 0; j < d->n; j++)
				if (d->ev[j].kind == DIFF_LINK_UP && !paired[j] &&
				    ends_in(d->sn, &d->ev[j], d->ex) &&
				    try_moved(d, ev, &d->ev[j], fs)) {
					paired[j] = true;
					break;
				}
			break;
		default:
			break;
		}
	}
	extra_links(d, paired, fs);
}

void health_drift_judge(const struct health_input *in, struct health_findings *fs)
{
	struct drift d = { .ex = in->expect, .sn = in->sn };
	bool *paired;

	if (!in->expect)
		return;
	diff_models(in->expect, in->sn, on_event, &d);
	paired = calloc(d.n ? d.n : 1, sizeof(*paired));
	if (d.err || !paired) {
		fs->err = -ENOMEM;
		free(paired);
		free(d.ev);
		return;
	}
	judge_events(&d, paired, fs);
	free(paired);
	free(d.ev);
}
