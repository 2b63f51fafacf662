/* SPDX-License-Identifier: MIT */
/*
 * The dump_lfts reader: text in, a struct route_out aligned with a model out.
 * Two passes over the lines: the first finds the highest LID the text sets
 * (so every row is allocated once), the second fills the rows and says what
 * it skipped. Every line is parsed with a bounded cursor: a line may hold
 * anything, NUL bytes included, and is never read past its end.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cleanup.h"
#include "lib/strnum.h"
#include "lft_text.h"

/* A bit for every unicast LID: 6 KB. */
#define LID_BITS_BYTES (SUBNET_LID_UCAST_END / 8 + 1)

struct lcur {
	const char *p, *end;
};

enum rd_state {
	RD_NONE,  /* outside a table */
	RD_TABLE, /* in the table of switch rd.sw */
	RD_SKIP,  /* in a table that is skipped (its header said why) */
	RD_MCAST, /* in a multicast block: not read */
};

struct reader {
	const struct subnet *sn;
	const char *name;
	struct diag *d;        /* NULL in the first pass: it only sizes */
	struct route_out *out; /* rows exist in the second pass */
	struct lft_text_stats st;
	uint32_t *seen;   /* [n_sw] line of the switch's table, 0 if none yet */
	uint8_t *isset;   /* [LID_BITS_BYTES] LIDs set by the current table */
	uint32_t max_lid; /* first pass: the highest LID an entry routes */
	uint32_t line, sw;
	uint32_t top;     /* the current table's top LID if dump_fts may have left it out */
	enum rd_state state;
	bool any_table;
};

static void cur_ws(struct lcur *c)
{
	while (c->p < c->end && (*c->p == ' ' || *c->p == '\t'))
		c->p++;
}

static bool cur_lit(struct lcur *c, const char *s)
{
	size_t n = strlen(s);

	if ((size_t)(c->end - c->p) < n || memcmp(c->p, s, n))
		return false;
	c->p += n;
	return true;
}

/* At the end, or before a blank: a number or word ends there. */
static bool cur_boundary(const struct lcur *c)
{
	return c->p == c->end || *c->p == ' ' || *c->p == '\t';
}

/* 1..maxdig digits in base 16 or 10. */
static bool cur_num(struct lcur *c, unsigned base, unsigned maxdig, uint64_t *v)
{
	unsigned n = 0, x;

	*v = 0;
	while (c->p < c->end && (x = strnum_digit(*c->p)) < base) {
		if (++n > maxdig)
			return false;
		*v = *v * base + x;
		c->p++;
	}
	return n > 0;
}

/* "0x1f" in hex, "31" in decimal (OpenSM's dump writes its ranges so). */
static bool cur_auto(struct lcur *c, uint64_t *v)
{
	if (cur_lit(c, "0x") || cur_lit(c, "0X"))
		return cur_num(c, 16, 8, v);
	return cur_num(c, 10, 10, v);
}

/* Up to 48 bytes of the line for a message, unprintable bytes as '?'. */
static void quote(struct lcur c, char *buf, size_t len)
{
	size_t k = 0;

	while (c.p < c.end && k + 4 < len && k < 48) {
		unsigned char ch = (unsigned char)*c.p++;

		buf[k++] = ch >= 0x20 && ch < 0x7f ? (char)ch : '?';
	}
	if (c.p < c.end)
		buf[k++] = '.', buf[k++] = '.', buf[k++] = '.';
	buf[k] = 0;
}

static void __attribute__((format(printf, 2, 3))) rd_err(struct reader *rd, const char *fmt, ...)
{
	char text[400];
	va_list ap;

	rd->st.skipped++;
	if (!rd->d)
		return;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	diag_add(rd->d, rd->name, rd->line, 0, "%s", text);
}

static const char *node_desc(const struct subnet *sn, uint32_t node)
{
	return subnet_str(sn, sn->node[node].desc);
}

