/* SPDX-License-Identifier: MIT */
/* loom-verbs command line. No libibverbs here, so the unit tests link it alone. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lib/strnum.h"
#include "verbs/opts.h"

const char *const vop_name[_OP_MAX] = {
	[OP_SEND_RC] = "send_rc",       [OP_SEND_UD] = "send_ud",
	[OP_WRITE] = "rdma_write",      [OP_WRITE_IMM] = "rdma_write_imm",
	[OP_READ] = "rdma_read",        [OP_FETCH_ADD] = "fetch_add",
	[OP_CMP_SWAP] = "cmp_swap",
};

void opts_usage(FILE *f)
{
	fputs("usage: loom-verbs [options] loopback\n"
	      "       loom-verbs [options] server\n"
	      "       loom-verbs [options] client HOST\n"
	      "Runs RDMA operations through libibverbs, checks every byte, reports latency and\n"
	      "bandwidth. loopback: two QPs of this process on one device; server/client: two\n"
	      "processes or hosts, set up over TCP.\n"
	      "\n"
	      "  -d, --dev NAME         device (default: the first with an active port)\n"
	      "  -i, --ib-port N        port number (default 1)\n"
	      "  -g, --gid-index N      GID index (default: a RoCE v2 IPv4 GID on Ethernet, else 0)\n"
	      "      --sl N             service level (default: from the SA's PathRecord on\n"
	      "                         InfiniBand, 0 on RoCE)\n"
	      "  -t, --tests LIST       send_rc,send_ud,rdma_write,rdma_write_imm,rdma_read,\n"
	      "                         fetch_add,cmp_swap or all (default all)\n"
	      "  -s, --sizes LIST       message sizes, k/M/G suffixes (default 2,64,4096,65536,1M);\n"
	      "                         atomics are always 8 bytes, UD at most the path MTU\n"
	      "  -n, --iters N          messages per phase, latency and bandwidth (default 1000)\n"
	      "  -D, --duration TIME    run each phase this long instead (5s, 500ms, 1m)\n"
	      "      --inline           send data inline in the WR where the QP allows the size\n"
	      "      --signal-every N   request a completion for every Nth send WR only (default 1)\n"
	      "      --batch N          chain N WRs per ibv_post_send (doorbell batching; default 1)\n"
	      "      --depth N          outstanding send WRs per QP (default 128)\n"
	      "      --srq              receive through one shared receive queue\n"
	      "      --qps N            QP pairs, messages spread over them (default 1, max 256)\n"
	      "      --compare-opts     measure what inline, signaling, batching and SRQ buy\n"
	      "      --pingpong         rdma_write, send_rc on 1 QP: also half round trips of\n"
	      "                         echoed messages, as perftest's ib_write_lat/ib_send_lat\n"
	      "  -p, --oob-port N       TCP port of the set-up exchange (default 18515)\n"
	      "      --rdma-cm          set up over rdma_cm instead of TCP (server/client): the\n"
	      "                         same port number in rdma_cm's TCP port space\n"
	      "      --timeout TIME     bound on every wait (default 30s)\n"
	      "      --seed N           pattern seed (default 1)\n"
	      "      --json             JSON on stdout instead of the table\n"
	      "  -q, --quiet            no progress lines on stderr\n"
	      "      --fault KIND:MSG[:OFF]  test only: spoil message MSG before it is checked;\n"
	      "                         KIND corrupt (one byte), stale (an older message's data)\n"
	      "                         or atomic (a wrong returned value)\n"
	      "      --path-to LID      test only: print the SL and MTU of the SA's PathRecord\n"
	      "                         from this port to LID (InfiniBand), then exit\n"
	      "  -h, --help             this text\n"
	      "Exit status: 0 all ran and verified, 1 a test failed or data did not match,\n"
	      "2 could not run (no device, port down, peer unreachable, bad options).\n",
	      f);
}

static int parse_size(const char *s, size_t *v)
{
	char *end;
	unsigned long long n;
	unsigned long long mul = 1;

	if (!*s || *s == '-')
		return -EINVAL;
	errno = 0;
	n = strtoull(s, &end, 10);
	if (errno || end == s)
		return -EINVAL;
	switch (*end) {
	case 'k': case 'K': mul = 1ull << 10; end++; break;
	case 'm': case 'M': mul = 1ull << 20; end++; break;
	case 'g': case 'G': mul = 1ull << 30; end++; break;
	}
	if (*end || n == 0 || n > VOPTS_MAX_SIZE / mul)
		return -EINVAL;
	*v = (size_t)(n * mul);
	return 0;
}

int opts_parse_sizes(const char *s, size_t *sizes, unsigned *n, char *why)
{
	char buf[512];
	char *save = NULL, *tok;
	unsigned k = 0;

	if (strlen(s) >= sizeof(buf)) {
		snprintf(why, 192, "size list too long");
		return -EINVAL;
	}
	strcpy(buf, s);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (k == VOPTS_MAX_SIZES) {
			snprintf(why, 192, "more than %d sizes", VOPTS_MAX_SIZES);
			return -EINVAL;
		}
		if (parse_size(tok, &sizes[k]) < 0) {
			snprintf(why, 192, "\"%.40s\" is not a size from 1 to 1G (e.g. 64, 4k, 1M)",
				 tok);
			return -EINVAL;
		}
		k++;
	}
	if (!k) {
		snprintf(why, 192, "empty size list");
		return -EINVAL;
	}
	*n = k;
	return 0;
}

int opts_parse_tests(const char *s, unsigned *mask, char *why)
{
	char buf[256];
	char *save = NULL, *tok;
	unsigned m = 0;
	int i;

	if (strlen(s) >= sizeof(buf)) {
		snprintf(why, 192, "test list too long");
		return -EINVAL;
	}
	strcpy(buf, s);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "all")) {
			m |= (1u << _OP_MAX) - 1;
			continue;
		}
		for (i = 0; i < _OP_MAX; i++)
			if (!strcmp(tok, vop_name[i]))
				break;
		if (i == _OP_MAX) {
			snprintf(why, 192, "unknown test \"%.40s\" (allowed: send_rc, send_ud, "
				 "rdma_write, rdma_write_imm, rdma_read, fetch_add, cmp_swap, all)",
				 tok);
			return -EINVAL;
		}
		m |= 1u << i;
	}
	if (!m) {
		snprintf(why, 192, "empty test list");
		return -EINVAL;
	}
	*mask = m;
	return 0;
}

int opts_parse_duration(const char *s, double *sec)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || !isfinite(v) || v <= 0)
		return -EINVAL;
	if (!strcmp(end, "ms"))
		v /= 1000;
	else if (!strcmp(end, "m"))
		v *= 60;
	else if (*end && strcmp(end, "s"))
		return -EINVAL;
	*sec = v;
	return 0;
}

int opts_parse_fault(const char *s, struct vfault *f)
{
	static const char *const kinds[] = { [FAULT_CORRUPT] = "corrupt", [FAULT_STALE] = "stale",
					     [FAULT_ATOMIC] = "atomic" };
	struct vfault nf = { .off = -1 };
	char buf[96];
	char *msg, *off;
	unsigned k;
	uint64_t u;

	if (strlen(s) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, s);
	msg = strchr(buf, ':');
	if (!msg)
		return -EINVAL;
	*msg++ = 0;
	for (k = FAULT_CORRUPT; k <= FAULT_ATOMIC; k++)
		if (!strcmp(buf, kinds[k]))
			break;
	if (k > FAULT_ATOMIC)
		return -EINVAL;
	nf.kind = k;
	off = strchr(msg, ':');
	if (off) {
		if (k != FAULT_CORRUPT)
			return -EINVAL;
		*off++ = 0;
		if (strnum_u64(off, 0, 0, INT64_MAX, &u) < 0)
			return -EINVAL;
		nf.off = (int64_t)u;
	}
	if (strnum_u64(msg, 0, 0, UINT64_MAX, &nf.msg) < 0)
		return -EINVAL;
	*f = nf;
	return 0;
}

enum {
	O_SL = 256, O_INLINE, O_SIGNAL, O_BATCH, O_DEPTH, O_SRQ, O_QPS, O_COMPARE, O_TIMEOUT,
	O_SEED, O_JSON, O_FAULT, O_PATH_TO, O_RDMA_CM, O_PINGPONG,
};

static const struct option longopts[] = {
	{ "dev", required_argument, NULL, 'd' },
	{ "ib-port", required_argument, NULL, 'i' },
	{ "gid-index", required_argument, NULL, 'g' },
	{ "sl", required_argument, NULL, O_SL },
	{ "tests", required_argument, NULL, 't' },
	{ "sizes", required_argument, NULL, 's' },
	{ "iters", required_argument, NULL, 'n' },
	{ "duration", required_argument, NULL, 'D' },
	{ "inline", no_argument, NULL, O_INLINE },
	{ "signal-every", required_argument, NULL, O_SIGNAL },
	{ "batch", required_argument, NULL, O_BATCH },
	{ "depth", required_argument, NULL, O_DEPTH },
	{ "srq", no_argument, NULL, O_SRQ },
	{ "qps", required_argument, NULL, O_QPS },
	{ "compare-opts", no_argument, NULL, O_COMPARE },
	{ "oob-port", required_argument, NULL, 'p' },
	{ "rdma-cm", no_argument, NULL, O_RDMA_CM },
	{ "pingpong", no_argument, NULL, O_PINGPONG },
	{ "timeout", required_argument, NULL, O_TIMEOUT },
	{ "seed", required_argument, NULL, O_SEED },
	{ "json", no_argument, NULL, O_JSON },
	{ "quiet", no_argument, NULL, 'q' },
	{ "fault", required_argument, NULL, O_FAULT },
	{ "path-to", required_argument, NULL, O_PATH_TO },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* A numeric option in [lo, hi]; complains in the house format otherwise. */
