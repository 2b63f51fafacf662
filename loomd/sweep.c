/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/cleanup.h"
#include "loomd/sweep.h"

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

int sweeper_init(struct sweeper *s, struct txn *x, struct agent *a, const struct sweep_opts *o,
		 struct diag *msgs)
{
	int r;

	memset(s, 0, sizeof(*s));
	s->x = x;
	s->agent = a;
	s->o = *o;
	flap_init(&s->flap, &o->flap);
	r = lid_map_new(&s->lids);
	if (r == 0)
		r = prog_cache_new(&s->cache);
	if (r == 0)
		r = mcast_new(&s->mcast);
	if (r == 0 && o->guid2lid)
		r = lid_map_load(s->lids, o->guid2lid, msgs);
	if (r < 0)
		sweeper_free(s);
	return r;
}

void sweeper_free(struct sweeper *s)
{
	lid_map_free(s->lids);
	prog_cache_free(s->cache);
	mcast_free(s->mcast);
	subnet_free(s->sn);
	disc_live_free(&s->live);
	plan_free(&s->plan);
	diag_free(&s->events);
	flap_free(&s->flap);
	subnet_free(s->pre_sn);
	disc_live_free(&s->pre_live);
	subnet_free(s->gone_sn);
	disc_live_free(&s->gone_live);
	free(s->dirty);
	memset(s, 0, sizeof(*s));
}

static void copy_msgs(struct diag *to, const struct diag *from, const char *what)
{
	for (unsigned i = 0; i < from->n; i++)
		diag_msg(to, "%s: %s", what, from->msg[i]);
	if (from->dropped)
		diag_msg(to, "%s: %u more problems not shown", what, from->dropped);
}

