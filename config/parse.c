/* SPDX-License-Identifier: MIT */
/*
 * Walking the node tree: mappings against a table of known keys, and the
 * scalar types every section uses. Each problem becomes one message
 * "FILE:LINE:COL: field.path: what is wrong (allowed: ...)" and the walk goes
 * on, so one run lists everything an operator has to fix.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config_priv.h"
#include "lib/array.h"
#include "lib/cleanup.h"
#include "lib/utf8.h"

/*
 * Messages are kept here and handed to the diag list sorted by place (parse_flush),
 * so an operator reads them in file order although cross-field checks run last.
 */
void perr(struct pctx *p, const struct ynode *at, const char *fmt, ...)
{
	struct pmsg m = { .line = at ? at->line : 0, .col = at ? at->col : 0, .seq = p->n_msg };
	char text[400];
	va_list ap;
	int n;

	p->errors++;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	if (p->n_msg == PARSE_MSG_MAX) {
		p->dropped++;
		return;
	}
	if (p->plen)
		n = asprintf(&m.text, "%s: %s", p->path, text);
	else
		n = asprintf(&m.text, "%s", text);
	if (n < 0 || array_grow((void **)&p->msg, &p->cap_msg, p->n_msg + 1, sizeof(*p->msg)) < 0) {
		if (n >= 0)
			free(m.text);
		p->dropped++;
		return;
	}
	p->msg[p->n_msg++] = m;
}

