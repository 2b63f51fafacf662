/* SPDX-License-Identifier: MIT */
/*
 * After the last line of a topology file: port GUID clashes, then links.
 * ibsim cables two ports only when both list each other (its
 * connect_ports()); so does this reader. Each mismatch is reported at the
 * line that made it, naming the line of the other end.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "model/topo_priv.h"

/* The line that gave port pi its GUID: its own port line, or its node's header. */
static void guid_origin(const struct topo_ctx *x, uint32_t pi, unsigned *file, unsigned *line)
{
	const struct topo_port *tp = &x->port[pi];
	uint32_t n = x->sn->port[pi].node;

	if (tp->guid && tp->flags == TP_LISTED) {
		*file = tp->file;
		*line = tp->line;
	} else {
		*file = x->node_file[n];
		*line = x->sn->node[n].src_line;
	}
}

/* "pi has GUID guid, already used by o", reported at file:line. */
static void guid_clash(struct topo_ctx *x, uint32_t pi, uint64_t guid, uint32_t o, unsigned file,
		       unsigned line)
{
	const struct subnet_port *p = &x->sn->port[pi], *q = &x->sn->port[o];
	char me[600], them[600], at[600];
	unsigned of, ol;

	guid_origin(x, o, &of, &ol);
	topo_err_at(x, file, line,
		    "%s port %u has port GUID 0x%016" PRIx64 ", already used by %s port %u (%s)",
		    topo_node_str(x, p->node, me, sizeof(me)), p->num, guid,
		    topo_node_str(x, q->node, them, sizeof(them)), q->num,
		    topo_where(x, file, of, ol, at, sizeof(at)));
}

int topo_set_port_guid(struct topo_ctx *x, uint32_t pi, uint64_t guid, unsigned file,
		       unsigned line)
{
	int ret = subnet_set_port_guid(x->sn, pi, guid);
	uint32_t o;

	if (ret == -EEXIST) {
		o = subnet_find_port_guid(x->sn, guid);
		guid_clash(x, pi, guid, o, file, line);
	} else if (ret < 0) {
		topo_nomem(x);
	}
	return ret;
}

/*
 * Default GUIDs (node GUID + n) can clash with each other or with a GUID a
 * line gave. Each extra holder is reported once, at the later of the two.
 */
void topo_check_port_guids(struct topo_ctx *x)
{
	for (uint32_t pi = 0; pi < x->sn->n_ports; pi++) {
		uint32_t o = subnet_dup_port(x->sn, pi), late, early;
		unsigned file, line;

		if (o == SUBNET_NONE)
			continue;
		late = pi > o ? pi : o;
		early = pi > o ? o : pi;
		guid_origin(x, late, &file, &line);
		guid_clash(x, late, x->sn->port[pi].guid, early, file, line);
	}
}

/* What a link's far end answers to: a switch's ports all use port 0's GUID. */
static uint64_t port_guid(const struct subnet *sn, uint32_t pi)
{
	const struct subnet_node *nd = &sn->node[sn->port[pi].node];

	return nd->type == NODE_SWITCH ? nd->port0_guid : sn->port[pi].guid;
}

/* "[n](guid)" after the far end must be that port's GUID. */
static void check_rguid(struct topo_ctx *x, uint32_t pi, uint32_t rpi)
{
	const struct topo_port *tp = &x->port[pi];
	const struct subnet_port *p = &x->sn->port[pi], *r = &x->sn->port[rpi];
	char me[600], them[600];

	if (!tp->rguid || tp->rguid == port_guid(x->sn, rpi))
		return;
	topo_err_at(x, tp->file, tp->line,
		    "%s port %u: the line gives %s port %u GUID 0x%016" PRIx64 ", but its GUID is "
		    "0x%016" PRIx64, topo_node_str(x, p->node, me, sizeof(me)), p->num,
		    topo_node_str(x, r->node, them, sizeof(them)), r->num, tp->rguid,
		    port_guid(x->sn, rpi));
}

/* "4xHDR", "4x" or "HDR": what a line said of a link's rate. */
static const char *rate_str(uint8_t width, uint8_t speed, char *buf, size_t len)
{
	snprintf(buf, len, "%.0u%s%s", subnet_width_lanes(width), width ? "x" : "",
		 speed ? subnet_speed_name(speed) : "");
	return buf;
}

