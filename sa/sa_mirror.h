/* SPDX-License-Identifier: MIT */
#ifndef LOOM_SA_SA_MIRROR_H
#define LOOM_SA_SA_MIRROR_H

/*
 * The SA mirror: what a standby SM keeps of the master SA's state, read
 * through standard SA queries as a trusted client (the SM_Key), so that
 * on takeover the groups (with their MLIDs: the MFTs on the switches stay
 * right), the services and the subscriptions survive (IBA 14.4 leaves how
 * a standby learns them to the SM; these are IBA-defined queries, so the
 * master may be loomd or OpenSM).
 *   sa_mirror.c         struct sa_mirror; a GetTableResp of MCMemberRecord,
 *                       ServiceRecord or InformInfoRecord decoded into it (or,
 *                       asked for apart, NodeRecord and LinkRecord: the
 *                       fabric's links, for a standby's M_Keys)
 *   sa_mirror_fetch.c   the client: three SubnAdmGetTable requests to the
 *                       master's SA (QP1, SM_Key), answers matched by TID,
 *                       retries; a blocking run for tools
 *   sa_mirror_install.c the mirror put into this SA: groups at the master's
 *                       MLIDs, services, subscriptions; what wins a conflict
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mad/mad.h"
#include "model/subnet.h"
#include "plan/mcast.h"
#include "sa/sa.h"

/*
 * The master's SA state, host order. Groups keep the master's MLID and
 * their members by PortGUID with their JoinState; services keep the record
 * as answered (wire format, ServiceKey included: a trusted answer shows
 * it); subscriptions keep the InformInfo as answered. What the records do
 * not carry is left for install: a subscriber's LID (sa_sub.lid is 0 here)
 * and the owner of a service with a multicast ServiceGID (guid 0).
 */
struct sa_mirror {
	struct mcast_group *g;   /* m[] members; permanent false; MLIDs as the master had them */
	uint32_t n_g, cap_g;
	struct sa_service *svc;  /* expires_ms: ServiceLease in ms as answered (UINT64_MAX: none) */
	uint32_t n_svc, cap_svc;
	struct sa_sub *sub;
	uint32_t n_sub, cap_sub;
	uint64_t prefix;         /* the subnet prefix of the GIDs seen; 0: none seen */
	/* Asked for apart (SA_MIRROR_WANT_LINKS): each port's LID and node, each link. */
	struct sa_mirror_node { uint16_t lid; uint64_t guid; } *node;
	uint32_t n_node, cap_node;
	struct sa_mirror_link { uint16_t from_lid, to_lid; uint8_t from_port, to_port; } *link;
	uint32_t n_link, cap_link;
	uint32_t skipped;        /* records that name nothing: zero MGID, bad MLID, no subscriber */
	uint32_t inconsistent;   /* member records of one MGID whose group fields differ */
};

void sa_mirror_free(struct sa_mirror *m);

/* IBA 15.2.5: the attributes a mirror reads. */
#define SA_MIRROR_ATTR_MCM 0x0038
#define SA_MIRROR_ATTR_SERVICE 0x0031
#define SA_MIRROR_ATTR_INFORM_REC 0x00f3
#define SA_MIRROR_ATTR_NODE 0x0011
#define SA_MIRROR_ATTR_LINK 0x0020

/*
 * A SubnAdmGetTable request of attribute attr (one of SA_MIRROR_ATTR_*),
 * every record (component mask 0), carrying sm_key, TID tid, into
 * mad[MAD_SIZE].
 */
void sa_mirror_req(uint8_t mad[MAD_SIZE], uint16_t attr, uint64_t tid, uint64_t sm_key);

/*
 * One SubnAdmGetTableResp (the whole message as the kernel reassembled
 * it, or one MAD) of a SA_MIRROR_ATTR_* attribute: its records added to
 * m (records of a group already in m merge into it). 0; -EPROTO:
 * malformed (not a GetTableResp of those, short, AttributeOffset smaller
 * than the record); -EREMOTEIO: the SA answered with an error status
 * (*status says which; 0x0300 "no records" is an empty table, 0);
 * -ENOMEM (the records before stay in m). On any other failure m is
 * unchanged. Never reads past len.
 */
