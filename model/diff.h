/* SPDX-License-Identifier: MIT */
#ifndef LOOM_MODEL_DIFF_H
#define LOOM_MODEL_DIFF_H

#include <stddef.h>
#include <stdint.h>

#include "model/subnet.h"

/* What changed between two models of one fabric, one event each. */
enum diff_kind {
	DIFF_NODE_GONE,   /* a node of the old model is not in the new one */
	DIFF_NODE_NEW,    /* a node of the new model was not in the old one */
	DIFF_LINK_DOWN,   /* two ports linked before are not linked to each other now */
	DIFF_LINK_UP,     /* two ports are linked now that were not linked to each other */
	_DIFF_MAX
};

/*
 * One event. Nodes are matched by NodeGUID, ports by node and number. For
 * DIFF_NODE_GONE a is the old model's node (b unused); DIFF_NODE_NEW the new
 * model's. For links a and b are the two ends, as ports of the model that
 * has the link (the old one for DIFF_LINK_DOWN, the new one for _UP), a the
 * end with the lower (NodeGUID, port).
 */
struct diff_event {
	enum diff_kind kind;
	uint32_t a, b;
};

typedef void (*diff_fn)(void *arg, const struct diff_event *ev);

/*
 * Call fn once per change from old to cur, in a fixed order: nodes gone,
 * nodes new, links down, links up (each in model order). A link whose node
 * went or came is reported as a link too, so every cable is accounted for.
 * Returns the number of events. Either model may be NULL (empty).
 */
unsigned diff_models(const struct subnet *old, const struct subnet *cur, diff_fn fn, void *arg);

const char *diff_kind_name(enum diff_kind k);
/*
 * 'link down: switch 0x0002c90300000005 "leaf001" port 5 <-> switch
 * 0x0002c90300000001 "spine001" port 1': ev as a line, from the two models.
 */
const char *diff_event_str(const struct subnet *old, const struct subnet *cur,
			   const struct diff_event *ev, char *buf, size_t len);

#endif
