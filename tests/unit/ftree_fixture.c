/* SPDX-License-Identifier: MIT */
/*
 * Fat trees for the ftree tests, built here so that the full ones do not
 * depend on the generator, and the judge every ftree run goes through
 * (see ftree_fixture.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "lib/diag.h"
#include "routing/check.h"
#include "routing/route.h"
#include "model/subnet.h"
#include "tests/unit/ftree_fixture.h"
#include "tests/unit/route_fixture.h"

uint32_t ffx_node(struct ffx_spec *s, enum node_type t, uint8_t nports, const char *fmt, ...)
{
	struct ffx_spec_node *n;
	va_list ap;

	s->node = realloc(s->node, (s->n_nodes + 1) * sizeof(*s->node));
	assert_non_null(s->node);
	n = &s->node[s->n_nodes];
	n->type = t;
	n->nports = nports;
	/* topogen's scheme: switch k is ...0300000000 + k, host k ...0400000000 + 0x100 k */
	n->guid = t == NODE_SWITCH ? 0x0002c90300000000ull + s->n_nodes + 1
				   : 0x0002c90400000000ull + 0x100ull * (s->n_nodes + 1);
	va_start(ap, fmt);
	vsnprintf(n->name, sizeof(n->name), fmt, ap);
	va_end(ap);
	return s->n_nodes++;
}

void ffx_link(struct ffx_spec *s, uint32_t a, unsigned pa, uint32_t b, unsigned pb)
{
	s->link = realloc(s->link, (s->n_links + 1) * sizeof(*s->link));
	assert_non_null(s->link);
	s->link[s->n_links++] = (struct ffx_spec_link){ a, b, (uint8_t)pa, (uint8_t)pb };
}

void ffx_free(struct ffx_spec *s)
{
	free(s->node);
	free(s->link);
}

/* The model, nodes added in a shuffled order if seed != 0 (and links too). */
struct subnet *ffx_model(const struct ffx_spec *s, unsigned seed)
{
	uint32_t *order = malloc(s->n_nodes * sizeof(*order));
	uint32_t *idx = malloc(s->n_nodes * sizeof(*idx));
	uint32_t *lorder = malloc((s->n_links + 1) * sizeof(*lorder));
	struct subnet *sn = NULL;

	assert_non_null(order);
	assert_non_null(idx);
	assert_non_null(lorder);
	assert_int_equal(subnet_new(&sn), 0);
	for (uint32_t i = 0; i < s->n_nodes; i++)
		order[i] = i;
	for (uint32_t i = 0; i < s->n_links; i++)
		lorder[i] = i;
	srand(seed);
	for (uint32_t i = s->n_nodes; seed && i > 1; i--) {
		uint32_t j = (uint32_t)rand() % i, t = order[i - 1];

		order[i - 1] = order[j];
		order[j] = t;
	}
	for (uint32_t i = s->n_links; seed && i > 1; i--) {
		uint32_t j = (uint32_t)rand() % i, t = lorder[i - 1];

		lorder[i - 1] = lorder[j];
		lorder[j] = t;
	}
	for (uint32_t i = 0; i < s->n_nodes; i++) {
		const struct ffx_spec_node *n = &s->node[order[i]];

		assert_int_equal(subnet_add_node(sn, n->type, n->nports, n->guid, n->name, NULL,
						 &idx[order[i]]), 0);
	}
	for (uint32_t i = 0; i < s->n_links; i++) {
		const struct ffx_spec_link *l = &s->link[lorder[i]];

		assert_int_equal(subnet_link(sn, subnet_port_idx(sn, idx[l->a], l->pa),
					     subnet_port_idx(sn, idx[l->b], l->pb)), 0);
	}
	free(order);
	free(idx);
	free(lorder);
	return sn;
}

/* 2 levels: leaves with h hosts on ports 1..h and spines on h+1..; spine port l: leaf l. */
void ffx_ft2(struct ffx_spec *s, unsigned leaves, unsigned h, unsigned spines)
{
	uint32_t sp[64], lf[64];

	for (unsigned l = 0; l < leaves; l++) {
		lf[l] = ffx_node(s, NODE_SWITCH, (uint8_t)(h + spines), "leaf%03u", l + 1);
		for (unsigned i = 0; i < h; i++) {
			uint32_t c = ffx_node(s, NODE_CA, 1, "h%05u", l * h + i + 1);

			ffx_link(s, c, 1, lf[l], i + 1);
		}
	}
	for (unsigned j = 0; j < spines; j++)
		sp[j] = ffx_node(s, NODE_SWITCH, (uint8_t)leaves, "spine%03u", j + 1);
	for (unsigned l = 0; l < leaves; l++)
		for (unsigned j = 0; j < spines; j++)
			ffx_link(s, lf[l], h + j + 1, sp[j], l + 1);
}

/*
 * 3-level k-ary fat tree as topogen builds it: k pods of m = k/2 leaves and
 * m aggregation switches, m^2 cores; core (a, j) links to agg a of every pod.
 * skip_core: a core left out (m*m for none); cut: leave out every cut-th
 * leaf-agg link (0 for none).
 */
