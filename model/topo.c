/* SPDX-License-Identifier: MIT */
/*
 * Topology reader: entry points, files and includes, the line loop and the
 * keyword lines. topo_line.c reads node headers and port lines, topo_link.c
 * checks GUIDs and makes the links once every line is in.
 *
 * Where ibsim (its sim_net.c) defines the meaning, we follow it, so that a
 * file gives the model the GUIDs the simulator puts on the wire:
 *  - GUIDs come from a running counter per node type: CAs from 0x100000,
 *    switches from 0x200000. A switch takes one GUID, a CA or router
 *    nports + 1 (its node GUID, then one a port: port n is node GUID + n).
 *    switchguid=, caguid= (or hcaguids=) and rtguid= set the counter (=X) or
 *    move it to X past the last =X (+X). ibsim starts routers at GUID 0, which
 *    is not a valid GUID; we start them at 0x300000 (give an rtguid= to match
 *    the simulator). ibnetdiscover writes a guid line before each node, so
 *    its files give every GUID explicitly.
 *  - sysimgguid= and vendid= apply to the next node only, devid= to every
 *    later one (ibsim resets the first two in new_node() and keeps devid).
 *    width=, speed= and extspeed= set the enabled masks of later ports.
 *  - A record is a header line and the port lines after it; a blank line or
 *    any line that is not a port line or a '#' comment ends it. (ibsim drops
 *    a line that ends a record without a blank line before it; we read it.)
 *  - "do CMD" lines run simulator console commands while ibsim reads the
 *    file; they do not change the topology it reads, so they are ignored, as
 *    is "pdebug". "module NAME" makes ibsim prefix every node name, and '@'
 *    makes aliases; both are refused rather than read differently.
 *  - ibsim skips lines it does not know; we report them.
 *  - ibnetdiscover -g adds "Chassis N", "Non-Chassis Nodes" and "Hostname:"
 *    lines and "[ext N]" after port numbers; the model has no place for
 *    them, so they are read and dropped.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/array.h"
#include "lib/cleanup.h"
#include "lib/utf8.h"
#include "model/topo.h"
#include "model/topo_priv.h"

/* ---- messages ----------------------------------------------------------- */

static void err_va(struct topo_ctx *x, unsigned file, unsigned line, const char *fmt, va_list ap)
	__attribute__((format(printf, 4, 0)));

static void err_va(struct topo_ctx *x, unsigned file, unsigned line, const char *fmt, va_list ap)
{
	char text[512];

	vsnprintf(text, sizeof(text), fmt, ap);
	diag_add(x->d, x->files[file], line, 0, "%s", text);
	x->errors++;
}

void topo_err(struct topo_ctx *x, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	err_va(x, x->file, x->line, fmt, ap);
	va_end(ap);
}

void topo_err_at(struct topo_ctx *x, unsigned file, unsigned line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	err_va(x, file, line, fmt, ap);
	va_end(ap);
}

void topo_err_open(struct topo_ctx *x, const struct cur *line, const char *what)
{
	char show[96];

	topo_err(x, "unterminated %s in '%s'%s", what, topo_show(line, show, sizeof(show)),
		 x->last_line ? " (the file looks truncated)" : "");
}

void topo_nomem(struct topo_ctx *x)
{
	if (!x->oom && x->n_files)
		topo_err(x, "out of memory");
	x->oom = true;
}

