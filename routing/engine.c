/* SPDX-License-Identifier: MIT */
/* The engine registry and what every engine needs before it routes. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "lib/cleanup.h"
#include "route.h"

/*
 * Indexed by loom.yaml's enum config_engine, whose names (config/names.c)
 * are the one list of engine names: config/ is below routing/ and must name
 * the engines itself to check the keys only one engine takes (vls for
 * vlayered, roots for updn and ftree, file for file), so the list lives
 * there and this registry follows it. An engine config does not know does
 * not fit here, one it knows and this lacks is a NULL, and each engine's
 * .name is checked against config_engine_names (tests/unit/routing_test.c).
 */
static const struct route_engine *const engines[_CONFIG_ENGINE_MAX] = {
	[CONFIG_ENGINE_MINHOP] = &route_minhop,
	[CONFIG_ENGINE_UPDN] = &route_updn,
	[CONFIG_ENGINE_FTREE] = &route_ftree,
	[CONFIG_ENGINE_VLAYERED] = &route_vlayered,
	[CONFIG_ENGINE_FILE] = &route_file,
};

const struct route_engine *route_engine_find(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(engines); i++)
		if (!strcmp(engines[i]->name, name))
			return engines[i];
	return NULL;
}

const struct route_engine *const *route_engine_list(size_t *n)
{
	*n = ARRAY_SIZE(engines);
	return engines;
}

void route_why_set(struct route_why *why, const char *fmt, ...)
{
	va_list ap;

	if (!why)
		return;
	va_start(ap, fmt);
	vsnprintf(why->msg, sizeof(why->msg), fmt, ap);
	va_end(ap);
}

void route_out_free(struct route_out *out)
{
	if (!out)
		return;
	free(out->sw_node);
	free(out->sw_index);
	free(out->lft);
	free(out->sl);
	memset(out, 0, sizeof(*out));
}

static void route_out_freep(struct route_out *out)
{
	route_out_free(out);
}

/* Is this port one that holds LIDs of its own? */
static bool port_has_lids(const struct subnet *sn, const struct subnet_port *p)
{
	if (!p->lid)
		return false;
	if (subnet_is_switch(sn, p->node))
		return p->num == 0; /* external switch ports share port 0's LID */
	return p->num != 0;         /* a CA's port 0 is a placeholder */
}

/* Where a LID-bearing port's traffic leaves the switches: the switch and port. */
static void dest_attach(const struct subnet *sn, const struct route_out *out,
			struct route_dest *d)
{
	const struct subnet_port *p = &sn->port[d->port];
	const struct subnet_port *peer;

	d->sw = SUBNET_NONE;
	d->sw_port = ROUTE_DROP;
	if (subnet_is_switch(sn, p->node)) {
		d->sw = out->sw_index[p->node];
		d->sw_port = 0;
		return;
	}
	if (p->peer == SUBNET_NONE)
		return;
	peer = &sn->port[p->peer];
	if (!subnet_is_switch(sn, peer->node))
		return; /* back-to-back CAs: no switch routes to it */
	d->sw = out->sw_index[peer->node];
	d->sw_port = peer->num;
}

static void port_name(const struct subnet *sn, uint32_t port, char *buf, size_t len)
{
	const struct subnet_port *p = &sn->port[port];

	snprintf(buf, len, "\"%s\" port %u", subnet_str(sn, sn->node[p->node].name), p->num);
}

/* Check one port's LID range; on success bump *max to its top LID. */
static int dest_check(const struct subnet *sn, const struct route_opts *o, uint32_t port,
		      uint32_t *max, struct route_why *why)
{
	const struct subnet_port *p = &sn->port[port];
	uint32_t top = (uint32_t)p->lid + (1u << (p->lmc & 7)) - 1;
	char name[160];

	port_name(sn, port, name, sizeof(name));
	if (p->lmc > ROUTE_LMC_MAX || p->lmc > o->lmc) {
		route_why_set(why, "%s has LMC %u, more than the %u routing was asked for", name,
			      p->lmc, o->lmc);
		return -EINVAL;
	}
	if (p->lid & ((1u << p->lmc) - 1)) {
		route_why_set(why, "%s: base LID %u is not a multiple of 2^LMC (LMC %u)", name,
			      p->lid, p->lmc);
		return -EINVAL;
	}
	if (top > SUBNET_LID_UCAST_END) {
		route_why_set(why, "%s: LIDs %u-%u leave the unicast range 1-%u", name, p->lid,
			      top, SUBNET_LID_UCAST_END);
		return -EINVAL;
	}
	if (top > *max)
		*max = top;
	return 0;
}

