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
#include "lib/diag.h"
#include "model/topo.h"
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

struct subnet *tfx_read_ok(const char *text)
{
	struct diag d = { 0 };
	struct subnet *sn = NULL;
	int r = topo_read_mem(text, strlen(text), "t.topo", &sn, &d);

	if (r != 0 || diag_count(&d))
		diag_print(&d, stderr);
	assert_int_equal(r, 0);
	assert_int_equal(diag_count(&d), 0);
	assert_non_null(sn);
	diag_free(&d);
	return sn;
}

uint32_t tfx_node(const struct subnet *sn, const char *name)
{
	uint32_t n = subnet_find_name(sn, name);

	assert_int_not_equal(n, SUBNET_NONE);
	return n;
}

const struct subnet_port *tfx_port(const struct subnet *sn, const char *name, unsigned num)
{
	uint32_t n = tfx_node(sn, name);

	assert_true(num <= sn->node[n].nports);
	return &sn->port[subnet_port_idx(sn, n, num)];
}

void tfx_assert_link(const struct subnet *sn, const char *name, unsigned num, const char *peer,
		     unsigned pnum)
{
	const struct subnet_port *p = tfx_port(sn, name, num);

	assert_int_not_equal(p->peer, SUBNET_NONE);
	assert_int_equal(p->peer, subnet_port_idx(sn, tfx_node(sn, peer), pnum));
	assert_int_equal(sn->port[p->peer].peer, p - sn->port);
}

unsigned tfx_count_links(const struct subnet *sn)
{
	unsigned n = 0;

	for (uint32_t p = 0; p < sn->n_ports; p++)
		n += sn->port[p].peer != SUBNET_NONE && sn->port[p].peer > p;
	return n;
}
