/* SPDX-License-Identifier: MIT */
/*
 * The sm group: one master SM (IBA 14.4) whose ActCount moves, every LID
 * unique and assigned (IBA 4.1.3), every port told the master's LID
 * (PortInfo:MasterSMLID).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/health.h"

/*
 * The ports that hold a LID: a CA's or router's ports that are not Down, and
 * a switch's port 0 (IBA 14.2.5.6: a switch's LID is its port 0's).
 */
static bool holds_lid(const struct health_input *in, uint32_t p)
{
	const struct subnet_port *sp = &in->sn->port[p];
	const struct disc_port *dp = &in->live->port[p];

	if (!dp->have_pi)
		return false;
	if (subnet_is_switch(in->sn, sp->node))
		return sp->num == 0;
	return sp->num > 0 && dp->pi.state != SMP_PORT_DOWN;
}

static void port_str(const struct subnet *sn, uint32_t p, char *buf, size_t len)
{
	const struct subnet_node *n = &sn->node[sn->port[p].node];

	snprintf(buf, len, "\"%s\" 0x%016" PRIx64 " port %u", subnet_str(sn, n->desc), n->guid,
		 sn->port[p].num);
}

/*
 * The port of the first master SM found, SUBNET_NONE if none; a finding for
 * every SMInfo that could not be read and for each master past the first
 * (IBA 14.4: standbys and not-active SMs are fine).
 */
static uint32_t find_master(const struct health_input *in, struct health_findings *fs)
{
	const struct subnet *sn = in->sn;
	uint32_t master = SUBNET_NONE;
	char m[HEALTH_TEXT], d[2 * HEALTH_TEXT];

	for (uint32_t p = 0; p < sn->n_ports; p++) {
		const struct health_sm_port *s = &in->sm[p];

		if (!s->asked)
			continue;
		if (s->status < 0) {
			snprintf(m, sizeof(m), "no SMInfo: %s", strerror(-s->status));
			health_add(fs, HEALTH_SM, HEALTH_WARNING, sn, sn->port[p].node,
				   sn->port[p].num, "sminfo", m, "an SMInfo answer",
				   "its CapabilityMask says IsSM");
			continue;
		}
		if (s->smi.state != SMP_SM_MASTER)
			continue;
		if (master == SUBNET_NONE) {
			master = p;
			continue;
		}
		port_str(sn, master, d, sizeof(d));
		snprintf(m, sizeof(m), "MASTER, priority %u", s->smi.priority);
		health_add(fs, HEALTH_SM, HEALTH_ERROR, sn, sn->port[p].node, sn->port[p].num,
			   "second master", m, "one master SM in the subnet", d);
	}
	return master;
}

static const char *const sm_state_name[] = {
	[SMP_SM_NOT_ACTIVE] = "NOTACTIVE",
	[SMP_SM_DISCOVERING] = "DISCOVERING",
	[SMP_SM_STANDBY] = "STANDBY",
	[SMP_SM_MASTER] = "MASTER",
};

/* IBA 14.4.1.1: the SM with the higher priority (then the lower GUID) wins the election. */
static bool beats(const struct smp_sm_info *a, const struct smp_sm_info *b)
{
	return a->priority > b->priority || (a->priority == b->priority && a->guid < b->guid);
}

/*
 * Every other SM: a warning that names it (an operator wants to know where
 * the SMs are; standbys are what HA setups have), an error when a standby
 * should have won the election and did not take over.
 */
static void judge_others(const struct health_input *in, struct health_findings *fs,
			 uint32_t master)
{
	const struct subnet *sn = in->sn;
	const struct smp_sm_info *mi = &in->sm[master].smi;
	char m[HEALTH_TEXT], e[HEALTH_TEXT], d[2 * HEALTH_TEXT];

	for (uint32_t p = 0; p < sn->n_ports; p++) {
		const struct smp_sm_info *si = &in->sm[p].smi;
		bool wins;

		if (!in->sm[p].asked || in->sm[p].status || p == master)
			continue;
		wins = si->state == SMP_SM_STANDBY && beats(si, mi);
		snprintf(m, sizeof(m), "%s, priority %u", si->state <= SMP_SM_MASTER ?
			 sm_state_name[si->state] : "?", si->priority);
		snprintf(e, sizeof(e), wins ? "MASTER (it beats the master, priority %u)" :
			 "only the master SM (priority %u)", mi->priority);
		memcpy(d, "master is ", 10);
		port_str(sn, master, d + 10, sizeof(d) - 10);
		health_add(fs, HEALTH_SM, wins ? HEALTH_ERROR : HEALTH_WARNING, sn,
			   sn->port[p].node, sn->port[p].num, "other sm", m, e, d);
	}
}

/*
 * IBA 14.2.5.13, 14.4.1: a master's ActCount counts its management activity;
 * a standby that sees it stop takes over. Read twice, it did not move: the
 * master answers but does not work.
 */
static void judge_activity(const struct health_input *in, struct health_findings *fs,
			   uint32_t master)
{
	const struct health_sm_port *s = &in->sm[master];
	const struct subnet_port *sp = &in->sn->port[master];
	char m[HEALTH_TEXT], d[2 * HEALTH_TEXT];

	if (!s->again)
		return;
	if (s->status2 < 0) {
		snprintf(m, sizeof(m), "no second SMInfo: %s", strerror(-s->status2));
		health_add(fs, HEALTH_SM, HEALTH_WARNING, in->sn, sp->node, sp->num, "act count", m,
			   "an SMInfo answer", "the first read answered MASTER");
		return;
	}
	if (s->smi2.act_count != s->smi.act_count)
		return;
	snprintf(m, sizeof(m), "ActCount %" PRIu32 " unchanged after %" PRIu32 " ms",
		 s->smi.act_count, s->waited_ms);
	snprintf(d, sizeof(d), "SM GUID 0x%016" PRIx64 ": it answers SMInfo but does not "
		 "sweep; a longer --activity-wait rules out an idle SM", s->smi.guid);
	health_add(fs, HEALTH_SM, HEALTH_ERROR, in->sn, sp->node, sp->num, "act count", m,
		   "ActCount moving (a working SM counts the SMPs it sends)", d);
}

