/* SPDX-License-Identifier: MIT */
#ifndef LOOM_TESTS_LID_FIXTURE_H
#define LOOM_TESTS_LID_FIXTURE_H

/*
 * DOC: tests/unit/lid_fixture.c — what the LID manager's tests share
 * (lid_test: assignment, lid_limits_test: assignment at its limits,
 * lid_file_test: the guid2lid file): a scratch
 * directory per test, map helpers, and the independent judge of the LIDs
 * in a model. Every helper fails the running cmocka test on an error.
 */

#include <stdbool.h>
#include <stdint.h>

#include "plan/lid.h"
#include "model/subnet.h"

#define FT2_PORTS 44 /* ft2-k8: 12 switches and 32 one-port hosts */

/* cmocka setup and teardown: a fresh directory under /tmp, removed with all in it. */
int lfx_setup_dir(void **state);
int lfx_teardown_dir(void **state);
/* That directory, and name inside it (one of four static buffers, in turn). */
const char *lfx_tmpdir(void);
char *lfx_path(const char *name);

struct lid_map *lfx_map_new(void);
/* The map holds guid with LID lid and LMC lmc. */
void lfx_expect_ent(const struct lid_map *m, uint64_t guid, uint16_t lid, uint8_t lmc);

/* lid_assign with a fresh report (its messages on stderr if LID_TEST_VERBOSE is set). */
int lfx_assign(struct subnet *sn, struct lid_map *m, uint8_t lmc, struct lid_report *rep);

/* Does port pi bear LIDs (switch port 0, a linked CA port)? */
bool lfx_bearing(const struct subnet *sn, uint32_t pi);
/*
 * The independent judge: every LID-bearing port has a LID range of its LMC
 * (switches 0, others lmc), aligned, inside 1..0xbfff and shared with no
 * other port; every other port has LID 0. Returns the LID-bearing ports
 * that have LIDs; *missing counts those that have none (NULL: there must
 * be none).
 */
uint32_t lfx_check_lids(const struct subnet *sn, uint8_t lmc, uint32_t *missing);
/* Every port's LID and LMC to 0. */
void lfx_zero_lids(struct subnet *sn);

/* The port of b that is port pi of a (same node GUID, same number), or SUBNET_NONE. */
uint32_t lfx_same_port(const struct subnet *a, uint32_t pi, const struct subnet *b);
/* Every port of a that b has too has the same LIDs in b. Returns how many were compared. */
uint32_t lfx_same_lids(const struct subnet *a, const struct subnet *b);
/*
 * A copy of sn with its nodes in reverse order (or as they are), without the
 * node whose GUID is skip. Port GUIDs (duplicates too), links and the
 * model's LIDs come along.
 */
struct subnet *lfx_copy_model(const struct subnet *sn, bool reverse, uint64_t skip);
/*
 * nsw switches of nports ports, each with ca_per_sw one-port CAs on ports
 * 1..ca_per_sw. Switch GUIDs from 0x10, CA GUIDs from 0x100000 (port GUID
 * = node GUID + 1).
 */
struct subnet *lfx_synth(uint32_t nsw, uint8_t nports, uint32_t ca_per_sw);

#endif
