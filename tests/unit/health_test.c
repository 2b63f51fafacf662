/* SPDX-License-Identifier: MIT */
/*
 * The judges of loom health (fabric/health_*.c) on models read from topology
 * files, with the PortInfo and SMInfo a healthy fabric would give, then one
 * fault at a time: each must be found, named and nothing else reported.
 */
#include <setjmp.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fabric/health.h"
#include "fabric/health_read.h"
#include "mad/txn.h"
#include "model/topo.h"

struct fx {
	struct subnet *sn;
	struct disc_live live;
	struct health_sm_port *sm;
	struct health_findings fs;
};

static struct subnet *read_topo(const char *name)
{
	const char *srcdir = getenv("srcdir");
	char path[4096];
	struct diag d = { 0 };
	struct subnet *sn = NULL;

	snprintf(path, sizeof(path), "%s/tests/topologies/%s", srcdir ? srcdir : ".", name);
	assert_int_equal(topo_read_file(path, &sn, &d), 0);
	diag_free(&d);
	return sn;
}

/*
 * What a sweep of a healthy fabric reads: every linked port Active/LinkUp,
 * 4X QDR of 1X/4X QDR, NeighborMTU 2048, 4 VLs; LIDs 1.. in port order; the
 * SM at node 0 (the first host), which every port names as MasterSMLID.
 */
static void fx_healthy(struct fx *f, const char *topo)
{
	struct subnet *sn = f->sn = read_topo(topo);
	uint16_t lid = 1;

	f->live.node = calloc(sn->n_nodes, sizeof(*f->live.node));
	f->live.port = calloc(sn->n_ports, sizeof(*f->live.port));
	f->sm = calloc(sn->n_ports, sizeof(*f->sm));
	assert_non_null(f->live.node);
	assert_non_null(f->live.port);
	assert_non_null(f->sm);
	f->live.local_port = 1;
	for (uint32_t p = 0; p < sn->n_ports; p++) {
		struct disc_port *dp = &f->live.port[p];
		const struct subnet_port *sp = &sn->port[p];
		bool sw = subnet_is_switch(sn, sp->node), up = sp->peer != SUBNET_NONE;

		dp->have_pi = true;
		dp->pi.state = up || (sw && sp->num == 0) ? SMP_PORT_ACTIVE : SMP_PORT_DOWN;
		dp->pi.phys_state = up ? 5 : 2;
		dp->pi.width_supported = dp->pi.width_enabled = 3;
		dp->pi.width_active = up ? 2 : 0;
		dp->pi.speed_supported = dp->pi.speed_enabled = 7;
		dp->pi.speed_active = up ? 4 : 0;
		dp->pi.neighbor_mtu = 4;
		dp->pi.op_vls = 3;
		dp->pi.sm_lid = 1;
		if ((sw && sp->num == 0) || (!sw && up))
			dp->pi.lid = lid++;
	}
	/* Node 0 is a host: its port 1 has LID 1 and runs the master SM. */
	f->live.port[subnet_port_idx(sn, 0, 1)].pi.cap_mask = HEALTH_CAP_IS_SM;
	f->sm[subnet_port_idx(sn, 0, 1)] = (struct health_sm_port){
		.asked = true, .smi = { .guid = 1, .state = SMP_SM_MASTER, .priority = 0 } };
}

static void fx_free(struct fx *f)
{
	health_findings_free(&f->fs);
	disc_live_free(&f->live);
	free(f->sm);
	subnet_free(f->sn);
}

static const struct health_finding *judge(struct fx *f, const struct subnet *expect)
{
	struct health_input in = { .sn = f->sn, .live = &f->live, .sm = f->sm, .expect = expect };

	health_findings_free(&f->fs);
	health_links_judge(&in, &f->fs);
	health_sm_judge(&in, &f->fs);
	assert_int_equal(f->fs.err, 0);
	health_findings_sort(&f->fs);
	return f->fs.n ? &f->fs.f[0] : NULL;
}

