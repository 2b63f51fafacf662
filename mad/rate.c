/* SPDX-License-Identifier: MIT */
/* IBA rate codes in speed order, for every SA record that carries a rate. */
#include <stdint.h>

#include "mad/rate.h"

unsigned rate_speed(uint8_t code)
{
	/* IBA Table 205, in 100 Mb/s; codes 0 and 1 are not rates. */
	static const unsigned s[RATE_CODE_MAX + 1] = {
		[2] = 25, [3] = 100, [4] = 300, [5] = 50, [6] = 200, [7] = 400, [8] = 600,
		[9] = 800, [10] = 1200, [11] = 140, [12] = 560, [13] = 1120, [14] = 1680,
		[15] = 250, [16] = 1000, [17] = 2000, [18] = 3000, [19] = 280, [20] = 500,
		[21] = 4000, [22] = 6000,
	};

	return code < sizeof(s) / sizeof(s[0]) ? s[code] : 0;
}

uint8_t rate_below(uint8_t code)
{
	uint8_t best = 0;

	for (uint8_t c = 2; c <= RATE_CODE_MAX; c++)
		if (rate_speed(c) < rate_speed(code) && rate_speed(c) > rate_speed(best))
			best = c;
	return best;
}
