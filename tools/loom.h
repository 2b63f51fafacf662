/* SPDX-License-Identifier: MIT */
#ifndef LOOM_TOOLS_LOOM_H
#define LOOM_TOOLS_LOOM_H

/*
 * DOC: tools/ — the `loom` command: one file per subcommand.
 *   loom.c      subcommand table, --help, --version
 *   cmd_topo.c  loom topo: read, validate and summarise a topology file
 *
 * Exit codes, shared by every subcommand: 0 ok, 1 problems found or misuse,
 * 2 the input could not be read or checked.
 */

int cmd_topo(int argc, char **argv);

#endif
