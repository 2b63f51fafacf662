/* SPDX-License-Identifier: MIT */
/*
 * loom health: sweep the live fabric (as loom discover does), read what the
 * judges need, print their findings. Reads only; changes nothing.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/cleanup.h"
#include "lib/json.h"
#include "tools/health_opts.h"
#include "tools/health_prom.h"
#include "tools/loom.h"
#include "mad/txn.h"
#include "mad/umad.h"
#include "fabric/disc.h"
#include "fabric/health.h"
#include "fabric/health_read.h"
#include "model/subnet.h"
#include "model/topo.h"

enum { EXIT_HEALTHY, EXIT_PROBLEMS, EXIT_CANNOT };

/* --reset: what was cleared, and every port where the clear did not take. */
static void say_cleared(const struct subnet *sn, const struct health_pma_port *pma)
{
	unsigned ok = 0, bad = 0;

	for (uint32_t p = 0; p < sn->n_ports; p++) {
		const struct subnet_node *n = &sn->node[sn->port[p].node];

		if (!pma[p].cleared)
			continue;
		if (!pma[p].clear_status) {
			ok++;
			continue;
		}
		bad++;
		fprintf(stderr, "loom health: %s 0x%016" PRIx64 " \"%s\" port %u: clearing "
			"PortCounters failed: %s; its counters keep counting from where they were\n",
			subnet_type_name(n->type), n->guid, subnet_str(sn, n->desc), sn->port[p].num,
			strerror(-pma[p].clear_status));
	}
	fprintf(stderr, "loom health: PortCounters cleared on %u port%s%s\n", ok, ok == 1 ? "" : "s",
		bad ? " (see above for the others)" : "");
}

static const char *node_desc(const struct subnet *sn, uint32_t n)
{
	return n == SUBNET_NONE ? "fabric" : subnet_str(sn, sn->node[n].desc);
}

static void print_text(const struct subnet *sn, const struct health_findings *fs)
{
	for (uint32_t i = 0; i < fs->n; i++) {
		const struct health_finding *f = &fs->f[i];

		printf("%-7s %-6s ", health_severity_name(f->severity),
		       health_group_name(f->group));
		if (f->node == SUBNET_NONE)
			printf("fabric");
		else
			printf("\"%s\" 0x%016" PRIx64 " port %u", node_desc(sn, f->node), f->guid,
			       f->port);
		printf(": %s: %s, expected %s", f->what, f->measured, f->expected);
		if (f->detail[0])
			printf(" (%s)", f->detail);
		printf("\n");
	}
}

static void json_field(const char *key, const char *val, bool last)
{
	printf("\"%s\": ", key);
	json_str(stdout, val);
	printf(last ? "" : ", ");
}

/* The raw counters of every port read, so that a later run (or a program) has the values. */
static void print_json_ports(const struct subnet *sn, const struct health_pma_port *pma)
{
	bool first = true;
	char guid[24];

	printf(",\n  \"ports\": [");
	for (uint32_t p = 0; pma && p < sn->n_ports; p++) {
		const struct subnet_node *n = &sn->node[sn->port[p].node];

		if (!pma[p].asked)
			continue;
		snprintf(guid, sizeof(guid), "0x%016" PRIx64, n->guid);
		printf("%s\n    { ", first ? "" : ",");
		first = false;
		json_field("node_guid", guid, false);
		json_field("node_desc", subnet_str(sn, n->desc), false);
		printf("\"port\": %u, \"up\": %s, \"counters\": {", sn->port[p].num,
		       pma[p].status ? "false" : "true");
		for (unsigned c = 0; !pma[p].status && c < _PMA_COUNTER_MAX; c++)
			printf("%s\"%s\": %" PRIu64, c ? ", " : "", pma_counter_name(c),
			       pma[p].c.v[c]);
		printf("}");
		if (!pma[p].status) {
			printf(", \"data\": {");
			for (unsigned d = 0; d < _PMA_DATA_MAX; d++)
				printf("%s\"%s\": %" PRIu64, d ? ", " : "", pma_data_name(d),
				       pma[p].c.data[d]);
			printf("}, \"data_bits\": %u, \"counter_bits\": \"%s\"",
			       pma[p].c.wide_data ? 64 : 32, pma[p].c.wide_errors ? "64" : "PortCounters");
		}
		printf(" }");
	}
	printf("%s]", first ? "" : "\n  ");
}

