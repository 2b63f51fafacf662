/* SPDX-License-Identifier: MIT */
/*
 * Node header lines and port lines of a topology file. Each function gets a
 * cursor over one line and never reads past its end; names and descriptions
 * are copied into buffers of TOPO_LINE_MAX + 1 bytes, cut to fit (a longer
 * line has been reported already). Forms, ibnetdiscover first, then ibsim:
 *
 *   Switch	36 "S-0002c90300a1b2c0"		# "desc" enhanced port 0 lid 3 lmc 0
 *   Ca	2 "H-0002c90300abcd00"		# "desc"
 *   [12]	"H-0002c90300abcd00"[1](2c90300abcd01) 		# "desc" lid 12 4xHDR
 *   [1](2c90300abcd01) 	"S-0002c90300a1b2c0"[12]	# lid 12 lmc 0 "desc" lid 3 4xHDR
 *   Switch 8 "Switch1"
 *   [3]	"Switch2"[3] w=4 s=2
 *   [1]	"Hca1"			(far port 1 when [N] is left out, as in ibsim)
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "model/topo_priv.h"

/* The last '"' in c, or NULL. */
static const char *last_quote(const struct cur *c)
{
	for (const char *q = c->end; q > c->p; q--)
		if (q[-1] == '"')
			return q - 1;
	return NULL;
}

/* Where s first occurs in c, or c->end. */
static const char *cur_find(const struct cur *c, const char *s)
{
	size_t n = strlen(s);

	for (const char *q = c->p; (size_t)(c->end - q) >= n; q++)
		if (memcmp(q, s, n) == 0)
			return q;
	return c->end;
}

/*
 * "key N" among the words of a comment: 0 and N in *v, -ENOENT if the key is
 * absent or not followed by a plain number, -ERANGE if N has over 64 bits.
 * *tok is N as written; *rest (if given) what follows it.
 */
static int comment_num(struct cur r, const char *key, uint64_t *v, struct cur *tok,
		       struct cur *rest)
{
	struct cur w;
	int ret;

	while (cur_word(&r, &w)) {
		if (!cur_is(&w, key))
			continue;
		if (!cur_word(&r, tok))
			return -ENOENT;
		w = *tok;
		ret = topo_num(&w, 10, v);
		if (ret == -ERANGE || (ret == 0 && cur_eof(&w))) {
			if (rest)
				*rest = r;
			return ret;
		}
	}
	return -ENOENT;
}

/* "lid N" and "lmc M" in a comment set a port's LID and LMC. */
static void comment_lid_lmc(struct topo_ctx *x, struct cur r, uint32_t pi)
{
	struct subnet_port *p = &x->sn->port[pi];
	char who[600], show[96];
	struct cur tok;
	uint64_t v;
	int ret;

	topo_node_str(x, p->node, who, sizeof(who));
	ret = comment_num(r, "lid", &v, &tok, NULL);
	if (ret == 0 && v <= SUBNET_LID_UCAST_END)
		p->lid = (uint16_t)v;
	else if (ret != -ENOENT)
		topo_err(x, "%s port %u: LID %s is not a unicast LID (allowed: 0 to %u)", who,
			 p->num, topo_show(&tok, show, sizeof(show)), SUBNET_LID_UCAST_END);
	ret = comment_num(r, "lmc", &v, &tok, NULL);
	if (ret == 0 && v <= 7)
		p->lmc = (uint8_t)v;
	else if (ret != -ENOENT)
		topo_err(x, "%s port %u: bad LMC %s (allowed: 0 to 7)", who, p->num,
			 topo_show(&tok, show, sizeof(show)));
}

/*
 * ibnetdiscover's link rate, "4xHDR": the active width and speed. It prints
 * "??" for a width and "???" for a speed it does not know; those leave the
 * field unknown. A word that does not start like a rate is not one.
 */