/* Port num of the node named name. */
static uint32_t port_of(const struct fx *f, const char *name, unsigned num)
{
	uint32_t n = subnet_find_name(f->sn, name);

	assert_int_not_equal(n, SUBNET_NONE);
	return subnet_port_idx(f->sn, n, num);
}

static void test_healthy(void **state)
{
	static const char *const topos[] = { "ft2-k8.topo", "torus2d-4x4.topo", "parallel.topo" };

	(void)state;
	for (size_t i = 0; i < sizeof(topos) / sizeof(topos[0]); i++) {
		struct fx f = { 0 };

		fx_healthy(&f, topos[i]);
		assert_null(judge(&f, NULL));
		/* The fabric's own file as --expect: every link is there. */
		assert_null(judge(&f, f.sn));
		fx_free(&f);
	}
}

/* The one finding there must be, on node name port num. */
static const struct health_finding *only(struct fx *f, const char *name, unsigned num,
					 const char *what)
{
	const struct health_finding *x = judge(f, NULL);

	assert_non_null(x);
	assert_int_equal(f->fs.n, 1);
	assert_string_equal(x->what, what);
	assert_int_equal(x->node, subnet_find_name(f->sn, name));
	assert_int_equal(x->guid, f->sn->node[x->node].guid);
	assert_int_equal(x->port, num);
	return x;
}

static void test_width_speed(void **state)
{
	struct fx f = { 0 };
	const struct health_finding *x;
	uint32_t a, b;

	(void)state;
	fx_healthy(&f, "ft2-k8.topo");
	a = port_of(&f, "spine001", 1);
	b = f.sn->port[a].peer;
	/* Both ends trained 1X though both enable 4X: iblinkinfo's "could be 4X". */
	f.live.port[a].pi.width_active = f.live.port[b].pi.width_active = 1;
	x = only(&f, "spine001", 1, "width");
	assert_string_equal(x->measured, "1X");
	assert_non_null(strstr(x->expected, "4X"));
	assert_non_null(strstr(x->detail, "leaf001"));
	/* One end enables 1X only: the link runs 1X, held back by that end. */
	f.live.port[b].pi.width_enabled = 1;
	x = only(&f, "leaf001", 5, "width");
	assert_string_equal(x->measured, "1X (LinkWidthEnabled 0x1)");
	assert_non_null(strstr(x->detail, "spine001"));
	/* Both ends enable 1X only: what they chose, not a fault. */
	f.live.port[a].pi.width_enabled = 1;
	assert_null(judge(&f, NULL));
	f.live.port[a].pi.width_enabled = 3;
	/* Enabled lowered to 1X after the link trained 4X, not retrained (ibportstate). */
	f.live.port[a].pi.width_active = f.live.port[b].pi.width_active = 2;
	x = only(&f, "leaf001", 5, "width not retrained");
	assert_string_equal(x->measured, "4X");
	f.live.port[b].pi.width_enabled = 3;
	/* SDR where both ends run QDR. */
	f.live.port[a].pi.speed_active = f.live.port[b].pi.speed_active = 1;
	x = only(&f, "spine001", 1, "speed");
	assert_string_equal(x->measured, "SDR");
	/* One end enables SDR only: named as the end that holds the link back. */
	f.live.port[a].pi.speed_enabled = 1;
	x = only(&f, "spine001", 1, "speed");
	assert_string_equal(x->measured, "SDR (LinkSpeedEnabled 0x1, Ext 0x0)");
	assert_non_null(strstr(x->expected, "QDR"));
	fx_free(&f);
}

static void test_ends_disagree(void **state)
{
	struct fx f = { 0 };
	uint32_t a;

	(void)state;
	fx_healthy(&f, "parallel.topo");
	a = port_of(&f, "swA", 3);
	f.live.port[f.sn->port[a].peer].pi.neighbor_mtu = 5;
	assert_string_equal(only(&f, "swA", 3, "mtu")->measured, "NeighborMTU 2048 vs 4096");
	f.live.port[f.sn->port[a].peer].pi.neighbor_mtu = 4;
	f.live.port[a].pi.op_vls = 1;
	assert_string_equal(only(&f, "swA", 3, "vls")->measured, "OperationalVLs 1 vs 3");
	fx_free(&f);
}

