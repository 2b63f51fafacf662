/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"

int array_grow(void **arr, uint32_t *cap, uint32_t need, size_t elem)
{
	uint64_t n = *cap ? *cap : 64;
	void *p;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	if (n > UINT32_MAX || n > SIZE_MAX / elem)
		return -ENOMEM;
	p = realloc(*arr, n * elem);
	if (!p)
		return -ENOMEM;
	memset((char *)p + (size_t)*cap * elem, 0, (n - *cap) * elem);
	*arr = p;
	*cap = (uint32_t)n;
	return 0;
}
