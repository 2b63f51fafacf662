/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for loomd/smstate.c: the IBA 14.4 state machine driven through
 * every SMInfo control in every state (legal ones move it, illegal ones are
 * refused and move nothing), the election at discovery, a standby's poll
 * timeout and stale ActCount, and two SMs joined by a fake transport that
 * carries their control packets: a handover, start to end.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "loomd/smstate.h"

#define ME 0x0002c90300000010ull
#define LOWER_GUID 0x0002c90300000020ull /* loses a tie on priority */
#define HIGHER_GUID 0x0002c90300000005ull /* wins a tie on priority */

static struct smp_sm_info sm(uint64_t guid, uint8_t prio, uint8_t state)
{
	return (struct smp_sm_info){ .guid = guid, .priority = prio, .state = state,
				     .act_count = 100 };
}

/* A machine driven to state st (as the daemon's events would). */
static void in_state(struct smstate *s, uint8_t st)
{
	struct smp_sm_info m = sm(HIGHER_GUID, 9, SMP_SM_MASTER);

	smstate_init(s, ME, 5, 0, 3, false);
	if (st == SMP_SM_NOT_ACTIVE)
		return;
	assert_int_equal(smstate_input(s, &(struct sm_ev){ .in = SMI_START }), SMA_DISCOVER);
	if (st == SMP_SM_DISCOVERING)
		return;
	if (st == SMP_SM_MASTER) {
		assert_int_equal(smstate_input(s, &(struct sm_ev){ .in = SMI_DISCOVERED }),
				 SMA_SWEEP);
		return;
	}
	assert_int_equal(smstate_input(s, &(struct sm_ev){ .in = SMI_DISCOVERED, .peers = &m,
							   .n_peers = 1 }), SMA_POLL);
	assert_int_equal(s->state, SMP_SM_STANDBY);
}

static unsigned set(struct smstate *s, uint32_t ctrl, uint8_t sender_state)
{
	return smstate_input(s, &(struct sm_ev){ .in = SMI_SET, .ctrl = ctrl,
						 .peer = sm(HIGHER_GUID, 9, sender_state) });
}

static void test_outranks(void **st)
{
	(void)st;
	assert_true(smstate_outranks(10, 9, 5, 1));
	assert_false(smstate_outranks(5, 1, 10, 9));
	assert_true(smstate_outranks(5, 1, 5, 2));  /* tie: the lower GUID */
	assert_false(smstate_outranks(5, 2, 5, 1));
}

