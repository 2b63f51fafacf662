/* SPDX-License-Identifier: MIT */
#ifndef LOOM_FABRIC_HEALTH_H
#define LOOM_FABRIC_HEALTH_H

/*
 * fabric/health_* — loom health: read the live fabric, judge it, hand back findings
 * (fabric/'s file list is in fabric/prog.h).
 *   health.c        findings: the list, names of groups and severities
 *   health_links.c  judge: port states, trained width/speed, MTU and VLs of link ends
 *   health_sm.c     judge: one master SM, SMInfo of every IsSM port, LIDs, MasterSMLID
 *   health_counters.c judge: PerfMgt error counters against thresholds
 *   health_thresh.c parser: ibqueryerrors' threshold file (Name=value lines)
 *   health_since.c  parser: an earlier --json run's counters (--since)
 *   health_read.c   reader: SMInfo of every port that says IsSM, by directed route
 *   health_pma.c    reader: PortCounters of every port that is up, LID-routed to its PMA
 *   health_lft.c    reader: the LFT blocks of every switch up to LinearFDBTop, by directed route
 *   health_sl2vl.c  reader: the SLtoVLMappingTables of the switch port pairs leading onto
 *                   switch links with OperationalVLs > 1, by directed route
 *   health_sl.c     reader: the SL of each route, from the SA's PathRecords (one host
 *                   of each switch to every destination LID)
 *   health_routes.c judge: those LFTs by routing/check.c (unreachable pairs, loops,
 *                   credit loops), LinearFDBTop below the highest LID in use
 *   health_drift.c  judge: --expect against the fabric by model/diff.c: nodes missing
 *                   or extra, extra links, cables moved
 *
 * Data flows one way: fabric/disc.c sweeps (model + disc_live), health_read.c
 * and health_pma.c read what the sweep does not (SMInfo, PortCounters) into a
 * struct health_input, the judges turn that into findings. Judges are pure
 * (no MADs, no printing), so a unit test feeds them a model read from a
 * topology file; the edge (tools/cmd_health.c) prints the findings.
 */

#include <stdbool.h>
#include <stdint.h>

#include "lib/diag.h"
#include "mad/pma.h"
#include "mad/smp.h"
#include "model/disc_live.h"
#include "model/subnet.h"
#include "routing/route.h"

enum health_group {
	HEALTH_LINKS,
	HEALTH_SM,
	HEALTH_COUNTERS,
	HEALTH_ROUTES,
	HEALTH_DRIFT,
	_HEALTH_GROUP_MAX,
};

enum health_severity {
	HEALTH_ERROR,
	HEALTH_WARNING,
	_HEALTH_SEV_MAX,
};

/* IBA 14.2.5.6 CapabilityMask: IsSM (bit 1); extended speeds: mad/smp.h. */
#define HEALTH_CAP_IS_SM 0x2u

#define HEALTH_ALL_GROUPS ((1u << _HEALTH_GROUP_MAX) - 1)
#define HEALTH_TEXT 64

/*
 * One problem: what a person reads and what a program parses. node is the
 * model index (SUBNET_NONE: the fabric as a whole); port 0 on a CA means the
 * node, not a port.
 */
struct health_finding {
	uint8_t group;    /* enum health_group */
	uint8_t severity; /* enum health_severity */
	uint8_t port;
	uint32_t node;
	uint64_t guid;                 /* the node's GUID (0 with node SUBNET_NONE) */
	char what[HEALTH_TEXT];        /* the check, short: "width", "state", "master" */
	char measured[HEALTH_TEXT];    /* what the fabric holds */
	char expected[HEALTH_TEXT];    /* what it should hold */
	char detail[6 * HEALTH_TEXT];  /* one sentence more: the peer, the other master, the pair */
};

struct health_findings {
	struct health_finding *f;
	uint32_t n, cap;
	int err; /* -ENOMEM once a finding could not be kept */
};

/* An SMInfo read of one port (indexed like the model's ports). */
struct health_sm_port {
	bool asked;  /* the port says IsSM (CapabilityMask), so it was asked */
	int status;  /* 0: smi holds the answer; else -errno of the read */
	struct smp_sm_info smi;
	/* A MASTER is read a second time, waited_ms later, to see its ActCount move. */
	bool again;
	int status2; /* 0: smi2 holds the second answer; else -errno */
	uint32_t waited_ms;
	struct smp_sm_info smi2;
};

