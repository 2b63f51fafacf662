/* SPDX-License-Identifier: MIT */
#ifndef LOOM_SA_SA_H
#define LOOM_SA_SA_H

/*
 * DOC: sa/ — Subnet Administration (IBA 15): SA requests in, records out.
 *   sa.h            this header: the data view, the pure answer function, the agent
 *   sa_priv.h       what the files share: the decoded request, the query, the
 *                   attribute table every record family fills
 *   sa_req.c        request decode and validation; component-mask matching
 *   sa.c            dispatch by attribute, access rules, the response (GetResp,
 *                   GetTableResp with the RMPP header the kernel segments by)
 *   sa_src.c        the data view: LID index, P_Keys each port holds
 *   sa_agent.c      the agent in loomd: view from the last sweep's plan, answers sent;
 *                   Reports to subscribers (traps forwarded, the SM's 64-67)
 *   sa_rec_node.c   NodeRecord, PortInfoRecord, GUIDInfoRecord
 *   sa_rec_link.c   LinkRecord
 *   sa_rec_switch.c SwitchInfoRecord, LinearForwardingTableRecord,
 *                   MulticastForwardingTableRecord
 *   sa_rec_sm.c     SMInfoRecord, ClassPortInfo
 *   sa_rec_tables.c P_KeyTableRecord, SL2VLMappingTableRecord, VLArbitrationTableRecord
 *   sa_rec_path.c   PathRecord (and MultiPathRecord): the route the LFTs take, its
 *                   SL, MTU, rate, P_Key
 *   sa_rec_mcm.c    MCMemberRecord: join (create), leave, list multicast groups
 *   sa_rec_inform.c InformInfo (subscribe, unsubscribe), InformInfoRecord; which
 *                   subscriptions a Notice matches
 *   sa_rec_service.c ServiceRecord: register, deregister, list services; leases
 *   sa_mirror.h     the mirror a standby keeps of the master's SA (its own DOC)
 *   sa_mirror.c     the master's MCMemberRecord, ServiceRecord, InformInfoRecord
 *                   tables decoded
 *   sa_mirror_fetch.c the client that asks for them (GetTable, SM_Key, retries)
 *   sa_mirror_install.c the mirror made this SA's state on takeover; conflicts
 *
 * Data flows one way: loomd's request hook hands a MAD to sa_agent.c, which
 * builds a view of the last sweep (sa_src) and asks sa.c for the answer;
 * sa.c decodes (sa_req.c), checks access, walks one record family and builds
 * the response. Nothing here changes the model or prints; MCMemberRecord
 * Set/Delete change multicast groups (plan/mcast.h), which tells the SM;
 * InformInfo Set changes the subscriptions (struct sa_events), which
 * sa_agent.c reads to send Reports; ServiceRecord Set/Delete change the
 * registered services (struct sa_services). Wire format (the
 * ib_*_t structures of iba/ib_types.h) lives in this folder only.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fabric/prog.h"
#include "lib/itab.h"
#include "mad/mad.h"
#include "model/disc_live.h"
#include "model/subnet.h"
#include "plan/mcast.h"
#include "plan/pkey.h"
#include "plan/plan.h"

struct config;

/*
 * Events (IBA 13.4.8.3 InformInfo): a subscription, decoded, host order.
 * The GID names one port (0: use the LID range; 0xFFFF: every LID).
 */
struct sa_inform {
	uint64_t gid_prefix, gid_guid;
	uint16_t lid_begin, lid_end;
	bool is_generic;
	uint8_t subscribe;     /* 1 subscribe, 0 unsubscribe; more is invalid */
	uint16_t type;         /* 0xFFFF: any */
	uint16_t trap_num;     /* generic: trap number; vendor: DeviceID; 0xFFFF: any */
	uint32_t qpn;          /* where the reports go */
	uint8_t resp_time;
	uint32_t producer;     /* generic: ProducerType; vendor: VendorID; 0xFFFFFF: any */
};

/* A Notice (IBA 13.4.8.2), host order; the details stay as they came. */
struct sa_notice {
	bool is_generic;
	uint8_t type;
	uint32_t producer;     /* ProducerType or VendorID */
	uint16_t trap_num;     /* TrapNumber or DeviceID */
	uint16_t issuer_lid, toggle_count;
	uint8_t details[54];
	uint64_t issuer_prefix, issuer_guid; /* 0: not known */
};

/* One subscriber: who (its port), where reports go, and what it asked for. */
struct sa_sub {
	uint64_t guid;         /* the subscriber's port: dropped when it leaves the fabric */
	uint16_t lid;          /* the subscriber's LID: reports go to it, at inf.qpn */
	struct sa_inform inf;
	uint8_t wire[36];      /* the InformInfo as set: InformInfoRecord shows it */
};

