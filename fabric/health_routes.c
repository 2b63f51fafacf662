/* SPDX-License-Identifier: MIT */
/*
 * The routes group: the LFTs read back from the switches (health_lft.c),
 * judged by routing/check.c as `loom verify` judges dump_lfts text, so the
 * two say the same thing of the same fabric. Each bad pair the checker names
 * becomes a finding on the switch where its route went wrong.
 *
 * Credit loops: where switch links run more than VL0, each route is followed
 * on the SL the SA gave for it (health_sl.c) and, hop by hop, on the VL the
 * switch's own SLtoVLMappingTable for that (input, output) port pair maps it
 * to (health_sl2vl.c): a credit loop on any VL is an error naming the links
 * (and so the switches) of the cycle. Without the SLs (no SA answered) the
 * old one-VL judgement stands, as a warning. Both are read only when every
 * route on VL 0 makes a cycle (health_routes_need_vls): otherwise no SLs
 * and tables can make one, and the reads are skipped.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/health.h"
#include "routing/check.h"

/* The highest LID any port holds, its LMC's LIDs included. */
static uint32_t max_lid_in_use(const struct subnet *sn)
{
	uint32_t max = 0;

	for (uint32_t p = 0; p < sn->n_ports; p++) {
		const struct subnet_port *sp = &sn->port[p];
		uint32_t top = (uint32_t)sp->lid + (1u << (sp->lmc & 7)) - 1;

		if (sp->lid && top > max)
			max = top;
	}
	return max;
}

/* Switches that did not answer, and those whose table stops below a LID in use. */
static void judge_tops(const struct health_input *in, struct health_findings *fs)
{
	const struct subnet *sn = in->sn;
	const struct route_out *ro = &in->lft->ro;
	uint32_t max = max_lid_in_use(sn);
	char m[HEALTH_TEXT], e[HEALTH_TEXT];

	for (uint32_t s = 0; s < ro->n_sw; s++) {
		uint32_t node = ro->sw_node[s];
		uint16_t top = in->live->node[node].si.lin_top;

		if (in->lft->status[s] < 0) {
			snprintf(m, sizeof(m), "%s", in->lft->status[s] == -ETIMEDOUT ?
				 "no answer" : strerror(-in->lft->status[s]));
			health_add(fs, HEALTH_ROUTES, HEALTH_ERROR, sn, node, 0, "lft read", m,
				   "every LFT block answers",
				   "the blocks not read count as dropping their LIDs");
		}
		/* IBA 14.2.5.4: a switch drops unicast DLIDs above LinearFDBTop. */
		if (top < max) {
			snprintf(m, sizeof(m), "LinearFDBTop 0x%04x", top);
			snprintf(e, sizeof(e), ">= 0x%04x (the highest LID in use)", max);
			health_add(fs, HEALTH_ROUTES, HEALTH_ERROR, sn, node, 0, "lft top", m, e,
				   "the switch drops every LID above its top");
		}
	}
}

/* The node of the switch named after key in a checker message ("... (0xGUID)"). */
static uint32_t msg_switch(const struct subnet *sn, const char *msg, const char *key)
{
	const char *p = strstr(msg, key);
	uint64_t guid;

	if (!p)
		return SUBNET_NONE;
	p = strstr(p + strlen(key), "\" (0x");
	if (!p || sscanf(p + 5, "%" SCNx64, &guid) != 1)
		return SUBNET_NONE;
	return subnet_find_guid(sn, guid);
}

/* Whether some switch-to-switch link runs more than VL0 (IBA 14.2.5.6 OperationalVLs). */
static bool several_vls(const struct subnet *sn, const struct disc_live *live)
{
	for (uint32_t p = 0; p < sn->n_ports; p++) {
		const struct subnet_port *sp = &sn->port[p];

		if (sp->peer == SUBNET_NONE || !subnet_is_switch(sn, sp->node) ||
		    !subnet_is_switch(sn, sn->port[sp->peer].node))
			continue;
		if (live->port[p].have_pi && live->port[p].pi.op_vls > 1)
			return true;
	}
	return false;
}

