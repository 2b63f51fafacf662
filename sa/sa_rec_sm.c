/* SPDX-License-Identifier: MIT */
/*
 * SMInfoRecord (IBA 15.2.5.14): the SMs the SA knows of: this SM, and the
 * others as the SM last read them (IBA 14.4). ClassPortInfo (IBA 13.4.8.1, 15.2.5.1): what the SA supports and
 * how long a client should wait for it.
 */
#include <endian.h>
#include <string.h>

#include "sa/sa_priv.h"

/* IBA 13.4.6.2: RespTimeValue 18 is 4.096 us * 2^18, about 1.07 s. */
#define SA_RESP_TIME 18

static const struct sa_field smir_fields[] = {
	{ 0, 16 }, { 16, 0 }, { 32, 64 }, { 96, 64 }, /* LID, reserved, GUID, SM_Key */
	{ 160, 32 }, { 192, 4 }, { 196, 4 },         /* ActCount, Priority, SMState */
};

static void emit_sm(struct sa_query *q, const struct sa_sm *sm, uint32_t pi)
{
	const struct sa_src *s = q->src;
	ib_sminfo_record_t r;
	uint16_t lid = s->sn->port[pi].lid;

	if (((q->req->comp_mask & 1) && sa_tmpl16(q, 0) != lid) || !sa_visible(q, pi))
		return;
	memset(&r, 0, sizeof(r));
	r.lid = htobe16(lid);
	r.sm_info.guid = htobe64(sm->guid);
	/* IBA 14.4.3: the SM_Key only to a requester that proves it knows it. */
	r.sm_info.sm_key = q->trusted ? htobe64(sm->sm_key) : 0;
	r.sm_info.act_count = htobe32(sm->act_count);
	r.sm_info.pri_state = (uint8_t)((sm->priority & 0xf) << 4 | (sm->state & 0xf));
	(void)sa_emit(q, &r);
}

static void walk_sms(struct sa_query *q)
{
	const struct sa_src *s = q->src;

	q->mask &= ~1ULL;
	emit_sm(q, &s->sm, s->sm_port);
	for (unsigned i = 0; i < s->n_others && i < SA_SM_OTHERS; i++) {
		uint32_t pi = sa_port_of_guid(s, s->others[i].guid);

		if (pi != SUBNET_NONE && pi != s->sm_port)
			emit_sm(q, &s->others[i], pi);
	}
}

static void walk_class_port_info(struct sa_query *q)
{
	ib_class_port_info_t c;

	/* Not a record: no component mask applies. */
	q->mask = 0;
	memset(&c, 0, sizeof(c));
	c.base_ver = 1;
	c.class_ver = SA_CLASS_VERSION;
	/* CapabilityMask 0: no multicast, no multipath, no traps forwarded (yet). */
	c.cap_mask2_resp_time = htobe32(SA_RESP_TIME);
	(void)sa_emit(q, &c);
}

const struct sa_attr sa_attr_sm_info = {
	.id = 0x0018, .name = "SMInfoRecord", .size = sizeof(ib_sminfo_record_t),
	.methods = SA_M_GET | SA_M_GETTABLE, .fields = smir_fields,
	.n_fields = sizeof(smir_fields) / sizeof(smir_fields[0]), .walk = walk_sms,
};

const struct sa_attr sa_attr_class_port_info = {
	.id = 0x0001, .name = "ClassPortInfo", .size = sizeof(ib_class_port_info_t),
	.methods = SA_M_GET, .walk = walk_class_port_info,
};
