/* SPDX-License-Identifier: MIT */
/*
 * sl2vlset: change one entry of a switch's SLtoVLMappingTable, the fault
 * loom health's routes group must find as a credit loop. infiniband-diags
 * reads these tables (smpquery sl2vl) but sends no Set, and ibsim's console
 * has no command for one. Usage:
 *
 *     sl2vlset [-C CA] [-P PORT] -D 0,1,3 IN OUT SL VL
 *
 * Gets the table of input port IN, output port OUT (IBA 14.2.5.8:
 * AttributeModifier IN << 8 | OUT) by directed route (ports as ibroute -D
 * takes them, the first 0), and Sets it back with SL's entry changed to VL.
 * IN 255 changes the tables of every input port 1..NumPorts, OUT 255 those
 * to every output port (never IN to IN), SL 255 every SL's entry.
 * Prints the old and new value; exit 0, 1 on any failure.
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

/* Get the (in, out) table, Set it back with sl on vl; the answer must show it. */
static int set_one(struct txn *x, struct smp_req *r, unsigned in, unsigned out, unsigned sl,
		   unsigned vl)
{
	uint8_t t[SMP_NUM_SL];
	struct answer a;
	int e;

	r->method = SMP_GET;
	r->attr_mod = smp_sl2vl_mod((uint8_t)in, (uint8_t)out);
	e = one(x, r, &a);
	/* the data of a decoded table: SL 2i in the high nibble of byte i */
	if (e < 0)
		return e;
	for (unsigned i = 0; i < SMP_NUM_SL; i++)
		t[i] = (uint8_t)(i & 1 ? a.data[i / 2] & 0x0f : a.data[i / 2] >> 4);
	for (unsigned i = 0; i < SMP_NUM_SL; i++) {
		if (sl != 255 && i != sl)
			continue;
		printf("port %u -> %u: SL %u: VL %u -> %u\n", in, out, i, t[i], vl);
		t[i] = (uint8_t)vl;
	}
	if (sl == 255)
		sl = 0;
	r->method = SMP_SET;
	e = smp_encode_sl2vl(t, r->data);
	if (e == 0)
		e = one(x, r, &a);
	if (e == 0 && (sl & 1 ? a.data[sl / 2] & 0x0f : a.data[sl / 2] >> 4) != vl)
		e = -EPROTO; /* the switch answered the Set with other contents */
	return e;
}

int main(int argc, char **argv)
{
	struct txn_opts o = TXN_OPTS_DEFAULT;
	struct smp_req r = { .attr_id = SMP_ATTR_SL2VL };
	struct mad_umad *u = NULL;
	struct txn *x = NULL;
	struct answer a;
	const char *ca = NULL, *path = NULL;
	unsigned port = 0;
	unsigned long in, out, sl, vl;
	int c, e;

	while ((c = getopt(argc, argv, "C:P:D:")) != -1) {
		switch (c) {
		case 'C': ca = optarg; break;
		case 'P': port = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'D': path = optarg; break;
		default: goto usage;
		}
	}
	if (!path || parse_path(path, &r) < 0 || argc - optind != 4)
		goto usage;
	in = strtoul(argv[optind], NULL, 0);
	out = strtoul(argv[optind + 1], NULL, 0);
	sl = strtoul(argv[optind + 2], NULL, 0);
	vl = strtoul(argv[optind + 3], NULL, 0);
	if (in > 255 || !out || out > 255 || (sl > 15 && sl != 255) || vl > 15)
		goto usage;
	e = mad_umad_open(ca, port, 0, &u);
	if (e == 0)
		e = txn_new(&mad_umad_ops, u, &o, &x);
	if (e == 0 && in != 255 && out != 255) {
		e = set_one(x, &r, (unsigned)in, (unsigned)out, (unsigned)sl, (unsigned)vl);
	} else if (e == 0) {
		r.method = SMP_GET;
		r.attr_id = SMP_ATTR_NODE_INFO;
		r.attr_mod = 0;
		e = one(x, &r, &a);
		r.attr_id = SMP_ATTR_SL2VL;
		/* IBA 14.2.5.3: NumPorts is byte 3 of NodeInfo. */
		for (unsigned i = 1; e == 0 && i <= a.data[3]; i++)
			for (unsigned j = 1; e == 0 && j <= a.data[3]; j++)
				if (i != j && (in == 255 || i == in) && (out == 255 || j == out))
					e = set_one(x, &r, i, j, (unsigned)sl, (unsigned)vl);
	}
	if (x)
		txn_free(x);
	if (u)
		mad_umad_close(u);
	if (e < 0) {
		fprintf(stderr, "sl2vlset: %s: %s\n", path, strerror(-e));
		return 1;
	}
	return 0;
usage:
	fprintf(stderr, "usage: sl2vlset [-C CA] [-P PORT] -D 0,P1,P2... IN|255 OUT|255 SL|255 VL\n");
	return 1;
}