static int cmp_msg(const void *a, const void *b)
{
	const struct pmsg *x = a, *y = b;

	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	if (x->col != y->col)
		return x->col < y->col ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

void parse_flush(struct pctx *p)
{
	if (p->n_msg)
		qsort(p->msg, p->n_msg, sizeof(*p->msg), cmp_msg);
	for (uint32_t i = 0; i < p->n_msg; i++) {
		diag_add(p->d, p->file, p->msg[i].line, p->msg[i].col, "%s", p->msg[i].text);
		free(p->msg[i].text);
	}
	if (p->dropped)
		diag_add(p->d, p->file, 0, 0, "%u more problems not shown", p->dropped);
	free(p->msg);
	p->msg = NULL;
	p->n_msg = p->cap_msg = p->dropped = 0;
}

void perr_key(struct pctx *p, const struct ynode *at, const char *key, const char *msg)
{
	size_t old = path_push(p, ".%s", key);

	perr(p, at, "%s", msg);
	path_pop(p, old);
}

size_t path_push(struct pctx *p, const char *fmt, ...)
{
	size_t old = p->plen;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(p->path + old, sizeof(p->path) - old, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(p->path) - old) {
		p->path[old] = '\0'; /* cannot happen with the schema's depth; keep it short */
		return old;
	}
	p->plen = old + (size_t)n;
	if (!old && p->path[0] == '.') /* a top-level key: "sm", not ".sm" */
		memmove(p->path, p->path + 1, p->plen--);
	return old;
}

bool parse_is_null(const struct pctx *p, const struct ynode *v)
{
	const char *s;

	if (!v || v->type != YNODE_SCALAR || !v->plain)
		return false;
	s = ynode_text(p->t, v);
	return !v->len || !strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") ||
	       !strcmp(s, "NULL");
}

static bool text_printable(const char *s, uint32_t len)
{
	uint32_t c, n;

	for (uint32_t i = 0; i < len; i += n) {
		n = utf8_next((const unsigned char *)s, len, i, &c);
		if (!n || !utf8_printable(c))
			return false;
	}
	return true;
}

const char *parse_quote(const struct pctx *p, const struct ynode *v, char *buf, size_t n)
{
	const unsigned char *s = (const unsigned char *)ynode_text(p->t, v);
	uint32_t c, len;
	size_t o = 0;

	buf[o++] = '\'';
	for (uint32_t i = 0; i < v->len && o + 12 < n; i += len) {
		if (i >= 40) {
			o += (size_t)snprintf(buf + o, n - o, "...");
			break;
		}
		len = utf8_next(s, v->len, i, &c);
		if (!len)
			break;
		if (utf8_printable(c)) {
			memcpy(buf + o, s + i, len);
			o += len;
		} else {
			o += (size_t)snprintf(buf + o, n - o, c < 0x80 ? "\\x%02x" : "\\u%04x", c);
		}
	}
	buf[o++] = '\'';
	buf[o] = '\0';
	return buf;
}

static const char *type_name(const struct ynode *v)
{
	return v->type == YNODE_MAP ? "a mapping" : v->type == YNODE_SEQ ? "a list" : "a scalar";
}

bool parse_scalar(struct pctx *p, const struct ynode *v, const char *want)
{
	if (v->type != YNODE_SCALAR) {
		perr(p, v, "%s where %s belongs", type_name(v), want);
		return false;
	}
	if (parse_is_null(p, v)) {
		perr(p, v, "no value; %s belongs here", want);
		return false;
	}
	return true;
}

bool parse_seq(struct pctx *p, const struct ynode *v)
{
	if (v->type == YNODE_SEQ || parse_is_null(p, v))
		return true;
	perr(p, v, "%s where a list belongs", type_name(v));
	return false;
}

static void unknown_key(struct pctx *p, const struct ynode *k, const struct pfield *f, unsigned n)
{
	char allowed[400], q[64];
	size_t o = 0;

	allowed[0] = '\0';
	for (unsigned i = 0; i < n && o < sizeof(allowed); i++)
		o += (size_t)snprintf(allowed + o, sizeof(allowed) - o, "%s%s", i ? ", " : "",
				      f[i].key);
	perr(p, k, "unknown key %s (allowed: %s)", parse_quote(p, k, q, sizeof(q)), allowed);
}

/* Keys loom.yaml no longer has, by path, and what took their place. */
static const struct {
	const char *path, *instead;
} gone[] = {
	{ "sm.m-key", "M_Keys are now derived per node from the secret file in the state dir; "
		      "turn them on with an mkey: section (mkey.protect, mkey.lease)" },
	{ "sm.m-key-protect", "write it as mkey.protect (the mkey: section)" },
	{ "sm.m-key-lease", "write it as mkey.lease (the mkey: section)" },
};

/* A key that was removed: said with its replacement (true), else false. */
static bool gone_key(struct pctx *p, const struct ynode *k, const char *key)
{
	size_t old = path_push(p, ".%s", key);
	bool found = false;

	for (unsigned i = 0; i < ARRAY_SIZE(gone) && !found; i++)
		if (!strcmp(p->path, gone[i].path)) {
			perr(p, k, "this key was removed; %s", gone[i].instead);
			found = true;
		}
	path_pop(p, old);
	return found;
}

uint32_t parse_map(struct pctx *p, const struct ynode *map, const struct pfield *f, unsigned n,
		   void *obj)
{
	const struct ynode *seen[32] = { 0 };
	uint32_t mask = 0;

	if (parse_is_null(p, map))
		return 0;
	if (map->type != YNODE_MAP) {
		perr(p, map, "%s where a mapping (key: value) belongs", type_name(map));
		return 0;
	}
	for (const struct ynode *k = ynode_at(p->t, map->first); k;) {
		const struct ynode *v = ynode_at(p->t, k->next);
		const char *key = ynode_text(p->t, k);
		unsigned i;

		if (!v)
			break; /* libyaml gives every key a value; never trust that blindly */
		if (k->type != YNODE_SCALAR) {
			perr(p, k, "%s used as a key; keys are words", type_name(k));
			goto next;
		}
		for (i = 0; i < n; i++)
			if (strlen(f[i].key) == k->len && !strcmp(f[i].key, key))
				break;
		if (i == n) {
			if (!gone_key(p, k, key))
				unknown_key(p, k, f, n);
			goto next;
		}
		if (seen[i]) {
			size_t old = path_push(p, ".%s", key);

			perr(p, k, "given twice (first at line %u); say it once", seen[i]->line);
			path_pop(p, old);
			goto next;
		}
		seen[i] = k;
		mask |= 1u << i;
		size_t old = path_push(p, ".%s", key);

		f[i].parse(p, v, obj);
		path_pop(p, old);
next:
		k = v ? ynode_at(p->t, v->next) : NULL;
	}
	return mask;
}

bool parse_uint(struct pctx *p, const struct ynode *v, uint64_t min, uint64_t max, uint64_t *out)
{
	char q[64];
	uint64_t x;
	int r;

	if (!parse_scalar(p, v, "a number"))
		return false;
	r = units_uint(ynode_text(p->t, v), &x);
	if (r == -EINVAL || (r == 0 && strlen(ynode_text(p->t, v)) != v->len)) {
		perr(p, v, "%s is not a number (allowed: %llu-%llu)",
		     parse_quote(p, v, q, sizeof(q)), (unsigned long long)min,
		     (unsigned long long)max);
		return false;
	}
	if (r < 0 || x < min || x > max) {
		perr(p, v, "%s is out of range (allowed: %llu-%llu)",
		     parse_quote(p, v, q, sizeof(q)), (unsigned long long)min,
		     (unsigned long long)max);
		return false;
	}
	*out = x;
	return true;
}

bool parse_hex(struct pctx *p, const struct ynode *v, uint64_t min, uint64_t max, int width,
	       uint64_t *out)
{
	char q[64];
	uint64_t x;
	int r;

	if (!parse_scalar(p, v, "a number"))
		return false;
	r = units_uint(ynode_text(p->t, v), &x);
	if (r == -EINVAL || (r == 0 && strlen(ynode_text(p->t, v)) != v->len)) {
		perr(p, v, "%s is not a number (allowed: 0x%0*llx-0x%0*llx)",
		     parse_quote(p, v, q, sizeof(q)), width, (unsigned long long)min, width,
		     (unsigned long long)max);
		return false;
	}
	if (r < 0 || x < min || x > max) {
		perr(p, v, "%s is out of range (allowed: 0x%0*llx-0x%0*llx)",
		     parse_quote(p, v, q, sizeof(q)), width, (unsigned long long)min, width,
		     (unsigned long long)max);
		return false;
	}
	*out = x;
	return true;
}

bool parse_bool(struct pctx *p, const struct ynode *v, bool *out)
{
	static const char *const yes[] = { "true", "True", "TRUE", "yes", "Yes", "on", "On" };
	static const char *const no[] = { "false", "False", "FALSE", "no", "No", "off", "Off" };
	const char *s;
	char q[64];

	if (!parse_scalar(p, v, "true or false"))
		return false;
	s = ynode_text(p->t, v);
	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (!strcmp(s, yes[i]) || !strcmp(s, no[i])) {
			*out = !strcmp(s, yes[i]);
			return true;
		}
	}
	perr(p, v, "%s is not true or false (allowed: true, false)",
	     parse_quote(p, v, q, sizeof(q)));
	return false;
}