/* Fill owner[lid] with the port holding each LID; -EINVAL on a clash. */
static int lid_owners(const struct subnet *sn, const struct route_dest *d, uint32_t n,
		      uint32_t *owner, struct route_why *why)
{
	char a[160], b[160];

	for (uint32_t i = 0; i < n; i++) {
		for (uint32_t l = d[i].lid; l < (uint32_t)d[i].lid + d[i].nlids; l++) {
			if (owner[l] == SUBNET_NONE) {
				owner[l] = d[i].port;
				continue;
			}
			port_name(sn, owner[l], a, sizeof(a));
			port_name(sn, d[i].port, b, sizeof(b));
			route_why_set(why, "LID %u is held by both %s and %s", l, a, b);
			return -EINVAL;
		}
	}
	return 0;
}

int route_out_number(const struct subnet *sn, struct route_out *out)
{
	out->sw_index = malloc(((size_t)sn->n_nodes + 1) * sizeof(*out->sw_index));
	out->sw_node = malloc(((size_t)sn->n_nodes + 1) * sizeof(*out->sw_node));
	if (!out->sw_index || !out->sw_node)
		return -ENOMEM;
	for (uint32_t i = 0; i < sn->n_nodes; i++) {
		out->sw_index[i] = SUBNET_NONE;
		if (subnet_is_switch(sn, i)) {
			out->sw_node[out->n_sw] = i;
			out->sw_index[i] = out->n_sw++;
		}
	}
	return 0;
}

int route_out_rows(struct route_out *out, uint32_t max)
{
	out->max_lid = (uint16_t)max;
	out->lft = malloc((size_t)out->n_sw * (max + 1) + 1);
	if (!out->lft)
		return -ENOMEM;
	memset(out->lft, ROUTE_DROP, (size_t)out->n_sw * (max + 1));
	return 0;
}

/* The LID-bearing ports, checked, in port order (later sorted by LID). */
static int collect_dests(const struct subnet *sn, const struct route_opts *o,
			 struct route_dest **dests, uint32_t *n, uint32_t *max,
			 struct route_why *why)
{
	_cleanup_free_ struct route_dest *d = NULL;
	uint32_t cnt = 0;
	int r;

	for (uint32_t i = 0; i < sn->n_ports; i++)
		cnt += port_has_lids(sn, &sn->port[i]);
	if (!cnt) {
		route_why_set(why, "no port has a LID: assign LIDs before routing");
		return -EINVAL;
	}
	d = calloc(cnt, sizeof(*d));
	if (!d)
		return -ENOMEM;
	cnt = 0;
	for (uint32_t i = 0; i < sn->n_ports; i++) {
		if (!port_has_lids(sn, &sn->port[i]))
			continue;
		r = dest_check(sn, o, i, max, why);
		if (r < 0)
			return r;
		d[cnt].port = i;
		d[cnt].lid = sn->port[i].lid;
		d[cnt].nlids = (uint16_t)(1u << sn->port[i].lmc);
		cnt++;
	}
	*dests = TAKE_PTR(d);
	*n = cnt;
	return 0;
}

int route_out_init(const struct subnet *sn, const struct route_opts *o, struct route_out *out,
		   struct route_dest **dests, uint32_t *n_dests, struct route_why *why)
{
	_cleanup_(route_out_freep) struct route_out res = { 0 };
	_cleanup_free_ struct route_dest *d = NULL;
	_cleanup_free_ uint32_t *owner = NULL;
	uint32_t n = 0, max = 0, k = 0;
	int r;

