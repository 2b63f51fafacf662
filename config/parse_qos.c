/* SPDX-License-Identifier: MIT */
/*
 * The qos: section: per port class, the operational VLs, the SL-to-VL map,
 * the VL arbitration tables and the credit/timeout knobs. VLs are checked
 * here against 0-14 only; validate.c checks them against the class's
 * operational VLs, which may come later in the file.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "config/config_priv.h"
#include "lib/cleanup.h"

struct pqos {
	struct config_qos_class *q;
	struct pseen_qos *s;
};

static void q_op_vls(struct pctx *p, const struct ynode *v, void *obj)
{
	struct pqos *pq = obj;
	char q[64];
	uint64_t x;

	pq->s->op_vls = v;
	if (!parse_scalar(p, v, "a VL count"))
		return;
	if (units_uint(ynode_text(p->t, v), &x) < 0 || x > 15 || !config_op_vls_code((uint8_t)x)) {
		perr(p, v, "%s is not a count of operational VLs (allowed: 1, 2, 4, 8, 15)",
		     parse_quote(p, v, q, sizeof(q)));
		return;
	}
	pq->q->operational_vls = (uint8_t)x;
}

/* One VL of the SL-to-VL map, for sl; the path already names the entry. */
static void sl2vl_one(struct pctx *p, const struct ynode *v, struct pqos *pq, unsigned sl)
{
	uint64_t vl;

	pq->s->sl2vl[sl] = v;
	if (parse_uint(p, v, 0, 14, &vl))
		pq->q->sl2vl[sl] = (uint8_t)vl;
	else
		pq->s->sl2vl[sl] = NULL;
}

static void sl2vl_map(struct pctx *p, const struct ynode *v, struct pqos *pq)
{
	for (const struct ynode *k = ynode_at(p->t, v->first); k;) {
		const struct ynode *e = ynode_at(p->t, k->next);
		char q[64];
		uint64_t sl;

		if (!e)
			break;
		if (k->type != YNODE_SCALAR || units_uint(ynode_text(p->t, k), &sl) < 0 ||
		    sl > 15 || strlen(ynode_text(p->t, k)) != k->len) {
			if (k->type == YNODE_SCALAR)
				perr(p, k, "key %s is not an SL (allowed: 0-15)",
				     parse_quote(p, k, q, sizeof(q)));
			else
				perr(p, k, "a key must be an SL (allowed: 0-15)");
		} else {
			size_t old = path_push(p, "[%u]", (unsigned)sl);

			if (pq->s->sl2vl[sl])
				perr(p, k, "SL %u is mapped twice (first at line %u)", (unsigned)sl,
				     pq->s->sl2vl[sl]->line);
			else
				sl2vl_one(p, e, pq, (unsigned)sl);
			path_pop(p, old);
		}
		k = e ? ynode_at(p->t, e->next) : NULL;
	}
}

static void q_sl2vl(struct pctx *p, const struct ynode *v, void *obj)
{
	struct pqos *pq = obj;
	unsigned sl = 0;

	if (v->type == YNODE_MAP) {
		sl2vl_map(p, v, pq);
		return;
	}
	if (v->type != YNODE_SEQ) {
		perr(p, v, "not a list of 16 VLs (one per SL) or a mapping SL: VL");
		return;
	}
	if (v->n != 16) {
		perr(p, v, "%u VLs listed; a list holds one VL per SL, 16 in all "
			   "(or write a mapping SL: VL)", v->n);
		return;
	}
	for (const struct ynode *e = ynode_at(p->t, v->first); e; e = ynode_at(p->t, e->next)) {
		size_t old = path_push(p, "[%u]", sl);

		sl2vl_one(p, e, pq, sl++);
		path_pop(p, old);
	}
}

struct pvlarb {
	struct config_vlarb e;
	bool bad;
};

static void va_vl(struct pctx *p, const struct ynode *v, void *obj)
{
	struct pvlarb *pv = obj;
	uint64_t x;

	if (parse_uint(p, v, 0, 14, &x))
		pv->e.vl = (uint8_t)x;
	else
		pv->bad = true;
}

static void va_weight(struct pctx *p, const struct ynode *v, void *obj)
{
	struct pvlarb *pv = obj;
	uint64_t x;

	if (parse_uint(p, v, 0, 255, &x))
		pv->e.weight = (uint8_t)x;
	else
		pv->bad = true;
}

static bool vlarb_map(struct pctx *p, const struct ynode *v, struct config_vlarb *out)
{
	static const struct pfield f[] = { { "vl", va_vl }, { "weight", va_weight } };
	struct pvlarb pv = { 0 };
	uint32_t mask = parse_map(p, v, f, ARRAY_SIZE(f), &pv);

	if (!(mask & 1))
		perr_key(p, v, "vl", "missing; an entry is { vl: VL, weight: W }");
	if (!(mask & 2))
		perr_key(p, v, "weight", "missing; an entry is { vl: VL, weight: W }");
	if (mask != 3 || pv.bad)
		return false;
	*out = pv.e;
	return true;
}

