/* SPDX-License-Identifier: MIT */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"

/* Keep m (allocated) if there is room, else count it as dropped. */
static void diag_push(struct diag *d, char *m)
{
	unsigned limit = d->limit ? d->limit : DIAG_MAX;

	if (!m || d->n >= limit)
		goto drop;
	if (d->n == d->cap) {
		unsigned cap = d->cap ? d->cap * 2 : 16;
		char **v = realloc(d->msg, cap * sizeof(*v));

		if (!v)
			goto drop;
		d->msg = v;
		d->cap = cap;
	}
	d->msg[d->n++] = m;
	return;
drop:
	free(m);
	d->dropped++;
}

void diag_add(struct diag *d, const char *file, unsigned line, unsigned col, const char *fmt, ...)
{
	char text[512], *m = NULL;
	va_list ap;
	int len;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	if (col)
		len = asprintf(&m, "%s:%u:%u: %s", file, line, col, text);
	else if (line)
		len = asprintf(&m, "%s:%u: %s", file, line, text);
	else
		len = asprintf(&m, "%s: %s", file, text);
	diag_push(d, len < 0 ? NULL : m);
}

void diag_msg(struct diag *d, const char *fmt, ...)
{
	char *m = NULL;
	va_list ap;
	int len;

	va_start(ap, fmt);
	len = vasprintf(&m, fmt, ap);
	va_end(ap);
	diag_push(d, len < 0 ? NULL : m);
}

void diag_print(const struct diag *d, FILE *f)
{
	for (unsigned i = 0; i < d->n; i++)
		fprintf(f, "%s\n", d->msg[i]);
	if (d->dropped)
		fprintf(f, "(%u more problems not shown)\n", d->dropped);
}

void diag_free(struct diag *d)
{
	for (unsigned i = 0; i < d->n; i++)
		free(d->msg[i]);
	free(d->msg);
	*d = (struct diag){ 0 };
}
