/* SPDX-License-Identifier: MIT */
/*
 * The normalised configuration: every effective value, defaults filled in,
 * one spelling for each (durations in their largest exact unit, GUIDs and
 * keys in full hex, members as mappings), as YAML that loads back to an
 * equal config. Keys an engine does not use are left out, as the parser
 * refuses them.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "config/config_priv.h"

/* Double-quoted: names and paths hold no control characters (the parser refuses them). */
static void put_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static void put_duration(FILE *f, const char *indent, const char *key, uint64_t us)
{
	char buf[32];

	if (us == CONFIG_HOQ_INFINITE) {
		fprintf(f, "%s%s: infinite\n", indent, key);
		return;
	}
	units_duration_fmt(us, buf, sizeof(buf));
	fprintf(f, "%s%s: %s\n", indent, key, buf);
}

static void print_routing(const struct config_sm *sm, FILE *f)
{
	char names[128];

	config_engines_str(sm, names, sizeof(names));
	if (sm->routing.n_engines == 1) {
		fprintf(f, "  routing:\n    engine: %s\n", names);
	} else {
		fprintf(f, "  routing:\n    engine: [");
		for (const char *c = names; *c; c++) /* YAML's flow style: ", " */
			fputs(*c == ',' ? ", " : (char[]){ *c, 0 }, f);
		fprintf(f, "]\n");
	}
	if (sm->routing.no_fallback)
		fprintf(f, "    fallback: none\n");
	fprintf(f, "    lmc: %u\n", sm->routing.lmc);
	if (config_engines_has(sm, CONFIG_ENGINE_VLAYERED))
		fprintf(f, "    vls: %u\n", sm->routing.vls);
	if (config_engines_has(sm, CONFIG_ENGINE_UPDN) ||
	    config_engines_has(sm, CONFIG_ENGINE_FTREE)) {
		fprintf(f, "    roots:%s\n", sm->routing.n_roots ? "" : " []");
		for (uint32_t i = 0; i < sm->routing.n_roots; i++)
			fprintf(f, "      - 0x%016" PRIx64 "\n", sm->routing.root[i].guid);
	}
	if (config_engines_has(sm, CONFIG_ENGINE_FILE) && sm->routing.file) {
		fprintf(f, "    file: ");
		put_str(f, sm->routing.file);
		fputc('\n', f);
	}
}

static void print_sm(const struct config_sm *sm, FILE *f)
{
	fprintf(f, "sm:\n  priority: %u\n", sm->priority);
	put_duration(f, "  ", "sweep-interval", sm->sweep_us);
	put_duration(f, "  ", "heavy-sweep-interval", sm->heavy_sweep_us);
	fprintf(f, "  flap-damping:\n    flaps: %u\n", sm->flap.flaps);
	put_duration(f, "    ", "window", sm->flap.window_us);
	put_duration(f, "    ", "hold", sm->flap.hold_us);
	print_routing(sm, f);
	fprintf(f, "  state-dir: ");
	put_str(f, sm->state_dir ? sm->state_dir : CONFIG_DEFAULT_STATE_DIR);
	/* Unset, the group is loomd's own, which no name in the file stands for. */
	if (sm->control_group) {
		fprintf(f, "\n  control-group: ");
		put_str(f, sm->control_group);
	}
	fprintf(f, "\n  mad:\n    window: %u\n", sm->mad.window);
	put_duration(f, "    ", "timeout", sm->mad.timeout_us);
	fprintf(f, "    retries: %u\n", sm->mad.retries);
	fprintf(f, "  subnet-prefix: 0x%016" PRIx64 "\n", sm->subnet_prefix);
	fprintf(f, "  sm-key: 0x%016" PRIx64 "\n", sm->sm_key);
	put_duration(f, "  ", "poll-interval", sm->poll_us);
	fprintf(f, "  poll-misses: %u\n  sticky: %s\n", sm->poll_misses,
		sm->sticky ? "true" : "false");
	fprintf(f, "  master-lid-checks: %u\n", sm->master_lid_checks);
	fprintf(f, "  log-level: %s\n", config_log_level_name(sm->log_level));
}