/* A Report sent and not yet acknowledged (ReportResp). */
struct sa_report {
	uint8_t mad[MAD_SIZE];
	struct mad_addr to;
	uint32_t tid;
	unsigned tries;
	uint64_t due_ms;
};

/* The SA's event state: subscriptions, Reports in flight, what the SM last saw. */
struct sa_events {
	struct sa_sub *sub;
	uint32_t n_sub, cap_sub;
	struct sa_report *rep;
	uint32_t n_rep, cap_rep;
	uint32_t next_tid;
	uint64_t *ports;       /* end-port GUIDs of the last heavy sweep, sorted */
	uint32_t n_ports;
	bool have_ports;       /* ports is a baseline: 64/65 are reported against it */
	uint8_t (*mgids)[16];  /* multicast groups last seen, for 66/67 */
	uint32_t n_mgids;
	uint64_t reports, report_acks, report_timeouts;
	uint64_t reports_denied; /* matched, but the subscriber may not see the source */
};

/* Decode an InformInfo (36 bytes, wire); -EPROTO if short. */
int sa_inform_decode(const uint8_t *p, size_t len, struct sa_inform *out);
/* Decode a Notice (80 bytes, wire); -EPROTO if short. */
int sa_notice_decode(const uint8_t *p, size_t len, struct sa_notice *out);
/* The Notice as a Report carries it (80 bytes). */
void sa_notice_encode(const struct sa_notice *n, uint8_t out[80]);
/*
 * Does a subscription want this notice? As OpenSM matches (osm_inform.c):
 * IsGeneric, Type, TrapNumber and ProducerType agree (0xFFFF/0xFFFFFF: any),
 * and the issuer is the subscription's GID, or in its LID range.
 */
bool sa_inform_match(const struct sa_inform *s, const struct sa_notice *n);
/* Drop every subscription of port guid (it left the fabric); how many went. */
uint32_t sa_events_drop_port(struct sa_events *ev, uint64_t guid);
void sa_events_free(struct sa_events *ev);

/*
 * Services (IBA 15.2.5.14 ServiceRecord): one registered service, the
 * record as set (wire format, ServiceKey included), the port it belongs to
 * and when its lease runs out.
 */
struct sa_service {
	uint8_t wire[176];
	uint64_t guid;       /* the ServiceGID's port: dropped when it leaves the fabric */
	uint64_t expires_ms; /* on sa_src.now_ms's clock; UINT64_MAX: indefinite lease */
};

struct sa_services {
	struct sa_service *svc;
	uint32_t n, cap;
};

/* Drop every service of port guid (it left the fabric); how many went. */
uint32_t sa_services_drop_port(struct sa_services *sv, uint64_t guid);
void sa_services_free(struct sa_services *sv);

#define SA_SM_OTHERS 16 /* other SMs an SMInfoRecord table lists at most */

/* The SM itself, as SMInfo describes it (IBA 14.2.5.13). */
struct sa_sm {
	uint64_t guid, sm_key;
	uint32_t act_count;
	uint8_t priority, state; /* state: enum smp_sm_state */
};

/*
 * What the SA answers from: one sweep's model, what the fabric said about
 * it, and what was programmed. Borrowed, never changed. sa_src_index()
 * builds the LID and GUID indexes the answers need; sa_src_free() drops them.
 */
struct sa_src {
	const struct subnet *sn;        /* NULL: no sweep has finished; requests get Busy */
	const struct disc_live *live;   /* indexed like sn */
	const struct prog_cache *lfts;  /* LFTs as programmed; NULL: none */
	const struct pkey_plan *pkeys;  /* NULL: every port holds only the default 0xffff */
	const struct route_out *routes; /* the routes the LFTs came from (route_out.sl); NULL: none */
	const struct config *config;    /* loom.yaml: partition SLs; NULL: none */
	const struct config *qos;       /* QoS classes for SL2VL/VLArb records (the plan's: always, once routed) */
	struct mcast *mcast;            /* multicast groups: MCMemberRecord changes them; NULL: none */
	struct sa_events *ev;           /* subscriptions: InformInfo changes them; NULL: none */
	struct sa_services *svc;        /* services: ServiceRecord changes them; NULL: none */
	uint64_t now_ms;                /* CLOCK_MONOTONIC in ms: service leases run against it */
	uint32_t sm_port;               /* model port the SM sends through */
	struct sa_sm sm;
	/* The other SMs the SM knows of (IBA 14.4), as their SMInfo last read. */
	struct sa_sm others[SA_SM_OTHERS];
	unsigned n_others;
	/* Built by sa_src_index: */
	uint32_t *by_lid;  /* [SUBNET_LID_UCAST_END + 1]: the port owning each unicast LID */
	uint16_t max_lid;  /* highest LID in use: LinearFDBTop */
	bool lid_ambiguous; /* two ports claim a LID, or a range passes the unicast LIDs */
	struct itab by_guid; /* end ports with a LID, by the PortGUID records name them by */
};

