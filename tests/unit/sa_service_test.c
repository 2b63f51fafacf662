/* SPDX-License-Identifier: MIT */
/*
 * ServiceRecord (sa/sa_rec_service.c) on a hand-built fabric (one switch,
 * two CAs), through sa_answer as a client would ask: register, query by
 * ServiceID, by name, by data, GetTable; replace by RID; delete; leases
 * running out as now_ms advances; an unknown ServiceGID refused; the P_Key
 * rules; ServiceKeys hidden from untrusted requesters; ports leaving take
 * their services; malformed and short requests answered, never crashing.
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

#define SR 0x0031
#define M_SID (1ULL << 0)
#define M_SGID (1ULL << 1)
#define M_SPKEY (1ULL << 2)
#define M_SLEASE (1ULL << 4)
#define M_SKEY (1ULL << 5)
#define M_SNAME (1ULL << 6)
#define M_SDATA8_1 (1ULL << 8)
#define M_REG (M_SID | M_SGID | M_SLEASE | M_SKEY | M_SNAME)

/* Partitions: everyone holds the default; h1 and the switch also 0x8001, h2 0x8002. */
static void partitions(struct sa_fab *f)
{
	const struct sa_fix_pkeys pk[] = {
		{ sa_fix_port(f, f->sw1, 0), { 0xffff, 0x8001 } },
		{ sa_fix_port(f, f->h1, 1), { 0xffff, 0x8001 } },
		{ sa_fix_port(f, f->h2, 1), { 0xffff, 0x8002 } },
	};

	sa_fix_partitions(f, &f->src, pk, 3);
}

/* A ServiceRecord request: method, mask, SM_Key; the record goes in with svc(). */
static ib_service_record_t *req(uint8_t mad[MAD_SIZE], uint8_t method, uint64_t mask,
				uint64_t sm_key)
{
	ib_service_record_t *r = sa_fix_req(mad, method, SR, mask);

	sa_fix_key(mad, sm_key);
	return r;
}

/* A service as osmtest registers one: id, the port guid's GID, P_Key, lease, key[0], name. */
static void svc(ib_service_record_t *r, uint64_t id, uint64_t guid, uint16_t pkey, uint32_t lease,
		uint8_t key0, const char *name)
{
	memset(r, 0, sizeof(*r));
	r->service_id = htobe64(id);
	r->service_gid.unicast.prefix = htobe64(0xfe80000000000000ULL);
	r->service_gid.unicast.interface_id = htobe64(guid);
	r->service_pkey = htobe16(pkey);
	r->service_lease = htobe32(lease);
	r->service_key[0] = key0;
	memcpy(r->service_name, name, strnlen(name, sizeof(r->service_name) - 1));
}

/* sa_answer's answer; n: the records in it. */
struct ans {
	int r;
	uint16_t status;
	size_t len, n;
	uint8_t *out;
};

static struct ans ask_len(const struct sa_src *s, const uint8_t *mad, size_t len, uint16_t lid)
{
	struct sa_ans sa = sa_fix_ask(s, mad, len, lid, 0);
	struct ans a = { .r = sa.r, .status = sa.status, .len = sa.len, .out = sa.out };

	if (a.r == 0 && !a.status)
		a.n = mad[3] == IB_MAD_METHOD_GETTABLE ? (a.len - SA_HDR_SIZE) / 176 : 1;
	return a;
}

static struct ans ask(const struct sa_src *s, const uint8_t *mad, uint16_t lid)
{
	return ask_len(s, mad, MAD_SIZE, lid);
}

static const ib_service_record_t *rec(const struct ans *a, size_t i)
{
	return (const ib_service_record_t *)(a->out + SA_HDR_SIZE + i * 176);
}

/* Register (from LID lid); the answer's status. */
static uint16_t reg(struct sa_fab *f, uint16_t lid, uint64_t mask, uint64_t id, uint64_t guid,
		    uint16_t pkey, uint32_t lease, uint8_t key0, const char *name)
{
	uint8_t mad[MAD_SIZE];
	struct ans a;

	svc(req(mad, IB_MAD_METHOD_SET, mask, 0), id, guid, pkey, lease, key0, name);
	a = ask(&f->src, mad, lid);
	assert_int_equal(a.r, 0);
	free(a.out);
	return a.status;
}

