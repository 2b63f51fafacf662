/* SPDX-License-Identifier: MIT */
/* Directed-route discovery's state, shared by disc.c, disc_dup.c, disc_part.c and disc_back.c. */
#ifndef LOOM_SM_DISC_PRIV_H
#define LOOM_SM_DISC_PRIV_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/itab.h"
#include "fabric/disc.h"

/* IBA 14.2.5.6 PortInfo:PortState. */
#define PORT_STATE_DOWN 1

struct dport {
	uint32_t peer_node; /* SUBNET_NONE: not linked (yet) */
	uint8_t peer_port;
	bool pi_asked, have_pi;
	bool faces_dup;     /* leads to a node whose GUID another node has: left out */
	bool claimed;       /* a claim says a known switch is behind it: not walked */
	bool recheck;       /* disc_part: linked by the last sweep, kept if PortInfo says Active */
	uint32_t lost_peer; /* disc_part: the switch that recheck found no longer linked, or none */
	uint32_t claim;     /* that claim's index + 1 (0: none) */
	uint64_t guid;      /* PortGUID from NodeInfo, if reached through this port */
	struct smp_port_info pi;
	uint8_t raw[SMP_DATA_SIZE];
};

/* A node as the sweep knows it; turned into the model at the end. */
struct dnode {
	struct smp_node_info ni;
	struct smp_switch_info si;
	uint8_t si_raw[SMP_DATA_SIZE];
	char desc[SMP_DATA_SIZE + 1];
	uint8_t hops;
	uint8_t path[SMP_MAX_HOPS + 1]; /* the first route that reached it */
	uint8_t entry_port;             /* the port that route enters by (0: local node) */
	bool si_read;                   /* SwitchInfo answered in this sweep */
	struct dport *port;             /* ni.num_ports + 1 */
};

struct disc {
	struct txn *x;
	struct dnode *node;
	uint32_t n, cap;
	struct itab by_guid;
	struct itab by_port_guid;  /* CA ports, switch ports 0: DISC_PORT_KEY(node, port) */
	struct disc_namesake *dup; /* nodes left out for a known GUID, reported at the end */
	uint32_t n_dup, cap_dup;
	struct disc_report *rep;
	struct disc_claim *claim; /* links to a switch already known, to verify */
	uint32_t n_claims, cap_claims, claims_done;
	int err; /* first hard failure (ENOMEM); stops the sweep from growing */
	uint8_t first_round; /* rounds a new request starts at: DISC_ROUNDS - 1 asks once */
	/* disc_part: the last model that held nodes now gone, and its live data; or NULL. */
	const struct subnet *gone;
	const struct disc_live *gone_live;
};

/* REQ_BACK_PORT_INFO: a CA's PortInfo, the CA maybe back as it left (disc_back.c). */
enum req_kind {
	REQ_NODE_INFO, REQ_NODE_DESC, REQ_PORT_INFO, REQ_SWITCH_INFO, REQ_PROBE,
	REQ_BACK_PORT_INFO
};


/*
 * A request whose every try timed out is asked again, up to DISC_ROUNDS
 * times in all: on a lossy fabric a multi-hop SMP can lose a quarter of its
 * tries, and a node missed by one sweep would get the wrong LIDs for good
 * (the map keeps what is assigned). A node that is really gone costs
 * DISC_ROUNDS x (retries + 1) timeouts of one window slot, not the sweep.
 */
#define DISC_ROUNDS 3

struct req {
	struct disc *d;
	enum req_kind kind;
	uint8_t round;      /* how many times every try timed out */
	uint32_t node;      /* REQ_NODE_INFO: the node we came from, or SUBNET_NONE;
			     * REQ_PROBE: the claim */
	uint8_t port;       /* PortInfo: the port; NodeInfo: the port we left by;
			     * REQ_BACK_PORT_INFO: node is the switch left from (by the
			     * path's last port), port the CA's port */
	uint8_t hops;
	uint8_t path[SMP_MAX_HOPS + 1];
};


/*
 * A NodeInfo answer that named a switch the sweep already knows, through a
 * port of it not yet linked: the same switch reached again (a redundant
 * link) or another switch with the same GUID. disc_dup.c tells which.
 */
