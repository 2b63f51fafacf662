/* SPDX-License-Identifier: MIT */
/* The sm: section: the subnet manager's own settings. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "config/config_priv.h"
#include "lib/array.h"
#include "lib/cleanup.h"

static struct config_sm *sm_of(void *obj)
{
	return &((struct config *)obj)->sm;
}

/* ---- sm.routing ------------------------------------------------------------ */

/* One engine word (config_engine_names, "auto" last) into the list; a word named twice is an error. */
static void engine_add(struct pctx *p, const struct ynode *v, struct config_sm *sm)
{
	unsigned e;

	if (!parse_word(p, v, config_engine_names, CONFIG_ENGINE_AUTO + 1, &e))
		return;
	for (unsigned i = 0; i < sm->routing.n_engines; i++)
		if (sm->routing.engine[i] == e) {
			perr(p, v, "'%s' is listed twice (each engine is tried once)",
			     config_engine_names[e]);
			return;
		}
	sm->routing.engine[sm->routing.n_engines++] = (uint8_t)e;
}

/* engine: ftree, or a list tried in order: [ftree, vlayered]. */
static void r_engine(struct pctx *p, const struct ynode *v, void *obj)
{
	struct config_sm *sm = sm_of(obj);
	unsigned i = 0;

	p->seen.engine = v;
	sm->routing.n_engines = 0;
	if (v->type != YNODE_SEQ) {
		engine_add(p, v, sm);
	} else if (!v->n || v->n > CONFIG_ENGINES_MAX) {
		perr(p, v, "%u engines (allowed: 1-%u, tried in order)", v->n, CONFIG_ENGINES_MAX);
	} else {
		for (const struct ynode *e = ynode_at(p->t, v->first); e;
		     e = ynode_at(p->t, e->next), i++) {
			size_t old = path_push(p, "[%u]", i);

			engine_add(p, e, sm);
			path_pop(p, old);
		}
	}
	if (!sm->routing.n_engines) { /* an error was said: keep a list to print */
		sm->routing.engine[0] = CONFIG_ENGINE_AUTO;
		sm->routing.n_engines = 1;
	}
}

static void r_fallback(struct pctx *p, const struct ynode *v, void *obj)
{
	static const char *const words[] = { "auto", "none" };
	unsigned w;

	if (parse_word(p, v, words, 2, &w))
		sm_of(obj)->routing.no_fallback = w == 1;
}

static void r_lmc(struct pctx *p, const struct ynode *v, void *obj)
{
	uint64_t x;

	if (parse_uint(p, v, 0, 7, &x))
		sm_of(obj)->routing.lmc = (uint8_t)x;
}

static void r_vls(struct pctx *p, const struct ynode *v, void *obj)
{
	uint64_t x;

	p->seen.vls = v;
	if (parse_uint(p, v, 1, 8, &x))
		sm_of(obj)->routing.vls = (uint8_t)x;
}

static void r_file(struct pctx *p, const struct ynode *v, void *obj)
{
	p->seen.file = v;
	free(sm_of(obj)->routing.file);
	sm_of(obj)->routing.file = NULL;
	parse_string(p, v, 4096, &sm_of(obj)->routing.file);
}

static void r_roots(struct pctx *p, const struct ynode *v, void *obj)
{
	struct config_sm *sm = sm_of(obj);
	uint32_t cap = 0, i = 0;

	p->seen.roots = v;
	if (!parse_seq(p, v))
		return;
	if (v->n > CONFIG_ROOTS_MAX) {
		perr(p, v, "%u roots is too many (allowed: up to %u switches)", v->n,
		     CONFIG_ROOTS_MAX);
		return;
	}
	for (const struct ynode *e = ynode_at(p->t, v->first); e;
	     e = ynode_at(p->t, e->next), i++) {
		size_t old = path_push(p, "[%u]", i);
		uint64_t g;

		if (parse_guid(p, e, &g)) {
			for (uint32_t j = 0; j < sm->routing.n_roots; j++)
				if (sm->routing.root[j].guid == g)
					perr(p, e, "0x%016llx is listed twice (first at line %u)",
					     (unsigned long long)g, sm->routing.root[j].at.line);
			if (array_grow((void **)&sm->routing.root, &cap, sm->routing.n_roots + 1,
				       sizeof(*sm->routing.root)) < 0) {
				p->nomem = true;
				path_pop(p, old);
				return;
			}
			sm->routing.root[sm->routing.n_roots++] =
				(struct config_root){ g, { e->line, e->col } };
		}
		path_pop(p, old);
	}
}

