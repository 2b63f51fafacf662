/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/cleanup.h"
#include "config/config.h"
#include "plan/pkey.h"
#include "fabric/prog_priv.h"

static const char *const preq_name[] = {
	[PREQ_PORT] = "PortInfo Set",
	[PREQ_PORT_CHECK] = "PortInfo Get (after a refused state change)",
	[PREQ_SWITCH_INFO] = "SwitchInfo Set",
	[PREQ_LFT_GET] = "LFT block Get",
	[PREQ_LFT_SET] = "LFT block Set",
	[PREQ_PKEY_GET] = "P_KeyTable block Get",
	[PREQ_PKEY_SET] = "P_KeyTable block Set",
	[PREQ_SL2VL_GET] = "SLtoVLMappingTable Get",
	[PREQ_SL2VL_SET] = "SLtoVLMappingTable Set",
	[PREQ_VLARB_GET] = "VLArbitrationTable Get",
	[PREQ_VLARB_SET] = "VLArbitrationTable Set",
	[PREQ_MFT_GET] = "MulticastForwardingTable block Get",
	[PREQ_MFT_SET] = "MulticastForwardingTable block Set",
};

/*
 * The directed route to a port's node, through that port where it matters:
 * a CA answers for the port an SMP enters by (IBA 14.2.5.6), so a CA port is
 * reached by way of its peer, a switch port by way of its switch.
 */
bool prog_port_route(const struct prog *g, uint32_t pi, struct smp_req *r)
{
	const struct subnet *sn = g->sn;
	const struct subnet_port *p = &sn->port[pi];
	const struct disc_node *ln;
	const struct subnet_port *q;

	if (subnet_is_switch(sn, p->node) || (p->node == 0 && p->num == g->live->local_port)) {
		ln = &g->live->node[p->node];
		r->hops = ln->hops;
		memcpy(r->path, ln->path, sizeof(r->path));
		return true;
	}
	if (p->peer == SUBNET_NONE)
		return false;
	q = &sn->port[p->peer];
	ln = &g->live->node[q->node];
	if (!subnet_is_switch(sn, q->node) && !(q->node == 0 && q->num == g->live->local_port))
		return false; /* a CA behind a CA that is not ours: SMPs do not cross it */
	if (ln->hops >= SMP_MAX_HOPS)
		return false;
	r->hops = (uint8_t)(ln->hops + 1);
	memcpy(r->path, ln->path, sizeof(r->path));
	r->path[r->hops] = q->num;
	return true;
}

static void on_reply(void *arg, int status, const uint8_t *resp, size_t len);

void prog_submit(struct prog *g, const struct smp_req *r, enum preq_kind kind, uint32_t idx,
		   uint32_t block, uint8_t new_state)
{
	struct preq *q;
	int ret;

	if (g->err)
		return;
	q = malloc(sizeof(*q));
	if (!q) {
		g->err = -ENOMEM;
		return;
	}
	*q = (struct preq){ .g = g, .r = *r, .kind = kind, .idx = idx, .block = block,
			    .new_state = new_state };
	ret = txn_submit(g->x, r, on_reply, q);
	if (ret < 0) {
		free(q);
		g->err = ret;
	}
}

const char *prog_port_name(const struct prog *g, uint32_t pi, char *buf, size_t len)
{
	const struct subnet_port *p = &g->sn->port[pi];
	const struct subnet_node *n = &g->sn->node[p->node];

	snprintf(buf, len, "%s 0x%016" PRIx64 " \"%s\" port %u", subnet_type_name(n->type),
		 n->guid, subnet_str(g->sn, n->desc), p->num);
	return buf;
}

static void failed(struct prog *g, const struct preq *q, int status)
{
	const char *why = status == -ETIMEDOUT ? "no answer after all retries" :
			  status == -EPROTO ? "refused or malformed answer" : strerror(-status);
	char buf[160];

	g->rep->failed++;
	if (q->kind == PREQ_PORT || q->kind == PREQ_PORT_CHECK || q->kind >= PREQ_PKEY_GET) {
		diag_msg(&g->rep->msgs, "%s: %s%s: %s; next sweep retries",
			 prog_port_name(g, q->idx, buf, sizeof(buf)),
			 preq_name[q->kind],
			 q->new_state == SMP_PORT_ARMED ? " (arm)" :
			 q->new_state == SMP_PORT_ACTIVE ? " (activate)" : "", why);
		return;
	}
	const struct subnet_node *n = &g->sn->node[g->ro->sw_node[q->idx]];

	diag_msg(&g->rep->msgs, "switch 0x%016" PRIx64 " \"%s\": %s %u: %s; next sweep retries",
		 n->guid, subnet_str(g->sn, n->desc), preq_name[q->kind], q->block, why);
}

