/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the dump_lfts reader (routing/lft_text_read.c), with
 * the checker and the printer behind it: any bytes are read as dump_lfts
 * text against a small built-in fabric (three switches in a ring, parallel
 * links, a two-port host, LMC 1). The reader must give tables or a
 * diagnosis, never crash, leak or read past the buffer; tables it gives must
 * survive the checker, and printing them in the canonical form and reading
 * that back must give the same tables.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/diag.h"
#include "routing/check.h"
#include "routing/lft_text.h"
#include "routing/route.h"
#include "model/subnet.h"
#include "model/topo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char fabric[] = "Switch 6 \"s1\"\n[1] \"h1\"[1]\n[2] \"s2\"[1]\n[3] \"s2\"[2]\n"
			     "[4] \"s3\"[1]\n[5] \"h2\"[2]\n"
			     "Switch 4 \"s2\"\n[1] \"s1\"[2]\n[2] \"s1\"[3]\n[3] \"s3\"[2]\n"
			     "[4] \"h2\"[1]\n"
			     "Switch 4 \"s3\"\n[1] \"s1\"[4]\n[2] \"s2\"[3]\n[3] \"h3\"[1]\n"
			     "Hca 1 \"h1\"\n[1] \"s1\"[1]\n"
			     "Hca 2 \"h2\"\n[1] \"s2\"[4]\n[2] \"s1\"[5]\n"
			     "Hca 1 \"h3\"\n[1] \"s3\"[3]\n";

/* The model, once: LIDs in node order, hosts with LMC 1. */
static struct subnet *model(void)
{
	static struct subnet *sn;
	struct diag d = { 0 };
	uint32_t next = 1;

	if (sn)
		return sn;
	if (topo_read_mem(fabric, sizeof(fabric) - 1, "fabric", &sn, &d) < 0)
		abort();
	diag_free(&d);
	for (uint32_t n = 0; n < sn->n_nodes; n++) {
		bool sw = subnet_is_switch(sn, n);

		for (unsigned p = sw ? 0 : 1; p <= (sw ? 0u : sn->node[n].nports); p++) {
			struct subnet_port *pt = &sn->port[subnet_port_idx(sn, n, p)];

			next = sw ? next : (next + 1) & ~1u;
			pt->lid = (uint16_t)next;
			pt->lmc = sw ? 0 : 1;
			next += sw ? 1 : 2;
		}
	}
	return sn;
}

/* Canonical text of out, read back: the same tables. */
static void round_trip(const struct subnet *sn, const struct route_out *out)
{
	struct lft_text_opts o = LFT_TEXT_CANON;
	struct route_out back = { 0 };
	struct lft_text_stats st;
	struct diag d = { 0 };
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return;
	if (lft_text_print(f, sn, out, &o) < 0)
		abort();
	fclose(f);
	if (lft_text_read_mem(text, len, "canon", sn, &back, &st, &d) < 0 || st.skipped ||
	    back.max_lid != out->max_lid ||
	    memcmp(back.lft, out->lft, (size_t)out->n_sw * (out->max_lid + 1)))
		abort();
	route_out_free(&back);
	diag_free(&d);
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct subnet *sn = model();
	struct route_out out = { 0 };
	struct check_report rep;
	struct lft_text_stats st;
	struct diag d = { 0 };
	char *buf = malloc(size ? size : 1);
	int r;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	r = lft_text_read_mem(buf, size, "fuzz", sn, &out, &st, &d);
	if (r < 0) {
		/* Nothing read: a message says why, *out untouched. */
		if ((r != -EINVAL && r != -ENOMEM) || !diag_count(&d) || out.lft)
			abort();
	} else {
		if (out.n_sw != 3 || st.skipped + st.missing > diag_count(&d) + d.dropped)
			abort();
		if (check_routes(sn, &out, NULL, &rep, &d) < 0 ||
		    rep.delivered + rep.unreachable + rep.loops != rep.pairs)
			abort();
		round_trip(sn, &out);
	}
	route_out_free(&out);
	diag_free(&d);
	free(buf);
	return 0;
}
