/* SPDX-License-Identifier: MIT */
#ifndef LOOM_STRPOOL_H
#define LOOM_STRPOOL_H

#include <stddef.h>
#include <stdint.h>

/*
 * Strings stored back to back and named by 32-bit offsets, so the arrays that
 * refer to them stay small and survive the pool growing. Offset 0 is always
 * the empty string: a zeroed offset reads as "".
 */
struct strpool {
	char *buf;
	size_t len, cap;
};

int strpool_init(struct strpool *p);
void strpool_free(struct strpool *p);
/* Append s; *off names it. -ENOMEM, or -E2BIG past 4 GiB of strings. */
int strpool_add(struct strpool *p, const char *s, uint32_t *off);

static inline const char *strpool_get(const struct strpool *p, uint32_t off)
{
	return p->buf + off;
}

#endif
