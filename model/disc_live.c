/* SPDX-License-Identifier: MIT */
#include <stdlib.h>

#include "model/disc_live.h"
#include "model/subnet.h"

void disc_live_free(struct disc_live *l)
{
	if (!l)
		return;
	free(l->node);
	free(l->port);
	l->node = NULL;
	l->port = NULL;
}

uint8_t disc_live_speed(const struct smp_port_info *pi)
{
	if ((pi->cap_mask & SMP_CAP_EXT_SPEEDS) && pi->ext_speed_active) {
		switch (pi->ext_speed_active) {
		case 1: return SPEED_FDR;
		case 2: return SPEED_EDR;
		case 4: return SPEED_HDR;
		case 8: return SPEED_NDR;
		}
		return SPEED_UNKNOWN;
	}
	/* FDR10 shows only in Mellanox's ExtendedPortInfo, not read here. */
	switch (pi->speed_active) {
	case 1: return SPEED_SDR;
	case 2: return SPEED_DDR;
	case 4: return SPEED_QDR;
	}
	return SPEED_UNKNOWN;
}
