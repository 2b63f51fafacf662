/* SPDX-License-Identifier: MIT */
#ifndef LOOM_STRNUM_H
#define LOOM_STRNUM_H

/*
 * Numbers in text: the pieces that every reader of numbers (topology files,
 * dump_lfts text, the guid2lid file, loom.yaml, command-line options) would
 * otherwise write again. No locale: a digit is 0-9, a-f, A-F, whatever
 * LC_CTYPE says. No messages either: the caller words them, naming its option.
 */

#include <stdint.h>

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

/*
 * A command-line option's number: s as a whole number from lo to hi. base is
 * 10, or 0 for C's rules (0x hex, a leading 0 octal); leading blanks and a
 * '+' are taken, as strtoull takes them. -EINVAL for an empty string, a
 * minus sign, no digits or anything after them; -ERANGE for a number outside
 * lo..hi (or over 64 bits). *v is untouched on failure.
 */
int strnum_u64(const char *s, int base, uint64_t lo, uint64_t hi, uint64_t *v);

#endif
