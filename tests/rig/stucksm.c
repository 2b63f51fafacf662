/* SPDX-License-Identifier: MIT */
/*
 * stucksm: an SM that answers SMInfo and does nothing else, the fault loom
 * health's sm group must find when its ActCount stays put (a master whose
 * sweeps stopped while its agent still answers). Neither ibsim nor OpenSM
 * can be made to do that. Usage, under umad2sim with SIM_SET_ISSM=1 (so that
 * ibsim sets IsSM in the port's CapabilityMask):
 *
 *     stucksm [-C CA] [-P PORT] [-a ACTCOUNT] [-m] [-p PRIORITY] [-g GUID] -t SECONDS
 *
 * -g: the GUID its SMInfo shows (IBA 14.2.5.13: the SM's port GUID, which a
 * standby polls it by); default 0x0002c9ffff000001, a GUID of no port.
 * Answers every SMInfo Get as MASTER with ActCount ACTCOUNT (default 1000),
 * or with -m one more on every answer (a working SM's count moves), for
 * SECONDS, then exits 0; prints "ready" on stdout once it listens and
 * "answered N" at the end. Exit 1 on any failure.
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mad/smp.h"
#include "mad/txn.h"
#include "mad/umad.h"

struct stuck {
	struct txn *x;
	uint64_t guid;
	uint32_t act_count;
	uint8_t priority;
	bool moving;
	unsigned answered;
};

static void on_request(void *arg, const uint8_t *mad, size_t len, const struct mad_addr *from)
{
	struct stuck *s = arg;
	struct smp_sm_info si = { .guid = s->guid, .act_count = s->act_count,
				  .priority = s->priority, .state = SMP_SM_MASTER };
	uint8_t data[SMP_DATA_SIZE], out[MAD_SIZE];
	struct mad_addr to = { .lid = from ? from->lid : 0xffff };
	struct smp_hdr h;

	if (smp_peek(mad, len, &h) < 0 || h.method != SMP_GET || h.attr_id != SMP_ATTR_SM_INFO)
		return;
	smp_encode_sm_info(&si, data);
	if (smp_make_resp(mad, len, 0, data, out) < 0)
		return;
	if (txn_send_raw(s->x, out, MAD_SIZE, out[1] == 0x81 ? NULL : &to) == 0)
		s->answered++;
	if (s->moving)
		s->act_count++;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct stuck s = { .act_count = 1000, .guid = 0x0002c9ffff000001ull };
	struct txn_opts o = TXN_OPTS_DEFAULT;
	struct mad_umad *u = NULL;
	const char *ca = NULL;
	unsigned port = 0, secs = 0;
	double end;
	int c, r;

	while ((c = getopt(argc, argv, "C:P:a:g:mp:t:")) != -1) {
		switch (c) {
		case 'C': ca = optarg; break;
		case 'P': port = (unsigned)atoi(optarg); break;
		case 'a': s.act_count = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'g': s.guid = strtoull(optarg, NULL, 0); break;
		case 'm': s.moving = true; break;
		case 'p': s.priority = (uint8_t)atoi(optarg); break;
		case 't': secs = (unsigned)atoi(optarg); break;
		default:
			fprintf(stderr, "usage: stucksm [-C CA] [-P PORT] [-a ACTCOUNT] [-m] "
				"[-p PRIORITY] [-g GUID] -t SECONDS\n");
			return 1;
		}
	}
	if (!secs || optind != argc) {
		fprintf(stderr, "stucksm: -t SECONDS is required (how long to answer)\n");
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
	printf("ready\n");
	fflush(stdout);
	for (end = now_s() + secs; now_s() < end;) {
		struct pollfd pfd = { .fd = mad_umad_ops.fd(u), .events = POLLIN };

		if (poll(&pfd, 1, 100) < 0 && errno != EINTR)
			break;
		if (txn_drain(s.x) < 0)
			break;
	}
	printf("answered %u\n", s.answered);
	txn_free(s.x);
	mad_umad_close(u);
	return 0;
}
