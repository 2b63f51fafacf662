/* SPDX-License-Identifier: MIT */
#ifndef LOOM_CLEANUP_H
#define LOOM_CLEANUP_H

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