static void no_enforce(struct prog *g, uint32_t pi);
static void knobs_dropped(struct prog *g, uint32_t pi, uint8_t drops);

/*
 * Send q again: after every try timed out, or as a Get when a state change
 * was refused. State changes are not idempotent (IBA 14.2.5.6: Armed only
 * from Init), so when the answer to a Set that took effect is lost, the
 * retry is refused; reading the port tells whether it is where we wanted.
 */
static bool again(struct prog *g, struct preq *q, int status)
{
	if (g->err)
		return false;
	if (status == -ETIMEDOUT && q->round + 1 < PROG_ROUNDS)
		q->round++;
	else if (status == -EPROTO && q->kind == PREQ_PORT && q->new_state != SMP_PORT_NOP) {
		q->kind = PREQ_PORT_CHECK;
		q->r.method = SMP_GET;
		memset(q->r.data, 0, sizeof(q->r.data));
	} else
		return false;
	return txn_submit(g->x, &q->r, on_reply, q) == 0;
}

static void on_reply(void *arg, int status, const uint8_t *resp, size_t len)
{
	_cleanup_free_ struct preq *q = arg;
	struct prog *g = q->g;

	if (status < 0 && again(g, q, status)) {
		q = NULL; /* resubmitted */
		return;
	}
	if (status == 0) {
		switch (q->kind) {
		case PREQ_PORT:
		case PREQ_PORT_CHECK: {
			struct disc_port *lp = &g->live->port[q->idx];

			if (smp_data(resp, len, lp->raw) < 0 ||
			    smp_decode_port_info(resp, len, &lp->pi) < 0) {
				status = -EPROTO;
				break;
			}
			if (q->kind == PREQ_PORT_CHECK && lp->pi.state < q->new_state) {
				status = -EPROTO;
				break;
			}
			if (q->kind == PREQ_PORT && smp_port_info_enforces(q->r.data) &&
			    !smp_port_info_enforces(lp->raw))
				no_enforce(g, q->idx);
			if (q->kind == PREQ_PORT)
				knobs_dropped(g, q->idx, smp_port_info_knobs_dropped(q->r.data, lp->raw));
			if (q->new_state == SMP_PORT_ARMED)
				g->rep->armed++;
			else if (q->new_state == SMP_PORT_ACTIVE)
				g->rep->activated++;
			break;
		}
		case PREQ_SWITCH_INFO: {
			struct disc_node *ln = &g->live->node[g->ro->sw_node[q->idx]];

			if (smp_data(resp, len, ln->si_raw) < 0 ||
			    smp_decode_switch_info(resp, len, &ln->si) < 0)
				status = -EPROTO;
			break;
		}
		case PREQ_LFT_GET:
		case PREQ_LFT_SET:
			prog_lft_reply(g, q, resp, len);
			break;
		case PREQ_PKEY_GET:
		case PREQ_PKEY_SET:
			prog_pkey_reply(g, q, resp, len);
			break;
		case PREQ_SL2VL_GET:
		case PREQ_VLARB_GET:
		case PREQ_SL2VL_SET:
		case PREQ_VLARB_SET:
			prog_qos_reply(g, q, resp, len);
			break;
		case PREQ_MFT_GET:
		case PREQ_MFT_SET:
			prog_mft_reply(g, q, resp, len);
			break;
		}
	}
	if (status < 0)
		failed(g, q, status);
}

/*
 * A switch that answers a Set asking for partition enforcement with the
 * bits clear does not do it (ibsim keeps no such bits). Remembered, so
 * later sweeps do not ask again at every port; reported once.
 */
