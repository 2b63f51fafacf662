/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cleanup.h"
#include "tools/loom.h"

static const struct {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *help;
} cmds[] = {
	{ "topo", cmd_topo, "read and validate a topology file, print its counts" },
	{ "discover", cmd_discover, "sweep the live fabric (directed route), print what topo prints" },
	{ "config", cmd_config, "check loom.yaml, print the normalised configuration" },
	{ "route", cmd_route, "dry-run routing: the LFTs loomd would program, as dump_lfts" },
	{ "health", cmd_health, "judge the live fabric: links, SM, counters (0 healthy)" },
	{ "verify", cmd_verify, "judge dump_lfts tables: reachability, loops, load, credit loops" },
	{ "status", cmd_status, "what the running loomd is doing (its control socket)" },
	{ "sweep", cmd_sweep, "ask loomd for a sweep, or pause and resume its sweeps" },
	{ "reload", cmd_reload, "have loomd read its configuration again, as SIGHUP does" },
	{ "handover", cmd_handover, "have a master kept by sm.sticky hand over to a higher SM" },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: loom COMMAND [OPTIONS] [ARGS]\n\ncommands:\n");
	for (size_t i = 0; i < ARRAY_SIZE(cmds); i++)
		fprintf(f, "  %-8s %s\n", cmds[i].name, cmds[i].help);
	fprintf(f, "\n'loom COMMAND --help' describes one command.\n");
}

/* Under the line that says what is wrong: only HELP's usage lines (up to its
 * first empty line), so that line stays in sight, then where the rest is.
 * The whole help if it cannot be held in memory. */
void loom_misuse(void (*help)(FILE *f), const char *cmd)
{
	_cleanup_free_ char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	const char *end;

	if (!m) {
		help(stderr);
		return;
	}
	help(m);
	if (fclose(m) != 0 || !text) {
		help(stderr);
		return;
	}
	end = strstr(text, "\n\n");
	fprintf(stderr, "%.*s\nTry 'loom %s --help' for more information.\n",
		(int)(end ? (size_t)(end - text) : len), text, cmd);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 1;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("loom %s\n", PACKAGE_VERSION);
		return 0;
	}
	for (size_t i = 0; i < ARRAY_SIZE(cmds); i++)
		if (!strcmp(argv[1], cmds[i].name))
			return cmds[i].run(argc - 1, argv + 1);
	fprintf(stderr, "loom: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return 1;
}
