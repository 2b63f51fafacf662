/* SPDX-License-Identifier: MIT */
/*
 * The guid2lid map and its file (OpenSM's format, see lid.h): keep it, parse
 * it line by line with every problem reported, write it atomically.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/array.h"
#include "lib/cleanup.h"
#include "lib/utf8.h"
#include "lib/strnum.h"
#include "plan/lid_priv.h"

#define NLIDS (SUBNET_LID_UCAST_END + 1)
/* A guid2lid of every unicast LID is about 2 MB; refuse what cannot be one. */
#define FILE_MAX (64u << 20)

int lid_map_new(struct lid_map **out)
{
	struct lid_map *m = calloc(1, sizeof(*m));

	if (!m)
		return -ENOMEM;
	*out = m;
	return 0;
}

void lid_map_free(struct lid_map *m)
{
	if (!m)
		return;
	free(m->e);
	itab_free(&m->by_guid);
	free(m);
}

uint32_t lid_map_count(const struct lid_map *m)
{
	return m->n;
}

const struct lid_ent *lid_map_entries(const struct lid_map *m)
{
	return m->e;
}

static uint64_t ent_hash(uint32_t idx, const void *ctx)
{
	const struct lid_map *m = ctx;

	return itab_hash_u64(m->e[idx].guid);
}

static bool ent_eq(uint32_t idx, const void *key, const void *ctx)
{
	const struct lid_map *m = ctx;

	return m->e[idx].guid == *(const uint64_t *)key;
}

uint32_t lid_map_find(const struct lid_map *m, uint64_t guid)
{
	return itab_find(&m->by_guid, itab_hash_u64(guid), &guid, ent_eq, m);
}

int lid_map_get(const struct lid_map *m, uint64_t guid, uint16_t *lid, uint8_t *lmc)
{
	uint32_t i = lid_map_find(m, guid);

	if (i == ITAB_EMPTY)
		return -ENOENT;
	*lid = m->e[i].lid;
	*lmc = m->e[i].lmc;
	return 0;
}

int lid_map_replace(struct lid_map *m, struct lid_ent *e, uint32_t n)
{
	struct lid_map tmp = { .e = e, .n = n, .cap = n };

	for (uint32_t i = 0; i < n; i++)
		if (itab_insert(&tmp.by_guid, itab_hash_u64(e[i].guid), i, ent_hash, &tmp) < 0) {
			itab_free(&tmp.by_guid);
			free(e);
			return -ENOMEM;
		}
	free(m->e);
	itab_free(&m->by_guid);
	*m = tmp;
	return 0;
}

static int map_add(struct lid_map *m, const struct lid_ent *ent)
{
	if (array_grow((void **)&m->e, &m->cap, m->n + 1, sizeof(*m->e)) < 0)
		return -ENOMEM;
	m->e[m->n] = *ent;
	if (itab_insert(&m->by_guid, itab_hash_u64(ent->guid), m->n, ent_hash, m) < 0)
		return -ENOMEM;
	m->n++;
	return 0;
}

/* ---- the parser ------------------------------------------------------- */

struct tok {
	const char *p;
	size_t n;
};

struct load {
	struct lid_map *m;
	const char *name;
	struct diag *msgs;
	uint32_t *owner;   /* owner[lid]: entry index + 1, 0 if free */
	uint32_t old_n;    /* entries in m before this file */
	unsigned line;
};

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* The next word of [*p, end); false at the end or at a '#' (the rest is a comment). */
static bool next_tok(const char **p, const char *end, struct tok *t)
{
	const char *s = *p;

	while (s < end && is_blank(*s))
		s++;
	if (s == end || *s == '#') {
		*p = end;
		return false;
	}
	t->p = s;
	while (s < end && !is_blank(*s))
		s++;
	t->n = (size_t)(s - t->p);
	*p = s;
	return true;
}

/* "0x" and hex digits that fit 64 bits (leading zeros allowed). */
static bool tok_hex(const struct tok *t, uint64_t *v)
{
	uint64_t x = 0;

	if (t->n < 3 || t->p[0] != '0' || (t->p[1] != 'x' && t->p[1] != 'X'))
		return false;
	for (size_t i = 2; i < t->n; i++) {
		unsigned d = strnum_digit(t->p[i]);

		if (d >= 16 || x >> 60)
			return false;
		x = x << 4 | (uint64_t)d;
	}
	*v = x;
	return true;
}

/*
 * A word as it may be quoted in a message: short, and printable by
 * lib/utf8.h's rule (any other byte, and a quote, a '?').
 */
static const char *tok_show(const struct tok *t, char *buf, size_t size)
{
	size_t i = 0, o = 0;

	while (i < t->n) {
		uint32_t cp;
		unsigned k = utf8_next((const unsigned char *)t->p, t->n, i, &cp);
		bool show = k && utf8_printable(cp) && t->p[i] != '"';

		if (!show)
			k = 1; /* one byte shown as one '?' */
		if (o + k + 4 > size) /* room for it and "..." */
			break;
		if (show) {
			memcpy(buf + o, t->p + i, k);
			o += k;
		} else {
			buf[o++] = '?';
		}
		i += k;
	}
	strcpy(buf + o, i < t->n ? "..." : "");
	return buf;
}

