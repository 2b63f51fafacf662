/* SPDX-License-Identifier: MIT */
/* UTF-8 as files give it: decoded with every check, for messages that quote them. */
#include "lib/utf8.h"

unsigned utf8_next(const unsigned char *s, size_t len, size_t i, uint32_t *cp)
{
	static const uint32_t min[5] = { 0, 0, 0x80, 0x800, 0x10000 };
	uint32_t c = s[i];
	unsigned n = c < 0x80 ? 1 : c < 0xc0 ? 0 : c < 0xe0 ? 2 : c < 0xf0 ? 3 : c < 0xf8 ? 4 : 0;

	if (!n || n > len - i)
		return 0;
	if (n > 1)
		c &= 0x7fu >> n;
	for (unsigned k = 1; k < n; k++) {
		if ((s[i + k] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i + k] & 0x3f);
	}
	if (c < min[n] || c > 0x10ffff || (c >= 0xd800 && c < 0xe000))
		return 0;
	*cp = c;
	return n;
}

bool utf8_printable(uint32_t c)
{
	return !(c < 0x20 || (c >= 0x7f && c < 0xa0) || c == 0x2028 || c == 0x2029 ||
		 c == 0xfeff || (c >= 0xd800 && c < 0xe000) || (c & 0xfffe) == 0xfffe ||
		 (c >= 0xfdd0 && c < 0xfdf0));
}
