/* SPDX-License-Identifier: MIT */
/* loom config: read the YAML configuration, check it, print it normalised. */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "config/config.h"
#include "lib/cleanup.h"
#include "lib/diag.h"
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

int config_check_run(const char *prog, const char *path, bool print)
{
	_cleanup_(config_freep) struct config *c = NULL;
	const char *name = path ? path : CONFIG_DEFAULT_PATH;
	struct diag d = { 0 };
	unsigned n;
	int r;

	r = config_load_file(name, path != NULL, &c, &d);
	n = diag_count(&d);
	diag_print(&d, stderr);
	diag_free(&d);
	if (r == -EINVAL) {
		fprintf(stderr, "%s: %s: %u problem%s; the configuration is refused\n", prog, name,
			n, n == 1 ? "" : "s");
		return 1;
	}
	if (r < 0) {
		fprintf(stderr, "%s: %s: cannot be read (%s); nothing was checked\n", prog, name,
			strerror(-r));
		return 2;
	}
	if (print) {
		r = config_print(c, stdout);
		if (r < 0) {
			fprintf(stderr, "%s: cannot write the configuration: %s\n", prog,
				strerror(-r));
			return 2;
		}
	}
	return 0;
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
			config_usage(stderr);
			return 1;
		}
	}
	if (optind < argc && !path)
		path = argv[optind++];
	if (optind != argc) {
		config_usage(stderr);
		return 1;
	}
	return config_check_run("loom config", path, !check);
}
