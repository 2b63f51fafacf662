/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cleanup.h"
#include "lib/diag.h"
#include "lib/json.h"
#include "tools/loom.h"
#include "model/subnet.h"
#include "model/topo.h"
#include "model/topo_stats.h"
#include "tools/topo_print.h"

static void topo_usage(FILE *f)
{
	fprintf(f, "usage: loom topo [--json | --list] TOPOFILE\n\n"
		   "Read a topology (ibnetdiscover output or ibsim's form), check it and print\n"
		   "its counts: switches, CAs, links, ports, radix, parallel links, problems.\n\n"
		   "  --json   machine-readable report on stdout\n"
		   "  --list   every node (type, GUID, ports, description) and link\n"
		   "           (GUID[port] GUID[port]) instead of the counts\n\n"
		   "Exit status: 0 clean, 1 the fabric has problems (listed), 2 the file\n"
		   "cannot be read or is malformed (FILE:LINE: messages on stderr).\n");
}

int cmd_topo(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "list", no_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	_cleanup_(subnet_freep) struct subnet *sn = NULL;
	struct diag d = { 0 };
	struct diag pb = { .limit = TOPO_PROBLEMS_SHOWN };
	struct topo_stats st;
	bool json = false, list = false;
	int c, r;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'l':
			list = true;
			break;
		case 'h':
			topo_usage(stdout);
			return 0;
		default:
			loom_misuse(topo_usage, "topo");
			return 1;
		}
	}
	if (optind != argc - 1 || (json && list)) {
		if (json && list)
			fprintf(stderr, "loom topo: --json and --list: one at most\n");
		else
			fprintf(stderr, "loom topo: %s\n", optind >= argc ? "no TOPOFILE given" :
				"one TOPOFILE only");
		loom_misuse(topo_usage, "topo");
		return 1;
	}

	r = topo_read_file(argv[optind], &sn, &d);
	if (r < 0) {
		diag_print(&d, stderr);
		fprintf(stderr, "loom topo: %s: %u problem%s found; nothing was checked\n",
			argv[optind], diag_count(&d), diag_count(&d) == 1 ? "" : "s");
		diag_free(&d);
		return 2;
	}
	diag_free(&d);
	r = topo_stats_compute(sn, &st);
	if (r < 0) {
		fprintf(stderr, "loom topo: %s: cannot compute counts: %s\n", argv[optind],
			strerror(-r));
		return 2;
	}
	topo_problems_find(sn, &st, &pb);
	if (list)
		topo_print_list(sn);
	else if (json)
		topo_print_json(argv[optind], &st, &pb);
	else
		topo_print_text(argv[optind], &st, &pb);
	r = diag_count(&pb) ? 1 : 0;
	diag_free(&pb);
	return r;
}