static void test_states(void **state)
{
	struct fx f = { 0 };
	uint32_t a;

	(void)state;
	fx_healthy(&f, "torus2d-4x4.topo");
	a = port_of(&f, "h00003", 1);
	f.live.port[a].pi.state = SMP_PORT_ARMED;
	assert_string_equal(only(&f, "h00003", 1, "state")->measured, "Armed");
	f.live.port[a].pi.state = SMP_PORT_INIT;
	assert_string_equal(only(&f, "h00003", 1, "state")->measured, "Initialize");
	/* Down with its peer up: named on the Down end. */
	f.live.port[a].pi.state = SMP_PORT_DOWN;
	f.live.port[a].pi.phys_state = 3;
	judge(&f, NULL);
	assert_true(f.fs.n >= 1);
	assert_string_equal(f.fs.f[0].what, "down");
	assert_string_equal(f.fs.f[0].measured, "Down/Disabled");
	fx_free(&f);
}

static void test_expect_missing_link(void **state)
{
	struct fx f = { 0 };
	struct subnet *want = read_topo("ft2-k8.topo");
	const struct health_finding *x;
	uint32_t a, b;

	(void)state;
	fx_healthy(&f, "ft2-k8.topo");
	a = port_of(&f, "spine002", 3);
	b = f.sn->port[a].peer;
	subnet_unlink(f.sn, a);
	f.live.port[a].pi.state = f.live.port[b].pi.state = SMP_PORT_DOWN;
	f.live.port[a].pi.phys_state = f.live.port[b].pi.phys_state = 2;
	assert_null(judge(&f, NULL)); /* without the file, an unused port is not a fault */
	x = judge(&f, want);
	assert_non_null(x);
	assert_int_equal(f.fs.n, 1);
	assert_string_equal(x->what, "missing link");
	assert_string_equal(x->measured, "Down/Polling");
	assert_int_equal(x->node, f.sn->port[a].node);
	assert_int_equal(x->port, 3);
	subnet_free(want);
	fx_free(&f);
}

/* Drift findings of f's fabric against expect, sorted. */
static void drift(struct fx *f, const struct subnet *expect)
{
	struct health_input in = { .sn = f->sn, .live = &f->live, .expect = expect };

	health_findings_free(&f->fs);
	health_drift_judge(&in, &f->fs);
	assert_int_equal(f->fs.err, 0);
	health_findings_sort(&f->fs);
}

/*
 * parallel.topo: the file's swA port 3 <-> swB port 3 cable is at swA port 3
 * <-> swB port 4 in the fabric (and swB port 4's own cable is gone): one
 * moved cable on the common end, swA port 3. A node of the file missing from
 * the fabric is an error named by the file's GUID; one the file lacks, a warning.
 */
