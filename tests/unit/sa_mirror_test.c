/* SPDX-License-Identifier: MIT */
/*
 * The SA mirror (sa/sa_mirror.h) on the star fabric (sa_fixture.h): one
 * SA ("the master") gets groups, services and a subscription the way
 * clients make them; its trusted GetTable answers are decoded into a
 * mirror, installed into a second SA of the same fabric, and that SA
 * then answers the same records, MLIDs included. Then the conflicts an
 * install settles, answers the decoder must refuse, and the client side
 * over a fake transport (requests, TIDs, retries, refusals), and the
 * fabric's links fetched apart (NodeRecords, LinkRecords).
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

#include "sa/sa_mirror.h"
#include "tests/unit/sa_fixture.h"

#define H1 0x201
#define H2 0x301
#define MCM_JOIN_MASK 0x1f0c7 /* MGID PortGID Q_Key TClass P_Key SL FlowLabel JoinState */

static const uint8_t mgid_a[16] = { 0xff, 0x12, 0xa0, 0x1c, [15] = 1 };
static const uint8_t mgid_b[16] = { 0xff, 0x12, 0xa0, 0x1c, [15] = 2 };
static const uint8_t mgid_x[16] = { 0xff, 0x12, 0xa0, 0x1c, [15] = 3 };
static const uint8_t mgid_mine[16] = { 0xff, 0x12, 0x40, 0x1b, [15] = 9 };

static uint16_t lid_of(uint64_t guid)
{
	return guid == H1 ? 2 : 3;
}

/* A join (Set) or leave (Delete) of port guid; its status. */
static uint16_t mcm(struct sa_fab *f, uint8_t method, const uint8_t mgid[16], uint64_t guid,
		    uint8_t js)
{
	uint8_t mad[MAD_SIZE];
	ib_member_rec_t *r = sa_fix_req(mad, method, 0x38, MCM_JOIN_MASK);
	struct sa_ans a;

	memcpy(r->mgid.raw, mgid, 16);
	r->port_gid.unicast.prefix = htobe64(SFX_PREFIX);
	r->port_gid.unicast.interface_id = htobe64(guid);
	r->qkey = htobe32(0x11);
	r->pkey = htobe16(0xffff);
	r->scope_state = (uint8_t)(0x20 | js);
	a = sa_fix_ask(&f->src, mad, MAD_SIZE, lid_of(guid), 0);
	assert_int_equal(a.r, 0);
	free(a.out);
	return a.status;
}

/* h2 registers service 0x77 (lease 60 s, ServiceKey 7) and subscribes to trap 128. */
static void services_and_subs(struct sa_fab *f)
{
	uint8_t mad[MAD_SIZE];
	ib_service_record_t *s = sa_fix_req(mad, IB_MAD_METHOD_SET, 0x31, 0x73);
	ib_inform_info_t *ii;
	struct sa_ans a;

	s->service_id = htobe64(0x77);
	s->service_gid.unicast.prefix = htobe64(SFX_PREFIX);
	s->service_gid.unicast.interface_id = htobe64(H2);
	s->service_lease = htobe32(60);
	s->service_key[0] = 7;
	memcpy(s->service_name, "mirror.test", 11);
	a = sa_fix_ask(&f->src, mad, MAD_SIZE, 3, 0);
	assert_int_equal(a.status, 0);
	free(a.out);
	ii = sa_fix_req(mad, IB_MAD_METHOD_SET, 0x03, 0);
	ii->lid_range_begin = htobe16(0xffff);
	ii->is_generic = 1;
	ii->subscribe = 1;
	ii->trap_type = htobe16(0xffff);
	ii->g_or_v.generic.trap_num = htobe16(128);
	ii->g_or_v.generic.node_type_msb = 0xff;
	ii->g_or_v.generic.node_type_lsb = htobe16(0xffff);
	a = sa_fix_ask(&f->src, mad, MAD_SIZE, 3, 0);
	assert_int_equal(a.status, 0);
	free(a.out);
}

