/* SPDX-License-Identifier: MIT */
/*
 * The per-port tables the SM programs for partitions and QoS: P_KeyTable
 * (IBA 14.2.5.7), SLtoVLMappingTable (14.2.5.8) and VLArbitrationTable
 * (14.2.5.9): block codecs and the attribute modifiers that address them.
 */
#include <errno.h>
#include <string.h>

#include <iba/ib_types.h>

#include "mad/smp.h"

_Static_assert(sizeof(ib_pkey_table_t) == SMP_DATA_SIZE, "a P_Key block is the data field");
_Static_assert(sizeof(ib_vl_arb_table_t) == SMP_DATA_SIZE, "a VLArb block is the data field");

uint32_t smp_pkey_mod(uint8_t port, uint16_t block)
{
	/* Switches: port in bits 31..16 (external ports); CAs ignore it. */
	return (uint32_t)port << 16 | block;
}

int smp_decode_pkeys(const uint8_t *mad, size_t len, uint16_t pkeys[SMP_PKEY_BLOCK])
{
	uint8_t data[SMP_DATA_SIZE];
	ib_pkey_table_t w;

	if (smp_data(mad, len, data) < 0)
		return -EPROTO;
	memcpy(&w, data, sizeof(w));
	for (unsigned i = 0; i < SMP_PKEY_BLOCK; i++)
		pkeys[i] = cl_ntoh16(w.pkey_entry[i]);
	return 0;
}

void smp_encode_pkeys(const uint16_t pkeys[SMP_PKEY_BLOCK], uint8_t data[SMP_DATA_SIZE])
{
	ib_pkey_table_t w;

	for (unsigned i = 0; i < SMP_PKEY_BLOCK; i++)
		w.pkey_entry[i] = cl_hton16(pkeys[i]);
	memcpy(data, &w, sizeof(w));
}

uint32_t smp_sl2vl_mod(uint8_t in_port, uint8_t out_port)
{
	/* Switches: input port in bits 15..8, output port in 7..0; CAs: 0. */
	return (uint32_t)in_port << 8 | out_port;
}

int smp_decode_sl2vl(const uint8_t *mad, size_t len, uint8_t vl[SMP_NUM_SL])
{
	uint8_t data[SMP_DATA_SIZE];

	if (smp_data(mad, len, data) < 0)
		return -EPROTO;
	/* Two SLs a byte, the even SL in the high nibble. */
	for (unsigned sl = 0; sl < SMP_NUM_SL; sl++)
		vl[sl] = sl & 1 ? data[sl / 2] & 0x0f : data[sl / 2] >> 4;
	return 0;
}

int smp_encode_sl2vl(const uint8_t vl[SMP_NUM_SL], uint8_t data[SMP_DATA_SIZE])
{
	memset(data, 0, SMP_DATA_SIZE);
	for (unsigned sl = 0; sl < SMP_NUM_SL; sl++) {
		if (vl[sl] > 15)
			return -EINVAL;
		data[sl / 2] |= (uint8_t)(sl & 1 ? vl[sl] : vl[sl] << 4);
	}
	return 0;
}

uint32_t smp_vlarb_mod(uint8_t port, enum smp_vlarb_block block)
{
	/* Block number in bits 31..16 (1, 2 low; 3, 4 high), port in 7..0. */
	return (uint32_t)block << 16 | port;
}

int smp_decode_vlarb(const uint8_t *mad, size_t len, struct smp_vlarb e[SMP_VLARB_BLOCK])
{
	uint8_t data[SMP_DATA_SIZE];
	ib_vl_arb_table_t w;

	if (smp_data(mad, len, data) < 0)
		return -EPROTO;
	memcpy(&w, data, sizeof(w));
	for (unsigned i = 0; i < SMP_VLARB_BLOCK; i++)
		e[i] = (struct smp_vlarb){ .vl = w.vl_entry[i].vl & 0x0f,
					   .weight = w.vl_entry[i].weight };
	return 0;
}

int smp_encode_vlarb(const struct smp_vlarb e[SMP_VLARB_BLOCK], uint8_t data[SMP_DATA_SIZE])
{
	ib_vl_arb_table_t w;

	for (unsigned i = 0; i < SMP_VLARB_BLOCK; i++) {
		if (e[i].vl > 15)
			return -EINVAL;
		w.vl_entry[i].vl = e[i].vl;
		w.vl_entry[i].weight = e[i].weight;
	}
	memcpy(data, &w, sizeof(w));
	return 0;
}

uint32_t smp_mft_mod(uint32_t block, unsigned position)
{
	return (uint32_t)(position & 0xf) << 28 | (block & 0x1ff);
}

int smp_decode_mft(const uint8_t *mad, size_t len, uint16_t mask[SMP_MFT_BLOCK])
{
	uint8_t data[SMP_DATA_SIZE];

	if (smp_data(mad, len, data) < 0)
		return -EPROTO;
	for (unsigned i = 0; i < SMP_MFT_BLOCK; i++)
		mask[i] = (uint16_t)(data[2 * i] << 8 | data[2 * i + 1]);
	return 0;
}

void smp_encode_mft(const uint16_t mask[SMP_MFT_BLOCK], uint8_t data[SMP_DATA_SIZE])
{
	for (unsigned i = 0; i < SMP_MFT_BLOCK; i++) {
		data[2 * i] = (uint8_t)(mask[i] >> 8);
		data[2 * i + 1] = (uint8_t)mask[i];
	}
}