static void no_enforce(struct prog *g, uint32_t pi)
{
	const struct subnet_node *n = &g->sn->node[g->sn->port[pi].node];
	struct prog_lft *e = prog_cache_get(g->cache, n->guid);

	if (!e || e->no_enforce)
		return;
	e->no_enforce = true;
	diag_msg(&g->rep->msgs, "switch 0x%016" PRIx64 " \"%s\": does not keep PortInfo's "
		 "partition enforcement bits; its ports facing partition members do not filter",
		 n->guid, subnet_str(g->sn, n->desc));
}

/*
 * A node that answers a Set of VLHighLimit, HOQLife or VLStallCount with
 * other values does not keep them (ibsim keeps HOQLife only). Remembered,
 * so that later sweeps do not find the port "changed" every time and set
 * it again; reported once per node and field.
 */
static void knobs_dropped(struct prog *g, uint32_t pi, uint8_t drops)
{
	static const char *const name[] = { "VLHighLimit", "HOQLife", "VLStallCount" };
	const struct subnet_node *n = &g->sn->node[g->sn->port[pi].node];
	struct prog_lft *e;
	uint8_t fresh;

	if (!drops)
		return;
	e = prog_cache_get(g->cache, n->guid);
	if (!e || !(fresh = drops & (uint8_t)~e->drops))
		return;
	e->drops |= fresh;
	for (unsigned i = 0; i < 3; i++)
		if (fresh & (1u << i))
			diag_msg(&g->rep->msgs, "%s 0x%016" PRIx64 " \"%s\": does not keep PortInfo:%s "
				 "(set, and read back otherwise); not set again",
				 subnet_type_name(n->type), n->guid, subnet_str(g->sn, n->desc), name[i]);
}

static uint8_t knobs_drops(struct prog *g, uint32_t node)
{
	const struct prog_lft *e = prog_cache_find(g->cache, g->sn->node[node].guid);

	return e ? e->drops : 0;
}

/* ---- phase 1 and 3: ports -------------------------------------------------- */

/* IBA 14.2.5.6: MTU and VL encodings grow with the value, so the lower one fits both ends. */
static uint8_t min_u8(uint8_t a, uint8_t b)
{
	return a < b ? a : b;
}

bool prog_port_linked(const struct prog *g, uint32_t pi)
{
	const struct disc_port *lp = &g->live->port[pi];

	return lp->have_pi && lp->pi.state >= SMP_PORT_INIT && g->sn->port[pi].peer != SUBNET_NONE;
}

static bool enforce_broken(struct prog *g, uint32_t node)
{
	const struct prog_lft *e = prog_cache_find(g->cache, g->sn->node[node].guid);

	return e && e->no_enforce;
}