/* The master's state: mgid_a at 0xC000 (h1 full, h2 non-member), mgid_b at 0xC002 (h2). */
static void master_state(struct sa_fab *f)
{
	assert_int_equal(mcm(f, IB_MAD_METHOD_SET, mgid_a, H1, MCAST_FULL), 0);
	assert_int_equal(mcm(f, IB_MAD_METHOD_SET, mgid_x, H1, MCAST_FULL), 0);
	assert_int_equal(mcm(f, IB_MAD_METHOD_SET, mgid_b, H2, MCAST_FULL), 0);
	assert_int_equal(mcm(f, IB_MAD_METHOD_SET, mgid_a, H2, MCAST_NON), 0);
	assert_int_equal(mcm(f, IB_MAD_METHOD_DELETE, mgid_x, H1, MCAST_FULL), 0); /* 0xC001 free */
	services_and_subs(f);
}

/* A trusted GetTable of attr from h1, as the mirror asks. */
static struct sa_ans table(const struct sa_fab *f, uint16_t attr)
{
	uint8_t mad[MAD_SIZE];
	struct sa_ans a;

	sa_mirror_req(mad, attr, 0x80000001, SFX_SM_KEY);
	a = sa_fix_ask(&f->src, mad, MAD_SIZE, 2, 0);
	assert_int_equal(a.r, 0);
	assert_int_equal(a.status, 0);
	return a;
}

static const uint16_t attrs[3] = { SA_MIRROR_ATTR_MCM, SA_MIRROR_ATTR_SERVICE,
				   SA_MIRROR_ATTR_INFORM_REC };

static void mirror_of(const struct sa_fab *f, struct sa_mirror *m)
{
	uint16_t st;

	for (unsigned i = 0; i < 3; i++) {
		struct sa_ans a = table(f, attrs[i]);

		assert_int_equal(sa_mirror_decode(m, a.out, a.len, &st), 0);
		free(a.out);
	}
}

/* The listener loomd sets on its groups: what the trap 66/67 baseline held when it was told. */
struct told {
	const struct sa_events *ev;
	unsigned calls;
	uint32_t baseline;
};

static void on_changed(void *arg)
{
	struct told *t = arg;

	t->calls++;
	t->baseline = t->ev->n_mgids;
}

