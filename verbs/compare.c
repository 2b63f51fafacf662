/* SPDX-License-Identifier: MIT */
/*
 * --compare-opts: what each optimisation buys on this device. Small messages (64 bytes)
 * run with the option off and on, same iterations, both verified like any case; the
 * table shows both sides and their ratio. Nothing is assumed: the numbers are this run's.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "verbs/verbs.h"

#define CMP_SIZE 64
#define CMP_QPS 64

struct cmp_row {
	const char *name;
	enum vop op;
	const char *off, *on;
};

static const struct cmp_row rows[] = {
	{ "inline", OP_WRITE, "not inline", "inline" },
	{ "signaling", OP_WRITE, "every WR", "every 16th" },
	{ "batching", OP_WRITE, "1 WR per post", "32 WRs per post" },
	{ "srq", OP_SEND_RC, "64 QPs, own RQs", "64 QPs, one SRQ" },
};

static void set_opt(struct vcase *c, unsigned row, bool on)
{
	switch (row) {
	case 0: c->inline_ = on; break;
	case 1: c->signal_every = on ? 16 : 1; break;
	case 2: c->batch = on ? 32 : 1; break;
	case 3: c->qps = CMP_QPS; c->srq = on; break;
	}
	if (c->signal_every > c->depth)
		c->depth = c->signal_every;
	if (c->batch > c->depth)
		c->depth = c->batch;
}

/* Receive memory to keep every queue as deep as one chunk: each own RQ needs its own
 * buffers, one SRQ shares them. */
static size_t rx_need(const struct vcase *c)
{
	return (size_t)c->slots * c->size * (c->srq ? 1 : c->qps);
}

static void print_row(FILE *f, const struct cmp_row *row, const struct vresult *r)
{
	double ratio = r[0].mpps > 0 ? r[1].mpps / r[0].mpps : 0;

	fprintf(f, "%-10s %-11s %3u B  %-17s %9.2f %8.4f  %-17s %9.2f %8.4f  %6.2fx",
		row->name, vop_name[row->op], CMP_SIZE, row->off, r[0].lat.med_us, r[0].mpps,
		row->on, r[1].lat.med_us, r[1].mpps, ratio);
	if (row->op == OP_SEND_RC)
		fprintf(f, "  rx memory %zu -> %zu bytes", rx_need(&r[0].c), rx_need(&r[1].c));
	fprintf(f, "%s\n", r[0].verified && r[1].verified ? "" : "  NOT VERIFIED");
}

static void json_side(FILE *f, const char *label, const struct vresult *r)
{
	fprintf(f, "\"%s\": {\"lat_med_us\": %.3f, \"mpps\": %.6f, \"mib_per_s\": %.3f, "
		"\"rx_mem_bytes\": %zu, \"verified\": %s}", label, r->lat.med_us, r->mpps, r->mib_s,
		rx_need(&r->c), r->verified ? "true" : "false");
}

int compare_run(struct vdev *d, struct vpeer *peer, const struct vopts *o, FILE *f)
{
	struct vresult res[sizeof(rows) / sizeof(rows[0])][2];
	unsigned i, side, bad = 0;
	int r;

	memset(res, 0, sizeof(res));
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		for (side = 0; side < 2; side++) {
			struct vcase c = case_make(o, d, rows[i].op, CMP_SIZE);

			c.inline_ = 0;
			c.srq = 0;
			c.qps = 1;
			c.signal_every = 1;
			c.batch = 1;
			set_opt(&c, i, side);
			r = run_case(d, peer, o, &c, &res[i][side]);
			if (r < 0) {
				fprintf(stderr, "loom-verbs: --compare-opts %s: %s\n", rows[i].name,
					res[i][side].err);
				return r;
			}
			if (!o->quiet)
				out_progress(&res[i][side]);
			bad += !res[i][side].verified;
		}
	if (o->json) {
		fprintf(f, "{\"device\": \"%s\", \"size\": %u, \"iters\": %llu, \"compare\": [",
			d->name, CMP_SIZE, (unsigned long long)o->iters);
		for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
			fprintf(f, "%s\n  {\"option\": \"%s\", \"op\": \"%s\", ", i ? "," : "",
				rows[i].name, vop_name[rows[i].op]);
			json_side(f, "off", &res[i][0]);
			fputs(", ", f);
			json_side(f, "on", &res[i][1]);
			fputs("}", f);
		}
		fprintf(f, "\n], \"verified\": %s}\n", bad ? "false" : "true");
	} else {
		fprintf(f, "# what each optimisation buys on %s port %d: %u-byte messages, %llu per "
			"phase; lat_med in us (one in flight), Mpps with --depth %u in flight\n",
			d->name, d->port, CMP_SIZE, (unsigned long long)o->iters, o->depth);
		fprintf(f, "%-10s %-11s %5s  %-17s %9s %8s  %-17s %9s %8s  %7s\n", "option", "op",
			"size", "off", "lat_med", "Mpps", "on", "lat_med", "Mpps", "on/off");
		for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
			print_row(f, &rows[i], res[i]);
	}
	return bad ? 1 : 0;
}
