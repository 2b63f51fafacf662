/* SPDX-License-Identifier: MIT */
#ifndef LOOM_TOPO_H
#define LOOM_TOPO_H

#include <stddef.h>

#include "lib/diag.h"
#include "model/subnet.h"

/*
 * Topology reader: builds the subnet model from a topology file in either of
 * the two text forms fabric people have:
 *
 *  - ibnetdiscover output, as real fabrics print it:
 *      vendid=0x2c9 / devid=0xd2f0 / sysimgguid=0x... / switchguid=0x...(...)
 *      Switch	36 "S-0002c90300001234"	# "leaf-07" enhanced port 0 lid 3 lmc 0
 *      [1]	"H-0002c90300005678"[1](2c90300005679)	# "node01 HCA-1" lid 12 4xHDR
 *      caguid=0x... / Ca 2 "H-..." # "desc" / [1](portguid) "S-..."[12] # lid 12 lmc 0 ...
 *  - ibsim's short form (its net-examples):
 *      Switch 8 "Switch1" / [1] "Hca1"[1] w=4 / Hca 2 "Hca1" / [1] "Switch1"[1]
 *
 * GUIDs follow ibsim's rules where the file gives none (switchguid= and
 * caguid= set a running base; defaults 0x200000 and 0x100000), so the model's
 * GUIDs are the simulator's. The reader checks the whole file and records
 * every problem in the diag list as FILE:LINE: message.
 */

/*
 * Read path. Returns 0 and a new model in *out, or a negative errno with
 * every problem in d and *out untouched: -EINVAL for a bad file, -ENOENT etc.
 * when it cannot be opened (also recorded in d).
 */
int topo_read_file(const char *path, struct subnet **out, struct diag *d);

/* The same on a buffer; name is used in messages. "include" is refused. */
int topo_read_mem(const char *buf, size_t len, const char *name, struct subnet **out,
		  struct diag *d);

#endif
