/* SPDX-License-Identifier: MIT */
/*
 * Keyword lines of a topology file: switchguid=, caguid=, vendid= and the
 * rest, which set what the next node headers get (see topo.c for ibsim's
 * rules), and the numbers in them.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lib/cleanup.h"
#include "lib/strnum.h"
#include "model/topo_priv.h"

int topo_num(struct cur *c, int base, uint64_t *v)
{
	const char *p = c->p;
	uint64_t n = 0;
	bool over = false;
	unsigned b, dv;

	if ((base == 0 || base == 16) && c->end - p >= 3 && p[0] == '0' &&
	    (p[1] == 'x' || p[1] == 'X') && strnum_digit(p[2]) < 16) {
		p += 2;
		base = 16;
	} else if (base == 0) {
		base = p < c->end && *p == '0' ? 8 : 10;
	}
	b = (unsigned)base;
	if (p >= c->end || strnum_digit(*p) >= b)
		return -ENOENT;
	for (; p < c->end && (dv = strnum_digit(*p)) < b; p++) {
		if (n > (UINT64_MAX - dv) / b)
			over = true;
		n = n * b + dv;
	}
	c->p = p;
	if (over)
		return -ERANGE;
	*v = n;
	return 0;
}

void topo_copy(const struct cur *c, char *buf, size_t len)
{
	size_t n = (size_t)(c->end - c->p);

	if (n >= len)
		n = len - 1;
	memcpy(buf, c->p, n);
	buf[n] = '\0';
}

struct keyword {
	const char *name;
	int (*fn)(struct topo_ctx *x, const struct keyword *k, struct cur *c,
		  const struct cur *line);
	int arg;
};

static int kw_node(struct topo_ctx *x, const struct keyword *k, struct cur *c,
		   const struct cur *line)
{
	return topo_header(x, (enum node_type)k->arg, k->name, c, line);
}

/* switchguid=X(portguid), caguid=X, hcaguids=X, rtguid=X, or +X */
static int kw_guid(struct topo_ctx *x, const struct keyword *k, struct cur *c,
		   const struct cur *line)
{
	uint64_t v, port0 = 0;
	char show[96];
	bool rel;

	cur_ws(c);
	rel = cur_eat(c, '+');
	if (!rel && !cur_eat(c, '='))
		goto bad;
	cur_ws(c);
	if (topo_num(c, 0, &v) < 0)
		goto bad;
	if (k->arg == NODE_SWITCH && cur_eat(c, '(') &&
	    (topo_num(c, 16, &port0) < 0 || !cur_eat(c, ')') || !port0))
		goto bad;
	if (!at_end(c))
		goto bad;
	if (rel) {
		x->guid_next[k->arg] = x->guid_base[k->arg] + v;
	} else {
		x->guid_base[k->arg] = v;
		x->guid_next[k->arg] = v;
	}
	x->port0_guid = port0;
	return 0;
bad:
	topo_err(x, "bad value in '%s' (expected: %s=<GUID>%s or %s+<offset>)",
		 topo_show(line, show, sizeof(show)), k->name,
		 k->arg == NODE_SWITCH ? "[(<port GUID>)]" : "", k->name);
	return 0;
}

enum { V_VENDID, V_DEVID, V_SYSGUID, V_WIDTH, V_SPEED, V_EXTSPEED };

/* vendid=, devid=, sysimgguid=, width=, speed=, extspeed= */
static int kw_value(struct topo_ctx *x, const struct keyword *k, struct cur *c,
		    const struct cur *line)
{
	static const struct {
		uint64_t min, max;
		const char *allowed;
	} range[] = {
		[V_VENDID] = { 0, 0xffffff, "0 to 0xffffff" },
		[V_DEVID] = { 0, 0xffff, "0 to 0xffff" },
		[V_SYSGUID] = { 0, UINT64_MAX, "<GUID>" },
		[V_WIDTH] = { 1, 31, "1 to 31" },
		[V_SPEED] = { 1, 7, "1 to 7" },
		[V_EXTSPEED] = { 0, 15, "0 to 15" },
	};
	char show[96];
	uint64_t v;

	cur_ws(c);
	if (!cur_eat(c, '='))
		goto bad;
	cur_ws(c);
	if (topo_num(c, 0, &v) < 0 || !at_end(c) || v < range[k->arg].min ||
	    v > range[k->arg].max) {
bad:
		topo_err(x, "bad value in '%s' (allowed: %s=%s)",
			 topo_show(line, show, sizeof(show)), k->name, range[k->arg].allowed);
		return 0;
	}
	switch (k->arg) {
	case V_VENDID:
		x->vendid = (uint32_t)v;
		break;
	case V_DEVID:
		x->devid = (uint16_t)v;
		break;
	case V_SYSGUID:
		x->sysguid = v;
		break;
	case V_WIDTH:
		x->width_en = (uint8_t)v;
		x->have_width_en = true;
		break;
	case V_SPEED:
		x->speed_en = (uint8_t)v;
		x->have_speed_en = true;
		break;
	case V_EXTSPEED:
		x->ext_en = (uint8_t)v;
		x->have_ext_en = true;
		break;
	}
	return 0;
}

