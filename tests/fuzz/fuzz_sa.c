/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: SA requests as they come off the wire, answered from a
 * small fixed fabric (a switch with an LFT, two CAs, partitions). Any
 * bytes, any length: the decoder must reject or read them without reading
 * past the end, and every record family's walk must survive any template
 * and component mask. The first two bytes pick the requester's LID and
 * P_Key index, the rest is the MAD. PathRecords walk the LFT (with a
 * loop through ports 3-4 for LIDs 9-15) and an engine's SL table; the
 * SL2VL and VLArb records come from a QoS configuration. InformInfo Sets
 * subscribe into a store emptied for every input (with one subscription
 * already there, for InformInfoRecord to list), and the bytes past the MAD
 * header are also read as a Notice and matched against it. ServiceRecord
 * Sets and Deletes change a store of services emptied for every input
 * (with one service of h2 already there, its lease running out at 30 s);
 * the clock stands at 0..63 s, from the second byte's upper bits.
 */
#include <endian.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "sa/sa_priv.h"
#include "fabric/prog_priv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct sa_src src;

static void build(void)
{
	static struct disc_live live;
	static struct pkey_plan pl;
	static uint32_t off[64];
	static uint16_t key[64];
	static struct route_out ro;
	static uint32_t sw_index[3], sw_node[1];
	static uint8_t sl[16];
	static struct config qos;
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
	memset(e->lft, ROUTE_DROP, 128);
	e->lft[1] = 0;
	for (unsigned l = 4; l < 8; l++)
		e->lft[l] = 1;
	e->lft[8] = 2;
	for (unsigned l = 9; l < 16; l++)
		e->lft[l] = 3; /* out port 3, back in on 4: a loop the walk must stop */
	sw_index[sw] = 0;
	sw_index[h1] = sw_index[h2] = SUBNET_NONE;
	sw_node[0] = sw;
	for (unsigned l = 0; l < 16; l++)
		sl[l] = (uint8_t)(l % 3);
	ro = (struct route_out){ .n_sw = 1, .sw_node = sw_node, .sw_index = sw_index, .max_lid = 15,
				 .sl = sl, .n_vls = 3 };
	for (unsigned k = 0; k < _CONFIG_CLASS_MAX; k++) {
		for (unsigned i = 0; i < 16; i++)
			qos.qos[k].sl2vl[i] = (uint8_t)(i % 5);
		qos.qos[k].n_low = 2;
		qos.qos[k].low[0] = (struct config_vlarb){ .vl = 1, .weight = 7 };
		qos.qos[k].low[1] = (struct config_vlarb){ .vl = 2, .weight = 9 };
	}
	src = (struct sa_src){ .sn = sn, .live = &live, .lfts = c, .pkeys = &pl,
			       .sm_port = subnet_port_idx(sn, h1, 1), .routes = &ro, .qos = &qos,
			       .sm = { .sm_key = 0x5a5a5a5a5a5a5a5aULL } /* trusted paths too */ };
	if (sa_src_index(&src) < 0)
		abort();
}

/*
 * Multicast groups, fresh for every input (MCMemberRecord Set and Delete
 * change them): the IPoIB broadcast group with a full and a send-only
 * member, and an MFT programmed on the switch for MFTR.
 */
static void mcast_reset(void)
{
	struct mcast_group g = { .mgid = { 0xff, 0x12, 0x40, 0x1b, 0xff, 0xff, [12] = 0xff, 0xff,
					   0xff, 0xff },
				 .pkey = 0xffff, .qkey = 0xb1b, .mtu = 4, .rate = 3, .scope = 2,
				 .permanent = true };
	struct mcast_group *p;
	struct mcast_mft *t;

	mcast_free(src.mcast);
	src.mcast = NULL;
	if (mcast_new(&src.mcast) < 0 || mcast_create(src.mcast, &g, &p) < 0 ||
	    mcast_join(p, 0x201, MCAST_FULL) < 0 || mcast_join(p, 0x301, MCAST_SENDONLY) < 0 ||
	    !(t = mcast_mft_get(src.mcast, 0x100)) || mcast_mft_size(t, 32) < 0)
		abort();
	mcast_ports_set(&t->e[0], 1);
}

/* Subscriptions, fresh for every input: h2 (0x301) subscribed to trap 64. */
static struct sa_events ev;

static void events_reset(void)
{
	static const uint8_t ii[36] = { [16] = 0xff, 0xff, [22] = 1, 1, 0xff, 0xff, 0, 64,
					[30] = 1 << 0, 18, [33] = 0xff, 0xff, 0xff };
	struct sa_sub *s;

	sa_events_free(&ev);
	ev.sub = calloc(1, sizeof(*ev.sub));
	if (!ev.sub)
		abort();
	s = &ev.sub[0];
	s->guid = 0x301;
	s->lid = 8;
	memcpy(s->wire, ii, sizeof(ii));
	sa_inform_decode(ii, sizeof(ii), &s->inf);
	ev.n_sub = ev.cap_sub = 1;
	src.ev = &ev;
}

/* Services, fresh for every input: h2 (0x301) registered "fuzz", ID 0x42, a 30 s lease. */
static struct sa_services svc;

static void services_reset(void)
{
	ib_service_record_t r = { .service_id = htobe64(0x42), .service_pkey = htobe16(0xffff),
				  .service_lease = htobe32(30), .service_key = { 7 },
				  .service_name = "fuzz" };

	sa_services_free(&svc);
	svc.svc = calloc(1, sizeof(*svc.svc));
	if (!svc.svc)
		abort();
	r.service_gid.unicast.prefix = htobe64(0xfe80000000000000ULL);
	r.service_gid.unicast.interface_id = htobe64(0x301);
	memcpy(svc.svc[0].wire, &r, sizeof(r));
	svc.svc[0].guid = 0x301;
	svc.svc[0].expires_ms = 30000;
	svc.n = svc.cap = 1;
	src.svc = &svc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mad_addr from = { .agent = MAD_AGENT_SA };
	uint8_t *out = NULL, *mad;
	size_t out_len;
	uint16_t status;

	if (!src.sn)
		build();
	mcast_reset();
	events_reset();
	services_reset();
	if (size < 2)
		return 0;
	from.lid = data[0] % 12;
	from.pkey_index = data[1] % 4;
	src.now_ms = (uint64_t)(data[1] >> 2) * 1000;
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
	if (size - 2 > 56) {
		struct sa_notice n;
		uint8_t back[80];

		if (sa_notice_decode(mad + 56, size - 2 - 56, &n) == 0) {
			for (uint32_t i = 0; i < ev.n_sub; i++)
				(void)sa_inform_match(&ev.sub[i].inf, &n);
			sa_notice_encode(&n, back);
		}
	}
	free(mad);
	return 0;
}
