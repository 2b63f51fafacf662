/* SPDX-License-Identifier: MIT */
/*
 * LinkRecord (IBA 15.2.5.13): one per linked port, so each link twice, once
 * from each end; a switch's ports go by its port 0 LID.
 */
#include <endian.h>
#include <string.h>

#include "sa/sa_priv.h"

static const struct sa_field lr_fields[] = {
	{ 0, 16 }, { 16, 8 }, { 24, 8 }, { 32, 16 }, /* FromLID, FromPort, ToPort, ToLID */
};

static bool lid_ok(const struct sa_query *q, unsigned bit, size_t off, uint32_t pi)
{
	uint8_t lmc;
	uint16_t base = sa_endport_lid(q->src, pi, &lmc);

	return !(q->req->comp_mask >> bit & 1) || sa_lid_in(sa_tmpl16(q, off), base, lmc);
}

static void walk_links(struct sa_query *q)
{
	const struct sa_src *s = q->src;
	ib_link_record_t r;

	/* Both LIDs are matched by range (LMC), the port numbers by sa_emit. */
	q->mask &= ~(1ULL << 0 | 1ULL << 3);
	for (uint32_t pi = 0; pi < s->sn->n_ports; pi++) {
		uint32_t peer = s->sn->port[pi].peer;

		if (peer == SUBNET_NONE || !lid_ok(q, 0, 0, pi) || !lid_ok(q, 3, 4, peer) ||
		    !sa_visible(q, pi) || !sa_visible(q, peer))
			continue;
		memset(&r, 0, sizeof(r));
		r.from_lid = htobe16(sa_endport_lid(s, pi, NULL));
		r.from_port_num = s->sn->port[pi].num;
		r.to_port_num = s->sn->port[peer].num;
		r.to_lid = htobe16(sa_endport_lid(s, peer, NULL));
		if (!sa_emit(q, &r))
			return;
	}
}

const struct sa_attr sa_attr_link = {
	.id = 0x0020, .name = "LinkRecord", .size = sizeof(ib_link_record_t),
	.methods = SA_M_GET | SA_M_GETTABLE, .fields = lr_fields,
	.n_fields = sizeof(lr_fields) / sizeof(lr_fields[0]), .walk = walk_links,
};
