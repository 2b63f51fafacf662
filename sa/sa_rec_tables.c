/* SPDX-License-Identifier: MIT */
/*
 * P_KeyTableRecord (IBA 15.2.5.11), SL2VLMappingTableRecord (15.2.5.10)
 * and VLArbitrationTableRecord (15.2.5.9): the tables as loomd programmed
 * them. P_Keys come from the partition plan (sa_src.pkeys, the plan
 * prog_pkey.c sent); SL-to-VL and VL arbitration from qos_want_sl2vl and
 * qos_want_vlarb, the functions programming itself diffs against, so the
 * SA and the fabric cannot disagree.
 */
#include <endian.h>
#include <string.h>

#include "sa/sa_priv.h"

static const struct sa_field pktr_fields[] = {
	{ 0, 16 }, { 16, 16 }, { 32, 8 }, { 40, 0 }, /* LID, BlockNum, PortNum, reserved */
	{ 64, 512 },                                 /* P_KeyTable */
};
static const struct sa_field slvl_fields[] = {
	{ 0, 16 }, { 16, 8 }, { 24, 8 }, { 32, 0 }, /* LID, InputPortNum, OutputPortNum, reserved */
	{ 64, 64 },                                 /* SLtoVLMappingTable */
};
static const struct sa_field vlarb_fields[] = {
	{ 0, 16 }, { 16, 8 }, { 24, 8 }, { 32, 0 }, /* LID, OutputPortNum, BlockNum, reserved */
	{ 64, 512 },                                /* VLArbitrationTable */
};

/* Bit 0 of every family here: the LID, LMC-aware, a switch's ports by its port 0 LID. */
static bool lid_ok(const struct sa_query *q, uint32_t pi)
{
	uint8_t lmc;
	uint16_t base = sa_endport_lid(q->src, pi, &lmc);

	return !(q->req->comp_mask & 1) || sa_lid_in(sa_tmpl16(q, 0), base, lmc);
}

/*
 * A port whose tables programming looks after (prog_qos.c's qos_port): a
 * switch's port 0, and every linked port the sweep read PortInfo of.
 */
static bool table_port(const struct sa_src *s, uint32_t pi)
{
	const struct subnet_port *p = &s->sn->port[pi];

	if (!s->live->port[pi].have_pi)
		return false;
	if (subnet_is_switch(s->sn, p->node) && p->num == 0)
		return true;
	return p->num && p->peer != SUBNET_NONE;
}

/*
 * The P_Keys port pi holds: the plan's, cut to what the table has room
 * for as prog_pkey.c cuts them (a switch's external port: SwitchInfo's
 * PartitionEnforcementCap; else NodeInfo:PartitionCap). A port the plan
 * leaves alone holds the default full-member key at index 0 (IBA 10.9.1.2).
 */
static const uint16_t *port_pkeys(const struct sa_src *s, uint32_t pi, uint32_t *n)
{
	static const uint16_t dflt = 0xffff;
	const struct pkey_plan *pl = s->pkeys;
	const struct subnet_port *p = &s->sn->port[pi];
	const struct disc_node *ln = &s->live->node[p->node];
	uint32_t cnt, cap;

	if (!pl || !(cnt = pkey_count(pl, pi))) {
		*n = 1;
		return &dflt;
	}
	cap = subnet_is_switch(s->sn, p->node) && p->num ? ln->si.enforce_cap : ln->partition_cap;
	*n = cap && cap < cnt ? cap : cnt;
	return pl->key + pl->off[pi];
}

static void walk_pkeys(struct sa_query *q)
{
	const struct sa_src *s = q->src;
	ib_pkey_table_record_t r;

	q->mask &= ~1ULL;
	for (uint32_t pi = 0; pi < s->sn->n_ports; pi++) {
		const uint16_t *k;
		uint32_t n, blocks;

		if (!table_port(s, pi) || !lid_ok(q, pi) || !sa_visible(q, pi))
			continue;
		k = port_pkeys(s, pi, &n);
		/* IBA 14.2.5.7: 32 entries a block; the blocks that hold keys. */
		blocks = (n + IB_NUM_PKEY_ELEMENTS_IN_BLOCK - 1) / IB_NUM_PKEY_ELEMENTS_IN_BLOCK;
		for (uint32_t b = 0; b < blocks; b++) {
			memset(&r, 0, sizeof(r));
			r.lid = htobe16(sa_endport_lid(s, pi, NULL));
			r.block_num = htobe16((uint16_t)b);
			r.port_num = s->sn->port[pi].num;
			for (uint32_t i = 0; i < IB_NUM_PKEY_ELEMENTS_IN_BLOCK; i++)
				if (b * IB_NUM_PKEY_ELEMENTS_IN_BLOCK + i < n)
					r.pkey_tbl.pkey_entry[i] =
						htobe16(k[b * IB_NUM_PKEY_ELEMENTS_IN_BLOCK + i]);
			if (!sa_emit(q, &r))
				return;
		}
	}
}

static struct qos_view src_qos_view(const struct sa_src *s)
{
	return (struct qos_view){ .sn = s->sn, .live = s->live, .ro = s->routes,
				       .qos = s->qos };
}