/* What each state does with each control sent by a legal sender. */
static void test_controls_legal(void **st)
{
	static const struct {
		uint8_t from;
		uint32_t ctrl;
		uint8_t to;
		unsigned act;
	} t[] = {
		{ SMP_SM_NOT_ACTIVE, SM_CTRL_HANDOVER, SMP_SM_NOT_ACTIVE, SMA_REFUSE },
		{ SMP_SM_NOT_ACTIVE, SM_CTRL_ACKNOWLEDGE, SMP_SM_NOT_ACTIVE, SMA_REFUSE },
		{ SMP_SM_NOT_ACTIVE, SM_CTRL_DISABLE, SMP_SM_NOT_ACTIVE, SMA_REFUSE },
		{ SMP_SM_NOT_ACTIVE, SM_CTRL_STANDBY, SMP_SM_STANDBY, SMA_POLL },
		{ SMP_SM_NOT_ACTIVE, SM_CTRL_DISCOVER, SMP_SM_DISCOVERING, SMA_DISCOVER },
		{ SMP_SM_DISCOVERING, SM_CTRL_HANDOVER, SMP_SM_MASTER,
		  SMA_SWEEP | SMA_SEND_ACK | SMA_TAKEOVER },
		{ SMP_SM_DISCOVERING, SM_CTRL_ACKNOWLEDGE, SMP_SM_DISCOVERING, SMA_REFUSE },
		{ SMP_SM_DISCOVERING, SM_CTRL_DISABLE, SMP_SM_NOT_ACTIVE, 0 },
		{ SMP_SM_DISCOVERING, SM_CTRL_STANDBY, SMP_SM_DISCOVERING, SMA_REFUSE },
		{ SMP_SM_DISCOVERING, SM_CTRL_DISCOVER, SMP_SM_DISCOVERING, 0 },
		{ SMP_SM_STANDBY, SM_CTRL_HANDOVER, SMP_SM_MASTER,
		  SMA_SWEEP | SMA_SEND_ACK | SMA_TAKEOVER },
		{ SMP_SM_STANDBY, SM_CTRL_ACKNOWLEDGE, SMP_SM_STANDBY, 0 },
		{ SMP_SM_STANDBY, SM_CTRL_DISABLE, SMP_SM_NOT_ACTIVE, 0 },
		{ SMP_SM_STANDBY, SM_CTRL_STANDBY, SMP_SM_STANDBY, 0 },
		{ SMP_SM_STANDBY, SM_CTRL_DISCOVER, SMP_SM_DISCOVERING, SMA_DISCOVER },
		{ SMP_SM_MASTER, SM_CTRL_HANDOVER, SMP_SM_MASTER, SMA_SWEEP | SMA_SEND_ACK },
		{ SMP_SM_MASTER, SM_CTRL_ACKNOWLEDGE, SMP_SM_MASTER, 0 }, /* not handing over */
		{ SMP_SM_MASTER, SM_CTRL_DISABLE, SMP_SM_MASTER, SMA_REFUSE },
		{ SMP_SM_MASTER, SM_CTRL_STANDBY, SMP_SM_MASTER, SMA_REFUSE },
		{ SMP_SM_MASTER, SM_CTRL_DISCOVER, SMP_SM_DISCOVERING, SMA_DISCOVER | SMA_STOP },
	};
	(void)st;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct smstate s;
		uint8_t sender = t[i].ctrl == SM_CTRL_ACKNOWLEDGE ? SMP_SM_STANDBY : SMP_SM_MASTER;
		unsigned act;

		in_state(&s, t[i].from);
		act = set(&s, t[i].ctrl, sender);
		if (act != t[i].act || s.state != t[i].to)
			fail_msg("case %zu: %s + control %u: state %s actions 0x%x, want %s 0x%x", i,
				 smstate_name(t[i].from), t[i].ctrl, smstate_name(s.state), act,
				 smstate_name(t[i].to), t[i].act);
	}
}

/* ACKNOWLEDGE from a non-STANDBY, the others from a non-MASTER, unknown controls, keys. */
static void test_controls_illegal(void **st)
{
	(void)st;
	for (uint8_t from = SMP_SM_NOT_ACTIVE; from <= SMP_SM_MASTER; from++) {
		for (uint32_t ctrl = 0; ctrl <= 7; ctrl++) {
			for (uint8_t sender = SMP_SM_NOT_ACTIVE; sender <= SMP_SM_MASTER; sender++) {
				bool legal = ctrl == SM_CTRL_ACKNOWLEDGE ? sender == SMP_SM_STANDBY :
					     ctrl >= 1 && ctrl <= 5 && sender == SMP_SM_MASTER;
				struct smstate s;
				unsigned act;

				if (legal)
					continue;
				in_state(&s, from);
				act = set(&s, ctrl, sender);
				assert_int_equal(act, SMA_REFUSE);
				assert_int_equal(s.state, from);
				assert_int_equal(s.refused, 1);
			}
		}
	}
	/* A HANDOVER carrying another non-zero SM_Key: refused and counted. */
	struct smstate s;
	struct smp_sm_info m = sm(HIGHER_GUID, 9, SMP_SM_MASTER);

	in_state(&s, SMP_SM_STANDBY);
	s.sm_key = 0x1111;
	m.sm_key = 0x2222;
	assert_int_equal(smstate_input(&s, &(struct sm_ev){ .in = SMI_SET,
							    .ctrl = SM_CTRL_HANDOVER, .peer = m }),
			 SMA_REFUSE);
	assert_int_equal(s.state, SMP_SM_STANDBY);
	assert_int_equal(s.ignored_keys, 1);
	m.sm_key = 0x1111;
	assert_int_not_equal(smstate_input(&s, &(struct sm_ev){ .in = SMI_SET,
								.ctrl = SM_CTRL_HANDOVER, .peer = m }),
			     SMA_REFUSE);
	assert_int_equal(s.state, SMP_SM_MASTER);
}