static void parse_rate(struct topo_ctx *x, const struct cur *w, struct topo_port *tp)
{
	static const uint8_t lanes_bit[13] = { [1] = 1, [2] = 16, [4] = 2, [8] = 4, [12] = 8 };
	struct cur c = *w, s;
	char show[96];
	uint64_t lanes = 0;
	uint8_t width = 0;
	unsigned sp;

	if (c.end - c.p >= 2 && c.p[0] == '?' && c.p[1] == '?') {
		c.p += 2;
	} else if (topo_num(&c, 10, &lanes) == 0 && cur_eat(&c, 'x')) {
		width = lanes < 13 ? lanes_bit[lanes] : 0;
		if (!width)
			goto bad;
	} else {
		return;
	}
	s = c;
	if (cur_is(&s, "???")) {
		sp = SPEED_UNKNOWN;
	} else {
		for (sp = SPEED_SDR; sp < _SPEED_MAX; sp++)
			if (cur_is(&s, subnet_speed_name(sp)))
				break;
		if (sp == _SPEED_MAX)
			goto bad;
	}
	tp->width = width;
	tp->speed = (uint8_t)sp;
	return;
bad:
	topo_err(x, "unknown link width or speed '%s' (allowed: 1x 2x 4x 8x 12x with SDR DDR QDR "
		    "FDR10 FDR EDR HDR NDR XDR)", topo_show(w, show, sizeof(show)));
}

/*
 * A port line's comment. ibnetdiscover puts the far node's description in
 * quotes; a CA's own "lid N lmc M" comes before it, the link's "lid N 4xHDR"
 * after it. A comment without quotes is just a comment.
 */
static void port_comment(struct topo_ctx *x, struct cur c, uint32_t pi, struct topo_port *tp)
{
	const char *q1 = memchr(c.p, '"', (size_t)(c.end - c.p)), *q2 = last_quote(&c);
	struct cur post, w, tok;
	uint64_t lid;

	if (!q1 || q1 == q2)
		return;
	if (!subnet_is_switch(x->sn, x->sn->port[pi].node))
		comment_lid_lmc(x, (struct cur){ c.p, q1 }, pi);
	post = (struct cur){ q2 + 1, c.end };
	if (comment_num(post, "lid", &lid, &tok, &post) == 0 && cur_word(&post, &w))
		parse_rate(x, &w, tp);
}

/* "(hex)" after a port: a port GUID. */
static int paren_guid(struct topo_ctx *x, struct cur *c, const struct cur *line, uint64_t *guid)
{
	char show[96];
	int ret;

	cur_eat(c, '(');
	ret = topo_num(c, 16, guid);
	if (ret == 0 && cur_eat(c, ')') && *guid)
		return 0;
	if (ret == 0 && cur_eof(c))
		topo_err_open(x, line, "'('");
	else
		topo_err(x, "bad port GUID in '%s' (expected (<hex GUID>), not 0)",
			 topo_show(line, show, sizeof(show)));
	return -EINVAL;
}

/* ibnetdiscover -g adds "[ext N]" after a port number; it names a front panel port. */
static int skip_ext(struct topo_ctx *x, struct cur *c, const struct cur *line)
{
	static const char ext[] = "[ext ";
	char show[96];
	uint64_t v;

	if ((size_t)(c->end - c->p) < sizeof(ext) - 1 || memcmp(c->p, ext, sizeof(ext) - 1))
		return 0;
	c->p += sizeof(ext) - 1;
	if (topo_num(c, 10, &v) == 0 && cur_eat(c, ']'))
		return 0;
	if (cur_eof(c))
		topo_err_open(x, line, "'['");
	else
		topo_err(x, "bad '[ext N]' in '%s'", topo_show(line, show, sizeof(show)));
	return -EINVAL;
}

/* "[N]" after the far node's name: the far port, 1 to 254. */
static int remote_port(struct topo_ctx *x, struct cur *c, const struct cur *line, uint8_t *rport)
{
	char show[96];
	uint64_t v = 0;
	int ret;

	*rport = 1; /* ibsim's default when [N] is left out */
	if (!cur_eat(c, '['))
		return 0;
	ret = topo_num(c, 10, &v);
	if (ret == 0 && v >= 1 && v <= SUBNET_MAX_PORTS && cur_eat(c, ']')) {
		*rport = (uint8_t)v;
		return 0;
	}
	if (ret == 0 && cur_eof(c))
		topo_err_open(x, line, "'['");
	else
		topo_err(x, "bad remote port number in '%s' (allowed: 1 to %u)",
			 topo_show(line, show, sizeof(show)), SUBNET_MAX_PORTS);
	return -EINVAL;
}

