/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "lib/log.h"
#include "loomd/ha_mirror.h"

void ha_mirror_free(struct ha_mirror *hm)
{
	ha_mirror_cancel(hm);
	sa_mirror_free(&hm->m);
	memset(hm, 0, sizeof(*hm));
}

void ha_mirror_cancel(struct ha_mirror *hm)
{
	if (hm->busy)
		sa_mirror_fetch_free(&hm->f);
	hm->busy = false;
}

static void fail(struct ha_mirror *hm, int err, const char *what)
{
	hm->failed++;
	if (err != hm->last_err && hm->want == SA_MIRROR_WANT_LINKS)
		log_warn("SM: reading the fabric's links from the master's SA: %s: %s; trying "
			 "again later", what, strerror(-err));
	else if (err != hm->last_err)
		log_warn("SM: mirroring the master's SA state: %s: %s; the mirror of %s is kept "
			 "and the next poll tries again", what, strerror(-err),
			 hm->have ? "the last complete fetch" : "nothing so far");
	hm->last_err = err;
}

/* A fetch in flight ended (or not yet): keep a complete one, count a failed one. */
static void settle(struct ha_mirror *hm, uint64_t now_ms)
{
	int s = hm->busy ? sa_mirror_fetch_state(&hm->f) : 0;

	if (s == 0)
		return;
	if (s > 0) {
		/* Logged when it says something new: the first, after a failure, other counts. */
		bool say = !hm->have || hm->last_err || hm->f.m.n_g != hm->m.n_g ||
			   hm->f.m.n_svc != hm->m.n_svc || hm->f.m.n_sub != hm->m.n_sub;

		sa_mirror_free(&hm->m);
		sa_mirror_fetch_take(&hm->f, &hm->m);
		hm->have = true;
		hm->when_ms = now_ms;
		hm->fetched++;
		if (hm->want == SA_MIRROR_WANT_LINKS)
			log_info("SM: read the fabric's links from the master's SA: %" PRIu32
				 " port LIDs, %" PRIu32 " link ends", hm->m.n_node, hm->m.n_link);
		else if (say)
			log_info("SM: mirrored the master's SA state: %" PRIu32 " groups, %" PRIu32
				 " services, %" PRIu32 " subscriptions", hm->m.n_g, hm->m.n_svc,
				 hm->m.n_sub);
		hm->last_err = 0;
	} else {
		fail(hm, s, "a GetTable was not answered or was refused");
	}
	sa_mirror_fetch_free(&hm->f);
	hm->busy = false;
}

void ha_mirror_start(struct ha_mirror *hm, const struct mad_transport_ops *ops, void *t,
		     const struct subnet *sn, uint64_t guid, uint64_t sm_key, uint64_t now_ms,
		     uint64_t min_age_ms)
{
	uint32_t p = sn ? subnet_find_port_guid(sn, guid) : SUBNET_NONE;

	if (hm->busy || (hm->have && now_ms - hm->when_ms < min_age_ms))
		return;
	if (p == SUBNET_NONE || !sn->port[p].lid) {
		fail(hm, -EHOSTUNREACH, "the master's port has no LID in this SM's discovery");
		return;
	}
	ha_mirror_start_lid(hm, ops, t, sn->port[p].lid, sm_key, now_ms, min_age_ms);
}

void ha_mirror_start_lid(struct ha_mirror *hm, const struct mad_transport_ops *ops, void *t,
			 uint16_t lid, uint64_t sm_key, uint64_t now_ms, uint64_t min_age_ms)
{
	struct sa_mirror_fetch_opts o = SA_MIRROR_FETCH_DEFAULT;
	int r;

	if (hm->busy || (hm->have && now_ms - hm->when_ms < min_age_ms))
		return;
	o.master_lid = lid;
	o.sm_key = sm_key;
	o.want = hm->want;
	r = sa_mirror_fetch_start(&hm->f, &o, ops, t, ++hm->seq, now_ms);
	hm->busy = true;
	if (r < 0)
		settle(hm, now_ms);
}

bool ha_mirror_input(struct ha_mirror *hm, const uint8_t *mad, size_t len, uint64_t now_ms)
{
	if (!hm->busy || !sa_mirror_fetch_input(&hm->f, mad, len))
		return false;
	settle(hm, now_ms);
	return true;
}

int ha_mirror_tick(struct ha_mirror *hm, uint64_t now_ms)
{
	if (!hm->busy)
		return -1;
	sa_mirror_fetch_tick(&hm->f, now_ms);
	settle(hm, now_ms);
	return hm->busy ? sa_mirror_fetch_next_ms(&hm->f, now_ms) : -1;
}
