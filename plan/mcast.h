/* SPDX-License-Identifier: MIT */
#ifndef LOOM_SM_MCAST_H
#define LOOM_SM_MCAST_H

/*
 * Multicast: the groups the SA creates (and the IPoIB broadcast groups the
 * SM creates), their spanning trees, and the MulticastForwardingTables those
 * trees make.
 *   mcast.c       groups by MGID, MLIDs from 0xC000, members and join states
 *   mcast_tree.c  one group's tree over the switches -> port masks per switch
 *   mcast_mft.c   every group's masks -> the MFT each switch should hold;
 *                 the MFTs as programmed (prog_mft.c fills them, the SA reads)
 *
 * Data flows one way: the SA (sa_rec_mcm.c) changes groups and calls
 * mcast_changed(); programming (prog_mft.c) builds the wanted MFTs from the
 * groups and the model and sends what differs. Members are kept by port
 * GUID, not model index: a group outlives the model of any one sweep.
 */

#include <stdbool.h>
#include <stdint.h>

#include "model/subnet.h"

#define MCAST_MLID_BASE 0xc000u /* IBA 4.1.3: multicast LIDs are 0xC000-0xFFFE */
#define MCAST_MLID_END 0xfffeu

/* IBA 15.2.5.17 MCMemberRecord:JoinState bits. */
enum {
	MCAST_FULL = 0x1,
	MCAST_NON = 0x2,
	MCAST_SENDONLY = 0x4,
	MCAST_SENDONLY_FULL = 0x8, /* IBA 1.3 15.2.5.17: sends only, counts as full for creating */
};

struct mcast_member {
	uint64_t guid;  /* PortGUID */
	uint8_t state;  /* MCAST_* bits, never 0 */
};

struct mcast_group {
	uint8_t mgid[16];
	uint16_t mlid;
	uint32_t qkey;
	uint16_t pkey;     /* membership bit included, as the record carries it */
	uint8_t mtu, rate; /* IBA codes (IB_MTU_LEN_*, rate code), no selector */
	uint8_t pkt_life;
	uint8_t sl, tclass, hop;
	uint32_t flow;
	uint8_t scope;
	bool permanent;    /* created by the SM (IPoIB broadcast): kept without members */
	struct mcast_member *m;
	uint32_t n_m, cap_m;
};

/* One switch's ports: bit p of w[p / 64] for port p (0: the switch itself). */
struct mcast_ports {
	uint64_t w[4];
};

static inline void mcast_ports_set(struct mcast_ports *p, unsigned port)
{
	p->w[port / 64 & 3] |= 1ULL << (port % 64);
}

static inline bool mcast_ports_has(const struct mcast_ports *p, unsigned port)
{
	return p->w[port / 64 & 3] >> (port % 64) & 1;
}

/* An MFT as programmed on one switch: entries [0, n) for MLIDs 0xC000 + i. */
struct mcast_mft {
	uint64_t guid;
	uint32_t n;                /* a multiple of MCAST_MFT_BLOCK */
	struct mcast_ports *e;
	uint8_t *known;            /* [n / 32 * 16]: block, position read back or acknowledged */
};

/* IBA 14.2.5.12: 32 MLIDs a block, 16 ports a position, 16 positions. */
#define MCAST_MFT_BLOCK 32
#define MCAST_MFT_POS 16

struct mcast {
	struct mcast_group *g;
	uint32_t n, cap;
	uint64_t next_mgid;     /* SA-assigned MGIDs: the counter in their low bits */
	struct mcast_mft *mft;  /* as programmed, by switch GUID */
	uint32_t n_mft, cap_mft;
	/* Told when groups or members changed (the MFTs must follow). */
	void (*changed)(void *arg);
	void *changed_arg;
	bool dirty;             /* changed since the MFTs were last programmed */
};

int mcast_new(struct mcast **out);
void mcast_free(struct mcast *mc);
/* Groups or members changed: mark dirty, tell whoever listens. */
void mcast_changed(struct mcast *mc);

