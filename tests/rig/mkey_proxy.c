/* SPDX-License-Identifier: MIT */
/*
 * mkey_proxy.c: what mkeyproxy does to each packet (the sockets are
 * mkey_sim.c's, the rules mkey.c's).
 *
 * Client -> ibsim: a SubnGet or SubnSet (LID-routed or directed-route SMP)
 * is checked at the port it reaches. Which port that is, only ibsim knows
 * (LIDs, forwarding tables and links change under the tests), so the proxy
 * first sends a NodeInfo Get along the very same route, from the same slot,
 * with a TID of its own, and reads the NodeInfo back: the node type, the port
 * GUID (a switch's port 0), the port it came in at. Then:
 *   - check passes: the SMP goes on; a PortInfo Get or Set of that port is
 *     remembered (struct pend) so that its answer gets the port's M_Key
 *     components (ibsim keeps none of them), hidden when the check said so,
 *     and a Set's M_Key components are kept once ibsim accepted it;
 *   - check fails: the SMP goes nowhere; the client gets it back with
 *     ibsim's own "dropped" status (110), which umad2sim turns into the
 *     ETIMEDOUT completion a kernel reports when no answer came; and trap
 *     256 goes from the port's LID to its MasterSMLID, through the same slot.
 * Until some port has a key, nothing is probed: only PortInfo Sets that
 * carry M_Key components are.
 *
 * ibsim -> client: answers get the M_Key components of their pend; answers
 * to the proxy's own probes, and its traps that ibsim could not route (TID
 * bits 32-47 = 0xffff, where umad2sim puts its agent number), stop here;
 * PortInfo answers with no pend (ports never given a key, switch external
 * ports) read M_Key components 0, as IBA has them for a port no SM keyed
 * (ibsim answers a random lease); the rest passes unchanged.
 */
#include <endian.h>
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <arpa/inet.h>

#include "mkey_sim.h"

#define CLASS_SMI 0x01
#define CLASS_SMI_DR 0x81
#define ATTR_NOTICE 0x0002
#define ATTR_NODE_INFO 0x0011
#define ATTR_PORT_INFO 0x0015
#define METHOD_TRAP 0x05
#define OUR_TID_TAG 0xffffULL /* TID bits 32-47 of the proxy's own MADs */
#define TID48(mad) (mad64((mad) + 8) & 0xffffffffffffULL)

static uint16_t mad16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint64_t mad64(const uint8_t *p)
{
	uint64_t be;

	memcpy(&be, p, 8);
	return be64toh(be);
}

static uint64_t our_tid(struct proxy *px)
{
	return OUR_TID_TAG << 32 | ++px->next_tid;
}

static void set_tid(uint8_t *mad, uint64_t tid)
{
	uint64_t be = htobe64(tid);

	memcpy(mad + 8, &be, 8);
}

/* A MAD's status: DR SMPs keep the Direction bit in the same word. */
static uint16_t mad_status(const uint8_t *mad)
{
	return mad[1] == CLASS_SMI_DR ? mad16(mad + 4) & 0x7fff : mad16(mad + 4);
}

struct target {
	uint64_t guid;   /* port GUID; a switch's port 0 */
	uint8_t in_port; /* LocalPortNum: where the SMP came in */
	bool is_switch;
};

/* Send q (a probe) from slot i and wait for its answer, handling whatever
 * else ibsim sends meanwhile. ibsim answers every SMP at once (or with
 * status 110 when it cannot route it): 2 s is only a guard. */
static int probe_wait(struct proxy *px, unsigned i, struct sim_request *q)
{
	uint64_t tid = TID48(q->mad);
	int64_t end = sim_now_ms() + 2000;
	struct sim_request a;
	ssize_t n;
	int r;

	r = sim_up_send(px, i, q, sizeof(*q));
	if (r < 0)
		return r;
	while (px->slot[i].used && sim_now_ms() < end) {
		struct pollfd pf = { .fd = px->slot[i].up, .events = POLLIN };

		if (poll(&pf, 1, 50) <= 0) {
			sim_drain_up(px, (int)i);
			continue;
		}
		n = recv(px->slot[i].up, &a, sizeof(a), MSG_DONTWAIT);
		if (n <= 0)
			continue;
		if ((size_t)n == sizeof(a) && TID48(a.mad) == tid && (a.mad[3] & 0x80)) {
			*q = a;
			return ntohl(a.status) || mad_status(a.mad) ? -EHOSTUNREACH : 0;
		}
		proxy_from_sim(px, i, (uint8_t *)&a, (size_t)n);
		sim_drain_up(px, (int)i);
	}
	return -ETIMEDOUT;
}