/* How many records a GetTable with this template and mask gets (from h2, untrusted). */
static size_t count(struct sa_fab *f, uint64_t mask, uint64_t id, const char *name)
{
	uint8_t mad[MAD_SIZE];
	struct ans a;

	svc(req(mad, IB_MAD_METHOD_GETTABLE, mask, 0), id, 0, 0, 0, 0, name);
	a = ask(&f->src, mad, 3);
	assert_int_equal(a.r, 0);
	assert_int_equal(a.status, 0);
	free(a.out);
	return a.n;
}

static void test_register_get(void **state)
{
	struct sa_fab *f = *state;
	uint8_t mad[MAD_SIZE];
	struct ans a;

	/* osmtest's Set: h1 registers a service on its own port, with a P_Key. */
	svc(req(mad, IB_MAD_METHOD_SET, M_REG | M_SPKEY, 0), 0x10, 0x201, 0xffff, 0xffffffff, 11,
	    "srv.a");
	a = ask(&f->src, mad, 2);
	assert_int_equal(a.r, 0);
	assert_int_equal(a.status, 0);
	assert_int_equal(((const ib_sa_mad_t *)a.out)->method, IB_MAD_METHOD_GET_RESP);
	assert_int_equal(be64toh(rec(&a, 0)->service_id), 0x10);
	assert_string_equal((const char *)rec(&a, 0)->service_name, "srv.a");
	assert_int_equal(be32toh(rec(&a, 0)->service_lease), 0xffffffff);
	assert_int_equal(rec(&a, 0)->service_key[0], 0); /* untrusted: no key shown */
	free(a.out);
	assert_int_equal(f->svc.n, 1);
	assert_int_equal(f->svc.svc[0].guid, 0x201);
	assert_int_equal(f->svc.svc[0].wire[offsetof(ib_service_record_t, service_key)], 11);
	/* Without ServiceP_Key and ServiceLease: the default P_Key answered, an indefinite lease. */
	svc(req(mad, IB_MAD_METHOD_SET, M_SID | M_SGID | M_SNAME, 0), 0x11, 0x201, 0, 4, 0, "srv.b");
	a = ask(&f->src, mad, 2);
	assert_int_equal(a.status, 0);
	assert_int_equal(be16toh(rec(&a, 0)->service_pkey), 0xffff);
	assert_int_equal(be32toh(rec(&a, 0)->service_lease), 0xffffffff);
	free(a.out);
	/* A port registers a service of another port: allowed (h2 for h1's port). */
	assert_int_equal(reg(f, 3, M_REG, 0x12, 0x201, 0, 60, 0, "srv.c"), 0);
	assert_int_equal(f->svc.n, 3);

	/* Get by ServiceID: exactly one. */
	svc(req(mad, IB_MAD_METHOD_GET, M_SID, 0), 0x11, 0, 0, 0, 0, "");
	a = ask(&f->src, mad, 3);
	assert_int_equal(a.status, 0);
	assert_string_equal((const char *)rec(&a, 0)->service_name, "srv.b");
	free(a.out);
	/* By name. */
	svc(req(mad, IB_MAD_METHOD_GET, M_SNAME, 0), 0, 0, 0, 0, 0, "srv.c");
	a = ask(&f->src, mad, 3);
	assert_int_equal(a.status, 0);
	assert_int_equal(be64toh(rec(&a, 0)->service_id), 0x12);
	free(a.out);
	/* By ID and name that do not go together: none (a Get says so). */
	svc(req(mad, IB_MAD_METHOD_GET, M_SID | M_SNAME, 0), 0x10, 0, 0, 0, 0, "srv.c");
	a = ask(&f->src, mad, 3);
	assert_int_equal(a.status, SA_ST_NO_RECORDS);
	free(a.out);
	/* Get of all three: too many. GetTable: all three. By GID: all, they are h1's. */
	req(mad, IB_MAD_METHOD_GET, 0, 0);
	a = ask(&f->src, mad, 3);
	assert_int_equal(a.status, SA_ST_TOO_MANY_RECORDS);
	free(a.out);
	assert_int_equal(count(f, 0, 0, ""), 3);
	svc(req(mad, IB_MAD_METHOD_GETTABLE, M_SGID, 0), 0, 0x201, 0, 0, 0, "");
	a = ask(&f->src, mad, 3);
	assert_int_equal(a.status, 0);
	assert_int_equal(a.n, 3);
	assert_int_equal(be16toh(((const ib_sa_mad_t *)a.out)->attr_offset), 176 / 8);
	free(a.out);
	/* ServiceLease is no selector (as OpenSM): a lease in the mask changes nothing. */
	assert_int_equal(count(f, M_SLEASE, 0, ""), 3);
}

