/* SPDX-License-Identifier: MIT */
#ifndef LOOM_CHECK_PRIV_H
#define LOOM_CHECK_PRIV_H

/*
 * The checker's working state, shared by its files:
 *   check.c      setup, the memoised walks, pair counts, link loads
 *   check_cdg.c  channel dependency graph per (link, VL): each route's VL on
 *                each link (when SLs are given), is each VL acyclic, one cycle
 *   check_msg.c  naming bad pairs and links for the diag list
 *   check_adj.c  the switch graph in compact arrays, the BFS, LFT columns
 *   check_par.c  the LIDs split between worker threads, their counts merged
 *
 * A worker is a copy of struct ck that shares the read-only arrays (the
 * fabric, hosts, destinations) and owns its working ones (walk state, loads,
 * dependency bits, memos, messages); the merge adds them up in LID order.
 */

#include "check.h"

#define CK_INF UINT32_MAX
#define CK_VLS 15 /* data VLs 0-14; a route mapped to VL 15 is dropped */
#define CK_COLS 256 /* LIDs whose LFT columns are gathered at once */
/* struct ck_hop.to: a switch index, or this bit and a port index, or dead. */
#define CK_TO_PORT 0x80000000u
#define CK_TO_DEAD UINT32_MAX

/* Outcome of a route from a switch (per destination LID). */
enum {
	CK_UNKNOWN, /* not walked yet */
	CK_BUSY,    /* on the walk in progress */
	CK_OK,      /* delivered */
	CK_DROP,    /* LFT entry 255, beyond the ports, or LID above the table */
	CK_DEAD,    /* egress port not linked */
	CK_WRONG,   /* delivered to another port */
	CK_LOOP,    /* came back to a switch */
};

struct ck_dest {
	uint32_t port; /* LID-bearing port */
	uint32_t sw;   /* switch it hangs off (its own for a switch), SUBNET_NONE if none */
	uint16_t lid, nlids;
	bool is_sw;
};

/* Egress port e of switch s: adj[s * stride + e], e <= np[s]. */
struct ck_hop {
	uint32_t to;   /* next switch; CK_TO_PORT | the port it is linked to (e 0: the
			* switch's own port 0); CK_TO_DEAD: not linked */
	uint32_t chan; /* the channel it leaves by, SUBNET_NONE */
};

/* A (channel, SL)'s walk towards the LID being judged, if tag is its tag. */
struct ck_memo {
	uint16_t tag;
	uint8_t m; /* the next link's VL, VL_END or 15; VL_DROP: 15 comes after */
	uint8_t e; /* the port the route leaves the next switch by */
};

