/* SPDX-License-Identifier: MIT */
/*
 * The links group: what the PortInfo of both ends of every link says, judged
 * against each other and against what the ends can do (IBA 14.2.5.6).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "fabric/health.h"

/* The widest width in a LinkWidthSupported mask, as its PortInfo bit; 0 if none. */
static uint8_t widest(uint8_t mask)
{
	uint8_t best = 0;

	for (unsigned b = 0; b < 5; b++)
		if ((mask & (1u << b)) &&
		    subnet_width_lanes((uint8_t)(1u << b)) > subnet_width_lanes(best))
			best = (uint8_t)(1u << b);
	return best;
}

/* The fastest speed in LinkSpeedExt and LinkSpeed masks, as enum link_speed. */
static uint8_t fastest(uint8_t ext, uint8_t mask)
{
	if (ext & 8)
		return SPEED_NDR;
	if (ext & 4)
		return SPEED_HDR;
	if (ext & 2)
		return SPEED_EDR;
	if (ext & 1)
		return SPEED_FDR;
	if (mask & 4)
		return SPEED_QDR;
	if (mask & 2)
		return SPEED_DDR;
	if (mask & 1)
		return SPEED_SDR;
	return SPEED_UNKNOWN;
}

/* LinkSpeedExt fields count only when both ends say they have them (IBA 14.2.5.6). */
static uint8_t ext_mask(const struct smp_port_info *a, const struct smp_port_info *b, uint8_t m)
{
	return (a->cap_mask & SMP_CAP_EXT_SPEEDS) && (b->cap_mask & SMP_CAP_EXT_SPEEDS) ?
		m : 0;
}

/* 'peer "desc" 0xGUID port N' for a finding's detail. */
static void peer_str(const struct subnet *sn, uint32_t port, char *buf, size_t len)
{
	const struct subnet_port *p = &sn->port[port];
	const struct subnet_node *n = &sn->node[p->node];

	snprintf(buf, len, "peer \"%s\" 0x%016" PRIx64 " port %u", subnet_str(sn, n->desc),
		 n->guid, p->num);
}

/* IBA 14.2.5.6: the SM takes a port from Initialize through Armed to Active. */
static void judge_state(const struct health_input *in, struct health_findings *fs, uint32_t pi)
{
	const struct subnet *sn = in->sn;
	const struct smp_port_info *p = &in->live->port[pi].pi;
	const struct subnet_port *sp = &sn->port[pi];
	char detail[2 * HEALTH_TEXT] = "";

	if (p->state != SMP_PORT_INIT && p->state != SMP_PORT_ARMED)
		return;
	if (sp->peer != SUBNET_NONE)
		peer_str(sn, sp->peer, detail, sizeof(detail));
	health_add(fs, HEALTH_LINKS, HEALTH_ERROR, sn, sp->node, sp->num, "state",
		   health_state_name(p->state), "Active", detail);
}

static void judge_down(const struct health_input *in, struct health_findings *fs,
		       uint32_t down, uint32_t up)
{
	const struct smp_port_info *d = &in->live->port[down].pi, *u = &in->live->port[up].pi;
	char m[HEALTH_TEXT], e[HEALTH_TEXT], detail[2 * HEALTH_TEXT];

	peer_str(in->sn, up, detail, sizeof(detail));
	snprintf(m, sizeof(m), "%s/%s", health_state_name(d->state),
		 health_phys_name(d->phys_state));
	snprintf(e, sizeof(e), "up, as its peer is (%s)", health_state_name(u->state));
	health_add(fs, HEALTH_LINKS, HEALTH_ERROR, in->sn, in->sn->port[down].node,
		   in->sn->port[down].num, "down", m, e, detail);
}

/* LinkWidthEnabled lowered after the link trained, and the link not retrained since. */
static void judge_enabled(const struct health_input *in, struct health_findings *fs,
			  uint32_t p, uint32_t peer)
{
	const struct smp_port_info *x = &in->live->port[p].pi;
	char e[HEALTH_TEXT], detail[2 * HEALTH_TEXT];

	if (!x->width_active || (x->width_active & x->width_enabled))
		return;
	peer_str(in->sn, peer, detail, sizeof(detail));
	snprintf(e, sizeof(e), "a width its LinkWidthEnabled (0x%x) allows", x->width_enabled);
	health_add(fs, HEALTH_LINKS, HEALTH_ERROR, in->sn, in->sn->port[p].node,
		   in->sn->port[p].num, "width not retrained",
		   health_width_name(x->width_active), e, detail);
}

