/* SPDX-License-Identifier: MIT */
/*
 * loomd: the subnet manager daemon. One sd-event loop owns everything: the
 * umad fd (answers to our SMPs, and requests to the SM: SMInfo, Traps), the
 * sweep timer and the signals. A sweep runs to completion inside the loop
 * (txn_run polls the same fd, and the SM's agent answers requests from
 * within it), so nothing else needs to be told a sweep is in progress.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <systemd/sd-daemon.h>
#include <systemd/sd-event.h>

#include "config/config.h"
#include "lib/cleanup.h"
#include "lib/log.h"
#include "mad/txn.h"
#include "mad/umad.h"
#include "routing/route.h"
#include "sa/sa.h"
#include "loomd/agent.h"
#include "loomd/ctl.h"
#include "loomd/daemon.h"
#include "loomd/ha.h"
#include "loomd/smstate.h"
#include "loomd/ha_mirror.h"
#include "loomd/loomd.h"
#include "loomd/startguard.h"
#include "loomd/sweep.h"

#define ONCE_ATTEMPTS 5



static int on_sighup(sd_event_source *s, const struct signalfd_siginfo *si, void *arg)
{
	(void)s, (void)si;
	loomd_reload(arg, "SIGHUP", NULL);
	return 0;
}

/* Between sweeps: requests to the SM arrive here; a trap 128 asks for a sweep (soon). */
static void umad_input(struct loomd *d)
{
	int r;

	r = txn_drain(d->x);
	if (r < 0)
		log_warn("reading from %s port %u: %s", mad_umad_ca(d->u), mad_umad_port(d->u),
			 strerror(-r));
	if (d->ha_on && smstate_shown(&d->ha.sm) != SMP_SM_MASTER)
		d->agent.resweep = false;
	if (d->agent.resweep) {
		uint64_t now, at, soon;

		sd_event_now(d->ev, CLOCK_MONOTONIC, &now);
		soon = now + DAEMON_GATHER_MS * 1000ULL;
		/* The first trap of a burst sets the time; the others do not put it off. */
		if (sd_event_source_get_time(d->sweep_timer, &at) < 0 || at > soon)
			sd_event_source_set_time(d->sweep_timer, soon);
	}
}

/*
 * The loop. sd-event owns timers and signals; the umad fd is polled on its
 * own, between sd-event's turns, for at most TURN_MS. Why not an sd-event
 * io source: the simulator's umad2sim hands out fds that only its own
 * poll() wrapper understands (epoll refuses them, and its poll() ignores
 * every other fd in the set), and one loop for hardware and simulator keeps
 * the path the tests take the path production takes.
 */
#define TURN_MS 100

static int loop(struct loomd *d)
{
	struct pollfd pfd = { .fd = mad_umad_ops.fd(d->u), .events = POLLIN };
	int r;

	for (;;) {
		uint64_t now, next;
		int wait = TURN_MS;

		/* sd_event_run() dispatches one source a call; run all that are due. */
		do {
			if (sd_event_get_state(d->ev) == SD_EVENT_FINISHED)
				return 0;
			r = sd_event_run(d->ev, 0);
		} while (r > 0);
		if (r < 0)
			return r;
		if (sd_event_now(d->ev, CLOCK_MONOTONIC, &now) >= 0) {
			sa_tick(&d->sa, now / 1000); /* Reports not yet acknowledged */
			(void)ha_mirror_tick(&d->mirror, now / 1000); /* GetTables unanswered */
			(void)ha_mirror_tick(&d->links, now / 1000);
		}
		if (sd_event_now(d->ev, CLOCK_MONOTONIC, &now) >= 0 &&
		    sd_event_source_get_time(d->sweep_timer, &next) >= 0)
			wait = next <= now ? 0 : next - now < TURN_MS * 1000ULL ?
				(int)((next - now + 999) / 1000) : TURN_MS;
		r = poll(&pfd, 1, wait);
		if (r < 0 && errno != EINTR)
			return -errno;
		if (r > 0)
			umad_input(d);
	}
}

