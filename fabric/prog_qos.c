/* SPDX-License-Identifier: MIT */
/*
 * Programming QoS from loom.yaml's port classes: SL-to-VL mapping tables
 * (IBA 14.2.5.8: one per CA port; per input/output port pair on a switch;
 * none where PortInfo:CapabilityMask lacks IsSLMappingSupported, a switch's
 * read on its port 0, plan/qos.h qos_has_sl2vl: hardware refuses them there;
 * none out of a switch's base port 0, qos_has_data_vls, but one into each
 * other output port from it)
 * and VL arbitration tables (14.2.5.9: the low and high priority tables'
 * first 32 entries, as many as the port has room for; on the ports with
 * data VLs, qos_has_data_vls: not a switch's base port 0, an enhanced one
 * too). Each block is read and sent only if it differs; a block the cache
 * (prog_cache.c) knows is neither read nor sent if it is as wanted, sent
 * without a read if not; a block of a node that no SM had configured (prog_fresh_nodes(): ports
 * Init, LID 0) is sent without a read, as a read would only find what a
 * reset left there. A switch that announces OptimizedSLtoVLMappingProgramming
 * (SwitchInfo, IBA 1.2.1 14.2.5.4) gets one Set for all input ports of an
 * output port, or one for the whole switch, unread (switch_sl2vl_opt); the
 * others one Get or Set a pair. OperationalVLs goes with the PortInfo Set (prog.c); a
 * mapping to a VL the port does not operate is folded into its
 * VLs and reported.
 *
 * A routing engine that breaks credit loops with VLs (route_out.sl: the
 * vlayered engine) needs its own SL-to-VL map on every port: it wins over
 * the classes' sl2vl, and a class that asked for another map is reported
 * (IBA gives one table per port pair; two owners cannot share it). Its map
 * is never folded: a port running fewer VLs than the routes need is
 * reported as what it is, a place where credit loops are possible.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <iba/ib_types.h>

#include "config/config.h"
#include "fabric/prog_priv.h"

static enum config_port_class prog_port_class(const struct prog *g, uint32_t pi)
{
	return (enum config_port_class)qos_port_class(g->sn, pi);
}

int prog_port_class_of(const struct prog *g, uint32_t pi)
{
	return (int)prog_port_class(g, pi);
}

static struct qos_view view_of(const struct prog *g)
{
	return (struct qos_view){ .sn = g->sn, .live = g->live, .ro = g->ro, .qos = g->o->qos };
}

static void want_sl2vl(const struct prog *g, uint32_t pi, uint8_t vl[SMP_NUM_SL], bool *folded)
{
	struct qos_view v = view_of(g);

	qos_want_sl2vl(&v, pi, vl, folded);
}

static unsigned want_vlarb(const struct prog *g, uint32_t pi, enum smp_vlarb_block b,
			   struct smp_vlarb e[SMP_VLARB_BLOCK])
{
	struct qos_view v = view_of(g);

	return qos_want_vlarb(&v, pi, b, e);
}

union qos_block {
	uint8_t vl[SMP_NUM_SL];
	struct smp_vlarb e[SMP_VLARB_BLOCK];
};

/* The block a request is about as the plan wants it; its size. */
static size_t want_block(const struct prog *g, bool sl2vl, uint32_t pi, uint32_t mod,
			 union qos_block *w)
{
	uint32_t node = g->sn->port[pi].node;
	bool folded;

	memset(w, 0, sizeof(*w));
	if (!sl2vl) {
		want_vlarb(g, pi, (enum smp_vlarb_block)(mod >> 16), w->e);
		return sizeof(w->e);
	}
	/* On a switch the table belongs to the output port, the modifier's low byte. */
	if (subnet_is_switch(g->sn, node))
		pi = subnet_port_idx(g->sn, node, (uint8_t)(mod & 0xff));
	want_sl2vl(g, pi, w->vl, &folded);
	return sizeof(w->vl);
}

/*
 * The cache's copy of the block a request to port pi with modifier mod is
 * about (prog_held.c); copy NULL if there is none (no cache, or out of
 * memory: the block is then read every sweep).
 */
static struct prog_held cached(struct prog *g, bool sl2vl, uint32_t pi, uint32_t mod)
{
	const struct subnet_port *p = &g->sn->port[pi];
	const struct subnet_node *n = &g->sn->node[p->node];
	struct prog_lft *e = prog_held_node(g, pi);
	struct prog_qos_tab *t;
	size_t slot;

