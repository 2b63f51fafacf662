/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include <iba/ib_types.h>

#include "mad/smp.h"

/* Compile-time checks that ib_types.h's layout is the one we size things by. */
_Static_assert(sizeof(ib_smp_t) == MAD_SIZE, "ib_smp_t is one MAD");
_Static_assert(sizeof(ib_node_info_t) <= SMP_DATA_SIZE, "NodeInfo fits");
_Static_assert(sizeof(ib_port_info_t) <= SMP_DATA_SIZE, "PortInfo fits");
_Static_assert(sizeof(ib_switch_info_t) <= SMP_DATA_SIZE, "SwitchInfo fits");

#define SMP_DATA_OFF offsetof(ib_smp_t, data)

int smp_encode(const struct smp_req *r, uint32_t tid, uint8_t mad[MAD_SIZE])
{
	ib_smp_t smp;

	if (r->hops > SMP_MAX_HOPS || (r->method != SMP_GET && r->method != SMP_SET))
		return -EINVAL;
	memset(&smp, 0, sizeof(smp));
	smp.base_ver = 1;
	smp.mgmt_class = IB_MCLASS_SUBN_DIR;
	smp.class_ver = 1;
	smp.method = r->method;
	/*
	 * IBA 14.2.1.2: an outgoing DR SMP starts with hop pointer 0 and the
	 * egress ports in InitialPath[1..HopCount]. DrSLID and DrDLID are the
	 * permissive LID: the whole route is directed, no LID-routed part.
	 */
	smp.hop_ptr = 0;
	smp.hop_count = r->hops;
	smp.trans_id = cl_hton64(tid);
	smp.attr_id = cl_hton16(r->attr_id);
	smp.attr_mod = cl_hton32(r->attr_mod);
	smp.m_key = cl_hton64(r->m_key);
	smp.dr_slid = IB_LID_PERMISSIVE;
	smp.dr_dlid = IB_LID_PERMISSIVE;
	if (r->method == SMP_SET)
		memcpy(smp.data, r->data, SMP_DATA_SIZE);
	memcpy(&smp.initial_path[1], &r->path[1], r->hops);
	memcpy(mad, &smp, MAD_SIZE);
	return 0;
}

int smp_peek(const uint8_t *mad, size_t len, struct smp_hdr *h)
{
	ib_smp_t smp;

	/* Everything up to the M_Key is common to all MAD classes. */
	if (len < offsetof(ib_smp_t, m_key))
		return -EPROTO;
	memset(&smp, 0, sizeof(smp));
	memcpy(&smp, mad, len < sizeof(smp) ? len : sizeof(smp));
	h->mgmt_class = smp.mgmt_class;
	h->method = smp.method;
	h->status = cl_ntoh16(smp.status);
	if (smp.mgmt_class == IB_MCLASS_SUBN_DIR)
		h->status &= IB_SMP_STATUS_MASK_HO; /* IBA 14.2.1.2: bit 15 is D */
	h->tid = (uint32_t)cl_ntoh64(smp.trans_id);
	h->attr_id = cl_ntoh16(smp.attr_id);
	h->attr_mod = cl_ntoh32(smp.attr_mod);
	return 0;
}

int smp_check_resp(const uint8_t *mad, size_t len, const uint8_t *req)
{
	struct smp_hdr h, q;

	if (len < MAD_SIZE || smp_peek(mad, len, &h) < 0 || smp_peek(req, MAD_SIZE, &q) < 0)
		return -EPROTO;
	if (h.method != SMP_GET_RESP || h.mgmt_class != q.mgmt_class || h.tid != q.tid ||
	    h.attr_id != q.attr_id || h.attr_mod != q.attr_mod)
		return -EPROTO;
	if (h.status)
		return -EREMOTEIO;
	return 0;
}

/* The data field of a full-sized response: the decoders' bounded cursor. */
static int data_of(const uint8_t *mad, size_t len, void *out, size_t size)
{
	if (len < SMP_DATA_OFF + SMP_DATA_SIZE || size > SMP_DATA_SIZE)
		return -EPROTO;
	memcpy(out, mad + SMP_DATA_OFF, size);
	return 0;
}