static void test_roundtrip(void **state)
{
	struct sa_fab *f = *state, *b;
	struct sa_mirror m = { 0 };
	struct sa_mirror_stats st;
	struct told told = { 0 };
	void *bs = NULL;

	master_state(f);
	mirror_of(f, &m);
	assert_int_equal(m.n_g, 2);
	assert_memory_equal(m.g[0].mgid, mgid_a, 16);
	assert_int_equal(m.g[0].mlid, 0xc000);
	assert_int_equal(m.g[0].qkey, 0x11);
	assert_int_equal(m.g[0].n_m, 2);
	assert_int_equal(m.g[0].m[0].guid, H1);
	assert_int_equal(m.g[0].m[0].state, MCAST_FULL);
	assert_int_equal(m.g[0].m[1].guid, H2);
	assert_int_equal(m.g[0].m[1].state, MCAST_NON);
	assert_int_equal(m.g[1].mlid, 0xc002);
	assert_int_equal(m.n_svc, 1);
	assert_int_equal(m.svc[0].guid, H2);
	assert_int_equal(m.svc[0].expires_ms, 60000);
	assert_int_equal(m.svc[0].wire[offsetof(ib_service_record_t, service_key)], 7);
	assert_int_equal(m.n_sub, 1);
	assert_int_equal(m.sub[0].guid, H2);
	assert_int_equal(m.sub[0].inf.trap_num, 128);
	assert_int_equal(m.prefix, SFX_PREFIX);
	assert_int_equal(m.skipped + m.inconsistent, 0);

	/* A second SA of the same fabric, the standby taking over. */
	assert_int_equal(sa_fix_mirror(&bs), 0);
	b = bs;
	told.ev = &b->ev;
	b->mc->changed = on_changed;
	b->mc->changed_arg = &told;
	assert_int_equal(sa_mirror_install(&m, b->mc, &b->svc, &b->ev, b->sn, 5000, &st), 0);
	/* Told once, with the baseline already holding both groups: no trap 66 for them. */
	assert_int_equal(told.calls, 1);
	assert_int_equal(told.baseline, 2);
	b->mc->changed = NULL;
	assert_int_equal(st.groups_new, 2);
	assert_int_equal(st.members, 3);
	assert_int_equal(st.services, 1);
	assert_int_equal(st.subs, 1);
	assert_int_equal(st.groups_merged + st.groups_moved + st.groups_refused, 0);
	assert_int_equal(st.subs_unknown, 0);
	assert_true(b->mc->dirty);
	assert_int_equal(b->ev.sub[0].lid, 3); /* from the model: Reports reach h2 */
	assert_int_equal(b->svc.svc[0].expires_ms, 65000);
	assert_int_equal(b->ev.n_mgids, 2);
	/* The same answers, record for record. */
	for (unsigned i = 0; i < 3; i++) {
		struct sa_ans x = table(f, attrs[i]), y = table(b, attrs[i]);

		assert_int_equal(x.len, y.len);
		assert_memory_equal(x.out + SA_HDR_SIZE, y.out + SA_HDR_SIZE, x.len - SA_HDR_SIZE);
		free(x.out);
		free(y.out);
	}
	/* The next group a client creates takes the MLID the master left free. */
	assert_int_equal(mcm(b, IB_MAD_METHOD_SET, mgid_x, H1, MCAST_FULL), 0);
	assert_int_equal(mcast_find(b->mc, mgid_x)->mlid, 0xc001);
	sa_mirror_free(&m);
	sa_fix_teardown(&bs);
}

static struct mcast_group grp(const uint8_t mgid[16], uint16_t mlid, uint32_t qkey)
{
	struct mcast_group g = { .mlid = mlid, .qkey = qkey, .pkey = 0xffff, .mtu = 4,
				 .rate = 3, .pkt_life = 18, .scope = 2 };

	memcpy(g.mgid, mgid, 16);
	return g;
}

