/* SPDX-License-Identifier: MIT */
/*
 * libyaml's events -> a small tree of nodes in two arrays (nodes, text), so
 * the walker can look at a mapping twice and every node keeps its 1-based
 * place. Aliases and tags are refused: an alias could make a small file
 * expand into a huge walk, and the schema has no use for either.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "config/config_priv.h"
#include "lib/array.h"

struct ybuild {
	struct ytree *t;
	const char *file;
	struct diag *d;
	const char *buf;
	size_t len;
	uint32_t stack[YTREE_MAX_DEPTH]; /* open containers */
	uint32_t last[YTREE_MAX_DEPTH]; /* their last child, YNODE_NONE */
	unsigned depth;
	unsigned docs;
	bool bad;
};

/* libyaml's reader errors carry a byte offset, not a mark: count it out. */
static void offset_mark(const char *buf, size_t len, size_t off, uint32_t *line, uint32_t *col)
{
	*line = 1;
	*col = 1;
	for (size_t i = 0; i < off && i < len; i++) {
		if (buf[i] == '\n') {
			++*line;
			*col = 1;
		} else if (((unsigned char)buf[i] & 0xc0) != 0x80) {
			++*col;
		}
	}
}

static void syntax_error(struct ybuild *b, const yaml_parser_t *y)
{
	uint32_t line = (uint32_t)y->problem_mark.line + 1,
		 col = (uint32_t)y->problem_mark.column + 1;
	const char *problem = y->problem ? y->problem : "cannot parse";

	if (y->error == YAML_READER_ERROR) {
		offset_mark(b->buf, b->len, y->problem_offset, &line, &col);
		diag_add(b->d, b->file, line, col, "YAML: %s (byte 0x%02x at offset %zu)", problem,
			 y->problem_value & 0xff, y->problem_offset);
	} else if (y->context) {
		diag_add(b->d, b->file, line, col, "YAML: %s (%s at line %zu column %zu)", problem,
			 y->context, y->context_mark.line + 1, y->context_mark.column + 1);
	} else {
		diag_add(b->d, b->file, line, col, "YAML: %s", problem);
	}
}

static void event_error(struct ybuild *b, const yaml_event_t *e, const char *msg)
{
	diag_add(b->d, b->file, (uint32_t)e->start_mark.line + 1,
		 (uint32_t)e->start_mark.column + 1, "YAML: %s", msg);
	b->bad = true;
}

/* A new node, linked under the open container (or as the root). */
static int node_add(struct ybuild *b, const yaml_event_t *e, uint8_t type, uint32_t *idx)
{
	struct ytree *t = b->t;
	struct ynode *n;
	int r;

	if (t->n == YNODE_NONE - 1)
		return -ENOMEM;
	r = array_grow((void **)&t->node, &t->cap, t->n + 1, sizeof(*t->node));
	if (r < 0)
		return r;
	*idx = t->n++;
	n = &t->node[*idx];
	*n = (struct ynode){ .type = type, .line = (uint32_t)e->start_mark.line + 1,
			     .col = (uint32_t)e->start_mark.column + 1, .first = YNODE_NONE,
			     .next = YNODE_NONE };
	if (!b->depth) {
		t->root = *idx;
		return 0;
	}
	struct ynode *parent = &t->node[b->stack[b->depth - 1]];
	uint32_t *last = &b->last[b->depth - 1];

	if (*last == YNODE_NONE)
		parent->first = *idx;
	else
		t->node[*last].next = *idx;
	*last = *idx;
	parent->n++;
	return 0;
}

static int scalar_add(struct ybuild *b, const yaml_event_t *e)
{
	struct ytree *t = b->t;
	size_t len = e->data.scalar.length;
	uint32_t idx;
	int r;

	if (len >= UINT32_MAX - t->n_chars - 1)
		return -ENOMEM;
	r = array_grow((void **)&t->chars, &t->cap_chars, t->n_chars + (uint32_t)len + 1, 1);
	if (r < 0)
		return r;
	r = node_add(b, e, YNODE_SCALAR, &idx);
	if (r < 0)
		return r;
	t->node[idx].plain = e->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
	t->node[idx].str = t->n_chars;
	t->node[idx].len = (uint32_t)len;
	memcpy(t->chars + t->n_chars, e->data.scalar.value, len);
	t->chars[t->n_chars + len] = '\0';
	t->n_chars += (uint32_t)len + 1;
	return 0;
}

static int open_add(struct ybuild *b, const yaml_event_t *e, uint8_t type)
{
	uint32_t idx;
	int r;

	if (b->depth == YTREE_MAX_DEPTH) {
		event_error(b, e, "nested deeper than 32 levels; a loom configuration is not");
		return -EINVAL;
	}
	r = node_add(b, e, type, &idx);
	if (r < 0)
		return r;
	b->stack[b->depth] = idx;
	b->last[b->depth++] = YNODE_NONE;
	return 0;
}

/* One event into the tree: 1 at the stream's end, 0 to go on, -errno to stop. */
static int event_add(struct ybuild *b, const yaml_event_t *e)
{
	const yaml_char_t *tag = NULL;

	switch (e->type) {
	case YAML_STREAM_END_EVENT:
		return 1;
	case YAML_DOCUMENT_START_EVENT:
		if (b->docs++) {
			event_error(b, e, "a second document; the configuration is one document");
			return -EINVAL;
		}
		return 0;
	case YAML_ALIAS_EVENT:
		event_error(b, e, "aliases (*name) are not supported; write the value out");
		return 0;
	case YAML_SCALAR_EVENT:
		tag = e->data.scalar.tag;
		break;
	case YAML_SEQUENCE_START_EVENT:
		tag = e->data.sequence_start.tag;
		break;
	case YAML_MAPPING_START_EVENT:
		tag = e->data.mapping_start.tag;
		break;
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT:
		if (b->depth)
			b->depth--;
		return 0;
	default:
		return 0;
	}
	if (tag)
		event_error(b, e, "tags (!tag) are not supported; write the plain value");
	if (e->type == YAML_SCALAR_EVENT)
		return scalar_add(b, e);
	return open_add(b, e, e->type == YAML_MAPPING_START_EVENT ? YNODE_MAP : YNODE_SEQ);
}

int ytree_build(const char *buf, size_t len, const char *file, struct ytree *t, struct diag *d)
{
	struct ybuild b = { .t = t, .file = file, .d = d, .buf = buf, .len = len };
	yaml_parser_t y;
	int r = 0;

	*t = (struct ytree){ .root = YNODE_NONE };
	if (!yaml_parser_initialize(&y))
		return -ENOMEM;
	yaml_parser_set_input_string(&y, (const unsigned char *)buf, len);
	while (r == 0) {
		yaml_event_t e;

		if (!yaml_parser_parse(&y, &e)) {
			if (y.error == YAML_MEMORY_ERROR) {
				r = -ENOMEM;
			} else {
				syntax_error(&b, &y);
				r = -EINVAL;
			}
			break;
		}
		r = event_add(&b, &e);
		yaml_event_delete(&e);
	}
	yaml_parser_delete(&y);
	if (r == -ENOMEM)
		diag_add(d, file, 0, 0, "out of memory while reading the YAML");
	if (r < 0)
		return r;
	return b.bad ? -EINVAL : 0;
}

void ytree_free(struct ytree *t)
{
	free(t->node);
	free(t->chars);
	*t = (struct ytree){ .root = YNODE_NONE };
}
