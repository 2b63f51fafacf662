/* SPDX-License-Identifier: MIT */
#ifndef LOOM_DIAG_H
#define LOOM_DIAG_H

#include <stdio.h>

/*
 * Diagnostics collected by a parser. Libraries never print: a reader records
 * every problem it finds as "FILE:LINE[:COL]: message" and the command at the
 * edge decides where the list goes. Collecting all of them (not stopping at
 * the first) lets an operator fix a file in one pass.
 */
struct diag {
	char **msg;
	unsigned n, cap;
	unsigned dropped; /* messages past the limit, counted not kept */
	unsigned limit;   /* messages kept at most; 0 means DIAG_MAX */
};

#define DIAG_MAX 1000

/* col 0 means "no column". Never fails: out of memory counts as dropped. */
void diag_add(struct diag *d, const char *file, unsigned line, unsigned col, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
/* A message with no place in a file (a fabric problem, a node, a DR path). */
void diag_msg(struct diag *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void diag_print(const struct diag *d, FILE *f);
void diag_free(struct diag *d);

static inline unsigned diag_count(const struct diag *d)
{
	return d->n + d->dropped;
}

#endif