static void test_conflicts(void **state)
{
	struct sa_fab *f = *state;
	struct sa_mirror m = { 0 };
	struct sa_mirror_stats st;
	struct mcast_group t, *g;
	struct sa_service s = { .guid = H2, .expires_ms = 1 };
	uint8_t bad[16] = { 0xff, 0x12, [15] = 0x42 };

	/* Ours: an IPoIB-like group on 0xC000, and mgid_b on 0xC001 with another Q_Key. */
	t = grp(mgid_mine, 0, 0x22);
	t.permanent = true;
	assert_int_equal(mcast_create(f->mc, &t, &g), 0);
	assert_int_equal(g->mlid, 0xc000);
	t = grp(mgid_b, 0, 0x99);
	assert_int_equal(mcast_create(f->mc, &t, &g), 0);
	assert_int_equal(mcast_join(g, H1, MCAST_FULL), 0);
	/* The master's: mgid_a on 0xC000, mgid_b on 0xC002; two it cannot have. */
	m.cap_g = m.n_g = 4;
	m.g = calloc(4, sizeof(*m.g));
	assert_non_null(m.g);
	m.g[0] = grp(mgid_a, 0xc000, 0x11);
	m.g[1] = grp(mgid_b, 0xc002, 0x11);
	m.g[2] = grp(bad, 0x0005, 0x11);     /* not a multicast LID */
	m.g[3] = grp(mgid_x, 0xc000, 0x11);  /* mgid_a's MLID again */
	assert_int_equal(mcast_join(&m.g[1], H2, MCAST_FULL), 0);
	/* A service with the RID of ours replaces it; a subscriber nobody knows is left out. */
	memcpy(s.wire, "\0\0\0\0\0\0\0\x77", 8);
	f->svc.svc = calloc(1, sizeof(s));
	assert_non_null(f->svc.svc);
	f->svc.svc[0] = s;
	f->svc.n = f->svc.cap = 1;
	s.expires_ms = UINT64_MAX;
	m.svc = calloc(1, sizeof(s));
	assert_non_null(m.svc);
	m.svc[0] = s;
	m.n_svc = m.cap_svc = 1;
	m.sub = calloc(1, sizeof(*m.sub));
	assert_non_null(m.sub);
	m.sub[0].guid = 0xdead;
	m.n_sub = m.cap_sub = 1;

	assert_int_equal(sa_mirror_install(&m, f->mc, &f->svc, &f->ev, f->sn, 0, &st), 0);
	assert_int_equal(st.groups_refused, 2);
	assert_int_equal(st.groups_new, 1);
	assert_int_equal(st.groups_merged, 1);
	assert_int_equal(st.groups_moved, 1);
	assert_int_equal(st.fields_differ, 1);
	assert_int_equal(st.services, 1);
	assert_int_equal(st.subs_unknown, 1);
	assert_int_equal(mcast_find(f->mc, mgid_a)->mlid, 0xc000);
	g = mcast_find(f->mc, mgid_b);
	assert_int_equal(g->mlid, 0xc002);
	assert_int_equal(g->qkey, 0x11); /* the master's: the hosts hold it */
	assert_int_equal(g->n_m, 2);
	g = mcast_find(f->mc, mgid_mine);
	assert_int_equal(g->mlid, 0xc001); /* off the master's MLID, to the lowest free */
	assert_true(g->permanent);
	assert_null(mcast_find(f->mc, mgid_x));
	assert_null(mcast_find(f->mc, bad));
	assert_int_equal(f->svc.n, 1);
	assert_int_equal(f->svc.svc[0].expires_ms, UINT64_MAX);
	assert_int_equal(f->ev.n_sub, 0);
	sa_mirror_free(&m);
}

