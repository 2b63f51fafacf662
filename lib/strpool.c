/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "strpool.h"

int strpool_init(struct strpool *p)
{
	p->buf = calloc(1, 256);
	if (!p->buf)
		return -ENOMEM;
	p->len = 1;
	p->cap = 256;
	return 0;
}

void strpool_free(struct strpool *p)
{
	free(p->buf);
	*p = (struct strpool){ 0 };
}

int strpool_add(struct strpool *p, const char *s, uint32_t *off)
{
	size_t n = strlen(s) + 1, cap = p->cap;
	char *b;

	if (n == 1) {
		*off = 0;
		return 0;
	}
	if (p->len + n > UINT32_MAX)
		return -E2BIG;
	while (p->len + n > cap)
		cap *= 2;
	if (cap != p->cap) {
		b = realloc(p->buf, cap);
		if (!b)
			return -ENOMEM;
		p->buf = b;
		p->cap = cap;
	}
	memcpy(p->buf + p->len, s, n);
	*off = (uint32_t)p->len;
	p->len += n;
	return 0;
}