/* Width and speed: one end's line may give them; two that do must agree. */
static void link_rate(struct topo_ctx *x, uint32_t pi, uint32_t rpi)
{
	const struct topo_port *a = &x->port[pi], *b = &x->port[rpi];
	struct subnet_port *p = &x->sn->port[pi], *r = &x->sn->port[rpi];
	char me[600], them[600], at[600], ra[16], rb[16];

	if ((a->width && b->width && a->width != b->width) ||
	    (a->speed && b->speed && a->speed != b->speed))
		topo_err_at(x, a->file, a->line,
			    "%s port %u and %s port %u (%s) disagree on the link rate (%s here, "
			    "%s there)", topo_node_str(x, p->node, me, sizeof(me)), p->num,
			    topo_node_str(x, r->node, them, sizeof(them)), r->num,
			    topo_where(x, a->file, b->file, b->line, at, sizeof(at)),
			    rate_str(a->width, a->speed, ra, sizeof(ra)),
			    rate_str(b->width, b->speed, rb, sizeof(rb)));
	p->width = r->width = a->width ? a->width : b->width;
	p->speed = r->speed = a->speed ? a->speed : b->speed;
}

/* The far end of port pi's line; NONE (reported) if it is not a port. */
static uint32_t far_port(struct topo_ctx *x, uint32_t pi)
{
	const struct topo_port *tp = &x->port[pi];
	const struct subnet_port *p = &x->sn->port[pi];
	const char *rname = strpool_get(&x->names, tp->rname);
	char me[600], them[600], at[600];
	uint32_t rn = subnet_find_name(x->sn, rname);

	if (rn == SUBNET_NONE) {
		/* A refused header was reported already. */
		if (!topo_is_bad_name(x, rname))
			topo_err_at(x, tp->file, tp->line,
				    "%s port %u: remote node \"%s\" does not exist",
				    topo_node_str(x, p->node, me, sizeof(me)), p->num, rname);
		return SUBNET_NONE;
	}
	if (tp->rport > x->sn->node[rn].nports) {
		topo_err_at(x, tp->file, tp->line,
			    "%s port %u: remote port %u is beyond the %u ports of %s (%s)",
			    topo_node_str(x, p->node, me, sizeof(me)), p->num, tp->rport,
			    x->sn->node[rn].nports, topo_node_str(x, rn, them, sizeof(them)),
			    topo_where(x, tp->file, x->node_file[rn], x->sn->node[rn].src_line, at,
				       sizeof(at)));
		return SUBNET_NONE;
	}
	return subnet_port_idx(x->sn, rn, tp->rport);
}

static void resolve_one(struct topo_ctx *x, uint32_t pi)
{
	const struct topo_port *tp = &x->port[pi], *rtp;
	const struct subnet_port *p = &x->sn->port[pi], *r;
	char me[600], them[600], at[600];
	uint32_t rpi = far_port(x, pi);

	if (rpi == SUBNET_NONE)
		return;
	rtp = &x->port[rpi];
	r = &x->sn->port[rpi];
	if (rtp->flags & TP_BAD)
		return; /* its line was reported */
	topo_node_str(x, p->node, me, sizeof(me));
	topo_node_str(x, r->node, them, sizeof(them));
	if (!(rtp->flags & TP_LISTED)) {
		topo_err_at(x, tp->file, tp->line,
			    "%s port %u is linked to %s port %u, but %s (%s) lists nothing on "
			    "port %u (both ends of a link must be listed)", me, p->num, them,
			    r->num, them, topo_where(x, tp->file, x->node_file[r->node],
					     x->sn->node[r->node].src_line, at, sizeof(at)),
			    r->num);
		return;
	}
	if (rtp->rport != p->num || strcmp(strpool_get(&x->names, rtp->rname),
					   subnet_str(x->sn, x->sn->node[p->node].name))) {
		topo_err_at(x, tp->file, tp->line,
			    "%s port %u is linked to %s port %u, but that port (%s) is linked to "
			    "\"%s\" port %u", me, p->num, them, r->num,
			    topo_where(x, tp->file, rtp->file, rtp->line, at, sizeof(at)),
			    strpool_get(&x->names, rtp->rname), rtp->rport);
		return;
	}
	if (rpi == pi) {
		topo_err_at(x, tp->file, tp->line, "%s port %u is linked to itself", me, p->num);
		return;
	}
	check_rguid(x, pi, rpi);
	check_rguid(x, rpi, pi);
	link_rate(x, pi, rpi);
	subnet_link(x->sn, pi, rpi);
}

/* In port order, so in file order; each cable is made from its first end. */
void topo_resolve_links(struct topo_ctx *x)
{
	for (uint32_t pi = 0; pi < x->sn->n_ports; pi++)
		if (x->port[pi].flags == TP_LISTED && x->sn->port[pi].peer == SUBNET_NONE)
			resolve_one(x, pi);
}