static void on_drop(void *arg, enum txn_drop why, const struct smp_hdr *h)
{
	static const char *const name[] = { [TXN_DROP_MALFORMED] = "malformed",
					    [TXN_DROP_UNEXPECTED] = "unexpected",
					    [TXN_DROP_LATE] = "late" };

	struct loomd *d = arg;

	/* A ReportResp: the transaction layer knows only its own TIDs; the SA's Reports are ours. */
	if (h && h->mgmt_class == 0x03 && h->method == 0x86) {
		sa_report_resp(&d->sa, h->tid);
		return;
	}
	if (h)
		log_debug("dropped a %s MAD: class 0x%02x method 0x%02x attr 0x%04x mod 0x%x tid 0x%08x",
			  name[why], h->mgmt_class, h->method, h->attr_id, h->attr_mod, h->tid);
	else
		log_debug("dropped a %s MAD (shorter than a MAD header)", name[why]);
}

/* SMInfo as the SA's SMInfoRecord and SM_Key check see it (IBA 14.2.5.13). */
static void sa_sm_info(void *arg, struct sa_sm *out)
{
	const struct loomd *d = arg;

	*out = (struct sa_sm){
		.guid = d->agent.guid,
		.sm_key = d->agent.sm_key,
		.act_count = (uint32_t)txn_stats(d->x)->sent,
		.priority = d->agent.priority,
		.state = d->agent.state,
	};
}

/* The other SMs, as the master's last look read them, for SMInfoRecords. */
static unsigned sa_sm_others(void *arg, struct sa_sm *out, unsigned max)
{
	const struct loomd *d = arg;
	unsigned n = 0;

	for (unsigned i = 0; i < d->ha.n_others && n < max; i++) {
		const struct smp_sm_info *o = &d->ha.others[i];

		out[n++] = (struct sa_sm){ .guid = o->guid, .sm_key = o->sm_key,
					   .act_count = o->act_count, .priority = o->priority,
					   .state = o->state };
	}
	return n;
}

/* The transport for the SA's answers: the port's GSI agent. */
static int sa_send(void *arg, const uint8_t *mad, size_t len, const struct mad_addr *to)
{
	struct loomd *d = arg;

	return mad_umad_ops.send(d->u, mad, len, 0, to);
}

/* Requests to us: SA queries to the SA, SMPs (SMInfo, Traps) to the SM's agent. */
static void on_request(void *arg, const uint8_t *mad, size_t len, const struct mad_addr *from);

/* sweep.h's hold: on while a worker routes; off hands back what was kept. */
static void on_hold(void *arg, bool on)
{
	struct loomd *d = arg;
	unsigned dropped = d->hold.dropped;

	d->hold.on = on;
	if (on)
		return;
	hold_replay(&d->hold, on_request, d);
	if (dropped)
		log_warn("%u requests dropped while routing ran (more than %u kept); their senders "
			 "retry", dropped, HOLD_MAX);
}

static void on_request(void *arg, const uint8_t *mad, size_t len, const struct mad_addr *from)
{
	struct loomd *d = arg;
	int r;

	bool master = !d->ha_on || d->agent.state == SMP_SM_MASTER;

	/* Routing on a worker: SMInfo Gets answered now, the rest kept for after. */
	if (d->hold.on && !hold_is_sminfo_get(mad, len)) {
		(void)hold_keep(&d->hold, mad, len, from);
		return;
	}

	/* An RMPP answer, whole (the long hook): the standby's GetTable of the master's SA. */
	if (from && from->agent == MAD_AGENT_SA && len >= 4 && (mad[3] & 0x80)) {
		if (!ha_mirror_input(&d->mirror, mad, len, daemon_mono_ms(d)) &&
		    !ha_mirror_input(&d->links, mad, len, daemon_mono_ms(d)))
			log_debug("dropped an SA answer from LID %u (%zu bytes): no fetch of ours "
				  "waits for it", from->lid, len);
		return;
	}
	if (!from || from->agent != MAD_AGENT_SA) {
		agent_request(&d->agent, mad, len, from);
		if (d->sa_on && master)
			sa_trap(&d->sa, mad, len); /* a trap: Reports to its subscribers */
		return;
	}
	if (!master) {
		/* IBA 15.1: only the master's SA answers; requesters ask the master's LID. */
		log_debug("SA: request from LID %u ignored: this SM is %s", from->lid,
			  smstate_name(d->agent.state));
		return;
	}
	r = sa_request(&d->sa, mad, len, from);
	if (r == -EPROTO)
		log_debug("dropped an SA MAD from LID %u QP %u (%zu bytes): not a request we can "
			  "answer", from->lid, from->qpn, len);
	else if (r == -EACCES)
		log_warn("SA: ignored a request from LID %u QP %u with a wrong SM_Key (attribute "
			 "0x%04x): IBA 15.2.1.1 discards it; the requester must send 0 or sm-key",
			 from->lid, from->qpn, len >= 18 ? (unsigned)(mad[16] << 8 | mad[17]) : 0u);
	else if (r < 0)
		log_warn("SA: answering LID %u QP %u (attribute 0x%04x, method 0x%02x) failed: %s; "
			 "the requester will retry or time out",
			 from->lid, from->qpn, len >= 18 ? (unsigned)(mad[16] << 8 | mad[17]) : 0u,
			 len >= 4 ? mad[3] : 0u, strerror(-r));
}