static int num_opt(const char *name, const char *arg, uint64_t lo, uint64_t hi, uint64_t *v,
		   FILE *err)
{
	if (strnum_u64(arg, 0, lo, hi, v) < 0) {
		fprintf(err, "loom-verbs: %s \"%s\": want a number from %" PRIu64 " to %" PRIu64
			"\n", name, arg, lo, hi);
		return -EINVAL;
	}
	return 0;
}

static void opts_default(struct vopts *o)
{
	static const size_t def_sizes[] = { 2, 64, 4096, 65536, 1u << 20 };

	memset(o, 0, sizeof(*o));
	o->ib_port = 1;
	o->gid_index = -1;
	o->sl = -1;
	o->tests = (1u << _OP_MAX) - 1;
	memcpy(o->sizes, def_sizes, sizeof(def_sizes));
	o->nsizes = 5;
	o->iters = 1000;
	o->timeout = 30;
	o->oob_port = 18515;
	o->qps = 1;
	o->depth = 128;
	o->signal_every = 1;
	o->batch = 1;
	o->seed = 1;
	o->fault.off = -1;
}

/* One option; returns 0, 1 for --help, -EINVAL. */
static int opts_one(struct vopts *o, int c, const char *arg, FILE *err)
{
	char why[192];
	uint64_t v = 0; /* what a refused number leaves in o: o is not used then */
	int r = 0;

	switch (c) {
	case 'd': o->dev = arg; break;
	case 'i': r = num_opt("--ib-port", arg, 1, 254, &v, err); o->ib_port = (int)v; break;
	case 'g': r = num_opt("--gid-index", arg, 0, 1023, &v, err); o->gid_index = (int)v; break;
	case O_SL: r = num_opt("--sl", arg, 0, 15, &v, err); o->sl = (int)v; break;
	case 'n': r = num_opt("--iters", arg, 1, UINT32_MAX, &v, err); o->iters = v; break;
	case O_SIGNAL: r = num_opt("--signal-every", arg, 1, 4096, &v, err);
		o->signal_every = (unsigned)v; break;
	case O_BATCH: r = num_opt("--batch", arg, 1, 4096, &v, err); o->batch = (unsigned)v; break;
	case O_DEPTH: r = num_opt("--depth", arg, 1, 8192, &v, err); o->depth = (unsigned)v; break;
	case O_QPS: r = num_opt("--qps", arg, 1, VOPTS_MAX_QPS, &v, err); o->qps = (unsigned)v; break;
	case 'p': r = num_opt("--oob-port", arg, 1, 65535, &v, err); o->oob_port = (unsigned)v; break;
	case O_SEED: r = num_opt("--seed", arg, 0, UINT64_MAX, &v, err); o->seed = v; break;
	case O_INLINE: o->inline_ = true; break;
	case O_SRQ: o->srq = true; break;
	case O_RDMA_CM: o->rdma_cm = true; break;
	case O_PINGPONG: o->pingpong = true; break;
	case O_COMPARE: o->compare = true; break;
	case O_JSON: o->json = true; break;
	case 'q': o->quiet = true; break;
	case O_PATH_TO: r = num_opt("--path-to", arg, 1, 0xbfff, &v, err);
		o->path_to = (uint16_t)v; break;
	case 'h': return 1;
	case 't':
	case 's':
		r = c == 't' ? opts_parse_tests(arg, &o->tests, why)
			     : opts_parse_sizes(arg, o->sizes, &o->nsizes, why);
		if (r < 0)
			fprintf(err, "loom-verbs: --%s: %s\n", c == 't' ? "tests" : "sizes", why);
		break;
	case 'D':
	case O_TIMEOUT:
		r = opts_parse_duration(arg, c == 'D' ? &o->duration : &o->timeout);
		if (r < 0)
			fprintf(err, "loom-verbs: --%s \"%s\": want a time such as 5s, 500ms, 1m\n",
				c == 'D' ? "duration" : "timeout", arg);
		break;
	case O_FAULT:
		r = opts_parse_fault(arg, &o->fault);
		if (r < 0)
			fprintf(err, "loom-verbs: --fault \"%s\": want corrupt:MSG[:OFF], stale:MSG "
				"or atomic:MSG\n", arg);
		break;
	default:
		fprintf(err, "loom-verbs: unknown option; see loom-verbs --help\n");
		r = -EINVAL;
	}
	return r;
}