/* Which port does SMP r from slot i reach? NodeInfo along the same route. */
static int find_target(struct proxy *px, unsigned i, const struct sim_request *r,
		       struct target *t)
{
	struct sim_request q = *r;
	const uint8_t *ni;
	int ret;

	q.status = 0;
	q.mad[3] = MKEY_METHOD_GET;
	q.mad[16] = ATTR_NODE_INFO >> 8;
	q.mad[17] = ATTR_NODE_INFO & 0xff;
	memset(q.mad + 20, 0, 4);   /* AttributeModifier */
	memset(q.mad + 64, 0, 64);  /* SMP data */
	set_tid(q.mad, our_tid(px));
	px->probes++;
	ret = probe_wait(px, i, &q);
	if (ret < 0)
		return ret;
	ni = q.mad + 64; /* NodeInfo, IBA 14.2.5.3 */
	t->is_switch = ni[2] == 2;
	t->guid = mad64(ni + 20);
	t->in_port = ni[36];
	return 0;
}

/* The requester's LID for trap 256: the SMP's SLID, else its slot's port. */
static uint16_t requester_lid(struct proxy *px, unsigned i, const struct sim_request *r)
{
	struct sim_ctl ctl = { .magic = SIM_MAGIC, .clientid = i, .type = SIM_CTL_GET_PORT };
	uint16_t lid;

	/* ibsim keeps LIDs as network-order 16 bits in its 32-bit fields;
	 * umad2sim writes SLID 0 ("ibsim fills it in") for every SMP. */
	if (r->slid)
		return ntohs((uint16_t)r->slid);
	if (sim_ctl_ask(px, &ctl) < 0 || ctl.type == SIM_CTL_ERROR)
		return 0;
	memcpy(&lid, ctl.data, 2); /* struct sim_port: host-order LID first */
	return lid;
}

static void send_trap256(struct proxy *px, unsigned i, const struct sim_request *r,
			 const struct mkey_port *p)
{
	struct sim_request t;

	if (!p->sm_lid || !p->lid) {
		plog("  no trap 256: port 0x%016llx has no LID or MasterSMLID yet\n",
		     (unsigned long long)p->guid);
		return;
	}
	memset(&t, 0, sizeof(t));
	t.dlid = htons(p->sm_lid);
	t.slid = htons(p->lid);
	t.length = htobe64(256);
	t.mad[0] = 1;          /* BaseVersion */
	t.mad[1] = CLASS_SMI;  /* LID-routed, as a port's SMA sends its traps */
	t.mad[2] = 1;          /* ClassVersion */
	t.mad[3] = METHOD_TRAP;
	set_tid(t.mad, our_tid(px));
	t.mad[16] = ATTR_NOTICE >> 8;
	t.mad[17] = ATTR_NOTICE & 0xff;
	mkey_trap256(p, r->mad, requester_lid(px, i, r), t.mad + 64);
	if (sim_up_send(px, i, &t, sizeof(t)) == 0) {
		px->traps++;
		plog("  trap 256 from LID %u to MasterSMLID %u\n", p->lid, p->sm_lid);
	}
}

static void remember(struct proxy *px, unsigned i, const struct sim_request *r,
		     const struct target *t, bool hidden)
{
	struct slot *s = &px->slot[i];
	int64_t now = sim_now_ms();
	struct pend *e = NULL;

	for (unsigned k = 0; k < PEND_MAX && !e; k++)
		if (!s->pend[k].since || now - s->pend[k].since > 10000)
			e = &s->pend[k];
	if (!e) {
		plog("slot %u: more than %d PortInfo SMPs unanswered; not tracking one\n", i,
		     PEND_MAX);
		return;
	}
	e->tid = TID48(r->mad);
	e->guid = t->guid;
	e->since = now;
	e->is_switch = t->is_switch;
	e->hidden = hidden;
	e->store = r->mad[3] == MKEY_METHOD_SET;
	memcpy(e->pi, r->mad + 64, 64);
}

static const char *method_name(uint8_t m)
{
	return m == MKEY_METHOD_GET ? "Get" : m == MKEY_METHOD_SET ? "Set" : "TrapRepress";
}