static void test_data_and_replace(void **state)
{
	struct sa_fab *f = *state;
	uint8_t mad[MAD_SIZE];
	ib_service_record_t *t;
	struct ans a;

	/* ServiceData8[1] as a selector. */
	t = req(mad, IB_MAD_METHOD_SET, M_REG | M_SDATA8_1, 0);
	svc(t, 0x20, 0x301, 0, 100, 0, "data");
	t->service_data8[1] = 7;
	t->service_data64[1] = htobe64(0x1122334455667788ULL);
	a = ask(&f->src, mad, 3);
	assert_int_equal(a.status, 0);
	assert_int_equal(rec(&a, 0)->service_data8[1], 7);
	assert_int_equal(be64toh(rec(&a, 0)->service_data64[1]), 0x1122334455667788ULL);
	free(a.out);
	t = req(mad, IB_MAD_METHOD_GETTABLE, M_SDATA8_1, 0);
	t->service_data8[1] = 7;
	a = ask(&f->src, mad, 2);
	assert_int_equal(a.n, 1);
	free(a.out);
	t->service_data8[1] = 8;
	a = ask(&f->src, mad, 2);
	assert_int_equal(a.n, 0);
	free(a.out);

	/* The same RID (ID, GID, P_Key) again, another name: replaced, not added. */
	assert_int_equal(reg(f, 2, M_REG, 0x21, 0x201, 0, 0xffffffff, 0, "old"), 0);
	assert_int_equal(reg(f, 2, M_REG, 0x21, 0x201, 0, 0xffffffff, 1, "new"), 0);
	assert_int_equal(f->svc.n, 2);
	assert_int_equal(count(f, M_SNAME, 0, "old"), 0);
	assert_int_equal(count(f, M_SNAME, 0, "new"), 1);
	assert_int_equal(count(f, M_SID, 0x21, ""), 1);
	/* Another P_Key (or GID) is another record. */
	assert_int_equal(reg(f, 2, M_REG | M_SPKEY, 0x21, 0x201, 0xffff, 0xffffffff, 1, "new"), 0);
	assert_int_equal(count(f, M_SID, 0x21, ""), 2);
}

static void test_delete(void **state)
{
	struct sa_fab *f = *state;
	uint8_t mad[MAD_SIZE];
	struct ans a;

	assert_int_equal(reg(f, 2, M_REG, 0x30, 0x201, 0, 0xffffffff, 9, "gone"), 0);
	assert_int_equal(reg(f, 2, M_REG, 0x31, 0x201, 0, 0xffffffff, 9, "stays"), 0);
	/* As osmtest deletes: the record as a Get showed it, the mask naming only the name. */
	for (int i = 0; i < 2; i++) {
		svc(req(mad, IB_MAD_METHOD_DELETE, M_SNAME, 0), 0x30, 0x201, 0, 0, 0, "gone");
		a = ask(&f->src, mad, 3);
		assert_int_equal(a.r, 0);
		if (i == 0) {
			/* The answer is the record deleted, its key hidden. */
			assert_int_equal(a.status, 0);
			assert_int_equal(((const ib_sa_mad_t *)a.out)->method,
					 IB_MAD_METHOD_DELETE | IB_MAD_METHOD_RESP_MASK);
			assert_string_equal((const char *)rec(&a, 0)->service_name, "gone");
			assert_int_equal(rec(&a, 0)->service_key[0], 0);
		} else {
			assert_int_equal(a.status, SA_ST_NO_RECORDS); /* nothing left to delete */
		}
		free(a.out);
	}
	assert_int_equal(f->svc.n, 1);
	assert_int_equal(count(f, 0, 0, ""), 1);
	assert_int_equal(count(f, M_SNAME, 0, "stays"), 1);
}

