/* SPDX-License-Identifier: MIT */
/*
 * The file engine: forwarding tables as the operator wrote them down, from
 * dump_lfts text (dump_lfts, ibroute, OpenSM's opensm-lfts.dump; see
 * lft_text.h), for routes that must not change whatever the fabric does.
 *
 * The file is the whole truth: a LID the file does not route from some
 * switch, or a switch with no table in it, drops, and is counted and said
 * in why as unreachable, never filled in by another engine. Mixing a
 * hand-made table with computed ones could close a loop or a credit loop
 * the operator never saw; an SM that says "these cannot be reached" leaves
 * the choice with them (and `loom route --check` shows it beforehand).
 * Lines the reader skips are said too: the first one, and how many.
 *
 * LIDs: the tables must speak of the LIDs the LID manager gave (loomd's
 * guid2lid; `loom route --guid2lid`). Entries for LIDs no port holds are
 * left out; routes to the model's LIDs are checked as the other engines'
 * are, through the shared destination list.
 */
#include <errno.h>
#include <string.h>

#include "lib/cleanup.h"
#include "lib/diag.h"
#include "lft_text.h"
#include "route.h"

static void diag_freep(struct diag *d)
{
	diag_free(d);
}

static void route_out_freep(struct route_out *out)
{
	route_out_free(out);
}

/* Count what the loaded tables leave at ROUTE_DROP among the model's LIDs. */
static void file_stats(struct route_out *out, const struct route_dest *d, uint32_t n)
{
	struct route_stats *st = &out->stats;

	for (uint32_t i = 0; i < n; i++) {
		for (uint32_t l = d[i].lid; l < (uint32_t)d[i].lid + d[i].nlids; l++) {
			uint64_t drop = 0;

			for (uint32_t s = 0; s < out->n_sw; s++)
				drop += route_lft(out, s)[l] == ROUTE_DROP;
			st->routes += out->n_sw - drop;
			st->unreach += drop;
			st->unreach_lids += drop > 0;
		}
	}
}

static int file_route(const struct subnet *sn, const struct route_opts *o, struct route_out *out,
		      struct route_why *why)
{
	_cleanup_(route_out_freep) struct route_out res = { 0 };
	_cleanup_(route_out_freep) struct route_out got = { 0 };
	_cleanup_(diag_freep) struct diag d = { .limit = 1 };
	_cleanup_free_ struct route_dest *dest = NULL;
	struct lft_text_stats st = { 0 };
	uint32_t n = 0, top;
	int r;

	if (!o->file || !*o->file) {
		route_why_set(why, "the file engine needs a dump_lfts file "
				   "(loom.yaml routing: file, or loom route --lfts FILE)");
		return -EINVAL;
	}
	r = route_out_init(sn, o, &res, &dest, &n, why);
	if (r < 0)
		return r;
	r = lft_text_read_file(o->file, sn, &got, &st, &d);
	if (r < 0) {
		route_why_set(why, "%s", d.n ? d.msg[0] : strerror(-r));
		return r;
	}
	if (got.n_sw != res.n_sw)
		return -EINVAL; /* both number the model's switches: cannot differ */
	/* Same switch numbering (node order) in both: copy row by row, the
	 * LIDs the model knows. */
	top = got.max_lid < res.max_lid ? got.max_lid : res.max_lid;
	for (uint32_t s = 0; s < res.n_sw; s++)
		memcpy(route_lft(&res, s), route_lft(&got, s), (size_t)top + 1);
	file_stats(&res, dest, n);
	if (res.stats.unreach_lids)
		route_why_set(why, "%s: %u of %u LIDs are not routed from every switch (%llu "
				   "switch-LID pairs drop)%s%s%s",
			      o->file, res.stats.unreach_lids, res.stats.dest_lids,
			      (unsigned long long)res.stats.unreach, diag_count(&d) ? "; " : "",
			      diag_count(&d) ? d.msg[0] : "",
			      diag_count(&d) > 1 ? " (and more lines skipped)" : "");
	else if (diag_count(&d))
		route_why_set(why, "%s: %u lines skipped, first: %s", o->file, diag_count(&d),
			      d.msg[0]);
	else
		route_why_set(why, "loaded %u switches' tables from %s", st.switches, o->file);
	*out = res;
	memset(&res, 0, sizeof(res));
	return 0;
}

const struct route_engine route_file = {
	.name = "file",
	.route = file_route,
};
