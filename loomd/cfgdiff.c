/* SPDX-License-Identifier: MIT */
/*
 * What a reload changes, for `loom reload` to show: both configurations
 * printed normalised (config_print: every effective value, spelt one way,
 * so only a real change differs), then a line diff of the two texts. Each
 * hunk comes after the lines that hold it (its YAML parents, from the new
 * text), so "+  priority: 5" reads under " sm:".
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cleanup.h"
#include "loomd/cfgdiff.h"

/* Past this many cells the middle is shown as all removed, then all added: still true. */
#define LCS_CELLS (1u << 20)

struct text {
	char *buf;
	char **line;
	size_t n;
};

static void text_free(struct text *t)
{
	free(t->buf);
	free(t->line);
}

static int text_of(const struct config *c, struct text *t)
{
	size_t size = 0, cap = 0;
	FILE *f = open_memstream(&t->buf, &size);
	int r;

	if (!f)
		return -ENOMEM;
	r = config_print(c, f);
	if (fclose(f) != 0 || r < 0)
		return r < 0 ? r : -ENOMEM;
	for (char *p = t->buf, *nl; *p; p = nl + 1) {
		if (t->n == cap) {
			char **l = realloc(t->line, (cap = cap ? 2 * cap : 64) * sizeof(*l));

			if (!l)
				return -ENOMEM;
			t->line = l;
		}
		t->line[t->n++] = p;
		nl = strchr(p, '\n');
		if (!nl)
			break;
		*nl = '\0';
	}
	return 0;
}

static size_t indent(const char *s)
{
	return strspn(s, " ");
}

/* The lines of b above line j that hold it: each less indented than the one below it. */
static void parents(FILE *out, const struct text *b, size_t j, const char *first)
{
	const char *up[32];
	size_t n = 0, ind = indent(first);

	for (size_t k = j; k-- > 0 && ind > 0 && n < 32;) {
		if (indent(b->line[k]) < ind) {
			up[n++] = b->line[k];
			ind = indent(b->line[k]);
		}
	}
	while (n--)
		fprintf(out, " %s\n", up[n]);
}

/*
 * The middle that differs (a[0..na), b[0..nb), common ends trimmed) as
 * hunks. lcs[i][j] is the longest common subsequence of a[i..] and b[j..];
 * NULL when too large: then every line is a change.
 */
static unsigned hunks(FILE *out, const struct text *a, size_t a0, size_t na, const struct text *b,
		      size_t b0, size_t nb, const uint32_t *lcs)
{
	size_t i = 0, j = 0, w = nb + 1;
	unsigned changed = 0;
	bool in_hunk = false;

	while (i < na || j < nb) {
		bool same = i < na && j < nb && !strcmp(a->line[a0 + i], b->line[b0 + j]);
		bool del = !same && i < na && (j == nb || !lcs ||
					       lcs[(i + 1) * w + j] >= lcs[i * w + j + 1]);

		if (same) {
			in_hunk = false;
			i++, j++;
			continue;
		}
		if (!in_hunk)
			parents(out, b, b0 + j, del ? a->line[a0 + i] : b->line[b0 + j]);
		in_hunk = true;
		changed++;
		if (del)
			fprintf(out, "-%s\n", a->line[a0 + i++]);
		else
			fprintf(out, "+%s\n", b->line[b0 + j++]);
	}
	return changed;
}

int cfgdiff_print(const struct config *old, const struct config *new, FILE *out)
{
	struct text a = { 0 }, b = { 0 };
	_cleanup_free_ uint32_t *lcs = NULL;
	size_t pre = 0, suf = 0, na, nb, w;
	int r;

	r = text_of(old, &a);
	if (r == 0)
		r = text_of(new, &b);
	if (r < 0)
		goto out;
	while (pre < a.n && pre < b.n && !strcmp(a.line[pre], b.line[pre]))
		pre++;
	while (suf < a.n - pre && suf < b.n - pre &&
	       !strcmp(a.line[a.n - 1 - suf], b.line[b.n - 1 - suf]))
		suf++;
	na = a.n - pre - suf;
	nb = b.n - pre - suf;
	w = nb + 1;
	if (na && nb && (na + 1) * w <= LCS_CELLS) {
		lcs = calloc((na + 1) * w, sizeof(*lcs));
		if (!lcs) {
			r = -ENOMEM;
			goto out;
		}
		for (size_t i = na; i-- > 0;)
			for (size_t j = nb; j-- > 0;)
				lcs[i * w + j] = !strcmp(a.line[pre + i], b.line[pre + j]) ?
					lcs[(i + 1) * w + j + 1] + 1 :
					lcs[(i + 1) * w + j] > lcs[i * w + j + 1] ?
					lcs[(i + 1) * w + j] : lcs[i * w + j + 1];
	}
	r = (int)hunks(out, &a, pre, na, &b, pre, nb, lcs);
	if (ferror(out))
		r = -EIO;
out:
	text_free(&a);
	text_free(&b);
	return r;
}
