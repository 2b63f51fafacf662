/* SPDX-License-Identifier: MIT */
#ifndef LOOM_SM_PROG_PRIV_H
#define LOOM_SM_PROG_PRIV_H

#include <stdbool.h>
#include <stddef.h>

#include "plan/mcast.h"
#include "fabric/prog.h"

/*
 * A node's SL-to-VL and VL arbitration tables as last read, or as the
 * GetResp of a Set gave them; *_known[i]: slot i is what the node holds.
 * SL2VL slot: in * (nports + 1) + out (a CA port: in 0, out its number);
 * VLArb slot: port number * 2, + 1 for the high priority block.
 */
struct prog_qos_tab {
	uint8_t nports;
	uint8_t (*sl2vl)[SMP_NUM_SL];
	struct smp_vlarb (*vlarb)[SMP_VLARB_BLOCK];
	uint8_t *sl2vl_known, *vlarb_known;
};

/*
 * A port as the last model that held its node had it (prog_cache.c): its
 * state (0: no PortInfo read), and on a port that carries a LID (a CA
 * port, a switch's port 0) that LID and its MasterSMLID.
 */
struct prog_seen {
	uint16_t lid, sm_lid;
	uint8_t state;
};

/* One switch's LFT as we last saw or set it; known[b]: block b is what the switch holds. */
struct prog_lft {
	uint64_t guid;
	uint32_t len; /* entries in lft, a multiple of SMP_LFT_BLOCK */
	uint8_t *lft;
	uint8_t *known;
	bool no_enforce; /* a switch that drops PartitionEnforcement bits (ibsim does) */
	uint8_t drops;   /* SMP_KNOB_*: PortInfo knobs the node does not keep (ibsim: VLHighLimit, VLStallCount) */
	struct prog_qos_tab *qos; /* NULL: none known (CAs too: by NodeGUID) */
	/*
	 * Block 0 of each port's P_Key table (by port number) as last read or
	 * set; pkey_known[p]: port p's is what the node holds. Only targeted
	 * sweeps trust it: a heavy sweep reads every block. NULL: none known.
	 */
	uint16_t (*pkey)[SMP_PKEY_BLOCK];
	uint8_t *pkey_known;
	uint8_t pkey_nports;
	/*
	 * The node left the model: its ports (0..seen_nports) as it left.
	 * NULL while it is in the model, or when nothing is known.
	 */
	struct prog_seen *seen;
	uint8_t seen_nports;
	uint16_t seen_lin_top; /* a switch's SwitchInfo:LinearFDBTop as it left */
	/* Back, and kept its tables on its ports' word: the next whole sweep reads them. */
	bool unverified;
};

struct prog_cache {
	struct prog_lft *e;
	uint32_t n, cap;
	struct itab by_guid;
};

enum preq_kind {
	PREQ_PORT, PREQ_PORT_CHECK, PREQ_SWITCH_INFO, PREQ_LFT_GET, PREQ_LFT_SET,
	PREQ_PKEY_GET, PREQ_PKEY_SET, PREQ_SL2VL_GET, PREQ_SL2VL_SET, PREQ_VLARB_GET,
	PREQ_VLARB_SET, PREQ_MFT_GET, PREQ_MFT_SET,
};

#define PROG_LID_SPACE 0xc000 /* unicast LIDs are below (IBA 4.1.3) */

struct prog {
	struct txn *x;
	const struct subnet *sn;
	struct disc_live *live;
	const struct route_out *ro;
	const struct prog_opts *o;
	struct prog_cache *cache;
	struct prog_report *rep;
	int err; /* ENOMEM or a transport error: stop sending */
	struct mcast_want *mft; /* prog_mft.c: the MFTs wanted, for the replies */
	/*
	 * prog_lft.c: per unicast LID (PROG_LID_SPACE), whether a block sent,
	 * or a LinearFDBTop lowered, changes its entry on some switch.
	 */
	uint8_t *rerouted;
	/*
	 * Per model node, as discovery found it (before this pass's Sets): no
	 * SM has configured it (prog_cache.c), its tables are set unread.
	 */
	uint8_t *fresh;
};

