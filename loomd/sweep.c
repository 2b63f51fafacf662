/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/cleanup.h"
#include "plan/pkey.h"
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
	route_out_free(&s->routes);
	memset(s, 0, sizeof(*s));
}

/* The port the SM sends through: its LID is MasterSMLID everywhere. */
static uint32_t sm_port(const struct subnet *sn, const struct disc_live *live)
{
	return subnet_port_idx(sn, 0, subnet_is_switch(sn, 0) ? 0 : live->local_port);
}

static void copy_msgs(struct diag *to, const struct diag *from, const char *what)
{
	for (unsigned i = 0; i < from->n; i++)
		diag_msg(to, "%s: %s", what, from->msg[i]);
	if (from->dropped)
		diag_msg(to, "%s: %u more problems not shown", what, from->dropped);
}

static int assign_lids(struct sweeper *s, struct subnet *sn, struct diag *msgs)
{
	struct lid_report rep = { .msgs.limit = 32 };
	int r;

	r = lid_assign(sn, s->lids, s->o.route.lmc, &rep);
	copy_msgs(msgs, &rep.msgs, "LIDs");
	if (r < 0 && r != -ENOSPC) {
		lid_report_free(&rep);
		return r;
	}
	if (s->o.guid2lid && (rep.map_updates || !s->heavy)) {
		int w = lid_map_save(s->lids, s->o.guid2lid);

		if (w < 0)
			diag_msg(msgs, "%s: cannot save the guid-to-LID map: %s; LIDs may change "
				 "if loomd restarts before the next save", s->o.guid2lid, strerror(-w));
	}
	lid_report_free(&rep);
	return 0;
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

/*
 * The IPoIB broadcast groups of loom.yaml's partitions (without a file, the
 * default partition's, as OpenSM creates it) exist before MFTs are built.
 */
static int sync_ipoib(struct sweeper *s, struct diag *msgs)
{
	_cleanup_(config_freep) struct config *def = NULL;
	const struct config *c = s->o.config;
	int r;

	if (!c) {
		r = config_defaults(&def);
		if (r < 0)
			return r;
		c = def;
	}
	r = mcast_ipoib_sync(s->mcast, c);
	if (r == -ENOSPC) {
		diag_msg(msgs, "multicast: no free MLID for an IPoIB broadcast group; "
			 "the partitions left without one have no IPoIB");
		r = 0;
	}
	return r;
}

/* On success *keep holds the routes (zeroed if routing failed), for the SA. */
static int route_and_program(struct sweeper *s, struct subnet *sn, struct disc_live *live,
			     struct route_out *keep, struct sweep_stats *st, struct diag *msgs)
{
	_cleanup_(route_out_free) struct route_out ro = { 0 };
	struct prog_report prep = { .msgs.limit = PROG_MAX_MSGS };
	struct route_why why = { { 0 } };
	struct pkey_plan plan = { 0 };
	_cleanup_(config_freep) struct config *def = NULL;
	struct prog_opts po = { .sm_lid = sn->port[sm_port(sn, live)].lid,
				.subnet_prefix = s->o.subnet_prefix ? s->o.subnet_prefix :
						 sn->subnet_prefix };
	int r;

	if (!po.subnet_prefix)
		po.subnet_prefix = 0xfe80000000000000ULL; /* IBA 4.1.1: the default GID prefix */
	r = s->o.engine->route(sn, &s->o.route, &ro, &why);
	if (r < 0) {
		diag_msg(msgs, "routing (%s): %s; forwarding tables left as they are",
			 s->o.engine->name, why.msg);
		not_up(st, "routing failed");
		return 0;
	}
	if (ro.stats.unreach) {
		diag_msg(msgs, "routing (%s): %s", s->o.engine->name, why.msg);
		not_up(st, "%u LIDs unreachable from some switch", ro.stats.unreach_lids);
	}
	if (s->o.config) {
		struct diag pm = { .limit = 32 };

		r = pkey_plan_build(sn, s->o.config, sm_port(sn, live), &plan, &pm);
		copy_msgs(msgs, &pm, "partitions");
		diag_free(&pm);
		if (r < 0)
			return r;
		po.pkeys = &plan;
		po.qos = s->o.config;
	} else if (ro.sl && config_defaults(&def) == 0) {
		/* No loom.yaml, but the engine's SL-to-VL map must be programmed:
		 * the default QoS classes carry it (prog_qos.c). */
		po.qos = def;
	}
	r = sync_ipoib(s, msgs);
	if (r < 0) {
		pkey_plan_free(&plan);
		return r;
	}
	po.mcast = s->mcast;
	r = prog_run(s->x, sn, live, &ro, &po, s->cache, &prep);
	pkey_plan_free(&plan);
	copy_msgs(msgs, &prep.msgs, "programming");
	st->changes = prep.port_sets + prep.si_sets + prep.lft_blocks + prep.activated +
		      prep.pkey_blocks + prep.qos_blocks + prep.mft_blocks;
	st->mft_blocks = prep.mft_blocks;
	st->qos_blocks = prep.qos_blocks;
	st->lft_blocks = prep.lft_blocks;
	st->pkey_blocks = prep.pkey_blocks;
	if (prep.failed)
		not_up(st, "%u requests refused or unanswered", prep.failed);
	if (prep.not_active)
		not_up(st, "%u linked ports not Active", prep.not_active);
	prog_report_free(&prep);
	*keep = ro;
	memset(&ro, 0, sizeof(ro)); /* handed over: the cleanup frees nothing */
	return r;
}

int sweep_heavy(struct sweeper *s, struct sweep_stats *st, struct diag *msgs)
{
	struct disc_report drep = { .msgs.limit = DISC_MAX_MSGS };
	struct disc_live live = { 0 };
	struct route_out ro = { 0 };
	struct subnet *sn = NULL;
	uint64_t t0 = now_ms(), sent0 = txn_stats(s->x)->sent;
	int r;

	memset(st, 0, sizeof(*st));
	st->heavy = true;
	r = disc_run(s->x, &sn, &live, &drep);
	copy_msgs(msgs, &drep.msgs, "discovery");
	if (drep.timeouts + drep.errors)
		not_up(st, "discovery: %u requests unanswered or refused", drep.timeouts + drep.errors);
	disc_report_free(&drep);
	if (r < 0)
		return r;
	st->nodes = sn->n_nodes;
	st->ports = sn->n_ports;
	r = assign_lids(s, sn, msgs);
	if (r == 0) {
		uint32_t me = sm_port(sn, &live);

		s->agent->guid = sn->port[me].guid ? sn->port[me].guid : sn->node[0].port0_guid;
		r = route_and_program(s, sn, &live, &ro, st, msgs);
	}
	if (r < 0) {
		route_out_free(&ro);
		subnet_free(sn);
		disc_live_free(&live);
		return r;
	}
	subnet_free(s->sn);
	disc_live_free(&s->live);
	s->sn = sn;
	s->live = live;
	/* The routes go with the model they were computed on (node indices). */
	route_out_free(&s->routes);
	s->routes = ro;
	s->heavy++;
	st->up = s->up = !st->why_not[0];
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
	if (status < 0 || smp_decode_switch_info(resp, len, &si) < 0 || (si.life_state & 0x04))
		(*q->changed)++;
}

int sweep_light(struct sweeper *s, bool *changed, struct sweep_stats *st)
{
	uint64_t t0 = now_ms(), sent0 = txn_stats(s->x)->sent;
	unsigned n_changed = 0;
	int r = 0;

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
		r = txn_run(s->x, -1);
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
	r = prog_mft_run(s->x, s->sn, &s->live, &s->routes, s->mcast, &prep);
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
