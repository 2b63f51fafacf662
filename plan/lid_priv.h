/* SPDX-License-Identifier: MIT */
#ifndef LOOM_SM_LID_PRIV_H
#define LOOM_SM_LID_PRIV_H

/* Inside the LID manager: lid_file.c keeps the map, lid.c assigns from it. */

#include "lib/itab.h"
#include "plan/lid.h"

/*
 * Entries in no order (a file's in line order, lid_assign's absent GUIDs
 * first, then assigned ports in GUID order), indexed by GUID. Invariant: no
 * two entries share a GUID or a LID.
 */
struct lid_map {
	struct lid_ent *e;
	uint32_t n, cap;
	struct itab by_guid;
};

/* The entry index of guid, or ITAB_EMPTY. */
uint32_t lid_map_find(const struct lid_map *m, uint64_t guid);
/* Replace m's entries with e[0..n), which m takes over (freed on failure too); -ENOMEM keeps m. */
int lid_map_replace(struct lid_map *m, struct lid_ent *e, uint32_t n);

#endif