static int run_once(struct loomd *d)
{
	struct sweep_stats st;

	for (unsigned i = 0; i < ONCE_ATTEMPTS; i++) {
		if (daemon_heavy(d, &st) < 0)
			return 1;
		if (st.up)
			return 0;
	}
	log_err("no SUBNET UP after %u heavy sweeps: %s", ONCE_ATTEMPTS, st.why_not);
	return 1;
}

/* What the control socket asks of loomd (ctl.h); status reads struct ctl_view. */
static void ctl_sweep(void *arg, bool heavy)
{
	struct loomd *d = arg;
	uint64_t now;

	if (heavy)
		d->agent.resweep = d->sw.force_heavy = true;
	sd_event_now(d->ev, CLOCK_MONOTONIC, &now);
	sd_event_source_set_time(d->sweep_timer, now);
}

static int ctl_reload(void *arg, FILE *out)
{
	return loomd_reload(arg, "loom reload", out);
}

/* loom handover: give up a sticky mastership, and look at the other SMs now. */
static int ctl_handover(void *arg, FILE *out)
{
	struct loomd *d = arg;
	const struct smstate *s = &d->ha.sm;
	unsigned higher = 0;
	int r = smstate_release(&d->ha.sm);

	if (r == -EPERM) {
		fprintf(out, "this loomd is %s, not master: it has no mastership to hand over\n",
			smstate_name(smstate_shown(s)));
		return r;
	}
	if (r == -EALREADY) {
		fprintf(out, "nothing holds mastership here (%s): this master hands over to a "
			"higher SM as soon as it sees one\n",
			s->sticky ? "master from the start, not by a takeover" : "sm.sticky is false");
		return r;
	}
	for (unsigned i = 0; i < d->ha.n_others; i++)
		higher += smstate_outranks(d->ha.others[i].priority, d->ha.others[i].guid,
					   s->priority, s->guid);
	fprintf(out, "sm.sticky released; %u SM%s outranking this one at the last look: %s\n",
		higher, higher == 1 ? "" : "s",
		higher ? "sending HANDOVER at the next light sweep (now)" :
			 "none to hand over to yet; the first that appears gets HANDOVER");
	ctl_sweep(d, false);
	return 0;
}

static const struct ctl_ops loomd_ctl_ops = { .sweep = ctl_sweep, .reload = ctl_reload,
					      .handover = ctl_handover };

static int run_daemon(struct loomd *d)
{
	uint64_t now;
	int r;

	r = sd_event_default(&d->ev);
	if (r < 0)
		return r;
	d->ha_on = true;
	daemon_ha_do(d, smstate_input(&d->ha.sm, &(struct sm_ev){ .in = SMI_START }));
	/* NULL handler: sd-event exits the loop on these signals. */
	r = sd_event_add_signal(d->ev, NULL, SIGTERM, NULL, NULL);
	if (r >= 0)
		r = sd_event_add_signal(d->ev, NULL, SIGINT, NULL, NULL);
	if (r >= 0)
		r = sd_event_add_signal(d->ev, NULL, SIGHUP, on_sighup, d);
	if (r >= 0)
		r = sd_event_now(d->ev, CLOCK_MONOTONIC, &now);
	if (r >= 0)
		r = sd_event_add_time(d->ev, &d->sweep_timer, CLOCK_MONOTONIC, now, 1000, daemon_sweep_timer, d);
	if (r >= 0)
		r = sd_event_source_set_enabled(d->sweep_timer, SD_EVENT_ON);
	if (r >= 0)
		r = sd_event_set_watchdog(d->ev, true);
	if (r >= 0) {
		/* Without it loomd runs on (ctl_open says why): the subnet comes first. */
		ctl_open(d->ev, &(struct ctl_conf){
				.path = d->o.control ? d->o.control : CTL_DEFAULT_PATH,
				.group = d->cfg ? d->cfg->sm.control_group : NULL,
				.view = { .agent = &d->agent, .x = d->x, .sa = &d->sa, .sw = &d->sw,
					  .cfg = &d->cfg, .why_not = d->why_not, .ha = &d->ha },
				.ops = &loomd_ctl_ops, .arg = d }, &d->ctl);
		r = loop(d);
	}
	sd_notify(0, "STOPPING=1");
	ctl_close(d->ctl);
	d->ctl = NULL;
	sd_event_source_unref(d->sweep_timer);
	sd_event_unref(d->ev);
	if (r < 0)
		log_err("event loop: %s", strerror(-r));
	return r < 0 ? 1 : 0;
}


