/* SPDX-License-Identifier: MIT */
/*
 * The cache of fabric/prog.h: node GUID -> its LFT as last programmed, its
 * SL-to-VL and VL arbitration tables as last read or set; which nodes
 * look reset since the last model, their tables to be read again; and
 * which no SM has configured, their tables to be set without a read.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/array.h"
#include "lib/itab.h"
#include "fabric/prog_priv.h"

int prog_cache_new(struct prog_cache **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

static void qos_tab_free(struct prog_qos_tab *t)
{
	if (!t)
		return;
	free(t->sl2vl);
	free(t->vlarb);
	free(t->sl2vl_known);
	free(t->vlarb_known);
	free(t);
}

void prog_cache_free(struct prog_cache *c)
{
	if (!c)
		return;
	for (uint32_t i = 0; i < c->n; i++) {
		free(c->e[i].lft);
		free(c->e[i].known);
		qos_tab_free(c->e[i].qos);
	}
	free(c->e);
	itab_free(&c->by_guid);
	free(c);
}

static uint64_t entry_hash(uint32_t idx, const void *ctx)
{
	const struct prog_cache *c = ctx;

	return itab_hash_u64(c->e[idx].guid);
}

static bool entry_eq(uint32_t idx, const void *key, const void *ctx)
{
	const struct prog_cache *c = ctx;

	return c->e[idx].guid == *(const uint64_t *)key;
}

struct prog_lft *prog_cache_find(struct prog_cache *c, uint64_t guid)
{
	uint32_t i = itab_find(&c->by_guid, itab_hash_u64(guid), &guid, entry_eq, c);

	return i == ITAB_EMPTY ? NULL : &c->e[i];
}

/* The entry for guid, created empty (len 0) if new; NULL on ENOMEM. */
struct prog_lft *prog_cache_get(struct prog_cache *c, uint64_t guid)
{
	struct prog_lft *e = prog_cache_find(c, guid);

	if (e)
		return e;
	if (array_grow((void **)&c->e, &c->cap, c->n + 1, sizeof(*c->e)) < 0)
		return NULL;
	e = &c->e[c->n];
	memset(e, 0, sizeof(*e));
	e->guid = guid;
	if (itab_insert(&c->by_guid, itab_hash_u64(guid), c->n, entry_hash, c) < 0)
		return NULL;
	c->n++;
	return e;
}

/* Make room for LIDs 0..len-1; new entries are unknown. */
int prog_lft_size(struct prog_lft *e, uint32_t len)
{
	uint8_t *p, *k;

	if (len <= e->len)
		return 0;
	p = realloc(e->lft, len);
	k = realloc(e->known, len / SMP_LFT_BLOCK + 1);
	if (p)
		e->lft = p;
	if (k)
		e->known = k;
	if (!p || !k)
		return -ENOMEM;
	memset(e->lft + e->len, ROUTE_DROP, len - e->len);
	memset(e->known + e->len / SMP_LFT_BLOCK, 0,
	       len / SMP_LFT_BLOCK + 1 - e->len / SMP_LFT_BLOCK);
	e->len = len;
	return 0;
}

int prog_cache_lft(const struct prog_cache *c, uint64_t guid, const uint8_t **lft,
		   uint32_t *len)
{
	/* itab_find takes a non-const context; the lookup writes nothing. */
	struct prog_lft *e = prog_cache_find((struct prog_cache *)c, guid);

	if (!e || !e->len)
		return -ENOENT;
	*lft = e->lft;
	*len = e->len;
	return 0;
}

struct prog_qos_tab *prog_qos_tab(struct prog_lft *e, uint8_t nports)
{
	size_t pairs = ((size_t)nports + 1) * ((size_t)nports + 1), ports = ((size_t)nports + 1) * 2;
	struct prog_qos_tab *t = e->qos;

	if (t && t->nports == nports)
		return t;
	qos_tab_free(t);
	e->qos = t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->nports = nports;
	t->sl2vl = calloc(pairs, sizeof(*t->sl2vl));
	t->vlarb = calloc(ports, sizeof(*t->vlarb));
	t->sl2vl_known = calloc(pairs, 1);
	t->vlarb_known = calloc(ports, 1);
	if (!t->sl2vl || !t->vlarb || !t->sl2vl_known || !t->vlarb_known) {
		qos_tab_free(t);
		e->qos = NULL;
	}
	return e->qos;
}

