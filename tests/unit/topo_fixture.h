/* SPDX-License-Identifier: MIT */
#ifndef LOOM_TESTS_TOPO_FIXTURE_H
#define LOOM_TESTS_TOPO_FIXTURE_H

/*
 * DOC: tests/unit/topo_fixture.c — what the topology reader's tests share
 * (topo_test and topo_rules_test: good input, topo_bad_test: malformed
 * input): topology files written into a scratch directory, and removed
 * again; text read into a model, and what the model holds looked up.
 * Every helper fails the running cmocka test on an error.
 */

#include <stdint.h>

#include "model/subnet.h"

/* A scratch directory: path is a mkdtemp() template the test fills in. */
struct tfx_dir {
	char path[64];
	char file[16][128];
	unsigned n;
};

/* Write text to name inside t->path; returns the file's path (kept in t). */
const char *tfx_write(struct tfx_dir *t, const char *name, const char *text);
/* Remove the files written, t->path/sub and t->path. */
void tfx_remove(struct tfx_dir *t);


/* The model of a topology given as text, read without a single complaint. */
struct subnet *tfx_read_ok(const char *text);
/* The node named name (it must be there). */
uint32_t tfx_node(const struct subnet *sn, const char *name);
/* Port num of the node named name (it must have it). */
const struct subnet_port *tfx_port(const struct subnet *sn, const char *name, unsigned num);
/* Port name[num] is linked to peer[pnum], both ways. */
void tfx_assert_link(const struct subnet *sn, const char *name, unsigned num, const char *peer,
		     unsigned pnum);
/* Links in the model (each counted once). */
unsigned tfx_count_links(const struct subnet *sn);

#endif