static bool single_bit(uint64_t v)
{
	return v && !(v & (v - 1));
}

/*
 * ibsim's port options w=, s=, e=: the enabled width, speed and extended
 * speed masks (w=2 is 4x, s=4 QDR, e=4 HDR). The model holds active values,
 * so a mask sets one only when it has a single bit; then the link runs at it.
 */
static int port_options(struct topo_ctx *x, struct cur *c, struct topo_port *tp)
{
	static const uint8_t ext_speed[9] = { [1] = SPEED_FDR, [2] = SPEED_EDR, [4] = SPEED_HDR,
					      [8] = SPEED_NDR };
	static const uint8_t speed[5] = { [1] = SPEED_SDR, [2] = SPEED_DDR, [4] = SPEED_QDR };
	uint64_t w = x->width_en, s = x->speed_en, e = x->ext_en, v;
	bool hw = x->have_width_en, hs = x->have_speed_en, he = x->have_ext_en;
	struct cur o, n;
	char show[96];

	for (;;) {
		cur_ws(c);
		if (cur_eof(c) || cur_peek(c) == '#')
			break;
		o.p = c->p;
		while (c->p < c->end && *c->p != ' ' && *c->p != '\t' && *c->p != '#')
			c->p++;
		o.end = c->p;
		if (o.end - o.p < 2 || o.p[1] != '=' ||
		    (o.p[0] != 'w' && o.p[0] != 's' && o.p[0] != 'e')) {
			topo_err(x, "unexpected '%s' after the link (expected options w=, s=, e= "
				    "or a # comment)", topo_show(&o, show, sizeof(show)));
			return -EINVAL;
		}
		n = (struct cur){ o.p + 2, o.end };
		if (topo_num(&n, 0, &v) < 0 || !cur_eof(&n) ||
		    (o.p[0] == 'w' && (v < 1 || v > 31)) || (o.p[0] == 's' && v > 7) ||
		    (o.p[0] == 'e' && v > 15)) {
			topo_err(x, "bad port option '%s' (allowed: w=1 to 31, s=0 to 7, "
				    "e=0 to 15)", topo_show(&o, show, sizeof(show)));
			return -EINVAL;
		}
		if (o.p[0] == 'w') {
			w = v;
			hw = true;
		} else if (o.p[0] == 's') {
			s = v ? v : 4; /* ibsim: s=0 means QDR */
			hs = true;
		} else {
			e = v;
			he = true;
		}
	}
	if (hw && single_bit(w))
		tp->width = (uint8_t)w;
	if (he && single_bit(e))
		tp->speed = ext_speed[e];
	else if (hs && single_bit(s))
		tp->speed = speed[s];
	return 0;
}

/* Everything after "[N]": the port's own GUID, the far end, options, comment. */
static int port_rest(struct topo_ctx *x, struct cur *c, const struct cur *line, uint32_t pi,
		     struct topo_port *tp)
{
	bool sw = subnet_is_switch(x->sn, x->sn->port[pi].node);
	char show[96], who[600];
	struct cur name;
	const char *q;