static uint64_t mkey_hook(void *arg, const struct smp_req *r)
{
	struct mkey *m = arg;
	uint64_t k = mkey_for_req(m, r);

	if (!k)
		m->unkeyed++; /* HA: a discovery that lost these may have missed an SM */
	return k;
}

/*
 * The mkey: section: the secret (created on the first start), the routes
 * the last run learned. Refuses to start on a secret others may read.
 */
static int mkey_setup(struct loomd *d)
{
	uint8_t secret[MKEY_SECRET_LEN];
	char file[PATH_MAX];
	bool created;
	int r;

	if (!d->cfg || !d->cfg->mkey.on)
		return 0;
	snprintf(file, sizeof(file), "%s/mkey.secret", d->o.state_dir);
	r = mkey_secret_load(file, secret, &created);
	if (r == -EPERM) {
		log_err("M_Key secret %s may be read by others than its owner; every node's "
			"M_Key follows from it. Make it mode 0600 (chmod 600 %s) and check who "
			"read it; not starting", file, file);
		return r;
	}
	if (r == -EPROTO) {
		log_err("M_Key secret %s is not %u bytes; restore it from the copy the standby "
			"SMs hold, or remove it to key the fabric anew (only on a fabric without "
			"protected ports); not starting", file, MKEY_SECRET_LEN);
		return r;
	}
	if (r < 0) {
		log_err("M_Key secret %s: %s; not starting", file, strerror(-r));
		return r;
	}
	if (created)
		log_info("M_Key secret %s created (mode 0600); copy it to the standby SMs' state "
			 "dirs to let them take over (loomd(8): M_Keys and standbys)", file);
	d->mkey_created = created;
	mkey_init(&d->mkey, secret, d->cfg->mkey.protect, d->cfg->mkey.lease_s);
	explicit_bzero(secret, sizeof(secret));
	d->mkey_on = true;
	snprintf(d->mkey_paths, sizeof(d->mkey_paths), "%s/mkey.paths", d->o.state_dir);
	r = mkey_paths_load(&d->mkey, d->mkey_paths);
	if (r < 0)
		log_warn("%s: %s; starting without it: nodes whose M_Key protects them may not "
			 "answer until rediscovered", d->mkey_paths,
			 r == -EPROTO ? "malformed" : strerror(-r));
	snprintf(d->mkey_links, sizeof(d->mkey_links), "%s/mkey.links", d->o.state_dir);
	r = mkey_links_load(&d->mkey, d->mkey_links);
	if (r < 0)
		log_warn("%s: %s; starting without it: nodes whose M_Key protects them may not "
			 "answer until rediscovered", d->mkey_links,
			 r == -EPROTO ? "malformed" : strerror(-r));
	log_info("M_Key protection on: protect %u, lease %us, %u routes and %u links known",
		 d->cfg->mkey.protect, d->cfg->mkey.lease_s, d->mkey.n, d->mkey.n_links);
	return 0;
}