/* Discovery: who stands by for whom. */
static void test_election(void **st)
{
	struct smp_sm_info p[3];
	struct smstate s;

	(void)st;
	/* A lower master: standby anyway, and wait for its HANDOVER. */
	in_state(&s, SMP_SM_DISCOVERING);
	p[0] = sm(LOWER_GUID, 1, SMP_SM_MASTER);
	assert_int_equal(smstate_input(&s, &(struct sm_ev){ .in = SMI_DISCOVERED, .peers = p,
							    .n_peers = 1 }), SMA_POLL);
	assert_int_equal(s.state, SMP_SM_STANDBY);
	assert_true(s.peer.guid == LOWER_GUID);
	/* A higher standby and a lower discovering: standby, polling the higher. */
	in_state(&s, SMP_SM_DISCOVERING);
	p[0] = sm(LOWER_GUID, 5, SMP_SM_DISCOVERING);
	p[1] = sm(HIGHER_GUID, 5, SMP_SM_STANDBY);
	assert_int_equal(smstate_input(&s, &(struct sm_ev){ .in = SMI_DISCOVERED, .peers = p,
							    .n_peers = 2 }), SMA_POLL);
	assert_true(s.peer.guid == HIGHER_GUID);
	/* Only lower SMs, a not-active higher one, another key, ourselves: master. */
	in_state(&s, SMP_SM_DISCOVERING);
	s.sm_key = 7;
	p[0] = sm(LOWER_GUID, 5, SMP_SM_STANDBY);
	p[1] = sm(HIGHER_GUID, 15, SMP_SM_NOT_ACTIVE);
	p[2] = sm(HIGHER_GUID + 1, 15, SMP_SM_MASTER);
	p[2].sm_key = 8;
	assert_int_equal(smstate_input(&s, &(struct sm_ev){ .in = SMI_DISCOVERED, .peers = p,
							    .n_peers = 3 }), SMA_SWEEP);
	assert_int_equal(s.state, SMP_SM_MASTER);
	assert_false(s.took_over);
	/* Events that do not belong: warnings, nothing moves. */
	assert_int_equal(smstate_input(&s, &(struct sm_ev){ .in = SMI_START }), 0);
	assert_int_equal(smstate_input(&s, &(struct sm_ev){ .in = SMI_DISCOVERED }), 0);
	assert_int_equal(s.state, SMP_SM_MASTER);
}

static unsigned poll_answer(struct smstate *s, uint32_t act_count)
{
	struct smp_sm_info m = sm(HIGHER_GUID, 9, SMP_SM_MASTER);

	m.act_count = act_count;
	return smstate_input(s, &(struct sm_ev){ .in = SMI_POLL, .peer = m });
}

static void test_poll_timeout(void **st)
{
	struct smstate s;

	(void)st;
	in_state(&s, SMP_SM_STANDBY);
	/* Two misses, then an answer: the count starts again. */
	assert_int_equal(smstate_input(&s, &(struct sm_ev){ .in = SMI_POLL_MISSED }), 0);
	assert_int_equal(smstate_input(&s, &(struct sm_ev){ .in = SMI_POLL_MISSED }), 0);
	assert_int_equal(poll_answer(&s, 101), 0);
	assert_int_equal(smstate_input(&s, &(struct sm_ev){ .in = SMI_POLL_MISSED }), 0);
	assert_int_equal(smstate_input(&s, &(struct sm_ev){ .in = SMI_POLL_MISSED }), 0);
	assert_int_equal(s.state, SMP_SM_STANDBY);
	/* The third in a row: rediscover; no master found: master, by takeover. */
	assert_int_equal(smstate_input(&s, &(struct sm_ev){ .in = SMI_POLL_MISSED }),
			 SMA_DISCOVER);
	assert_int_equal(s.state, SMP_SM_DISCOVERING);
	assert_int_equal(smstate_input(&s, &(struct sm_ev){ .in = SMI_DISCOVERED }),
			 SMA_SWEEP | SMA_TAKEOVER);
	assert_int_equal(s.state, SMP_SM_MASTER);
	assert_true(s.took_over);
}

