/* SPDX-License-Identifier: MIT */
/* Numbers in text (strnum.h). */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>

#include "lib/strnum.h"

int strnum_u64(const char *s, int base, uint64_t lo, uint64_t hi, uint64_t *v)
{
	const char *p = s;
	unsigned long long x;
	char *end;

	/* strtoull negates a "-5" into a huge number instead of refusing it. */
	while (isspace((unsigned char)*p))
		p++;
	if (*p == '-')
		return -EINVAL;
	errno = 0;
	x = strtoull(s, &end, base);
	if (end == s || *end)
		return -EINVAL;
	if (errno || x < lo || x > hi)
		return -ERANGE;
	*v = x;
	return 0;
}