static int setup(struct loomd *d, struct startguard *g)
{
	struct diag msgs = { .limit = 50 };
	struct sweep_opts so = { .route = { .lmc = (uint8_t)d->o.lmc, .roots = d->o.roots,
					    .n_roots = d->o.n_roots, .vls = (uint8_t)d->o.vls,
					    .file = d->o.lfts } };
	struct stat st;
	int r;

	char bad[64], chain[128];

	r = route_chain_parse(d->o.engine, !d->o.no_fallback, &so.engines, bad, sizeof(bad));
	if (r < 0) {
		size_t n;
		const struct route_engine *const *e = route_engine_list(&n);
		char names[128] = "";

		for (size_t i = 0; i < n; i++)
			snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
				 i ? ", " : "", e[i]->name);
		log_err("routing engine '%s' (--routing or the configuration's sm.routing.engine) "
			"is not available; this loomd has: %s, and auto", bad, names);
		return -EINVAL;
	}
	/* The file engine's tables are read at every sweep: missing, no sweep could route. */
	for (unsigned i = 0; i < so.engines.n; i++)
		if (so.engines.e[i] == &route_file &&
		    (!d->o.lfts || access(d->o.lfts, R_OK) < 0)) {
			log_err("routing engine file: %s%s%s; give its dump_lfts text with --lfts or "
				"sm.routing.file; not starting", d->o.lfts ? d->o.lfts : "no tables given",
				d->o.lfts ? ": " : "", d->o.lfts ? strerror(errno) : "");
			return -EINVAL;
		}
	if ((mkdir(d->o.state_dir, 0755) < 0 && errno != EEXIST) ||
	    stat(d->o.state_dir, &st) < 0 || (!S_ISDIR(st.st_mode) && (errno = ENOTDIR))) {
		r = -errno;
		log_err("state dir %s: %s; give another with --state-dir or sm.state-dir",
			d->o.state_dir, strerror(-r));
		return r;
	}
	snprintf(d->guid2lid, sizeof(d->guid2lid), "%s/guid2lid", d->o.state_dir);
	r = mkey_setup(d);
	if (r < 0)
		return r;
	so.guid2lid = d->guid2lid;
	/* Without a file there are no partitions to program: P_Keys are left as they are. */
	so.config = d->cfg && d->cfg->file ? d->cfg : NULL;
	flap_opts_from(&so.flap, d->cfg);
	so.heavy_ms = d->cfg ? (unsigned)(d->cfg->sm.heavy_sweep_us / 1000) : 300000;
	so.sm_lid_checks = d->cfg ? d->cfg->sm.master_lid_checks : 8;
	/* libibumad may never return here (umad2sim waits for its simulator for ever). */
	if (d->o.port)
		startguard_doing(g, d->o.open_timeout_s, "opening %s port %u",
				 d->o.ca ? d->o.ca : "the first CA", d->o.port);
	else
		startguard_doing(g, d->o.open_timeout_s, "opening the first usable port of %s",
				 d->o.ca ? d->o.ca : "the first CA");
	log_debug("opening the port (up to %u s, --open-timeout)", d->o.open_timeout_s);
	/* Port 0 is "the first usable port" (--port's default), not a port 0. */
	char where[96];

	if (d->o.port)
		snprintf(where, sizeof(where), "%s port %u", d->o.ca ? d->o.ca : "the first CA",
			 d->o.port);
	else
		snprintf(where, sizeof(where), "%s, its first usable port",
			 d->o.ca ? d->o.ca : "the first CA");
	r = mad_umad_open(d->o.ca, d->o.port, MAD_UMAD_SM | MAD_UMAD_SA, &d->u);
	d->sa_on = r == 0;
	if (r < 0 && r != -ENODEV) {
		log_warn("opening %s with the SA agent (class 0x03, GSI) failed: %s; "
			 "trying again without an SA (is another SA registered on this port?)",
			 where, strerror(-r));
		r = mad_umad_open(d->o.ca, d->o.port, MAD_UMAD_SM, &d->u);
	}
	if (r < 0) {
		log_err("cannot open %s for SMPs: %s; %s", where, strerror(-r),
			r == -ENODEV && (d->o.ca || d->o.port) ?
			"ibstat lists the CAs and ports there are (--ca, --port)" :
			"is ib_umad loaded, and are we root?");
		return r;
	}
	startguard_doing(g, 0, "setting up on %s port %u", mad_umad_ca(d->u), mad_umad_port(d->u));
	r = txn_new(&mad_umad_ops, d->u, &d->o.txn, &d->x);
	if (r < 0)
		return r;
	if (d->mkey_on) {
		/* Every walk through the links starts at our own node. */
		mkey_set_self(&d->mkey, mad_umad_node_guid(d->u));
		txn_set_mkey_hook(d->x, mkey_hook, &d->mkey);
		so.mkey = &d->mkey;
		so.mkey_paths = d->mkey_paths;
		so.mkey_links = d->mkey_links;
	}
	txn_set_drop_hook(d->x, on_drop, d);
	/*
	 * Our port's GUID as the kernel shows it: SMInfo answers carry it from
	 * the start, not 0 until the first discovery (OpenSM polling us then
	 * logs ERR 2F19, an unexpected SM port GUID).
	 */
	agent_init(&d->agent, d->x, mad_umad_port_guid(d->u), (uint8_t)d->o.priority);
	/* SMInfo's SM_Key and the SA's: a trusted SA request must carry it. */
	d->agent.sm_key = d->cfg ? d->cfg->sm.sm_key : 0;
	ha_init(&d->ha, d->x, (uint8_t)d->o.priority, d->agent.sm_key,
		d->cfg ? d->cfg->sm.poll_us : 2000000, d->cfg ? d->cfg->sm.poll_misses : 3,
		d->cfg && d->cfg->sm.sticky);
	if (d->mkey_on) {
		d->ha.mkey = &d->mkey;
		d->ha.mkey_links = d->mkey_links;
		d->ha.mkey_created = d->mkey_created;
		d->ha.local_port = mad_umad_port(d->u);
	}
	d->agent.on_set = daemon_on_sm_set;
	d->agent.on_set_arg = d;
	txn_set_request_hook(d->x, on_request, d);
	/* One-MAD answers to the standby's GetTables: TIDs the transaction layer does not own. */
	txn_set_response_hook(d->x, daemon_on_response, d);
	/* SA requests longer than a MAD (RMPP: MultiPathRecords) bypass txn's MAD-sized reads. */
	mad_umad_set_long_hook(d->u, on_request, d);
	r = sweeper_init(&d->sw, d->x, &d->agent, &so, &msgs);
	d->sw.hold = on_hold;
	d->sw.hold_arg = d;
	sa_init(&d->sa, sa_send, d, sa_sm_info, d);
	sa_set_others(&d->sa, sa_sm_others, d);
	if (r == 0) {
		/* The SA changes groups; the sweep timer programs their MFTs. */
		sa_set_view(&d->sa, &(struct sa_view){ .mcast = d->sw.mcast });
		d->sw.mcast->changed = daemon_mcast_changed;
		d->sw.mcast->changed_arg = d;
	}
	daemon_log_msgs(&msgs);
	diag_free(&msgs);
	if (r < 0)
		log_err("%s: %s", d->guid2lid, strerror(-r));
	else
		log_info("on %s port %u, routing %s, LMC %u, state in %s%s", mad_umad_ca(d->u),
			 mad_umad_port(d->u), route_chain_str(&so.engines, chain, sizeof(chain)),
			 d->o.lmc, d->o.state_dir,
			 d->sa_on ? ", SA on" : ", no SA");
	return r;
}