static void test_drift(void **state)
{
	struct fx f = { 0 };
	struct subnet *want = read_topo("parallel.topo");
	uint32_t a3, b4;

	(void)state;
	fx_healthy(&f, "parallel.topo");
	drift(&f, want);
	assert_int_equal(f.fs.n, 0);
	a3 = port_of(&f, "swA", 3);
	b4 = port_of(&f, "swB", 4);
	subnet_unlink(f.sn, a3);
	subnet_unlink(f.sn, b4);
	assert_int_equal(subnet_link(f.sn, a3, b4), 0);
	drift(&f, want);
	assert_int_equal(f.fs.n, 1);
	assert_int_equal(f.fs.f[0].group, HEALTH_DRIFT);
	assert_int_equal(f.fs.f[0].severity, HEALTH_ERROR);
	assert_string_equal(f.fs.f[0].what, "moved cable");
	assert_int_equal(f.fs.f[0].node, f.sn->port[a3].node);
	assert_int_equal(f.fs.f[0].port, 3);
	assert_non_null(strstr(f.fs.f[0].measured, "\"swB\""));
	assert_non_null(strstr(f.fs.f[0].measured, "port 4"));
	assert_non_null(strstr(f.fs.f[0].expected, "port 3"));
	fx_free(&f);

	/* The file against a fabric of one switch and two hosts: its other nodes are
	 * missing; the fabric's nodes it does not have are extra. */
	fx_healthy(&f, "single-switch.topo");
	drift(&f, want);
	assert_true(f.fs.n > 0);
	assert_int_equal(health_count(&f.fs, HEALTH_ERROR) + health_count(&f.fs, HEALTH_WARNING),
			 f.fs.n);
	for (uint32_t i = 0; i < f.fs.n; i++) {
		const struct health_finding *x = &f.fs.f[i];

		if (x->severity == HEALTH_ERROR) {
			assert_string_equal(x->what, "missing node");
			assert_int_equal(x->node, SUBNET_NONE);
			assert_int_not_equal(subnet_find_guid(want, x->guid), SUBNET_NONE);
		} else {
			assert_string_equal(x->what, "extra node");
		}
	}
	assert_int_equal(health_count(&f.fs, HEALTH_ERROR), want->n_nodes);
	assert_int_equal(health_count(&f.fs, HEALTH_WARNING), f.sn->n_nodes);
	subnet_free(want);
	fx_free(&f);
}

static void test_lids(void **state)
{
	struct fx f = { 0 };
	uint32_t a, b;

	(void)state;
	fx_healthy(&f, "ft2-k8.topo");
	a = port_of(&f, "h00005", 1);
	b = port_of(&f, "leaf002", 0);
	f.live.port[a].pi.lid = f.live.port[b].pi.lid;
	judge(&f, NULL);
	assert_int_equal(f.fs.n, 1);
	assert_string_equal(f.fs.f[0].what, "duplicate lid");
	f.live.port[a].pi.lid = 0;
	assert_string_equal(only(&f, "h00005", 1, "lid")->measured, "LID 0x0");
	/* LMC 1 gives a port two LIDs: 1000 and 1001 (IBA 7.11.1). */
	f.live.port[a].pi.lid = 1000;
	f.live.port[a].pi.lmc = 1;
	f.live.port[port_of(&f, "h00006", 1)].pi.lid = 1001;
	assert_string_equal(only(&f, "h00006", 1, "duplicate lid")->measured, "LID 1001 (LMC 0)");
	fx_free(&f);
}

static void test_sm(void **state)
{
	struct fx f = { 0 };
	uint32_t m, a;

	(void)state;
	fx_healthy(&f, "ft2-k8.topo");
	m = port_of(&f, "h00001", 1);
	a = port_of(&f, "h00009", 1);
	/* A port told another MasterSMLID. */
	f.live.port[a].pi.sm_lid = 7;
	assert_string_equal(only(&f, "h00009", 1, "sm lid")->measured, "MasterSMLID 7");
	f.live.port[a].pi.sm_lid = 1;
	/* A standby with a lower priority: a warning naming it. */
	f.sm[a] = (struct health_sm_port){ .asked = true,
		.smi = { .guid = 2, .state = SMP_SM_STANDBY, .priority = 0 } };
	assert_int_equal(only(&f, "h00009", 1, "other sm")->severity, HEALTH_WARNING);
	/* A standby that should have won the election: an error. */
	f.sm[a].smi.priority = 5;
	assert_int_equal(only(&f, "h00009", 1, "other sm")->severity, HEALTH_ERROR);
	/* Two masters: both named. */
	f.sm[a].smi.state = SMP_SM_MASTER;
	judge(&f, NULL);
	assert_int_equal(f.fs.n, 2);
	assert_string_equal(f.fs.f[0].what, "second master");
	assert_string_equal(f.fs.f[1].what, "second master");
	/* No master at all. */
	f.sm[a].smi.state = f.sm[m].smi.state = SMP_SM_STANDBY;
	judge(&f, NULL);
	assert_string_equal(f.fs.f[0].what, "master");
	assert_int_equal(f.fs.f[0].node, SUBNET_NONE);
	/* An IsSM port that does not answer: a warning. */
	f.sm[m].smi.state = SMP_SM_MASTER;
	f.sm[a].status = -110;
	assert_int_equal(only(&f, "h00009", 1, "sminfo")->severity, HEALTH_WARNING);
	fx_free(&f);
}