static void judge_masters(const struct health_input *in, struct health_findings *fs,
			  uint32_t *master_lid)
{
	const struct subnet *sn = in->sn;
	uint32_t master = find_master(in, fs), n = 0;
	char m[HEALTH_TEXT], d[2 * HEALTH_TEXT];

	*master_lid = 0;
	for (uint32_t p = 0; p < sn->n_ports; p++)
		n += in->sm[p].asked && !in->sm[p].status && in->sm[p].smi.state == SMP_SM_MASTER;
	if (master == SUBNET_NONE) {
		health_add(fs, HEALTH_SM, HEALTH_ERROR, sn, SUBNET_NONE, 0, "master",
			   "no port answers SMInfo as MASTER", "one master SM", NULL);
		return;
	}
	if (n > 1) {
		snprintf(m, sizeof(m), "MASTER, priority %u (one of %u)",
			 in->sm[master].smi.priority, n);
		snprintf(d, sizeof(d), "SM GUID 0x%016" PRIx64, in->sm[master].smi.guid);
		health_add(fs, HEALTH_SM, HEALTH_ERROR, sn, sn->port[master].node,
			   sn->port[master].num, "second master", m, "one master SM in the subnet",
			   d);
		return;
	}
	*master_lid = in->live->port[master].pi.lid;
	judge_others(in, fs, master);
	judge_activity(in, fs, master);
}

struct lid_range {
	uint32_t first, last; /* LIDs the port answers to: base .. base + 2^LMC - 1 */
	uint32_t port;
};

static int cmp_range(const void *a, const void *b)
{
	const struct lid_range *x = a, *y = b;

	if (x->first != y->first)
		return x->first < y->first ? -1 : 1;
	return x->port < y->port ? -1 : x->port > y->port;
}

/* Zero, out-of-range and overlapping LIDs (IBA 4.1.3, 7.11.1: LMC gives 2^LMC LIDs). */
static void judge_lids(const struct health_input *in, struct health_findings *fs)
{
	const struct subnet *sn = in->sn;
	struct lid_range *r = calloc(sn->n_ports ? sn->n_ports : 1, sizeof(*r));
	uint32_t n = 0, reach = 0, owner = SUBNET_NONE;
	char m[HEALTH_TEXT], d[2 * HEALTH_TEXT];

	if (!r) {
		fs->err = -ENOMEM;
		return;
	}
	for (uint32_t p = 0; p < sn->n_ports; p++) {
		const struct smp_port_info *pi = &in->live->port[p].pi;

		if (!holds_lid(in, p))
			continue;
		if (pi->lid == 0 || pi->lid > SUBNET_LID_UCAST_END) {
			snprintf(m, sizeof(m), "LID 0x%x", pi->lid);
			health_add(fs, HEALTH_SM, HEALTH_ERROR, sn, sn->port[p].node,
				   sn->port[p].num, "lid", m, "a unicast LID (0x1-0xbfff)", NULL);
			continue;
		}
		r[n++] = (struct lid_range){ pi->lid, pi->lid + (1u << (pi->lmc & 7)) - 1, p };
	}
	qsort(r, n, sizeof(*r), cmp_range);
	for (uint32_t i = 0; i < n; i++) {
		if (owner != SUBNET_NONE && r[i].first <= reach) {
			port_str(sn, owner, d, sizeof(d));
			snprintf(m, sizeof(m), "LID %u (LMC %u)", r[i].first,
				 in->live->port[r[i].port].pi.lmc);
			health_add(fs, HEALTH_SM, HEALTH_ERROR, sn, sn->port[r[i].port].node,
				   sn->port[r[i].port].num, "duplicate lid", m,
				   "a LID no other port has", d);
		}
		if (owner == SUBNET_NONE || r[i].last > reach) {
			reach = r[i].last;
			owner = r[i].port;
		}
	}
	free(r);
}

/* IBA 14.2.5.6 MasterSMLID: where a port sends traps and asks for the SA. */
static void judge_sm_lid(const struct health_input *in, struct health_findings *fs,
			 uint32_t master_lid)
{
	const struct subnet *sn = in->sn;
	char m[HEALTH_TEXT], e[HEALTH_TEXT];

	for (uint32_t p = 0; p < sn->n_ports; p++) {
		const struct smp_port_info *pi = &in->live->port[p].pi;

		if (!holds_lid(in, p) || pi->sm_lid == master_lid)
			continue;
		snprintf(m, sizeof(m), "MasterSMLID %u", pi->sm_lid);
		snprintf(e, sizeof(e), "%u, the master's LID", master_lid);
		health_add(fs, HEALTH_SM, HEALTH_ERROR, sn, sn->port[p].node, sn->port[p].num,
			   "sm lid", m, e, NULL);
	}
}

void health_sm_judge(const struct health_input *in, struct health_findings *fs)
{
	uint32_t master_lid = 0;

	judge_lids(in, fs);
	if (!in->sm)
		return;
	judge_masters(in, fs, &master_lid);
	if (master_lid)
		judge_sm_lid(in, fs, master_lid);
}
