/* SPDX-License-Identifier: MIT */
#ifndef LOOM_SUBNET_H
#define LOOM_SUBNET_H

/*
 * DOC: model/ — the subnet model: the data every layer above reads. Includes
 * lib/ and mad/ only; never sends a MAD, never prints.
 *   subnet.c      the model: nodes, ports and links in plain arrays (subnet.h,
 *                 this header)
 *   topo.c        topology reader: ibnetdiscover and ibsim text -> model (topo.h);
 *                 topo_line.c a line, topo_kw.c its keywords, topo_link.c links,
 *                 topo_priv.h what they share
 *   topo_stats.c  counts and checks over a model, for loom topo (topo_stats.h)
 *   diff.c        what changed between two models: nodes gone or new, links
 *                 down or up (loomd names each event)
 *   disc_live.c   what discovery read from the live fabric that the model does
 *                 not hold (paths, PortInfo as read), indexed like the model
 *                 (disc_live.h)
 *
 * Data flows one way: a reader (topo.c, or fabric/disc.c on a live fabric)
 * builds a model; routing, plan/ and programming read it. Both the daemon and
 * the dry run use this one model, so `loom route` sees exactly what loomd would.
 *
 * Layout: nodes[] and ports[] are arrays indexed by small integers. A node's
 * ports are contiguous: ports[node.port_base + num] for num = 0..nports, so
 * port 0 always has a slot (a switch's management port; unused on CAs and
 * routers, whose ports are 1-based). A link is a pair of ports that name each
 * other in .peer; there is no separate link array. Sizes: struct subnet_node is
 * 48 bytes and struct subnet_port 24 bytes, plus each name and description once
 * in the string pool and 8 bytes of lookup tables a node and a CA port; a
 * 36-port switch costs 48 + 37 * 24 = 936 bytes, a one-port CA 96 bytes.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/itab.h"
#include "lib/strpool.h"

#define SUBNET_NONE UINT32_MAX
/* IBA 4.1.3: unicast LIDs are 0x0001-0xbfff (49,151 of them). */
#define SUBNET_LID_UCAST_END 0xbfff
#define SUBNET_MAX_PORTS 254 /* NumPorts is 8 bits; 255 is reserved on switches */

enum node_type {
	NODE_CA = 1, /* values are NodeInfo:NodeType (IBA 14.2.5.3) */
	NODE_SWITCH = 2,
	NODE_ROUTER = 3,
};

/* Link speeds by name; the MAD layer maps PortInfo's speed fields onto these. */
enum link_speed {
	SPEED_UNKNOWN,
	SPEED_SDR,
	SPEED_DDR,
	SPEED_QDR,
	SPEED_FDR10,
	SPEED_FDR,
	SPEED_EDR,
	SPEED_HDR,
	SPEED_NDR,
	SPEED_XDR,
	_SPEED_MAX,
};

struct subnet_node {
	uint64_t guid;       /* NodeGUID */
	uint64_t sysguid;    /* SystemImageGUID */
	uint64_t port0_guid; /* switch: the port GUID all its ports share; else 0 */
	uint32_t port_base;  /* ports[port_base + n] is port n */
	uint32_t name;       /* string pool offset: the id used in topology files */
	uint32_t desc;       /* string pool offset: NodeDescription */
	uint32_t vendor_id;  /* 24 bits */
	uint16_t device_id;
	uint8_t type;        /* enum node_type */
	uint8_t nports;      /* NumPorts */
	uint32_t src_line;   /* where a topology file defined it; 0 if discovered */
};

struct subnet_port {
	uint64_t guid;  /* PortGUID; 0 on a switch's external ports */
	uint32_t node;  /* index of the owning node */
	uint32_t peer;  /* index of the port at the other end, SUBNET_NONE if none */
	uint16_t lid;   /* base LID, 0 if none (switch external ports have none) */
	uint8_t num;    /* port number */
	uint8_t lmc;
	uint8_t width;  /* LinkWidthActive bits (IB_LINK_WIDTH_ACTIVE_*), 0 unknown */
	uint8_t speed;  /* enum link_speed */
	uint16_t flags; /* SUBNET_PORT_* */
};

/*
 * A switch's port 0 is an enhanced one (IBA 14.2.5.4 SwitchInfo:EnhancedPort0,
 * a topology file's "enhanced port 0"): it has data VLs of its own, so the
 * tables of an output port (SL-to-VL out of it, VL arbitration). A base port 0
 * (the flag clear) has none (plan/qos.h qos_has_data_vls).
 */
#define SUBNET_PORT_ENHANCED0 0x0001

struct subnet {
	struct subnet_node *node;
	struct subnet_port *port;
	uint32_t n_nodes, cap_nodes;
	uint32_t n_ports, cap_ports;
	struct strpool pool; /* names and descriptions */
	struct itab by_guid;      /* node indices by NodeGUID */
	struct itab by_port_guid; /* port indices by PortGUID */
	struct itab by_name;      /* node indices by name */
	uint64_t subnet_prefix;
};

int subnet_new(struct subnet **out);
void subnet_free(struct subnet *sn);
static inline void subnet_freep(struct subnet **sn)
{
	subnet_free(*sn);
}

/*
 * Add a node with nports ports, none linked. For a CA or router, port n's GUID
 * defaults to guid + n (what ibsim and most HCAs do); set port[].guid to
 * override. A switch's ports all get guid as port0_guid. Fails with -EEXIST if
 * the NodeGUID or name is already in the model (port GUIDs may clash; see
 * subnet_dup_port) (callers that must keep
 * duplicates, as discovery does, look first and decide), -EINVAL on a bad
 * type or port count, -ENOMEM.
 */
int subnet_add_node(struct subnet *sn, enum node_type type, uint8_t nports, uint64_t guid,
		    const char *name, const char *desc, uint32_t *idx);
/* Change a port's GUID after subnet_add_node; -EEXIST if another port has it. */
int subnet_set_port_guid(struct subnet *sn, uint32_t port, uint64_t guid);
/* Link two ports. -EBUSY if either is linked already, -EINVAL if a == b. */
int subnet_link(struct subnet *sn, uint32_t a, uint32_t b);
void subnet_unlink(struct subnet *sn, uint32_t a);

uint32_t subnet_find_guid(const struct subnet *sn, uint64_t node_guid);
uint32_t subnet_find_port_guid(const struct subnet *sn, uint64_t port_guid);
uint32_t subnet_find_name(const struct subnet *sn, const char *name);
/* The other port that has port's GUID (the one found first), or SUBNET_NONE. */
uint32_t subnet_dup_port(const struct subnet *sn, uint32_t port);

static inline const char *subnet_str(const struct subnet *sn, uint32_t off)
{
	return strpool_get(&sn->pool, off);
}

static inline uint32_t subnet_port_idx(const struct subnet *sn, uint32_t node, unsigned num)
{
	return sn->node[node].port_base + num;
}

static inline bool subnet_is_switch(const struct subnet *sn, uint32_t node)
{
	return sn->node[node].type == NODE_SWITCH;
}

const char *subnet_type_name(enum node_type t);
const char *subnet_speed_name(enum link_speed s);
/* Width as a count of lanes (1, 2, 4, 8, 12), 0 if unknown. */
unsigned subnet_width_lanes(uint8_t width);

#endif
