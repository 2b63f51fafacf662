/* SPDX-License-Identifier: MIT */
/*
 * The SA tests' fabrics, built by hand so that every LID, link and table
 * is known, and the sa_src they are asked through (see sa_fixture.h).
 */
#include <endian.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tests/unit/sa_fixture.h"

uint32_t sa_fix_port(const struct sa_fab *f, uint32_t node, unsigned num)
{
	return subnet_port_idx(f->sn, node, num);
}

/*
 * The one place an sa_src is built: what the SA answers from is the
 * fabric's model, its PortInfo, and whatever of LFTs, routes, QoS classes
 * and services the fabric has. When the SA's inputs change, change this.
 */
enum { SFX_SVC = 1, SFX_EV = 2 }; /* the stores an sa_src gets besides its groups */

static void sfx_src(struct sa_fab *f, uint32_t sm_port, struct sa_sm sm, uint64_t now_ms,
		    unsigned stores)
{
	f->src = (struct sa_src){ .sn = f->sn, .live = &f->live, .lfts = f->lfts,
				  .routes = f->ro.n_sw ? &f->ro : NULL, .qos = f->qos,
				  .svc = (stores & SFX_SVC) ? &f->svc : NULL, .mcast = f->mc,
				  .ev = (stores & SFX_EV) ? &f->ev : NULL, .now_ms = now_ms,
				  .sm_port = sm_port, .sm = sm };
	assert_int_equal(sa_src_index(&f->src), 0);
}

static struct sa_fab *sfx_new(void)
{
	struct sa_fab *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	assert_int_equal(subnet_new(&f->sn), 0);
	return f;
}

static void sfx_live(struct sa_fab *f)
{
	f->live.node = calloc(f->sn->n_nodes, sizeof(*f->live.node));
	f->live.port = calloc(f->sn->n_ports, sizeof(*f->live.port));
	assert_non_null(f->live.node);
	assert_non_null(f->live.port);
}

/* The star's model and PortInfo (sa_fixture.h). */
static struct sa_fab *sfx_star(void)
{
	struct sa_fab *f = sfx_new();
	ib_port_info_t pi;

	assert_int_equal(subnet_add_node(f->sn, NODE_SWITCH, 4, 0x100, "sw", "sw", &f->sw1), 0);
	assert_int_equal(subnet_add_node(f->sn, NODE_CA, 1, 0x200, "h1", "h1 HCA-1", &f->h1), 0);
	assert_int_equal(subnet_add_node(f->sn, NODE_CA, 1, 0x300, "h2", "h2 HCA-1", &f->h2), 0);
	assert_int_equal(subnet_link(f->sn, sa_fix_port(f, f->sw1, 1), sa_fix_port(f, f->h1, 1)),
			 0);
	assert_int_equal(subnet_link(f->sn, sa_fix_port(f, f->sw1, 2), sa_fix_port(f, f->h2, 1)),
			 0);
	f->sn->port[sa_fix_port(f, f->sw1, 0)].lid = 1;
	f->sn->port[sa_fix_port(f, f->h1, 1)].lid = 2;
	f->sn->port[sa_fix_port(f, f->h2, 1)].lid = 3;
	sfx_live(f);
	for (uint32_t i = 0; i < f->sn->n_ports; i++) {
		const struct subnet_port *p = &f->sn->port[i];

		if (!subnet_is_switch(f->sn, p->node) && !p->num)
			continue;
		memset(&pi, 0, sizeof(pi));
		pi.base_lid = htobe16(p->lid);
		pi.local_port_num = p->num;
		pi.m_key = htobe64(0x1234);
		/* PortState (4 bits, 260..263): Active where linked, else Down. */
		pi.state_info1 = p->peer != SUBNET_NONE || !p->num ? IB_LINK_ACTIVE : IB_LINK_DOWN;
		/* IsSLMappingSupported, as ibsim's CA ports and switch ports 0 say. */
		pi.capability_mask = htobe32(SMP_CAP_SL_MAP);
		f->live.port[i].pi.cap_mask = SMP_CAP_SL_MAP;
		f->live.port[i].have_pi = true;
		memcpy(f->live.port[i].raw, &pi, sizeof(pi));
	}
	return f;
}