static void bad(struct load *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void bad(struct load *x, const char *fmt, ...)
{
	char text[400];
	va_list ap;

	if (!x->msgs)
		return;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	diag_add(x->msgs, x->name, x->line, 0, "%s; line skipped", text);
}

/* One LID field: "0x" and hex digits, within 0x0001-0xbfff. */
static bool lid_field(struct load *x, const char **p, const char *end, const char *what,
		      uint64_t *v)
{
	char show[40];
	struct tok t;

	if (!next_tok(p, end, &t)) {
		bad(x, "missing the %s LID (expected: 0xPORTGUID 0xMINLID 0xMAXLID)", what);
		return false;
	}
	if (!tok_hex(&t, v)) {
		bad(x, "bad %s LID \"%s\" (expected 0x and hex digits)", what,
		    tok_show(&t, show, sizeof(show)));
		return false;
	}
	if (*v < 1 || *v > SUBNET_LID_UCAST_END) {
		bad(x, "%s LID \"%s\" is not a unicast LID (0x0001-0xbfff)", what,
		    tok_show(&t, show, sizeof(show)));
		return false;
	}
	return true;
}

/* Syntax and the checks one line can fail alone; fills *e. */
static bool parse_fields(struct load *x, const char *p, const char *end, struct lid_ent *e)
{
	uint64_t guid, lo, hi, n;
	char show[40];
	struct tok t;

	if (!next_tok(&p, end, &t))
		return false; /* blank or comment */
	if (!tok_hex(&t, &guid)) {
		bad(x, "bad port GUID \"%s\" (expected 0x and up to 16 hex digits)",
		    tok_show(&t, show, sizeof(show)));
		return false;
	}
	if (!guid) {
		bad(x, "port GUID 0 names no port");
		return false;
	}
	if (!lid_field(x, &p, end, "min", &lo) || !lid_field(x, &p, end, "max", &hi))
		return false;
	if (next_tok(&p, end, &t)) {
		bad(x, "unexpected \"%s\" after the max LID", tok_show(&t, show, sizeof(show)));
		return false;
	}
	if (lo > hi) {
		bad(x, "min LID 0x%04" PRIx64 " is above max LID 0x%04" PRIx64, lo, hi);
		return false;
	}
	n = hi - lo + 1;
	if (n & (n - 1) || n > 1u << LID_LMC_MAX) {
		bad(x, "LIDs 0x%04" PRIx64 "-0x%04" PRIx64 " are %" PRIu64 "; a port has 2^LMC "
		    "(1, 2, 4, ... 128)", lo, hi, n);
		return false;
	}
	if (lo & (n - 1)) {
		bad(x, "LIDs 0x%04" PRIx64 "-0x%04" PRIx64 " are not aligned: with %" PRIu64
		    " LIDs the min LID must be a multiple of %" PRIu64, lo, hi, n, n);
		return false;
	}
	*e = (struct lid_ent){ .guid = guid, .line = x->line, .lid = (uint16_t)lo,
			       .lmc = (uint8_t)__builtin_ctzll(n) };
	return true;
}

/* Where an earlier entry came from, for a message about a clash with it. */
static const char *ent_where(const struct load *x, uint32_t i, char *buf, size_t size)
{
	if (i >= x->old_n)
		snprintf(buf, size, "on line %u", x->m->e[i].line);
	else
		snprintf(buf, size, "in the map");
	return buf;
}

static int parse_line(struct load *x, const char *p, const char *end)
{
	struct lid_ent e;
	uint32_t i, top;
	char where[40];

	if (!parse_fields(x, p, end, &e))
		return 0;
	top = e.lid + (1u << e.lmc) - 1;
	i = lid_map_find(x->m, e.guid);
	if (i != ITAB_EMPTY) {
		bad(x, "port GUID 0x%016" PRIx64 " already has LIDs %s", e.guid,
		    ent_where(x, i, where, sizeof(where)));
		return 0;
	}
	for (uint32_t l = e.lid; l <= top; l++) {
		if (!x->owner[l])
			continue;
		i = x->owner[l] - 1;
		bad(x, "LIDs 0x%04x-0x%04x overlap 0x%04x-0x%04x of port GUID 0x%016" PRIx64
		    " %s", e.lid, top, x->m->e[i].lid, x->m->e[i].lid + (1u << x->m->e[i].lmc) - 1,
		    x->m->e[i].guid, ent_where(x, i, where, sizeof(where)));
		return 0;
	}
	if (map_add(x->m, &e) < 0)
		return -ENOMEM;
	for (uint32_t l = e.lid; l <= top; l++)
		x->owner[l] = x->m->n;
	return 0;
}

int lid_map_load_mem(struct lid_map *m, const char *buf, size_t len, const char *name,
		     struct diag *msgs)
{
	_cleanup_free_ uint32_t *owner = calloc(NLIDS, sizeof(*owner));
	struct load x = { .m = m, .name = name, .msgs = msgs, .owner = owner, .old_n = m->n };
	const char *p = buf, *end = buf + len;

	if (!owner)
		return -ENOMEM;
	for (uint32_t i = 0; i < m->n; i++)
		for (uint32_t l = m->e[i].lid; l < m->e[i].lid + (1u << m->e[i].lmc); l++)
			owner[l] = i + 1;
	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		int r;

		if (!eol)
			eol = end;
		x.line++;
		r = parse_line(&x, p, eol);
		if (r < 0)
			return r;
		p = eol + 1;
	}
	return 0;
}

