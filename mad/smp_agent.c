/* SPDX-License-Identifier: MIT */
/*
 * The SM's own side of SMPs: what others ask the SM (SMInfo, IBA 14.2.5.13)
 * and tell it (Traps carrying a Notice, IBA 14.2.5.1), and the answers.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include <iba/ib_types.h>

#include "mad/smp.h"

_Static_assert(sizeof(ib_sm_info_t) <= SMP_DATA_SIZE, "SMInfo fits");
/* A Notice is 80 bytes; in an SMP's 64-byte data field the IssuerGID is cut off. */
_Static_assert(offsetof(ib_mad_notice_attr_t, issuer_gid) == SMP_DATA_SIZE, "Notice layout");

int smp_encode_sm_info(const struct smp_sm_info *si, uint8_t data[SMP_DATA_SIZE])
{
	ib_sm_info_t w;

	if (si->priority > 15 || si->state > SMP_SM_MASTER)
		return -EINVAL;
	memset(&w, 0, sizeof(w));
	w.guid = cl_hton64(si->guid);
	w.sm_key = cl_hton64(si->sm_key);
	w.act_count = cl_hton32(si->act_count);
	w.pri_state = (uint8_t)(si->priority << 4 | si->state);
	memset(data, 0, SMP_DATA_SIZE);
	memcpy(data, &w, sizeof(w));
	return 0;
}

int smp_decode_sm_info(const uint8_t *mad, size_t len, struct smp_sm_info *out)
{
	uint8_t data[SMP_DATA_SIZE];
	ib_sm_info_t w;

	if (smp_data(mad, len, data) < 0)
		return -EPROTO;
	memcpy(&w, data, sizeof(w));
	*out = (struct smp_sm_info){
		.guid = cl_ntoh64(w.guid),
		.sm_key = cl_ntoh64(w.sm_key),
		.act_count = cl_ntoh32(w.act_count),
		.priority = ib_sminfo_get_priority(&w),
		.state = ib_sminfo_get_state(&w),
	};
	return 0;
}

int smp_decode_notice(const uint8_t *mad, size_t len, struct smp_notice *out)
{
	uint8_t data[SMP_DATA_SIZE];
	ib_mad_notice_attr_t w;

	if (smp_data(mad, len, data) < 0)
		return -EPROTO;
	memset(&w, 0, sizeof(w));
	memcpy(&w, data, SMP_DATA_SIZE);
	*out = (struct smp_notice){
		.generic = ib_notice_is_generic(&w),
		.type = ib_notice_get_type(&w),
		.issuer_lid = cl_ntoh16(w.issuer_lid),
	};
	if (out->generic) {
		out->trap_num = cl_ntoh16(w.g_or_v.generic.trap_num);
		out->producer = cl_ntoh32(ib_notice_get_prod_type(&w));
	}
	return 0;
}

void smp_make_trap144(uint64_t tid, uint16_t lid, uint32_t cap_mask, uint16_t change_flags,
		      uint8_t out[MAD_SIZE])
{
	ib_smp_t smp;
	ib_mad_notice_attr_t n;

	memset(&smp, 0, sizeof(smp));
	smp.base_ver = 1;
	smp.mgmt_class = IB_MCLASS_SUBN_LID;
	smp.class_ver = 1;
	smp.method = SMP_TRAP;
	smp.trans_id = cl_hton64(tid);
	smp.attr_id = IB_MAD_ATTR_NOTICE;
	memset(&n, 0, sizeof(n));
	/* Generic (bit 7), type 4 (informational), ProducerType 1 (CA). */
	n.generic_type = 0x80 | 4;
	n.g_or_v.generic.prod_type_lsb = cl_hton16(1);
	n.g_or_v.generic.trap_num = cl_hton16(144);
	n.issuer_lid = cl_hton16(lid);
	n.data_details.ntc_144.lid = cl_hton16(lid);
	n.data_details.ntc_144.new_cap_mask = cl_hton32(cap_mask);
	n.data_details.ntc_144.change_flgs = cl_hton16(change_flags);
	/* The IssuerGID is past an SMP's 64 data bytes (the assert above). */
	memcpy(smp.data, &n, SMP_DATA_SIZE);
	memcpy(out, &smp, MAD_SIZE);
}

int smp_make_resp(const uint8_t *req, size_t len, uint16_t status,
		  const uint8_t data[SMP_DATA_SIZE], uint8_t out[MAD_SIZE])
{
	ib_smp_t smp;

	if (len < MAD_SIZE)
		return -EPROTO;
	memcpy(&smp, req, sizeof(smp));
	if (smp.method & 0x80 || (smp.mgmt_class != IB_MCLASS_SUBN_DIR &&
				  smp.mgmt_class != IB_MCLASS_SUBN_LID))
		return -EPROTO;
	smp.method = smp.method == SMP_TRAP ? SMP_TRAP_REPRESS : SMP_GET_RESP;
	smp.status = cl_hton16(status);
	if (smp.mgmt_class == IB_MCLASS_SUBN_DIR) {
		/*
		 * IBA 14.2.2.2: the responder sets D and leaves HopPointer at
		 * HopCount; the return path is walked backwards from there.
		 */
		smp.status |= IB_SMP_DIRECTION;
	}
	if (data)
		memcpy(smp.data, data, SMP_DATA_SIZE);
	memcpy(out, &smp, MAD_SIZE);
	return 0;
}
