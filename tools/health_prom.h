/* SPDX-License-Identifier: MIT */
#ifndef LOOM_TOOLS_HEALTH_PROM_H
#define LOOM_TOOLS_HEALTH_PROM_H

#include "fabric/health.h"

/*
 * Write loom health's result to path in node_exporter's textfile format,
 * atomically (a temporary file in path's folder, then rename): the verdict
 * (0, 1, 2), findings by group and severity, and when pma is not NULL
 * loom_port_up and every error counter of every port read. 0 or -errno.
 */
int health_prom_write(const char *path, const struct subnet *sn,
		      const struct health_pma_port *pma, unsigned groups,
		      const struct health_findings *fs, int verdict);

#endif
