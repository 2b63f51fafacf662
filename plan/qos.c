/* SPDX-License-Identifier: MIT */
/*
 * What programming puts in a port's QoS tables, as pure functions of the
 * model, what the sweep read and loom.yaml's classes: prog_qos.c diffs the
 * ports against them, the SA's SL2VL and VLArb records answer with them.
 * One place, so the two cannot disagree; no MADs here, so the SA (and its
 * fuzzer) can link it alone.
 */
#include <string.h>

#include <iba/ib_types.h>

#include "config/config.h"
#include "plan/qos.h"

/* The port class of port pi: which of loom.yaml's qos classes it takes. */
int qos_port_class(const struct subnet *sn, uint32_t pi)
{
	const struct subnet_port *p = &sn->port[pi];
	uint8_t type = sn->node[p->node].type;

	if (type == NODE_SWITCH)
		return p->num ? CONFIG_CLASS_SWITCH_EXTERNAL : CONFIG_CLASS_SWITCH_PORT0;
	return type == NODE_ROUTER ? CONFIG_CLASS_ROUTER : CONFIG_CLASS_CA;
}

/* IBA 14.2.5.6 OperationalVLs code -> data VLs: 1 -> 1, 2 -> 2, 3 -> 4, 4 -> 8, 5 -> 15. */
unsigned qos_vls_of(uint8_t code)
{
	static const unsigned n[] = { 1, 1, 2, 4, 8, 15 };

	return code < 6 ? n[code] : 1;
}

/* OperationalVLs code (IBA 14.2.5.6) of the fewest VLs holding n: 1, 2, 4, 8, 15. */
static uint8_t vls_code(unsigned n)
{
	return n <= 1 ? 1 : n <= 2 ? 2 : n <= 4 ? 3 : n <= 8 ? 4 : 5;
}

static uint8_t min_u8(uint8_t a, uint8_t b)
{
	return a < b ? a : b;
}

uint8_t qos_port_op_vls(const struct qos_view *v, uint32_t pi, uint8_t cap)
{
	uint8_t vls = cap;

	/* loom.yaml's operational VLs for the class, within what both ends can. */
	if (v->qos)
		vls = min_u8(vls, config_op_vls_code(
			v->qos->qos[qos_port_class(v->sn, pi)].operational_vls));
	/* An engine that spreads routes over VLs needs them all (fabric/prog_qos.c). */
	if (v->ro && v->ro->sl && vls < vls_code(v->ro->n_vls))
		vls = min_u8(cap, vls_code(v->ro->n_vls));
	return vls;
}

uint8_t qos_switch_vl_cap(const struct subnet *sn, const struct disc_live *live)
{
	unsigned cap = 0;

	for (uint32_t pi = 0; pi < sn->n_ports; pi++) {
		const struct subnet_port *p = &sn->port[pi];
		unsigned n;

		if (!p->num || p->peer == SUBNET_NONE || !subnet_is_switch(sn, p->node) ||
		    !live->port[pi].have_pi)
			continue;
		n = qos_vls_of(live->port[pi].pi.vl_cap);
		if (!cap || n < cap)
			cap = n;
	}
	return (uint8_t)cap;
}

bool qos_has_sl2vl(const struct subnet *sn, const struct disc_live *live, uint32_t pi)
{
	const struct subnet_port *p = &sn->port[pi];

	if (!live)
		return true;
	if (subnet_is_switch(sn, p->node))
		pi = subnet_port_idx(sn, p->node, 0);
	return live->port[pi].have_pi && (live->port[pi].pi.cap_mask & SMP_CAP_SL_MAP);
}

bool qos_has_data_vls(const struct subnet *sn, uint32_t pi)
{
	const struct subnet_port *p = &sn->port[pi];

	if (p->num)
		return true;
	return subnet_is_switch(sn, p->node) && (p->flags & SUBNET_PORT_ENHANCED0);
}

/* Is the class's map the default one, SL n -> VL n modulo its operational VLs? */
static bool spread_map(const struct config_qos_class *c)
{
	unsigned n = c->operational_vls ? c->operational_vls : 1;

	for (unsigned sl = 0; sl < SMP_NUM_SL; sl++)
		if (c->sl2vl[sl] != sl % n)
			return false;
	return true;
}

/* The OperationalVLs code port pi runs: as read (and set) on a live fabric, else planned. */
static uint8_t port_op_vls(const struct qos_view *v, uint32_t pi)
{
	return v->live ? v->live->port[pi].pi.op_vls : qos_port_op_vls(v, pi, QOS_DRY_VL_CAP);
}

/*
 * The table port pi (an output port) should hold; *folded if VLs had to be
 * folded (or, for the engine's map, are missing): not for the default map,
 * which spreads the SLs over whatever the port runs. Public (plan/qos.h) so that
 * the SA answers with exactly what programming sends.
 */
void qos_want_sl2vl(const struct qos_view *v, uint32_t pi, uint8_t vl[SMP_NUM_SL],
		    bool *folded)
{
	const struct config_qos_class *c = &v->qos->qos[qos_port_class(v->sn, pi)];
	unsigned n = qos_vls_of(port_op_vls(v, pi));

	*folded = false;
	if (v->ro && v->ro->sl) {
		memcpy(vl, v->ro->sl2vl, SMP_NUM_SL);
		for (unsigned sl = 0; sl < SMP_NUM_SL; sl++)
			*folded |= vl[sl] != 15 && vl[sl] >= n;
		return;
	}
	for (unsigned sl = 0; sl < SMP_NUM_SL; sl++) {
		vl[sl] = c->sl2vl[sl];
		if (vl[sl] != 15 && vl[sl] >= n) { /* VL15: the SL is dropped, on purpose */
			vl[sl] = (uint8_t)(vl[sl] % n);
			*folded = true;
		}
	}
	/* The default map (SL n -> VL n % VLs) folds by design: it spreads over what runs. */
	if (*folded && spread_map(c))
		*folded = false;
}

/* Entries of one VLArb block: the class's list from entry 0, within the port's room. */
unsigned qos_want_vlarb(const struct qos_view *v, uint32_t pi, enum smp_vlarb_block b,
			struct smp_vlarb e[SMP_VLARB_BLOCK])
{
	const struct config_qos_class *c = &v->qos->qos[qos_port_class(v->sn, pi)];
	ib_port_info_t w;
	bool high = b == SMP_VLARB_HIGH_0_31;
	const struct config_vlarb *list = high ? c->high : c->low;
	unsigned n = high ? c->n_high : c->n_low, cap;

	if (v->live) {
		memcpy(&w, v->live->port[pi].raw, sizeof(w));
		cap = high ? w.vl_arb_high_cap : w.vl_arb_low_cap;
	} else {
		cap = QOS_DRY_VLARB_CAP;
	}
	if (cap > SMP_VLARB_BLOCK)
		cap = SMP_VLARB_BLOCK;
	memset(e, 0, SMP_VLARB_BLOCK * sizeof(*e));
	for (unsigned i = 0; i < n && i < cap; i++)
		e[i] = (struct smp_vlarb){ .vl = list[i].vl, .weight = list[i].weight };
	return cap;
}