/* A PortCounters read of one port (indexed like the model's ports). */
struct health_pma_port {
	bool asked;
	int status; /* 0: c holds the answer; else -errno of the read */
	bool cleared;     /* --reset: a clear was sent after the read */
	int clear_status; /* 0: cleared; else -errno of the clear */
	int ci_status;    /* its PMA's ClassPortInfo: 0 read into ci; else -errno */
	int sum_status;   /* the port that asked for its switch's sum: -errno if it failed */
	struct pma_class_info ci;
	bool ext_asked;   /* ci says PortCountersExtended: it was read too */
	int ext_status;   /* 0: c's data (and maybe error) counters are 64-bit ones */
	struct pma_counters c;
};

/*
 * How far a long read has got, for the edge to show (the readers call it
 * often; it decides when to print). what: "PortCounters", "SMInfo", ...
 */
struct health_progress {
	void (*fn)(void *arg, const char *what, uint64_t done, uint64_t total);
	void *arg;
	/*
	 * May be NULL. Asked between batches of a read (what the transport
	 * received meanwhile, its hooks have seen): true, and the read stops
	 * with -EINTR, its requests in flight answered first.
	 */
	bool (*stop)(void *arg);
};

/* The LFTs read back from the switches (health_lft.c). */
struct health_lft {
	struct route_out ro; /* switches numbered as route_out_number numbers them */
	int *status;         /* [ro.n_sw] 0: read; else -errno of the first failed block */
	/*
	 * The checker's run on them, every route on VL 0, as the judge runs
	 * it (health_routes_need_vls keeps it): the judge takes it instead of
	 * running the checker again when the VLs are not read.
	 */
	bool vl0_kept;
	int vl0_status; /* check_routes' return */
	struct diag vl0_msgs;
};

void health_lft_free(struct health_lft *h);

/*
 * The SL-to-VL tables read back from the switches (health_sl2vl.c): one
 * per (switch, input port, output port) whose output runs more than VL0 to
 * another switch; every other pair (not asked, or not answered) maps every
 * SL to VL0.
 */
struct health_sl2vl {
	uint32_t n_sw;
	const uint32_t *sw_index; /* the LFTs' route_out.sw_index: node -> switch */
	uint32_t *stride;         /* [n_sw] NumPorts + 1 */
	size_t *base;             /* [n_sw] where switch s's tables start in vl */
	int *status;              /* [n_sw] 0, or -errno of its first failed table */
	uint8_t *vl;              /* [in][out][SL] per switch */
	uint32_t asked, failed;   /* tables asked, and those not read */
};

static inline uint8_t *health_sl2vl_table(const struct health_sl2vl *h, uint32_t sw,
					  uint8_t in, uint8_t out)
{
	return h->vl + h->base[sw] + ((size_t)in * h->stride[sw] + out) * 16;
}

void health_sl2vl_free(struct health_sl2vl *h);

/*
 * The SL of each route as the SA answers it (health_sl.c): shaped as
 * route_out.sl, row s the switch where a host's route enters the fabric,
 * entry the destination LID (only rows of switches with hosts filled).
 */
struct health_sl {
	uint8_t *sl;            /* NULL: not read */
	uint32_t asked, failed; /* PathRecord Gets, and those with no answer */
	uint16_t sls_used;      /* bit n: some answer gave SL n */
	int status;             /* 0, or -errno of the first failure */
};

void health_sl_free(struct health_sl *h);

/*
 * Whether the routes group needs the SLs and SL-to-VL tables: switch links
 * run more than VL0 and the LFTs read, every route on VL 0, make a credit
 * loop (with none there, no SLs and tables can make one: not read). The
 * checker's run that says so is kept in lft (vl0_*) for the judge.
 */
bool health_routes_need_vls(const struct subnet *sn, const struct disc_live *live,
			    struct health_lft *lft);

/*
 * The thresholds infiniband-diags suggests (its error_thresholds file): a
 * counter over its threshold is reported, as ibqueryerrors does (threshold 0:
 * any non-zero value, plain ibqueryerrors).
 */
