/* SPDX-License-Identifier: MIT */
/*
 * Checks across fields, after every section is parsed (a key may refer to
 * one written later): engine options against the engine, VLs against the
 * class's operational VLs, partition names, P_Keys and members unique.
 * Then the values the file left open: SL-to-VL entries and VL arbitration
 * not written, P_Keys allocated from names, the implicit default partition.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "config/config_priv.h"
#include "lib/cleanup.h"

/* ---- sm.routing ------------------------------------------------------------ */

static void engine_only(struct pctx *p, const struct ynode *v, const char *key, const char *who)
{
	char msg[300], names[128];
	bool one = p->c->sm.routing.n_engines == 1;

	if (!v)
		return;
	config_engines_str(&p->c->sm, names, sizeof(names));
	snprintf(msg, sizeof(msg), "used only by engine %s, and the engine%s %s %s; "
		 "remove it or change the engine", who, one ? "" : "s", one ? "is" : "are", names);
	path_push(p, "sm.routing");
	perr_key(p, v, key, msg);
	path_pop(p, 0);
}

static bool listed(const struct config_sm *sm, enum config_engine e)
{
	return memchr(sm->routing.engine, e, sm->routing.n_engines) != NULL;
}

static void validate_routing(struct pctx *p)
{
	const struct config_sm *sm = &p->c->sm;
	static const enum config_port_class need[] = { CONFIG_CLASS_CA,
						       CONFIG_CLASS_SWITCH_EXTERNAL };

	/* A key is for the engines listed ("auto" lists its own); fallbacks take defaults. */
	if (!config_engines_has(sm, CONFIG_ENGINE_VLAYERED))
		engine_only(p, p->seen.vls, "vls", "vlayered");
	if (!config_engines_has(sm, CONFIG_ENGINE_UPDN) &&
	    !config_engines_has(sm, CONFIG_ENGINE_FTREE))
		engine_only(p, p->seen.roots, "roots", "updn or ftree");
	if (!config_engines_has(sm, CONFIG_ENGINE_FILE))
		engine_only(p, p->seen.file, "file", "file");
	if (config_engines_has(sm, CONFIG_ENGINE_FILE) && !p->seen.file) {
		path_push(p, "sm.routing.file");
		perr(p, p->seen.engine, "missing; engine file loads the forwarding tables from it");
		path_pop(p, 0);
	}
	/*
	 * vlayered's VLs against the classes' only where it is named itself: in
	 * "auto" or a fallback it is held within the VLs the ports have, and its
	 * SL-to-VL map wins over the classes' (said when it happens).
	 */
	if (!listed(sm, CONFIG_ENGINE_VLAYERED))
		return;
	for (size_t i = 0; i < ARRAY_SIZE(need); i++) {
		uint8_t ops = p->c->qos[need[i]].operational_vls;

		if (sm->routing.vls <= ops)
			continue;
		path_push(p, "sm.routing.vls");
		perr(p, p->seen.vls ? p->seen.vls : p->seen.engine,
		     "engine vlayered may use %u VLs, but qos.%s.operational-vls is %u "
		     "(allowed: 1-%u, or raise operational-vls)",
		     sm->routing.vls, config_class_name(need[i]), ops, ops);
		path_pop(p, 0);
	}
}

/* ---- qos ------------------------------------------------------------------- */

static void vl_beyond(struct pctx *p, const struct ynode *at, const char *what, unsigned i,
		      unsigned vl, unsigned ops)
{
	size_t old = path_push(p, ".%s[%u]", what, i);

	perr(p, at, "VL %u is beyond the class's %u operational VL%s (allowed: 0-%u)", vl, ops,
	     ops == 1 ? "" : "s", ops - 1);
	path_pop(p, old);
}