static void print_member(const struct config_member *m, FILE *f)
{
	fprintf(f, "      - { ");
	if (m->kind == CONFIG_MEMBER_GUID) {
		fprintf(f, "guid: 0x%016" PRIx64, m->guid);
	} else if (m->kind == CONFIG_MEMBER_NODE) {
		fprintf(f, "node: ");
		put_str(f, m->node);
	} else {
		fprintf(f, "group: %s", config_member_kind_name(m->kind));
	}
	fprintf(f, ", membership: %s }\n", m->full ? "full" : "limited");
}

static void print_partition(const struct config_partition *pt, FILE *f)
{
	fprintf(f, "  - name: ");
	put_str(f, pt->name);
	fprintf(f, "\n    pkey: 0x%04x%s\n", pt->pkey,
		pt->pkey_auto ? "  # allocated from the name" : "");
	fprintf(f, "    sl: %u\n    ipoib: %s\n", pt->sl, pt->ipoib ? "true" : "false");
	if (pt->ipoib)
		fprintf(f, "    mtu: %s\n    rate: %s\n    qkey: 0x%08x\n",
			config_mtu_name(pt->mtu), config_rate_name(pt->rate), pt->qkey);
	fprintf(f, "    members:\n");
	for (uint32_t k = 0; k < pt->n_members; k++)
		print_member(&pt->member[k], f);
}

static void print_vlarb(FILE *f, const char *key, const struct config_vlarb *v, unsigned n)
{
	fprintf(f, "    %s: [", key);
	for (unsigned i = 0; i < n; i++)
		fprintf(f, "%s%u:%u", i ? ", " : "", v[i].vl, v[i].weight);
	fprintf(f, "]\n");
}

static void print_qos_class(const struct config_qos_class *q, enum config_port_class k, FILE *f)
{
	fprintf(f, "  %s:\n    operational-vls: %u\n    sl2vl: [", config_class_name(k),
		q->operational_vls);
	for (unsigned sl = 0; sl < 16; sl++)
		fprintf(f, "%s%u", sl ? ", " : "", q->sl2vl[sl]);
	fprintf(f, "]\n");
	print_vlarb(f, "vlarb-high", q->high, q->n_high);
	print_vlarb(f, "vlarb-low", q->low, q->n_low);
	fprintf(f, "    vl-high-limit: %u\n", q->vl_high_limit);
	put_duration(f, "    ", "head-of-queue-lifetime", q->hoq_us);
	fprintf(f, "    vl-stall-count: %u\n", q->vl_stall_count);
}

int config_print(const struct config *c, FILE *f)
{
	fprintf(f, "# loom configuration, normalised: every effective value, defaults filled in\n");
	print_sm(&c->sm, f);
	fprintf(f, "partitions:%s\n", c->n_parts ? "" : " []");
	for (uint32_t i = 0; i < c->n_parts; i++)
		print_partition(&c->part[i], f);
	fprintf(f, "qos:\n");
	for (unsigned k = 0; k < _CONFIG_CLASS_MAX; k++)
		print_qos_class(&c->qos[k], (enum config_port_class)k, f);
	config_health_print(&c->health, f);
	/* Only when on: a file without the section prints as it always did. */
	if (c->mkey.on) {
		fprintf(f, "mkey:\n  protect: %u\n", c->mkey.protect);
		put_duration(f, "  ", "lease", (uint64_t)c->mkey.lease_s * 1000000);
		fprintf(f, "  source: %s\n", config_mkey_source_names[c->mkey.source]);
	}
	if (fflush(f) == EOF || ferror(f))
		return errno ? -errno : -EIO;
	return 0;
}
