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

/*
 * With M_Key protection on, SMPs that get no answer are most likely ours
 * with a key the port does not hold (IBA 14.2.4.1: at protect 2-3 a Get
 * with a wrong key is dropped): said once, with what the operator does.
 */
static void mkey_unreadable(struct ha *h, uint32_t nodes, unsigned timeouts)
{
	if (h->mkey_said)
		return;
	h->mkey_said = true;
	if (h->mkey_created)
		log_err("SM: M_Key: discovery read %u nodes, %u requests got no answer; this SM "
			"created its M_Key secret at this start, so if another SM protects this "
			"fabric with M_Keys this SM cannot read its nodes, find its master or take "
			"over from it. Copy that SM's mkey.secret (mode 0600, owned by the user "
			"loomd runs as) into this SM's state dir and restart it "
			"(loomd(8): M_Keys and standbys)", nodes, timeouts);
	else
		log_err("SM: M_Key: discovery read %u nodes, %u requests got no answer; with "
			"M_Key protection on, their ports may hold keys of another secret, or lead "
			"to nodes whose links this SM does not know yet (it asks the master's SA "
			"for them). If this persists, give this SM the master's mkey.secret and "
			"mkey.links (loomd(8): M_Keys and standbys); until then it cannot take "
			"over the protected nodes", nodes, timeouts);
}

