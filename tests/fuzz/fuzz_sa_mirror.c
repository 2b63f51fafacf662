/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: a master SA's GetTableResp as the mirror reads it
 * (sa/sa_mirror.c), then the mirror installed (sa/sa_mirror_install.c)
 * into groups, services and subscriptions that already hold one of each,
 * on a model of one CA (PortGUID 0x301, LID 3). The first byte picks the
 * attribute (MCMemberRecord, ServiceRecord, InformInfoRecord, or as the
 * bytes say) and whether the header is made a valid GetTableResp, so that
 * most inputs reach the records; the rest is the MAD, any length. The
 * decoder must refuse or read it without reading past the end; install
 * must keep MLIDs unique and within 0xC000-0xFFFE.
 */
#include <endian.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sa/sa_mirror.h"
#include "sa/sa_priv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct subnet *sn;

static void build(void)
{
	uint32_t h;

	if (subnet_new(&sn) < 0 || subnet_add_node(sn, NODE_CA, 1, 0x300, "h", "h", &h) < 0)
		abort();
	sn->port[subnet_port_idx(sn, h, 1)].lid = 3;
}

/* Ours before the install: a permanent group at 0xC000, a service, a subscription. */
static void ours(struct mcast *mc, struct sa_services *sv, struct sa_events *ev)
{
	struct mcast_group g = { .mgid = { 0xff, 0x12, 0x40, 0x1b, [15] = 1 }, .permanent = true },
			   *p;

	if (mcast_create(mc, &g, &p) < 0 || mcast_join(p, 0x301, MCAST_FULL) < 0)
		abort();
	sv->svc = calloc(1, sizeof(*sv->svc));
	ev->sub = calloc(1, sizeof(*ev->sub));
	if (!sv->svc || !ev->sub)
		abort();
	sv->n = sv->cap = 1;
	sv->svc[0].guid = 0x301;
	ev->n_sub = ev->cap_sub = 1;
	ev->sub[0].guid = 0x301;
}

static void check(const struct mcast *mc)
{
	for (uint32_t i = 0; i < mc->n; i++) {
		if (mc->g[i].mlid < MCAST_MLID_BASE || mc->g[i].mlid > MCAST_MLID_END)
			abort();
		for (uint32_t j = 0; j < i; j++)
			if (mc->g[j].mlid == mc->g[i].mlid || !memcmp(mc->g[j].mgid, mc->g[i].mgid, 16))
				abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint16_t attr[3] = { SA_MIRROR_ATTR_MCM, SA_MIRROR_ATTR_SERVICE,
					  SA_MIRROR_ATTR_INFORM_REC };
	struct sa_mirror m = { 0 };
	struct sa_services sv = { 0 };
	struct sa_events ev = { 0 };
	struct sa_mirror_stats st;
	struct mcast *mc;
	uint8_t *mad;
	uint16_t status;

	if (!sn)
		build();
	if (size < 1)
		return 0;
	mad = malloc(size - 1 ? size - 1 : 1);
	if (!mad)
		return 0;
	memcpy(mad, data + 1, size - 1);
	if ((data[0] & 3) < 3 && size - 1 >= SA_HDR_SIZE) {
		ib_sa_mad_t *h = (ib_sa_mad_t *)mad;

		h->mgmt_class = IB_MCLASS_SUBN_ADM;
		h->class_ver = SA_CLASS_VERSION;
		h->method = IB_MAD_METHOD_GETTABLE_RESP;
		h->attr_id = htobe16(attr[data[0] & 3]);
		if (data[0] & 4)
			h->status = 0;
	}
	/* The same answer twice: the second merges into what the first made. */
	sa_mirror_decode(&m, mad, size - 1, &status);
	sa_mirror_decode(&m, mad, size - 1, &status);
	free(mad);
	if (mcast_new(&mc) < 0)
		abort();
	ours(mc, &sv, &ev);
	if (sa_mirror_install(&m, mc, &sv, &ev, sn, 1000, &st) == 0)
		check(mc);
	mcast_free(mc);
	sa_services_free(&sv);
	sa_events_free(&ev);
	sa_mirror_free(&m);
	return 0;
}