int main(int argc, char **argv)
{
	struct loomd d = { .o = { .state_dir = DEFAULT_STATE_DIR, .engine = "auto",
				  .open_timeout_s = 60, .txn = TXN_OPTS_DEFAULT } };
	enum log_level lvl = LOG_LVL_INFO;
	int rc;

	if (loomd_parse_args(argc, argv, &d.o, &lvl) < 0)
		return 1;
	if (d.o.check_config)
		return loomd_check_config(&d.o);
	log_init("loomd", lvl);
	if (loomd_apply_config(&d.o, &d.cfg) < 0)
		return 1;
	/*
	 * Block the signals sd-event takes through a signalfd before any
	 * thread exists: libibumad's simulator shim starts a reader thread,
	 * and a signal may go to any thread that has it unblocked.
	 */
	sigset_t ss;

	sigemptyset(&ss);
	sigaddset(&ss, SIGTERM);
	sigaddset(&ss, SIGINT);
	sigaddset(&ss, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &ss, NULL);
	/*
	 * Until sd-event's signalfd takes them, the guard does: SIGTERM and
	 * SIGINT end loomd at any moment of setup(), a hung open included.
	 */
	struct startguard guard = { 0 };

	if (startguard_start(&guard) < 0)
		log_warn("no thread to watch for SIGTERM while starting; until the port is open, "
			 "only SIGKILL stops loomd");
	rc = setup(&d, &guard) < 0;
	startguard_stop(&guard);
	if (rc == 0)
		rc = d.o.once ? run_once(&d) : run_daemon(&d);
	sa_free(&d.sa);
	sweeper_free(&d.sw);
	mkey_free(&d.mkey);
	ha_free(&d.ha);
	ha_mirror_free(&d.mirror);
	ha_mirror_free(&d.links);
	config_free(d.cfg);
	config_free(d.cfg_planned);
	txn_free(d.x);
	mad_umad_close(d.u);
	return rc;
}
