/* SPDX-License-Identifier: MIT */
/*
 * loomd --check-config: the configuration loomd would run with, which is the
 * file under the command line's options (loomd.h: they win). Checked and
 * printed as a whole, so `--check-config --routing bogus` fails as the start
 * would, and the printed file says what the options changed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/config.h"
#include "lib/cleanup.h"
#include "loomd/loomd.h"
#include "routing/route.h"

/* --routing's names into the configuration's list; false (said) on a name it lacks. */
static bool engines_into(const char *spec, struct config_sm *sm)
{
	char bad[80];
	unsigned n;

	if (config_engines_parse(spec, sm->routing.engine, &n, bad, sizeof(bad)) < 0) {
		fprintf(stderr, "loomd: --routing '%s': '%s' is not an engine (allowed: "
			"minhop, updn, ftree, vlayered, file, auto, up to %u)\n", spec, bad,
			CONFIG_ENGINES_MAX);
		return false;
	}
	sm->routing.n_engines = (uint8_t)n;
	return true;
}

/* The command line's options over c, as loomd_apply_config takes them. */
static int override(const struct loomd_opts *o, struct config *c)
{
	struct config_sm *sm = &c->sm;

	if ((o->set & SET_ENGINE) && !engines_into(o->engine, sm))
		return -EINVAL;
	if (o->set & SET_FALLBACK)
		sm->routing.no_fallback = o->no_fallback;
	if (o->set & SET_LMC)
		sm->routing.lmc = (uint8_t)o->lmc;
	if (o->set & SET_VLS)
		sm->routing.vls = (uint8_t)o->vls;
	if (o->set & SET_ROOTS) {
		struct config_root *r = calloc(o->n_roots ? o->n_roots : 1, sizeof(*r));

		if (!r)
			return -ENOMEM;
		for (uint32_t i = 0; i < o->n_roots; i++)
			r[i].guid = o->roots[i];
		free(sm->routing.root);
		sm->routing.root = r;
		sm->routing.n_roots = o->n_roots;
	}
	if (o->set & SET_LFTS) {
		free(sm->routing.file);
		if (!(sm->routing.file = strdup(o->lfts)))
			return -ENOMEM;
	}
	if (o->set & SET_STATE) {
		free(sm->state_dir);
		if (!(sm->state_dir = strdup(o->state_dir)))
			return -ENOMEM;
	}
	if (o->set & SET_SWEEP)
		sm->sweep_us = (uint64_t)o->sweep_ms * 1000;
	if (o->set & SET_PRIO)
		sm->priority = (uint8_t)o->priority;
	if (o->set & SET_WIN)
		sm->mad.window = (uint16_t)o->txn.window;
	if (o->set & SET_TMO)
		sm->mad.timeout_us = (uint64_t)o->txn.timeout_ms * 1000;
	if (o->set & SET_RETRY)
		sm->mad.retries = (uint8_t)o->txn.retries;
	return 0;
}

int loomd_check_config(const struct loomd_opts *o)
{
	_cleanup_(config_freep) struct config *c = NULL;
	const char *path = o->config ? o->config : CONFIG_DEFAULT_PATH;
	struct diag d = { 0 };
	int r;

	r = config_check_run("loomd", o->config, false);
	if (r)
		return r;
	r = config_load_file(path, o->config != NULL, &c, &d); /* read clean just now */
	diag_free(&d);
	if (r == 0)
		r = override(o, c);
	if (r == -ENOMEM)
		fprintf(stderr, "loomd: out of memory checking the configuration\n");
	if (r < 0)
		return 1;
	/* The file engine's tables must be there: loomd would refuse to start. */
	if (config_engines_has(&c->sm, CONFIG_ENGINE_FILE) &&
	    (!c->sm.routing.file || access(c->sm.routing.file, R_OK) < 0)) {
		fprintf(stderr, "loomd: routing engine file: %s%s%s; give its dump_lfts text "
			"with --lfts or sm.routing.file\n",
			c->sm.routing.file ? c->sm.routing.file : "no tables given",
			c->sm.routing.file ? ": " : "", c->sm.routing.file ? strerror(errno) : "");
		return 1;
	}
	r = config_print(c, stdout);
	if (r < 0) {
		fprintf(stderr, "loomd: cannot write the configuration: %s\n", strerror(-r));
		return 2;
	}
	return 0;
}
