/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/array.h"
#include "lib/cleanup.h"
#include "model/subnet.h"

int subnet_new(struct subnet **out)
{
	struct subnet *sn = calloc(1, sizeof(*sn));

	if (!sn)
		return -ENOMEM;
	if (strpool_init(&sn->pool) < 0) {
		free(sn);
		return -ENOMEM;
	}
	*out = sn;
	return 0;
}

void subnet_free(struct subnet *sn)
{
	if (!sn)
		return;
	free(sn->node);
	free(sn->port);
	strpool_free(&sn->pool);
	itab_free(&sn->by_guid);
	itab_free(&sn->by_port_guid);
	itab_free(&sn->by_name);
	free(sn);
}

static uint64_t node_guid_hash(uint32_t idx, const void *ctx)
{
	const struct subnet *sn = ctx;

	return itab_hash_u64(sn->node[idx].guid);
}

static uint64_t port_guid_hash(uint32_t idx, const void *ctx)
{
	const struct subnet *sn = ctx;

	return itab_hash_u64(sn->port[idx].guid);
}

static uint64_t node_name_hash(uint32_t idx, const void *ctx)
{
	const struct subnet *sn = ctx;

	return itab_hash_str(subnet_str(sn, sn->node[idx].name));
}

static bool node_guid_eq(uint32_t idx, const void *key, const void *ctx)
{
	const struct subnet *sn = ctx;

	return sn->node[idx].guid == *(const uint64_t *)key;
}

static bool port_guid_eq(uint32_t idx, const void *key, const void *ctx)
{
	const struct subnet *sn = ctx;

	return sn->port[idx].guid == *(const uint64_t *)key;
}

static bool node_name_eq(uint32_t idx, const void *key, const void *ctx)
{
	const struct subnet *sn = ctx;

	return strcmp(subnet_str(sn, sn->node[idx].name), key) == 0;
}

uint32_t subnet_find_guid(const struct subnet *sn, uint64_t guid)
{
	return itab_find(&sn->by_guid, itab_hash_u64(guid), &guid, node_guid_eq, sn);
}

uint32_t subnet_find_port_guid(const struct subnet *sn, uint64_t guid)
{
	return itab_find(&sn->by_port_guid, itab_hash_u64(guid), &guid, port_guid_eq, sn);
}

uint32_t subnet_dup_port(const struct subnet *sn, uint32_t port)
{
	uint32_t first;

	if (!sn->port[port].guid)
		return SUBNET_NONE;
	first = subnet_find_port_guid(sn, sn->port[port].guid);
	return first == port ? SUBNET_NONE : first;
}

uint32_t subnet_find_name(const struct subnet *sn, const char *name)
{
	return itab_find(&sn->by_name, itab_hash_str(name), name, node_name_eq, sn);
}

static int check_new_node(const struct subnet *sn, enum node_type type, uint8_t nports,
			  uint64_t guid, const char *name)
{
	if (type != NODE_CA && type != NODE_SWITCH && type != NODE_ROUTER)
		return -EINVAL;
	if (nports == 0 || nports > SUBNET_MAX_PORTS)
		return -EINVAL;
	if (subnet_find_guid(sn, guid) != SUBNET_NONE)
		return -EEXIST;
	if (*name && subnet_find_name(sn, name) != SUBNET_NONE)
		return -EEXIST;
	/*
	 * Default port GUIDs (guid + n) are not checked here: a reader may be
	 * about to replace them with the file's own. subnet_dup_port() finds
	 * the clashes that remain.
	 */
	return 0;
}

