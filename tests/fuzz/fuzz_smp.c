/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: SMP responses as they come off the wire. Every decoder
 * must reject or read any bytes, of any length, without reading past them.
 * The first byte picks a request to check the answer against, so the
 * TID/attribute matching in smp_check_resp is exercised too.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "mad/smp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t req[MAD_SIZE] = { 0 };
	char desc[SMP_DATA_SIZE + 1];
	struct smp_hdr h;
	struct smp_node_info ni;
	struct smp_port_info pi;
	struct smp_switch_info si;
	struct smp_sm_info smi;
	struct smp_notice n;
	uint8_t out[MAD_SIZE];
	uint16_t pkeys[SMP_PKEY_BLOCK];
	uint8_t vl[SMP_NUM_SL];
	struct smp_vlarb arb[SMP_VLARB_BLOCK];

	/* A request built from the input, so a matching answer is reachable. */
	if (size >= MAD_SIZE)
		memcpy(req, data, MAD_SIZE);
	(void)smp_peek(data, size, &h);
	(void)smp_check_resp(data, size, req);
	(void)smp_decode_node_info(data, size, &ni);
	(void)smp_decode_node_desc(data, size, desc);
	(void)smp_decode_port_info(data, size, &pi);
	(void)smp_decode_switch_info(data, size, &si);
	/* What the SM's agent does with requests sent to it. */
	(void)smp_decode_sm_info(data, size, &smi);
	(void)smp_decode_notice(data, size, &n);
	(void)smp_make_resp(data, size, 0, NULL, out);
	(void)smp_decode_pkeys(data, size, pkeys);
	(void)smp_decode_sl2vl(data, size, vl);
	(void)smp_decode_vlarb(data, size, arb);
	return 0;
}