static void test_actcount_stale(void **st)
{
	struct smstate s;

	(void)st;
	in_state(&s, SMP_SM_STANDBY);
	assert_int_equal(poll_answer(&s, 100), 0); /* as when it was found: 1 */
	assert_int_equal(poll_answer(&s, 100), 0); /* 2 */
	assert_int_equal(poll_answer(&s, 105), 0); /* moved: 0 */
	assert_int_equal(poll_answer(&s, 105), 0);
	assert_int_equal(poll_answer(&s, 105), 0);
	assert_int_equal(poll_answer(&s, 105), SMA_DISCOVER);
	assert_int_equal(s.state, SMP_SM_DISCOVERING);
	/* Discovery reads it again, MASTER with the same count: stuck, we take over. */
	struct smp_sm_info m = sm(HIGHER_GUID, 9, SMP_SM_MASTER);

	m.act_count = 105;
	assert_int_equal(smstate_input(&s, &(struct sm_ev){ .in = SMI_DISCOVERED, .peers = &m,
							    .n_peers = 1 }), SMA_SWEEP | SMA_TAKEOVER);
	assert_int_equal(s.state, SMP_SM_MASTER);
	/* Its count moved by then: it lives; stand by for it again. */
	in_state(&s, SMP_SM_STANDBY);
	for (int i = 0; i < 4; i++)
		poll_answer(&s, 100);
	assert_int_equal(s.state, SMP_SM_DISCOVERING);
	m.act_count = 140;
	assert_int_equal(smstate_input(&s, &(struct sm_ev){ .in = SMI_DISCOVERED, .peers = &m,
							    .n_peers = 1 }), SMA_POLL);
	assert_int_equal(s.state, SMP_SM_STANDBY);
	/* Lost to missed polls, it answers discovery with the same count: slow, stand by. */
	for (int i = 0; i < 3; i++)
		smstate_input(&s, &(struct sm_ev){ .in = SMI_POLL_MISSED });
	assert_int_equal(s.state, SMP_SM_DISCOVERING);
	m.act_count = s.peer.act_count;
	assert_int_equal(smstate_input(&s, &(struct sm_ev){ .in = SMI_DISCOVERED, .peers = &m,
							    .n_peers = 1 }), SMA_POLL);
	/* The polled SM is not master any more (it stood down): rediscover too. */
	in_state(&s, SMP_SM_STANDBY);
	assert_int_equal(smstate_input(&s, &(struct sm_ev){ .in = SMI_POLL,
			 .peer = sm(HIGHER_GUID, 9, SMP_SM_NOT_ACTIVE) }), SMA_DISCOVER);
	/* Answers from an SM we do not poll are not ours to count. */
	in_state(&s, SMP_SM_STANDBY);
	for (int i = 0; i < 5; i++)
		assert_int_equal(smstate_input(&s, &(struct sm_ev){ .in = SMI_POLL,
				 .peer = sm(LOWER_GUID, 1, SMP_SM_NOT_ACTIVE) }), 0);
	assert_int_equal(s.state, SMP_SM_STANDBY);
}

/*
 * The fake transport: two machines, a master (priority 5) and a higher SM
 * that stood by (10). Control packets carry the sender's SMInfo as a loomd
 * sends them; each action is delivered as the daemon would.
 */