	topo_node_str(x, x->sn->port[pi].node, who, sizeof(who));
	if (skip_ext(x, c, line) < 0)
		return -EINVAL;
	if (cur_peek(c) == '(') {
		if (paren_guid(x, c, line, &tp->guid) < 0)
			return -EINVAL;
		if (sw) {
			topo_err(x, "%s port %u: a switch port has no GUID of its own (all share "
				    "the switchguid)", who, x->sn->port[pi].num);
			return -EINVAL;
		}
	}
	cur_ws(c);
	if (!cur_eat(c, '"')) {
		topo_err(x, "missing quoted remote node name in '%s' (expected: [<port>] "
			    "\"<remote name>\"[<remote port>])",
			 topo_show(line, show, sizeof(show)));
		return -EINVAL;
	}
	q = memchr(c->p, '"', (size_t)(c->end - c->p));
	if (!q) {
		topo_err_open(x, line, "quote");
		return -EINVAL;
	}
	name = (struct cur){ c->p, q };
	c->p = q + 1;
	topo_copy(&name, x->name, sizeof(x->name));
	if (!x->name[0] || strchr(x->name, '@')) {
		topo_err(x, "%s: '%s'", x->name[0] ? "aliases ('@') are not supported"
			 : "empty remote node name", topo_show(line, show, sizeof(show)));
		return -EINVAL;
	}
	if (remote_port(x, c, line, &tp->rport) < 0 || skip_ext(x, c, line) < 0)
		return -EINVAL;
	cur_ws(c);
	if (cur_peek(c) == '(' && paren_guid(x, c, line, &tp->rguid) < 0)
		return -EINVAL;
	if (port_options(x, c, tp) < 0)
		return -EINVAL;
	if (cur_eat(c, '#'))
		port_comment(x, *c, pi, tp);
	return topo_name_add(x, x->name, &tp->rname);
}

int topo_port_line(struct topo_ctx *x, struct cur *c, const struct cur *line)
{
	const struct subnet_node *nd = &x->sn->node[x->rec_node];
	char show[96], who[600], at[600];
	struct topo_port *tp;
	uint64_t v = 0;
	int ret;

	topo_node_str(x, x->rec_node, who, sizeof(who));
	cur_eat(c, '[');
	ret = topo_num(c, 10, &v);
	if (ret == 0 && cur_eof(c)) {
		topo_err_open(x, line, "'['");
		return 0;
	}
	if (ret < 0 || !cur_eat(c, ']')) {
		topo_err(x, "bad port number in '%s' (expected: [<port>] \"<remote name>\"[<remote "
			    "port>])", topo_show(line, show, sizeof(show)));
		return 0;
	}
	if (v == 0) {
		if (nd->type == NODE_SWITCH)
			topo_err(x, "port 0 of %s is its management port and cannot be linked",
				 who);
		else
			topo_err(x, "port 0 of %s: CA and router ports are numbered from 1", who);
		return 0;
	}
	if (v > nd->nports) {
		topo_err(x, "port %" PRIu64 " is beyond the %u ports of %s (%s)", v, nd->nports,
			 who, topo_where(x, x->file, x->node_file[x->rec_node], nd->src_line, at,
					 sizeof(at)));
		return 0;
	}
	tp = &x->port[nd->port_base + v];
	if (tp->flags & TP_LISTED) {
		topo_err(x, "port %" PRIu64 " of %s is listed twice (first at %s)", v, who,
			 topo_where(x, x->file, tp->file, tp->line, at, sizeof(at)));
		return 0;
	}
	*tp = (struct topo_port){ .flags = TP_LISTED | TP_BAD, .line = x->line,
				  .file = (uint16_t)x->file };
	ret = port_rest(x, c, line, nd->port_base + (uint32_t)v, tp);
	if (ret == 0)
		tp->flags = TP_LISTED;
	return ret == -ENOMEM ? ret : 0;
}

/*
 * The comment after a node header. ibnetdiscover quotes the description,
 * which may itself hold quotes or '#', so it runs to the last quote; ibsim
 * also takes it unquoted, up to " enhanced port ", " base port ", " lid " or
 * " lmc ". *rest is what follows: a switch's "port 0 lid N lmc M".
 */
static int header_comment(struct topo_ctx *x, struct cur c, const struct cur *line,
			  struct cur *desc, struct cur *rest)
{
	static const char *const mark[] = { " enhanced port ", " base port ", " lid ", " lmc " };
	const char *q, *e = c.end;

	cur_ws(&c);
	if (cur_eat(&c, '"')) {
		q = last_quote(&c);
		if (!q) {
			topo_err_open(x, line, "quote");
			return -EINVAL;
		}
		*desc = (struct cur){ c.p, q };
		*rest = (struct cur){ q + 1, c.end };
		return 0;
	}
	for (size_t i = 0; i < sizeof(mark) / sizeof(mark[0]) && e == c.end; i++)
		e = cur_find(&c, mark[i]);
	*desc = (struct cur){ c.p, e };
	while (desc->end > desc->p && (desc->end[-1] == ' ' || desc->end[-1] == '\t'))
		desc->end--;
	*rest = (struct cur){ e, c.end };
	return 0;
}