/* What this port's PortInfo should hold; false if the port is not ours to set. */
static bool want_port(struct prog *g, uint32_t pi, struct smp_port_set *s)
{
	const struct subnet *sn = g->sn;
	const struct subnet_port *p = &sn->port[pi];
	const struct disc_port *lp = &g->live->port[pi];
	bool sw = subnet_is_switch(sn, p->node);

	if (!lp->have_pi)
		return false;
	if (sw && p->num > 0) {
		/* IBA 14.2.5.6: LID, LMC and MasterSMLID of switch external ports are unused. */
		*s = (struct smp_port_set){ .lid = lp->pi.lid, .sm_lid = lp->pi.sm_lid,
					    .lmc = lp->pi.lmc, .subnet_prefix = lp->pi.subnet_prefix };
		/* IBA 10.9.4: a switch port facing partition members filters for them. */
		if (g->o->pkeys && g->live->node[p->node].si.enforce_cap && !enforce_broken(g, p->node))
			s->enforce = g->o->pkeys->enforce[pi] ? SMP_ENFORCE_ON : SMP_ENFORCE_OFF;
	} else {
		if (!p->lid)
			return false;
		*s = (struct smp_port_set){ .lid = p->lid, .sm_lid = g->o->sm_lid,
					    .lmc = sw ? 0 : p->lmc,
					    .subnet_prefix = g->o->subnet_prefix,
					    .client_rereg = g->o->client_rereg && !sw };
	}
	if (p->num > 0 || !sw) {
		const struct disc_port *peer;

		if (!prog_port_linked(g, pi))
			return false;
		peer = &g->live->port[p->peer];
		if (peer->have_pi) {
			struct qos_view v = { .sn = sn, .live = g->live, .ro = g->ro,
					      .qos = g->o->qos };

			s->neighbor_mtu = min_u8(lp->pi.mtu_cap, peer->pi.mtu_cap);
			s->op_vls = qos_port_op_vls(&v, pi, min_u8(lp->pi.vl_cap, peer->pi.vl_cap));
		}
	} else if (qos_has_data_vls(sn, pi)) {
		/*
		 * An enhanced port 0 has data VLs (a base one none, IBA 14.2.5.6): it runs
		 * those of its class, within its own VLCap, as loom route --qos says.
		 */
		struct qos_view v = { .sn = sn, .live = g->live, .ro = g->ro, .qos = g->o->qos };

		s->op_vls = qos_port_op_vls(&v, pi, lp->pi.vl_cap);
	}
	if (g->o->qos && g->o->qos_knobs) {
		const struct config_qos_class *q = &g->o->qos->qos[prog_port_class_of(g, pi)];

		s->knobs = (uint8_t)((SMP_KNOB_VL_HIGH | SMP_KNOB_HOQ | SMP_KNOB_STALL) &
				     ~knobs_drops(g, p->node));
		s->vl_high_limit = q->vl_high_limit;
		s->hoq_life = config_hoq_code(q->hoq_us);
		s->vl_stall = q->vl_stall_count;
	}
	if (g->o->mkey) {
		s->mkey = true;
		s->mkey_match = !sw || p->num == 0;
		s->m_key = mkey_derive(g->o->mkey->secret, sn->node[p->node].guid);
		s->mkey_protect = g->o->mkey->protect;
		s->mkey_lease = g->o->mkey->lease_s;
	}
	return true;
}

/*
 * The port that holds a node's M_Key (a switch's port 0, a CA port itself)
 * shows a key loomd did not set: another SM's (at protect 1 a Get without
 * the key reads it as 0 with the protect bits still set). IBA 14.2.4.
 */
static bool mkey_foreign(const struct prog *g, uint32_t pi)
{
	const struct subnet *sn = g->sn;
	const struct subnet_port *p = &sn->port[pi];
	const struct disc_port *lp;

	if (!g->o->mkey)
		return false;
	if (subnet_is_switch(sn, p->node))
		pi = sn->node[p->node].port_base;
	lp = &g->live->port[pi];
	if (!lp->have_pi)
		return false;
	return (lp->pi.m_key || lp->pi.mkey_protect) &&
	       lp->pi.m_key != mkey_derive(g->o->mkey->secret, sn->node[p->node].guid);
}

static void set_port(struct prog *g, uint32_t pi, const struct smp_port_set *s)
{
	struct smp_req r = { .method = SMP_SET, .attr_id = SMP_ATTR_PORT_INFO,
			     .attr_mod = g->sn->port[pi].num };

	if (!prog_port_route(g, pi, &r)) {
		char buf[160];

		g->rep->failed++;
		diag_msg(&g->rep->msgs, "%s: no directed route reaches it; left as it is",
			 prog_port_name(g, pi, buf, sizeof(buf)));
		return;
	}
	smp_port_info_set(g->live->port[pi].raw, s, r.data);
	if (s->state == SMP_PORT_NOP || s->state == SMP_PORT_ARMED)
		g->rep->port_sets++;
	prog_submit(g, &r, PREQ_PORT, pi, 0, s->state);
}

static void configure_ports(struct prog *g)
{
	for (uint32_t pi = 0; pi < g->sn->n_ports; pi++) {
		struct smp_port_set s;

		if (mkey_foreign(g, pi)) {
			char buf[160];

			/* Once a node: at its key-holding port. */
			if (!subnet_is_switch(g->sn, g->sn->port[pi].node) || g->sn->port[pi].num == 0) {
				g->rep->mkey_foreign++;
				diag_msg(&g->rep->msgs, "%s: holds an M_Key loomd did not set "
					 "(another SM's); left alone", prog_port_name(g, pi, buf,
					 sizeof(buf)));
			}
			continue;
		}
		if (!want_port(g, pi, &s))
			continue;
		/* IBA 14.2.5.6 / ibsim: Armed only from Init; switch port 0 is always Active. */
		if (g->live->port[pi].pi.state == SMP_PORT_INIT && prog_port_linked(g, pi))
			s.state = SMP_PORT_ARMED;
		if (s.state != SMP_PORT_NOP || !smp_port_info_matches(g->live->port[pi].raw, &s))
			set_port(g, pi, &s);
	}
}