bool parse_word(struct pctx *p, const struct ynode *v, const char *const *names, unsigned n,
		unsigned *out)
{
	char allowed[300], q[64];
	size_t o = 0;

	if (!parse_scalar(p, v, "a word"))
		return false;
	for (unsigned i = 0; i < n; i++) {
		if (strlen(names[i]) == v->len && !strcmp(names[i], ynode_text(p->t, v))) {
			*out = i;
			return true;
		}
	}
	allowed[0] = '\0';
	for (unsigned i = 0; i < n && o < sizeof(allowed); i++)
		o += (size_t)snprintf(allowed + o, sizeof(allowed) - o, "%s%s", i ? ", " : "",
				      names[i]);
	perr(p, v, "%s is not known (allowed: %s)", parse_quote(p, v, q, sizeof(q)), allowed);
	return false;
}

bool parse_string(struct pctx *p, const struct ynode *v, size_t max, char **out)
{
	const char *s;
	char q[64];

	if (!parse_scalar(p, v, "a string"))
		return false;
	s = ynode_text(p->t, v);
	if (!v->len || v->len > max) {
		perr(p, v, "%s is %u bytes long (allowed: 1-%zu)", parse_quote(p, v, q, sizeof(q)),
		     v->len, max);
		return false;
	}
	if (!text_printable(s, v->len)) {
		perr(p, v, "%s holds a control character or line break (allowed: printable text "
			   "on one line)", parse_quote(p, v, q, sizeof(q)));
		return false;
	}
	*out = strdup(s);
	if (!*out) {
		p->nomem = true;
		return false;
	}
	return true;
}

bool parse_duration(struct pctx *p, const struct ynode *v, uint64_t min, uint64_t max,
		    bool infinite, uint64_t *us)
{
	return parse_duration_as(p, v, min, max, infinite, NULL, us);
}

bool parse_duration_as(struct pctx *p, const struct ynode *v, uint64_t min, uint64_t max,
		       bool infinite, const char *range, uint64_t *us)
{
	char q[64], lo[32], hi[32], allowed[128];
	uint64_t x;
	int r;

	if (!parse_scalar(p, v, "a duration"))
		return false;
	units_duration_fmt(min, lo, sizeof(lo));
	units_duration_fmt(max, hi, sizeof(hi));
	if (range)
		snprintf(allowed, sizeof(allowed), "%s", range);
	else
		snprintf(allowed, sizeof(allowed), "%s-%s%s", lo, hi,
			 infinite ? " or infinite" : "");
	if (infinite && !strcmp(ynode_text(p->t, v), "infinite")) {
		*us = CONFIG_HOQ_INFINITE;
		return true;
	}
	r = units_duration(ynode_text(p->t, v), &x);
	if (r == -EINVAL || (r == 0 && strlen(ynode_text(p->t, v)) != v->len)) {
		perr(p, v, "%s is not a duration: write a whole number and a unit, us, ms, s, m "
			   "or h (allowed: %s)",
		     parse_quote(p, v, q, sizeof(q)), allowed);
		return false;
	}
	if (r < 0 || x < min || x > max) {
		perr(p, v, "%s is out of range (allowed: %s)", parse_quote(p, v, q, sizeof(q)),
		     allowed);
		return false;
	}
	*us = x;
	return true;
}

bool parse_mkey_lease(struct pctx *p, const struct ynode *v, uint16_t *lease_s)
{
	char q[64];
	uint64_t us;

	/* PortInfo:M_KeyLeasePeriod counts whole seconds in 16 bits. */
	if (!parse_duration(p, v, 0, 65535000000ull, false, &us))
		return false;
	if (us % 1000000) {
		perr(p, v, "%s is not whole seconds (allowed: 0s-65535s, in seconds)",
		     parse_quote(p, v, q, sizeof(q)));
		return false;
	}
	*lease_s = (uint16_t)(us / 1000000);
	return true;
}

bool parse_guid(struct pctx *p, const struct ynode *v, uint64_t *guid)
{
	char q[64];

	if (!parse_scalar(p, v, "a GUID"))
		return false;
	if (strlen(ynode_text(p->t, v)) != v->len || units_guid(ynode_text(p->t, v), guid) < 0) {
		perr(p, v, "%s is not a GUID (allowed: 0x and 1-16 hex digits, "
			   "as in 0x0002c90300a1b2c3)",
		     parse_quote(p, v, q, sizeof(q)));
		return false;
	}
	return true;
}