void ffx_ft3(struct ffx_spec *s, unsigned k, unsigned skip_core, unsigned cut)
{
	unsigned m = k / 2, n = 0;
	uint32_t *leaf = calloc(k * m, sizeof(*leaf)), *agg = calloc(k * m, sizeof(*agg));
	uint32_t *core = calloc(m * m, sizeof(*core));

	assert_non_null(leaf);
	assert_non_null(agg);
	assert_non_null(core);
	for (unsigned p = 0; p < k; p++) {
		for (unsigned l = 0; l < m; l++) {
			leaf[p * m + l] = ffx_node(s, NODE_SWITCH, (uint8_t)k, "p%02uleaf%02u", p + 1,
						    l + 1);
			for (unsigned i = 0; i < m; i++) {
				uint32_t c = ffx_node(s, NODE_CA, 1, "h%05u", ++n);

				ffx_link(s, c, 1, leaf[p * m + l], i + 1);
			}
		}
		for (unsigned a = 0; a < m; a++)
			agg[p * m + a] = ffx_node(s, NODE_SWITCH, (uint8_t)k, "p%02uagg%02u", p + 1,
						   a + 1);
	}
	for (unsigned c = 0; c < m * m; c++)
		core[c] = c == skip_core ? UINT32_MAX
					 : ffx_node(s, NODE_SWITCH, (uint8_t)k, "core%04u", c + 1);
	n = 0;
	for (unsigned p = 0; p < k; p++) {
		for (unsigned l = 0; l < m; l++)
			for (unsigned a = 0; a < m; a++)
				if (!cut || ++n % cut)
					ffx_link(s, leaf[p * m + l], m + a + 1, agg[p * m + a], l + 1);
		for (unsigned a = 0; a < m; a++)
			for (unsigned j = 0; j < m; j++)
				if (core[a * m + j] != UINT32_MAX)
					ffx_link(s, agg[p * m + a], m + j + 1, core[a * m + j], p + 1);
	}
	free(leaf);
	free(agg);
	free(core);
}

/* A model as a spec (names, GUIDs and ports kept), to be rebuilt shuffled. */
void ffx_from(struct ffx_spec *s, const struct subnet *sn)
{
	for (uint32_t n = 0; n < sn->n_nodes; n++) {
		const struct subnet_node *nd = &sn->node[n];
		uint32_t i = ffx_node(s, nd->type, nd->nports, "%s", subnet_str(sn, nd->name));

		s->node[i].guid = nd->guid;
	}
	for (uint32_t pi = 0; pi < sn->n_ports; pi++) {
		const struct subnet_port *p = &sn->port[pi];

		if (p->peer != SUBNET_NONE && pi < p->peer)
			ffx_link(s, p->node, p->num, sn->port[p->peer].node, sn->port[p->peer].num);
	}
}

/* contrib/topogen.py ARGS into a temp file, read back. */
struct subnet *ffx_topogen(const char *args)
{
	const char *srcdir = getenv("srcdir");
	char dir[] = "/tmp/ftree_test.XXXXXX", cmd[8192], path[4200];
	struct subnet *sn;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/f.topo", dir);
	snprintf(cmd, sizeof(cmd), "python3 '%s/contrib/topogen.py' %s -o '%s'",
		 srcdir ? srcdir : ".", args, path);
	if (system(cmd) != 0)
		fail_msg("topogen failed: %s", cmd);
	sn = rfx_load_path(path);
	unlink(path);
	rmdir(dir);
	return sn;
}

uint64_t ffx_cut_bound(const struct subnet *sn, uint8_t lmc)
{
	uint64_t hosts = 0, best = 0;

	for (uint32_t n = 0; n < sn->n_nodes; n++)
		if (!subnet_is_switch(sn, n) && sn->port[subnet_port_idx(sn, n, 1)].peer != SUBNET_NONE)
			hosts++;
	for (uint32_t n = 0; n < sn->n_nodes; n++) {
		uint64_t h = 0, u = 0;

		if (!subnet_is_switch(sn, n))
			continue;
		for (unsigned p = 1; p <= sn->node[n].nports; p++) {
			uint32_t peer = sn->port[subnet_port_idx(sn, n, p)].peer;

			if (peer == SUBNET_NONE || sn->port[peer].node == n)
				continue;
			if (subnet_is_switch(sn, sn->port[peer].node))
				u++;
			else
				h++;
		}
		if (h && u) {
			uint64_t b = (h * (hosts - h) * (1u << lmc) + u - 1) / u;

			best = b > best ? b : best;
		}
	}
	return best;
}

/* Route with ftree, judge: everything arrives, no loop, acyclic. Returns the report. */
struct check_report ffx_judge(const struct subnet *sn, uint8_t lmc, const char *tag)
{
	struct route_out out;
	struct route_why why;
	struct check_report rep;
	struct diag d = { .limit = 5 };

	assert_int_equal(rfx_route_lmc("ftree", sn, lmc, &out, &why), 0);
	assert_int_equal(check_routes(sn, &out, NULL, &rep, &d), 0);
	if (!check_ok(&rep) || !rep.cdg_acyclic) {
		diag_print(&d, stderr);
		fail_msg("%s: unreachable %llu, loops %llu, switch LIDs bad %llu, acyclic %d (%s)",
			 tag, (unsigned long long)rep.unreachable, (unsigned long long)rep.loops,
			 (unsigned long long)rep.sw_bad, rep.cdg_acyclic, why.msg);
	}
	assert_int_equal(out.stats.unreach, 0);
	assert_true(rep.delivered > 0);
	printf("# %s: all-to-all max %llu, ideal %.1f (x%.3f), cut bound %llu; shift max %llu\n",
	       tag, (unsigned long long)rep.all2all.max, rep.all2all.ideal,
	       rep.all2all.max / rep.all2all.ideal, (unsigned long long)ffx_cut_bound(sn, lmc),
	       (unsigned long long)rep.shift.max);
	diag_free(&d);
	route_out_free(&out);
	return rep;
}