static void activate_ports(struct prog *g)
{
	for (uint32_t pi = 0; pi < g->sn->n_ports; pi++) {
		struct smp_port_set s;

		if (g->live->port[pi].pi.state != SMP_PORT_ARMED || !want_port(g, pi, &s))
			continue;
		s.state = SMP_PORT_ACTIVE;
		set_port(g, pi, &s);
	}
}

static void count_active(struct prog *g)
{
	for (uint32_t pi = 0; pi < g->sn->n_ports; pi++) {
		if (g->sn->port[pi].num == 0 || !prog_port_linked(g, pi))
			continue;
		if (g->live->port[pi].pi.state == SMP_PORT_ACTIVE)
			g->rep->active++;
		else
			g->rep->not_active++;
	}
}

/* ---- the phases (2, the switches' LFTs, is prog_lft.c) --------------------------- */

const char *const prog_phase_name[PROG_PHASES] = {
	[PROG_PH_PORTS] = "ports", [PROG_PH_LFT] = "LFTs", [PROG_PH_PKEY] = "P_Keys",
	[PROG_PH_QOS] = "QoS",     [PROG_PH_MFT] = "MFTs", [PROG_PH_ACTIVE] = "activation",
};

static uint64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static int phase(struct prog *g, enum prog_phase ph, void (*fn)(struct prog *g))
{
	uint64_t t0 = mono_ms(), sent0 = txn_stats(g->x)->sent;
	int r;

	fn(g);
	r = txn_run(g->x, -1);
	g->rep->phase_ms[ph] += (unsigned)(mono_ms() - t0);
	g->rep->phase_smps[ph] += txn_stats(g->x)->sent - sent0;
	return g->err ? g->err : r;
}

int prog_run(struct txn *x, const struct subnet *sn, struct disc_live *live,
	     const struct route_out *ro, const struct prog_opts *o, struct prog_cache *cache,
	     struct prog_report *rep)
{
	struct prog g = { .x = x, .sn = sn, .live = live, .ro = ro, .o = o, .cache = cache,
			  .rep = rep };
	int r;

	/* Before phase 1 arms ports and sets LIDs: which nodes no SM had configured. */
	r = prog_fresh_nodes(sn, live, &g.fresh);
	if (r == 0)
		r = phase(&g, PROG_PH_PORTS, configure_ports);
	if (r == 0) {
		g.rerouted = calloc(PROG_LID_SPACE, 1);
		r = g.rerouted ? phase(&g, PROG_PH_LFT, prog_program_lfts) : -ENOMEM;
		free(g.rerouted);
		g.rerouted = NULL;
	}
	if (r == 0 && o->pkeys)
		r = phase(&g, PROG_PH_PKEY, prog_program_pkeys);
	if (r == 0 && o->qos && !o->qos_tables_later)
		r = phase(&g, PROG_PH_QOS, prog_program_qos);
	if (r == 0 && o->mcast)
		r = phase(&g, PROG_PH_MFT, prog_program_mfts);
	if (g.mft)
		mcast_want_free(g.mft);
	free(g.mft);
	if (r == 0)
		r = phase(&g, PROG_PH_ACTIVE, activate_ports);
	if (r == 0)
		count_active(&g);
	free(g.fresh);
	return r;
}

int prog_mft_run(struct txn *x, const struct subnet *sn, struct disc_live *live,
		 const struct route_out *ro, struct mcast *mc, struct prog_report *rep)
{
	struct prog_opts o = { .mcast = mc };
	struct prog g = { .x = x, .sn = sn, .live = live, .ro = ro, .o = &o, .rep = rep };
	int r;

	r = phase(&g, PROG_PH_MFT, prog_program_mfts);
	if (g.mft)
		mcast_want_free(g.mft);
	free(g.mft);
	return r;
}

void prog_report_free(struct prog_report *rep)
{
	diag_free(&rep->msgs);
}
