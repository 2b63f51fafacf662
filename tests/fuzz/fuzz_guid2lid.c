/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the LID manager: any bytes are a guid2lid file
 * (lid_map_load_mem); the map is then used to assign LIDs into a small model
 * whose GUIDs are small numbers the fuzzer can hit (switch port 0 GUIDs
 * 0x10-0x12, CA port GUIDs 0x21, 0x23, ...; one duplicate, some unlinked
 * ports). The first byte mod 8 is the LMC. Checked: the map never holds a bad
 * or overlapping entry, every LID-bearing port has unique aligned LIDs that
 * the map records, the written map reads back unchanged, and a second run
 * from it gives the same LIDs. No crash, no leak, no read past the input.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/diag.h"
#include "plan/lid.h"
#include "model/subnet.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NCA 8

static struct subnet *model(void)
{
	struct subnet *sn = NULL;
	uint32_t sw[3], ca;
	char name[16];

	if (subnet_new(&sn) < 0)
		abort();
	for (unsigned s = 0; s < 3; s++) {
		snprintf(name, sizeof(name), "sw%u", s);
		if (subnet_add_node(sn, NODE_SWITCH, 8, 0x10 + s, name, NULL, &sw[s]) < 0)
			abort();
	}
	if (subnet_link(sn, subnet_port_idx(sn, sw[0], 8), subnet_port_idx(sn, sw[1], 8)) < 0)
		abort();
	for (unsigned c = 0; c < NCA; c++) {
		snprintf(name, sizeof(name), "h%u", c);
		/* 2 ports (GUIDs 0x21 + 2c... and + 1); port 2 linked on every other CA */
		if (subnet_add_node(sn, NODE_CA, 2, 0x20 + 2 * c, name, NULL, &ca) < 0 ||
		    subnet_link(sn, subnet_port_idx(sn, sw[c % 3], 1 + c / 3),
				subnet_port_idx(sn, ca, 1)) < 0)
			abort();
		sn->port[subnet_port_idx(sn, ca, 2)].guid = 0x1000 + c;
		if (c % 2 && subnet_link(sn, subnet_port_idx(sn, sw[2], 4 + c / 2),
					 subnet_port_idx(sn, ca, 2)) < 0)
			abort();
	}
	/* h7 port 1 has h6's GUID, as a broken fabric may. */
	sn->port[subnet_port_idx(sn, subnet_find_name(sn, "h7"), 1)].guid = 0x20 + 2 * 6 + 1;
	return sn;
}

static void check_map(const struct lid_map *m)
{
	static uint8_t used[SUBNET_LID_UCAST_END + 1];
	const struct lid_ent *e = lid_map_entries(m);

	memset(used, 0, sizeof(used));
	for (uint32_t i = 0; i < lid_map_count(m); i++) {
		uint32_t n = 1u << e[i].lmc;
		uint16_t lid;
		uint8_t lmc;

		if (!e[i].guid || e[i].lmc > LID_LMC_MAX || !e[i].lid || e[i].lid & (n - 1) ||
		    e[i].lid + n - 1 > SUBNET_LID_UCAST_END)
			abort();
		if (lid_map_get(m, e[i].guid, &lid, &lmc) < 0 || lid != e[i].lid || lmc != e[i].lmc)
			abort(); /* also: no second entry for the GUID */
		for (uint32_t l = e[i].lid; l < e[i].lid + n; l++) {
			if (used[l])
				abort();
			used[l] = 1;
		}
	}
}

/* Every LID-bearing port with LIDs: unique, aligned, recorded in the map. Returns how many. */
static uint32_t check_model(const struct subnet *sn, const struct lid_map *m, uint8_t lmc)
{
	static uint8_t used[SUBNET_LID_UCAST_END + 1];
	uint32_t k = 0;

	memset(used, 0, sizeof(used));
	for (uint32_t i = 0; i < sn->n_ports; i++) {
		const struct subnet_port *p = &sn->port[i];
		const struct subnet_node *nd = &sn->node[p->node];
		int sw = nd->type == NODE_SWITCH;
		int bear = sw ? p->num == 0 : p->num > 0 && p->peer != SUBNET_NONE;
		uint8_t want = sw ? 0 : lmc, elmc;
		uint16_t elid;

		if (!bear || !p->lid) {
			if (p->lid || p->lmc)
				abort();
			continue;
		}
		if (p->lmc != want || p->lid & ((1u << want) - 1) ||
		    p->lid + (1u << want) - 1 > SUBNET_LID_UCAST_END)
			abort();
		for (uint32_t l = p->lid; l < p->lid + (1u << want); l++) {
			if (used[l])
				abort();
			used[l] = 1;
		}
		if (lid_map_get(m, sw ? nd->port0_guid : p->guid, &elid, &elmc) < 0 ||
		    elid != p->lid || elmc != p->lmc)
			abort();
		k++;
	}
	return k;
}

/* The map as written reads back the same, without a message. */
static struct lid_map *round_trip(const struct lid_map *m)
{
	struct lid_map *m2 = NULL;
	struct diag d = { 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f || lid_map_write(m, f) < 0 || fclose(f) != 0)
		abort();
	if (lid_map_new(&m2) < 0 || lid_map_load_mem(m2, buf, len, "rt", &d) < 0)
		abort();
	if (diag_count(&d) || lid_map_count(m2) != lid_map_count(m))
		abort();
	for (uint32_t i = 0; i < lid_map_count(m); i++) {
		const struct lid_ent *e = &lid_map_entries(m)[i];
		uint16_t lid;
		uint8_t lmc;

		if (lid_map_get(m2, e->guid, &lid, &lmc) < 0 || lid != e->lid || lmc != e->lmc)
			abort();
	}
	free(buf);
	diag_free(&d);
	return m2;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lid_report rep = { .msgs.limit = LID_MAX_MSGS }, rep2 = rep;
	struct diag d = { .limit = 64 };
	struct subnet *sn = model(), *sn2 = model();
	struct lid_map *m = NULL, *m2;
	uint8_t lmc = size ? data[0] % 8 : 0;
	char *buf = malloc(size ? size : 1);
	uint32_t k;
	int r;

	if (!buf || lid_map_new(&m) < 0)
		abort();
	memcpy(buf, data, size);
	r = lid_map_load_mem(m, buf, size, "fuzz", &d);
	if (r < 0 && r != -ENOMEM)
		abort();
	check_map(m);

	r = lid_assign(sn, m, lmc, &rep);
	if (r < 0 && r != -ENOSPC && r != -ENOMEM)
		abort();
	check_map(m);
	k = check_model(sn, m, lmc);
	if (r != -ENOMEM && k != rep.kept_map + rep.kept_fabric + rep.assigned_new)
		abort();

	/* Restart from the saved map: the same LIDs, all from the map. */
	m2 = round_trip(m);
	r = lid_assign(sn2, m2, lmc, &rep2);
	if (r < 0 && r != -ENOSPC && r != -ENOMEM)
		abort();
	if (r != -ENOMEM) {
		for (uint32_t i = 0; i < sn->n_ports; i++)
			if (sn->port[i].lid != sn2->port[i].lid || sn->port[i].lmc != sn2->port[i].lmc)
				abort();
		if (rep2.kept_map != k || rep2.map_updates)
			abort();
	}
	lid_report_free(&rep);
	lid_report_free(&rep2);
	diag_free(&d);
	lid_map_free(m);
	lid_map_free(m2);
	subnet_free(sn);
	subnet_free(sn2);
	free(buf);
	return 0;
}