struct mcast_group *mcast_find(const struct mcast *mc, const uint8_t mgid[16]);
struct mcast_group *mcast_find_mlid(const struct mcast *mc, uint16_t mlid);
/*
 * A new group from tmpl (its MGID, fields; members ignored) with the lowest
 * free MLID. -EEXIST if the MGID is taken, -ENOSPC if no MLID is free, -ENOMEM.
 */
int mcast_create(struct mcast *mc, const struct mcast_group *tmpl, struct mcast_group **out);
/*
 * A new group from tmpl at its own MLID (tmpl->mlid: a new master keeps
 * the old master's, sa_mirror_install). -EINVAL: not a multicast LID,
 * -EEXIST: the MGID is taken, -EADDRINUSE: the MLID is, -ENOMEM.
 */
int mcast_create_at(struct mcast *mc, const struct mcast_group *tmpl, struct mcast_group **out);
/* An MGID for the SA to assign (IBA 4.1.1, SA-assigned: ff1S:a01b:PKEY:...) not in use. */
void mcast_new_mgid(struct mcast *mc, uint8_t scope, uint16_t pkey, uint8_t mgid[16]);
/* Add join states to guid's membership (created if new). -ENOMEM. */
int mcast_join(struct mcast_group *g, uint64_t guid, uint8_t state);
/*
 * Remove join states from guid's membership. -ENOENT: not a member with
 * those states. *gone: the group was deleted (no full or send-only full
 * member left, and not permanent); g is then invalid.
 */
int mcast_leave(struct mcast *mc, struct mcast_group *g, uint64_t guid, uint8_t state, bool *gone);
struct mcast_member *mcast_member(const struct mcast_group *g, uint64_t guid);
/* The IPoIB broadcast MGID of a partition: ff12:401b:PKEY::ffff:ffff (RFC 4391). */
void mcast_ipoib_mgid(uint16_t pkey, uint8_t mgid[16]);

struct config;
/*
 * The IPoIB broadcast group of every partition with ipoib set exists, with
 * the partition's Q_Key, MTU, rate and SL (created permanent: it outlives
 * its members). -ENOSPC, -ENOMEM.
 */
int mcast_ipoib_sync(struct mcast *mc, const struct config *c);

/* ---- trees (mcast_tree.c) ---- */

/*
 * The tree of group g over sn: ports[node] gets, for every switch in the
 * tree, the links of the tree and the switch ports facing receiving
 * members (full and non-members; send-only members send only, so their
 * port is left out but their switch joins the tree). ports has sn->n_nodes
 * entries, cleared by the caller. The root is the member switch whose
 * farthest member switch is nearest (ties: the lowest node index); every
 * member switch reaches it by a shortest path. *root: that switch,
 * SUBNET_NONE when no member is in the model. -ENOMEM.
 */
int mcast_tree(const struct subnet *sn, const struct mcast_group *g, struct mcast_ports *ports,
	       uint32_t *root);

/* ---- MFTs (mcast_mft.c) ---- */

/* What every switch of sn should hold: want[node * n + i] for MLID 0xC000 + i. */
struct mcast_want {
	uint32_t n; /* entries per switch, a multiple of MCAST_MFT_BLOCK */
	uint16_t top; /* the highest MLID of a group; 0xBFFF: none (SwitchInfo:MulticastFDBTop) */
	struct mcast_ports *e;
};

int mcast_want_build(const struct mcast *mc, const struct subnet *sn, struct mcast_want *w);
void mcast_want_free(struct mcast_want *w);
/* The programmed MFT of switch guid, created empty (n 0) if new; NULL on ENOMEM. */
struct mcast_mft *mcast_mft_get(struct mcast *mc, uint64_t guid);
const struct mcast_mft *mcast_mft_find(const struct mcast *mc, uint64_t guid);
/* Room for n entries; new ones empty and unknown. -ENOMEM. */
int mcast_mft_size(struct mcast_mft *t, uint32_t n);
/* One position's 16-bit masks of one block: 32 entries. */
void mcast_mft_block(const struct mcast_ports *e, uint32_t n, uint32_t block, unsigned pos,
		     uint16_t out[MCAST_MFT_BLOCK]);

#endif