const char *topo_show(const struct cur *c, char *buf, size_t len)
{
	const char *p = c->p, *end = c->end;
	size_t n = 0;

	while (end > p && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	/* lib/utf8.h's rule: printable UTF-8 as it is, any other byte a '?'. */
	while (p < end) {
		uint32_t cp;
		unsigned k = utf8_next((const unsigned char *)p, (size_t)(end - p), 0, &cp);

		if (!k || !utf8_printable(cp) || *p == '\t')
			k = 1; /* one byte shown as one character */
		if (n + k + 3 >= len) /* room for it and "..." */
			break;
		if (k == 1 && (*p == '\t' || (unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)) {
			buf[n++] = *p == '\t' ? ' ' : '?';
		} else {
			memcpy(buf + n, p, k);
			n += k;
		}
		p += k;
	}
	if (p < end && n + 3 < len) {
		memcpy(buf + n, "...", 3);
		n += 3;
	}
	buf[n] = '\0';
	return buf;
}

const char *topo_where(const struct topo_ctx *x, unsigned here, unsigned file, unsigned line,
		       char *buf, size_t len)
{
	if (file == here)
		snprintf(buf, len, "line %u", line);
	else
		snprintf(buf, len, "line %u of %s", line, x->files[file]);
	return buf;
}

const char *topo_node_str(const struct topo_ctx *x, uint32_t node, char *buf, size_t len)
{
	const struct subnet_node *nd = &x->sn->node[node];

	snprintf(buf, len, "%s \"%s\"", subnet_type_name(nd->type), subnet_str(x->sn, nd->name));
	return buf;
}

/* ---- reader state ------------------------------------------------------- */

int topo_grow(struct topo_ctx *x)
{
	if (array_grow((void **)&x->port, &x->cap_port, x->sn->n_ports, sizeof(*x->port)) < 0 ||
	    array_grow((void **)&x->node_file, &x->cap_node_file, x->sn->n_nodes,
		 sizeof(*x->node_file)) < 0)
		return -ENOMEM;
	return 0;
}

int topo_name_add(struct topo_ctx *x, const char *s, uint32_t *off)
{
	if (strpool_add(&x->names, s, off) < 0) {
		topo_nomem(x);
		return -ENOMEM;
	}
	return 0;
}

static uint64_t bad_hash(uint32_t off, const void *ctx)
{
	const struct topo_ctx *x = ctx;

	return itab_hash_str(strpool_get(&x->names, off));
}

static bool bad_eq(uint32_t off, const void *key, const void *ctx)
{
	const struct topo_ctx *x = ctx;

	return strcmp(strpool_get(&x->names, off), key) == 0;
}

bool topo_is_bad_name(const struct topo_ctx *x, const char *name)
{
	return itab_find(&x->bad, itab_hash_str(name), name, bad_eq, x) != ITAB_EMPTY;
}

void topo_bad_name(struct topo_ctx *x, const char *name)
{
	uint32_t off;

	if (topo_is_bad_name(x, name) || topo_name_add(x, name, &off) < 0)
		return;
	if (itab_insert(&x->bad, itab_hash_str(name), off, bad_hash, x) < 0)
		topo_nomem(x);
}

static void ctx_free(struct topo_ctx *x)
{
	if (!x)
		return;
	subnet_free(x->sn);
	for (unsigned i = 0; i < x->n_files; i++)
		free(x->files[i]);
	free(x->files);
	free(x->port);
	free(x->node_file);
	strpool_free(&x->names);
	itab_free(&x->bad);
	free(x);
}

static void ctx_freep(struct topo_ctx **x)
{
	ctx_free(*x);
}

static int ctx_new(struct diag *d, struct topo_ctx **out)
{
	struct topo_ctx *x = calloc(1, sizeof(*x));

	if (!x)
		return -ENOMEM;
	x->d = d;
	if (strpool_init(&x->names) < 0 || subnet_new(&x->sn) < 0) {
		ctx_free(x);
		return -ENOMEM;
	}
	x->guid_base[NODE_CA] = x->guid_next[NODE_CA] = TOPO_GUID_CA;
	x->guid_base[NODE_SWITCH] = x->guid_next[NODE_SWITCH] = TOPO_GUID_SWITCH;
	x->guid_base[NODE_ROUTER] = x->guid_next[NODE_ROUTER] = TOPO_GUID_ROUTER;
	*out = x;
	return 0;
}

/* Files are named in messages by index; an include adds one. */
static int file_add(struct topo_ctx *x, const char *name, unsigned *idx)
{
	char **v, *s;

	if (x->n_files == UINT16_MAX)
		return -EMLINK;
	if (x->n_files == x->cap_files) {
		unsigned cap = x->cap_files ? x->cap_files * 2 : 4;

		v = realloc(x->files, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		x->files = v;
		x->cap_files = cap;
	}
	s = strdup(name);
	if (!s)
		return -ENOMEM;
	x->files[x->n_files] = s;
	*idx = x->n_files++;
	return 0;
}

/* ---- lines and files ---------------------------------------------------- */

static int parse_line(struct topo_ctx *x, const struct cur *line)
{
	struct cur c = *line;
	char show[96];

	cur_ws(&c);
	if (cur_eof(&c)) {
		topo_rec_close(x);
		return 0;
	}
	switch (*c.p) {
	case '#':
		return 0; /* a comment does not end a record */
	case '[':
		if (x->rec == REC_NODE)
			return topo_port_line(x, &c, line);
		if (x->rec == REC_NONE)
			topo_err(x, "port line '%s' is outside a node record (port lines follow "
				    "their Switch, Ca, Hca or Rt line with no blank line between)",
				 topo_show(line, show, sizeof(show)));
		return 0;
	case '@':
		if (x->rec != REC_SKIP)
			topo_err(x, "aliases ('@') are not supported: '%s'",
				 topo_show(line, show, sizeof(show)));
		return 0;
	}
	topo_rec_close(x);
	return topo_keyword_line(x, &c, line);
}

static int parse_buf(struct topo_ctx *x, const char *buf, size_t len, unsigned file)
{
	struct cur c = { buf, buf + len };
	int r;

	/*
	 * A UTF-8 byte-order mark, as some editors write one: not a line of
	 * the file (loom.yaml's reader takes one too).
	 */
	if (len >= 3 && !memcmp(buf, "\xef\xbb\xbf", 3))
		c.p += 3;
	x->file = file;
	x->line = 0;
	x->rec = REC_NONE;
	while (!cur_eof(&c)) {
		const char *nl = memchr(c.p, '\n', (size_t)(c.end - c.p));
		struct cur l = { c.p, nl ? nl : c.end };

		c.p = nl ? nl + 1 : c.end;
		x->line++;
		x->last_line = !nl;
		if (l.end > l.p && l.end[-1] == '\r')
			l.end--;
		/*
		 * Both are errors, but the line is still read (the cursors are
		 * bounded and names are cut to fit), so that the lines around
		 * it do not turn into more messages.
		 */
		if (l.end - l.p > TOPO_LINE_MAX)
			topo_err(x, "line is longer than %d bytes", TOPO_LINE_MAX);
		else if (memchr(l.p, '\0', (size_t)(l.end - l.p)))
			topo_err(x, "line holds a NUL byte (is this a text file?)");
		r = parse_line(x, &l);
		if (r < 0 || x->oom)
			return -ENOMEM;
	}
	topo_rec_close(x);
	return x->oom ? -ENOMEM : 0;
}

static int read_all(int fd, const struct stat *st, char **out, size_t *len)
{
	size_t cap = 65536, n = 0;
	char *buf, *p;
	ssize_t r;

	if (S_ISDIR(st->st_mode))
		return -EISDIR;
	if (S_ISREG(st->st_mode)) {
		if (st->st_size > TOPO_FILE_MAX)
			return -EFBIG;
		cap = (size_t)st->st_size + 1;
	}
	buf = malloc(cap);
	if (!buf)
		return -ENOMEM;
	for (;;) {
		if (n == cap) {
			p = cap > TOPO_FILE_MAX ? NULL : realloc(buf, cap * 2);
			if (!p) {
				free(buf);
				return cap > TOPO_FILE_MAX ? -EFBIG : -ENOMEM;
			}
			buf = p;
			cap *= 2;
		}
		r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			r = -errno;
			free(buf);
			return (int)r;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	if (n > TOPO_FILE_MAX) {
		free(buf);
		return -EFBIG;
	}
	*out = buf;
	*len = n;
	return 0;
}

static int load(const char *path, char **buf, size_t *len, struct stat *st)
{
	_cleanup_fclose_ FILE *f = fopen(path, "re");

	if (!f)
		return -errno;
	if (fstat(fileno(f), st) < 0)
		return -errno;
	return read_all(fileno(f), st, buf, len);
}

/* Parse a loaded file; the line position of the file that included it is kept. */
static int parse_loaded(struct topo_ctx *x, const char *path, const struct stat *st,
			const char *buf, size_t len)
{
	unsigned file = x->file, line = x->line, idx;
	bool last = x->last_line;
	int r;

	r = file_add(x, path, &idx);
	if (r == -EMLINK) {
		topo_err(x, "too many include files (at most %u)", UINT16_MAX);
		return 0;
	}
	if (r < 0) {
		topo_nomem(x);
		return r;
	}
	x->open[x->depth].dev = st->st_dev;
	x->open[x->depth].ino = st->st_ino;
	x->depth++;
	r = parse_buf(x, buf, len, idx);
	x->depth--;
	x->file = file;
	x->line = line;
	x->last_line = last;
	return r;
}

/*
 * ibsim opens an include relative to the current directory. Most people keep
 * included files beside the file that includes them, so that is tried next.
 */
static int include_load(struct topo_ctx *x, const char *name, char **path, char **buf,
			size_t *len, struct stat *st)
{
	const char *cur = x->files[x->file], *slash = strrchr(cur, '/');
	int r;

	*path = strdup(name);
	if (!*path)
		return -ENOMEM;
	r = load(*path, buf, len, st);
	if (r != -ENOENT || name[0] == '/' || !slash)
		return r;
	free(*path);
	if (asprintf(path, "%.*s/%s", (int)(slash - cur), cur, name) < 0) {
		*path = NULL;
		return -ENOMEM;
	}
	return load(*path, buf, len, st);
}

int topo_include(struct topo_ctx *x, struct cur *c, const struct cur *line)
{
	_cleanup_free_ char *path = NULL, *buf = NULL;
	struct cur name;
	char show[96];
	struct stat st;
	size_t len;
	int r;

	if (!x->allow_include) {
		topo_err(x, "'include' works only in a file read from disk: '%s'",
			 topo_show(line, show, sizeof(show)));
		return 0;
	}
	cur_ws(c);
	if (cur_eat(c, '"')) {
		name = (struct cur){ c->p, memchr(c->p, '"', (size_t)(c->end - c->p)) };
		if (!name.end) {
			topo_err_open(x, line, "quote");
			return 0;
		}
		c->p = name.end + 1;
	} else {
		cur_word(c, &name);
	}
	if (name.p == name.end || !at_end(c)) {
		topo_err(x, "bad include line '%s' (expected: include <file>)",
			 topo_show(line, show, sizeof(show)));
		return 0;
	}
	if (x->depth >= ARRAY_SIZE(x->open)) {
		topo_err(x, "includes nested more than %d deep", TOPO_INCLUDE_DEPTH);
		return 0;
	}
	topo_copy(&name, x->name, sizeof(x->name));
	r = include_load(x, x->name, &path, &buf, &len, &st);
	if (r < 0) {
		topo_err(x, "cannot read include file \"%s\": %s", x->name, strerror(-r));
		return r == -ENOMEM ? r : 0;
	}
	for (unsigned i = 0; i < x->depth; i++) {
		if (x->open[i].dev == st.st_dev && x->open[i].ino == st.st_ino) {
			topo_err(x, "include cycle: \"%s\" is already being read", path);
			return 0;
		}
	}
	return parse_loaded(x, path, &st, buf, len);
}

/* ---- entry points ------------------------------------------------------- */

static int finish(struct topo_ctx *x, struct subnet **out)
{
	if (!x->oom && !x->headers)
		topo_err_at(x, 0, 0, "no nodes found (expected Switch, Ca, Hca or Rt lines)");
	if (!x->oom) {
		topo_check_port_guids(x);
		topo_resolve_links(x);
	}
	if (x->oom)
		return -ENOMEM;
	if (x->errors)
		return -EINVAL;
	*out = TAKE_PTR(x->sn);
	return 0;
}

int topo_read_mem(const char *buf, size_t len, const char *name, struct subnet **out,
		  struct diag *d)
{
	_cleanup_(ctx_freep) struct topo_ctx *x = NULL;
	unsigned idx;
	int r;

	if (!name)
		name = "<memory>";
	r = ctx_new(d, &x);
	if (r == 0)
		r = file_add(x, name, &idx);
	if (r < 0) {
		diag_add(d, name, 0, 0, "out of memory");
		return -ENOMEM;
	}
	r = parse_buf(x, buf, len, idx);
	if (r < 0)
		return r;
	return finish(x, out);
}

int topo_read_file(const char *path, struct subnet **out, struct diag *d)
{
	_cleanup_(ctx_freep) struct topo_ctx *x = NULL;
	_cleanup_free_ char *buf = NULL;
	struct stat st;
	size_t len;
	int r;

	r = load(path, &buf, &len, &st);
	if (r < 0) {
		diag_add(d, path, 0, 0, "cannot read: %s", strerror(-r));
		return r;
	}
	r = ctx_new(d, &x);
	if (r < 0) {
		diag_add(d, path, 0, 0, "out of memory");
		return r;
	}
	x->allow_include = true;
	r = parse_loaded(x, path, &st, buf, len);
	if (r < 0)
		return r;
	return finish(x, out);
}