/* "Unicast lids [0x0-0x2c] of switch ADDRESS guid 0xGUID (desc):" */
static void rd_header(struct reader *rd, struct lcur c)
{
	const struct subnet *sn = rd->sn;
	uint64_t lo, hi, guid;
	uint32_t node, s;
	const char *g;
	bool hex;

	rd->any_table = true;
	rd->state = RD_SKIP;
	cur_ws(&c);
	hex = c.end - c.p > 2 && c.p[1] == '0' && (c.p[2] == 'x' || c.p[2] == 'X');
	if (!cur_lit(&c, "[") || !cur_auto(&c, &lo) || !cur_lit(&c, "-") || !cur_auto(&c, &hi) ||
	    !cur_lit(&c, "]") || !cur_lit(&c, " of switch") || lo > hi ||
	    !(g = memmem(c.p, (size_t)(c.end - c.p), " guid 0x", 8))) {
		rd_err(rd, "malformed \"Unicast lids\" header (want \"Unicast lids [0xA-0xB] of "
			   "switch ... guid 0xGUID (desc):\"); its table is skipped");
		return;
	}
	c.p = g + 8;
	if (!cur_num(&c, 16, 16, &guid) || !(cur_boundary(&c) || *c.p == '(')) {
		rd_err(rd, "malformed switch GUID in \"Unicast lids\" header; its table is skipped");
		return;
	}
	node = subnet_find_guid(sn, guid);
	if (node == SUBNET_NONE) {
		rd_err(rd, "switch GUID 0x%016" PRIx64 " is not in the topology; its table is skipped",
		       guid);
		return;
	}
	if (!subnet_is_switch(sn, node)) {
		rd_err(rd, "GUID 0x%016" PRIx64 " (\"%s\") is not a switch in the topology; its "
			   "table is skipped", guid, node_desc(sn, node));
		return;
	}
	s = rd->out->sw_index[node];
	if (rd->seen[s]) {
		rd_err(rd, "switch 0x%016" PRIx64 " (\"%s\") already has a table at line %u; this "
			   "one is skipped", guid, node_desc(sn, node), rd->seen[s]);
		return;
	}
	rd->seen[s] = rd->line;
	rd->st.switches++;
	memset(rd->isset, 0, LID_BITS_BYTES);
	rd->sw = s;
	rd->state = RD_TABLE;
	/* dump_fts and ibroute (hex ranges) read blocks [lo/64, ALIGN(hi, 64)/64): when
	 * hi is a multiple of 64 the block holding hi is never read, and hi not printed. */
	rd->top = hex && hi && hi % 64 == 0 && hi <= SUBNET_LID_UCAST_END ? (uint32_t)hi : 0;
}

/* The end of a table: did it leave out its top LID? */
static void rd_close(struct reader *rd)
{
	if (rd->state == RD_TABLE && rd->top && !(rd->isset[rd->top / 8] & (1u << (rd->top % 8)))) {
		rd->st.unread_tables++;
		if (rd->top > rd->st.unread_lid)
			rd->st.unread_lid = (uint16_t)rd->top;
	}
	rd->state = RD_NONE;
}

