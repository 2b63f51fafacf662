/* SPDX-License-Identifier: MIT */
/* loom config: read the YAML configuration, check it, print it normalised. */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

#include "config/config.h"
#include "tools/loom.h"

static void config_usage(FILE *f)
{
	fprintf(f, "usage: loom config [--check] [-c FILE | FILE]\n\n"
		   "Read loom's configuration (YAML, see loom.yaml(5)), check every value and\n"
		   "print the normalised configuration: every effective value, defaults filled\n"
		   "in, as YAML that reads back the same. Without a file, " CONFIG_DEFAULT_PATH
		   "\nis read, and if it does not exist the defaults are printed.\n\n"
		   "  -c, --config FILE  the file to read (that it is missing is an error)\n"
		   "  --check            check only: print nothing if the file is valid\n\n"
		   "Exit status: 0 valid, 1 invalid (every problem on stderr as\n"
		   "FILE:LINE:COL: field: what is wrong), 2 the file cannot be read.\n");
}

int cmd_config(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "check", no_argument, NULL, 'k' },
		{ "config", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	const char *path = NULL;
	bool check = false;
	int c;

	while ((c = getopt_long(argc, argv, "c:h", opts, NULL)) != -1) {
		switch (c) {
		case 'k':
			check = true;
			break;
		case 'c':
			path = optarg;
			break;
		case 'h':
			config_usage(stdout);
			return 0;
		default:
			loom_misuse(config_usage, "config");
			return 1;
		}
	}
	if (optind < argc && !path)
		path = argv[optind++];
	if (optind != argc) {
		loom_misuse(config_usage, "config");
		return 1;
	}
	return config_check_run("loom config", path, !check);
}
