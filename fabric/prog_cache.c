/* SPDX-License-Identifier: MIT */
/*
 * The cache of fabric/prog.h: node GUID -> its LFT as last programmed, its
 * SL-to-VL and VL arbitration tables and its ports' first P_Key blocks as
 * last read or set; which nodes look reset since the last model (or since
 * they left it), their tables to be read again; and which no SM has
 * configured, their tables to be set without a read.
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

static void pkey_tab_free(struct prog_lft *e)
{
	free(e->pkey);
	free(e->pkey_known);
	e->pkey = NULL;
	e->pkey_known = NULL;
}

void prog_cache_free(struct prog_cache *c)
{
	if (!c)
		return;
	for (uint32_t i = 0; i < c->n; i++) {
		free(c->e[i].lft);
		free(c->e[i].known);
		qos_tab_free(c->e[i].qos);
		pkey_tab_free(&c->e[i]);
		free(c->e[i].seen);
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

int prog_pkey_tab(struct prog_lft *e, uint8_t nports)
{
	if (e->pkey && e->pkey_nports == nports)
		return 0;
	pkey_tab_free(e);
	e->pkey = calloc((size_t)nports + 1, sizeof(*e->pkey));
	e->pkey_known = calloc((size_t)nports + 1, 1);
	e->pkey_nports = nports;
	if (e->pkey && e->pkey_known)
		return 0;
	pkey_tab_free(e);
	return -ENOMEM;
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
	pkey_tab_free(e);
	e->unverified = false;
}

/*
 * Which nodes look reset. A reset (power cycle, firmware update, driver
 * restart) takes a node's every port down; they come back in Init and only
 * an SM makes them Active again (IBA 14.2.5.6, 7.2). A port that was Active
 * and still is, with the LID and MasterSMLID this SM gave it, was not reset
 * by anyone. So a node looks reset when it is new, its port count changed,
 * a port that carries a LID holds another LID or MasterSMLID than the last
 * model (or, back, than when it left) saw (another SM set it up: one that
 * the light sweeps' MasterSMLID checks found, whose heavy sweep now reads
 * that node's tables again, or a standby on the island it was cut off
 * into), or:
 *   - a CA (or router): a port that was Active is not now (a driver restart
 *     may bring one port down and nothing else);
 *   - a switch: its port 0 does not vouch for it. A switch's SMA keeps
 *     its LID, MasterSMLID and tables (LFT, SL2VL, VLArb, P_Keys) whatever
 *     its external links do (IBA 14.2.5.6: port 0 of a base switch is
 *     Active whenever the switch is up; ibsim's Unlink and ReLink leave them
 *     alone); a reset clears port 0's LID and MasterSMLID (ibsim's Clear
 *     does) and LinearFDBTop. So a switch whose port 0, read before and
 *     now, still holds the nonzero LID it held, with the same MasterSMLID,
 *     was not reset, even when every external port went down with it: a
 *     leaf unplugged whole and plugged back costs no read of its every
 *     SL2VL pair. Another LinearFDBTop than the one it held (read by a
 *     heavy sweep, or when it comes back) is a reset, or another writer,
 *     whatever the ports say. A switch whose port 0 was not read either
 *     time, or held LID 0, is judged by its external ports: reset when
 *     every one that was Active is not now.
 * That holds for a node that stayed in the model and for one that comes
 * back (cut off with a leaf's uplinks, its own links never down, or a
 * switch unplugged whole): the latter is judged against its ports as they were when it left. What the
 * ports cannot tell (another SM that rewrote tables but left every LID and
 * MasterSMLID as they were, a tool writing blocks by hand) the ports of no
 * node tell; a node kept on their word is marked, and the next whole heavy
 * sweep (sm.heavy-sweep-interval; loom sweep --heavy) reads its tables
 * again: a wrong guess lasts until then, the event itself reads nothing.
 */

static bool lid_port(bool sw, unsigned p)
{
	return sw ? p == 0 : p > 0;
}

static struct prog_seen seen_of(const struct disc_live *live, uint32_t pi)
{
	const struct disc_port *dp = &live->port[pi];

	if (!dp->have_pi)
		return (struct prog_seen){ 0 };
	return (struct prog_seen){ .lid = dp->pi.lid, .sm_lid = dp->pi.sm_lid,
				   .state = dp->pi.state ? dp->pi.state : 1 };
}

/*
 * Switch n of sn: does its port 0 vouch that it kept its tables? was: port
 * 0 as it was; looks_reset compared the LID and MasterSMLID.
 */
static bool port0_vouches(const struct subnet *sn, uint32_t n, const struct disc_live *live,
			  struct prog_seen was)
{
	struct prog_seen now = seen_of(live, subnet_port_idx(sn, n, 0));

