/* SPDX-License-Identifier: MIT */
/*
 * The SA agent as loomd runs it: requests come from the transaction
 * layer's request hook (between sweeps, or mid-sweep from within txn_run),
 * answers go out through the transport. The view is rebuilt only when a
 * heavy sweep brought a new model or SIGHUP a new configuration; mid-sweep
 * requests are answered from the last finished sweep.
 */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "config/config.h"
#include "sa/sa_priv.h"

void sa_init(struct sa *sa, sa_send_fn send, void *send_arg, sa_sm_fn sm_info, void *sm_arg)
{
	memset(sa, 0, sizeof(*sa));
	sa->send = send;
	sa->send_arg = send_arg;
	sa->sm_info = sm_info;
	sa->sm_arg = sm_arg;
	sa->src.ev = &sa->ev;
	sa->src.svc = &sa->svc;
}

void sa_free(struct sa *sa)
{
	sa_src_free(&sa->src);
	sa_events_free(&sa->ev);
	sa_services_free(&sa->svc);
}

void sa_set_others(struct sa *sa, sa_sms_fn fn, void *arg)
{
	sa->others = fn;
	sa->others_arg = arg;
}

void sa_set_view(struct sa *sa, const struct sa_view *v)
{
	sa->view = *v;
	sa->stale = true;
}

static uint64_t mono_ms(void);

/*
 * The answers come from the plan the last heavy sweep programmed: its P_Key
 * tables, its routes (PathRecord SLs), its QoS classes (SL2VL and VLArb
 * records say what programming sends: qos_want_*; the plan always has classes).
 */
static int refresh(struct sa *sa)
{
	const struct sa_view *v = &sa->view;
	const struct plan *p = v->plan;
	struct sa_src *s = &sa->src;
	int r;

	if (!sa->stale && (s->by_lid || !v->sn))
		return 0;
	s->sn = v->sn;
	s->live = v->live;
	s->lfts = v->lfts;
	s->mcast = v->mcast;
	s->pkeys = p && p->have_pkeys ? &p->pkeys : NULL;
	s->routes = p && p->routes.n_sw ? &p->routes : NULL;
	s->config = p ? p->config : NULL;
	s->qos = p ? p->qos : NULL;
	s->sm_port = p ? p->sm_port : 0;
	r = sa_src_index(s);
	if (r < 0)
		return r;
	sa->stale = false;
	return 0;
}

/* The SM's port GUID, as SMInfo gives it. */
static uint64_t sm_guid(const struct sa *sa)
{
	struct sa_sm sm = { 0 };

	sa->sm_info(sa->sm_arg, &sm);
	return sm.guid;
}

int sa_request(struct sa *sa, const uint8_t *mad, size_t len, const struct mad_addr *from)
{
	uint8_t *out = NULL;
	size_t out_len = 0;
	uint16_t status = 0;
	int r;

	sa->st.requests++;
	r = refresh(sa);
	if (r < 0)
		return r;
	sa->sm_info(sa->sm_arg, &sa->src.sm);
	sa->src.n_others = sa->others ? sa->others(sa->others_arg, sa->src.others, SA_SM_OTHERS) : 0;
	sa->src.now_ms = mono_ms(); /* service leases */
	r = sa_answer(&sa->src, mad, len, from, &out, &out_len, &status);
	if (r < 0) {
		if (r == -EPROTO)
			sa->st.dropped++;
		else if (r == -EACCES)
			sa->st.wrong_key++;
		return r;
	}
	if (status)
		sa->st.refused++;
	else
		sa->st.answered++;
	r = sa->send(sa->send_arg, out, out_len, from);
	free(out);
	if (r < 0)
		sa->st.send_failed++;
	return r < 0 ? r : status;
}

/* ---- events: Reports to subscribers (IBA 13.4.8, 15.2.5.12) ---- */

/*
 * IBA 13.4.8.1: a Report is sent again until its ReportResp comes. The
 * ReportResp reaches loomd through the transaction layer's drop hook (its
 * TID is not an SMP's). On a kernel it arrives only if the Report was sent
 * awaiting a response, and mad/umad.c sends SA MADs with no timeout: there
 * each Report goes out REPORT_TRIES times until the transport learns to.
 */