static void test_lease(void **state)
{
	struct sa_fab *f = *state;

	f->src.now_ms = 1000;
	assert_int_equal(reg(f, 2, M_REG, 0x40, 0x201, 0, 4, 0, "four"), 0);
	assert_int_equal(reg(f, 2, M_REG, 0x41, 0x201, 0, 10, 0, "ten"), 0);
	assert_int_equal(reg(f, 2, M_REG, 0x42, 0x201, 0, 0xffffffff, 0, "forever"), 0);
	assert_int_equal(reg(f, 2, M_REG, 0x43, 0x201, 0, 0, 0, "zero"), 0);
	/* A lease of 0 has run out by the next request. */
	assert_int_equal(count(f, 0, 0, ""), 3);
	f->src.now_ms = 4999;
	assert_int_equal(count(f, M_SNAME, 0, "four"), 1);
	f->src.now_ms = 5000; /* 4 s after it was set */
	assert_int_equal(count(f, M_SNAME, 0, "four"), 0);
	assert_int_equal(count(f, 0, 0, ""), 2);
	/* Registering again renews the lease. */
	f->src.now_ms = 9000;
	assert_int_equal(reg(f, 2, M_REG, 0x41, 0x201, 0, 10, 0, "ten"), 0);
	f->src.now_ms = 18999;
	assert_int_equal(count(f, M_SNAME, 0, "ten"), 1);
	f->src.now_ms = 19000;
	assert_int_equal(count(f, M_SNAME, 0, "ten"), 0);
	/* 0xFFFFFFFF: indefinite, however late. */
	f->src.now_ms = UINT64_MAX - 1;
	assert_int_equal(count(f, 0, 0, ""), 1);
	assert_int_equal(f->svc.n, 1);
	/* The largest finite lease does not overflow. */
	f->src.now_ms = 1000;
	assert_int_equal(reg(f, 2, M_REG, 0x44, 0x201, 0, 0xfffffffe, 0, "long"), 0);
	assert_int_equal(count(f, M_SNAME, 0, "long"), 1);
}

static void test_refused(void **state)
{
	struct sa_fab *f = *state;
	uint8_t mad[MAD_SIZE];
	ib_service_record_t *t;
	struct ans a;

	/* A ServiceGID that names no port: invalid GID, with or without a P_Key. */
	assert_int_equal(reg(f, 2, M_REG, 0x50, 0x777, 0, 0xffffffff, 0, "x"), SA_ST_INVALID_GID);
	assert_int_equal(reg(f, 2, M_REG | M_SPKEY, 0x50, 0x777, 0xffff, 0xffffffff, 0, "x"),
			 SA_ST_INVALID_GID);
	/* No ServiceID or no ServiceGID in the mask: request invalid (as OpenSM). */
	assert_int_equal(reg(f, 2, M_SGID | M_SNAME, 0x50, 0x201, 0, 1, 0, "x"), SA_ST_REQ_INVALID);
	assert_int_equal(reg(f, 2, M_SID | M_SNAME, 0x50, 0x201, 0, 1, 0, "x"), SA_ST_REQ_INVALID);
	/* A P_Key nobody holds. */
	assert_int_equal(reg(f, 2, M_REG | M_SPKEY, 0x50, 0x201, 0x8123, 1, 0, "x"),
			 SA_ST_REQ_INVALID);
	assert_int_equal(f->svc.n, 0);
	/* A multicast ServiceGID: the record belongs to the port that registered it. */
	t = req(mad, IB_MAD_METHOD_SET, M_REG, 0);
	svc(t, 0x51, 0, 0, 0xffffffff, 0, "mc");
	t->service_gid.raw[0] = 0xff;
	t->service_gid.raw[1] = 0x12;
	a = ask(&f->src, mad, 3);
	assert_int_equal(a.status, 0);
	free(a.out);
	assert_int_equal(f->svc.svc[0].guid, 0x301);
	/* Nothing to keep services in: queries are empty, changes refused. */
	f->src.svc = NULL;
	assert_int_equal(count(f, 0, 0, ""), 0);
	assert_int_equal(reg(f, 2, M_REG, 0x52, 0x201, 0, 1, 0, "y"), SA_ST_NO_RESOURCES);
	f->src.svc = &f->svc;
}

