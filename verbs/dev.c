/* SPDX-License-Identifier: MIT */
/* Device, port and GID selection; the protection domain every case shares. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "verbs/verbs.h"

static const char *port_state_name(enum ibv_port_state s)
{
	return ibv_port_state_str(s);
}

/* On RoCE, a GID names an address and a protocol: pick RoCE v2 over IPv4, which routes
 * through any IP network (and is the one the kernel sets up for an IPv4 address). The low
 * slots hold it; scanning all 1,024 costs seconds on soft-RoCE under emulation. */
static int pick_gid(struct vdev *d, char *err, size_t errlen)
{
	static const uint8_t v4map[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
	struct ibv_gid_entry ge;
	int i, n = d->pattr.gid_tbl_len < 16 ? d->pattr.gid_tbl_len : 16;

	for (i = 0; i < n; i++) {
		if (ibv_query_gid_ex(d->ctx, d->port, i, &ge, 0))
			continue;
		if (ge.gid_type == IBV_GID_TYPE_ROCE_V2 && !memcmp(ge.gid.raw, v4map, 12)) {
			d->gid_index = i;
			return 0;
		}
	}
	snprintf(err, errlen, "%s port %d: no RoCE v2 IPv4 GID in slots 0-%d; give the netdev "
		 "an IPv4 address or pick one with --gid-index", d->name, d->port, n - 1);
	return -ENOENT;
}

static int port_usable(struct ibv_context *ctx, int port)
{
	struct ibv_port_attr pa;

	return !ibv_query_port(ctx, port, &pa) && pa.state == IBV_PORT_ACTIVE;
}

static struct ibv_context *open_named(struct ibv_device **list, int n, const struct vopts *o,
				      char *err, size_t errlen)
{
	struct ibv_context *ctx;
	int i;

	for (i = 0; i < n; i++) {
		const char *name = ibv_get_device_name(list[i]);

		if (o->dev && strcmp(o->dev, name))
			continue;
		ctx = ibv_open_device(list[i]);
		if (!ctx) {
			snprintf(err, errlen, "cannot open device %s: %s; check permissions on "
				 "/dev/infiniband", name, strerror(errno));
			return NULL;
		}
		if (o->dev || port_usable(ctx, o->ib_port))
			return ctx;
		ibv_close_device(ctx);
	}
	if (o->dev)
		snprintf(err, errlen, "no RDMA device \"%s\" (%d present); see ibv_devices",
			 o->dev, n);
	else
		snprintf(err, errlen, "no RDMA device with port %d active (%d present); see "
			 "ibv_devinfo, or create a soft-RoCE one with rdma link add", o->ib_port, n);
	return NULL;
}

int dev_open(const struct vopts *o, struct vdev *d, char *err, size_t errlen)
{
	struct ibv_device **list;
	int n = 0, r;

	memset(d, 0, sizeof(*d));
	list = ibv_get_device_list(&n);
	if (!list || !n) {
		snprintf(err, errlen, "no RDMA device found (libibverbs sees none): load a driver "
			 "or create a soft-RoCE device (rdma link add rxe0 type rxe netdev NAME)");
		if (list)
			ibv_free_device_list(list);
		return -ENODEV;
	}
	d->ctx = open_named(list, n, o, err, errlen);
	if (d->ctx)
		snprintf(d->name, sizeof(d->name), "%s", ibv_get_device_name(d->ctx->device));
	ibv_free_device_list(list);
	if (!d->ctx)
		return -ENODEV;
	d->port = o->ib_port;
	if (ibv_query_device(d->ctx, &d->dattr) || ibv_query_port(d->ctx, d->port, &d->pattr)) {
		snprintf(err, errlen, "%s: cannot query port %d: %s", d->name, d->port,
			 strerror(errno));
		goto fail;
	}
	if (d->pattr.state != IBV_PORT_ACTIVE) {
		snprintf(err, errlen, "%s port %d is %s, not ACTIVE: is the link up and (on "
			 "InfiniBand) a subnet manager running?", d->name, d->port,
			 port_state_name(d->pattr.state));
		goto fail;
	}
	d->roce = d->pattr.link_layer == IBV_LINK_LAYER_ETHERNET;
	d->gid_index = o->gid_index;
	if (d->gid_index < 0) {
		d->gid_index = 0;
		if (d->roce && pick_gid(d, err, errlen) < 0)
			goto fail;
	}
	if (d->gid_index >= d->pattr.gid_tbl_len ||
	    ibv_query_gid(d->ctx, d->port, d->gid_index, &d->gid)) {
		snprintf(err, errlen, "%s port %d: bad GID index %d (table has %d entries); see "
			 "show_gids", d->name, d->port, d->gid_index, d->pattr.gid_tbl_len);
		goto fail;
	}
	if (d->roce && !d->gid.global.interface_id && !d->gid.global.subnet_prefix) {
		snprintf(err, errlen, "%s port %d: GID index %d is empty; pick another with "
			 "--gid-index", d->name, d->port, d->gid_index);
		goto fail;
	}
	d->sl = o->sl < 0 ? 0 : o->sl;
	d->sl_from_sa = o->sl < 0 && !d->roce;
	d->timeout = o->timeout;
	d->pd = ibv_alloc_pd(d->ctx);
	if (!d->pd) {
		snprintf(err, errlen, "%s: cannot allocate a protection domain: %s", d->name,
			 strerror(errno));
		goto fail;
	}
	return 0;
fail:
	r = -ENODEV;
	dev_close(d);
	return r;
}

void dev_close(struct vdev *d)
{
	if (d->pd)
		ibv_dealloc_pd(d->pd);
	if (d->ctx)
		ibv_close_device(d->ctx);
	d->pd = NULL;
	d->ctx = NULL;
}
