/* SPDX-License-Identifier: MIT */
#ifndef LOOM_ARRAY_H
#define LOOM_ARRAY_H

#include <stddef.h>
#include <stdint.h>

/*
 * Grow *arr (of *cap elements of elem bytes) to hold at least need, doubling
 * so appends stay amortised O(1); new elements are zeroed. Counts stay 32-bit
 * because the model indexes nodes and ports with uint32. -ENOMEM leaves *arr
 * and *cap as they were.
 */
int array_grow(void **arr, uint32_t *cap, uint32_t need, size_t elem);

#endif