/*
 * The link runs at what both ends enable, but this end enables less than its
 * peer does and both support: a width or speed lowered on one end (by an
 * admin, ibportstate, a firmware default). Named on the end that holds it back.
 */
static void judge_held_back(const struct health_input *in, struct health_findings *fs,
			    uint32_t p, uint32_t peer)
{
	const struct smp_port_info *x = &in->live->port[p].pi, *y = &in->live->port[peer].pi;
	uint8_t cap_w = widest(x->width_supported & y->width_supported & y->width_enabled);
	uint8_t cap_s = fastest(ext_mask(x, y, x->ext_speed_supported & y->ext_speed_supported &
					 y->ext_speed_enabled),
				x->speed_supported & y->speed_supported & y->speed_enabled);
	uint8_t sx = disc_live_speed(x);
	char m[HEALTH_TEXT], e[HEALTH_TEXT], detail[2 * HEALTH_TEXT];

	peer_str(in->sn, peer, detail, sizeof(detail));
	if (cap_w && subnet_width_lanes(x->width_active) < subnet_width_lanes(cap_w)) {
		snprintf(m, sizeof(m), "%s (LinkWidthEnabled 0x%x)",
			 health_width_name(x->width_active), x->width_enabled);
		snprintf(e, sizeof(e), "%s (its peer enables it, both support it)",
			 health_width_name(cap_w));
		health_add(fs, HEALTH_LINKS, HEALTH_ERROR, in->sn, in->sn->port[p].node,
			   in->sn->port[p].num, "width", m, e, detail);
	}
	if (cap_s != SPEED_UNKNOWN && sx < cap_s) {
		snprintf(m, sizeof(m), "%s (LinkSpeedEnabled 0x%x, Ext 0x%x)",
			 subnet_speed_name(sx), x->speed_enabled, x->ext_speed_enabled);
		snprintf(e, sizeof(e), "%s (its peer enables it, both support it)",
			 subnet_speed_name(cap_s));
		health_add(fs, HEALTH_LINKS, HEALTH_ERROR, in->sn, in->sn->port[p].node,
			   in->sn->port[p].num, "speed", m, e, detail);
	}
}

/* Both ends up: do they agree, and did they train as fast and wide as both can? */
static void judge_pair(const struct health_input *in, struct health_findings *fs,
		       uint32_t a, uint32_t b)
{
	const struct subnet *sn = in->sn;
	const struct smp_port_info *x = &in->live->port[a].pi, *y = &in->live->port[b].pi;
	uint32_t node = sn->port[a].node;
	uint8_t num = sn->port[a].num, sx = disc_live_speed(x), sy = disc_live_speed(y);
	uint8_t best_w = widest(x->width_supported & x->width_enabled & y->width_supported &
				y->width_enabled);
	uint8_t best_s = fastest(ext_mask(x, y, x->ext_speed_supported & x->ext_speed_enabled &
					  y->ext_speed_supported & y->ext_speed_enabled),
				 x->speed_supported & x->speed_enabled & y->speed_supported &
				 y->speed_enabled);
	char m[HEALTH_TEXT], e[HEALTH_TEXT], detail[2 * HEALTH_TEXT];

	peer_str(sn, b, detail, sizeof(detail));
	if (x->width_active != y->width_active || sx != sy) {
		snprintf(m, sizeof(m), "%s %s vs %s %s", health_width_name(x->width_active),
			 subnet_speed_name(sx), health_width_name(y->width_active),
			 subnet_speed_name(sy));
		health_add(fs, HEALTH_LINKS, HEALTH_ERROR, sn, node, num, "ends disagree", m,
			   "the same width and speed at both ends", detail);
	}
	/*
	 * Both ends support and enable more than the link trained at (IBA vol. 2:
	 * training settles on the widest width and fastest speed both ends have
	 * enabled). iblinkinfo's "Could be" compares with Supported alone, which
	 * also flags a port an SM or admin chose to enable less on.
	 */
	if (best_w && subnet_width_lanes(x->width_active) < subnet_width_lanes(best_w)) {
		snprintf(e, sizeof(e), "%s (both ends support and enable it)",
			 health_width_name(best_w));
		health_add(fs, HEALTH_LINKS, HEALTH_ERROR, sn, node, num, "width",
			   health_width_name(x->width_active), e, detail);
	}
	if (best_s != SPEED_UNKNOWN && sx < best_s) {
		snprintf(e, sizeof(e), "%s (both ends support and enable it)",
			 subnet_speed_name(best_s));
		health_add(fs, HEALTH_LINKS, HEALTH_ERROR, sn, node, num, "speed",
			   subnet_speed_name(sx), e, detail);
	}
	judge_enabled(in, fs, a, b);
	judge_enabled(in, fs, b, a);
	if (subnet_width_lanes(x->width_active) >= subnet_width_lanes(best_w) && sx >= best_s) {
		judge_held_back(in, fs, a, b);
		judge_held_back(in, fs, b, a);
	}
	/* IBA 14.2.5.6: NeighborMTU and OperationalVLs are set per end by the SM; a
	 * mismatch drops packets the peer cannot take. */
	if (x->neighbor_mtu != y->neighbor_mtu) {
		snprintf(m, sizeof(m), "NeighborMTU %u vs %u", 128u << x->neighbor_mtu,
			 128u << y->neighbor_mtu);
		health_add(fs, HEALTH_LINKS, HEALTH_ERROR, sn, node, num, "mtu", m,
			   "the same NeighborMTU at both ends", detail);
	}
	if (x->op_vls != y->op_vls) {
		snprintf(m, sizeof(m), "OperationalVLs %u vs %u", x->op_vls, y->op_vls);
		health_add(fs, HEALTH_LINKS, HEALTH_ERROR, sn, node, num, "vls", m,
			   "the same OperationalVLs at both ends", detail);
	}
}