static void test_pkeys(void **state)
{
	struct sa_fab *f = *state;
	uint8_t mad[MAD_SIZE];
	struct ans a;

	partitions(f);
	/* h1 registers in 0x8001, which it holds: h1 sees it, h2 (not in 0x8001) does not. */
	assert_int_equal(reg(f, 2, M_REG | M_SPKEY, 0x60, 0x201, 0x8001, 0xffffffff, 0, "p1"), 0);
	assert_int_equal(count(f, 0, 0, ""), 0); /* count() asks from h2 */
	svc(req(mad, IB_MAD_METHOD_GETTABLE, 0, 0), 0, 0, 0, 0, 0, "");
	a = ask(&f->src, mad, 2);
	assert_int_equal(a.n, 1);
	free(a.out);
	/* h2 cannot register in 0x8001; nor h1 a 0x8001 service on h2's port. */
	assert_int_equal(reg(f, 3, M_REG | M_SPKEY, 0x61, 0x301, 0x8001, 1, 0, "p2"),
			 SA_ST_REQ_INVALID);
	assert_int_equal(reg(f, 2, M_REG | M_SPKEY, 0x61, 0x301, 0x8001, 1, 0, "p2"),
			 SA_ST_REQ_INVALID);
	/* A limited member's key counts (the partition, not the membership, is checked). */
	assert_int_equal(reg(f, 2, M_REG | M_SPKEY, 0x62, 0x201, 0x0001, 1, 0, "p3"), 0);
	/* Nor can h2 delete naming a P_Key it does not hold. */
	svc(req(mad, IB_MAD_METHOD_DELETE, M_SPKEY, 0), 0x60, 0x201, 0x8001, 0, 0, "p1");
	a = ask(&f->src, mad, 3);
	assert_int_equal(a.status, SA_ST_REQ_INVALID);
	free(a.out);
	/* A service without P_Key bits (registered without ServiceP_Key) is everyone's. */
	assert_int_equal(reg(f, 2, M_REG, 0x63, 0x201, 0, 0xffffffff, 0, "open"), 0);
	assert_int_equal(count(f, M_SNAME, 0, "open"), 1);
}

static void test_trusted(void **state)
{
	struct sa_fab *f = *state;
	uint8_t mad[MAD_SIZE];
	ib_service_record_t *t;
	struct ans a;
	uint8_t key[16];

	for (int i = 0; i < 16; i++)
		key[i] = (uint8_t)(i + 1);
	t = req(mad, IB_MAD_METHOD_SET, M_REG, SFX_SM_KEY);
	svc(t, 0x70, 0x201, 0, 0xffffffff, 0, "keyed");
	memcpy(t->service_key, key, 16);
	/* A trusted Set (the SM_Key) is answered with the key. */
	a = ask(&f->src, mad, 2);
	assert_int_equal(a.status, 0);
	assert_memory_equal(rec(&a, 0)->service_key, key, 16);
	free(a.out);
	/* Untrusted (SM_Key 0): the record, but the key zeroed; trusted: the key. */
	for (int i = 0; i < 2; i++) {
		static const uint8_t zero[16];

		svc(req(mad, IB_MAD_METHOD_GET, M_SNAME, i ? SFX_SM_KEY : 0), 0, 0, 0, 0, 0, "keyed");
		a = ask(&f->src, mad, 3);
		assert_int_equal(a.status, 0);
		assert_memory_equal(rec(&a, 0)->service_key, i ? key : zero, 16);
		free(a.out);
	}
	/* A wrong key: no answer at all (IBA 15.2.1.1, sa.c). */
	svc(req(mad, IB_MAD_METHOD_GET, M_SNAME, 0x1234), 0, 0, 0, 0, 0, "keyed");
	a = ask(&f->src, mad, 3);
	assert_int_equal(a.r, -EACCES);
	assert_null(a.out);
	/* The key selects by its registered value, even for an untrusted requester. */
	t = req(mad, IB_MAD_METHOD_GETTABLE, M_SNAME | M_SKEY, 0);
	svc(t, 0, 0, 0, 0, 0, "keyed");
	a = ask(&f->src, mad, 3);
	assert_int_equal(a.n, 0);
	free(a.out);
	memcpy(t->service_key, key, 16);
	a = ask(&f->src, mad, 3);
	assert_int_equal(a.n, 1);
	free(a.out);
	/* An SM without a key trusts nobody. */
	f->src.sm.sm_key = 0;
	svc(req(mad, IB_MAD_METHOD_GET, M_SNAME, 0), 0, 0, 0, 0, 0, "keyed");
	a = ask(&f->src, mad, 3);
	assert_int_equal(rec(&a, 0)->service_key[0], 0);
	free(a.out);
}

