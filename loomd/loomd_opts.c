/* SPDX-License-Identifier: MIT */
/*
 * loomd's options: the command line, then the configuration file under it
 * (what the command line did not set comes from the file).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "lib/cleanup.h"
#include "lib/log.h"
#include "lib/strnum.h"
#include "routing/route.h"
#include "loomd/ctl_proto.h"
#include "loomd/loomd.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: loomd [OPTIONS]\n\n"
		"The loom InfiniBand subnet manager: discovers the fabric, assigns LIDs, routes,\n"
		"programs the switches, brings every port to Active and keeps it so.\n\n"
		"  -c, --config FILE    configuration (default %s; absent: defaults);\n"
		"                       command-line options win over it\n"
		"  --check-config       check the configuration, print it normalised, exit\n"
		"                       (0 valid, 1 invalid, 2 unreadable)\n"
		"  --once               exit 0 at the first SUBNET UP, 1 if it cannot get there\n"
		"  --state-dir DIR      loomd's state: the guid-to-LID map, M_Key secret and\n"
		"                       links (default %s; over sm.state-dir)\n"
		"  --control PATH       the control socket loom status talks to\n"
		"                       (default " CTL_DEFAULT_PATH ")\n"
		"  --ca NAME            the CA to run on (default: the first)\n"
		"  --port N             its port (default: the first usable)\n"
		"  --open-timeout S     give up when opening the port takes longer, 1-3600 s\n"
		"                       (default 60)\n"
		"  --routing E[,E...]   routing engines tried in order until one routes the fabric;\n"
		"                       'auto' (the default) is ftree, vlayered, updn (see\n"
		"                       'loom route --help')\n"
		"  --fallback auto|none after those engines, try auto's (default auto); none:\n"
		"                       a fabric they refuse stays unrouted\n"
		"  --lmc N              LMC 0-7: 2^N LIDs per CA port (default 0)\n"
		"  --root GUID          updn's root switch by NodeGUID, repeatable (default: found)\n"
		"  --vls N              vlayered: VLs it may use, 1-8 (default 8)\n"
		"  --lfts FILE          file: the dump_lfts text to program\n"
		"  --sweep-interval S   seconds between light sweeps (default 10; 0: none timed,\n"
		"                       traps and the heavy sweep's period still start sweeps)\n"
		"  --priority N         SM priority 0-15 (default 0)\n"
		"  --mad-window N       SMPs in flight (default 16)\n"
		"  --mad-timeout MS     per try (default 200)\n"
		"  --mad-retries N      tries after the first (default 3)\n"
		"  -v, --verbose        debug messages\n"
		"  -h, --help           this text\n"
		"  --version            the version, then exit\n",
		CONFIG_DEFAULT_PATH, DEFAULT_STATE_DIR);
}

static int parse_uint(const char *opt, const char *s, unsigned lo, unsigned hi, unsigned *out)
{
	uint64_t v;

	if (strnum_u64(s, 0, lo, hi, &v) < 0) {
		fprintf(stderr, "loomd: %s: '%s' is not a number in %u..%u\n", opt, s, lo, hi);
		return -EINVAL;
	}
	*out = (unsigned)v;
	return 0;
}

int loomd_parse_args(int argc, char **argv, struct loomd_opts *o, enum log_level *lvl)
{
	enum { O_ONCE = 256, O_CHECK, O_ROOT, O_STATE, O_CA, O_PORT, O_ROUTING, O_LMC, O_SWEEP, O_PRIO,
	       O_WIN, O_TMO, O_RETRY, O_VLS, O_LFTS, O_FALLBACK, O_CONTROL,
	       O_OPEN_TMO, O_VERSION };
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "check-config", no_argument, NULL, O_CHECK },
		{ "once", no_argument, NULL, O_ONCE },
		{ "root", required_argument, NULL, O_ROOT },
		{ "state-dir", required_argument, NULL, O_STATE },
		{ "control", required_argument, NULL, O_CONTROL },
		{ "ca", required_argument, NULL, O_CA },
		{ "port", required_argument, NULL, O_PORT },
		{ "open-timeout", required_argument, NULL, O_OPEN_TMO },
		{ "routing", required_argument, NULL, O_ROUTING },
		{ "fallback", required_argument, NULL, O_FALLBACK },
		{ "lmc", required_argument, NULL, O_LMC },
		{ "vls", required_argument, NULL, O_VLS },
		{ "lfts", required_argument, NULL, O_LFTS },
		{ "sweep-interval", required_argument, NULL, O_SWEEP },
		{ "priority", required_argument, NULL, O_PRIO },
		{ "mad-window", required_argument, NULL, O_WIN },
		{ "mad-timeout", required_argument, NULL, O_TMO },
		{ "mad-retries", required_argument, NULL, O_RETRY },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, O_VERSION },
		{ 0 },
	};
	unsigned secs = 10;
	int c, r = 0;

	/* r first: after a bad option, getopt is not asked (and does not complain) again. */
	while (r == 0 && (c = getopt_long(argc, argv, "c:vh", longopts, NULL)) != -1) {
		switch (c) {
		case 'c': o->config = optarg; break;
		case O_CHECK: o->check_config = true; break;
		case O_ONCE: o->once = true; break;
		case O_ROOT: {
			char *end;

			errno = 0;
			if (o->n_roots == ARRAY_SIZE(o->roots)) {
				fprintf(stderr, "loomd: --root: at most %zu\n", ARRAY_SIZE(o->roots));
				r = -EINVAL;
				break;
			}
			o->roots[o->n_roots] = strtoull(optarg, &end, 16);
			if (errno || *end || !*optarg) {
				fprintf(stderr, "loomd: --root '%s': not a GUID (0x...)\n", optarg);
				r = -EINVAL;
				break;
			}
			o->n_roots++;
			o->set |= SET_ROOTS;
			break;
		}
		case O_STATE: o->state_dir = optarg; o->set |= SET_STATE; break;
		case O_CA: o->ca = optarg; break;
		case O_CONTROL: o->control = optarg; break;
		case O_PORT: r = parse_uint("--port", optarg, 1, 254, &o->port); break;
		case O_OPEN_TMO:
			r = parse_uint("--open-timeout", optarg, 1, 3600, &o->open_timeout_s);
			break;
		case O_ROUTING: o->engine = optarg; o->set |= SET_ENGINE; break;
		case O_FALLBACK:
			if (strcmp(optarg, "auto") && strcmp(optarg, "none")) {
				fprintf(stderr, "loomd: --fallback '%s': want auto or none\n", optarg);
				r = -EINVAL;
				break;
			}
			o->no_fallback = !strcmp(optarg, "none");
			o->set |= SET_FALLBACK;
			break;
		case O_LMC:
			r = parse_uint("--lmc", optarg, 0, ROUTE_LMC_MAX, &o->lmc);
			o->set |= SET_LMC;
			break;
		case O_VLS:
			r = parse_uint("--vls", optarg, 1, 8, &o->vls);
			o->set |= SET_VLS;
			break;
		case O_LFTS: o->lfts = optarg; o->set |= SET_LFTS; break;
		case O_SWEEP:
			r = parse_uint("--sweep-interval", optarg, 0,
					       (unsigned)(CONFIG_SWEEP_US_MAX / 1000000), &secs);
			o->set |= SET_SWEEP;
			break;
		case O_PRIO:
			r = parse_uint("--priority", optarg, 0, CONFIG_PRIORITY_MAX, &o->priority);
			o->set |= SET_PRIO;
			break;
		case O_WIN:
			r = parse_uint("--mad-window", optarg, 1, CONFIG_MAD_WINDOW_MAX, &o->txn.window);
			o->set |= SET_WIN;
			break;
		case O_TMO:
			r = parse_uint("--mad-timeout", optarg, 1,
					       (unsigned)(CONFIG_MAD_TIMEOUT_US_MAX / 1000), &o->txn.timeout_ms);
			o->set |= SET_TMO;
			break;
		case O_RETRY:
			r = parse_uint("--mad-retries", optarg, 0, CONFIG_MAD_RETRIES_MAX, &o->txn.retries);
			o->set |= SET_RETRY;
			break;
		case 'v': *lvl = LOG_LVL_DEBUG; break;
		case 'h': usage(stdout); exit(0);
		case O_VERSION: printf("loomd %s\n", PACKAGE_VERSION); exit(0);
		default: r = -EINVAL; break; /* getopt said which option, and why */
		}
	}
	if (r == 0 && optind < argc) {
		fprintf(stderr, "loomd: unexpected argument '%s'\n", argv[optind]);
		r = -EINVAL;
	}
	/* The one line that says what is wrong stays visible: no 40-line usage under it. */
	if (r < 0)
		fprintf(stderr, "Try 'loomd --help' for more information.\n");
	o->sweep_ms = secs * 1000;
	return r;
}

