/* SPDX-License-Identifier: MIT */
/*
 * M_Keys wherever the SM is attached (mkey.h): the links table, (node GUID,
 * port) -> the node GUID at its other end, and the walk of a directed
 * route through it from this SM's own node. Unlike the route table it does
 * not depend on where the SM is, so a standby can use the master's.
 */
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

struct mkey_link {
	uint64_t guid; /* 0: empty slot */
	uint64_t peer;
	uint8_t port;
};

static uint32_t link_hash(uint64_t guid, uint8_t port)
{
	uint64_t h = (guid ^ port) * 0x9e3779b97f4a7c15ULL;

	return (uint32_t)(h >> 32);
}

static struct mkey_link *link_find(const struct mkey *m, uint64_t guid, uint8_t port)
{
	if (!m->cap_links)
		return NULL;
	for (uint32_t i = link_hash(guid, port) & (m->cap_links - 1);;
	     i = (i + 1) & (m->cap_links - 1)) {
		struct mkey_link *s = &m->link[i];

		if (!s->guid || (s->guid == guid && s->port == port))
			return s;
	}
}

uint64_t mkey_link_peer(const struct mkey *m, uint64_t guid, uint8_t port)
{
	const struct mkey_link *s = link_find(m, guid, port);

	return s ? s->peer : 0;
}

static int link_grow(struct mkey *m)
{
	struct mkey_link *old = m->link;
	uint32_t ocap = m->cap_links, cap = ocap ? 2 * ocap : 64;

	m->link = calloc(cap, sizeof(*m->link));
	if (!m->link) {
		m->link = old;
		return -ENOMEM;
	}
	m->cap_links = cap;
	for (uint32_t i = 0; i < ocap; i++)
		if (old[i].guid)
			*link_find(m, old[i].guid, old[i].port) = old[i];
	free(old);
	return 0;
}

int mkey_link_remember(struct mkey *m, uint64_t guid, uint8_t port, uint64_t peer)
{
	struct mkey_link *s;

	if (!guid || !peer)
		return 0;
	if ((m->n_links + 1) * 2 > m->cap_links && link_grow(m) < 0)
		return -ENOMEM;
	s = link_find(m, guid, port);
	if (s->guid && s->peer == peer)
		return 0;
	if (!s->guid)
		m->n_links++;
	*s = (struct mkey_link){ .guid = guid, .port = port, .peer = peer };
	m->links_dirty = true;
	return 0;
}

uint64_t mkey_links_walk(const struct mkey *m, uint8_t hops, const uint8_t *path)
{
	uint64_t g = m->self;

	/* IBA 14.2.2: hop 0 is the local node; hop i leaves hop i-1's node by path[i]. */
	for (unsigned h = 1; g && h <= hops && h <= SMP_MAX_HOPS; h++)
		g = mkey_link_peer(m, g, path[h]);
	return g;
}

int mkey_links_learn(struct mkey *m, const struct subnet *sn)
{
	for (uint32_t n = 0; n < sn->n_nodes; n++) {
		const struct subnet_node *nd = &sn->node[n];

		for (uint8_t pn = 1; pn <= nd->nports; pn++) {
			const struct subnet_port *p = &sn->port[nd->port_base + pn];

			if (p->peer != SUBNET_NONE &&
			    mkey_link_remember(m, nd->guid, pn,
					       sn->node[sn->port[p->peer].node].guid) < 0)
				return -ENOMEM;
		}
	}
	return 0;
}

static void print_links(const struct mkey *m, FILE *f)
{
	fprintf(f, "# loomd: node GUID, port, the node GUID at its other end (for M_Keys)\n");
	for (uint32_t i = 0; i < m->cap_links; i++) {
		const struct mkey_link *s = &m->link[i];

		if (s->guid)
			fprintf(f, "0x%016" PRIx64 " %u 0x%016" PRIx64 "\n", s->guid, s->port,
				s->peer);
	}
}

int mkey_links_save(struct mkey *m, const char *file)
{
	int r = mkey_file_write(file, print_links, m);

	if (r == 0)
		m->links_dirty = false;
	return r;
}

static int parse_link(struct mkey *m, const char *line)
{
	unsigned long long guid, peer;
	unsigned long port;
	char *e;

	if (*line == '#' || *line == '\n' || !*line)
		return 0;
	errno = 0;
	guid = strtoull(line, &e, 16);
	if (e == line || errno || *e != ' ')
		return -EPROTO;
	line = e + 1;
	port = strtoul(line, &e, 10);
	if (e == line || port > 255 || *e != ' ')
		return -EPROTO;
	line = e + 1;
	peer = strtoull(line, &e, 16);
	if (e == line || errno || (*e != '\n' && *e))
		return -EPROTO;
	return mkey_link_remember(m, guid, (uint8_t)port, peer);
}

int mkey_links_load(struct mkey *m, const char *file)
{
	FILE *f = fopen(file, "re");
	char line[128];
	int r = 0;

	if (!f)
		return errno == ENOENT ? 0 : -errno;
	while (r == 0 && fgets(line, sizeof(line), f))
		r = parse_link(m, line);
	fclose(f);
	m->links_dirty = false;
	return r;
}

int mkey_file_write(const char *file, void (*print)(const struct mkey *m, FILE *f),
		    const struct mkey *m)
{
	_cleanup_free_ char *tmp = malloc(strlen(file) + 8);
	FILE *f = NULL;
	int fd, r = 0;

	if (!tmp)
		return -ENOMEM;
	strcpy(tmp, file);
	strcat(tmp, ".XXXXXX");
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fchmod(fd, 0644) == 0)
		f = fdopen(fd, "w");
	if (!f) {
		r = -errno;
		close(fd);
		unlink(tmp);
		return r;
	}
	print(m, f);
	if (fflush(f) == EOF || fsync(fd) < 0)
		r = -errno;
	if (fclose(f) != 0 && r == 0)
		r = errno ? -errno : -EIO;
	if (r == 0 && rename(tmp, file) < 0)
		r = -errno;
	if (r < 0) {
		unlink(tmp);
		return r;
	}
	return mkey_dir_sync(file);
}
