/* SPDX-License-Identifier: MIT */
/* What the LID manager's tests share: see lid_fixture.h. */
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "lib/diag.h"
#include "tests/unit/lid_fixture.h"

static char tmpdir[64];

const char *lfx_tmpdir(void)
{
	return tmpdir;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	chmod(path, 0755);
	return remove(path);
}

int lfx_setup_dir(void **state)
{
	(void)state;
	strcpy(tmpdir, "/tmp/lid_test.XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

int lfx_teardown_dir(void **state)
{
	(void)state;
	chmod(tmpdir, 0755);
	return nftw(tmpdir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

char *lfx_path(const char *name)
{
	static char buf[4][256];
	static unsigned k;
	char *p = buf[k++ % 4];

	snprintf(p, 256, "%s/%s", tmpdir, name);
	return p;
}

struct lid_map *lfx_map_new(void)
{
	struct lid_map *m = NULL;

	assert_int_equal(lid_map_new(&m), 0);
	return m;
}

void lfx_expect_ent(const struct lid_map *m, uint64_t guid, uint16_t lid, uint8_t lmc)
{
	uint16_t l = 0;
	uint8_t c = 0xff;

	assert_int_equal(lid_map_get(m, guid, &l, &c), 0);
	assert_int_equal(l, lid);
	assert_int_equal(c, lmc);
}

bool lfx_bearing(const struct subnet *sn, uint32_t pi)
{
	const struct subnet_port *p = &sn->port[pi];

	if (subnet_is_switch(sn, p->node))
		return p->num == 0;
	return p->num > 0 && p->peer != SUBNET_NONE;
}

uint32_t lfx_check_lids(const struct subnet *sn, uint8_t lmc, uint32_t *missing)
{
	static uint8_t used[SUBNET_LID_UCAST_END + 1];
	uint32_t k = 0, miss = 0;

	memset(used, 0, sizeof(used));
	for (uint32_t i = 0; i < sn->n_ports; i++) {
		const struct subnet_port *p = &sn->port[i];
		uint8_t want = subnet_is_switch(sn, p->node) ? 0 : lmc;

		if (!lfx_bearing(sn, i) || !p->lid) {
			assert_int_equal(p->lid, 0);
			assert_int_equal(p->lmc, 0);
			miss += lfx_bearing(sn, i);
			continue;
		}
		assert_int_equal(p->lmc, want);
		assert_int_equal(p->lid & ((1u << want) - 1), 0);
		assert_true(p->lid + (1u << want) - 1 <= SUBNET_LID_UCAST_END);
		for (uint32_t l = p->lid; l < p->lid + (1u << want); l++) {
			assert_int_equal(used[l], 0);
			used[l] = 1;
		}
		k++;
	}
	if (missing)
		*missing = miss;
	else
		assert_int_equal(miss, 0);
	return k;
}

void lfx_zero_lids(struct subnet *sn)
{
	for (uint32_t i = 0; i < sn->n_ports; i++)
		sn->port[i].lid = sn->port[i].lmc = 0;
}

int lfx_assign(struct subnet *sn, struct lid_map *m, uint8_t lmc, struct lid_report *rep)
{
	int r;

	*rep = (struct lid_report){ .msgs.limit = LID_MAX_MSGS };
	r = lid_assign(sn, m, lmc, rep);
	if (rep->msgs.n && getenv("LID_TEST_VERBOSE"))
		diag_print(&rep->msgs, stderr);
	return r;
}
