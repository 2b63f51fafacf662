/* SPDX-License-Identifier: MIT */
/*
 * Detours: routes for switches with no up-down path to a destination. On a
 * degraded tree two leaves can lose every common ancestor (each kept other
 * uplinks); their CAs can still talk, through a switch where the route comes
 * down and goes up again: a down-to-up turn, which up-down routing forbids
 * because such turns can close a credit loop.
 *
 * So every turn is checked before it is used, against the channel
 * dependencies routes could ever make: all up-down ones (up to anything but
 * straight back, down to down) plus the turns allowed so far. If the turn's
 * up channel can reach its down channel in that graph, the turn could close
 * a loop and is refused; else it is allowed for good. The graph checked is a
 * superset of what the tables really do, so no accepted turn ever makes the
 * real dependencies cyclic, whatever is routed later. From an up channel
 * the search climbs only the few uplinks above it and then only descends,
 * so a check visits a small part of the fabric.
 *
 * Turns are a budget: each one allowed closes doors for later ones. So only
 * switches with CAs get checked detours, each the path that needs the fewest
 * new turns (then the fewest hops) to a switch that already has a route,
 * found by a Dijkstra over channels; the switches on it take it as their
 * route. The path ends at a switch routed earlier, which never leads back,
 * so there are no loops. Switches still without a route carry no CA traffic
 * (nothing leads to them) and take any routed neighbour, in BFS rounds,
 * unchecked. A switch with CAs with no safe path keeps ROUTE_DROP for that
 * LID, counted in f->blocked: a credit loop is worse than a pair that cannot
 * talk, and the caller says which.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ftree_priv.h"

#define FT_TURN (1u << 16) /* a new turn costs more than any number of hops */

static bool turn_allowed(const struct ft *f, uint32_t in, uint32_t out)
{
	for (uint32_t t = f->turn_head[in]; t != FT_NONE; t = f->turn_next[t])
		if (f->turn_out[t] == out)
			return true;
	return false;
}

static void push(struct ft *f, uint32_t e, uint32_t *tail)
{
	if (f->seen[e] == f->seen_gen)
		return;
	f->seen[e] = f->seen_gen;
	f->equeue[(*tail)++] = e;
}

/* Could channel out lead back to channel in, over every dependency allowed? */
static bool closes_cycle(struct ft *f, uint32_t in, uint32_t out)
{
	uint32_t head = 0, tail = 0;

	if (++f->seen_gen == 0) {
		memset(f->seen, 0, ((size_t)f->n_edges + 1) * sizeof(*f->seen));
		f->seen_gen = 1;
	}
	push(f, out, &tail);
	while (head < tail) {
		uint32_t c = f->equeue[head++], b = f->to[c];

		if (c == in)
			return true;
		if (f->is_up[c]) {
			for (uint32_t e = f->off[b]; e < f->off[b + 1]; e++)
				if (e != f->rev[c])
					push(f, e, &tail);
			continue;
		}
		for (uint32_t e = f->off[b]; e < f->up[b]; e++)
			push(f, e, &tail);
		for (uint32_t t = f->turn_head[c]; t != FT_NONE; t = f->turn_next[t])
			push(f, f->turn_out[t], &tail);
	}
	return false;
}

static int turn_add(struct ft *f, uint32_t in, uint32_t out)
{
	if (f->n_turns == f->cap_turns) {
		uint32_t cap = f->cap_turns ? 2 * f->cap_turns : 64;
		uint32_t *a[3] = { f->turn_in, f->turn_out, f->turn_next };

		for (int i = 0; i < 3; i++) {
			uint32_t *p = realloc(a[i], (size_t)cap * sizeof(*p));

			if (!p)
				return -ENOMEM;
			a[i] = p;
			/* Keep each grown array at once: a later failure must not lose it. */
			f->turn_in = a[0];
			f->turn_out = a[1];
			f->turn_next = a[2];
		}
		f->cap_turns = cap;
	}
	f->turn_in[f->n_turns] = in;
	f->turn_out[f->n_turns] = out;
	f->turn_next[f->n_turns] = f->turn_head[in];
	f->turn_head[in] = f->n_turns++;
	return 0;
}

