/* SPDX-License-Identifier: MIT */
/* What the LID manager's tests share: see lid_fixture.h. */
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "lib/diag.h"
#include "tests/unit/lid_fixture.h"

static char tmpdir[64];

const char *lfx_tmpdir(void)
{
	return tmpdir;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	chmod(path, 0755);
	return remove(path);
}

int lfx_setup_dir(void **state)
{
	(void)state;
	strcpy(tmpdir, "/tmp/lid_test.XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

int lfx_teardown_dir(void **state)
{
	(void)state;
	chmod(tmpdir, 0755);
	return nftw(tmpdir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

char *lfx_path(const char *name)
{
	static char buf[4][256];
	static unsigned k;
	char *p = buf[k++ % 4];

	snprintf(p, 256, "%s/%s", tmpdir, name);
	return p;
}

struct lid_map *lfx_map_new(void)
{
	struct lid_map *m = NULL;

	assert_int_equal(lid_map_new(&m), 0);
	return m;
}

void lfx_expect_ent(const struct lid_map *m, uint64_t guid, uint16_t lid, uint8_t lmc)
{
	uint16_t l = 0;
	uint8_t c = 0xff;

	assert_int_equal(lid_map_get(m, guid, &l, &c), 0);
	assert_int_equal(l, lid);
	assert_int_equal(c, lmc);
}

bool lfx_bearing(const struct subnet *sn, uint32_t pi)
{
	const struct subnet_port *p = &sn->port[pi];

	if (subnet_is_switch(sn, p->node))
		return p->num == 0;
	return p->num > 0 && p->peer != SUBNET_NONE;
}

uint32_t lfx_check_lids(const struct subnet *sn, uint8_t lmc, uint32_t *missing)
{
	static uint8_t used[SUBNET_LID_UCAST_END + 1];
	uint32_t k = 0, miss = 0;

	memset(used, 0, sizeof(used));
	for (uint32_t i = 0; i < sn->n_ports; i++) {
		const struct subnet_port *p = &sn->port[i];
		uint8_t want = subnet_is_switch(sn, p->node) ? 0 : lmc;

		if (!lfx_bearing(sn, i) || !p->lid) {
			assert_int_equal(p->lid, 0);
			assert_int_equal(p->lmc, 0);
			miss += lfx_bearing(sn, i);
			continue;
		}
		assert_int_equal(p->lmc, want);
		assert_int_equal(p->lid & ((1u << want) - 1), 0);
		assert_true(p->lid + (1u << want) - 1 <= SUBNET_LID_UCAST_END);
		for (uint32_t l = p->lid; l < p->lid + (1u << want); l++) {
			assert_int_equal(used[l], 0);
			used[l] = 1;
		}
		k++;
	}
	if (missing)
		*missing = miss;
	else
		assert_int_equal(miss, 0);
	return k;
}

void lfx_zero_lids(struct subnet *sn)
{
	for (uint32_t i = 0; i < sn->n_ports; i++)
		sn->port[i].lid = sn->port[i].lmc = 0;
}

int lfx_assign(struct subnet *sn, struct lid_map *m, uint8_t lmc, struct lid_report *rep)
{
	int r;

	*rep = (struct lid_report){ .msgs.limit = LID_MAX_MSGS };
	r = lid_assign(sn, m, lmc, rep);
	if (rep->msgs.n && getenv("LID_TEST_VERBOSE"))
		diag_print(&rep->msgs, stderr);
	return r;
}

/* The port of b that is port pi of a (same node GUID, same number), or SUBNET_NONE. */
uint32_t lfx_same_port(const struct subnet *a, uint32_t pi, const struct subnet *b)
{
	uint32_t n = subnet_find_guid(b, a->node[a->port[pi].node].guid);

	return n == SUBNET_NONE ? n : subnet_port_idx(b, n, a->port[pi].num);
}

/* Every port of a that b has too has the same LIDs in b. Returns how many were compared. */
uint32_t lfx_same_lids(const struct subnet *a, const struct subnet *b)
{
	uint32_t k = 0;

	for (uint32_t i = 0; i < a->n_ports; i++) {
		uint32_t j = lfx_same_port(a, i, b);

		if (j == SUBNET_NONE)
			continue;
		assert_int_equal(a->port[i].lid, b->port[j].lid);
		assert_int_equal(a->port[i].lmc, b->port[j].lmc);
		k += a->port[i].lid != 0;
	}
	return k;
}

/*
 * A copy of sn with its nodes in reverse order (or as they are), without the
 * node whose GUID is skip. Port GUIDs (duplicates too), links and the
 * model's LIDs come along.
 */
struct subnet *lfx_copy_model(const struct subnet *sn, bool reverse, uint64_t skip)
{
	uint32_t *map = calloc(sn->n_nodes, sizeof(*map));
	struct subnet *c = NULL;

	assert_non_null(map);
	assert_int_equal(subnet_new(&c), 0);
	for (uint32_t k = 0; k < sn->n_nodes; k++) {
		uint32_t i = reverse ? sn->n_nodes - 1 - k : k;
		const struct subnet_node *nd = &sn->node[i];
		uint32_t ni;

		map[i] = SUBNET_NONE;
		if (nd->guid == skip)
			continue;
		assert_int_equal(subnet_add_node(c, nd->type, nd->nports, nd->guid,
						 subnet_str(sn, nd->name), subnet_str(sn, nd->desc),
						 &ni), 0);
		map[i] = ni;
		c->node[ni].port0_guid = nd->port0_guid;
		for (unsigned p = 0; p <= nd->nports; p++) {
			const struct subnet_port *from = &sn->port[nd->port_base + p];
			struct subnet_port *to = &c->port[c->node[ni].port_base + p];

			if (subnet_set_port_guid(c, c->node[ni].port_base + p, from->guid) < 0)
				to->guid = from->guid; /* a duplicate: kept, not indexed */
			to->lid = from->lid;
			to->lmc = from->lmc;
		}
	}
	for (uint32_t i = 0; i < sn->n_ports; i++) {
		const struct subnet_port *p = &sn->port[i];
		uint32_t a, b;

		if (p->peer == SUBNET_NONE || p->peer < i)
			continue;
		a = map[p->node];
		b = map[sn->port[p->peer].node];
		if (a != SUBNET_NONE && b != SUBNET_NONE)
			assert_int_equal(subnet_link(c, subnet_port_idx(c, a, p->num),
						     subnet_port_idx(c, b, sn->port[p->peer].num)), 0);
	}
	free(map);
	return c;
}

/*
 * nsw switches of nports ports, each with ca_per_sw one-port CAs on ports
 * 1..ca_per_sw. Switch GUIDs from 0x10, CA GUIDs from 0x100000 (port GUID
 * = node GUID + 1).
 */
struct subnet *lfx_synth(uint32_t nsw, uint8_t nports, uint32_t ca_per_sw)
{
	struct subnet *sn = NULL;
	char name[32];

	assert_int_equal(subnet_new(&sn), 0);
	for (uint32_t s = 0; s < nsw; s++) {
		uint32_t si, ci;

		snprintf(name, sizeof(name), "sw%u", s);
		assert_int_equal(subnet_add_node(sn, NODE_SWITCH, nports, 0x10 + s, name, NULL, &si),
				 0);
		for (uint32_t k = 0; k < ca_per_sw; k++) {
			uint64_t g = 0x100000 + 2 * ((uint64_t)s * ca_per_sw + k);

			snprintf(name, sizeof(name), "h%u-%u", s, k);
			assert_int_equal(subnet_add_node(sn, NODE_CA, 1, g, name, NULL, &ci), 0);
			assert_int_equal(subnet_link(sn, subnet_port_idx(sn, si, k + 1),
						     subnet_port_idx(sn, ci, 1)), 0);
		}
	}
	return sn;
}