/* "0x0001 005 : (...)", "0x0001 005 # ...", "0x0001 005 " */
static void rd_entry(struct reader *rd, struct lcur c)
{
	const struct subnet *sn = rd->sn;
	uint32_t node = rd->out->sw_node[rd->sw];
	unsigned nports = sn->node[node].nports;
	struct lcur whole = c;
	uint64_t lid, port;
	char q[64];

	if (!cur_lit(&c, "0x") || !cur_num(&c, 16, 8, &lid) || !cur_boundary(&c) ||
	    (cur_ws(&c), !cur_num(&c, 10, 3, &port)) || !cur_boundary(&c) || port > 255) {
		quote(whole, q, sizeof(q));
		rd_err(rd, "malformed LFT entry '%s' (want \"0xLID PORT ...\"); skipped", q);
		return;
	}
	if (lid == 0)
		return; /* LID 0 is no unicast LID: dump_lfts -a lists it, nothing routes it */
	if (lid > SUBNET_LID_UCAST_END) {
		rd_err(rd, "LID 0x%" PRIx64 " is outside the unicast range 0x1-0x%x; entry skipped",
		       lid, SUBNET_LID_UCAST_END);
		return;
	}
	if (port > nports && port != ROUTE_DROP) {
		rd_err(rd, "switch 0x%016" PRIx64 " (\"%s\"): LID 0x%04" PRIx64 " leaves by port %"
			   PRIu64 ", beyond its %u ports; entry skipped", sn->node[node].guid,
		       node_desc(sn, node), lid, port, nports);
		return;
	}
	if (rd->isset[lid / 8] & (1u << (lid % 8))) {
		rd_err(rd, "switch 0x%016" PRIx64 " (\"%s\"): LID 0x%04" PRIx64 " is listed twice; "
			   "the later entry is skipped", sn->node[node].guid, node_desc(sn, node), lid);
		return;
	}
	rd->isset[lid / 8] |= (uint8_t)(1u << (lid % 8));
	if (!rd->d) { /* first pass: size only */
		if (port != ROUTE_DROP && lid > rd->max_lid)
			rd->max_lid = (uint32_t)lid;
		return;
	}
	if (lid > rd->out->max_lid)
		return; /* a drop (port 255, dump_lfts -a) above every routed LID: the default */
	route_lft(rd->out, rd->sw)[lid] = (uint8_t)port;
	if (port != ROUTE_DROP)
		rd->st.entries++;
}

/* "44 valid lids dumped ", "146 lids dumped", "0 valid mlids dumped " */
static bool is_footer(struct lcur c)
{
	uint64_t n;

	if (!cur_num(&c, 10, 10, &n) || !cur_boundary(&c))
		return false;
	cur_ws(&c);
	(void)cur_lit(&c, "valid ");
	return cur_lit(&c, "lids dumped") || cur_lit(&c, "mlids dumped");
}

/* Lines that hold no table data and are expected in a dump. */
static bool is_noise(struct lcur c)
{
	static const char *const prefix[] = {
		"#", "Lid ", "Port ", "*** WARNING ***", "ibwarn:",
	};

	if (c.p == c.end)
		return true;
	for (size_t i = 0; i < ARRAY_SIZE(prefix); i++)
		if (cur_lit(&c, prefix[i]))
			return true;
	return false;
}

static void rd_line(struct reader *rd, const char *p, size_t len)
{
	struct lcur c = { p, p + len };
	char q[64];

	while (c.end > c.p && (c.end[-1] == '\r' || c.end[-1] == ' ' || c.end[-1] == '\t'))
		c.end--;
	cur_ws(&c);
	if (cur_lit(&c, "Unicast lids")) {
		rd_close(rd);
		rd_header(rd, c);
		return;
	}
	if (cur_lit(&c, "Multicast mlids")) {
		rd_close(rd);
		rd->state = RD_MCAST; /* documented: multicast tables are not read */
		return;
	}
	if (rd->state == RD_MCAST)
		return;
	if (c.end - c.p >= 2 && c.p[0] == '0' && (c.p[1] == 'x' || c.p[1] == 'X')) {
		if (rd->state == RD_TABLE)
			rd_entry(rd, c);
		else if (rd->state == RD_NONE)
			rd_err(rd, "LFT entry outside a switch table (no \"Unicast lids\" header "
				   "before it); skipped");
		return;
	}
	if (is_footer(c)) {
		rd_close(rd);
		return;
	}
	if (is_noise(c))
		return;
	quote(c, q, sizeof(q));
	rd_err(rd, "not a line of dump_lfts output: '%s'; skipped", q);
}

/* One pass over the lines of a buffer or a stream. */
static int rd_pass(struct reader *rd, const char *buf, size_t len, FILE *f)
{
	rd->line = 0;
	rd->state = RD_NONE;
	rd->sw = SUBNET_NONE;
	if (f) {
		_cleanup_free_ char *ln = NULL;
		size_t cap = 0;
		ssize_t n;

		rewind(f);
		while ((n = getline(&ln, &cap, f)) >= 0) {
			rd->line++;
			rd_line(rd, ln, (size_t)n && ln[n - 1] == '\n' ? (size_t)n - 1 : (size_t)n);
		}
		rd_close(rd);
		return ferror(f) ? -EIO : 0;
	}
	for (size_t off = 0; off < len;) {
		const char *nl = memchr(buf + off, '\n', len - off);
		size_t n = nl ? (size_t)(nl - (buf + off)) : len - off;

		rd->line++;
		rd_line(rd, buf + off, n);
		off += n + 1;
	}
	rd_close(rd);
	return 0;
}