/* Parse a header into x->name, x->desc, *nports and *rest; report what is wrong. */
static int header_parse(struct topo_ctx *x, const char *kw, struct cur *c,
			const struct cur *line, uint64_t *nports, struct cur *rest)
{
	struct cur cnt, desc = { c->end, c->end };
	bool bad = false;
	char show[96];
	const char *q;
	int ret;

	x->name[0] = x->desc[0] = '\0';
	*rest = desc;
	cur_ws(c);
	cnt = *c;
	ret = topo_num(c, 0, nports);
	cnt.end = c->p;
	cur_ws(c);
	if (!cur_eat(c, '"')) {
		topo_err(x, "missing quoted node name in '%s' (expected: %s <ports> \"<name>\")",
			 topo_show(line, show, sizeof(show)), kw);
		return -EINVAL;
	}
	q = memchr(c->p, '"', (size_t)(c->end - c->p));
	if (!q) {
		topo_err_open(x, line, "quote");
		return -EINVAL;
	}
	topo_copy(&(struct cur){ c->p, q }, x->name, sizeof(x->name));
	c->p = q + 1;
	if (ret == -ENOENT) {
		topo_err(x, "missing port count in '%s' (expected: %s <ports> \"<name>\")",
			 topo_show(line, show, sizeof(show)), kw);
		bad = true;
	} else if (ret < 0 || *nports == 0 || *nports > SUBNET_MAX_PORTS) {
		topo_err(x, "bad port count '%s' for %s \"%s\" (allowed: 1 to %u)",
			 topo_show(&cnt, show, sizeof(show)), kw, x->name, SUBNET_MAX_PORTS);
		bad = true;
	}
	if (!x->name[0]) {
		topo_err(x, "empty node name in '%s'", topo_show(line, show, sizeof(show)));
		bad = true;
	} else if ((q = strpbrk(x->name, "#@"))) {
		topo_err(x, "node name \"%s\" contains '%c' ('#' and '@' are reserved, as in "
			    "ibsim)", x->name, *q);
		bad = true;
	}
	cur_ws(c);
	if (cur_eat(c, '#')) {
		if (header_comment(x, *c, line, &desc, rest) < 0)
			bad = true;
	} else if (!cur_eof(c)) {
		topo_err(x, "unexpected '%s' after the node name (expected a # comment)",
			 topo_show(c, show, sizeof(show)));
		bad = true;
	}
	topo_copy(&desc, x->desc, sizeof(x->desc));
	return bad ? -EINVAL : 0;
}

/* A new node's name and GUID must be its own. */
static int header_check(struct topo_ctx *x, enum node_type type, uint64_t guid)
{
	static const char *const guid_key[] = { [NODE_CA] = "caguid", [NODE_SWITCH] = "switchguid",
						[NODE_ROUTER] = "rtguid" };
	uint32_t o = subnet_find_name(x->sn, x->name);
	char at[600], who[600];

	if (o != SUBNET_NONE) {
		topo_err(x, "node name \"%s\" is already used by the %s at %s", x->name,
			 subnet_type_name(x->sn->node[o].type),
			 topo_where(x, x->file, x->node_file[o], x->sn->node[o].src_line, at,
				    sizeof(at)));
		return -EEXIST;
	}
	if (!guid) {
		topo_err(x, "%s \"%s\" would get GUID 0 (give it one with %s=)",
			 subnet_type_name(type), x->name, guid_key[type]);
		return -EINVAL;
	}
	o = subnet_find_guid(x->sn, guid);
	if (o != SUBNET_NONE) {
		topo_err(x, "%s \"%s\" has GUID 0x%016" PRIx64 ", already used by %s (%s)",
			 subnet_type_name(type), x->name, guid,
			 topo_node_str(x, o, who, sizeof(who)),
			 topo_where(x, x->file, x->node_file[o], x->sn->node[o].src_line, at,
				    sizeof(at)));
		return -EINVAL;
	}
	return 0;
}

