/* SPDX-License-Identifier: MIT */
/*
 * Forwarding tables as dump_lfts text: the printer (this half) and the
 * reader (lft_text_read.c). See lft_text.h for the format and its variants.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cleanup.h"
#include "lft_text.h"

struct printer {
	FILE *f;
	const struct subnet *sn;
	const struct route_out *out;
	const struct lft_text_opts *o;
	uint32_t *owner;  /* [max_lid + 1] port holding each LID, SUBNET_NONE if none */
	uint32_t *parent; /* [n_sw] DR: switch it was found from, SUBNET_NONE for the first */
	uint8_t *via;     /* [n_sw] DR: port of the parent it was found by */
	uint8_t *hops;    /* [n_sw + 1] DR: a path being put together */
	uint8_t root_port; /* DR: the root CA's port, 0 if the root is a switch */
	/* The info of the first LID of each port, the same in every switch's
	 * table: made once (itext + ioff[lid]), copied per line. Printing a
	 * large fabric is millions of lines; formatting each with printf was
	 * most of `loom route`'s time. */
	char *itext;
	uint32_t *ioff; /* [max_lid + 1] offset in itext, UINT32_MAX if none */
	uint16_t *ilen; /* [max_lid + 1] its length */
	/* Lines are put together here and written 64 KiB at a time: a
	 * fwrite per line was a third of the printing. */
	char *blk;
	size_t n_blk;
	bool werr;
};

#define LFT_BLOCK 65536

static void printer_free(struct printer *p)
{
	free(p->owner);
	free(p->parent);
	free(p->via);
	free(p->hops);
	free(p->itext);
	free(p->ioff);
	free(p->ilen);
	free(p->blk);
}

static void blk_flush(struct printer *p)
{
	if (p->n_blk && fwrite(p->blk, 1, p->n_blk, p->f) != p->n_blk)
		p->werr = true;
	p->n_blk = 0;
}

/* Room for need bytes at the end of the block. */
static char *blk_room(struct printer *p, size_t need)
{
	if (p->n_blk + need > LFT_BLOCK)
		blk_flush(p);
	return p->blk + p->n_blk;
}

/* The model's LID-bearing ports, as the engines see them (route_out_init). */
static bool port_has_lids(const struct subnet *sn, const struct subnet_port *pt)
{
	if (!pt->lid)
		return false;
	return subnet_is_switch(sn, pt->node) ? pt->num == 0 : pt->num != 0;
}

static int build_owners(struct printer *p)
{
	const struct subnet *sn = p->sn;
	uint32_t max = p->out->max_lid;

	p->owner = malloc(((size_t)max + 1) * sizeof(*p->owner));
	if (!p->owner)
		return -ENOMEM;
	memset(p->owner, 0xff, ((size_t)max + 1) * sizeof(*p->owner));
	for (uint32_t i = 0; i < sn->n_ports; i++) {
		const struct subnet_port *pt = &sn->port[i];
		uint32_t top;

		if (!port_has_lids(sn, pt))
			continue;
		top = (uint32_t)pt->lid + (1u << (pt->lmc & 7)) - 1;
		for (uint32_t l = pt->lid; l <= top && l <= max; l++)
			if (p->owner[l] == SUBNET_NONE)
				p->owner[l] = i;
	}
	return 0;
}

/*
 * The directed-route path to every switch, as ibnetdiscover finds it:
 * breadth first from the root's port, each switch's ports in order, a switch
 * keeping the path by which it was reached first.
 */
static int build_paths(struct printer *p)
{
	const struct subnet *sn = p->sn;
	const struct route_out *out = p->out;
	uint32_t root = p->o->root == SUBNET_NONE ? 0 : p->o->root;
	_cleanup_free_ uint32_t *queue = NULL;
	uint32_t head = 0, tail = 0, first = SUBNET_NONE;

	if (root >= sn->n_nodes)
		return -EINVAL;
	p->parent = malloc(((size_t)out->n_sw + 1) * sizeof(*p->parent));
	p->via = calloc((size_t)out->n_sw + 1, 1);
	p->hops = calloc((size_t)out->n_sw + 1, 1);
	queue = malloc(((size_t)out->n_sw + 1) * sizeof(*queue));
	if (!p->parent || !p->via || !p->hops || !queue)
		return -ENOMEM;
	memset(p->parent, 0xff, ((size_t)out->n_sw + 1) * sizeof(*p->parent));
	if (subnet_is_switch(sn, root)) {
		first = out->sw_index[root];
	} else {
		for (unsigned n = 1; n <= sn->node[root].nports && first == SUBNET_NONE; n++) {
			uint32_t peer = sn->port[subnet_port_idx(sn, root, n)].peer;

			if (peer != SUBNET_NONE && subnet_is_switch(sn, sn->port[peer].node)) {
				first = out->sw_index[sn->port[peer].node];
				p->root_port = (uint8_t)n;
			}
		}
	}
	if (first == SUBNET_NONE)
		return 0; /* no switch reachable: no paths */
	p->via[first] = 1; /* "found": the first switch has no parent */
	queue[tail++] = first;
	while (head < tail) {
		uint32_t s = queue[head++], node = out->sw_node[s];

		for (unsigned n = 1; n <= sn->node[node].nports; n++) {
			uint32_t peer = sn->port[subnet_port_idx(sn, node, n)].peer, t;

			if (peer == SUBNET_NONE || !subnet_is_switch(sn, sn->port[peer].node))
				continue;
			t = out->sw_index[sn->port[peer].node];
			if (t == first || p->parent[t] != SUBNET_NONE)
				continue;
			p->parent[t] = s;
			p->via[t] = (uint8_t)n;
			queue[tail++] = t;
		}
	}
	return 0;
}

