/* SPDX-License-Identifier: MIT */
#ifndef LOOM_TESTS_TOPO_FIXTURE_H
#define LOOM_TESTS_TOPO_FIXTURE_H

/*
 * DOC: tests/unit/topo_fixture.c — what the topology reader's tests share
 * (topo_test: good input, topo_bad_test: malformed input): topology files
 * written into a scratch directory, and removed again.
 */

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

#endif
