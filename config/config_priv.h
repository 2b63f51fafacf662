/* SPDX-License-Identifier: MIT */
#ifndef LOOM_CONFIG_PRIV_H
#define LOOM_CONFIG_PRIV_H

/* Inside config/: the node tree, the walker's context and the units helpers. */

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "config/config.h"
#include "lib/diag.h"

/* ---- ytree.c: libyaml events -> nodes ------------------------------------ */

#define YNODE_NONE UINT32_MAX
/* The schema is 6 levels deep; anything much deeper is not a loom config. */
#define YTREE_MAX_DEPTH 32

enum ynode_type { YNODE_SCALAR, YNODE_SEQ, YNODE_MAP };

struct ynode {
	uint8_t type;
	bool plain; /* an unquoted scalar: "~", "null" and "" are null */
	uint32_t line, col; /* 1-based */
	uint32_t str, len; /* scalar: its text at chars + str (NUL-terminated; len may hold NULs) */
	uint32_t first, next; /* children (a map's alternate key, value), siblings */
	uint32_t n; /* children */
};

struct ytree {
	struct ynode *node;
	uint32_t n, cap;
	char *chars;
	uint32_t n_chars, cap_chars;
	uint32_t root; /* YNODE_NONE: an empty document */
};

/*
 * Build the tree of one YAML document. A syntax error (with libyaml's own
 * words), a second document, an alias, a tag or nesting deeper than
 * YTREE_MAX_DEPTH goes into d and gives -EINVAL; -ENOMEM. Free with
 * ytree_free() in every case.
 */
int ytree_build(const char *buf, size_t len, const char *file, struct ytree *t, struct diag *d);
void ytree_free(struct ytree *t);

static inline const struct ynode *ynode_at(const struct ytree *t, uint32_t i)
{
	return i == YNODE_NONE ? NULL : &t->node[i];
}

static inline const char *ynode_text(const struct ytree *t, const struct ynode *n)
{
	return t->chars + n->str;
}

/* ---- parse.c: the walker ----------------------------------------------- */

/* Where the parser saw options that validate.c checks against each other. */
struct pseen_part {
	const struct ynode *at, *name, *pkey, *mtu, *rate, *qkey, *members;
};

struct pseen_qos {
	const struct ynode *at, *op_vls, *high_key, *low_key; /* the class, its values */
	bool bad; /* something in the class was refused: its tables are incomplete */
	const struct ynode *sl2vl[16]; /* entries written in the file */
	const struct ynode *high[CONFIG_VLARB_MAX], *low[CONFIG_VLARB_MAX];
};

struct pseen {
	const struct ynode *engine, *vls, *roots, *file;
	struct pseen_part *part; /* [config->n_parts] */
	uint32_t cap_parts;
	struct pseen_qos qos[_CONFIG_CLASS_MAX];
};

struct pmsg {
	uint32_t line, col, seq;
	char *text;
};

/* Messages kept at most: past that they are counted (the diag list keeps fewer anyway). */
#define PARSE_MSG_MAX 2000

struct pctx {
	const struct ytree *t;
	const char *file;
	struct diag *d;
	struct config *c;
	struct pseen seen;
	bool nomem;
	unsigned errors; /* perr() calls */
	struct pmsg *msg; /* kept to be sorted by place */
	uint32_t n_msg, cap_msg, dropped;
	size_t plen;
	char path[256];
};