static void s_routing(struct pctx *p, const struct ynode *v, void *obj)
{
	static const struct pfield f[] = {
		{ "engine", r_engine }, { "lmc", r_lmc },   { "vls", r_vls },
		{ "roots", r_roots },   { "file", r_file }, { "fallback", r_fallback },
	};

	parse_map(p, v, f, ARRAY_SIZE(f), obj);
}

/* ---- sm.mad ---------------------------------------------------------------- */

static void m_window(struct pctx *p, const struct ynode *v, void *obj)
{
	uint64_t x;

	if (parse_uint(p, v, 1, CONFIG_MAD_WINDOW_MAX, &x))
		sm_of(obj)->mad.window = (uint16_t)x;
}

static void m_timeout(struct pctx *p, const struct ynode *v, void *obj)
{
	parse_duration(p, v, 1000, CONFIG_MAD_TIMEOUT_US_MAX, false, &sm_of(obj)->mad.timeout_us);
}

static void m_retries(struct pctx *p, const struct ynode *v, void *obj)
{
	uint64_t x;

	if (parse_uint(p, v, 0, CONFIG_MAD_RETRIES_MAX, &x))
		sm_of(obj)->mad.retries = (uint8_t)x;
}

static void s_mad(struct pctx *p, const struct ynode *v, void *obj)
{
	static const struct pfield f[] = {
		{ "window", m_window },
		{ "timeout", m_timeout },
		{ "retries", m_retries },
	};

	parse_map(p, v, f, ARRAY_SIZE(f), obj);
}

/* ---- sm.flap-damping ------------------------------------------------------- */

static void f_flaps(struct pctx *p, const struct ynode *v, void *obj)
{
	uint64_t x;

	if (parse_uint(p, v, 0, CONFIG_FLAPS_MAX, &x))
		sm_of(obj)->flap.flaps = (uint16_t)x;
}

/* At least 1s: loomd sees a link change only at a heavy sweep, and they come no faster. */
static void f_window(struct pctx *p, const struct ynode *v, void *obj)
{
	parse_duration(p, v, 1000000, 3600000000ull, false, &sm_of(obj)->flap.window_us);
}

static void f_hold(struct pctx *p, const struct ynode *v, void *obj)
{
	parse_duration(p, v, 1000000, 86400000000ull, false, &sm_of(obj)->flap.hold_us);
}

static void s_flap(struct pctx *p, const struct ynode *v, void *obj)
{
	static const struct pfield f[] = {
		{ "flaps", f_flaps },
		{ "window", f_window },
		{ "hold", f_hold },
	};

	parse_map(p, v, f, ARRAY_SIZE(f), obj);
}

/* ---- sm -------------------------------------------------------------------- */

static void s_priority(struct pctx *p, const struct ynode *v, void *obj)
{
	uint64_t x;

	if (parse_uint(p, v, 0, CONFIG_PRIORITY_MAX, &x))
		sm_of(obj)->priority = (uint8_t)x;
}

#define SWEEP_ALLOWED "0 for no timed sweeps, or 100ms-24h"

static void s_sweep(struct pctx *p, const struct ynode *v, void *obj)
{
	char q[64];
	uint64_t us;

	/* 0 turns timed sweeps off; otherwise at most 10 a second, at least one a day. */
	if (!parse_duration_as(p, v, 0, CONFIG_SWEEP_US_MAX, false, SWEEP_ALLOWED, &us))
		return;
	if (us && us < 100000) {
		perr(p, v, "%s is too short (allowed: " SWEEP_ALLOWED ")",
		     parse_quote(p, v, q, sizeof(q)));
		return;
	}
	sm_of(obj)->sweep_us = us;
}

static void s_heavy_sweep(struct pctx *p, const struct ynode *v, void *obj)
{
	uint64_t us;

	/* 0: no timed heavy sweeps; otherwise at least one a day. */
	if (parse_duration(p, v, 0, CONFIG_SWEEP_US_MAX, false, &us))
		sm_of(obj)->heavy_sweep_us = us;
}

