/* SPDX-License-Identifier: MIT */
/*
 * HA's MADs: what smstate.c decides, done on the fabric. Nothing here
 * programs a switch or a port: a standby's discovery only reads, so the
 * master's LIDs, tables and MasterSMLID stay as they are until this SM is
 * master (IBA 14.4.1.1: only the master configures the subnet).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fabric/disc.h"
#include "fabric/health_read.h"
#include "lib/log.h"
#include "loomd/ha.h"
#include "plan/plan.h"

void ha_init(struct ha *h, struct txn *x, uint8_t priority, uint64_t sm_key, uint64_t poll_us,
	     unsigned poll_misses, bool sticky)
{
	memset(h, 0, sizeof(*h));
	h->x = x;
	h->poll_us = poll_us;
	smstate_init(&h->sm, 0, priority, sm_key, poll_misses, sticky);
}

void ha_free(struct ha *h)
{
	subnet_free(h->sn);
	disc_live_free(&h->live);
	h->sn = NULL;
}

static struct smp_sm_info my_info(const struct ha *h, uint8_t state)
{
	return (struct smp_sm_info){ .guid = h->sm.guid, .sm_key = h->sm.sm_key,
				     .act_count = (uint32_t)txn_stats(h->x)->sent,
				     .priority = h->sm.priority, .state = state };
}

/* Discovery of our own, replacing the last: 0 or -errno (said). */
static int own_model(struct ha *h)
{
	struct disc_report rep = { .msgs.limit = 8 };
	struct disc_live live = { 0 };
	struct subnet *sn = NULL;
	int r;

	r = disc_run(h->x, &sn, &live, &rep);
	/*
	 * Reused by the first heavy sweep only when discovery had nothing to
	 * say: otherwise that sweep discovers again and reports it (a duplicate
	 * GUID, say) where the operator looks, in its own lines.
	 */
	h->clean = rep.timeouts + rep.errors + rep.conflicts == 0 && !rep.msgs.n &&
		   !rep.msgs.dropped;
	disc_report_free(&rep);
	if (r < 0) {
		log_warn("SM: discovery (to find the other SMs) failed: %s; trying again in %" PRIu64
			 " ms", strerror(-r), h->poll_us / 1000);
		return r;
	}
	ha_free(h);
	h->sn = sn;
	h->live = live;
	h->me = plan_sm_port(sn, live.local_port);
	h->sm.guid = sn->port[h->me].guid;
	if (!h->sm.guid)
		h->sm.guid = sn->node[0].port0_guid;
	return 0;
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

bool ha_take_model(struct ha *h, struct subnet **sn, struct disc_live *live, uint64_t *smps,
		   unsigned *ms)
{
	if (!h->sn || !h->clean)
		return false;
	*sn = h->sn;
	*live = h->live;
	*smps = h->disc_smps;
	*ms = h->disc_ms;
	h->sn = NULL;
	memset(&h->live, 0, sizeof(h->live));
	return true;
}

unsigned ha_discover(struct ha *h)
{
	struct health_sm_port *smp = NULL;
	struct smp_sm_info *peers;
	uint64_t t0 = now_ms(), sent0 = txn_stats(h->x)->sent;
	unsigned n = 0, act;
	struct txn_opts o;
	int r;

	if (own_model(h) < 0)
		return 0;
	/*
	 * After a failed master, one try each: the dead master's port would
	 * otherwise cost every retry before we take over. A lost answer here
	 * is a second master for a moment, which the light sweeps resolve.
	 */
	txn_set_timeout(h->x, 1, 0, &o);
	txn_set_timeout(h->x, o.timeout_ms, h->sm.lost_master ? 0 : o.retries, NULL);
	r = health_read_sm(h->x, h->sn, &h->live, &smp);
	txn_set_timeout(h->x, o.timeout_ms, o.retries, NULL);
	h->disc_smps = txn_stats(h->x)->sent - sent0;
	h->disc_ms = (unsigned)(now_ms() - t0);
	if (r < 0) {
		log_warn("SM: reading the other SMs' SMInfo failed: %s; trying again", strerror(-r));
		return 0;
	}
	peers = calloc(h->sn->n_ports + 1, sizeof(*peers));
	if (!peers) {
		free(smp);
		return 0;
	}
	for (uint32_t p = 0; p < h->sn->n_ports; p++) {
		if (!smp[p].asked || smp[p].status < 0 || smp[p].smi.guid == h->sm.guid ||
		    p == h->me)
			continue;
		if (!smstate_key_ok(&h->sm, &smp[p].smi)) {
			h->sm.ignored_keys++;
			log_warn("SM: SM 0x%016" PRIx64 " shows SM_Key 0x%016" PRIx64 ", not ours "
				 "(sm.sm-key): ignored", smp[p].smi.guid, smp[p].smi.sm_key);
			continue;
		}
		log_info("SM: found SM 0x%016" PRIx64 ", priority %u, %s", smp[p].smi.guid,
			 smp[p].smi.priority, smstate_name(smp[p].smi.state));
		peers[n++] = smp[p].smi;
	}
	act = smstate_input(&h->sm, &(struct sm_ev){ .in = SMI_DISCOVERED, .peers = peers,
						     .n_peers = n });
	free(peers);
	free(smp);
	return act;
}

struct one_read {
	int status;
	struct smp_sm_info smi;
};

static void on_one(void *arg, int status, const uint8_t *resp, size_t len)
{
	struct one_read *o = arg;

	if (status == 0)
		status = smp_decode_sm_info(resp, len, &o->smi);
	o->status = status;
}

/* One SMInfo Get or Set to the SM with port GUID guid: 0, or -errno. */
static int sminfo_io(struct ha *h, const struct subnet *sn, const struct disc_live *live,
		     uint64_t guid, struct smp_req *q, struct smp_sm_info *out)
{
	struct one_read o = { .status = -ETIMEDOUT };
	uint32_t p = sn ? subnet_find_port_guid(sn, guid) : SUBNET_NONE;
	int r;

	if (p == SUBNET_NONE && sn != h->sn && h->sn) {
		sn = h->sn;
		live = &h->live;
		p = subnet_find_port_guid(sn, guid);
	}
	if (p == SUBNET_NONE)
		return -ENOENT;
	q->attr_id = SMP_ATTR_SM_INFO;
	r = health_sm_path(sn, live, p, q);
	if (r == 0)
		r = txn_submit(h->x, q, on_one, &o);
	if (r == 0)
		r = txn_run(h->x, -1);
	if (r < 0)
		return r;
	if (o.status == 0 && out)
		*out = o.smi;
	return o.status;
}

unsigned ha_poll(struct ha *h)
{
	struct smp_req q = { .method = SMP_GET };
	struct smp_sm_info got;
	int r;

	if (!h->sm.have_peer)
		return 0;
	if (!h->sn && own_model(h) < 0)
		return 0;
	h->polls++;
	/*
	 * One try of ha_try_ms(): a miss only starts the confirmation, and
	 * sm.poll-misses of them in a row, sent back to back, span the
	 * window a live master never stays silent for (ha.h: ha_window_us).
	 */
	struct txn_opts o;

	txn_set_timeout(h->x, ha_try_ms(h), 0, &o);
	r = sminfo_io(h, h->sn, &h->live, h->sm.peer.guid, &q, &got);
	txn_set_timeout(h->x, o.timeout_ms, o.retries, NULL);
	if (r == 0 && got.guid == h->sm.peer.guid)
		return smstate_input(&h->sm, &(struct sm_ev){ .in = SMI_POLL, .peer = got });
	h->poll_missed++;
	if (r == -ENOENT) /* not in our model: look again, so the next poll finds it */
		(void)own_model(h);
	log_info("SM: poll of master 0x%016" PRIx64 " missed (%s), %u in a row", h->sm.peer.guid,
		 r < 0 ? strerror(-r) : "another SM answered", h->sm.missed + 1);
	return smstate_input(&h->sm, &(struct sm_ev){ .in = SMI_POLL_MISSED });
}

static uint64_t port_guid(const struct subnet *sn, uint32_t p)
{
	return sn->port[p].guid ? sn->port[p].guid : sn->node[sn->port[p].node].port0_guid;
}

struct look {
	const struct ha *h;
	const struct subnet *sn;
};

/* A light look asks the ports that answered SMInfo at the last whole one. */
static bool known_sm(void *arg, uint32_t p)
{
	const struct look *l = arg;
	uint64_t g = port_guid(l->sn, p);

	for (unsigned i = 0; i < l->h->n_known; i++)
		if (l->h->known[i] == g)
			return true;
	return false;
}

unsigned ha_look(struct ha *h, const struct subnet *sn, const struct disc_live *live, bool all)
{
	struct health_sm_port *smp = NULL;
	struct look l = { h, sn };
	unsigned act = 0;

	if (!sn || health_read_sm_some(h->x, sn, live, all ? NULL : known_sm, &l, &smp) < 0)
		return 0;
	h->n_others = 0;
	if (all)
		h->n_known = 0;
	for (uint32_t p = 0; p < sn->n_ports && !(act & SMA_SEND_HANDOVER); p++) {
		if (!smp[p].asked || smp[p].status < 0 || smp[p].smi.guid == h->sm.guid)
			continue;
		if (all && h->n_known < HA_OTHERS)
			h->known[h->n_known++] = port_guid(sn, p);
		if (h->n_others < HA_OTHERS && smstate_key_ok(&h->sm, &smp[p].smi))
			h->others[h->n_others++] = smp[p].smi;
		if (smp[p].smi.state == SMP_SM_MASTER)
			log_warn("SM: a second master on the subnet: SM 0x%016" PRIx64 " (priority "
				 "%u); the lower of us hands over", smp[p].smi.guid,
				 smp[p].smi.priority);
		act |= smstate_input(&h->sm, &(struct sm_ev){ .in = SMI_PEER, .peer = smp[p].smi });
	}
	free(smp);
	return act;
}

int ha_send_ctrl(struct ha *h, const struct subnet *sn, const struct disc_live *live,
		 uint32_t ctrl)
{
	struct smp_req q = { .method = SMP_SET, .attr_mod = ctrl };
	/* IBA 14.4.1: an ACKNOWLEDGE comes from the SM as it got the HANDOVER, a STANDBY. */
	struct smp_sm_info me = my_info(h, ctrl == SM_CTRL_ACKNOWLEDGE ? SMP_SM_STANDBY :
					   h->sm.state);
	int r;

	smp_encode_sm_info(&me, q.data);
	r = sminfo_io(h, sn, live, h->sm.peer.guid, &q, NULL);
	log_info("SM: SMInfo Set %s to SM 0x%016" PRIx64 ": %s",
		 ctrl == SM_CTRL_HANDOVER ? "HANDOVER" : ctrl == SM_CTRL_ACKNOWLEDGE ?
		 "ACKNOWLEDGE" : "control", h->sm.peer.guid, r == 0 ? "answered" : strerror(-r));
	return r;
}

int ha_send_trap144(struct ha *h)
{
	uint32_t p = h->sn ? subnet_find_port_guid(h->sn, h->sm.peer.guid) : SUBNET_NONE;
	uint8_t mad[MAD_SIZE];
	uint16_t lid;
	int r;

	if (p == SUBNET_NONE || !h->sn->port[p].lid || !h->sn->port[h->me].lid)
		return -ENOENT;
	lid = h->sn->port[h->me].lid;
	smp_make_trap144(0x0144000000000000ULL | ++h->trap144_sent, lid,
			 h->live.port[h->me].have_pi ? h->live.port[h->me].pi.cap_mask : 0,
			 SMP_TRAP144_SM_PRIORITY, mad);
	r = txn_send_raw(h->x, mad, MAD_SIZE, &(struct mad_addr){ .lid = h->sn->port[p].lid });
	log_info("SM: trap 144 (SM priority) to master SM 0x%016" PRIx64 " at LID %u, so that it "
		 "finds this SM, which outranks it: %s", h->sm.peer.guid, h->sn->port[p].lid,
		 r < 0 ? strerror(-r) : "sent");
	return r;
}

unsigned ha_set_received(struct ha *h, uint32_t ctrl, const struct smp_sm_info *sender)
{
	log_info("SM: SMInfo Set %u from SM 0x%016" PRIx64 " (priority %u, %s)", ctrl,
		 sender->guid, sender->priority, smstate_name(sender->state));
	return smstate_input(&h->sm, &(struct sm_ev){ .in = SMI_SET, .ctrl = ctrl,
						      .peer = *sender });
}
