/* SPDX-License-Identifier: MIT */
/*
 * NodeRecord (IBA 15.2.5.2), PortInfoRecord (15.2.5.3) and GUIDInfoRecord
 * (15.2.5.18): one NodeRecord per end port (a CA's linked ports, a
 * switch's port 0), one PortInfoRecord per port the sweep read PortInfo
 * of, one GUIDInfoRecord block per eight GUIDs an end port can hold.
 */
#include <endian.h>
#include <string.h>

#include "sa/sa_priv.h"

/* Component-mask bit i -> field; offsets in bits from the record's start. */
static const struct sa_field nr_fields[] = {
	{ 0, 16 },   /* LID: matched by range in walk_nodes */
	{ 16, 0 },   /* reserved */
	{ 32, 8 },   { 40, 8 },   { 48, 8 },  { 56, 8 }, /* Base/ClassVersion, NodeType, NumPorts */
	{ 64, 64 },  { 128, 64 }, { 192, 64 },          /* SystemImageGUID, NodeGUID, PortGUID */
	{ 256, 16 }, { 272, 16 }, { 288, 32 },          /* PartitionCap, DeviceID, Revision */
	{ 320, 8 },  { 328, 24 },                       /* LocalPortNum, VendorID */
	{ 352, 512 },                                   /* NodeDescription */
};

/* PortInfo starts at byte 4 (bit 32); IBA 14.2.5.6 gives each field's place. */
#define PI(b, w) { 32 + (b), (w) }
static const struct sa_field pir_fields[] = {
	{ 0, 16 }, { 16, 8 }, { 24, 0 },                 /* EndportLID, PortNum, Options */
	PI(0, 64), PI(64, 64), PI(128, 16), PI(144, 16), /* M_Key, GIDPrefix, LID, MasterSMLID */
	PI(160, 32), PI(192, 16), PI(208, 16),           /* CapabilityMask, DiagCode, LeasePeriod */
	PI(224, 8), PI(232, 8), PI(240, 8), PI(248, 8),  /* LocalPortNum, LinkWidth E/S/A */
	PI(256, 4), PI(260, 4), PI(264, 4), PI(268, 4),  /* SpeedSupported, State, Phys, DownDefault */
	PI(272, 2), PI(274, 0), PI(277, 3),              /* MKeyProtectBits, reserved, LMC */
	PI(280, 4), PI(284, 4), PI(288, 4), PI(292, 4),  /* SpeedActive/Enabled, NeighborMTU, SMSL */
	PI(296, 4), PI(300, 4), PI(304, 8), PI(312, 8),  /* VLCap, InitType, VLHighLimit, ArbHighCap */
	PI(320, 8), PI(328, 4), PI(332, 4), PI(336, 3),  /* ArbLowCap, InitTypeReply, MTUCap, Stall */
	PI(339, 5), PI(344, 4), PI(348, 1), PI(349, 1),  /* HOQLife, OperationalVLs, PartEnf In/Out */
	PI(350, 1), PI(351, 1), PI(352, 16), PI(368, 16), /* FilterRaw In/Out, M_Key/P_Key viol. */
	PI(384, 16), PI(400, 8), PI(408, 1), PI(409, 0), /* Q_Key viol., GUIDCap, ClientRereg, resv */
	PI(411, 5), PI(416, 0), PI(419, 5), PI(424, 4),  /* SubnetTimeOut, resv, RespTime, PhyErrors */
	PI(428, 4), PI(432, 16), PI(448, 0), PI(456, 24), /* Overrun, MaxCreditHint, resv, RTLatency */
	PI(480, 16), PI(496, 4), PI(500, 4), PI(504, 0), /* CapMask2, SpeedExt Active/Supported, resv */
	PI(507, 5),                                      /* LinkSpeedExtEnabled */
};

static const struct sa_field gir_fields[] = {
	{ 0, 16 }, { 16, 8 }, { 24, 0 }, { 32, 0 },
	{ 64, 64 }, { 128, 64 }, { 192, 64 }, { 256, 64 },
	{ 320, 64 }, { 384, 64 }, { 448, 64 }, { 512, 64 },
};

/* The query's LID test for an end port (bit 0 of every family here). */
static bool lid_ok(const struct sa_query *q, uint32_t pi)
{
	uint8_t lmc;
	uint16_t base = sa_endport_lid(q->src, pi, &lmc);

	return !(q->req->comp_mask & 1) || sa_lid_in(sa_tmpl16(q, 0), base, lmc);
}

/* The ports a query by LID can name (all, without one): see sa_lid_ports. */
static void lid_range(const struct sa_query *q, uint32_t *first, uint32_t *end)
{
	sa_lid_ports(q->src, q->req->comp_mask & 1, sa_tmpl16(q, 0), first, end);
}

/* The end ports: a switch's port 0, a CA's or router's ports the sweep reached. */
static bool is_endport(const struct sa_src *s, uint32_t pi)
{
	const struct subnet_port *p = &s->sn->port[pi];

	if (subnet_is_switch(s->sn, p->node))
		return p->num == 0;
	return p->num && s->live->port[pi].have_pi;
}

