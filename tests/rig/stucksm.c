/* SPDX-License-Identifier: MIT */
/*
 * stucksm: an SM that answers SMInfo and does nothing else, the fault loom
 * health's sm group must find when its ActCount stays put (a master whose
 * sweeps stopped while its agent still answers). Neither ibsim nor OpenSM
 * can be made to do that. Usage, under umad2sim with SIM_SET_ISSM=1 (so that
 * ibsim sets IsSM in the port's CapabilityMask):
 *
 *     stucksm [-C CA] [-P PORT] [-a ACTCOUNT] [-m] [-p PRIORITY] [-g GUID]
 *             [-d DELAY_MS [-f FAST_MS]] [-H LID -w FILE [-A AFTER_MS]] -t SECONDS
 *
 * -g: the GUID its SMInfo shows (IBA 14.2.5.13: the SM's port GUID, which a
 * standby polls it by); default 0x0002c9ffff000001, a GUID of no port.
 * Answers every SMInfo Get as MASTER with ActCount ACTCOUNT (default 1000),
 * or with -m one more on every answer (a working SM's count moves), for
 * SECONDS, then exits 0; prints "ready" on stdout once it listens and
 * "answered N" at the end. Exit 1 on any failure. -d: each answer goes
 * DELAY_MS after its Get came (after the first FAST_MS, default 0): a
 * master whose agent answers from behind a long queue, late for a
 * standby's poll but never silent.
 *
 * -H LID -w FILE: hand over, the way that meets a standby mid-poll. Once
 * FILE exists, the next SMInfo Get (a standby's poll) is answered 100 ms
 * late, and before that answer an SMInfo Set HANDOVER goes LID-routed to
 * LID: it reaches the standby while its poll still waits. From then on
 * stucksm shows STANDBY (as OpenSM, which stands by as it hands over) and
 * answers SMInfo Sets with status 0. Prints "handover sent to LID N",
 * "handover answered, status S" and, for an ACKNOWLEDGE, "acknowledge from
 * 0xGUID state STATE" (the state the sender's SMInfo shows: 2 is STANDBY).
 * -A AFTER_MS: the way that meets a standby loomd in the comparison it makes
 * right after its first poll answered: that poll (the first Get once FILE
 * exists) is answered at once, and the HANDOVER goes AFTER_MS later (0: at
 * once, right behind the answer).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <iba/ib_types.h>

#include "mad/smp.h"
#include "mad/txn.h"
#include "mad/umad.h"

#define STUCK_LATE 64 /* answers waiting their time (-d) */

struct late {
	double at;
	uint8_t mad[MAD_SIZE];
	struct mad_addr to;
	bool lid_routed;
};

