/* SPDX-License-Identifier: MIT */
/*
 * The one order in which a fabric is planned: LIDs first (routes are per
 * LID), then routes, then what only a routed fabric can be given (P_Keys,
 * QoS classes, IPoIB groups). loomd's heavy sweep, loom route and the SA all
 * come through here, so they cannot drift apart.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "plan/plan.h"

uint32_t plan_sm_port(const struct subnet *sn, uint8_t local_port)
{
	return subnet_port_idx(sn, 0, subnet_is_switch(sn, 0) ? 0 : local_port);
}

/*
 * The QoS classes the ports follow: loom.yaml's; without a file, the default
 * classes (every SL spread over the VLs a port runs: all on VL 0 where it runs
 * one; fabric/prog_qos.c carries an engine's SL-to-VL map in them). Always
 * some: every port's SL2VL and VLArb tables are programmed, so the SA's
 * records say what the ports hold, as OpenSM's do.
 */
static int pick_qos(const struct plan_opts *o, struct plan *p)
{
	if (o->config) {
		p->qos = o->config;
		return 0;
	}
	if (config_defaults(&p->qos_def) < 0)
		return -ENOMEM;
	p->qos = p->qos_def;
	return 0;
}

/*
 * The IPoIB broadcast groups of loom.yaml's partitions (without a file, the
 * default partition's, as OpenSM creates it) exist before MFTs are built.
 */
static int sync_ipoib(const struct plan_opts *o, struct mcast *mc, struct plan_report *rep)
{
	struct config *def = NULL;
	const struct config *c = o->config;
	int r;

	if (!c) {
		r = config_defaults(&def);
		if (r < 0)
			return r;
		c = def;
	}
	r = mcast_ipoib_sync(mc, c);
	config_free(def);
	if (r == -ENOSPC) {
		rep->no_mlid = true;
		r = 0;
	}
	return r;
}

/* Each engine in turn until one routes; the refusals are kept, in order. */
static void route(const struct subnet *sn, const struct plan_opts *o, struct plan *p)
{
	struct route_opts ro = o->route;
	uint8_t cap = o->vl_cap ? o->vl_cap : 8;

	/* vlayered spreads routes over VLs: never over more than every switch port has. */
	if (!ro.vls || ro.vls > cap)
		ro.vls = cap;
	p->route_err = -EINVAL;
	route_why_set(&p->why, "no routing engine configured");
	for (unsigned i = 0; i < o->engines.n; i++) {
		const struct route_engine *e = o->engines.e[i];

		memset(&p->why, 0, sizeof(p->why));
		p->route_err = e->route(sn, &ro, &p->routes, &p->why);
		if (p->route_err >= 0) {
			p->route_err = 0;
			p->engine = e;
			return;
		}
		route_out_free(&p->routes);
		p->refused[p->n_refused++] = (struct plan_refusal){ e, p->why };
	}
}

const char *plan_refused_str(const struct plan *p, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = 0;
	for (unsigned i = 0; i < p->n_refused && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s: %s", i ? "; " : "",
					p->refused[i].engine->name, p->refused[i].why.msg);
	return buf;
}

int plan_build(struct subnet *sn, struct lid_map *lids, const struct plan_opts *o,
	       struct mcast *mc, struct plan *out, struct plan_report *rep)
{
	struct plan p = { .config = o->config, .sm_port = o->sm_port };
	int r;

	r = lid_assign_order(sn, lids, o->route.lmc, o->lid_cap, o->lids_fabric_first, &rep->lids);
	if (r == -ENOSPC)
		rep->lid_err = r;
	else if (r < 0)
		return r;
	p.sm_lid = sn->port[o->sm_port].lid;
	route(sn, o, &p);
	if (p.route_err < 0) {
		*out = p;
		return 0;
	}
	/*
	 * Another engine now (a refusal): its tables are its own; and the file
	 * engine's are the operator's, as the file has them.
	 */
	if (o->prev && (!o->prev_engine || o->prev_engine == p.engine) &&
	    p.engine != &route_file) {
		r = keep_routes(o->prev_sn ? o->prev_sn : sn, o->prev, sn, &p.routes, &rep->keep);
		if (r < 0)
			goto fail;
	}
	if (o->config) {
		r = pkey_plan_build(sn, o->config, o->sm_port, &p.pkeys, &rep->pkeys);
		if (r < 0)
			goto fail;
		p.have_pkeys = true;
	}
	r = pick_qos(o, &p);
	if (r == 0 && mc)
		r = sync_ipoib(o, mc, rep);
	if (r < 0)
		goto fail;
	*out = p;
	return 0;
fail:
	plan_free(&p);
	return r;
}

void plan_free(struct plan *p)
{
	if (!p)
		return;
	route_out_free(&p->routes);
	if (p->have_pkeys)
		pkey_plan_free(&p->pkeys);
	config_free(p->qos_def);
	memset(p, 0, sizeof(*p));
}

void plan_report_free(struct plan_report *rep)
{
	lid_report_free(&rep->lids);
	diag_free(&rep->pkeys);
}