static void test_counters(void **state)
{
	struct fx f = { 0 };
	struct health_pma_port *pma;
	uint32_t thresh[_PMA_COUNTER_MAX];
	struct health_input in;
	uint32_t a;

	(void)state;
	fx_healthy(&f, "ft2-k8.topo");
	health_thresholds_default(thresh);
	assert_int_equal(thresh[PMA_SYMBOL_ERRORS], 10);
	assert_int_equal(thresh[PMA_XMIT_DISCARDS], 100);
	assert_int_equal(thresh[PMA_XMIT_WAIT], 1000);
	pma = calloc(f.sn->n_ports, sizeof(*pma));
	assert_non_null(pma);
	a = port_of(&f, "leaf002", 3);
	pma[a].asked = true;
	in = (struct health_input){ .sn = f.sn, .live = &f.live, .pma = pma, .thresh = thresh };
	/* At the threshold: not reported (ibqueryerrors reports what is over it). */
	pma[a].c.v[PMA_SYMBOL_ERRORS] = 10;
	health_counters_judge(&in, &f.fs);
	assert_int_equal(f.fs.n, 0);
	pma[a].c.v[PMA_SYMBOL_ERRORS] = 11;
	pma[a].c.v[PMA_EXCESSIVE_BUFFER_OVERRUN_ERRORS] = 15;
	pma[a].c.v[PMA_XMIT_WAIT] = 1001;
	health_counters_judge(&in, &f.fs);
	health_findings_sort(&f.fs);
	assert_int_equal(f.fs.n, 3);
	/* Sorted: errors first, then by the check's name. */
	assert_string_equal(f.fs.f[0].what, "ExcessiveBufferOverrunErrors");
	assert_string_equal(f.fs.f[0].measured, "15 (saturated)");
	assert_string_equal(f.fs.f[1].what, "SymbolErrorCounter");
	assert_string_equal(f.fs.f[1].measured, "11");
	assert_string_equal(f.fs.f[1].expected, "at most 10");
	assert_int_equal(f.fs.f[2].severity, HEALTH_WARNING);
	assert_int_equal(f.fs.f[2].port, 3);
	/* A PMA that does not answer is not healthy. */
	health_findings_free(&f.fs);
	pma[a].status = -110;
	health_counters_judge(&in, &f.fs);
	assert_int_equal(f.fs.n, 1);
	assert_string_equal(f.fs.f[0].what, "pma");
	free(pma);
	fx_free(&f);
}

static void test_thresh_file(void **state)
{
	static const char good[] = "# Define error thresholds here\n\n"
				   "SymbolErrorCounter=3\n  PortXmitWait = 0x10 # inline\n"
				   "#PortXmitDiscards=1\nVL15Dropped=0";
	static const char bad[] = "SymbolErrorCounter=3\nBogus=1\nPortRcvErrors\n"
				  "PortRcvErrors=-1\nPortRcvErrors=4294967296\n";
	uint32_t t[_PMA_COUNTER_MAX], want[_PMA_COUNTER_MAX];
	struct diag d = { 0 };

	(void)state;
	health_thresholds_default(t);
	memcpy(want, t, sizeof(t));
	want[PMA_SYMBOL_ERRORS] = 3;
	want[PMA_XMIT_WAIT] = 16;
	want[PMA_VL15_DROPPED] = 0;
	assert_int_equal(health_thresholds_read_mem(good, strlen(good), "t", t, &d), 0);
	assert_int_equal(diag_count(&d), 0);
	assert_memory_equal(t, want, sizeof(t));
	/* Every bad line named; nothing taken from a file with any. */
	assert_int_equal(health_thresholds_read_mem(bad, strlen(bad), "t", t, &d), -EINVAL);
	assert_memory_equal(t, want, sizeof(t));
	assert_int_equal(d.n, 4);
	assert_non_null(strstr(d.msg[0], "t:2: unknown counter 'Bogus'"));
	assert_non_null(strstr(d.msg[1], "t:3: 'PortRcvErrors': expected CounterName=value"));
	assert_non_null(strstr(d.msg[2], "t:4: PortRcvErrors: bad value '-1'"));
	assert_non_null(strstr(d.msg[3], "t:5: PortRcvErrors: bad value '4294967296'"));
	diag_free(&d);
	assert_int_equal(health_thresholds_read_file("/nonexistent/thresholds", t, &d), -ENOENT);
	assert_int_equal(d.n, 1);
	diag_free(&d);
}

