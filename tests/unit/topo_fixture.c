/* SPDX-License-Identifier: MIT */
/* What the topology reader's tests share: see topo_fixture.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "lib/cleanup.h"
#include "tests/unit/topo_fixture.h"

const char *tfx_write(struct tfx_dir *t, const char *name, const char *text)
{
	char *path = t->file[t->n++], buf[sizeof(t->file[0])];
	FILE *f;

	assert_true(t->n <= ARRAY_SIZE(t->file));
	snprintf(buf, sizeof(buf), "%s/%s", t->path, name);
	memcpy(path, buf, sizeof(buf));
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

void tfx_remove(struct tfx_dir *t)
{
	char sub[128];

	while (t->n)
		unlink(t->file[--t->n]);
	snprintf(sub, sizeof(sub), "%s/sub", t->path);
	rmdir(sub);
	rmdir(t->path);
}