struct fabric {
	struct smstate a, b; /* a: the master, b: the higher */
	unsigned sets;        /* control packets carried */
};

static struct smp_sm_info info_of(const struct smstate *s)
{
	return (struct smp_sm_info){ .guid = s->guid, .priority = s->priority,
				     .state = s->state, .act_count = 1 };
}

static void deliver(struct fabric *f, struct smstate *from, struct smstate *to, unsigned act)
{
	struct smp_sm_info me = info_of(from);

	if (act & SMA_SEND_HANDOVER) {
		unsigned got;

		f->sets++;
		got = smstate_input(to, &(struct sm_ev){ .in = SMI_SET, .ctrl = SM_CTRL_HANDOVER,
							 .peer = me });
		smstate_input(from, &(struct sm_ev){ .in = SMI_HANDOVER_ANSWERED,
						     .status = got & SMA_REFUSE ? -71 : 0 });
		deliver(f, to, from, got);
	}
	if (act & SMA_SEND_ACK) {
		me.state = SMP_SM_STANDBY; /* as received the handover */
		f->sets++;
		deliver(f, to, from, smstate_input(to, &(struct sm_ev){ .in = SMI_SET,
			.ctrl = SM_CTRL_ACKNOWLEDGE, .peer = me }));
	}
}

static void test_handover_pair(void **st)
{
	struct fabric f = { .sets = 0 };
	struct smp_sm_info am;

	(void)st;
	smstate_init(&f.a, LOWER_GUID, 5, 0, 3, false);
	smstate_init(&f.b, HIGHER_GUID, 10, 0, 3, false);
	smstate_input(&f.a, &(struct sm_ev){ .in = SMI_START });
	assert_int_equal(smstate_input(&f.a, &(struct sm_ev){ .in = SMI_DISCOVERED }), SMA_SWEEP);
	/* b starts later, finds master a, stands by though it outranks a. */
	smstate_input(&f.b, &(struct sm_ev){ .in = SMI_START });
	am = info_of(&f.a);
	assert_int_equal(smstate_input(&f.b, &(struct sm_ev){ .in = SMI_DISCOVERED, .peers = &am,
							      .n_peers = 1 }), SMA_POLL);
	/* a's light sweep sees b: HANDOVER, b answers and acknowledges. */
	deliver(&f, &f.a, &f.b, smstate_input(&f.a, &(struct sm_ev){ .in = SMI_PEER,
						.peer = info_of(&f.b) }));
	assert_int_equal(f.sets, 2);
	assert_int_equal(f.b.state, SMP_SM_MASTER);
	assert_int_equal(f.a.state, SMP_SM_STANDBY);
	assert_true(f.a.peer.guid == HIGHER_GUID);
	/* a now polls b; b's light sweep sees a lower standby: nothing. */
	assert_int_equal(smstate_input(&f.b, &(struct sm_ev){ .in = SMI_PEER,
			 .peer = info_of(&f.a) }), 0);
}