/*
 * A node header starts a record. The node takes the next GUID of its type,
 * as in ibsim's new_node(): a switch uses one, a CA or router nports + 1
 * (its node GUID and one a port).
 */
int topo_header(struct topo_ctx *x, enum node_type type, const char *kw, struct cur *c,
		const struct cur *line)
{
	uint64_t sysguid = x->sysguid, port0 = x->port0_guid, guid = x->guid_next[type], nports;
	uint32_t vendid = x->vendid, ni;
	struct subnet_node *nd;
	struct cur rest;
	int ret;

	x->sysguid = x->port0_guid = 0;
	x->vendid = 0;
	x->headers++;
	x->rec = REC_SKIP;
	ret = header_parse(x, kw, c, line, &nports, &rest);
	if (ret == 0)
		ret = header_check(x, type, guid);
	if (ret < 0) {
		/* Links to a refused node are not reported again. */
		if (ret != -EEXIST && x->name[0])
			topo_bad_name(x, x->name);
		return x->oom ? -ENOMEM : 0;
	}
	if (x->sn->n_ports + nports + 1 > TOPO_PORTS_MAX) {
		if (!x->too_big)
			topo_err(x, "more than %u ports in all: too large for a fabric",
				 TOPO_PORTS_MAX);
		x->too_big = true;
		topo_bad_name(x, x->name);
		return x->oom ? -ENOMEM : 0;
	}
	ret = subnet_add_node(x->sn, type, (uint8_t)nports, guid, x->name,
			      x->desc[0] ? x->desc : NULL, &ni);
	if (ret < 0 || topo_grow(x) < 0) {
		topo_nomem(x);
		return -ENOMEM;
	}
	x->guid_next[type] += type == NODE_SWITCH ? 1 : nports + 1;
	nd = &x->sn->node[ni];
	nd->vendor_id = vendid;
	nd->device_id = x->devid;
	nd->src_line = x->line;
	if (sysguid)
		nd->sysguid = sysguid;
	x->node_file[ni] = (uint16_t)x->file;
	x->rec = REC_NODE;
	x->rec_node = ni;
	if (type != NODE_SWITCH)
		return 0;
	if (port0 && port0 != guid) {
		ret = topo_set_port_guid(x, nd->port_base, port0, x->file, x->line);
		if (ret == -ENOMEM)
			return ret;
		if (ret == 0)
			nd->port0_guid = port0;
	}
	comment_lid_lmc(x, rest, nd->port_base);
	/* "enhanced port 0" (ibnetdiscover, ibsim; else "base port 0"): SwitchInfo:EnhancedPort0. */
	if (cur_find(&rest, "enhanced port 0") != rest.end)
		x->sn->port[nd->port_base].flags |= SUBNET_PORT_ENHANCED0;
	return 0;
}

/*
 * The end of a record: give ports the GUIDs their lines named. All of the
 * node's explicit GUIDs leave the table first, so a CA whose port 1 takes
 * what was port 2's default GUID is no clash.
 */
void topo_rec_close(struct topo_ctx *x)
{
	const struct subnet_node *nd;

	if (x->rec != REC_NODE) {
		x->rec = REC_NONE;
		return;
	}
	x->rec = REC_NONE;
	nd = &x->sn->node[x->rec_node];
	for (unsigned n = 1; n <= nd->nports; n++) {
		const struct topo_port *tp = &x->port[nd->port_base + n];

		if (tp->guid && tp->flags == TP_LISTED)
			subnet_set_port_guid(x->sn, nd->port_base + n, 0);
	}
	for (unsigned n = 1; n <= nd->nports; n++) {
		const struct topo_port *tp = &x->port[nd->port_base + n];

		if (!tp->guid || tp->flags != TP_LISTED)
			continue;
		if (topo_set_port_guid(x, nd->port_base + n, tp->guid, tp->file, tp->line) ==
		    -ENOMEM)
			return;
	}
}