int sa_fix_star(void **state)
{
	struct sa_fab *f = sfx_star();

	sfx_src(f, sa_fix_port(f, f->h1, 1),
		(struct sa_sm){ .guid = 0x201, .priority = 5, .state = 3 }, 0, false);
	*state = f;
	return 0;
}

int sa_fix_services(void **state)
{
	struct sa_fab *f = sfx_star();

	sfx_src(f, sa_fix_port(f, f->h1, 1),
		(struct sa_sm){ .guid = 0x201, .sm_key = SFX_SM_KEY, .priority = 5, .state = 3 },
		1000, SFX_SVC);
	*state = f;
	return 0;
}

/* h1's and h2's links: 4x SDR, 2048-byte MTU, so that a group fits them. */
static void sfx_mcm_links(struct sa_fab *f)
{
	ib_port_info_t pi;

	/* h1's and h2's links: 4x SDR, 2048-byte MTU, so that a group fits them. */
	for (uint32_t n = f->h1; n <= f->h2; n++) {
		uint32_t p = sa_fix_port(f, n, 1);

		memcpy(&pi, f->live.port[p].raw, sizeof(pi));
		pi.mtu_cap = IB_MTU_LEN_2048;
		ib_port_info_set_neighbor_mtu(&pi, IB_MTU_LEN_2048);
		pi.link_width_active = IB_LINK_WIDTH_ACTIVE_4X;
		pi.link_speed = (uint8_t)(IB_LINK_SPEED_ACTIVE_2_5 << 4 | IB_LINK_SPEED_ACTIVE_2_5);
		memcpy(f->live.port[p].raw, &pi, sizeof(pi));
	}
}

int sa_fix_mcm(void **state)
{
	struct sa_fab *f = sfx_star();

	sfx_mcm_links(f);
	assert_int_equal(mcast_new(&f->mc), 0);
	sfx_src(f, sa_fix_port(f, f->h1, 1),
		(struct sa_sm){ .guid = 0x201, .sm_key = SFX_SM_KEY, .priority = 5, .state = 3 },
		0, 0);
	*state = f;
	return 0;
}

int sa_fix_mirror(void **state)
{
	struct sa_fab *f = sfx_star();

	sfx_mcm_links(f);
	assert_int_equal(mcast_new(&f->mc), 0);
	sfx_src(f, sa_fix_port(f, f->h1, 1),
		(struct sa_sm){ .guid = 0x201, .sm_key = SFX_SM_KEY, .priority = 5, .state = 3 },
		1000, SFX_SVC | SFX_EV);
	*state = f;
	return 0;
}

/* The path fabric's PortInfo: 4x DDR, MTUCap 4096, NeighborMTU 2048 (h3's link 1024). */
static void sfx_path_port_info(struct sa_fab *f)
{
	for (uint32_t i = 0; i < f->sn->n_ports; i++) {
		const struct subnet_port *p = &f->sn->port[i];
		ib_port_info_t pi;

		if (!subnet_is_switch(f->sn, p->node) && !p->num)
			continue;
		memset(&pi, 0, sizeof(pi));
		pi.base_lid = htobe16(p->lid);
		pi.subnet_prefix = htobe64(SFX_PREFIX);
		pi.link_width_active = IB_LINK_WIDTH_ACTIVE_4X;
		pi.link_speed = IB_LINK_SPEED_ACTIVE_5 << 4; /* DDR: 4x = 20 Gb/s, rate 6 */
		pi.mtu_cap = IB_MTU_LEN_4096;
		pi.vl_arb_low_cap = 8;
		pi.vl_arb_high_cap = 8;
		f->live.port[i].pi.op_vls = 4; /* OperationalVLs: 8 */
		pi.capability_mask = htobe32(SMP_CAP_SL_MAP);
		f->live.port[i].pi.cap_mask = SMP_CAP_SL_MAP;
		pi.mtu_smsl = (uint8_t)((i == sa_fix_port(f, f->h3, 1) ||
					 i == sa_fix_port(f, f->sw2, 2) ?
					 IB_MTU_LEN_1024 : IB_MTU_LEN_2048) << 4);
		f->live.port[i].have_pi = true;
		memcpy(f->live.port[i].raw, &pi, sizeof(pi));
	}
	/* h1's link at SDR: its paths run at 10 Gb/s (rate 3). */
	f->live.port[sa_fix_port(f, f->h1, 1)].raw[offsetof(ib_port_info_t, link_speed)] =
		IB_LINK_SPEED_ACTIVE_2_5 << 4;
}