#define REPORT_TRIES 3        /* the first send and two more */
#define REPORT_RETRY_MS 1000  /* between tries, when no ReportResp came */
#define REPORT_QUEUE_MAX 4096 /* unacknowledged Reports kept; more are sent once */

/* IBA 13.4.8.2 Table 129 (Type) and 130 (ProducerType) of the SM's own notices. */
#define NOTICE_TYPE_INFO 4
#define NOTICE_PRODUCER_CM 4

static uint64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static uint64_t prefix_of(const struct subnet *sn)
{
	return sn && sn->subnet_prefix ? sn->subnet_prefix : 0xfe80000000000000ULL;
}

/* A Report of n from the SA (method Report, attribute Notice), with its TID. */
static void report_build(struct sa_events *ev, const struct sa_notice *n, uint8_t *mad,
			 uint32_t *tid)
{
	ib_sa_mad_t *m = (ib_sa_mad_t *)mad;

	memset(mad, 0, MAD_SIZE);
	m->base_ver = 1;
	m->mgmt_class = IB_MCLASS_SUBN_ADM;
	m->class_ver = SA_CLASS_VERSION;
	m->method = IB_MAD_METHOD_REPORT;
	if (!++ev->next_tid)
		ev->next_tid = 1; /* 0 would read as "no TID" in the queue */
	*tid = ev->next_tid;
	/* The kernel owns the TID's high half; ReportResp is matched on the low. */
	m->trans_id = htobe64(*tid);
	m->attr_id = IB_MAD_ATTR_NOTICE;
	sa_notice_encode(n, mad + SA_HDR_SIZE);
}

static void report_drop(struct sa_events *ev, uint32_t i)
{
	memmove(&ev->rep[i], &ev->rep[i + 1], (ev->n_rep - i - 1) * sizeof(ev->rep[0]));
	ev->n_rep--;
}

/* Queue one Report (to be retried); false: no room, it is sent once only. */
static bool report_queue(struct sa_events *ev, const struct sa_report *r)
{
	if (ev->n_rep >= REPORT_QUEUE_MAX)
		return false;
	if (ev->n_rep == ev->cap_rep) {
		uint32_t cap = ev->cap_rep ? ev->cap_rep * 2 : 16;
		struct sa_report *p = realloc(ev->rep, cap * sizeof(*p));

		if (!p)
			return false;
		ev->rep = p;
		ev->cap_rep = cap;
	}
	ev->rep[ev->n_rep++] = *r;
	return true;
}

/*
 * o13-17.1.1: a Report goes only to a subscriber that may see what it is
 * about: the port a notice names (64/65: the port in its details; others:
 * its issuer) shares a partition with the subscriber; for 66/67 the
 * subscriber holds the group's P_Key. What the last sweep no longer knows
 * (a port gone out of service, a group deleted) cannot be checked: told.
 */
static bool report_allowed(struct sa *sa, const struct sa_notice *n, uint64_t sub_guid)
{
	const struct sa_src *s = &sa->src;
	const struct mcast_group *g;
	uint32_t to, from;
	uint64_t guid, v;

	if (refresh(sa) < 0 || !s->sn)
		return true;
	to = subnet_find_port_guid(s->sn, sub_guid);
	if (to == SUBNET_NONE)
		return false;
	if (n->is_generic && (n->trap_num == 66 || n->trap_num == 67)) {
		g = s->mcast ? mcast_find(s->mcast, n->details + 6) : NULL;
		return !g || sa_port_holds(s, to, g->pkey);
	}
	if (n->is_generic && (n->trap_num == 64 || n->trap_num == 65)) {
		memcpy(&v, n->details + 6 + 8, 8); /* the GID's interface ID */
		guid = be64toh(v);
	} else {
		guid = n->issuer_guid;
	}
	from = guid ? subnet_find_port_guid(s->sn, guid) : SUBNET_NONE;
	return from == SUBNET_NONE || sa_ports_share(s, from, to);
}

