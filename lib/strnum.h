/* SPDX-License-Identifier: MIT */
#ifndef LOOM_STRNUM_H
#define LOOM_STRNUM_H

/*
 * Numbers in text: the pieces that every reader of numbers (topology files,
 * dump_lfts text, the guid2lid file, loom.yaml) would otherwise write again.
 * No locale: a digit is 0-9, a-f, A-F, whatever LC_CTYPE says.
 */

/*
 * The value of ch as a digit of any base up to 16 (0-9, then a-f or A-F),
 * or 16 if it is not one, so that `strnum_digit(ch) < base` says whether ch
 * is a digit of base, and the test and the value are one call.
 */
static inline unsigned strnum_digit(char ch)
{
	if (ch >= '0' && ch <= '9')
		return (unsigned)(ch - '0');
	if (ch >= 'a' && ch <= 'f')
		return (unsigned)(ch - 'a' + 10);
	if (ch >= 'A' && ch <= 'F')
		return (unsigned)(ch - 'A' + 10);
	return 16;
}

#endif
