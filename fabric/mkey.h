/* SPDX-License-Identifier: MIT */
#ifndef LOOM_FABRIC_MKEY_H
#define LOOM_FABRIC_MKEY_H

/*
 * M_Keys (IBA 14.2.4), the keys' side: every node's key is derived from a
 * secret (the first 8 bytes of HMAC-SHA256(secret, node GUID big-endian)),
 * and every SMP goes out with the key of the node its directed route reaches.
 * Which node a route reaches is known only once the node answered NodeInfo,
 * and at protect 2-3 it answers nothing without its key: so the keys are
 * looked up by route, in a table learned from the last sweep's model
 * (mkey_learn) and kept in the state dir across restarts (mkey_paths_*).
 * A route never seen goes out with key 0; no key is ever guessed.
 *
 * The route table holds only what this SM's own port reaches. What any SM
 * can use, wherever it is attached, is the links table (mkey_links.c):
 * node GUID and port -> the node GUID at the other end, learned from every
 * model and kept in mkey.links. A route not in the route table is walked
 * through it from this SM's own node (mkey_set_self), so a standby with a
 * copy of the master's secret and links reaches every node with its key.
 *
 * mkey.c         the route table, the derivation, the txn hook
 * mkey_links.c   the links table, the walk, the mkey.links file
 * mkey_secret.c  the secret file: created 0600 from getrandom(), checked
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "mad/smp.h"
#include "model/disc_live.h"
#include "model/subnet.h"

#define MKEY_SECRET_LEN 32

struct mkey {
	uint8_t secret[MKEY_SECRET_LEN];
	uint8_t protect;  /* M_KeyProtectBits to set */
	uint16_t lease_s; /* M_KeyLeasePeriod to set */
	/* route -> node GUID, open addressing on a hash of the route */
	struct mkey_route *slot;
	uint32_t n, cap;
	bool dirty; /* changed since the last mkey_paths_save */
	/* (node GUID, port) -> peer node GUID (mkey_links.c) */
	struct mkey_link *link;
	uint32_t n_links, cap_links;
	bool links_dirty; /* changed since the last mkey_links_save */
	uint64_t self;    /* the node GUID of this SM's own node (hop 0); 0: unknown */
	uint64_t unkeyed; /* SMPs sent with key 0: their route's node unknown (mkey_hook) */
};

/* The key of node guid: the first 8 bytes of HMAC-SHA256(secret, guid big-endian). */
uint64_t mkey_derive(const uint8_t secret[MKEY_SECRET_LEN], uint64_t guid);

void mkey_init(struct mkey *m, const uint8_t secret[MKEY_SECRET_LEN], uint8_t protect,
	       uint16_t lease_s);
void mkey_free(struct mkey *m);

/*
 * The node GUID a route reaches: walked through the links table from
 * m->self when it can be, else the route table's (the last time); 0 if
 * neither knows.
 */
uint64_t mkey_route_guid(const struct mkey *m, uint8_t hops, const uint8_t *path);
/* The key for an SMP along r's route: derived from its node's GUID, 0 if unknown. */
uint64_t mkey_for_req(const struct mkey *m, const struct smp_req *r);
/* Remember that a route reaches node guid. -ENOMEM. */
int mkey_remember(struct mkey *m, uint8_t hops, const uint8_t *path, uint64_t guid);
/*
 * Every route a sweep of sn took or will take: each node's own, and each
 * link one hop past a switch (or the SM's port), as discovery and
 * programming send them. -ENOMEM.
 */
int mkey_learn(struct mkey *m, const struct subnet *sn, const struct disc_live *live);

/* The node GUID at the other end of guid's port, 0 if unknown. */
uint64_t mkey_link_peer(const struct mkey *m, uint64_t guid, uint8_t port);
/* Remember that guid's port leads to node peer. -ENOMEM. */
int mkey_link_remember(struct mkey *m, uint64_t guid, uint8_t port, uint64_t peer);
/* Walk a directed route through the links table from m->self: its node GUID, or 0. */
uint64_t mkey_links_walk(const struct mkey *m, uint8_t hops, const uint8_t *path);
/* This SM's own node GUID: the root of every walk. */
static inline void mkey_set_self(struct mkey *m, uint64_t guid)
{
	m->self = guid;
}
/* Every link of sn (both ends) into the links table. -ENOMEM. */
int mkey_links_learn(struct mkey *m, const struct subnet *sn);
/* The links table as text ("GUID PORT PEER" a line), written atomically; -errno. */
int mkey_links_save(struct mkey *m, const char *file);
/* Read back what mkey_links_save wrote; a missing file is no error. -errno, -EPROTO. */
int mkey_links_load(struct mkey *m, const char *file);
/* Write file from the lines print gives, to a temp file renamed over it (mode 0644). */
int mkey_file_write(const char *file, void (*print)(const struct mkey *m, FILE *f),
		    const struct mkey *m);

/* The table as text ("GUID hops path,..." a line), written atomically; -errno. */
int mkey_paths_save(struct mkey *m, const char *file);
/* Read back what mkey_paths_save wrote; a missing file is no error. -errno, -EPROTO. */
int mkey_paths_load(struct mkey *m, const char *file);

/*
 * The secret in file: read it, or create it (mode 0600, 32 bytes of
 * getrandom(), temp + fsync + rename + directory fsync) when absent
 * (*created true). -EPERM when it exists with a looser mode than 0600 (or
 * another owner's bits), -EPROTO when it is not 32 bytes, else -errno.
 */
int mkey_secret_load(const char *file, uint8_t secret[MKEY_SECRET_LEN], bool *created);
/* fsync the directory that holds file (after a rename or link into it). */
int mkey_dir_sync(const char *file);

#endif