void sa_notify(struct sa *sa, const struct sa_notice *n)
{
	struct sa_events *ev = &sa->ev;
	uint64_t now = mono_ms();

	for (uint32_t i = 0; i < ev->n_sub; i++) {
		const struct sa_sub *sub = &ev->sub[i];
		struct sa_report r = { 0 };

		if (!sa_inform_match(&sub->inf, n))
			continue;
		if (!report_allowed(sa, n, sub->guid)) {
			ev->reports_denied++;
			continue;
		}
		report_build(ev, n, r.mad, &r.tid);
		/*
		 * To the subscriber's LID, the QP its InformInfo named (QP1 if
		 * none), with QP1's Q_Key, which the transport sets for SA MADs.
		 */
		r.to = (struct mad_addr){ .lid = sub->lid, .qpn = sub->inf.qpn ? sub->inf.qpn : 1,
					  .agent = MAD_AGENT_SA };
		r.tries = 1;
		r.due_ms = now + REPORT_RETRY_MS;
		ev->reports++;
		if (sa->send(sa->send_arg, r.mad, MAD_SIZE, &r.to) < 0)
			sa->st.send_failed++;
		report_queue(ev, &r);
	}
}

void sa_report_resp(struct sa *sa, uint32_t tid)
{
	struct sa_events *ev = &sa->ev;

	for (uint32_t i = 0; i < ev->n_rep; i++)
		if (ev->rep[i].tid == tid) {
			report_drop(ev, i);
			ev->report_acks++;
			return;
		}
}

void sa_tick(struct sa *sa, uint64_t now_ms)
{
	struct sa_events *ev = &sa->ev;

	for (uint32_t i = ev->n_rep; i-- > 0;) {
		struct sa_report *r = &ev->rep[i];

		if (r->due_ms > now_ms)
			continue;
		if (r->tries >= REPORT_TRIES) {
			ev->report_timeouts++;
			report_drop(ev, i);
			continue;
		}
		r->tries++;
		r->due_ms = now_ms + REPORT_RETRY_MS;
		if (sa->send(sa->send_arg, r->mad, MAD_SIZE, &r->to) < 0)
			sa->st.send_failed++;
	}
}

/*
 * A trap that reached the SM: an SMP (LID-routed or directed) Trap of a
 * Notice. Its issuer is named by LID; the Report names it by GID too,
 * from the model, as OpenSM fills it in.
 */
void sa_trap(struct sa *sa, const uint8_t *mad, size_t len)
{
	struct sa_notice n;
	uint32_t pi;

	if (len < MAD_SIZE || (mad[1] != 0x01 && mad[1] != 0x81) || mad[3] != IB_MAD_METHOD_TRAP ||
	    (mad[16] << 8 | mad[17]) != 0x0002)
		return;
	if (sa_notice_decode(mad + 64 /* SMP data (IBA 14.2.1.1) */, len - 64, &n) < 0)
		return;
	if (!sa->ev.n_sub || refresh(sa) < 0 || !sa->src.sn)
		return;
	pi = sa_port_of_lid(&sa->src, n.issuer_lid);
	if (!n.issuer_guid && pi != SUBNET_NONE) {
		n.issuer_prefix = prefix_of(sa->src.sn);
		n.issuer_guid = sa->src.sn->port[pi].guid;
	}
	sa_notify(sa, &n);
}