static void test_decode_bad(void **state)
{
	struct sa_fab *f = *state;
	struct sa_mirror m = { 0 };
	uint8_t mad[MAD_SIZE];
	ib_sa_mad_t *h = (ib_sa_mad_t *)mad;
	ib_member_rec_t *r;
	uint16_t st;

	(void)f;
	sa_mirror_req(mad, SA_MIRROR_ATTR_MCM, 1, 0);
	assert_int_equal(sa_mirror_decode(&m, mad, MAD_SIZE, &st), -EPROTO); /* a request */
	h->method = IB_MAD_METHOD_GETTABLE_RESP;
	assert_int_equal(sa_mirror_decode(&m, mad, SA_HDR_SIZE - 1, &st), -EPROTO);
	h->attr_id = htobe16(0x0011); /* NodeRecord: not the mirror's */
	assert_int_equal(sa_mirror_decode(&m, mad, MAD_SIZE, &st), -EPROTO);
	h->attr_id = htobe16(SA_MIRROR_ATTR_MCM);
	h->attr_offset = htobe16(6); /* 48 bytes: shorter than the record */
	assert_int_equal(sa_mirror_decode(&m, mad, MAD_SIZE, &st), -EPROTO);
	h->status = htobe16(0x0700);
	assert_int_equal(sa_mirror_decode(&m, mad, MAD_SIZE, &st), -EREMOTEIO);
	assert_int_equal(st, 0x0700);
	h->status = htobe16(0x0300); /* no records: an empty table */
	assert_int_equal(sa_mirror_decode(&m, mad, MAD_SIZE, &st), 0);
	assert_int_equal(m.n_g, 0);
	/*
	 * One MAD, RMPP First and Last: PayloadLength (SA header 20 + one
	 * record 56) tells the record from the padding, which here is not
	 * zero and must not be read as a second group.
	 */
	h->status = 0;
	h->attr_offset = htobe16(7);
	memset(mad + SA_HDR_SIZE, 0xee, MAD_SIZE - SA_HDR_SIZE);
	r = (ib_member_rec_t *)(mad + SA_HDR_SIZE);
	memset(r, 0, sizeof(*r));
	memcpy(r->mgid.raw, mgid_a, 16);
	r->mlid = htobe16(0xc005);
	r->port_gid.unicast.interface_id = htobe64(H1);
	r->scope_state = 0x21;
	h->rmpp_version = 1;
	h->rmpp_flags = IB_RMPP_FLAG_ACTIVE | IB_RMPP_FLAG_FIRST | IB_RMPP_FLAG_LAST;
	h->paylen_newwin = htobe32(20 + 56);
	assert_int_equal(sa_mirror_decode(&m, mad, MAD_SIZE, &st), 0);
	assert_int_equal(m.n_g, 1);
	assert_int_equal(m.g[0].mlid, 0xc005);
	assert_int_equal(m.g[0].n_m, 1);
	/* Without RMPP: every record the MAD holds; zero MGIDs name nothing. */
	h->rmpp_flags = 0;
	memset(mad + SA_HDR_SIZE + 56, 0, MAD_SIZE - SA_HDR_SIZE - 56);
	r->mlid = htobe16(0xc006); /* the same MGID, another MLID: inconsistent */
	assert_int_equal(sa_mirror_decode(&m, mad, MAD_SIZE, &st), 0);
	assert_int_equal(m.n_g, 1);
	assert_int_equal(m.skipped, 2);
	assert_int_equal(m.inconsistent, 1);
	sa_mirror_free(&m);
}

/* ---- the client over a fake transport ---- */

struct fake {
	uint8_t sent[16][MAD_SIZE];
	struct mad_addr to[16];
	unsigned n, timeout_ms;
};

static int fake_send(void *t, const uint8_t *mad, size_t len, unsigned timeout_ms,
		     const struct mad_addr *to)
{
	struct fake *k = t;

	assert_int_equal(len, MAD_SIZE);
	assert_true(k->n < 16);
	memcpy(k->sent[k->n], mad, MAD_SIZE);
	k->to[k->n++] = *to;
	k->timeout_ms = timeout_ms;
	return 0;
}

static const struct mad_transport_ops fake_ops = { .send = fake_send };

/* The master's answer to request i of the fake, as the master's SA gives it. */
static struct sa_ans answer(const struct sa_fab *f, const struct fake *k, unsigned i)
{
	struct sa_ans a = sa_fix_ask(&f->src, k->sent[i], MAD_SIZE, 2, 0);

	assert_int_equal(a.r, 0);
	return a;
}