static void test_since(void **state)
{
	const char *srcdir = getenv("srcdir");
	char path[4096];
	struct health_since s = { 0 };
	struct diag d = { 0 };
	static const char *const bad[] = {
		"", "[]", "{\"ports\": [ {\"port\": 1} ]}", "{\"ports\": [\n{\"node_guid\": 5}]}",
		"{\"verdict\": \"x\"}", "{\"ports\": []} x",
		"{\"ports\": [{\"node_guid\": \"0x1\", \"port\": 1, "
		"\"counters\": {\"LinkDownedCounter\": 256}}]}",
		"{\"a\": [[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]}",
	};

	(void)state;
	snprintf(path, sizeof(path), "%s/tests/fuzz/corpus/since/run.json", srcdir ? srcdir : ".");
	assert_int_equal(health_since_read_file(path, &s, &d), 0);
	assert_int_equal(d.n, 0);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.port[0].guid, 0x0002c90300000007ull);
	assert_int_equal(s.port[0].port, 2);
	assert_true(s.port[0].up);
	assert_int_equal(s.port[0].c.v[PMA_SYMBOL_ERRORS], 11);
	assert_int_equal(s.port[0].c.v[PMA_XMIT_WAIT], 5000);
	assert_false(s.port[1].up);
	health_since_free(&s);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(health_since_read_mem(bad[i], strlen(bad[i]), "b", &s, &d),
				 -EINVAL);
		assert_int_equal(d.n, i + 1);
	}
	/* FILE:LINE: the line the problem is on. */
	assert_non_null(strstr(d.msg[3], "b:2: "));
	diag_free(&d);
	/* A port with the additional PortCountersExtended: 64-bit error counters. */
	static const char wide[] = "{\"ports\": [{\"node_guid\": \"0x1\", \"port\": 1, \"up\": true, "
				   "\"counters\": {\"LinkDownedCounter\": 70000}, "
				   "\"counter_bits\": \"64\"}]}";
	assert_int_equal(health_since_read_mem(wide, strlen(wide), "w", &s, &d), 0);
	assert_true(s.port[0].c.wide_errors);
	assert_int_equal(s.port[0].c.v[PMA_LINK_DOWNED], 70000);
	health_since_free(&s);
	diag_free(&d);
}