static void node_record(const struct sa_src *s, uint32_t pi, ib_node_record_t *r)
{
	const struct subnet *sn = s->sn;
	const struct subnet_port *p = &sn->port[pi];
	const struct subnet_node *n = &sn->node[p->node];
	const struct disc_node *ln = &s->live->node[p->node];
	const char *desc = subnet_str(sn, n->desc);
	bool sw = n->type == NODE_SWITCH;

	memset(r, 0, sizeof(*r));
	r->lid = htobe16(sa_endport_lid(s, pi, NULL));
	r->node_info.base_version = 1;
	r->node_info.class_version = 1;
	r->node_info.node_type = n->type;
	r->node_info.num_ports = n->nports;
	r->node_info.sys_guid = htobe64(n->sysguid);
	r->node_info.node_guid = htobe64(n->guid);
	r->node_info.port_guid = htobe64(sw ? n->port0_guid : p->guid);
	r->node_info.partition_cap = htobe16(ln->partition_cap);
	r->node_info.device_id = htobe16(n->device_id);
	r->node_info.revision = htobe32(ln->revision);
	r->node_info.port_num_vendor_id = htobe32((uint32_t)p->num << 24 | (n->vendor_id & 0xffffff));
	/* IBA 14.2.5.2: 64 bytes, NUL-padded, not NUL-terminated when full. */
	if (desc)
		memcpy(r->node_desc.description, desc, strnlen(desc, IB_NODE_DESCRIPTION_SIZE));
}

static void walk_nodes(struct sa_query *q)
{
	const struct sa_src *s = q->src;
	ib_node_record_t r;
	uint32_t first, end;

	q->mask &= ~1ULL;
	lid_range(q, &first, &end);
	for (uint32_t pi = first; pi < end; pi++) {
		if (!is_endport(s, pi) || !lid_ok(q, pi) || !sa_visible(q, pi))
			continue;
		node_record(s, pi, &r);
		if (!sa_emit(q, &r))
			return;
	}
}

static void walk_ports(struct sa_query *q)
{
	const struct sa_src *s = q->src;
	ib_portinfo_record_t r;
	uint32_t first, end;

	q->mask &= ~1ULL;
	lid_range(q, &first, &end);
	for (uint32_t pi = first; pi < end; pi++) {
		const struct subnet_port *p = &s->sn->port[pi];

		if (!s->live->port[pi].have_pi || !lid_ok(q, pi) || !sa_visible(q, pi))
			continue;
		memset(&r, 0, sizeof(r));
		r.lid = htobe16(sa_endport_lid(s, pi, NULL));
		r.port_num = p->num;
		memcpy(&r.port_info, s->live->port[pi].raw, sizeof(r.port_info));
		/* The M_Key protects the port; the SA does not hand it out (as OpenSM). */
		r.port_info.m_key = 0;
		if (!sa_emit(q, &r))
			return;
	}
}

static void walk_guids(struct sa_query *q)
{
	const struct sa_src *s = q->src;
	ib_guidinfo_record_t r;
	uint32_t first, end;

	q->mask &= ~1ULL;
	lid_range(q, &first, &end);
	for (uint32_t pi = first; pi < end; pi++) {
		const struct subnet_port *p = &s->sn->port[pi];
		const struct subnet_node *n = &s->sn->node[p->node];
		ib_port_info_t w;
		unsigned blocks;

		if (!is_endport(s, pi) || !lid_ok(q, pi) || !sa_visible(q, pi))
			continue;
		memcpy(&w, s->live->port[pi].raw, sizeof(w));
		/* IBA 14.2.5.5: GUIDCap entries, eight to a block; entry 0 is the port GUID. */
		blocks = ((unsigned)w.guid_cap + GUID_TABLE_MAX_ENTRIES - 1) / GUID_TABLE_MAX_ENTRIES;
		if (!blocks)
			blocks = 1;
		for (unsigned b = 0; b < blocks; b++) {
			memset(&r, 0, sizeof(r));
			r.lid = htobe16(sa_endport_lid(s, pi, NULL));
			r.block_num = (uint8_t)b;
			if (b == 0)
				r.guid_info.guid[0] = htobe64(n->type == NODE_SWITCH ? n->port0_guid
										 : p->guid);
			if (!sa_emit(q, &r))
				return;
		}
	}
}

const struct sa_attr sa_attr_node = {
	.id = 0x0011, .name = "NodeRecord", .size = sizeof(ib_node_record_t),
	.methods = SA_M_GET | SA_M_GETTABLE, .fields = nr_fields,
	.n_fields = sizeof(nr_fields) / sizeof(nr_fields[0]), .walk = walk_nodes,
};

const struct sa_attr sa_attr_port_info = {
	.id = 0x0012, .name = "PortInfoRecord", .size = sizeof(ib_portinfo_record_t),
	.methods = SA_M_GET | SA_M_GETTABLE, .fields = pir_fields,
	.n_fields = sizeof(pir_fields) / sizeof(pir_fields[0]), .walk = walk_ports,
};

const struct sa_attr sa_attr_guid_info = {
	.id = 0x0030, .name = "GUIDInfoRecord", .size = sizeof(ib_guidinfo_record_t),
	.methods = SA_M_GET | SA_M_GETTABLE, .fields = gir_fields,
	.n_fields = sizeof(gir_fields) / sizeof(gir_fields[0]), .walk = walk_guids,
};
