/* SPDX-License-Identifier: MIT */
#ifndef LOOM_LOOMD_CFGDIFF_H
#define LOOM_LOOMD_CFGDIFF_H

#include <stdio.h>

#include "config/config.h"

/*
 * What changes from old to new, as a line diff of their normalised prints
 * ("-" old, "+" new, " " the YAML lines that hold a hunk). Returns the
 * lines changed (0: the same effective values) or -errno.
 */
int cfgdiff_print(const struct config *old, const struct config *new, FILE *out);

#endif
