/* SPDX-License-Identifier: MIT */
#ifndef LOOM_PAR_H
#define LOOM_PAR_H

/*
 * A parallel for-loop over worker threads, for work that splits into
 * independent items (routing per destination LID, per switch). Items are
 * handed out in small chunks from a shared counter, so a slow item does not
 * hold up a whole share. fn(ctx, i, worker) runs once for every i in
 * [0, n); worker is 0..workers-1, an index into per-worker scratch that fn
 * may use without locks. fn must write only what item i owns: then the
 * result is the same for any number of workers, which is what keeps the
 * engines' output byte-identical on 2 cores and on 64.
 */

#include <stdint.h>

/* The workers to use for n items when asked for threads (0: one per online
 * CPU): at least 1, at most n and PAR_MAX_WORKERS. */
unsigned par_workers(unsigned threads, uint64_t n);

#define PAR_MAX_WORKERS 256u

/*
 * Run fn over [0, n) on workers threads (the caller is one of them). If a
 * thread cannot be started, the others (and at worst the caller alone) do
 * its share: par_for never fails.
 */
void par_for(uint64_t n, unsigned workers, void (*fn)(void *ctx, uint64_t i, unsigned worker),
	     void *ctx);

#endif