static void test_fetch(void **state)
{
	struct sa_fab *f = *state;
	struct sa_mirror_fetch x;
	struct sa_mirror_fetch_opts o = SA_MIRROR_FETCH_DEFAULT;
	struct fake k = { 0 };
	struct sa_mirror m;
	struct sa_ans a;
	uint8_t other[MAD_SIZE];

	master_state(f);
	o.master_lid = 2;
	o.sm_key = SFX_SM_KEY;
	o.retries = 1;
	assert_int_equal(sa_mirror_fetch_start(&x, &o, &fake_ops, &k, 7, 100), 0);
	assert_int_equal(k.n, 3);
	for (unsigned i = 0; i < 3; i++) {
		const ib_sa_mad_t *q = (const ib_sa_mad_t *)k.sent[i];

		assert_int_equal(q->method, IB_MAD_METHOD_GETTABLE);
		assert_int_equal(be16toh(q->attr_id), attrs[i]);
		assert_int_equal(be64toh(q->sm_key), SFX_SM_KEY);
		assert_true(be64toh(q->trans_id) & 0x80000000u);
		assert_int_equal(k.to[i].lid, 2);
		assert_int_equal(k.to[i].qpn, 1);
	}
	assert_int_equal(k.timeout_ms, 1000);
	assert_int_equal(sa_mirror_fetch_next_ms(&x, 100), 1000);
	/* Not ours: another TID, or a request. */
	memcpy(other, k.sent[0], MAD_SIZE);
	assert_false(sa_mirror_fetch_input(&x, other, MAD_SIZE));
	other[3] = IB_MAD_METHOD_GETTABLE_RESP;
	other[15] ^= 0x40;
	assert_false(sa_mirror_fetch_input(&x, other, MAD_SIZE));
	/* Two answers; the third request times out and goes again, then is answered. */
	for (unsigned i = 0; i < 2; i++) {
		a = answer(f, &k, i);
		assert_true(sa_mirror_fetch_input(&x, a.out, a.len));
		free(a.out);
	}
	assert_int_equal(sa_mirror_fetch_state(&x), 0);
	sa_mirror_fetch_tick(&x, 1100);
	assert_int_equal(k.n, 4);
	assert_int_equal(be16toh(((ib_sa_mad_t *)k.sent[3])->attr_id), SA_MIRROR_ATTR_INFORM_REC);
	a = answer(f, &k, 3);
	assert_true(sa_mirror_fetch_input(&x, a.out, a.len));
	assert_true(sa_mirror_fetch_input(&x, a.out, a.len)); /* twice: taken, ignored */
	free(a.out);
	assert_int_equal(sa_mirror_fetch_state(&x), 1);
	assert_int_equal(sa_mirror_fetch_next_ms(&x, 1200), -1);
	sa_mirror_fetch_take(&x, &m);
	sa_mirror_fetch_free(&x);
	assert_int_equal(m.n_g, 2);
	assert_int_equal(m.n_svc, 1);
	assert_int_equal(m.n_sub, 1);
	sa_mirror_free(&m);

	/* Nobody answers: after the retry, -ETIMEDOUT. */
	k.n = 0;
	assert_int_equal(sa_mirror_fetch_start(&x, &o, &fake_ops, &k, 8, 0), 0);
	sa_mirror_fetch_tick(&x, 1000);
	assert_int_equal(k.n, 6);
	sa_mirror_fetch_tick(&x, 1999);
	assert_int_equal(sa_mirror_fetch_state(&x), 0);
	sa_mirror_fetch_tick(&x, 2000);
	assert_int_equal(sa_mirror_fetch_state(&x), -ETIMEDOUT);
	sa_mirror_fetch_free(&x);

	/* A wrong SM_Key: this SA discards the request (no answer); a refusal fails the fetch. */
	k.n = 0;
	o.sm_key = 0x1234;
	assert_int_equal(sa_mirror_fetch_start(&x, &o, &fake_ops, &k, 9, 0), 0);
	a = sa_fix_ask(&f->src, k.sent[0], MAD_SIZE, 2, 0);
	assert_int_equal(a.r, -EACCES);
	memcpy(other, k.sent[1], MAD_SIZE);
	other[3] = IB_MAD_METHOD_GET_RESP;
	other[4] = 0x07; /* status 0x0700, "request denied" */
	assert_true(sa_mirror_fetch_input(&x, other, MAD_SIZE));
	assert_int_equal(sa_mirror_fetch_state(&x), -EREMOTEIO);
	assert_int_equal(x.q[SA_MIRROR_Q_SERVICE].status, 0x0700);
	sa_mirror_fetch_free(&x);

	/* An SA without InformInfoRecords (0x000C): an empty table, its status kept. */
	k.n = 0;
	o.sm_key = SFX_SM_KEY;
	assert_int_equal(sa_mirror_fetch_start(&x, &o, &fake_ops, &k, 10, 0), 0);
	for (unsigned i = 0; i < 2; i++) {
		a = answer(f, &k, i);
		assert_true(sa_mirror_fetch_input(&x, a.out, a.len));
		free(a.out);
	}
	memcpy(other, k.sent[2], MAD_SIZE);
	other[3] = IB_MAD_METHOD_GETTABLE_RESP;
	other[5] = 0x0c;
	assert_true(sa_mirror_fetch_input(&x, other, MAD_SIZE));
	assert_int_equal(sa_mirror_fetch_state(&x), 1);
	assert_int_equal(x.q[SA_MIRROR_Q_INFORM].status, 0x000c);
	assert_int_equal(x.m.n_g, 2);
	assert_int_equal(x.m.n_sub, 0);
	sa_mirror_fetch_free(&x);
}

