/* SPDX-License-Identifier: MIT */
/*
 * PathRecord and the table records on sa_fixture.h's path fabric: two switches
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

#include "tests/unit/sa_fixture.h"

#define M(bit) (1ULL << (bit))
enum { DGID = 2, SGID = 3, DLID = 4, SLID = 5, NUMB = 12, PKEY = 13, SL = 15, MTUSEL = 16,
       MTU = 17, RATESEL = 18, RATE = 19 };

static struct sa_ans ask(struct sa_fab *f, uint8_t method, uint64_t mask,
			 const ib_path_rec_t *t, uint16_t from_lid)
{
	uint8_t mad[MAD_SIZE];

	memcpy(sa_fix_req(mad, method, 0x35, mask), t, sizeof(*t));
	return sa_fix_ask(&f->src, mad, sizeof(mad), from_lid, 0);
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

static const ib_path_rec_t *rec(const struct sa_ans *a, unsigned i)
{
	return (const ib_path_rec_t *)(a->out + SA_HDR_SIZE + i * sizeof(ib_path_rec_t));
}

static void test_path_by_lids(void **state)
{
	struct sa_fab *f = *state;
	ib_path_rec_t t = lids(2, 3);
	struct sa_ans a = ask(f, IB_MAD_METHOD_GET, M(SLID) | M(DLID), &t, 2);
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
	struct sa_fab *f = *state;
	ib_path_rec_t t = lids(2, 3);
	struct sa_ans a;

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
	struct sa_fab *f = *state;
	ib_path_rec_t t = lids(2, 3);
	const uint8_t *l;
	uint32_t len;
	struct sa_ans a;

	assert_int_equal(prog_cache_lft(f->lfts, 0x100, &l, &len), 0);
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
	struct sa_fab *f = *state;
	ib_path_rec_t t;
	struct sa_ans a;

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
	struct sa_fab *f = *state;
	uint32_t end[5];
	unsigned n = 0;
	ib_path_rec_t t;
	struct sa_ans g, l;

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
	struct sa_fab *f = *state;
	ib_path_rec_t t = lids(2, 3);
	struct sa_ans a;

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
	struct sa_fab *f = *state;
	ib_path_rec_t t = lids(2, 3);
	struct sa_ans a;

	sa_fix_path_partitions(f);
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

/* MultiPathRecord: sources h1 and h2, destinations h3 and h1; P_Key required. */
static void test_multipath(void **state)
{
	struct sa_fab *f = *state;
	uint8_t mad[MAD_SIZE];
	ib_sa_mad_t *m = (ib_sa_mad_t *)mad;
	ib_multipath_rec_t *r;
	static const uint64_t guids[] = { 0x201, 0x301, 0x501, 0x201 };
	struct sa_ans a;
	const ib_path_rec_t *p;

	/* counts, P_Key */
	r = sa_fix_req(mad, IB_MAD_METHOD_GETMULTI, 0x3a, 1ULL << 19 | 1ULL << 20 | 1ULL << 7);
	r->sgid_count = 2;
	r->dgid_count = 2;
	r->pkey = htobe16(0xffff);
	for (unsigned i = 0; i < 4; i++) {
		r->gids[i].unicast.prefix = htobe64(0xfe80000000000000ULL);
		r->gids[i].unicast.interface_id = htobe64(guids[i]);
	}
	a = sa_fix_ask(&f->src, mad, sizeof(mad), 2, 0);
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
	a = sa_fix_ask(&f->src, mad, sizeof(mad), 2, 0);
	assert_int_equal(a.status, SA_ST_INSUF_COMPS);
	free(a.out);
	m->method = IB_MAD_METHOD_GET;
	a = sa_fix_ask(&f->src, mad, sizeof(mad), 2, 0);
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
	struct sa_fab *f = *state;
	size_t len = SA_HDR_SIZE + offsetof(ib_multipath_rec_t, gids) + 12 * sizeof(ib_gid_t);
	uint8_t *mad = calloc(1, len);
	ib_sa_mad_t *m = (ib_sa_mad_t *)mad;
	ib_multipath_rec_t *r;
	static const uint64_t guids[] = { 0x201, 0x301, 0x501 };
	struct sa_ans a;
	const ib_path_rec_t *p;

	assert_non_null(mad);
	assert_true(len > MAD_SIZE); /* sa_fix_req writes MAD_SIZE bytes */
	r = sa_fix_req(mad, IB_MAD_METHOD_GETMULTI, 0x3a, 1ULL << 19 | 1ULL << 20);
	m->rmpp_version = 1;
	m->rmpp_type = IB_RMPP_TYPE_DATA;
	m->rmpp_flags = IB_RMPP_FLAG_ACTIVE | IB_RMPP_FLAG_FIRST | IB_RMPP_FLAG_LAST;
	r->sgid_count = 6;
	r->dgid_count = 6;
	for (unsigned i = 0; i < 12; i++) {
		ib_gid_t g = { .unicast = { .prefix = htobe64(0xfe80000000000000ULL),
					    .interface_id = htobe64(guids[i % 3]) } };

		memcpy((uint8_t *)r->gids + i * sizeof(g), &g, sizeof(g));
	}
	a = sa_fix_ask(&f->src, mad, len, 2, 0);
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
	a = sa_fix_ask(&f->src, mad, len - sizeof(ib_gid_t), 2, 0);
	assert_int_equal(a.r, 0);
	assert_int_equal(a.status, SA_ST_REQ_INVALID);
	free(a.out);
	free(mad);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_path_by_lids, sa_fix_path, sa_fix_teardown),
		cmocka_unit_test_setup_teardown(test_path_sl_requested, sa_fix_path, sa_fix_teardown),
		cmocka_unit_test_setup_teardown(test_path_unrouted, sa_fix_path, sa_fix_teardown),
		cmocka_unit_test_setup_teardown(test_path_gids_and_statuses, sa_fix_path, sa_fix_teardown),
		cmocka_unit_test_setup_teardown(test_path_by_gid_every_pair, sa_fix_path, sa_fix_teardown),
		cmocka_unit_test_setup_teardown(test_path_selectors, sa_fix_path, sa_fix_teardown),
		cmocka_unit_test_setup_teardown(test_path_partitions, sa_fix_path, sa_fix_teardown),
		cmocka_unit_test_setup_teardown(test_multipath, sa_fix_path, sa_fix_teardown),
		cmocka_unit_test_setup_teardown(test_multipath_long, sa_fix_path, sa_fix_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