/* Going from channel in to channel out: 0 (no new turn), FT_TURN, or FT_NONE (unsafe). */
static uint32_t turn_cost(struct ft *f, uint32_t in, uint32_t out)
{
	if (f->is_up[in] || !f->is_up[out] || turn_allowed(f, in, out))
		return 0;
	return closes_cycle(f, in, out) ? FT_NONE : FT_TURN;
}

/*
 * ---- a binary heap of (cost << 32 | channel): ties go to the lower channel in
 * the canonical numbering (switches in ord order), not to the model's node order ----
 */

static int heap_push(struct ft *f, uint64_t key)
{
	uint32_t i;

	if (f->heap_n == f->heap_cap) {
		uint32_t cap = f->heap_cap ? 2 * f->heap_cap : 256;
		uint64_t *h = realloc(f->heap, (size_t)cap * sizeof(*h));

		if (!h)
			return -ENOMEM;
		f->heap = h;
		f->heap_cap = cap;
	}
	for (i = f->heap_n++; i > 0 && f->heap[(i - 1) / 2] > key; i = (i - 1) / 2)
		f->heap[i] = f->heap[(i - 1) / 2];
	f->heap[i] = key;
	return 0;
}

static uint64_t heap_pop(struct ft *f)
{
	uint64_t top = f->heap[0], last = f->heap[--f->heap_n];
	uint32_t i = 0, n = f->heap_n;

	for (;;) {
		uint32_t c = 2 * i + 1;

		if (c >= n)
			break;
		if (c + 1 < n && f->heap[c + 1] < f->heap[c])
			c++;
		if (f->heap[c] >= last)
			break;
		f->heap[i] = f->heap[c];
		i = c;
	}
	if (n)
		f->heap[i] = last;
	return top;
}

static bool routed(const struct ft *f, uint32_t s)
{
	return f->via[s] != FT_NONE;
}

/* Offer channel e, reached from channel prev (FT_NONE: the start) at cost. */
static int relax(struct ft *f, uint32_t e, uint32_t prev, uint32_t cost)
{
	uint32_t z = f->to[e];

	if (routed(f, z) && f->via[z] < FT_HERE) {
		uint32_t t = turn_cost(f, e, f->via[z]);

		if (t == FT_NONE)
			return 0;
		cost += t;
	}
	if (f->dgen[e] == f->seen_gen2 && f->dist[e] <= cost)
		return 0;
	f->dgen[e] = f->seen_gen2;
	f->dist[e] = cost;
	f->prev[e] = prev;
	return heap_push(f, (uint64_t)cost << 32 | f->ecan[e]);
}

/*
 * The cheapest way from switch u (no route yet) to a routed switch: 1 and
 * its last channel in *end, 0 if there is none, -ENOMEM.
 */
static int find_path(struct ft *f, uint32_t u, uint32_t *end)
{
	int r = 0;

	if (++f->seen_gen2 == 0) {
		memset(f->dgen, 0, ((size_t)f->n_edges + 1) * sizeof(*f->dgen));
		f->seen_gen2 = 1;
	}
	f->heap_n = 0;
	for (uint32_t e = f->off[u]; e < f->off[u + 1] && r == 0; e++)
		r = relax(f, e, FT_NONE, 1);
	while (r == 0 && f->heap_n) {
		uint64_t key = heap_pop(f);
		uint32_t c = f->ecan_inv[(uint32_t)key], cost = (uint32_t)(key >> 32), y = f->to[c];

		if (f->dist[c] != cost)
			continue; /* a stale entry */
		if (routed(f, y)) {
			*end = c;
			return 1;
		}
		for (uint32_t e = f->off[y]; e < f->off[y + 1] && r == 0; e++) {
			uint32_t t;

			if (e == f->rev[c] || f->to[e] == u)
				continue;
			t = turn_cost(f, c, e);
			if (t != FT_NONE)
				r = relax(f, e, c, cost + 1 + t);
		}
	}
	return r;
}