	if (!e || !(t = prog_qos_tab(e, n->nports)))
		return (struct prog_held){ NULL, NULL };
	if (sl2vl) {
		unsigned in = 0, out = p->num;

		if (subnet_is_switch(g->sn, p->node)) {
			in = (mod >> 8) & 0xff;
			out = mod & 0xff;
		}
		if (in > n->nports || out > n->nports)
			return (struct prog_held){ NULL, NULL };
		slot = (size_t)in * (n->nports + 1u) + out;
		return (struct prog_held){ t->sl2vl[slot], &t->sl2vl_known[slot] };
	}
	slot = (size_t)p->num * 2 + ((mod >> 16) == SMP_VLARB_HIGH_0_31);
	return (struct prog_held){ t->vlarb[slot], &t->vlarb_known[slot] };
}

static void send_block(struct prog *g, bool sl2vl, uint32_t pi, uint32_t mod,
		       const union qos_block *w)
{
	struct smp_req r = { .method = SMP_SET, .attr_mod = mod };

	if (!prog_port_route(g, pi, &r))
		return;
	r.attr_id = sl2vl ? SMP_ATTR_SL2VL : SMP_ATTR_VLARB;
	if (sl2vl)
		smp_encode_sl2vl(w->vl, r.data);
	else
		smp_encode_vlarb(w->e, r.data);
	g->rep->qos_blocks++;
	prog_submit(g, &r, sl2vl ? PREQ_SL2VL_SET : PREQ_VLARB_SET, pi, mod, 0);
}

/* Is output port o of switch node in the modifier mod of an optimized Set? */
static bool opt_covers(uint32_t mod, unsigned o)
{
	return (mod & SMP_SL2VL_ALL_OUT) || (mod & 0xff) == o;
}

/*
 * The GetResp to an optimized Set (IBA 14.2.5.8): the table every pair it
 * covers now holds, cached for each of them (inputs 0..NumPorts; with
 * SMP_SL2VL_ALL_OUT, every output port too).
 */
static void opt_reply(struct prog *g, const struct preq *q, const uint8_t *resp, size_t len)
{
	uint32_t node = g->sn->port[q->idx].node;
	const struct subnet_node *n = &g->sn->node[node];
	uint8_t have[SMP_NUM_SL];

	if (smp_decode_sl2vl(resp, len, have) < 0)
		return;
	for (unsigned o = 0; o <= n->nports; o++)
		for (unsigned i = 0; opt_covers(q->block, o) && i <= n->nports; i++)
			prog_held_set(cached(g, true, q->idx, smp_sl2vl_mod((uint8_t)i, (uint8_t)o)),
				      have, SMP_NUM_SL);
}

/*
 * A GetResp to a Get or a Set of one block: what the node holds now, cached;
 * after a Get, the block sent if it is not what the plan wants (unknown until
 * the Set's GetResp says what the node took).
 */
static void reply_one(struct prog *g, const struct preq *q, const uint8_t *resp,
		      size_t len, bool sl2vl)
{
	bool get = q->kind == PREQ_SL2VL_GET || q->kind == PREQ_VLARB_GET;
	union qos_block w, have;
	size_t size = want_block(g, sl2vl, q->idx, q->block, &w);
	struct prog_held c = cached(g, sl2vl, q->idx, q->block);

	memset(&have, 0, sizeof(have));
	if ((sl2vl ? smp_decode_sl2vl(resp, len, have.vl) : smp_decode_vlarb(resp, len, have.e)) < 0)
		return;
	if (prog_held_answer(c, &have, &w, size, get))
		send_block(g, sl2vl, q->idx, q->block, &w);
}

/* A GetResp to a QoS Get or Set (prog.c). */
void prog_qos_reply(struct prog *g, const struct preq *q, const uint8_t *resp, size_t len)
{
	bool sl2vl = q->kind == PREQ_SL2VL_GET || q->kind == PREQ_SL2VL_SET;

	if (q->kind == PREQ_SL2VL_SET && (q->block & (SMP_SL2VL_ALL_IN | SMP_SL2VL_ALL_OUT)))
		opt_reply(g, q, resp, len);
	else
		reply_one(g, q, resp, len, sl2vl);
}

/* Count a node whose blocks go out unread, once a pass. */
static void fresh_node(struct prog *g, uint32_t node)
{
	if (g->fresh[node] == 1) {
		g->fresh[node] = 2;
		g->rep->fresh_nodes++;
	}
}

/*
 * A block known (cached) as wanted is left alone; one known to differ is
 * sent; one of a node no SM had configured is sent unread (its GetResp
 * fills the cache); the rest read.
 */