static int kw_ignore(struct topo_ctx *x, const struct keyword *k, struct cur *c,
		     const struct cur *line)
{
	(void)x, (void)k, (void)c, (void)line;
	return 0;
}

static int kw_module(struct topo_ctx *x, const struct keyword *k, struct cur *c,
		     const struct cur *line)
{
	char show[96];

	(void)k, (void)c;
	topo_err(x, "'module' is not supported (ibsim would prefix the names of later nodes): '%s'",
		 topo_show(line, show, sizeof(show)));
	return 0;
}

static int kw_include(struct topo_ctx *x, const struct keyword *k, struct cur *c,
		      const struct cur *line)
{
	(void)k;
	return topo_include(x, c, line);
}

static const struct keyword keywords[] = {
	{ "Switch", kw_node, NODE_SWITCH },
	{ "Hca", kw_node, NODE_CA },
	{ "Ca", kw_node, NODE_CA },
	{ "Rt", kw_node, NODE_ROUTER },
	{ "switchguid", kw_guid, NODE_SWITCH },
	{ "caguid", kw_guid, NODE_CA },
	{ "hcaguids", kw_guid, NODE_CA },
	{ "rtguid", kw_guid, NODE_ROUTER },
	{ "vendid", kw_value, V_VENDID },
	{ "devid", kw_value, V_DEVID },
	{ "sysimgguid", kw_value, V_SYSGUID },
	{ "width", kw_value, V_WIDTH },
	{ "speed", kw_value, V_SPEED },
	{ "extspeed", kw_value, V_EXTSPEED },
	{ "include", kw_include, 0 },
	{ "module", kw_module, 0 },
	{ "do", kw_ignore, 0 },
	{ "pdebug", kw_ignore, 0 },
	{ "Chassis", kw_ignore, 0 },
	{ "Non-Chassis", kw_ignore, 0 },
	{ "Hostname", kw_ignore, 0 },
};

static bool is_word_char(int ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
	       ch == '-' || ch == '_';
}

int topo_keyword_line(struct topo_ctx *x, struct cur *c, const struct cur *line)
{
	struct cur w = { c->p, c->p };
	const char *q, *q2;
	char show[96];

	while (w.end < c->end && is_word_char((unsigned char)*w.end))
		w.end++;
	for (size_t i = 0; i < ARRAY_SIZE(keywords); i++) {
		if (!cur_is(&w, keywords[i].name))
			continue;
		c->p = w.end;
		return keywords[i].fn(x, &keywords[i], c, line);
	}
	topo_err(x, "unknown line '%s' (expected Switch, Ca, Hca, Rt, a [port] line, a "
		    "guid/vendid/devid line or a # comment)", topo_show(line, show, sizeof(show)));
	/*
	 * Most likely a misspelt header: skip its port lines, and take a quoted
	 * name in it as a refused node, so that neither they nor links to it
	 * (nor "no nodes found") add more messages.
	 */
	x->rec = REC_SKIP;
	q = memchr(c->p, '"', (size_t)(c->end - c->p));
	if (q && (q2 = memchr(q + 1, '"', (size_t)(c->end - q - 1))) && q2 > q + 1) {
		topo_copy(&(struct cur){ q + 1, q2 }, x->name, sizeof(x->name));
		topo_bad_name(x, x->name);
		x->headers++;
	}
	return x->oom ? -ENOMEM : 0;
}
