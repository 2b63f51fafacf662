/* SPDX-License-Identifier: MIT */
/*
 * The channel dependency graph the all-to-all routes build (check.c sets
 * its bits): is it acyclic? An iterative depth-first search, so a fabric of
 * 100,000 channels cannot overflow the stack; the first cycle found is named.
 */
#include <errno.h>
#include <stdlib.h>

#include "lib/cleanup.h"
#include "check_priv.h"

static bool dep_bit(const struct ck *k, uint32_t b)
{
	return k->dep[b / 8] & (1u << (b % 8));
}

/* The channel that channel c feeds when the next switch sends by port e. */
static uint32_t dep_target(const struct ck *k, uint32_t c, uint32_t e)
{
	const struct subnet *sn = k->sn;
	uint32_t y = sn->port[sn->port[k->chan_port[c]].peer].node;

	return k->port_chan[subnet_port_idx(sn, y, e)];
}

int ck_cdg(struct ck *k)
{
	_cleanup_free_ uint8_t *color = calloc((size_t)k->n_chan + 1, 1); /* 0 new, 1 open, 2 done */
	_cleanup_free_ uint32_t *stk = malloc(((size_t)k->n_chan + 1) * sizeof(*stk));
	_cleanup_free_ uint32_t *pos = malloc(((size_t)k->n_chan + 1) * sizeof(*pos));
	uint32_t bits = k->dep_off[k->n_chan];

	if (!color || !stk || !pos)
		return -ENOMEM;
	k->rep->cdg_deps = 0;
	for (uint32_t b = 0; b < bits; b++)
		k->rep->cdg_deps += dep_bit(k, b);
	k->rep->cdg_acyclic = true;
	for (uint32_t root = 0; root < k->n_chan; root++) {
		uint32_t top = 0;

		if (color[root])
			continue;
		color[root] = 1;
		stk[top] = root;
		pos[top++] = k->dep_off[root];
		while (top > 0) {
			uint32_t c = stk[top - 1], b = pos[top - 1], u;

			while (b < k->dep_off[c + 1] && !dep_bit(k, b))
				b++;
			if (b == k->dep_off[c + 1]) {
				color[c] = 2;
				top--;
				continue;
			}
			pos[top - 1] = b + 1;
			u = dep_target(k, c, b - k->dep_off[c]);
			if (u == SUBNET_NONE || color[u] == 2)
				continue;
			if (color[u] == 1) {
				uint32_t i = top - 1;

				while (i > 0 && stk[i] != u)
					i--;
				k->rep->cdg_acyclic = false;
				ck_msg_cycle(k, stk + i, top - i);
				return 0;
			}
			color[u] = 1;
			stk[top] = u;
			pos[top++] = k->dep_off[u];
		}
	}
	return 0;
}