/* Forget the turns allowed since there were n (the newest are at their lists' heads). */
static void turns_undo(struct ft *f, uint32_t n)
{
	while (f->n_turns > n) {
		uint32_t t = --f->n_turns;

		f->turn_head[f->turn_in[t]] = f->turn_next[t];
	}
}

/*
 * Take the path ending at channel end as the route of every switch on it,
 * allowing its new turns one by one (each checked again with the ones
 * before it). 1 done, 0 refused (a switch twice, or its turns together
 * could close a loop), -ENOMEM.
 */
static int commit_path(struct ft *f, uint32_t end)
{
	uint32_t n = 0, next = FT_NONE, had = f->n_turns;
	int r;

	for (uint32_t c = end; c != FT_NONE; c = f->prev[c]) {
		uint32_t x = f->to[f->rev[c]];

		if (f->round[x] == f->path_gen)
			return 0;
		f->round[x] = f->path_gen;
		f->queue[n++] = c; /* distinct switches: at most n_sw */
	}
	/* queue[] holds the path backwards; check its turns from the far end. */
	for (uint32_t i = 0; i < n; i++) {
		uint32_t c = f->queue[i];
		uint32_t out = i ? next : f->via[f->to[c]];

		next = c;
		if (out >= FT_HERE || f->is_up[c] || !f->is_up[out] || turn_allowed(f, c, out))
			continue;
		if (closes_cycle(f, c, out)) {
			turns_undo(f, had);
			return 0;
		}
		r = turn_add(f, c, out);
		if (r < 0)
			return r;
	}
	for (uint32_t i = 0; i < n; i++)
		f->via[f->to[f->rev[f->queue[i]]]] = f->queue[i];
	return 1;
}

/* Switches without a route and with no CA traffic: any routed neighbour, in rounds. */
static void route_rest(struct ft *f)
{
	for (uint32_t r = 1;; r++) {
		uint32_t fixed = 0;

		for (uint32_t i = 0; i < f->n_ranked; i++) {
			uint32_t s = f->ord[i];

			if (routed(f, s) || f->hosts[s])
				continue;
			for (uint32_t e = f->off[s]; e < f->off[s + 1]; e++) {
				uint32_t v = f->to[e];

				if (routed(f, v) && f->round[v] < r) {
					f->via[s] = e;
					f->round[s] = r;
					fixed++;
					break;
				}
			}
		}
		if (!fixed)
			return;
	}
}

int ft_detour(struct ft *f, const struct ft_lid *l)
{
	if (!f->pending)
		return 0;
	for (uint32_t i = 0; i < f->n_ranked; i++)
		f->round[f->ord[i]] = 0;
	for (uint32_t i = 0; i < f->n_ranked; i++) {
		uint32_t s = f->ord[i], end = FT_NONE;
		int r;

		if (!f->hosts[s] || routed(f, s))
			continue;
		f->path_gen = UINT32_MAX - 1 - i; /* never a round number */
		r = find_path(f, s, &end);
		if (r > 0)
			r = commit_path(f, end);
		if (r < 0)
			return r;
		if (r == 0) {
			ft_group_bfs(f, l->g);
			if (f->bd[s] == FT_INF)
				continue; /* in another piece of the fabric: no path at all */
			f->prio[l->g] = 1;
			if (!f->blocked++) {
				f->blocked_sw = s;
				f->blocked_lid = l->lid;
			}
		} else if (!f->detours++) {
			f->detour_sw = s;
			f->detour_lid = l->lid;
		}
	}
	for (uint32_t i = 0; i < f->n_ranked; i++)
		f->round[f->ord[i]] = 0;
	route_rest(f);
	return 0;
}