/* A master that hands over to an SM that answers but never acknowledges (OpenSM). */
static void test_handover_no_ack(void **st)
{
	struct smstate s;

	(void)st;
	in_state(&s, SMP_SM_MASTER);
	assert_int_equal(smstate_input(&s, &(struct sm_ev){ .in = SMI_PEER,
			 .peer = sm(HIGHER_GUID, 9, SMP_SM_STANDBY) }), SMA_SEND_HANDOVER);
	/* While handing over, no second HANDOVER. */
	assert_int_equal(smstate_input(&s, &(struct sm_ev){ .in = SMI_PEER,
			 .peer = sm(HIGHER_GUID, 9, SMP_SM_STANDBY) }), 0);
	assert_int_equal(smstate_shown(&s), SMP_SM_MASTER);
	assert_int_equal(smstate_input(&s, &(struct sm_ev){ .in = SMI_HANDOVER_ANSWERED }), 0);
	assert_int_equal(s.state, SMP_SM_MASTER);
	/* Taken: others read STANDBY while we wait for the ACKNOWLEDGE. */
	assert_int_equal(smstate_shown(&s), SMP_SM_STANDBY);
	assert_int_equal(smstate_input(&s, &(struct sm_ev){ .in = SMI_HANDOVER_TIMEOUT }),
			 SMA_POLL | SMA_STOP);
	assert_int_equal(s.state, SMP_SM_STANDBY);
	/* Not answered at all: stay master. */
	in_state(&s, SMP_SM_MASTER);
	smstate_input(&s, &(struct sm_ev){ .in = SMI_PEER,
					   .peer = sm(HIGHER_GUID, 9, SMP_SM_MASTER) });
	assert_true(s.handing_over);
	smstate_input(&s, &(struct sm_ev){ .in = SMI_HANDOVER_ANSWERED, .status = -110 });
	assert_false(s.handing_over);
	assert_int_equal(smstate_shown(&s), SMP_SM_MASTER);
	assert_int_equal(smstate_input(&s, &(struct sm_ev){ .in = SMI_HANDOVER_TIMEOUT }), 0);
	assert_int_equal(s.state, SMP_SM_MASTER);
}

/*
 * The old master reads the ACKNOWLEDGE before the answer to its HANDOVER
 * (both are in its queue when its HANDOVER's wait reads the port; measured
 * on ibsim, loomd to loomd): it stands by on the ACKNOWLEDGE, and the
 * answer after it changes nothing.
 */
static void test_handover_ack_first(void **st)
{
	struct smstate s;

	(void)st;
	in_state(&s, SMP_SM_MASTER);
	assert_int_equal(smstate_input(&s, &(struct sm_ev){ .in = SMI_PEER,
			 .peer = sm(HIGHER_GUID, 9, SMP_SM_STANDBY) }), SMA_SEND_HANDOVER);
	assert_int_equal(set(&s, SM_CTRL_ACKNOWLEDGE, SMP_SM_STANDBY), SMA_POLL | SMA_STOP);
	assert_int_equal(s.state, SMP_SM_STANDBY);
	assert_true(s.peer.guid == HIGHER_GUID);
	assert_int_equal(smstate_input(&s, &(struct sm_ev){ .in = SMI_HANDOVER_ANSWERED }), 0);
	assert_int_equal(s.state, SMP_SM_STANDBY);
	assert_int_equal(smstate_shown(&s), SMP_SM_STANDBY);
	assert_int_equal(smstate_input(&s, &(struct sm_ev){ .in = SMI_HANDOVER_TIMEOUT }), 0);
	assert_int_equal(s.state, SMP_SM_STANDBY);
}

/*
 * A control packet taken while discovery's MADs ran decides before the
 * discovery ends: a HANDOVER (OpenSM hands over to a higher SM still
 * DISCOVERING) makes this SM master and the ACKNOWLEDGE goes to the sender;
 * the discovery's end, which still lists that SM as MASTER, elects nothing
 * (it would stand by for it) and leaves the ACKNOWLEDGE's target alone.
 */
static void test_set_during_discovery(void **st)
{
	struct smp_sm_info old = sm(HIGHER_GUID, 9, SMP_SM_MASTER);
	struct smstate s;
	uint64_t transitions;

	(void)st;
	in_state(&s, SMP_SM_DISCOVERING);
	assert_int_equal(set(&s, SM_CTRL_HANDOVER, SMP_SM_MASTER),
			 SMA_SWEEP | SMA_SEND_ACK | SMA_TAKEOVER);
	assert_int_equal(s.state, SMP_SM_MASTER);
	transitions = s.transitions;
	assert_int_equal(smstate_input(&s, &(struct sm_ev){ .in = SMI_DISCOVERED, .peers = &old,
							    .n_peers = 1 }), 0);
	assert_int_equal(s.state, SMP_SM_MASTER);
	assert_int_equal(s.transitions, transitions);
	assert_true(s.have_peer && s.peer.guid == HIGHER_GUID);
	/* A DISABLE meanwhile: NOT-ACTIVE stands too. */
	in_state(&s, SMP_SM_DISCOVERING);
	assert_int_equal(set(&s, SM_CTRL_DISABLE, SMP_SM_MASTER), 0);
	assert_int_equal(smstate_input(&s, &(struct sm_ev){ .in = SMI_DISCOVERED }), 0);
	assert_int_equal(s.state, SMP_SM_NOT_ACTIVE);
	/* A discovery's end in STANDBY has no such cause: ignored (and warned). */
	in_state(&s, SMP_SM_STANDBY);
	assert_int_equal(smstate_input(&s, &(struct sm_ev){ .in = SMI_DISCOVERED }), 0);
	assert_int_equal(s.state, SMP_SM_STANDBY);
}

