/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cleanup.h"
#include "plan/pkey.h"

#define PKEY_FULL 0x8000

/* A CA or router port that is linked, or a switch's port 0: the ports that hold LIDs. */
static bool end_port(const struct subnet *sn, uint32_t p)
{
	const struct subnet_port *sp = &sn->port[p];

	if (subnet_is_switch(sn, sp->node))
		return sp->num == 0;
	return sp->num > 0 && sp->peer != SUBNET_NONE;
}

/* Membership of one partition: 0 none, 1 limited, 2 full, per port. */
static unsigned mark(uint8_t *m, uint32_t p, bool full)
{
	uint8_t v = full ? 2 : 1;

	if (m[p] < v)
		m[p] = v;
	return 1;
}

static unsigned match(const struct subnet *sn, const struct config_member *mb, uint32_t sm_port,
		      uint8_t *m)
{
	unsigned n = 0;

	switch (mb->kind) {
	case CONFIG_MEMBER_GUID:
		for (uint32_t p = 0; p < sn->n_ports; p++) {
			const struct subnet_node *nd = &sn->node[sn->port[p].node];
			uint64_t g = nd->type == NODE_SWITCH ? nd->port0_guid : sn->port[p].guid;

			if (end_port(sn, p) && g == mb->guid)
				n += mark(m, p, mb->full);
		}
		break;
	case CONFIG_MEMBER_NODE:
		for (uint32_t p = 0; p < sn->n_ports; p++)
			if (end_port(sn, p) &&
			    !strcmp(subnet_str(sn, sn->node[sn->port[p].node].desc), mb->node))
				n += mark(m, p, mb->full);
		break;
	case CONFIG_MEMBER_ALL:
	case CONFIG_MEMBER_ALL_CAS:
	case CONFIG_MEMBER_ALL_SWITCHES:
		for (uint32_t p = 0; p < sn->n_ports; p++) {
			bool sw = subnet_is_switch(sn, sn->port[p].node);

			if (!end_port(sn, p) || (mb->kind == CONFIG_MEMBER_ALL_CAS && sw) ||
			    (mb->kind == CONFIG_MEMBER_ALL_SWITCHES && !sw))
				continue;
			n += mark(m, p, mb->full);
		}
		break;
	case CONFIG_MEMBER_SELF:
		if (sm_port < sn->n_ports)
			n += mark(m, sm_port, mb->full);
		break;
	default:
		break;
	}
	return n;
}

static int cmp_key(const void *a, const void *b)
{
	uint16_t x = *(const uint16_t *)a & 0x7fff, y = *(const uint16_t *)b & 0x7fff;

	return x < y ? -1 : x > y;
}

/* Every port's keys: default partition's first, the others by P_Key. */
static int collect(const struct subnet *sn, const struct config *c, uint32_t sm_port,
		   uint16_t **keys, uint32_t *cnt, struct diag *msgs)
{
	_cleanup_free_ uint8_t *m = malloc(sn->n_ports ? sn->n_ports : 1);

	if (!m)
		return -ENOMEM;
	for (uint32_t k = 0; k < c->n_parts; k++) {
		const struct config_partition *pt = &c->part[k];

		memset(m, 0, sn->n_ports);
		for (uint32_t j = 0; j < pt->n_members; j++)
			if (!match(sn, &pt->member[j], sm_port, m))
				diag_add(msgs, c->file, pt->member[j].at.line, pt->member[j].at.col,
					 "partitions.%s: member matches no port of the fabric; "
					 "the partition goes on without it", pt->name);
		for (uint32_t p = 0; p < sn->n_ports; p++) {
			uint16_t *nk;

			if (!m[p])
				continue;
			nk = realloc(keys[p], (cnt[p] + 1) * sizeof(*nk));
			if (!nk)
				return -ENOMEM;
			keys[p] = nk;
			keys[p][cnt[p]++] = (uint16_t)(pt->pkey | (m[p] == 2 ? PKEY_FULL : 0));
		}
	}
	for (uint32_t p = 0; p < sn->n_ports; p++) {
		uint32_t d = 0;

		for (uint32_t i = 0; i < cnt[p]; i++)
			if ((keys[p][i] & 0x7fff) == CONFIG_PKEY_DEFAULT)
				d = i + 1;
		if (d > 1) { /* the default partition's key to index 0 */
			uint16_t t = keys[p][0];

			keys[p][0] = keys[p][d - 1];
			keys[p][d - 1] = t;
		}
		if (cnt[p] > 1)
			qsort(keys[p] + (d ? 1 : 0), cnt[p] - (d ? 1 : 0), sizeof(uint16_t), cmp_key);
	}
	return 0;
}

