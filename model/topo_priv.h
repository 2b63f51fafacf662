/* SPDX-License-Identifier: MIT */
#ifndef LOOM_TOPO_PRIV_H
#define LOOM_TOPO_PRIV_H

/*
 * Internal to the topology reader; nothing outside model/topo*.c includes this.
 *   topo.c       entry points, files and includes, the line loop, messages
 *   topo_kw.c    keyword lines (switchguid=, vendid=, ...) and numbers
 *   topo_line.c  node header and port lines (a bounded cursor over one line)
 *   topo_link.c  after the last line: port GUID clashes, then links
 *
 * The reader keeps what a port line said in topo_port, one per model port,
 * because the far end of a link may be defined later in the file; links are
 * made only once every node exists and both ends agree.
 */

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>

#include "lib/diag.h"
#include "lib/itab.h"
#include "lib/strpool.h"
#include "model/subnet.h"

#define TOPO_LINE_MAX 4096            /* bytes in one line, '\n' not counted */
#define TOPO_FILE_MAX (256u << 20)    /* bytes in one file */
#define TOPO_INCLUDE_DEPTH 8
/* Ports in one model. The largest fabrics have well under a million; the cap
 * keeps a hostile file of "Switch 254" lines from asking for 1000x its size. */
#define TOPO_PORTS_MAX (1u << 22)
#define TOPO_GUID_CA 0x100000         /* ibsim's first CA GUID */
#define TOPO_GUID_SWITCH 0x200000     /* ibsim's first switch GUID */
#define TOPO_GUID_ROUTER 0x300000     /* ours: ibsim starts routers at GUID 0 */

/* A bounded view of input: reads never pass end. */
struct cur {
	const char *p, *end;
};

enum {
	TP_LISTED = 1, /* the record has a line for this port */
	TP_BAD = 2,    /* ... and that line was wrong (already reported) */
};

/* What one port's line said; indexed like subnet.port[]. */
struct topo_port {
	uint64_t guid;  /* "[n](guid)": this port's own GUID, 0 if not given */
	uint64_t rguid; /* "..."[n](guid): the far port's GUID, 0 if not given */
	uint32_t rname; /* far node's name: offset in topo_ctx.names */
	uint32_t line;
	uint16_t file;  /* index into topo_ctx.files */
	uint8_t flags;  /* TP_* */
	uint8_t rport;
	uint8_t width;  /* this end's view of the link, 0 if it says nothing */
	uint8_t speed;
};

enum rec_state {
	REC_NONE, /* between records: a port line here is an error */
	REC_NODE, /* port lines belong to rec_node */
	REC_SKIP, /* the header or line before was wrong (reported): skip port lines */
};

/* An open file, for include cycle detection. */
struct topo_open {
	dev_t dev;
	ino_t ino;
};

struct topo_ctx {
	struct subnet *sn;
	struct diag *d;
	unsigned errors;
	bool oom;
	bool too_big; /* TOPO_PORTS_MAX reached (reported once) */
	bool allow_include;

	/* Where we are: file index, line number, and whether the line ends the
	 * input without a newline (a quote open there means a truncated file). */
	char **files;
	unsigned n_files, cap_files;
	unsigned file, line;
	bool last_line;
	struct topo_open open[TOPO_INCLUDE_DEPTH + 1];
	unsigned depth;

	struct topo_port *port; /* cap_port >= sn->n_ports */
	uint32_t cap_port;
	uint16_t *node_file;    /* file each node came from */
	uint32_t cap_node_file;
	struct strpool names;   /* remote names as port lines gave them */
	struct itab bad;        /* names (offsets in names) of refused headers */

	/* ibsim's running state: GUID counters by node type, and the values a
	 * guid/vendid/devid/... line sets for the nodes after it. */
	uint64_t guid_base[4], guid_next[4];
	uint64_t sysguid;    /* sysimgguid=: next node only */
	uint64_t port0_guid; /* switchguid=X(Y): Y, next node only */
	uint32_t vendid;     /* next node only (ibsim resets it) */
	uint16_t devid;      /* every later node (ibsim keeps it) */
	uint8_t width_en, speed_en, ext_en; /* width=, speed=, extspeed= */
	bool have_width_en, have_speed_en, have_ext_en;

