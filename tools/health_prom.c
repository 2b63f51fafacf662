/* SPDX-License-Identifier: MIT */
/*
 * loom health --prometheus FILE: node_exporter's textfile-collector format
 * (Prometheus text exposition 0.0.4), written to a temporary file in FILE's
 * folder and renamed over FILE, so a collector never reads half a file.
 * Every port read is in it, healthy or not (a series that vanishes cannot be
 * alerted on), and a port whose PMA did not answer is loom_port_up 0.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tools/health_prom.h"

/* A label value: backslash, double quote and newline escaped. */
static void label(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			fprintf(f, "\\%c", *s);
		else if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
}

static void port_labels(FILE *f, const struct subnet *sn, uint32_t p)
{
	const struct subnet_node *n = &sn->node[sn->port[p].node];

	fprintf(f, "node_guid=\"0x%016" PRIx64 "\",node_desc=\"", n->guid);
	label(f, subnet_str(sn, n->desc));
	fprintf(f, "\",port=\"%u\"", sn->port[p].num);
}

static void write_ports(FILE *f, const struct subnet *sn, const struct health_pma_port *pma)
{
	fputs("# HELP loom_port_up 1 if the port's PMA answered PortCounters, else 0.\n"
	      "# TYPE loom_port_up gauge\n", f);
	for (uint32_t p = 0; p < sn->n_ports; p++) {
		if (!pma[p].asked)
			continue;
		fputs("loom_port_up{", f);
		port_labels(f, sn, p);
		fprintf(f, "} %d\n", pma[p].status == 0);
	}
	fputs("# HELP loom_port_counter PerfMgt PortCounters error counter (IBA 16.1.3.5).\n"
	      "# TYPE loom_port_counter gauge\n", f);
	for (uint32_t p = 0; p < sn->n_ports; p++) {
		if (!pma[p].asked || pma[p].status)
			continue;
		for (unsigned c = 0; c < _PMA_COUNTER_MAX; c++) {
			fprintf(f, "loom_port_counter{counter=\"%s\",", pma_counter_name(c));
			port_labels(f, sn, p);
			fprintf(f, "} %" PRIu64 "\n", pma[p].c.v[c]);
		}
	}
	fputs("# HELP loom_port_data PerfMgt data counters (PortXmitData, PortRcvData: units of 4\n"
	      "# octets), 64 bits from PortCountersExtended where the port has it, else 32.\n"
	      "# TYPE loom_port_data counter\n", f);
	for (uint32_t p = 0; p < sn->n_ports; p++) {
		if (!pma[p].asked || pma[p].status)
			continue;
		for (unsigned d = 0; d < _PMA_DATA_MAX; d++) {
			fprintf(f, "loom_port_data{counter=\"%s\",", pma_data_name(d));
			port_labels(f, sn, p);
			fprintf(f, "} %" PRIu64 "\n", pma[p].c.data[d]);
		}
	}
}

static void write_problems(FILE *f, unsigned groups, const struct health_findings *fs)
{
	fputs("# HELP loom_health_problems Findings of loom health, by group and severity.\n"
	      "# TYPE loom_health_problems gauge\n", f);
	for (unsigned g = 0; g < _HEALTH_GROUP_MAX; g++) {
		if (!(groups & (1u << g)))
			continue;
		for (unsigned s = 0; s < _HEALTH_SEV_MAX; s++) {
			unsigned n = 0;

			for (uint32_t i = 0; i < fs->n; i++)
				n += fs->f[i].group == g && fs->f[i].severity == s;
			fprintf(f, "loom_health_problems{group=\"%s\",severity=\"%s\"} %u\n",
				health_group_name(g), health_severity_name(s), n);
		}
	}
}

int health_prom_write(const char *path, const struct subnet *sn,
		      const struct health_pma_port *pma, unsigned groups,
		      const struct health_findings *fs, int verdict)
{
	char *tmp = NULL;
	FILE *f;
	int r = 0;

	if (asprintf(&tmp, "%s.tmp.%ld", path, (long)getpid()) < 0)
		return -ENOMEM;
	f = fopen(tmp, "we");
	if (!f) {
		r = -errno;
		free(tmp);
		return r;
	}
	fputs("# HELP loom_health_verdict 0 healthy, 1 problems, 2 could not check.\n"
	      "# TYPE loom_health_verdict gauge\n", f);
	fprintf(f, "loom_health_verdict %d\n", verdict);
	write_problems(f, groups, fs);
	if (pma)
		write_ports(f, sn, pma);
	if (fflush(f) || ferror(f) || fsync(fileno(f)))
		r = errno ? -errno : -EIO;
	if (fclose(f) && !r)
		r = -errno;
	if (!r && rename(tmp, path) < 0)
		r = -errno;
	if (r)
		unlink(tmp);
	free(tmp);
	return r;
}