static uint32_t model_max_lid(const struct subnet *sn)
{
	uint32_t max = 0;

	for (uint32_t i = 0; i < sn->n_ports; i++) {
		const struct subnet_port *p = &sn->port[i];
		uint32_t top = (uint32_t)p->lid + (1u << (p->lmc & 7)) - 1;

		if (p->lid && top > max)
			max = top > SUBNET_LID_UCAST_END ? SUBNET_LID_UCAST_END : top;
	}
	return max;
}

static void route_out_freep(struct route_out *out)
{
	route_out_free(out);
}

static int lft_text_read(const char *buf, size_t len, FILE *f, const char *name,
			 const struct subnet *sn, struct route_out *out, struct lft_text_stats *st,
			 struct diag *d)
{
	_cleanup_(route_out_freep) struct route_out res = { 0 };
	struct reader rd = { .sn = sn, .name = name, .out = &res };
	_cleanup_free_ uint32_t *seen = NULL;
	_cleanup_free_ uint8_t *isset = NULL;
	uint32_t max;
	int r;

	/* Switch numbering first; the rows once the first pass has sized them. */
	r = route_out_number(sn, &res);
	if (r < 0)
		return r;
	seen = calloc((size_t)res.n_sw + 1, sizeof(*seen));
	isset = malloc(LID_BITS_BYTES);
	if (!seen || !isset)
		return -ENOMEM;
	rd.seen = seen;
	rd.isset = isset;
	r = rd_pass(&rd, buf, len, f);
	if (r < 0)
		return r;
	if (!rd.any_table) {
		diag_add(d, name, 0, 0, "no \"Unicast lids\" table (multicast tables, dump_lfts -M, "
					"are not read); nothing was read");
		return -EINVAL;
	}
	max = model_max_lid(sn);
	max = rd.max_lid > max ? rd.max_lid : max;
	r = route_out_rows(&res, max);
	if (r < 0)
		return r;
	memset(seen, 0, ((size_t)res.n_sw + 1) * sizeof(*seen));
	rd = (struct reader){ .sn = sn, .name = name, .d = d, .out = &res, .seen = seen,
			      .isset = isset };
	r = rd_pass(&rd, buf, len, f);
	if (r < 0)
		return r;
	for (uint32_t s = 0; s < res.n_sw; s++) {
		uint32_t node = res.sw_node[s];

		if (seen[s])
			continue;
		rd.st.missing++;
		diag_add(d, name, 0, 0, "switch 0x%016" PRIx64 " (\"%s\") of the topology has no "
					"table here; it counts as dropping every LID",
			 sn->node[node].guid, node_desc(sn, node));
	}
	res.stats.routes = rd.st.entries;
	*out = res;
	memset(&res, 0, sizeof(res));
	if (st)
		*st = rd.st;
	return 0;
}

int lft_text_read_mem(const char *buf, size_t len, const char *name, const struct subnet *sn,
		      struct route_out *out, struct lft_text_stats *st, struct diag *d)
{
	return lft_text_read(buf, len, NULL, name, sn, out, st, d);
}

int lft_text_read_file(const char *path, const struct subnet *sn, struct route_out *out,
		       struct lft_text_stats *st, struct diag *d)
{
	_cleanup_fclose_ FILE *f = fopen(path, "r");
	int r;

	if (!f) {
		r = -errno;
		diag_add(d, path, 0, 0, "cannot open: %s", strerror(-r));
		return r;
	}
	r = lft_text_read(NULL, 0, f, path, sn, out, st, d);
	if (r == -EIO)
		diag_add(d, path, 0, 0, "read error: %s", strerror(EIO));
	return r;
}