/* "DR path slid 0; dlid 0; 0,1,5,8" (libibmad's drpath2str), or "" if unreachable. */
static void dr_path(struct printer *p, uint32_t s, char *buf, size_t len)
{
	uint32_t n = 0, first = s;
	size_t k;

	buf[0] = 0;
	if (!p->via[s])
		return;
	while (p->parent[first] != SUBNET_NONE && n < p->out->n_sw) {
		p->hops[n++] = p->via[first];
		first = p->parent[first];
	}
	k = (size_t)snprintf(buf, len, "DR path slid 0; dlid 0; 0");
	if (p->root_port && k < len)
		k += (size_t)snprintf(buf + k, len - k, ",%u", p->root_port);
	while (n-- > 0 && k < len)
		k += (size_t)snprintf(buf + k, len - k, ",%u", p->hops[n]);
}

static const char *type_str(uint8_t type)
{
	switch (type) {
	case NODE_CA:
		return "Channel Adapter";
	case NODE_SWITCH:
		return "Switch";
	case NODE_ROUTER:
		return "Router";
	}
	return "?";
}

/* What dump_fts remembers from one LID to the next of the same switch. */
struct info_state {
	uint32_t base, last;
	uint64_t pguid;
};

/* The info dump_fts prints for the first LID of port pt. */
static void first_info(const struct printer *p, const struct subnet_port *pt, char *buf,
		       size_t len)
{
	const struct subnet *sn = p->sn;

	snprintf(buf, len, ": (%s portguid 0x%016" PRIx64 ": '%s')", type_str(sn->node[pt->node].type),
		 pt->guid, subnet_str(sn, sn->node[pt->node].desc));
}

/* dump_fts's destination info for one printed LID (its dump_lid()). */
static void dest_info_fmt(struct printer *p, struct info_state *st, uint32_t lid, bool valid,
			  char *buf, size_t len)
{
	const struct subnet *sn = p->sn;
	const struct subnet_port *pt;
	uint32_t pi;

	buf[0] = 0;
	if (p->o->brief)
		return;
	if (lid <= st->last) {
		if (!valid)
			snprintf(buf, len, ": (path #%u - illegal port)", lid - st->base);
		else if (!st->pguid)
			snprintf(buf, len, ": (path #%u out of %u)", lid - st->base + 1,
				 st->last - st->base + 1);
		else
			snprintf(buf, len, ": (path #%u out of %u: portguid 0x%016" PRIx64 ")",
				 lid - st->base + 1, st->last - st->base + 1, st->pguid);
		return;
	}
	if (!valid) {
		snprintf(buf, len, ": (illegal port)");
		return;
	}
	st->pguid = 0;
	pi = p->owner[lid];
	if (pi == SUBNET_NONE) {
		snprintf(buf, len, ": (node info not available fabric scan)");
		return;
	}
	pt = &sn->port[pi];
	st->pguid = pt->guid;
	if (pt->lmc) {
		st->base = pt->lid;
		st->last = pt->lid + (1u << (pt->lmc & 7)) - 1;
	}
	first_info(p, pt, buf, len);
}

/*
 * The same as a string and its length: the first LID of a port, most lines
 * of a table, is the text made once (build_infos), copied as it is; the
 * others are formatted into buf.
 */
static const char *dest_info(struct printer *p, struct info_state *st, uint32_t lid,
			     bool valid, char *buf, size_t len, size_t *n)
{
	if (valid && lid > st->last && p->ioff && p->ioff[lid] != UINT32_MAX) {
		const struct subnet_port *pt = &p->sn->port[p->owner[lid]];

		st->pguid = pt->guid;
		if (pt->lmc) {
			st->base = pt->lid;
			st->last = pt->lid + (1u << (pt->lmc & 7)) - 1;
		}
		*n = p->ilen[lid];
		return p->itext + p->ioff[lid];
	}
	dest_info_fmt(p, st, lid, valid, buf, len);
	*n = strlen(buf);
	return buf;
}