/* An LFT as programmed: LIDs 0..5 to ports[], the rest dropped. */
static void sfx_lft(struct sa_fab *f, uint32_t node, const uint8_t ports[6])
{
	struct prog_lft *e = prog_cache_get(f->lfts, f->sn->node[node].guid);

	assert_non_null(e);
	assert_int_equal(prog_lft_size(e, 64), 0);
	memset(e->lft, ROUTE_DROP, 64);
	memcpy(e->lft, ports, 6);
}

/* The engine's output as the SA reads it: only the SLs and the SL-to-VL map matter. */
static void sfx_routes(struct sa_fab *f)
{
	struct route_out *ro = &f->ro;

	ro->n_sw = 2;
	ro->max_lid = 5;
	ro->sw_index = malloc(f->sn->n_nodes * sizeof(uint32_t));
	ro->sw_node = malloc(2 * sizeof(uint32_t));
	ro->sl = calloc(2, 6);
	ro->lft = calloc(2, 6);
	assert_true(ro->sw_index && ro->sw_node && ro->sl && ro->lft);
	for (uint32_t n = 0; n < f->sn->n_nodes; n++)
		ro->sw_index[n] = SUBNET_NONE;
	ro->sw_index[f->sw1] = 0;
	ro->sw_index[f->sw2] = 1;
	ro->sw_node[0] = f->sw1;
	ro->sw_node[1] = f->sw2;
	route_sl(ro, 0)[3] = 1;
	route_sl(ro, 0)[5] = 2;
	route_sl(ro, 1)[2] = 3;
	for (unsigned sl = 0; sl < 16; sl++)
		ro->sl2vl[sl] = (uint8_t)(sl % 4);
	ro->n_vls = 4;
}

int sa_fix_path(void **state)
{
	static const uint8_t l1[6] = { 255, 0, 1, 3, 3, 3 }, l2[6] = { 255, 3, 3, 1, 0, 2 };
	struct sa_fab *f = sfx_new();

	assert_int_equal(subnet_add_node(f->sn, NODE_SWITCH, 4, 0x100, "sw1", "sw1", &f->sw1), 0);
	assert_int_equal(subnet_add_node(f->sn, NODE_SWITCH, 4, 0x400, "sw2", "sw2", &f->sw2), 0);
	assert_int_equal(subnet_add_node(f->sn, NODE_CA, 1, 0x200, "h1", "h1", &f->h1), 0);
	assert_int_equal(subnet_add_node(f->sn, NODE_CA, 1, 0x300, "h2", "h2", &f->h2), 0);
	assert_int_equal(subnet_add_node(f->sn, NODE_CA, 1, 0x500, "h3", "h3", &f->h3), 0);
	assert_int_equal(subnet_link(f->sn, sa_fix_port(f, f->sw1, 3), sa_fix_port(f, f->sw2, 3)),
			 0);
	assert_int_equal(subnet_link(f->sn, sa_fix_port(f, f->sw1, 1), sa_fix_port(f, f->h1, 1)),
			 0);
	assert_int_equal(subnet_link(f->sn, sa_fix_port(f, f->sw2, 1), sa_fix_port(f, f->h2, 1)),
			 0);
	assert_int_equal(subnet_link(f->sn, sa_fix_port(f, f->sw2, 2), sa_fix_port(f, f->h3, 1)),
			 0);
	f->sn->port[sa_fix_port(f, f->sw1, 0)].lid = 1;
	f->sn->port[sa_fix_port(f, f->h1, 1)].lid = 2;
	f->sn->port[sa_fix_port(f, f->h2, 1)].lid = 3;
	f->sn->port[sa_fix_port(f, f->sw2, 0)].lid = 4;
	f->sn->port[sa_fix_port(f, f->h3, 1)].lid = 5;
	sfx_live(f);
	sfx_path_port_info(f);
	assert_int_equal(prog_cache_new(&f->lfts), 0);
	sfx_lft(f, f->sw1, l1);
	sfx_lft(f, f->sw2, l2);
	sfx_routes(f);
	assert_int_equal(config_defaults(&f->qos), 0);
	sfx_src(f, sa_fix_port(f, f->h1, 1), (struct sa_sm){ 0 }, 0, 0);
	*state = f;
	return 0;
}