static int flatten(const struct subnet *sn, uint16_t **keys, const uint32_t *cnt,
		   struct pkey_plan *out)
{
	uint32_t total = 0;

	out->off = calloc((size_t)sn->n_ports + 1, sizeof(*out->off));
	out->enforce = calloc(sn->n_ports ? sn->n_ports : 1, 1);
	if (!out->off || !out->enforce)
		return -ENOMEM;
	for (uint32_t p = 0; p < sn->n_ports; p++) {
		out->off[p] = total;
		total += cnt[p];
	}
	out->off[sn->n_ports] = total;
	out->key = malloc((total ? total : 1) * sizeof(*out->key));
	if (!out->key)
		return -ENOMEM;
	for (uint32_t p = 0; p < sn->n_ports; p++)
		if (cnt[p])
			memcpy(out->key + out->off[p], keys[p], cnt[p] * sizeof(uint16_t));
	return 0;
}

int pkey_plan_build(const struct subnet *sn, const struct config *c, uint32_t sm_port,
		    struct pkey_plan *out, struct diag *msgs)
{
	uint16_t **keys = calloc(sn->n_ports ? sn->n_ports : 1, sizeof(*keys));
	uint32_t *cnt = calloc(sn->n_ports ? sn->n_ports : 1, sizeof(*cnt));
	struct pkey_plan p = { 0 };
	int r = keys && cnt ? 0 : -ENOMEM;

	if (r == 0)
		r = collect(sn, c, sm_port, keys, cnt, msgs);
	/* A switch port facing a CA port holds the CA's keys, and enforces them. */
	for (uint32_t i = 0; r == 0 && i < sn->n_ports; i++) {
		const struct subnet_port *sp = &sn->port[i];
		uint32_t peer = sp->peer;

		if (!subnet_is_switch(sn, sp->node) || !sp->num || peer == SUBNET_NONE ||
		    subnet_is_switch(sn, sn->port[peer].node) || !cnt[peer])
			continue;
		keys[i] = malloc(cnt[peer] * sizeof(uint16_t));
		if (!keys[i]) {
			r = -ENOMEM;
			break;
		}
		memcpy(keys[i], keys[peer], cnt[peer] * sizeof(uint16_t));
		cnt[i] = cnt[peer];
	}
	if (r == 0)
		r = flatten(sn, keys, cnt, &p);
	/*
	 * Enforcement filters only where it can drop something: a port whose
	 * one key is the full default (0xffff) takes every packet anyway.
	 */
	for (uint32_t i = 0; r == 0 && i < sn->n_ports; i++) {
		const struct subnet_port *sp = &sn->port[i];
		bool only_default = cnt[i] == 1 && keys[i][0] == (PKEY_FULL | CONFIG_PKEY_DEFAULT);

		p.enforce[i] = cnt[i] && !only_default && subnet_is_switch(sn, sp->node) && sp->num > 0;
	}
	for (uint32_t i = 0; keys && i < sn->n_ports; i++)
		free(keys[i]);
	free(keys);
	free(cnt);
	if (r < 0) {
		pkey_plan_free(&p);
		return r;
	}
	*out = p;
	return 0;
}

void pkey_plan_free(struct pkey_plan *p)
{
	free(p->off);
	free(p->key);
	free(p->enforce);
	memset(p, 0, sizeof(*p));
}