/* Every LID's first-LID info, made once for all the tables. */
static int build_infos(struct printer *p)
{
	uint32_t max = p->out->max_lid;
	size_t cap = 4096, used = 0;
	char line[512];

	p->ioff = malloc(((size_t)max + 1) * sizeof(*p->ioff));
	p->ilen = malloc(((size_t)max + 1) * sizeof(*p->ilen));
	p->itext = malloc(cap);
	if (!p->ioff || !p->ilen || !p->itext)
		return -ENOMEM;
	for (uint32_t l = 0; l <= max; l++) {
		size_t n;

		p->ioff[l] = UINT32_MAX;
		if (p->owner[l] == SUBNET_NONE)
			continue;
		first_info(p, &p->sn->port[p->owner[l]], line, sizeof(line));
		n = strlen(line) + 1;
		if (used + n > cap) {
			char *t = realloc(p->itext, cap * 2 + n);

			if (!t)
				return -ENOMEM;
			p->itext = t;
			cap = cap * 2 + n;
		}
		memcpy(p->itext + used, line, n);
		p->ioff[l] = (uint32_t)used;
		p->ilen[l] = (uint16_t)(n - 1);
		used += n;
	}
	return 0;
}

/* "0x%04x %03u " by hand: the hot line of every table. */
static char *lid_port(char *b, uint32_t lid, unsigned port)
{
	static const char hex[] = "0123456789abcdef";

	*b++ = '0';
	*b++ = 'x';
	if (lid > 0xffff) /* not a unicast LID; printf would widen, and so do we */
		b += sprintf(b, "%x", lid >> 16);
	for (int sh = 12; sh >= 0; sh -= 4)
		*b++ = hex[(lid >> sh) & 15];
	*b++ = ' ';
	*b++ = (char)('0' + port / 100);
	*b++ = (char)('0' + port / 10 % 10);
	*b++ = (char)('0' + port % 10);
	*b++ = ' ';
	return b;
}

static char *lid_port(char *b, uint32_t lid, unsigned port);

static void print_switch(struct printer *p, uint32_t s)
{
	const struct subnet *sn = p->sn;
	uint32_t node = p->out->sw_node[s], n = 0;
	const struct subnet_node *nd = &sn->node[node];
	const uint8_t *lft = route_lft(p->out, s);
	struct info_state st = { 0 };
	char addr[1024], info[512];

	addr[0] = 0;
	if (p->o->addr == LFT_TEXT_ADDR_DR)
		dr_path(p, s, addr, sizeof(addr));
	else if (p->o->addr == LFT_TEXT_ADDR_LID)
		snprintf(addr, sizeof(addr), "Lid %u", sn->port[nd->port_base].lid);
	blk_flush(p);
	fprintf(p->f, "Unicast lids [0x0-0x%x] of switch %s%sguid 0x%016" PRIx64 " (%s):\n",
		p->out->max_lid, addr, addr[0] ? " " : "", nd->guid, subnet_str(sn, nd->desc));
	fprintf(p->f, "  Lid  Out   Destination\n       Port     Info \n");
	for (uint32_t lid = 0; lid <= p->out->max_lid; lid++) {
		bool valid = lft[lid] <= nd->nports;
		const char *text;
		char *e;
		size_t k;

		if (!valid && !p->o->all)
			continue;
		text = dest_info(p, &st, lid, valid, info, sizeof(info), &k);
		/* "0x" up to 8 digits, port, 2 spaces, the info, newline. */
		e = lid_port(blk_room(p, k + 24), lid, lft[lid]);
		memcpy(e, text, k);
		e[k] = '\n';
		p->n_blk = (size_t)(e + k + 1 - p->blk);
		n++;
	}
	blk_flush(p);
	fprintf(p->f, "%u %slids dumped \n", n, p->o->all ? "" : "valid ");
}

static int cmp_guid(const void *a, const void *b, void *ctx)
{
	const struct printer *p = ctx;
	uint64_t x = p->sn->node[p->out->sw_node[*(const uint32_t *)a]].guid;
	uint64_t y = p->sn->node[p->out->sw_node[*(const uint32_t *)b]].guid;

	return x < y ? -1 : x > y;
}

int lft_text_print(FILE *f, const struct subnet *sn, const struct route_out *out,
		   const struct lft_text_opts *o)
{
	_cleanup_(printer_free) struct printer p = { .f = f, .sn = sn, .out = out, .o = o };
	_cleanup_free_ uint32_t *order = NULL;
	int r;

	for (uint32_t s = 0; s < out->n_sw; s++)
		if (out->sw_node[s] >= sn->n_nodes || !subnet_is_switch(sn, out->sw_node[s]))
			return -EINVAL;
	r = build_owners(&p);
	if (r == 0 && !o->brief)
		r = build_infos(&p);
	if (r == 0 && o->addr == LFT_TEXT_ADDR_DR)
		r = build_paths(&p);
	if (r < 0)
		return r;
	order = malloc(((size_t)out->n_sw + 1) * sizeof(*order));
	p.blk = malloc(LFT_BLOCK);
	if (!order || !p.blk)
		return -ENOMEM;
	for (uint32_t s = 0; s < out->n_sw; s++)
		order[s] = s;
	if (o->by_guid)
		qsort_r(order, out->n_sw, sizeof(*order), cmp_guid, &p);
	for (uint32_t i = 0; i < out->n_sw; i++)
		print_switch(&p, order[i]);
	blk_flush(&p);
	return fflush(f) || ferror(f) || p.werr ? -EIO : 0;
}