/* The SM's own notice: trap num about gid (a port or a multicast group), 64-67. */
static void sm_notice(struct sa *sa, uint16_t num, const uint8_t gid[16])
{
	const struct subnet *sn = sa->view.sn;
	struct sa_notice n = { .is_generic = true, .type = NOTICE_TYPE_INFO,
			       .producer = NOTICE_PRODUCER_CM, .trap_num = num };

	if (sn && sa->view.plan)
		n.issuer_lid = sn->port[sa->view.plan->sm_port].lid; /* a switch SM: its port 0 */
	n.issuer_prefix = prefix_of(sn);
	n.issuer_guid = sm_guid(sa);
	/* IBA 13.4.8.2 Table 131: 6 reserved bytes, then the GID. */
	memcpy(n.details + 6, gid, 16);
	sa_notify(sa, &n);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int cmp_gid(const void *a, const void *b)
{
	return memcmp(a, b, 16);
}

static void port_gid(const struct subnet *sn, uint64_t guid, uint8_t gid[16])
{
	uint64_t p = htobe64(prefix_of(sn)), g = htobe64(guid);

	memcpy(gid, &p, 8);
	memcpy(gid + 8, &g, 8);
}

/*
 * Walk two sorted lists together: fn(arg, item, +1) for what is new in
 * cur, fn(arg, item, -1) for what left old.
 */
static void diff(const uint8_t *old, uint32_t n_old, const uint8_t *cur, uint32_t n_cur,
		 size_t size, int (*cmp)(const void *, const void *),
		 void (*fn)(struct sa *, const void *, int), struct sa *sa)
{
	uint32_t i = 0, j = 0;

	while (i < n_old || j < n_cur) {
		int c = i == n_old ? 1 : j == n_cur ? -1 : cmp(old + i * size, cur + j * size);

		if (c < 0)
			fn(sa, old + i++ * size, -1);
		else if (c > 0)
			fn(sa, cur + j++ * size, 1);
		else
			i++, j++;
	}
}

static void port_changed(struct sa *sa, const void *item, int how)
{
	uint64_t guid;
	uint8_t gid[16];

	memcpy(&guid, item, 8);
	port_gid(sa->view.sn, guid, gid);
	/* The Report first: a subscriber of the port's own events is told, then forgotten. */
	sm_notice(sa, how > 0 ? 64 : 65, gid);
	if (how < 0) {
		sa_events_drop_port(&sa->ev, guid);
		sa_services_drop_port(&sa->svc, guid);
	}
}

static void group_changed(struct sa *sa, const void *item, int how)
{
	sm_notice(sa, how > 0 ? 66 : 67, item);
}

void sa_mcast_changed(struct sa *sa)
{
	const struct mcast *mc = sa->view.mcast;
	uint8_t (*cur)[16];

	if (!mc)
		return;
	cur = malloc((mc->n ? mc->n : 1) * sizeof(*cur));
	if (!cur)
		return; /* the next change compares against the old list */
	for (uint32_t i = 0; i < mc->n; i++)
		memcpy(cur[i], mc->g[i].mgid, 16);
	qsort(cur, mc->n, sizeof(*cur), cmp_gid);
	diff((const uint8_t *)sa->ev.mgids, sa->ev.n_mgids, (const uint8_t *)cur, mc->n, 16,
	     cmp_gid, group_changed, sa);
	free(sa->ev.mgids);
	sa->ev.mgids = cur;
	sa->ev.n_mgids = mc->n;
}

void sa_swept(struct sa *sa)
{
	const struct subnet *sn = sa->view.sn;
	uint64_t *cur;
	uint32_t n = 0;

	if (!sn || refresh(sa) < 0)
		return;
	cur = malloc((sn->n_ports ? sn->n_ports : 1) * sizeof(*cur));
	if (!cur)
		return;
	/* End ports: CA and router ports, a switch's port 0 (its external ports have no GUID). */
	for (uint32_t pi = 0; pi < sn->n_ports; pi++)
		if (sn->port[pi].guid && sn->port[pi].lid)
			cur[n++] = sn->port[pi].guid;
	qsort(cur, n, sizeof(*cur), cmp_u64);
	/* The first sweep is the baseline: nobody could have subscribed before it. */
	if (sa->ev.have_ports)
		diff((const uint8_t *)sa->ev.ports, sa->ev.n_ports, (const uint8_t *)cur, n, 8,
		     cmp_u64, port_changed, sa);
	free(sa->ev.ports);
	sa->ev.ports = cur;
	sa->ev.n_ports = n;
	sa->ev.have_ports = true;
	sa_mcast_changed(sa); /* the IPoIB groups a sweep creates */
}