int sa_fix_teardown(void **state)
{
	struct sa_fab *f = *state;

	sa_services_free(&f->svc);
	sa_events_free(&f->ev);
	mcast_free(f->mc);
	sa_src_free(&f->src);
	disc_live_free(&f->live);
	prog_cache_free(f->lfts);
	free(f->ro.sw_index); /* by hand: route_out_free lives in librouting */
	free(f->ro.sw_node);
	free(f->ro.sl);
	free(f->ro.lft);
	config_free(f->qos);
	subnet_free(f->sn);
	free(f);
	return 0;
}

void sa_fix_partitions(struct sa_fab *f, struct sa_src *s, const struct sa_fix_pkeys *p,
		       unsigned n)
{
	uint32_t k = 0;

	assert_true(f->sn->n_ports < sizeof(f->off) / sizeof(f->off[0]));
	for (uint32_t pi = 0; pi < f->sn->n_ports; pi++) {
		f->off[pi] = k;
		for (unsigned i = 0; i < n; i++) {
			if (p[i].port != pi)
				continue;
			for (unsigned j = 0; j < 4 && p[i].key[j]; j++) {
				assert_true(k < sizeof(f->key) / sizeof(f->key[0]));
				f->key[k++] = p[i].key[j];
			}
		}
	}
	f->off[f->sn->n_ports] = k;
	f->plan = (struct pkey_plan){ .off = f->off, .key = f->key };
	s->pkeys = &f->plan;
}

void sa_fix_path_partitions(struct sa_fab *f)
{
	const struct sa_fix_pkeys pk[] = {
		{ sa_fix_port(f, f->sw1, 0), { 0xffff } },
		{ sa_fix_port(f, f->h1, 1), { 0xffff, 0x0001 } },
		{ sa_fix_port(f, f->h2, 1), { 0x0001 } },
		{ sa_fix_port(f, f->sw2, 0), { 0xffff } },
		{ sa_fix_port(f, f->h3, 1), { 0xffff, 0x8001 } },
	};

	sa_fix_partitions(f, &f->src, pk, 5);
}

void *sa_fix_req(uint8_t *mad, uint8_t method, uint16_t attr, uint64_t mask)
{
	ib_sa_mad_t *m = (ib_sa_mad_t *)mad;

	memset(mad, 0, MAD_SIZE);
	m->base_ver = 1;
	m->mgmt_class = IB_MCLASS_SUBN_ADM;
	m->class_ver = 2;
	m->method = method;
	m->trans_id = htobe64(0xabcdef);
	m->attr_id = htobe16(attr);
	m->comp_mask = htobe64(mask);
	return mad + SA_HDR_SIZE;
}

void sa_fix_key(uint8_t *mad, uint64_t key)
{
	((ib_sa_mad_t *)mad)->sm_key = htobe64(key);
}

void sa_fix_set16(uint8_t *mad, size_t rec_off, uint16_t v)
{
	v = htobe16(v);
	memcpy(mad + SA_HDR_SIZE + rec_off, &v, 2);
}

struct sa_ans sa_fix_ask(const struct sa_src *s, const uint8_t *mad, size_t len, uint16_t lid,
			 uint16_t pkey_index)
{
	struct mad_addr from = { .lid = lid, .qpn = 1, .pkey_index = pkey_index,
				 .agent = MAD_AGENT_SA };
	struct sa_ans a = { 0 };

	a.r = sa_answer(s, mad, len, &from, &a.out, &a.len, &a.status);
	return a;
}
