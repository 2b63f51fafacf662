/* SPDX-License-Identifier: MIT */
/*
 * The health: section: loom health's own defaults. Per-counter thresholds
 * under the names perfquery and ibqueryerrors' threshold file use, how long
 * the sm group waits to see the master's ActCount move, and whether
 * warnings count as problems. loom health's command line and its
 * --threshold-file win over these.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "config/config_priv.h"
#include "lib/cleanup.h"

static struct config_health *health_of(void *obj)
{
	return &((struct config *)obj)->health;
}

void config_health_defaults(struct config_health *h)
{
	for (unsigned c = 0; c < _PMA_COUNTER_MAX; c++)
		h->threshold[c] = pma_counter_threshold(c);
	/* Long enough for a busy SM's ActCount to move, short enough for a cron job. */
	h->act_wait_us = 1000000;
	h->strict = false;
}

/* thresholds.NAME: N; parse_map() has put ".NAME" last on the path. */
static void t_counter(struct pctx *p, const struct ynode *v, void *obj)
{
	const char *name = strrchr(p->path, '.');
	uint64_t x;
	int c;

	c = name ? pma_counter_by_name(name + 1, strlen(name + 1)) : -EINVAL;
	if (c >= 0 && parse_uint(p, v, 0, UINT32_MAX, &x))
		health_of(obj)->threshold[c] = (uint32_t)x;
}

static void h_thresholds(struct pctx *p, const struct ynode *v, void *obj)
{
	struct pfield f[_PMA_COUNTER_MAX];

	for (unsigned c = 0; c < _PMA_COUNTER_MAX; c++)
		f[c] = (struct pfield){ pma_counter_name(c), t_counter };
	parse_map(p, v, f, _PMA_COUNTER_MAX, obj);
}

static void h_act_wait(struct pctx *p, const struct ynode *v, void *obj)
{
	parse_duration(p, v, 0, CONFIG_HEALTH_ACT_WAIT_US_MAX, false, &health_of(obj)->act_wait_us);
}

static void h_strict(struct pctx *p, const struct ynode *v, void *obj)
{
	parse_bool(p, v, &health_of(obj)->strict);
}

void parse_health(struct pctx *p, const struct ynode *v, void *obj)
{
	static const struct pfield f[] = {
		{ "thresholds", h_thresholds },
		{ "activity-wait", h_act_wait },
		{ "strict", h_strict },
	};

	parse_map(p, v, f, ARRAY_SIZE(f), obj);
}

bool config_health_equal(const struct config_health *a, const struct config_health *b)
{
	return !memcmp(a->threshold, b->threshold, sizeof(a->threshold)) &&
	       a->act_wait_us == b->act_wait_us && a->strict == b->strict;
}

void config_health_print(const struct config_health *h, FILE *f)
{
	char buf[32];

	fprintf(f, "health:\n  thresholds:\n");
	for (unsigned c = 0; c < _PMA_COUNTER_MAX; c++)
		fprintf(f, "    %s: %" PRIu32 "\n", pma_counter_name(c), h->threshold[c]);
	units_duration_fmt(h->act_wait_us, buf, sizeof(buf));
	fprintf(f, "  activity-wait: %s\n  strict: %s\n", buf, h->strict ? "true" : "false");
}
