/* SPDX-License-Identifier: MIT */
#ifndef LOOM_TESTS_FTREE_FIXTURE_H
#define LOOM_TESTS_FTREE_FIXTURE_H

/*
 * DOC: tests/unit/ftree_fixture.c — what the fat-tree engine's tests share
 * (ftree_test: full trees, refusals, messages; ftree_degraded_test:
 * degraded trees, detours, node order): fabrics as lists built into models
 * in any node order, full 2- and 3-level trees, contrib/topogen.py's, the
 * leaf cut bound, and the checker's verdict on an ftree run.
 * Every helper fails the running cmocka test on an error.
 */

#include <stdint.h>

#include "routing/check.h"
#include "model/subnet.h"

/* A fabric as a list, added to a model in any order, so order tests can shuffle. */
struct ffx_spec_node {
	enum node_type type;
	uint8_t nports;
	uint64_t guid;
	char name[24];
};

struct ffx_spec_link {
	uint32_t a, b; /* spec node numbers */
	uint8_t pa, pb;
};

struct ffx_spec {
	struct ffx_spec_node *node;
	struct ffx_spec_link *link;
	uint32_t n_nodes, n_links;
};

/* Add a node, named as fmt says, GUID as topogen numbers them; its spec number. */
uint32_t ffx_node(struct ffx_spec *s, enum node_type t, uint8_t nports, const char *fmt, ...);
/* Link port pa of spec node a to port pb of spec node b. */
void ffx_link(struct ffx_spec *s, uint32_t a, unsigned pa, uint32_t b, unsigned pb);
void ffx_free(struct ffx_spec *s);
/* The model, nodes added in a shuffled order if seed != 0 (and links too). */
struct subnet *ffx_model(const struct ffx_spec *s, unsigned seed);
/* 2 levels: leaves with h hosts on ports 1..h and spines on h+1..; spine port l: leaf l. */
void ffx_ft2(struct ffx_spec *s, unsigned leaves, unsigned h, unsigned spines);
/*
 * 3-level k-ary fat tree as topogen builds it: k pods of m = k/2 leaves and
 * m aggregation switches, m^2 cores; core (a, j) links to agg a of every pod.
 * skip_core: a core left out (m*m for none); cut: leave out every cut-th
 * leaf-agg link (0 for none).
 */
void ffx_ft3(struct ffx_spec *s, unsigned k, unsigned skip_core, unsigned cut);
/* A model as a spec (names, GUIDs and ports kept), to be rebuilt shuffled. */
void ffx_from(struct ffx_spec *s, const struct subnet *sn);
/* contrib/topogen.py ARGS into a temp file, read back. */
struct subnet *ffx_topogen(const char *args);
/*
 * The leaf cut bound, for 2^lmc LIDs a host: a leaf with h of the N hosts
 * and u uplinks sends h x (N - h) routes out over u links, so some link
 * carries at least ceil(h (N - h) / u).
 */
uint64_t ffx_cut_bound(const struct subnet *sn, uint8_t lmc);
/* Route with ftree, judge: everything arrives, no loop, acyclic. Returns the report. */
struct check_report ffx_judge(const struct subnet *sn, uint8_t lmc, const char *tag);

#endif