int sa_mirror_decode(struct sa_mirror *m, const uint8_t *mad, size_t len, uint16_t *status);

/* ---- the client (sa_mirror_fetch.c) ---- */

struct sa_mirror_fetch_opts {
	uint16_t master_lid; /* the master SM's port: its SA at QP1 */
	uint64_t sm_key;     /* ours, the master's too: trusted answers (IBA 15.2.1.1) */
	uint16_t pkey_index; /* of our port's P_Key table the requests go with (0: the default) */
	unsigned timeout_ms; /* per try: the kernel waits as long for the answer to start */
	unsigned retries;    /* tries after the first */
	unsigned want;       /* the tables, 1 << SA_MIRROR_Q_*; 0: SA_MIRROR_WANT_STATE */
};
#define SA_MIRROR_FETCH_DEFAULT ((struct sa_mirror_fetch_opts){ .timeout_ms = 1000, .retries = 3 })

enum { SA_MIRROR_Q_MCM, SA_MIRROR_Q_SERVICE, SA_MIRROR_Q_INFORM, SA_MIRROR_Q_NODE,
       SA_MIRROR_Q_LINK, _SA_MIRROR_Q_MAX };
/* The master's SA state (groups, services, subscriptions); the fabric's links. */
#define SA_MIRROR_WANT_STATE \
	(1u << SA_MIRROR_Q_MCM | 1u << SA_MIRROR_Q_SERVICE | 1u << SA_MIRROR_Q_INFORM)
#define SA_MIRROR_WANT_LINKS (1u << SA_MIRROR_Q_NODE | 1u << SA_MIRROR_Q_LINK)

/*
 * One fetch in flight: a GetTable request a wanted table, each answered or
 * retried (the tables not wanted count as done from the start).
 * Driven by its owner's event loop: sa_mirror_fetch_input() for every SA
 * response that arrives (short or long), sa_mirror_fetch_tick() when
 * sa_mirror_fetch_next_ms() has passed.
 */
struct sa_mirror_fetch {
	struct sa_mirror_fetch_opts o;
	const struct mad_transport_ops *ops;
	void *t;
	struct {
		uint64_t tid;
		uint64_t due_ms;
		unsigned tries;
		bool done;
		uint16_t status;   /* the master's MAD status, if it refused; an SA that
				    * does not serve the table (0x0008, 0x000C) counts as
				    * an empty one, done, its status kept here */
	} q[_SA_MIRROR_Q_MAX];
	struct sa_mirror m;
	int err;                   /* the first failure; 0: none */
	uint64_t sent, answers, dropped; /* requests sent, answers taken, answers not decodable */
};

/*
 * Start a fetch: the three requests sent through ops->send (to
 * master_lid, QP1, QP1's Q_Key) at now_ms. Its TIDs have bit 31 set
 * and a per-fetch sequence in the high bits: tid_base picks it (one a
 * fetch, e.g. a counter). 0 or the send's -errno (the fetch is then
 * failed, but may be freed as usual).
 */
int sa_mirror_fetch_start(struct sa_mirror_fetch *f, const struct sa_mirror_fetch_opts *o,
			  const struct mad_transport_ops *ops, void *t, uint32_t tid_base,
			  uint64_t now_ms);
/*
 * An SA MAD that arrived: true if it is the answer to one of f's requests
 * (then it is taken: decoded into f's mirror, or counted as dropped);
 * false: not ours, someone else's to handle.
 */
bool sa_mirror_fetch_input(struct sa_mirror_fetch *f, const uint8_t *mad, size_t len);
/* Resend what timed out by now_ms; after the last retry the fetch fails (-ETIMEDOUT). */
void sa_mirror_fetch_tick(struct sa_mirror_fetch *f, uint64_t now_ms);
/* Milliseconds from now_ms until the next tick is due; -1: nothing waits. */
int sa_mirror_fetch_next_ms(const struct sa_mirror_fetch *f, uint64_t now_ms);
/*
 * 1: every table arrived (the mirror is complete); 0: still waiting;
 * < 0: failed: -ETIMEDOUT (a request never answered), -EREMOTEIO (the
 * master refused one: q[i].status), -EPROTO, -ENOMEM, or the send's.
 */
