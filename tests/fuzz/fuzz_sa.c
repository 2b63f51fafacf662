/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: SA requests as they come off the wire, answered from a
 * small fixed fabric (a switch with an LFT, two CAs, partitions). Any
 * bytes, any length: the decoder must reject or read them without reading
 * past the end, and every record family's walk must survive any template
 * and component mask. The first two bytes pick the requester's LID and
 * P_Key index, the rest is the MAD.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sa/sa_priv.h"
#include "sm/prog_priv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct sa_src src;

static void build(void)
{
	static struct disc_live live;
	static struct pkey_plan pl;
	static uint32_t off[64];
	static uint16_t key[64];
	struct subnet *sn;
	struct prog_cache *c;
	struct prog_lft *e;
	uint32_t sw, h1, h2, n = 0;

	if (subnet_new(&sn) < 0 || subnet_add_node(sn, NODE_SWITCH, 4, 0x100, "sw", "sw", &sw) < 0 ||
	    subnet_add_node(sn, NODE_CA, 2, 0x200, "h1", "h1", &h1) < 0 ||
	    subnet_add_node(sn, NODE_CA, 1, 0x300, "h2", "a description of 64 bytes, no NUL at the end..", &h2) < 0)
		abort();
	subnet_link(sn, subnet_port_idx(sn, sw, 1), subnet_port_idx(sn, h1, 1));
	subnet_link(sn, subnet_port_idx(sn, sw, 2), subnet_port_idx(sn, h2, 1));
	subnet_link(sn, subnet_port_idx(sn, sw, 3), subnet_port_idx(sn, sw, 4));
	sn->port[subnet_port_idx(sn, sw, 0)].lid = 1;
	sn->port[subnet_port_idx(sn, h1, 1)].lid = 4;
	sn->port[subnet_port_idx(sn, h1, 1)].lmc = 2;
	sn->port[subnet_port_idx(sn, h2, 1)].lid = 8;
	live.node = calloc(sn->n_nodes, sizeof(*live.node));
	live.port = calloc(sn->n_ports, sizeof(*live.port));
	if (!live.node || !live.port || sn->n_ports >= 63 || prog_cache_new(&c) < 0)
		abort();
	for (uint32_t i = 0; i < sn->n_ports; i++) {
		live.port[i].have_pi = sn->port[i].peer != SUBNET_NONE || i == sn->node[sw].port_base;
		live.port[i].raw[60] = (uint8_t)i; /* GUIDCap and friends: assorted values */
		off[i] = n;
		key[n++] = 0xffff;
		if (i % 2)
			key[n++] = (uint16_t)(0x8000 | i);
	}
	off[sn->n_ports] = n;
	pl = (struct pkey_plan){ .off = off, .key = key };
	e = prog_cache_get(c, 0x100);
	if (!e || prog_lft_size(e, 128) < 0)
		abort();
	src = (struct sa_src){ .sn = sn, .live = &live, .lfts = c, .pkeys = &pl,
			       .sm_port = subnet_port_idx(sn, h1, 1) };
	if (sa_src_index(&src) < 0)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mad_addr from = { .agent = MAD_AGENT_SA };
	uint8_t *out = NULL, *mad;
	size_t out_len;
	uint16_t status;

	if (!src.sn)
		build();
	if (size < 2)
		return 0;
	from.lid = data[0] % 12;
	from.pkey_index = data[1] % 4;
	/* A copy of exactly the input's length, so ASan sees any read past it. */
	mad = malloc(size - 2 ? size - 2 : 1);
	if (!mad)
		return 0;
	memcpy(mad, data + 2, size - 2);
	if (sa_answer(&src, mad, size - 2, &from, &out, &out_len, &status) == 0) {
		/* The answer is whole: touch every byte of it. */
		volatile uint8_t x = 0;

		for (size_t i = 0; i < out_len; i++)
			x ^= out[i];
		(void)x;
		free(out);
	}
	free(mad);
	return 0;
}
