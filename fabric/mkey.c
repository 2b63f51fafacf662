/* SPDX-License-Identifier: MIT */
/* M_Keys by route: the derivation and the table of routes -> node GUIDs (mkey.h). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fabric/mkey.h"
#include "lib/cleanup.h"
#include "lib/sha256.h"

struct mkey_route {
	uint64_t guid; /* 0: empty slot */
	uint8_t hops;
	uint8_t path[SMP_MAX_HOPS + 1];
};

uint64_t mkey_derive(const uint8_t secret[MKEY_SECRET_LEN], uint64_t guid)
{
	uint8_t g[8], d[SHA256_LEN];
	uint64_t k = 0;

	for (unsigned i = 0; i < 8; i++)
		g[i] = (uint8_t)(guid >> (56 - 8 * i));
	hmac_sha256(secret, MKEY_SECRET_LEN, g, sizeof(g), d);
	for (unsigned i = 0; i < 8; i++)
		k = k << 8 | d[i];
	/* Key 0 means "no key" to a port: a derivation that gives 0 takes 1 instead. */
	return k ? k : 1;
}

void mkey_init(struct mkey *m, const uint8_t secret[MKEY_SECRET_LEN], uint8_t protect,
	       uint16_t lease_s)
{
	*m = (struct mkey){ .protect = protect, .lease_s = lease_s };
	memcpy(m->secret, secret, MKEY_SECRET_LEN);
}

void mkey_free(struct mkey *m)
{
	free(m->slot);
	free(m->link);
	m->link = NULL;
	m->n_links = m->cap_links = 0;
	explicit_bzero(m->secret, sizeof(m->secret));
	m->slot = NULL;
	m->n = m->cap = 0;
}

static uint32_t route_hash(uint8_t hops, const uint8_t *path)
{
	uint32_t h = 2166136261u ^ hops; /* FNV-1a */

	for (unsigned i = 1; i <= hops; i++)
		h = (h ^ path[i]) * 16777619u;
	return h;
}

static struct mkey_route *find(const struct mkey *m, uint8_t hops, const uint8_t *path)
{
	if (!m->cap)
		return NULL;
	for (uint32_t i = route_hash(hops, path) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
		struct mkey_route *s = &m->slot[i];

		if (!s->guid || (s->hops == hops && !memcmp(s->path + 1, path + 1, hops)))
			return s;
	}
}

uint64_t mkey_route_guid(const struct mkey *m, uint8_t hops, const uint8_t *path)
{
	const struct mkey_route *s;
	uint64_t g = mkey_links_walk(m, hops, path);

	if (g)
		return g;
	s = find(m, hops, path);
	return s ? s->guid : 0;
}

uint64_t mkey_for_req(const struct mkey *m, const struct smp_req *r)
{
	uint64_t g = mkey_route_guid(m, r->hops, r->path);

	return g ? mkey_derive(m->secret, g) : 0;
}

static int grow(struct mkey *m)
{
	struct mkey_route *old = m->slot;
	uint32_t ocap = m->cap, cap = ocap ? 2 * ocap : 64;

	m->slot = calloc(cap, sizeof(*m->slot));
	if (!m->slot) {
		m->slot = old;
		return -ENOMEM;
	}
	m->cap = cap;
	for (uint32_t i = 0; i < ocap; i++)
		if (old[i].guid)
			*find(m, old[i].hops, old[i].path) = old[i];
	free(old);
	return 0;
}

int mkey_remember(struct mkey *m, uint8_t hops, const uint8_t *path, uint64_t guid)
{
	struct mkey_route *s;

	if (!guid || hops > SMP_MAX_HOPS)
		return 0;
	if ((m->n + 1) * 2 > m->cap && grow(m) < 0)
		return -ENOMEM;
	s = find(m, hops, path);
	if (s->guid == guid)
		return 0;
	if (!s->guid)
		m->n++;
	s->guid = guid;
	s->hops = hops;
	memset(s->path, 0, sizeof(s->path));
	memcpy(s->path + 1, path + 1, hops);
	m->dirty = true;
	return 0;
}

int mkey_learn(struct mkey *m, const struct subnet *sn, const struct disc_live *live)
{
	for (uint32_t n = 0; n < sn->n_nodes; n++) {
		const struct disc_node *ln = &live->node[n];
		const struct subnet_node *nd = &sn->node[n];
		uint8_t path[SMP_MAX_HOPS + 1];

		if (mkey_remember(m, ln->hops, ln->path, nd->guid) < 0)
			return -ENOMEM;
		if (ln->hops >= SMP_MAX_HOPS)
			continue;
		memcpy(path, ln->path, sizeof(path));
		for (uint8_t pn = 1; pn <= nd->nports; pn++) {
			const struct subnet_port *p = &sn->port[nd->port_base + pn];

			/* SMPs cross a switch, or leave by the SM's own port; not another CA. */
			if (p->peer == SUBNET_NONE ||
			    (!subnet_is_switch(sn, n) && !(n == 0 && pn == live->local_port)))
				continue;
			path[ln->hops + 1] = pn;
			if (mkey_remember(m, (uint8_t)(ln->hops + 1), path,
					  sn->node[sn->port[p->peer].node].guid) < 0)
				return -ENOMEM;
		}
	}
	return mkey_links_learn(m, sn);
}

static void print_paths(const struct mkey *m, FILE *f)
{
	fprintf(f, "# loomd: the node GUID each directed route reached (for M_Keys)\n");
	for (uint32_t i = 0; i < m->cap; i++) {
		const struct mkey_route *s = &m->slot[i];

		if (!s->guid)
			continue;
		fprintf(f, "0x%016" PRIx64 " %u", s->guid, s->hops);
		for (unsigned h = 1; h <= s->hops; h++)
			fprintf(f, "%c%u", h == 1 ? ' ' : ',', s->path[h]);
		fputc('\n', f);
	}
}

int mkey_paths_save(struct mkey *m, const char *file)
{
	int r = mkey_file_write(file, print_paths, m);

	if (r == 0)
		m->dirty = false;
	return r;
}

static int parse_line(struct mkey *m, char *line)
{
	uint8_t path[SMP_MAX_HOPS + 1] = { 0 };
	unsigned long long guid;
	unsigned hops, h = 0;
	char *p = line, *e;

	if (*p == '#' || *p == '\n' || !*p)
		return 0;
	errno = 0;
	guid = strtoull(p, &e, 16);
	if (e == p || errno || *e != ' ')
		return -EPROTO;
	p = e + 1;
	hops = (unsigned)strtoul(p, &e, 10);
	if (e == p || hops > SMP_MAX_HOPS)
		return -EPROTO;
	p = e;
	while (h < hops) {
		unsigned long v;

		if (*p != (h ? ',' : ' '))
			return -EPROTO;
		v = strtoul(++p, &e, 10);
		if (e == p || v > 255)
			return -EPROTO;
		path[++h] = (uint8_t)v;
		p = e;
	}
	if (*p != '\n' && *p)
		return -EPROTO;
	return mkey_remember(m, (uint8_t)hops, path, guid);
}

int mkey_paths_load(struct mkey *m, const char *file)
{
	FILE *f = fopen(file, "re");
	char line[512];
	int r = 0;

	if (!f)
		return errno == ENOENT ? 0 : -errno;
	while (r == 0 && fgets(line, sizeof(line), f))
		r = parse_line(m, line);
	fclose(f);
	m->dirty = false;
	return r;
}
