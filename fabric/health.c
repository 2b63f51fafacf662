/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/health.h"

static const char *const group_name[_HEALTH_GROUP_MAX] = {
	[HEALTH_LINKS] = "links",
	[HEALTH_SM] = "sm",
	[HEALTH_COUNTERS] = "counters",
	[HEALTH_ROUTES] = "routes",
	[HEALTH_DRIFT] = "drift",
};

static const char *const sev_name[_HEALTH_SEV_MAX] = {
	[HEALTH_ERROR] = "error",
	[HEALTH_WARNING] = "warning",
};

const char *health_group_name(enum health_group g)
{
	return g < _HEALTH_GROUP_MAX ? group_name[g] : "?";
}

const char *health_severity_name(enum health_severity s)
{
	return s < _HEALTH_SEV_MAX ? sev_name[s] : "?";
}

int health_groups_parse(const char *s, unsigned *mask)
{
	unsigned m = 0;
	const char *p = s;

	while (*p) {
		size_t len = strcspn(p, ",");
		unsigned g;

		for (g = 0; g < _HEALTH_GROUP_MAX; g++)
			if (strlen(group_name[g]) == len && !strncmp(p, group_name[g], len))
				break;
		if (g == _HEALTH_GROUP_MAX)
			return -EINVAL;
		m |= 1u << g;
		p += len;
		if (*p == ',')
			p++;
	}
	if (!m)
		return -EINVAL;
	*mask = m;
	return 0;
}

void health_add(struct health_findings *fs, enum health_group g, enum health_severity s,
		const struct subnet *sn, uint32_t node, uint8_t port, const char *what,
		const char *measured, const char *expected, const char *detail)
{
	struct health_finding *f;

	if (fs->n == fs->cap) {
		uint32_t cap = fs->cap ? fs->cap * 2 : 16;
		struct health_finding *p = realloc(fs->f, cap * sizeof(*p));

		if (!p) {
			fs->err = -ENOMEM;
			return;
		}
		fs->f = p;
		fs->cap = cap;
	}
	f = &fs->f[fs->n++];
	memset(f, 0, sizeof(*f));
	f->group = (uint8_t)g;
	f->severity = (uint8_t)s;
	f->node = node;
	f->port = port;
	f->guid = node != SUBNET_NONE ? sn->node[node].guid : 0;
	snprintf(f->what, sizeof(f->what), "%s", what ? what : "");
	snprintf(f->measured, sizeof(f->measured), "%s", measured ? measured : "");
	snprintf(f->expected, sizeof(f->expected), "%s", expected ? expected : "");
	snprintf(f->detail, sizeof(f->detail), "%s", detail ? detail : "");
}

void health_findings_free(struct health_findings *fs)
{
	free(fs->f);
	*fs = (struct health_findings){ 0 };
}

static int cmp_finding(const void *a, const void *b)
{
	const struct health_finding *x = a, *y = b;

	if (x->severity != y->severity)
		return x->severity < y->severity ? -1 : 1;
	if (x->group != y->group)
		return x->group < y->group ? -1 : 1;
	if (x->node != y->node)
		return x->node < y->node ? -1 : 1;
	if (x->port != y->port)
		return x->port < y->port ? -1 : 1;
	return strcmp(x->what, y->what);
}

void health_findings_sort(struct health_findings *fs)
{
	if (fs->n > 1)
		qsort(fs->f, fs->n, sizeof(*fs->f), cmp_finding);
}

unsigned health_count(const struct health_findings *fs, enum health_severity s)
{
	unsigned n = 0;

	for (uint32_t i = 0; i < fs->n; i++)
		n += fs->f[i].severity == s;
	return n;
}

/* IBA 14.2.5.6 PortInfo:PortState, as iblinkinfo names them. */
const char *health_state_name(uint8_t state)
{
	static const char *const n[] = { "NoChange", "Down", "Initialize", "Armed", "Active" };

	return state < 5 ? n[state] : "?";
}

/* IBA 14.2.5.6 PortInfo:PortPhysicalState. */
const char *health_phys_name(uint8_t phys)
{
	static const char *const n[] = { "NoChange", "Sleep", "Polling", "Disabled",
					 "PortConfigurationTraining", "LinkUp",
					 "LinkErrorRecovery", "PhyTest" };

	return phys < 8 ? n[phys] : "?";
}

/* IBA 14.2.5.6 LinkWidthActive: one bit a width. */
const char *health_width_name(uint8_t w)
{
	switch (w) {
	case 1: return "1X";
	case 2: return "4X";
	case 4: return "8X";
	case 8: return "12X";
	case 16: return "2X";
	}
	return "?";
}