/* check_opts.vl_of over the tables read back: unread pairs carry every SL on VL0. */
static uint8_t vl_read(void *ctx, uint32_t node, uint8_t in, uint8_t out, uint8_t sl)
{
	const struct health_sl2vl *h = ctx;
	uint32_t s = h->sw_index[node];

	if (s == SUBNET_NONE || s >= h->n_sw || in >= h->stride[s] || out >= h->stride[s])
		return 0;
	return health_sl2vl_table(h, s, in, out)[sl & 15];
}

/* Whether the SLs and SL-to-VL tables were read well enough to judge VLs by them. */
static bool have_vls(const struct health_input *in)
{
	return in->sl2vl && in->sl && in->sl->sl;
}

/* The reads behind the per-VL judgement: tables not answered, SLs not given. */
static void judge_vl_reads(const struct health_input *in, struct health_findings *fs)
{
	const struct health_sl2vl *h = in->sl2vl;
	char m[HEALTH_TEXT], e[HEALTH_TEXT];

	if (!h)
		return;
	for (uint32_t s = 0; s < h->n_sw; s++) {
		if (!h->status[s])
			continue;
		snprintf(m, sizeof(m), "%s", h->status[s] == -ETIMEDOUT ? "no answer" :
					     strerror(-h->status[s]));
		health_add(fs, HEALTH_ROUTES, HEALTH_ERROR, in->sn, in->lft->ro.sw_node[s], 0,
			   "sl2vl read", m, "every SL-to-VL table answers",
			   "the tables not read count as mapping every SL to VL0");
	}
	/* No SLs at all: the one-VL judgement stands (msg_finding says why). */
	if (!in->sl || !in->sl->sl || !in->sl->failed)
		return;
	snprintf(m, sizeof(m), "%u of %u PathRecords not answered", in->sl->failed,
		 in->sl->asked);
	snprintf(e, sizeof(e), "the SA's PathRecord for every (switch's host, LID)");
	health_add(fs, HEALTH_ROUTES, HEALTH_WARNING, in->sn, SUBNET_NONE, 0, "route sl", m, e,
		   "their routes are judged on SL 0");
}

/* The judge's options for the checker: the bad pairs it names, and room for their lines. */
#define JUDGE_OPTS ((struct check_opts){ .max_msgs = CHECK_MSGS_DEFAULT })
#define JUDGE_DIAG ((struct diag){ .limit = 2 * CHECK_MSGS_DEFAULT })

bool health_routes_need_vls(const struct subnet *sn, const struct disc_live *live,
			    struct health_lft *lft)
{
	struct check_opts o = JUDGE_OPTS;
	struct check_report rep;

	if (!lft || !lft->ro.n_sw || !max_lid_in_use(sn) || !several_vls(sn, live))
		return false;
	/*
	 * Every route on VL 0 is the coarsest view: a cycle on the VLs the
	 * tables give projects onto a cycle here, so no cycle here is no cycle
	 * for any SLs and SL-to-VL tables. Run as the judge runs it, and kept:
	 * on a large fabric the checker costs as much as a tenth of the reads.
	 */
	diag_free(&lft->vl0_msgs);
	lft->vl0_msgs = JUDGE_DIAG;
	lft->vl0_status = check_routes(sn, &lft->ro, &o, &rep, &lft->vl0_msgs);
	lft->vl0_kept = true;
	return lft->vl0_status == 0 && !rep.cdg_acyclic;
}

/* One checker message as a finding. */
static void msg_finding(const struct health_input *in, const char *msg, bool vls,
			struct health_findings *fs)
{
	static const struct {
		const char *mark, *what, *key;
	} kind[] = {
		{ ": dropped at switch \"", "unreachable", "dropped at switch \"" },
		{ ": misdelivered: switch \"", "misdelivered", "misdelivered: switch \"" },
		{ ": loops: ", "loop", "comes back to switch \"" },
		{ "not linked to a switch", "unreachable", NULL },
		/* named on the switch the hosts' routes enter by (where it maps to VL 15: not said) */
		{ ": their SL maps to VL 15", "unreachable", "hosts of switch \"" },
	};
	const char *lid = strstr(msg, " LID ");
	uint32_t node = SUBNET_NONE;
	char m[HEALTH_TEXT];
	unsigned l;

