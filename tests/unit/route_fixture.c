/* SPDX-License-Identifier: MIT */
/* What the routing tests share: see route_fixture.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lib/diag.h"
#include "plan/lid.h"
#include "model/topo.h"
#include "tests/unit/route_fixture.h"

/* ---- models and LIDs ---------------------------------------------------- */

const char *rfx_topo_path(const char *name)
{
	const char *srcdir = getenv("srcdir");
	static char path[4096];

	snprintf(path, sizeof(path), "%s/tests/topologies/%s", srcdir ? srcdir : ".", name);
	return path;
}

struct subnet *rfx_load_path(const char *path)
{
	struct subnet *sn = NULL;
	struct diag d = { 0 };

	if (topo_read_file(path, &sn, &d) < 0)
		diag_print(&d, stderr);
	diag_free(&d);
	assert_non_null(sn);
	return sn;
}

struct subnet *rfx_load(const char *name)
{
	return rfx_load_path(rfx_topo_path(name));
}

struct subnet *rfx_read(const char *text)
{
	struct subnet *sn = NULL;
	struct diag d = { 0 };

	if (topo_read_mem(text, strlen(text), "mem", &sn, &d) < 0)
		diag_print(&d, stderr);
	diag_free(&d);
	assert_non_null(sn);
	return sn;
}

char *rfx_reversed(const char *name)
{
	FILE *f = fopen(rfx_topo_path(name), "r");
	char *text = NULL, *out, *blk[4096] = { NULL };
	size_t cap = 0, n = 0, k = 0;
	ssize_t got;

	assert_non_null(f);
	got = getdelim(&text, &cap, '\0', f);
	fclose(f);
	assert_true(got > 0);
	out = calloc((size_t)got + 8, 1);
	assert_non_null(out);
	/* Paragraphs split at blank lines; the first (comments) stays first. */
	for (char *p = text, *q; p && *p && n < 4096; p = q) {
		q = strstr(p, "\n\n");
		if (q) {
			q[1] = '\0';
			q += 2;
		}
		blk[n++] = p;
	}
	assert_true(n > 4);
	k += (size_t)sprintf(out + k, "%s\n", blk[0] ? blk[0] : "");
	for (size_t i = n; i-- > 1;)
		k += (size_t)sprintf(out + k, "%s%s\n", blk[i],
				     blk[i][strlen(blk[i]) - 1] == '\n' ? "" : "\n");
	free(text);
	return out;
}

void rfx_lids_in_order(struct subnet *sn, uint8_t lmc)
{
	uint32_t next = 1;

	for (uint32_t n = 0; n < sn->n_nodes; n++) {
		bool sw = subnet_is_switch(sn, n);

		for (unsigned p = sw ? 0 : 1; p <= (sw ? 0u : sn->node[n].nports); p++) {
			struct subnet_port *pt = &sn->port[subnet_port_idx(sn, n, p)];
			uint32_t step = sw ? 1 : 1u << lmc;

			if (!sw && pt->peer == SUBNET_NONE)
				continue; /* a port that is down gets no LID */
			next = (next + step - 1) & ~(step - 1);
			pt->lid = (uint16_t)next;
			pt->lmc = sw ? 0 : lmc;
			next += step;
		}
	}
}

void rfx_lids(struct subnet *sn, uint8_t lmc)
{
	struct lid_map *m = NULL;
	struct lid_report rep = { .msgs.limit = LID_MAX_MSGS };

	assert_int_equal(lid_map_new(&m), 0);
	assert_int_equal(lid_assign(sn, m, lmc, &rep), 0);
	lid_report_free(&rep);
	lid_map_free(m);
}

/* ---- routing and judging ------------------------------------------------ */

int rfx_route(const char *engine, const struct subnet *sn, const struct route_opts *o,
	      struct route_out *out, struct route_why *why)
{
	const struct route_engine *e = route_engine_find(engine);

	assert_non_null(e);
	memset(out, 0, sizeof(*out));
	if (why)
		memset(why, 0, sizeof(*why));
	return e->route(sn, o, out, why);
}

int rfx_route_lmc(const char *engine, const struct subnet *sn, uint8_t lmc,
		  struct route_out *out, struct route_why *why)
{
	return rfx_route(engine, sn, &(struct route_opts){ .lmc = lmc }, out, why);
}

void rfx_judge(const struct subnet *sn, const struct route_out *out, struct check_report *rep,
	       bool loud)
{
	struct check_opts co = { .sl = out->sl };
	struct diag d = { .limit = 20 };

	assert_int_equal(check_routes(sn, out, &co, rep, &d), 0);
	if (loud && (!check_ok(rep) || !rep->cdg_acyclic))
		diag_print(&d, stderr);
	diag_free(&d);
}

void rfx_same_rows(const struct subnet *a, const struct route_out *ra, const struct subnet *b,
		   const struct route_out *rb)
{
	assert_int_equal(ra->n_sw, rb->n_sw);
	assert_int_equal(ra->max_lid, rb->max_lid);
	assert_int_equal(ra->n_vls, rb->n_vls);
	assert_int_equal(!ra->sl, !rb->sl);
	for (uint32_t s = 0; s < ra->n_sw; s++) {
		uint32_t node = subnet_find_guid(b, a->node[ra->sw_node[s]].guid), t;

		assert_int_not_equal(node, SUBNET_NONE);
		t = rb->sw_index[node];
		assert_memory_equal(route_lft(ra, s), route_lft(rb, t), (size_t)ra->max_lid + 1);
		if (ra->sl)
			assert_memory_equal(route_sl(ra, s), route_sl(rb, t),
					    (size_t)ra->max_lid + 1);
	}
}

