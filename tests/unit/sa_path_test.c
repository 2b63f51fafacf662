/* SPDX-License-Identifier: MIT */
/*
 * PathRecord and the table records on a hand-built fabric: two switches
 * (LIDs 1 and 4) joined by port 3, h1 (LID 2) on sw1 port 1, h2 (LID 3)
 * and h3 (LID 5, a 1024-byte link) on sw2 ports 1 and 2; LFTs as
 * programmed in the cache, an engine's SL table. Checked: the SLID/DLID,
 * the route's least MTU and rate, the engine's SL of the entry switch,
 * P_Keys and limited members, unreachable DLIDs, GIDs (every pair found
 * through the GUID index, as by LID), selectors, the statuses; P_KeyTable,
 * SL2VL and VLArb records.
 */
#include <endian.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <iba/ib_types.h>

#include "config/config.h"
#include "sa/sa_priv.h"
#include "fabric/prog_priv.h"

struct fab {
	struct subnet *sn;
	struct disc_live live;
	struct prog_cache *cache;
	struct route_out ro;
	struct config *qos;
	struct pkey_plan plan;
	uint32_t off[64];
	uint16_t key[64];
	struct sa_src src;
	uint32_t sw1, sw2, h1, h2, h3;
};

static uint32_t P(struct fab *f, uint32_t node, unsigned num)
{
	return subnet_port_idx(f->sn, node, num);
}

static void lft(struct fab *f, uint32_t node, const uint8_t ports[6])
{
	struct prog_lft *e = prog_cache_get(f->cache, f->sn->node[node].guid);

	assert_non_null(e);
	assert_int_equal(prog_lft_size(e, 64), 0);
	memset(e->lft, ROUTE_DROP, 64);
	memcpy(e->lft, ports, 6);
}

