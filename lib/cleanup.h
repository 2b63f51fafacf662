/* SPDX-License-Identifier: MIT */
#ifndef LOOM_CLEANUP_H
#define LOOM_CLEANUP_H

/*
 * DOC: lib/ — helpers every layer may use; nothing here includes another folder.
 * cleanup.h is the header nearly every file includes, so it carries the list.
 *   cleanup.h  this header: scope-bound cleanup of locals (_cleanup_free_, freep)
 *   array.c    growing arrays, amortised appends, 32-bit counts (array.h)
 *   diag.c     collected FILE:LINE:COL messages; the edge prints them (diag.h)
 *   itab.c     index tables: hash sets of indices into the caller's arrays (itab.h)
 *   json.c     JSON string literals for --json outputs (json.h)
 *   log.c      loomd's log lines, with journald priorities under systemd (log.h)
 *   par.c      a parallel for-loop over worker threads (par.h)
 *   strnum.c   numbers in text: the value of a digit (for every reader of numbers), an
 *              option's number in a range (strnum.h)
 *   sha256.c   SHA-256 and HMAC-SHA256, for the derived M_Keys (sha256.h)
 *   strpool.c  strings stored once, named by 32-bit offsets (strpool.h)
 *   utf8.c     UTF-8 decoded with every check, and the one rule for what a
 *              message may quote from a file as it is (utf8.h)
 *
 * Nothing here prints on its own: log.c, diag_print() and json_str() write
 * where the edge that calls them says.
 */

#include <stdio.h>
#include <stdlib.h>

/*
 * Scope-bound cleanup for locals, as in systemd: a function that builds an
 * object needs at most one error path, and an early return cannot leak.
 */
static inline void freep(void *p)
{
	free(*(void **)p);
}

static inline void fclosep(FILE **f)
{
	if (*f)
		fclose(*f);
}

#define _cleanup_(f) __attribute__((cleanup(f)))
#define _cleanup_free_ _cleanup_(freep)
#define _cleanup_fclose_ _cleanup_(fclosep)

/* Hand ownership out of a _cleanup_ variable: returns it and clears the local. */
#define TAKE_PTR(p)                             \
	({                                      \
		__typeof__(p) _tp_ = (p);       \
		(p) = NULL;                     \
		_tp_;                           \
	})

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif
