/* SPDX-License-Identifier: MIT */
#ifndef LOOM_TOOLS_TOPO_PRINT_H
#define LOOM_TOOLS_TOPO_PRINT_H

#include "lib/diag.h"
#include "model/subnet.h"
#include "model/topo_stats.h"

/*
 * Problems in a model that was read cleanly (from a file or a live fabric):
 * well formed, but not what an operator wants. Text and JSON output are both
 * printed from this list.
 */
#define TOPO_PROBLEMS_SHOWN 16

/* pb should start as { .limit = TOPO_PROBLEMS_SHOWN }; free it with diag_free. */
void topo_problems_find(const struct subnet *sn, const struct topo_stats *st, struct diag *pb);

/* The counts for people; source names the file or fabric. */
void topo_print_text(const char *source, const struct topo_stats *st,
		     const struct diag *pb);
/* The same for programs. */
void topo_print_json(const char *source, const struct topo_stats *st,
		     const struct diag *pb);
/* One line a node and one a link, in a form that compares across sources. */
void topo_print_list(const struct subnet *sn);

#endif