int smp_decode_node_info(const uint8_t *mad, size_t len, struct smp_node_info *out)
{
	ib_node_info_t w;

	if (data_of(mad, len, &w, sizeof(w)) < 0)
		return -EPROTO;
	/* IBA 14.2.5.3: NodeType 1..3; a node has at least one port. */
	if (w.node_type < IB_NODE_TYPE_CA || w.node_type > IB_NODE_TYPE_ROUTER || !w.num_ports)
		return -EPROTO;
	*out = (struct smp_node_info){
		.base_version = w.base_version,
		.class_version = w.class_version,
		.node_type = w.node_type,
		.num_ports = w.num_ports,
		.sys_guid = cl_ntoh64(w.sys_guid),
		.node_guid = cl_ntoh64(w.node_guid),
		.port_guid = cl_ntoh64(w.port_guid),
		.partition_cap = cl_ntoh16(w.partition_cap),
		.device_id = cl_ntoh16(w.device_id),
		.revision = cl_ntoh32(w.revision),
		.local_port = ib_node_info_get_local_port_num(&w),
		.vendor_id = cl_ntoh32(ib_node_info_get_vendor_id(&w)),
	};
	return 0;
}

int smp_decode_node_desc(const uint8_t *mad, size_t len, char desc[SMP_DATA_SIZE + 1])
{
	/* IBA 14.2.5.2: 64 bytes of UTF-8, NUL-padded, not necessarily terminated. */
	if (data_of(mad, len, desc, SMP_DATA_SIZE) < 0)
		return -EPROTO;
	desc[SMP_DATA_SIZE] = '\0';
	return 0;
}

int smp_decode_port_info(const uint8_t *mad, size_t len, struct smp_port_info *out)
{
	ib_port_info_t w;

	if (data_of(mad, len, &w, sizeof(w)) < 0)
		return -EPROTO;
	*out = (struct smp_port_info){
		.m_key = cl_ntoh64(w.m_key),
		.mkey_protect = ib_port_info_get_mpb(&w),
		.mkey_lease = cl_ntoh16(w.m_key_lease_period),
		.subnet_prefix = cl_ntoh64(w.subnet_prefix),
		.lid = cl_ntoh16(w.base_lid),
		.sm_lid = cl_ntoh16(w.master_sm_base_lid),
		.cap_mask = cl_ntoh32(w.capability_mask),
		.local_port = w.local_port_num,
		.lmc = ib_port_info_get_lmc(&w),
		.state = ib_port_info_get_port_state(&w),
		.phys_state = ib_port_info_get_port_phys_state(&w),
		.width_enabled = w.link_width_enabled,
		.width_supported = w.link_width_supported,
		.width_active = w.link_width_active,
		.speed_supported = ib_port_info_get_link_speed_sup(&w),
		.speed_enabled = ib_port_info_get_link_speed_enabled(&w),
		.speed_active = ib_port_info_get_link_speed_active(&w),
		.ext_speed_supported = ib_port_info_get_link_speed_ext_sup(&w),
		.ext_speed_enabled = ib_port_info_get_link_speed_ext_enabled(&w),
		.ext_speed_active = ib_port_info_get_link_speed_ext_active(&w),
		.neighbor_mtu = ib_port_info_get_neighbor_mtu(&w),
		.mtu_cap = ib_port_info_get_mtu_cap(&w),
		.vl_cap = ib_port_info_get_vl_cap(&w),
		.op_vls = ib_port_info_get_op_vls(&w),
		.sm_sl = ib_port_info_get_master_smsl(&w),
	};
	return 0;
}

int smp_decode_switch_info(const uint8_t *mad, size_t len, struct smp_switch_info *out)
{
	ib_switch_info_t w;

	if (data_of(mad, len, &w, sizeof(w)) < 0)
		return -EPROTO;
	*out = (struct smp_switch_info){
		.lin_cap = cl_ntoh16(w.lin_cap),
		.rand_cap = cl_ntoh16(w.rand_cap),
		.mcast_cap = cl_ntoh16(w.mcast_cap),
		.lin_top = cl_ntoh16(w.lin_top),
		.def_port = w.def_port,
		.def_mcast_pri_port = w.def_mcast_pri_port,
		.def_mcast_not_port = w.def_mcast_not_port,
		.life_state = w.life_state,
		.lids_per_port = cl_ntoh16(w.lids_per_port),
		.enforce_cap = cl_ntoh16(w.enforce_cap),
		.flags = w.flags,
		.mcast_top = cl_ntoh16(w.mcast_top),
	};
	return 0;
}

int smp_data(const uint8_t *mad, size_t len, uint8_t data[SMP_DATA_SIZE])
{
	return data_of(mad, len, data, SMP_DATA_SIZE);
}