	if (!strncmp(msg, "credit loop", 11) && have_vls(in)) {
		/* Judged per VL on the SLs and tables the fabric holds: a real cycle. */
		health_add(fs, HEALTH_ROUTES, HEALTH_ERROR, in->sn,
			   SUBNET_NONE, 0, "credit loop",
			   "a cycle of channel dependencies",
			   "none on any VL (judged on the SA's SLs and the SL2VL tables)",
			   msg);
		return;
	}
	if (!strncmp(msg, "credit loop", 11)) {
		/* The checker follows every route on VL 0: without the SLs (the SA
		 * did not answer) a cycle on one VL may be broken by VLs the fabric runs. */
		health_add(fs, HEALTH_ROUTES, vls ? HEALTH_WARNING : HEALTH_ERROR, in->sn,
			   SUBNET_NONE, 0, "credit loop", "a cycle of channel dependencies",
			   vls ? "none on one VL (judged on one VL: the SA gave no SLs)" :
				 "none (one VL)", msg);
		return;
	}
	for (size_t i = 0; i < sizeof(kind) / sizeof(kind[0]); i++) {
		if (!strstr(msg, kind[i].mark))
			continue;
		if (kind[i].key)
			node = msg_switch(in->sn, msg, kind[i].key);
		if (lid && sscanf(lid, " LID %u", &l) == 1)
			snprintf(m, sizeof(m), "LID %u %s", l, kind[i].what);
		else
			snprintf(m, sizeof(m), "%s", kind[i].what);
		health_add(fs, HEALTH_ROUTES, HEALTH_ERROR, in->sn, node, 0, kind[i].what, m,
			   "delivered", msg);
		return;
	}
	health_add(fs, HEALTH_ROUTES, HEALTH_ERROR, in->sn, SUBNET_NONE, 0, "routes",
		   "bad pairs", "every pair delivered", msg);
}

void health_routes_judge(const struct health_input *in, struct health_findings *fs)
{
	struct check_opts o = JUDGE_OPTS;
	struct check_report rep;
	struct diag d = JUDGE_DIAG;
	const struct diag *msgs = &d;
	char m[HEALTH_TEXT];
	bool vls;
	int r;

	if (!in->lft || !in->lft->ro.n_sw)
		return;
	if (!max_lid_in_use(in->sn)) {
		/* Not judged is not healthy: with no LIDs there is nothing to follow. */
		health_add(fs, HEALTH_ROUTES, HEALTH_ERROR, in->sn, SUBNET_NONE, 0, "routes",
			   "not judged: no port has a LID", "LIDs and tables to follow", NULL);
		return;
	}
	judge_tops(in, fs);
	judge_vl_reads(in, fs);
	if (have_vls(in)) {
		o.sl = in->sl->sl;
		o.vl_of = vl_read;
		o.vl_ctx = (void *)in->sl2vl;
		r = check_routes(in->sn, &in->lft->ro, &o, &rep, &d);
	} else if (in->lft->vl0_kept) {
		/* The same run on the same tables: health_routes_need_vls kept it. */
		r = in->lft->vl0_status;
		msgs = &in->lft->vl0_msgs;
	} else {
		r = check_routes(in->sn, &in->lft->ro, &o, &rep, &d);
	}
	if (r < 0) {
		/* -EINVAL: the model has no LIDs, or LIDs that clash (the sm group names them). */
		snprintf(m, sizeof(m), "%s", r == -EINVAL ? "not judged" : strerror(-r));
		health_add(fs, HEALTH_ROUTES, HEALTH_ERROR, in->sn, SUBNET_NONE, 0, "routes", m,
			   "tables the checker can follow",
			   r == -EINVAL ? "the fabric has no LIDs, or LIDs that clash" : NULL);
		diag_free(&d);
		return;
	}
	vls = several_vls(in->sn, in->live);
	for (unsigned i = 0; i < msgs->n; i++)
		msg_finding(in, msgs->msg[i], vls, fs);
	diag_free(&d);
}
