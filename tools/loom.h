/* SPDX-License-Identifier: MIT */
#ifndef LOOM_TOOLS_LOOM_H
#define LOOM_TOOLS_LOOM_H

/*
 * DOC: tools/ — the `loom` command: one file per subcommand.
 *   loom.c      subcommand table, --help, --version
 *   cmd_topo.c  loom topo: read, validate and summarise a topology file
 *   cmd_discover.c  loom discover: sweep the live fabric, print it as topo does
 *   cmd_config.c    loom config: check loom.yaml, print it normalised
 *   cmd_verify.c    loom verify: judge dump_lfts tables (routing/check.c)
 *   cmd_route.c     loom route: the dry run, tables loomd would program
 *   cmd_health.c    loom health: sweep the live fabric, print what fabric/health_* judge
 *   check_print.c   the route-quality report, text and JSON (verify, route)
 *   topo_print.c    the outputs topo and discover share (counts, JSON, list)
 *
 * Exit codes, shared by every subcommand: 0 ok, 1 problems found or misuse,
 * 2 the input could not be read or checked.
 */

#include <stdbool.h>

int cmd_topo(int argc, char **argv);
int cmd_discover(int argc, char **argv);
int cmd_config(int argc, char **argv);
/* loom verify (cmd_verify.c): judge dump_lfts tables against an ibnetdiscover capture. */
int cmd_verify(int argc, char **argv);
int cmd_route(int argc, char **argv);
/* loom health (cmd_health.c): 0 healthy, 1 problems, 2 could not check. */
int cmd_health(int argc, char **argv);
/* Load path (NULL: the default file, which may be absent), report to stderr as prog,
 * print the normalised config if print; 0 valid, 1 invalid, 2 unreadable. loomd's
 * --check-config calls it too. */
int config_check_run(const char *prog, const char *path, bool print);

#endif