static void ask(struct prog *g, uint32_t pi, uint16_t attr, uint32_t mod, enum preq_kind kind)
{
	struct smp_req r = { .method = SMP_GET, .attr_id = attr, .attr_mod = mod };
	bool sl2vl = attr == SMP_ATTR_SL2VL;
	struct prog_held c = cached(g, sl2vl, pi, mod);
	uint32_t node = g->sn->port[pi].node;
	bool have = prog_held_known(c);

	if (have || g->fresh[node]) {
		union qos_block w;
		size_t size = want_block(g, sl2vl, pi, mod, &w);

		if (prog_held_check(c, &w, size) > 0)
			return;
		if (!have) {
			g->rep->qos_unread++;
			fresh_node(g, node);
		}
		send_block(g, sl2vl, pi, mod, &w);
		return;
	}
	if (!prog_port_route(g, pi, &r))
		return;
	g->rep->qos_reads++;
	prog_submit(g, &r, kind, pi, mod, 0);
}

/* A port that carries data: linked, or a switch's port 0. */
static bool qos_port(const struct prog *g, uint32_t pi)
{
	const struct subnet_port *p = &g->sn->port[pi];

	if (subnet_is_switch(g->sn, p->node) && p->num == 0)
		return g->live->port[pi].have_pi;
	return prog_port_linked(g, pi);
}

static void fold_report(struct prog *g, uint32_t pi)
{
	uint8_t vl[SMP_NUM_SL];
	bool folded;
	char buf[160];

	want_sl2vl(g, pi, vl, &folded);
	if (folded && g->ro->sl)
		diag_msg(&g->rep->msgs, "%s: runs %u data VLs, the routes need %u: traffic on "
			 "the VLs it lacks is dropped there, and credit loops are possible; give "
			 "the routing engine fewer VLs (sm.routing.vls) or the port more",
			 prog_port_name(g, pi, buf, sizeof(buf)), qos_vls_of(g->live->port[pi].pi.op_vls),
			 g->ro->n_vls);
	else if (folded)
		diag_msg(&g->rep->msgs, "%s: runs %u data VLs; SL-to-VL entries beyond them are "
			 "folded into them (VL %% %u)", prog_port_name(g, pi, buf, sizeof(buf)),
			 qos_vls_of(g->live->port[pi].pi.op_vls), qos_vls_of(g->live->port[pi].pi.op_vls));
}

/* The engine's map wins; say which classes asked for another (once a run). */
static void sl2vl_conflicts(struct prog *g)
{
	const struct config *c = g->o->qos;
	struct config *def = NULL;

	if (!g->ro->sl || config_defaults(&def) < 0)
		return;
	for (unsigned k = 0; k < _CONFIG_CLASS_MAX; k++)
		if (memcmp(c->qos[k].sl2vl, def->qos[k].sl2vl, SMP_NUM_SL) &&
		    memcmp(c->qos[k].sl2vl, g->ro->sl2vl, SMP_NUM_SL))
			diag_msg(&g->rep->msgs, "qos: %s: sl2vl not applied: the routing engine "
				 "spreads routes over %u VLs and needs SL n -> VL n on every port",
				 config_class_name((enum config_port_class)k), g->ro->n_vls);
	config_free(def);
}

/*
 * Does output port o of switch node need its tables set: a pair this pass
 * looks after that is not known (cached) as holding w? Those of o are
 * forgotten if so: the Set's GetResp says what they hold.
 */
static bool opt_needs(struct prog *g, uint32_t node, unsigned o, const uint8_t w[SMP_NUM_SL])
{
	const struct subnet_node *n = &g->sn->node[node];
	uint32_t p0 = subnet_port_idx(g->sn, node, 0), po = subnet_port_idx(g->sn, node, o);
	bool need = false;

	for (unsigned i = 0; i <= n->nports && !need; i++) {
		uint32_t pi = subnet_port_idx(g->sn, node, i);

		if (i == o || !qos_port(g, pi) || (g->o->only && !g->o->only[po] && !g->o->only[pi]))
			continue;
		need = !prog_held_is(cached(g, true, p0, smp_sl2vl_mod((uint8_t)i, (uint8_t)o)), w,
				     SMP_NUM_SL);
	}
	for (unsigned i = 0; i <= n->nports && need; i++)
		prog_held_forget(cached(g, true, p0, smp_sl2vl_mod((uint8_t)i, (uint8_t)o)));
	return need;
}

/* Send one optimized Set (modifier mod) of table w to switch node; count it. */
static void opt_send(struct prog *g, uint32_t node, uint32_t mod, const union qos_block *w)
{
	if (g->fresh[node]) {
		g->rep->qos_unread++;
		fresh_node(g, node);
	}
	g->rep->qos_opt_sets++;
	send_block(g, true, subnet_port_idx(g->sn, node, 0), mod, w);
}