static void test_since_deltas(void **state)
{
	struct fx f = { 0 };
	struct health_pma_port *pma, *base;
	uint32_t thresh[_PMA_COUNTER_MAX];
	struct health_input in;
	uint32_t a;

	(void)state;
	fx_healthy(&f, "ft2-k8.topo");
	health_thresholds_default(thresh);
	pma = calloc(f.sn->n_ports, sizeof(*pma));
	base = calloc(f.sn->n_ports, sizeof(*base));
	assert_non_null(pma);
	assert_non_null(base);
	a = port_of(&f, "leaf002", 3);
	pma[a].asked = base[a].asked = true;
	base[a].c.v[PMA_SYMBOL_ERRORS] = 50;
	pma[a].c.v[PMA_SYMBOL_ERRORS] = 55;
	in = (struct health_input){ .sn = f.sn, .live = &f.live, .pma = pma, .thresh = thresh,
				    .base = base };
	/* High, but it moved by 5: not reported. */
	health_counters_judge(&in, &f.fs);
	assert_int_equal(f.fs.n, 0);
	pma[a].c.v[PMA_SYMBOL_ERRORS] = 70;
	health_counters_judge(&in, &f.fs);
	assert_int_equal(f.fs.n, 1);
	assert_string_equal(f.fs.f[0].measured, "up 20 since (50, now 70)");
	/* Lower than before: reset in between, the whole value moved. */
	health_findings_free(&f.fs);
	pma[a].c.v[PMA_SYMBOL_ERRORS] = 12;
	health_counters_judge(&in, &f.fs);
	assert_int_equal(f.fs.n, 1);
	assert_string_equal(f.fs.f[0].measured, "up 12 since (50, now 12)");
	free(pma);
	free(base);
	fx_free(&f);
}

static void test_groups_parse(void **state)
{
	unsigned m = 0;

	(void)state;
	assert_int_equal(health_groups_parse("links,sm,counters,routes,drift", &m), 0);
	assert_int_equal(m, HEALTH_ALL_GROUPS);
	assert_int_equal(health_groups_parse("sm", &m), 0);
	assert_int_equal(m, 1u << HEALTH_SM);
	assert_int_equal(health_groups_parse("links,bogus", &m), -EINVAL);
	assert_int_equal(health_groups_parse("", &m), -EINVAL);
	assert_int_equal(health_groups_parse("link", &m), -EINVAL);
}

/* A transport that counts what is sent and never answers. */
static int count_send(void *t, const uint8_t *mad, size_t len, unsigned timeout_ms,
		      const struct mad_addr *to)
{
	(void)mad, (void)len, (void)timeout_ms, (void)to;
	++*(unsigned *)t;
	return 0;
}

static int none_recv(void *t, uint8_t *mad, size_t len, struct mad_addr *from)
{
	(void)t, (void)mad, (void)len, (void)from;
	return -EAGAIN;
}

static int no_fd(void *t)
{
	(void)t;
	return -1;
}

static bool stop_now(void *arg)
{
	++*(unsigned *)arg;
	return true;
}

/*
 * The LFT read a caller may stop (a standby's comparison, when a HANDOVER
 * comes): asked before its first batch, it stops with -EINTR, nothing sent,
 * out untouched.
 */
static void test_lft_stop(void **state)
{
	static const struct mad_transport_ops ops = { .send = count_send, .recv = none_recv,
						      .fd = no_fd };
	struct txn_opts o = TXN_OPTS_DEFAULT;
	unsigned sent = 0, asked = 0;
	struct health_progress pg = { .arg = &asked, .stop = stop_now };
	struct health_lft out = { .status = (int *)&asked };
	struct txn *x = NULL;
	struct fx f = { 0 };

	(void)state;
	fx_healthy(&f, "ft2-k8.topo");
	assert_int_equal(txn_new(&ops, &sent, &o, &x), 0);
	assert_int_equal(health_read_lft_some(x, f.sn, &f.live, &pg, 1, &out), -EINTR);
	assert_int_equal(asked, 1);
	assert_int_equal(sent, 0);
	assert_ptr_equal(out.status, (int *)&asked);
	assert_true(txn_idle(x));
	txn_free(x);
	fx_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_healthy),
		cmocka_unit_test(test_width_speed),
		cmocka_unit_test(test_ends_disagree),
		cmocka_unit_test(test_states),
		cmocka_unit_test(test_expect_missing_link),
		cmocka_unit_test(test_drift),
		cmocka_unit_test(test_lids),
		cmocka_unit_test(test_sm),
		cmocka_unit_test(test_counters),
		cmocka_unit_test(test_thresh_file),
		cmocka_unit_test(test_since),
		cmocka_unit_test(test_since_deltas),
		cmocka_unit_test(test_groups_parse),
		cmocka_unit_test(test_lft_stop),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
