/* SPDX-License-Identifier: MIT */
/*
 * ibqueryerrors' threshold file (its --threshold-file, and the suggestion
 * infiniband-diags installs as /etc/infiniband-diags/error_thresholds): one
 * "CounterName=value" a line, '#' comments, blank lines. Existing setups
 * carry over to loom health unchanged. Every problem is reported as
 * FILE:LINE: message, and a file with any problem changes nothing.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cleanup.h"
#include "fabric/health.h"

#define THRESH_FILE_MAX (1u << 20)

static char *trim(char *s, char *end)
{
	while (s < end && isspace((unsigned char)*s))
		s++;
	while (end > s && isspace((unsigned char)end[-1]))
		end--;
	*end = '\0';
	return s;
}

static int counter_of(const char *name)
{
	for (unsigned c = 0; c < _PMA_COUNTER_MAX; c++)
		if (!strcmp(name, pma_counter_name(c)))
			return (int)c;
	return -1;
}

/* One line (NUL-terminated, no newline); 0 if fine or empty, -EINVAL recorded in d. */
static int parse_line(char *line, const char *name, unsigned no, uint32_t t[_PMA_COUNTER_MAX],
		      struct diag *d)
{
	char *hash = strchr(line, '#'), *eq, *key, *val, *end;
	unsigned long long v;
	int c;

	if (hash)
		*hash = '\0';
	key = trim(line, line + strlen(line));
	if (!*key)
		return 0;
	eq = strchr(key, '=');
	if (!eq) {
		diag_add(d, name, no, 0, "'%s': expected CounterName=value", key);
		return -EINVAL;
	}
	val = trim(eq + 1, eq + 1 + strlen(eq + 1));
	key = trim(key, eq);
	c = counter_of(key);
	if (c < 0) {
		diag_add(d, name, no, 0, "unknown counter '%s' (allowed: the PortCounters names "
			 "perfquery prints, e.g. SymbolErrorCounter, PortXmitWait)", key);
		return -EINVAL;
	}
	errno = 0;
	v = strtoull(val, &end, 0);
	if (errno || end == val || *end || val[0] == '-' || v > UINT32_MAX) {
		diag_add(d, name, no, 0, "%s: bad value '%s' (allowed: 0 to 4294967295)", key, val);
		return -EINVAL;
	}
	t[c] = (uint32_t)v;
	return 0;
}

int health_thresholds_read_mem(const char *buf, size_t len, const char *name,
			       uint32_t t[_PMA_COUNTER_MAX], struct diag *d)
{
	_cleanup_free_ char *copy = malloc(len + 1);
	uint32_t out[_PMA_COUNTER_MAX];
	char *p, *nl;
	unsigned no = 0;
	int r = 0;

	if (!copy)
		return -ENOMEM;
	memcpy(copy, buf, len);
	copy[len] = '\0';
	if (memchr(buf, '\0', len)) {
		diag_add(d, name, 1, 0, "a NUL byte: not a text file");
		return -EINVAL;
	}
	memcpy(out, t, sizeof(out));
	for (p = copy; p; p = nl ? nl + 1 : NULL) {
		nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		no++;
		if (parse_line(p, name, no, out, d) < 0)
			r = -EINVAL;
		if (!nl)
			break;
	}
	if (r == 0)
		memcpy(t, out, sizeof(out));
	return r;
}

int health_thresholds_read_file(const char *path, uint32_t t[_PMA_COUNTER_MAX], struct diag *d)
{
	_cleanup_free_ char *buf = NULL;
	FILE *f = fopen(path, "re");
	size_t n = 0;
	int r = 0;

	if (!f) {
		r = -errno;
		diag_add(d, path, 0, 0, "cannot open: %s", strerror(-r));
		return r;
	}
	buf = malloc(THRESH_FILE_MAX + 1);
	if (!buf) {
		fclose(f);
		return -ENOMEM;
	}
	n = fread(buf, 1, THRESH_FILE_MAX + 1, f);
	if (ferror(f))
		r = -EIO;
	fclose(f);
	if (r == 0 && n > THRESH_FILE_MAX)
		r = -EFBIG;
	if (r < 0) {
		diag_add(d, path, 0, 0, "cannot read: %s", strerror(-r));
		return r;
	}
	return health_thresholds_read_mem(buf, n, path, t, d);
}
