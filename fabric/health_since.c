/* SPDX-License-Identifier: MIT */
/*
 * loom health --since FILE: the raw counters of an earlier `loom health
 * --json` run, so that the counters group judges what moved since (errors
 * per interval, what monitoring needs) instead of absolute values. The file
 * is untrusted input: a small JSON reader over a bounded cursor, depth
 * limited, that keeps only ports[].node_guid/port/counters and reports the
 * first problem as FILE:LINE: message.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/health.h"

#define SINCE_DEPTH 16
#define SINCE_FILE_MAX (64u << 20)

struct jcur {
	const char *p, *end;
	unsigned line;
	const char *name;
	struct diag *d;
};

static int jfail(struct jcur *c, const char *what)
{
	diag_add(c->d, c->name, c->line, 0, "%s", what);
	return -EINVAL;
}

static void jspace(struct jcur *c)
{
	while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\r' || *c->p == '\n')) {
		if (*c->p == '\n')
			c->line++;
		c->p++;
	}
}

static bool jeat(struct jcur *c, char ch)
{
	jspace(c);
	if (c->p < c->end && *c->p == ch) {
		c->p++;
		return true;
	}
	return false;
}

/* A string into buf (cut to len - 1; escapes kept as read but for \" and \\). */
static int jstring(struct jcur *c, char *buf, size_t len)
{
	size_t n = 0;

	if (!jeat(c, '"'))
		return jfail(c, "expected a string");
	while (c->p < c->end && *c->p != '"') {
		char ch = *c->p++;

		if (ch == '\n' || (unsigned char)ch < 0x20)
			return jfail(c, "a control character in a string");
		if (ch == '\\') {
			if (c->p >= c->end)
				break;
			ch = *c->p++;
		}
		if (buf && n + 1 < len)
			buf[n++] = ch;
	}
	if (c->p >= c->end)
		return jfail(c, "a string is not closed");
	c->p++;
	if (buf)
		buf[n] = '\0';
	return 0;
}

static int jnumber(struct jcur *c, uint64_t *v)
{
	uint64_t x = 0;
	const char *s;

	jspace(c);
	s = c->p;
	while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
		if (x > (UINT64_MAX - 9) / 10)
			return jfail(c, "a number too large");
		x = x * 10 + (uint64_t)(*c->p++ - '0');
	}
	if (c->p == s)
		return jfail(c, "expected a non-negative integer");
	*v = x;
	return 0;
}

static int jskip(struct jcur *c, unsigned depth);

/* Skip the members of an object or elements of an array already opened. */
static int jskip_list(struct jcur *c, char close, bool object, unsigned depth)
{
	if (jeat(c, close))
		return 0;
	do {
		if (object && (jstring(c, NULL, 0) < 0 || !jeat(c, ':')))
			return jfail(c, "expected \"name\": value");
		if (jskip(c, depth + 1) < 0)
			return -EINVAL;
	} while (jeat(c, ','));
	if (jeat(c, close))
		return 0;
	return jfail(c, object ? "expected ',' or '}'" : "expected ',' or ']'");
}

static int jskip(struct jcur *c, unsigned depth)
{
	static const char *const words[] = { "true", "false", "null" };
	uint64_t v;

	if (depth > SINCE_DEPTH)
		return jfail(c, "nested too deep");
	jspace(c);
	if (c->p >= c->end)
		return jfail(c, "unexpected end of file");
	if (*c->p == '"')
		return jstring(c, NULL, 0);
	if (jeat(c, '{'))
		return jskip_list(c, '}', true, depth);
	if (jeat(c, '['))
		return jskip_list(c, ']', false, depth);
	for (size_t i = 0; i < 3; i++)
		if ((size_t)(c->end - c->p) >= strlen(words[i]) &&
		    !strncmp(c->p, words[i], strlen(words[i]))) {
			c->p += strlen(words[i]);
			return 0;
		}
	if (*c->p == '-')
		c->p++;
	return jnumber(c, &v);
}

static int counter_index(const char *name)
{
	for (unsigned c = 0; c < _PMA_COUNTER_MAX; c++)
		if (!strcmp(name, pma_counter_name(c)))
			return (int)c;
	return -1;
}

/* "counters": { "SymbolErrorCounter": 3, ... }; unknown names are skipped (newer runs). */
static int jcounters(struct jcur *c, struct health_since_port *sp)
{
	char key[64];
	uint64_t v;
	int i;

	if (!jeat(c, '{'))
		return jfail(c, "counters: expected an object");
	if (jeat(c, '}'))
		return 0;
	do {
		if (jstring(c, key, sizeof(key)) < 0 || !jeat(c, ':'))
			return jfail(c, "counters: expected \"name\": value");
		i = counter_index(key);
		if (i < 0) {
			if (jskip(c, 2) < 0)
				return -EINVAL;
			continue;
		}
		if (jnumber(c, &v) < 0)
			return -EINVAL;
		sp->c.v[i] = v; /* checked in jport(), once counter_bits is known */
	} while (jeat(c, ','));
	return jeat(c, '}') ? 0 : jfail(c, "counters: expected ',' or '}'");
}