static int setup(void **state)
{
	struct fab *f = calloc(1, sizeof(*f));
	static const uint8_t l1[6] = { 255, 0, 1, 3, 3, 3 }, l2[6] = { 255, 3, 3, 1, 0, 2 };

	assert_non_null(f);
	assert_int_equal(subnet_new(&f->sn), 0);
	assert_int_equal(subnet_add_node(f->sn, NODE_SWITCH, 4, 0x100, "sw1", "sw1", &f->sw1), 0);
	assert_int_equal(subnet_add_node(f->sn, NODE_SWITCH, 4, 0x400, "sw2", "sw2", &f->sw2), 0);
	assert_int_equal(subnet_add_node(f->sn, NODE_CA, 1, 0x200, "h1", "h1", &f->h1), 0);
	assert_int_equal(subnet_add_node(f->sn, NODE_CA, 1, 0x300, "h2", "h2", &f->h2), 0);
	assert_int_equal(subnet_add_node(f->sn, NODE_CA, 1, 0x500, "h3", "h3", &f->h3), 0);
	assert_int_equal(subnet_link(f->sn, P(f, f->sw1, 3), P(f, f->sw2, 3)), 0);
	assert_int_equal(subnet_link(f->sn, P(f, f->sw1, 1), P(f, f->h1, 1)), 0);
	assert_int_equal(subnet_link(f->sn, P(f, f->sw2, 1), P(f, f->h2, 1)), 0);
	assert_int_equal(subnet_link(f->sn, P(f, f->sw2, 2), P(f, f->h3, 1)), 0);
	f->sn->port[P(f, f->sw1, 0)].lid = 1;
	f->sn->port[P(f, f->h1, 1)].lid = 2;
	f->sn->port[P(f, f->h2, 1)].lid = 3;
	f->sn->port[P(f, f->sw2, 0)].lid = 4;
	f->sn->port[P(f, f->h3, 1)].lid = 5;
	f->live.node = calloc(f->sn->n_nodes, sizeof(*f->live.node));
	f->live.port = calloc(f->sn->n_ports, sizeof(*f->live.port));
	for (uint32_t i = 0; i < f->sn->n_ports; i++) {
		const struct subnet_port *p = &f->sn->port[i];
		ib_port_info_t pi;

		if (!subnet_is_switch(f->sn, p->node) && !p->num)
			continue;
		memset(&pi, 0, sizeof(pi));
		pi.base_lid = htobe16(p->lid);
		pi.subnet_prefix = htobe64(0xfe80000000000000ULL);
		pi.link_width_active = IB_LINK_WIDTH_ACTIVE_4X;
		pi.link_speed = IB_LINK_SPEED_ACTIVE_5 << 4; /* DDR: 4x = 20 Gb/s, rate 6 */
		pi.mtu_cap = IB_MTU_LEN_4096;
		pi.vl_arb_low_cap = 8;
		pi.vl_arb_high_cap = 8;
		f->live.port[i].pi.op_vls = 4; /* OperationalVLs: 8 */
		/* NeighborMTU 2048, but 1024 on h3's link (both ends). */
		pi.mtu_smsl = (uint8_t)((i == P(f, f->h3, 1) || i == P(f, f->sw2, 2) ?
					 IB_MTU_LEN_1024 : IB_MTU_LEN_2048) << 4);
		f->live.port[i].have_pi = true;
		memcpy(f->live.port[i].raw, &pi, sizeof(pi));
	}
	/* h1's link at SDR: its paths run at 10 Gb/s (rate 3). */
	f->live.port[P(f, f->h1, 1)].raw[offsetof(ib_port_info_t, link_speed)] =
		IB_LINK_SPEED_ACTIVE_2_5 << 4;
	assert_int_equal(prog_cache_new(&f->cache), 0);
	lft(f, f->sw1, l1);
	lft(f, f->sw2, l2);
	/* The engine's SLs: entering at sw1, LID 3 on SL 1, LID 5 on SL 2; at sw2, LID 2 on SL 3. */
	f->ro.n_sw = 2;
	f->ro.max_lid = 5;
	f->ro.sw_index = malloc(f->sn->n_nodes * sizeof(uint32_t));
	f->ro.sw_node = malloc(2 * sizeof(uint32_t));
	f->ro.sl = calloc(2, 6);
	f->ro.lft = calloc(2, 6);
	for (uint32_t n = 0; n < f->sn->n_nodes; n++)
		f->ro.sw_index[n] = SUBNET_NONE;
	f->ro.sw_index[f->sw1] = 0;
	f->ro.sw_index[f->sw2] = 1;
	f->ro.sw_node[0] = f->sw1;
	f->ro.sw_node[1] = f->sw2;
	route_sl(&f->ro, 0)[3] = 1;
	route_sl(&f->ro, 0)[5] = 2;
	route_sl(&f->ro, 1)[2] = 3;
	for (unsigned sl = 0; sl < 16; sl++)
		f->ro.sl2vl[sl] = (uint8_t)(sl % 4);
	f->ro.n_vls = 4;
	assert_int_equal(config_defaults(&f->qos), 0);
	f->src = (struct sa_src){ .sn = f->sn, .live = &f->live, .lfts = f->cache,
				  .sm_port = P(f, f->h1, 1), .routes = &f->ro, .qos = f->qos };
	assert_int_equal(sa_src_index(&f->src), 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fab *f = *state;

	sa_src_free(&f->src);
	disc_live_free(&f->live);
	prog_cache_free(f->cache);
	free(f->ro.sw_index); /* by hand: route_out_free lives in librouting */
	free(f->ro.sw_node);
	free(f->ro.sl);
	free(f->ro.lft);
	config_free(f->qos);
	subnet_free(f->sn);
	free(f);
	return 0;
}

/* Partition 0x0001: h1 and h2 limited, h3 full; the default partition for h1 and h3 only. */
static void partitions(struct fab *f)
{
	uint32_t n = 0;

	for (uint32_t pi = 0; pi < f->sn->n_ports; pi++) {
		f->off[pi] = n;
		if (pi == P(f, f->h1, 1) || pi == P(f, f->h3, 1) || pi == P(f, f->sw1, 0) ||
		    pi == P(f, f->sw2, 0))
			f->key[n++] = 0xffff;
		if (pi == P(f, f->h1, 1) || pi == P(f, f->h2, 1))
			f->key[n++] = 0x0001;
		if (pi == P(f, f->h3, 1))
			f->key[n++] = 0x8001;
	}
	f->off[f->sn->n_ports] = n;
	f->plan = (struct pkey_plan){ .off = f->off, .key = f->key };
	f->src.pkeys = &f->plan;
}

struct ans {
	int r;
	uint16_t status;
	size_t len;
	uint8_t *out;
};

#define M(bit) (1ULL << (bit))
enum { DGID = 2, SGID = 3, DLID = 4, SLID = 5, NUMB = 12, PKEY = 13, SL = 15, MTUSEL = 16,
       MTU = 17, RATESEL = 18, RATE = 19 };

static struct ans ask(struct fab *f, uint8_t method, uint64_t mask, const ib_path_rec_t *t,
		      uint16_t from_lid)
{
	uint8_t mad[MAD_SIZE] = { 0 };
	ib_sa_mad_t *m = (ib_sa_mad_t *)mad;
	struct mad_addr from = { .lid = from_lid, .qpn = 1, .agent = MAD_AGENT_SA };
	struct ans a = { 0 };

	m->base_ver = 1;
	m->mgmt_class = IB_MCLASS_SUBN_ADM;
	m->class_ver = 2;
	m->method = method;
	m->attr_id = htobe16(0x35);
	m->comp_mask = htobe64(mask);
	memcpy(mad + SA_HDR_SIZE, t, sizeof(*t));
	a.r = sa_answer(&f->src, mad, sizeof(mad), &from, &a.out, &a.len, &a.status);
	return a;
}

static uint8_t hdr_method(const uint8_t *out)
{
	return ((const ib_sa_mad_t *)out)->method;
}

static ib_path_rec_t lids(uint16_t s, uint16_t d)
{
	ib_path_rec_t t;

	memset(&t, 0, sizeof(t));
	t.slid = htobe16(s);
	t.dlid = htobe16(d);
	return t;
}

static const ib_path_rec_t *rec(const struct ans *a, unsigned i)
{
	return (const ib_path_rec_t *)(a->out + SA_HDR_SIZE + i * sizeof(ib_path_rec_t));
}

static void test_path_by_lids(void **state)
{
	struct fab *f = *state;
	ib_path_rec_t t = lids(2, 3);
	struct ans a = ask(f, IB_MAD_METHOD_GET, M(SLID) | M(DLID), &t, 2);
	const ib_path_rec_t *r;

	assert_int_equal(a.r, 0);
	assert_int_equal(a.status, 0);
	r = rec(&a, 0);
	assert_int_equal(be16toh(r->slid), 2);
	assert_int_equal(be16toh(r->dlid), 3);
	assert_int_equal(be64toh(r->sgid.unicast.interface_id), 0x201);
	assert_int_equal(be64toh(r->dgid.unicast.interface_id), 0x301);
	assert_int_equal(be64toh(r->dgid.unicast.prefix), 0xfe80000000000000ULL);
	/* The least of the route: 2048 bytes; h1's SDR link: 10 Gb/s. */
	assert_int_equal(r->mtu, 0x80 | IB_MTU_LEN_2048);
	assert_int_equal(r->rate, 0x80 | 3);
	assert_int_equal(r->pkt_life, 0x80 | 18);
	assert_int_equal(r->num_path, 0x80); /* reversible */
	assert_int_equal(be16toh(r->pkey), 0xffff);
	/* The engine's SL for LID 3 entering at sw1. */
	assert_int_equal(be16toh(r->qos_class_sl) & 0xf, 1);
	free(a.out);

	/* h2 -> h3: one switch, the 1024-byte link, DDR; SL of (sw2, 5): 0. */
	t = lids(3, 5);
	a = ask(f, IB_MAD_METHOD_GET, M(SLID) | M(DLID), &t, 2);
	assert_int_equal(a.status, 0);
	assert_int_equal(rec(&a, 0)->mtu, 0x80 | IB_MTU_LEN_1024);
	assert_int_equal(rec(&a, 0)->rate, 0x80 | 6);
	assert_int_equal(be16toh(rec(&a, 0)->qos_class_sl) & 0xf, 0);
	free(a.out);

	/* h3 -> h1 enters at sw2: SL 3. */
	t = lids(5, 2);
	a = ask(f, IB_MAD_METHOD_GET, M(SLID) | M(DLID), &t, 2);
	assert_int_equal(be16toh(rec(&a, 0)->qos_class_sl) & 0xf, 3);
	free(a.out);

	/* To a switch's own LID, and a port's path to itself (lifetime 0). */
	t = lids(2, 4);
	a = ask(f, IB_MAD_METHOD_GET, M(SLID) | M(DLID), &t, 2);
	assert_int_equal(a.status, 0);
	assert_int_equal(be64toh(rec(&a, 0)->dgid.unicast.interface_id), 0x400);
	free(a.out);
	t = lids(2, 2);
	a = ask(f, IB_MAD_METHOD_GET, M(SLID) | M(DLID), &t, 2);
	assert_int_equal(a.status, 0);
	assert_int_equal(rec(&a, 0)->pkt_life, 0x80);
	free(a.out);
}

static void test_path_sl_requested(void **state)
{
	struct fab *f = *state;
	ib_path_rec_t t = lids(2, 3);
	struct ans a;

	/* The engine's SL 1 is the only one that is free of credit loops. */
	t.qos_class_sl = htobe16(2);
	a = ask(f, IB_MAD_METHOD_GET, M(SLID) | M(DLID) | M(SL), &t, 2);
	assert_int_equal(a.status, SA_ST_NO_RECORDS);
	free(a.out);
	t.qos_class_sl = htobe16(1);
	a = ask(f, IB_MAD_METHOD_GET, M(SLID) | M(DLID) | M(SL), &t, 2);
	assert_int_equal(a.status, 0);
	free(a.out);
	/* Without an engine's SLs, the partition's SL (none configured: 0). */
	f->src.routes = NULL;
	t.qos_class_sl = 0;
	a = ask(f, IB_MAD_METHOD_GET, M(SLID) | M(DLID), &t, 2);
	assert_int_equal(be16toh(rec(&a, 0)->qos_class_sl) & 0xf, 0);
	free(a.out);
}

static void test_path_unrouted(void **state)
{
	struct fab *f = *state;
	ib_path_rec_t t = lids(2, 3);
	const uint8_t *l;
	uint32_t len;
	struct ans a;

	assert_int_equal(prog_cache_lft(f->cache, 0x100, &l, &len), 0);
	((uint8_t *)l)[3] = ROUTE_DROP;
	a = ask(f, IB_MAD_METHOD_GET, M(SLID) | M(DLID), &t, 2);
	assert_int_equal(a.status, SA_ST_NO_RECORDS);
	free(a.out);
	/* A route that ends at the wrong port is no path either. */
	((uint8_t *)l)[3] = 1; /* back to h1 */
	a = ask(f, IB_MAD_METHOD_GET, M(SLID) | M(DLID), &t, 2);
	assert_int_equal(a.status, SA_ST_NO_RECORDS);
	free(a.out);
}

static void test_path_gids_and_statuses(void **state)
{
	struct fab *f = *state;
	ib_path_rec_t t;
	struct ans a;

	memset(&t, 0, sizeof(t));
	t.sgid.unicast.prefix = t.dgid.unicast.prefix = htobe64(0xfe80000000000000ULL);
	t.sgid.unicast.interface_id = htobe64(0x501);
	t.dgid.unicast.interface_id = htobe64(0x201);
	a = ask(f, IB_MAD_METHOD_GETTABLE, M(SGID) | M(DGID), &t, 2);
	assert_int_equal(a.status, 0);
	assert_int_equal(a.len, SA_HDR_SIZE + sizeof(ib_path_rec_t));
	assert_int_equal(be16toh(rec(&a, 0)->slid), 5);
	assert_int_equal(be16toh(rec(&a, 0)->dlid), 2);
	free(a.out);
	/* No port has that GUID; another subnet's prefix (no routers). */
	t.dgid.unicast.interface_id = htobe64(0x999);
	a = ask(f, IB_MAD_METHOD_GETTABLE, M(SGID) | M(DGID), &t, 2);
	assert_int_equal(a.status, SA_ST_INVALID_GID);
	free(a.out);
	t.dgid.unicast.interface_id = htobe64(0x201);
	t.dgid.unicast.prefix = htobe64(0xfec0000000000000ULL);
	a = ask(f, IB_MAD_METHOD_GETTABLE, M(SGID) | M(DGID), &t, 2);
	assert_int_equal(a.status, SA_ST_INVALID_GID);
	free(a.out);
	/* Every pair of the five end ports, itself included. */
	memset(&t, 0, sizeof(t));
	a = ask(f, IB_MAD_METHOD_GETTABLE, 0, &t, 2);
	assert_int_equal(a.status, 0);
	assert_int_equal(a.len, SA_HDR_SIZE + 25 * sizeof(ib_path_rec_t));
	free(a.out);
	/* NumbPath 0: none asked for. */
	t = lids(2, 3);
	a = ask(f, IB_MAD_METHOD_GETTABLE, M(SLID) | M(DLID) | M(NUMB), &t, 2);
	assert_int_equal(a.len, SA_HDR_SIZE);
	free(a.out);
}

/*
 * By GID, as hosts ask (SGID, DGID, P_Key, reversible, one path), every
 * pair of end ports: found through the GUID index, the same records as by
 * LID; and one end given by GID or by LID lists the same paths in the same
 * order.
 */
static void test_path_by_gid_every_pair(void **state)
{
	struct fab *f = *state;
	uint32_t end[5];
	unsigned n = 0;
	ib_path_rec_t t;
	struct ans g, l;

	for (uint32_t pi = 0; pi < f->sn->n_ports; pi++)
		if (sa_lid_endport(&f->src, pi))
			end[n++] = pi;
	assert_int_equal(n, 5);
	for (unsigned i = 0; i < n; i++) {
		uint16_t si = sa_endport_lid(&f->src, end[i], NULL);

		for (unsigned j = 0; j < n; j++) {
			uint16_t dj = sa_endport_lid(&f->src, end[j], NULL);

			assert_int_equal(sa_port_of_guid(&f->src, sa_port_guid(&f->src, end[j])),
					 end[j]);
			memset(&t, 0, sizeof(t));
			t.sgid.unicast.prefix = t.dgid.unicast.prefix = htobe64(0xfe80000000000000ULL);
			t.sgid.unicast.interface_id = htobe64(sa_port_guid(&f->src, end[i]));
			t.dgid.unicast.interface_id = htobe64(sa_port_guid(&f->src, end[j]));
			t.pkey = htobe16(0xffff);
			t.num_path = 0x81;
			g = ask(f, IB_MAD_METHOD_GET, M(SGID) | M(DGID) | M(PKEY) | M(NUMB) | M(11), &t,
				2);
			t = lids(si, dj);
			l = ask(f, IB_MAD_METHOD_GET, M(SLID) | M(DLID), &t, 2);
			assert_int_equal(g.status, 0);
			assert_int_equal(g.status, l.status);
			assert_memory_equal(rec(&g, 0), rec(&l, 0), sizeof(ib_path_rec_t));
			assert_int_equal(be16toh(rec(&g, 0)->slid), si);
			assert_int_equal(be16toh(rec(&g, 0)->dlid), dj);
			free(g.out);
			free(l.out);
		}
		/* From this port to every end port, in the model's order. */
		memset(&t, 0, sizeof(t));
		t.sgid.unicast.prefix = htobe64(0xfe80000000000000ULL);
		t.sgid.unicast.interface_id = htobe64(sa_port_guid(&f->src, end[i]));
		g = ask(f, IB_MAD_METHOD_GETTABLE, M(SGID), &t, 2);
		t = lids(si, 0);
		l = ask(f, IB_MAD_METHOD_GETTABLE, M(SLID), &t, 2);
		assert_int_equal(g.len, SA_HDR_SIZE + n * sizeof(ib_path_rec_t));
		assert_int_equal(g.len, l.len);
		assert_memory_equal(g.out + SA_HDR_SIZE, l.out + SA_HDR_SIZE, g.len - SA_HDR_SIZE);
		for (unsigned j = 0; j < n; j++)
			assert_int_equal(be64toh(rec(&g, j)->dgid.unicast.interface_id),
					 sa_port_guid(&f->src, end[j]));
		free(g.out);
		free(l.out);
	}
}

static void test_path_selectors(void **state)
{
	struct fab *f = *state;
	ib_path_rec_t t = lids(2, 3);
	struct ans a;

	t.mtu = (uint8_t)(0 << 6 | IB_MTU_LEN_2048); /* greater than 2048: no */
	a = ask(f, IB_MAD_METHOD_GET, M(SLID) | M(DLID) | M(MTUSEL) | M(MTU), &t, 2);
	assert_int_equal(a.status, SA_ST_NO_RECORDS);
	free(a.out);
	t.mtu = (uint8_t)(1 << 6 | IB_MTU_LEN_2048); /* less than 2048: 1024 */
	a = ask(f, IB_MAD_METHOD_GET, M(SLID) | M(DLID) | M(MTUSEL) | M(MTU), &t, 2);
	assert_int_equal(rec(&a, 0)->mtu, 0x80 | IB_MTU_LEN_1024);
	free(a.out);
	t.mtu = (uint8_t)(2 << 6 | IB_MTU_LEN_512); /* exactly 512 */
	a = ask(f, IB_MAD_METHOD_GET, M(SLID) | M(DLID) | M(MTUSEL) | M(MTU), &t, 2);
	assert_int_equal(rec(&a, 0)->mtu, 0x80 | IB_MTU_LEN_512);
	free(a.out);
	t.mtu = (uint8_t)(3 << 6); /* the best: what the path has */
	a = ask(f, IB_MAD_METHOD_GET, M(SLID) | M(DLID) | M(MTUSEL) | M(MTU), &t, 2);
	assert_int_equal(rec(&a, 0)->mtu, 0x80 | IB_MTU_LEN_2048);
	free(a.out);
	/* Rates by speed, not code: 10 Gb/s (3) is more than 5 Gb/s (5). */
	t.rate = (uint8_t)(0 << 6 | 5);
	a = ask(f, IB_MAD_METHOD_GET, M(SLID) | M(DLID) | M(RATESEL) | M(RATE), &t, 2);
	assert_int_equal(a.status, 0);
	free(a.out);
	t.rate = (uint8_t)(1 << 6 | 3); /* less than 10: 5 Gb/s */
	a = ask(f, IB_MAD_METHOD_GET, M(SLID) | M(DLID) | M(RATESEL) | M(RATE), &t, 2);
	assert_int_equal(rec(&a, 0)->rate, 0x80 | 5);
	free(a.out);
	t.rate = (uint8_t)(2 << 6 | 6); /* exactly 20: more than the path has */
	a = ask(f, IB_MAD_METHOD_GET, M(SLID) | M(DLID) | M(RATESEL) | M(RATE), &t, 2);
	assert_int_equal(a.status, SA_ST_NO_RECORDS);
	free(a.out);
}

static void test_path_partitions(void **state)
{
	struct fab *f = *state;
	ib_path_rec_t t = lids(2, 3);
	struct ans a;

	partitions(f);
	/* h1 and h2: limited members of 0x0001 only between them: no path. */
	a = ask(f, IB_MAD_METHOD_GET, M(SLID) | M(DLID), &t, 5);
	assert_int_equal(a.status, SA_ST_NO_RECORDS);
	free(a.out);
	/* h2 (limited) to h3 (full): the shared key, as h2 holds it. */
	t = lids(3, 5);
	a = ask(f, IB_MAD_METHOD_GET, M(SLID) | M(DLID), &t, 5);
	assert_int_equal(a.status, 0);
	assert_int_equal(be16toh(rec(&a, 0)->pkey), 0x0001);
	free(a.out);
	/* h1 to h3 asking for 0x8001: that key; 0x7fff would do too, but not 0x0002. */
	t = lids(2, 5);
	t.pkey = htobe16(0x8001);
	a = ask(f, IB_MAD_METHOD_GET, M(SLID) | M(DLID) | M(PKEY), &t, 5);
	assert_int_equal(be16toh(rec(&a, 0)->pkey), 0x8001);
	free(a.out);
	t.pkey = htobe16(0x0002);
	a = ask(f, IB_MAD_METHOD_GET, M(SLID) | M(DLID) | M(PKEY), &t, 5);
	assert_int_equal(a.status, SA_ST_NO_RECORDS);
	free(a.out);
}

static struct ans ask_table(struct fab *f, uint16_t attr, uint64_t mask, const void *tmpl,
			    size_t n)
{
	uint8_t mad[MAD_SIZE] = { 0 };
	ib_sa_mad_t *m = (ib_sa_mad_t *)mad;
	struct mad_addr from = { .lid = 2, .qpn = 1, .agent = MAD_AGENT_SA };
	struct ans a = { 0 };

	m->base_ver = 1;
	m->mgmt_class = IB_MCLASS_SUBN_ADM;
	m->class_ver = 2;
	m->method = IB_MAD_METHOD_GETTABLE;
	m->attr_id = htobe16(attr);
	m->comp_mask = htobe64(mask);
	m->sm_key = htobe64(f->src.sm.sm_key); /* trusted, when the SA has a key */
	memcpy(mad + SA_HDR_SIZE, tmpl, n);
	a.r = sa_answer(&f->src, mad, sizeof(mad), &from, &a.out, &a.len, &a.status);
	return a;
}

static void test_tables(void **state)
{
	struct fab *f = *state;
	ib_pkey_table_record_t pk = { .lid = htobe16(5) };
	ib_slvl_table_record_t sv = { .lid = htobe16(1), .out_port_num = 3 };
	ib_vl_arb_table_record_t va = { .lid = htobe16(2) };
	const ib_slvl_table_record_t *s;
	struct ans a;

	partitions(f);
	/* P_KeyTableRecords answer trusted requests only (IBA 15.4). */
	a = ask_table(f, 0x33, 1, &pk, sizeof(pk));
	assert_int_equal(a.status, SA_ST_REQ_INVALID);
	free(a.out);
	f->src.sm.sm_key = 1;
	a = ask_table(f, 0x33, 1, &pk, sizeof(pk));
	assert_int_equal(a.status, SA_ST_OK);
	assert_int_equal(a.len, SA_HDR_SIZE + sizeof(pk));
	assert_int_equal(be16toh(((ib_pkey_table_record_t *)(a.out + SA_HDR_SIZE))->pkey_tbl.pkey_entry[1]),
			 0x8001);
	free(a.out);
	/* h2, a limited member like the requester h1: hidden (IBA 10.9.1). */
	pk.lid = htobe16(3);
	a = ask_table(f, 0x33, 1, &pk, sizeof(pk));
	assert_int_equal(a.len, SA_HDR_SIZE);
	free(a.out);
	/* sw1's tables into port 3: from port 0 and port 1 (linked), the engine's map. */
	a = ask_table(f, 0x13, 1 | 4, &sv, sizeof(sv));
	assert_int_equal(a.len, SA_HDR_SIZE + 2 * sizeof(sv));
	s = (const ib_slvl_table_record_t *)(a.out + SA_HDR_SIZE);
	assert_int_equal(s[0].in_port_num, 0);
	assert_int_equal(s[1].in_port_num, 1);
	assert_int_equal(s[1].slvl_tbl.raw_vl_by_sl[1], 0x23); /* SL 2 -> VL 2, SL 3 -> VL 3 */
	free(a.out);
	/* h1's arbitration: low and high blocks (1 and 3), the defaults' weights. */
	a = ask_table(f, 0x36, 1, &va, sizeof(va));
	assert_int_equal(a.len, SA_HDR_SIZE + 2 * sizeof(va));
	assert_int_equal(((ib_vl_arb_table_record_t *)(a.out + SA_HDR_SIZE))->block_num, 1);
	free(a.out);
	/* Without QoS classes loomd does not know the tables: no records. */
	f->src.qos = NULL;
	a = ask_table(f, 0x36, 1, &va, sizeof(va));
	assert_int_equal(a.len, SA_HDR_SIZE);
	free(a.out);
}

/* MultiPathRecord: sources h1 and h2, destinations h3 and h1; P_Key required. */
static void test_multipath(void **state)
{
	struct fab *f = *state;
	uint8_t mad[MAD_SIZE] = { 0 };
	ib_sa_mad_t *m = (ib_sa_mad_t *)mad;
	ib_multipath_rec_t *r = (ib_multipath_rec_t *)(mad + SA_HDR_SIZE);
	struct mad_addr from = { .lid = 2, .qpn = 1, .agent = MAD_AGENT_SA };
	static const uint64_t guids[] = { 0x201, 0x301, 0x501, 0x201 };
	struct ans a = { 0 };
	const ib_path_rec_t *p;

	m->base_ver = 1;
	m->mgmt_class = IB_MCLASS_SUBN_ADM;
	m->class_ver = 2;
	m->method = IB_MAD_METHOD_GETMULTI;
	m->attr_id = htobe16(0x3a);
	m->comp_mask = htobe64(1ULL << 19 | 1ULL << 20 | 1ULL << 7); /* counts, P_Key */
	r->sgid_count = 2;
	r->dgid_count = 2;
	r->pkey = htobe16(0xffff);
	for (unsigned i = 0; i < 4; i++) {
		r->gids[i].unicast.prefix = htobe64(0xfe80000000000000ULL);
		r->gids[i].unicast.interface_id = htobe64(guids[i]);
	}
	a.r = sa_answer(&f->src, mad, sizeof(mad), &from, &a.out, &a.len, &a.status);
	assert_int_equal(a.r, 0);
	assert_int_equal(a.status, 0);
	assert_int_equal(hdr_method(a.out), IB_MAD_METHOD_GETMULTI_RESP);
	/* Four pairs, one path each: h1->h3, h1->h1, h2->h3, h2->h1. */
	assert_int_equal(a.len, SA_HDR_SIZE + 4 * sizeof(ib_path_rec_t));
	p = (const ib_path_rec_t *)(a.out + SA_HDR_SIZE);
	assert_int_equal(be16toh(p[0].slid), 2);
	assert_int_equal(be16toh(p[0].dlid), 5);
	assert_int_equal(be16toh(p[0].qos_class_sl) & 0xf, 2); /* the engine's SL */
	assert_int_equal(be16toh(p[3].slid), 3);
	assert_int_equal(be16toh(p[3].dlid), 2);
	free(a.out);
	/* No counts: insufficient components; a Get: not this attribute's method. */
	m->comp_mask = 0;
	a.r = sa_answer(&f->src, mad, sizeof(mad), &from, &a.out, &a.len, &a.status);
	assert_int_equal(a.status, SA_ST_INSUF_COMPS);
	free(a.out);
	m->method = IB_MAD_METHOD_GET;
	a.r = sa_answer(&f->src, mad, sizeof(mad), &from, &a.out, &a.len, &a.status);
	assert_int_equal(a.status, SA_ST_UNSUP_METHOD_ATTR);
	free(a.out);
}

/*
 * A MultiPathRecord longer than one MAD, as the kernel hands over an RMPP
 * request: 6 sources x 6 destinations, 12 GIDs past the first MAD's 11.
 * Every pair is answered; a request whose counts promise more GIDs than
 * it carries is refused, never read past its end.
 */
static void test_multipath_long(void **state)
{
	struct fab *f = *state;
	size_t len = SA_HDR_SIZE + offsetof(ib_multipath_rec_t, gids) + 12 * sizeof(ib_gid_t);
	uint8_t *mad = calloc(1, len);
	ib_sa_mad_t *m = (ib_sa_mad_t *)mad;
	ib_multipath_rec_t *r = (ib_multipath_rec_t *)(mad + SA_HDR_SIZE);
	struct mad_addr from = { .lid = 2, .qpn = 1, .agent = MAD_AGENT_SA };
	static const uint64_t guids[] = { 0x201, 0x301, 0x501 };
	struct ans a = { 0 };
	const ib_path_rec_t *p;

	assert_non_null(mad);
	m->base_ver = 1;
	m->mgmt_class = IB_MCLASS_SUBN_ADM;
	m->class_ver = 2;
	m->method = IB_MAD_METHOD_GETMULTI;
	m->attr_id = htobe16(0x3a);
	m->rmpp_version = 1;
	m->rmpp_type = IB_RMPP_TYPE_DATA;
	m->rmpp_flags = IB_RMPP_FLAG_ACTIVE | IB_RMPP_FLAG_FIRST | IB_RMPP_FLAG_LAST;
	m->comp_mask = htobe64(1ULL << 19 | 1ULL << 20);
	r->sgid_count = 6;
	r->dgid_count = 6;
	for (unsigned i = 0; i < 12; i++) {
		ib_gid_t g = { .unicast = { .prefix = htobe64(0xfe80000000000000ULL),
					    .interface_id = htobe64(guids[i % 3]) } };

		memcpy((uint8_t *)r->gids + i * sizeof(g), &g, sizeof(g));
	}
	a.r = sa_answer(&f->src, mad, len, &from, &a.out, &a.len, &a.status);
	assert_int_equal(a.r, 0);
	assert_int_equal(a.status, 0);
	assert_int_equal(a.len, SA_HDR_SIZE + 36 * sizeof(ib_path_rec_t));
	p = (const ib_path_rec_t *)(a.out + SA_HDR_SIZE);
	/* The last pair: source 6 (h3), destination 12 (h3): from GIDs past the first MAD. */
	assert_int_equal(be16toh(p[35].slid), 5);
	assert_int_equal(be16toh(p[35].dlid), 5);
	assert_int_equal(be16toh(p[34].dlid), 3);
	free(a.out);
	/* One GID short of what the counts say: refused. */
	a.r = sa_answer(&f->src, mad, len - sizeof(ib_gid_t), &from, &a.out, &a.len, &a.status);
	assert_int_equal(a.r, 0);
	assert_int_equal(a.status, SA_ST_REQ_INVALID);
	free(a.out);
	free(mad);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_path_by_lids, setup, teardown),
		cmocka_unit_test_setup_teardown(test_path_sl_requested, setup, teardown),
		cmocka_unit_test_setup_teardown(test_path_unrouted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_path_gids_and_statuses, setup, teardown),
		cmocka_unit_test_setup_teardown(test_path_by_gid_every_pair, setup, teardown),
		cmocka_unit_test_setup_teardown(test_path_selectors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_path_partitions, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tables, setup, teardown),
		cmocka_unit_test_setup_teardown(test_multipath, setup, teardown),
		cmocka_unit_test_setup_teardown(test_multipath_long, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
