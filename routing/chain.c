/* SPDX-License-Identifier: MIT */
/*
 * Which engines to try, in order. No engine falls back on its own (an
 * engine that cannot route a fabric says why and stops); the caller walks
 * this list, so a fabric whose shape does not fit the first engine is still
 * routed, by a named engine, with the refusal logged. "auto" is the list
 * that routes any fabric well: config_engine_auto (config/names.c says why
 * those three). The names are read by config_engines_parse, the one parser
 * of "E[,E...]" (loomd --check-config reads --routing with it too).
 * vlayered is short of VLs, and refuses, when its budget is one VL and over
 * half the CA LIDs would ride its one-root up/down escape: measured, that is
 * a fat-tree-like fabric (a 3-level tree ftree refused, say), where updn's
 * chosen roots give a busiest link 2-4.5x lower; tori, rings, random graphs
 * and dragonflies put no LID there and vlayered beats updn on them at every
 * budget (vlayered.c).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "config/config.h"
#include "routing/route.h"

static bool chain_has(const struct route_chain *c, const struct route_engine *e)
{
	for (unsigned i = 0; i < c->n; i++)
		if (c->e[i] == e)
			return true;
	return false;
}

static int chain_add(struct route_chain *c, const struct route_engine *e)
{
	if (chain_has(c, e))
		return 0;
	if (c->n == ROUTE_CHAIN_MAX)
		return -E2BIG;
	c->e[c->n++] = e;
	return 0;
}

/* The engine of a configuration word (the registry follows config_engine_names). */
static int chain_add_word(struct route_chain *c, uint8_t w)
{
	const struct route_engine *e = route_engine_find(config_engine_names[w]);

	return e ? chain_add(c, e) : -EINVAL;
}

static int chain_add_auto(struct route_chain *c)
{
	int r = 0;

	for (unsigned i = 0; i < CONFIG_ENGINE_AUTO_N && r == 0; i++)
		r = chain_add_word(c, config_engine_auto[i]);
	return r;
}

int route_chain_parse(const char *spec, bool fallback, struct route_chain *out, char *bad,
		      size_t bad_len)
{
	struct route_chain c = { .n = 0 };
	uint8_t w[CONFIG_ENGINES_MAX];
	unsigned n;
	int r;

	r = config_engines_parse(spec, w, &n, bad, bad_len);
	if (r < 0)
		return r;
	for (unsigned i = 0; i < n && r == 0; i++)
		r = w[i] == CONFIG_ENGINE_AUTO ? chain_add_auto(&c) : chain_add_word(&c, w[i]);
	/*
	 * The file engine's tables are the operator's own: when the file cannot
	 * be used, computing others would hide the mistake. No fallback after it.
	 */
	if (r == 0 && fallback && !chain_has(&c, &route_file))
		r = chain_add_auto(&c);
	if (r < 0) {
		snprintf(bad, bad_len, "%s", spec);
		return r;
	}
	*out = c;
	return 0;
}

const char *route_chain_str(const struct route_chain *c, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = 0;
	for (unsigned i = 0; i < c->n && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s", i ? "," : "", c->e[i]->name);
	return buf;
}