	r = collect_dests(sn, o, &d, &n, &max, why);
	if (r < 0)
		return r;
	owner = malloc(((size_t)max + 1) * sizeof(*owner));
	if (!owner)
		return -ENOMEM;
	memset(owner, 0xff, ((size_t)max + 1) * sizeof(*owner)); /* SUBNET_NONE */
	r = lid_owners(sn, d, n, owner, why);
	if (r < 0)
		return r;
	r = route_out_number(sn, &res);
	if (r < 0)
		return r;
	r = route_out_rows(&res, max);
	if (r < 0)
		return r;
	/* Rebuild the list in LID order: the order engines assign routes in. */
	for (uint32_t l = 1; l <= max; l++) {
		if (owner[l] == SUBNET_NONE || sn->port[owner[l]].lid != l)
			continue;
		d[k].port = owner[l];
		d[k].lid = (uint16_t)l;
		d[k].nlids = (uint16_t)(1u << sn->port[owner[l]].lmc);
		dest_attach(sn, &res, &d[k]);
		k++;
	}
	res.stats.dest_ports = n;
	for (uint32_t i = 0; i < n; i++)
		res.stats.dest_lids += d[i].nlids;
	*out = res;
	memset(&res, 0, sizeof(res));
	*dests = TAKE_PTR(d);
	*n_dests = n;
	return 0;
}

int route_out_finish(struct route_out *res, int r, struct route_out *out, struct route_why *why)
{
	if (r < 0) {
		if (r == -ENOMEM)
			route_why_set(why, "out of memory routing %u switches", res->n_sw);
		route_out_free(res);
		return r;
	}
	*out = *res;
	memset(res, 0, sizeof(*res));
	return 0;
}

uint32_t route_sw_peer(const struct subnet *sn, const struct route_out *out, uint32_t node,
		       unsigned num, uint32_t *peer_port)
{
	uint32_t peer = sn->port[subnet_port_idx(sn, node, num)].peer;
	uint32_t pnode;

	if (peer == SUBNET_NONE)
		return SUBNET_NONE;
	pnode = sn->port[peer].node;
	if (pnode == node || !subnet_is_switch(sn, pnode))
		return SUBNET_NONE;
	if (peer_port)
		*peer_port = peer;
	return out->sw_index[pnode];
}

void route_count_unattached(struct route_out *out, const struct route_dest *d, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		if (d[i].sw != SUBNET_NONE || !out->n_sw)
			continue;
		out->stats.unreach += (uint64_t)out->n_sw * d[i].nlids;
		out->stats.unreach_lids += d[i].nlids;
	}
}

int route_group_by_switch(uint32_t n_sw, const struct route_dest *d, uint32_t n, uint32_t *order)
{
	_cleanup_free_ uint32_t *start = calloc((size_t)n_sw + 2, sizeof(*start));
	_cleanup_free_ uint32_t *first = malloc(((size_t)n_sw + 1) * sizeof(*first));
	_cleanup_free_ uint32_t *by_sw = malloc(((size_t)n + 1) * sizeof(*by_sw));
	uint32_t k = 0;

	if (!start || !first || !by_sw)
		return -ENOMEM;
	for (uint32_t s = 0; s < n_sw; s++)
		first[s] = UINT32_MAX;
	for (uint32_t i = 0; i < n; i++)
		if (d[i].sw != SUBNET_NONE) {
			start[d[i].sw + 2]++;
			if (first[d[i].sw] == UINT32_MAX)
				first[d[i].sw] = i; /* d[] is in LID order */
		}
	for (uint32_t s = 0; s < n_sw; s++)
		start[s + 2] += start[s + 1];
	for (uint32_t i = 0; i < n; i++)
		if (d[i].sw != SUBNET_NONE)
			by_sw[start[d[i].sw + 1]++] = i;
	/* Walking d[] in LID order meets each switch's group first at its lowest LID. */
	for (uint32_t i = 0; i < n; i++) {
		uint32_t s = d[i].sw;

		if (s == SUBNET_NONE || first[s] != i)
			continue;
		for (uint32_t j = start[s]; j < start[s + 1]; j++)
			order[k++] = by_sw[j];
	}
	return (int)k;
}
