/* SPDX-License-Identifier: MIT */
#ifndef LOOM_TOOLS_LOOM_H
#define LOOM_TOOLS_LOOM_H

/*
 * DOC: tools/ — the `loom` command: one file per subcommand.
 *   loom.h      this header: the subcommands, the exit codes they share
 *   loom.c      subcommand table, --help, --version, the misuse message
 *   cmd_topo.c  loom topo: read, validate and summarise a topology file
 *   cmd_discover.c  loom discover: sweep the live fabric, print it as topo does
 *   cmd_config.c    loom config: check loom.yaml, print it normalised
 *   cmd_verify.c    loom verify: judge dump_lfts tables (routing/check.c)
 *   cmd_route.c     loom route: the dry run, tables loomd would program
 *   cmd_health.c    loom health: sweep the live fabric, print what fabric/health_* judge
 *   health_opts.c   loom health's options, thresholds and waits from loom.yaml (health_opts.h)
 *   health_prom.c   loom health --prometheus: node_exporter's textfile format (health_prom.h)
 *   cmd_status.c    loom status, sweep, reload: ask loomd over its control socket
 *   check_print.c   the route-quality report, text and JSON, for verify and route
 *                   (check_print.h)
 *   topo_print.c    the outputs topo and discover share: counts, JSON, problem list
 *                   (topo_print.h)
 *
 * Exit codes, shared by every subcommand: 0 ok, 1 problems found or misuse,
 * 2 the input could not be read or checked.
 */

#include <stdio.h>

/* A command line that is wrong, after the line saying what: the usage lines of
 * HELP's text and "Try 'loom CMD --help'" on stderr (loom.c). */
void loom_misuse(void (*help)(FILE *f), const char *cmd);

int cmd_topo(int argc, char **argv);
int cmd_discover(int argc, char **argv);
int cmd_config(int argc, char **argv);
/* loom verify (cmd_verify.c): judge dump_lfts tables against an ibnetdiscover capture. */
int cmd_verify(int argc, char **argv);
int cmd_route(int argc, char **argv);
/* loom health (cmd_health.c): 0 healthy, 1 problems, 2 could not check. */
int cmd_health(int argc, char **argv);
/* loom status, loom sweep, loom reload (cmd_status.c): loomd's control socket. */
int cmd_status(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_reload(int argc, char **argv);
int cmd_handover(int argc, char **argv);

#endif
