/* SPDX-License-Identifier: MIT */
/*
 * The route-quality checker (definitions in check.h). Per destination LID,
 * every switch's route is followed once: a walk stops at the first switch
 * whose outcome is known, and the switches it passed take that outcome (one
 * more hop each). The switches in the order their outcome became known are a
 * topological order of the routing tree towards the LID, so the number of
 * all-to-all routes through each link follows in one pass from the leaves,
 * and the channel dependencies with it. Messages are in check_msg.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cleanup.h"
#include "check_priv.h"

void ck_worker_free(struct ck *w)
{
	ck_vl_free(w); /* and dep, which is dep_vl[0][0] */
	free(w->load_a);
	free(w->load_s);
	free(w->cols);
	free(w->slcols);
	free(w->state);
	free(w->hops);
	free(w->where);
	free(w->next);
	free(w->stack);
	free(w->done);
	free(w->flow);
	free(w->dist);
	free(w->queue);
	free(w->stretch_num);
	diag_free(&w->wd);
}

void ck_free(struct ck *k)
{
	ck_worker_free(k); /* what the workers left it */
	free(k->port_chan);
	free(k->chan_port);
	free(k->dep_off);
	free(k->src_off);
	free(k->src);
	free(k->hosts);
	free(k->rank);
	free(k->dests);
	free(k->lids);
	free(k->lid_dest);
	ck_adj_free(k);
}

static bool out_matches(const struct subnet *sn, const struct route_out *out)
{
	uint32_t n = 0;

	if (!out->sw_index || (out->n_sw && (!out->sw_node || !out->lft)))
		return false;
	for (uint32_t i = 0; i < sn->n_nodes; i++) {
		if (!subnet_is_switch(sn, i))
			continue;
		if (n >= out->n_sw || out->sw_node[n] != i || out->sw_index[i] != n)
			return false;
		n++;
	}
	return n == out->n_sw;
}

/* Channels: switch ports linked to a switch. Their CDG bits: one per next port. */
static int setup_channels(struct ck *k)
{
	const struct subnet *sn = k->sn;
	uint32_t bits = 0;

	k->port_chan = malloc(((size_t)sn->n_ports + 1) * sizeof(*k->port_chan));
	k->chan_port = malloc(((size_t)sn->n_ports + 1) * sizeof(*k->chan_port));
	k->dep_off = malloc(((size_t)sn->n_ports + 2) * sizeof(*k->dep_off));
	if (!k->port_chan || !k->chan_port || !k->dep_off)
		return -ENOMEM;
	for (uint32_t pi = 0; pi < sn->n_ports; pi++) {
		const struct subnet_port *p = &sn->port[pi];

		k->port_chan[pi] = SUBNET_NONE;
		if (!p->num || p->peer == SUBNET_NONE || !subnet_is_switch(sn, p->node) ||
		    !subnet_is_switch(sn, sn->port[p->peer].node))
			continue;
		k->dep_off[k->n_chan] = bits;
		bits += sn->node[sn->port[p->peer].node].nports + 1u;
		k->chan_port[k->n_chan] = pi;
		k->port_chan[pi] = k->n_chan++;
	}
	k->dep_off[k->n_chan] = bits;
	return 0;
}

/* The switch a non-switch port is linked to, or SUBNET_NONE. */
static uint32_t attach_sw(const struct ck *k, uint32_t pi)
{
	const struct subnet *sn = k->sn;
	uint32_t peer = sn->port[pi].peer;

	if (peer == SUBNET_NONE || !subnet_is_switch(sn, sn->port[peer].node))
		return SUBNET_NONE;
	return k->out->sw_index[sn->port[peer].node];
}

static bool is_host(const struct ck *k, uint32_t pi)
{
	const struct subnet_port *p = &k->sn->port[pi];

	return p->num && p->lid && !subnet_is_switch(k->sn, p->node) && attach_sw(k, pi) != SUBNET_NONE;
}