/* Every VL an SL maps to needs a weight somewhere, or its packets never leave. */
static void vl_unserved(struct pctx *p, enum config_port_class k)
{
	const struct config_qos_class *q = &p->c->qos[k];
	const struct pseen_qos *s = &p->seen.qos[k];
	bool served[16] = { false }, reported[16] = { false };

	for (unsigned i = 0; i < q->n_high; i++)
		served[q->high[i].vl] |= q->high[i].weight > 0;
	for (unsigned i = 0; i < q->n_low; i++)
		served[q->low[i].vl] |= q->low[i].weight > 0;
	for (unsigned sl = 0; sl < 16; sl++) {
		unsigned vl = q->sl2vl[sl];
		const struct ynode *at = s->sl2vl[sl];

		if (served[vl] || reported[vl] || vl >= q->operational_vls)
			continue;
		reported[vl] = true;
		if (!at)
			at = s->low_key ? s->low_key : s->high_key ? s->high_key : s->at;
		perr(p, at, "VL %u (SL %u maps to it) has no weight in vlarb-high or vlarb-low; "
			    "its packets would never be sent", vl, sl);
	}
}

static void vlarb_fill_default(struct config_qos_class *q)
{
	q->n_low = q->operational_vls;
	for (uint8_t vl = 0; vl < q->operational_vls; vl++)
		q->low[vl] = (struct config_vlarb){ vl, 64 };
}

static void validate_qos_class(struct pctx *p, enum config_port_class k)
{
	struct config_qos_class *q = &p->c->qos[k];
	const struct pseen_qos *s = &p->seen.qos[k];
	unsigned ops = q->operational_vls;

	path_push(p, "qos.%s", config_class_name(k));
	for (unsigned sl = 0; sl < 16; sl++) {
		if (!s->sl2vl[sl])
			q->sl2vl[sl] = (uint8_t)(sl % ops);
		else if (q->sl2vl[sl] >= ops)
			vl_beyond(p, s->sl2vl[sl], "sl2vl", sl, q->sl2vl[sl], ops);
	}
	if (!s->low_key)
		vlarb_fill_default(q);
	for (unsigned i = 0; i < q->n_high; i++)
		if (q->high[i].vl >= ops)
			vl_beyond(p, s->high[i], "vlarb-high", i, q->high[i].vl, ops);
	for (unsigned i = 0; i < q->n_low; i++)
		if (s->low_key && q->low[i].vl >= ops)
			vl_beyond(p, s->low[i], "vlarb-low", i, q->low[i].vl, ops);
	if (!s->bad)
		vl_unserved(p, k);
	path_pop(p, 0);
}

/* ---- partitions ------------------------------------------------------------ */

static int cmp_name(const void *a, const void *b, void *arg)
{
	const struct config_partition *part = arg;
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
	int r = strcmp(part[i].name, part[j].name);

	return r ? r : (i > j) - (i < j);
}

static void names_unique(struct pctx *p)
{
	struct config *c = p->c;
	_cleanup_free_ uint32_t *ix = malloc(((size_t)c->n_parts + 1) * sizeof(*ix));
	_cleanup_free_ uint32_t *dup_of = malloc(((size_t)c->n_parts + 1) * sizeof(*dup_of));
	uint32_t n = 0;

	if (!ix || !dup_of) {
		p->nomem = true;
		return;
	}
	for (uint32_t i = 0; i < c->n_parts; i++) {
		dup_of[i] = UINT32_MAX;
		if (c->part[i].name)
			ix[n++] = i;
	}
	qsort_r(ix, n, sizeof(*ix), cmp_name, c->part);
	for (uint32_t k = 1; k < n; k++)
		if (!strcmp(c->part[ix[k]].name, c->part[ix[k - 1]].name))
			dup_of[ix[k]] =
				dup_of[ix[k - 1]] == UINT32_MAX ? ix[k - 1] : dup_of[ix[k - 1]];
	for (uint32_t i = 0; i < c->n_parts; i++) {
		size_t old;

		if (dup_of[i] == UINT32_MAX)
			continue;
		old = path_push(p, "partitions[%u].name", i);
		perr(p, p->seen.part[i].name,
		     "'%s' is already the name of partitions[%u] (line %u)", c->part[i].name,
		     dup_of[i], c->part[dup_of[i]].at.line);
		path_pop(p, old);
	}
}