int sa_src_index(struct sa_src *s);
void sa_src_free(struct sa_src *s);

/*
 * Answer one SA request (a whole MAD as received, from its sender). On 0
 * *out is the response to send back to from (malloc'ed, *out_len bytes:
 * MAD_SIZE, or longer for a GetTableResp with RMPP Active) and *status the
 * MAD status it carries (host order). -EACCES: discarded, the SM_Key is
 * neither 0 nor ours (IBA 15.2.1.1). -EPROTO: no answer is due (not an SA
 * request, or too short to answer); -ENOMEM. Never reads past len.
 */
int sa_answer(const struct sa_src *src, const uint8_t *mad, size_t len,
	      const struct mad_addr *from, uint8_t **out, size_t *out_len, uint16_t *status);

struct sa_stats {
	uint64_t requests;  /* SA MADs received */
	uint64_t answered;  /* with status 0 */
	uint64_t refused;   /* answered with a non-zero status */
	uint64_t dropped;   /* not answerable (malformed beyond answering, a response) */
	uint64_t wrong_key; /* discarded: an SM_Key neither 0 nor ours */
	uint64_t send_failed;
};

typedef int (*sa_send_fn)(void *arg, const uint8_t *mad, size_t len, const struct mad_addr *to);
/* The SM as SMInfo shows it right now (its ActCount moves with every SMP). */
typedef void (*sa_sm_fn)(void *arg, struct sa_sm *out);
/* The other SMs on the subnet, as last read: at most max into out; how many. */
typedef unsigned (*sa_sms_fn)(void *arg, struct sa_sm *out, unsigned max);

/*
 * What the SM hands the SA after every heavy sweep (sa_set_view): the
 * sweep's model, what discovery read, the plan programmed from them, the
 * LFTs as programmed, the multicast groups. Borrowed until the next call.
 */
struct sa_view {
	const struct subnet *sn;       /* NULL: no sweep has finished; requests get Busy */
	const struct disc_live *live;  /* indexed like sn */
	const struct plan *plan;       /* routes, P_Keys, QoS classes, the SM's port, of sn */
	const struct prog_cache *lfts; /* NULL: none */
	struct mcast *mcast;           /* NULL: none */
};

/* The agent loomd runs: answers from the last view it was given. */
struct sa {
	struct sa_view view;
	bool stale;            /* a new view: src is rebuilt before the next answer */
	sa_send_fn send;
	void *send_arg;
	sa_sm_fn sm_info;
	void *sm_arg;
	sa_sms_fn others; /* NULL: SMInfoRecords list this SM alone */
	void *others_arg;
	struct sa_src src;
	struct sa_stats st;
	struct sa_events ev;
	struct sa_services svc;
};

void sa_init(struct sa *sa, sa_send_fn send, void *send_arg, sa_sm_fn sm_info, void *sm_arg);
void sa_free(struct sa *sa);
/* Where SMInfoRecords find the other SMs (sa_init leaves it NULL: none). */
void sa_set_others(struct sa *sa, sa_sms_fn fn, void *arg);
/* A new view (after a heavy sweep, a reload); v is copied, what it points to borrowed. */
void sa_set_view(struct sa *sa, const struct sa_view *v);
/*
 * One SA request (from->agent == MAD_AGENT_SA): answered through send.
 * Returns what sa_answer returned, or the send's -errno, so that the
 * caller can log it once.
 */
int sa_request(struct sa *sa, const uint8_t *mad, size_t len, const struct mad_addr *from);

/*
 * Events (sa_agent.c): a trap that reached the SM (an SMP Trap(Notice),
 * anything else is ignored) is forwarded as a Report to every subscriber
 * it matches; so is the SM's own notice n. Each Report is sent again every
 * second until its ReportResp (sa_report_resp, by TID) or the third try.
 */
void sa_trap(struct sa *sa, const uint8_t *mad, size_t len);
void sa_notify(struct sa *sa, const struct sa_notice *n);
void sa_report_resp(struct sa *sa, uint32_t tid);
void sa_tick(struct sa *sa, uint64_t now_ms);
/*
 * After a heavy sweep: end ports that appeared (trap 64) or went (65,
 * their subscriptions and services dropped) since the last one. After a multicast
 * change: groups created (66) or deleted (67).
 */
void sa_swept(struct sa *sa);
void sa_mcast_changed(struct sa *sa);

#endif