/* "VL:weight" as OpenSM writes it, or { vl: VL, weight: W }. */
static bool vlarb_entry(struct pctx *p, const struct ynode *v, struct config_vlarb *out)
{
	const char *s = ynode_text(p->t, v);
	char text[32], q[64], *colon;
	uint64_t vl, w;

	if (v->type == YNODE_MAP)
		return vlarb_map(p, v, out);
	if (!parse_scalar(p, v, "VL:weight"))
		return false;
	if (v->len >= sizeof(text) || strlen(s) != v->len)
		goto bad;
	memcpy(text, s, v->len + 1);
	colon = strchr(text, ':');
	if (!colon)
		goto bad;
	*colon = '\0';
	if (units_uint(text, &vl) < 0 || units_uint(colon + 1, &w) < 0)
		goto bad;
	if (vl > 14 || w > 255) {
		perr(p, v, "%s is out of range (allowed: VL 0-14, weight 0-255)",
		     parse_quote(p, v, q, sizeof(q)));
		return false;
	}
	*out = (struct config_vlarb){ (uint8_t)vl, (uint8_t)w };
	return true;
bad:
	perr(p, v, "%s is not VL:weight (allowed: VL 0-14, weight 0-255, as in 1:64)",
	     parse_quote(p, v, q, sizeof(q)));
	return false;
}

static void vlarb_list(struct pctx *p, const struct ynode *v, struct config_vlarb *tab,
		       uint8_t *n, const struct ynode **seen)
{
	unsigned i = 0;

	*n = 0;
	if (!parse_seq(p, v))
		return;
	if (v->n > CONFIG_VLARB_MAX) {
		perr(p, v, "%u entries; a VL arbitration table holds at most %u", v->n,
		     CONFIG_VLARB_MAX);
		return;
	}
	for (const struct ynode *e = ynode_at(p->t, v->first); e; e = ynode_at(p->t, e->next)) {
		size_t old = path_push(p, "[%u]", i++);

		if (vlarb_entry(p, e, &tab[*n]))
			seen[(*n)++] = e;
		path_pop(p, old);
	}
}

static void q_high(struct pctx *p, const struct ynode *v, void *obj)
{
	struct pqos *pq = obj;

	pq->s->high_key = v;
	vlarb_list(p, v, pq->q->high, &pq->q->n_high, pq->s->high);
}

static void q_low(struct pctx *p, const struct ynode *v, void *obj)
{
	struct pqos *pq = obj;

	pq->s->low_key = v;
	vlarb_list(p, v, pq->q->low, &pq->q->n_low, pq->s->low);
}

static void q_high_limit(struct pctx *p, const struct ynode *v, void *obj)
{
	uint64_t x;

	if (parse_uint(p, v, 0, 255, &x))
		((struct pqos *)obj)->q->vl_high_limit = (uint8_t)x;
}

static void q_hoq(struct pctx *p, const struct ynode *v, void *obj)
{
	/* Finite values reach 4.096us * 2^19 (2.15s); above that only infinite. */
	parse_duration(p, v, 0, 2000000, true, &((struct pqos *)obj)->q->hoq_us);
}

static void q_stall(struct pctx *p, const struct ynode *v, void *obj)
{
	uint64_t x;

	if (parse_uint(p, v, 1, 7, &x))
		((struct pqos *)obj)->q->vl_stall_count = (uint8_t)x;
}

static void qos_class(struct pctx *p, const struct ynode *v, enum config_port_class k)
{
	static const struct pfield f[] = {
		{ "operational-vls", q_op_vls },
		{ "sl2vl", q_sl2vl },
		{ "vlarb-high", q_high },
		{ "vlarb-low", q_low },
		{ "vl-high-limit", q_high_limit },
		{ "head-of-queue-lifetime", q_hoq },
		{ "vl-stall-count", q_stall },
	};
	struct pqos pq = { &p->c->qos[k], &p->seen.qos[k] };
	unsigned before = p->errors;

	pq.s->at = v;
	parse_map(p, v, f, ARRAY_SIZE(f), &pq);
	pq.s->bad = p->errors != before;
}

static void c_ca(struct pctx *p, const struct ynode *v, void *obj)
{
	(void)obj;
	qos_class(p, v, CONFIG_CLASS_CA);
}

static void c_switch_external(struct pctx *p, const struct ynode *v, void *obj)
{
	(void)obj;
	qos_class(p, v, CONFIG_CLASS_SWITCH_EXTERNAL);
}

static void c_switch_port0(struct pctx *p, const struct ynode *v, void *obj)
{
	(void)obj;
	qos_class(p, v, CONFIG_CLASS_SWITCH_PORT0);
}

static void c_router(struct pctx *p, const struct ynode *v, void *obj)
{
	(void)obj;
	qos_class(p, v, CONFIG_CLASS_ROUTER);
}

void parse_qos(struct pctx *p, const struct ynode *v, void *obj)
{
	static const struct pfield f[] = {
		[CONFIG_CLASS_CA] = { "ca", c_ca },
		[CONFIG_CLASS_SWITCH_EXTERNAL] = { "switch-external", c_switch_external },
		[CONFIG_CLASS_SWITCH_PORT0] = { "switch-port0", c_switch_port0 },
		[CONFIG_CLASS_ROUTER] = { "router", c_router },
	};

	parse_map(p, v, f, ARRAY_SIZE(f), obj);
}