/* As in discovery: a request whose every try timed out is sent again, this many times in all. */
#define PROG_ROUNDS 3

struct preq {
	struct prog *g;
	struct smp_req r;  /* kept to send again */
	uint8_t round;
	enum preq_kind kind;
	uint32_t idx;      /* model port (PREQ_PORT) or switch number */
	uint32_t block;    /* LFT block */
	uint8_t new_state; /* PREQ_PORT: the state asked for */
};

struct prog_lft *prog_cache_find(struct prog_cache *c, uint64_t guid);
struct prog_lft *prog_cache_get(struct prog_cache *c, uint64_t guid);
int prog_lft_size(struct prog_lft *e, uint32_t len);
/*
 * *out[n]: model node n looks as a reset left it, configured by no SM
 * (prog_cache.c says how it tells); 0 or -ENOMEM. Free *out.
 */
int prog_fresh_nodes(const struct subnet *sn, const struct disc_live *live, uint8_t **out);
/* e's QoS tables, made (all unknown) for a node of nports ports; NULL on ENOMEM. */
struct prog_qos_tab *prog_qos_tab(struct prog_lft *e, uint8_t nports);
/* e's P_Key blocks 0 (e->pkey), made (all unknown) for a node of nports ports: 0 or -ENOMEM. */
int prog_pkey_tab(struct prog_lft *e, uint8_t nports);

/*
 * prog_held.c: a block as the node holds it, cached: its copy (NULL: not
 * cached, no cache or out of memory, and every call a no-op or "unknown")
 * and its known flag. The entry of port pi's node: prog_held_node().
 */
struct prog_held {
	void *copy;
	uint8_t *known;
};
struct prog_lft *prog_held_node(struct prog *g, uint32_t pi);
bool prog_held_known(struct prog_held h);
/* Known, and holding want. */
bool prog_held_is(struct prog_held h, const void *want, size_t size);
void prog_held_forget(struct prog_held h);
/* A GetResp said the node holds have. */
void prog_held_set(struct prog_held h, const void *have, size_t size);
/*
 * A GetResp to a Get (get) or a Set: have cached; true if the block is to be
 * sent (a Get found it other than want: unknown until that Set's GetResp).
 */
bool prog_held_answer(struct prog_held h, const void *have, const void *want, size_t size,
		      bool get);
/*
 * Before a read: 1 known as want (leave it), 0 known and not (now unknown:
 * send it unread), -1 not known.
 */
int prog_held_check(struct prog_held h, const void *want, size_t size);

/* prog.c, for the table phases in prog_lft.c, prog_pkey.c, prog_qos.c and prog_mft.c. */
bool prog_port_route(const struct prog *g, uint32_t pi, struct smp_req *r);
void prog_submit(struct prog *g, const struct smp_req *r, enum preq_kind kind, uint32_t idx,
		 uint32_t block, uint8_t new_state);
const char *prog_port_name(const struct prog *g, uint32_t pi, char *buf, size_t len);
bool prog_port_linked(const struct prog *g, uint32_t pi);

void prog_program_lfts(struct prog *g);
void prog_lft_reply(struct prog *g, const struct preq *q, const uint8_t *resp, size_t len);
void prog_program_pkeys(struct prog *g);
void prog_pkey_reply(struct prog *g, const struct preq *q, const uint8_t *resp, size_t len);
void prog_program_qos(struct prog *g);
/* config.h's enum config_port_class of a port. */
int prog_port_class_of(const struct prog *g, uint32_t pi);
void prog_qos_reply(struct prog *g, const struct preq *q, const uint8_t *resp, size_t len);
void prog_program_mfts(struct prog *g);
void prog_mft_reply(struct prog *g, const struct preq *q, const uint8_t *resp, size_t len);

#endif
