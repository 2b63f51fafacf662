/* SPDX-License-Identifier: MIT */
#ifndef LOOM_LFT_TEXT_H
#define LOOM_LFT_TEXT_H

/*
 * Linear forwarding tables as text, in the format of infiniband-diags'
 * `dump_lfts` (dump_fts), both ways: print a struct route_out for a model
 * (lft_text.c), and read what dump_lfts (or ibroute, or OpenSM's
 * opensm-lfts.dump) printed back into a struct route_out aligned with a
 * model (lft_text_read.c). With LFT_TEXT_DUMP_LFTS, a model read from an
 * ibnetdiscover capture and the node the tools ran on as root, the printer
 * writes dump_lfts's text byte for byte (tests/e2e/verify_opensm_test.sh).
 *
 * The format, as dump_fts 44 prints it (one block per switch):
 *
 *   Unicast lids [0x0-0x2c] of switch DR path slid 0; dlid 0; 0,1,5,8 guid 0x0002c9030000000c (leaf008):
 *     Lid  Out   Destination
 *          Port     Info 
 *   0x0001 005 : (Channel Adapter portguid 0x0002c90400000101: 'h00001')
 *   0x0005 006 : (path #2 out of 4: portguid 0x0002c90400000101)
 *   0x0022 006 : (Switch portguid 0x0002c90300000002: 'spine002')
 *   44 valid lids dumped 
 *
 * What varies between dumps of the same tables, so a diff must ignore it
 * (the reader ignores all of it; lft_text_print with LFT_TEXT_CANON writes
 * none of it, so two dumps normalise to the same text):
 *   - The switch's address in the header. dump_lfts always prints the
 *     directed-route path by which ibnetdiscover first reached the switch
 *     from the port the tool runs on ("DR path slid 0; dlid 0; 0,1,5,8");
 *     it refuses -D, -L, -G. ibroute prints "Lid N" when given a LID, "DR
 *     path slid 65535; dlid 65535; 0,1" with -D. OpenSM's own dump prints
 *     "Lid N" and a decimal range "[0-146]". The model knows no path the
 *     tools took: LFT_TEXT_ADDR_DR recomputes ibnetdiscover's breadth-first
 *     path from a given node, LFT_TEXT_ADDR_LID prints "Lid N" from the
 *     switch's LID, LFT_TEXT_ADDR_NONE leaves the address out.
 *   - The order of the switches: ibnetdiscover's discovery order, which is
 *     also the order of its capture file, not the order of the ibsim file.
 *   - The top of the range: the switch's LinearFDBTop, which each SM sets.
 *   - The destination info: node descriptions (and a node-name map), and
 *     "path #2 out of 4" lines that depend on the LIDs printed before them;
 *     -n leaves it out; OpenSM writes "# Type portguid 0x...: 'desc'".
 *   - Entries that drop (port 255): only with -a; "N lids dumped" then
 *     counts them, otherwise "N valid lids dumped ".
 *   - A table whose top is a multiple of 64 lacks its top LID in dump_lfts
 *     and ibroute output (they never read the last LFT block); OpenSM's own
 *     dump has it. See struct lft_text_stats.unread_lid.
 *   - Lines that are not tables: the wrapper script's "*** WARNING ***"
 *     trailer, "ibwarn:" lines when stderr is captured too, blank lines and
 *     multicast blocks (dump_lfts -M), which are not read.
 * What is compared: the switch (by node GUID) and for each LID its egress
 * port.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/diag.h"
#include "routing/route.h"
#include "model/subnet.h"

enum lft_text_addr {
	LFT_TEXT_ADDR_DR,   /* "DR path slid 0; dlid 0; 0,1,5" from opts.root, as dump_lfts */
	LFT_TEXT_ADDR_LID,  /* "Lid N": the switch's port 0 LID, as ibroute and OpenSM */
	LFT_TEXT_ADDR_NONE, /* "of switch guid 0x...": what the model cannot know, left out */
};

struct lft_text_opts {
	enum lft_text_addr addr;
	/* LFT_TEXT_ADDR_DR: the node the tools run on (a CA uses its lowest
	 * linked port); SUBNET_NONE for node 0, the SM's host in ibsim's form. */
	uint32_t root;
	bool all;     /* dump_lfts -a: entries that drop too, "N lids dumped" */
	bool brief;   /* dump_lfts -n: no destination info */
	bool by_guid; /* switches in NodeGUID order instead of model order */
};

/* The canonical form for comparisons: no address, no info, GUID order. */
#define LFT_TEXT_CANON                                                                  \
	((struct lft_text_opts){ .addr = LFT_TEXT_ADDR_NONE, .root = SUBNET_NONE,       \
				 .brief = true, .by_guid = true })
/* What dump_lfts prints when run on the model's node 0 (its default). */
#define LFT_TEXT_DUMP_LFTS ((struct lft_text_opts){ .addr = LFT_TEXT_ADDR_DR, .root = SUBNET_NONE })

/*
 * Print out (routed for sn) to f, one block per switch; the range of each is
 * 0..out->max_lid. Returns 0, -EINVAL if out does not belong to sn or root
 * is not a node, -ENOMEM, -EIO if writing failed.
 */
int lft_text_print(FILE *f, const struct subnet *sn, const struct route_out *out,
		   const struct lft_text_opts *o);

struct lft_text_stats {
	uint32_t switches; /* switch tables read */
	uint32_t missing;  /* switches of the model with no table in the text */
	uint64_t entries;  /* LFT entries set */
	uint32_t skipped;  /* lines (or whole tables) skipped: each has a message */
	/*
	 * dump_fts and ibroute never print the top LID of a table whose top is a
	 * multiple of 64 (they stop one LFT block short: rdma-core's
	 * infiniband-diags/dump_fts.c, endblock = ALIGN(endl, 64) / 64). Tables
	 * whose hex range ends at such a LID without listing it are counted here,
	 * and the highest such LID kept: where it goes, the text cannot say.
	 */
	uint32_t unread_tables;
	uint16_t unread_lid;
};

/*
 * Read dump_lfts text (any of the variants above) into *out, numbered as
 * route_out_init numbers sn's switches; rows span LIDs 0..max(the highest
 * LID in sn, the highest LID in the text); what the text does not set is
 * ROUTE_DROP. Tables are matched to switches by node GUID. A malformed line,
 * a GUID that is not one of sn's switches (its whole table), a port beyond
 * the switch's ports, a LID outside 1..0xbfff or a switch listed twice (the
 * later table) is skipped with a "NAME:LINE: ..." message in d; a switch of
 * sn with no table gets a "NAME: ..." message and drops everything. Bounded:
 * two passes over the lines (the first sizes the rows), no line copied.
 * Returns 0 with *out filled (and st, if given, counting what happened),
 * -EINVAL if the text holds no unicast table at all (*out untouched),
 * -ENOMEM.
 */
int lft_text_read_mem(const char *buf, size_t len, const char *name, const struct subnet *sn,
		      struct route_out *out, struct lft_text_stats *st, struct diag *d);

/* The same from a file; -errno (also put in d) if it cannot be read. */
int lft_text_read_file(const char *path, const struct subnet *sn, struct route_out *out,
		       struct lft_text_stats *st, struct diag *d);

#endif
