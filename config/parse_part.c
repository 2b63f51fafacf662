/* SPDX-License-Identifier: MIT */
/* The partitions: section: a list of partitions, each with its members. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <iba/ib_types.h>

#include "config/config_priv.h"
#include "lib/array.h"
#include "lib/cleanup.h"

/* The groups a "group:" (or a bare word) may name: the kinds from ALL on. */
#define GROUP_FIRST CONFIG_MEMBER_ALL

/* What the parser saw of the partition being parsed (the last one). */
static struct pseen_part *seen_of(struct pctx *p)
{
	return &p->seen.part[p->c->n_parts - 1];
}

/* ---- one member ------------------------------------------------------------ */

struct pmember {
	struct config_member m;
	const struct ynode *who; /* the guid:, node: or group: value given first */
	const char *who_key;
	unsigned n_who;
};

static void who_seen(struct pctx *p, const struct ynode *v, struct pmember *pm,
		     const char *key)
{
	if (pm->n_who++) {
		perr(p, v,
		     "this member is already given by %s (line %u, column %u); "
		     "give one of guid, node or group",
		     pm->who_key, pm->who->line, pm->who->col);
		return;
	}
	pm->who = v;
	pm->who_key = key;
}

static void mb_guid(struct pctx *p, const struct ynode *v, void *obj)
{
	struct pmember *pm = obj;

	who_seen(p, v, pm, "guid");
	if (parse_guid(p, v, &pm->m.guid))
		pm->m.kind = CONFIG_MEMBER_GUID;
}

static void mb_node(struct pctx *p, const struct ynode *v, void *obj)
{
	struct pmember *pm = obj;

	who_seen(p, v, pm, "node");
	free(pm->m.node);
	pm->m.node = NULL;
	if (parse_string(p, v, CONFIG_NODE_NAME_MAX, &pm->m.node))
		pm->m.kind = CONFIG_MEMBER_NODE;
}

static void mb_group(struct pctx *p, const struct ynode *v, void *obj)
{
	struct pmember *pm = obj;
	unsigned g;

	who_seen(p, v, pm, "group");
	if (parse_word(p, v, config_member_kind_names + GROUP_FIRST,
		       _CONFIG_MEMBER_MAX - GROUP_FIRST, &g))
		pm->m.kind = (enum config_member_kind)(GROUP_FIRST + g);
}

static void mb_membership(struct pctx *p, const struct ynode *v, void *obj)
{
	static const char *const names[] = { "full", "limited" };
	unsigned limited;

	if (parse_word(p, v, names, 2, &limited))
		((struct pmember *)obj)->m.full = !limited;
}

/* A bare string: a group's word, 0x... a port GUID, anything else a node name. */
static bool member_scalar(struct pctx *p, const struct ynode *v, struct pmember *pm)
{
	const char *s = ynode_text(p->t, v);

	if (!parse_scalar(p, v, "a member"))
		return false;
	for (unsigned g = GROUP_FIRST; g < _CONFIG_MEMBER_MAX; g++) {
		if (!strcmp(s, config_member_kind_names[g])) {
			pm->m.kind = (enum config_member_kind)g;
			return true;
		}
	}
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		pm->m.kind = CONFIG_MEMBER_GUID;
		return parse_guid(p, v, &pm->m.guid);
	}
	pm->m.kind = CONFIG_MEMBER_NODE;
	return parse_string(p, v, CONFIG_NODE_NAME_MAX, &pm->m.node);
}

static bool member_parse(struct pctx *p, const struct ynode *v, struct pmember *pm)
{
	static const struct pfield f[] = {
		{ "guid", mb_guid },
		{ "node", mb_node },
		{ "group", mb_group },
		{ "membership", mb_membership },
	};
	unsigned before = p->errors;

	pm->m.full = true;
	pm->m.at = (struct config_mark){ v->line, v->col };
	pm->m.kind = _CONFIG_MEMBER_MAX;
	if (v->type != YNODE_MAP)
		return member_scalar(p, v, pm);
	parse_map(p, v, f, ARRAY_SIZE(f), pm);
	if (!pm->n_who)
		perr(p, v, "names no port: give one of guid, node or group");
	return p->errors == before && pm->m.kind != _CONFIG_MEMBER_MAX;
}

static void pt_members(struct pctx *p, const struct ynode *v, void *obj)
{
	struct config_partition *pt = obj;
	uint32_t cap = 0, i = 0;

	seen_of(p)->members = v;
	if (!parse_seq(p, v))
		return;
	for (const struct ynode *e = ynode_at(p->t, v->first); e;
	     e = ynode_at(p->t, e->next), i++) {
		size_t old = path_push(p, "[%u]", i);
		struct pmember pm = { 0 };

		if (!member_parse(p, e, &pm)) {
			free(pm.m.node);
		} else if (array_grow((void **)&pt->member, &cap, pt->n_members + 1,
				      sizeof(*pt->member)) < 0) {
			free(pm.m.node);
			p->nomem = true;
		} else {
			pt->member[pt->n_members++] = pm.m;
		}
		path_pop(p, old);
	}
}

/* ---- one partition --------------------------------------------------------- */