int subnet_add_node(struct subnet *sn, enum node_type type, uint8_t nports, uint64_t guid,
		    const char *name, const char *desc, uint32_t *idx)
{
	struct subnet_node *nd;
	uint32_t ni = sn->n_nodes, pb = sn->n_ports;
	int r;

	r = check_new_node(sn, type, nports, guid, name);
	if (r < 0)
		return r;
	if (array_grow((void **)&sn->node, &sn->cap_nodes, ni + 1, sizeof(*sn->node)) < 0 ||
	    array_grow((void **)&sn->port, &sn->cap_ports, pb + nports + 1u, sizeof(*sn->port)) < 0)
		return -ENOMEM;

	nd = &sn->node[ni];
	*nd = (struct subnet_node){
		.guid = guid, .sysguid = guid, .port_base = pb, .type = type, .nports = nports,
	};
	if (strpool_add(&sn->pool, name, &nd->name) < 0)
		return -ENOMEM;
	nd->desc = nd->name;
	if (desc && strpool_add(&sn->pool, desc, &nd->desc) < 0)
		return -ENOMEM;
	if (type == NODE_SWITCH)
		nd->port0_guid = guid;
	for (unsigned n = 0; n <= nports; n++) {
		struct subnet_port *p = &sn->port[pb + n];

		*p = (struct subnet_port){ .node = ni, .peer = SUBNET_NONE, .num = (uint8_t)n };
		if (type == NODE_SWITCH)
			p->guid = n == 0 ? guid : 0;
		else
			p->guid = n == 0 ? 0 : guid + n;
	}

	/* Commit only once nothing can fail but the table inserts. */
	sn->n_nodes++;
	sn->n_ports += nports + 1u;
	r = itab_insert(&sn->by_guid, itab_hash_u64(guid), ni, node_guid_hash, sn);
	if (r == 0 && *name)
		r = itab_insert(&sn->by_name, itab_hash_str(name), ni, node_name_hash, sn);
	for (unsigned n = 0; r == 0 && n <= nports; n++)
		if (sn->port[pb + n].guid)
			r = itab_insert(&sn->by_port_guid, itab_hash_u64(sn->port[pb + n].guid),
					pb + n, port_guid_hash, sn);
	if (idx)
		*idx = ni;
	return r;
}

int subnet_set_port_guid(struct subnet *sn, uint32_t port, uint64_t guid)
{
	struct subnet_port *p = &sn->port[port];

	if (p->guid == guid)
		return 0;
	if (guid && subnet_find_port_guid(sn, guid) != SUBNET_NONE)
		return -EEXIST;
	if (p->guid)
		itab_remove(&sn->by_port_guid, itab_hash_u64(p->guid), port, port_guid_hash, sn);
	p->guid = guid;
	if (!guid)
		return 0;
	return itab_insert(&sn->by_port_guid, itab_hash_u64(guid), port, port_guid_hash, sn);
}

int subnet_link(struct subnet *sn, uint32_t a, uint32_t b)
{
	if (a == b)
		return -EINVAL;
	if (sn->port[a].peer != SUBNET_NONE || sn->port[b].peer != SUBNET_NONE)
		return -EBUSY;
	sn->port[a].peer = b;
	sn->port[b].peer = a;
	return 0;
}

void subnet_unlink(struct subnet *sn, uint32_t a)
{
	uint32_t b = sn->port[a].peer;

	if (b == SUBNET_NONE)
		return;
	sn->port[a].peer = SUBNET_NONE;
	sn->port[b].peer = SUBNET_NONE;
}

const char *subnet_type_name(enum node_type t)
{
	switch (t) {
	case NODE_CA:
		return "CA";
	case NODE_SWITCH:
		return "switch";
	case NODE_ROUTER:
		return "router";
	}
	return "unknown";
}

const char *subnet_speed_name(enum link_speed s)
{
	static const char *const name[_SPEED_MAX] = {
		[SPEED_UNKNOWN] = "?", [SPEED_SDR] = "SDR", [SPEED_DDR] = "DDR",
		[SPEED_QDR] = "QDR", [SPEED_FDR10] = "FDR10", [SPEED_FDR] = "FDR",
		[SPEED_EDR] = "EDR", [SPEED_HDR] = "HDR", [SPEED_NDR] = "NDR",
		[SPEED_XDR] = "XDR",
	};

	return (unsigned)s < _SPEED_MAX ? name[s] : "?";
}

unsigned subnet_width_lanes(uint8_t width)
{
	switch (width) {
	case 1:
		return 1;
	case 2:
		return 4;
	case 4:
		return 8;
	case 8:
		return 12;
	case 16:
		return 2;
	}
	return 0;
}