/* Discovery of our own, replacing the last: 0 or -errno (said). */
static int own_model(struct ha *h)
{
	struct disc_report rep = { .msgs.limit = 8 };
	struct disc_live live = { 0 };
	struct subnet *sn = NULL;
	uint64_t unkeyed0 = h->mkey ? h->mkey->unkeyed : 0;
	int r;

	r = disc_run(h->x, &sn, &live, &rep);
	/*
	 * Reused by the first heavy sweep only when discovery had nothing to
	 * say: otherwise that sweep discovers again and reports it (a duplicate
	 * GUID, say) where the operator looks, in its own lines.
	 */
	h->clean = rep.timeouts + rep.errors + rep.conflicts == 0 && !rep.msgs.n &&
		   !rep.msgs.dropped;
	if (h->mkey && (r < 0 || rep.timeouts))
		mkey_unreadable(h, r < 0 ? 0 : sn->n_nodes, rep.timeouts);
	/*
	 * Nodes that took no key-less SMP may be an SM's, the master's even:
	 * electing on what is left would make a second master of a part of the
	 * fabric. Only when the master we polled is gone do we take what we can.
	 */
	if (r == 0 && rep.timeouts && h->mkey && h->mkey->unkeyed > unkeyed0 &&
	    !h->sm.lost_master) {
		if (!h->mkey_block_said)
				log_warn("SM: discovery read %u nodes; %u requests without an M_Key (their "
				 "nodes unknown to this SM) got no answer, so an SM may be beyond "
				 "them: not electing; trying again every %" PRIu64 " ms (said once)",
				 sn->n_nodes, rep.timeouts, h->poll_us / 1000);
		h->mkey_block_said = true;
		/* Our own port answered (its key is ours): its MasterSMLID has the SA to ask. */
		h->links_from = live.port[plan_sm_port(sn, live.local_port)].pi.sm_lid;
		subnet_free(sn);
		disc_live_free(&live);
		r = -EACCES;
		disc_report_free(&rep);
		return r;
	}
	disc_report_free(&rep);
	if (r < 0) {
		log_warn("SM: discovery (to find the other SMs) failed: %s; trying again in %" PRIu64
			 " ms", strerror(-r), h->poll_us / 1000);
		return r;
	}
	if (h->mkey) {
		/* What our own discovery read gives the keys of the routes from here. */
		if (mkey_learn(h->mkey, sn, &live) < 0)
			log_warn("SM: no memory to learn the M_Key routes of this discovery");
		if (h->mkey->links_dirty && h->mkey_links &&
		    (r = mkey_links_save(h->mkey, h->mkey_links)) < 0)
			log_warn("SM: %s: %s; a restarted loomd may not reach nodes whose M_Key "
				 "protects them", h->mkey_links, strerror(-r));
		r = 0;
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

struct pi_read {
	int status;
	struct smp_port_info pi;
};

static void on_pi(void *arg, int status, const uint8_t *resp, size_t len)
{
	struct pi_read *o = arg;

	if (status == 0)
		status = smp_decode_port_info(resp, len, &o->pi);
	o->status = status;
}

/*
 * M_Keys on and no link known: a discovery would send key-less SMPs past
 * our own node, each dropped at a protected port and counted there as an
 * M_Key violation (a trap 256 to the master). Instead, once, read our own
 * port's PortInfo (its key is ours) and, if an SM configured it, ask that
 * SM's SA for the fabric's links first (the loop does: h->links_from).
 * true: asked (or the answer is still awaited): discover once they came,
 * or the ask failed.
 */
static bool links_first(struct ha *h)
{
	struct smp_req q = { .method = SMP_GET, .attr_id = SMP_ATTR_PORT_INFO,
			     .attr_mod = h->local_port };
	struct pi_read o = { .status = -ETIMEDOUT };
	int r;

	/* The links asked for are on their way: discover after (not on a takeover). */
	if (h->mkey && h->links_busy && !h->mkey->n_links && !h->sm.lost_master)
		return true;
	if (!h->mkey || !h->mkey->self || h->mkey->n_links || h->links_asked)
		return false;
	h->links_asked = true;
	r = txn_submit(h->x, &q, on_pi, &o);
	if (r == 0)
		r = txn_run(h->x, -1);
	if (r == 0)
		r = o.status;
	/* Unreadable (not our secret?), no SM yet, or it was us (restarting): discover. */
	if (r < 0 || !o.pi.sm_lid || o.pi.sm_lid == o.pi.lid)
		return false;
	h->links_from = o.pi.sm_lid;
	log_info("SM: M_Key: no links known; asking the SA of the SM at LID %u (our port's "
		 "MasterSMLID) for them before discovering", o.pi.sm_lid);
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

	if (links_first(h) || own_model(h) < 0)
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
	if (r == 0 && got.guid == h->sm.peer.guid) {
		h->late = false;
		return smstate_input(&h->sm, &(struct sm_ev){ .in = SMI_POLL, .peer = got });
	}
	if (h->late) { /* an earlier try's answer came after it ran out: slow, not gone */
		h->late = false;
		log_info("SM: poll of master 0x%016" PRIx64 " missed (%s), but it answered an "
			 "earlier poll after its %u ms try: counted as answered", h->sm.peer.guid,
			 r < 0 ? strerror(-r) : "another SM answered", ha_try_ms(h));
		return smstate_input(&h->sm, &(struct sm_ev){ .in = SMI_POLL, .peer = h->late_smi });
	}
	h->poll_missed++;
	if (r == -ENOENT) /* not in our model: look again, so the next poll finds it */
		(void)own_model(h);
	log_info("SM: poll of master 0x%016" PRIx64 " missed (%s), %u in a row", h->sm.peer.guid,
		 r < 0 ? strerror(-r) : "another SM answered", h->sm.missed + 1);
	return smstate_input(&h->sm, &(struct sm_ev){ .in = SMI_POLL_MISSED });
}

bool ha_late_answer(struct ha *h, const uint8_t *mad, size_t len)
{
	struct smp_sm_info smi;
	struct smp_hdr hd;

	/* IBA 14.2.1: SMPs are class 0x01 (LID routed) or 0x81 (directed route). */
	if (h->sm.state != SMP_SM_STANDBY || !h->sm.have_peer || smp_peek(mad, len, &hd) < 0 ||
	    (hd.mgmt_class != 0x01 && hd.mgmt_class != 0x81) || hd.method != SMP_GET_RESP ||
	    hd.attr_id != SMP_ATTR_SM_INFO || hd.status ||
	    smp_decode_sm_info(mad, len, &smi) < 0 || smi.guid != h->sm.peer.guid)
		return false;
	h->late = true;
	h->late_smi = smi;
	return true;
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