static void print_json(const struct subnet *sn, const char *verdict, unsigned groups,
		       const struct health_findings *fs, const struct health_pma_port *pma)
{
	char guid[24];
	bool first = true;

	printf("{\n  \"verdict\": \"%s\",\n  \"nodes\": %u,\n  \"groups\": [", verdict,
	       sn ? sn->n_nodes : 0);
	for (unsigned g = 0; g < _HEALTH_GROUP_MAX; g++)
		if (groups & (1u << g)) {
			printf("%s\"%s\"", first ? "" : ", ", health_group_name(g));
			first = false;
		}
	printf("],\n  \"errors\": %u,\n  \"warnings\": %u,\n  \"findings\": [",
	       health_count(fs, HEALTH_ERROR), health_count(fs, HEALTH_WARNING));
	for (uint32_t i = 0; i < fs->n; i++) {
		const struct health_finding *f = &fs->f[i];

		snprintf(guid, sizeof(guid), "0x%016" PRIx64, f->guid);
		printf("%s\n    { ", i ? "," : "");
		json_field("group", health_group_name(f->group), false);
		json_field("severity", health_severity_name(f->severity), false);
		json_field("node_guid", guid, false);
		json_field("node_desc", node_desc(sn, f->node), false);
		printf("\"port\": %u, ", f->port);
		json_field("what", f->what, false);
		json_field("measured", f->measured, false);
		json_field("expected", f->expected, false);
		json_field("detail", f->detail, true);
		printf(" }");
	}
	printf("%s]", fs->n ? "\n  " : "");
	if (groups & (1u << HEALTH_COUNTERS))
		print_json_ports(sn, pma);
	printf("\n}\n");
}

/* The sweep's message about a duplicate GUID, for the finding's detail. */
static const char *first_dup_msg(const struct disc_report *rep)
{
	for (unsigned i = 0; i < rep->msgs.n; i++)
		if (strstr(rep->msgs.msg[i], "duplicate GUID"))
			return rep->msgs.msg[i];
	return NULL;
}

/* The sweep's own trouble (nodes that did not answer) is a finding: not seen is not healthy. */
static void sweep_findings(const struct health_args *a, const struct subnet *sn,
			   const struct disc_report *rep, struct health_findings *fs)
{
	char m[HEALTH_TEXT];

	/* IBA 14.2.5.3: NodeGUIDs are unique; the sweep left the second one out. */
	if (rep->dups && (a->groups & (1u << HEALTH_SM))) {
		snprintf(m, sizeof(m), "%u switch%s with another node's NodeGUID", rep->dups,
			 rep->dups == 1 ? "" : "es");
		health_add(fs, HEALTH_SM, HEALTH_ERROR, sn, SUBNET_NONE, 0, "duplicate guid", m,
			   "unique GUIDs (the second was left out of the sweep)",
			   first_dup_msg(rep));
	}
	if (!rep->timeouts && !rep->errors)
		return;
	snprintf(m, sizeof(m), "%u requests unanswered, %u refused or inconsistent",
		 rep->timeouts, rep->errors);
	health_add(fs, HEALTH_LINKS, HEALTH_ERROR, sn, SUBNET_NONE, 0, "sweep", m,
		   "every node and port answers", rep->msgs.n ? rep->msgs.msg[0] : NULL);
}

static bool no_master(const struct health_findings *fs)
{
	for (uint32_t i = 0; i < fs->n; i++)
		if (fs->f[i].group == HEALTH_SM && fs->f[i].node == SUBNET_NONE &&
		    !strcmp(fs->f[i].what, "master"))
			return true;
	return false;
}

/* Judge, print, and say what the exit status is. */
static int report(const struct health_args *a, const struct subnet *sn, struct health_input *in,
		  struct health_findings *fs)
{
	unsigned ne, nw;
	const char *verdict;
	int rc;

