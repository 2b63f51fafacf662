/* SPDX-License-Identifier: MIT */
#ifndef LOOM_LIB_UTF8_H
#define LOOM_LIB_UTF8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The code point at s[i] in *cp and the length of its UTF-8 sequence (1-4),
 * or 0 if s[i..len) does not start with one: a stray continuation byte, a
 * sequence cut short or with a bad continuation, an overlong form, a
 * surrogate or a code point past U+10FFFF. Reads nothing past len.
 */
unsigned utf8_next(const unsigned char *s, size_t len, size_t i, uint32_t *cp);

/*
 * Printable and on one line: no C0 or C1 control, no line or paragraph
 * separator (U+2028, U+2029), BOM or non-character. The one rule for what a
 * message may quote from a file as it is (loom.yaml, topology, guid2lid).
 */
bool utf8_printable(uint32_t c);

#endif
