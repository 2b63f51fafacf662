/* SPDX-License-Identifier: MIT */
/*
 * SwitchInfoRecord (IBA 15.2.5.4), LinearForwardingTableRecord (15.2.5.6)
 * and MulticastForwardingTableRecord (15.2.5.8). SwitchInfo is what the
 * sweep read, with what loomd itself set (LinearFDBTop, PortStateChange
 * cleared); LFT blocks are the tables as programmed (the LFT cache), block
 * 0 up to the one holding the highest LID in use. MFT blocks are the
 * multicast tables as programmed (plan/mcast.h), each block and port
 * position that holds any port.
 */
#include <endian.h>
#include <string.h>

#include "sa/sa_priv.h"

static const struct sa_field swir_fields[] = {
	{ 0, 16 }, { 16, 0 },                           /* LID, reserved */
	{ 32, 16 }, { 48, 16 }, { 64, 16 }, { 80, 16 }, /* Linear/Random/MulticastFDBCap, LinearTop */
	{ 96, 8 }, { 104, 8 }, { 112, 8 },              /* DefaultPort, DefaultMcast(Not)Primary */
	{ 120, 5 }, { 125, 1 }, { 126, 2 },             /* LifeTime, PortStateChange, OptSL2VL */
	{ 128, 16 }, { 144, 16 },                       /* LIDsPerPort, PartitionEnforcementCap */
	{ 160, 1 }, { 161, 1 }, { 162, 1 }, { 163, 1 }, /* Inbound/OutboundEnf, FilterRaw In/Out */
	{ 164, 1 },                                     /* EnhancedPort0 */
};

static const struct sa_field lftr_fields[] = { { 0, 16 }, { 16, 16 } };
static const struct sa_field mftr_fields[] = {
	{ 0, 16 }, { 16, 4 }, { 20, 0 }, { 23, 9 }, /* LID, Position, reserved, BlockNum */
};

static bool switch_ok(const struct sa_query *q, uint32_t node, uint32_t *pi)
{
	const struct sa_src *s = q->src;
	uint8_t lmc;
	uint16_t base;

	if (!subnet_is_switch(s->sn, node))
		return false;
	*pi = subnet_port_idx(s->sn, node, 0);
	base = sa_endport_lid(s, *pi, &lmc);
	if ((q->req->comp_mask & 1) && !sa_lid_in(sa_tmpl16(q, 0), base, lmc))
		return false;
	return sa_visible(q, *pi);
}

static void walk_switches(struct sa_query *q)
{
	const struct sa_src *s = q->src;
	ib_switch_info_record_t r;
	uint32_t pi;

	q->mask &= ~1ULL;
	for (uint32_t node = 0; node < s->sn->n_nodes; node++) {
		const uint8_t *lft;
		uint32_t len;

		if (!switch_ok(q, node, &pi))
			continue;
		memset(&r, 0, sizeof(r));
		r.lid = htobe16(sa_endport_lid(s, pi, NULL));
		memcpy(&r.switch_info, s->live->node[node].si_raw, sizeof(r.switch_info));
		/* What programming set: LinearFDBTop, and PortStateChange cleared (IBA 14.2.5.4). */
		if (s->lfts && prog_cache_lft(s->lfts, s->sn->node[node].guid, &lft, &len) == 0)
			r.switch_info.lin_top = htobe16(s->max_lid);
		r.switch_info.life_state &= (uint8_t)~0x04;
		if (!sa_emit(q, &r))
			return;
	}
}

static void walk_lfts(struct sa_query *q)
{
	const struct sa_src *s = q->src;
	ib_lft_record_t r;
	uint32_t pi;

	q->mask &= ~1ULL;
	for (uint32_t node = 0; node < s->sn->n_nodes; node++) {
		const uint8_t *lft;
		uint32_t len, blocks;

		if (!s->lfts || !switch_ok(q, node, &pi) ||
		    prog_cache_lft(s->lfts, s->sn->node[node].guid, &lft, &len) < 0)
			continue;
		blocks = (uint32_t)s->max_lid / 64 + 1;
		if (blocks > len / 64)
			blocks = len / 64;
		for (uint32_t b = 0; b < blocks; b++) {
			memset(&r, 0, sizeof(r));
			r.lid = htobe16(sa_endport_lid(s, pi, NULL));
			r.block_num = htobe16((uint16_t)b);
			memcpy(r.lft, lft + b * 64, 64);
			if (!sa_emit(q, &r))
				return;
		}
	}
}

static bool mft_emit(struct sa_query *q, uint16_t lid, const struct mcast_mft *t, uint32_t b,
		     unsigned pos)
{
	uint16_t m[MCAST_MFT_BLOCK];
	ib_mft_record_t r;
	bool any = false;

	mcast_mft_block(t->e, t->n, b, pos, m);
	memset(&r, 0, sizeof(r));
	r.lid = htobe16(lid);
	/* IBA 15.2.5.8: Position in the top 4 bits, BlockNum in the low 9. */
	r.position_block_num = htobe16((uint16_t)(pos << 12 | b));
	for (unsigned i = 0; i < MCAST_MFT_BLOCK; i++) {
		r.mft[i] = htobe16(m[i]);
		any |= m[i] != 0;
	}
	return !any || sa_emit(q, &r);
}

static void walk_mfts(struct sa_query *q)
{
	const struct sa_src *s = q->src;
	uint32_t pi;

	q->mask &= ~1ULL;
	for (uint32_t node = 0; s->mcast && node < s->sn->n_nodes; node++) {
		const struct mcast_mft *t;
		unsigned npos;
		uint16_t lid;

		if (!switch_ok(q, node, &pi) || !(t = mcast_mft_find(s->mcast, s->sn->node[node].guid)))
			continue;
		lid = sa_endport_lid(s, pi, NULL);
		npos = s->sn->node[node].nports / MCAST_MFT_POS + 1;
		for (uint32_t b = 0; b < t->n / MCAST_MFT_BLOCK; b++)
			for (unsigned pos = 0; pos < npos; pos++)
				if (!mft_emit(q, lid, t, b, pos))
					return;
	}
}

const struct sa_attr sa_attr_switch_info = {
	.id = 0x0014, .name = "SwitchInfoRecord", .size = sizeof(ib_switch_info_record_t),
	.methods = SA_M_GET | SA_M_GETTABLE, .fields = swir_fields,
	.n_fields = sizeof(swir_fields) / sizeof(swir_fields[0]), .walk = walk_switches,
};

const struct sa_attr sa_attr_lft = {
	.id = 0x0015, .name = "LinearForwardingTableRecord", .size = sizeof(ib_lft_record_t),
	.methods = SA_M_GET | SA_M_GETTABLE, .fields = lftr_fields,
	.n_fields = sizeof(lftr_fields) / sizeof(lftr_fields[0]), .walk = walk_lfts,
};

const struct sa_attr sa_attr_mft = {
	.id = 0x0017, .name = "MulticastForwardingTableRecord", .size = sizeof(ib_mft_record_t),
	.methods = SA_M_GET | SA_M_GETTABLE, .fields = mftr_fields,
	.n_fields = sizeof(mftr_fields) / sizeof(mftr_fields[0]), .walk = walk_mfts,
};