static void part_err(struct pctx *p, uint32_t i, const char *key, const struct ynode *at,
		     const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static void part_err(struct pctx *p, uint32_t i, const char *key, const struct ynode *at,
		     const char *fmt, ...)
{
	size_t old = path_push(p, "partitions[%u].%s", i, key);
	char text[300];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	perr(p, at, "%s", text);
	path_pop(p, old);
}

/* The default partition is the one named "default", and it alone has 0x7fff. */
static void default_pkey(struct pctx *p, uint32_t i)
{
	struct config_partition *pt = &p->c->part[i];
	bool named = pt->name && !strcmp(pt->name, "default");

	if (named && pt->pkey_auto) {
		pt->pkey = CONFIG_PKEY_DEFAULT;
		pt->pkey_auto = false;
	} else if (named && pt->pkey != CONFIG_PKEY_DEFAULT) {
		part_err(p, i, "pkey", p->seen.part[i].pkey,
			 "0x%04x given to the default partition, whose P_Key is 0x7fff "
			 "(allowed: 0x7fff, or leave pkey out)", pt->pkey);
	} else if (!named && !pt->pkey_auto && pt->pkey == CONFIG_PKEY_DEFAULT) {
		part_err(p, i, "pkey", p->seen.part[i].pkey,
			 "0x7fff is the default partition's P_Key; name this partition 'default' "
			 "to restrict it (allowed: 0x0001-0x7ffe)");
	}
}

/* mtu, rate and qkey describe the IPoIB broadcast group: only with ipoib. */
static void ipoib_only(struct pctx *p, uint32_t i)
{
	const struct pseen_part *s = &p->seen.part[i];
	const struct ynode *given[] = { s->mtu, s->rate, s->qkey };
	static const char *const keys[] = { "mtu", "rate", "qkey" };

	if (p->c->part[i].ipoib)
		return;
	for (size_t k = 0; k < ARRAY_SIZE(keys); k++)
		if (given[k])
			part_err(p, i, keys[k], given[k],
				 "describes the IPoIB broadcast group, and ipoib is false; "
				 "set ipoib: true or remove %s", keys[k]);
}

static int member_key_cmp(const struct config_member *x, const struct config_member *y)
{
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->kind == CONFIG_MEMBER_GUID && x->guid != y->guid)
		return x->guid < y->guid ? -1 : 1;
	if (x->kind == CONFIG_MEMBER_NODE)
		return strcmp(x->node, y->node);
	return 0;
}

/* By port, then by place in the list: the first of equals comes first. */
static int cmp_member(const void *a, const void *b, void *arg)
{
	const struct config_member *m = arg;
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
	int r = member_key_cmp(&m[i], &m[j]);

	return r ? r : (i > j) - (i < j);
}

static void member_name(const struct config_member *m, char *buf, size_t n)
{
	if (m->kind == CONFIG_MEMBER_GUID)
		snprintf(buf, n, "port 0x%016llx", (unsigned long long)m->guid);
	else if (m->kind == CONFIG_MEMBER_NODE)
		snprintf(buf, n, "node '%s'", m->node);
	else
		snprintf(buf, n, "group %s", config_member_kind_name(m->kind));
}

