/* SPDX-License-Identifier: MIT */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "lib/log.h"

static const char *log_ident = "loom";
static enum log_level log_max = LOG_LVL_INFO;
static bool log_journal;

void log_init(const char *ident, enum log_level max)
{
	log_ident = ident;
	log_max = max;
	log_journal = getenv("JOURNAL_STREAM") != NULL;
}

void log_at(enum log_level lvl, const char *fmt, ...)
{
	static const char *const tag[] = { [LOG_LVL_ERR] = "error: ", [LOG_LVL_WARN] = "warning: ",
					   [LOG_LVL_INFO] = "", [LOG_LVL_DEBUG] = "debug: " };
	va_list ap;

	if (lvl > log_max)
		return;
	/* One fprintf per part, but stderr is unbuffered: build the line first. */
	char line[1024];
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (log_journal)
		fprintf(stderr, "<%d>%s\n", lvl, line);
	else
		fprintf(stderr, "%s: %s%s\n", log_ident, tag[lvl], line);
}
