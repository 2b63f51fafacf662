/* SPDX-License-Identifier: MIT */
/*
 * lftset: change one entry of a switch's linear forwarding table, the fault
 * loom health's routes group must find. infiniband-diags reads LFTs (ibroute,
 * dump_lfts) but sends no LFT Set, and ibsim's console has no command for
 * one. Usage:
 *
 *     lftset [-C CA] [-P PORT] -D 0,1,3 LID EGRESS
 *     lftset [-C CA] [-P PORT] -D 0,1,3 -t TOP
 *
 * Gets the LinearForwardingTable block holding LID (IBA 14.2.5.10: 64
 * entries a block, AttributeModifier = block number) by directed route
 * (ports as ibroute -D takes them, the first 0), and Sets it back with LID's
 * entry changed to EGRESS (255: drop). With -t, Gets SwitchInfo and Sets it
 * back with LinearFDBTop TOP (IBA 14.2.5.4) instead. Prints the old and new
 * value; exit 0, 1 on any failure.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mad/smp.h"
#include "mad/txn.h"
#include "mad/umad.h"
#include "tests/rig/smp_one.h"

/* SwitchInfo Get, then Set with LinearFDBTop top. */
static int set_top(struct txn *x, struct smp_req *r, unsigned long top)
{
	struct answer a;
	uint16_t got;
	uint8_t raw[SMP_DATA_SIZE];
	int e;

	r->attr_id = SMP_ATTR_SWITCH_INFO;
	r->attr_mod = 0;
	e = one(x, r, &a);
	if (e < 0)
		return e;
	memcpy(raw, a.data, sizeof(raw));
	r->method = SMP_SET;
	smp_switch_info_set(raw, (uint16_t)top, false, r->data);
	e = one(x, r, &a);
	if (e < 0)
		return e;
	/* The answer is SwitchInfo after the Set; IBA 14.2.5.4: LinearFDBTop is bytes 6-7. */
	got = (uint16_t)(a.data[6] << 8 | a.data[7]);
	printf("LinearFDBTop -> 0x%04x\n", got);
	return got == top ? 0 : -EPROTO;
}

int main(int argc, char **argv)
{
	struct txn_opts o = TXN_OPTS_DEFAULT;
	struct smp_req r = { .method = SMP_GET, .attr_id = SMP_ATTR_LFT };
	struct mad_umad *u = NULL;
	struct txn *x = NULL;
	struct answer a;
	const char *ca = NULL, *path = NULL;
	unsigned port = 0;
	unsigned long lid, egress, top = 0;
	bool set_top_only = false;
	int c, e;

	while ((c = getopt(argc, argv, "C:P:D:t:")) != -1) {
		switch (c) {
		case 'C': ca = optarg; break;
		case 'P': port = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'D': path = optarg; break;
		case 't':
			top = strtoul(optarg, NULL, 0);
			set_top_only = true;
			break;
		default: goto usage;
		}
	}
	if (!path || parse_path(path, &r) < 0)
		goto usage;
	if (set_top_only) {
		if (argc != optind || top > 0xbfff)
			goto usage;
		e = mad_umad_open(ca, port, 0, &u);
		if (e == 0)
			e = txn_new(&mad_umad_ops, u, &o, &x);
		if (e == 0)
			e = set_top(x, &r, top);
		goto out;
	}
	if (argc - optind != 2)
		goto usage;
	lid = strtoul(argv[optind], NULL, 0);
	egress = strtoul(argv[optind + 1], NULL, 0);
	if (!lid || lid > 0xbfff || egress > 255)
		goto usage;
	r.attr_mod = (uint32_t)(lid / SMP_LFT_BLOCK);
	e = mad_umad_open(ca, port, 0, &u);
	if (e == 0)
		e = txn_new(&mad_umad_ops, u, &o, &x);
	if (e == 0)
		e = one(x, &r, &a);
	if (e == 0) {
		printf("LID %lu: port %u -> %lu\n", lid, a.data[lid % SMP_LFT_BLOCK], egress);
		r.method = SMP_SET;
		memcpy(r.data, a.data, SMP_DATA_SIZE);
		r.data[lid % SMP_LFT_BLOCK] = (uint8_t)egress;
		e = one(x, &r, &a);
	}
	if (e == 0 && a.data[lid % SMP_LFT_BLOCK] != egress)
		e = -EPROTO; /* the switch answered the Set with other contents */
out:
	if (x)
		txn_free(x);
	if (u)
		mad_umad_close(u);
	if (e < 0) {
		fprintf(stderr, "lftset: %s: %s\n", path, strerror(-e));
		return 1;
	}
	return 0;
usage:
	fprintf(stderr, "usage: lftset [-C CA] [-P PORT] -D 0,P1,P2... LID EGRESS\n"
			"       lftset [-C CA] [-P PORT] -D 0,P1,P2... -t TOP\n");
	return 1;
}