/* The configuration file under the command line (loomd.h). */
int loomd_apply_config(struct loomd_opts *o, struct config **keep)
{
	_cleanup_(config_freep) struct config *c = NULL;
	struct diag d = { 0 };
	const char *path = o->config ? o->config : CONFIG_DEFAULT_PATH;
	const struct config_sm *sm;
	int r;

	r = config_load_file(path, o->config != NULL, &c, &d);
	for (unsigned i = 0; i < d.n; i++)
		log_err("%s", d.msg[i]);
	diag_free(&d);
	if (r < 0) {
		if (r == -EINVAL)
			log_err("%s: invalid configuration; not starting (loomd --check-config -c %s "
				"lists the problems)", path, path);
		else
			log_err("%s: %s; not starting (give a readable file with -c, or none for "
				"the defaults)", path, strerror(-r));
		return r;
	}
	sm = &c->sm;
	if (!(o->set & SET_ENGINE))
		o->engine = config_engines_str(sm, o->engine_buf, sizeof(o->engine_buf));
	if (!(o->set & SET_FALLBACK))
		o->no_fallback = sm->routing.no_fallback;
	if (!(o->set & SET_LMC))
		o->lmc = sm->routing.lmc;
	if (!(o->set & SET_ROOTS))
		for (uint32_t i = 0; i < sm->routing.n_roots && o->n_roots < ARRAY_SIZE(o->roots); i++)
			o->roots[o->n_roots++] = sm->routing.root[i].guid;
	if (!(o->set & SET_VLS))
		o->vls = sm->routing.vls;
	if (!(o->set & SET_LFTS) && sm->routing.file) {
		snprintf(o->lfts_buf, sizeof(o->lfts_buf), "%s", sm->routing.file);
		o->lfts = o->lfts_buf;
	}
	if (!(o->set & SET_SWEEP)) /* 0: no timed light sweeps (daemon_sweep.c) */
		o->sweep_ms = (unsigned)(sm->sweep_us / 1000);
	if (!(o->set & SET_PRIO))
		o->priority = sm->priority;
	if (!(o->set & SET_WIN))
		o->txn.window = sm->mad.window;
	if (!(o->set & SET_TMO))
		o->txn.timeout_ms = (unsigned)(sm->mad.timeout_us / 1000) ?: 1;
	if (!(o->set & SET_RETRY))
		o->txn.retries = sm->mad.retries;
	if (!(o->set & SET_STATE) && sm->state_dir) {
		/* Kept for the daemon's lifetime: the config is freed below. */
		o->state_dir = strdup(sm->state_dir);
		if (!o->state_dir)
			return -ENOMEM;
	}
	*keep = TAKE_PTR(c);
	return 0;
}
