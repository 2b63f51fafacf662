/* SPDX-License-Identifier: MIT */
#ifndef LOOM_JSON_H
#define LOOM_JSON_H

#include <stdio.h>

/* Write s as a JSON string literal, quotes included (RFC 8259 escaping). */
void json_str(FILE *f, const char *s);

#endif