struct disc_claim {
	uint32_t node;       /* the known switch */
	uint8_t port;        /* the port the answer says it was entered by */
	uint32_t from_node;  /* where the request left from */
	uint8_t from_port;
	uint8_t hops;        /* the route of the request that got the answer */
	uint8_t path[SMP_MAX_HOPS + 1];
	uint8_t probe_port;  /* a port of node whose far end is known... */
	uint8_t exp_port;    /* ...to be this port of */
	uint64_t exp_guid;   /* the node with this GUID */
};

/*
 * An answer that gave a GUID the sweep had already seen on another node (a
 * CA, a port, or a node of the other kind): what the report names once
 * the sweep is done and every node description is known.
 */
struct disc_namesake {
	uint64_t guid;
	uint32_t first;      /* the node found first, which keeps the GUID */
	uint32_t from_node;  /* the port that faces the namesake, left alone */
	uint8_t from_port;
	uint8_t kind;        /* enum disc_dup_kind */
	uint8_t type;        /* the namesake's NodeInfo:NodeType */
	uint8_t entry_port;  /* and the port it answered through */
	uint8_t hops;        /* the route that reached the namesake */
	uint8_t path[SMP_MAX_HOPS + 1];
};

enum disc_dup_kind { DUP_CA, DUP_PORT, DUP_OTHER_TYPE };

/* A port in by_port_guid: node index and port number in one uint32. */
#define DISC_PORT_KEY(node, port) ((uint32_t)(node) << 8 | (uint8_t)(port))

void disc_ask(struct disc *d, enum req_kind kind, uint32_t node, uint8_t port,
	      const uint8_t *path, uint8_t hops);
void disc_link_ports(struct disc *d, uint32_t a, uint8_t pa, uint32_t b, uint8_t pb);
/* Port p of node n linked to nothing (and its far end, whose CA is read again through it). */
void disc_unlink(struct disc *d, uint32_t n, unsigned p);
const char *disc_path_str(const uint8_t *path, uint8_t hops, char *buf, size_t len);

uint32_t disc_find_port_guid(const struct disc *d, uint64_t guid);
uint32_t disc_find_node(const struct disc *d, uint64_t guid); /* ITAB_EMPTY: unknown */
/* A node as q's route reached it, with no port linked; -E2BIG, -ENOMEM. */
int disc_add_node(struct disc *d, const struct smp_node_info *ni, const struct req *q,
		  uint32_t *idx);
int disc_set_port_guid(struct disc *d, uint32_t n, uint8_t port, uint64_t guid);
/* The sweep's nodes and links as a model, node i as model node i (and live, indexed alike). */
int disc_build(struct disc *d, struct subnet **out);
int disc_build_live(const struct disc *d, const struct subnet *sn, struct disc_live *live);
void disc_free(struct disc *d);
/*
 * A NodeInfo answer through q whose NodeGUID is that of known node n
 * (ITAB_EMPTY: none), or whose PortGUID is known: true if it comes from
 * another node than the one that holds the GUID (recorded, and the port q
 * left by marked); such an answer is not walked or linked.
 */
bool disc_namesake(struct disc *d, const struct req *q, const struct smp_node_info *ni,
		   uint32_t n);
/* The namesakes recorded, one message each, into the report. */
void disc_namesakes_report(struct disc *d);

/*
 * disc_back.c. Port sp of switch sw answered pi, reached by path: if it leads
 * to a CA of d->gone that may be back as it left, that CA's PortInfo is
 * asked (REQ_BACK_PORT_INFO) and true returned; else the caller walks on.
 */
bool disc_back_ask(struct disc *d, uint32_t sw, uint8_t sp, const struct smp_port_info *pi,
		   const uint8_t *path, uint8_t hops);
/* Its answer: the CA seeded from d->gone and linked, or walked as a new node (NodeInfo). */
void disc_back_got(struct disc *d, const struct req *q, const struct smp_port_info *pi,
		   const uint8_t *raw);

int disc_claim(struct disc *d, const struct req *q, uint32_t n, uint8_t port);
/* Verify every claim (probes through the fabric); runs the transaction loop. */
int disc_verify_claims(struct disc *d);
void disc_probe_result(struct disc *d, uint32_t claim, int status, const struct smp_node_info *ni);

#endif