void proxy_from_client(struct proxy *px, unsigned i, uint8_t *buf, size_t n)
{
	struct sim_request *r = (struct sim_request *)buf;
	uint8_t *mad = r->mad, method;
	uint16_t attr;
	uint32_t mod;
	uint64_t key;
	struct target t;
	struct mkey_port *p;
	enum mkey_verdict v;
	bool pi_of_port;
	int ret;

	if (n != sizeof(*r) || (mad[1] != CLASS_SMI && mad[1] != CLASS_SMI_DR))
		goto forward;
	method = mad[3];
	if (method != MKEY_METHOD_GET && method != MKEY_METHOD_SET)
		goto forward; /* answers, traps; ibsim drops every TrapRepress */
	attr = mad16(mad + 16);
	mod = (uint32_t)mad16(mad + 20) << 16 | mad16(mad + 22);
	if (px->tab.n == 0 && !(attr == ATTR_PORT_INFO && method == MKEY_METHOD_SET &&
				mkey_pi_has_key(mad + 64)))
		goto forward;
	ret = find_target(px, i, r, &t);
	if (ret < 0) {
		/* Unreachable (ibsim will say so to the SMP itself), or the probe
		 * was lost (ibsim's Error rate): the SMP goes on unchecked. */
		plog("slot %u: NodeInfo probe for %s attr 0x%04x failed (%s); passed unchecked\n",
		     i, method_name(method), attr, strerror(-ret));
		goto forward;
	}
	key = mad64(mad + 24);
	p = mkey_find(&px->tab, t.guid);
	v = mkey_check(p, key, method, sim_now_ms());
	if (v == MKEY_FAIL) {
		px->violations++;
		plog("slot %u: %s attr 0x%04x mod 0x%x with M_Key 0x%016llx at port 0x%016llx "
		     "(protect %u): wrong key, dropped (violations %u)\n", i, method_name(method),
		     attr, mod, (unsigned long long)key, (unsigned long long)t.guid, p->protect,
		     p->violations);
		send_trap256(px, i, r, p);
		r->status = htonl(SIM_STATUS_DROPPED);
		sim_dn_send(px, i, buf, n);
		return;
	}
	px->passed++;
	if (v == MKEY_PASS_HIDDEN) {
		px->hidden++;
		plog("slot %u: Get attr 0x%04x at port 0x%016llx (protect 1) with wrong M_Key "
		     "0x%016llx: answered, M_Key reads 0\n", i, attr,
		     (unsigned long long)t.guid, (unsigned long long)key);
	}
	/* A switch's M_Key is port 0's; a CA port's PortInfo is its own (0 = it). */
	pi_of_port = attr == ATTR_PORT_INFO &&
		     (t.is_switch ? (mod & 0xff) == 0 : (mod & 0xff) == 0 || (mod & 0xff) == t.in_port);
	if (pi_of_port)
		remember(px, i, r, &t, v == MKEY_PASS_HIDDEN);
forward:
	if (sim_up_send(px, i, buf, n) < 0)
		plog("slot %u: cannot pass a packet to ibsim: %s\n", i, strerror(errno));
}

void proxy_from_sim(struct proxy *px, unsigned i, uint8_t *buf, size_t n)
{
	struct sim_request *r = (struct sim_request *)buf;
	struct slot *s = &px->slot[i];
	uint64_t tid;
	struct mkey_port *p;

	if (n != sizeof(*r)) {
		sim_dn_send(px, i, buf, n);
		return;
	}
	tid = TID48(r->mad);
	/* A late probe answer, or a trap ibsim could not route, stops here; a
	 * trap of ours that reached its SM (status 0, a request) goes on. */
	if (tid >> 32 == OUR_TID_TAG && ((r->mad[3] & 0x80) || r->status))
		return;
	if (!(r->mad[3] & 0x80) || (r->mad[1] != CLASS_SMI && r->mad[1] != CLASS_SMI_DR))
		goto forward;
	for (unsigned k = 0; k <= PEND_MAX; k++) {
		struct pend *e = &s->pend[k < PEND_MAX ? k : 0];

		if (k == PEND_MAX) { /* none: a port without M_Key state */
			if (mad16(r->mad + 16) == ATTR_PORT_INFO && !r->status &&
			    !mad_status(r->mad))
				mkey_show(&(struct mkey_port){ 0 }, r->mad + 64, false);
			break;
		}
		if (!e->since || e->tid != tid)
			continue;
		e->since = 0;
		if (r->status || mad_status(r->mad))
			break;
		p = mkey_get(&px->tab, e->guid, e->is_switch);
		if (!p) {
			plog("more than %d ports with keys; port 0x%016llx not tracked\n",
			     MKEY_MAX_PORTS, (unsigned long long)e->guid);
			break;
		}
		if (e->store) {
			mkey_store(p, e->pi);
			plog("slot %u: port 0x%016llx%s: Set M_Key 0x%016llx protect %u lease %u s "
			     "(TID 0x%llx)\n", i, (unsigned long long)p->guid,
			     p->is_switch ? " (switch)" : "", (unsigned long long)p->key,
			     p->protect, p->lease, (unsigned long long)tid);
		}
		mkey_show(p, r->mad + 64, e->hidden);
		break;
	}
forward:
	sim_dn_send(px, i, buf, n);
}