	if (a->groups & (1u << HEALTH_LINKS))
		health_links_judge(in, fs);
	if (a->groups & (1u << HEALTH_SM))
		health_sm_judge(in, fs);
	if (a->groups & (1u << HEALTH_COUNTERS))
		health_counters_judge(in, fs);
	if (a->groups & (1u << HEALTH_ROUTES))
		health_routes_judge(in, fs);
	if (a->groups & (1u << HEALTH_DRIFT))
		health_drift_judge(in, fs);
	if (fs->err) {
		fprintf(stderr, "loom health: %s\n", strerror(-fs->err));
		return EXIT_CANNOT;
	}
	health_findings_sort(fs);
	ne = health_count(fs, HEALTH_ERROR);
	nw = health_count(fs, HEALTH_WARNING);
	rc = ne || (a->strict && nw) ? EXIT_PROBLEMS : EXIT_HEALTHY;
	verdict = rc ? "problems" : "healthy";
	if (no_master(fs)) {
		rc = EXIT_CANNOT;
		verdict = "cannot check";
	}
	if (a->prom) {
		int r = health_prom_write(a->prom, sn, in->pma, a->groups, fs, rc);

		if (r < 0) {
			fprintf(stderr, "loom health: --prometheus %s: cannot write: %s\n", a->prom,
				strerror(-r));
			rc = EXIT_CANNOT;
		}
	}
	if (a->json) {
		print_json(sn, verdict, a->groups, fs, in->pma);
		return rc;
	}
	printf("loom health: %s: %u nodes; %u error%s, %u warning%s%s\n", verdict, sn->n_nodes,
	       ne, ne == 1 ? "" : "s", nw, nw == 1 ? "" : "s",
	       rc == EXIT_CANNOT ? " (no master SM: LIDs and SM state cannot be judged)" : "");
	print_text(sn, fs);
	return rc;
}