	enum rec_state rec;
	uint32_t rec_node;
	unsigned headers;

	char name[TOPO_LINE_MAX + 1], desc[TOPO_LINE_MAX + 1];
};

/* Cursor helpers. Spaces and tabs separate words; nothing else does. */
static inline bool cur_eof(const struct cur *c)
{
	return c->p >= c->end;
}

static inline int cur_peek(const struct cur *c)
{
	return c->p < c->end ? (unsigned char)*c->p : -1;
}

static inline bool cur_eat(struct cur *c, char ch)
{
	if (c->p >= c->end || *c->p != ch)
		return false;
	c->p++;
	return true;
}

static inline void cur_ws(struct cur *c)
{
	while (c->p < c->end && (*c->p == ' ' || *c->p == '\t'))
		c->p++;
}

/* The next word (up to a space, tab or the end) into *w; false at the end. */
static inline bool cur_word(struct cur *c, struct cur *w)
{
	cur_ws(c);
	w->p = c->p;
	while (c->p < c->end && *c->p != ' ' && *c->p != '\t')
		c->p++;
	w->end = c->p;
	return w->p < w->end;
}

static inline bool cur_is(const struct cur *w, const char *s)
{
	size_t n = strlen(s);

	return (size_t)(w->end - w->p) == n && memcmp(w->p, s, n) == 0;
}

/* After a value: nothing, or a comment. */
static inline bool at_end(struct cur *c)
{
	cur_ws(c);
	return cur_eof(c) || cur_peek(c) == '#';
}

/* An unsigned number: base 0 follows strtoull (0x hex, 0 octal, else
 * decimal), as ibsim reads its files; base 16 takes an optional 0x.
 * -ENOENT if there is no digit (c unmoved), -ERANGE past 64 bits. */
int topo_num(struct cur *c, int base, uint64_t *v);
/* Copy c into buf as a C string, cut to fit. */
void topo_copy(const struct cur *c, char *buf, size_t len);

/* messages and shared state (topo.c) */
void topo_err(struct topo_ctx *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void topo_err_at(struct topo_ctx *x, unsigned file, unsigned line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* A line that ends inside a quote or bracket; says so if the file looks cut. */
void topo_err_open(struct topo_ctx *x, const struct cur *line, const char *what);
void topo_nomem(struct topo_ctx *x);
/* A line or value for a message: at most ~70 bytes, control bytes as '?'. */
const char *topo_show(const struct cur *c, char *buf, size_t len);
/* "line 7", or "line 7 of other.topo" when file is not the message's own. */
const char *topo_where(const struct topo_ctx *x, unsigned here, unsigned file, unsigned line,
		       char *buf, size_t len);
/* switch "leaf-07" */
const char *topo_node_str(const struct topo_ctx *x, uint32_t node, char *buf, size_t len);
/* Grow the per-port and per-node tables to the model's size. */
int topo_grow(struct topo_ctx *x);
int topo_name_add(struct topo_ctx *x, const char *s, uint32_t *off);
void topo_bad_name(struct topo_ctx *x, const char *name);
bool topo_is_bad_name(const struct topo_ctx *x, const char *name);

/* "include FILE" (topo.c) */
int topo_include(struct topo_ctx *x, struct cur *c, const struct cur *line);

/* keyword lines (topo_kw.c) */
int topo_keyword_line(struct topo_ctx *x, struct cur *c, const struct cur *line);

/* records (topo_line.c) */
int topo_header(struct topo_ctx *x, enum node_type type, const char *kw, struct cur *c,
		const struct cur *line);
int topo_port_line(struct topo_ctx *x, struct cur *c, const struct cur *line);
void topo_rec_close(struct topo_ctx *x);

/* GUIDs and links (topo_link.c) */
/* Give port pi this GUID; a clash is reported at file:line. */
int topo_set_port_guid(struct topo_ctx *x, uint32_t pi, uint64_t guid, unsigned file,
		       unsigned line);
void topo_check_port_guids(struct topo_ctx *x);
void topo_resolve_links(struct topo_ctx *x);

#endif