/* The fabric's links, asked for apart (a standby's M_Keys): NodeRecords and LinkRecords. */
static void test_fetch_links(void **state)
{
	struct sa_fab *f = *state;
	struct sa_mirror_fetch x;
	struct sa_mirror_fetch_opts o = SA_MIRROR_FETCH_DEFAULT;
	struct fake k = { 0 };
	struct sa_mirror m;
	unsigned links = 0;

	o.master_lid = 2;
	o.sm_key = SFX_SM_KEY;
	o.want = SA_MIRROR_WANT_LINKS;
	assert_int_equal(sa_mirror_fetch_start(&x, &o, &fake_ops, &k, 11, 0), 0);
	assert_int_equal(k.n, 2); /* only the two wanted */
	assert_int_equal(be16toh(((ib_sa_mad_t *)k.sent[0])->attr_id), SA_MIRROR_ATTR_NODE);
	assert_int_equal(be16toh(((ib_sa_mad_t *)k.sent[1])->attr_id), SA_MIRROR_ATTR_LINK);
	for (unsigned i = 0; i < 2; i++) {
		struct sa_ans a = answer(f, &k, i);

		assert_true(sa_mirror_fetch_input(&x, a.out, a.len));
		free(a.out);
	}
	assert_int_equal(sa_mirror_fetch_state(&x), 1);
	sa_mirror_fetch_take(&x, &m);
	sa_mirror_fetch_free(&x);
	/* sw1 (LID 1), h1 (LID 2), h2 (LID 3): a node a LID, by its NodeGUID. */
	assert_int_equal(m.n_node, 3);
	for (uint32_t i = 0; i < m.n_node; i++) {
		uint32_t n = m.node[i].lid == 1 ? f->sw1 : m.node[i].lid == 2 ? f->h1 : f->h2;

		assert_int_equal(m.node[i].guid, f->sn->node[n].guid);
	}
	/* Both ends of sw1's two links. */
	assert_int_equal(m.n_link, 4);
	for (uint32_t i = 0; i < m.n_link; i++) {
		const struct sa_mirror_link *l = &m.link[i];

		links += (l->from_lid == 1 && l->from_port == 1 && l->to_lid == 2) ||
			 (l->from_lid == 1 && l->from_port == 2 && l->to_lid == 3) ||
			 (l->from_lid == 2 && l->to_lid == 1 && l->to_port == 1) ||
			 (l->from_lid == 3 && l->to_lid == 1 && l->to_port == 2);
	}
	assert_int_equal(links, 4);
	assert_int_equal(m.n_g + m.n_svc + m.n_sub, 0);
	sa_mirror_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_roundtrip, sa_fix_mirror, sa_fix_teardown),
		cmocka_unit_test_setup_teardown(test_conflicts, sa_fix_mirror, sa_fix_teardown),
		cmocka_unit_test_setup_teardown(test_decode_bad, sa_fix_mirror, sa_fix_teardown),
		cmocka_unit_test_setup_teardown(test_fetch, sa_fix_mirror, sa_fix_teardown),
		cmocka_unit_test_setup_teardown(test_fetch_links, sa_fix_mirror, sa_fix_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
