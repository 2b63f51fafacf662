/* SPDX-License-Identifier: MIT */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"

void diag_add(struct diag *d, const char *file, unsigned line, unsigned col, const char *fmt, ...)
{
	char text[512], *m;
	va_list ap;
	int len;

	if (d->n >= DIAG_MAX)
		goto drop;
	if (d->n == d->cap) {
		unsigned cap = d->cap ? d->cap * 2 : 16;
		char **v = realloc(d->msg, cap * sizeof(*v));

		if (!v)
			goto drop;
		d->msg = v;
		d->cap = cap;
	}
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	if (col)
		len = asprintf(&m, "%s:%u:%u: %s", file, line, col, text);
	else if (line)
		len = asprintf(&m, "%s:%u: %s", file, line, text);
	else
		len = asprintf(&m, "%s: %s", file, text);
	if (len < 0)
		goto drop;
	d->msg[d->n++] = m;
	return;
drop:
	d->dropped++;
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