int sa_mirror_fetch_state(const struct sa_mirror_fetch *f);
/* The mirror of a complete fetch, moved to *out (f's emptied). */
void sa_mirror_fetch_take(struct sa_mirror_fetch *f, struct sa_mirror *out);
void sa_mirror_fetch_free(struct sa_mirror_fetch *f);

/*
 * A whole fetch over a transport, blocking: poll its fd, recv (with a
 * buffer for answers of MAD_RMPP_MAX bytes), until complete, failed, or
 * timeout_ms passed (-ETIMEDOUT). For tools and tests; loomd drives the
 * fetch from its event loop instead. Responses not of this fetch are
 * dropped. 0 and *out filled, or -errno. *fail_status: the master's
 * refusal when -EREMOTEIO; on success, the status of a table it does not
 * serve (0: it served all three).
 */
int sa_mirror_fetch_run(const struct mad_transport_ops *ops, void *t,
			const struct sa_mirror_fetch_opts *o, int timeout_ms, struct sa_mirror *out,
			uint16_t *fail_status);

/* ---- install (sa_mirror_install.c) ---- */

/* What an install did (to log it once), and what it had to settle. */
struct sa_mirror_stats {
	uint32_t groups_new;     /* created at the master's MLID */
	uint32_t groups_merged;  /* already here by MGID: members merged, the master's fields */
	uint32_t groups_moved;   /* ours, not the master's, on an MLID the master used: moved */
	uint32_t groups_refused; /* the mirror's MLID is not multicast, or twice in it */
	uint32_t fields_differ;  /* merged groups whose Q_Key, P_Key, MTU... we held otherwise */
	uint32_t members;        /* memberships installed (new or merged) */
	uint32_t services;       /* installed (new or replacing ours with the same RID) */
	uint32_t subs;           /* installed (new or replacing the same subscription) */
	uint32_t subs_unknown;   /* the subscriber's port is not in the model: not installed */
};

/*
 * Put the mirror into this SM's SA state: mc's groups, svc's services,
 * ev's subscriptions. sn (the model to come, or the standby's own
 * discovery) gives each subscriber's LID, where Reports go. now_ms is
 * sa_src.now_ms's clock: service leases restart from it.
 * Conflicts, and why (the master's state wins: the hosts and the switches
 * hold what the master told them):
 *  - a group of ours with the mirror's MGID takes the master's MLID, Q_Key,
 *    P_Key, MTU, rate, SL and the other fields; members are merged (JoinState
 *    bits OR'ed); it stays permanent if it was (an IPoIB broadcast group);
 *  - a group of ours, not in the mirror, on an MLID the master used is moved
 *    to the lowest MLID that neither uses;
 *  - a mirror group with a MLID out of 0xC000-0xFFFE, or one a group before
 *    it in the mirror already took, is refused (counted; not installed);
 *  - a service with the RID of ours replaces it; a subscription equal to
 *    ours (same port, fields and QPN) replaces it; ours otherwise stay.
 * ev->mgids (the groups trap 66/67 are reported against) is set to the
 * groups after install, then mcast_changed(mc) is called if groups changed
 * (the MFTs must follow; loomd's listener then finds no group to report),
 * so that subscribers get no "group created" Reports (trap 66) for groups
 * the master already had. mc, svc or ev NULL: that part is left out. 0, or -ENOMEM
 * (then what was installed so far stays).
 */
int sa_mirror_install(const struct sa_mirror *m, struct mcast *mc, struct sa_services *svc,
		      struct sa_events *ev, const struct subnet *sn, uint64_t now_ms,
		      struct sa_mirror_stats *st);

#endif