/* A port named twice in one partition is a slip; with two memberships, a contradiction. */
static void members_unique(struct pctx *p, uint32_t i)
{
	const struct config_partition *pt = &p->c->part[i];
	_cleanup_free_ uint32_t *ix = malloc(((size_t)pt->n_members + 1) * sizeof(*ix));
	_cleanup_free_ uint32_t *dup_of = malloc(((size_t)pt->n_members + 1) * sizeof(*dup_of));

	if (!ix || !dup_of) {
		p->nomem = true;
		return;
	}
	for (uint32_t k = 0; k < pt->n_members; k++) {
		ix[k] = k;
		dup_of[k] = UINT32_MAX;
	}
	qsort_r(ix, pt->n_members, sizeof(*ix), cmp_member, pt->member);
	for (uint32_t k = 1; k < pt->n_members; k++) {
		uint32_t a = ix[k - 1], b = ix[k];

		if (!member_key_cmp(&pt->member[a], &pt->member[b]))
			dup_of[b] = dup_of[a] == UINT32_MAX ? a : dup_of[a];
	}
	for (uint32_t k = 0; k < pt->n_members; k++) {
		const struct config_member *m = &pt->member[k];
		struct ynode at = { .line = m->at.line, .col = m->at.col };
		char who[120];

		if (dup_of[k] == UINT32_MAX)
			continue;
		member_name(m, who, sizeof(who));
		part_err(p, i, "members", &at,
			 "%s is listed twice (first at line %u); list it once", who,
			 pt->member[dup_of[k]].at.line);
	}
}

/* FNV-1a of the name: a partition keeps its P_Key when others come and go. */
static uint16_t pkey_hash(const char *name)
{
	uint32_t h = 2166136261u;

	for (; *name; name++)
		h = (h ^ (unsigned char)*name) * 16777619u;
	return (uint16_t)(1 + h % CONFIG_PKEY_MAX_USER);
}

static void pkeys_assign(struct pctx *p)
{
	struct config *c = p->c;
	_cleanup_free_ uint32_t *owner = malloc(0x8000 * sizeof(*owner));

	if (!owner) {
		p->nomem = true;
		return;
	}
	memset(owner, 0xff, 0x8000 * sizeof(*owner));
	for (uint32_t i = 0; i < c->n_parts; i++) {
		struct config_partition *pt = &c->part[i];
		uint32_t j;

		if (pt->pkey_auto || !pt->pkey)
			continue;
		j = owner[pt->pkey];
		if (j == UINT32_MAX)
			owner[pt->pkey] = i;
		else if (p->seen.part[i].pkey)
			part_err(p, i, "pkey", p->seen.part[i].pkey,
				 "0x%04x is already the P_Key of partition '%s' (partitions[%u], "
				 "line %u)", pt->pkey, c->part[j].name ? c->part[j].name : "?", j,
				 c->part[j].at.line);
	}
	for (uint32_t i = 0; i < c->n_parts; i++) {
		struct config_partition *pt = &c->part[i];
		uint16_t k;
		unsigned tries = 0;

		if (!pt->pkey_auto || !pt->name)
			continue;
		for (k = pkey_hash(pt->name); owner[k] != UINT32_MAX;
		     k = k % CONFIG_PKEY_MAX_USER + 1)
			if (++tries == CONFIG_PKEY_MAX_USER)
				break;
		if (owner[k] != UINT32_MAX) {
			part_err(p, i, "pkey", p->seen.part[i].at,
				 "no P_Key is left to allocate (allowed: 0x0001-0x7ffe)");
			continue;
		}
		owner[k] = i;
		pt->pkey = k;
	}
}

void validate(struct pctx *p)
{
	struct config *c = p->c;

	validate_routing(p);
	for (unsigned k = 0; k < _CONFIG_CLASS_MAX; k++)
		validate_qos_class(p, (enum config_port_class)k);
	for (uint32_t i = 0; i < c->n_parts; i++) {
		default_pkey(p, i);
		ipoib_only(p, i);
		members_unique(p, i);
	}
	names_unique(p);
	pkeys_assign(p);
	for (uint32_t i = 0; i < c->n_parts; i++)
		if (c->part[i].pkey == CONFIG_PKEY_DEFAULT)
			return;
	if (config_default_partition_add(c) < 0)
		p->nomem = true;
}