void prog_cache_forget(struct prog_cache *c, uint64_t guid)
{
	struct prog_lft *e = prog_cache_find(c, guid);

	if (!e)
		return;
	if (e->known)
		memset(e->known, 0, e->len / SMP_LFT_BLOCK + 1);
	qos_tab_free(e->qos);
	e->qos = NULL;
}

/* A port that was Active in the last model and is not now (or is gone). */
static bool port_dropped(const struct disc_live *was_live, uint32_t old,
			 const struct disc_live *live, uint32_t pi)
{
	const struct disc_port *was = &was_live->port[old], *now = &live->port[pi];

	return was->have_pi && was->pi.state == SMP_PORT_ACTIVE &&
	       (!now->have_pi || now->pi.state < SMP_PORT_ACTIVE);
}

/*
 * A node looks reset when it is new or back, its port count changed, or:
 * a CA (or router) when a port that was Active is not now (a driver restart
 * takes it down); a switch only when every port that was Active is not now.
 * A reset takes them all down, while a link down or a leaf's uplinks down
 * leave the switch's tables as they were, and reading every SL2VL pair of a
 * switch again would cost an event far more than the event itself.
 */
void prog_cache_forget_reset(struct prog_cache *c, const struct subnet *old_sn,
			     const struct disc_live *old_live, const struct subnet *sn,
			     const struct disc_live *live)
{
	for (uint32_t n = 0; n < sn->n_nodes; n++) {
		const struct subnet_node *nd = &sn->node[n];
		uint32_t old = old_sn ? subnet_find_guid(old_sn, nd->guid) : SUBNET_NONE;
		bool reset = old == SUBNET_NONE || old_sn->node[old].nports != nd->nports;
		bool sw = nd->type == NODE_SWITCH;
		unsigned was = 0, dropped = 0;

		for (unsigned p = 0; !reset && p <= nd->nports; p++) {
			uint32_t op = subnet_port_idx(old_sn, old, (uint8_t)p);

			if (!old_live->port[op].have_pi ||
			    old_live->port[op].pi.state != SMP_PORT_ACTIVE)
				continue;
			was++;
			if (port_dropped(old_live, op, live, subnet_port_idx(sn, n, (uint8_t)p)))
				dropped++;
			reset = !sw && dropped;
		}
		if (reset || (sw && was && dropped == was))
			prog_cache_forget(c, nd->guid);
	}
}

/*
 * A node no SM has configured since it was last reset, as discovery found
 * it: none of its ports (a switch's port 0 aside, which is always Active)
 * Armed or Active, its LID-holding ports (a switch's port 0, every CA or
 * router port read, one at least) at LID 0, and a switch's LinearFDBTop 0.
 * Only an SM moves a port from Init to Armed (IBA 7.2, 14.2.5.6) and
 * assigns LIDs; a reset clears them (ibsim's Clear does; a link retrain
 * keeps the LID, so a replugged cable does not count). Such a node holds whatever its
 * vendor put in its SL-to-VL and VL arbitration tables (IBA guarantees no
 * contents), so reading them first only adds a Get to every Set. A switch
 * whose port 0 was not read, or a CA with no port read, is not fresh: what
 * is unknown is read first, as before.
 */
static bool node_fresh(const struct subnet *sn, const struct disc_live *live, uint32_t n)
{
	const struct subnet_node *nd = &sn->node[n];
	bool sw = nd->type == NODE_SWITCH;
	unsigned read = 0;

	if (sw && live->node[n].si.lin_top)
		return false;
	for (unsigned p = sw ? 0 : 1; p <= nd->nports; p++) {
		const struct disc_port *lp = &live->port[subnet_port_idx(sn, n, (uint8_t)p)];

		if (sw && p == 0) {
			if (!lp->have_pi || lp->pi.lid)
				return false;
			continue;
		}
		if (!lp->have_pi)
			continue; /* a CA port not read: no link to it, nothing set there */
		if (lp->pi.state >= SMP_PORT_ARMED || (!sw && lp->pi.lid))
			return false;
		read++;
	}
	return sw || read;
}

int prog_fresh_nodes(const struct subnet *sn, const struct disc_live *live, uint8_t **out)
{
	uint8_t *f = calloc(sn->n_nodes ? sn->n_nodes : 1, 1);

	if (!f)
		return -ENOMEM;
	for (uint32_t n = 0; n < sn->n_nodes; n++)
		f[n] = node_fresh(sn, live, n);
	*out = f;
	return 0;
}
