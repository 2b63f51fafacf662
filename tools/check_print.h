/* SPDX-License-Identifier: MIT */
#ifndef LOOM_TOOLS_CHECK_PRINT_H
#define LOOM_TOOLS_CHECK_PRINT_H

#include <stdbool.h>
#include <stdio.h>

#include "lib/diag.h"
#include "routing/check.h"
#include "model/subnet.h"

/* The report as lines for people, ending with "result: ok" or "result: PROBLEMS". */
void check_print_text(FILE *f, const struct subnet *sn, const struct check_report *r,
		      const struct diag *d, bool ok);
/* The report's JSON members, without the braces: callers add their own. */
void check_print_json(FILE *f, const struct subnet *sn, const struct check_report *r,
		      const struct diag *d, bool ok);

#endif