/* "FILE:LINE:COL: path: message" at node at (NULL: no place), kept for parse_flush(). */
void perr(struct pctx *p, const struct ynode *at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The kept messages into p->d, in file order; frees them. */
void parse_flush(struct pctx *p);
/* The same with ".key" added to the path: a key that is missing or wrong as a whole. */
void perr_key(struct pctx *p, const struct ynode *at, const char *key, const char *msg);
/* Append ".key" or "[i]" to the path; path_pop() puts back the length it returns. */
size_t path_push(struct pctx *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static inline void path_pop(struct pctx *p, size_t len)
{
	p->plen = len;
	p->path[len] = '\0';
}

struct pfield {
	const char *key;
	void (*parse)(struct pctx *p, const struct ynode *v, void *obj);
};

/*
 * Walk a mapping: each key must be one of f[] (at most 32), once. Calls
 * f[i].parse with ".key" on the path and returns the mask of keys seen. A
 * null value is an empty mapping (a section whose lines are commented out).
 */
uint32_t parse_map(struct pctx *p, const struct ynode *map, const struct pfield *f, unsigned n,
		   void *obj);
/* A sequence (or null: empty): true, else an error. */
bool parse_seq(struct pctx *p, const struct ynode *v);
bool parse_is_null(const struct pctx *p, const struct ynode *v);
/* A non-null scalar, else an error naming what was expected. */
bool parse_scalar(struct pctx *p, const struct ynode *v, const char *want);
/* A value quoted for a message: 'text', cut at 40 bytes, control bytes as \xNN. */
const char *parse_quote(const struct pctx *p, const struct ynode *v, char *buf, size_t n);

bool parse_uint(struct pctx *p, const struct ynode *v, uint64_t min, uint64_t max, uint64_t *out);
/* The same, with the allowed range printed in hex of width digits. */
bool parse_hex(struct pctx *p, const struct ynode *v, uint64_t min, uint64_t max, int width,
	       uint64_t *out);
bool parse_bool(struct pctx *p, const struct ynode *v, bool *out);
bool parse_word(struct pctx *p, const struct ynode *v, const char *const *names, unsigned n,
		unsigned *out);
/* A string of 1..max bytes without control characters; *out is malloc'ed. */
bool parse_string(struct pctx *p, const struct ynode *v, size_t max, char **out);
bool parse_duration(struct pctx *p, const struct ynode *v, uint64_t min, uint64_t max,
		    bool infinite, uint64_t *us);
/* The same, with the messages' "allowed:" text given (NULL: min-max). */
bool parse_duration_as(struct pctx *p, const struct ynode *v, uint64_t min, uint64_t max,
		       bool infinite, const char *range, uint64_t *us);
bool parse_guid(struct pctx *p, const struct ynode *v, uint64_t *guid);
/* An M_Key lease (PortInfo:M_KeyLeasePeriod): a duration of whole seconds, 0s-65535s. */
bool parse_mkey_lease(struct pctx *p, const struct ynode *v, uint16_t *lease_s);

/* parse_sm.c, parse_part.c, parse_qos.c: the three sections. */
void parse_sm(struct pctx *p, const struct ynode *v, void *obj);
void parse_partitions(struct pctx *p, const struct ynode *v, void *obj);
void parse_qos(struct pctx *p, const struct ynode *v, void *obj);
/* parse_health.c: the health: section, its defaults, comparing and printing it. */
void parse_health(struct pctx *p, const struct ynode *v, void *obj);
void config_health_defaults(struct config_health *h);
bool config_health_equal(const struct config_health *a, const struct config_health *b);
void config_health_print(const struct config_health *h, FILE *f);
void parse_mkey(struct pctx *p, const struct ynode *v, void *obj);

/* validate.c: checks across fields, then P_Keys and the default partition. */
void validate(struct pctx *p);

/* ---- units.c: text <-> values; -EINVAL malformed, -ERANGE too large --------- */

int units_uint(const char *s, uint64_t *v);
int units_duration(const char *s, uint64_t *us);
/* Largest unit that is exact: "90s", "2m", "200ms", "0s". */
void units_duration_fmt(uint64_t us, char *buf, size_t n);
int units_guid(const char *s, uint64_t *guid);
int units_subnet_prefix(const char *s, uint64_t *prefix);
int units_mtu(const char *s, uint8_t *mtu);
int units_rate(const char *s, uint8_t *rate);
extern const char units_mtu_allowed[], units_rate_allowed[];

/* config.c */
/* Every sm and qos default; no partitions. */
void config_defaults_fill(struct config *c);
/* A partition as the parser starts it: no name, P_Key to be allocated. */
void config_partition_default(struct config_partition *pt);
/* The implicit default partition, put first: 0x7fff, all ports full, IPoIB. -ENOMEM. */
int config_default_partition_add(struct config *c);

#endif
