/* SPDX-License-Identifier: MIT */
/*
 * The --check-config runner that `loom config` and `loomd --check-config` share:
 * load, report every problem, print the normalised config. It is the one place
 * in config/ that prints: both callers are edges and must say the same words,
 * and DESIGN.md puts the runner here so that loomd/ need not reach into tools/.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "config/config.h"
#include "lib/cleanup.h"
#include "lib/diag.h"

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
