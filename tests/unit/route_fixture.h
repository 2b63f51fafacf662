/* SPDX-License-Identifier: MIT */
#ifndef LOOM_TESTS_ROUTE_FIXTURE_H
#define LOOM_TESTS_ROUTE_FIXTURE_H

/*
 * DOC: tests/unit/route_fixture.c — what the routing tests share
 * (routing_test, updn_test, ftree_test, vlayered_test, check_test; the LID
 * tests use its loader): a model from a bundled topology or from text, LIDs,
 * one engine run, the checker's verdict, and walks through the tables that
 * know nothing of the engines.
 * Every helper fails the running cmocka test on an error instead of
 * returning it (rfx_route returns what the engine returns).
 */

#include <stdbool.h>
#include <stdint.h>

#include "lib/diag.h"
#include "routing/check.h"
#include "routing/route.h"
#include "model/subnet.h"

/* Hops to a node rfx_bfs does not reach. */
#define RFX_INF UINT32_MAX

/* ---- models and LIDs ---------------------------------------------------- */

/* $srcdir/tests/topologies/name, in a static buffer. */
const char *rfx_topo_path(const char *name);
struct subnet *rfx_load_path(const char *path);
/* A bundled topology by file name. */
struct subnet *rfx_load(const char *name);
/* A topology given as text (NUL-terminated). */
struct subnet *rfx_read(const char *text);
/* Two switches in a row, host h1 on s1 port 1, h2 on s2 port 1 (s1 port 2 - s2 port 3). */
extern const char rfx_two_sw[];
/* A bundled topology by file name with rfx_lids_in_order LIDs, routed by min-hop into *out. */
struct subnet *rfx_minhop(const char *name, uint8_t lmc, struct route_out *out);
/* A bundled topology with its node blocks in reverse order, as text to free()
 * (the files give every GUID, so the fabric is the same). */
char *rfx_reversed(const char *name);

/*
 * LIDs the simplest way (a stand-in for the LID manager): node order, switch
 * port 0 and linked CA ports take the next free LID; CA ports get LMC lmc and a
 * base aligned to 2^lmc, switches LMC 0 (enhanced port 0 has no LMC).
 */
void rfx_lids_in_order(struct subnet *sn, uint8_t lmc);
/* LIDs as loomd gives them: the LID manager, a fresh map, GUID order. */
void rfx_lids(struct subnet *sn, uint8_t lmc);

/* ---- routing and judging ------------------------------------------------ */

/* Engine engine on sn with options o: *out and *why (may be NULL) zeroed
 * first; returns what the engine's route() returns. */
int rfx_route(const char *engine, const struct subnet *sn, const struct route_opts *o,
	      struct route_out *out, struct route_why *why);
/* The same with only an LMC. */
int rfx_route_lmc(const char *engine, const struct subnet *sn, uint8_t lmc,
		  struct route_out *out, struct route_why *why);

/* The checker's verdict on the tables and their SLs, if any; its messages
 * on stderr if loud and something is wrong (or the CDG has a cycle). */
void rfx_judge(const struct subnet *sn, const struct route_out *out, struct check_report *rep,
	       bool loud);

/* Switch by switch, matched by GUID (the models may differ in node order):
 * the same LFT rows, and the same SL rows where ra has them. */
void rfx_same_rows(const struct subnet *a, const struct route_out *ra, const struct subnet *b,
		   const struct route_out *rb);

/* Does one of d's messages hold a (and b, unless NULL)? */
bool rfx_diag_has(const struct diag *d, const char *a, const char *b);

/* ---- walking the tables ------------------------------------------------- */

/* The LFT entry of switch sw (by name) for lid. */
uint8_t *rfx_entry(const struct subnet *sn, struct route_out *out, const char *sw, uint32_t lid);

/* Does switch node sw have a CA on some port (a leaf)? */
bool rfx_has_ca(const struct subnet *sn, uint32_t sw);
/* The switch node where port pi's traffic leaves the fabric (itself for a
 * switch port), or SUBNET_NONE. */
uint32_t rfx_attach(const struct subnet *sn, uint32_t pi);

/* Hops over switch-to-switch links from the n_from switch nodes from[] to
 * every node: dist[n_nodes], RFX_INF where not reached. */
void rfx_bfs(const struct subnet *sn, const uint32_t *from, uint32_t n_from, uint32_t *dist);

/* One step from switch node cur to switch node next; false ends the walk. */
typedef bool rfx_hop_fn(void *ctx, uint32_t cur, uint32_t next);

/*
 * Follow LID lid through out's LFTs from switch node from to the port that
 * takes it off the switches: fails the test on a drop, an egress port the
 * switch does not have, an unlinked port or a loop. hop (or NULL) sees every
 * switch-to-switch step. Returns the steps taken; *end (or NULL) gets the
 * port arrived at, or SUBNET_NONE if hop ended the walk.
 */
uint32_t rfx_walk(const struct subnet *sn, const struct route_out *out, uint32_t from,
		  uint32_t lid, rfx_hop_fn *hop, void *ctx, uint32_t *end);

/*
 * LMC spread on ft2-k8: LIDs with LMC 2 from lids (rfx_lids_in_order or
 * rfx_lids), routed by engine; for every host port and every leaf but its
 * own, the port's 4 LIDs leave the leaf by 4 different uplinks (32 hosts x
 * 7 other leaves).
 */
void rfx_ft2_lmc_spread(const char *engine, void (*lids)(struct subnet *sn, uint8_t lmc));

#endif
