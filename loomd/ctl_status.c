/* SPDX-License-Identifier: MIT */
/*
 * What `loom status` shows, gathered from the daemon's parts (ctl.h's
 * struct ctl_view): the SM's agent, the transaction layer's counters, the
 * SA's, the sweeper's state. Read between sweeps, in the loop's thread.
 */
#include <stdio.h>

#include "loomd/agent.h"
#include "loomd/ctl.h"
#include "loomd/ha.h"
#include "loomd/sweep.h"
#include "mad/txn.h"
#include "sa/sa.h"

void ctl_status_fill(const struct ctl_view *v, struct ctl_status *out)
{
	const struct txn_stats *t = txn_stats(v->x);
	const struct config *cfg = *v->cfg;

	out->version = PACKAGE_VERSION;
	out->guid = v->agent->guid;
	out->sm_state = v->agent->state;
	out->priority = v->agent->priority;
	out->up = v->sw->up;
	snprintf(out->why_not, sizeof(out->why_not), "%s", v->why_not);
	/* The engine that routed the last heavy sweep, and those that refused before it. */
	out->engine = v->sw->plan.engine ? v->sw->plan.engine->name : NULL;
	if (v->sw->plan.n_refused)
		plan_refused_str(&v->sw->plan, out->refused, sizeof(out->refused));
	out->config = cfg && cfg->file ? cfg->file : NULL;
	/* A targeted sweep plans and programs as a heavy one does: counted with them. */
	out->heavy = v->sw->heavy + v->sw->targeted;
	out->light = v->sw->light;
	out->smps = t->sent;
	out->smp_retries = t->retries;
	out->smp_timeouts = t->timeouts;
	out->smp_failed = t->failed;
	out->dropped_malformed = t->dropped[TXN_DROP_MALFORMED];
	out->dropped_unexpected = t->dropped[TXN_DROP_UNEXPECTED];
	out->dropped_late = t->dropped[TXN_DROP_LATE];
	out->traps = v->agent->traps;
	out->sminfo_gets = v->agent->sminfo_gets;
	out->trap256 = v->agent->trap256;
	/* What is in force: the mkey: section is taken at the start only. */
	out->mkey_on = v->sw->o.mkey != NULL;
	out->mkey_protect = v->sw->o.mkey ? v->sw->o.mkey->protect : 0;
	out->mkey_foreign = v->sw->mkey_foreign;
	out->sa_requests = v->sa->st.requests;
	out->sa_answered = v->sa->st.answered;
	out->sa_refused = v->sa->st.refused;
	out->sa_dropped = v->sa->st.dropped + v->sa->st.wrong_key;
	/* A standby knows its master; a master, what its last look at the IsSM ports read. */
	if (v->ha && v->agent->state == SMP_SM_STANDBY && v->ha->sm.have_peer) {
		out->others[0] = (struct ctl_sm){ .guid = v->ha->sm.peer.guid,
						  .priority = v->ha->sm.peer.priority,
						  .state = v->ha->sm.peer.state };
		out->n_others = 1;
	} else if (v->ha) {
		for (unsigned i = 0; i < v->ha->n_others && out->n_others < CTL_SMS; i++)
			out->others[out->n_others++] = (struct ctl_sm){
				.guid = v->ha->others[i].guid, .priority = v->ha->others[i].priority,
				.state = v->ha->others[i].state };
	}
}
