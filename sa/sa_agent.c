/* SPDX-License-Identifier: MIT */
/*
 * The SA agent as loomd runs it: requests come from the transaction
 * layer's request hook (between sweeps, or mid-sweep from within txn_run),
 * answers go out through the transport. The view is rebuilt only when a
 * heavy sweep brought a new model or SIGHUP a new configuration; mid-sweep
 * requests are answered from the last finished sweep.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "sa/sa_priv.h"
#include "sm/agent.h"
#include "sm/sweep.h"

void sa_init(struct sa *sa, const struct sweeper *sw, const struct agent *a, sa_send_fn send,
	     void *send_arg)
{
	memset(sa, 0, sizeof(*sa));
	sa->sw = sw;
	sa->agent = a;
	sa->send = send;
	sa->send_arg = send_arg;
}

void sa_free(struct sa *sa)
{
	sa_src_free(&sa->src);
	if (sa->have_plan)
		pkey_plan_free(&sa->plan);
	sa->have_plan = false;
	config_free(sa->qos_def);
	sa->qos_def = NULL;
}

/* The port the SM sends through, as sweep.c finds it. */
static uint32_t sm_port_of(const struct sweeper *sw)
{
	const struct subnet *sn = sw->sn;

	return subnet_port_idx(sn, 0, subnet_is_switch(sn, 0) ? 0 : sw->live.local_port);
}

/*
 * The P_Keys each port holds are the plan programming sent: rebuilt from
 * the same configuration and model with the same function, so the SA and
 * the fabric agree without sweep.c keeping its plan around.
 */
static int refresh(struct sa *sa)
{
	const struct sweeper *sw = sa->sw;
	struct sa_src *s = &sa->src;
	int r;

	if (sa->gen == sw->heavy && sa->gen_sn == sw->sn && sa->gen_cfg == sw->o.config &&
	    (s->by_lid || !sw->sn))
		return 0;
	if (sa->have_plan)
		pkey_plan_free(&sa->plan);
	sa->have_plan = false;
	s->sn = sw->sn;
	s->live = &sw->live;
	s->lfts = sw->cache;
	s->pkeys = NULL;
	/* The routes belong to sw->sn (the sweeper swaps both together). */
	s->routes = sw->routes.n_sw ? &sw->routes : NULL;
	s->config = sw->o.config;
	/*
	 * SL2VL and VLArb records say what programming sends (prog_want_*),
	 * with the classes sweep.c hands it: loom.yaml's, else the defaults
	 * when the engine's SL-to-VL map must go out. Else loomd leaves the
	 * tables as the ports came up, which the SA does not know: no records.
	 */
	if (!sw->o.config && sw->routes.sl && !sa->qos_def && config_defaults(&sa->qos_def) < 0)
		return -ENOMEM;
	s->qos = sw->o.config ? sw->o.config : sw->routes.sl ? sa->qos_def : NULL;
	if (sw->sn) {
		s->sm_port = sm_port_of(sw);
		if (sw->o.config) {
			struct diag msgs = { .limit = 1 };

			memset(&sa->plan, 0, sizeof(sa->plan));
			r = pkey_plan_build(sw->sn, sw->o.config, s->sm_port, &sa->plan, &msgs);
			diag_free(&msgs); /* the sweep reported these already */
			if (r < 0)
				return r;
			sa->have_plan = true;
			s->pkeys = &sa->plan;
		}
	}
	r = sa_src_index(s);
	if (r < 0)
		return r;
	sa->gen = sw->heavy;
	sa->gen_sn = sw->sn;
	sa->gen_cfg = sw->o.config;
	return 0;
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
	sa->src.sm = (struct sa_sm){
		.guid = sa->agent->guid,
		.sm_key = sa->agent->sm_key,
		.act_count = (uint32_t)txn_stats(sa->agent->x)->sent,
		.priority = sa->agent->priority,
		.state = sa->agent->state,
	};
	r = sa_answer(&sa->src, mad, len, from, &out, &out_len, &status);
	if (r < 0) {
		if (r == -EPROTO)
			sa->st.dropped++;
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