void health_thresholds_default(uint32_t t[_PMA_COUNTER_MAX]);
/*
 * An ibqueryerrors threshold file (health_thresh.c): "CounterName=value"
 * lines set those counters in t. Every problem goes to d as FILE:LINE:
 * message; then -EINVAL (-errno if unreadable) and t is unchanged.
 */
int health_thresholds_read_file(const char *path, uint32_t t[_PMA_COUNTER_MAX], struct diag *d);
int health_thresholds_read_mem(const char *buf, size_t len, const char *name,
			       uint32_t t[_PMA_COUNTER_MAX], struct diag *d);

/* One port of an earlier run's --json (health_since.c). */
struct health_since_port {
	uint64_t guid; /* NodeGUID */
	uint8_t port;
	bool up;       /* its PMA answered then: c holds its counters */
	struct pma_counters c;
};

struct health_since {
	struct health_since_port *port;
	size_t n, cap;
};

/*
 * Read the ports of a `loom health --json` run (with the counters group).
 * The first problem goes to d as FILE:LINE: message; then -EINVAL (-errno
 * if unreadable) and *out untouched.
 */
int health_since_read_file(const char *path, struct health_since *out, struct diag *d);
int health_since_read_mem(const char *buf, size_t len, const char *name, struct health_since *out,
			  struct diag *d);
void health_since_free(struct health_since *s);
/* The earlier counters indexed like sn's ports (asked: the port was read then). */
int health_since_base(const struct health_since *s, const struct subnet *sn,
		      struct health_pma_port **out);

/*
 * Everything the judges look at. live->port[] holds PortInfo as the sweep
 * read it. sm (may be NULL: not read) is indexed like the model's ports.
 * expect (may be NULL) is the fabric as it should be (--expect, a topology
 * file): its links name the peer a Down port should have; nodes are matched
 * by NodeGUID.
 */
struct health_input {
	const struct subnet *sn;
	const struct disc_live *live;
	const struct health_sm_port *sm;
	const struct subnet *expect;
	const struct health_pma_port *pma; /* may be NULL: not read */
	const uint32_t *thresh;             /* _PMA_COUNTER_MAX thresholds, with pma */
	const struct health_pma_port *base; /* may be NULL: --since, the earlier values */
	const struct health_lft *lft;       /* may be NULL: not read (routes group) */
	const struct health_sl2vl *sl2vl;   /* may be NULL: not read (no VLs in use) */
	const struct health_sl *sl;         /* may be NULL: not read */
};

const char *health_group_name(enum health_group g);
const char *health_severity_name(enum health_severity s);
/* Parse "links,sm" into a mask of groups; -EINVAL names nothing known. */
int health_groups_parse(const char *s, unsigned *mask);

/* Add a finding (strings are copied, cut to fit; NULL is empty). Never fails: out of
 * memory sets fs->err. */
void health_add(struct health_findings *fs, enum health_group g, enum health_severity s,
		const struct subnet *sn, uint32_t node, uint8_t port, const char *what,
		const char *measured, const char *expected, const char *detail);
void health_findings_free(struct health_findings *fs);
/* Sort by severity (errors first), then group, then node and port: the print order. */
void health_findings_sort(struct health_findings *fs);
unsigned health_count(const struct health_findings *fs, enum health_severity s);

/* The judges: each appends what it finds in its group to fs. */
void health_links_judge(const struct health_input *in, struct health_findings *fs);
void health_sm_judge(const struct health_input *in, struct health_findings *fs);
void health_counters_judge(const struct health_input *in, struct health_findings *fs);
/* Routes (health_routes.c): in->lft judged by routing/check.c, as `loom verify` judges. */
void health_routes_judge(const struct health_input *in, struct health_findings *fs);
/* Drift (health_drift.c): in->expect against the fabric: nodes missing or extra, extra
 * links, cables moved (missing links are the links group's). Nothing without expect. */
void health_drift_judge(const struct health_input *in, struct health_findings *fs);

/* A port's names as iblinkinfo prints them (IBA 14.2.5.6). */
const char *health_state_name(uint8_t state);
const char *health_phys_name(uint8_t phys);
/* "4X", "1X", "?"; "SDR", "EDR", "?" for the width and speed fields of PortInfo. */
const char *health_width_name(uint8_t width_bit);

#endif
