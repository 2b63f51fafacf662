/* SPDX-License-Identifier: MIT */
#include <string.h>

#include "lib/cleanup.h"
#include "lib/log.h"
#include "mad/smp.h"
#include "loomd/agent.h"

/* IBA 13.4.7: MAD status "unsupported method/attribute combination". */
#define MAD_STATUS_UNSUP_METHOD_ATTR 0x000c
/* IBA 13.4.7: "invalid value in an attribute or modifier field" (code 7). */
#define MAD_STATUS_INVALID_VALUE 0x001c

void agent_init(struct agent *a, struct txn *x, uint64_t guid, uint8_t priority)
{
	memset(a, 0, sizeof(*a));
	a->x = x;
	a->guid = guid;
	a->priority = priority;
	a->state = SMP_SM_DISCOVERING;
}

static void answer(struct agent *a, const uint8_t *mad, size_t len, uint16_t status,
		   const uint8_t *data, const struct mad_addr *from)
{
	uint8_t out[MAD_SIZE];
	struct mad_addr to = { .lid = from ? from->lid : 0xffff, .qpn = 0 };

	if (smp_make_resp(mad, len, status, data, out) < 0)
		return;
	/* A directed-route answer retraces the path; only LID-routed ones need an address. */
	(void)txn_send_raw(a->x, out, MAD_SIZE, out[1] == 0x81 ? NULL : &to);
}

static void sm_info(struct agent *a, const uint8_t *mad, size_t len, const struct mad_addr *from)
{
	struct smp_sm_info si = {
		.guid = a->guid,
		.sm_key = a->sm_key,
		/* IBA 14.2.5.13: ActCount counts the SMPs this SM has sent. */
		.act_count = (uint32_t)txn_stats(a->x)->sent,
		.priority = a->priority,
		.state = a->state,
	};
	uint8_t data[SMP_DATA_SIZE];
	struct smp_sm_info sender;
	struct smp_hdr h;
	uint16_t status = 0;

	/* The answer shows the state the request found us in (as OpenSM's does). */
	smp_encode_sm_info(&si, data);
	if (smp_peek(mad, len, &h) == 0 && h.method == SMP_SET) {
		/* A control packet (IBA 14.4.1): the state machine says whether it is legal. */
		a->sminfo_sets++;
		if (smp_decode_sm_info(mad, len, &sender) < 0 || !a->on_set ||
		    (a->on_set(a->on_set_arg, h.attr_mod, &sender) & SMA_REFUSE))
			status = MAD_STATUS_INVALID_VALUE;
	} else {
		a->sminfo_gets++;
	}
	answer(a, mad, len, status, data, from);
}

/* A trap 128's sender, once: the targeted sweep reads its ports again. */
static void note_reporter(struct agent *a, uint16_t lid)
{
	for (unsigned i = 0; i < a->n_trap_lids; i++)
		if (a->trap_lid[i] == lid)
			return;
	if (!lid || a->n_trap_lids == AGENT_TRAP_LIDS) {
		a->trap_lids_lost = true;
		return;
	}
	a->trap_lid[a->n_trap_lids++] = lid;
}

/* Trap 256: someone sent a port an SMP with a wrong M_Key. Logged once a LID a sweep. */
static void bad_mkey(struct agent *a, uint16_t lid)
{
	a->trap256++;
	for (unsigned i = 0; i < a->n_bad_mkey; i++)
		if (a->bad_mkey_lid[i] == lid)
			return;
	if (a->n_bad_mkey < ARRAY_SIZE(a->bad_mkey_lid))
		a->bad_mkey_lid[a->n_bad_mkey++] = lid;
	log_warn("trap 256 (Bad M_Key) from the port at LID %u: an SMP with a wrong M_Key was "
		 "refused there (another SM or a host tool without the key?); said once a sweep",
		 lid);
}

void agent_request(void *arg, const uint8_t *mad, size_t len, const struct mad_addr *from)
{
	struct agent *a = arg;
	struct smp_hdr h;
	struct smp_notice n;

	if (smp_peek(mad, len, &h) < 0 || len < MAD_SIZE)
		return;
	if (h.method == SMP_TRAP && h.attr_id == SMP_ATTR_NOTICE) {
		a->traps++;
		if (smp_decode_notice(mad, len, &n) == 0 && n.generic && n.trap_num == 128) {
			a->trap128++;
			a->resweep = true;
			note_reporter(a, n.issuer_lid ? n.issuer_lid : from ? from->lid : 0);
		} else if (smp_decode_notice(mad, len, &n) == 0 && n.generic && n.trap_num == 256) {
			bad_mkey(a, n.issuer_lid);
		} else if (smp_decode_notice(mad, len, &n) == 0 && n.generic && n.trap_num == 144) {
			/* A port's CapabilityMask changed, e.g. an SM started there (IsSM). */
			a->resweep = a->heavy_asked = true;
		}
		answer(a, mad, len, 0, NULL, from);
		return;
	}
	if ((h.method == SMP_GET || h.method == SMP_SET) && h.attr_id == SMP_ATTR_SM_INFO) {
		sm_info(a, mad, len, from);
		return;
	}
	/* A master's answer to a trap of ours (a standby's trap 144): nothing to answer. */
	if (h.method == SMP_TRAP_REPRESS && h.attr_id == SMP_ATTR_NOTICE) {
		a->represses++;
		return;
	}
	a->refused++;
	if (h.method == SMP_GET || h.method == SMP_SET)
		answer(a, mad, len, MAD_STATUS_UNSUP_METHOD_ATTR, NULL, from);
}
