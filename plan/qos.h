/* SPDX-License-Identifier: MIT */
#ifndef LOOM_PLAN_QOS_H
#define LOOM_PLAN_QOS_H

#include <stdbool.h>
#include <stdint.h>

#include "mad/smp.h"
#include "model/disc_live.h"
#include "model/subnet.h"
#include "routing/route.h"

struct config;

/*
 * What programming puts in a port's QoS tables (prog_run's step 4), for
 * those who must say the same (the SA's SL2VL and VLArb records): the same
 * functions prog_run uses. qos is what prog_opts.qos was (not NULL), ro the
 * routes (its SL-to-VL map wins; NULL: none).
 */
struct qos_view {
	const struct subnet *sn;
	const struct disc_live *live; /* NULL: a dry run, every port as QOS_DRY_* says */

	const struct route_out *ro;
	const struct config *qos;
};
/*
 * A topology file says nothing of a port's VL capabilities: the dry run takes
 * every port to have VLCap VL0-7 and 8 VLArb entries of each priority, as
 * ibsim's ports and current adapters and switches do.
 */
#define QOS_DRY_VL_CAP 4     /* PortInfo:VLCap code 4: VL0-7 */
#define QOS_DRY_VLARB_CAP 8

/* config.h's enum config_port_class of port pi: which qos class it takes. */
int qos_port_class(const struct subnet *sn, uint32_t pi);
/* IBA 14.2.5.6 OperationalVLs code -> data VLs: 1 -> 1, 2 -> 2, 3 -> 4, 4 -> 8, 5 -> 15. */
unsigned qos_vls_of(uint8_t code);
/* Data VLs every linked switch port supports (PortInfo:VLCap), 0 if none was read. */
uint8_t qos_switch_vl_cap(const struct subnet *sn, const struct disc_live *live);
/*
 * The OperationalVLs code port pi should run when cap is the lower VLCap code
 * of its two ends: the class's operational VLs within cap, raised to what the
 * engine's SL-to-VL map spreads routes over.
 */
uint8_t qos_port_op_vls(const struct qos_view *v, uint32_t pi, uint8_t cap);
/*
 * Does port pi have SL-to-VL mapping tables (IBA 14.2.5.6 CapabilityMask
 * IsSLMappingSupported; 14.2.5.8)? A CA or router port says so in its own
 * PortInfo, a switch in its port 0's (CapabilityMask is defined on port 0
 * only). A port without them refuses their Get and Set: nothing is sent
 * there and the SA has no record of them. A dry run (live NULL) takes every
 * port to have them.
 */
bool qos_has_sl2vl(const struct subnet *sn, const struct disc_live *live, uint32_t pi);
/*
 * Does port pi have data VLs, and so the tables of an output port: an
 * SL-to-VL table out of it (IBA 14.2.5.8: the table belongs to the output
 * port) and VL arbitration tables (14.2.5.9: they pick the VL a port sends
 * on next)? Every CA, router and switch external port, and a switch's port 0
 * only when it is enhanced (model/subnet.h SUBNET_PORT_ENHANCED0: read from
 * SwitchInfo:EnhancedPort0 by discovery, from "enhanced port 0" by the
 * topology reader). A base port 0 is no link: it only takes the packets
 * addressed to the switch and sends nothing it must arbitrate. As an input
 * port it is in every output port's SL-to-VL tables: the VLs its own MADs
 * leave on. One rule for programming (fabric/prog_qos.c), the SA's records
 * (sa/sa_rec_tables.c) and the dry run (loom route --qos).
 */
bool qos_has_data_vls(const struct subnet *sn, uint32_t pi);
/*
 * The SL-to-VL table of output port pi; *folded: VLs folded or missing (not
 * when the class's map is the default spread, SL n -> VL n % VLs: that fits
 * any port, all SLs on VL 0 where one VL runs).
 */
void qos_want_sl2vl(const struct qos_view *v, uint32_t pi, uint8_t vl[SMP_NUM_SL],
		    bool *folded);
/* VLArbitration block b (low or high 0-31) of port pi; returns the entries the port has room for. */
unsigned qos_want_vlarb(const struct qos_view *v, uint32_t pi, enum smp_vlarb_block b,
			struct smp_vlarb e[SMP_VLARB_BLOCK]);

#endif