/* The whole file in *buf; 1 if it does not exist. */
static int read_all(const char *path, char **buf, size_t *len)
{
	_cleanup_free_ char *b = NULL;
	size_t n = 0, cap = 0;
	struct stat st;
	int fd, r = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 1 : -errno;
	if (fstat(fd, &st) < 0) {
		r = -errno;
		goto out;
	}
	if (S_ISDIR(st.st_mode)) {
		r = -EISDIR;
		goto out;
	}
	for (;;) {
		ssize_t got;

		if (n == cap) {
			char *nb;

			cap = cap ? cap * 2 : 65536;
			if (cap > FILE_MAX) {
				r = -EFBIG;
				goto out;
			}
			nb = realloc(b, cap);
			if (!nb) {
				r = -ENOMEM;
				goto out;
			}
			b = nb;
		}
		got = read(fd, b + n, cap - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			r = -errno;
			goto out;
		}
		if (got == 0)
			break;
		n += (size_t)got;
	}
	*buf = TAKE_PTR(b);
	*len = n;
out:
	close(fd);
	return r;
}

int lid_map_load(struct lid_map *m, const char *path, struct diag *msgs)
{
	_cleanup_free_ char *buf = NULL;
	size_t len = 0;
	int r;

	r = read_all(path, &buf, &len);
	if (r == 1)
		return 0;
	if (r < 0) {
		if (msgs)
			diag_add(msgs, path, 0, 0, "cannot read the guid-to-LID map: %s",
				 strerror(-r));
		return r;
	}
	return lid_map_load_mem(m, buf, len, path, msgs);
}

/* ---- the writer ------------------------------------------------------- */

static int cmp_guid(const void *a, const void *b)
{
	const struct lid_ent *x = a, *y = b;

	return x->guid < y->guid ? -1 : x->guid > y->guid;
}

int lid_map_write(const struct lid_map *m, FILE *f)
{
	_cleanup_free_ struct lid_ent *e = malloc((m->n ? m->n : 1) * sizeof(*e));

	if (!e)
		return -ENOMEM;
	memcpy(e, m->e, m->n * sizeof(*e));
	qsort(e, m->n, sizeof(*e), cmp_guid);
	/* A blank line after each entry: OpenSM's reader ends a value there. */
	fprintf(f, "# loom guid2lid map: port GUID, min LID, max LID (OpenSM's format)\n\n");
	for (uint32_t i = 0; i < m->n; i++)
		fprintf(f, "0x%016" PRIx64 " 0x%04x 0x%04x\n\n", e[i].guid, e[i].lid,
			e[i].lid + (1u << e[i].lmc) - 1);
	if (fflush(f) != 0 || ferror(f))
		return errno ? -errno : -EIO;
	return 0;
}

static int fsync_dir(const char *path)
{
	_cleanup_free_ char *dir = strdup(path);
	char *slash;
	int fd, r = 0;

	if (!dir)
		return -ENOMEM;
	slash = strrchr(dir, '/');
	if (!slash)
		strcpy(dir, ".");
	else
		slash[slash == dir] = '\0'; /* "/x" -> "/" */
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fsync(fd) < 0)
		r = -errno;
	close(fd);
	return r;
}

/* Write and sync the temporary file; the caller removes it on failure. */
static int write_tmp(const struct lid_map *m, int fd)
{
	FILE *f = NULL;
	int r;

	if (fchmod(fd, 0644) == 0)
		f = fdopen(fd, "w");
	if (!f) {
		r = -errno;
		close(fd);
		return r;
	}
	errno = 0;
	r = lid_map_write(m, f);
	if (r == 0 && fsync(fd) < 0)
		r = -errno;
	if (fclose(f) != 0 && r == 0)
		r = errno ? -errno : -EIO;
	return r;
}

int lid_map_save(const struct lid_map *m, const char *path)
{
	_cleanup_free_ char *tmp = malloc(strlen(path) + 8);
	int fd, r;

	if (!tmp)
		return -ENOMEM;
	strcpy(tmp, path);
	strcat(tmp, ".XXXXXX");
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = write_tmp(m, fd); /* closes fd */
	if (r == 0 && rename(tmp, path) < 0)
		r = -errno;
	if (r < 0) {
		unlink(tmp);
		return r;
	}
	/* The new file is in place; a failure here means it may not survive a crash. */
	return fsync_dir(path);
}