/* One SL2VL record: the table of output port out (IBA 14.2.5.8: it is the output port's). */
static bool emit_sl2vl(struct sa_query *q, uint32_t at, uint8_t in, uint8_t out, uint32_t out_pi)
{
	struct qos_view v = src_qos_view(q->src);
	ib_slvl_table_record_t r;
	uint8_t vl[SMP_NUM_SL];
	bool folded;

	qos_want_sl2vl(&v, out_pi, vl, &folded);
	memset(&r, 0, sizeof(r));
	r.lid = htobe16(sa_endport_lid(q->src, at, NULL));
	r.in_port_num = in;
	r.out_port_num = out;
	for (unsigned sl = 0; sl < SMP_NUM_SL; sl += 2)
		r.slvl_tbl.raw_vl_by_sl[sl / 2] = (uint8_t)(vl[sl] << 4 | (vl[sl + 1] & 0x0f));
	return sa_emit(q, &r);
}

static void walk_sl2vl(struct sa_query *q)
{
	const struct sa_src *s = q->src;

	if (!s->qos)
		return;
	q->mask &= ~1ULL;
	for (uint32_t pi = 0; pi < s->sn->n_ports; pi++) {
		const struct subnet_port *p = &s->sn->port[pi];
		const struct subnet_node *n = &s->sn->node[p->node];

		/* IBA 14.2.5.6: a port without IsSLMappingSupported has no such table. */
		if (!table_port(s, pi) || !qos_has_sl2vl(s->sn, s->live, pi) || !lid_ok(q, pi) ||
		    !sa_visible(q, pi))
			continue;
		if (!subnet_is_switch(s->sn, p->node)) {
			/* A CA port's one table: both port numbers reserved (IBA 15.2.5.10). */
			if (!emit_sl2vl(q, pi, 0, 0, pi))
				return;
			continue;
		}
		/* A switch: one table per (input, output) pair; pi is the output port. */
		if (!qos_has_data_vls(s->sn, pi))
			continue; /* base port 0: none out of it (plan/qos.h) */
		for (unsigned in = 0; in <= n->nports; in++) {
			uint32_t ip = subnet_port_idx(s->sn, p->node, in);

			if (in == p->num || !table_port(s, ip))
				continue;
			if (!emit_sl2vl(q, pi, (uint8_t)in, p->num, pi))
				return;
		}
	}
}

static void walk_vlarb(struct sa_query *q)
{
	static const enum smp_vlarb_block blocks[] = { SMP_VLARB_LOW_0_31, SMP_VLARB_HIGH_0_31 };
	const struct sa_src *s = q->src;
	struct qos_view v = src_qos_view(s);

	if (!s->qos)
		return;
	q->mask &= ~1ULL;
	for (uint32_t pi = 0; pi < s->sn->n_ports; pi++) {
		const struct subnet_port *p = &s->sn->port[pi];

		/* Arbitration on the ports with data VLs (plan/qos.h): not a base port 0. */
		if (!table_port(s, pi) || !qos_has_data_vls(s->sn, pi) || !lid_ok(q, pi) ||
		    !sa_visible(q, pi))
			continue;
		for (unsigned b = 0; b < 2; b++) {
			struct smp_vlarb e[SMP_VLARB_BLOCK];
			ib_vl_arb_table_record_t r;

			if (!qos_want_vlarb(&v, pi, blocks[b], e))
				continue;
			memset(&r, 0, sizeof(r));
			r.lid = htobe16(sa_endport_lid(s, pi, NULL));
			r.port_num = p->num;
			r.block_num = (uint8_t)blocks[b];
			for (unsigned i = 0; i < SMP_VLARB_BLOCK; i++) {
				r.vl_arb_tbl.vl_entry[i].vl = e[i].vl;
				r.vl_arb_tbl.vl_entry[i].weight = e[i].weight;
			}
			if (!sa_emit(q, &r))
				return;
		}
	}
}

const struct sa_attr sa_attr_pkey_table = {
	.id = 0x0033, .name = "P_KeyTableRecord", .size = sizeof(ib_pkey_table_record_t),
	.methods = SA_M_GET | SA_M_GETTABLE, .flags = SA_A_TRUSTED_ONLY, .fields = pktr_fields,
	.n_fields = sizeof(pktr_fields) / sizeof(pktr_fields[0]), .walk = walk_pkeys,
};

const struct sa_attr sa_attr_sl2vl = {
	.id = 0x0013, .name = "SL2VLMappingTableRecord", .size = sizeof(ib_slvl_table_record_t),
	.methods = SA_M_GET | SA_M_GETTABLE, .fields = slvl_fields,
	.n_fields = sizeof(slvl_fields) / sizeof(slvl_fields[0]), .walk = walk_sl2vl,
};

const struct sa_attr sa_attr_vlarb = {
	.id = 0x0036, .name = "VLArbitrationTableRecord", .size = sizeof(ib_vl_arb_table_record_t),
	.methods = SA_M_GET | SA_M_GETTABLE, .fields = vlarb_fields,
	.n_fields = sizeof(vlarb_fields) / sizeof(vlarb_fields[0]), .walk = walk_vlarb,
};
