/* SPDX-License-Identifier: MIT */
/*
 * Set payloads. A Set carries a whole attribute, so each one starts from
 * what the node answered to a Get and changes only what the SM means to
 * change: fields nobody here decides go back exactly as the node gave them.
 */
#include <string.h>

#include <iba/ib_types.h>

#include "mad/smp.h"

static void apply_port(ib_port_info_t *w, const struct smp_port_set *s)
{
	/* IBA 14.2.5.6: the SM owns these; M_Key 0 unless M_Key protection is on. */
	w->m_key = 0;
	if (s->mkey) {
		w->m_key = cl_hton64(s->m_key);
		ib_port_info_set_mpb(w, s->mkey_protect);
		w->m_key_lease_period = cl_hton16(s->mkey_lease);
	}
	w->subnet_prefix = cl_hton64(s->subnet_prefix);
	w->base_lid = cl_hton16(s->lid);
	w->master_sm_base_lid = cl_hton16(s->sm_lid);
	ib_port_info_set_lmc(w, s->lmc);
	if (s->neighbor_mtu)
		ib_port_info_set_neighbor_mtu(w, s->neighbor_mtu);
	if (s->op_vls)
		ib_port_info_set_op_vls(w, s->op_vls);
	/* IBA 14.2.5.6: PartitionEnforcementInbound is bit 3, Outbound bit 2 of this byte. */
	if (s->enforce == SMP_ENFORCE_ON)
		w->vl_enforce |= 0x0c;
	else if (s->enforce == SMP_ENFORCE_OFF)
		w->vl_enforce &= (uint8_t)~0x0c;
	if (s->knobs & SMP_KNOB_VL_HIGH)
		w->vl_high_limit = s->vl_high_limit;
	if (s->knobs & SMP_KNOB_HOQ)
		ib_port_info_set_hoq_lifetime(w, s->hoq_life);
	if (s->knobs & SMP_KNOB_STALL)
		ib_port_info_set_vl_stall_count(w, s->vl_stall);
	if (s->client_rereg)
		ib_port_info_set_client_rereg(w, 1);
}

uint8_t smp_port_info_knobs_dropped(const uint8_t sent[SMP_DATA_SIZE],
				    const uint8_t got[SMP_DATA_SIZE])
{
	ib_port_info_t a, b;
	uint8_t d = 0;

	memcpy(&a, sent, sizeof(a));
	memcpy(&b, got, sizeof(b));
	if (a.vl_high_limit != b.vl_high_limit)
		d |= SMP_KNOB_VL_HIGH;
	if (ib_port_info_get_hoq_lifetime(&a) != ib_port_info_get_hoq_lifetime(&b))
		d |= SMP_KNOB_HOQ;
	if (ib_port_info_get_vl_stall_count(&a) != ib_port_info_get_vl_stall_count(&b))
		d |= SMP_KNOB_STALL;
	return d;
}

void smp_port_info_set(const uint8_t raw[SMP_DATA_SIZE], const struct smp_port_set *s,
		       uint8_t out[SMP_DATA_SIZE])
{
	ib_port_info_t w;

	memcpy(&w, raw, sizeof(w));
	apply_port(&w, s);
	/*
	 * "No change" encodings (IBA 14.2.5.6): PortState 0, PortPhysicalState
	 * 0, LinkDownDefaultState 0, LinkSpeedEnabled 0, LinkWidthEnabled 0,
	 * LinkSpeedExtEnabled 0. Echoing the read values back instead would
	 * ask the port to retrain when they are not what it runs at.
	 */
	ib_port_info_set_port_state(&w, s->state);
	w.state_info2 = 0;
	w.link_speed &= IB_PORT_LINK_SPEED_ACTIVE_MASK;
	w.link_width_enabled = 0;
	w.link_speed_ext_enabled = 0;
	memset(out, 0, SMP_DATA_SIZE);
	memcpy(out, &w, sizeof(w));
}

bool smp_port_info_matches(const uint8_t raw[SMP_DATA_SIZE], const struct smp_port_set *s)
{
	ib_port_info_t w, want;

	memcpy(&w, raw, sizeof(w));
	want = w;
	apply_port(&want, s);
	if (s->mkey && !s->mkey_match) { /* a switch's external port holds no M_Key */
		want.m_key = w.m_key;
		want.m_key_lease_period = w.m_key_lease_period;
		ib_port_info_set_mpb(&want, ib_port_info_get_mpb(&w));
	}
	return !memcmp(&w, &want, sizeof(w));
}

void smp_switch_info_set(const uint8_t raw[SMP_DATA_SIZE], uint16_t lin_top, bool clear_change,
			 uint8_t out[SMP_DATA_SIZE])
{
	ib_switch_info_t w;

	memcpy(&w, raw, sizeof(w));
	w.lin_top = cl_hton16(lin_top);
	/* Writing 0 leaves PortStateChange alone; 1 clears it. */
	w.life_state &= (uint8_t)~IB_SWITCH_PSC;
	if (clear_change)
		w.life_state |= IB_SWITCH_PSC;
	memset(out, 0, SMP_DATA_SIZE);
	memcpy(out, &w, sizeof(w));
}

bool smp_port_info_enforces(const uint8_t raw[SMP_DATA_SIZE])
{
	ib_port_info_t w;

	memcpy(&w, raw, sizeof(w));
	return (w.vl_enforce & 0x0c) == 0x0c;
}

void smp_switch_info_mcast_top(const uint8_t raw[SMP_DATA_SIZE], uint16_t mcast_top,
			       uint8_t out[SMP_DATA_SIZE])
{
	ib_switch_info_t w;

	memcpy(&w, raw, sizeof(w));
	w.mcast_top = cl_hton16(mcast_top);
	/* PortStateChange written as 0: left for the sweep that reads it. */
	w.life_state &= (uint8_t)~IB_SWITCH_PSC;
	memset(out, 0, SMP_DATA_SIZE);
	memcpy(out, &w, sizeof(w));
}