static void s_state_dir(struct pctx *p, const struct ynode *v, void *obj)
{
	char *s = NULL;

	if (!parse_string(p, v, 4096, &s))
		return;
	free(sm_of(obj)->state_dir);
	sm_of(obj)->state_dir = s;
}

/*
 * A group name as useradd(8) and groupadd(8) take them, so that a typo
 * shows here and not as a socket nobody may use. Whether the group exists
 * is the host's business: loomd looks it up when it makes the socket.
 */
static void s_control_group(struct pctx *p, const struct ynode *v, void *obj)
{
	char q[64], *s = NULL;
	size_t n;

	if (!parse_string(p, v, 4096, &s))
		return;
	n = strlen(s);
	if (n == 0 || n > 32 || strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				       "0123456789_.-") != n || s[0] == '-' ||
	    (s[0] >= '0' && s[0] <= '9')) {
		perr(p, v, "%s is not a group name (allowed: 1-32 letters, digits, '_', '.', "
			   "'-', not starting with a digit or '-')",
		     parse_quote(p, v, q, sizeof(q)));
		free(s);
		return;
	}
	free(sm_of(obj)->control_group);
	sm_of(obj)->control_group = s;
}

static void s_prefix(struct pctx *p, const struct ynode *v, void *obj)
{
	char q[64];
	int r;

	if (!parse_scalar(p, v, "a subnet prefix"))
		return;
	r = units_subnet_prefix(ynode_text(p->t, v), &sm_of(obj)->subnet_prefix);
	if (r == -ERANGE && strchr(ynode_text(p->t, v), ':'))
		perr(p, v, "%s sets bits of the lower 64 (the port's half of a GID); "
			   "write only the upper 64, as in \"fe80::\"",
		     parse_quote(p, v, q, sizeof(q)));
	else if (r < 0)
		perr(p, v, "%s is not a subnet prefix (allowed: a 64-bit number such as "
			   "0xfe80000000000000, or quoted IPv6 text such as \"fe80::\")",
		     parse_quote(p, v, q, sizeof(q)));
}

static void s_sm_key(struct pctx *p, const struct ynode *v, void *obj)
{
	parse_hex(p, v, 0, UINT64_MAX, 16, &sm_of(obj)->sm_key);
}

static void s_poll(struct pctx *p, const struct ynode *v, void *obj)
{
	parse_duration(p, v, CONFIG_POLL_US_MIN, CONFIG_POLL_US_MAX, false, &sm_of(obj)->poll_us);
}

static void s_poll_misses(struct pctx *p, const struct ynode *v, void *obj)
{
	uint64_t x;

	if (parse_uint(p, v, 1, CONFIG_POLL_MISSES_MAX, &x))
		sm_of(obj)->poll_misses = (uint8_t)x;
}

static void s_master_lid_checks(struct pctx *p, const struct ynode *v, void *obj)
{
	uint64_t x;

	if (parse_uint(p, v, 0, CONFIG_MASTER_LID_CHECKS_MAX, &x))
		sm_of(obj)->master_lid_checks = (uint16_t)x;
}

static void s_sticky(struct pctx *p, const struct ynode *v, void *obj)
{
	parse_bool(p, v, &sm_of(obj)->sticky);
}

static void s_log_level(struct pctx *p, const struct ynode *v, void *obj)
{
	unsigned l;

	if (parse_word(p, v, config_log_level_names, _CONFIG_LOG_MAX, &l))
		sm_of(obj)->log_level = (enum config_log_level)l;
}

void parse_sm(struct pctx *p, const struct ynode *v, void *obj)
{
	static const struct pfield f[] = {
		{ "priority", s_priority },
		{ "sweep-interval", s_sweep },
		{ "heavy-sweep-interval", s_heavy_sweep },
		{ "flap-damping", s_flap },
		{ "routing", s_routing },
		{ "state-dir", s_state_dir },
		{ "control-group", s_control_group },
		{ "mad", s_mad },
		{ "subnet-prefix", s_prefix },
		{ "sm-key", s_sm_key },
		{ "poll-interval", s_poll },
		{ "poll-misses", s_poll_misses },
		{ "sticky", s_sticky },
		{ "master-lid-checks", s_master_lid_checks },
		{ "log-level", s_log_level },
	};

	parse_map(p, v, f, ARRAY_SIZE(f), obj);
}