static void not_up(struct sweep_stats *st, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The first reason a sweep fell short is the one the summary line gives. */
static void not_up(struct sweep_stats *st, const char *fmt, ...)
{
	va_list ap;

	if (st->why_not[0])
		return;
	va_start(ap, fmt);
	vsnprintf(st->why_not, sizeof(st->why_not), fmt, ap);
	va_end(ap);
}

struct plan_job {
	struct subnet *sn;
	struct lid_map *lids;
	const struct plan_opts *po;
	struct mcast *mcast;
	struct plan *plan;
	struct plan_report *rep;
	int r;
	atomic_bool done;
};

static void *plan_worker(void *arg)
{
	struct plan_job *j = arg;

	j->r = plan_build(j->sn, j->lids, j->po, j->mcast, j->plan, j->rep);
	atomic_store(&j->done, true);
	return NULL;
}

/*
 * plan_build() on a worker while this thread reads the port (s->hold): the
 * loop's longest stretch without reading it is then not the routing time
 * (2 s for vlayered on a 16^3 torus) but one read, and a standby's poll is
 * answered. Without a hook, or without a thread, here.
 */
static int plan_run(struct sweeper *s, struct subnet *sn, const struct plan_opts *po,
		    struct plan *plan, struct plan_report *rep)
{
	struct plan_job j = { .sn = sn, .lids = s->lids, .po = po, .mcast = s->mcast,
			      .plan = plan, .rep = rep };
	pthread_t t;
	int r = 0;

	atomic_init(&j.done, false);
	if (!s->hold || pthread_create(&t, NULL, plan_worker, &j) != 0)
		return plan_build(sn, s->lids, po, s->mcast, plan, rep);
	s->hold(s->hold_arg, true);
	while (!atomic_load(&j.done) && r == 0)
		r = txn_wait(s->x, 5);
	pthread_join(t, NULL);
	s->hold(s->hold_arg, false);
	return r < 0 ? r : j.r;
}

/* The plan for sn (its LIDs assigned, the guid2lid file saved): 0 or -errno. */
static int plan_sweep(struct sweeper *s, struct subnet *sn, const struct disc_live *live,
		      struct plan *plan, struct sweep_stats *st, struct diag *msgs)
{
	struct plan_report rep = { .lids.msgs.limit = 32, .pkeys.limit = 32 };
	struct plan_opts po = { .engines = s->o.engines, .route = s->o.route,
				.config = s->o.config, .vl_cap = qos_switch_vl_cap(sn, live),
				.sm_port = plan_sm_port(sn, live->local_port),
				.lid_cap = lid_switch_cap(sn, live),
				.lids_fabric_first = s->takeover };
	char names[128], refused[1024];
	int r;

	/* The routes before, so that what still holds of them stays (plan/keep.h). */
	if (s->sn && s->plan.engine && s->plan.routes.lft && !s->route_afresh) {
		po.prev = &s->plan.routes;
		po.prev_sn = s->sn;
		po.prev_engine = s->plan.engine;
	}
	r = plan_run(s, sn, &po, plan, &rep);
	if (r == 0)
		s->route_afresh = false;
	if (rep.lids.changed)
		s->lft_trust = false; /* the old master's tables are for other LIDs */
	if (r == 0 && rep.keep.used)
		snprintf(st->routes, sizeof(st->routes), "kept where they still hold: %" PRIu32
			 " LIDs kept (%" PRIu64 " entries rerouted), %" PRIu32 " routed afresh; "
			 "busiest link %" PRIu64 " routes (fresh tables: %" PRIu64 ")",
			 rep.keep.lids_kept, rep.keep.entries_patched, rep.keep.lids_fresh,
			 rep.keep.max_load_kept, rep.keep.max_load_fresh);
	else if (r == 0 && rep.keep.tried)
		snprintf(st->routes, sizeof(st->routes), "the engine's fresh tables: %s",
			 rep.keep.why);
	copy_msgs(msgs, &rep.lids.msgs, "LIDs");
	if (r == 0 && rep.lid_err)
		not_up(st, "out of LIDs below %u: %u ports have none", po.lid_cap ? po.lid_cap :
		       SUBNET_LID_UCAST_END + 1u, rep.lids.unassigned);
	if (r == 0 && s->o.guid2lid && (rep.lids.map_updates || !s->heavy)) {
		int w = lid_map_save(s->lids, s->o.guid2lid);

		if (w < 0)
			diag_msg(msgs, "%s: cannot save the guid-to-LID map: %s; LIDs may change "
				 "if loomd restarts before the next save%s", s->o.guid2lid,
				 strerror(-w), w == -EROFS || w == -EACCES || w == -EPERM ?
				 " (make the state dir writable; under systemd, a state dir "
				 "other than /var/lib/loom needs ReadWritePaths=)" : "");
	}
	route_chain_str(&po.engines, names, sizeof(names));
	plan_refused_str(plan, refused, sizeof(refused));
	if (r == 0 && plan->route_err < 0) {
		diag_msg(msgs, "routing (%s): %s; forwarding tables left as they are", names,
			 po.engines.n == 1 ? plan->why.msg : refused);
		not_up(st, "routing failed");
	} else if (r == 0 && plan->n_refused) {
		diag_msg(msgs, "routing: refused by %s; routed with %s", refused, plan->engine->name);
	}
	if (r == 0 && plan->engine && plan->routes.stats.unreach) {
		diag_msg(msgs, "routing (%s): %s", plan->engine->name, plan->why.msg);
		not_up(st, "%u LIDs unreachable from some switch", plan->routes.stats.unreach_lids);
	}
	copy_msgs(msgs, &rep.pkeys, "partitions");
	if (rep.no_mlid)
		diag_msg(msgs, "multicast: no free MLID for an IPoIB broadcast group; "
			 "the partitions left without one have no IPoIB");
	plan_report_free(&rep);
	return r;
}

/* Send what differs from the plan. */
static int program(struct sweeper *s, struct subnet *sn, struct disc_live *live,
		   const struct plan *plan, struct sweep_stats *st, struct diag *msgs)
{
	struct prog_report prep = { .msgs.limit = PROG_MAX_MSGS };
	struct prog_opts po = { .sm_lid = plan->sm_lid,
				.subnet_prefix = s->o.subnet_prefix ? s->o.subnet_prefix :
						 sn->subnet_prefix,
				.pkeys = plan->have_pkeys ? &plan->pkeys : NULL,
				.qos = plan->qos, .qos_knobs = plan->qos && plan->qos == plan->config,
				.mcast = s->mcast, .only = s->only, .mkey = s->o.mkey,
				.client_rereg = s->rereg, .qos_tables_later = s->takeover,
				.lft_later = s->takeover && s->lft_trust };
	int r;

	if (!po.subnet_prefix)
		po.subnet_prefix = 0xfe80000000000000ULL; /* IBA 4.1.1: the default GID prefix */
	/*
	 * A takeover: the ports' MasterSMLID (their OperationalVLs as the
	 * QoS classes say), P_Keys and MFTs now; the LFTs now too (read back:
	 * 0 blocks sent on an unchanged fabric), unless this SM found them
	 * equal to its routes while standby (s->lft_trust): then they stay as
	 * the old master left them, unread (55k blocks, 0.5-2 s on the 3,888-host
	 * tree); and the SL-to-VL and VL arbitration tables, which the old
	 * master set and which only a read of every switch port pair can check
	 * (77,760 SMPs, 0.65 s of a 648-host tree's 0.7 s). What is left is
	 * read back, and what differs sent, by a heavy sweep right after this
	 * one (st->qos_deferred, st->lft_deferred).
	 */
	st->qos_deferred = plan->qos && po.qos_tables_later;
	s->lft_trust = false; /* one pass: the next one reads what this one left */
	r = prog_run(s->x, sn, live, &plan->routes, &po, s->cache, &prep);
	st->lft_deferred = prep.lft_later_sw;
	st->lft_deferred_blocks = prep.lft_later_blocks;
	st->lft_reads = prep.lft_reads;
	copy_msgs(msgs, &prep.msgs, "programming");
	memcpy(st->phase_ms, prep.phase_ms, sizeof(st->phase_ms));
	memcpy(st->phase_smps, prep.phase_smps, sizeof(st->phase_smps));
	st->changes = prep.port_sets + prep.si_sets + prep.lft_blocks + prep.activated +
		      prep.pkey_blocks + prep.qos_blocks + prep.mft_blocks;
	st->mft_blocks = prep.mft_blocks;
	st->qos_blocks = prep.qos_blocks;
	st->qos_unread = prep.qos_unread;
	st->fresh_nodes = prep.fresh_nodes;
	st->qos_no_sl_map = prep.qos_no_sl_map;
	st->lft_blocks = prep.lft_blocks;
	st->lids_rerouted = prep.lids_rerouted;
	st->pkey_blocks = prep.pkey_blocks;
	s->mkey_foreign = prep.mkey_foreign;
	if (prep.mkey_foreign)
		not_up(st, "%u nodes hold another SM's M_Key", prep.mkey_foreign);
	bool clean = !st->why_not[0];

	if (prep.failed)
		not_up(st, "%u requests refused or unanswered", prep.failed);
	if (prep.not_active)
		not_up(st, "%u linked ports not Active", prep.not_active);
	st->short_prog = clean && st->why_not[0];
	prog_report_free(&prep);
	return r;
}

struct event_ctx {
	struct sweeper *s;
	const struct subnet *cur;
};

static void on_event(void *arg, const struct diff_event *ev)
{
	struct event_ctx *c = arg;
	char buf[320];

	diag_msg(&c->s->events, "%s", diff_event_str(c->s->sn, c->cur, ev, buf, sizeof(buf)));
}

/*
 * Name what changed since the last heavy sweep (nothing on the first: all of
 * it is new), then the links damped or released. Both models are the ones
 * routed, damped links left out: a damped link that comes and goes is not
 * an event every sweep, and its release is one link up.
 */
static unsigned name_events(struct sweeper *s, const struct subnet *cur,
			    const struct diag *flaps)
{
	struct event_ctx c = { s, cur };
	unsigned n;

	diag_free(&s->events);
	s->events = (struct diag){ .limit = SWEEP_MAX_EVENTS };
	n = s->sn ? diff_models(s->sn, cur, on_event, &c) : 0;
	for (unsigned i = 0; i < flaps->n; i++)
		diag_msg(&s->events, "%s", flaps->msg[i]);
	return n + flaps->n;
}

/* Damped links out of the discovered model, before anything is planned on it. */
static int damp(struct sweeper *s, struct subnet *sn, struct diag *flaps)
{
	struct flap_report rep;

	return flap_sweep(&s->flap, s->sn, sn, now_ms(), &rep, flaps);
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

bool sweep_flap_due(const struct sweeper *s, uint64_t now_us)
{
	return flap_due(&s->flap) <= now_us / 1000;
}

uint64_t sweep_next_us(const struct sweeper *s, uint64_t now_us, uint64_t next_us)
{
	uint64_t due = flap_due(&s->flap);

	if (due >= next_us / 1000)
		return next_us;
	/*
	 * Due already: the heavy sweep just run could not release (it failed).
	 * Try again in a second, not at once and forever.
	 */
	return due * 1000 > now_us + 1000000 ? due * 1000 : min_u64(now_us + 1000000, next_us);
}

int sweep_apply(struct sweeper *s, struct subnet *sn, struct disc_live *live,
		struct sweep_stats *st, struct diag *msgs)
{
	struct plan plan = { 0 };
	struct diag flaps = { .limit = SWEEP_MAX_EVENTS };
	int r;

	st->nodes = sn->n_nodes;
	st->ports = sn->n_ports;
	s->agent->n_bad_mkey = 0; /* trap 256 logged again, once a port, this sweep */
	/* Every route this model answers on gets its node's key from now on. */
	r = s->o.mkey ? mkey_learn(s->o.mkey, sn, live) : 0;
	/* After a takeover all of them: another master had the fabric meanwhile. */
	prog_cache_forget_reset(s->cache, s->sn && !s->takeover ? s->sn : NULL, &s->live, sn,
				live);
	/* A whole heavy sweep checks what a targeted one took on trust (prog.h). */
	if (!s->only)
		prog_cache_recheck(s->cache);
	if (r == 0)
		r = damp(s, sn, &flaps);
	if (r == 0) {
		uint64_t t0 = now_ms();

		r = plan_sweep(s, sn, live, &plan, st, msgs);
		st->plan_ms = (unsigned)(now_ms() - t0);
	}
	if (r == 0) {
		uint32_t me = plan.sm_port;

		s->agent->guid = sn->port[me].guid ? sn->port[me].guid : sn->node[0].port0_guid;
		if (plan.route_err == 0)
			r = program(s, sn, live, &plan, st, msgs);
	}
	if (r < 0) {
		plan_free(&plan);
		subnet_free(sn);
		disc_live_free(live);
		diag_free(&flaps);
		return r;
	}
	if (s->o.mkey && s->o.mkey->dirty && s->o.mkey_paths) {
		int w = mkey_paths_save(s->o.mkey, s->o.mkey_paths);

		if (w < 0)
			diag_msg(msgs, "%s: %s; a restarted loomd may not reach nodes whose M_Key "
				 "protects them", s->o.mkey_paths, strerror(-w));
	}
	if (s->o.mkey && s->o.mkey->links_dirty && s->o.mkey_links) {
		int w = mkey_links_save(s->o.mkey, s->o.mkey_links);

		if (w < 0)
			diag_msg(msgs, "%s: %s; a standby with a copy of it may not reach nodes "
				 "whose M_Key protects them", s->o.mkey_links, strerror(-w));
	}
	st->events = name_events(s, sn, &flaps);
	diag_free(&flaps);
	sweep_keep_gone(s, sn);
	s->sn = sn;
	s->live = *live;
	/* The plan goes with the model it was computed on (node and port indices). */
	plan_free(&s->plan);
	s->plan = plan;
	st->up = s->up = !st->why_not[0];
	s->short_prog = st->short_prog;
	if (s->up)
		s->takeover = s->rereg = false;
	return 0;
}

int sweep_heavy(struct sweeper *s, struct sweep_stats *st, struct diag *msgs)
{
	struct disc_report drep = { .msgs.limit = DISC_MAX_MSGS };
	struct disc_live live = { 0 };
	struct subnet *sn = NULL;
	uint64_t t0 = now_ms(), sent0 = txn_stats(s->x)->sent;
	int r;

	txn_forget_gone(s->x); /* everything is asked again */
	memset(st, 0, sizeof(*st));
	st->heavy = true;
	/* What the light sweeps and traps said is in this sweep. */
	sweep_dirty_clear(s, t0);
	if (s->pre_sn) { /* discovered already (the election's): use it */
		sn = s->pre_sn;
		live = s->pre_live;
		sent0 -= s->pre_smps;
		t0 -= s->pre_ms;
		s->pre_sn = NULL;
		memset(&s->pre_live, 0, sizeof(s->pre_live));
		r = 0;
	} else {
		r = disc_run(s->x, &sn, &live, &drep);
	}
	copy_msgs(msgs, &drep.msgs, "discovery");
	/* Each kind named apart: the summary line must give the real cause. */
	if (drep.timeouts + drep.errors + drep.conflicts)
		not_up(st, "discovery: %u requests unanswered after all retries, %u answers refused "
		       "or malformed, %u answers that contradict the sweep (see above)",
		       drep.timeouts, drep.errors, drep.conflicts);
	disc_report_free(&drep);
	if (r < 0)
		return r;
	st->disc_ms = (unsigned)(now_ms() - t0);
	r = sweep_apply(s, sn, &live, st, msgs);
	if (r < 0)
		return r;
	s->heavy++;
	st->smps = txn_stats(s->x)->sent - sent0;
	st->ms = (unsigned)(now_ms() - t0);
	return 0;
}

struct light_req {
	struct sweeper *s;
	uint32_t node;
	unsigned *changed;
};

static void on_switch_info(void *arg, int status, const uint8_t *resp, size_t len)
{
	_cleanup_free_ struct light_req *q = arg;
	struct smp_switch_info si;

	/* No answer is news too: the path to the switch may be gone. */
	if (status < 0 || smp_decode_switch_info(resp, len, &si) < 0 || (si.life_state & 0x04)) {
		(*q->changed)++;
		sweep_dirty_add(q->s, q->node, status < 0);
	}
}

struct sample_req {
	struct sweeper *s;
	uint32_t port;
	struct sweep_stats *st;
};

/* A sampled port's MasterSMLID: not ours, and the port is up, means a heavy sweep. */
static void on_sample(void *arg, int status, const uint8_t *resp, size_t len)
{
	_cleanup_free_ struct sample_req *q = arg;
	struct smp_port_info pi;

	/* An unanswered CA is the next heavy sweep's business, not this check's. */
	if (status < 0 || smp_decode_port_info(resp, len, &pi) < 0 || pi.state < SMP_PORT_INIT)
		return;
	if (pi.sm_lid != q->s->plan.sm_lid && !q->st->sm_lid_wrong++) {
		q->st->sm_lid_port = q->port;
		q->st->sm_lid_seen = pi.sm_lid;
	}
}

/*
 * IBA 14.4.1: a master defends its subnet. Each light sweep reads the
 * PortInfo of o.sm_lid_checks ports, in turn, and checks that they point
 * at this SM (a second SM may have set them, or they kept a dead master's
 * LID): on a fabric of N ports every port is read once in N /
 * sm_lid_checks light sweeps, for that many SMPs each.
 */
static int sample_sm_lid(struct sweeper *s, struct sweep_stats *st)
{
	const struct subnet *sn = s->sn;
	unsigned asked = 0;
	int r = 0;

	if (!s->plan.sm_lid)
		return 0;
	for (uint32_t i = 0; i < sn->n_ports && asked < s->o.sm_lid_checks && r == 0; i++) {
		uint32_t p = (s->sample_next + i) % sn->n_ports, n = sn->port[p].node;
		struct smp_req q = { .method = SMP_GET, .attr_id = SMP_ATTR_PORT_INFO,
				     .attr_mod = sn->port[p].num, .hops = s->live.node[n].hops };
		struct sample_req *sq;

		/* LID-bearing ports (CA ports, switch port 0) that are up and ours to set. */
		if (!sn->port[p].lid || !s->live.port[p].have_pi ||
		    s->live.port[p].pi.state < SMP_PORT_INIT || p == s->plan.sm_port)
			continue;
		sq = malloc(sizeof(*sq));
		if (!sq)
			return -ENOMEM;
		*sq = (struct sample_req){ s, p, st };
		memcpy(q.path, s->live.node[n].path, sizeof(q.path));
		r = txn_submit(s->x, &q, on_sample, sq);
		if (r < 0)
			free(sq);
		asked++;
		s->sample_next = (p + 1) % sn->n_ports;
	}
	return r;
}

int sweep_light(struct sweeper *s, bool *changed, struct sweep_stats *st)
{
	uint64_t t0 = now_ms(), sent0 = txn_stats(s->x)->sent;
	unsigned n_changed = 0;
	int r = 0;

	txn_forget_gone(s->x);
	memset(st, 0, sizeof(*st));
	if (!s->sn) {
		*changed = true;
		return 0;
	}
	for (uint32_t n = 0; n < s->sn->n_nodes && r == 0; n++) {
		struct smp_req q = { .method = SMP_GET, .attr_id = SMP_ATTR_SWITCH_INFO,
				     .hops = s->live.node[n].hops };
		struct light_req *lq;

		if (!subnet_is_switch(s->sn, n))
			continue;
		lq = malloc(sizeof(*lq));
		if (!lq)
			return -ENOMEM;
		*lq = (struct light_req){ s, n, &n_changed };
		memcpy(q.path, s->live.node[n].path, sizeof(q.path));
		r = txn_submit(s->x, &q, on_switch_info, lq);
		if (r < 0)
			free(lq);
	}
	if (r == 0)
		r = sample_sm_lid(s, st);
	if (r == 0)
		r = txn_run(s->x, -1);
	/* A port that points elsewhere: only a heavy sweep sets every port's MasterSMLID. */
	if (st->sm_lid_wrong) {
		n_changed++;
		s->force_heavy = true;
	}
	s->light++;
	st->nodes = s->sn->n_nodes;
	st->ports = s->sn->n_ports;
	st->changes = n_changed;
	st->smps = txn_stats(s->x)->sent - sent0;
	st->ms = (unsigned)(now_ms() - t0);
	st->up = s->up;
	*changed = n_changed > 0;
	return r;
}

int sweep_mcast(struct sweeper *s, struct sweep_stats *st, struct diag *msgs)
{
	struct prog_report prep = { .msgs.limit = PROG_MAX_MSGS };
	uint64_t t0 = now_ms(), sent0 = txn_stats(s->x)->sent;
	int r;

	memset(st, 0, sizeof(*st));
	if (!s->sn || !s->up)
		return 0;
	r = prog_mft_run(s->x, s->sn, &s->live, &s->plan.routes, s->mcast, &prep);
	copy_msgs(msgs, &prep.msgs, "multicast");
	st->nodes = s->sn->n_nodes;
	st->ports = s->sn->n_ports;
	st->changes = st->mft_blocks = prep.mft_blocks;
	st->smps = txn_stats(s->x)->sent - sent0;
	st->ms = (unsigned)(now_ms() - t0);
	st->up = s->up;
	if (prep.failed)
		s->mcast->dirty = true; /* try again at the next sweep */
	prog_report_free(&prep);
	return r;
}