static void pt_name(struct pctx *p, const struct ynode *v, void *obj)
{
	struct config_partition *pt = obj;
	char q[64];

	seen_of(p)->name = v;
	if (!parse_string(p, v, CONFIG_NAME_MAX, &pt->name))
		return;
	if (strspn(pt->name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") !=
	    v->len) {
		perr(p, v, "%s is not a partition name (allowed: letters, digits, '.', '_', '-')",
		     parse_quote(p, v, q, sizeof(q)));
		free(pt->name);
		pt->name = NULL;
	}
}

static void pt_pkey(struct pctx *p, const struct ynode *v, void *obj)
{
	struct config_partition *pt = obj;
	char q[64];
	uint64_t x;

	seen_of(p)->pkey = v;
	if (v->type == YNODE_SCALAR && units_uint(ynode_text(p->t, v), &x) == 0 && x >= 0x8000 &&
	    x <= 0xffff) {
		perr(p, v, "%s has the membership bit (0x8000) set; write the 15-bit P_Key "
			   "0x%04llx and give membership per member (allowed: 0x0001-0x7ffe)",
		     parse_quote(p, v, q, sizeof(q)), (unsigned long long)(x & 0x7fff));
		return;
	}
	/* 0x7fff is the default partition's; validate.c checks who uses it. */
	if (parse_hex(p, v, 1, CONFIG_PKEY_DEFAULT, 4, &x)) {
		pt->pkey = (uint16_t)x;
		pt->pkey_auto = false;
	}
}

static void pt_sl(struct pctx *p, const struct ynode *v, void *obj)
{
	uint64_t x;

	if (parse_uint(p, v, 0, 15, &x))
		((struct config_partition *)obj)->sl = (uint8_t)x;
}

static void pt_ipoib(struct pctx *p, const struct ynode *v, void *obj)
{
	parse_bool(p, v, &((struct config_partition *)obj)->ipoib);
}

static void pt_mtu(struct pctx *p, const struct ynode *v, void *obj)
{
	char q[64];

	if (!parse_scalar(p, v, "an MTU"))
		return;
	if (units_mtu(ynode_text(p->t, v), &((struct config_partition *)obj)->mtu) < 0)
		perr(p, v, "%s is not an IB MTU (allowed: %s)", parse_quote(p, v, q, sizeof(q)),
		     units_mtu_allowed);
	else
		seen_of(p)->mtu = v;
}

static void pt_rate(struct pctx *p, const struct ynode *v, void *obj)
{
	char q[64];

	if (!parse_scalar(p, v, "a rate"))
		return;
	if (units_rate(ynode_text(p->t, v), &((struct config_partition *)obj)->rate) < 0)
		perr(p, v, "%s is not an IB rate (allowed: %s)", parse_quote(p, v, q, sizeof(q)),
		     units_rate_allowed);
	else
		seen_of(p)->rate = v;
}

static void pt_qkey(struct pctx *p, const struct ynode *v, void *obj)
{
	uint64_t x;

	if (!parse_hex(p, v, 0, UINT32_MAX, 8, &x))
		return;
	((struct config_partition *)obj)->qkey = (uint32_t)x;
	seen_of(p)->qkey = v;
}

static void partition_parse(struct pctx *p, const struct ynode *v, struct config_partition *pt)
{
	static const struct pfield f[] = {
		{ "name", pt_name }, { "pkey", pt_pkey }, { "sl", pt_sl },
		{ "ipoib", pt_ipoib }, { "mtu", pt_mtu },   { "rate", pt_rate },
		{ "qkey", pt_qkey }, { "members", pt_members },
	};
	const struct ynode *members;
	uint32_t mask;

	mask = parse_map(p, v, f, ARRAY_SIZE(f), pt);
	if (v->type != YNODE_MAP && !parse_is_null(p, v))
		return; /* parse_map said what it is instead */
	members = seen_of(p)->members;
	if (!(mask & 1u << 0))
		perr_key(p, v, "name", "missing; every partition needs a name");
	if (!(mask & 1u << 7))
		perr_key(p, v, "members", "missing; list the ports of the partition");
	else if ((members->type == YNODE_SEQ && !members->n) || parse_is_null(p, members))
		perr_key(p, members, "members", "empty; list the ports of the partition");
}

static int part_add(struct pctx *p)
{
	struct config *c = p->c;
	uint32_t cap = p->seen.cap_parts;

	if (array_grow((void **)&p->seen.part, &p->seen.cap_parts, c->n_parts + 1,
		       sizeof(*p->seen.part)) < 0 ||
	    array_grow((void **)&c->part, &cap, c->n_parts + 1, sizeof(*c->part)) < 0)
		return -ENOMEM;
	config_partition_default(&c->part[c->n_parts]);
	c->n_parts++;
	return 0;
}

void parse_partitions(struct pctx *p, const struct ynode *v, void *obj)
{
	struct config *c = obj;
	uint32_t i = 0;

	if (!parse_seq(p, v))
		return;
	if (v->n > CONFIG_PKEY_DEFAULT) {
		perr(p, v, "%u partitions is more than there are P_Keys (allowed: up to %u)", v->n,
		     CONFIG_PKEY_DEFAULT);
		return;
	}
	for (const struct ynode *e = ynode_at(p->t, v->first); e;
	     e = ynode_at(p->t, e->next), i++) {
		size_t old = path_push(p, "[%u]", i);

		if (part_add(p) < 0) {
			p->nomem = true;
			return;
		}
		p->seen.part[c->n_parts - 1].at = e;
		c->part[c->n_parts - 1].at = (struct config_mark){ e->line, e->col };
		partition_parse(p, e, &c->part[c->n_parts - 1]);
		path_pop(p, old);
	}
}
