/* SPDX-License-Identifier: MIT */
#ifndef LOOM_SM_LID_H
#define LOOM_SM_LID_H

/*
 * The LID manager: which LIDs the ports of a subnet model get, and the
 * persistent port-GUID-to-LID map that keeps them stable across sweeps,
 * restarts and failovers.
 *
 * The map's file is OpenSM's guid2lid format, so operators can carry it
 * over in either direction:
 *
 *     0x0002c90300000001 0x0001 0x0001
 *
 * one line a port: port GUID, min LID, max LID; the range holds 2^LMC LIDs
 * and its base is aligned to that. '#' comments and blank lines are allowed.
 * We write a header comment and one entry a GUID in GUID order, each followed
 * by a blank line as OpenSM writes them: OpenSM's reader takes every line up
 * to the next blank one as one value, so without the blank lines it would
 * read only the first entry.
 *
 * Data flows: file -> lid_map_load -> map; map + model -> lid_assign ->
 * model (port .lid/.lmc) + map; map -> lid_map_save -> file.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/diag.h"
#include "model/disc_live.h"
#include "model/subnet.h"

#define LID_MAX_MSGS 64
#define LID_LMC_MAX 7

/* One port's LIDs as the map holds them: lid .. lid + 2^lmc - 1. */
struct lid_ent {
	uint64_t guid;  /* PortGUID (a switch's port 0 GUID) */
	uint32_t line;  /* the line it was read from; 0 if lid_assign set it */
	uint16_t lid;   /* base LID */
	uint8_t lmc;
};

struct lid_map;

int lid_map_new(struct lid_map **out);
void lid_map_free(struct lid_map *m); /* accepts NULL */
static inline void lid_map_freep(struct lid_map **m)
{
	lid_map_free(*m);
}

/*
 * Read a guid2lid file into m (entries already in m win over the file's). A
 * missing file is an empty map (0). Each bad line is reported into msgs
 * (which may be NULL) as FILE:LINE and skipped; every good line is kept. Two
 * lines for one GUID or with overlapping ranges: the first wins and the later
 * one is reported with both line numbers. Returns 0, or -errno for an I/O
 * error (also recorded in msgs; -EFBIG past 64 MiB, far more than 49,151
 * entries take) or -ENOMEM.
 */
int lid_map_load(struct lid_map *m, const char *path, struct diag *msgs);
/* The same on a buffer (any bytes); name is the file name in messages. */
int lid_map_load_mem(struct lid_map *m, const char *buf, size_t len, const char *name,
		     struct diag *msgs);

/*
 * Write atomically: a temporary file beside path (mkstemp), fflush + fsync,
 * rename over path, then fsync the directory. On failure before the rename
 * path is untouched and the temporary file removed; -errno.
 */
int lid_map_save(const struct lid_map *m, const char *path);
/* The file's text to f, entries in GUID order. 0 or -errno (-EIO if unknown). */
int lid_map_write(const struct lid_map *m, FILE *f);

uint32_t lid_map_count(const struct lid_map *m);
/* Entries in no particular order; valid until m next changes. */
const struct lid_ent *lid_map_entries(const struct lid_map *m);
/* 0 and the port's LIDs, or -ENOENT. */
int lid_map_get(const struct lid_map *m, uint64_t guid, uint16_t *lid, uint8_t *lmc);

/*
 * What lid_assign did. Every LID-bearing port counts in exactly one of
 * kept_map, kept_fabric, assigned_new and unassigned.
 */
struct lid_report {
	unsigned kept_map;     /* the map's LIDs kept */
	unsigned kept_fabric;  /* no usable map entry: the LID the model had kept */
	unsigned assigned_new; /* got the lowest free range */
	unsigned changed;      /* had a LID in the model and now has another */
	unsigned unassigned;   /* left without a LID: out of LIDs, duplicate or zero GUID */
	unsigned duplicate;    /* of those, ports whose GUID an earlier port has */
	unsigned map_updates;  /* map entries added or changed: save if not 0 */
	unsigned moved_cap;    /* of the changed, moved from LIDs past the LinearFDBCap */
	struct diag msgs;      /* start it with .limit = LID_MAX_MSGS */
};

void lid_report_free(struct lid_report *rep);

/*
 * Give every LID-bearing port of sn its LIDs (sn->port[i].lid and .lmc):
 * switch port 0 (LMC 0), and CA and router ports that are linked (LMC lmc,
 * 2^lmc LIDs, base aligned to 2^lmc). Every other port gets LID 0. The key is
 * the port GUID (node.port0_guid for switch port 0). Ports are taken in GUID
 * order, so the result does not depend on the order of nodes in the model:
 *
 *   1. the map's base LID, if aligned for the port's LMC and the range is free;
 *   2. else the LID the model has (read from the fabric or a topology file)
 *      if valid, aligned and free;
 *   3. else the lowest free aligned range.
 *
 * Map entries of GUIDs not in the model stay reserved and stay in the map. Of
 * two ports with one GUID the first in node order keeps it; the other gets
 * LID 0 and is reported. The map is updated with every assignment; a port
 * left without LIDs loses its entry. Returns 0; -ENOSPC if some ports did not
 * fit (all the others are assigned; the rest have LID 0, counted and
 * reported); -EINVAL if lmc > LID_LMC_MAX; -ENOMEM (sn and m untouched).
 */
int lid_assign(struct subnet *sn, struct lid_map *m, uint8_t lmc, struct lid_report *rep);
/*
 * The same within a cap: no port keeps or gets a LID at or above cap (the
 * smallest SwitchInfo:LinearFDBCap of the fabric's switches, IBA 14.2.5.4:
 * a switch forwards no LID past its LFT), or a range whose top (base +
 * 2^LMC - 1) is. A port whose map or model LID is past it moves to a free
 * range below, is reported, and counts in changed and moved_cap. cap 0: no
 * limit but the unicast range's (lid_assign).
 */
int lid_assign_cap(struct subnet *sn, struct lid_map *m, uint8_t lmc, uint16_t cap,
		   struct lid_report *rep);
/*
 * The same with the model's LIDs first (fabric_first): a port keeps the LID
 * the fabric gave it, if aligned, free and under cap, before the map is
 * asked. For an SM that takes over a running subnet (IBA 14.4): the hosts
 * hold the old master's LIDs, and a stale map must not move them. The map
 * learns the kept LIDs (map_updates), so they hold from then on.
 */
int lid_assign_order(struct subnet *sn, struct lid_map *m, uint8_t lmc, uint16_t cap,
		     bool fabric_first, struct lid_report *rep);
/*
 * The cap for lid_assign_cap: the smallest SwitchInfo:LinearFDBCap of sn's
 * switches as discovery read it (switches that gave none are skipped); 0 if
 * none gave one.
 */
uint16_t lid_switch_cap(const struct subnet *sn, const struct disc_live *live);

#endif
