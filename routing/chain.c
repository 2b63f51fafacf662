/* SPDX-License-Identifier: MIT */
/*
 * Which engines to try, in order. No engine falls back on its own (an
 * engine that cannot route a fabric says why and stops); the caller walks
 * this list, so a fabric whose shape does not fit the first engine is still
 * routed, by a named engine, with the refusal logged. "auto" is the list
 * that routes any fabric well: ftree for a fat tree (degraded allowed), else
 * vlayered (deadlock-free on any shape, within the VLs the ports have), else
 * updn (deadlock-free with one VL). vlayered is short of VLs, and refuses,
 * when its budget is one VL and over half the CA LIDs would ride its
 * one-root up/down escape: measured, that is a fat-tree-like fabric (a
 * 3-level tree ftree refused, say), where updn's chosen roots give a busiest
 * link 2-4.5x lower; tori, rings, random graphs and dragonflies put no LID
 * there and vlayered beats updn on them at every budget (vlayered.c).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "routing/route.h"

static const struct route_engine *const auto_chain[] = {
	&route_ftree,
	&route_vlayered,
	&route_updn,
};

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

static int chain_add_auto(struct route_chain *c)
{
	int r = 0;

	for (size_t i = 0; i < sizeof(auto_chain) / sizeof(auto_chain[0]) && r == 0; i++)
		r = chain_add(c, auto_chain[i]);
	return r;
}

int route_chain_parse(const char *spec, bool fallback, struct route_chain *out, char *bad,
		      size_t bad_len)
{
	struct route_chain c = { .n = 0 };
	const char *p = spec;
	int r = 0;

	if (bad_len)
		bad[0] = 0;
	while (r == 0) {
		size_t len = strcspn(p, ",");
		char name[32];
		const struct route_engine *e;

		if (!len || len >= sizeof(name)) {
			snprintf(bad, bad_len, "%.*s", (int)(len < 32 ? len : 32), p);
			return -EINVAL;
		}
		memcpy(name, p, len);
		name[len] = 0;
		if (!strcmp(name, "auto")) {
			r = chain_add_auto(&c);
		} else {
			e = route_engine_find(name);
			if (!e) {
				snprintf(bad, bad_len, "%s", name);
				return -EINVAL;
			}
			r = chain_add(&c, e);
		}
		if (!p[len])
			break;
		p += len + 1;
	}
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