/*
 * Against --expect: a link of the expected fabric whose ends are both in the
 * live one but not linked to each other. Nodes are matched by NodeGUID.
 */
static void judge_expected(const struct health_input *in, struct health_findings *fs)
{
	const struct subnet *sn = in->sn, *ex = in->expect;
	char m[HEALTH_TEXT], e[HEALTH_TEXT], d[2 * HEALTH_TEXT];

	for (uint32_t a = 0; a < ex->n_ports; a++) {
		const struct subnet_port *ea = &ex->port[a], *eb;
		uint32_t na, nb, la, lb;

		if (ea->peer == SUBNET_NONE || ea->peer < a)
			continue;
		eb = &ex->port[ea->peer];
		na = subnet_find_guid(sn, ex->node[ea->node].guid);
		nb = subnet_find_guid(sn, ex->node[eb->node].guid);
		if (na == SUBNET_NONE || nb == SUBNET_NONE || ea->num > sn->node[na].nports ||
		    eb->num > sn->node[nb].nports)
			continue; /* a node missing or unlike the file's: drift, not a link */
		la = subnet_port_idx(sn, na, ea->num);
		lb = subnet_port_idx(sn, nb, eb->num);
		if (sn->port[la].peer == lb)
			continue;
		if (sn->port[la].peer != SUBNET_NONE) {
			peer_str(sn, sn->port[la].peer, m, sizeof(m));
			memmove(m, m + 5, strlen(m + 5) + 1); /* drop "peer " */
		} else if (in->live->port[la].have_pi) {
			snprintf(m, sizeof(m), "%s/%s",
				 health_state_name(in->live->port[la].pi.state),
				 health_phys_name(in->live->port[la].pi.phys_state));
		} else {
			snprintf(m, sizeof(m), "not linked");
		}
		peer_str(sn, lb, d, sizeof(d));
		snprintf(e, sizeof(e), "linked, as the expected topology says");
		health_add(fs, HEALTH_LINKS, HEALTH_ERROR, sn, na, ea->num, "missing link", m, e,
			   d);
	}
}

void health_links_judge(const struct health_input *in, struct health_findings *fs)
{
	const struct subnet *sn = in->sn;

	for (uint32_t a = 0; a < sn->n_ports; a++) {
		const struct subnet_port *sp = &sn->port[a];
		uint32_t b = sp->peer;
		bool da, db;

		/* A switch's port 0 is its management port: it has no link. */
		if (!in->live->port[a].have_pi || (sp->num == 0 && subnet_is_switch(sn, sp->node)))
			continue;
		judge_state(in, fs, a);
		if (b == SUBNET_NONE || b < a || !in->live->port[b].have_pi)
			continue;
		da = in->live->port[a].pi.state == SMP_PORT_DOWN;
		db = in->live->port[b].pi.state == SMP_PORT_DOWN;
		if (da && !db)
			judge_down(in, fs, a, b);
		else if (db && !da)
			judge_down(in, fs, b, a);
		else if (!da)
			judge_pair(in, fs, a, b);
	}
	if (in->expect)
		judge_expected(in, fs);
}