static void test_drop_port(void **state)
{
	struct sa_fab *f = *state;

	assert_int_equal(reg(f, 2, M_REG, 0x80, 0x201, 0, 0xffffffff, 0, "h1.a"), 0);
	assert_int_equal(reg(f, 3, M_REG, 0x81, 0x301, 0, 0xffffffff, 0, "h2.a"), 0);
	assert_int_equal(reg(f, 2, M_REG, 0x82, 0x301, 0, 0xffffffff, 0, "h2.b"), 0);
	assert_int_equal(sa_services_drop_port(&f->svc, 0x999), 0);
	assert_int_equal(sa_services_drop_port(&f->svc, 0x301), 2);
	assert_int_equal(count(f, 0, 0, ""), 1);
	assert_int_equal(count(f, M_SNAME, 0, "h1.a"), 1);
}

/* Any length, any bytes, any mask: an answer or -EPROTO, never a crash or a read past the end. */
static void test_malformed(void **state)
{
	struct sa_fab *f = *state;
	uint8_t mad[MAD_SIZE];
	static const uint8_t methods[] = { IB_MAD_METHOD_GET, IB_MAD_METHOD_GETTABLE,
					   IB_MAD_METHOD_SET, IB_MAD_METHOD_DELETE, 0x14 };
	uint32_t seed = 12345;
	struct ans a;

	assert_int_equal(reg(f, 2, M_REG, 0x90, 0x201, 0, 0xffffffff, 0, "base"), 0);
	/* Short: "request invalid" from the header; shorter than a MAD header: no answer. */
	req(mad, IB_MAD_METHOD_SET, M_REG, 0);
	for (size_t len = 0; len < MAD_SIZE; len++) {
		uint8_t *copy = malloc(len ? len : 1);

		memcpy(copy, mad, len);
		a = ask_len(&f->src, copy, len, 2);
		if (len < 24)
			assert_int_equal(a.r, -EPROTO);
		else
			assert_int_equal(a.status, SA_ST_REQ_INVALID);
		free(a.out);
		free(copy);
	}
	/* Garbage records and masks with every method. */
	for (int i = 0; i < 5000; i++) {
		uint8_t method = methods[i % sizeof(methods)];

		req(mad, method, 0, 0);
		for (size_t b = SA_HDR_SIZE - 8; b < MAD_SIZE; b++) {
			seed = seed * 1103515245 + 12345;
			mad[b] = (uint8_t)(seed >> 16);
		}
		if (i % 3 == 0) /* sometimes a GID that exists */
			((ib_service_record_t *)(mad + SA_HDR_SIZE))->service_gid.unicast.interface_id =
				htobe64(i % 2 ? 0x201 : 0x301);
		f->src.now_ms += seed % 3000;
		a = ask(&f->src, mad, (uint16_t)(1 + i % 4));
		assert_true(a.r == 0);
		assert_true(a.len >= MAD_SIZE || mad[3] == IB_MAD_METHOD_GETTABLE);
		free(a.out);
	}
	assert_true(f->svc.n <= 5000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_register_get, sa_fix_services, sa_fix_teardown),
		cmocka_unit_test_setup_teardown(test_data_and_replace, sa_fix_services, sa_fix_teardown),
		cmocka_unit_test_setup_teardown(test_delete, sa_fix_services, sa_fix_teardown),
		cmocka_unit_test_setup_teardown(test_lease, sa_fix_services, sa_fix_teardown),
		cmocka_unit_test_setup_teardown(test_refused, sa_fix_services, sa_fix_teardown),
		cmocka_unit_test_setup_teardown(test_pkeys, sa_fix_services, sa_fix_teardown),
		cmocka_unit_test_setup_teardown(test_trusted, sa_fix_services, sa_fix_teardown),
		cmocka_unit_test_setup_teardown(test_drop_port, sa_fix_services, sa_fix_teardown),
		cmocka_unit_test_setup_teardown(test_malformed, sa_fix_services, sa_fix_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