	return was.state >= SMP_PORT_INIT && now.state >= SMP_PORT_INIT && was.lid &&
	       now.lid == was.lid && now.sm_lid == was.sm_lid;
}

/*
 * Node n of sn (in live) against its ports as they were (was[0..nports])
 * and, a switch, its LinearFDBTop as it was (lin_top); back: it was out of
 * the model since.
 */
static bool looks_reset(const struct subnet *sn, uint32_t n, const struct disc_live *live,
			const struct prog_seen *was, uint16_t lin_top, bool back)
{
	const struct subnet_node *nd = &sn->node[n];
	bool sw = nd->type == NODE_SWITCH;
	unsigned active = 0, dropped = 0;

	if (sw && live->node[n].si.lin_top != lin_top)
		return true;
	for (unsigned p = 0; p <= nd->nports; p++) {
		struct prog_seen now = seen_of(live, subnet_port_idx(sn, n, (uint8_t)p));

		if (lid_port(sw, p) && was[p].state >= SMP_PORT_INIT &&
		    now.state >= SMP_PORT_INIT &&
		    (now.lid != was[p].lid || now.sm_lid != was[p].sm_lid))
			return true;
		if (was[p].state != SMP_PORT_ACTIVE || (sw && p == 0))
			continue;
		active++;
		if (now.state < SMP_PORT_ACTIVE)
			dropped++;
		if (!sw && dropped)
			return true;
	}
	if (sw && port0_vouches(sn, n, live, was[0]))
		return false;
	/* Back with no port known Active before: nothing vouches for it. */
	return back ? dropped == active : sw && active && dropped == active;
}

/* A node of old_sn that sn lacks: its ports as it leaves, kept in its entry (if any). */
static void remember(struct prog_cache *c, const struct subnet *old_sn,
		     const struct disc_live *old_live, uint32_t n)
{
	const struct subnet_node *nd = &old_sn->node[n];
	struct prog_lft *e = prog_cache_find(c, nd->guid);

	if (!e)
		return;
	free(e->seen);
	e->seen = calloc((size_t)nd->nports + 1, sizeof(*e->seen));
	e->seen_nports = nd->nports;
	e->seen_lin_top = old_live->node[n].si.lin_top;
	for (unsigned p = 0; e->seen && p <= nd->nports; p++)
		e->seen[p] = seen_of(old_live, subnet_port_idx(old_sn, n, (uint8_t)p));
}

/* Node n of sn, not in the last model: reset unless its ports as it left vouch for it. */
static void judge_back(struct prog_cache *c, const struct subnet *sn,
		       const struct disc_live *live, uint32_t n)
{
	struct prog_lft *e = prog_cache_find(c, sn->node[n].guid);

	if (!e)
		return;
	if (!e->seen || e->seen_nports != sn->node[n].nports ||
	    looks_reset(sn, n, live, e->seen, e->seen_lin_top, true))
		prog_cache_forget(c, e->guid);
	else
		e->unverified = true;
	free(e->seen);
	e->seen = NULL;
}

void prog_cache_forget_reset(struct prog_cache *c, const struct subnet *old_sn,
			     const struct disc_live *old_live, const struct subnet *sn,
			     const struct disc_live *live)
{
	if (!old_sn) { /* a takeover: nothing known holds, nothing vouches for a node gone */
		for (uint32_t i = 0; i < c->n; i++) {
			prog_cache_forget(c, c->e[i].guid);
			free(c->e[i].seen);
			c->e[i].seen = NULL;
		}
		return;
	}
	for (uint32_t n = 0; n < old_sn->n_nodes; n++)
		if (subnet_find_guid(sn, old_sn->node[n].guid) == SUBNET_NONE)
			remember(c, old_sn, old_live, n);
	for (uint32_t n = 0; n < sn->n_nodes; n++) {
		const struct subnet_node *nd = &sn->node[n];
		uint32_t old = subnet_find_guid(old_sn, nd->guid);
		struct prog_seen was[256];

		if (old == SUBNET_NONE) {
			judge_back(c, sn, live, n);
			continue;
		}
		if (old_sn->node[old].nports != nd->nports) {
			prog_cache_forget(c, nd->guid);
			continue;
		}
		for (unsigned p = 0; p <= nd->nports; p++)
			was[p] = seen_of(old_live, subnet_port_idx(old_sn, old, (uint8_t)p));
		if (looks_reset(sn, n, live, was, old_live->node[old].si.lin_top, false))
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

void prog_cache_recheck(struct prog_cache *c)
{
	for (uint32_t i = 0; i < c->n; i++)
		if (c->e[i].unverified)
			prog_cache_forget(c, c->e[i].guid);
}