/*
 * IBA 14.4.1: HANDOVER goes to a higher STANDBY or MASTER. A higher SM still
 * DISCOVERING is left to finish (it stands by and sends trap 144); a lower
 * or NOT-ACTIVE one is never handed to.
 */
static void test_handover_targets(void **st)
{
	struct smstate s;

	(void)st;
	in_state(&s, SMP_SM_MASTER);
	assert_int_equal(smstate_input(&s, &(struct sm_ev){ .in = SMI_PEER,
			 .peer = sm(HIGHER_GUID, 9, SMP_SM_DISCOVERING) }), 0);
	assert_false(s.handing_over);
	assert_int_equal(smstate_input(&s, &(struct sm_ev){ .in = SMI_PEER,
			 .peer = sm(HIGHER_GUID, 9, SMP_SM_NOT_ACTIVE) }), 0);
	assert_int_equal(smstate_input(&s, &(struct sm_ev){ .in = SMI_PEER,
			 .peer = sm(LOWER_GUID, 2, SMP_SM_STANDBY) }), 0);
	assert_int_equal(s.state, SMP_SM_MASTER);
	/* The same SM, standing by now: HANDOVER. */
	assert_int_equal(smstate_input(&s, &(struct sm_ev){ .in = SMI_PEER,
			 .peer = sm(HIGHER_GUID, 9, SMP_SM_STANDBY) }), SMA_SEND_HANDOVER);
	assert_true(s.handing_over);
}

/* sm.sticky: a master by takeover keeps the role; a master from the start does not. */
static void test_sticky(void **st)
{
	struct smstate s;

	(void)st;
	in_state(&s, SMP_SM_STANDBY);
	s.sticky = true;
	for (int i = 0; i < 3; i++)
		smstate_input(&s, &(struct sm_ev){ .in = SMI_POLL_MISSED });
	smstate_input(&s, &(struct sm_ev){ .in = SMI_DISCOVERED });
	assert_int_equal(s.state, SMP_SM_MASTER);
	assert_int_equal(smstate_input(&s, &(struct sm_ev){ .in = SMI_PEER,
			 .peer = sm(HIGHER_GUID, 9, SMP_SM_STANDBY) }), 0);
	in_state(&s, SMP_SM_MASTER);
	s.sticky = true;
	assert_int_equal(smstate_input(&s, &(struct sm_ev){ .in = SMI_PEER,
			 .peer = sm(HIGHER_GUID, 9, SMP_SM_STANDBY) }), SMA_SEND_HANDOVER);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_outranks),
		cmocka_unit_test(test_controls_legal),
		cmocka_unit_test(test_controls_illegal),
		cmocka_unit_test(test_election),
		cmocka_unit_test(test_poll_timeout),
		cmocka_unit_test(test_actcount_stale),
		cmocka_unit_test(test_handover_pair),
		cmocka_unit_test(test_handover_no_ack),
		cmocka_unit_test(test_handover_ack_first),
		cmocka_unit_test(test_set_during_discovery),
		cmocka_unit_test(test_handover_targets),
		cmocka_unit_test(test_sticky),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