static int read_expect(const char *path, struct subnet **out)
{
	struct diag d = { .limit = 20 };
	int r = topo_read_file(path, out, &d);

	if (r < 0) {
		diag_print(&d, stderr);
		if (!diag_count(&d))
			fprintf(stderr, "loom health: %s: %s\n", path, strerror(-r));
		fprintf(stderr, "loom health: --expect %s cannot be read; nothing was checked\n",
			path);
	}
	diag_free(&d);
	return r;
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* --progress: a line on stderr about once a second, never on stdout. */
struct progress {
	uint64_t start, last;
};

static void progress_say(void *arg, const char *what, uint64_t done, uint64_t total)
{
	struct progress *pr = arg;
	uint64_t now = now_ms();

	if (now - pr->last < 1000)
		return;
	pr->last = now;
	if (total)
		fprintf(stderr, "loom health: %s: %" PRIu64 " of %" PRIu64 " (%" PRIu64 "%%), %.1f s\n",
			what, done, total, done * 100 / total, (double)(now - pr->start) / 1000);
	else
		fprintf(stderr, "loom health: %s: %" PRIu64 ", %.1f s\n", what, done,
			(double)(now - pr->start) / 1000);
}

static void progress_sweep(void *arg, uint32_t nodes)
{
	((struct progress *)arg)->last = 0; /* the sweep calls once a second already */
	progress_say(arg, "sweep: nodes found", nodes, 0);
}

/* Whether every master read again answered, with an ActCount other than the first's. */
static bool all_moved(const struct subnet *sn, const struct health_sm_port *sm)
{
	for (uint32_t p = 0; p < sn->n_ports; p++)
		if (sm[p].again && (sm[p].status2 || sm[p].smi2.act_count == sm[p].smi.act_count))
			return false;
	return true;
}

/*
 * The master's ActCount, a second time: act_wait_ms after the first read.
 * The reads in between (counters, LFTs) have used up part of the wait, so
 * it is read at once first: a count that has moved by now has moved within
 * the wait too (it only counts up), and there is no need to sit out the
 * rest. Only a count that has not moved yet (or a master that did not
 * answer) is read again once the whole wait has passed, and judged on that
 * read, as if it had been the only one.
 */
static int read_sm_again(const struct health_args *a, struct txn *x, const struct subnet *sn,
			 const struct disc_live *live, struct health_sm_port *sm, uint64_t first_ms,
			 struct progress *pr)
{
	uint64_t now = now_ms();
	int r;

	if (!a->act_wait_ms)
		return 0;
	if (now - first_ms < a->act_wait_ms) {
		uint64_t rest;
		struct timespec ts;

		r = health_read_sm_again(x, sn, live, sm, (uint32_t)(now - first_ms));
		if (r < 0 || all_moved(sn, sm))
			return r;
		now = now_ms();
		rest = now - first_ms < a->act_wait_ms ? a->act_wait_ms - (now - first_ms) : 0;
		ts = (struct timespec){ (time_t)(rest / 1000), (long)(rest % 1000) * 1000000 };
		if (pr) {
			pr->last = 0;
			progress_say(pr, "waiting to read the master's ActCount again (ms)", rest, 0);
		}
		while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
			;
	}
	return health_read_sm_again(x, sn, live, sm, (uint32_t)(now_ms() - first_ms));
}

/* The counters group's reads; says what failed. */
static int read_counters(const struct health_args *a, struct mad_umad *u, const struct subnet *sn,
			 const struct disc_live *live, bool since,
			 const struct health_progress *pg, struct health_pma_port **pma)
{
	/* Only a verdict wanted: switches summed first, as ibqueryerrors does. */
	bool verdict_only = !a->json && !a->prom && !since && !a->reset;
	struct health_pma_opts po = { .clear = a->reset, .data = a->json || a->prom || a->reset,
				      .summary = verdict_only ? a->thresh : NULL, .pg = pg };
	int r = health_read_pma(&mad_umad_ops, u, &a->o, sn, live, &po, pma);

	if (r < 0) {
		fprintf(stderr, "loom health: reading PortCounters failed: %s\n", strerror(-r));
		return r;
	}
	if (a->reset)
		say_cleared(sn, *pma);
	return 0;
}

static int sweep_and_judge(const struct health_args *a, struct mad_umad *u, struct txn *x,
			   const struct subnet *expect, const struct health_since *since)
{
	_cleanup_(subnet_freep) struct subnet *sn = NULL;
	_cleanup_free_ struct health_sm_port *sm = NULL;
	_cleanup_free_ struct health_pma_port *pma = NULL;
	_cleanup_free_ struct health_pma_port *base = NULL;
	struct disc_report rep = { .msgs.limit = DISC_MAX_MSGS };
	struct health_findings fs = { 0 };
	struct disc_live live = { 0 };
	struct health_lft lft = { 0 };
	struct health_sl2vl sl2vl = { 0 };
	struct health_sl sl = { 0 };
	struct health_input in;
	struct progress pr = { .start = now_ms(), .last = now_ms() };
	struct health_progress pg = { .fn = progress_say, .arg = &pr };
	const struct health_progress *pgp = a->progress ? &pg : NULL;
	uint64_t sm_ms = 0;
	int r, rc;

	if (a->progress) {
		rep.progress = progress_sweep;
		rep.progress_arg = &pr;
	}
	r = disc_run(x, &sn, &live, &rep);
	for (unsigned i = 0; i < rep.msgs.n; i++)
		fprintf(stderr, "loom health: sweep: %s\n", rep.msgs.msg[i]);
	if (r < 0) {
		fprintf(stderr, "loom health: the sweep failed: %s; nothing was checked\n",
			strerror(-r));
		disc_report_free(&rep);
		return EXIT_CANNOT;
	}
	if (a->groups & (1u << HEALTH_SM)) {
		r = health_read_sm(x, sn, &live, &sm);
		sm_ms = now_ms();
		if (r < 0) {
			fprintf(stderr, "loom health: reading SMInfo failed: %s\n", strerror(-r));
			rc = EXIT_CANNOT;
			goto out;
		}
	}
	if ((a->groups & (1u << HEALTH_COUNTERS)) &&
	    read_counters(a, u, sn, &live, since != NULL, pgp, &pma) < 0) {
		rc = EXIT_CANNOT;
		goto out;
	}
	if (a->groups & (1u << HEALTH_ROUTES)) {
		r = health_read_lft(x, sn, &live, pgp, &lft);
		if (r < 0) {
			fprintf(stderr, "loom health: reading the LFTs failed: %s\n", strerror(-r));
			rc = EXIT_CANNOT;
			goto out;
		}
		r = health_routes_need_vls(sn, &live, &lft) ?
			    health_read_sl2vl(x, sn, &live, &lft.ro, &sl2vl) : 0;
		if (r < 0) {
			fprintf(stderr, "loom health: reading the SL-to-VL tables failed: %s\n",
				strerror(-r));
			rc = EXIT_CANNOT;
			goto out;
		}
		/* VLs in use: the SL of each route, from the SA (the routes group says if not). */
		if (sl2vl.asked) {
			r = health_read_sl(&mad_umad_ops, u, &a->o, sn, &live, &lft.ro, &sl);
			if (r < 0)
				sl.status = r;
		}
		if (a->progress)
			fprintf(stderr, "loom health: routes: %u SL-to-VL tables read (%u not), "
				"%u PathRecords asked (%u not answered), SLs 0x%04x\n", sl2vl.asked,
				sl2vl.failed, sl.asked, sl.failed, sl.sls_used);
	}
	if (sm) {
		r = read_sm_again(a, x, sn, &live, sm, sm_ms, a->progress ? &pr : NULL);
		if (r < 0) {
			fprintf(stderr, "loom health: reading SMInfo again failed: %s\n",
				strerror(-r));
			rc = EXIT_CANNOT;
			goto out;
		}
	}
	if (since && health_since_base(since, sn, &base) < 0) {
		fprintf(stderr, "loom health: %s\n", strerror(ENOMEM));
		rc = EXIT_CANNOT;
		goto out;
	}
	in = (struct health_input){ .sn = sn, .live = &live, .sm = sm, .expect = expect,
				    .pma = pma, .thresh = a->thresh, .base = base,
				    .lft = &lft, .sl2vl = sl2vl.asked ? &sl2vl : NULL,
				    .sl = sl2vl.asked ? &sl : NULL };
	sweep_findings(a, sn, &rep, &fs);
	rc = report(a, sn, &in, &fs);
out:
	health_sl_free(&sl);
	health_sl2vl_free(&sl2vl);
	health_lft_free(&lft);
	health_findings_free(&fs);
	disc_live_free(&live);
	disc_report_free(&rep);
	return rc;
}

int cmd_health(int argc, char **argv)
{
	struct health_args a;
	_cleanup_(mad_umad_closep) struct mad_umad *u = NULL;
	_cleanup_(txn_freep) struct txn *x = NULL;
	_cleanup_(subnet_freep) struct subnet *expect = NULL;
	_cleanup_(health_since_free) struct health_since since = { 0 };
	int r;

	r = health_opts_parse(argc, argv, &a);
	if (r <= 0)
		return r < 0 ? EXIT_CANNOT : EXIT_HEALTHY;
	if (a.expect && read_expect(a.expect, &expect) < 0)
		return EXIT_CANNOT;
	if (a.since) {
		struct diag d = { .limit = 20 };

		r = health_since_read_file(a.since, &since, &d);
		diag_print(&d, stderr);
		diag_free(&d);
		if (r < 0) {
			fprintf(stderr, "loom health: --since %s cannot be used; "
				"nothing was checked\n", a.since);
			return EXIT_CANNOT;
		}
	}
	r = mad_umad_open(a.ca, a.port,
			  (a.groups & (1u << HEALTH_COUNTERS) ? MAD_UMAD_PERF : 0) |
			  (a.groups & (1u << HEALTH_ROUTES) ? MAD_UMAD_SA_QUERY : 0), &u);
	if (r < 0) {
		fprintf(stderr, "loom health: cannot open %s%s: %s; nothing was checked\n",
			a.ca ? "CA " : "", a.ca ? a.ca : "the first CA", strerror(-r));
		return EXIT_CANNOT;
	}
	r = txn_new(&mad_umad_ops, u, &a.o, &x);
	if (r < 0) {
		fprintf(stderr, "loom health: %s; nothing was checked\n", strerror(-r));
		return EXIT_CANNOT;
	}
	return sweep_and_judge(&a, u, x, expect, a.since ? &since : NULL);
}