/*
 * A switch with OptimizedSLtoVLMappingProgramming (IBA 1.2.1 14.2.5.4,
 * 14.2.5.8). An output port's table is the same from every input port here
 * (plan/qos.h), so one Set with SMP_SL2VL_ALL_IN replaces a Get and a Set
 * per input port; it goes unread where a pair is not known as wanted (a
 * Set costs what a Get does, and its GetResp fills the cache). When every
 * output port needs the same table, one Set with SMP_SL2VL_ALL_OUT too.
 */
static void switch_sl2vl_opt(struct prog *g, uint32_t node)
{
	const struct subnet_node *n = &g->sn->node[node];
	uint32_t p0 = subnet_port_idx(g->sn, node, 0);
	union qos_block w, first;
	bool need[256] = { false }, same = true;
	unsigned outs = 0, needed = 0;

	for (unsigned o = 0; o <= n->nports; o++) {
		uint32_t po = subnet_port_idx(g->sn, node, o);

		if (!qos_port(g, po) || !qos_has_data_vls(g->sn, po))
			continue;
		fold_report(g, po);
		outs++;
		want_block(g, true, p0, smp_sl2vl_mod(0, (uint8_t)o), &w);
		if (!opt_needs(g, node, o, w.vl))
			continue;
		need[o] = true;
		if (!needed++)
			first = w;
		same = same && !memcmp(first.vl, w.vl, SMP_NUM_SL);
	}
	if (needed && needed == outs && same && outs > 1 && !g->o->only) {
		opt_send(g, node, SMP_SL2VL_ALL_IN | SMP_SL2VL_ALL_OUT, &first);
		return;
	}
	for (unsigned o = 0; o <= n->nports; o++)
		if (need[o]) {
			want_block(g, true, p0, smp_sl2vl_mod(0, (uint8_t)o), &w);
			opt_send(g, node, SMP_SL2VL_ALL_IN | o, &w);
		}
}

static void switch_sl2vl(struct prog *g, uint32_t node)
{
	const struct subnet_node *n = &g->sn->node[node];

	if (!qos_has_sl2vl(g->sn, g->live, subnet_port_idx(g->sn, node, 0))) {
		g->rep->qos_no_sl_map++;
		return;
	}
	if (g->live->node[node].si.life_state & SMP_SI_OPT_SL2VL) {
		switch_sl2vl_opt(g, node);
		return;
	}
	for (unsigned o = 0; o <= n->nports; o++) {
		uint32_t po = subnet_port_idx(g->sn, node, o);

		if (!qos_port(g, po) || !qos_has_data_vls(g->sn, po))
			continue;
		fold_report(g, po);
		for (unsigned i = 0; i <= n->nports; i++)
			if (i != o && qos_port(g, subnet_port_idx(g->sn, node, i)) &&
			    (!g->o->only || g->o->only[po] ||
			     g->o->only[subnet_port_idx(g->sn, node, i)]))
				ask(g, subnet_port_idx(g->sn, node, 0), SMP_ATTR_SL2VL,
				    smp_sl2vl_mod((uint8_t)i, (uint8_t)o), PREQ_SL2VL_GET);
	}
}

void prog_program_qos(struct prog *g)
{
	static const enum smp_vlarb_block blocks[] = { SMP_VLARB_LOW_0_31, SMP_VLARB_HIGH_0_31 };

	sl2vl_conflicts(g);
	for (uint32_t node = 0; node < g->sn->n_nodes && !g->err; node++)
		if (subnet_is_switch(g->sn, node))
			switch_sl2vl(g, node);
	for (uint32_t pi = 0; pi < g->sn->n_ports && !g->err; pi++) {
		const struct subnet_port *p = &g->sn->port[pi];
		bool sw = subnet_is_switch(g->sn, p->node);
		struct smp_vlarb e[SMP_VLARB_BLOCK];

		/* VLArb where there are data VLs (not a base port 0); a switch's SL2VL is above. */
		if (!qos_port(g, pi) || !qos_has_data_vls(g->sn, pi) ||
		    (g->o->only && !g->o->only[pi]))
			continue;
		if (!sw && !qos_has_sl2vl(g->sn, g->live, pi)) {
			g->rep->qos_no_sl_map++;
		} else if (!sw) {
			fold_report(g, pi);
			ask(g, pi, SMP_ATTR_SL2VL, 0, PREQ_SL2VL_GET);
		}
		for (unsigned b = 0; b < 2; b++)
			if (want_vlarb(g, pi, blocks[b], e))
				ask(g, pi, SMP_ATTR_VLARB, smp_vlarb_mod(sw ? p->num : 0, blocks[b]),
				    PREQ_VLARB_GET);
	}
}