static int jport_member(struct jcur *c, const char *key, struct health_since_port *sp,
			unsigned *seen)
{
	char buf[32], *end;
	uint64_t v;

	if (!strcmp(key, "node_guid")) {
		if (jstring(c, buf, sizeof(buf)) < 0)
			return -EINVAL;
		errno = 0;
		sp->guid = strtoull(buf, &end, 16);
		if (errno || end == buf || *end)
			return jfail(c, "node_guid: expected \"0x\" and 16 hex digits");
		*seen |= 1;
	} else if (!strcmp(key, "port")) {
		if (jnumber(c, &v) < 0)
			return -EINVAL;
		if (v > SUBNET_MAX_PORTS)
			return jfail(c, "port: over 254");
		sp->port = (uint8_t)v;
		*seen |= 2;
	} else if (!strcmp(key, "up")) {
		jspace(c);
		sp->up = c->end - c->p >= 4 && !strncmp(c->p, "true", 4);
		return jskip(c, 3);
	} else if (!strcmp(key, "counters")) {
		*seen |= 4;
		return jcounters(c, sp);
	} else if (!strcmp(key, "counter_bits")) {
		/* "64": the additional PortCountersExtended; else PortCounters' widths. */
		if (jstring(c, buf, sizeof(buf)) < 0)
			return -EINVAL;
		sp->c.wide_errors = !strcmp(buf, "64");
	} else {
		return jskip(c, 3);
	}
	return 0;
}

static int jport(struct jcur *c, struct health_since *s)
{
	struct health_since_port sp = { 0 };
	unsigned seen = 0;
	char key[32];

	if (!jeat(c, '{'))
		return jfail(c, "ports: expected an object");
	if (!jeat(c, '}')) {
		do {
			if (jstring(c, key, sizeof(key)) < 0 || !jeat(c, ':'))
				return jfail(c, "ports: expected \"name\": value");
			if (jport_member(c, key, &sp, &seen) < 0)
				return -EINVAL;
		} while (jeat(c, ','));
		if (!jeat(c, '}'))
			return jfail(c, "ports: expected ',' or '}'");
	}
	if ((seen & 3) != 3)
		return jfail(c, "ports: a port without node_guid or port");
	for (unsigned i = 0; !sp.c.wide_errors && i < _PMA_COUNTER_MAX; i++)
		if (sp.c.v[i] > pma_counter_max((enum pma_counter)i))
			return jfail(c, "counters: a value over the counter's largest in "
					"PortCounters (and no \"counter_bits\": \"64\")");
	if (!(seen & 4))
		sp.up = false;
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		struct health_since_port *p = realloc(s->port, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		s->port = p;
		s->cap = cap;
	}
	s->port[s->n++] = sp;
	return 0;
}

static int jtop(struct jcur *c, struct health_since *s)
{
	char key[32];
	bool ports = false;
	int r;

	if (!jeat(c, '{'))
		return jfail(c, "expected the object loom health --json prints");
	if (!jeat(c, '}')) {
		do {
			if (jstring(c, key, sizeof(key)) < 0 || !jeat(c, ':'))
				return jfail(c, "expected \"name\": value");
			if (strcmp(key, "ports")) {
				if (jskip(c, 1) < 0)
					return -EINVAL;
				continue;
			}
			ports = true;
			if (!jeat(c, '['))
				return jfail(c, "ports: expected an array");
			if (jeat(c, ']'))
				continue;
			do {
				r = jport(c, s);
				if (r < 0)
					return r;
			} while (jeat(c, ','));
			if (!jeat(c, ']'))
				return jfail(c, "ports: expected ',' or ']'");
		} while (jeat(c, ','));
		if (!jeat(c, '}'))
			return jfail(c, "expected ',' or '}'");
	}
	jspace(c);
	if (c->p != c->end)
		return jfail(c, "text after the JSON object");
	if (!ports)
		return jfail(c, "no \"ports\": not a loom health --json run of the counters");
	return 0;
}

void health_since_free(struct health_since *s)
{
	free(s->port);
	*s = (struct health_since){ 0 };
}

int health_since_read_mem(const char *buf, size_t len, const char *name, struct health_since *out,
			  struct diag *d)
{
	struct jcur c = { .p = buf, .end = buf + len, .line = 1, .name = name, .d = d };
	struct health_since s = { 0 };
	int r = jtop(&c, &s);

	if (r < 0) {
		health_since_free(&s);
		return r;
	}
	*out = s;
	return 0;
}

int health_since_read_file(const char *path, struct health_since *out, struct diag *d)
{
	FILE *f = fopen(path, "re");
	char *buf;
	size_t n;
	int r = 0;

	if (!f) {
		r = -errno;
		diag_add(d, path, 0, 0, "cannot open: %s", strerror(-r));
		return r;
	}
	buf = malloc(SINCE_FILE_MAX + 1);
	if (!buf) {
		fclose(f);
		return -ENOMEM;
	}
	n = fread(buf, 1, SINCE_FILE_MAX + 1, f);
	if (ferror(f))
		r = -EIO;
	else if (n > SINCE_FILE_MAX)
		r = -EFBIG;
	fclose(f);
	if (r < 0)
		diag_add(d, path, 0, 0, "cannot read: %s", strerror(-r));
	else
		r = health_since_read_mem(buf, n, path, out, d);
	free(buf);
	return r;
}

int health_since_base(const struct health_since *s, const struct subnet *sn,
		      struct health_pma_port **out)
{
	struct health_pma_port *b = calloc(sn->n_ports ? sn->n_ports : 1, sizeof(*b));

	if (!b)
		return -ENOMEM;
	for (size_t i = 0; i < s->n; i++) {
		const struct health_since_port *sp = &s->port[i];
		uint32_t n = subnet_find_guid(sn, sp->guid);

		if (n == SUBNET_NONE || sp->port > sn->node[n].nports || !sp->up)
			continue;
		b[subnet_port_idx(sn, n, sp->port)] = (struct health_pma_port){ .asked = true,
										 .c = sp->c };
	}
	*out = b;
	return 0;
}
