/* SPDX-License-Identifier: MIT */
/*
 * Naming what the checker found: each bad pair with both ends (description,
 * port GUID, LID) and the switch where its route went wrong, and one credit
 * loop link by link. At most max_msgs pairs are named; the rest are counted.
 */
#include <inttypes.h>
#include <stdio.h>

#include "check_priv.h"

static const char *desc(const struct ck *k, uint32_t node)
{
	return subnet_str(k->sn, k->sn->node[node].desc);
}

/* "switch "leaf003" (0x0002c90300000007)" */
static void sw_label(const struct ck *k, uint32_t s, char *buf, size_t len)
{
	uint32_t node = k->out->sw_node[s];

	snprintf(buf, len, "switch \"%s\" (0x%016" PRIx64 ")", desc(k, node),
		 k->sn->node[node].guid);
}

/* ""h00001" port 1 (0x0002c90400000101)" */
static void port_label(const struct ck *k, uint32_t pi, char *buf, size_t len)
{
	const struct subnet_port *p = &k->sn->port[pi];

	snprintf(buf, len, "\"%s\" port %u (0x%016" PRIx64 ")", desc(k, p->node), p->num,
		 p->guid);
}

/* Why the route from switch s to lid does not arrive. */
static void reason(const struct ck *k, const struct ck_dest *d, uint32_t lid, uint32_t s,
		   char *buf, size_t len)
{
	const struct subnet *sn = k->sn;
	uint32_t w = k->where[s], node = k->out->sw_node[w], peer;
	uint8_t e = ck_entry(k, w, lid);
	char at[160], to[160];

	if (d->sw == SUBNET_NONE && !d->is_sw) {
		snprintf(buf, len, "the destination port is not linked to a switch");
		return;
	}
	sw_label(k, w, at, sizeof(at));
	switch (k->state[s]) {
	case CK_DROP:
		if (lid > k->out->max_lid)
			snprintf(buf, len, "dropped at %s: the LID is above its table's top 0x%x", at,
				 k->out->max_lid);
		else if (e == ROUTE_DROP)
			snprintf(buf, len, "dropped at %s: no route (LFT entry 255)", at);
		else
			snprintf(buf, len, "dropped at %s: LFT port %u is beyond its %u ports", at, e,
				 sn->node[node].nports);
		return;
	case CK_DEAD:
		snprintf(buf, len, "dropped at %s: LFT port %u is not linked", at, e);
		return;
	case CK_WRONG:
		if (e == 0) {
			snprintf(buf, len, "misdelivered: %s keeps it (LFT port 0)", at);
			return;
		}
		peer = sn->port[subnet_port_idx(sn, node, e)].peer;
		port_label(k, peer, to, sizeof(to));
		snprintf(buf, len, "misdelivered: %s sends it by port %u to %s", at, e, to);
		return;
	case CK_LOOP:
		snprintf(buf, len, "loops: the route comes back to %s (LFT port %u)", at, e);
		return;
	}
	snprintf(buf, len, "not delivered");
}

void ck_msg_pairs(struct ck *k, const struct ck_dest *d, uint32_t lid, uint32_t s)
{
	char src[160], dst[160], why[400];

	dst[0] = 0;
	for (uint32_t i = k->src_off[s]; i < k->src_off[s + 1]; i++) {
		uint32_t sp = k->src[i];

		if (sp == d->port)
			continue;
		if (k->msgs >= k->max_msgs) {
			k->unnamed++;
			continue;
		}
		if (!dst[0]) {
			port_label(k, d->port, dst, sizeof(dst));
			reason(k, d, lid, s, why, sizeof(why));
		}
		port_label(k, sp, src, sizeof(src));
		diag_msg(k->d, "%s -> %s LID %u (0x%04x): %s", src, dst, lid, lid, why);
		k->msgs++;
	}
}

void ck_msg_switch(struct ck *k, const struct ck_dest *d, uint32_t lid, uint32_t s)
{
	char src[160], dst[160], why[400];

	if (k->msgs >= k->max_msgs) {
		k->unnamed++;
		return;
	}
	sw_label(k, s, src, sizeof(src));
	sw_label(k, d->sw, dst, sizeof(dst));
	reason(k, d, lid, s, why, sizeof(why));
	diag_msg(k->d, "%s -> %s LID %u (0x%04x): %s", src, dst, lid, lid, why);
	k->msgs++;
}

void ck_msg_cycle(struct ck *k, const uint32_t *nodes, uint32_t n, uint32_t nv)
{
	char buf[1024], vl[32] = "(one VL)";
	size_t len = 0;

	for (uint32_t i = 0; i < n && len < sizeof(buf) - 100; i++) {
		const struct subnet_port *p = &k->sn->port[k->chan_port[nodes[i] / nv]];

		if (i == 8 && n > 10) {
			len += (size_t)snprintf(buf + len, sizeof(buf) - len, " -> ... (%u more)",
						n - 9);
			i = n - 1;
			p = &k->sn->port[k->chan_port[nodes[i] / nv]];
		}
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s\"%s\"[%u]",
					i ? " -> " : "", desc(k, p->node), p->num);
		if (nv > 1)
			len += (size_t)snprintf(buf + len, sizeof(buf) - len, " VL %u",
						nodes[i] % nv);
	}
	if (nv > 1)
		snprintf(vl, sizeof(vl), "on VL %u", nodes[0] % nv);
	diag_msg(k->d, "credit loop %s: %u links depend on each other in a cycle: %s -> back "
		       "to the first", vl, n, buf);
}

void ck_msg_vl15(struct ck *k, const struct ck_dest *d, uint32_t lid, uint32_t s, uint32_t n)
{
	char src[160], dst[160];

	if (k->msgs >= k->max_msgs) {
		k->unnamed += n;
		return;
	}
	sw_label(k, s, src, sizeof(src));
	port_label(k, d->port, dst, sizeof(dst));
	diag_msg(k->d, "%u hosts of %s -> %s LID %u (0x%04x): their SL maps to VL 15 on the way "
		       "(dropped)", n, src, dst, lid, lid);
	k->msgs++;
	if (n > 1)
		k->unnamed += n - 1;
}

void ck_msg_summary(struct ck *k)
{
	if (k->unnamed)
		diag_msg(k->d, "... and %" PRIu64 " more bad pairs, not named (the first %u are)",
			 k->unnamed, k->max_msgs);
}