struct stuck {
	struct txn *x;
	uint64_t guid;
	uint32_t act_count;
	uint8_t priority;
	bool moving;
	unsigned answered;
	double delay, fast, t0; /* -d, -f (seconds), and when it started */
	struct late q[STUCK_LATE];
	unsigned n;
	uint16_t handover_lid; /* -H */
	const char *arm;       /* -w: hand over once this file exists */
	bool handed;           /* the HANDOVER went out */
	double after;          /* -A (seconds); < 0: the HANDOVER before the poll's answer */
	double handover_at;    /* -A: when the HANDOVER goes; 0: not yet armed */
	struct smp_sm_info hsi; /* -A: the SMInfo it carries, as the poll was answered */
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void send_answer(struct stuck *s, const uint8_t *out, bool lid_routed,
			const struct mad_addr *to)
{
	if (txn_send_raw(s->x, out, MAD_SIZE, lid_routed ? to : NULL) == 0)
		s->answered++;
}

/* -d: send the answers that are due; the ms until the next one (100 at most). */
static int send_due(struct stuck *s)
{
	double t = now_s(), next = t + 0.1;

	for (unsigned i = 0; i < s->n;) {
		if (s->q[i].at <= t) {
			send_answer(s, s->q[i].mad, s->q[i].lid_routed, &s->q[i].to);
			s->q[i] = s->q[--s->n];
			continue;
		}
		if (s->q[i].at < next)
			next = s->q[i].at;
		i++;
	}
	return (int)((next - t) * 1000) + 1;
}

/* -H: SMInfo Set HANDOVER, LID-routed (IBA 14.2.1.1: class 0x01, no DR fields), to LID. */
static void send_handover(struct stuck *s, const struct smp_sm_info *si)
{
	struct smp_req q = { .method = SMP_SET, .attr_id = SMP_ATTR_SM_INFO,
			     .attr_mod = 1 /* IBA 14.2.5.13: HANDOVER */ };
	uint8_t mad[MAD_SIZE];
	ib_smp_t smp;
	int r;

	smp_encode_sm_info(si, q.data);
	if (smp_encode(&q, 0x4801u, mad) < 0)
		return;
	memcpy(&smp, mad, sizeof(smp));
	smp.mgmt_class = IB_MCLASS_SUBN_LID;
	smp.hop_ptr = smp.hop_count = 0;
	smp.dr_slid = smp.dr_dlid = 0;
	memset(smp.initial_path, 0, sizeof(smp.initial_path));
	memset(smp.return_path, 0, sizeof(smp.return_path));
	memcpy(mad, &smp, sizeof(smp));
	r = txn_send_raw(s->x, mad, MAD_SIZE, &(struct mad_addr){ .lid = s->handover_lid });
	s->handed = true;
	printf("handover sent to LID %u%s%s\n", s->handover_lid, r < 0 ? ": " : "",
	       r < 0 ? strerror(-r) : "");
	fflush(stdout);
}

/* -A: the HANDOVER, if it is due; the ms to wait at most (wait, or until it is). */
static int handover_due(struct stuck *s, int wait)
{
	double t = now_s();

	if (!s->handover_at || s->handed)
		return wait;
	if (t >= s->handover_at) {
		send_handover(s, &s->hsi);
		return wait;
	}
	return (int)((s->handover_at - t) * 1000) + 1 < wait ?
	       (int)((s->handover_at - t) * 1000) + 1 : wait;
}

/* The answer to our HANDOVER (no transaction waits for it). */
static bool on_response(void *arg, const uint8_t *mad, size_t len, const struct mad_addr *from)
{
	struct smp_hdr h;

	(void)arg, (void)from;
	if (smp_peek(mad, len, &h) < 0 || h.attr_id != SMP_ATTR_SM_INFO || h.attr_mod != 1)
		return false;
	printf("handover answered, status %u\n", h.status);
	fflush(stdout);
	return true;
}

static void on_request(void *arg, const uint8_t *mad, size_t len, const struct mad_addr *from)
{
	struct stuck *s = arg;
	struct smp_sm_info si = { .guid = s->guid, .act_count = s->act_count,
				  .priority = s->priority,
				  .state = s->handed ? SMP_SM_STANDBY : SMP_SM_MASTER };
	uint8_t data[SMP_DATA_SIZE], out[MAD_SIZE];
	struct mad_addr to = { .lid = from ? from->lid : 0xffff };
	struct smp_sm_info sender;
	bool hold = s->delay > 0 && now_s() - s->t0 >= s->fast; /* -d */
	double delay = s->delay;
	struct smp_hdr h;

	if (smp_peek(mad, len, &h) < 0 || h.attr_id != SMP_ATTR_SM_INFO ||
	    (h.method != SMP_GET && !(h.method == SMP_SET && s->handover_lid)))
		return;
	if (h.method == SMP_SET && smp_decode_sm_info(mad, len, &sender) == 0) {
		printf("%s from 0x%016" PRIx64 " state %u\n", h.attr_mod == 2 ? "acknowledge" :
		       "SMInfo Set", sender.guid, sender.state);
		fflush(stdout);
	}
	if (h.method == SMP_GET && s->handover_lid && !s->handed && s->after >= 0 &&
	    !s->handover_at && access(s->arm, F_OK) == 0) {
		s->handover_at = now_s() + s->after;
		s->hsi = si;
	} else if (h.method == SMP_GET && s->handover_lid && !s->handed && s->after < 0 &&
		   access(s->arm, F_OK) == 0) {
		send_handover(s, &si);
		hold = true; /* the poll still waits when the HANDOVER reaches its sender */
		delay = 0.1;
	}
	smp_encode_sm_info(&si, data);
	if (smp_make_resp(mad, len, 0, data, out) < 0)
		return;
	if (hold && s->n < STUCK_LATE) {
		struct late *l = &s->q[s->n++];

		l->at = now_s() + delay;
		memcpy(l->mad, out, MAD_SIZE);
		l->to = to;
		l->lid_routed = out[1] != 0x81;
	} else {
		send_answer(s, out, out[1] != 0x81, &to);
	}
	if (s->moving)
		s->act_count++;
}

int main(int argc, char **argv)
{
	struct stuck s = { .act_count = 1000, .guid = 0x0002c9ffff000001ull, .after = -1 };
	struct txn_opts o = TXN_OPTS_DEFAULT;
	struct mad_umad *u = NULL;
	const char *ca = NULL;
	unsigned port = 0, secs = 0;
	double end;
	int c, r;

	while ((c = getopt(argc, argv, "A:C:H:P:a:d:f:g:mp:t:w:")) != -1) {
		switch (c) {
		case 'A': s.after = atof(optarg) / 1000; break;
		case 'C': ca = optarg; break;
		case 'H': s.handover_lid = (uint16_t)strtoul(optarg, NULL, 0); break;
		case 'P': port = (unsigned)atoi(optarg); break;
		case 'a': s.act_count = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'd': s.delay = atof(optarg) / 1000; break;
		case 'f': s.fast = atof(optarg) / 1000; break;
		case 'g': s.guid = strtoull(optarg, NULL, 0); break;
		case 'm': s.moving = true; break;
		case 'p': s.priority = (uint8_t)atoi(optarg); break;
		case 't': secs = (unsigned)atoi(optarg); break;
		case 'w': s.arm = optarg; break;
		default:
			fprintf(stderr, "usage: stucksm [-C CA] [-P PORT] [-a ACTCOUNT] [-m] "
				"[-p PRIORITY] [-g GUID] [-d DELAY_MS [-f FAST_MS]] [-H LID -w FILE "
				"[-A AFTER_MS]] -t SECONDS\n");
			return 1;
		}
	}
	if (!secs || optind != argc) {
		fprintf(stderr, "stucksm: -t SECONDS is required (how long to answer)\n");
		return 1;
	}
	if (!s.handover_lid != !s.arm) {
		fprintf(stderr, "stucksm: -H LID and -w FILE go together (whom to hand over to, "
			"and when)\n");
		return 1;
	}
	r = mad_umad_open(ca, port, MAD_UMAD_SM, &u);
	if (r == 0)
		r = txn_new(&mad_umad_ops, u, &o, &s.x);
	if (r < 0) {
		fprintf(stderr, "stucksm: cannot open the port: %s\n", strerror(-r));
		mad_umad_close(u);
		return 1;
	}
	txn_set_request_hook(s.x, on_request, &s);
	txn_set_response_hook(s.x, on_response, &s);
	printf("ready\n");
	fflush(stdout);
	s.t0 = now_s();
	for (end = s.t0 + secs; now_s() < end;) {
		struct pollfd pfd = { .fd = mad_umad_ops.fd(u), .events = POLLIN };

		if (poll(&pfd, 1, handover_due(&s, send_due(&s))) < 0 && errno != EINTR)
			break;
		if (txn_drain(s.x) < 0)
			break;
	}
	printf("answered %u\n", s.answered);
	txn_free(s.x);
	mad_umad_close(u);
	return 0;
}
