/* SPDX-License-Identifier: MIT */
/* Results for people (a perftest-like table) and for programs (JSON), from one array. */
#include <inttypes.h>
#include <stdio.h>

#include "lib/json.h"
#include "verbs/verbs.h"

static const char *mtu_str(enum ibv_mtu m)
{
	static const char *const s[] = { "?", "256", "512", "1024", "2048", "4096" };

	return (unsigned)m < 6 ? s[m] : "?";
}

static void size_str(char *b, size_t n, size_t v)
{
	if (v >= (1u << 20) && v % (1u << 20) == 0)
		snprintf(b, n, "%zuM", v >> 20);
	else if (v >= 1024 && v % 1024 == 0)
		snprintf(b, n, "%zuk", v >> 10);
	else
		snprintf(b, n, "%zu", v);
}

static void opts_str(char *b, size_t n, const struct vcase *c)
{
	snprintf(b, n, "%s%s q%u s%u b%u", c->inline_ ? "inl" : "-", c->srq ? ",srq" : "",
		 c->qps, c->signal_every, c->batch);
}

void out_progress(const struct vresult *r)
{
	char sz[24];

	size_str(sz, sizeof(sz), r->size);
	if (r->skipped)
		fprintf(stderr, "loom-verbs: %-14s %6s skipped: %s\n", vop_name[r->op], sz, r->err);
	else if (r->verified)
		fprintf(stderr, "loom-verbs: %-14s %6s %" PRIu64 " messages verified\n",
			vop_name[r->op], sz, r->msgs);
	else
		fprintf(stderr, "loom-verbs: %-14s %6s FAILED: %s\n", vop_name[r->op], sz, r->err);
}

void out_text(FILE *f, const struct vresult *r, unsigned n, const struct vdev *d)
{
	char sz[24], os[48];
	unsigned i;

	fprintf(f, "# %s port %d, %s, MTU %s, GID index %d; latency post->completion in us, "
		"MiB/s = 2^20 bytes/s\n", d->name, d->port, d->roce ? "RoCE" : "InfiniBand",
		mtu_str(d->pattr.active_mtu), d->gid_index);
	fprintf(f, "%-15s %-2s %6s %-16s %8s %9s %9s %9s %9s %10s %8s %8s  %s\n", "op", "tr",
		"bytes", "opts", "msgs", "lat_min", "lat_med", "lat_p99", "lat_max", "MiB/s", "Mpps",
		"mr_us", "verified");
	for (i = 0; i < n; i++) {
		size_str(sz, sizeof(sz), r[i].size);
		opts_str(os, sizeof(os), &r[i].c);
		if (r[i].skipped) {
			fprintf(f, "%-15s %-2s %6s skipped: %s\n", vop_name[r[i].op], r[i].transport,
				sz, r[i].err);
			continue;
		}
		fprintf(f, "%-15s %-2s %6s %-16s %8" PRIu64 " %9.2f %9.2f %9.2f %9.2f %10.2f %8.4f "
			"%8.1f  %s\n", vop_name[r[i].op], r[i].transport, sz, os, r[i].msgs,
			r[i].lat.min_us, r[i].lat.med_us, r[i].lat.p99_us, r[i].lat.max_us,
			r[i].mib_s, r[i].mpps, r[i].mr_reg_us, r[i].verified ? "yes" : "NO");
	}
	for (i = 0; i < n; i++) {
		if (!r[i].pp_ran)
			continue;
		size_str(sz, sizeof(sz), r[i].size);
		fprintf(f, "pingpong %-15s %6s half round trip us: min %.2f med %.2f p99 %.2f "
			"max %.2f (%zu echoed)\n", vop_name[r[i].op], sz, r[i].pp.min_us,
			r[i].pp.med_us, r[i].pp.p99_us, r[i].pp.max_us, r[i].pp.n);
	}
	for (i = 0; i < n; i++)
		if (!r[i].verified && !r[i].skipped)
			fprintf(f, "FAILED %s %zu: %s\n", vop_name[r[i].op], r[i].size, r[i].err);
}

static void json_case(FILE *f, const struct vresult *r)
{
	fprintf(f, "{\"op\": \"%s\", \"transport\": \"%s\", \"size\": %zu, ", vop_name[r->op],
		r->transport, r->size);
	fprintf(f, "\"inline\": %s, \"signal_every\": %u, \"batch\": %u, \"srq\": %s, "
		"\"qps\": %u, ", r->c.inline_ ? "true" : "false", r->c.signal_every, r->c.batch,
		r->c.srq ? "true" : "false", r->c.qps);
	fprintf(f, "\"ran\": %s, \"skipped\": %s, \"verified\": %s, \"messages\": %" PRIu64 ", ",
		r->ran ? "true" : "false", r->skipped ? "true" : "false",
		r->verified ? "true" : "false", r->msgs);
	fprintf(f, "\"latency_us\": {\"min\": %.3f, \"median\": %.3f, \"p99\": %.3f, "
		"\"max\": %.3f, \"samples\": %zu}, ", r->lat.min_us, r->lat.med_us, r->lat.p99_us,
		r->lat.max_us, r->lat.n);
	if (r->pp_ran)
		fprintf(f, "\"pingpong_us\": {\"min\": %.3f, \"median\": %.3f, \"p99\": %.3f, "
			"\"max\": %.3f, \"samples\": %zu}, ", r->pp.min_us, r->pp.med_us,
			r->pp.p99_us, r->pp.max_us, r->pp.n);
	fprintf(f, "\"mib_per_s\": %.3f, \"mpps\": %.6f, \"mr_reg_us\": %.1f, "
		"\"rx_mem_bytes\": %zu, \"error\": ", r->mib_s, r->mpps, r->mr_reg_us, r->rx_mem);
	if (r->verified && !r->skipped)
		fputs("null", f);
	else
		json_str(f, r->err);
	fputs("}", f);
}

void out_json(FILE *f, const struct vresult *r, unsigned n, const struct vdev *d,
	      const struct vopts *o)
{
	static const char *const mode[] = { "loopback", "server", "client" };
	bool all = true;
	unsigned i;

	fputs("{\"device\": ", f);
	json_str(f, d->name);
	fprintf(f, ", \"port\": %d, \"link_layer\": \"%s\", \"gid_index\": %d, \"mtu\": %s, "
		"\"mode\": \"%s\", \"iters\": %" PRIu64 ", \"seed\": %" PRIu64 ", \"tests\": [",
		d->port, d->roce ? "Ethernet" : "InfiniBand", d->gid_index,
		mtu_str(d->pattr.active_mtu), mode[o->mode], o->iters, o->seed);
	for (i = 0; i < n; i++) {
		fputs(i ? ",\n  " : "\n  ", f);
		json_case(f, &r[i]);
		if (!r[i].verified && !r[i].skipped)
			all = false;
	}
	fprintf(f, "\n], \"verified\": %s}\n", all ? "true" : "false");
}