int opts_parse(struct vopts *o, int argc, char **argv, FILE *err)
{
	int c, r, bad = 0;

	opts_default(o);
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+d:i:g:t:s:n:D:p:qh", longopts, NULL)) != -1) {
		if (c == '?' || c == ':') {
			fprintf(err, "loom-verbs: option \"%s\" unknown or missing its value; see "
				"loom-verbs --help\n", argv[optind - 1]);
			bad = 1;
			continue;
		}
		r = opts_one(o, c, optarg, err);
		if (r == 1)
			return 1;
		if (r < 0)
			bad = 1;
	}
	if (o->signal_every > o->depth || o->batch > o->depth) {
		fprintf(err, "loom-verbs: --signal-every %u and --batch %u must not exceed --depth "
			"%u (the send queue would fill before a completion is asked for)\n",
			o->signal_every, o->batch, o->depth);
		bad = 1;
	}
	if (o->path_to && optind == argc)
		return bad ? -EINVAL : 0;
	if (optind >= argc) {
		fprintf(err, "loom-verbs: missing mode: loopback, server or client HOST\n");
		return -EINVAL;
	}
	if (!strcmp(argv[optind], "loopback") && argc - optind == 1) {
		o->mode = MODE_LOOPBACK;
	} else if (!strcmp(argv[optind], "server") && argc - optind == 1) {
		o->mode = MODE_SERVER;
	} else if (!strcmp(argv[optind], "client") && argc - optind == 2) {
		o->mode = MODE_CLIENT;
		o->host = argv[optind + 1];
	} else {
		fprintf(err, "loom-verbs: bad mode \"%s\" (allowed: loopback, server, client "
			"HOST)\n", argv[optind]);
		return -EINVAL;
	}
	return bad ? -EINVAL : 0;
}
