/* SPDX-License-Identifier: MIT */
/*
 * The mkey: section (IBA 14.2.4): M_Key protection of every port. Absent, loomd
 * sets no M_Keys (what it always did); present, every node gets a key derived
 * from the secret in the state dir (loomd/mkey.c), at protect and lease.
 */
#include <stdint.h>

#include "config/config_priv.h"
#include "lib/cleanup.h"

const char *const config_mkey_source_names[_CONFIG_MKEY_SOURCE_MAX] = {
	[CONFIG_MKEY_DERIVED] = "derived",
};

static struct config_mkey *mk_of(void *obj)
{
	return &((struct config *)obj)->mkey;
}

static void k_protect(struct pctx *p, const struct ynode *v, void *obj)
{
	uint64_t x;

	if (parse_uint(p, v, 0, 3, &x))
		mk_of(obj)->protect = (uint8_t)x;
}

static void k_lease(struct pctx *p, const struct ynode *v, void *obj)
{
	parse_mkey_lease(p, v, &mk_of(obj)->lease_s);
}

static void k_source(struct pctx *p, const struct ynode *v, void *obj)
{
	unsigned s;

	if (parse_word(p, v, config_mkey_source_names, _CONFIG_MKEY_SOURCE_MAX, &s))
		mk_of(obj)->source = (enum config_mkey_source)s;
}

void parse_mkey(struct pctx *p, const struct ynode *v, void *obj)
{
	static const struct pfield f[] = {
		{ "protect", k_protect },
		{ "lease", k_lease },
		{ "source", k_source },
	};

	mk_of(obj)->on = true;
	parse_map(p, v, f, ARRAY_SIZE(f), obj);
}