static int cmp_port_guid(const void *a, const void *b, void *ctx)
{
	const struct subnet *sn = ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	uint64_t gx = sn->port[x].guid, gy = sn->port[y].guid;

	if (gx != gy)
		return gx < gy ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* Hosts: grouped by the switch they hang off (CSR), and in port GUID order. */
static int setup_hosts(struct ck *k)
{
	const struct subnet *sn = k->sn;
	uint32_t n = 0;

	k->src_off = calloc((size_t)k->n_sw + 2, sizeof(*k->src_off));
	k->rank = malloc(((size_t)sn->n_ports + 1) * sizeof(*k->rank));
	if (!k->src_off || !k->rank)
		return -ENOMEM;
	for (uint32_t pi = 0; pi < sn->n_ports; pi++) {
		k->rank[pi] = SUBNET_NONE;
		if (is_host(k, pi)) {
			k->src_off[attach_sw(k, pi) + 2]++;
			n++;
		}
	}
	k->n_hosts = n;
	k->src = malloc(((size_t)n + 1) * sizeof(*k->src));
	k->hosts = malloc(((size_t)n + 1) * sizeof(*k->hosts));
	if (!k->src || !k->hosts)
		return -ENOMEM;
	for (uint32_t s = 0; s < k->n_sw; s++)
		k->src_off[s + 2] += k->src_off[s + 1];
	n = 0;
	for (uint32_t pi = 0; pi < sn->n_ports; pi++) {
		if (!is_host(k, pi))
			continue;
		k->src[k->src_off[attach_sw(k, pi) + 1]++] = pi;
		k->hosts[n++] = pi;
	}
	qsort_r(k->hosts, n, sizeof(*k->hosts), cmp_port_guid, (void *)sn);
	for (uint32_t i = 0; i < n; i++)
		k->rank[k->hosts[i]] = i;
	return 0;
}

static int cmp_dest(const void *a, const void *b)
{
	const struct ck_dest *x = a, *y = b;

	if (x->sw != y->sw)
		return x->sw < y->sw ? -1 : 1;
	return x->lid < y->lid ? -1 : x->lid > y->lid;
}

/* LID-bearing ports, grouped by the switch they hang off (one BFS per group). */
static int setup_dests(struct ck *k)
{
	const struct subnet *sn = k->sn;
	uint32_t n = 0;

	k->dests = malloc(((size_t)sn->n_ports + 1) * sizeof(*k->dests));
	if (!k->dests)
		return -ENOMEM;
	for (uint32_t pi = 0; pi < sn->n_ports; pi++) {
		const struct subnet_port *p = &sn->port[pi];
		bool sw = subnet_is_switch(sn, p->node);
		struct ck_dest *d = &k->dests[n];

		if (!p->lid || (sw ? p->num != 0 : p->num == 0))
			continue;
		d->port = pi;
		d->is_sw = sw;
		d->sw = sw ? k->out->sw_index[p->node] : attach_sw(k, pi);
		d->lid = p->lid;
		d->nlids = (uint16_t)(1u << (p->lmc & 7));
		n++;
		if (!sw) {
			k->rep->dest_ports++;
			k->rep->dest_lids += d->nlids;
		}
	}
	k->n_dests = n;
	qsort(k->dests, n, sizeof(*k->dests), cmp_dest);
	return 0;
}

static int setup(struct ck *k)
{
	int r;

	r = setup_channels(k);
	if (r == 0)
		r = ck_adj_setup(k);
	if (r == 0)
		r = setup_hosts(k);
	if (r == 0)
		r = setup_dests(k);
	return r;
}

/*
 * A worker: a copy of the checker k (its read-only arrays shared) with its
 * own working arrays, counts in *rep and messages of its own. -ENOMEM.
 */
int ck_worker_setup(struct ck *k, struct ck *w, struct check_report *rep)
{
	size_t n = (size_t)k->n_sw + 1;
	int r;

	*w = *k;
	memset(w->dep_vl, 0, sizeof(w->dep_vl));
	w->load_a = w->load_s = w->stretch_num = w->flow = NULL;
	w->cols = w->slcols = w->state = NULL;
	w->hops = w->where = w->next = w->stack = w->done = w->dist = w->queue = NULL;
	w->first_vl = w->dropped = w->path = NULL;
	w->memo = NULL;
	w->lids = w->lid_dest = NULL;
	w->rep = rep;
	*rep = (struct check_report){ 0 };
	w->wd = (struct diag){ .limit = k->max_msgs };
	w->d = &w->wd;
	w->dep = w->dep_vl[0][0] = calloc((size_t)k->dep_off[k->n_chan] / 8 + 1, 1);
	w->load_a = calloc((size_t)k->n_chan + 1, sizeof(*w->load_a));
	w->load_s = calloc((size_t)k->n_chan + 1, sizeof(*w->load_s));
	w->stretch_num = calloc(n, sizeof(*w->stretch_num));
	w->cols = malloc((size_t)CK_COLS * k->n_sw + 1);
	if (k->o && k->o->sl)
		w->slcols = malloc((size_t)CK_COLS * k->n_sw + 1);
	if (!w->dep || !w->load_a || !w->load_s || !w->stretch_num || !w->cols ||
	    (k->o && k->o->sl && !w->slcols))
		return -ENOMEM;
	r = ck_vl_setup(w);
	if (r < 0)
		return r;
	w->state = malloc(n);
	w->hops = malloc(n * sizeof(*w->hops));
	w->where = malloc(n * sizeof(*w->where));
	w->next = malloc(n * sizeof(*w->next));
	w->stack = malloc(n * sizeof(*w->stack));
	w->done = malloc(n * sizeof(*w->done));
	w->flow = malloc(n * sizeof(*w->flow));
	w->dist = malloc(n * sizeof(*w->dist));
	w->queue = malloc(n * sizeof(*w->queue));
	if (!w->state || !w->hops || !w->where || !w->next || !w->stack || !w->done || !w->flow ||
	    !w->dist || !w->queue)
		return -ENOMEM;
	return 0;
}

uint8_t ck_entry(const struct ck *k, uint32_t s, uint32_t lid)
{
	return lid <= k->out->max_lid ? route_lft(k->out, s)[lid] : ROUTE_DROP;
}

/* One step of a route at switch s: an outcome, or CK_BUSY and the next switch. */
static uint8_t step(const struct ck *k, uint32_t s, uint32_t tp, uint32_t *nxt)
{
	uint8_t e = k->col[s];
	uint32_t to;

	if (e == ROUTE_DROP || e > k->np[s])
		return CK_DROP;
	to = k->adj[(size_t)s * k->stride + e].to;
	if (to == CK_TO_DEAD)
		return CK_DEAD;
	if (to & CK_TO_PORT)
		return (to & ~CK_TO_PORT) == tp ? CK_OK : CK_WRONG;
	*nxt = to;
	return CK_BUSY;
}

/* The outcome of the route from switch s0 to the LID (port tp), memoised. */
static void walk(struct ck *k, uint32_t s0, uint32_t tp)
{
	uint32_t n = 0, s = s0, nxt = 0, w, h;
	uint8_t st;

	while (k->state[s] == CK_UNKNOWN) {
		k->state[s] = CK_BUSY;
		st = step(k, s, tp, &nxt);
		if (st != CK_BUSY) {
			k->state[s] = st;
			k->hops[s] = 0;
			k->where[s] = s;
			k->done[k->n_done++] = s;
			break;
		}
		k->stack[n++] = s;
		k->next[s] = nxt;
		s = nxt;
	}
	if (k->state[s] == CK_BUSY) { /* back at a switch of this walk */
		st = CK_LOOP;
		w = s;
		h = 0;
	} else {
		st = k->state[s];
		w = k->where[s];
		h = k->hops[s];
	}
	while (n > 0) {
		s = k->stack[--n];
		k->state[s] = st;
		k->where[s] = w;
		k->hops[s] = ++h;
		k->done[k->n_done++] = s;
	}
}

/* The all-to-all pairs towards one LID of host-side destination d. */
static void count_pairs(struct ck *k, const struct ck_dest *d, uint32_t lid)
{
	struct check_report *rep = k->rep;

	for (uint32_t s = 0; s < k->n_sw; s++) {
		uint64_t cnt = k->src_off[s + 1] - k->src_off[s];
		double ratio;

		k->flow[s] = 0;
		if (s == d->sw && k->rank[d->port] != SUBNET_NONE)
			cnt--; /* not to itself */
		if (!cnt)
			continue;
		rep->pairs += cnt;
		if (d->sw != SUBNET_NONE && k->dist[s] != CK_INF)
			k->short_a += cnt * k->dist[s];
		if (d->sw == SUBNET_NONE || k->state[s] != CK_OK) {
			if (d->sw != SUBNET_NONE && k->state[s] == CK_LOOP)
				rep->loops += cnt;
			else
				rep->unreachable += cnt;
			ck_msg_pairs(k, d, lid, s);
			continue;
		}
		if (k->vl_mode && k->dropped[s]) { /* mapped to VL 15 on the way */
			rep->unreachable += k->dropped[s];
			ck_msg_vl15(k, d, lid, s, k->dropped[s]);
			cnt -= k->dropped[s];
			if (!cnt)
				continue;
		}
		k->flow[s] = cnt;
		rep->delivered += cnt;
		k->hop_sum += cnt * k->hops[s];
		if (k->hops[s] > rep->hops_max)
			rep->hops_max = k->hops[s];
		if (k->dist[s] == CK_INF || k->dist[s] > k->hops[s])
			continue; /* cannot be: the route crossed real links */
		if (k->hops[s] - k->dist[s] > rep->extra_max)
			rep->extra_max = k->hops[s] - k->dist[s];
		ratio = (k->hops[s] + 2.0) / (k->dist[s] + 2.0);
		k->stretch_num[k->dist[s]] += cnt * (k->hops[s] + 2u); /* exact, in any order */
		if (ratio > rep->stretch_max)
			rep->stretch_max = ratio;
	}
}

/* The channel switch s's route to the LID leaves by (s is delivered, hops > 0). */
static uint32_t chan_of(const struct ck *k, uint32_t s)
{
	return k->adj[(size_t)s * k->stride + k->col[s]].chan;
}

/* Flows down the routing tree, leaves first: link loads and dependencies. */
static void spread_flows(struct ck *k)
{
	for (uint32_t i = k->n_done; i-- > 0;) {
		uint32_t s = k->done[i], c, t;

		if (k->state[s] != CK_OK || !k->hops[s] || !k->flow[s])
			continue;
		c = chan_of(k, s);
		t = k->next[s];
		k->load_a[c] += k->flow[s];
		k->flow[t] += k->flow[s];
		if (!k->vl_mode)
			k->rep->vls_used |= 1; /* everything on VL 0 */
		if (k->hops[t] && !k->vl_mode) {
			uint32_t bit = k->dep_off[c] + k->col[t];

			k->dep[bit / 8] |= (uint8_t)(1u << (bit % 8));
		}
	}
}

/* Shift: the one host that sends to host destination d (its base LID). */
static void shift_route(struct ck *k, const struct ck_dest *d)
{
	uint32_t n = k->n_hosts, j = k->rank[d->port], src, s;

	if (j == SUBNET_NONE || n < 2)
		return;
	src = k->hosts[(j + n - n / 2) % n];
	s = attach_sw(k, src);
	if (k->dist[s] != CK_INF)
		k->short_s += k->dist[s];
	if (k->state[s] != CK_OK)
		return;
	k->rep->shift.routes++;
	for (uint32_t i = 0; k->hops[s] && i < k->n_sw; i++) {
		k->load_s[chan_of(k, s)]++;
		s = k->next[s];
	}
}

static void one_lid(struct ck *k, const struct ck_dest *d, uint32_t lid)
{
	memset(k->state, CK_UNKNOWN, k->n_sw);
	k->n_done = 0;
	for (uint32_t s = 0; s < k->n_sw; s++)
		walk(k, s, d->port);
	if (d->is_sw) {
		for (uint32_t s = 0; s < k->n_sw; s++) {
			k->rep->sw_pairs++;
			if (k->state[s] != CK_OK) {
				k->rep->sw_bad++;
				ck_msg_switch(k, d, lid, s);
			}
		}
		return;
	}
	if (k->vl_mode && d->sw != SUBNET_NONE)
		ck_vl_lid(k);
	count_pairs(k, d, lid);
	if (d->sw == SUBNET_NONE)
		return;
	spread_flows(k);
	if (lid == d->lid)
		shift_route(k, d);
}

struct ck_batch {
	uint32_t lid[CK_COLS], dest[CK_COLS], n;
	uint32_t bfs_sw; /* the switch dist[] is from */
};

/* Judge the batch's LIDs in order, reading their LFT columns at once. */
static void judge_batch(struct ck *k, struct ck_batch *b)
{
	ck_cols(k, b->lid, b->n);
	for (uint32_t j = 0; j < b->n; j++) {
		const struct ck_dest *dd = &k->dests[b->dest[j]];

		if (dd->sw != SUBNET_NONE && dd->sw != b->bfs_sw) {
			ck_bfs(k, dd->sw);
			b->bfs_sw = dd->sw;
		}
		k->col = k->cols + (size_t)j * k->n_sw;
		k->slcol = k->slcols ? k->slcols + (size_t)j * k->n_sw : NULL;
		one_lid(k, dd, b->lid[j]);
	}
	b->n = 0;
}

/* Judge lid[0 .. n-1] (of dests[dest[i]]) in order, CK_COLS at a time. */
void ck_judge(struct ck *w, const uint32_t *lid, const uint32_t *dest, uint64_t n)
{
	struct ck_batch b = { .n = 0, .bfs_sw = SUBNET_NONE };

	for (uint64_t i = 0; i < n; i++) {
		b.lid[b.n] = lid[i];
		b.dest[b.n++] = dest[i];
		if (b.n == CK_COLS)
			judge_batch(w, &b);
	}
	if (b.n)
		judge_batch(w, &b);
}

static void load_stats(const struct ck *k, const uint64_t *load, double shortest,
		       struct check_load *l)
{
	uint64_t sum = 0;

	l->max_node = SUBNET_NONE;
	for (uint32_t c = 0; c < k->n_chan; c++) {
		sum += load[c];
		if (load[c] > l->max || l->max_node == SUBNET_NONE) {
			l->max = load[c];
			l->max_node = k->sn->port[k->chan_port[c]].node;
			l->max_port = k->sn->port[k->chan_port[c]].num;
		}
	}
	l->mean = k->n_chan ? (double)sum / k->n_chan : 0;
	l->ideal = k->n_chan ? shortest / k->n_chan : 0;
}

int check_routes(const struct subnet *sn, const struct route_out *out,
		 const struct check_opts *o, struct check_report *rep, struct diag *d)
{
	_cleanup_(ck_free) struct ck k = { .sn = sn, .out = out, .d = d, .rep = rep, .o = o };
	int r;

	if (!out_matches(sn, out))
		return -EINVAL;
	*rep = (struct check_report){ .switches = out->n_sw };
	k.n_sw = out->n_sw;
	k.max_msgs = o && o->max_msgs ? o->max_msgs : CHECK_MSGS_DEFAULT;
	r = setup(&k);
	if (r < 0)
		return r;
	rep->hosts = k.n_hosts;
	rep->links = k.n_chan;
	r = ck_judge_all(&k);
	if (r < 0)
		return r;
	rep->all2all.routes = rep->delivered;
	if (rep->delivered) {
		double stretch = 0;

		for (uint32_t h = 0; h < k.n_sw; h++)
			if (k.stretch_num[h])
				stretch += k.stretch_num[h] / (h + 2.0);
		rep->hops_mean = (double)k.hop_sum / rep->delivered;
		rep->stretch_mean = stretch / rep->delivered;
	}
	load_stats(&k, k.load_a, k.short_a, &rep->all2all);
	load_stats(&k, k.load_s, k.short_s, &rep->shift);
	r = ck_cdg(&k);
	if (r < 0)
		return r;
	ck_msg_summary(&k);
	return 0;
}