struct ck {
	const struct subnet *sn;
	const struct route_out *out;
	struct check_report *rep;
	struct diag *d;
	unsigned max_msgs, msgs; /* pairs named so far */
	uint64_t unnamed;        /* bad pairs past max_msgs */
	uint32_t n_sw, n_chan, n_hosts, n_dests;
	/* Channels (directed switch-to-switch links). */
	uint32_t *port_chan;    /* [n_ports] channel leaving by this port, SUBNET_NONE */
	uint32_t *chan_port;    /* [n_chan] the port it leaves by */
	uint32_t *dep_off;      /* [n_chan + 1] first CDG bit of each channel */
	/* Bit dep_off[c] + e of dep_vl[v][w]: channel c on VL v feeds the next
	 * switch's port e on VL w. Allocated when first used; dep is [0][0]. */
	uint8_t *dep_vl[CK_VLS][CK_VLS];
	uint8_t *dep;
	uint64_t *load_a, *load_s; /* [n_chan] all-to-all and shift routes */
	/* The switch graph (check_adj.c). */
	uint8_t *np;            /* [n_sw] ports */
	uint32_t stride;        /* most ports + 1 */
	struct ck_hop *adj;     /* [n_sw * stride] */
	uint32_t *nb_off, *nb;  /* switch neighbours of s: nb[nb_off[s] .. nb_off[s+1]-1] */
	uint32_t *chan_to;      /* [n_chan] the switch a channel leads to */
	uint8_t *chan_in;       /* [n_chan] and the port it enters it by */
	uint8_t *cols;          /* [CK_COLS * n_sw] LFT columns of a batch of LIDs */
	const uint8_t *col;     /* [n_sw] the column of the LID being judged */
	uint8_t *slcols;        /* [CK_COLS * n_sw] check_opts.sl's, if given */
	const uint8_t *slcol;   /* [n_sw] and the LID's, or NULL */
	/* Hosts. */
	uint32_t *src_off, *src; /* hosts of switch s: src[src_off[s] .. src_off[s+1]-1] */
	uint32_t *hosts;        /* [n_hosts] in port GUID order */
	uint32_t *rank;         /* [n_ports] position in hosts[], SUBNET_NONE */
	struct ck_dest *dests;
	/* Per destination LID, indexed by switch. */
	uint8_t *state;
	uint32_t *hops, *where, *next; /* hops to delivery; where it failed; next switch */
	uint32_t *stack, *done, n_done; /* walk stack; switches in the order resolved */
	uint64_t *flow;
	uint32_t *dist, *queue; /* BFS from the destination's switch */
	uint64_t hop_sum;
	/* With SLs or an SL-to-VL map (check_opts.sl, vl_of): each source
	 * switch's route is walked for its VLs, memoised per (channel, SL). */
	const struct check_opts *o;
	bool vl_mode, oom;
	uint32_t *first_vl;  /* [n_ports * 16] VLs the hosts' first link takes */
	struct ck_memo *memo; /* [n_chan * 16] */
	uint16_t tag;
	uint32_t *dropped;   /* [n_sw] hosts whose route to this LID meets VL 15 */
	uint32_t *path;      /* [n_chan + 2] a walk's channels */
	double short_a, short_s;
	uint64_t *stretch_num; /* [n_sw] by shortest hops d: routes x (hops + 2) */
	/* The LIDs to judge, in order: lids[i] of dests[lid_dest[i]]. */
	uint32_t *lids, *lid_dest;
	uint64_t n_lids;
	struct diag wd; /* a worker's messages */
};

void ck_free(struct ck *k);
int ck_worker_setup(struct ck *k, struct ck *w, struct check_report *rep);
void ck_worker_free(struct ck *w);
/* Judge every LID on worker threads and merge what they found into k. */
int ck_judge_all(struct ck *k);
/* Judge lid[0 .. n-1] (of dests[dest[i]]) in order on worker w. */
void ck_judge(struct ck *w, const uint32_t *lid, const uint32_t *dest, uint64_t n);
/* The compact switch graph (after the channels); -ENOMEM. */
int ck_adj_setup(struct ck *k);
void ck_adj_free(struct ck *k);
/* dist[]: fewest switch-to-switch hops from every switch to switch dst. */
void ck_bfs(struct ck *k, uint32_t dst);
/* Gather the LFT columns of lids[0 .. n-1] (n <= CK_COLS) into cols. */
void ck_cols(struct ck *k, const uint32_t *lids, uint32_t n);
uint8_t ck_entry(const struct ck *k, uint32_t s, uint32_t lid);
int ck_cdg(struct ck *k);
/* Set up the per-VL walks (if o asks for them); -ENOMEM. */
int ck_vl_setup(struct ck *k);
/* Per-VL dependencies of the routes to the LID of k->col (walked already), dropped[]. */
void ck_vl_lid(struct ck *k);
void ck_vl_free(struct ck *k);
/* Name bad pairs from the hosts of switch s to (d, lid); count those past the limit. */
void ck_msg_pairs(struct ck *k, const struct ck_dest *d, uint32_t lid, uint32_t s);
void ck_msg_switch(struct ck *k, const struct ck_dest *d, uint32_t lid, uint32_t s);
/* A cycle of n (channel, VL) nodes, node = channel * nv + VL. */
void ck_msg_cycle(struct ck *k, const uint32_t *nodes, uint32_t n, uint32_t nv);
/* n routes from the hosts of switch s to lid travel on VL 15 somewhere. */
void ck_msg_vl15(struct ck *k, const struct ck_dest *d, uint32_t lid, uint32_t s, uint32_t n);
void ck_msg_summary(struct ck *k);

#endif
