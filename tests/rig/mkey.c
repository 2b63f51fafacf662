/* SPDX-License-Identifier: MIT */
/*
 * mkey.c: the M_Key rules of IBA 14.2.4 (see mkey.h). No I/O, no clock.
 */
#include <stddef.h>
#include <string.h>

#include <iba/ib_types.h>

#include "mkey.h"

/* PortInfo (IBA 14.2.5.6) byte offsets, checked against ib_types.h. */
#define PI_M_KEY 0
#define PI_LID 16
#define PI_SM_LID 18
#define PI_LEASE 26
#define PI_MKEY_LMC 34 /* M_KeyProtectBits in the top two bits, LMC below */
#define PI_VIOLATIONS 44
_Static_assert(offsetof(ib_port_info_t, m_key) == PI_M_KEY, "PortInfo:M_Key");
_Static_assert(offsetof(ib_port_info_t, base_lid) == PI_LID, "PortInfo:LID");
_Static_assert(offsetof(ib_port_info_t, master_sm_base_lid) == PI_SM_LID, "PortInfo:SMLID");
_Static_assert(offsetof(ib_port_info_t, m_key_lease_period) == PI_LEASE, "PortInfo:lease");
_Static_assert(offsetof(ib_port_info_t, mkey_lmc) == PI_MKEY_LMC, "PortInfo:protect");
_Static_assert(offsetof(ib_port_info_t, m_key_violations) == PI_VIOLATIONS, "PortInfo:viol");

/* SMP header (IBA 14.2.1.1) and Notice (IBA 14.2.5.1) offsets. */
#define SMP_METHOD 3
#define SMP_HOP_COUNT 7
#define SMP_ATTR_ID 16
#define SMP_ATTR_MOD 20
#define SMP_M_KEY 24
#define SMP_DR_SLID 32
#define SMP_RETURN_PATH 192
_Static_assert(offsetof(ib_smp_t, m_key) == SMP_M_KEY, "SMP M_Key");
_Static_assert(offsetof(ib_smp_t, dr_slid) == SMP_DR_SLID, "SMP DrSLID");
_Static_assert(offsetof(ib_smp_t, return_path) == SMP_RETURN_PATH, "SMP return path");
#define NTC_DETAILS 10
_Static_assert(offsetof(ib_mad_notice_attr_t, data_details) == NTC_DETAILS, "Notice");

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put64(uint8_t *p, uint64_t v)
{
	for (int i = 7; i >= 0; i--, v >>= 8)
		p[i] = (uint8_t)v;
}

struct mkey_port *mkey_find(struct mkey_table *t, uint64_t guid)
{
	for (unsigned i = 0; i < t->n; i++)
		if (t->port[i].guid == guid)
			return &t->port[i];
	return NULL;
}

struct mkey_port *mkey_get(struct mkey_table *t, uint64_t guid, bool is_switch)
{
	struct mkey_port *p = mkey_find(t, guid);

	if (p)
		return p;
	if (t->n >= MKEY_MAX_PORTS)
		return NULL;
	p = &t->port[t->n++];
	memset(p, 0, sizeof(*p));
	p->guid = guid;
	p->is_switch = is_switch;
	return p;
}

void mkey_expire(struct mkey_port *p, int64_t now_ms)
{
	if (p && p->lease_end && now_ms >= p->lease_end) {
		/* IBA 14.2.4.2: the lease ran out; protection is gone. */
		p->protect = 0;
		p->lease_end = 0;
	}
}

enum mkey_verdict mkey_check(struct mkey_port *p, uint64_t smp_key, uint8_t method,
			     int64_t now_ms)
{
	if (method != MKEY_METHOD_GET && method != MKEY_METHOD_SET &&
	    method != MKEY_METHOD_TRAP_REPRESS)
		return MKEY_PASS;
	if (!p)
		return MKEY_PASS;
	mkey_expire(p, now_ms);
	/* IBA 14.2.4.1: a port whose M_Key is 0 checks nothing. */
	if (p->key == 0 || smp_key == p->key) {
		p->lease_end = 0; /* a valid key stops the countdown */
		return MKEY_PASS;
	}
	if (method == MKEY_METHOD_GET && p->protect < 2)
		return p->protect == 1 ? MKEY_PASS_HIDDEN : MKEY_PASS;
	if (p->violations != 0xffff)
		p->violations++;
	if (p->lease && !p->lease_end)
		p->lease_end = now_ms + (int64_t)p->lease * 1000;
	return MKEY_FAIL;
}

void mkey_store(struct mkey_port *p, const uint8_t pi[64])
{
	p->key = get64(pi + PI_M_KEY);
	p->protect = pi[PI_MKEY_LMC] >> 6;
	p->lease = get16(pi + PI_LEASE);
	if (get16(pi + PI_VIOLATIONS) == 0)
		p->violations = 0;
	p->lid = get16(pi + PI_LID);
	p->sm_lid = get16(pi + PI_SM_LID);
}

void mkey_show(struct mkey_port *p, uint8_t pi[64], bool hidden)
{
	put64(pi + PI_M_KEY, hidden ? 0 : p->key);
	pi[PI_MKEY_LMC] = (uint8_t)((pi[PI_MKEY_LMC] & 0x3f) | p->protect << 6);
	put16(pi + PI_LEASE, p->lease);
	put16(pi + PI_VIOLATIONS, p->violations);
	p->lid = get16(pi + PI_LID);
	p->sm_lid = get16(pi + PI_SM_LID);
}

bool mkey_pi_has_key(const uint8_t pi[64])
{
	return get64(pi + PI_M_KEY) || (pi[PI_MKEY_LMC] >> 6) || get16(pi + PI_LEASE);
}

void mkey_trap256(const struct mkey_port *p, const uint8_t smp[256], uint16_t req_lid,
		  uint8_t notice[64])
{
	uint8_t *d = notice + NTC_DETAILS;
	unsigned hops;

	memset(notice, 0, 64);
	notice[0] = 0x80 | IB_NOTICE_TYPE_SECURITY; /* IsGeneric, Type */
	notice[3] = p->is_switch ? IB_NODE_TYPE_SWITCH : IB_NODE_TYPE_CA; /* ProducerType */
	put16(notice + 4, 256); /* TrapNumber: Bad M_Key */
	put16(notice + 6, p->lid); /* IssuerLID */
	/* Details: LIDADDR, DRSLID, Method, AttributeID, AttributeModifier,
	 * M_Key, DRNotice|DRPathTruncated|DRHopCount, DRNoticeReturnPath. */
	put16(d + 2, req_lid);
	memcpy(d + 8, smp + SMP_ATTR_ID, 2);
	memcpy(d + 10, smp + SMP_ATTR_MOD, 4);
	memcpy(d + 14, smp + SMP_M_KEY, 8);
	d[6] = smp[SMP_METHOD];
	if (smp[1] == IB_MCLASS_SUBN_DIR) {
		memcpy(d + 4, smp + SMP_DR_SLID, 2);
		hops = smp[SMP_HOP_COUNT] & 0x3f;
		d[23] = 0x80; /* DRNotice */
		if (hops > 30) {
			d[23] |= 0x40; /* DRPathTruncated */
			hops = 30;
		}
		d[23] |= (uint8_t)hops;
		memcpy(d + 24, smp + SMP_RETURN_PATH, hops);
	}
}
