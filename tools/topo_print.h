/* SPDX-License-Identifier: MIT */
#ifndef LOOM_TOOLS_TOPO_PRINT_H
#define LOOM_TOOLS_TOPO_PRINT_H

#include "sm/subnet.h"
#include "sm/topo_stats.h"

/*
 * Problems in a model that was read cleanly (from a file or a live fabric):
 * well formed, but not what an operator wants. Text and JSON output are both
 * printed from this list.
 */
struct topo_problems {
	char *msg[16];
	unsigned n, more;
};

void topo_problems_find(const struct subnet *sn, const struct topo_stats *st,
			struct topo_problems *pb);
void topo_problems_free(struct topo_problems *pb);

/* The counts for people; source names the file or fabric. */
void topo_print_text(const char *source, const struct topo_stats *st,
		     const struct topo_problems *pb);
/* The same for programs. */
void topo_print_json(const char *source, const struct topo_stats *st,
		     const struct topo_problems *pb);
/* One line a node and one a link, in a form that compares across sources. */
void topo_print_list(const struct subnet *sn);

#endif