/* ---- walking the tables ------------------------------------------------- */

bool rfx_has_ca(const struct subnet *sn, uint32_t sw)
{
	for (unsigned p = 1; p <= sn->node[sw].nports; p++) {
		uint32_t peer = sn->port[subnet_port_idx(sn, sw, p)].peer;

		if (peer != SUBNET_NONE && !subnet_is_switch(sn, sn->port[peer].node))
			return true;
	}
	return false;
}

uint32_t rfx_attach(const struct subnet *sn, uint32_t pi)
{
	const struct subnet_port *p = &sn->port[pi];

	if (subnet_is_switch(sn, p->node))
		return p->node;
	if (p->peer == SUBNET_NONE || !subnet_is_switch(sn, sn->port[p->peer].node))
		return SUBNET_NONE;
	return sn->port[p->peer].node;
}

void rfx_bfs(const struct subnet *sn, const uint32_t *from, uint32_t n_from, uint32_t *dist)
{
	uint32_t *q = malloc(((size_t)sn->n_nodes + 1) * sizeof(*q));
	uint32_t h = 0, t = 0;

	assert_non_null(q);
	for (uint32_t i = 0; i < sn->n_nodes; i++)
		dist[i] = RFX_INF;
	for (uint32_t i = 0; i < n_from; i++) {
		if (dist[from[i]] == RFX_INF)
			q[t++] = from[i];
		dist[from[i]] = 0;
	}
	while (h < t) {
		uint32_t n = q[h++];

		for (unsigned p = 1; p <= sn->node[n].nports; p++) {
			uint32_t peer = sn->port[subnet_port_idx(sn, n, p)].peer;
			uint32_t m;

			if (peer == SUBNET_NONE)
				continue;
			m = sn->port[peer].node;
			if (!subnet_is_switch(sn, m) || dist[m] != RFX_INF)
				continue;
			dist[m] = dist[n] + 1;
			q[t++] = m;
		}
	}
	free(q);
}

uint32_t rfx_walk(const struct subnet *sn, const struct route_out *out, uint32_t from,
		  uint32_t lid, rfx_hop_fn *hop, void *ctx, uint32_t *end)
{
	uint32_t cur = from, hops = 0, at;

	for (;;) {
		uint8_t e = route_lft(out, out->sw_index[cur])[lid];
		uint32_t peer;

		if (e == ROUTE_DROP)
			fail_msg("LID %u dropped at \"%s\"", lid,
				 subnet_str(sn, sn->node[cur].name));
		if (e == 0) {
			at = subnet_port_idx(sn, cur, 0);
			break;
		}
		assert_true(e <= sn->node[cur].nports);
		peer = sn->port[subnet_port_idx(sn, cur, e)].peer;
		assert_int_not_equal(peer, SUBNET_NONE);
		if (!subnet_is_switch(sn, sn->port[peer].node)) {
			at = peer;
			break;
		}
		if (hop && !hop(ctx, cur, sn->port[peer].node)) {
			at = SUBNET_NONE;
			break;
		}
		cur = sn->port[peer].node;
		if (++hops > out->n_sw)
			fail_msg("LID %u loops from \"%s\"", lid,
				 subnet_str(sn, sn->node[from].name));
	}
	if (end)
		*end = at;
	return hops;
}

void rfx_ft2_lmc_spread(const char *engine, void (*lids)(struct subnet *sn, uint8_t lmc))
{
	struct subnet *sn = rfx_load("ft2-k8.topo");
	struct route_out out;
	uint32_t checked = 0;

	lids(sn, 2);
	assert_int_equal(rfx_route_lmc(engine, sn, 2, &out, NULL), 0);
	for (uint32_t pi = 0; pi < sn->n_ports; pi++) {
		const struct subnet_port *p = &sn->port[pi];
		uint32_t at;

		if (!p->lid || subnet_is_switch(sn, p->node))
			continue;
		at = rfx_attach(sn, pi);
		for (uint32_t s = 0; s < out.n_sw; s++) {
			const uint8_t *lft = route_lft(&out, s);
			uint32_t node = out.sw_node[s], used = 0;

			if (node == at || !rfx_has_ca(sn, node))
				continue;
			for (uint32_t k = 0; k < 4; k++)
				used |= 1u << lft[p->lid + k];
			assert_int_equal(__builtin_popcount(used), 4);
			checked++;
		}
	}
	assert_int_equal(checked, 32 * 7);
	route_out_free(&out);
	subnet_free(sn);
}

const char rfx_two_sw[] = "Hca 1 \"h1\"\n[1] \"s1\"[1]\n"
			  "Switch 4 \"s1\"\n[1] \"h1\"[1]\n[2] \"s2\"[3]\n"
			  "Switch 4 \"s2\"\n[3] \"s1\"[2]\n[1] \"h2\"[1]\n"
			  "Hca 1 \"h2\"\n[1] \"s2\"[1]\n";

struct subnet *rfx_minhop(const char *name, uint8_t lmc, struct route_out *out)
{
	struct subnet *sn = rfx_load(name);

	rfx_lids_in_order(sn, lmc);
	assert_int_equal(rfx_route_lmc("minhop", sn, lmc, out, NULL), 0);
	return sn;
}

bool rfx_diag_has(const struct diag *d, const char *a, const char *b)
{
	for (unsigned i = 0; i < d->n; i++)
		if (strstr(d->msg[i], a) && (!b || strstr(d->msg[i], b)))
			return true;
	return false;
}

uint8_t *rfx_entry(const struct subnet *sn, struct route_out *out, const char *sw, uint32_t lid)
{
	return &route_lft(out, out->sw_index[subnet_find_name(sn, sw)])[lid];
}
